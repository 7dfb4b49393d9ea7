"""The Benchmarks page draws only the open tab: the results table, the throughput chart, the
parity table, the import form, the import history and the estimates' validation chart are each
sent only while their tab is open (every tab drawn on each run cost the server as much as the
one in view)."""

from __future__ import annotations

from streamlit.testing.v1 import AppTest

from tests.app.pages import VIEWS, open_section

TABS = "benchmarks_tab"
LABELS = [
    "Results",
    "Throughput vs FTL",
    "Output parity",
    "Import result file",
    "Import history",
    "Estimates vs measured",
]


def _drawn(at: AppTest) -> list[str]:
    """The tabs that hold anything on the page."""
    return [tab.label for tab in at.tabs if tab.children]


def test_only_the_open_tab_is_drawn(fixture_env):
    at = AppTest.from_file(str(VIEWS / "benchmarks.py"), default_timeout=60)
    at.run()
    assert not at.exception, at.exception
    assert [t.label for t in at.tabs] == LABELS  # every tab is still offered
    assert _drawn(at) == ["Results"]  # the first tab is open to begin with
    assert len(at.dataframe) == 1  # the results table; not parity's nor the history's
    assert not at.get("plotly_chart") and not at.get("file_uploader")
    for label in LABELS:
        open_section(at, TABS, label)
        assert _drawn(at) == [label], label
    open_section(at, TABS, "Throughput vs FTL")
    assert [c.proto.id.endswith("curve_chart") for c in at.get("plotly_chart")] == [True]
    open_section(at, TABS, "Import result file")
    assert [u.key for u in at.get("file_uploader")] == ["upload_file"]
    assert not at.get("plotly_chart") and len(at.dataframe) == 0
