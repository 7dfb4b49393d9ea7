"""``tokendesk estimate`` and ``tokendesk estimate validate``: the JSON a script reads, and
errors in words."""

from __future__ import annotations

import json

from typer.testing import CliRunner

from cli.main import app

runner = CliRunner()
BAND = {"estimate", "low", "high"}


def test_estimate_json_carries_the_bands_basis_and_sources(seed_db):
    out = runner.invoke(
        app,
        [
            "estimate",
            "--model",
            "llama-3.3-70b-instruct",
            "--accelerator",
            "nvidia-h100-sxm-80gb",
            "--precision",
            "fp8",
            "--scenario",
            "server",
            "--format",
            "json",
            "--db",
            str(seed_db),
        ],
    )
    assert out.exit_code == 0, out.output
    data = json.loads(out.stdout)
    for key in ("output_tok_s_per_accelerator", "ttft_ms_p50", "ttft_ms_p99", "tpot_ms_p50"):
        assert set(data[key]) == BAND
        assert data[key]["low"] <= data[key]["estimate"] <= data[key]["high"]
    assert data["basis"] in {"measured", "estimated"}
    assert "benchmark shape" in data["shape_note"]  # no --input/--output-tokens: it says so
    assert data["calibrated_on"] and {"result_id", "source"} <= set(data["calibrated_on"][0])


def _estimate(seed_db, accelerator: str, *more: str):
    args = ["estimate", "--model", "meta-llama/Llama-2-70b-chat-hf", "--accelerator", accelerator]
    args += ["--precision", "fp8", "--scenario", "server", *more, "--db", str(seed_db)]
    return runner.invoke(app, args)


def test_estimate_reads_a_part_s_name_as_its_catalog_id_and_refuses_an_ambiguous_one(seed_db):
    by_id = _estimate(seed_db, "nvidia-b200-180gb", "--format", "json")
    by_name = _estimate(seed_db, "B200", "--format", "json")
    assert by_name.exit_code == 0, by_name.output
    a, b = json.loads(by_id.stdout), json.loads(by_name.stdout)
    assert b["query"]["accelerator_id"] == "nvidia-b200-180gb"
    assert b["model_id"] == "llama-2-70b"  # a hub id, owner and all
    assert a["output_tok_s_per_accelerator"] == b["output_tok_s_per_accelerator"]
    table = _estimate(seed_db, "B200")
    assert "accelerator B200 read as nvidia-b200-180gb" in " ".join(table.stdout.split())
    # "h100" names three parts: refused, naming them, with no traceback.
    out = _estimate(seed_db, "h100")
    assert out.exit_code == 2
    text = " ".join(out.output.split())
    for part in ("nvidia-h100-sxm-80gb", "nvidia-h100-pcie-80gb", "nvidia-h100-nvl-94gb"):
        assert part in text
    assert "Traceback" not in out.output


def test_a_measured_answer_asked_without_a_runtime_names_the_runtimes_it_read(seed_db):
    out = _estimate(seed_db, "nvidia-h200-141gb", "--format", "json")
    data = json.loads(out.stdout)
    assert data["basis"] == "measured"
    assert data["runtime_note"] == f"no runtime given: the results measured on {data['runtime']}"


def test_estimate_refuses_an_unknown_model_in_words(seed_db):
    out = runner.invoke(
        app,
        [
            "estimate",
            "--model",
            "no-such-model",
            "--accelerator",
            "nvidia-h100-sxm-80gb",
            "--precision",
            "fp8",
            "--db",
            str(seed_db),
        ],
    )
    assert out.exit_code == 2
    assert "model_architectures.csv" in out.output


def test_validate_json_reports_error_and_coverage_per_vendor_and_regime(seed_db):
    out = runner.invoke(app, ["estimate", "validate", "--format", "json", "--db", str(seed_db)])
    assert out.exit_code == 0, out.output
    report = json.loads(out.stdout)
    for name in ("output_tok_s_per_accelerator", "ttft_ms_p50"):
        metric = report["metrics"][name]
        assert {"median_abs_pct_error", "interval_coverage", "cases"} <= set(metric["overall"])
        assert metric["per_vendor"] and metric["per_regime"]
        case = metric["cases"][0]
        assert {"predicted", "low", "high", "measured"} <= set(case)
    # The naive reference sits beside the model on the cases both answer; on throughput the
    # model must beat it (a guess that ignores the part cannot know its speed).
    ref = report["metrics"]["output_tok_s_per_accelerator"]["naive_reference"]
    assert 0 < ref["cases"] <= report["metrics"]["output_tok_s_per_accelerator"]["overall"]["cases"]
    assert ref["model_median_abs_pct_error"] < ref["median_abs_pct_error"]


def test_validate_table_names_the_naive_reference_as_the_json_gives_it(seed_db):
    as_json = runner.invoke(app, ["estimate", "validate", "--format", "json", "--db", str(seed_db)])
    table = runner.invoke(app, ["estimate", "validate", "--db", str(seed_db)])
    assert table.exit_code == 0, table.output
    flat = " ".join(table.stdout.split())
    for metric in json.loads(as_json.stdout)["metrics"].values():
        ref = metric["naive_reference"]
        assert (
            f"median |error| {ref['median_abs_pct_error']:.1%} over {ref['cases']:,} cases" in flat
        )


def test_estimate_reads_a_framework_s_precision_name_and_refuses_one_replica_without_a_size(
    seed_db,
):
    typed = _estimate(seed_db, "nvidia-h200-141gb", "--format", "json")
    spelt = runner.invoke(
        app,
        [
            "estimate",
            "--model",
            "llama-2-70b",
            "--accelerator",
            "nvidia-h200-141gb",
            "--precision",
            "float8_e4m3fn",
            "--scenario",
            "server",
            "--db",
            str(seed_db),
        ],
    )
    assert spelt.exit_code == 0, spelt.output
    assert "precision float8_e4m3fn read as fp8" in " ".join(spelt.stdout.split())
    assert json.loads(typed.stdout)["query"]["precision"] == "fp8"
    out = _estimate(seed_db, "nvidia-h200-141gb", "--one-replica")
    assert out.exit_code == 2
    assert "--one-replica reads --accelerators-per-replica" in " ".join(out.output.split())


def test_a_precision_of_the_model_s_own_is_read_with_either_separator():
    from cli.estimate_command import _precision_name

    assert _precision_name("int4_awq") == ("int4-awq", "precision int4_awq read as int4-awq")
    assert _precision_name("INT4-AWQ") == ("int4-awq", "")
    # A name whose underscore is its own stays as typed.
    assert _precision_name("q4_0") == ("q4_0", "")
    assert _precision_name("Q4_K_M") == ("q4_k_m", "")
