"""A workspace fleet line bought under a negotiated quote: its rate is the contract's, so a role
that may not see negotiated quotes reads the line without it on the Workspace page and in the
YAML download, and the Scenarios page prices the line at the public on-demand list price for
them (never at the contract's rate or the negotiated quote's) and shows its own rate and cost as
withheld. Every brief format and page is checked for derived figures in
``test_viewer_confidential.py``."""

from __future__ import annotations

import gc
from dataclasses import replace

import pandas as pd
import pytest
from streamlit.testing.v1 import AppTest

from app.models.withheld import (
    WITHHELD_NOTE,
    WITHHELD_RATE,
    masked_frame,
    masked_rows,
    priced_at_list,
    restore_rates,
    withhold_rates,
)
from costmodel.workspace_model import workspace_from_dict
from tests.app.pages import VIEWS
from tests.app.team import EDITOR, TEAM, VIEWER
from tests.factories import negotiated_quotes
from warehouse import Warehouse
from warehouse.workspace_versions import current_workspace, save_workspace

#: A rate no other figure on the pages has, so its absence is telling.
SECRET_RATE = 12.3457
NEGOTIATED_LINE = {
    "provider": "examplecloud",
    "region": "any",
    "instance_type": "q-1",
    "count": 2,
    "pricing_model": "negotiated",
    "commitment_end": "2027-12-31",
    "early_termination_usd": 98765.0,
}


def _with_negotiated_line(path, rate: float | None) -> None:
    """Store the current workspace again with one negotiated fleet line added."""
    negotiated = negotiated_quotes("examplecloud", {"q-1": "Q-1", "q-2": "Q-2"})
    with Warehouse.open(path) as warehouse:
        warehouse.ingest_prices("sheet:examplecloud:negotiated", negotiated)
        _, body = current_workspace(warehouse) or (None, None)
        line = dict(NEGOTIATED_LINE, serves=body["demand"][0]["workload"])
        if rate is not None:
            line["usd_per_hour"] = rate
        body = dict(body, fleet=[*body["fleet"], line])
        workspace_from_dict(body)  # the test's own workspace must be valid
        save_workspace(warehouse, body, origin="import", source="test")


def _page(name: str, user: dict | None) -> AppTest:
    at = AppTest.from_file(str(VIEWS / name), default_timeout=180)
    if user is not None:
        at.secrets, at.user = TEAM, user
    at.run()
    assert not at.exception, at.exception
    return at


def _download(at: AppTest, key: str) -> bytes:
    """The bytes a download button would serve (AppTest keeps them in its media storage)."""
    from streamlit.runtime.memory_media_file_storage import MemoryMediaFileStorage

    file_id = at.get("download_button")[0].proto.url.rsplit("/", 1)[-1].split(".")[0]
    for storage in (o for o in gc.get_objects() if isinstance(o, MemoryMediaFileStorage)):
        try:
            return storage.get_file(file_id).content
        except Exception:  # another test's storage: keep looking
            continue
    raise AssertionError(f"no stored file for {key}")


@pytest.fixture
def negotiated_env(writable_env):
    _with_negotiated_line(writable_env, SECRET_RATE)
    return writable_env


@pytest.fixture
def unrated_env(writable_env):
    _with_negotiated_line(writable_env, None)
    return writable_env


def _fleet_text(at: AppTest) -> str:
    return at.dataframe(key="ws_fleet").value.to_csv(index=False)


def test_a_viewer_reads_the_workspace_without_the_negotiated_rate(negotiated_env):
    at = _page("workspace.py", VIEWER)
    fleet = _fleet_text(at)
    assert "q-1" in fleet and "Negotiated" in fleet  # the line is there, its model in words …
    assert str(SECRET_RATE) not in fleet and "98765" not in fleet  # … without its terms
    assert any(WITHHELD_NOTE in c.value for c in at.caption)
    exported = _download(at, "ws_export").decode()
    assert "q-1" in exported and str(SECRET_RATE) not in exported and "98765" not in exported


def test_an_editor_reads_and_downloads_the_rate(negotiated_env):
    at = _page("workspace.py", EDITOR)
    assert str(SECRET_RATE) in _fleet_text(at)
    assert str(SECRET_RATE) in _download(at, "ws_export").decode()
    assert not any(WITHHELD_NOTE in c.value for c in at.caption)


@pytest.mark.parametrize("env", ["negotiated_env", "unrated_env"], ids=["rate", "no-rate"])
def test_the_viewers_scenarios_page_works_and_withholds_the_line(env, request):
    request.getfixturevalue(env)
    at = _page("scenarios.py", VIEWER)
    assert not [e.value for e in at.error if "fleet[" in e.value]
    # The fleet tables read their headers and pricing models as words ("Negotiated").
    frames = [d.value for d in at.dataframe if "Pricing model" in d.value.columns]
    negotiated = pd.concat(frames)
    negotiated = negotiated[negotiated["Pricing model"] == "Negotiated"]
    assert not negotiated.empty, "the negotiated line is in Stay"
    assert set(negotiated["$/hour"]) == {"—"} and set(negotiated["$/month"]) == {"—"}
    assert negotiated["Note"].str.startswith(WITHHELD_RATE).all()
    for frame in frames:
        assert str(SECRET_RATE) not in frame.to_csv(index=False)


def test_the_editors_scenarios_page_shows_the_rate(negotiated_env):
    at = _page("scenarios.py", EDITOR)
    frames = [d.value for d in at.dataframe if "Pricing model" in d.value.columns]
    negotiated = pd.concat(frames)
    negotiated = negotiated[negotiated["Pricing model"] == "Negotiated"]
    assert not negotiated.empty and (negotiated["$/hour"].astype(float) == SECRET_RATE).all()


