"""The Futures page: the review since the last one (or a snapshot's date, from the URL), judged
against the company's fleet, with the figures ``tokendesk futures compare --format json`` prints,
every figure with its source, date and confidence, and the decision log (editors record)."""

from __future__ import annotations

import json
from datetime import date

import pandas as pd
import pytest
from streamlit.testing.v1 import AppTest
from typer.testing import CliRunner

from app.models import futures as model
from app.models.futures import SINCE_LAST_REVIEW
from app.models.tables import has_no_literals
from cli.main import app as cli
from planning.workspaces import example_workspace
from tests.app.pages import VIEWS, shown
from tests.app.team import EDITOR, TEAM, VIEWER
from tokendesk.labels import sku_label
from warehouse import Warehouse
from warehouse.decisions import LastReview, decisions

PAGE = str(VIEWS / "futures.py")


def _page(params: dict | None = None, user: dict | None = None) -> AppTest:
    at = AppTest.from_file(PAGE, default_timeout=120)
    for key, value in (params or {}).items():
        at.query_params[key] = value
    if user is not None:
        at.secrets, at.user = TEAM, user
    for section in SECTIONS:  # every list open, as a reader going through the review has them
        at.session_state[section] = True
    at.run()
    assert not at.exception, at.exception
    return at


#: The review's full lists, each drawn when its section is opened.
SECTIONS = ("futures_all_moves", "futures_all_new_skus", "futures_per_dollar")


#: The page's tables in the order it draws them (AppTest does not name a table by its key).
ORDER = (
    "futures_effects",
    "futures_suggestions",
    "futures_moves",
    "futures_new_skus",
    "futures_results",
    "futures_log",
)


def _table(at: AppTest, key: str) -> pd.DataFrame:
    return at.dataframe[ORDER.index(key)].value


def _cli_json(db, *extra: str) -> dict:
    command = ["futures", "compare", "--format", "json", "--to", date.today().isoformat()]
    done = CliRunner().invoke(cli, [*command, "--db", str(db), *extra])
    assert done.exit_code == 0, done.output
    return json.loads(done.stdout)


def test_the_page_shows_the_figures_the_cli_json_prints(app_env):
    at = _page()
    report = _cli_json(app_env)
    # The same review window: since the last review (here the oldest snapshot) until today.
    assert at.subheader[0].value == f"{report['from']} → {report['to']}"

    suggested = _table(at, "futures_suggestions")
    expected = pd.DataFrame(report["suggestions"])
    assert len(suggested) == len(expected) > 0
    keys = zip(suggested["New SKU"], suggested["Model"], strict=True)
    page = dict(zip(keys, suggested["$/1K output"], strict=True))
    cli_rows = {
        (sku_label(r.provider, None, r.instance_type), r.model): r.usd_per_1k_output
        for r in expected.itertuples()
    }
    assert page.keys() == cli_rows.keys()
    for key, value in cli_rows.items():
        # the JSON writes 10 decimal places
        assert page[key] == pytest.approx(value, rel=1e-6), key
    assert list(suggested["Suggestion"]) == list(expected["suggestion"])

    effects = _table(at, "futures_effects")
    cli_effects = pd.DataFrame(report["fleet_effects"])
    assert list(effects["Stay per month ($)"]) == pytest.approx(
        list(cli_effects["stay_change_usd_per_month"])
    )
    total = cli_effects["stay_change_usd_per_month"].sum()
    metric = next(m for m in at.metric if m.label == "Stay per month")
    assert metric.value == f"−${abs(total):,.0f}"  # a cut: Stay is lower
    assert f"${abs(total):,.0f} a month lower" in shown(at.markdown[0].value)


def test_every_figure_carries_its_source_date_and_confidence(app_env):
    at = _page()
    for key, columns in {
        "futures_effects": ("Source", "Source date", "Confidence"),
        "futures_suggestions": (
            "Price source",
            "Price date",
            "Price confidence",
            "Result source",
            "Result date",
            "Result confidence",
        ),
        "futures_moves": ("Source now", "Source date", "Confidence"),
        "futures_new_skus": ("Source", "Source date", "Confidence"),
    }.items():
        table = _table(at, key)
        assert set(columns) <= set(table.columns), (key, table.columns)
        assert has_no_literals(table), key
        for column in columns:
            assert (table[column].astype(str).str.strip() != "").all(), (key, column)
    # A price whose source states no date says so, never a made-up one.
    assert (_table(at, "futures_suggestions")["Price date"] == "date unknown").any()


