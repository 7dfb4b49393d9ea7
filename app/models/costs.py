"""The Costs page's model: the cost each option is ranked by, the headline figures and the table."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

import pandas as pd

from app.models.tables import Table, readable
from costmodel import interactivity
from costmodel.energy import ASSUMED_TDP_UTILISATION
from costmodel.option_figures import with_hour_split
from costmodel.option_table import Option
from costmodel.unit_cost import OUTPUT_TO_INPUT_COST_RATIO
from tokendesk import formatting
from tokendesk.labels import sku_label
from tokendesk.metrics import latency_with_basis, usd_per_1k_tokens

#: Token bases the page offers, as the URL writes them, with what they read as.
TOKEN_BASES = {"output": "output tokens", "total": "total (input + output) tokens"}
#: Which tokens a cost column counts, as its label names them ("$/1K total (input + output) tokens").
COUNTED = {"output": "output", "total": "total (input + output)"}


def with_cost(options: pd.DataFrame, basis: str) -> pd.DataFrame:
    """``options`` plus ``cost`` ($/1K tokens on ``basis``) and ``cost_note`` (how it was got).

    For ``total``, a result that publishes total throughput is used as published; otherwise a
    fixed-length workload's own mix converts it: each output token comes with input/output input
    tokens, so $/1K total = $/1K output × output ÷ (input + output). A result with neither stays
    unpriced on this basis (shown as "—"), never dropped.
    """
    frame = options.copy()
    if basis == "output":
        frame["cost"] = frame["usd_per_1k_output_tokens"]
        frame["cost_note"] = "published output throughput"
        return frame
    published = frame["usd_per_1k_total_tokens"]
    mix = frame["output_tokens"] / (frame["input_tokens"] + frame["output_tokens"])
    derived = frame["usd_per_1k_output_tokens"] * mix.where(frame["output_tokens"] > 0)
    frame["cost"] = published.where(published.notna(), derived)
    frame["cost_note"] = "published total throughput"
    frame.loc[published.isna() & derived.notna(), "cost_note"] = (
        "from output throughput and the workload's input:output lengths"
    )
    frame.loc[frame["cost"].isna(), "cost_note"] = "no total throughput and no token lengths"
    return frame


@dataclass(frozen=True)
class Headline:
    label: str
    value: str
    help: str = ""


def cheapest(
    options: pd.DataFrame, basis: str, percentile: str, unit: str = formatting.DEFAULT_TOKEN_UNIT
) -> Headline:
    """The cheapest option *with a known first-token latency*: a latency-aware view never
    headlines a result that publishes no latency. The figure reads in ``unit`` ($/1K or $/1M)."""
    label = f"Cheapest {formatting.cost_label(unit, COUNTED[basis])} with a known FTL"
    known = options[options["cost"].notna() & options["ftl_ms"].notna()]
    if known.empty:
        unknown = int(options["cost"].notna().sum())
        return Headline(
            label,
            "none",
            f"None of the {unknown} priced options publishes a first-token latency at "
            f"{percentile} or above, so none is headlined.",
        )
    top = known.nsmallest(1, "cost").iloc[0]
    bound = "≤ " if top["ftl_basis"] != percentile else ""
    return Headline(
        label,
        formatting.usd_per_1k(formatting.per_tokens(top["cost"], unit)),
        f"{top['accelerator_name']} on "
        f"{sku_label(top['provider'], top['region'], top['instance_type'], top['pricing_model'])}"
        f", FTL {bound}{formatting.ms(top['ftl_ms'])}; "
        f"price: {top['price_source']} ({_day(top['price_observed_at'])}); "
        f"result: {top['bench_source_title']} ({_day(top['bench_measured_at'])})",
    )


def fastest(options: pd.DataFrame, percentile: str) -> Headline | None:
    """The lowest first-token latency among priced options, or None when none publishes one."""
    known = options[options["cost"].notna() & options["ftl_ms"].notna()]
    if known.empty:
        return None
    top = known.nsmallest(1, "ftl_ms").iloc[0]
    bound = top["ftl_basis"] != percentile
    return Headline(
        f"Lowest FTL {percentile}" + (" (upper bound)" if bound else ""),
        ("≤ " if bound else "") + formatting.ms(top["ftl_ms"]),
        f"{top['accelerator_name']} · {top['model']} · {top['bench_source_title']} "
        f"({_day(top['bench_measured_at'])}); basis {top['ftl_basis']}",
    )


def _day(value: object) -> str:
    return "date unknown" if value is None or pd.isna(value) else f"{pd.Timestamp(value):%Y-%m-%d}"


#: How the input / output split of an instance-hour is made, as the page states it.
APPORTIONING_NOTE = (
    "Input and output columns split each instance-hour between the tokens it serves: by the "
    "share of a request's time before its first token (TTFT p50 against TPOT p50 × output "
    "tokens) where the result publishes them, otherwise so that an output token costs "
    f"{OUTPUT_TO_INPUT_COST_RATIO:g} input tokens (the 1:{OUTPUT_TO_INPUT_COST_RATIO:g} "
    "input:output price ratio of a public API price list); the rule used is in each row. "
    "Input × input tokens + output × output tokens = the hour's cost. The first cost column "
    "charges the whole hour to the tokens it counts."
)


def with_details(options: pd.DataFrame, percentile: str, energy: bool) -> pd.DataFrame:
    """``options`` plus TPOT at ``percentile`` (the same fallback rule as FTL), the input /
    output split of each hour, and, when ``energy``, J per output token and gCO₂e per 1M."""
    tpot, tpot_basis = latency_with_basis(options, "tpot_ms", percentile)
    frame = options.assign(tpot_ms=tpot.to_numpy(), tpot_basis=tpot_basis.to_numpy())
    return with_hour_split(frame, energy=energy)


def option_table(
    options: pd.DataFrame,
    basis: str,
    percentile: str,
    unit: str = formatting.DEFAULT_TOKEN_UNIT,
    energy: bool = False,
) -> Table:
    """Every option, cheapest first, decision columns first ($/1K or $/1M, FTL, who, where, how
    priced), then the evidence (throughput, sources, dates). Columns ``with_details`` adds are
    shown where present; the energy and carbon ones only when ``energy``."""
    per_unit = ["cost", "usd_per_1k_input_tokens", "usd_per_1k_output_tokens_apportioned"]
    ordered = options.sort_values(["cost", "ftl_ms"], na_position="last").assign(
        **{
            column: (lambda frame, c=column: formatting.per_tokens(frame[c], unit))
            for column in per_unit
            if column in options
        }
    )
    unit_label = formatting.token_unit_label(unit)
    ordered = ordered.assign(basis=MEASURED_BASIS)
    labels = {
        "cost": formatting.cost_label(unit, COUNTED[basis]),
        "ftl_ms": f"FTL {percentile} (ms)",
        "provider": "Provider",
        "instance_type": "Instance",
        "region": "Region",
        "pricing_model": "Pricing model",
        "accelerator_name": "Accelerator",
        "vendor": "Vendor",
        "model": "Model",
        "precision": "Precision",
        "scenario": "Scenario",
        "basis": "Basis",
        "ftl_basis": "FTL basis",
        "replicas_per_instance": "Replicas",
        "instance_output_tok_s": "Instance output tok/s",
        # Billed per instance, or per accelerator x the accelerators one replica needs.
        "usd_per_hour": "$/hour billed",
        "price_basis": "Priced per",
        "cost_note": "Cost basis",
        "tpot_ms": f"TPOT {percentile} (ms)",
        "tpot_basis": "TPOT basis",
        "usd_per_1k_input_tokens": f"{unit_label} input tokens (apportioned)",
        "usd_per_1k_output_tokens_apportioned": f"{unit_label} output tokens (apportioned)",
        "apportioning_rule": "Input/output split",
        "joules_per_output_token": "J per output token",
        "energy_basis": "Energy basis",
        "g_co2e_per_1m_output_tokens": "gCO₂e per 1M output tokens",
        "grid_g_co2e_per_kwh": "Grid gCO₂e/kWh",
        "grid_year": "Grid year",
        "grid_source": "Grid source",
        "price_source": "Price source",
        "price_observed_at": "Price date",
        "bench_source_title": "Result source",
        "bench_measured_at": "Result date",
    }
    hidden = set() if energy else set(ENERGY_COLUMNS)
    shown = {k: v for k, v in labels.items() if k in ordered and k not in hidden}
    return readable(
        ordered,
        shown,
        numbers={
            "cost": formatting.cost_format(unit),
            "ftl_ms": "%,.0f ms",
            "tpot_ms": "%,.1f ms",
            "replicas_per_instance": "%d",
            "instance_output_tok_s": "%,.0f",
            "usd_per_hour": "$%.3f",
            "usd_per_1k_input_tokens": formatting.cost_format(unit),
            "usd_per_1k_output_tokens_apportioned": formatting.cost_format(unit),
            "joules_per_output_token": "%,.2f J",
            "g_co2e_per_1m_output_tokens": "%,.0f g",
            "grid_g_co2e_per_kwh": "%,.0f",
            "grid_year": "%d",
        },
        dates=("price_observed_at", "bench_measured_at"),
    )


#: How the energy and carbon columns are obtained, as the page states it.
ENERGY_NOTE = (
    "Energy per output token = the replica's power ÷ its output tok/s: measured power where the "
    f"result carries it, otherwise the datasheet TDP × {ASSUMED_TDP_UTILISATION:.0%} (an "
    "estimate, and an upper bound: no board draws more than its TDP sustained). gCO₂e per 1M "
    "output tokens = kWh per 1M tokens × the region's annual grid intensity (sourced and dated "
    "in data/grid_intensity.csv; a region without a published figure shows —). Accelerators "
    "only: host, network and facility overhead are not counted."
)

#: The option table's optional energy and carbon columns.
ENERGY_COLUMNS = (
    "joules_per_output_token",
    "energy_basis",
    "g_co2e_per_1m_output_tokens",
    "grid_g_co2e_per_kwh",
    "grid_year",
    "grid_source",
)


def upper_bound_count(plotted: pd.DataFrame, percentile: str) -> int:
    """Plotted points whose FTL is a higher published percentile than the one asked for."""
    return int((plotted["ftl_basis"] != percentile).sum())


# -- the interactivity frontier ----------------------------------------------------------------
#: The target interactivity (output tok/s per user) a view starts at, and its bounds.
DEFAULT_TARGET = 20.0
TARGET_BOUNDS = (0.1, 10_000.0)


@dataclass(frozen=True)
class Frontier:
    """The Costs page's interactivity view: every priced point with a TPOT (``cost`` in the
    page's unit), the cost of each curve at the target, and how many options had no TPOT."""

    points: pd.DataFrame
    at_target: Table
    excluded: int
    curves: int
    known: int


