"""The evidence behind a brief's fleet lines: every price quote and benchmark result a line rests on,
with its source, its true date ("date unknown" when the source states none), its confidence and
the snapshot it came in, read from the warehouse's cost-options rows.

Every brief lists it the same way (``briefs.workspace_plans``). A fleet line names its option by id
(``provider:region[/zone]:instance_type:pricing_model:config_key``, see ``costmodel.option_table``);
the rows of that SKU and configuration are the quotes it was priced from and the operating
points it was sized on.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import pandas as pd

from benchmarks.plausibility import roofline_pct
from briefs.document import Table, table
from tokendesk import formatting
from tokendesk.catalog import load_catalog

#: The columns that identify a fleet line's SKU and configuration among the cost-options rows.
LINE_KEY = ["provider", "region", "zone", "instance_type", "config_key"]
#: The columns that name a SKU's quotes, whatever configuration a row joins them to.
QUOTE_KEY = ["provider", "region", "zone", "instance_type"]

PRICE_SOURCE_COLUMNS = [
    "provider",
    "region",
    "instance_type",
    "pricing_model",
    "accelerator_id",
    # The price as the source quotes it, with its basis: a per-accelerator quote is listed per
    # accelerator everywhere (what a replica is billed is in the fleet lines).
    "quote_usd_per_hour",
    "price_basis",
    "price_confidence",
    "price_source",
    "price_source_url",
    "price_observed_at",
    "price_snapshot_id",
]
BENCH_SOURCE_COLUMNS = [
    "accelerator_id",
    "model",
    "precision",
    "runtime",
    "runtime_version",
    "scenario",
    "bench_source_title",
    "bench_source_url",
    "bench_measured_at",
    "bench_confidence",
    "roofline_pct",
    "bench_snapshot_id",
]
PRICE_HEADERS = {
    "instance_type": "instance",
    "pricing_model": "pricing",
    "accelerator_id": "accelerator",
    "quote_usd_per_hour": "$/h as quoted",
    "price_basis": "basis",
    "price_confidence": "confidence",
    "price_source": "source",
    "price_source_url": "source URL",
    "price_observed_at": "observed",
    "price_snapshot_id": "snapshot",
}
BENCH_HEADERS = {
    "accelerator_id": "accelerator",
    "runtime_version": "version",
    "bench_source_title": "source",
    "bench_source_url": "source URL",
    "bench_measured_at": "measured",
    "bench_confidence": "confidence",
    "roofline_pct": "% of roofline",
    "bench_snapshot_id": "snapshot",
}
SNAPSHOT_COLUMNS = [
    "snapshot_id",
    "kind",
    "source",
    "origin",
    "as_of",
    "created_at",
    "status",
    "notes",
]


def day(value: object) -> str:
    """A source's date as YYYY-MM-DD, or "date unknown" (never a made-up date)."""
    return formatting.day(None if value is pd.NaT else value)


def plain_frame(frame: pd.DataFrame) -> pd.DataFrame:
    """``frame`` with categorical columns as plain objects (so they merge and print as text)."""
    out = frame.copy()
    for column in out.columns:
        if isinstance(out[column].dtype, pd.CategoricalDtype):
            out[column] = out[column].astype(object)
    return out


def option_key(option_id: str, instance_type: str) -> dict[str, str]:
    """The cost-options columns a fleet line's option id names. The instance type comes from the
    line itself; provider, region, zone and configuration never contain the id's ':'."""
    provider, region_zone, _ = option_id.split(":", 2)
    region, _, zone = region_zone.partition("/")
    return {
        "provider": provider,
        "region": region,
        "zone": zone,
        "instance_type": instance_type,
        "config_key": option_id.rsplit(":", 1)[1],
    }


def rows_behind(
    options: pd.DataFrame | None,
    lines: Sequence[Mapping[str, object]],
    on: Sequence[str] | None = None,
) -> pd.DataFrame:
    """The cost-options rows of each line's SKU and configuration, one row per (line, quote,
    operating point); ``lines`` hold the :data:`LINE_KEY` columns plus any labels to carry.
    ``on`` (default :data:`LINE_KEY`) is what a row must match: :data:`QUOTE_KEY` finds a SKU's
    quotes whatever configuration they were joined to (an estimated line's)."""
    if options is None or options.empty or not lines:
        return pd.DataFrame()
    frame = plain_frame(options)
    frame["zone"] = frame["zone"].fillna("") if "zone" in frame else ""
    keys = list(LINE_KEY if on is None else on)
    wanted = pd.DataFrame(list(lines)).drop(columns=[c for c in LINE_KEY if c not in keys])
    return wanted.merge(frame, on=keys, how="inner" if on is not None else "left")