def test_perf_per_dollar_is_shown_for_the_models_the_company_runs(app_env):
    at = _page()
    table = _table(at, "futures_results")
    runs = {m for w in example_workspace().demand for m in w.models}
    expected = {
        (r["accelerator_id"], r["model"]): r["tokens_per_usd_to"]
        for r in _cli_json(app_env)["perf_per_dollar"]
        if r["model"] in runs
    }
    assert expected, "the example's models have perf-per-dollar rows"
    keys = zip(table["Accelerator"], table["Model"], strict=True)
    shown = dict(zip(keys, table["Output tokens per $ now"], strict=True))
    assert shown.keys() == expected.keys()  # no model the company does not run
    for key, value in expected.items():
        if value is None:  # no option on the later date: shown as a dash
            assert shown[key] == "—", key
        else:
            # numeric, or text at whole tokens when the column has a gap
            assert float(str(shown[key]).replace(",", "")) == pytest.approx(value, abs=0.5), key


def test_the_start_comes_from_the_url_and_a_bad_one_is_refused(app_env):
    with Warehouse.open(app_env, read_only=True) as warehouse:
        days = warehouse.snapshots().query("status == 'ok'")["as_of"].dt.date.unique()
    later = sorted(d for d in days if d < date.today())[-2]
    picked = _page({"since": later.isoformat()})
    assert picked.subheader[0].value.startswith(f"{later.isoformat()} → ")

    bad = _page({"since": "2024-13-45"})
    assert any("Ignored since='2024-13-45'" in w.value for w in bad.warning)
    default = _page()
    assert bad.subheader[0].value == default.subheader[0].value


def test_a_viewer_cannot_record_a_decision_and_an_editor_can(writable_env):
    viewer = _page(user=VIEWER)
    assert viewer.button(key="FormSubmitter:futures_decide-Record").disabled
    assert any("recording a futures-day decision needs" in i.value for i in viewer.info)

    editor = _page(user=EDITOR)
    editor.text_input(key="decide_subject").input("gcp a3-highgpu-8g")
    editor.selectbox(key="decide_decision").select("defer")
    editor.text_area(key="decide_rationale").input("needs an FTL run at our prompt lengths")
    editor.button(key="FormSubmitter:futures_decide-Record").click().run()
    assert not editor.exception, editor.exception
    assert any("Decision 1 recorded" in s.value for s in editor.success)
    with Warehouse.open(writable_env, read_only=True) as warehouse, warehouse.reading():
        log = decisions(warehouse)
    assert list(log["decided_by"]) == ["lee@example.com"]
    assert list(log["decision"]) == ["defer"]
    assert len(log["snapshot_ids"].iloc[0]) > 0  # the review's snapshots are linked
    # Recording a decision does not end the review: the next run shows the same review, and
    # the log with the decision in it.
    again = _page(user=EDITOR)
    assert again.subheader[0].value == editor.subheader[0].value
    assert not again.info
    assert list(_table(again, "futures_log")["Subject"]) == ["gcp a3-highgpu-8g"]


def test_closing_the_review_on_purpose_ends_it_and_an_empty_window_says_why(writable_env):
    assert _page(user=VIEWER).button(key="futures_close").disabled
    editor = _page(user=EDITOR)
    start = editor.subheader[0].value.split(" → ")[0]
    editor.button(key="futures_close").click().run()
    assert not editor.exception, editor.exception
    assert any("closed" in s.value for s in editor.success)
    # Closed today: the page shows that review again, from its own start, and says why.
    again = _page(user=EDITOR)
    assert again.subheader[0].value == f"{start} → {date.today().isoformat()}"
    assert "closed on" in again.selectbox(key="since").format_func(SINCE_LAST_REVIEW)


def test_the_default_window_is_said_in_words_when_there_is_nothing_to_compare():
    today = date(2026, 12, 3)
    none_yet = model.window_of(SINCE_LAST_REVIEW, None, today)
    assert none_yet.start is None and "no snapshot yet" in none_yet.why
    fresh = LastReview(today, "oldest snapshot")
    assert model.start_of(SINCE_LAST_REVIEW, fresh, today) is None
    assert "no earlier price or result" in model.nothing_to_compare(SINCE_LAST_REVIEW, fresh, today)
    closed = LastReview(date(2026, 9, 30), "review", date(2026, 7, 1))
    assert model.start_of(SINCE_LAST_REVIEW, closed, today) == date(2026, 9, 30)
    closed_today = LastReview(today, "review", date(2026, 9, 30))
    assert model.start_of(SINCE_LAST_REVIEW, closed_today, today) == date(2026, 9, 30)
    assert model.start_of("2026-10-01", closed_today, today) == date(2026, 10, 1)