def curve_label(frame: pd.DataFrame) -> pd.Series:
    """A curve's name: the configuration, then the quote it is priced on."""
    return (
        frame["accelerator_name"].astype(str)
        + " ×"
        + frame["accelerators_per_replica"].astype(str)
        + " · "
        + frame["runtime"].astype(str)
        + " · "
        + frame["model"].astype(str)
        + " "
        + frame["precision"].astype(str)
        + " · "
        + frame["workload"].astype(str)
        + " — "
        + _sku_labels(frame)
    )


def _sku_labels(frame: pd.DataFrame) -> pd.Series:
    """Each row's SKU in the one order of :func:`tokendesk.labels.sku_label`."""
    columns = ("provider", "region", "instance_type", "pricing_model")
    return pd.Series(
        [sku_label(*parts) for parts in zip(*(frame[c] for c in columns), strict=True)],
        index=frame.index,
        dtype=object,
    )


def interactivity_frontier(
    options: pd.DataFrame,
    percentile: str,
    target: float,
    unit: str = formatting.DEFAULT_TOKEN_UNIT,
) -> Frontier:
    """Output-token cost against tok/s per user (1000 / TPOT at ``percentile``) per configuration
    × quote, and each curve's cost at ``target`` tok/s per user, never extrapolated."""
    column = "usd_per_1k_output_tokens"
    found = interactivity.frontier_points(options, percentile, column)
    points = found.points.assign(
        cost=lambda frame: formatting.per_tokens(frame[column], unit),
        curve_label=curve_label,
    )
    at = interactivity.costs_at_target(points, target, column) if len(points) else pd.DataFrame()
    known = 0
    if len(at):
        at = at.assign(
            cost_at_target=formatting.per_tokens(at["cost_at_target"], unit),
            measured_range=[
                f"{lo:,.1f}–{hi:,.1f}" if lo != hi else f"{lo:,.1f}"
                for lo, hi in zip(
                    at["slowest_tok_s_per_user"], at["fastest_tok_s_per_user"], strict=True
                )
            ],
        ).sort_values(["cost_at_target", "curve"], na_position="last")
        known = int(at["cost_at_target"].notna().sum())
    return Frontier(
        points, _target_table(at, target, percentile, unit), found.excluded, len(at), known
    )


