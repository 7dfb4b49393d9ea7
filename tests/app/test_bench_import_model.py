"""The Benchmarks page's upload model: the CLI's fields, a preview with verdicts, plain errors."""

import json
from datetime import date
from pathlib import Path

import pytest

from app.models import bench_import as bi
from app.models.tables import has_no_literals
from tokendesk.catalog import load_catalog
from warehouse import Warehouse

FIXTURES = Path(__file__).parents[1] / "benchmarks" / "fixtures"
CATALOG = load_catalog()
#: SGLang's bench_serving JSON lines name neither the model, the precision nor the accelerator.
SGLANG = (FIXTURES / "sglang_bench_serving.jsonl").read_bytes()
FILLED = bi.UploadFields(
    accelerator_id="nvidia-h100-sxm-80gb",
    model="meta-llama/Llama-3.1-8B-Instruct",
    precision="BF16",
    runtime="sglang",
    measured_on=date(2025, 11, 3),
)


def test_a_file_that_needs_flags_names_the_page_fields_not_the_command_line():
    preview = bi.build_preview("sweep.jsonl", SGLANG, bi.UploadFields(), CATALOG)
    assert not preview.writable and not preview.results and preview.table is None
    assert preview.errors == (
        "sweep.jsonl was not imported: the file does not say everything a result needs. "
        "Fill in the Accelerator, Model and Precision fields above and preview again; "
        "nothing was written.",
    )


def test_the_filled_in_fields_make_the_preview_with_a_verdict_per_record():
    preview = bi.build_preview("sweep.jsonl", SGLANG, FILLED, CATALOG)
    assert preview.writable and not preview.errors
    frame = preview.table.frame
    assert len(frame) == len(preview.results) == 2
    assert set(frame["Model"]) == {"meta-llama/Llama-3.1-8B-Instruct"}
    assert set(frame["Precision"]) == {"bf16"}
    assert set(frame["Accelerator"]) == {"NVIDIA H100 SXM 80GB"}
    assert set(frame["Measured on"]) == {"2025-11-03"}
    assert all(v.startswith("within physical bounds (") for v in frame["Plausibility"])
    assert list(frame.columns[:4]) == [
        "Accelerator",
        "Accelerators / replica",
        "Model",
        "Precision",
    ]
    assert has_no_literals(frame)
    # Notes speak of page fields too, never of command-line flags.
    assert "accelerators_per_replica=1 assumed (fill in Accelerators per replica)" in preview.notes
    assert not any("--" in note for note in preview.notes)


def test_an_undated_file_reads_date_unknown_and_says_which_field_dates_it():
    fields = bi.UploadFields(**{**FILLED.__dict__, "measured_on": None})
    preview = bi.build_preview("sweep.jsonl", SGLANG, fields, CATALOG)
    assert set(preview.table.frame["Measured on"]) == {"date unknown"}
    assert "date unknown: the file carries no date (fill in Measured on)" in preview.notes
    assert all(r.measured_at is None for r in preview.results)


def test_an_implausible_record_is_shown_with_its_verdict_and_blocks_the_write():
    row = json.loads((FIXTURES / "vllm_bench_serve.json").read_text())
    row["output_throughput"], row["total_token_throughput"] = 900_000.0, 950_000.0
    preview = bi.build_preview("fast.json", json.dumps(row).encode(), bi.UploadFields(), CATALOG)
    assert not preview.writable
    assert preview.table.frame["Plausibility"][0].startswith("implausible: ")
    [error] = preview.errors
    assert error.startswith("fast.json was not imported (its key “result 1”): physically")
    assert (
        "(the Accelerator field, the Accelerators per replica field, the Precision field)" in error
    )
    assert "tokendesk bench import --accept-implausible" in error
    assert error.endswith("Nothing was written.")


def test_an_accelerator_the_file_names_but_the_catalog_lacks_points_at_the_field():
    row = json.loads((FIXTURES / "vllm_bench_serve.json").read_text())
    row["gpu"] = "Mystery 9000"
    preview = bi.build_preview("m.json", json.dumps(row).encode(), bi.UploadFields(), CATALOG)
    [error] = preview.errors
    assert (
        "'Mystery 9000' is not an accelerator the catalog knows; choose it in the Accelerator field"
        in error
    )
    assert "--" not in error and "accelerators.csv" not in error