def test_an_empty_rationale_is_refused_in_words(writable_env):
    at = _page()
    at.text_input(key="decide_subject").input("x")
    at.button(key="FormSubmitter:futures_decide-Record").click().run()
    assert not at.exception, at.exception
    assert [e.value for e in at.error] == [
        "Nothing was recorded: a decision needs a non\\-empty rationale."
    ]


def test_a_viewer_sees_no_negotiated_quote_in_the_review(writable_env):
    from tests.factories import negotiated_quotes

    with Warehouse.open(writable_env) as warehouse:
        warehouse.ingest_prices(
            "sheet:examplecloud:negotiated", negotiated_quotes("examplecloud", {"q-1": "Q-1"})
        )
    editor = _page(user=EDITOR)
    assert "examplecloud" in set(_table(editor, "futures_new_skus")["Provider"])
    viewer = _page(user=VIEWER)
    assert "examplecloud" not in set(_table(viewer, "futures_new_skus")["Provider"])


def test_the_full_lists_are_drawn_when_opened(app_env):
    """Closed, the review's three full lists send no table; each opened draws its own."""
    at = AppTest.from_file(PAGE, default_timeout=120)
    at.run()
    assert not at.exception, at.exception
    closed = len(at.dataframe)
    titles = [e.label for e in at.expander]
    assert any(t.startswith("All price moves") for t in titles)
    at.session_state["futures_all_moves"] = True
    at.run()
    assert len(at.dataframe) == closed + 1
    assert "Source now" in at.dataframe[2].value.columns  # the moves, after effects and buys


def test_a_review_window_reuses_the_dashboards_engine_and_agrees_with_the_command(
    writable_env, monkeypatch
):
    """Each window's review prices the fleet with the engine the dashboard already holds for
    the workspace (building one took a third of a review); the figures stay the command's."""
    from planning import workspaces

    built = []
    real = workspaces.engine_for
    monkeypatch.setattr(workspaces, "engine_for", lambda *a, **k: built.append(1) or real(*a, **k))
    at = _page()
    assert built == []
    head = {m.label: m.value for m in at.metric}
    expected = _cli_json(writable_env)
    assert head["Price moves"] == f"{len(expected['price_changes']):,}"
    assert head["New SKUs"] == f"{len(expected['new_skus']):,}"


def test_each_day_a_window_starts_or_ends_on_is_read_once_when_first_needed(
    writable_env, monkeypatch
):
    """The warehouse as it stood on a day is read, one day at a time, when a window first starts
    or ends on it (reading every day a window might start on at once grew with the price
    history: 17 s at 20 times data/'s size, against 0.4 s a day); a window on days already read
    reads nothing, and every window's figures stay the command's."""
    from warehouse import as_of as wf

    picks = ["2026-08-06", "2026-05-18", "last-review", "2026-08-06"]
    expected = {
        since: _cli_json(writable_env, "--from", since) for since in set(picks) - {"last-review"}
    }
    reads = []
    real = wf.costs_as_of_days
    monkeypatch.setattr(
        wf, "costs_as_of_days", lambda w, days: reads.append(list(days)) or real(w, days)
    )
    at = _page()
    first = len(reads)
    assert first <= 2  # the first review's two days (one when it starts today)
    for since in picks:
        at.session_state["since"] = since
        at.run()
        assert not at.exception, at.exception
        if since in expected:
            head = {m.label: m.value for m in at.metric}
            assert head["Price moves"] == f"{len(expected[since]['price_changes']):,}"
            assert head["New SKUs"] == f"{len(expected[since]['new_skus']):,}"
    days = [day for read in reads for day in read]
    assert all(len(read) == 1 for read in reads), reads
    assert len(days) == len(set(days)), days  # no day read twice
    # Two new starts (today's end was read by the first review); the last two picks read nothing.
    assert len(reads) == first + 2, reads
    assert {d.isoformat() for d in days} >= {"2026-08-06", "2026-05-18", date.today().isoformat()}
