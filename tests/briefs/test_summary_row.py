"""The scenario summary row is computed once: the brief shows what the Scenarios page shows."""

from __future__ import annotations

from dataclasses import replace

from briefs.brief import brief_document
from costmodel.summary import NO_INTERACTIVE_TRAFFIC, slo_status, summary_row


def _summary_table(comparison):
    return next(t for t in brief_document(comparison).tables() if t.title.startswith("Recommend"))


def test_the_brief_summary_carries_the_page_row(comparison):
    frame = _summary_table(comparison).frame.set_index("option")
    base = comparison.baseline
    for result in comparison.results:
        page_row = summary_row(result, base)
        brief_row = frame.loc[result.name]
        for column, value in page_row.items():
            if column == "Scenario":
                continue
            assert brief_row[column] == value or (
                value != value and brief_row[column] != brief_row[column]
            ), column


def test_no_interactive_traffic_reads_the_same_everywhere(comparison):
    batch_only = replace(comparison.results[1], latency=())
    assert slo_status(batch_only) == NO_INTERACTIVE_TRAFFIC
    assert summary_row(batch_only, comparison.baseline)["Meets FTL SLO"] == NO_INTERACTIVE_TRAFFIC
    with_latency = comparison.results[0]
    assert slo_status(with_latency) in {"yes", "no"} or not with_latency.latency