def test_a_file_that_is_no_result_file_is_one_plain_sentence():
    preview = bi.build_preview("notes.txt", b"hello", bi.UploadFields(), CATALOG)
    [error] = preview.errors
    assert error.startswith("notes.txt was not imported (the file as a whole): unrecognised")
    assert error.endswith("Nothing was written.")


def test_the_fingerprint_follows_the_file_and_every_field():
    base = bi.fingerprint("a.json", b"x", FILLED)
    assert base == bi.fingerprint("a.json", b"x", FILLED)
    assert base != bi.fingerprint("a.json", b"y", FILLED)
    assert base != bi.fingerprint("b.json", b"x", FILLED)
    assert base != bi.fingerprint(
        "a.json", b"x", bi.UploadFields(**{**FILLED.__dict__, "precision": "fp8"})
    )


def test_the_fields_are_the_command_lines_overrides():
    overrides = FILLED.overrides()
    assert overrides.accelerator_id == "nvidia-h100-sxm-80gb"
    assert overrides.accelerators_per_replica is None  # 0 / empty = as the file says
    assert (overrides.model, overrides.precision, overrides.runtime) == (
        "meta-llama/Llama-3.1-8B-Instruct",
        "bf16",
        "sglang",
    )
    assert overrides.measured_at.isoformat() == "2025-11-03T00:00:00+00:00"
    assert bi.UploadFields(model="  ").overrides().model is None


@pytest.fixture
def memory_warehouse():
    with Warehouse.open(":memory:") as warehouse:
        yield warehouse


def test_write_stores_exactly_the_previewed_records(memory_warehouse):
    preview = bi.build_preview("sweep.jsonl", SGLANG, FILLED, CATALOG)
    before = memory_warehouse.table_counts()["benchmark_results"]
    outcome = bi.write(memory_warehouse, preview)
    stored = memory_warehouse.query(
        "SELECT model, precision, accelerator_id, measured_at FROM benchmark_results"
        " WHERE snapshot_id = ?",
        [outcome.snapshot_id],
    )
    assert outcome.points == 2 and len(stored) == 2
    assert memory_warehouse.table_counts()["benchmark_results"] == before + 2
    assert set(stored["precision"]) == {"bf16"} and set(stored["accelerator_id"]) == {
        "nvidia-h100-sxm-80gb"
    }
    assert {str(d)[:10] for d in stored["measured_at"]} == {"2025-11-03"}


def test_write_refuses_a_preview_with_errors_and_writes_nothing(memory_warehouse):
    preview = bi.build_preview("sweep.jsonl", SGLANG, bi.UploadFields(), CATALOG)
    before = memory_warehouse.table_counts()
    with pytest.raises(ValueError, match="sweep.jsonl has nothing that can be written"):
        bi.write(memory_warehouse, preview)
    assert memory_warehouse.table_counts() == before


@pytest.mark.parametrize(
    ("changes", "said"),
    [
        (
            {"p50_ttft_ms": 4000.0, "median_ttft_ms": 4000.0, "p99_ttft_ms": 4500.0},
            "above e2el_ms_p50",
        ),
        ({"total_output_tokens": 0, "output_throughput": 335.0}, "total_output_tokens"),
        ({"completed": 0, "failed": 640}, "no request completed"),
    ],
    ids=["ttft-above-e2e", "no-output-tokens", "every-request-failed"],
)
def test_the_upload_passes_the_same_consistency_gate_as_the_command_line(changes, said):
    row = json.loads((FIXTURES / "vllm_bench_serve.json").read_text())
    for key in ("p90_ttft_ms", "p95_ttft_ms"):  # keep the percentiles ordered
        if "p99_ttft_ms" in changes and key in row:
            row[key] = changes["p50_ttft_ms"] + 100
    row.update(changes)
    preview = bi.build_preview("odd.json", json.dumps(row).encode(), bi.UploadFields(), CATALOG)
    assert not preview.writable
    assert any(said in error for error in preview.errors), preview.errors
