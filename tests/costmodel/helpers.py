"""Hand-built cost-options frames in the warehouse's column layout."""

from __future__ import annotations

import pandas as pd

COLUMNS = [
    "option_id",
    "provider",
    "region",
    "zone",
    "instance_type",
    "pricing_model",
    "price_basis",
    "accelerator_id",
    "accelerator_name",
    "vendor",
    "backend",
    "accelerator_count",
    "usd_per_hour",
    "usd_per_accelerator_hour",
    "price_source",
    "price_source_url",
    "price_observed_at",
    "price_confidence",
    "price_snapshot_id",
    "result_id",
    "config_key",
    "model",
    "precision",
    "runtime",
    "runtime_version",
    "workload",
    "input_tokens",
    "output_tokens",
    "scenario",
    "concurrency",
    "request_rate_rps",
    "accelerators_per_replica",
    "replicas_per_instance",
    "instance_output_tok_s",
    "instance_total_tok_s",
    "usd_per_1k_output_tokens",
    "usd_per_1k_total_tokens",
    "ttft_ms_p50",
    "ttft_ms_p90",
    "ttft_ms_p95",
    "ttft_ms_p99",
    "ttft_basis",
    "tpot_ms_p50",
    "tpot_ms_p95",
    "tpot_ms_p99",
    "bench_source_tool",
    "bench_source_title",
    "bench_source_url",
    "bench_measured_at",
    "bench_confidence",
    "bench_snapshot_id",
]

VENDOR = {"cuda": "NVIDIA", "rocm": "AMD", "cpu": "Intel", "hpu": "Intel"}
ACCEL = {
    "cuda": "nvidia-h100-sxm-80gb",
    "rocm": "amd-mi300x-192gb",
    "cpu": "cpu-intel-spr-amx",
    "hpu": "intel-gaudi2-96gb",
}


def sweep(
    *,
    backend: str = "cuda",
    provider: str = "aws",
    region: str = "us-east-1",
    instance_type: str = "p5.48xlarge",
    usd_per_hour: float = 80.0,
    pricing_model: str = "on_demand",
    accelerator_count: int = 8,
    accelerators_per_replica: int = 8,
    model: str = "Llama-3.1-70B-Instruct",
    precision: str = "fp8",
    config_key: str | None = None,
    points: tuple[tuple[float, float, float | None], ...] = (
        (1, 500, 150),
        (8, 3000, 300),
        (32, 8000, 900),
    ),
    percentile_col: str = "ttft_ms_p95",
    scenario: str = "server",
    measured_at: str = "2026-01-10",
    observed_at: str = "2026-02-01",
    price_basis: str = "instance",
) -> list[dict]:
    """Rows for one quote x one configuration; points = (concurrency, instance tok/s, ttft ms)."""
    replicas = accelerator_count // accelerators_per_replica if price_basis == "instance" else 0
    key = config_key or f"{backend}-{model}-{precision}-{accelerators_per_replica}"
    rows = []
    for i, (conc, tok, ttft) in enumerate(points):
        row = dict.fromkeys(COLUMNS)
        row.update(
            option_id=f"{provider}-{instance_type}-{region}-{pricing_model}",
            provider=provider,
            region=region,
            zone=None,
            instance_type=instance_type,
            pricing_model=pricing_model,
            price_basis=price_basis,
            accelerator_id=ACCEL.get(backend, backend),
            accelerator_name=ACCEL.get(backend, backend),
            vendor=VENDOR.get(backend, backend),
            backend=backend,
            accelerator_count=accelerator_count,
            usd_per_hour=usd_per_hour,
            usd_per_accelerator_hour=usd_per_hour / max(accelerator_count, 1),
            price_observed_at=pd.Timestamp(observed_at),
            result_id=f"{key}-{i}",
            config_key=key,
            model=model,
            precision=precision,
            runtime="vllm",
            workload="chat",
            input_tokens=1000,
            output_tokens=500,
            scenario=scenario,
            concurrency=conc,
            accelerators_per_replica=accelerators_per_replica,
            replicas_per_instance=replicas,
            instance_output_tok_s=tok,
            instance_total_tok_s=tok * 3,
            usd_per_1k_output_tokens=usd_per_hour / (tok * 3.6),
            ttft_basis="measured",
            bench_measured_at=pd.Timestamp(measured_at),
        )
        if ttft is not None:
            row[percentile_col] = ttft
        rows.append(row)
    return rows


def frame(*sweeps: list[dict]) -> pd.DataFrame:
    return pd.DataFrame([r for s in sweeps for r in s], columns=COLUMNS)
