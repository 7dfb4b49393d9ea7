"""Curate the bundled seed data from the research tables in ``data/sources/``.

Reads ``reference_prices.csv`` and ``reference_published_results.csv`` (dated public figures,
each with its source) and writes:

* ``data/seed_prices.csv``  — one PriceQuote per row plus the seed snapshot it belongs to
  (``current`` or ``historical``: rows the research marks as superseded, e.g. AWS P5 before
  the June 2025 price cut, are kept, dated, in an older snapshot and never shown as current),
  and the current AWS Price List version's rates (``scripts/build_price_history.py``, from its
  pinned source); an estimate the list prices is then history;
* ``data/seed_results.csv`` — long-format published metrics pivoted into one BenchmarkResult
  per measured operating point;
* ``data/seed_curation.md`` — every source row that was not turned into a record, and why.

Run it again whenever ``data/sources/`` changes: ``python scripts/curate_seed.py``.
The mapping decisions (names to accelerator ids, free-text dates to ISO dates) are explicit
tables below so a reviewer can check each one.
"""

from __future__ import annotations

import csv
import re
import sys
from collections import defaultdict
from datetime import date
from pathlib import Path

DATA = Path(__file__).resolve().parents[1] / "data"
SOURCES = DATA / "sources"

sys.path.insert(0, str(Path(__file__).resolve().parent))
import build_market_results  # noqa: E402  (the scripts beside this one)
import build_price_history  # noqa: E402

# ---------------------------------------------------------------------------------------------
# Dates. A source's own date is kept verbatim (``source_date_text``) and, where it states one, as
# an ISO date. A source that states no date gets NONE: the record says "date unknown" and no date
# is made up. A stated month counts from its first day (never later than the source says).
UNDATED = {
    # SkyPilot catalog v7 rows: the date is an inference from the price level, not a stated date.
    "2025-H1 snapshot (inferred: pre-June-2025 P5 cut; exact commit date unknown)",
    # Capacity Block pages state when their rates END (kept as valid_until), not when seen.
    "page says rates valid until scheduled update on 2025-01-01",
    "valid until 2025-01-01 update",
    "snapshot date unknown",
    "snapshot date unknown (2024-2025)",
    "snapshot date unknown (2025-2026)",
    "unknown (docs v1.0.0)",
    "unknown (file at commit 00f37686)",
    # An estimate derived from an announced cut: its effective date is valid_from, not a sighting.
    "2025-06 (effective date)",
    # Neuron data "2024" with only the file's commit date known: the measurement date is unstated.
    "2024 (Neuron 2.18.x data; file last committed 2025-10-17)",
    # "~2024-Q4": an approximate quarter inferred from a software version.
    "~2024-Q4 (SW 1.18.0)",
    "~2024-Q4 (SynapseAI/Gaudi SW 1.18.0)",
}
MONTHS = {"2026-03": "2026-03-01", "2026-03 (page states March 2026)": "2026-03-01"}

#: valid_from / valid_until stated by the source, by the verbatim date text.
VALID_UNTIL = {
    # "rates valid until scheduled update on 2025-01-01": the last day they applied is 2024-12-31.
    "page says rates valid until scheduled update on 2025-01-01": "2024-12-31",
    "valid until 2025-01-01 update": "2024-12-31",
}
VALID_FROM = {"2025-06 (effective date)": "2025-06-01"}


def iso_date(text: str) -> str:
    """The ISO date the source states, or "" when it states none (date unknown)."""
    if text in UNDATED:
        return ""
    if text in MONTHS:
        return MONTHS[text]
    match = re.match(r"(\d{4}-\d{2}-\d{2})", text)
    if not match:
        raise SystemExit(f"no date rule for source date {text!r}; add it to UNDATED or MONTHS")
    return match.group(1)


