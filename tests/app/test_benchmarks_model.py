"""The Benchmarks page's model on small hand-built frames: each result's load, parity and source,
the filters, the headline, the curves' points and labels, and parity by backend."""

from datetime import date

import pandas as pd
import pytest

from app import charts
from app.models import benchmarks as model
from app.models.bench_import import ImportOutcome, Preview, UploadFields, fingerprint
from tokendesk.catalog import load_catalog


def results(*rows: dict) -> pd.DataFrame:
    """Rows in the warehouse's current_benchmark_results layout (the columns the page reads)."""
    base = {
        "result_id": "r",
        "config_key": "h100-vllm-bf16",
        "accelerator_id": "nvidia-h100-sxm-80gb",
        "accelerator_name": "NVIDIA H100",
        "accelerators_per_replica": 1,
        "runtime": "vllm",
        "runtime_version": "0.9.1",
        "model": "llama",
        "precision": "bf16",
        "workload": "chat",
        "scenario": "server",
        "concurrency": None,
        "request_rate_rps": None,
        "output_tok_s": 1000.0,
        "output_tok_s_per_accelerator": 1000.0,
        "total_tok_s": None,
        "ttft_ms_p50": None,
        "ttft_ms_p90": None,
        "ttft_ms_p95": None,
        "ttft_ms_p99": None,
        "ttft_basis": "measured",
        "tpot_ms_p50": None,
        "tpot_ms_p95": None,
        "parity_exact_match": None,
        "parity_similarity": None,
        "measured_at": pd.Timestamp("2026-01-10"),
        "source_tool": "vllm-benchmark-serving",
        "source_title": "",
        "source_file": "run.json",
        "source_url": None,
        "snapshot_id": "benchmarks-1",
    }
    frame = pd.DataFrame([base | {"result_id": f"r{n}"} | row for n, row in enumerate(rows)])
    return model.labelled(frame)


# -- labelling --------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("exact", "similarity", "text"),
    [
        (0.92, 0.9812, "92.0% exact match · similarity 0.981"),
        (0.5, None, "50.0% exact match"),
        (None, 1.0, "similarity 1.000"),
        (None, float("nan"), "not measured"),
        (0.0, 0.0, "0.0% exact match · similarity 0.000"),  # zero is a measurement
    ],
)
def test_parity_reads_what_was_measured(exact, similarity, text):
    assert model.parity_text(exact, similarity) == text


def test_each_point_names_its_load_and_its_source():
    frame = results(
        {"request_rate_rps": 2.5, "concurrency": 64.0},
        {"request_rate_rps": 10.0},
        {"concurrency": 8.0, "source_title": "MLPerf v5.1"},
        {},
    )
    assert list(frame["load"]) == [
        "2.5 req/s, ≤ 64 concurrent",
        "10 req/s",
        "concurrency 8",
        "unstated",
    ]
    assert list(frame["source"]) == ["vllm-benchmark-serving"] * 2 + ["MLPerf v5.1"] + [
        "vllm-benchmark-serving"
    ]
    assert list(frame["parity"]) == ["not measured"] * 4


def test_filters_offer_each_columns_values_and_keep_what_every_filter_allows():
    frame = results(
        {"runtime": "sglang", "precision": "fp8"},
        {"precision": "fp8"},
        {"accelerator_id": "amd-mi300x-192gb"},
    )
    choices = model.filter_choices(frame)
    assert choices["runtime"] == ["sglang", "vllm"]
    assert choices["accelerator"] == ["amd-mi300x-192gb", "nvidia-h100-sxm-80gb"]
    kept = model.filtered(frame, {"runtime": ["vllm"], "precision": ["fp8"], "model": []})
    assert list(kept["result_id"]) == ["r1"]
    assert len(model.filtered(frame, {"runtime": [], "accelerator": []})) == 3


def test_ftl_is_the_chosen_percentile_or_the_next_higher_as_an_upper_bound():
    frame = model.with_ftl(
        results({"ttft_ms_p95": 80.0, "ttft_ms_p99": 95.0}, {"ttft_ms_p99": 120.0}, {}), "p95"
    )
    assert list(frame["ftl_ms"][:2]) == [80.0, 120.0] and pd.isna(frame["ftl_ms"][2])
    assert frame["ftl_basis"][0] == "p95"
    assert frame["ftl_basis"][1] != "p95" and "p99" in frame["ftl_basis"][1]
    assert frame["ftl_basis"][2] == "unknown"


