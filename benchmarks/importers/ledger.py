# Long by design: a data table. The field ledger lists, per format, every field its files carry
# and what the importer does with it; one table is what LEDGER.md is written from and what each
# importer is checked against, so it stays whole rather than split by format.
"""The field ledger: for each format, every field its files carry and what the importer does with
it — mapped onto the record (and where), or ignored with the reason.

A field the ledger does not know is a field the importer has never been checked against: a new
tool version, a renamed metric. The import still reads what it understands, and every record it
makes says "field X not understood" in its notes, so the dry run shows the new field instead of
passing it over in silence. ``tests/benchmarks/test_field_ledger.py`` holds the ledger to the
real-file corpus (every field there is known) and to ``benchmarks/importers/LEDGER.md`` (which
prints it).

Which fields a format has: the top-level keys of a JSON object (AIPerf, genai-perf, LLMPerf,
MLPerf system and measurements JSON), the keys of each record (vLLM and SGLang rows, llama-bench
records, MLPerf ``summary_results.json`` rows, each GuideLLM benchmark and its ``metrics``), the
metric row names of a CSV (AIPerf, genai-perf), the ``group / name`` header pairs of GuideLLM's
CSV, and the ``name : value`` lines of an MLPerf ``mlperf_log_summary.txt``.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

#: Entries are "field: what the importer does with it"; a pattern entry covers a family of fields.
Entries = Mapping[str, str]


@dataclass(frozen=True)
class Ledger:
    formats: tuple[str, ...]  # importer names the ledger covers
    scope: str  # which fields of a file it lists
    mapped: Entries
    ignored: Entries
    #: (regular expression, "mapped" or "ignored", meaning) for families of fields.
    patterns: tuple[tuple[str, str, str], ...] = ()
    _compiled: tuple[re.Pattern[str], ...] = field(default=(), init=False, repr=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "_compiled", tuple(re.compile(p) for p, _, _ in self.patterns))

    def knows(self, name: str) -> bool:
        return (
            name in self.mapped
            or name in self.ignored
            or any(rx.fullmatch(name) for rx in self._compiled)
        )


_SERVER_DERIVED = "derived from the same requests; the record keeps tok/s, TTFT, TPOT and E2EL"
_AIPERF_HTTP = "HTTP timing breakdown of each request; not a serving figure the record keeps"
_CLIENT_SERVER_CHECK = "a check of client-side against server-reported token counts (see basis)"

NVIDIA_SUMMARY = Ledger(
    formats=("aiperf-json", "genai-perf-json"),
    scope="top-level keys",
    mapped={
        "time_to_first_token": "ttft_ms_p50 / p90 / p95 / p99",
        "inter_token_latency": "tpot_ms_p50 / p95 / p99 ((E2EL - TTFT) / (OSL - 1))",
        "request_latency": "e2el_ms_p50 / p95",
        "output_token_throughput": "output_tok_s",
        "total_token_throughput": "total_tok_s (AIPerf 0.13)",
        "total_isl": "total_tok_s when total_token_throughput is absent (with total_osl, "
        "benchmark_duration)",
        "total_osl": "total_tok_s when total_token_throughput is absent",
        "benchmark_duration": "total_tok_s when total_token_throughput is absent",
        "input_sequence_length": "input_tokens and the workload name",
        "output_sequence_length": "output_tokens and the workload name",
        "request_count": "requests_ok",
        "error_request_count": "requests_failed",
        "input_config": "model, concurrency or request rate (the one the run set), the runtime "
        "(Triton service kind only) and the token-count basis",
        "start_time": "measured_at",
        "was_cancelled": "a cancelled run is refused",
        "is_complete": "an incomplete run is refused",
    },
    ignored={
        "schema_version": "names the export format, not the run",
        "aiperf_version": "names the tool, not the run",
        "benchmark_id": "an identifier, no figure",
        "end_time": "start_time dates the run",
        "request_throughput": "requests/s; the record keeps tokens/s",
        "time_to_second_token": "not a record field; TPOT covers the tokens after the first",
        "time_to_first_output_token": "first non-reasoning token; the record's TTFT is the first "
        "token of any kind",
        "inter_chunk_latency": "time between streamed chunks (vLLM's ITL), not a TPOT",
        "output_token_throughput_per_user": "per-request decode speed; the record keeps TPOT",
        "output_token_count": "total behind output_token_throughput",
        "total_output_tokens": "total behind output_token_throughput",
        "telemetry_data": "GPU telemetry of the client's host, not of the measured server",
        "run_info": "the client's host and command line",
        "error_summary": "errors by type; their count is error_request_count",
        "completed_request_count": "request_count plus errors; both are kept",
        "request_error_rate": "error_request_count / completed requests",
        "input_token_throughput": _SERVER_DERIVED,
        "e2e_output_token_throughput": _SERVER_DERIVED,
        "prefill_throughput_per_user": _SERVER_DERIVED,
        "decode_duration": _SERVER_DERIVED,
        "tokens_in_flight": _SERVER_DERIVED,
        "credit_to_start_latency": "the client's own scheduling delay",
        "effective_latency": "coordinated-omission-corrected latency; E2EL is kept as measured",
        "usage_prompt_tokens": _CLIENT_SERVER_CHECK,
        "usage_completion_tokens": _CLIENT_SERVER_CHECK,
        "usage_total_tokens": _CLIENT_SERVER_CHECK,
        "total_usage_prompt_tokens": _CLIENT_SERVER_CHECK,
        "total_usage_completion_tokens": _CLIENT_SERVER_CHECK,
        "total_usage_total_tokens": _CLIENT_SERVER_CHECK,
        "usage_prompt_tokens_diff_pct": _CLIENT_SERVER_CHECK,
        "usage_completion_tokens_diff_pct": _CLIENT_SERVER_CHECK,
        "usage_discrepancy_count": _CLIENT_SERVER_CHECK,
        "osl_mismatch_count": "requests whose output length missed the requested one",
        "osl_mismatch_diff_pct": "how far output lengths missed the requested one",
    },
    patterns=(
        (r"http_req_\w+", "ignored", _AIPERF_HTTP),
        (r"(effective|active)_\w+", "ignored", _SERVER_DERIVED),
    ),
)

#: AIPerf / genai-perf CSV rows (the name before the unit in brackets).
NVIDIA_CSV = Ledger(
    formats=("aiperf-csv", "genai-perf-csv"),
    scope="metric row names (unit removed)",
    mapped={
        "Time to First Token": "ttft_ms_*",
        "Time To First Token": "ttft_ms_*",
        "Inter Token Latency": "tpot_ms_*",
        "Request Latency": "e2el_ms_*",
        "Output Token Throughput": "output_tok_s",
        "Total Token Throughput": "total_tok_s",
        "Input Sequence Length": "input_tokens",
        "Output Sequence Length": "output_tokens",
        "Request Count": "requests_ok",
        "Benchmark Duration": "total_tok_s when the total throughput row is absent",
        "Total Input Sequence Length": "total_tok_s when the total throughput row is absent",
        "Total Output Sequence Length": "total_tok_s when the total throughput row is absent",
    },
    ignored={
        "Metric": "the header row",
        "Endpoint": "the URL measured (hardware comes from flags)",
        "Request Throughput": "requests/s; the record keeps tokens/s",
        "Time to Second Token": "not a record field",
        "Time To Second Token": "not a record field",
        "Time to First Output Token": "first non-reasoning token",
        "Inter Chunk Latency": "time between streamed chunks, not a TPOT",
        "Output Token Throughput Per User": "per-request decode speed; TPOT is kept",
        "Output Token Count": "total behind output throughput",
        "Total Output Tokens": "total behind output throughput",
        "Completed Requests": "request count plus errors",
        "Request Error Rate": "errors / completed requests",
        "Input Token Throughput": _SERVER_DERIVED,
        "E2E Output Token Throughput": _SERVER_DERIVED,
        "Prefill Throughput Per User": _SERVER_DERIVED,
        "Decode Duration": _SERVER_DERIVED,
        "Tokens In Flight": _SERVER_DERIVED,
        "Credit-to-Start Latency": "the client's own scheduling delay",
        "OSL Mismatch Count": "requests whose output length missed the requested one",
        "OSL Mismatch Diff %": "how far output lengths missed the requested one",
        "Usage Discrepancy Count": _CLIENT_SERVER_CHECK,
        "Usage Prompt Diff %": _CLIENT_SERVER_CHECK,
        "Usage Completion Diff %": _CLIENT_SERVER_CHECK,
    },
    patterns=(
        (r"HTTP .+", "ignored", _AIPERF_HTTP),
        (r"(Effective|Active) .+", "ignored", _SERVER_DERIVED),
        (r"(Total )?Usage (Prompt|Completion|Total) Tokens", "ignored", _CLIENT_SERVER_CHECK),
    ),
)

_LLMPERF_STATS = r"_(min|max|mean|stddev|quantiles_p\d+)"
LLMPERF = Ledger(
    formats=("llmperf",),
    scope="top-level keys",
    mapped={
        "results_mean_output_throughput_token_per_s": "output_tok_s",
        "results_num_completed_requests": "requests_ok",
        "results_number_errors": "requests_failed (a run where most failed is refused)",
        "results_error_code_frequency": "named in the notes beside the failures",
        "mean_input_tokens": "input_tokens and the workload name",
        "mean_output_tokens": "output_tokens and the workload name",
        "num_concurrent_requests": "concurrency",
        "model": "model",
        "timestamp": "measured_at",
    },
    ignored={
        "name": "the run's label",
        "version": "LLMPerf's summary version",
        "api": "the client library; the hosted endpoint hides its hardware",
        "framework": "the provider's name; hardware, runtime and precision come from flags",
        "model_size": "a label the leaderboard added",
        "stddev_input_tokens": "the requested spread, not a measurement",
        "stddev_output_tokens": "the requested spread, not a measurement",
        "results_error_rate": "errors / started requests",
        "results_num_requests_started": "completed plus errors",
        "results_num_completed_requests_per_min": "requests per minute; tokens/s is kept",
    },
    patterns=(
        (r"results_ttft_s" + _LLMPERF_STATS, "mapped", "ttft_ms_* (p50, p90, p95, p99)"),
        (
            r"results_end_to_end_latency_s" + _LLMPERF_STATS,
            "mapped",
            "e2el_ms_p50 / p95 and, with the TTFT median, tpot_ms_p50",
        ),
        (
            r"results_number_output_tokens" + _LLMPERF_STATS,
            "mapped",
            "the median output length behind tpot_ms_p50",
        ),
        (
            r"results_inter_token_latency_s" + _LLMPERF_STATS,
            "ignored",
            "LLMPerf's inter-token latency includes the first token, so it is not a TPOT",
        ),
        (r"results_number_input_tokens" + _LLMPERF_STATS, "ignored", "mean_input_tokens is kept"),
        (
            r"results_request_output_throughput_token_per_s" + _LLMPERF_STATS,
            "ignored",
            "per-request decode speed; TPOT is kept",
        ),
    ),
)

_SERVING_PERCENTILES = (
    r"(mean|median|std|p\d+(\.\d+)?)_(ttft|tpot|itl|e2el|e2e_latency)_ms",
    "mapped",
    "ttft_ms_* and tpot_ms_* (p50/p90/p95/p99), e2el_ms_p50/p95 (median for p50); mean, std "
    "and ITL are not kept (ITL is per streamed chunk, not a TPOT)",
)
_SERVING_PROBE = (
    "latency probes sent beside the load (--probe-request-rate); not the load's figures"
)
_SERVING_SPEC = "speculative decoding acceptance from the server's metrics; not a record field"
_SERVING_DIFFUSION = "diffusion decoding counters from the server's metrics; not a record field"
_SERVING_HARDWARE = "the accelerator, its count, runtime or precision (--metadata from the run)"
SERVING = Ledger(
    formats=("vllm", "sglang"),
    scope="keys of each result row",
    mapped={
        "output_throughput": "output_tok_s (per serving replica)",
        "total_token_throughput": "total_tok_s",
        "total_throughput": "total_tok_s",
        "input_throughput": "total_tok_s with output_throughput",
        "completed": "requests_ok",
        "failed": "requests_failed",
        "num_prompts": "requests sent (failures when 'failed' is absent)",
        "request_rate": "request_rate_rps (inf is a burst)",
        "max_concurrency": "concurrency",
        "ramp_up_strategy": "a ramp-up run is refused: its request rate changed during the run",
        "ramp_up_start_rps": "a ramp-up run is refused (see ramp_up_strategy)",
        "ramp_up_end_rps": "a ramp-up run is refused (see ramp_up_strategy)",
        "duration": "total_tok_s from the token totals when no total throughput is written",
        "total_input_tokens": "input_tokens (per completed request) and the workload name",
        "total_output_tokens": "output_tokens (per completed request) and the workload name",
        "model_id": "model",
        "model": "model",
        "backend": "runtime, where it names a server (vllm, sglang, tgi, ...)",
        "date": "measured_at",
        "benchmark_start_time_unix": "measured_at",
        "request_goodput": "goodput in the notes",
        "request_goodput:": "goodput in the notes (older vLLM wrote the key with a colon)",
        "dataset_name": "the workload name",
        "decode_replicas": "replicas: the row is divided by them",
        "prefill_replicas": "a disaggregated deployment stays one unit",
        **{
            key: _SERVING_HARDWARE
            for key in (
                "accelerator",
                "gpu",
                "gpu_type",
                "gpu_name",
                "hardware",
                "hw",
                "device",
                "accelerators_per_replica",
                "num_gpus",
                "tp",
                "tensor_parallel_size",
                "tp_size",
                "replicas",
                "num_replicas",
                "precision",
                "dtype",
                "quantization",
                "quant",
                "runtime",
                "engine",
                "framework",
            )
        },
        "runtime_version": "runtime_version",
        "vllm_version": "runtime_version",
        "version": "runtime_version",
    },
    ignored={
        "endpoint_type": "names the API path; the server comes from backend or --runtime",
        "burstiness": "1.0 is Poisson arrivals; the rate is kept",
        "good_completed": "requests that met the --goodput targets (null without them); the"
        " goodput rate is kept in the notes",
        "max_concurrent_requests": "the peak the client reached, not the cap it set",
        "max_output_tokens_per_s": "a one-second peak, not the run's throughput",
        "request_throughput": "requests/s; tokens/s is kept",
        "tokenizer_id": "the client's tokenizer",
        "input_len": "per-request detail (--save-detailed)",
        "output_len": "per-request detail",
        "latencies": "per-request detail",
        "queue_times": "per-request detail",
        "rtfx": "audio real-time factor",
        "label": "free-form --metadata the run's author added",
        "deployment": "free-form --metadata the run's author added",
        "gateway": "free-form --metadata the run's author added",
        "random_range_ratio": "the spread of random lengths; the measured means are kept",
        "random_input_len": "the requested length; the measured mean is kept",
        "random_output_len": "the requested length; the measured mean is kept",
        "sharegpt_output_len": "a dataset option",
        "total_output_tokens_retokenized": "SGLang's re-count; the server's count is kept",
        "accept_length": "speculative decoding acceptance; not a record field",
        "input_lens": "per-request detail (--save-detailed)",
        "output_lens": "per-request detail (--save-detailed)",
        "ttfts": "per-request detail (--save-detailed)",
        "itls": "per-request detail (--save-detailed)",
        "start_times": "per-request detail (--save-detailed)",
        "generated_texts": "per-request detail (--save-detailed)",
        "errors": "per-request detail (--save-detailed)",
        "rps_change_events": "when a ramp-up changed the rate; a ramp-up run is refused",
        "total_input_sequences": "a pooling (embedding) run, which writes no output tokens "
        "and is refused for its missing output_throughput",
        "input_sequence_throughput": "a pooling (embedding) run's inputs/s; no output tokens",
        "probe_completed": _SERVING_PROBE,
        "probe_failed": _SERVING_PROBE,
        "probe_median_e2el_ms": _SERVING_PROBE,
        "probe_p99_e2el_ms": _SERVING_PROBE,
        "probe_max_e2el_ms": _SERVING_PROBE,
        "spec_decode_acceptance_rate": _SERVING_SPEC,
        "spec_decode_acceptance_length": _SERVING_SPEC,
        "spec_decode_num_drafts": _SERVING_SPEC,
        "spec_decode_draft_tokens": _SERVING_SPEC,
        "spec_decode_accepted_tokens": _SERVING_SPEC,
        "spec_decode_per_position_acceptance_rates": _SERVING_SPEC,
        "diffusion_committed_throughput": _SERVING_DIFFUSION,
        "diffusion_steps_per_canvas": _SERVING_DIFFUSION,
        "diffusion_committed_per_step": _SERVING_DIFFUSION,
        "diffusion_committed_tokens": _SERVING_DIFFUSION,
        "diffusion_denoising_steps": _SERVING_DIFFUSION,
        "diffusion_canvas_positions": _SERVING_DIFFUSION,
    },
    patterns=(
        _SERVING_PERCENTILES,
        (
            r"(mean|median|std|p\d+(\.\d+)?)_(ttft|tpot|itl|e2el|e2e_latency)",
            "mapped",
            "the same figures in seconds (InferenceX's benchmark_serving_random.py writes them"
            " without _ms), converted to ms; a row with both forms is refused",
        ),
        (
            r"(mean|median|std|p\d+(\.\d+)?)_(client_queue_time|e2el_including_client_queue)_ms",
            "ignored",
            "time requests waited in the client for a --max-concurrency slot; E2EL as served "
            "is kept",
        ),
    ),
)

_LLAMA_CONFIG = "a run setting kept in the configuration key that pairs pp with tg tests"
LLAMA_BENCH = Ledger(
    formats=("llama-bench",),
    scope="keys of each test record",
    mapped={
        "model_type": "precision (its quantisation) and, without a file name, the model",
        "model_filename": "model",
        "n_prompt": "input_tokens and the workload (pp)",
        "n_gen": "output_tokens and the workload (tg)",
        "n_depth": "the workload (@dN): tokens already in the context",
        "avg_ts": "output_tok_s (tg), the derived TTFT (pp)",
        "test_time": "measured_at",
        "build_number": "runtime_version",
        "build_commit": "runtime_version",
        "backends": "CPU or GPU run",
        "gpu_info": "accelerator and accelerators_per_replica",
        "cpu_info": "accelerator of a CPU run",
        "n_gpu_layers": "CPU or GPU run (0 keeps the model on the CPU)",
        "n_threads": "notes",
        "cuda": "GPU run (builds before 'backends')",
        "vulkan": "GPU run (builds before 'backends')",
        "metal": "GPU run (builds before 'backends')",
        "sycl": "GPU run (builds before 'backends')",
        "kompute": "GPU run (builds before 'backends')",
        "opencl": "GPU run (builds before 'backends')",
        "gpu_blas": "GPU run (builds before 'backends')",
    },
    ignored={
        "avg_ns": "avg_ts is the same figure as a rate",
        "stddev_ns": "spread across repetitions",
        "stddev_ts": "spread across repetitions",
        "samples_ns": "each repetition",
        "samples_ts": "each repetition",
        "model_size": "bytes on disk",
        "model_n_params": "parameter count; the model name is kept",
        "blas": _LLAMA_CONFIG,
        "cpu_mask": _LLAMA_CONFIG,
        "cpu_strict": _LLAMA_CONFIG,
        "devices": _LLAMA_CONFIG,
        "embeddings": _LLAMA_CONFIG,
        "f16_kv": _LLAMA_CONFIG,
        "fit_min_ctx": _LLAMA_CONFIG,
        "fit_target": _LLAMA_CONFIG,
        "flash_attn": _LLAMA_CONFIG,
        "lazy_mode": _LLAMA_CONFIG,
        "load_mode": _LLAMA_CONFIG,
        "main_gpu": _LLAMA_CONFIG,
        "mul_mat_q": _LLAMA_CONFIG,
        "n_batch": _LLAMA_CONFIG,
        "n_ubatch": _LLAMA_CONFIG,
        "n_cpu_moe": _LLAMA_CONFIG,
        "no_host": _LLAMA_CONFIG,
        "no_kv_offload": _LLAMA_CONFIG,
        "no_op_offload": _LLAMA_CONFIG,
        "poll": _LLAMA_CONFIG,
        "repack": _LLAMA_CONFIG,
        "split_mode": _LLAMA_CONFIG,
        "tensor_buft_overrides": _LLAMA_CONFIG,
        "tensor_split": _LLAMA_CONFIG,
        "type_k": _LLAMA_CONFIG,
        "type_v": _LLAMA_CONFIG,
        "use_mmap": _LLAMA_CONFIG,
        "use_direct_io": _LLAMA_CONFIG,
    },
)

_GUIDE_METRIC = "a distribution GuideLLM keeps that the record does not"
GUIDELLM = Ledger(
    formats=("guidellm",),
    scope="top-level keys, keys of each benchmark and of its metrics (metrics.*)",
    mapped={
        "benchmarks": "one record per benchmark",
        "config": "top level: the model when a benchmark does not name it; in a benchmark: "
        "its strategy (concurrency or request rate, whichever it set) and the model",
        "metrics": "the figures below",
        "scheduler_metrics": "measured_at (start time) and requests made",
        "requests": "requests made when scheduler_metrics lacks them",
        "metrics.output_tokens_per_second": "output_tok_s",
        "metrics.tokens_per_second": "total_tok_s",
        "metrics.time_to_first_token_ms": "ttft_ms_*",
        "metrics.inter_token_latency_ms": "tpot_ms_* ((last - first) / (output tokens - 1))",
        "metrics.time_per_output_token_ms": "tpot_ms_p50 when inter_token_latency_ms is absent "
        "(converted: it includes the first token)",
        "metrics.request_latency": "e2el_ms_p50 / p95",
        "metrics.prompt_token_count": "input_tokens and the workload name",
        "metrics.output_token_count": "output_tokens and the workload name",
    },
    ignored={
        "metadata": "versions of GuideLLM, Python and the platform",
        "conclusions": "GuideLLM's own summary text",
        "type_": "the benchmark kind (generative)",
        "start_time": "scheduler_metrics.start_time dates the run",
        "end_time": "the start dates the run",
        "duration": "the measured window; rates are per second already",
        "warmup_duration": "excluded from the figures by GuideLLM",
        "cooldown_duration": "excluded from the figures by GuideLLM",
        "scheduler_state": "the scheduler's own bookkeeping",
        "warnings": "GuideLLM's warnings (none in the corpus)",
        "metrics.requests_per_second": "requests/s; tokens/s is kept",
        "metrics.request_concurrency": "concurrency reached, not the strategy's setting",
        "metrics.prompt_tokens_per_second": "total_tok_s covers input and output",
        "metrics.total_token_count": "input plus output tokens",
        "metrics.time_to_first_output_token_ms": "first non-reasoning token",
        "metrics.time_to_last_round_trip_ms": _GUIDE_METRIC,
        "metrics.avg_round_trip_time_ms": _GUIDE_METRIC,
        "metrics.output_tokens_per_iteration": _GUIDE_METRIC,
        "metrics.iter_tokens_per_iteration": _GUIDE_METRIC,
        "metrics.request_streaming_iterations_count": _GUIDE_METRIC,
        "metrics.request_goodput": _GUIDE_METRIC,
        "metrics.slo_attainment": _GUIDE_METRIC,
        "metrics.slo_determined_requests": _GUIDE_METRIC,
        "metrics.request_scheduled_latency": "the client's scheduling delay",
        "metrics.request_dispatch_delay": "the client's scheduling delay",
        "metrics.root_dispatch_delay": "the client's scheduling delay",
        "metrics.turn_predecessor_delay": "multi-turn scheduling delay",
        "metrics.turn_scheduling_delay": "multi-turn scheduling delay",
        "metrics.request_totals": "request counts by state",
        "metrics.turns": "multi-turn counts",
        "metrics.text": "text, word and character counts",
        "metrics.image": "image inputs (none in a text benchmark)",
        "metrics.video": "video inputs",
        "metrics.audio": "audio inputs",
        "metrics.tool_call": "tool-call counts",
    },
)

_GUIDE_CSV_IGNORED = "bookkeeping of the run, not a figure the record keeps"
GUIDELLM_CSV = Ledger(
    formats=("guidellm-csv",),
    scope="header pairs 'group / name'",
    mapped={
        "Benchmark / Strategy": "concurrency or request_rate_rps (whichever the strategy set)",
        "Run Info / Backend": "model",
        "Timings / Start Time": "measured_at",
        "Request Counts / Successful": "requests_ok",
        "Request Counts / Errored": "requests_failed",
        "Token Throughput / Successful Output Tokens/Sec": "output_tok_s",
        "Token Throughput / Successful Total Tokens/Sec": "total_tok_s",
        "Time to First Token / Successful ms": "ttft_ms_*",
        "Inter Token Latency / Successful ms": "tpot_ms_*",
        "Time per Output Token / Successful ms": "tpot_ms_p50 when inter-token latency is absent",
        "Request Latency / Successful Sec": "e2el_ms_p50 / p95",
        "Token Metrics / Successful Input Tokens": "input_tokens",
        "Token Metrics / Successful Output Tokens": "output_tokens",
    },
    ignored={
        "Token Metrics / Successful Total Tokens": "input plus output tokens",
        "Token Throughput / Successful Input Tokens/Sec": "total_tok_s covers input and output",
        "Server Throughput / Successful Requests/Sec": "requests/s; tokens/s is kept",
        "Server Throughput / Successful Concurrency": "concurrency reached, not the setting",
        "Time to First Output Token / Successful ms": "first non-reasoning token",
        "Request Counts / Incomplete": "requests cut off at the end of the run",
        "Request Counts / Total": "the sum of the counts kept",
    },
    patterns=(
        (
            r"(Run Info|Benchmark|Timings|Scheduler State|Scheduler Metrics|Runtime Info"
            r"|Measurement Uncertainty|Generation Delay) / .+",
            "ignored",
            _GUIDE_CSV_IGNORED,
        ),
        (
            r"(Text Tokens|Text Words|Text Characters|Token Streaming|Streaming Iterations) / .+",
            "ignored",
            "counts of text and stream chunks; token counts are kept",
        ),
    ),
)

_MLPERF_SYSTEM_DESCRIPTION = "describes the system; not a figure a result keeps"
MLPERF_SYSTEM = Ledger(
    formats=("mlperf-system",),
    scope="top-level keys (a context file for the run's log summary)",
    mapped={
        "accelerator_model_name": "accelerator (exactly: see benchmarks/importers/hardware.py); "
        "its '(xN)' is the system's count of that part",
        "accelerator_memory_capacity": "accelerator: the memory that tells a family's parts apart",
        "accelerators_per_node": "accelerators_per_replica (times number_of_nodes)",
        "number_of_nodes": "nodes and accelerators_per_replica",
        "host_processor_model_name": "accelerator of a CPU-only system",
        "host_processors_per_node": "accelerators_per_replica of a CPU-only system",
        "system_name": "system and the source title",
        "framework": "runtime (the first engine named, or the one whose build is labelled for "
        "the benchmark)",
        "status": "confidence (available / preview / rdi)",
        "weight_data_types": "precision (some submitters state it here)",
        "weight_transformations": "a note when the weights were quantised",
    },
    ignored={},
    patterns=(
        (
            r"(accelerator|host|disk|boot|management|network|nics|power|number_of_type)_.+",
            "ignored",
            _MLPERF_SYSTEM_DESCRIPTION,
        ),
        (
            r"cooling|division|filesystem|hw_notes|operating_system|other_hardware"
            r"|other_software_stack|submitter|sw_notes|system_type|system_type_detail",
            "ignored",
            _MLPERF_SYSTEM_DESCRIPTION,
        ),
    ),
)

MLPERF_MEASUREMENTS = Ledger(
    formats=("mlperf-measurements",),
    scope="top-level keys (a context file for the run's log summary)",
    mapped={
        "weight_data_types": "precision",
        "weight_transformations": "a note when the weights were quantised from the stated type",
    },
    ignored={
        "input_data_types": "the data types of the inputs, not the weights",
        "retraining": "MLPerf rules forbid it in the closed division",
        "starting_weights_filename": "the checkpoint file; the model is the benchmark",
    },
)

MLPERF_SUMMARY = Ledger(
    formats=("mlperf-summary-results",),
    scope="keys of each row",
    mapped={
        "Performance_Result": "output_tok_s (system total)",
        "Performance_Units": "only Tokens/s rows are read (Queries/s on Interactive rows is a "
        "known mislabel, noted)",
        "Scenario": "scenario",
        "Model": "the benchmark: workload and the interactive scenario of a v5.0 benchmark",
        "UsedModel": "model (what ran: the open division may run another model for a benchmark)",
        "Accelerator": "accelerator (exactly, or the row is refused)",
        "a#": "accelerators_per_replica (times Nodes), unless Accelerator states '(xN)'",
        "Nodes": "nodes",
        "Processor": "accelerator of a CPU-only row",
        "host_processors_per_node": "accelerators_per_replica of a CPU-only row",
        "System": "system",
        "Software": "runtime (the first engine named, or the one whose build is labelled for "
        "the benchmark)",
        "weight_data_types": "precision",
        "version": "measured_at (the round's publication date) and the source title",
        "Submitter": "the source title",
        "Availability": "confidence",
    },
    ignored={
        "ID": "MLCommons' identifier of the submission",
        "Unique ID (e.g. for Audit)": "MLCommons' identifier of the row",
        "Accuracy": "the accuracy target met; every row passed it",
        "Category": "available / preview, also in Availability",
        "Code": "link to the submission's code",
        "ColorKey": "the results site's display colour",
        "Details": "link to the system description",
        "Location": "the submission's folder",
        "Notes": "the submitter's notes",
        "Platform": "the system's folder name",
        "Suite": "datacenter / edge",
        "compliance": "compliance test status",
        "errors": "the results checker's messages",
        "has_power": "whether power was measured",
        "host_processor_core_count": "host cores; not a result figure",
        "inferred": "whether the figure was inferred from another scenario",
        "operating_system": "host operating system",
        "p#": "host processor count, also in host_processors_per_node",
        "Total Accelerators": "a# x Nodes as the results table computes it (88 for AMD's v6.0 "
        "'(x87)' system); the count comes from Accelerator's '(xN)' or a# x Nodes",
    },
)

_LOADGEN_SETTING = "a LoadGen test parameter; not a result figure"
_LOADGEN_STAT = "a LoadGen statistic the record does not keep"
MLPERF_LOG = Ledger(
    formats=("mlperf-log-summary",),
    scope="'name : value' lines",
    mapped={
        "Scenario": "scenario (Server in an Interactive folder or benchmark is interactive)",
        "Result is": "only VALID runs import",
        "Tokens per second": "output_tok_s (Offline)",
        "Completed tokens per second": "output_tok_s (Server, Interactive)",
        "Tokens per second (inferred)": "output_tok_s, noted as LoadGen's inference",
        "Completed tokens per second (inferred)": "output_tok_s, noted as LoadGen's inference",
        "target_qps": "request_rate_rps (Server, Interactive)",
        "ttft_latency (ns)": "the scenario's TTFT bound, in the notes",
        "tpot_latency (ns)": "the scenario's TPOT bound, in the notes",
    },
    ignored={
        "SUT name": "the harness's name for the system under test",
        "Mode": "PerformanceOnly for a performance run",
        "Samples per second": "samples/s; tokens/s is kept",
        "Completed samples per second": "samples/s; tokens/s is kept",
        "Scheduled samples per second": "samples/s offered",
        "TTFT Early Stopping Result": "part of the VALID verdict",
        "TPOT Early Stopping Result": "part of the VALID verdict",
        "Performance constraints satisfied": "part of the VALID verdict",
        "Min duration satisfied": "part of the VALID verdict",
        "Min queries satisfied": "part of the VALID verdict",
        "Early stopping satisfied": "part of the VALID verdict",
        "WARNING": "LoadGen's warning text",
        "target_latency (ns)": _LOADGEN_SETTING,
        "Min Time per Output Token (ns)": _LOADGEN_STAT,
        "Max Time per Output Token (ns)": _LOADGEN_STAT,
        "Mean Time per Output Token (ns)": _LOADGEN_STAT,
        "accuracy_sample_count": "samples LoadGen logs for the accuracy check; not a result figure",
    },
    patterns=(
        (
            r"\d+\.\d+ percentile first token latency \(ns\)",
            "mapped",
            "ttft_ms_p50 / p90 / p95 / p99 (97 and 99.9 are not kept)",
        ),
        (
            r"\d+\.\d+ percentile time to output token \(ns\)",
            "mapped",
            "tpot_ms_p50 / p95 / p99 (90, 97 and 99.9 are not kept)",
        ),
        (r"\d+\.\d+ percentile latency \(ns\)", "ignored", _LOADGEN_STAT),
        (
            r"(Min|Max|Mean) (First Token latency|Time to Output Token|latency) \(ns\)",
            "ignored",
            _LOADGEN_STAT,
        ),
        (
            r"samples_per_query|max_async_queries|(min|max)_duration \(ms\)|(min|max)_query_count"
            r"|\w+_rng_seed|accuracy_log_\w+|print_timestamps|performance_issue_\w+"
            r"|performance_sample_count",
            "ignored",
            _LOADGEN_SETTING,
        ),
    ),
)

_INFX_STATS = r"(mean|median|std|p\d+(\.\d+)?)_"
INFERENCEX = Ledger(
    formats=("inferencex-agg",),
    scope="top-level keys",
    mapped={
        "hw": "accelerator (exactly, or --accelerator)",
        "conc": "concurrency",
        "tp": "accelerators_per_replica of a single-node aggregated run",
        "ep": "notes",
        "dp_attention": "notes",
        "disagg": "a disaggregated run asks for --accelerators-per-replica",
        "is_multinode": "a multi-node run asks for --accelerators-per-replica",
        "tput_per_gpu": "total_tok_s (x GPUs per replica)",
        "output_tput_per_gpu": "output_tok_s (x GPUs per replica)",
        "isl": "input_tokens and the workload",
        "osl": "output_tokens and the workload",
        "model": "model",
        "framework": "runtime",
        "image": "runtime_version (the image tag) and notes",
        "precision": "precision",
        "spec_decoding": "notes",
    },
    ignored={
        "infmax_model_prefix": "InferenceX's short model name; model is kept",
        "input_tput_per_gpu": "total minus output throughput",
    },
    patterns=(
        (
            _INFX_STATS + "ttft",
            "mapped",
            "ttft_ms_p50 (median) / p90 / p99; mean, std, p99.9 not kept",
        ),
        (
            _INFX_STATS + "tpot",
            "mapped",
            "tpot_ms_p50 (median) / p99; mean, std, p90, p99.9 not kept",
        ),
        (_INFX_STATS + "e2el", "mapped", "e2el_ms_p50 (median); the rest not kept"),
        (_INFX_STATS + "intvty", "ignored", "interactivity is 1 / TPOT, which is kept"),
        (_INFX_STATS + "itl", "ignored", "time between streamed chunks, not a TPOT"),
    ),
)

_LLMD_FREE_FORM = "free-form by the schema (native arguments, labels, metadata); not a figure"
_LLMD_NOT_KEPT = "a statistic the record does not keep"
_LLMD_SETTING = "a workload setting; the measured lengths and the controlled load are kept"
_LLMD_RUN_ID = "an identifier of the run, no figure"
#: llm-d-benchmark reports. Fields are key paths ("a.b.c", list items as "[]"); a statistics
#: block (units, mean, percentiles) is one field; free-form subtrees are one field each.
LLMD = Ledger(
    formats=("llmd-report",),
    scope="key paths; a statistics block and a free-form subtree are one field each",
    mapped={
        "version": "which schema the report follows (0.1, 0.2, 0.2.1); another is refused",
        # 0.1
        "scenario.host.accelerator[].model": "accelerator (exactly, or --accelerator)",
        "scenario.host.accelerator[].memory": "accelerator (the memory size tells parts apart)",
        "scenario.host.accelerator[].count": "accelerators_per_replica (the sum when "
        "prefill/decode are disaggregated)",
        "scenario.host.type[]": "replica, prefill or decode: replicas share the figures out, "
        "a disaggregated deployment is one unit",
        "scenario.host.accelerator[].parallelism.tp": "notes",
        "scenario.host.accelerator[].parallelism.pp": "notes",
        "scenario.host.accelerator[].parallelism.ep": "notes",
        "scenario.host.accelerator[].parallelism.dp": "notes",
        "scenario.platform.engine[].name": "runtime",
        "scenario.platform.engine[].version": "runtime_version",
        "scenario.platform.engine[].args": "precision (--quantization, else --dtype)",
        "scenario.model.name": "model ('unknown': the harness configuration's model, noted)",
        "scenario.model.quantization": "precision",
        "scenario.load.name": "notes; inference-perf's arguments give the controlled load",
        "scenario.load.type": "the workload name",
        "scenario.load.args": "request_rate_rps or concurrency of the stage (inference-perf "
        "load.type and stages[stage]); data.type names the workload; server.model_name and "
        "server.type stand in for a missing model and engine, noted",
        "scenario.load.metadata": "the stage this report is of",
        "metrics.time.start": "measured_at",
        "metrics.requests.total": "requests_ok (total less failures)",
        "metrics.requests.failures": "requests_failed",
        "metrics.requests.incomplete": "notes",
        "metrics.requests.input_length": "input_tokens (mean) and the workload name",
        "metrics.requests.output_length": "output_tokens (mean) and the workload name",
        "metrics.latency.time_to_first_token": "ttft_ms_p50 / p90 / p95 / p99",
        "metrics.latency.time_per_output_token": "tpot_ms_p50 / p95 / p99",
        "metrics.latency.request_latency": "e2el_ms_p50 / p95",
        "metrics.throughput.output_tokens_per_sec": "output_tok_s (per replica)",
        "metrics.throughput.total_tokens_per_sec": "total_tok_s (per replica)",
        "metrics.resources.accelerator[].power": "measured_power_w with one accelerator per "
        "instance; otherwise notes",
        # 0.2 / 0.2.1
        "run.time.start": "measured_at",
        "scenario.stack[].standardized.kind": "inference_engine components describe the deployment",
        "scenario.stack[].standardized.tool": "runtime (a server runtime's name, else --runtime)",
        "scenario.stack[].standardized.tool_version": "runtime_version (the image tag) when "
        "the tool is the runtime; otherwise notes",
        "scenario.stack[].standardized.role": "replica, prefill or decode (as host.type)",
        "scenario.stack[].standardized.replicas": "replicas the figures are shared out over",
        "scenario.stack[].standardized.model.name": "model",
        "scenario.stack[].standardized.accelerator.model": "accelerator (exactly, or "
        "--accelerator)",
        "scenario.stack[].standardized.accelerator.count": "accelerators_per_replica",
        "scenario.stack[].standardized.accelerator.parallelism.tp": "notes",
        "scenario.stack[].standardized.accelerator.parallelism.pp": "notes",
        "scenario.stack[].standardized.accelerator.parallelism.ep": "notes",
        "scenario.stack[].standardized.accelerator.parallelism.dp": "notes",
        "scenario.stack[].standardized.accelerator.parallelism.dp_local": "notes",
        "scenario.stack[].native": "precision (args --quantization, else --dtype); the rest "
        + _LLMD_FREE_FORM,
        "scenario.load.standardized.tool": "notes",
        "scenario.load.standardized.tool_version": "notes",
        "scenario.load.standardized.stage": "notes",
        "scenario.load.standardized.rate_qps": "request_rate_rps",
        "scenario.load.standardized.concurrency": "concurrency (unbounded: none, noted)",
        "scenario.load.standardized.input_seq_len.value": "input_tokens when the results give "
        "no measured length",
        "scenario.load.standardized.output_seq_len.value": "output_tokens when the results "
        "give no measured length",
        "scenario.load.native": "config.data.type names the workload; config.server stands in "
        "for a missing model and engine, noted",
        "results.request_performance.aggregate.requests.total": "requests_ok (total less failures)",
        "results.request_performance.aggregate.requests.failures": "requests_failed",
        "results.request_performance.aggregate.requests.input_length": "input_tokens (mean)",
        "results.request_performance.aggregate.requests.output_length": "output_tokens (mean)",
        "results.request_performance.aggregate.latency.time_to_first_token": "ttft_ms_p50 / "
        "p90 / p95 / p99",
        "results.request_performance.aggregate.latency.time_per_output_token": "tpot_ms_p50 / "
        "p95 / p99",
        "results.request_performance.aggregate.latency.request_latency": "e2el_ms_p50 / p95",
        "results.request_performance.aggregate.throughput.output_token_rate": "output_tok_s "
        "(mean, per replica)",
        "results.request_performance.aggregate.throughput.total_token_rate": "total_tok_s "
        "(mean, per replica)",
        "results.observability": "measured_power_w from components[].aggregate."
        "power_consumption of the inference engines (one accelerator per instance; otherwise "
        "notes); the rest is cluster telemetry the record does not keep",
    },
    ignored={
        "scenario.description": _LLMD_FREE_FORM,
        "scenario.host.accelerator[].metadata": _LLMD_FREE_FORM,
        "scenario.host.metadata": _LLMD_FREE_FORM,
        "scenario.platform.engine[].metadata": _LLMD_FREE_FORM,
        "scenario.model.adapters": "LoRA adapters served; not a record field",
        "scenario.model.metadata": _LLMD_FREE_FORM,
        "metrics.time.duration": "the figures are rates already",
        "metrics.time.stop": "time.start dates the run",
        "metrics.latency.inter_token_latency": "time between streamed chunks, not a TPOT",
        "metrics.latency.normalized_time_per_output_token": "E2E latency per output token, "
        "not a TPOT",
        "metrics.throughput.input_tokens_per_sec": "total minus output throughput",
        "metrics.throughput.requests_per_sec": "requests/s; tokens/s is kept",
        "metrics.service.batch_size": _LLMD_NOT_KEPT,
        "metrics.service.queue_size": _LLMD_NOT_KEPT,
        "metrics.service.kv_cache_size": _LLMD_NOT_KEPT,
        "metrics.resources.accelerator[].memory.consumption": _LLMD_NOT_KEPT,
        "metrics.resources.accelerator[].memory.utilization": _LLMD_NOT_KEPT,
        "metrics.resources.accelerator[].memory.bandwidth": _LLMD_NOT_KEPT,
        "metrics.resources.accelerator[].compute.utilization": _LLMD_NOT_KEPT,
        "metrics.description": _LLMD_FREE_FORM,
        "metrics.metadata": _LLMD_FREE_FORM,
        "metadata": _LLMD_FREE_FORM,
        "run.uid": _LLMD_RUN_ID,
        "run.eid": _LLMD_RUN_ID,
        "run.cid": _LLMD_RUN_ID,
        "run.pid": _LLMD_RUN_ID,
        "run.user": "who ran it",
        "run.description": _LLMD_FREE_FORM,
        "run.keywords": _LLMD_FREE_FORM,
        "run.time.end": "time.start dates the run",
        "run.time.duration": "the figures are rates already",
        "scenario.stack[].metadata": _LLMD_FREE_FORM,
        "scenario.stack[].standardized": "a component other than an inference engine (router, "
        "gateway): free-form by the schema",
        "scenario.stack[].standardized.accelerator.parallelism.workers": "engine worker "
        "processes; the accelerator count is kept",
        "scenario.load.standardized.parallelism": "load-generator processes, not a load level",
        "scenario.load.standardized.source": "random or sampled prompts; names the workload "
        "only when no data type is given",
        "scenario.load.standardized.input_seq_len.distribution": _LLMD_SETTING,
        "scenario.load.standardized.input_seq_len.std_dev": _LLMD_SETTING,
        "scenario.load.standardized.input_seq_len.min": _LLMD_SETTING,
        "scenario.load.standardized.input_seq_len.max": _LLMD_SETTING,
        "scenario.load.standardized.output_seq_len.distribution": _LLMD_SETTING,
        "scenario.load.standardized.output_seq_len.std_dev": _LLMD_SETTING,
        "scenario.load.standardized.output_seq_len.min": _LLMD_SETTING,
        "scenario.load.standardized.output_seq_len.max": _LLMD_SETTING,
        "results.request_performance.aggregate.throughput.input_token_rate": "total minus "
        "output throughput",
        "results.request_performance.aggregate.throughput.request_rate": "requests/s; "
        "tokens/s is kept",
        "results.request_performance.aggregate.requests.incomplete": "requests still running "
        "at the end; completed and failed are kept",
        "results.request_performance.aggregate.latency.inter_token_latency": "time between "
        "streamed chunks, not a TPOT",
        "results.request_performance.aggregate.latency.normalized_time_per_output_token": "E2E"
        " latency per output token, not a TPOT",
        "results.request_performance.aggregate.requests.request_size": "request bytes "
        "(multi-modal payloads, 0.2.1); not a record field",
        "results.request_performance.time_series": "per-interval samples; the aggregate is kept",
        "results.session_performance": "multi-turn session statistics; a session report "
        "without request performance is refused",
        "results.profiling": "profiler output, no figure",
        "results.component_health": "restarts and health of the stack's pods",
    },
    patterns=(
        (
            r"scenario\.load\.standardized\.(prefix|multi_turn)\..+",
            "ignored",
            "shared-prefix and multi-turn settings; the workload name and measured lengths are"
            " kept",
        ),
        (
            r"results\.request_performance\.aggregate\.requests\.multimodal\..+",
            "ignored",
            "image, video and audio payload statistics (0.2.1); not record fields",
        ),
        (
            r"results\.request_performance\.aggregate\.throughput\.(image|video|audio)_rate",
            "ignored",
            "media items per second (0.2.1); tokens/s is kept",
        ),
    ),
)

_ENDPOINTS_STAT = "a statistic of the run the record does not keep"
MLPERF_ENDPOINTS = Ledger(
    formats=("mlperf-endpoints-summary",),
    scope="top-level keys of performance/result_summary.json (MLPerf v6.1's endpoints harness)",
    mapped={
        "tps": "output_tok_s (output tokens over the run; over LoadGen's Server window when "
        "legacy_loadgen_window_duration_ns is set)",
        "ttft": "ttft_ms_p50 / p90 / p95 / p99 from its percentiles (ns); empty for Offline",
        "tpot": "tpot_ms_p50 / p95 / p99 from its percentiles (ns); empty for Offline",
        "run_config": "load_pattern: request_rate_rps (poisson target_qps), concurrency, and the "
        "scenario outside the submission layout",
        "state": "only a 'complete' run imports",
        "complete": "only a complete run imports (every issued sample finished)",
        "n_samples_failed": "a run with failed samples is refused",
        "legacy_loadgen_window_duration_ns": "a note that tps is over LoadGen's Server window",
    },
    ignored={
        "version": "the harness's report schema version",
        "git_sha": "the harness's commit (null in the round's files)",
        "test_started_at": "a start stamp (0 in the round's files): no date",
        "n_samples_issued": "samples sent; complete and n_samples_failed say whether all finished",
        "n_samples_completed": "samples finished; complete says whether all did",
        "duration_ns": "the whole run's length; tps is already per second",
        "latency": "end-to-end request latency; " + _ENDPOINTS_STAT,
        "output_sequence_lengths": "output tokens per sample; " + _ENDPOINTS_STAT,
        "qps": "samples per second; tokens/s is kept",
    },
)

_TRT_SETTING = "an engine or runtime setting; the record keeps the measured figures"
_TRT_DERIVED = (
    "derived from the same requests (a mean or a per-user or per-GPU share); kept figures"
)
TRTLLM_BENCH = Ledger(
    formats=("trtllm-bench",),
    scope="the 'Label: value' lines and '[FAMILY] STAT' breakdown lines of the report's sections",
    mapped={
        "Model": "model",
        "TensorRT-LLM Version": "runtime_version",
        "TensorRT LLM Version": "runtime_version",
        "Quantization": "precision",
        "Dtype": "precision when Quantization is None",
        "TP Size": "accelerators_per_replica (TP x PP)",
        "PP Size": "accelerators_per_replica (TP x PP)",
        "Number of requests": "requests_ok",
        "Average Input Length (tokens)": "input_tokens and the workload name",
        "Average Output Length (tokens)": "output_tokens and the workload name",
        "Total Output Throughput (tokens/sec)": "output_tok_s",
        "Token Throughput (tokens/sec)": "output_tok_s (0.17: output tokens / total latency)",
        "Total Token Throughput (tokens/sec)": "total_tok_s",
        "Number of concurrent requests": "notes (the measured average, not a cap)",
    },
    ignored={
        "Model Path": "where the weights were read from",
        "Engine Directory": "where the engine was read from",
        "Revision": "the checkpoint revision; the model is kept",
        "KV Cache Dtype": "the KV cache's precision; the record keeps the weights'",
        "EP Size": "experts split inside the TP group; a replica's GPUs are TP x PP",
        "Issue Rate (req/sec)": "how fast requests were submitted: all at once (offline)",
        "Request Throughput (req/sec)": "requests/s; tokens/s is kept",
        "Total Latency (ms)": "the run's wall time; throughput is kept",
        "Average request latency (ms)": _TRT_DERIVED,
        "Per User Output Throughput (tokens/sec/user)": _TRT_DERIVED,
        "Per User Output Throughput [w/ ctx] (tps/user)": _TRT_DERIVED,
        "Per GPU Output Throughput (tokens/sec/gpu)": _TRT_DERIVED,
        "Per GPU Output Throughput (tps/gpu)": _TRT_DERIVED,
        "Per User Output Speed [1/TPOT] (tokens/sec/user)": _TRT_DERIVED,
        "Per User Output Speed (tps/user)": _TRT_DERIVED,
        "Average time-to-first-token [TTFT] (ms)": _TRT_DERIVED,
        "Average time-per-output-token [TPOT] (ms)": _TRT_DERIVED,
        "Max Input Length": _TRT_SETTING,
        "Max Sequence Length": _TRT_SETTING,
        "Max Runtime Batch Size": _TRT_SETTING,
        "Max Runtime Tokens": _TRT_SETTING,
        "Scheduling Policy": _TRT_SETTING,
        "KV Memory Percentage": _TRT_SETTING,
        "Dataset Path": "the dataset file; the measured lengths are kept",
        "Number of Sequences": "the dataset's size; the requests run are kept",
    },
    patterns=(
        (r"\[TTFT\] P(50|90|95|99)", "mapped", "ttft_ms_p50 / p90 / p95 / p99"),
        (r"\[TPOT\] P(50|95|99)", "mapped", "tpot_ms_p50 / p95 / p99"),
        (r"\[Latency\] P(50|95)", "mapped", "e2el_ms_p50 / p95"),
        (r"\[(TTFT|TPOT|Latency)\] (MINIMUM|MAXIMUM|AVERAGE|P\d+)", "ignored", _TRT_DERIVED),
        (
            r"\[(GTPS|DT|ADT|DAR|AL)\] \w+",
            "ignored",
            "per-user generation speed and speculative-decoding statistics; not record fields",
        ),
        (r"MIN|MAX|AVG|P\d+", "ignored", "the dataset's length statistics, not the run's"),
    ),
)

LEDGERS: tuple[Ledger, ...] = (
    NVIDIA_SUMMARY,
    NVIDIA_CSV,
    LLMPERF,
    SERVING,
    LLAMA_BENCH,
    GUIDELLM,
    GUIDELLM_CSV,
    MLPERF_SYSTEM,
    MLPERF_MEASUREMENTS,
    MLPERF_SUMMARY,
    MLPERF_LOG,
    MLPERF_ENDPOINTS,
    INFERENCEX,
    LLMD,
    TRTLLM_BENCH,
)
_BY_FORMAT = {fmt: ledger for ledger in LEDGERS for fmt in ledger.formats}
#: Formats without a ledger, and why.
UNLEDGERED = {
    "tokendesk-harness": "tokendesk writes this file itself; its schema is the record's",
}


def ledger_for(importer_name: str) -> Ledger | None:
    return _BY_FORMAT.get(importer_name)


_LOG_LINE = re.compile(r"^\s*([^:]+?)\s*:\s*(.*)$")
_CSV_UNIT = re.compile(r"^(.*?)\s*\([^)]*\)\s*$")


def fields_of(importer_name: str, kind: str, data: Any, text: str = "") -> list[str]:
    """The fields a parsed file carries, in the ledger's terms (see the module docstring)."""
    names: list[str] = []
    if importer_name == "mlperf-log-summary":
        for line in text.splitlines():
            match = _LOG_LINE.match(line)
            if match and not line.lstrip().startswith("*"):
                names.append(match.group(1).strip())
    elif importer_name in ("aiperf-csv", "genai-perf-csv") and kind == "csv":
        for row in data:
            if row and row[0].strip():
                match = _CSV_UNIT.match(row[0].strip())
                names.append(match.group(1) if match else row[0].strip())
    elif importer_name == "guidellm-csv" and kind == "csv" and len(data) >= 2:
        names = [f"{g.strip()} / {n.strip()}" for g, n in zip(data[0], data[1], strict=False)]
    elif importer_name == "guidellm" and isinstance(data, dict):
        names = list(data)
        for bench in data.get("benchmarks") or []:
            if isinstance(bench, dict):
                names += list(bench)
                metrics = bench.get("metrics")
                names += (
                    [f"metrics.{k}" for k in metrics or {}] if isinstance(metrics, dict) else []
                )
    elif importer_name == "trtllm-bench":
        from benchmarks.importers.trtllm import report_fields  # the report's own section reader

        names = report_fields(text)
    elif importer_name == "llmd-report" and isinstance(data, dict):
        names = _report_paths(data, "")
    elif importer_name == "llama-bench" and kind == "csv" and data:
        names = list(data[0])
    elif isinstance(data, dict):
        names = list(data)
    elif isinstance(data, list):
        for row in data:
            if isinstance(row, dict):
                names += list(row)
    return list(dict.fromkeys(names))