# ---------------------------------------------------------------------------------------------
# Prices.
PRICE_ACCELERATORS = {
    "NVIDIA H100 80GB": "nvidia-h100-sxm-80gb",  # p5 / a3-highgpu / ND H100 v5 / OCI / DO are SXM
    "NVIDIA H100 SXM 80GB": "nvidia-h100-sxm-80gb",
    "NVIDIA H100 NVL 94GB": "nvidia-h100-nvl-94gb",
    "NVIDIA H200 141GB": "nvidia-h200-141gb",
    "NVIDIA A100 40GB": "nvidia-a100-40gb",
    "NVIDIA A100 80GB": "nvidia-a100-80gb",
    "NVIDIA A100 80GB PCIe": "nvidia-a100-80gb",
    "NVIDIA L40S 48GB": "nvidia-l40s-48gb",
    "NVIDIA GH200 96GB": "nvidia-gh200-96gb",
    "NVIDIA B200 180GB": "nvidia-b200-180gb",
    "AMD MI300X 192GB": "amd-mi300x-192gb",
    "Habana Gaudi HL-205 32GB": "intel-gaudi1-32gb",
    "Qualcomm Cloud AI100": "qualcomm-ai100-std",
    "AWS Inferentia2": "aws-inferentia2",
    "AWS Trainium": "aws-trainium1",
    "AWS Trainium2": "aws-trainium2",
    "Google TPU v5e": "google-tpu-v5e",
    "Google TPU v5p": "google-tpu-v5p",
    "Google TPU v6e (Trillium)": "google-tpu-v6e",
}

# CPU instances count sockets: a 48xlarge is a whole two-socket Sapphire Rapids host; a
# 16xlarge (32 physical cores) is less than one socket and so cannot host a socket-measured replica.
CPU_SOCKETS = {"c7i.16xlarge": 0, "c7i.48xlarge": 2, "m7i-flex.16xlarge": 0, "m7i.16xlarge": 0}
CPU_VCPUS = {"c7i.16xlarge": 64, "c7i.48xlarge": 192, "m7i-flex.16xlarge": 64, "m7i.16xlarge": 64}
CPU_MEMORY_GIB = {
    "c7i.16xlarge": 128,
    "c7i.48xlarge": 384,
    "m7i-flex.16xlarge": 256,
    "m7i.16xlarge": 256,
}

REGIONS = {
    "all regions (uniform)": "global",
    "(all Crusoe locations)": "global",
    "(unspecified)": "unspecified",
    "(RunPod)": "unspecified",
    "(RunPod secure cloud)": "secure-cloud",
    "US/EU/CA": "us-eu-ca",
    "ord (Chicago)": "ord",
}

PRICING_MODELS = {"on-demand": "on_demand", "spot": "spot", "capacity-block": "capacity_block"}

#: The June 2025 AWS cut covered these families; a figure read from the catalog snapshot taken
#: before it (spot included: the same snapshot) is history, never the current price.
PRE_CUT_FAMILIES = ("p5.", "p5en.", "p4d.", "p4de.")
PRE_CUT_TEXT = "2025-H1 snapshot (inferred: pre-June-2025 P5 cut; exact commit date unknown)"

SKIPPED_PRICE_ROWS = {
    # GCP does not sell A3 Ultra on demand, and this figure is only the GPU part of the bill.
    ("gcp", "a3-ultragpu-8g (GPU component only)"): (
        "GPU component only (no vCPU/RAM) of a machine type GCP does not sell on demand; "
        "an instance price cannot be stated"
    ),
}


def _historical_reason(row: dict, valid_until: str) -> str:
    """Why a source row belongs to the historical snapshot ("" = it is current)."""
    if valid_until and valid_until < date.today().isoformat():
        return f"historical: the source's rates applied until {valid_until}"
    if "(historical)" in row["confidence"]:
        return "historical: superseded by a newer source"
    if row["source_date"] == PRE_CUT_TEXT and row["instance_type"].startswith(PRE_CUT_FAMILIES):
        return "historical: read before the June 2025 AWS price cut on this family"
    return ""


