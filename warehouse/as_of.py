"""The warehouse "as of date D": which price snapshots were current then, the prices and results
known then, and the cost join over them. Used by the futures-day review and by the gate's
reference prices.

Prices as of D mirror the current-price views with a cutoff: for each priced item (source x
region x zone x instance type x pricing model x basis x quote), its newest good observation seen
by D (an observation's time is capped at its snapshot's write time; an undated one counts from
its snapshot's date).
Results as of D are the good-snapshot results measured on or before D (results accumulate; a
result describes the day it was measured, so a later import of an older result still counts).
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import date, datetime
from typing import TYPE_CHECKING

import pandas as pd

from warehouse.queries import COST_FORMULAS, COST_JOIN_ON

if TYPE_CHECKING:
    from warehouse.store import Warehouse

#: The days asked for, each as its cutoff (parameter: a list of timestamps). Every query below
#: reads all of them at once: a query's cost here is mostly DuckDB planning it, not the rows, so a
#: review window's two dates, or every date a review may start on, cost about what one does.
_DAYS = "days AS (SELECT DISTINCT unnest(CAST(? AS TIMESTAMP[])) AS cut)"

#: Every good price observation with the item it prices and its time (capped at its write time).
_OBSERVATIONS = """
SELECT q.price_id, q.snapshot_id, s.source, q.region, q.quarantine_reason,
       concat_ws('|', q.region, coalesce(q.zone, ''), q.instance_type, q.pricing_model,
                 q.price_basis, coalesce(q.quote_id, '')) AS item,
       least(coalesce(q.observed_at, s.as_of), s.created_at) AS seen_at, s.created_at
FROM price_quotes q JOIN snapshots s USING (snapshot_id)
WHERE s.kind = 'prices' AND s.status = 'ok'
"""


def _latest_as_of(good_only: bool) -> str:
    """Per day (``cut``), the newest observation of each item seen by it, as the
    ``latest_price_ids`` / ``current_price_ids`` views define it with no cutoff. Reads ``days``."""
    quarantine = "AND o.quarantine_reason IS NULL" if good_only else ""
    return f"""
WITH obs AS ({_OBSERVATIONS}),
withdrawn AS (
    SELECT d.cut, o.price_id FROM obs o CROSS JOIN days d
    WHERE EXISTS (
        SELECT 1 FROM snapshots w
        WHERE w.kind = 'prices' AND w.status = 'ok' AND w.scope = '*'
          AND w.source = o.source AND w.snapshot_id <> o.snapshot_id
          AND least(w.as_of, w.created_at) > o.seen_at
          AND least(w.as_of, w.created_at) <= d.cut
          AND NOT EXISTS (SELECT 1 FROM obs l WHERE l.snapshot_id = w.snapshot_id AND l.item = o.item)
    )
),
ranked AS (
    SELECT d.cut, o.*, row_number() OVER (
               PARTITION BY d.cut, o.source, o.item
               ORDER BY o.seen_at DESC, o.created_at DESC, o.snapshot_id DESC, o.price_id DESC
           ) AS rank
    FROM obs o JOIN days d ON o.seen_at <= d.cut
    WHERE NOT EXISTS (SELECT 1 FROM withdrawn x WHERE x.cut = d.cut AND x.price_id = o.price_id)
      {quarantine}
)
SELECT cut, price_id, snapshot_id, source, region FROM ranked WHERE rank = 1
"""  # noqa: S608 - fixed text


_SNAPSHOTS_AS_OF = f"""
WITH {_DAYS}
SELECT DISTINCT l.cut, l.source AS provider, l.region, l.snapshot_id, s.as_of
FROM ({_latest_as_of(good_only=False)}) l JOIN snapshots s ON s.snapshot_id = l.snapshot_id
ORDER BY l.cut, provider, region, l.snapshot_id
"""  # noqa: S608 - fixed text

_PRICES = f"""
SELECT c.cut, q.price_id, q.snapshot_id, q.provider, q.region, q.zone, q.instance_type,
       q.accelerator_id, a.vendor, a.backend, q.accelerator_count, q.pricing_model, q.usd_per_hour,
       q.price_basis, q.usd_per_hour / greatest(q.accelerator_count, 1) AS usd_per_accelerator_hour,
       q.source, q.source_url, q.observed_at, q.confidence, s.as_of AS snapshot_as_of
FROM price_quotes q
JOIN ({_latest_as_of(good_only=True)}) c ON c.price_id = q.price_id
JOIN snapshots s ON s.snapshot_id = q.snapshot_id
JOIN accelerators a ON a.accelerator_id = q.accelerator_id
"""  # noqa: S608 - fixed text

_PRICES_AS_OF = f"""
WITH {_DAYS}
{_PRICES}
ORDER BY cut, provider, region, instance_type, pricing_model, price_id
"""

_RESULTS = """
SELECT d.cut, r.result_id, r.snapshot_id, r.config_key, r.accelerator_id, a.vendor, a.backend,
       r.accelerators_per_replica, r.runtime, r.runtime_version, r.model, r.precision, r.workload,
       r.scenario, r.concurrency, r.output_tok_s, r.total_tok_s, r.ttft_ms_p50, r.ttft_ms_p95, r.ttft_ms_p99,
       r.measured_at, r.source_tool, r.source_title, r.source_url, r.confidence
FROM benchmark_results r
JOIN snapshots s USING (snapshot_id)
JOIN accelerators a ON a.accelerator_id = r.accelerator_id
JOIN days d ON r.measured_at <= d.cut
WHERE s.status = 'ok'
  -- a retracted import was wrong: it counts on no date, past or present
  AND r.snapshot_id NOT IN (SELECT snapshot_id FROM retractions)
