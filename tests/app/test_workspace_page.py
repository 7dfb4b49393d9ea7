"""The Workspace page and its page model: edited tables become a validated workspace or a
problem that names the table, row and column; a save appends a version the Scenarios page uses.
Over the fixture warehouse and its workspace (tests/fixtures/warehouse/README.md)."""

from __future__ import annotations

import pytest
from streamlit.testing.v1 import AppTest

from app.models import workspace as model
from tests.app.pages import VIEWS
from tests.factories import fixture_workspace
from warehouse import Warehouse
from warehouse.workspace_versions import workspace_versions


def test_edited_tables_round_trip_to_the_same_workspace():
    ws = fixture_workspace()
    again, problems = model.edited_workspace(ws, model.fleet_rows(ws), model.demand_rows(ws))
    assert problems == [] and again == ws


def test_a_bad_cell_names_table_row_and_column():
    ws = fixture_workspace()
    fleet = model.fleet_rows(ws)
    fleet[1]["count"] = -3
    edited, problems = model.edited_workspace(ws, fleet, model.demand_rows(ws))
    assert edited is None
    assert problems[0].startswith("Fleet line 2 (p5.48xlarge), Count: Instance count must be")
    demand = model.demand_rows(ws)
    demand[0]["peak_to_mean"] = 24.0
    _, problems = model.edited_workspace(ws, model.fleet_rows(ws), demand)
    assert problems[0].startswith(f"Workload 1 ({ws.demand[0].workload}), Peak ÷ mean")


def test_an_edited_count_changes_stay_by_count_times_rate_times_730(fixture_env):
    from planning.evaluation import compare
    from planning.workspaces import engine_for

    ws = fixture_workspace()
    fleet = model.fleet_rows(ws)
    fleet[1]["count"] = 3  # 1 -> 3 p5.48xlarge at the $40.00 list price (cheapest-nvidia-on-demand)
    edited, _ = model.edited_workspace(ws, fleet, model.demand_rows(ws))
    with Warehouse.open(fixture_env, read_only=True) as wh:
        engine = engine_for(wh)
    before, after = compare(engine, ws)[0], compare(engine, edited)[0]
    assert before.monthly_usd == 109_500  # (3 x $30 + 1 x $40 + 2 x $10) x 730 h
    assert round(after.monthly_usd - before.monthly_usd, 2) == 58_400  # 2 x $40 x 730 h


def test_the_page_saves_a_new_version(writable_fixture_env):
    at = AppTest.from_file(str(VIEWS / "workspace.py"), default_timeout=60)
    at.run()
    assert not at.exception, at.exception
    assert at.text_input(key="ws_name").value == "Fixture Co"
    at.text_input(key="ws_name").set_value("Fixture Co (edited)")
    at.button(key="ws_save").click().run()
    assert not at.exception, at.exception
    # Version 1 is the bundled example every new warehouse stores, 2 the imported fixture.
    assert any("Saved as version 3" in s.value for s in at.success)
    # the header names the version just saved, not the one the page opened on
    captions = [c.value.replace("\\", "") for c in at.caption]
    assert "Current: **Fixture Co (edited)**, version 3." in captions
    with Warehouse.open(writable_fixture_env, read_only=True) as wh:
        versions = workspace_versions(wh)
    assert list(versions["name"]) == ["Fixture Co (edited)", "Fixture Co", "Example Corp"]
    # everything else the page shows (tables in people's units, settings) is saved as it was
    from dataclasses import replace

    from costmodel.workspace_model import workspace_from_dict
    from warehouse.workspace_versions import current_workspace

    with Warehouse.open(writable_fixture_env, read_only=True) as wh:
        _, body = current_workspace(wh) or (None, {})
    assert workspace_from_dict(body) == replace(fixture_workspace(), name="Fixture Co (edited)")