def curate_prices() -> tuple[list[dict], list[str]]:
    out: list[dict] = []
    skipped: list[str] = []
    with (SOURCES / "reference_prices.csv").open(newline="", encoding="utf-8") as handle:
        for line_no, row in enumerate(csv.DictReader(handle), start=2):
            key = (row["provider"], row["instance_type"])
            if key in SKIPPED_PRICE_ROWS:
                skipped.append(
                    f"prices line {line_no} ({key[0]} {key[1]} {row['pricing_model']}): "
                    f"{SKIPPED_PRICE_ROWS[key]}"
                )
                continue
            instance = row["instance_type"]
            if instance in CPU_SOCKETS:
                accelerator_id = "cpu-intel-spr-amx"
                count = CPU_SOCKETS[instance]
            else:
                accelerator_id = PRICE_ACCELERATORS[row["accelerator"]]
                count = int(row["accelerator_count"])
            per_accelerator = "(per GPU)" in instance or "per chip" in instance
            date_text = row["source_date"]
            valid_until = VALID_UNTIL.get(date_text, "")
            why_historical = _historical_reason(row, valid_until)
            out.append(
                {
                    "seed_snapshot": "historical" if why_historical else "current",
                    "provider": row["provider"],
                    "region": REGIONS.get(row["region"], row["region"]),
                    "instance_type": instance,
                    "accelerator_id": accelerator_id,
                    "accelerator_count": count,
                    "vcpus": CPU_VCPUS.get(instance, ""),
                    "memory_gib": CPU_MEMORY_GIB.get(instance, ""),
                    "pricing_model": PRICING_MODELS[row["pricing_model"]],
                    "usd_per_hour": row["usd_per_hour"],
                    "price_basis": "per_accelerator" if per_accelerator else "instance",
                    "source": row["source_title"],
                    "source_url": row["source_url"],
                    "observed_at": iso_date(date_text),
                    "source_date_text": date_text,
                    "confidence": row["confidence"],
                    "notes": " | ".join(n for n in (row["notes"], why_historical) if n),
                    "valid_from": VALID_FROM.get(date_text, ""),
                    "expires_on": valid_until,
                }
            )
    return out, skipped


# ---------------------------------------------------------------------------------------------
# Published results: long format (one metric per row) -> one record per operating point.
RESULT_ACCELERATORS = {
    "Intel Gaudi 2 AI Accelerator (96 GB HBM2E)": "intel-gaudi2-96gb",
    "Intel Gaudi 2": "intel-gaudi2-96gb",
    "Intel Gaudi 3": "intel-gaudi3-128gb",
    "NVIDIA H100 SXM 80GB": "nvidia-h100-sxm-80gb",
    "NVIDIA H100-SXM-80GB": "nvidia-h100-sxm-80gb",
    "NVIDIA H100 80GB": "nvidia-h100-sxm-80gb",
    "NVIDIA H100-PCIe-80GB": "nvidia-h100-pcie-80gb",
    "NVIDIA H200 SXM 141GB": "nvidia-h200-141gb",
    "NVIDIA H200-SXM-141GB": "nvidia-h200-141gb",
    "NVIDIA B200 180GB": "nvidia-b200-180gb",
    "NVIDIA B200-SXM-180GB": "nvidia-b200-180gb",
    "NVIDIA L40S": "nvidia-l40s-48gb",
    "AMD Instinct MI300X-NPS1-SPX-192GB-750W": "amd-mi300x-192gb",
    "AMD MI300X-NPS1-SPX-192GB-750W": "amd-mi300x-192gb",
    "AMD Instinct MI300X 192GB HBM3": "amd-mi300x-192gb",
    "AMD Instinct MI325X 256GB HBM3e": "amd-mi325x-256gb",
    "AWS Inferentia2 (12 devices / 24 NeuronCores)": "aws-inferentia2",
    "AWS Trainium1 (16 devices / 32 NeuronCores)": "aws-trainium1",
    "CPU only: INTEL(R) XEON(R) 6787P": "cpu-intel-gnr-amx",
    "CPU only: INTEL(R) XEON(R) 6980P": "cpu-intel-gnr-amx",
    "Intel Xeon w9-3475X (Sapphire Rapids, AMX) CPU only": "cpu-intel-spr-amx",
    "Intel Xeon (Sapphire Rapids, GCP C3) CPU only": "cpu-intel-spr-amx",
}

# Count corrections for CPU systems, each with its reason (MLPerf system descriptions list 0
# accelerators for a CPU-only node; CPU results count sockets). GPU systems take their count from
# the MLPerf system description (accelerators_per_node x number_of_nodes), see MLPERF_LOGS.
COUNT_OVERRIDES = {
    "1-node-2S-GNR_128C": (2, "two-socket Granite Rapids node; CPU results count sockets"),
    "X210M8-1-node-2S-GNR_86C": (2, "two-socket Granite Rapids node; CPU results count sockets"),
    "1-node-2S-GNR_86C_ESXi_172VCPU-VM": (
        2,
        "two-socket Granite Rapids node (VM); CPU results count sockets",
    ),
    "Xeon w9-3475X capped 2.2 GHz": (1, "one Sapphire Rapids workstation socket"),
    "GCP c3-highcpu-44 (22 threads)": (
        1,
        "22 threads of one Sapphire Rapids socket (a fraction of a socket, counted as one: conservative)",
    ),
}

