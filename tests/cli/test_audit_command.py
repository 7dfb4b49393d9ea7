"""`tokendesk audit` end to end, as a person runs it."""

import json

import pytest
from typer.testing import CliRunner

from cli.main import _register_subcommands, app
from tokendesk.paths import REPO_ROOT

_register_subcommands()
runner = CliRunner()
LLM_C = REPO_ROOT / "tests" / "fixtures" / "real" / "audit" / "llm.c"


def test_json_output_lists_findings_and_per_backend_weeks():
    result = runner.invoke(app, ["audit", str(LLM_C), "--format", "json"])
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert data["audited"] == "llm.c" and data["basis"].startswith("from the audit of llm.c on ")
    assert set(data["backends"]) == {"rocm", "cpu", "neuron", "xla", "hpu"}
    gap = data["backends"]["rocm"]["gaps"][0]
    assert {"rule", "locations", "why", "equivalent", "engineer_weeks", "source"} <= set(gap)
    assert gap["source"]["url"].startswith("https://")
    finding = data["findings"][0]
    assert {"file", "line", "rule", "blocks"} <= set(finding)


def test_markdown_and_pdf(tmp_path):
    md = runner.invoke(app, ["audit", str(LLM_C)])
    assert md.exit_code == 0
    assert "## Summary per backend" in md.stdout and "llmc/gelu.cuh:13" in md.stdout
    target = tmp_path / "gaps.pdf"
    pdf = runner.invoke(app, ["audit", str(LLM_C), "--format", "pdf", "-o", str(target)])
    assert pdf.exit_code == 0, pdf.output
    assert target.read_bytes().startswith(b"%PDF")


def test_pdf_to_stdout_and_bad_path_are_refused_without_a_traceback(tmp_path):
    result = runner.invoke(app, ["audit", str(LLM_C), "--format", "pdf"])
    assert result.exit_code == 2 and "needs a file" in result.output
    result = runner.invoke(app, ["audit", str(tmp_path / "missing")])
    assert result.exit_code == 2 and "no such folder" in result.output
    assert "Traceback" not in result.output


def test_the_projects_own_code_is_portable():
    # Its only CUDA is test data: the real repositories' files kept as fixtures and the audit
    # tests' own example lines.
    result = runner.invoke(app, ["audit", str(REPO_ROOT), "--format", "json"])
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert data["files_by_kind"]["python"] > 50
    outside_tests = [
        f for f in data["findings"] if not f["file"].startswith(("tests/audit/", "tests/fixtures/"))
    ]
    assert outside_tests == []
    assert any(f["file"].startswith("tests/fixtures/real/audit/llm.c/") for f in data["findings"])


def test_gap_matrix_totals_match_the_summary():
    from audit.gap_list import matrix_rows
    from audit.report import summarise
    from audit.scan import scan

    report = summarise(scan(LLM_C))
    rows = matrix_rows(report)
    totals = rows[-1][3:]
    for cell, s in zip(totals, report.backends.values(), strict=True):
        assert cell.startswith(f"{s.weeks_base:g} (")
    for column, s in enumerate(report.backends.values(), start=3):
        parts = [float(r[column]) for r in rows[:-1] if r[column] != "—"]
        assert sum(parts) == pytest.approx(s.weeks_base)