def _target_table(at: pd.DataFrame, target: float, percentile: str, unit: str) -> Table:
    labels = {
        "cost_at_target": formatting.cost_label(unit, "output") + f" at {target:g} tok/s/user",
        "how": "How",
        "accelerator_name": "Accelerator",
        "accelerators_per_replica": "Per replica",
        "runtime": "Runtime",
        "model": "Model",
        "precision": "Precision",
        "workload": "Workload",
        "provider": "Provider",
        "instance_type": "Instance",
        "region": "Region",
        "pricing_model": "Pricing model",
        "points": "Points",
        "measured_range": f"Measured tok/s/user (TPOT {percentile})",
        "price_source": "Price source",
        "price_observed_at": "Price date",
    }
    if at.empty:
        at = pd.DataFrame({column: pd.Series(dtype=object) for column in labels})
    return readable(
        at,
        labels,
        numbers={
            "cost_at_target": formatting.cost_format(unit),
            "accelerators_per_replica": "%d",
            "points": "%d",
        },
        dates=("price_observed_at",),
    )


def frontier_caption(frontier: Frontier, percentile: str, target: float) -> str:
    """What the frontier view shows and what it left out, in one paragraph."""
    text = (
        f"Interactivity = 1000 ÷ TPOT {percentile} (ms): output tokens per second each user "
        "receives. A curve is one configuration (accelerator × count × runtime × model × "
        "precision × workload) priced on one quote; filled markers are its frontier (nothing "
        "is both faster for a user and cheaper). The cost at a target is read linearly between "
        "the frontier points around it and is never extrapolated: "
        f"{frontier.known} of {frontier.curves} curves have measured points on both sides of "
        f"{target:g} tok/s/user (or at it)."
    )
    if frontier.excluded:
        text += (
            f" {frontier.excluded} options are left out: their results publish no time per "
            f"output token at {percentile} or above."
        )
    upper = int((frontier.points["tpot_basis"] != percentile).sum()) if len(frontier.points) else 0
    if upper:
        text += (
            f" {upper} points publish no TPOT {percentile}; they use the next higher published "
            "percentile (a lower bound of the interactivity at the chosen percentile)."
        )
    return text