_QUANTIZED = (
    "the submission's measurements JSON says weight_data_types fp16 with weight_transformations "
    "'quantization, affine fusion': fp16 is the starting checkpoint, not the precision run"
)
_NVIDIA_FP8 = (
    "FP8: closed/NVIDIA/documentation/calibration.md (MLPerf v4.1) says LLM submissions use FP8 "
    "(or FP4) where the accelerator supports it, and Hopper/Ada do; " + _QUANTIZED
)

#: Precision corrections: the research row's label against what the submitter ran.
PRECISION_OVERRIDES = {
    ("H200-SXM-141GBx8_TRT", "weights fp16"): ("fp8", _NVIDIA_FP8),
    ("DGX-H100_H100-SXM-80GBx8_TRT", "weights fp16"): ("fp8", _NVIDIA_FP8),
    ("ESC8000A_E12_H100x8_TRT", "weights fp16"): ("fp8", _NVIDIA_FP8),
    ("CDI_L40Sx8_TRT", "weights fp16"): ("fp8", _NVIDIA_FP8),
    ("HLS-Gaudi2-PT", "not stated in files read"): (
        "fp8",
        "FP8 (E4M3): closed/Intel-HabanaLabs/measurements/HLS-Gaudi2-PT/llama2-70b-99.9/Server/"
        "HLS-Gaudi2-PT_PyTorch_Server.json (MLPerf v4.0) says weight_data_types fp8-E4M3",
    ),
    ("XE9680_MI300X_192GBx8", "weights fp16"): (
        "fp8",
        "FP8: the same vLLM 0.4.3+rocm614 stack as AMD's own v4.1 MI300X submission, which "
        "states fp8; " + _QUANTIZED,
    ),
    ("B200-SXM-180GBx1_TRT", "weights fp16"): (
        "fp4",
        "NVIDIA ran its MLPerf v4.1 B200 preview in FP4 (NVIDIA technical blog on its v4.1 "
        "results; closed/NVIDIA/documentation/calibration.md: Llama2-70B layers quantized to FP4 "
        "on accelerators that support it); the measurements JSON's 'fp16' names the source "
        "checkpoint",
    ),
}

#: What MLPerf LoadGen printed for each cited run (scripts/mlperf_log_figures.py).
MLPERF_LOGS = SOURCES / "mlperf_log_figures.csv"


def _mlperf_logs() -> dict[str, dict]:
    with MLPERF_LOGS.open(newline="", encoding="utf-8") as handle:
        return {row["path"]: row for row in csv.DictReader(handle)}


def _mlperf_path(source_title: str) -> str:
    match = re.match(r"MLPerf Inference v[\d.]+ results repo: (\S+)", source_title)
    return match.group(1) if match else ""


THROUGHPUT_METRICS = {
    "output tokens per second (system total)",
    "total output throughput (system)",
    "throughput",
    "output token throughput",
    "output token throughput (system)",
    "token generation (avg_ts)",
    "eval (decode) rate",
}
PERCENTILE_METRICS = {
    "p99 TTFT": "ttft_ms_p99",
    "p99 TPOT": "tpot_ms_p99",
    "TTFT P50": "ttft_ms_p50",
    "TPOT P50": "tpot_ms_p50",
}
MEAN_METRICS = {"TTFT (avg as published)": "mean TTFT", "ITL (avg as published)": "mean ITL"}


def _runtime(text: str) -> tuple[str, str]:
    lowered = text.lower()
    for needle, name in (
        ("vllm", "vllm"),
        ("tensorrt-llm", "trt-llm"),
        ("nim", "trt-llm"),
        ("tensorrt", "trt-llm"),
        ("neuronx", "neuron"),
        ("optimum-habana", "optimum-habana"),
        ("synapseai", "tgi-gaudi"),
        ("llama.cpp", "llama.cpp"),
        ("pytorch", "pytorch"),
    ):
        if needle in lowered:
            version = re.search(r"\d+\.\d+(\.\d+)?", text)
            return name, version.group(0) if version else ""
    return text, ""


