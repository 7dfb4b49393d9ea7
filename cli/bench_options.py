"""The options of ``tokendesk bench run``, declared once each (the command's signature names them).

Each alias carries its help text; the defaults stay in the signature, where typer reads them.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

Endpoint = Annotated[
    str,
    typer.Option(help="Base URL of an OpenAI-compatible server, e.g. http://127.0.0.1:8000"),
]
Model = Annotated[str, typer.Option(help="Model name to send in requests.")]
Accelerator = Annotated[
    str, typer.Option("--accelerator", help="Catalog id, e.g. nvidia-h100-sxm-80gb.")
]
AcceleratorsPerReplica = Annotated[
    int,
    typer.Option(min=1, help="Accelerators one replica occupies."),
]
Runtime = Annotated[str, typer.Option(help="Server runtime: vllm, sglang, tgi, llama.cpp, ...")]
Precision = Annotated[str, typer.Option(help="bf16, fp8, int4-awq, q4_k_m, ...")]
Workload = Annotated[
    str,
    typer.Option(
        help="Golden prompt workload: chat-short, long-8k, long-32k, rag, code, "
        "streaming, or golden (all)."
    ),
]
Dataset = Annotated[
    str,
    typer.Option(
        help="golden (the --workload prompts), random:IN:OUT, sharegpt:PATH, jsonl:PATH, "
        "trace:PATH (replayed as recorded), sessions:SESSIONS:TURNS:IN:OUT (multi-turn, "
        "growing context) or prefix:IN:OUT:SHARE (a shared prefix of SHARE of the input)."
    ),
]
TraceSpeed = Annotated[
    float,
    typer.Option(
        min=0.001,
        help="trace:PATH without --concurrency/--request-rate replays the trace's arrival "
        "times divided by this (10 = ten times faster).",
    ),
]
RuntimeVersion = Annotated[str, typer.Option()]
InstanceType = Annotated[str | None, typer.Option()]
Provider = Annotated[str | None, typer.Option()]
Region = Annotated[str | None, typer.Option()]
Concurrency = Annotated[str | None, typer.Option(help="Closed-loop concurrencies, e.g. 1,4,16,64.")]
RequestRate = Annotated[
    str | None, typer.Option(help="Open-loop request rates (req/s), e.g. 1,4,inf.")
]
MaxConcurrency = Annotated[
    int | None, typer.Option(help="Cap on in-flight requests with --request-rate.")
]
NumPrompts = Annotated[
    int | None,
    typer.Option(
        min=1, help="Measured requests per point (default 100; no cap with --duration-s)."
    ),
]
DurationS = Annotated[
    float | None,
    typer.Option(min=0.1, help="Time-bounded points: no new request after this many seconds."),
]
RampUpS = Annotated[
    float,
    typer.Option(min=0.0, help="Start streams one by one (or raise the rate) over this time."),
]
Burstiness = Annotated[
    float,
    typer.Option(min=0.01, help="Gamma shape of request-rate arrivals: 1 Poisson, <1 burstier."),
]
Sweep = Annotated[
    bool,
    typer.Option(
        help="Double the concurrency from 1 (or the first --concurrency) until output tok/s "
        "stops rising, a point fails or misses the SLO."
    ),
]
SweepMax = Annotated[int, typer.Option(min=1, help="Highest concurrency of --sweep.")]
SweepMinGain = Annotated[
    float, typer.Option(min=0.0, help="Saturated when doubling adds less than this share.")
]
Slo = Annotated[
    str | None,
    typer.Option(
        help="Latency SLO in ms, e.g. 'ttft_p95<=500,tpot_p95<=50': only the highest load "
        "that meets it (the goodput point) is recorded."
    ),
]
Repeats = Annotated[
    int,
    typer.Option(min=1, help="Run each point N times; records the median run and a 95% CI."),
]
Warmup = Annotated[
    int | None,
    typer.Option(min=0, help="Excluded requests per point (default: one per stream)."),
]
MaxTokens = Annotated[int | None, typer.Option(min=1, help="Override each prompt's max_tokens.")]
Api = Annotated[str, typer.Option(help="chat or completions")]
TimeoutS = Annotated[float, typer.Option(help="Per-request timeout.")]
IgnoreEos = Annotated[bool, typer.Option(help="Ask the server to ignore EOS (vLLM extension).")]
ApiKey = Annotated[
    str | None,
    typer.Option(
        envvar="OPENAI_API_KEY",
        show_envvar=True,
        help="Sent as 'Authorization: Bearer KEY'.",
    ),
]
Header = Annotated[
    list[str] | None,
    typer.Option(help="Extra request header 'Name: value' (repeatable)."),
]
Insecure = Annotated[
    bool,
    typer.Option(help="HTTPS without certificate verification (self-signed test servers)."),
]
CaBundle = Annotated[
    Path | None, typer.Option(help="CA certificate file for an HTTPS endpoint's private CA.")
]
Tokenizer = Annotated[
    Path | None,
    typer.Option(
        help="tokenizer.json to count output tokens when the server sends no usage "
        "(default: the bundle's)."
    ),
]
MaxFailureRate = Annotated[
    float,
    typer.Option(
        min=0.0,
        max=1.0,
        help="Record a point only if at most this share of its requests failed.",
    ),
]
Bundle = Annotated[
    Path | None,
    typer.Option(help="Model bundle dir: run its golden prompts and record parity."),
]
ParityConcurrency = Annotated[
    int, typer.Option(min=1, help="Requests in flight during the parity pass.")
]
ReadyTimeoutS = Annotated[
    float,
    typer.Option(min=0.0, help="Wait this long for /v1/models to answer before starting."),
]
Telemetry = Annotated[str, typer.Option(help="auto (local endpoints), on or off.")]
Output = Annotated[Path | None, typer.Option("-o", "--output", help="Write the results JSON here.")]
NoIngest = Annotated[bool, typer.Option("--no-ingest", help="Do not write to the warehouse.")]
IngestPartial = Annotated[
    bool,
    typer.Option(help="After Ctrl-C, still ingest the points that finished (default: -o only)."),
]
Progress = Annotated[bool, typer.Option(help="Show a progress bar.")]
