"""Loaders for the cost model's bundled, sourced tables in ``data/`` (the only I/O here)."""

from __future__ import annotations

import csv
from dataclasses import dataclass
from functools import cache, lru_cache
from pathlib import Path
from typing import Any

from costmodel.demand import model_key
from costmodel.memory import ModelArchitecture
from costmodel.owned import ElectricityPrice, OwnedServer, Sourced
from costmodel.timeline import StageGate
from tokendesk.paths import data_dir

ARCHITECTURES_FILE = "model_architectures.csv"
#: Columns added for MoE and MLA models; an empty or absent cell means 0 (dense, not MLA).
OPTIONAL_INT_COLUMNS = (
    "kv_lora_rank",
    "qk_rope_head_dim",
    "full_attention_layers",
    "attention_window",
    "experts",
    "experts_per_token",
)
MATURITY_FILE = "software_maturity.csv"
STAGE_GATES_FILE = "stage_gates.csv"
OWNED_SERVERS_FILE = "owned_servers.csv"
ELECTRICITY_FILE = "electricity_prices.csv"


def _rows(path: Path) -> list[dict[str, str]]:
    with path.open(newline="", encoding="utf-8") as handle:
        return list(csv.DictReader(handle))


@cache
def model_architectures() -> dict[str, ModelArchitecture]:
    path = data_dir() / ARCHITECTURES_FILE
    out: dict[str, ModelArchitecture] = {}
    for line, row in enumerate(_rows(path), start=2):
        try:
            arch = ModelArchitecture(
                model_id=row["model_id"],
                name=row["name"],
                family=row["family"],
                params_b=float(row["params_b"]),
                active_params_b=float(row["active_params_b"]),
                layers=int(row["layers"]),
                hidden_size=int(row["hidden_size"]),
                attention_heads=int(row["attention_heads"]),
                kv_heads=int(row["kv_heads"]),
                head_dim=int(row["head_dim"]),
                vocab_size=int(row["vocab_size"]),
                max_context=int(row["max_context"]),
                source_url=row["source_url"],
                aliases=tuple(a for a in row["aliases"].split(";") if a),
                notes=row.get("notes", ""),
                attention=row.get("attention") or "gqa",
                **{k: int(row.get(k) or 0) for k in OPTIONAL_INT_COLUMNS},
            )
        except (KeyError, ValueError) as exc:
            raise ValueError(
                f"{path}:{line}: {exc}; every column must be filled with a number where numeric"
            ) from exc
        out[arch.model_id] = arch
    return out


@cache
def _alias_keys() -> tuple[tuple[str, ModelArchitecture], ...]:
    """Every model id and alias of the table as its match key, longest first (a stable sort:
    of two keys as long, the one the table lists first)."""
    keys = [
        (model_key(alias), arch)
        for arch in model_architectures().values()
        for alias in (arch.model_id, *arch.aliases)
    ]
    return tuple(sorted(keys, key=lambda pair: -len(pair[0])))


@lru_cache(maxsize=4096)
def resolve_architecture(model_name: str) -> ModelArchitecture | None:
    """Find the architecture for a model name as benchmarks spell it ("Llama-2-70B-Chat (99%)"):
    the longest id or alias the name's key equals or starts with; failing that, for a hub id
    ("meta-llama/Llama-2-70b-chat-hf"), the same for the name after its owner. Kept per name:
    the planner asks for the same few names thousands of times per evaluation."""
    for name in dict.fromkeys((model_name, model_name.rsplit("/", 1)[-1])):
        key = model_key(name)
        found = next((arch for a, arch in _alias_keys() if key == a or key.startswith(a)), None)
        if found is not None:
            return found
    return None


def stored_spellings(asked: list[str], stored: list[str]) -> list[str]:
    """The stored model names that ``asked`` names: each asked name itself, and every stored
    name that resolves to the same model of the model table (``llama3.1-8b`` finds results
    stored as ``meta-llama/Llama-3.1-8B-Instruct``); ``asked`` itself when none is stored."""
    wanted = {name.casefold() for name in asked}
    models = {arch.model_id for name in asked if (arch := resolve_architecture(name))}
    return sorted(
        name
        for name in stored
        if name.casefold() in wanted
        or ((arch := resolve_architecture(name)) is not None and arch.model_id in models)
    ) or list(asked)


@dataclass(frozen=True)
class MaturityRow:
    backend: str
    family: str
    precision: str
    score: float
    attention_kernel_parity: str
    fp8_support: str
    int4_support: str
    known_gaps: str
    source_title: str
    source_url: str
    source_date: str


@cache
def software_maturity() -> tuple[MaturityRow, ...]:
    path = data_dir() / MATURITY_FILE
    rows = []
    for line, row in enumerate(_rows(path), start=2):
        try:
            fields: dict[str, Any] = {**row, "score": float(row["score"])}
            rows.append(MaturityRow(**fields))
        except (TypeError, ValueError) as exc:
            raise ValueError(f"{path}:{line}: {exc}") from exc
    return tuple(rows)


