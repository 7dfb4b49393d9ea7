"""Curate the bundled seed data from the research tables in ``data/sources/``.

Reads ``reference_prices.csv`` and ``reference_published_results.csv`` (dated public figures,
each with its source) and writes:

* ``data/seed_prices.csv``  — one PriceQuote per row plus the seed snapshot it belongs to
  (``current`` or ``historical``: rows the research marks as superseded, e.g. AWS P5 before
  the June 2025 price cut, are kept, dated, in an older snapshot and never shown as current);
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
from collections import defaultdict
from pathlib import Path

DATA = Path(__file__).resolve().parents[1] / "data"
SOURCES = DATA / "sources"

# ---------------------------------------------------------------------------------------------
# Dates. Free-text source dates become an ISO date plus the verbatim text. Where only a range is
# known we take its EARLIEST day, so the dashboard never understates how stale a figure is.
DATE_OVERRIDES = {
    "2025-H1 snapshot (inferred: pre-June-2025 P5 cut; exact commit date unknown)": "2025-01-01",
    "page says rates valid until scheduled update on 2025-01-01": "2024-10-01",
    "valid until 2025-01-01 update": "2024-10-01",
    "snapshot date unknown": "2024-01-01",
    "snapshot date unknown (2024-2025)": "2024-01-01",
    "snapshot date unknown (2025-2026)": "2025-01-01",
    "2024 (Neuron 2.18.x data; file last committed 2025-10-17)": "2024-01-01",
    "unknown (docs v1.0.0)": "2025-01-01",
    "unknown (file at commit 00f37686)": "2025-01-01",
    "~2024-Q4 (SW 1.18.0)": "2024-10-01",
    "~2024-Q4 (SynapseAI/Gaudi SW 1.18.0)": "2024-10-01",
    "2025-06 (effective date)": "2025-06-01",
    "2026-03": "2026-03-01",
    "2026-03 (page states March 2026)": "2026-03-01",
}


def iso_date(text: str) -> str:
    if text in DATE_OVERRIDES:
        return DATE_OVERRIDES[text]
    match = re.match(r"(\d{4}-\d{2}-\d{2})", text)
    if not match:
        raise SystemExit(f"no date rule for source date {text!r}; add one to DATE_OVERRIDES")
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

SKIPPED_PRICE_ROWS = {
    # GCP does not sell A3 Ultra on demand, and this figure is only the GPU part of the bill.
    ("gcp", "a3-ultragpu-8g (GPU component only)"): (
        "GPU component only (no vCPU/RAM) of a machine type GCP does not sell on demand; "
        "an instance price cannot be stated"
    ),
}


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
            historical = "(historical)" in row["confidence"]
            out.append(
                {
                    "seed_snapshot": "historical" if historical else "current",
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
                    "observed_at": iso_date(row["source_date"]),
                    "source_date_text": row["source_date"],
                    "confidence": row["confidence"],
                    "notes": row["notes"],
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

# Count corrections, each with its reason (the published figure is a system total, so the
# count must be the system's).
COUNT_OVERRIDES = {
    "XE8640_4xH100_vLLM": (
        4,
        "system name and MLPerf system description say 4x H100; the research row says 1",
    ),
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
    return fields


def _workload(model_text: str, fields: dict) -> str:
    if "(CNN-DM)" in model_text:
        return "mlperf-cnn-dailymail"
    if "acc target" in model_text:
        return "mlperf-open-orca"
    if fields["input_tokens"]:
        return f"isl{fields['input_tokens']}-osl{fields['output_tokens']}"
    return "unstated"


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
        fields = _scenario_and_load(scenario, first["notes"])
        runtime, runtime_version = _runtime(runtime_text)
        notes = [first["notes"]]
        if count_note:
            notes.append(f"accelerator count: {count_note}")
        record = {
            "accelerator_id": accelerator_id,
            "accelerators_per_replica": count,
            "system": system,
            "runtime": runtime,
            "runtime_version": runtime_version,
            "model": model,
            "precision": _precision(precision_text),
            "workload": _workload(model_text, fields),
            "input_tokens": fields["input_tokens"],
            "output_tokens": fields["output_tokens"],
            "scenario": fields["scenario"],
            "concurrency": fields["concurrency"],
            "output_tok_s": throughput[0]["value"],
            "ttft_ms_p50": "",
            "ttft_ms_p99": "",
            "tpot_ms_p50": "",
            "tpot_ms_p99": "",
            "measured_at": iso_date(first["source_date"]),
            "source_date_text": first["source_date"],
            "source_tool": "mlperf" if scenario.startswith("MLPerf") else "published",
            "source_title": first["source_title"],
            "source_url": first["source_url"],
            "source_rows": lines,
            "confidence": first["confidence"],
        }
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
        record["notes"] = " | ".join(note for note in notes if note)
        out.append(record)
    return out, skipped


def write_csv(path: Path, rows: list[dict]) -> None:
    with path.open("w", newline="", encoding="utf-8") as handle:
        writer = csv.DictWriter(handle, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)


def main() -> None:
    prices, skipped_prices = curate_prices()
    results, skipped_results = curate_results()
    write_csv(DATA / "seed_prices.csv", prices)
    write_csv(DATA / "seed_results.csv", results)
    notes = [
        "# Seed curation log",
        "",
        "Written by `scripts/curate_seed.py` from `data/sources/`. Source rows not turned into records:",
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
