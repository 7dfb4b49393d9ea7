"""Test data with one home: builders for records, cost frames, warehouses and warehouse digests.

Each builder makes a valid row with plain defaults; a test overrides only the fields its case is
about, so what a test checks is visible in the call. Page tests read the small fixture warehouse
(``fixture_warehouse``; its rows and what each is for: tests/fixtures/warehouse/README.md), never
the shipped seed, so a correction of the seed data changes no page test.
"""

from __future__ import annotations

import hashlib
from datetime import UTC, date, datetime
from pathlib import Path

import pandas as pd

from costmodel.plan_inputs import PlanScenario, builtin_plans
from costmodel.workspace_model import Workspace
from planning.what_ifs import DEFAULTS
from planning.workspaces import import_workspace, read_workspace_file
from pricing.integrity import check_price_file
from tokendesk.metrics import usd_per_1k_tokens
from tokendesk.records import BenchmarkResult, PriceQuote
from warehouse import Warehouse
from warehouse.cost_frame import COST_COLUMNS
from warehouse.price_rows import PRICE_COLUMNS
from warehouse.seed import load_seed

#: Seed-format price and result files and a workspace, each row named for the case it tests.
FIXTURE_WAREHOUSE = Path(__file__).resolve().parent / "fixtures" / "warehouse"
FIXTURE_WORKSPACE = FIXTURE_WAREHOUSE / "workspace.yaml"

NOW = datetime(2026, 8, 6, tzinfo=UTC)


# -- records ---------------------------------------------------------------------------------
def quote(**overrides: object) -> PriceQuote:
    """A valid on-demand H200 quote."""
    fields = dict(
        provider="aws",
        region="us-east-1",
        instance_type="p5en.48xlarge",
        accelerator_id="nvidia-h200-141gb",
        accelerator_count=8,
        pricing_model="on_demand",
        usd_per_hour=63.296,
        source="test",
        observed_at=NOW,
    )
    fields.update(overrides)
    return PriceQuote(**fields)


def result(**overrides: object) -> BenchmarkResult:
    """A valid H200 MLPerf result."""
    fields = dict(
        accelerator_id="nvidia-h200-141gb",
        accelerators_per_replica=8,
        runtime="trt-llm",
        model="llama-2-70b-chat",
        precision="fp8",
        workload="mlperf-open-orca",
        output_tok_s=34029.38,
        measured_at=NOW,
        source_tool="mlperf",
    )
    fields.update(overrides)
    return BenchmarkResult(**fields)


# -- cost frames in the warehouse's column layout (warehouse.cost_frame.COST_COLUMNS) -----------
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
        row = dict.fromkeys(COST_COLUMNS)
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
            usd_per_1k_output_tokens=usd_per_1k_tokens(usd_per_hour, tok),
            ttft_basis="measured",
            bench_measured_at=pd.Timestamp(measured_at),
        )
        if ttft is not None:
            row[percentile_col] = ttft
        rows.append(row)
    return rows


def frame(*sweeps: list[dict]) -> pd.DataFrame:
    """A cost frame of the given sweeps' rows."""
    return pd.DataFrame([r for s in sweeps for r in s], columns=COST_COLUMNS)


# -- warehouse ---------------------------------------------------------------------------------
def negotiated_quotes(provider: str, instances: dict[str, str]) -> list[PriceQuote]:
    """A provider's negotiated 8xH100 quotes at $16/h, never expiring: instance type -> quote id."""
    return [
        quote(
            provider=provider,
            region="any",
            instance_type=name,
            accelerator_id="nvidia-h100-sxm-80gb",
            accelerator_count=8,
            pricing_model="negotiated",
            usd_per_hour=16.0,
            quote_id=quote_id,
            expires_on=date(2099, 12, 31),
        )
        for name, quote_id in instances.items()
    ]


def kill_results_csv(path: Path, concurrencies: tuple[int, ...]) -> Path:
    """A results file for the kill tests: one H100 vLLM sweep, one row per concurrency (the model
    name states its size, so the plausibility gate can bound it)."""
    path.write_text(
        "accelerator_id,accelerators_per_replica,runtime,model,precision,workload,scenario,"
        "concurrency,output_tok_s,measured_at,source_tool,source_url\n"
        + "".join(
            f"nvidia-h100-sxm-80gb,1,vllm,kill-model-8b,bf16,chat,online,{c},{900 + c},2026-10-01,"
            "kill-bench,https://example.org/kill\n"
            for c in concurrencies
        ),
        encoding="utf-8",
    )
    return path


def seeded_warehouse(path: Path | str) -> Warehouse:
    """The warehouse at ``path``, built on first use from the shipped seed in data/ with the price
    integrity check, as `tokendesk db init` and the dashboard's first start build it."""
    return Warehouse.open(path, seed_check=check_price_file)


def fixture_warehouse(path: Path) -> Path:
    """Build the fixture warehouse at ``path`` along the production paths: the seed loader (record
    validation, catalog check, price integrity check) over tests/fixtures/warehouse/, then
    `tokendesk workspace import` of its workspace, which becomes the current version (version 2:
    every new warehouse stores the bundled example as version 1)."""
    with Warehouse.open(path, build=False) as warehouse:
        load_seed(warehouse, check_price_file, FIXTURE_WAREHOUSE)
        import_workspace(warehouse, FIXTURE_WORKSPACE)
    return path


def fixture_workspace() -> Workspace:
    """The fixture company's workspace (tests/fixtures/warehouse/workspace.yaml)."""
    return read_workspace_file(FIXTURE_WORKSPACE)[0]


def content_digest(warehouse: Warehouse) -> str:
    """A digest of every row of every table, in a fixed order: equal digests = equal content."""
    digest = hashlib.sha256()
    for table in (
        "snapshots",
        "price_quotes",
        "benchmark_results",
        "integrity_checks",
        "accelerators",
        "schema_migrations",
        "workspaces",
        "retractions",
    ):
        frame = warehouse.query(f"SELECT * FROM {table} ORDER BY ALL")
        digest.update(table.encode())
        digest.update(frame.to_csv(index=False).encode())
    return digest.hexdigest()


def default_plans(
    amd_share: float = DEFAULTS.amd, cpu_share: float = DEFAULTS.cpu
) -> tuple[PlanScenario, ...]:
    """The built-in plans at the what-if defaults (planning.what_ifs), unless a test sets one."""
    return builtin_plans(amd_share, cpu_share)


def stored_price_rows(warehouse: Warehouse) -> tuple[list, list]:
    """Every stored quote (with its snapshot's source, count, scope and date) and every integrity
    rule's counts, as strings: what two ingest paths must store alike. An undated current
    snapshot is dated with its write time, which differs between runs: it reads "write time"."""
    columns = ", ".join(f"q.{c}" for c in (*PRICE_COLUMNS, "quarantine_reason", "review_flag"))
    quotes = warehouse.query(
        "SELECT s.source, s.row_count, s.scope,"
        " CASE WHEN s.as_of = s.created_at THEN 'write time' ELSE CAST(s.as_of AS VARCHAR) END,"
        f" {columns}"
        " FROM price_quotes q JOIN snapshots s USING (snapshot_id) ORDER BY q.price_id"
    )
    rules = warehouse.query(
        "SELECT s.source, rule, checked, failed, detail FROM integrity_checks"
        " JOIN snapshots s USING (snapshot_id) ORDER BY s.source, rule"
    )
    return quotes.astype(str).values.tolist(), rules.astype(str).values.tolist()
