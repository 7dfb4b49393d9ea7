"""The Benchmarks page over the fixture warehouse (tests/fixtures/warehouse/README.md): every result
and figure below comes by hand from its rows; tok/s per accelerator = tok/s per replica /
accelerators per replica."""

import json
from datetime import UTC, date, datetime

from streamlit.testing.v1 import AppTest

from app.models.tables import has_no_literals
from tests.app.pages import VIEWS, chart, open_section, shown
from tokendesk.records import BenchmarkResult
from warehouse import Warehouse

RESULTS, CURVES, PARITY, IMPORT, HISTORY = range(5)
#: The tabs' key and labels: only the open tab is drawn, so a test opens the one it reads.
TABS = "benchmarks_tab"
LABELS = ["Results", "Throughput vs FTL", "Output parity", "Import result file", "Import history"]
SWEEP_LABEL = "AMD Instinct MI300X 192GB · vllm · bf16"
H100_SWEEP = "NVIDIA H100 SXM 80GB · vllm · fp8"


def run_page(at=None, tab=RESULTS):
    """The page run (again) with ``tab`` open, the way a person's click on it opens it."""
    at = at or AppTest.from_file(str(VIEWS / "benchmarks.py"), default_timeout=60)
    at.session_state[TABS] = LABELS[tab]
    at.run()
    assert not at.exception, at.exception
    return at


def _sweep_point(concurrency, tok_s, ttft_p95):
    return BenchmarkResult(
        accelerator_id="amd-mi300x-192gb",
        accelerators_per_replica=2,
        runtime="vllm",
        runtime_version="0.9.1",
        model="llama-3.1-70b-instruct",
        precision="bf16",
        workload="isl1024-osl256",
        input_tokens=1024,
        output_tokens=256,
        concurrency=concurrency,
        output_tok_s=tok_s,
        ttft_ms_p50=ttft_p95 * 0.6,
        ttft_ms_p95=ttft_p95,
        ttft_ms_p99=ttft_p95 * 1.2,
        tpot_ms_p50=20.0,
        parity_exact_match=0.92,
        parity_similarity=0.981,
        measured_at=datetime(2026, 10, 2, tzinfo=UTC),
        source_tool="tokendesk-harness",
        source_title="tokendesk harness run",
        source_file="sweep.json",
    )


def vllm_row(**changes):
    row = {
        "backend": "vllm",
        "model_id": "meta-llama/Llama-3.1-8B-Instruct",
        "dtype": "bf16",
        "gpu": "H100 SXM",
        "num_gpus": 1,
        "completed": 100,
        "num_prompts": 100,
        "duration": 20.0,
        "total_input_tokens": 102400,
        "total_output_tokens": 12800,
        "request_rate": "inf",
        "max_concurrency": 8,
        "output_throughput": 640.0,
        "median_ttft_ms": 45,
        "p95_ttft_ms": 80,
        "p99_ttft_ms": 95,
        "median_tpot_ms": 12,
        "p99_tpot_ms": 15,
        "date": "20250301-101500",
    }
    row.update(changes)
    return {k: v for k, v in row.items() if v is not None}


def count_results(path):
    with Warehouse.open(path, read_only=True) as warehouse:
        return warehouse.table_counts()


def test_results_table_shows_latency_source_date_and_parity(fixture_env):
    at = run_page()
    table = at.tabs[RESULTS].dataframe[0].value
    # The fixture's six operating points: three of the H100 sweep, the offline H100 result, the
    # MI300X point and the CPU point.
    assert len(table) == 6 and {m.label: m.value for m in at.metric}["Operating points"] == "6"
    amd = table[table["output_tok_s"] == 400.0].iloc[0]
    assert amd["accelerator_name"] == "AMD Instinct MI300X 192GB" and amd["runtime"] == "vllm"
    assert (
        amd["precision"] == "fp8"
        and amd["scenario"] == "server"
        and amd["ttft_ms_p99"] == "700 ms"  # a column with gaps reads as text, "—" for a gap
    )
    assert amd["ttft_ms_p95"] == "600 ms" and has_no_literals(table)
    assert amd["output_tok_s_per_accelerator"] == 400.0 / 1  # one MI300X per replica
    assert str(amd["measured_at"]).startswith("2026-01-10")
    assert amd["source"] == "test fixture (invented figures)"
    # The fixture's MI300X row carries parity figures 0.92 and 0.981.
    assert amd["parity"] == "92.0% exact match · similarity 0.981"
    offline = table[table["scenario"] == "offline"].iloc[0]
    assert offline["ttft_ms_p95"] == "—" and offline["parity"] == "not measured"
    assert offline["output_tok_s_per_accelerator"] == 8000.0 / 8  # 1000