"""

_RESULTS_AS_OF = f"""
WITH {_DAYS}
{_RESULTS}
ORDER BY cut, accelerator_id, model, measured_at, result_id
"""

#: The cost join of ``queries.py`` over prices and results as of each day (same formulas).
_COSTS_AS_OF = f"""
WITH {_DAYS}, p AS ({_PRICES}), r AS ({_RESULTS})
SELECT p.cut, p.provider, p.region, p.instance_type, p.pricing_model, p.price_basis,
       p.accelerator_id, p.vendor, p.backend,
       p.source AS price_source, p.observed_at AS price_observed_at, p.snapshot_id AS price_snapshot_id,
       p.confidence AS price_confidence,
       r.result_id, r.config_key, r.model, r.precision, r.runtime, r.runtime_version, r.scenario,
       r.concurrency, r.ttft_ms_p95, r.ttft_ms_p99,
       r.measured_at AS bench_measured_at, r.source_title AS bench_source_title,
       r.snapshot_id AS bench_snapshot_id, r.confidence AS bench_confidence,{COST_FORMULAS}
FROM p JOIN r ON p.cut = r.cut AND {COST_JOIN_ON}
ORDER BY p.cut, usd_per_1k_output_tokens, p.price_id, r.result_id
"""  # noqa: S608 - fixed text

Day = date | datetime | str


def _cutoff(as_of: Day) -> datetime:
    """A date means the whole day: everything observed up to 23:59:59.999999 counts."""
    moment: date = pd.Timestamp(as_of).to_pydatetime() if isinstance(as_of, str) else as_of
    if isinstance(moment, datetime):
        utc = moment
        if utc.tzinfo is not None:
            utc = pd.Timestamp(utc).tz_convert("UTC").tz_localize(None).to_pydatetime()
        if (utc.hour, utc.minute, utc.second, utc.microsecond) != (0, 0, 0, 0):
            return utc
        moment = utc.date()
    return datetime(moment.year, moment.month, moment.day, 23, 59, 59, 999999)


def _by_day(warehouse: Warehouse, sql: str, days: Sequence[Day]) -> list[pd.DataFrame]:
    """``sql`` over every day at once, split into one frame per day (in the order given), each
    as a query for that day alone would return it."""
    cuts = [_cutoff(day) for day in days]
    frame = warehouse.query(sql, [cuts])
    cut = frame.pop("cut")
    return [frame[(cut == moment).to_numpy()].reset_index(drop=True) for moment in cuts]


def price_snapshots_as_of_days(warehouse: Warehouse, days: Sequence[Day]) -> list[pd.DataFrame]:
    """Per day: (provider, region, snapshot_id, as_of) of each price snapshot current on it."""
    return _by_day(warehouse, _SNAPSHOTS_AS_OF, days)


def prices_as_of_days(warehouse: Warehouse, days: Sequence[Day]) -> list[pd.DataFrame]:
    return _by_day(warehouse, _PRICES_AS_OF, days)


def results_as_of_days(warehouse: Warehouse, days: Sequence[Day]) -> list[pd.DataFrame]:
    return _by_day(warehouse, _RESULTS_AS_OF, days)


def costs_as_of_days(warehouse: Warehouse, days: Sequence[Day]) -> list[pd.DataFrame]:
    return _by_day(warehouse, _COSTS_AS_OF, days)


def price_snapshots_as_of(warehouse: Warehouse, as_of: Day) -> pd.DataFrame:
    """(provider, region, snapshot_id, as_of) of the price snapshot current on ``as_of``."""
    return price_snapshots_as_of_days(warehouse, [as_of])[0]


def prices_as_of(warehouse: Warehouse, as_of: Day) -> pd.DataFrame:
    return prices_as_of_days(warehouse, [as_of])[0]


def results_as_of(warehouse: Warehouse, as_of: Day) -> pd.DataFrame:
    return results_as_of_days(warehouse, [as_of])[0]


def costs_as_of(warehouse: Warehouse, as_of: Day) -> pd.DataFrame:
    return costs_as_of_days(warehouse, [as_of])[0]


def accelerator_hour_prices(
    warehouse: Warehouse, as_of: date | datetime | str | None = None
) -> pd.DataFrame:
    """Per accelerator: the median on-demand $/accelerator-hour over the quotes current on
    ``as_of`` (today when None), with how many quotes it rests on and their newest date."""
    prices = prices_as_of(warehouse, as_of or datetime.now())
    prices = prices[prices["pricing_model"] == "on_demand"]
    if prices.empty:
        return pd.DataFrame(
            columns=["accelerator_id", "usd_per_accelerator_hour", "quotes", "newest_observed_at"]
        )
    grouped = prices.groupby("accelerator_id")
    return pd.DataFrame(
        {
            "usd_per_accelerator_hour": grouped["usd_per_accelerator_hour"].median(),
            "quotes": grouped.size(),
            "newest_observed_at": grouped["observed_at"].max(),
        }
    ).reset_index()


def snapshot_days(warehouse: Warehouse) -> list[date]:
    """Every day a good snapshot describes, newest first: the dates a review can start from."""
    days = warehouse.query(
        "SELECT DISTINCT CAST(as_of AS DATE) AS day FROM snapshots WHERE status = 'ok'"
        " ORDER BY day DESC"
    )
    return [pd.Timestamp(day).date() for day in days["day"]]


def snapshot_results(warehouse: Warehouse, snapshot_id: str) -> pd.DataFrame:
    """Every benchmark result of one snapshot (the gate compares two such sets)."""
    return warehouse.query(
        "SELECT r.* FROM benchmark_results r JOIN snapshots s USING (snapshot_id)"
        " WHERE r.snapshot_id = ? AND s.kind = 'benchmarks' ORDER BY r.result_id",
        [snapshot_id],
    )