def test_the_page_previews_an_uploaded_bill_and_saves_its_fleet(writable_fixture_env):
    """The bill upload shows the same figures as `tokendesk workspace from-bill` and stores
    nothing until its save button is pressed (tests/fixtures/bills/README.md has the sums)."""
    from tokendesk.paths import REPO_ROOT

    bill = REPO_ROOT / "tests" / "fixtures" / "bills" / "aws_focus_1_2_gpu_fleet.csv"
    at = AppTest.from_file(str(VIEWS / "workspace.py"), default_timeout=120)
    at.run()
    with Warehouse.open(writable_fixture_env, read_only=True) as wh:
        before = len(workspace_versions(wh))
    at.file_uploader(key="ws_bill").set_value([(bill.name, bill.read_bytes(), "text/csv")]).run()
    assert not at.exception, at.exception
    # p5 reserved 115,521.12 + 1,510.08 idle and p5 on demand 61,424.64; the fixture warehouse
    # prices no g6e.xlarge, so its spot hours are listed as not in the price data instead.
    text = " ".join(m.value.replace("\\", "") for m in at.markdown)
    assert "2026-10: accelerator spend on the bill $178,455.84" in text, text
    (unplaced,) = [d.value for d in at.dataframe if "Reason" in d.value.columns]
    reasons = unplaced["Reason"].tolist()
    assert "accelerator instance not in the price data (aws g6e.xlarge)" in reasons
    captions = " ".join(c.value.replace("\\", "") for c in at.caption)
    assert "aws_focus_1_2_gpu_fleet.csv (14 rows, FOCUS 1.2, AWS, billed $1,451,910.52)" in captions
    with Warehouse.open(writable_fixture_env, read_only=True) as wh:
        assert len(workspace_versions(wh)) == before
    at.button(key="ws_bill_save").click().run()
    assert not at.exception, at.exception
    assert any("Saved as version" in s.value for s in at.success)
    with Warehouse.open(writable_fixture_env, read_only=True) as wh:
        newest = workspace_versions(wh).iloc[0]
    assert newest["origin"] == "bill"
    assert newest["source"].startswith(
        "bill: aws_focus_1_2_gpu_fleet.csv (2026-10); accelerator spend $178,455.84,"
    )


def test_the_scenarios_page_says_when_the_fleet_comes_from_a_bill(writable_fixture_env):
    from planning import bill as bill_import
    from tokendesk.paths import REPO_ROOT

    bill = REPO_ROOT / "tests" / "fixtures" / "bills" / "aws_focus_1_2_gpu_fleet.csv"
    at = AppTest.from_file(str(VIEWS / "scenarios.py"), default_timeout=120)
    at.run()
    assert not any("comes from your cloud bill" in c.value for c in at.caption)
    with Warehouse.open(writable_fixture_env) as wh:
        report = bill_import.build_report(wh, [bill])
        version = bill_import.save_report(wh, report)
    at = AppTest.from_file(str(VIEWS / "scenarios.py"), default_timeout=120)
    at.run()
    assert not at.exception, at.exception
    captions = " ".join(c.value.replace("\\", "") for c in at.caption)
    assert (
        "The fleet comes from your cloud bill: bill: aws_focus_1_2_gpu_fleet.csv (2026-10);"
        f" accelerator spend $178,455.84, Stay month 1 $195,187.40 (workspace version {version},"
    ) in captions


# ------------------------------------------------------------------ demand from a trace
def _real(name: str) -> bytes:
    from tokendesk.paths import REPO_ROOT

    return (REPO_ROOT / "tests" / "fixtures" / "real" / "traces" / name).read_bytes()


def test_an_uploaded_azure_trace_gives_the_clis_figures_and_both_plots():
    from app import charts
    from briefs.demand_doc import trace_document
    from tokendesk.paths import REPO_ROOT

    name = "AzureLLMInferenceTrace_code_first2000.csv"
    doc, refused = model.trace_demand(name, _real(name))
    assert refused is None and doc is not None
    cli = trace_document(REPO_ROOT / "tests" / "fixtures" / "real" / "traces" / name)
    assert doc == cli  # one computation, whichever way the file arrives
    curve = model.hour_of_day_frame(doc)
    assert list(curve["hour"]) == ["18:00"] and curve["relative_rate"].iloc[0] == 1.0
    lengths = model.length_frame(doc)
    assert lengths.groupby("which")["requests"].sum().to_dict() == {"Input": 2000, "Output": 2000}
    # the excerpt's shortest prompt and reply are both 6 tokens: bin 4–7
    assert (doc["input_length"]["min"], doc["output_length"]["min"]) == (6, 6)
    assert list(lengths["tokens"][:2]) == ["4–7", "4–7"]
    assert list(lengths["which"][:2]) == ["Input", "Output"]
    figure = charts.length_distribution(lengths)
    assert [t.name for t in figure.data] == ["Input", "Output"]
    assert len(charts.daily_curve(curve, doc["hour_of_day"]["clock"]).data) == 1
    # under an hour of trace: no daily curve on the page, the per-minute rate instead
    assert not model.daily_curve_complete(doc)
    over_time = model.over_time_frame(doc)
    assert over_time["relative_rate"].max() == pytest.approx(doc["peak_to_mean"])
    assert len(over_time) == int(doc["trace_hours"] * 60)  # whole minutes
    assert len(charts.rate_over_time(over_time).data) == 1


