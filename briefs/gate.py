"""The CI regression gate's outputs: the pull-request comment (Markdown) and the JUnit XML of a
``GateReport`` that ``planning.regression_gate`` computed."""

from __future__ import annotations

from datetime import datetime
from xml.etree import ElementTree as ET

from planning.gate_inputs import norm_value
from planning.regression_gate import FTL_AND_EXCEPTION_RULE, GateReport


def _fmt(value: float | None, metric: str, basis: str) -> str:
    if value is None:
        return "—"
    if metric == "ftl":
        return f"{value:,.0f} ms"
    if basis.startswith("$"):
        return f"${value:.5f}" if value < 1 else f"${value:,.3f}"
    return f"{value:,.2f} acc·s"


def _md(text: object) -> str:
    return str(text).replace("|", "\\|").replace("\n", " ")


def markdown(report: GateReport) -> str:
    r = report
    verdict = "✅ **PASS**" if r.passed else f"❌ **FAIL** — {len(r.regressions)} regression(s)"
    out = [
        "## tokendesk gate",
        "",
        f"{verdict}: baseline `{_md(r.baseline)}` vs candidate "
        f"`{_md(r.candidate)}`; limits: cost +{r.max_cost_regression:.1%}, "
        f"FTL +{r.max_ftl_regression:.1%}.",
        "",
        "| status | configuration | metric | baseline | candidate | change | note |",
        "|---|---|---|---:|---:|---:|---|",
    ]
    order = {"regression": 0, "excepted": 1, "not-compared": 2, "pass": 3}
    icons = {
        "regression": "❌ regression",
        "excepted": "⚠️ excepted",
        "not-compared": "➖ not compared",
        "pass": "✅ pass",
    }
    for c in sorted(r.checks, key=lambda c: (order[c.status], c.label, c.metric)):
        change = "—" if c.change_pct is None else f"{c.change_pct:+.1%}"
        out.append(
            f"| {icons[c.status]} | {_md(c.label)} "
            f"({_md(c.config['runtime_version'])}) | {c.metric}: {_md(c.basis)} | "
            f"{_fmt(c.baseline, c.metric, c.basis)} | "
            f"{_fmt(c.candidate, c.metric, c.basis)} | {change} | {_md(c.note)} |"
        )
    if r.applied_exceptions:
        out += ["", "**Exceptions applied**", ""]
        out += [
            f"- {_md(e.label)}: {_md(e.reason)} (expires {e.expires_on}) → "
            f"{_md(c.label)} {c.metric} {c.change_pct:+.1%}"
            for e, c in r.applied_exceptions
        ]
    if r.expired_exceptions:
        out += ["", "**Expired exceptions (no longer applied)**", ""]
        out += [
            f"- {_md(e.label)}: {_md(e.reason)} (expired {e.expires_on})"
            for e in r.expired_exceptions
        ]
    if r.missing_in_candidate:
        out += ["", "**In the baseline only (not measured by the candidate)**", ""]
        out += [
            f"- {_md(' · '.join(norm_value(v) for v in k.values() if norm_value(v)))}"
            for k in r.missing_in_candidate
        ]
    if r.new_in_candidate:
        out += ["", "**New in the candidate (nothing to compare with)**", ""]
        out += [
            f"- {_md(' · '.join(norm_value(v) for v in k.values() if norm_value(v)))}"
            for k in r.new_in_candidate
        ]
    out += [
        "",
        f"<sub>Rule: {_md(r.cost_rule)} {FTL_AND_EXCEPTION_RULE}</sub>",
        "",
    ]
    return "\n".join(out)


def junit_xml(report: GateReport) -> bytes:
    r = report
    suite = ET.Element(
        "testsuite",
        {
            "name": "tokendesk-gate",
            "tests": str(len(r.checks)),
            "failures": str(len(r.regressions)),
            "errors": "0",
            "skipped": str(sum(c.status == "not-compared" for c in r.checks)),
            "timestamp": datetime.now().replace(microsecond=0).isoformat(),
        },
    )
    props = ET.SubElement(suite, "properties")
    for name, value in (
        ("baseline", r.baseline),
        ("candidate", r.candidate),
        ("max_cost_regression", f"{r.max_cost_regression:g}"),
        ("max_ftl_regression", f"{r.max_ftl_regression:g}"),
        ("cost_rule", r.cost_rule),
    ):
        ET.SubElement(props, "property", {"name": name, "value": value})
    for c in r.checks:
        case = ET.SubElement(
            suite,
            "testcase",
            {
                "classname": f"gate.{c.config['backend'] or 'unknown'}",
                "name": f"{c.label} [{c.metric}]",
                "time": "0",
            },
        )
        detail = (
            f"{c.metric} ({c.basis}): baseline {_fmt(c.baseline, c.metric, c.basis)}, candidate "
            f"{_fmt(c.candidate, c.metric, c.basis)}"
            + ("" if c.change_pct is None else f", change {c.change_pct:+.1%}")
        )
        if c.status == "regression":
            ET.SubElement(case, "failure", {"message": c.note, "type": "regression"}).text = detail
        elif c.status == "not-compared":
            ET.SubElement(case, "skipped", {"message": c.note})
        elif c.status == "excepted":
            ET.SubElement(case, "system-out").text = f"{detail}; {c.note}"
    return ET.tostring(suite, encoding="utf-8", xml_declaration=True)
