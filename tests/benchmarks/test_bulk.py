"""A results tree imports file by file: each outcome says imported, refused (why) or needs a flag
(which); accuracy, compliance and ranging runs are never read."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from typer.testing import CliRunner

from benchmarks.bulk import IMPORTED, NEEDS_FLAG, REFUSED, import_tree, result_files, summary
from cli.bench_command import bench_app

REAL = Path(__file__).resolve().parents[1] / "fixtures" / "real"
V41 = REAL / "mlperf_v4.1"


def _round(tmp_path: Path) -> Path:
    """The v4.1 corpus as a round: its runs, plus an accuracy log and a compliance run beside
    them (real rounds carry both) and a file that is no result at all."""
    root = tmp_path / "v4.1"
    # The mixtral runs beside them are the market corpus's fixtures (tests/test_market_results.py).
    shutil.copytree(V41, root, ignore=shutil.ignore_patterns("mixtral-8x7b"))
    run = root / "closed/NVIDIA/results/H200-SXM-141GBx8_TRT/llama2-70b-99/Server"
    (run / "accuracy").mkdir()
    (run / "accuracy" / "mlperf_log_summary.txt").write_text("not read", encoding="utf-8")
    compliance = root / "closed/NVIDIA/compliance/H200-SXM-141GBx8_TRT/llama2-70b-99/Server"
    (compliance / "TEST06" / "performance" / "run_1").mkdir(parents=True)
    shutil.copyfile(
        run / "performance/run_1/mlperf_log_summary.txt",
        compliance / "TEST06/performance/run_1/mlperf_log_summary.txt",
    )
    (root / "closed/NVIDIA/README.md").write_text("# notes", encoding="utf-8")
    return root


def test_only_performance_runs_are_result_files(tmp_path):
    root = _round(tmp_path)
    found = [p.relative_to(root).as_posix() for p in result_files(root)]
    assert all("/performance/run_1/mlperf_log_summary.txt" in p for p in found)
    assert not any("compliance" in p or "accuracy" in p for p in found)
    # H200 Server and Offline, MI300X Server, GH200 144GB Server, Xeon 6 GPT-J Offline.
    assert len(found) == 5


def test_each_run_of_a_round_has_its_own_outcome(tmp_path):
    root = _round(tmp_path)
    outcomes = {o.path.relative_to(root).as_posix(): o for o in import_tree(root)}
    by = {path.split("/results/")[1].split("/performance")[0]: o for path, o in outcomes.items()}
    assert by["H200-SXM-141GBx8_TRT/llama2-70b-99/Server"].status == IMPORTED
    assert by["8xMI300X_2xEPYC-9374F/llama2-70b-99/Server"].status == IMPORTED
    # The GH200 144GB and Xeon 6 runs carry no measurements JSON: --precision settles them.
    gh200 = by["GH200-GraceHopper-Superchip_GH200-144GB_aarch64x1_TRT/llama2-70b-99.9/Server"]
    assert (gh200.status, gh200.key, gh200.flags) == (
        NEEDS_FLAG,
        "weight_data_types",
        ("--precision",),
    )
    counts = summary(list(outcomes.values()))
    assert counts["files"] == 5 and (counts[IMPORTED], counts[NEEDS_FLAG], counts[REFUSED]) == (
        3,
        2,
        0,
    )
    assert counts["flags"]["--precision"] == counts[NEEDS_FLAG]


def test_an_invalid_run_is_refused_with_its_reason_and_the_rest_still_import(tmp_path):
    root = _round(tmp_path)
    summary_file = (
        root / "closed/AMD/results/8xMI300X_2xEPYC-9374F/llama2-70b-99/Server/performance/run_1/"
        "mlperf_log_summary.txt"
    )
    summary_file.write_text(
        summary_file.read_text(encoding="utf-8").replace(
            "Result is : VALID", "Result is : INVALID"
        ),
        encoding="utf-8",
    )
    outcomes = import_tree(root)
    [amd] = [o for o in outcomes if "MI300X" in str(o.path)]
    assert (amd.status, amd.key) == (REFUSED, "Result is") and "INVALID" in amd.reason
    assert sum(o.status == IMPORTED for o in outcomes) == 2


def test_the_cli_summarises_a_tree_as_json_and_writes_nothing_in_a_dry_run(tmp_path):
    root = _round(tmp_path)
    db = tmp_path / "w.duckdb"
    out = CliRunner().invoke(
        bench_app, ["import-tree", str(root), "--dry-run", "--format", "json", "--db", str(db)]
    )
    assert out.exit_code == 0, out.output
    doc = json.loads(out.stdout)
    assert doc["dry_run"] is True and doc["summary"]["files"] == 5
    assert {f["status"] for f in doc["files"]} <= {IMPORTED, NEEDS_FLAG, REFUSED}
    assert all(f["snapshot"] is None for f in doc["files"])
    assert not db.exists()


def test_each_imported_file_of_a_tree_is_written_as_its_own_snapshot(tmp_path):
    root = _round(tmp_path)
    db = tmp_path / "w.duckdb"
    out = CliRunner().invoke(
        bench_app, ["import-tree", str(root), "--format", "json", "--db", str(db)]
    )
    assert out.exit_code == 0, out.output
    files = json.loads(out.stdout)["files"]
    snapshots = [f["snapshot"] for f in files if f["status"] == IMPORTED]
    assert len(snapshots) == 3 and len(set(snapshots)) == 3 and all(snapshots)
    assert all(f["snapshot"] is None for f in files if f["status"] != IMPORTED)


def test_llm_d_reports_in_a_results_folder_are_found_by_the_names_the_harness_gives(tmp_path):
    # llm-d-benchmark writes both versions beside the harness's own output of each stage.
    run = tmp_path / "inference-perf_1777686654_random" / "results"
    run.mkdir(parents=True)
    report = REAL / "llm-d-benchmark" / "br_v0_1_inference-perf_tpu7x_stage0.yaml"
    shutil.copyfile(report, run / "benchmark_report,_stage_0_lifecycle_metrics.json.yaml")
    (run / "stage_0_lifecycle_metrics.json").write_text("{}", encoding="utf-8")
    (run / "config.yaml").write_text("load: {}", encoding="utf-8")
    [outcome] = import_tree(tmp_path)
    assert outcome.path.name == "benchmark_report,_stage_0_lifecycle_metrics.json.yaml"
    assert outcome.status == NEEDS_FLAG and outcome.importer == ""
    assert set(outcome.flags) >= {"--accelerator", "--precision"}


# -- MLPerf v6.0 and v6.1 layouts ---------------------------------------------------------------

V60 = REAL / "mlperf_v6.0"
V61 = REAL / "mlperf_v6.1"


def test_v60_tree_imports_with_the_measurements_json_beside_each_run(tmp_path):
    root = tmp_path / "v6.0"
    shutil.copytree(V60, root)
    # v6.0 keeps compliance runs inside the scenario folder (…/Server/TEST06/performance/run_1/):
    # an audit, never a result.
    run = root / "closed/NVIDIA/results/B300-SXM-270GBx8_TRT/deepseek-r1/Server"
    (run / "TEST06/performance/run_1").mkdir(parents=True)
    shutil.copyfile(
        run / "performance/run_1/mlperf_log_summary.txt",
        run / "TEST06/performance/run_1/mlperf_log_summary.txt",
    )
    outcomes = {o.path.relative_to(root).as_posix(): o for o in import_tree(root)}
    assert not any("TEST06" in path for path in outcomes)
    by = {path.split("/results/")[-1].split("/performance")[0]: o for path, o in outcomes.items()}
    deepseek = by["B300-SXM-270GBx8_TRT/deepseek-r1/Server"]
    assert deepseek.status == IMPORTED and deepseek.results[0].precision == "fp4"
    amd = by["87xMI355X_22xEPYC_9575F/llama2-70b-99/Offline"]
    assert amd.status == IMPORTED and amd.results[0].accelerators_per_replica == 87
    # The mixed system is refused outright: no flag makes it one part.
    mixed = by[
        "8xMI300X_2xEPYC_9534_8xMI325X_2xEPYC_9655_8xMI355X_2xEPYC_9965/llama2-70b-99/Offline"
    ]
    assert (mixed.status, mixed.flags) == (REFUSED, ())
    assert "MI325X 256GB HBM3e (x8)" in mixed.reason
    # The round's table stops at the mixed row until --skip-unknown-hardware.
    table = by["summary_results.json"]
    assert (table.status, table.flags) == (NEEDS_FLAG, ("--skip-unknown-hardware",))


def test_v61_endpoints_summary_is_a_result_file_and_its_audit_runs_are_not(tmp_path):
    root = tmp_path / "v6.1"
    shutil.copytree(V61, root)
    perf = root / (
        "closed/NVIDIA/results/B300-SXM-270GBx8_TRT/qwen3-vl-235b-a22b/Server/performance"
    )
    audit = perf.parent / "audit/output_caching/performance"
    audit.mkdir(parents=True)
    shutil.copyfile(perf / "result_summary.json", audit / "result_summary.json")
    [outcome] = import_tree(root)
    assert outcome.path == perf / "result_summary.json"
    # Its measurements JSON is not in the stored copy: --precision settles it.
    assert (outcome.status, outcome.flags) == (NEEDS_FLAG, ("--precision",))