# -- results ----------------------------------------------------------------------------------
def test_the_headline_counts_points_and_configurations_and_dates_the_newest():
    frame = results(
        {"measured_at": pd.Timestamp("2026-03-01"), "config_key": "a"},
        {"measured_at": None, "config_key": "a"},
        {"measured_at": pd.Timestamp("2026-05-02"), "config_key": "b", "source_title": "Run [1]"},
    )
    points, configurations, newest = model.results_headline(frame)
    assert (points.value, configurations.value, newest.value) == ("3", "2", "2026-05-02")
    assert newest.help == "NVIDIA H100 · vllm · llama: Run \\[1\\]"
    undated = model.results_headline(results({"measured_at": None}))[2]
    assert undated.value == "date unknown"


def test_the_results_table_says_date_unknown_for_an_undated_source():
    table = model.results_table(results({"measured_at": None}, {}))
    assert list(table.columns) == list(model.RESULT_COLUMNS)
    assert list(table["measured_at"]) == ["date unknown", "2026-01-10"]


# -- curves -----------------------------------------------------------------------------------
def test_configurations_are_told_apart_with_just_enough_more():
    frame = results(
        {"config_key": "a", "model": "llama"},
        {"config_key": "b", "model": "qwen"},
        {"config_key": "c", "runtime": "sglang", "accelerator_name": None},
        {"config_key": "d", "model": "qwen", "runtime_version": ""},  # same as b but its version
    )
    assert list(model.configuration_labels(frame)) == [
        "NVIDIA H100 · vllm · bf16 · llama",
        "NVIDIA H100 · vllm · bf16 · qwen · server · chat · v0.9.1",
        "nvidia-h100-sxm-80gb · sglang · bf16",
        "NVIDIA H100 · vllm · bf16 · qwen · server · chat · version unstated",
    ]


def sweep() -> pd.DataFrame:
    return model.with_ftl(
        results(
            {"config_key": "a", "concurrency": 32.0, "output_tok_s": 2400.0, "ttft_ms_p95": 900.0},
            {"config_key": "a", "concurrency": 1.0, "output_tok_s": 110.0, "ttft_ms_p95": 60.0},
            {"config_key": "b", "runtime": "sglang", "concurrency": 4.0, "ttft_ms_p99": 300.0},
            {"config_key": "c", "runtime": "tgi"},  # no latency: not drawn
        ),
        "p95",
    )


def test_curve_points_follow_each_configuration_in_order_of_load():
    points = model.curve_points(sweep(), sweeps_only=False)
    assert list(points["configuration"]) == [
        "NVIDIA H100 · sglang · bf16",
        "NVIDIA H100 · vllm · bf16",
        "NVIDIA H100 · vllm · bf16",
    ]
    assert list(points["concurrency"]) == [4.0, 1.0, 32.0]
    sweeps = model.curve_points(sweep(), sweeps_only=True)
    assert list(sweeps["config_key"]) == ["a", "a"]
    empty = model.curve_points(sweep().iloc[3:], sweeps_only=False)
    assert empty.empty and "configuration" in empty.columns


def test_the_curve_notes_count_sweeps_upper_bounds_and_points_without_latency():
    frame = sweep()
    points = model.curve_points(frame, sweeps_only=False)
    drawn, upper, missing = model.curve_notes(points, frame, "p95")
    assert drawn.startswith("2 configuration(s), 1 with a sweep of more than one load.")
    assert upper.startswith("1 of 3 points publish no p95;")
    assert missing == (
        "1 operating points have no first-token latency and are listed in Results only."
    )
    measured = frame[frame["config_key"] == "a"]
    assert len(model.curve_notes(model.curve_points(measured, False), measured, "p95")) == 1
    assert "more than one load" in model.nothing_to_plot(True, "p95")
    assert "TTFT at p99 or above" in model.nothing_to_plot(False, "p99")


