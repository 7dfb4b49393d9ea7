"""llm-d-benchmark benchmark reports, schema 0.1, 0.2 and 0.2.1.

No report of schema 0.2 written by a run was found in a public repository (see
tests/fixtures/real/README.md), so these tests read the schema's own committed examples
(tests/benchmarks/fixtures/llmd/, hand-written by its authors) and variants of them made here
in code, each change named where it is made. The real 0.1 report is in test_real_corpus.py.
"""

from __future__ import annotations

import copy
import json
from dataclasses import replace
from pathlib import Path

import pytest
import yaml

from benchmarks.errors import ResultFileError
from benchmarks.importers import ImportOverrides, import_sources

FIXTURES = Path(__file__).resolve().parent / "fixtures" / "llmd"
V01 = FIXTURES / "br_v0_1_example.yaml"
V02 = FIXTURES / "br_v0_2_example.yaml"
V021 = FIXTURES / "br_v0_2_1_example.yaml"
#: The 0.2 example's engine is "llm-d" (its vLLM image) and states no precision.
ASKED = ImportOverrides(runtime="vllm", precision="bf16")


def load(name: str, data: bytes, overrides: ImportOverrides = ASKED):
    [(_, importer, results)] = import_sources([(name, data)], overrides)
    assert importer == "llmd-report"
    return results


def as_yaml(report: dict) -> bytes:
    return yaml.safe_dump(report, sort_keys=False).encode()


def example(path: Path) -> dict:
    return yaml.safe_load(path.read_text(encoding="utf-8"))


def test_report_02_asks_for_the_runtime_and_precision_it_does_not_state():
    with pytest.raises(ResultFileError) as caught:
        load(V02.name, V02.read_bytes(), ImportOverrides())
    assert "--precision" in caught.value.reason and "--runtime" in caught.value.reason


def test_report_02_carries_every_dimension_it_states():
    (r,) = load(V02.name, V02.read_bytes())
    # "NVIDIA-H100-80GB-HBM3" names one part; 2 decode replicas x 8 form the deployment.
    assert (r.accelerator_id, r.accelerators_per_replica) == ("nvidia-h100-sxm-80gb", 16)
    assert r.model == "Qwen/Qwen3-0.6B" and r.runtime == "vllm"
    # The image is llm-d's build, not a vLLM version: kept in the notes, not as the version.
    assert r.runtime_version == "" and "ghcr.io/llm-d/llm-d-cuda:0.3.1" in r.notes
    # rate_qps 10 with concurrency .inf: the rate was controlled, concurrency was not.
    assert (r.request_rate_rps, r.concurrency) == (10.0, None)
    assert (r.input_tokens, r.output_tokens) == (2262, 2262)
    assert r.ttft_ms_p50 == pytest.approx(36.22930939309299)  # 0.03622930939309299 s
    assert r.ttft_ms_p99 == pytest.approx(50.29489721637218)
    assert (r.requests_ok, r.requests_failed) == (500, 0)
    assert r.output_tok_s == 2262.448
    assert r.measured_at.isoformat() == "2025-11-05T18:00:42+00:00"
    assert "tp 8" in r.notes and "stage 3" in r.notes and "not understood" not in r.notes


def test_report_021_reads_like_the_02_report_it_extends():
    (r02,) = load(V02.name, V02.read_bytes())
    (r021,) = load(V021.name, V021.read_bytes())
    fields = ("accelerator_id", "output_tok_s", "ttft_ms_p50", "request_rate_rps")
    assert {f: getattr(r021, f) for f in fields} == {f: getattr(r02, f) for f in fields}
    # The multi-modal statistics 0.2.1 adds are in the ledger, not "not understood".
    assert "not understood" not in r021.notes


def test_report_01_does_not_take_h100_80gb_for_one_part():
    # "H100" with 80 GB is the SXM or the PCIe card: the import asks, it does not pick one.
    with pytest.raises(ResultFileError, match="pass --accelerator") as caught:
        load(V01.name, V01.read_bytes(), ImportOverrides())
    assert "'H100'" in caught.value.reason


def test_report_01_disaggregated_deployment_is_one_unit_and_power_is_not_guessed():
    (r,) = load(V01.name, V01.read_bytes(), ImportOverrides(accelerator_id="nvidia-h100-sxm-80gb"))
    # One prefill instance of 1 and two decode instances of 8 serve together.
    assert r.accelerators_per_replica == 17 and "disaggregated" in r.notes
    assert (r.runtime, r.runtime_version, r.precision) == ("vllm", "0.9.0.1", "fp16")
    assert r.tpot_ms_p50 == pytest.approx(0.0611870964678625)  # units ms/token
    assert r.measured_at.isoformat().startswith("2025-06-10T15:49:43")
    # Power per instance of 8 accelerators may be their sum or their mean: noted, not kept.
    assert r.measured_power_w is None and "410.0 W" in r.notes
    assert "1 requests incomplete" in r.notes


