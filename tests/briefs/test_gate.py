"""The gate's outputs (``briefs.gate``): the pull-request comment and the JUnit XML say the same
verdict per check as the report ``planning.regression_gate`` computed."""

from __future__ import annotations

from datetime import date
from xml.etree import ElementTree as ET

from briefs.gate import junit_xml, markdown
from planning.gate_inputs import GateException
from planning.regression_gate import Check, GateReport

CONFIG = dict(
    backend="cuda",
    accelerator_id="nvidia-h100-sxm-80gb",
    accelerators_per_replica="1",
    runtime="vllm",
    model="m",
    precision="bf16",
    workload="chat",
    scenario="",
    concurrency="16",
    request_rate_rps="",
    runtime_version="0.6.0 → 0.6.1",
)


def _report() -> GateReport:
    slower = Check(CONFIG, "cost", "$/1K output tokens", 0.010, 0.012, 0.2, "regression", "+20%")
    later = Check(CONFIG, "ftl", "TTFT p95 (ms)", 100.0, 130.0, 0.3, "excepted", "exception: known")
    unmeasured = Check(CONFIG, "ftl", "TTFT", None, None, None, "not-compared", "no TTFT")
    known = GateException((("model", "m"),), "ftl", "known prefill change", date(2026, 12, 31))
    return GateReport(
        "a.json",
        "b.json",
        0.10,
        0.10,
        checks=[slower, later, unmeasured],
        applied_exceptions=[(known, later)],
        missing_in_candidate=[dict(CONFIG, concurrency="64", runtime_version="")],
        cost_rule="cost = $/1K output tokens.",
    )


def test_the_comment_lists_each_check_with_its_verdict():
    text = markdown(_report())
    assert "❌ **FAIL** — 1 regression(s)" in text
    rows = [line for line in text.splitlines() if line.startswith("| ") and "·" in line]
    assert [row.split(" | ")[0] for row in rows] == [
        "| ❌ regression",
        "| ⚠️ excepted",
        "| ➖ not compared",
    ]
    assert "$0.01000" in rows[0] and "+20.0%" in rows[0] and "130 ms" in rows[1]
    assert "- model=m [ftl]: known prefill change (expires 2026-12-31)" in text
    assert "- cuda · nvidia-h100-sxm-80gb · 1 · vllm · m · bf16 · chat · 64" in text


def test_the_junit_xml_counts_the_same_checks():
    suite = ET.fromstring(junit_xml(_report()))
    assert (suite.get("tests"), suite.get("failures"), suite.get("skipped")) == ("3", "1", "1")
    assert [f.get("type") for f in suite.iter("failure")] == ["regression"]
    assert any("exception: known" in (e.text or "") for e in suite.iter("system-out"))