#: Where an option's throughput comes from, as the Costs page's Basis column reads it.
MEASURED_BASIS = "measured"
ESTIMATED_NOTE = (
    "Estimated options: accelerators no measured result of the workspace's models covers at its"
    " SLO, priced at the calibrated performance model's throughput (the basis column gives the"
    " width of its 80% interval; the cost band follows it). Plans buy them only where the"
    " workspace allows estimated capacity."
)


def estimated_rows(options: Iterable[Option], filters: Mapping[str, Sequence[str]]) -> pd.DataFrame:
    """The engine's estimated options as the Costs table's rows: $/1K output tokens at the
    estimate, with the band from its interval, the FTL the estimate gives and a ``basis`` of
    "estimated ±x%"; only those that pass the page's filters (vendor, model, provider, ...)."""
    rows = []
    for o in options:
        if o.basis != "estimated" or not o.points:
            continue
        point = o.points[0]
        tok_s = point.unit_output_tok_s
        cost = usd_per_1k_tokens(o.usd_per_unit_hour, tok_s)
        rows.append(
            {
                "basis": o.ttft_basis,
                "cost": cost,
                "cost_low": cost / o.capacity_high,
                "cost_high": cost / o.capacity_low,
                "ftl_ms": point.ttft_ms_p99,
                "provider": o.provider,
                "instance_type": o.instance_type,
                "region": o.region,
                "pricing_model": o.pricing_model,
                "accelerator": o.accelerator_id,
                "accelerator_name": o.accelerator_name or o.accelerator_id,
                "vendor": o.vendor,
                "model": o.model,
                "precision": o.precision,
                "instance_output_tok_s": tok_s,
                "usd_per_hour": o.usd_per_unit_hour,
                "bench_source_title": o.bench_source_title,
            }
        )
    frame = pd.DataFrame(rows)
    for name, allowed in filters.items():
        if allowed and name in frame:
            frame = frame[frame[name].isin(allowed)]
    if frame.empty:
        return frame
    return frame.drop_duplicates().sort_values("cost").reset_index(drop=True)


def estimated_table(rows: pd.DataFrame, percentile: str, unit: str) -> Table:
    """The estimated options, cheapest first, the basis column first so they read apart."""
    shown = rows.assign(
        **{c: formatting.per_tokens(rows[c], unit) for c in ("cost", "cost_low", "cost_high")}
    )
    return readable(
        shown,
        {
            "basis": "Basis",
            "cost": formatting.cost_label(unit, COUNTED["output"]),
            "cost_low": "80% low",
            "cost_high": "80% high",
            "accelerator_name": "Accelerator",
            "model": "Model",
            "ftl_ms": f"FTL p99 estimate (ms, read for {percentile})",
            "provider": "Provider",
            "instance_type": "Instance",
            "region": "Region",
            "pricing_model": "Pricing model",
            "vendor": "Vendor",
            "precision": "Precision",
            "instance_output_tok_s": "Instance output tok/s",
            "usd_per_hour": "$/hour billed",
            "bench_source_title": "Estimate",
        },
        numbers={
            "cost": formatting.cost_format(unit),
            "cost_low": formatting.cost_format(unit),
            "cost_high": formatting.cost_format(unit),
            "ftl_ms": "%,.0f ms",
            "instance_output_tok_s": "%,.0f",
            "usd_per_hour": "$%.3f",
        },
    )