def _replicas_of_one_accelerator() -> dict:
    """The 0.2 example changed to two vLLM replicas of one accelerator each, with the power of
    each replica's pod, as the schema's observability components carry it."""
    report = example(V02)
    engine = report["scenario"]["stack"][0]
    engine["standardized"].update(role="replica", replicas=2, tool="vllm", tool_version="v0.11.0")
    engine["standardized"]["accelerator"].update(count=1)
    engine["standardized"]["accelerator"]["parallelism"].update(tp=1)
    engine["native"]["args"]["--dtype"] = "bfloat16"
    label = engine["metadata"]["label"]
    report["results"]["observability"] = {
        "components": [
            {
                "component_label": label,
                "replica_id": f"pod-{i}",
                "aggregate": {"power_consumption": {"units": "Watts", "mean": watts}},
            }
            for i, watts in enumerate((300.0, 340.0))
        ]
    }
    return report


def test_report_02_replicas_share_the_figures_and_power_of_one_accelerator_is_kept():
    (r,) = load("replicas.yaml", as_yaml(_replicas_of_one_accelerator()), ImportOverrides())
    assert (r.accelerators_per_replica, r.runtime, r.runtime_version) == (1, "vllm", "v0.11.0")
    assert r.precision == "bf16"
    assert r.output_tok_s == pytest.approx(2262.448 / 2)
    assert r.request_rate_rps == pytest.approx(5.0)
    assert r.measured_power_w == pytest.approx(320.0)  # the two pods' mean, one device each


def test_a_report_exported_as_json_reads_like_its_yaml():
    report = _replicas_of_one_accelerator()
    (from_yaml,) = load("r.yaml", as_yaml(report), ImportOverrides())
    text = json.dumps(report, default=str)
    (from_json,) = load("r.json", text.encode(), ImportOverrides())
    assert from_json.model_dump(exclude={"source_file"}) == from_yaml.model_dump(
        exclude={"source_file"}
    )


def test_a_field_the_ledger_does_not_know_is_named():
    report = _replicas_of_one_accelerator()
    report["results"]["request_performance"]["aggregate"]["latency"]["time_to_second_token"] = {
        "units": "s",
        "mean": 0.01,
    }
    (r,) = load("new-field.yaml", as_yaml(report), ImportOverrides())
    assert "time_to_second_token' not understood" in r.notes


def test_a_schema_version_it_was_not_checked_against_is_refused():
    report = example(V02)
    report["version"] = "0.3"
    with pytest.raises(ResultFileError, match="'0.3' is not one") as caught:
        load("v03.yaml", as_yaml(report))
    assert caught.value.key == "version"


def test_a_session_only_report_is_refused_with_the_reason():
    report = example(V02)
    del report["results"]["request_performance"]
    with pytest.raises(ResultFileError, match="no request performance"):
        load("sessions.yaml", as_yaml(report))


def test_engines_on_different_accelerators_ask_which_to_record():
    report = example(V02)
    second = copy.deepcopy(report["scenario"]["stack"][0])
    second["standardized"]["accelerator"]["model"] = "NVIDIA-H200"
    report["scenario"]["stack"].append(second)
    with pytest.raises(ResultFileError, match="different accelerators"):
        load("mixed.yaml", as_yaml(report))
    (r,) = load("mixed.yaml", as_yaml(report), replace(ASKED, accelerator_id="nvidia-h200-141gb"))
    assert r.accelerator_id == "nvidia-h200-141gb"


def test_yaml_that_expands_without_bound_is_refused_not_walked():
    # Each alias level multiplies the tree by ten: nine levels would be a billion values.
    lines = ["version: '0.2'", "run: {uid: x}", "a0: &a0 [1, 1, 1, 1, 1, 1, 1, 1, 1, 1]"]
    lines += [f"a{i}: &a{i} [{', '.join([f'*a{i - 1}'] * 10)}]" for i in range(1, 9)]
    lines.append("results: *a8")
    with pytest.raises(ResultFileError, match="expands to more than"):
        load("bomb.yaml", "\n".join(lines).encode())


def test_malformed_yaml_names_the_line():
    text = V02.read_text(encoding="utf-8").replace("  uid: ", "  uid: [", 1)
    with pytest.raises(ResultFileError, match="not valid YAML") as caught:
        load(V02.name, text.encode())
    assert caught.value.key.startswith("line ")


def test_power_of_some_instances_only_is_noted_not_extrapolated():
    report = _replicas_of_one_accelerator()
    del report["results"]["observability"]["components"][1]  # the second pod's power is gone
    (r,) = load("half-power.yaml", as_yaml(report), ImportOverrides())
    assert r.measured_power_w is None
    assert "300.0 W over 1 of 2 serving instances" in r.notes
