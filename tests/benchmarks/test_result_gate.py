"""One gate for every result that enters: the record's own consistency rules (whatever built it),
then the physical bounds and disagreeing duplicates (``benchmarks.plausibility.gate``), called by
``bench import``, ``bench run``, ``db ingest`` and the dashboard's upload alike."""

from __future__ import annotations

import pytest
import typer
from pydantic import ValidationError

from benchmarks.plausibility import disagreeing_duplicates, gate
from cli import bench_command as bench_cli
from tests.factories import result
from warehouse import Warehouse


@pytest.mark.parametrize(
    ("fields", "said"),
    [
        ({"ttft_ms_p50": 0.0}, "cannot arrive in 0 ms"),
        ({"ttft_ms_p50": 5000.0, "e2el_ms_p50": 3000.0}, "above e2el_ms_p50"),
        ({"ttft_ms_p95": 5000.0, "e2el_ms_p95": 4000.0}, "above e2el_ms_p95"),
        ({"tpot_ms_p50": 900.0, "e2el_ms_p50": 400.0}, "tpot_ms_p50 (900 ms) is above"),
        ({"concurrency": 0.0001}, "closed loop"),
        ({"requests_ok": 0, "requests_failed": 640}, "no request succeeded (640 failed)"),
        ({"requests_ok": 0}, "no request succeeded"),
    ],
)
def test_figures_that_cannot_all_be_true_are_refused_by_the_record(fields, said):
    with pytest.raises(ValidationError, match=said.replace("(", r"\(").replace(")", r"\)")):
        result(**fields)


@pytest.mark.parametrize(
    "fields",
    [
        {"ttft_ms_p50": 120.0, "e2el_ms_p50": 120.0},  # one-token answers: TTFT = E2E
        {"ttft_ms_p50": 100.4, "e2el_ms_p50": 100.0},  # rounding in the file
        {"concurrency": 0.5, "request_rate_rps": 2.0},  # an open loop's mean concurrency
        {"requests_ok": 630, "requests_failed": 10},
    ],
)
def test_consistent_figures_pass(fields):
    result(**fields)


def test_two_results_for_one_operating_point_that_disagree_are_both_named():
    first, same, other = result(), result(), result(output_tok_s=40000.0)
    _, _, refused = gate("sweep.json", [first, same, other])
    [rejection] = refused
    assert rejection.key == "result 1 and result 3"
    assert "output_tok_s 34029.38 vs 40000.0" in rejection.reason
    # Different loads are different operating points, not duplicates.
    points = [result(concurrency=512), result(concurrency=1024, output_tok_s=40000.0)]
    assert disagreeing_duplicates("sweep.json", points) == []


def test_bench_run_refuses_a_point_beyond_the_roofline_and_writes_nothing(tmp_path, capsys):
    db = tmp_path / "w.duckdb"
    Warehouse.open(db).close()
    with Warehouse.open(db, read_only=True) as warehouse:
        before = len(warehouse.query("SELECT * FROM benchmark_results"))
    impossible = result(output_tok_s=1e9, concurrency=64)
    with pytest.raises(typer.Exit):
        bench_cli._ingest(db, "harness:test", [impossible], "harness")
    assert "physically implausible" in capsys.readouterr().err
    with Warehouse.open(db, read_only=True) as warehouse:
        assert len(warehouse.query("SELECT * FROM benchmark_results")) == before