def test_curves_follow_each_configuration_across_its_sweep(fixture_env):
    at = run_page(tab=CURVES)
    spec = chart(at, "curve_chart")
    # The fixture's H100 sweep: concurrency 8, 32, 64 at 1000, 2500, 3000 tok/s per replica.
    line = next(t for t in spec["data"] if t["name"] == H100_SWEEP)
    assert line["x"] == [1000.0, 2500.0, 3000.0] and line["y"] == [400.0, 1500.0, 3000.0]
    assert line["mode"] == "lines+markers"
    assert spec["layout"]["xaxis"]["title"]["text"] == "Output tokens/s per replica"
    assert spec["layout"]["yaxis"]["title"]["text"] == "First-token latency p95 (ms)"
    at.radio(key="throughput").set_value("accelerator")
    at.selectbox(key="percentile").set_value("p99")
    at = run_page(at, CURVES)
    spec = chart(at, "curve_chart")
    line = next(t for t in spec["data"] if t["name"] == H100_SWEEP)
    # Four H100s per replica: 1000 / 4, 2500 / 4, 3000 / 4; the rows' p99 450, 1700, 3400 ms.
    assert line["x"] == [250.0, 625.0, 750.0] and line["y"] == [450.0, 1700.0, 3400.0]
    assert spec["layout"]["xaxis"]["title"]["text"] == "Output tokens/s per accelerator"


def test_output_parity_is_shown_where_measured_and_said_to_be_missing_elsewhere(fixture_env):
    parity = run_page(tab=PARITY).tabs[PARITY].dataframe[0].value
    measured = parity[parity["backend"] == "AMD Instinct MI300X 192GB · vllm 0.9.0"].iloc[0]
    assert measured["exact_match"] == "92.0%" and measured["similarity"] == "0.981"
    others = parity[parity["backend"] != "AMD Instinct MI300X 192GB · vllm 0.9.0"]
    # The H100 (vllm) and CPU (llama.cpp) backends state no parity.
    assert len(others) == 2 and (others["exact_match"] == "not measured").all()
    # The H100 backend counts its four results: three sweep points and the offline one.
    h100 = parity[parity["backend"] == "NVIDIA H100 SXM 80GB · vllm 0.9.0"].iloc[0]
    assert h100["points"] == 4


def upload(at, name, payload):
    at.file_uploader(key="upload_file").set_value((name, payload, "application/json"))
    at.run()
    return at


def preview(at):
    at.button(key="upload_preview").click()
    return run_page(at, IMPORT)


def test_bad_upload_names_the_file_and_key_and_writes_nothing(writable_fixture_env):
    before = count_results(writable_fixture_env)
    at = upload(run_page(tab=IMPORT), "bad.json", json.dumps(vllm_row(completed=None)).encode())
    at = preview(at)
    errors = [shown(e.value) for e in at.tabs[IMPORT].error]
    assert errors == [
        "bad.json was not imported (its key “completed”): required number is missing. "
        "Nothing was written."
    ]
    assert at.button(key="upload_confirm").disabled
    assert not at.tabs[IMPORT].success
    assert count_results(writable_fixture_env) == before


