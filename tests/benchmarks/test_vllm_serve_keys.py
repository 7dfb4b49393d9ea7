"""`vllm bench serve --save-result` of the newest schema: every key the current source writes is
in the serving ledger, and the runs whose load the file's rate does not describe are not read
as bursts.

The keys were read from ``vllm/benchmarks/serve.py`` of vllm-project/vllm at commit
009e6d4a1cd6ba3fb2a9fc00f4ec06f5297232a1 (``main_async``'s ``result_json`` and ``benchmark``'s
``result``). No result file of this version was found in a public repository; the corpus's
real file is vLLM 0.33.0's (tests/fixtures/real/vllm/).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from benchmarks.errors import ResultFileError
from benchmarks.importers import ImportOverrides, import_sources
from benchmarks.importers.ledger import SERVING

VLLM_COMMIT = "009e6d4a1cd6ba3fb2a9fc00f4ec06f5297232a1"
#: Setup, traffic and result keys, in the order serve.py writes them.
WRITTEN = (
    # result_json: setup
    "date",
    "endpoint_type",
    "backend",
    "label",
    "model_id",
    "tokenizer_id",
    "num_prompts",
    # result_json: traffic
    "request_rate",
    "burstiness",
    "max_concurrency",
    "ramp_up_strategy",
    "ramp_up_start_rps",
    "ramp_up_end_rps",
    # benchmark(): a generation run
    "duration",
    "completed",
    "failed",
    "total_input_tokens",
    "total_output_tokens",
    "request_throughput",
    "request_goodput",
    "output_throughput",
    "total_token_throughput",
    "input_lens",
    "output_lens",
    "ttfts",
    "itls",
    "latencies",
    "start_times",
    "queue_times",
    "generated_texts",
    "errors",
    "max_output_tokens_per_s",
    "max_concurrent_requests",
    "rtfx",
    # benchmark(): a pooling (embedding) run
    "total_input_sequences",
    "input_sequence_throughput",
    # --probe-request-rate
    "probe_completed",
    "probe_failed",
    "probe_median_e2el_ms",
    "probe_p99_e2el_ms",
    "probe_max_e2el_ms",
    # ramp-up
    "rps_change_events",
    # the server's speculative-decoding and diffusion counters
    "spec_decode_acceptance_rate",
    "spec_decode_acceptance_length",
    "spec_decode_num_drafts",
    "spec_decode_draft_tokens",
    "spec_decode_accepted_tokens",
    "spec_decode_per_position_acceptance_rates",
    "diffusion_committed_throughput",
    "diffusion_steps_per_canvas",
    "diffusion_committed_per_step",
    "diffusion_committed_tokens",
    "diffusion_denoising_steps",
    "diffusion_canvas_positions",
)
#: process_one_metric writes mean_/median_/std_ and p<percentile>_ for each selected metric
#: (--percentile-metrics; --metric-percentiles such as "50,90,99,99.9").
PERCENTILE_METRICS = (
    "ttft",
    "tpot",
    "itl",
    "e2el",
    "client_queue_time",
    "e2el_including_client_queue",
)
PERCENTILE_KEYS = tuple(
    f"{stat}_{metric}_ms"
    for metric in PERCENTILE_METRICS
    for stat in ("mean", "median", "std", "p50", "p90", "p99", "p99.9")
)
REAL = Path(__file__).resolve().parents[1] / "fixtures" / "real" / "vllm"
SAVED = REAL / "openai-chat-infqps-concurrency4-echo-1-20261201-101900.json"
FAKE = ImportOverrides(accelerator_id="nvidia-l4-24gb", runtime="tokendesk-fake", precision="bf16")


@pytest.mark.parametrize("key", WRITTEN + PERCENTILE_KEYS)
def test_every_key_the_current_source_writes_is_in_the_ledger(key):
    assert SERVING.knows(key), f"{key} (written at vLLM {VLLM_COMMIT[:10]}) is not in the ledger"


def _saved(**changes) -> bytes:
    row = json.loads(SAVED.read_bytes())
    row.update(changes)
    return json.dumps({k: v for k, v in row.items() if v is not None}).encode()


def test_a_ramp_up_run_is_refused_not_read_as_a_burst():
    # With --ramp-up-strategy the rate climbs from start to end; request_rate stays "inf".
    data = _saved(
        request_rate="inf",
        max_concurrency=None,
        ramp_up_strategy="linear",
        ramp_up_start_rps=1,
        ramp_up_end_rps=20,
    )
    with pytest.raises(ResultFileError, match="ramped") as caught:
        import_sources([("ramp.json", data)], FAKE)
    assert caught.value.key == "ramp_up_strategy"


def test_a_timed_trace_run_is_not_labelled_a_burst_of_every_prompt():
    # timed_trace sends each request at the trace's own time; request_rate keeps its default.
    data = _saved(request_rate="inf", max_concurrency=None, dataset_name="timed_trace")
    [(_, _, (r,))] = import_sources([("trace.json", data)], FAKE)
    assert (r.request_rate_rps, r.concurrency) == (None, None)
    assert "timed trace" in r.notes and "burst" not in r.notes


def test_the_new_keys_import_without_a_not_understood_note():
    data = _saved(
        probe_completed=5,
        probe_failed=0,
        probe_median_e2el_ms=120.0,
        spec_decode_acceptance_length=2.8,
        mean_client_queue_time_ms=3.0,
        p99_e2el_including_client_queue_ms=400.0,
    )
    [(_, _, (r,))] = import_sources([("new.json", data)], FAKE)
    [(_, _, (plain,))] = import_sources([("plain.json", SAVED.read_bytes())], FAKE)
    assert "not understood" not in r.notes
    assert r.output_tok_s == plain.output_tok_s and r.concurrency == 4