@cache
def stage_gates() -> dict[str, tuple[StageGate, ...]]:
    path = data_dir() / STAGE_GATES_FILE
    out: dict[str, list[StageGate]] = {}
    for line, row in enumerate(_rows(path), start=2):
        try:
            gate = StageGate(
                gate=row["gate"],
                weeks=float(row["weeks"]),
                depends_on=tuple(d for d in row["depends_on"].split(";") if d),
                basis=row["basis"],
            )
        except (KeyError, ValueError) as exc:
            raise ValueError(f"{path}:{line}: {exc}") from exc
        out.setdefault(row["backend"], []).append(gate)
    return {k: tuple(v) for k, v in out.items()}


@cache
def owned_servers() -> tuple[OwnedServer, ...]:
    """The server price sheet: capex and rated power per server, each with its source."""
    path = data_dir() / OWNED_SERVERS_FILE
    out = []
    for line, row in enumerate(_rows(path), start=2):
        try:
            out.append(
                OwnedServer(
                    server_id=row["server_id"],
                    name=row["name"],
                    accelerator_id=row["accelerator_id"],
                    accelerator_count=int(row["accelerator_count"]),
                    capex=Sourced(
                        "server capex",
                        float(row["capex_usd"]),
                        "$",
                        row["capex_source_title"],
                        row["capex_source_url"],
                        row["capex_as_of"] or "date unknown",
                        row["capex_confidence"],
                    ),
                    power_kw=Sourced(
                        "server power",
                        float(row["power_kw"]),
                        "kW",
                        row["power_source_title"],
                        row["power_source_url"],
                        row["power_as_of"] or "date unknown",
                        row["power_confidence"],
                    ),
                    notes=row.get("notes", ""),
                )
            )
        except (KeyError, ValueError) as exc:
            raise ValueError(f"{path}:{line}: {exc}") from exc
    return tuple(out)


@cache
def electricity_prices() -> tuple[ElectricityPrice, ...]:
    """Average electricity price per cloud region's location, each with its source and year."""
    path = data_dir() / ELECTRICITY_FILE
    out = []
    for line, row in enumerate(_rows(path), start=2):
        try:
            out.append(
                ElectricityPrice(
                    provider=row["provider"],
                    region=row["region"],
                    state=row["state"],
                    usd_per_kwh=float(row["usd_per_kwh"]),
                    source=row["source_title"],
                    source_url=row["source_url"],
                    as_of=f"{row['data_year']} average, published {row['published']}",
                    confidence=row["confidence"],
                )
            )
        except (KeyError, ValueError) as exc:
            raise ValueError(f"{path}:{line}: {exc}") from exc
    return tuple(out)


ACCELERATOR_POWER_FILE = "accelerator_power.csv"
GRID_INTENSITY_FILE = "grid_intensity.csv"


@dataclass(frozen=True)
class AcceleratorPower:
    """An accelerator's rated board power (TDP) from its datasheet."""

    accelerator_id: str
    tdp_w: float
    source_title: str
    source_url: str
    source_date: str
    confidence: str


@dataclass(frozen=True)
class GridIntensity:
    """A region's annual average grid carbon intensity, from a published figure."""

    provider: str
    region: str
    location: str
    g_co2e_per_kwh: float
    year: int
    source_title: str
    source_url: str
    basis: str
    confidence: str


def _sourced(path: Path, line: int, row: dict[str, str], number: str) -> float:
    """``row[number]`` as a positive finite number; the row must name an http(s) source."""
    try:
        value = float(row[number])
    except (KeyError, ValueError):
        raise ValueError(f"{path}:{line}: {number} {row.get(number)!r} is not a number") from None
    if not 0 < value < 1e6:
        raise ValueError(f"{path}:{line}: {number} {value:g} must be a positive number")
    if not row.get("source_url", "").startswith(("https://", "http://")):
        raise ValueError(f"{path}:{line}: source_url must be the figure's http(s) source")
    return value


@cache
def accelerator_power() -> dict[str, AcceleratorPower]:
    """Accelerator id -> its datasheet TDP (``data/accelerator_power.csv``)."""
    path = data_dir() / ACCELERATOR_POWER_FILE
    out: dict[str, AcceleratorPower] = {}
    for line, row in enumerate(_rows(path), start=2):
        tdp = _sourced(path, line, row, "tdp_w")
        out[row["accelerator_id"]] = AcceleratorPower(
            row["accelerator_id"],
            tdp,
            row["source_title"],
            row["source_url"],
            row["source_date"],
            row["confidence"],
        )
    return out


@cache
def grid_intensity() -> dict[tuple[str, str], GridIntensity]:
    """(provider, region) -> its grid carbon intensity (``data/grid_intensity.csv``)."""
    path = data_dir() / GRID_INTENSITY_FILE
    out: dict[tuple[str, str], GridIntensity] = {}
    for line, row in enumerate(_rows(path), start=2):
        value = _sourced(path, line, row, "g_co2e_per_kwh")
        try:
            year = int(row["year"])
        except (KeyError, ValueError):
            raise ValueError(f"{path}:{line}: year {row.get('year')!r} is not a year") from None
        out[(row["provider"], row["region"])] = GridIntensity(
            row["provider"],
            row["region"],
            row["location"],
            value,
            year,
            row["source_title"],
            row["source_url"],
            row["basis"],
            row["confidence"],
        )
    return out