def price_rows(rows: pd.DataFrame) -> pd.DataFrame:
    """One row per price quote among ``rows``, with its source, date, confidence and snapshot."""
    if rows.empty:
        return pd.DataFrame(columns=PRICE_SOURCE_COLUMNS)
    return (
        rows.reindex(columns=PRICE_SOURCE_COLUMNS)
        .drop_duplicates()
        .sort_values(["provider", "region", "instance_type", "pricing_model"])
        .reset_index(drop=True)
    )


def bench_rows(rows: pd.DataFrame) -> pd.DataFrame:
    """One row per benchmark result among ``rows``, with how close it sits to the physical
    bound of its accelerator ("% of roofline") and its source, date, confidence and snapshot."""
    if rows.empty:
        return pd.DataFrame(columns=BENCH_SOURCE_COLUMNS)
    rows = rows.copy()
    rows["roofline_pct"] = [
        None if pct is None else round(pct, 1)
        for pct in roofline_pct(rows.to_dict("records"), load_catalog())
    ]
    return (
        rows.reindex(columns=BENCH_SOURCE_COLUMNS)
        .drop_duplicates()
        .sort_values(["accelerator_id", "model", "bench_measured_at"])
        .reset_index(drop=True)
    )


def snapshot_ids(prices: pd.DataFrame, benches: pd.DataFrame) -> list[str]:
    """Every snapshot the listed prices and results came in (to rebuild the brief from)."""
    found = set(prices.get("price_snapshot_id", pd.Series(dtype=object)).dropna())
    found |= set(benches.get("bench_snapshot_id", pd.Series(dtype=object)).dropna())
    return sorted(str(s) for s in found)


def source_tables(
    prices: pd.DataFrame,
    benches: pd.DataFrame,
    snapshots: pd.DataFrame | None,
    price_note: str = "Every quote of each SKU the fleets use; the sizing picks among their "
    "pricing models.",
) -> tuple[Table, Table, Table]:
    """The Sources section: the prices used, the results used and the snapshots they came in."""
    price_table = table(
        "Prices used (source, date, snapshot)",
        prices.rename(columns=PRICE_HEADERS),
        formats={"$/h as quoted": lambda v: formatting.usd(v, 3), "observed": day},
        sheet="Price sources",
        note=price_note,
        gaps={"observed": formatting.DATE_UNKNOWN},
    )
    bench_table = table(
        "Benchmarks used (source, date, snapshot)",
        benches.rename(columns=BENCH_HEADERS),
        formats={"measured": day, "% of roofline": lambda v: f"{v:.1f}%"},
        sheet="Benchmark sources",
        gaps={"measured": formatting.DATE_UNKNOWN},
        note="% of roofline: '—' where the accelerator has no published bandwidth bound "
        "(CPU servers).",
    )
    return price_table, bench_table, snapshot_table(snapshot_ids(prices, benches), snapshots)


def snapshot_table(ids: list[str], snapshots: pd.DataFrame | None) -> Table:
    """The snapshots by id, with what each holds and when it was taken, where they are known."""
    frame = pd.DataFrame({"snapshot_id": ids})
    if snapshots is not None and not snapshots.empty and ids:
        known = plain_frame(snapshots)
        frame = frame.merge(
            known[[c for c in SNAPSHOT_COLUMNS if c in known]], on="snapshot_id", how="left"
        )
    return table(
        "Snapshots to reproduce this brief",
        frame,
        formats={
            "as_of": day,
            "created_at": lambda v: (
                "—" if v is None or v is pd.NaT else f"{pd.Timestamp(v):%Y-%m-%d %H:%M}"
            ),
        },
        sheet="Snapshots",
        note="Prices and results are append-only snapshots: rebuild this brief from these ids.",
    )