def test_unknown_accelerator_is_rejected_then_fixed_with_an_override(writable_fixture_env):
    sweep = "\n".join(
        json.dumps(
            vllm_row(
                gpu="Mystery 9000",
                max_concurrency=c,
                output_throughput=t,
                median_ttft_ms=f / 2,
                p95_ttft_ms=f,
                p99_ttft_ms=f * 1.3,
            )
        )
        for c, t, f in ((1, 90.0, 40), (16, 1100.0, 160), (64, 2600.0, 700))
    )
    before = count_results(writable_fixture_env)
    at = preview(upload(run_page(tab=IMPORT), "sweep.jsonl", sweep.encode()))
    [error] = [shown(e.value) for e in at.tabs[IMPORT].error]
    assert error.startswith("sweep.jsonl was not imported (its key “line 1: accelerator")
    assert (
        "'Mystery 9000' is not an accelerator the catalog knows; choose it in the Accelerator field"
        in error
    )
    assert count_results(writable_fixture_env) == before

    at.selectbox(key="upload_accelerator").set_value("amd-mi300x-192gb")
    at.number_input(key="upload_accelerators_per_replica").set_value(1)
    at.text_input(key="upload_instance_type").set_value("Standard_ND96isr_MI300X_v5")
    at = preview(at)
    assert not at.tabs[IMPORT].error
    # The preview shows what would be written, with a verdict per record; nothing is written yet.
    table = at.tabs[IMPORT].dataframe[0].value
    assert list(table["Load"]) == ["concurrency 1", "concurrency 16", "concurrency 64"]
    assert all(v.startswith("within physical bounds") for v in table["Plausibility"])
    assert count_results(writable_fixture_env) == before
    at.button(key="upload_confirm").click()
    at = run_page(at, IMPORT)
    [success] = [shown(s.value) for s in at.tabs[IMPORT].success]
    assert success.startswith(
        "Imported 3 operating point(s) from **sweep.jsonl** "
        "(vllm-benchmark-serving) as snapshot `benchmarks-import-"
    )
    snapshot_id = success.split("`")[1]
    with Warehouse.open(writable_fixture_env, read_only=True) as warehouse:
        stored = warehouse.query(
            "SELECT * FROM benchmark_results WHERE snapshot_id = ? ORDER BY concurrency",
            [snapshot_id],
        )
    assert list(stored["concurrency"]) == [1, 16, 64]
    assert set(stored["accelerator_id"]) == {"amd-mi300x-192gb"}
    assert set(stored["instance_type"]) == {"Standard_ND96isr_MI300X_v5"}
    # The rest of the page shows the new snapshot: one line across the three loads.
    at = run_page(at, CURVES)
    line = next(t for t in chart(at, "curve_chart")["data"] if t["name"].startswith(SWEEP_LABEL))
    assert line["x"] == [90.0, 1100.0, 2600.0] and line["y"] == [40.0, 160.0, 700.0]


def test_a_plain_result_file_that_needs_model_and_precision_imports_from_the_page(
    writable_fixture_env,
):
    # What `vllm bench serve --save-result` writes names no accelerator, precision or usable model.
    plain_row = vllm_row(gpu=None, num_gpus=None, dtype=None, model_id="/models/ckpt/")
    before = count_results(writable_fixture_env)
    at = preview(upload(run_page(tab=IMPORT), "plain.json", json.dumps(plain_row).encode()))
    [error] = [shown(e.value) for e in at.tabs[IMPORT].error]
    assert error == (
        "plain.json was not imported: the file does not say everything a result needs. "
        "Fill in the Accelerator and Precision fields above and preview again; "
        "nothing was written."
    )
    at.selectbox(key="upload_accelerator").set_value("nvidia-h100-sxm-80gb")
    at.text_input(key="upload_model").set_value("meta-llama/Llama-3.1-8B-Instruct")
    at.text_input(key="upload_precision").set_value("fp8")
    at.text_input(key="upload_runtime").set_value("vllm")
    at.date_input(key="upload_measured_on").set_value(date(2025, 3, 2))
    at = preview(at)
    assert not at.tabs[IMPORT].error
    [row] = at.tabs[IMPORT].dataframe[0].value.to_dict("records")
    assert (row["Model"], row["Precision"], row["Measured on"]) == (
        "meta-llama/Llama-3.1-8B-Instruct",
        "fp8",
        "2025-03-02",
    )
    assert row["Plausibility"].startswith("within physical bounds (")
    # A field changed after the preview: the old preview is gone, nothing can be confirmed.
    at.text_input(key="upload_precision").set_value("bf16").run()
    assert "preview it again" in " ".join(i.value for i in at.tabs[IMPORT].info)
    assert not [b for b in at.button if b.key == "upload_confirm"]
    at.text_input(key="upload_precision").set_value("fp8")
    at = preview(at)
    at.button(key="upload_confirm").click()
    at = run_page(at, IMPORT)
    snapshot_id = shown(at.tabs[IMPORT].success[0].value).split("`")[1]
    with Warehouse.open(writable_fixture_env, read_only=True) as warehouse:
        stored = warehouse.query(
            "SELECT model, precision, runtime, measured_at FROM benchmark_results"
            " WHERE snapshot_id = ?",
            [snapshot_id],
        )
    assert stored.to_dict("records")[0]["precision"] == "fp8"
    assert stored["model"][0] == "meta-llama/Llama-3.1-8B-Instruct"
    assert str(stored["measured_at"][0])[:10] == "2025-03-02"
    assert (
        count_results(writable_fixture_env)["benchmark_results"] == before["benchmark_results"] + 1
    )