# -- the rules themselves -------------------------------------------------------------------------
def _workspace(rate: float | None = SECRET_RATE):
    from tests.factories import fixture_workspace

    ws = fixture_workspace()
    line = dict(NEGOTIATED_LINE, serves=ws.demand[0].workload)
    if rate is not None:
        line["usd_per_hour"] = rate
    from costmodel.workspace_model import workspace_to_dict

    body = workspace_to_dict(ws)
    body["fleet"].append(line)
    return workspace_from_dict(body)


def test_withholding_then_restoring_gives_back_the_stored_terms():
    ws = _workspace()
    shown = withhold_rates(ws)
    assert shown.fleet[-1].usd_per_hour is None and shown.fleet[-1].early_termination_usd is None
    assert shown.fleet[:-1] == ws.fleet[:-1]  # other lines keep their rates
    assert restore_rates(shown, ws) == ws
    without = replace(ws, fleet=ws.fleet[:-1])
    assert withhold_rates(without) is without  # nothing negotiated, nothing withheld


def _option(provider, region, instance, model, usd, accelerator="nvidia-h100-sxm-80gb"):
    from costmodel.option_table import Option

    return Option(
        option_id=f"{provider}-{region}-{instance}-{model}",
        provider=provider,
        region=region,
        instance_type=instance,
        pricing_model=model,
        accelerator_id=accelerator,
        vendor="nvidia",
        backend="cuda",
        usd_per_unit_hour=usd,
        accelerators_per_unit=8,
        accelerators_per_replica=8,
        replicas_per_unit=1,
        config_key="c",
        model="m",
        precision="bf16",
        runtime="vllm",
        points=(),
        n_table_points=1,  # the rule reads prices only
    )


def test_a_negotiated_line_is_priced_at_list_never_at_its_rate_or_quote():
    quotes = negotiated_quotes("examplecloud", {"q-1": "Q-1"})
    options = [
        _option("examplecloud", "any", "q-1", "on_demand", 40.0),
        _option("examplecloud", "other", "q-1", "on_demand", 30.0),
        _option("examplecloud", "any", "q-1", "spot", 5.0),
    ]
    for rate in (SECRET_RATE, None):
        priced, notes = priced_at_list(_workspace(rate=rate), options, quotes)
        line = priced.fleet[-1]
        # The on-demand list price in the line's own region (not the spot one, not elsewhere).
        assert line.usd_per_hour == 40.0 and line.early_termination_usd is None
        assert priced.fleet[:-1] == _workspace(rate=rate).fleet[:-1]
        assert len(notes) == 1 and "on-demand list price" in notes[0]


def test_a_sku_with_no_list_price_is_priced_by_its_accelerators_or_left_out():
    quotes = negotiated_quotes("examplecloud", {"q-1": "Q-1"})
    # Another provider's on-demand 8-GPU H100 instances: $/accelerator-hour 5.0 and 4.0.
    options = [
        _option("aws", "us-east-1", "p5", "on_demand", 40.0),
        _option("x", "y", "z", "on_demand", 32.0),
    ]
    priced, notes = priced_at_list(_workspace(), options, quotes)
    assert priced.fleet[-1].usd_per_hour == 4.0 * 8  # the lowest per accelerator x 8 of them
    assert "same accelerators" in notes[0]
    bare, notes = priced_at_list(_workspace(), [], quotes)
    assert len(bare.fleet) == len(_workspace().fleet) - 1
    assert "left out" in notes[0]


def test_plan_lines_and_brief_tables_lose_only_the_negotiated_money_figures():
    rows = [
        {"pricing_model": "negotiated", "usd_per_hour": 12.3, "monthly_usd": 9.0, "note": ""},
        {"pricing_model": "on_demand", "usd_per_hour": 40.0, "monthly_usd": 5.0, "note": "x"},
    ]
    masked = masked_rows(rows)
    assert masked[0]["usd_per_hour"] is None and masked[0]["note"] == WITHHELD_RATE
    assert masked[1] == rows[1]
    frame = pd.DataFrame(
        {"pricing model": ["negotiated", "spot"], "$/hour": [12.3, 2.0], "count": [2, 3]}
    )
    out = masked_frame(frame)
    assert out["$/hour"].tolist()[0] is None and out["$/hour"].tolist()[1] == 2.0
    assert out["count"].tolist() == [2, 3]


def _brief_markdown() -> None:
    """The Scenarios brief (Markdown) as the person of this session would download it."""
    import streamlit as st

    from app import data, plan_reads
    from planning.workspaces import Knobs

    path = data.db_path()
    _, ws = data.workspace(path)
    st.code(plan_reads.workspace_brief(path, ws, Knobs(), "md", "1k").decode(), language="markdown")


@pytest.mark.parametrize(("user", "shown"), [(VIEWER, False), (EDITOR, True)])
def test_the_brief_withholds_the_rate_from_a_viewer_only(negotiated_env, user, shown):
    at = AppTest.from_function(_brief_markdown, default_timeout=300)
    at.secrets, at.user = TEAM, user
    at.run()
    assert not at.exception, at.exception
    brief = at.code[0].value
    assert "q-1" in brief
    assert (f"{SECRET_RATE:.2f}" in brief or str(SECRET_RATE) in brief) is shown
    line_cost = f"{2 * SECRET_RATE * 730:,.0f}"  # 2 instances x rate x 730 h
    if not shown:
        assert line_cost not in brief