def _precision(text: str) -> str:
    lowered = text.lower()
    for needle, name in (
        ("uint4", "int4"),
        ("int4", "int4"),
        ("q4_0", "q4_0"),
        ("q4_k", "q4_k_m"),
        ("fp4", "fp4"),
        ("fp8", "fp8"),
        ("int8", "int8"),
        ("bf16", "bf16"),
        ("fp16", "fp16"),
    ):
        if needle in lowered:
            return name
    return "unstated"


def _model(text: str) -> str:
    lowered = text.lower().replace(" ", "-")
    for needle, name in (
        ("llama-3.3-70b", "llama-3.3-70b-instruct"),
        ("llama-3.1-8b", "llama-3.1-8b-instruct"),
        ("llama-3.1-70b", "llama-3.1-70b-instruct"),
        ("llama-3-8b", "llama-3-8b"),
        ("llama-3-70b", "llama-3-70b"),
        ("llama-2-70b", "llama-2-70b-chat"),
        ("llama-2-7b", "llama-2-7b-chat"),
        ("llama-2-70b", "llama-2-70b-chat"),
    ):
        if needle in lowered:
            return name
    return ""


def _scenario_and_load(scenario: str, notes: str) -> dict:
    lowered = scenario.lower()
    fields: dict = {
        "scenario": "online",
        "workload": "",
        "input_tokens": "",
        "output_tokens": "",
        "concurrency": "",
    }
    if lowered.startswith("mlperf"):
        fields["scenario"] = lowered.split()[1]
    elif "offline" in lowered or "batch (throughput" in lowered or "llama-bench" in lowered:
        fields["scenario"] = "offline"
    io = re.search(r"ISL/OSL=(\d+)/(\d+)", scenario) or re.search(r"in/out (\d+)/(\d+)", notes)
    if io:
        fields["input_tokens"], fields["output_tokens"] = io.group(1), io.group(2)
    conc = re.search(r"concurrency=(\d+)", scenario) or re.search(
        r"batch[= ](\d+)", scenario + " " + notes
    )
    if conc:
        fields["concurrency"] = conc.group(1)
    # llama-bench's tgN test generates N tokens from an empty prompt for one stream at a time:
    # a single-stream decode, concurrency 1, as the llama-bench importer files the same test
    # (read as offline at an unstated batch, it was taken for a batched throughput).
    generation = re.search(r"llama-bench tg(\d+)", scenario)
    if generation:
        fields["concurrency"] = "1"
        fields["output_tokens"] = generation.group(1)
        fields["workload"] = f"tg{generation.group(1)}"
    return fields


def _workload(model_text: str, fields: dict) -> str:
    if fields["workload"]:
        return fields["workload"]
    if "(CNN-DM)" in model_text:
        return "mlperf-cnn-dailymail"
    if "acc target" in model_text:
        return "mlperf-open-orca"
    if fields["input_tokens"]:
        return f"isl{fields['input_tokens']}-osl{fields['output_tokens']}"
    return "unstated"


def _apply_llama2_shape(record: dict, notes: list[str]) -> None:
    """MLPerf llama2-70b ran one dataset in every round (OpenOrca, 24,576 samples): its shape is
    the market build's (scripts/build_market_results.py), one definition for both files."""
    shape = build_market_results.SHAPES["llama2-70b", "v4.1"]
    assert shape.input is not None and shape.output is not None
    record["input_tokens"] = round(shape.input.value)
    record["output_tokens"] = round(shape.output.value)
    notes.append(
        f"shape: {shape.dataset}; {shape.input.note()}; mean output {shape.output.value:g}"
        f" {shape.output.unit} (mlcommons/inference {shape.output.path})"
    )


