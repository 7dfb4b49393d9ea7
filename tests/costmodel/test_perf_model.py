"""The performance model: its physics move the right way, the leave-one-out never fits on the
pair it predicts, and a result measured at the asked shape is returned as measured."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from costmodel import perf_calibration
from costmodel.bundled_tables import model_architectures
from costmodel.perf_model import Hardware, case_fields, cases_from, physics
from planning.estimates import (
    EstimateError,
    EstimateQuery,
    catalog_hardware,
    estimator,
)

H100 = catalog_hardware()["nvidia-h100-sxm-80gb"]
LLAMA_70B = model_architectures()["llama-3.1-70b"]


def _one(hw: Hardware = H100, **change):
    args = dict(
        system=8,
        fixed_tp=0,
        input_tokens=1000.0,
        output_tokens=200.0,
        regime="server",
        tpot_limit_ms=100.0,
        concurrency=None,
    )
    args.update(change)
    return physics(cases_from([case_fields(LLAMA_70B, hw, "fp8", **args)]))


def test_more_input_tokens_take_longer_to_the_first_token():
    short, long = _one(input_tokens=500.0), _one(input_tokens=5000.0)
    assert long.ttft_s[0] > short.ttft_s[0]


def test_more_bandwidth_gives_more_decode_throughput():
    faster = dataclasses.replace(H100, memory_bandwidth_tb_s=H100.memory_bandwidth_tb_s * 2)
    slow = _one(regime="concurrency", concurrency=8.0, fixed_tp=4)
    fast = _one(faster, regime="concurrency", concurrency=8.0, fixed_tp=4)
    assert fast.tok_s_per_acc[0] > slow.tok_s_per_acc[0]
    assert fast.tpot_s[0] < slow.tpot_s[0]


def test_a_model_that_cannot_fit_is_said_not_to():
    out = _one(system=1, fixed_tp=1)  # 70B in fp8 leaves no KV room on one 80 GB part
    assert not out.fits[0]


@pytest.fixture(scope="module")
def model(seed_db):
    from pricing.integrity import check_price_file
    from warehouse import Warehouse

    with Warehouse.open(seed_db, read_only=True, seed_check=check_price_file) as warehouse:
        return estimator(warehouse)


def test_the_held_out_pair_never_reaches_its_own_fit(model, monkeypatch):
    corpus = model.corpus
    seen: list[np.ndarray] = []
    real_fit = perf_calibration.fit_metric

    def spy(corpus_, metric, keep=None):
        seen.append(keep)
        return real_fit(corpus_, metric, keep)

    monkeypatch.setattr(perf_calibration, "fit_metric", spy)
    loo = perf_calibration.leave_one_out(corpus)
    assert seen  # a guard: no fit at all would pass the checks below
    for pair, keep in loo.fitted_on.items():
        assert not keep[corpus.pair == pair].any(), pair
    assert all(k is not None and (~k).any() for k in seen)
    # Every held-out row was predicted by a fit whose rows exclude the row's pair.
    for pair, keep in loo.fitted_on.items():
        assert keep[corpus.pair != pair].all()


def test_leave_out_uses_none_of_the_pairs_results(model):
    query = EstimateQuery(
        "llama-2-70b", "amd-mi300x-192gb", "fp8", accelerators_per_replica=8, scenario="server"
    )
    kept = model.estimate(dataclasses.replace(query, leave_out=True))
    ids = {i for i, _ in kept.calibrated_on}
    own = {
        r.get("result_id")
        for r, pair in zip(model.corpus.rows, model.corpus.pair, strict=True)
        if pair == "llama-2-70b|amd-mi300x-192gb"
    }
    assert own and not ids & own
    assert kept.basis == "estimated"


def test_a_result_measured_at_the_shape_is_returned_as_measured(model):
    c = model.corpus
    i = next(
        i
        for i, r in enumerate(c.rows)
        if c.model_id[i] == "llama-2-70b"
        and c.cats["part"][i] == "amd-mi300x-192gb"
        and c.cats["regime"][i] == "offline"
        and r["accelerators_per_replica"] == 8
    )
    row = c.rows[i]
    query = EstimateQuery(
        "llama-2-70b",
        "amd-mi300x-192gb",
        # The precision the run ran at (a quantised run's, not its checkpoint's).
        str(c.cats["precision"][i]),
        accelerators_per_replica=8,
        scenario="offline",
    )
    got = model.estimate(query)
    assert got.basis == "measured"
    band = got.output_tok_s_per_accelerator
    # The measured value read from the same stored row lies within the measured band.
    assert band.low <= float(row["output_tok_s_per_accelerator"]) <= band.high


def test_a_measured_answer_is_read_only_from_results_of_the_runtime_and_size_asked(model):
    # Asked with no shape, a result of another runtime (or system size) is no measurement of the
    # question: the answer is estimated, never another runtime's figure called measured.
    c = model.corpus
    asked = ("llama-2-70b", "nvidia-h200-141gb", "fp8", "server")
    rows = [
        i
        for i in range(len(c))
        if (c.model_id[i], c.cats["part"][i], c.cats["precision"][i], c.cats["regime"][i]) == asked
    ]
    runtimes = {str(c.cats["runtime"][i]) for i in rows}
    assert runtimes == {"trt-llm"}  # the corpus this case reads: TensorRT-LLM's runs alone
    query = EstimateQuery(*asked[:3], scenario="server")
    assert model.estimate(dataclasses.replace(query, runtime="trt-llm")).basis == "measured"
    assert model.estimate(dataclasses.replace(query, runtime="vllm")).basis == "estimated"
    sizes = {int(c.rows[i]["accelerators_per_replica"]) for i in rows}
    unmeasured = next(n for n in (2, 4, 16, 32) if n not in sizes)
    # The engine's own name, however spelt, is the same runtime as the results' "trt-llm".
    for spelling in ("TensorRT-LLM", "tensorrt_llm", "TRTLLM"):
        got = model.estimate(dataclasses.replace(query, runtime=spelling))
        assert got.basis == "measured" and got.runtime == "trt-llm", spelling
        assert f"{spelling} read as trt-llm" in got.runtime_note
    got = model.estimate(dataclasses.replace(query, accelerators_per_replica=unmeasured))
    assert got.basis == "estimated"


def test_a_size_asked_is_a_system_split_as_mlperf_s_unless_a_concurrency_is_asked(model):
    # The calibration reads an MLPerf system's count as accelerators to split into replicas, a
    # run at a stated concurrency as one replica of its size; a question is read the same way.
    base = EstimateQuery(
        "llama-2-70b", "nvidia-h200-141gb", "fp8", scenario="server", leave_out=True
    )
    free = model.estimate(base)
    system = model.estimate(dataclasses.replace(base, accelerators_per_replica=8))
    assert free.replica_size == system.replica_size == 1  # 70B in FP8 fits one H200
    assert system.output_tok_s_per_accelerator == free.output_tok_s_per_accelerator
    one = model.estimate(
        dataclasses.replace(base, scenario=None, concurrency=64, accelerators_per_replica=8)
    )
    assert one.replica_size == 8


def test_a_part_with_no_result_gets_a_wider_interval_than_a_measured_one(model):
    near = model.estimate(
        EstimateQuery(
            "llama-3.1-8b",
            "nvidia-h100-sxm-80gb",
            "fp8",
            scenario="offline",
            input_tokens=1000,
            output_tokens=300,
        )
    )
    far = model.estimate(
        EstimateQuery(
            "llama-3.1-8b",
            "google-tpu-v6e",
            "bf16",
            scenario="offline",
            input_tokens=1000,
            output_tokens=300,
        )
    )
    width = lambda e: e.output_tok_s_per_accelerator.high / e.output_tok_s_per_accelerator.low  # noqa: E731
    assert far.basis == near.basis == "estimated"
    assert width(far) > width(near)


def test_an_unknown_model_or_part_is_refused_in_words(model):
    with pytest.raises(EstimateError, match="model_architectures.csv"):
        model.estimate(EstimateQuery("no-such-model", "nvidia-h100-sxm-80gb", "fp8"))
    with pytest.raises(EstimateError, match="accelerators.csv"):
        model.estimate(EstimateQuery("llama-3.1-8b", "no-such-part", "fp8"))


def test_the_calibrated_estimate_grows_with_input_tokens_and_meets_or_misses_the_slo(model):
    def at(tokens: int):
        return model.estimate(
            EstimateQuery(
                "llama-3.3-70b-instruct",
                "nvidia-h100-sxm-80gb",
                "fp8",
                input_tokens=tokens,
                output_tokens=500,
                ttft_slo_ms=2000,
            )
        )

    short, long = at(500), at(50_000)
    assert long.ttft_ms_p50.estimate > short.ttft_ms_p50.estimate
    assert long.output_tok_s_per_accelerator.estimate < short.output_tok_s_per_accelerator.estimate
    assert short.meets_ttft_slo is (short.ttft_ms_p99.estimate <= 2000)
    assert long.meets_ttft_slo is (long.ttft_ms_p99.estimate <= 2000)


def test_a_held_out_cases_interval_ignores_its_own_pairs_residuals(model):
    from costmodel.estimate_validation import held_out_intervals

    corpus, loo = model.corpus, model.loo
    pair = "llama-2-70b|amd-mi300x-192gb"
    rows = (corpus.pair == pair) & np.isfinite(loo.predicted["tok_s"])
    assert rows.any()
    low, high = held_out_intervals(corpus, loo, "tok_s")
    # Make the pair's own predictions wildly wrong: its residuals change, its interval must not
    # (relative to its prediction), as they come from the other pairs only.
    wrong = dataclasses.replace(
        loo,
        predicted={
            **loo.predicted,
            "tok_s": np.where(rows, loo.predicted["tok_s"] * 50, loo.predicted["tok_s"]),
        },
    )
    low2, high2 = held_out_intervals(corpus, wrong, "tok_s")
    base = loo.predicted["tok_s"][rows]
    assert np.allclose(low2[rows] / (base * 50), low[rows] / base)
    assert np.allclose(high2[rows] / (base * 50), high[rows] / base)
    # ... while other pairs' intervals at the same level do move (the check can fail).
    others = ~rows & np.isfinite(low)
    assert not np.allclose(low2[others], low[others])


def test_an_interval_takes_its_vendors_wider_spread_where_the_vendor_has_enough_evidence():
    from costmodel.perf_calibration import MIN_GROUP, interval_factors

    rng = np.random.default_rng(7)
    level_resid = rng.normal(0.0, 0.05, 200)  # the corpus at this level misses by little
    vendor_resid = rng.normal(0.0, 0.5, MIN_GROUP)  # this vendor misses by much more
    residuals = np.concatenate([level_resid, vendor_resid])
    levels = np.zeros(len(residuals), dtype=int)
    vendor = np.arange(len(residuals)) >= len(level_resid)
    plain_lo, plain_hi, _ = interval_factors(residuals, levels, 0)
    lo, hi, _ = interval_factors(residuals, levels, 0, vendor)
    assert lo < plain_lo and hi > plain_hi
    assert hi == pytest.approx(np.exp(np.quantile(vendor_resid, 0.9)))
    # Too few of the vendor's own residuals to read a spread from: the level's interval stands.
    few = vendor & (np.arange(len(residuals)) < len(level_resid) + MIN_GROUP - 1)
    assert interval_factors(residuals, levels, 0, few)[:2] == (plain_lo, plain_hi)


def test_a_quantised_mlperf_run_is_read_at_the_precision_it_ran(model):
    from costmodel.perf_calibration import run_precision

    note = "weight_data_types fp16 with weight_transformations 'quantization': lower"
    hopper = {"precision": "fp16", "notes": note, "accelerator_id": "nvidia-h100-sxm-80gb"}
    blackwell = {**hopper, "accelerator_id": "nvidia-b200-180gb"}
    assert run_precision(hopper) == "fp8"
    assert run_precision(blackwell) == "fp4"
    assert run_precision({**hopper, "notes": "weight_data_types fp16"}) == "fp16"
    assert run_precision({**hopper, "precision": "FP8"}) == "fp8"
    # In the corpus, no Hopper run of llama-2-70b read as FP16 achieves its FP16 compute bound
    # or more any longer: those were FP8 runs labelled by their checkpoint.
    c = model.corpus
    fp16 = (c.cats["precision"] == "fp16") & (c.model_id == "llama-2-70b")
    hopper_rows = np.array(["h100" in p or "h200" in p for p in c.cats["part"]])
    ratio = c.measured["tok_s"][fp16 & hopper_rows] / c.bound["tok_s"][fp16 & hopper_rows]
    assert not (ratio >= 1.0).any()


def test_an_estimate_is_read_at_the_newest_mlperf_round(model):
    from costmodel.perf_calibration import newest_round, round_of

    assert round_of({"tool": "mlperf", "round_or_version": "v5.1"}) == "mlperf v5.1"
    assert round_of({"tool": "published", "round_or_version": "1.18.0"}) == "other"
    assert round_of({"tool": "mlperf", "round_or_version": ""}) == "other"
    labels = np.array(["mlperf v4.1", "mlperf v10.0", "other", "mlperf v6.0"], dtype=object)
    assert newest_round(labels) == "mlperf v10.0"
    assert newest_round(np.array(["other"], dtype=object)) == "other"
    # The fit holds one effect per round; an estimate takes the newest's.
    fit = model._fits["tok_s"]
    newest = newest_round(model.corpus.cats["round"])
    assert newest in fit.effects["round"] and len(fit.effects["round"]) >= 3


def test_one_measurement_filed_twice_is_one_case(model):
    from costmodel.bundled_tables import resolve_architecture
    from planning.estimates import catalog_hardware

    c = model.corpus
    i = int(np.flatnonzero(c.model_id == "llama-2-70b")[0])
    row = {k: v for k, v in c.rows[i].items() if not k.startswith("_")}
    unpinned = {**row, "result_id": "copy", "model": "llama-2-70b-chat", "source_url": "x/main"}
    pinned_url = "https://github.com/o/r/blob/" + "a" * 40 + "/f.txt"
    pinned = {**row, "result_id": "zz", "source_url": pinned_url}
    other = {**row, "result_id": "other", "output_tok_s_per_accelerator": 1.5}
    built = perf_calibration.build_corpus(
        [unpinned, pinned, other], model_architectures(), catalog_hardware(), resolve_architecture
    )
    # The copy under another spelling of the model is the same measurement; the pinned source is
    # the one kept. A different throughput is another measurement.
    assert sorted(r["result_id"] for r in built.rows) == ["other", "zz"]


def test_a_p99_first_token_latency_is_never_below_its_p50(model):
    loo = model.loo
    both = np.isfinite(loo.predicted["ttft_p99"]) & np.isfinite(loo.predicted["ttft_p50"])
    assert both.sum() > 300
    assert (loo.predicted["ttft_p99"][both] >= loo.predicted["ttft_p50"][both]).all()
    for scenario in ("offline", "server", "interactive"):
        got = model.estimate(
            EstimateQuery(
                "llama-2-70b", "nvidia-h200-141gb", "fp8", scenario=scenario, leave_out=True
            )
        )
        assert got.ttft_ms_p99.estimate >= got.ttft_ms_p50.estimate


def test_one_benchmark_spelt_two_ways_is_one_benchmark(model):
    from costmodel.perf_calibration import benchmark_key

    dotted = benchmark_key("llama-3.1-8b", "mlperf-llama3.1-8b-server")
    assert benchmark_key("llama-3.1-8b", "mlperf-llama3_1-8b-offline") == dotted
    assert benchmark_key("llama-3.1-8b", "mlperf-cnn-dailymail") != dotted
    # The Xeon runs, all spelt with "_", share their benchmark with the accelerators' runs.
    c = model.corpus
    xeon = c.cats["part"] == "cpu-intel-gnr-amx"
    on_gpus = (c.model_id == "llama-3.1-8b") & ~xeon
    assert set(c.cats["benchmark"][xeon & (c.model_id == "llama-3.1-8b")]) & set(
        c.cats["benchmark"][on_gpus]
    )


def test_reach_target_raises_only_a_first_token_high_end_with_no_result_of_the_vendor():
    from costmodel.perf_calibration import EVIDENCE, reach_target

    far, near = len(EVIDENCE) - 1, len(EVIDENCE) - 2
    levels = np.array([far, near, far, far])
    high = np.array([100.0, 100.0, 3000.0, 100.0])
    limit = np.array([2000.0, 2000.0, 2000.0, np.nan])
    assert reach_target("ttft_p50", levels, high, limit).tolist() == [2000, 100, 3000, 100]
    assert reach_target("ttft_p99", far, 100.0, 2000.0) == 2000.0
    assert reach_target("tok_s", levels, high, limit).tolist() == high.tolist()
    assert reach_target("tpot_p50", far, 100.0, 2000.0) == 100.0


def test_with_no_result_of_its_vendor_a_first_token_interval_reaches_the_target(model):
    from costmodel.estimate_validation import held_out_intervals
    from costmodel.perf_calibration import EVIDENCE

    def ask(part: str, precision: str):
        query = EstimateQuery("llama-3.1-8b", part, precision, ttft_slo_ms=2000.0)
        return model.estimate(query)

    far, near = ask("google-tpu-v6e", "bf16"), ask("nvidia-h100-sxm-80gb", "fp8")
    assert far.evidence == EVIDENCE[-1] and near.evidence != EVIDENCE[-1]
    assert far.ttft_ms_p50.high >= 2000.0 and far.ttft_ms_p99.high >= 2000.0
    assert near.ttft_ms_p50.high < 2000.0  # nearer evidence keeps its own interval
    # The validation's held-out intervals follow the same rule.
    c, loo = model.corpus, model.loo
    _, high = held_out_intervals(c, loo, "ttft_p50")
    held = (loo.level["ttft_p50"] == len(EVIDENCE) - 1) & np.isfinite(c.ttft_limit)
    held &= np.isfinite(high)
    assert held.any()
    assert (high[held] >= c.ttft_limit[held]).all()
    # ... and the estimate says why its interval ends there; a nearer one says nothing.
    assert "2,000 ms target" in far.interval_note and not near.interval_note


def test_the_naive_reference_is_the_median_of_other_pairs_in_the_same_benchmark_and_regime(
    model,
):
    from costmodel.estimate_validation import naive_reference

    corpus = model.corpus
    group = "llama-2-70b:mlperf-llama2-70b|server"
    in_group = (corpus.cats["benchmark_regime"] == group) & np.isfinite(corpus.measured["ttft_p50"])
    pair = "llama-2-70b|amd-mi300x-192gb"
    own = in_group & (corpus.pair == pair)
    others = in_group & ~own
    assert own.any() and others.sum() >= 3
    # Known values for every other pair's results, and an absurd one for the pair's own: the
    # guess for the pair is the median of the others', its own never counts.
    values = corpus.measured["ttft_p50"].copy()
    values[others] = np.arange(1, others.sum() + 1, dtype=float)
    values[own] = 1e9
    changed = dataclasses.replace(corpus, measured={**corpus.measured, "ttft_p50": values})
    guess = naive_reference(changed, "ttft_p50")
    assert np.all(guess[own] == np.median(np.arange(1, others.sum() + 1)))


def test_a_runtime_is_read_by_its_one_name_and_an_unmeasured_one_is_said_to_be(model):
    base = EstimateQuery("llama-2-70b", "nvidia-h200-141gb", "fp8", scenario="server")
    base = dataclasses.replace(base, leave_out=True)
    named = model.estimate(dataclasses.replace(base, runtime="trt-llm"))
    spelt = model.estimate(dataclasses.replace(base, runtime="TensorRT-LLM"))
    assert spelt.output_tok_s_per_accelerator == named.output_tok_s_per_accelerator
    assert spelt.ttft_ms_p99 == named.ttft_ms_p99 and spelt.evidence == named.evidence
    assert not named.runtime_note  # asked by its name, and measured: nothing to say
    # A runtime no result ran: no runtime effect, a wider interval, and the output says so.
    other = model.estimate(dataclasses.replace(base, runtime="mlc-llm"))
    assert "no result in the fit ran mlc-llm" in other.runtime_note
    assert "trt-llm" in other.runtime_note and "n/a" not in other.runtime_note
    assert perf_calibration.EVIDENCE.index(other.evidence) > perf_calibration.EVIDENCE.index(
        named.evidence
    )
    # Not asked: the runtime read is named, and why.
    free = model.estimate(base)
    assert free.runtime == "trt-llm" and "no runtime given: read as trt-llm" in free.runtime_note


def test_results_are_fitted_under_their_runtime_s_one_name():
    from tokendesk.runtimes import canonical_runtime

    assert canonical_runtime("TensorRT-LLM") == canonical_runtime("tensorrtllm") == "trt-llm"
    assert canonical_runtime(" Llama_CPP ") == "llama.cpp"
    assert canonical_runtime("vLLM") == "vllm" and canonical_runtime(None) == ""
    assert canonical_runtime("Some Engine") == "some-engine"  # unknown: spelt one way all the same
    row = {"_arch": LLAMA_70B, "_hw": H100, "runtime": "TensorRT_LLM", "scenario": "server"}
    assert perf_calibration.labels_of(row)["runtime"] == "trt-llm"


def test_an_estimate_at_a_thinly_measured_load_says_so(model):
    c = model.corpus
    streams = int((c.cats["regime"] == "concurrency").sum())
    assert 0 < streams < perf_calibration.THIN_REGIME  # the corpus this reads
    base = EstimateQuery("llama-3.1-70b", "nvidia-h100-sxm-80gb", "fp8", leave_out=True)
    at_streams = model.estimate(dataclasses.replace(base, concurrency=16))
    assert f"only {streams:,} of the results in the fit were measured at a stated concurrency" in (
        at_streams.load_note
    )
    assert not model.estimate(dataclasses.replace(base, scenario="server")).load_note


def test_one_replica_reads_the_size_as_a_deployment_s_at_any_load(model):
    # 405B in FP8 fits four H200s: as a system of 8 the physics splits it into two replicas of
    # 4; a deployment that runs it as one 8-way replica asks with one_replica.
    base = EstimateQuery(
        "llama-3.1-405b",
        "nvidia-h200-141gb",
        "fp8",
        accelerators_per_replica=8,
        scenario="offline",
        leave_out=True,
    )
    split = model.estimate(base)
    whole = model.estimate(dataclasses.replace(base, one_replica=True))
    assert split.replica_size < 8 and whole.replica_size == 8
    assert (
        whole.output_tok_s_per_accelerator.estimate != split.output_tok_s_per_accelerator.estimate
    )
    # An MLPerf result's count is a system's: no measured answer for one replica of that size.
    asked = EstimateQuery(
        "llama-2-70b", "nvidia-h200-141gb", "fp8", accelerators_per_replica=8, scenario="server"
    )
    assert model.estimate(asked).basis == "measured"
    assert model.estimate(dataclasses.replace(asked, one_replica=True)).basis == "estimated"
