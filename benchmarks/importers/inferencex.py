"""InferenceX (formerly InferenceMAX) per-run aggregate JSON (``agg_<model>_<isl><osl>_…json``).

One file is one operating point of one serving configuration: ``hw`` (the accelerator as
InferenceX names it), ``conc`` (the client's concurrency), ``tp``/``ep`` (tensor and expert
parallelism), ``isl``/``osl``, and throughput **per GPU** (``tput_per_gpu`` total,
``output_tput_per_gpu``). Latencies are seconds: ``median``/``p90``/``p99``/``p99.9`` of TTFT,
TPOT, ITL and E2EL, and ``*_intvty`` (interactivity, tokens/s per user = 1 / TPOT).

The record keeps a replica as the run deployed it: ``tp`` GPUs for a single-node aggregated run
(throughput per GPU × ``tp``). A disaggregated or multi-node run splits its GPUs between prefill
and decode in ways the aggregate does not state, so it asks for ``--accelerators-per-replica``.
"""

from __future__ import annotations

import re

from benchmarks.importers.base import Importer, Source
from benchmarks.importers.serving import latency_unit
from tokendesk.records import BenchmarkResult

_REQUIRED = ("hw", "conc", "tput_per_gpu", "output_tput_per_gpu", "median_ttft", "isl", "osl")
_IMAGE_TAG = re.compile(r":v?(?P<version>[0-9][\w.\-+]*)$")
_RUNTIMES = {"trt": "trt-llm", "trtllm": "trt-llm", "dynamo-trt": "trt-llm", "sglang": "sglang"}


def sniff(src: Source) -> bool:
    data = src.data
    return (
        src.kind == "json"
        and isinstance(data, dict)
        and all(key in data for key in _REQUIRED)
        and "infmax_model_prefix" in data
    )


def _flag(value: object) -> bool:
    return str(value).strip().lower() in ("true", "1", "yes")


def _ms(src: Source, stat: str, metric: str) -> float | None:
    key = f"{stat}_{metric}"
    return src.ms(src.number(src.data, key), "s", key)


def parse(src: Source) -> list[BenchmarkResult]:
    d = src.data
    for key in _REQUIRED:
        src.need(d, key)
    # InferenceX writes its latencies in seconds, without _ms; a file that also has *_ms ones
    # mixes units, and which are which cannot be told.
    latency_unit(src, d, "")
    accelerator = src.accelerator(str(d["hw"]), "hw")
    tp = int(src.number(d, "tp") or 1)
    ep = int(src.number(d, "ep") or 1)
    split = _flag(d.get("disagg")) or _flag(d.get("is_multinode"))
    if split and not src.overrides.accelerators_per_replica:
        raise src.fail(
            "disagg",
            "a disaggregated or multi-node run: the aggregate gives throughput per GPU but not "
            "how many GPUs served prefill and decode together; pass --accelerators-per-replica N",
        )
    gpus = int(src.overrides.accelerators_per_replica or tp)
    per_gpu_out = src.number(d, "output_tput_per_gpu", required=True)
    per_gpu_total = src.number(d, "tput_per_gpu", required=True)
    framework = str(d.get("framework") or "")
    image = str(d.get("image") or "")
    tag = _IMAGE_TAG.search(image)
    notes = [
        f"InferenceX throughput per GPU x {gpus} GPUs per replica (tp {tp}, ep {ep}, "
        f"dp-attention {d.get('dp_attention')})",
    ]
    if d.get("spec_decoding") not in (None, "", "none", False):
        notes.append(f"speculative decoding: {d['spec_decoding']}")
    if image:
        notes.append(f"image {image}")
    isl, osl = int(src.number(d, "isl", required=True)), int(src.number(d, "osl", required=True))
    return [
        src.result(
            accelerator_id=accelerator,
            accelerators_per_replica=gpus,
            runtime=src.overrides.runtime or _RUNTIMES.get(framework.lower(), framework.lower()),
            runtime_version=tag["version"] if tag else "",
            model=src.overrides.model or src.required_text(d.get("model"), "--model", "model"),
            precision=src.overrides.precision or str(d.get("precision") or "").lower() or "unknown",
            workload=f"isl{isl}-osl{osl}",
            input_tokens=isl,
            output_tokens=osl,
            scenario="online",
            concurrency=src.number(d, "conc", required=True),
            output_tok_s=per_gpu_out * gpus,
            total_tok_s=per_gpu_total * gpus,
            ttft_ms_p50=_ms(src, "median", "ttft"),
            ttft_ms_p90=_ms(src, "p90", "ttft"),
            ttft_ms_p99=_ms(src, "p99", "ttft"),
            tpot_ms_p50=_ms(src, "median", "tpot"),
            tpot_ms_p99=_ms(src, "p99", "tpot"),
            e2el_ms_p50=_ms(src, "median", "e2el"),
            measured_at=src.when(None),
            source_tool="inferencex",
            notes="; ".join(notes),
        )
    ]


IMPORTERS = [
    Importer(
        "inferencex-agg",
        "inferencex",
        "InferenceX per-run aggregate agg_*.json",
        sniff,
        parse,
    )
]