def curate_results() -> tuple[list[dict], list[str]]:
    groups: dict[tuple, list[tuple[int, dict]]] = defaultdict(list)
    with (SOURCES / "reference_published_results.csv").open(newline="", encoding="utf-8") as handle:
        for line_no, row in enumerate(csv.DictReader(handle), start=2):
            key = (
                row["source_url"],
                row["system"],
                row["model"],
                row["precision"],
                row["runtime"],
                row["scenario"],
            )
            groups[key].append((line_no, row))

    logs = _mlperf_logs()
    out: list[dict] = []
    skipped: list[str] = []
    for (_, system, model_text, precision_text, runtime_text, scenario), members in groups.items():
        first_line, first = members[0]
        lines = ", ".join(str(line) for line, _ in members)
        metrics = {row["metric"]: row for _, row in members}
        throughput = [
            row
            for name, row in metrics.items()
            if name in THROUGHPUT_METRICS and row["unit"] == "tokens/s"
        ]
        model = _model(model_text)
        accelerator_id = RESULT_ACCELERATORS.get(first["accelerator"])
        if not throughput or not model or not accelerator_id:
            why = (
                "not an LLM token-throughput figure (cost input, samples/s, ratio or latency only)"
                if not throughput
                else "model is not an identifiable LLM"
                if not model
                else f"accelerator {first['accelerator']!r} is not in the catalog (no price to join it to)"
            )
            skipped.append(f"results lines {lines} ({system}, {scenario}): {why}")
            continue
        count, count_note = COUNT_OVERRIDES.get(system, (int(first["accelerator_count"]), ""))
        log = logs.get(_mlperf_path(first["source_title"]))
        nodes = 1
        if log and int(log["accelerators_per_node"] or 0) > 0:
            nodes = int(log["number_of_nodes"])
            described = int(log["accelerators_per_node"]) * nodes
            count_note = (
                f"{described} per the MLPerf system description ({log['system_name']}"
                f"{'; ' + log['hw_notes'] if log['hw_notes'] else ''})"
            )
            if described != count:
                count_note += f"; the research row said {count}"
            count = described
        fields = _scenario_and_load(scenario, first["notes"])
        runtime, runtime_version = _runtime(runtime_text)
        precision = _precision(precision_text)
        precision_fix = PRECISION_OVERRIDES.get((system, precision_text))
        notes = [first["notes"]]
        if count_note:
            notes.append(f"accelerator count: {count_note}")
        if precision_fix:
            notes.append(f"precision: {precision_fix[1]}; the research row said {precision}")
            precision = precision_fix[0]
        if nodes > 1:
            notes.append(
                f"one replica spans {nodes} nodes ({count} accelerators): priced as {nodes} "
                "instances or that many rented accelerators"
            )
        record = {
            "accelerator_id": accelerator_id,
            "accelerators_per_replica": count,
            "nodes": nodes,
            "system": f"{system} ({nodes} nodes)" if nodes > 1 else system,
            "runtime": runtime,
            "runtime_version": runtime_version,
            "model": model,
            "precision": precision,
            "workload": _workload(model_text, fields),
            "input_tokens": fields["input_tokens"],
            "output_tokens": fields["output_tokens"],
            "scenario": fields["scenario"],
            "concurrency": fields["concurrency"],
            "output_tok_s": throughput[0]["value"],
            "ttft_ms_p50": "",
            "ttft_ms_p90": "",
            "ttft_ms_p95": "",
            "ttft_ms_p99": "",
            "tpot_ms_p50": "",
            "tpot_ms_p95": "",
            "tpot_ms_p99": "",
            "measured_at": iso_date(first["source_date"]),
            "source_date_text": first["source_date"],
            "source_tool": "mlperf" if scenario.startswith("MLPerf") else "published",
            "source_title": first["source_title"],
            "source_url": first["source_url"],
            "source_rows": lines,
            "confidence": first["confidence"],
        }
        if record["workload"] == "mlperf-open-orca":
            _apply_llama2_shape(record, notes)
        for name, row in metrics.items():
            if name in PERCENTILE_METRICS:
                if row["unit"] != "ms":
                    raise SystemExit(f"line {first_line}: {name} in {row['unit']!r}, expected ms")
                record[PERCENTILE_METRICS[name]] = row["value"]
            elif name in MEAN_METRICS:
                notes.append(
                    f"published {MEAN_METRICS[name]} {row['value']} {row['unit']} (a mean, "
                    "not a percentile; not used as FTL)"
                )
        if log:
            _apply_mlperf_log(record, log, first_line)
            notes.append(
                f"percentiles as LoadGen printed them in {log['path']} "
                f"(mlcommons/inference_results_{log['version']} at {log['commit'][:12]})"
            )
        record["notes"] = " | ".join(note for note in notes if note)
        out.append(record)
    return out, skipped


