"""The CI regression gate (``planning.gate_inputs``, ``planning.regression_gate``) through
``tokendesk gate``: the 10% limits, exceptions, measured noise, and bad input named by file and
key."""

from __future__ import annotations

import csv
import json
from pathlib import Path
from xml.etree import ElementTree as ET

import pytest
from typer.testing import CliRunner

from cli.briefs_command import register
from cli.main import app
from planning import gate_inputs as gi
from planning import regression_gate as rg

register(app)
runner = CliRunner()

POINTS = [(1, 1000.0, 100.0), (16, 8000.0, 300.0)]  # concurrency, output tok/s, ttft p95 ms


def _lat(p95: float) -> dict:
    return {
        "count": 10,
        "mean": p95 * 0.6,
        "p50": p95 * 0.5,
        "p90": p95 * 0.9,
        "p95": p95,
        "p99": p95 * 1.2,
    }


def harness(path: Path, version: str, tok_scale: float = 1.0, ttft_scale: float = 1.0) -> Path:
    """A result file in the harness's own schema (``tokendesk bench run -o``)."""
    doc = {
        "schema": "tokendesk.harness.results/v1",
        "tool": "tokendesk",
        "started_at": "2026-11-01T00:00:00+00:00",
        "system": {
            "accelerator_id": "nvidia-h100-sxm-80gb",
            "accelerators_per_replica": 1,
            "runtime": "vllm",
            "precision": "bf16",
            "runtime_version": version,
        },
        "config": {"model": "llama-3.1-8b", "workload": "chat-short"},
        "operating_points": [
            {
                "concurrency": c,
                "request_rate_rps": None,
                "started_at": "2026-11-01T00:00:00+00:00",
                "steady_state": {"basis": "steady", "window_s": 20.0},
                "requests": {"sent": 11, "ok": 10, "failed": 0, "failure_reasons": {}},
                "throughput": {"output_tok_s": tps / tok_scale, "total_tok_s": None},
                "latency_ms": {
                    "ttft": _lat(ttft * ttft_scale),
                    "tpot": _lat(10.0),
                    "e2el": _lat(900.0),
                },
                "tokens": {"input_mean": 21 + c / 10, "output_mean": 47, "count_basis": "usage"},
                "telemetry": None,
            }
            for c, tps, ttft in POINTS
        ],
    }
    path.write_text(json.dumps(doc))
    return path


def run(*args: str):
    return runner.invoke(app, ["gate", "--no-prices", *args])


def test_cost_regression_of_9_9_percent_passes_and_10_1_fails(tmp_path):
    base = harness(tmp_path / "a.json", "0.6.0")
    ok = run(
        "--baseline",
        str(base),
        "--candidate",
        str(harness(tmp_path / "b.json", "0.6.1", tok_scale=1.099)),
    )
    assert ok.exit_code == 0, ok.output
    assert "PASS" in ok.output and "+9.9%" in ok.output
    bad = run(
        "--baseline",
        str(base),
        "--candidate",
        str(harness(tmp_path / "c.json", "0.6.1", tok_scale=1.101)),
    )
    assert bad.exit_code == 1, bad.output
    assert "FAIL" in bad.output and "+10.1%" in bad.output


def test_ftl_regression_of_9_9_percent_passes_and_10_1_fails(tmp_path):
    base = harness(tmp_path / "a.json", "0.6.0")
    assert (
        run(
            "--baseline",
            str(base),
            "--candidate",
            str(harness(tmp_path / "b.json", "x", ttft_scale=1.099)),
        ).exit_code
        == 0
    )
    result = run(
        "--baseline",
        str(base),
        "--candidate",
        str(harness(tmp_path / "c.json", "x", ttft_scale=1.101)),
        "--max-cost-regression",
        "10%",
        "--max-ftl-regression",
        "10%",
    )
    assert result.exit_code == 1
    assert "ftl: TTFT p95" in result.output


def _exceptions(
    path: Path, expires: str, reason: str = "known vLLM 0.6.1 prefill change; fix in 0.6.2"
) -> Path:
    path.write_text(
        "exceptions:\n"
        f"  - match: {{backend: cuda, model: 'llama-3.1-*', concurrency: 16}}\n"
        f'    metric: ftl\n    reason: "{reason}"\n    expires_on: {expires}\n'
    )
    return path