#: Report keys whose subtree the schema leaves free-form: one field each, not walked into.
_REPORT_OPAQUE = frozenset(
    {
        "args",
        "native",
        "metadata",
        "description",
        "keywords",
        "adapters",
        "time_series",
        "profiling",
        "observability",
        "component_health",
        "session_performance",
    }
)


def _report_paths(obj: Any, prefix: str, depth: int = 0) -> list[str]:
    """Key paths of an llm-d report: list items as ``[]``, a statistics block (one with
    ``units``) as one field, free-form subtrees and non-engine components' blocks as one."""
    if depth > 32:
        return [prefix]
    out: list[str] = []
    if isinstance(obj, dict):
        if "units" in obj and prefix:
            return [prefix]
        if prefix == "scenario.stack[].standardized" and obj.get("kind") != "inference_engine":
            return [prefix]
        for key, value in obj.items():
            path = f"{prefix}.{key}" if prefix else str(key)
            if key in _REPORT_OPAQUE or not isinstance(value, dict | list) or not value:
                out.append(path)
            else:
                out += _report_paths(value, path, depth + 1)
    elif isinstance(obj, list):
        for item in obj:
            if isinstance(item, dict | list):
                out += _report_paths(item, f"{prefix}[]", depth + 1)
            else:
                out.append(f"{prefix}[]")
    return list(dict.fromkeys(out))