def _apply_mlperf_log(record: dict, log: dict, line: int) -> None:
    """Fill every TTFT/TPOT percentile LoadGen printed; the throughput must agree with it."""
    if log["result"] != "VALID":
        raise SystemExit(f"results line {line}: {log['path']} is {log['result']}, not VALID")
    if log["tokens_per_s"] and float(log["tokens_per_s"]) != float(record["output_tok_s"]):
        raise SystemExit(
            f"results line {line}: {record['output_tok_s']} tok/s but the log summary says "
            f"{log['tokens_per_s']}"
        )
    if record["scenario"] == "offline":
        return  # Offline runs have no latency bound; LoadGen's latencies there are not FTL
    for key in ("ttft_ms_p50", "ttft_ms_p90", "ttft_ms_p95", "ttft_ms_p99"):
        record[key] = log[key]
    for key in ("tpot_ms_p50", "tpot_ms_p95", "tpot_ms_p99"):
        record[key] = log[key]


#: What each correction of the research tables rests on (written into data/seed_curation.md).
CORRECTIONS = [
    "**MLPerf accelerator counts** come from each system's description JSON "
    "(`accelerators_per_node` x `number_of_nodes`), read by `scripts/mlperf_log_figures.py` into "
    "`data/sources/mlperf_log_figures.csv` with the commit read. RedHat `XE8640_4xH100_vLLM` "
    '(v5.1, Llama-3.1-8B) is `1xH100-SXM-80GB`, hw_notes "(1 GPU used)": 1 accelerator per '
    "replica (an earlier curation forced 4 from the system *name*; every H100 8B cost row was 4x "
    "too dear).",
    "**Multi-node systems**: Cisco `HGX-H100_H100-SXM-80GBx16_TRT` (v5.1) is 2 nodes x 8 H100 "
    '(`number_of_nodes: 2`); its records say `nodes=2`, the system name carries "(2 nodes)" '
    "and the notes say a replica is priced as 2 instances or 16 rented accelerators.",
    "**B200 MLPerf v4.1 precision**: FP4, not fp16. NVIDIA's v4.1 results post "
    "(developer.nvidia.com/blog/nvidia-blackwell-platform-sets-new-llm-inference-records-in-"
    "mlperf-inference-v4-1/) describes the B200 debut as FP4 inference, and the submission's "
    "`closed/NVIDIA/documentation/calibration.md` says Llama2-70B layers are quantized to FP4 on "
    "accelerators that support it; the measurements JSON's `weight_data_types: fp16` names the "
    "source checkpoint. Trade press at the time (Tom's Hardware) reports the same caveat.",
    "**MLPerf v4.1 'weights fp16' rows that ran quantized**: NVIDIA 8xH200 and DGX 8xH100, "
    "ASUS 8xH100-PCIe and Fujitsu 8xL40S (TensorRT) are FP8 per NVIDIA's calibration.md (FP8 on "
    "accelerators that support it); Dell 8xMI300X is FP8 (the stack of AMD's own fp8 "
    "submission). Every one of their measurements JSONs says weight_transformations "
    "'quantization, affine fusion' from fp16 weights. Labelled fp16, the 8xH200 result sat at "
    "55% of the FP16 compute bound; as FP8 it is 30%.",
    "**Intel Gaudi2 MLPerf v4.0 precision**: FP8 (E4M3), from the run's measurements JSON "
    "(`weight_data_types: fp8-E4M3`); the research row had 'not stated in files read'.",
    "**MLPerf TTFT/TPOT percentiles**: p50, p90, p95 and p99 first-token latency and p50/p95/p99 "
    "time-per-output-token exactly as LoadGen printed them in each Server/Interactive run's "
    "`mlperf_log_summary.txt` (ns / 1e6, one decimal), e.g. v5.1 RedHat 1xL40S p95 257.9 ms, "
    "v4.1 NVIDIA 8xH200 p95 354.8 ms, v4.1 AMD 8xMI300X p95 1,411.8 ms. The research table kept "
    "only p99. The throughput in every cited summary was checked equal to the research value.",
    "**AWS Capacity Block prices** (p5 $39.33, 8xH200 $43.26, p4d $14.75, trn1 $15.49): the page "
    "says its rates were valid until the scheduled update on 2025-01-01, so `expires_on` "
    "(valid until) is 2024-12-31, they are in the historical snapshot and they are never a "
    "current price or a cost option. No observation date is stated: `observed_at` is empty.",
    "**Pre-cut AWS figures**: the SkyPilot catalog rows for P5/P5en/P4d/P4de (on-demand *and* "
    "spot, including p5 spot $20.99) were read before the June 2025 AWS price cut; they are "
    "history.",
    "**Post-cut AWS list prices** (p5.48xlarge $55.04, p4d.24xlarge $21.957642, p4de.24xlarge "
    "$27.44705, us-east-1 on demand) are AWS's own figures in the Price List version "
    "20260728175247 (published 2026-07-28), as a public review tabulated them from the bulk offer "
    "file with its stated filter (data/sources/aws_price_list_history.yaml; the earlier versions, "
    "2024-02 to 2026-03, are data/price_history.csv). They replace the two estimates the seed "
    "carried before: p5 $55.06 = $98.32 x (1 - 0.44) from dstack's 'Only AWS has reduced H100 "
    "instance prices by 44%' (2025-09-10) and p4d $21.96 = $32.7726 x 0.67 from AWS's 'up to "
    "33%'. The live Price List API (`tokendesk prices refresh`) reads today's figure.",
    '**Undated sources** keep "date unknown" (empty `observed_at` / `measured_at`, the '
    "source's words in `source_date_text`) instead of an invented date: SkyPilot/gpuhunt catalog "
    'snapshots (e.g. RunPod B200, formerly "2024-01-01"), the TensorRT-LLM perf overview at '
    'commit 00f37686 (formerly "2025-01-01"), the NIM 1.0.0 guide, approximate quarters. A '
    "stated month counts from its first day. Staleness is measured from today.",
    "**Per-accelerator quotes** are listed at their quoted $/accelerator-hour with their basis "
    "in the brief's price table (what a replica is billed, quote x accelerators per replica, is "
    'the fleet line and the Costs page\'s "$/hour billed").',
]


