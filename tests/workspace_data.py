"""Workspaces shared by the scenario, optimizer and command tests: a hand-computed one with
its benchmark options, and the bundled example's Stay figure worked out from list prices."""

from __future__ import annotations

import re

import yaml

from tests.factories import frame, sweep
from tokendesk.paths import data_dir
from warehouse import Warehouse

EXAMPLE = data_dir() / "workspace_example.yaml"

# At FTL p95 <= 900 ms one p5 carries 8,000 output tok/s (its 32-concurrency point), one MI300X
# node 6,000; with the default 0.8 utilisation cap and 0.95 availability that is 6,080 and 4,560.
OPTIONS = frame(
    sweep(backend="cuda", usd_per_hour=80.0, model="Llama-3.1-70B-Instruct"),
    sweep(
        backend="cuda",
        instance_type="p5.48xlarge",
        usd_per_hour=80.0,
        model="Llama-3.1-8B-Instruct",
        accelerators_per_replica=1,
        config_key="cuda-8b",
        points=((1, 4000, 100), (64, 40000, 800)),
    ),
    sweep(
        backend="rocm",
        provider="oci",
        region="global",
        instance_type="BM.GPU.MI300X.8",
        usd_per_hour=48.0,
        points=((1, 400, 160), (8, 2500, 320), (32, 6000, 880)),
    ),
)

HOURS = 730


def workspace(**changes) -> dict:
    data = {
        "name": "Hand Co",
        "start": "2026-12-01",
        "fleet": [
            {
                "provider": "aws",
                "region": "us-east-1",
                "instance_type": "p5.48xlarge",
                "count": 4,
                "pricing_model": "reserved_1y",
                "usd_per_hour": 50.0,
                "commitment_end": "2027-06-30",
                "serves": "chat",
            },
            {
                "provider": "aws",
                "region": "us-east-1",
                "instance_type": "p5.48xlarge",
                "count": 2,
                "pricing_model": "on_demand",
                "serves": "chat",
            },
            {
                "provider": "aws",
                "region": "us-east-1",
                "instance_type": "p5.48xlarge",
                "count": 1,
                "pricing_model": "on_demand",
                "usd_per_hour": 79.99,
                "serves": "small",
            },
        ],
        "demand": [
            {
                "workload": "chat",
                "model": "Llama-3.1-70B-Instruct",
                "output_tokens_per_month": 50e9,
                "input_tokens_per_month": 100e9,
                "interactive_share": 0.9,
                "peak_to_mean": 1.5,
                "slo": {"ttft_ms": 900, "percentile": "p95"},
                "growth_per_quarter": 0.0,
            },
            {
                "workload": "small",
                "model": "Llama-3.1-8B-Instruct",
                "output_tokens_per_month": 10e9,
                "interactive_share": 1.0,
                "peak_to_mean": 1.5,
                "slo": {"ttft_ms": 900, "percentile": "p95"},
                "small_model": True,
            },
        ],
        "constraints": {"max_vendor_share": 0.8},
    }
    data.update(changes)
    return data


LINE_FIELDS = {
    "provider",
    "region",
    "instance_type",
    "pricing_model",
    "count",
    "usd_per_hour",
    "commitment_end",
}


def list_price(db, instance_type: str) -> float:
    with Warehouse.open(db, read_only=True) as wh:
        frame = wh.query(
            "SELECT usd_per_hour FROM current_prices WHERE provider = 'aws'"
            " AND region = 'us-east-1' AND instance_type = ? AND pricing_model = 'on_demand'",
            [instance_type],
        )
    return float(frame["usd_per_hour"].iloc[0])


def example_stay(db) -> float:
    """5 × $31.46 (the example's reserved rate) + 2 p5 and 15 g6e.xlarge at list, 730 h each."""
    return round(
        (5 * 31.46 + 2 * list_price(db, "p5.48xlarge") + 15 * list_price(db, "g6e.xlarge")) * 730,
        2,
    )


def mixed_fleet(tmp_path):
    """The example with a CTO's mixed fleet: 3 p5.48xlarge reserved until 2027-06-30, 2 MI300X
    nodes on demand, 15 g6e.xlarge."""
    data = yaml.safe_load(EXAMPLE.read_text(encoding="utf-8"))
    data["fleet"][0]["count"] = 3
    data["fleet"][1] = {
        "provider": "oci",
        "region": "global",
        "instance_type": "BM.GPU.MI300X.8",
        "count": 2,
        "pricing_model": "on_demand",
        "serves": data["fleet"][1]["serves"],
    }
    path = tmp_path / "mixed.yaml"
    path.write_text(yaml.safe_dump(data), encoding="utf-8")
    return path


def doubled_demand(tmp_path):
    """The example with twice each workload's demand."""
    text = re.sub(
        r"(_tokens_per_month: )([0-9.]+e9)",
        lambda m: f"{m[1]}{2 * float(m[2]):.0f}",
        EXAMPLE.read_text(encoding="utf-8"),
    )
    path = tmp_path / "doubled.yaml"
    path.write_text(text, encoding="utf-8")
    return path


def discounted(tmp_path, rate: float = 0.08):
    """The mixed fleet with its horizon discounted at ``rate`` a year."""
    data = yaml.safe_load(mixed_fleet(tmp_path).read_text(encoding="utf-8"))
    data["commitment"]["discount_rate_per_year"] = rate
    path = tmp_path / "discounted.yaml"
    path.write_text(yaml.safe_dump(data, sort_keys=False), encoding="utf-8")
    return path