def test_the_curve_chart_draws_one_line_per_configuration_with_the_legend_below():
    points = model.curve_points(sweep(), sweeps_only=False)
    figure = charts.throughput_against_ftl(
        points, model.THROUGHPUT_COLUMNS["accelerator"], "per accelerator", "p95"
    )
    vllm = next(trace for trace in figure.data if trace.name == "NVIDIA H100 · vllm · bf16")
    assert list(vllm.x) == [1000.0, 1000.0] and list(vllm.y) == [60.0, 900.0]
    assert figure.layout.xaxis.title.text == "Output tokens/s per accelerator"
    # Two configurations + the legend title: 3 entries of 20 px under a 460 px plot.
    assert figure.layout.height == 30 + 460 + 70 + 60
    assert figure.layout.margin.b == 70 + 60


# -- parity -----------------------------------------------------------------------------------
def test_parity_is_averaged_per_backend_best_first_and_unmeasured_last():
    frame = results(
        {"parity_exact_match": 0.9, "parity_similarity": 0.98, "measured_at": None},
        {"parity_exact_match": 0.7, "parity_similarity": 0.96},
        {"runtime": "sglang", "runtime_version": "", "parity_exact_match": 0.95},
        {"runtime": "tgi", "runtime_version": "3.0"},
    )
    table = model.parity_table(frame)
    assert list(table.columns) == list(model.PARITY_COLUMNS)
    assert list(table["backend"]) == [
        "NVIDIA H100 · sglang",
        "NVIDIA H100 · vllm 0.9.1",
        "NVIDIA H100 · tgi 3.0",
    ]
    assert list(table["exact_match"]) == ["95.0%", "80.0%", "not measured"]
    assert list(table["similarity"]) == ["not measured", "0.970", "not measured"]
    assert list(table["points"]) == [1, 2, 1]
    assert model.parity_summary(table) == (
        "2 of 3 backend configurations have a parity measurement."
    )


# -- upload -----------------------------------------------------------------------------------
def test_the_upload_form_leaves_unset_fields_to_the_file():
    fields = model.upload_fields(
        accelerator=model.FROM_FILE, accelerators_per_replica=0, measured_on=None, model="m"
    )
    assert (fields.accelerator_id, fields.accelerators_per_replica, fields.model) == (
        None,
        None,
        "m",
    )
    set_ = model.upload_fields(
        accelerator="amd-mi300x-192gb", accelerators_per_replica=2, measured_on=date(2025, 3, 2)
    )
    assert (set_.accelerator_id, set_.accelerators_per_replica, set_.measured_on) == (
        "amd-mi300x-192gb",
        2,
        date(2025, 3, 2),
    )


def test_upload_messages_escape_the_file_name():
    preview = Preview(file="run_[x].json", fingerprint="f", tool="vllm")
    assert model.preview_heading(preview) == (
        "**run\\_\\[x\\]\\.json** would write 0 operating point(s) (vllm) as one new snapshot:"
    )
    outcome = ImportOutcome(file="a.json", snapshot_id="benchmarks-import-1", points=3, tool="t")
    assert model.imported(outcome) == (
        "Imported 3 operating point(s) from **a\\.json** (t) as snapshot `benchmarks-import-1`."
    )
    assert model.not_written(preview, "locked").endswith(": locked. Nothing was written.")


def test_the_accelerator_picker_names_catalog_entries_and_leaves_the_file_choice_as_is():
    catalog = load_catalog()
    assert model.accelerator_choice(catalog, model.FROM_FILE) == model.FROM_FILE
    name = catalog["amd-mi300x-192gb"].name
    assert model.accelerator_choice(catalog, "amd-mi300x-192gb") == f"{name} (amd-mi300x-192gb)"


def test_a_preview_is_stale_once_the_file_or_a_field_changes():
    fields = UploadFields(precision="fp8")
    preview = Preview(file="a.json", fingerprint=fingerprint("a.json", b"{}", fields))
    assert model.still_previewed(preview, "a.json", b"{}", fields)
    assert not model.still_previewed(preview, "a.json", b"{ }", fields)
    assert not model.still_previewed(preview, "a.json", b"{}", UploadFields(precision="bf16"))
    assert not model.still_previewed(preview, None, b"", fields)  # the file was removed