def with_price_list(prices: list[dict]) -> tuple[list[dict], list[str]]:
    """(the curated rows plus the current AWS Price List version's rates, the curated rows left
    out). A current curated row that is an estimate (its notes say ESTIMATE) of an item the list
    prices is left out: the provider's own figure replaces it. (Kept as history it would date
    the seed's historical snapshot at the estimate's date and outrank the undated pre-cut rows'
    true order.)"""
    listed = build_price_history.current_rows()
    items = {
        (r["provider"], r["region"], r["instance_type"], r["pricing_model"]): r for r in listed
    }
    kept, skipped = [], []
    for row in prices:
        key = (row["provider"], row["region"], row["instance_type"], row["pricing_model"])
        estimate = row["seed_snapshot"] == "current" and row["notes"].startswith("ESTIMATE")
        if estimate and key in items:
            version = items[key]["source_date_text"].split(",")[0]
            skipped.append(
                f"prices ({row['provider']} {row['instance_type']} {row['region']}"
                f" {row['pricing_model']}, ${row['usd_per_hour']}): an estimate replaced by the"
                f" provider's list price ${items[key]['usd_per_hour']} ({version})"
            )
            continue
        kept.append(row)
    blank = dict.fromkeys(prices[0], "")
    return kept + [{**blank, **row} for row in listed], skipped


def write_csv(path: Path, rows: list[dict]) -> None:
    with path.open("w", newline="", encoding="utf-8") as handle:
        writer = csv.DictWriter(handle, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)


def main() -> None:
    prices, skipped_prices = curate_prices()
    prices, replaced = with_price_list(prices)
    skipped_prices += replaced
    results, skipped_results = curate_results()
    write_csv(DATA / "seed_prices.csv", prices)
    write_csv(DATA / "seed_results.csv", results)
    notes = [
        "# Seed curation log",
        "",
        "Written by `scripts/curate_seed.py` from `data/sources/`.",
        "",
        "## Corrections and what each rests on",
        "",
        *[f"- {line}" for line in CORRECTIONS],
        "",
        "## Source rows not turned into records",
        "",
        *[f"- {line}" for line in skipped_prices + skipped_results],
        "",
    ]
    (DATA / "seed_curation.md").write_text("\n".join(notes), encoding="utf-8")
    print(
        f"{len(prices)} price rows, {len(results)} results; "
        f"{len(skipped_prices) + len(skipped_results)} source groups skipped"
    )


if __name__ == "__main__":
    main()