def not_understood(importer_name: str, kind: str, data: Any, text: str = "") -> list[str]:
    """Fields the file carries that the format's ledger does not list."""
    ledger = ledger_for(importer_name)
    if ledger is None:
        return []
    return [n for n in fields_of(importer_name, kind, data, text) if not ledger.knows(n)]


def note_for(importer_name: str, fields: Iterable[str]) -> str:
    listed = list(fields)
    if not listed:
        return ""
    shown = ", ".join(repr(f) for f in listed[:8])
    more = f" and {len(listed) - 8} more" if len(listed) > 8 else ""
    return (
        f"field{'s' if len(listed) > 1 else ''} {shown}{more} not understood: the "
        f"{importer_name} ledger does not list {'them' if len(listed) > 1 else 'it'} "
        "(a new tool version?); the figures above were read without "
        f"{'them' if len(listed) > 1 else 'it'}"
    )


LEDGER_FILE = "benchmarks/importers/LEDGER.md"
_HEADER = """# Field ledger of the result-file importers

Every field each format's files carry, and what the importer does with it: **mapped** onto the
record (and where) or **ignored** (and why). A field a file carries that is not listed here is
reported on every record the file makes, in its notes ("field X not understood"), so a new tool
version shows up in `tokendesk bench import … --dry-run` instead of passing silently.

Generated from `benchmarks/importers/ledger.py` (edit that, then
`python -c "from benchmarks.importers.ledger import markdown; print(markdown(), end='')"
> benchmarks/importers/LEDGER.md`); `tests/benchmarks/test_field_ledger.py` keeps the two in step
and checks every field of every file in `tests/fixtures/real/` against it.
"""


def markdown() -> str:
    """The ledger as the Markdown of benchmarks/importers/LEDGER.md."""
    out: list[str] = [_HEADER]
    for ledger in LEDGERS:
        out.append(f"### {', '.join(f'`{f}`' for f in ledger.formats)} ({ledger.scope})")
        out.append("")
        out.append("| field | mapped or ignored | to / because |")
        out.append("|---|---|---|")
        for name, meaning in ledger.mapped.items():
            out.append(f"| `{name}` | mapped | {meaning} |")
        for name, meaning in ledger.ignored.items():
            out.append(f"| `{name}` | ignored | {meaning} |")
        for pattern, how, meaning in ledger.patterns:
            shown = pattern.replace("|", "\\|")
            out.append(f"| pattern `{shown}` | {how} | {meaning} |")
        out.append("")
    for name, why in UNLEDGERED.items():
        out.append(f"`{name}` keeps no ledger: {why}.")
    return "\n".join(out).rstrip() + "\n"