def open_benchmarks(tab=CURVES, **params) -> AppTest:
    """The page opened from a link carrying ``params``, with ``tab`` open."""
    at = AppTest.from_file(str(VIEWS / "benchmarks.py"), default_timeout=60)
    for key, value in params.items():
        at.query_params[key] = value
    at.session_state[TABS] = LABELS[tab]
    at.run()
    assert not at.exception, at.exception
    return at


def test_benchmark_inputs_live_in_the_url(fixture_env):
    at = open_benchmarks(runtime="vllm", percentile="p99", throughput="accelerator")
    assert at.multiselect(key="runtime").value == ["vllm"]
    assert at.selectbox(key="percentile").value == "p99"
    assert at.radio(key="throughput").value == "accelerator"
    at.toggle(key="sweeps_only").set_value(True).run()
    assert not at.exception
    assert at.query_params["sweeps_only"] in (["true"], "true")
    assert at.query_params["runtime"] in (["vllm"], "vllm")


def test_the_curves_inputs_stay_in_the_url_while_another_tab_is_open(fixture_env):
    """The curves tab is drawn only while open; its inputs live on in the URL meanwhile."""
    at = open_benchmarks(tab=RESULTS, throughput="accelerator", sweeps_only="true")
    assert not [r for r in at.radio if r.key == "throughput"]  # the curves tab is not drawn
    assert at.query_params["throughput"] in (["accelerator"], "accelerator")
    assert at.query_params["sweeps_only"] in (["true"], "true")
    at = open_section(at, TABS, LABELS[CURVES])
    assert at.radio(key="throughput").value == "accelerator"
    assert at.toggle(key="sweeps_only").value is True
    at.toggle(key="sweeps_only").set_value(False).run()
    at = open_section(at, TABS, LABELS[PARITY])
    assert at.query_params["throughput"] in (["accelerator"], "accelerator")
    assert "sweeps_only" not in at.query_params  # off is the default: not written
    at = open_section(at, TABS, LABELS[CURVES])
    assert at.radio(key="throughput").value == "accelerator"
    assert at.toggle(key="sweeps_only").value is False


def test_benchmark_bad_url_values_fall_back_with_a_notice(fixture_env):
    at = open_benchmarks(runtime="nothing", throughput="sideways")
    notices = " ".join(w.value for w in at.warning)
    assert "Ignored runtime='nothing'" in notices and "Ignored throughput='sideways'" in notices
    assert (
        at.multiselect(key="runtime").value == [] and at.radio(key="throughput").value == "replica"
    )


def test_an_import_is_retracted_from_the_history_and_stays_there_with_its_reason(
    writable_fixture_env,
):
    with Warehouse.open(writable_fixture_env) as warehouse:
        snapshot = warehouse.ingest_results(
            "import:test", [_sweep_point(4, 400.0, 90.0)], origin="import"
        )
    at = run_page()
    assert "tokendesk harness run" in set(at.tabs[RESULTS].dataframe[0].value["source"])
    at = run_page(at, HISTORY)
    history = at.tabs[HISTORY].dataframe[0].value.set_index("Snapshot")
    assert history.loc[snapshot, "State"] == "current"
    assert history.loc[snapshot, "Retraction"] == "—"

    # No reason: refused, nothing written.
    before = count_results(writable_fixture_env)
    at.selectbox(key="retract_snapshot").set_value(snapshot)
    at.text_input(key="retract_by").set_value("ana")
    at.button(key="retract_confirm").click()
    at = run_page(at, HISTORY)
    assert [e.value for e in at.tabs[HISTORY].error] == [
        "Give a reason and your name; nothing was retracted."
    ]
    assert count_results(writable_fixture_env) == before

    at.text_input(key="retract_reason").set_value("a test run, not a measurement")
    at.button(key="retract_confirm").click()
    at = run_page(at, HISTORY)
    assert not at.tabs[HISTORY].error
    assert shown(at.tabs[HISTORY].success[0].value) == (
        f"Retracted snapshot `{snapshot}`: its results no longer count anywhere."
    )
    history = at.tabs[HISTORY].dataframe[0].value.set_index("Snapshot")
    assert history.loc[snapshot, "State"] == "retracted"
    assert history.loc[snapshot, "Retraction"].startswith("retracted ")
    assert history.loc[snapshot, "Retraction"].endswith(
        " UTC by ana: a test run, not a measurement"
    )
    assert has_no_literals(at.tabs[HISTORY].dataframe[0].value)
    # A retracted import is no longer offered; its result is gone from the results.
    assert snapshot not in at.selectbox(key="retract_snapshot").options
    at = run_page(at, RESULTS)
    assert "tokendesk harness run" not in set(at.tabs[RESULTS].dataframe[0].value["source"])