def test_valid_exception_passes_and_is_reported_expired_one_fails(tmp_path):
    base = harness(tmp_path / "a.json", "0.6.0")
    cand = tmp_path / "b.json"
    doc = json.loads(harness(cand, "0.6.1").read_text())
    doc["operating_points"][1]["latency_ms"]["ttft"].update(p95=400.0, p99=480.0)  # c=16: FTL +33%
    cand.write_text(json.dumps(doc))
    md, junit = tmp_path / "gate.md", tmp_path / "gate.xml"
    valid = run(
        "--baseline",
        str(base),
        "--candidate",
        str(cand),
        "--today",
        "2026-11-30",
        "--exceptions",
        str(_exceptions(tmp_path / "ok.yaml", "2026-12-31")),
        "--markdown",
        str(md),
        "--junit",
        str(junit),
    )
    assert valid.exit_code == 0, valid.output
    summary = md.read_text()
    assert (
        "excepted" in summary
        and "known vLLM 0.6.1 prefill change" in summary
        and "Exceptions applied" in summary
    )
    suite = ET.parse(junit).getroot()
    assert suite.get("failures") == "0" and int(suite.get("tests")) == 4
    assert any("known vLLM" in (e.text or "") for e in suite.iter("system-out"))

    expired = run(
        "--baseline",
        str(base),
        "--candidate",
        str(cand),
        "--today",
        "2026-11-30",
        "--exceptions",
        str(_exceptions(tmp_path / "old.yaml", "2026-10-31")),
        "--junit",
        str(junit),
    )
    assert expired.exit_code == 1
    assert "Expired exceptions" in expired.output and "expired on 2026-10-31" in expired.output
    suite = ET.parse(junit).getroot()
    assert suite.get("failures") == "1"
    assert [f.get("type") for f in suite.iter("failure")] == ["regression"]


def test_exception_without_reason_or_expiry_is_bad_input(tmp_path):
    base = harness(tmp_path / "a.json", "0.6.0")
    no_reason = _exceptions(tmp_path / "x.yaml", "2026-12-31", reason="")
    result = run("--baseline", str(base), "--candidate", str(base), "--exceptions", str(no_reason))
    assert result.exit_code == 2
    assert "exceptions[0].reason" in result.output and "needs a reason" in result.output
    (tmp_path / "y.yaml").write_text("- match: {model: m}\n  metric: cost\n  reason: r\n")
    result = run(
        "--baseline", str(base), "--candidate", str(base), "--exceptions", str(tmp_path / "y.yaml")
    )
    assert result.exit_code == 2 and "expires_on" in result.output


def test_malformed_baseline_exits_2_naming_file_key_and_reason(tmp_path):
    cand = harness(tmp_path / "b.json", "0.6.1")
    bad = tmp_path / "bad.json"
    doc = json.loads(harness(bad, "0.6.0").read_text())
    del doc["system"]
    bad.write_text(json.dumps(doc))
    result = run("--baseline", str(bad), "--candidate", str(cand))
    assert result.exit_code == 2
    assert (
        str(bad) in result.output and "key system" in result.output and "missing" in result.output
    )
    doc = json.loads(harness(bad, "0.6.0").read_text())
    doc["operating_points"][1]["throughput"]["output_tok_s"] = -5
    bad.write_text(json.dumps(doc))
    result = run("--baseline", str(bad), "--candidate", str(cand))
    assert (
        result.exit_code == 2
        and "output_tok_s" in result.output
        and "greater than 0" in result.output
    )
    (tmp_path / "broken.json").write_text("{not json")
    result = run("--baseline", str(tmp_path / "broken.json"), "--candidate", str(cand))
    assert result.exit_code == 2 and "broken.json" in result.output
    assert (
        run("--baseline", str(tmp_path / "missing.json"), "--candidate", str(cand)).exit_code == 2
    )


def test_seed_format_csv_and_unmatched_configurations(tmp_path):
    fields = [
        "accelerator_id",
        "accelerators_per_replica",
        "runtime",
        "runtime_version",
        "model",
        "precision",
        "workload",
        "scenario",
        "concurrency",
        "output_tok_s",
        "ttft_ms_p99",
        "measured_at",
        "source_tool",
    ]

    def write(path, rows):
        with path.open("w", newline="") as handle:
            writer = csv.DictWriter(handle, fieldnames=fields)
            writer.writeheader()
            writer.writerows(rows)
        return path

    row = dict(
        accelerator_id="amd-mi300x-192gb",
        accelerators_per_replica=1,
        runtime="vllm",
        runtime_version="0.6",
        model="m",
        precision="fp8",
        workload="w",
        scenario="server",
        concurrency=8,
        output_tok_s=100,
        ttft_ms_p99=500,
        measured_at="2026-01-01",
        source_tool="mlperf",
    )
    a = write(tmp_path / "a.csv", [row, dict(row, concurrency=64)])
    b = write(tmp_path / "b.csv", [dict(row, ttft_ms_p99=540), dict(row, concurrency=128)])
    frame_a, frame_b = gi.load_result_set(str(a)), gi.load_result_set(str(b))
    report = rg.compare_results(frame_a, frame_b)
    ftl = [c for c in report.checks if c.metric == "ftl"][0]
    assert (
        ftl.basis.startswith("TTFT p99")
        and ftl.change_pct == pytest.approx(0.08)
        and ftl.status == "pass"
    )
    assert len(report.missing_in_candidate) == 1 and len(report.new_in_candidate) == 1
    assert "accelerator-seconds" in report.checks[0].basis
    # With a reference price the cost is in $/1K output tokens; the change is the same.
    priced = rg.compare_results(frame_a, frame_b, prices={"amd-mi300x-192gb": 2.0})
    assert priced.checks[0].baseline == pytest.approx(2.0 / (100 * 3.6))
    bad = write(tmp_path / "bad.csv", [dict(row, accelerator_id="nvidia-h1000")])
    with pytest.raises(gi.GateInputError) as info:
        gi.load_result_set(str(bad))
    assert info.value.key == "row 2.accelerator_id" and "unknown accelerator" in info.value.reason