def test_a_mooncake_trace_has_no_daily_curve_and_a_bad_upload_is_refused_plainly():
    doc, _ = model.trace_demand("m.jsonl", _real("mooncake_conversation_trace_first300.jsonl"))
    assert doc is not None and model.hour_of_day_frame(doc).empty
    assert doc["prefix_cache_share"] > 0
    doc, refused = model.trace_demand(
        "x.csv", b"TIMESTAMP,ContextTokens,GeneratedTokens\nnow,1,1\n"
    )
    assert doc is None and refused.startswith("x.csv, line 2: TIMESTAMP 'now'")
    big = b"x" * (model.MAX_TRACE_UPLOAD_BYTES + 1)
    doc, refused = model.trace_demand("big.csv", big)
    assert doc is None and "workspace demand-from" in refused


def test_the_on_demand_basis_is_edited_on_the_page_and_saved(writable_fixture_env):
    from planning.workspaces import stored_workspace

    at = AppTest.from_file(str(VIEWS / "workspace.py"), default_timeout=60)
    at.run()
    # The fixture is the company's own workspace: no example notice.
    assert not any("bundled example" in w.value for w in at.warning)
    assert at.radio(key="ws_basis").value == "held"
    at.radio(key="ws_basis").set_value("autoscaled")
    at.button(key="ws_save").click().run()
    assert not at.exception, at.exception
    with Warehouse.open(writable_fixture_env, read_only=True) as wh:
        _, ws = stored_workspace(wh)
    assert ws.on_demand_basis == "autoscaled"


def test_the_bundled_example_says_it_is_not_the_users(tmp_path, monkeypatch):
    from tests.factories import seeded_warehouse

    db = tmp_path / "example.duckdb"
    seeded_warehouse(db).close()
    monkeypatch.setenv("TOKENDESK_DB", str(db))
    at = AppTest.from_file(str(VIEWS / "workspace.py"), default_timeout=60)
    at.run()
    assert not at.exception, at.exception
    notice = next(w.value for w in at.warning if "bundled example" in w.value)
    assert "not yours" in notice and "Example Corp" in notice


def test_the_bill_preview_says_what_each_line_becomes_and_saving_keeps_what_it_does_not_know(
    writable_fixture_env,
):
    """A No Upfront RI bill over the fixture workspace: the preview lists each line as kept /
    changed / added / removed with the reason, the RI's fee is the reserved line's billed cost
    apart from its usage, and saving keeps the commitment end the bill does not state."""
    from costmodel.workspace_model import workspace_from_dict
    from tokendesk.paths import REPO_ROOT
    from warehouse.workspace_versions import current_workspace

    bill = REPO_ROOT / "tests" / "fixtures" / "bills" / "aws_focus_1_2_no_upfront_ri.csv"
    (end,) = [e.commitment_end for e in fixture_workspace().fleet if e.commitment_end]
    at = AppTest.from_file(str(VIEWS / "workspace.py"), default_timeout=120)
    at.run()
    at.file_uploader(key="ws_bill").set_value([(bill.name, bill.read_bytes(), "text/csv")]).run()
    assert not at.exception, at.exception
    (changes,) = [d.value for d in at.dataframe if "Why" in d.value.columns]
    by_line = {
        (r["Instance type"], r["Pricing model"]): r for r in changes.to_dict(orient="records")
    }
    reserved = by_line["p5.48xlarge", "reserved_1y"]
    assert reserved["Change"] in ("kept", "changed")
    assert f"commitment end {end} kept from the current workspace" in reserved["Details"]
    assert by_line["m7i.48xlarge", "on_demand"]["Change"] == "removed"
    assert all(changes["Why"])
    (fleet,) = [d.value for d in at.dataframe if "Commitment fees $" in d.value.columns]
    ri = fleet[fleet["Pricing model"] == "reserved_1y"].iloc[0]
    # tests/fixtures/bills/README.md: the monthly fee 5 x 744 h x $31.46 = $117,031.20.
    assert (ri["Billed $"], ri["Usage billed $"], ri["Commitment fees $"]) == (
        "117,031.20",
        "0.00",
        "117,031.20",
    )
    at.button(key="ws_bill_save").click().run()
    assert not at.exception, at.exception
    with Warehouse.open(writable_fixture_env, read_only=True) as wh:
        _, body = current_workspace(wh) or (None, {})
    saved = workspace_from_dict(body)
    (p5,) = [e for e in saved.fleet if e.pricing_model == "reserved_1y"]
    assert p5.commitment_end == end
