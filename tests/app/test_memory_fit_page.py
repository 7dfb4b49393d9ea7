"""The Memory fit page. It reads the accelerator catalog (data/accelerators.csv) and the model
architectures (data/model_architectures.csv), not prices or results: the figures below are worked
from those rows (Llama 3.1 70B: 70.55e9 parameters, 80 layers, 8 KV heads of 128; H100 80 GiB,
H200 141 GiB, MI300X 192 GiB) with the page's defaults (bf16, 8,192 tokens of context, one
sequence; 90% of memory usable less 4 GiB runtime overhead per device). Its warehouse is the
fixture one, so nothing here depends on the shipped seed."""

import json

import pytest
from streamlit.testing.v1 import AppTest

from app.models.tables import has_no_literals
from tests.app.pages import VIEWS, plain


def run_fit(**widgets):
    at = AppTest.from_file(str(VIEWS / "memory_fit.py"), default_timeout=60)
    at.run()
    for key, value in widgets.items():
        if key in ("context", "sequences"):
            at.number_input(key=key).set_value(value)
        elif key == "explain":
            at.multiselect(key=key).set_value(value)
        else:
            at.selectbox(key=key).set_value(value)
    if widgets:
        at.run()
    assert not at.exception, at.exception
    return at


def fit_table(at):
    return at.dataframe[0].value.set_index("Accelerator")


def test_70b_bf16_fits_one_mi300x_but_needs_four_h100(fixture_env):
    at = run_fit()
    assert (
        at.selectbox(key="model").value == "llama-3.1-70b"
        and at.selectbox(key="precision").value == "bf16"
    )
    table = fit_table(at)
    assert int(table.loc["AMD Instinct MI300X 192GB", "Accelerators / replica"]) == 1
    assert int(table.loc["NVIDIA H100 SXM 80GB", "Accelerators / replica"]) == 4
    assert (
        int(table.loc["NVIDIA H100 SXM 80GB", "TP"]) == 4
        and int(table.loc["NVIDIA H100 SXM 80GB", "PP"]) == 1
    )
    assert int(table.loc["NVIDIA H200 SXM 141GB", "Accelerators / replica"]) == 2
    metrics = {m.label: m.value for m in at.metric}
    # Weights: 70.55e9 x 2 bytes / 2^30 = 131.4 GiB. KV per sequence: 80 layers x 8 KV heads x 128
    # x 2 (K and V) x 2 bytes x 8,192 tokens = 2,684,354,560 bytes = 2.50 GiB.
    assert metrics["Weights"] == "131.4 GiB" and metrics["KV cache per sequence"] == "2.50 GiB"
    # Usable: MI300X 0.9 x 192 - 4 = 168.8 GiB, leaving 168.8 - 131.4 = 37.4 for the KV cache;
    # H100 0.9 x 80 - 4 = 68.0 GiB, two leave 136.0 - 131.4 = 4.6, below the 10% (13.6) kept for KV.
    why = [m.value for m in at.markdown]
    amd = next(w for w in why if w.startswith("**AMD Instinct MI300X 192GB: 1 per replica**"))
    assert "168.8 GiB usable" in amd and "leaving 37.4 GiB" in amd
    nvidia = next(w for w in why if w.startswith("**NVIDIA H100 SXM 80GB: 4 per replica**"))
    assert "1 × NVIDIA H100 SXM 80GB = 68.0 GiB usable < 131.4 GiB weights" in nvidia
    assert "2 × NVIDIA H100 SXM 80GB leaves 4.6 GiB for KV, below the 13.6 GiB needed" in nvidia
    assert any(
        "https://huggingface.co/meta-llama/Llama-3.1-70B" in c.value
        and "retrieved 2025-01-15" in c.value
        for c in at.caption
    )


def test_breakdown_chart_is_in_gib_and_adds_up_to_the_replica_memory(fixture_env):
    at = run_fit()
    spec = plain(json.loads(at.get("plotly_chart")[0].proto.spec))
    parts = {
        trace["name"]: dict(zip(trace["y"], trace["x"], strict=True)) for trace in spec["data"]
    }
    mi300x = "1 × AMD Instinct MI300X 192GB"
    assert parts["Weights"][mi300x] == pytest.approx(131.4, abs=0.05)
    assert parts["KV cache (requested sequences)"][mi300x] == pytest.approx(2.5)
    assert sum(p[mi300x] for p in parts.values()) == pytest.approx(192)
    assert sum(p["4 × NVIDIA H100 SXM 80GB"] for p in parts.values()) == pytest.approx(320)
    assert spec["layout"]["xaxis"]["title"]["text"] == "Memory per replica (GiB)"


@pytest.mark.parametrize(
    ("model", "precision", "accelerator", "want"),
    [
        ("llama-3.1-70b", "fp8", "NVIDIA H100 SXM 80GB", 2),
        ("llama-3.1-405b", "fp8", "AMD Instinct MI300X 192GB", 4),
        ("llama-3.1-405b", "bf16", "NVIDIA H100 SXM 80GB", 16),
    ],
)
def test_precision_changes_the_count(fixture_env, model, precision, accelerator, want):
    table = fit_table(run_fit(model=model, precision=precision))
    assert int(table.loc[accelerator, "Accelerators / replica"]) == want


def test_tensor_parallel_must_divide_the_heads(fixture_env):
    at = run_fit(model="qwen2.5-7b", context=32768, sequences=40)
    l4 = fit_table(at).loc["NVIDIA L4 24GB"]
    assert l4["Fits"] == "no" and "TP=8 does not divide 28 attention / 4 KV heads" in l4["Why"]


def test_context_beyond_the_model_is_explained(fixture_env):
    at = run_fit(model="llama-2-70b")
    assert at.number_input(key="context").value == 4096  # the default never exceeds the model
    at.number_input(key="context").set_value(8192)
    at.run()
    assert [e.value for e in at.error] == [
        "Llama 2 70B supports at most 4,096 tokens of context; 8,192 were "
        "asked for. Lower the context length in the sidebar."
    ]


def open_fit(**params) -> AppTest:
    at = AppTest.from_file(str(VIEWS / "memory_fit.py"), default_timeout=60)
    for key, value in params.items():
        at.query_params[key] = value
    at.run()
    assert not at.exception, at.exception
    return at


def test_memory_fit_inputs_live_in_the_url(fixture_env):
    at = open_fit(model="llama-3.1-405b", precision="fp8", sequences="4", cpus="true")
    assert at.selectbox(key="model").value == "llama-3.1-405b"
    assert at.selectbox(key="precision").value == "fp8"
    assert at.number_input(key="sequences").value == 4 and at.toggle(key="cpus").value
    at.selectbox(key="precision").set_value("int4").run()
    assert not at.exception
    assert at.query_params["precision"] in (["int4"], "int4")
    assert at.query_params["sequences"] in (["4"], "4")


def test_memory_fit_bad_url_values_fall_back_with_a_notice(fixture_env):
    at = open_fit(model="gpt-9", sequences="0", explain="nvidia-h100-sxm-80gb,nothing")
    notices = " ".join(w.value for w in at.warning)
    assert "Ignored model='gpt-9'" in notices and "Ignored sequences='0'" in notices
    assert "Ignored explain=" in notices
    assert at.selectbox(key="model").value == "llama-3.1-70b"
    assert at.number_input(key="sequences").value == 1
    assert has_no_literals(at.dataframe[0].value)