def test_snapshot_specs_read_the_warehouse(seed_db, tmp_path):
    from warehouse import Warehouse

    with Warehouse.open(seed_db, read_only=True) as warehouse:
        snap = warehouse.snapshots("benchmarks")["snapshot_id"].iloc[0]
    result = runner.invoke(
        app,
        [
            "gate",
            "--db",
            str(seed_db),
            "--baseline",
            f"snapshot:{snap}",
            "--candidate",
            f"snapshot:{snap}",
        ],
    )
    assert result.exit_code == 0, result.output
    assert "$/1K output tokens at $" in result.output  # reference prices came from the warehouse
    missing = runner.invoke(
        app,
        [
            "gate",
            "--db",
            str(seed_db),
            "--baseline",
            "snapshot:nope",
            "--candidate",
            f"snapshot:{snap}",
        ],
    )
    assert missing.exit_code == 2 and "snapshot:nope" in missing.output


def test_plain_json_list_of_results(tmp_path):
    row = dict(
        accelerator_id="amd-mi300x-192gb",
        accelerators_per_replica=1,
        runtime="vllm",
        model="m",
        precision="fp8",
        workload="w",
        concurrency=8,
        output_tok_s=100.0,
        ttft_ms_p95=500.0,
        measured_at="2026-01-01T00:00:00",
        source_tool="x",
    )
    (tmp_path / "a.json").write_text(json.dumps([row]))
    (tmp_path / "b.json").write_text(json.dumps([dict(row, output_tok_s=80.0)]))
    report = rg.compare_results(
        gi.load_result_set(str(tmp_path / "a.json")), gi.load_result_set(str(tmp_path / "b.json"))
    )
    assert report.exit_code == 1 and report.regressions[0].change_pct == pytest.approx(0.25)
    (tmp_path / "c.json").write_text(json.dumps([dict(row, output_tok_s=0)]))
    with pytest.raises(gi.GateInputError) as info:
        gi.load_result_set(str(tmp_path / "c.json"))
    assert info.value.key == "[0].output_tok_s"


def _with_repeats(path: Path, cv: float) -> Path:
    """The harness file with every point marked as the median of 5 repeats of spread ``cv``."""
    doc = json.loads(path.read_text())
    for block in doc["operating_points"]:
        tps = block["throughput"]["output_tok_s"]
        block["repeats"] = {
            "n": 5,
            "output_tok_s": {"n": 5, "mean": tps, "ci95": [tps * 0.9, tps * 1.1], "cv": cv},
            "ttft_p95_ms": {"n": 5, "mean": 1.0, "ci95": [0.9, 1.1], "cv": cv},
        }
    path.write_text(json.dumps(doc))
    return path


def test_measured_noise_widens_the_limit_and_the_report_says_so(tmp_path):
    # +15% cost: a regression against the plain 10% limit ...
    base = harness(tmp_path / "a.json", "0.6.0")
    cand = harness(tmp_path / "b.json", "0.6.1", tok_scale=1.15)
    plain = run("--baseline", str(base), "--candidate", str(cand))
    assert plain.exit_code == 1 and "noise not measured" in plain.output
    # ... within noise when both sides measured a 5% run-to-run spread (band ±14.1%) ...
    noisy = run(
        "--baseline",
        str(_with_repeats(base, 0.05)),
        "--candidate",
        str(_with_repeats(cand, 0.05)),
    )
    assert noisy.exit_code == 0, noisy.output
    assert "within noise" in noisy.output and "±14.1%" in noisy.output
    # ... and still a regression when the change is beyond limit + noise
    worse = harness(tmp_path / "c.json", "0.6.1", tok_scale=1.40)
    bad = run(
        "--baseline", str(_with_repeats(base, 0.05)), "--candidate", str(_with_repeats(worse, 0.05))
    )
    assert bad.exit_code == 1 and "measured noise ±14.1%" in bad.output
