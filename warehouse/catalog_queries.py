"""Named queries the dashboard's browsing pages read: each cost filter's values, snapshot
freshness, the price explorer, price and benchmark histories, integrity, and the instance
catalog. Like ``warehouse.queries`` (the cost join), all SQL text is fixed here; user input only
ever arrives as bound parameters.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import pandas as pd

from tokendesk.records import PricingModel
from warehouse.cost_frame import as_list

if TYPE_CHECKING:
    from warehouse.store import Warehouse

#: Each cost filter's column, per view: one scan of each view gives every filter's values
#: (grouping sets: a row per distinct value of one column, the others empty).
FILTER_COLUMNS_SQL = (
    """
    SELECT p.accelerator_id AS accelerator, a.vendor, p.provider, p.region, p.pricing_model
    FROM current_prices p LEFT JOIN accelerators a USING (accelerator_id)
    GROUP BY GROUPING SETS ((accelerator), (vendor), (provider), (region), (pricing_model))
    """,
    """
    SELECT model, precision, workload, scenario
    FROM current_results
    GROUP BY GROUPING SETS ((model), (precision), (workload), (scenario))
    """,
)


def distinct_values(warehouse: Warehouse) -> dict[str, list[str]]:
    """Values each cost filter can take in the current data (for filter widgets)."""
    out: dict[str, list[str]] = {}
    for sql in FILTER_COLUMNS_SQL:
        frame = warehouse.query(sql)
        for name in frame.columns:
            out[name] = sorted(str(v) for v in frame[name].dropna().unique())
    return out


#: Whether a snapshot's data carries a date: some row of it is dated (a snapshot of undated rows
#: is stamped with its write time, which must never read as "fresh"). An empty snapshot (a failed
#: attempt) has no rows to date; its as_of is the attempt. ``s`` is the snapshots table.
SNAPSHOT_DATE_KNOWN_SQL = """
    (s.row_count = 0
     OR (s.kind = 'prices' AND EXISTS (SELECT 1 FROM price_quotes q
                                       WHERE q.snapshot_id = s.snapshot_id
                                         AND q.observed_at IS NOT NULL))
     OR (s.kind <> 'prices' AND EXISTS (SELECT 1 FROM benchmark_results r
                                        WHERE r.snapshot_id = s.snapshot_id
                                          AND r.measured_at IS NOT NULL)))
"""


def freshness(warehouse: Warehouse) -> pd.DataFrame:
    """Per source: the newest good snapshot's data date, its age in days and the last failure.

    ``date_known`` is False when the newest good snapshot's rows carry no date: its data date and
    age are then missing ("date unknown"), never the day it was written."""
    return warehouse.query(
        f"""
        WITH dated AS (
            SELECT s.*, {SNAPSHOT_DATE_KNOWN_SQL} AS date_known FROM snapshots s
        ),
        per_source AS (
            SELECT kind, source,
                   -- The newest data date among good snapshots whose rows carry one: an
                   -- undated snapshot is stamped with its write time, which is no data date.
                   max(as_of) FILTER (WHERE status = 'ok' AND date_known)    AS newest_as_of,
                   bool_or(date_known) FILTER (WHERE status = 'ok')          AS date_known,
                   count(*) FILTER (WHERE status = 'ok')                     AS good_snapshots,
                   max(created_at)                                           AS last_attempt,
                   arg_max(status, created_at)                               AS last_status,
                   arg_max(error, created_at)                                AS last_error
            FROM dated
            GROUP BY kind, source
        )
        SELECT kind, source,
               CASE WHEN date_known THEN newest_as_of END                    AS data_as_of,
               CASE WHEN date_known
                    THEN date_diff('day', newest_as_of, current_timestamp::TIMESTAMP)
               END                                                           AS age_days,
               coalesce(date_known, FALSE)                                   AS date_known,
               good_snapshots > 0                                            AS has_good_snapshot,
               last_attempt, last_status, last_error
        FROM per_source
        ORDER BY kind, source
        """  # noqa: S608  (a constant expression, no input)
    )


#: Filters the price explorer accepts: name -> column (p = price quotes, a = accelerators).
PRICE_FILTERS = {
    "provider": "p.provider",
    "region": "p.region",
    "accelerator": "p.accelerator_id",
    "pricing_model": "p.pricing_model",
    "vendor": "a.vendor",
    "instance_type": "p.instance_type",
}

#: The Prices page's quotes: every quote of the current price snapshots, and the quarantined
#: quotes of the latest ones (what integrity kept out, shown so a person can see it). A quote
#: of the first kind is current; ``p.quarantine_reason IS NULL`` tells them apart.
_EXPLORER_ROWS = """
        FROM price_quotes p
        JOIN snapshots s ON s.snapshot_id = p.snapshot_id
        LEFT JOIN accelerators a ON a.accelerator_id = p.accelerator_id
        WHERE (p.price_id IN (SELECT price_id FROM current_price_ids)
               OR (p.quarantine_reason IS NOT NULL
                   AND p.price_id IN (SELECT price_id FROM latest_price_ids)))
"""
#: The current quotes alone (what ``current_prices`` holds), for reads that leave quarantined
#: quotes out: one semi-join, about half the work of ``_EXPLORER_ROWS``' two.
_CURRENT_ROWS = """
        FROM price_quotes p
        JOIN snapshots s ON s.snapshot_id = p.snapshot_id
        LEFT JOIN accelerators a ON a.accelerator_id = p.accelerator_id
        WHERE p.price_id IN (SELECT price_id FROM current_price_ids)
          AND p.quarantine_reason IS NULL
"""
_EXPLORER_ORDER = (
    "p.provider, p.region, p.instance_type, p.pricing_model, p.zone NULLS FIRST, p.price_id"
)
#: A quote the page labels other than "current" (``app.models.prices.status``): quarantined,
#: expired, or flagged for review.
_FLAGGED = """(coalesce(p.quarantine_reason, '') <> ''
               OR coalesce(p.expires_on < current_date, false)
               OR coalesce(p.review_flag, '') <> '')"""


def _explorer_filters(filters: dict[str, object]) -> tuple[str, list[object]]:
    """`` AND ...`` conditions for the explorer's filters, and their bound values."""
    where: list[str] = []
    params: list[object] = []
    for name, value in filters.items():
        if name not in PRICE_FILTERS:
            raise ValueError(
                f"unknown price filter {name!r}; known: {', '.join(sorted(PRICE_FILTERS))}"
            )
        if value is None or value == [] or value == ():
            continue
        values = as_list(value)
        where.append(f"{PRICE_FILTERS[name]} IN ({', '.join('?' for _ in values)})")
        params.extend(values)
    return "".join(f" AND {condition}" for condition in where), params


def price_explorer(
    warehouse: Warehouse,
    *,
    limit: int | None = None,
    current_only: bool = False,
    order_by_accelerator_hour: bool = False,
    **filters: object,
) -> pd.DataFrame:
    """The quotes of the current price snapshots, with source, date and flags, in the explorer's
    order (provider, region, instance type, pricing model, zone), at most ``limit`` of them.

    Quarantined quotes of those snapshots are included (``quarantine_reason`` set) so a person
    can see what integrity kept out; they are never part of ``current_prices`` and
    ``current_only`` leaves them out. ``order_by_accelerator_hour`` puts the cheapest
    $/accelerator-hour first (quotes without an accelerator count left out).
    """
    conditions, params = _explorer_filters(filters)
    rows = _CURRENT_ROWS if current_only else _EXPLORER_ROWS
    order = _EXPLORER_ORDER
    if order_by_accelerator_hour:
        conditions += " AND p.accelerator_count > 0"
        order = f"usd_per_accelerator_hour, {order}"
    sql = f"""
        SELECT p.price_id, p.provider, p.region, p.zone, p.instance_type, p.accelerator_id,
               a.name AS accelerator_name, a.vendor, p.accelerator_count, p.vcpus, p.memory_gib,
               p.pricing_model, p.price_basis, p.usd_per_hour,
               p.usd_per_hour / nullif(p.accelerator_count, 0)            AS usd_per_accelerator_hour,
               p.source, p.source_url, p.observed_at, p.confidence, p.notes, p.quote_id, p.expires_on,
               coalesce(p.expires_on < current_date, false)               AS quote_expired,
               p.quarantine_reason, p.review_flag, p.snapshot_id, s.as_of AS snapshot_as_of
        {rows}{conditions}
        ORDER BY {order}
    """
    if limit is not None:
        sql += " LIMIT ?"
        params.append(int(limit))
    return warehouse.query(sql, params)


def price_explorer_summary(warehouse: Warehouse, **filters: object) -> dict[str, Any]:
    """The explorer's figures over every quote it matches, read by aggregates (no quote is
    loaded): ``quotes`` (quarantined included), ``current``, ``providers`` and ``regions`` (of the
    current quotes), ``flagged`` (quarantined, expired or flagged for review) and ``newest``:
    the current quote with the newest price date (the first in the explorer's order where dates
    tie; provider, instance type, pricing model, source, observed_at), None when none is dated."""
    conditions, params = _explorer_filters(filters)
    row = (
        warehouse.cursor()
        .execute(
            f"""
        SELECT count(*),
               count(*) FILTER (WHERE p.quarantine_reason IS NULL),
               count(DISTINCT p.provider) FILTER (WHERE p.quarantine_reason IS NULL),
               count(DISTINCT p.region) FILTER (WHERE p.quarantine_reason IS NULL),
               count(*) FILTER (WHERE {_FLAGGED})
        {_EXPLORER_ROWS}{conditions}
        """,
            params,
        )
        .fetchone()
    )
    quotes, current, providers, regions, flagged = (int(v) for v in row) if row else (0,) * 5
    newest = warehouse.query(
        f"""
        SELECT p.provider, p.instance_type, p.pricing_model, p.source, p.observed_at
        {_CURRENT_ROWS}{conditions} AND p.observed_at IS NOT NULL
        ORDER BY p.observed_at DESC, {_EXPLORER_ORDER}
        LIMIT 1
        """,
        params,
    )
    return {
        "quotes": quotes,
        "current": current,
        "providers": providers,
        "regions": regions,
        "flagged": flagged,
        "newest": None if newest.empty else newest.iloc[0].to_dict(),
    }


def current_price_values(warehouse: Warehouse, **filters: object) -> dict[str, list[str]]:
    """The values each explorer filter (and the Prices tabs' pickers) can take among the
    current quotes matching ``filters``: one ``SELECT DISTINCT`` per column, sorted."""
    conditions, params = _explorer_filters(filters)
    lists = ", ".join(f"list(DISTINCT {column})" for column in PRICE_FILTERS.values())
    row = (
        warehouse.cursor().execute(f"SELECT {lists} {_CURRENT_ROWS}{conditions}", params).fetchone()
    )
    found = row if row else [[] for _ in PRICE_FILTERS]
    return {
        name: sorted(str(v) for v in values or [] if v is not None)
        for name, values in zip(PRICE_FILTERS, found, strict=True)
    }


def price_sku_spread(warehouse: Warehouse, **filters: object) -> pd.DataFrame:
    """Per SKU (instance type, pricing model) among the current quotes: in how many regions it
    is sold (``regions``). What the Prices page's by-region tab picks from."""
    conditions, params = _explorer_filters(filters)
    return warehouse.query(
        f"""
        SELECT p.instance_type, p.pricing_model, count(DISTINCT p.region) AS regions
        {_CURRENT_ROWS}{conditions}
        GROUP BY p.instance_type, p.pricing_model
        ORDER BY p.instance_type, p.pricing_model
        """,
        params,
    )


def accelerator_hour_offer(warehouse: Warehouse, **filters: object) -> pd.DataFrame:
    """Each accelerator (id and name) and pricing model among the current quotes with a known
    accelerator count: what the Prices page's $/accelerator-hour tab picks from."""
    conditions, params = _explorer_filters(filters)
    return warehouse.query(
        f"""
        SELECT DISTINCT p.accelerator_id, a.name AS accelerator_name, p.pricing_model
        {_CURRENT_ROWS}{conditions} AND p.accelerator_count > 0
        ORDER BY p.accelerator_id, p.pricing_model
        """,
        params,
    )


def price_skus(warehouse: Warehouse) -> pd.DataFrame:
    """Every SKU (provider, region, instance type, pricing model) priced in any snapshot."""
    return warehouse.query(
        """
        SELECT provider, region, instance_type, pricing_model,
               count(*) AS quotes, min(observed_at) AS first_observed, max(observed_at) AS last_observed
        FROM price_quotes
        GROUP BY ALL
        ORDER BY instance_type, pricing_model, provider, region
        """
    )


def price_history(
    warehouse: Warehouse, provider: str, region: str, instance_type: str, pricing_model: str
) -> pd.DataFrame:
    """One SKU's quotes across ALL snapshots (historical, current, partial, quarantined)."""
    return warehouse.query(
        """
        SELECT p.price_id, p.observed_at, p.usd_per_hour, p.price_basis, p.accelerator_count, p.zone,
               p.source, p.source_url, p.confidence, p.quarantine_reason, p.review_flag, p.expires_on,
               p.snapshot_id, s.status AS snapshot_status, s.origin AS snapshot_origin,
               s.created_at AS snapshot_created_at, s.as_of AS snapshot_as_of, s.notes AS snapshot_notes,
               coalesce(w.created_by, '') AS snapshot_created_by,
               (p.price_id IN (SELECT price_id FROM current_price_ids)) AS is_current
        FROM price_quotes p
        JOIN snapshots s ON s.snapshot_id = p.snapshot_id
        LEFT JOIN snapshot_authors w ON w.snapshot_id = p.snapshot_id
        WHERE p.provider = ? AND p.region = ? AND p.instance_type = ? AND p.pricing_model = ?
        -- An undated row counts from its snapshot's date (as current_price_ids ranks it), so
        -- when dates tie the older write comes first.
        ORDER BY s.as_of, coalesce(p.observed_at, s.as_of), s.created_at, p.price_id
        """,
        [provider, region, instance_type, pricing_model],
    )


def current_integrity(warehouse: Warehouse) -> pd.DataFrame:
    """The integrity reports stored with the snapshots that are current now."""
    return warehouse.query(
        """
        SELECT s.source, i.snapshot_id, s.as_of, s.created_at, i.rule, i.checked, i.failed, i.detail
        FROM integrity_checks i
        JOIN snapshots s ON s.snapshot_id = i.snapshot_id
        WHERE i.snapshot_id IN (SELECT snapshot_id FROM current_price_snapshots)
        ORDER BY s.source, s.created_at, i.snapshot_id, i.rule
        """
    )


def held_prices(warehouse: Warehouse, snapshot_ids: list[str], rule: str) -> pd.DataFrame:
    """Of ``snapshot_ids``, those holding prices for confirmation (the integrity ``rule`` that
    holds them failed): snapshot id, rows held and the report's examples."""
    return warehouse.query(
        "SELECT snapshot_id, failed, detail FROM integrity_checks"
        " WHERE rule = ? AND failed > 0 AND list_contains(?, snapshot_id) ORDER BY snapshot_id",
        [rule, list(snapshot_ids)],
    )


def current_price_sources(warehouse: Warehouse) -> pd.DataFrame:
    """Per price source: the snapshot(s) current now, their data date and how many regions each serves."""
    return warehouse.query(
        """
        SELECT s.source, c.snapshot_id, s.origin, s.as_of, s.created_at,
               coalesce(w.created_by, '') AS created_by, count(DISTINCT c.region) AS regions
        FROM current_price_snapshots c
        JOIN snapshots s ON s.snapshot_id = c.snapshot_id
        LEFT JOIN snapshot_authors w ON w.snapshot_id = c.snapshot_id
        GROUP BY ALL
        ORDER BY s.source, s.as_of DESC, c.snapshot_id
        """
    )


def benchmark_snapshot_history(warehouse: Warehouse) -> pd.DataFrame:
    """Every benchmark snapshot, newest first, with who wrote it and its retraction (reason, who,
    when) if any."""
    return warehouse.query(
        """
        SELECT s.snapshot_id, s.created_at, coalesce(w.created_by, '') AS created_by, s.as_of,
               s.source, s.origin, s.status, s.row_count, s.error, s.notes,
               x.reason AS retraction_reason, x.retracted_by, x.retracted_at
        FROM snapshots s
        LEFT JOIN snapshot_authors w USING (snapshot_id)
        LEFT JOIN retractions x USING (snapshot_id)
        WHERE s.kind = 'benchmarks'
        ORDER BY s.created_at DESC, s.snapshot_id DESC
        """
    )


def current_benchmark_results(warehouse: Warehouse) -> pd.DataFrame:
    """Every current benchmark result with its accelerator, provenance and parity."""
    return warehouse.query(
        """
        SELECT r.result_id, r.config_key, r.accelerator_id, a.name AS accelerator_name, a.vendor,
               a.backend, r.accelerators_per_replica, r.instance_type, r.system, r.runtime,
               r.runtime_version, r.model, r.precision, r.workload, r.input_tokens, r.output_tokens,
               r.scenario, r.concurrency, r.request_rate_rps, r.output_tok_s, r.total_tok_s,
               r.output_tok_s / r.accelerators_per_replica AS output_tok_s_per_accelerator,
               r.ttft_ms_p50, r.ttft_ms_p90, r.ttft_ms_p95, r.ttft_ms_p99, r.ttft_basis,
               r.tpot_ms_p50, r.tpot_ms_p95, r.tpot_ms_p99, r.e2el_ms_p50, r.e2el_ms_p95,
               r.peak_memory_gib, r.measured_power_w, r.requests_ok, r.requests_failed,
               r.parity_exact_match, r.parity_similarity, r.measured_at, r.source_tool,
               r.source_file, r.source_title, r.source_url, r.confidence, r.snapshot_id
        FROM current_results r
        LEFT JOIN accelerators a ON a.accelerator_id = r.accelerator_id
        ORDER BY a.vendor, r.accelerator_id, r.config_key, r.concurrency NULLS FIRST,
                 r.request_rate_rps NULLS FIRST, r.output_tok_s
        """
    )


def negotiated_snapshots(warehouse: Warehouse) -> pd.DataFrame:
    """Price snapshots that hold negotiated quotes and nothing else (snapshot_id, source): a
    confidential source whose very name is hidden from those who may not see the quotes."""
    return warehouse.query(
        """
        SELECT s.snapshot_id, s.source
        FROM snapshots s JOIN price_quotes q USING (snapshot_id)
        GROUP BY ALL
        HAVING bool_and(q.pricing_model = ?)
        ORDER BY s.snapshot_id
        """,
        [PricingModel.NEGOTIATED.value],
    )


def instance_shapes(warehouse: Warehouse) -> pd.DataFrame:
    """Every (provider, instance type) any snapshot priced, with its accelerator and count: what
    a bill's instance types are looked up in."""
    return warehouse.query(
        """
        SELECT provider, instance_type, any_value(accelerator_id) AS accelerator_id,
               max(accelerator_count) AS accelerator_count
        FROM price_quotes
        GROUP BY provider, instance_type
        ORDER BY provider, instance_type
        """
    )


def instance_catalog(warehouse: Warehouse) -> pd.DataFrame:
    """Every instance type the current prices list, one row per provider, region and instance
    type: its accelerator (id and name), accelerators per instance, the cheapest current
    on-demand list price per instance-hour (NULL when it is sold only otherwise, e.g. reserved)
    and that price's date (NULL when the source states none) and source. What the Workspace
    page's instance search offers."""
    return warehouse.query(
        """
        WITH skus AS (
            SELECT provider, region, instance_type,
                   any_value(accelerator_id) AS accelerator_id,
                   max(accelerator_count)    AS accelerator_count
            FROM current_prices
            -- a list of what anyone may buy: a negotiated quote is one company's contract
            WHERE pricing_model <> ?
            GROUP BY provider, region, instance_type
        ),
        on_demand AS (
            SELECT provider, region, instance_type,
                   arg_min(usd_per_hour, usd_per_hour) AS usd_per_hour,
                   arg_min(observed_at, usd_per_hour)  AS observed_at,
                   arg_min(source, usd_per_hour)       AS source
            FROM current_prices
            WHERE pricing_model = ? AND price_basis = 'instance'
            GROUP BY provider, region, instance_type
        )
        SELECT s.provider, s.region, s.instance_type, s.accelerator_id,
               coalesce(a.name, s.accelerator_id) AS accelerator_name, s.accelerator_count,
               o.usd_per_hour AS on_demand_usd_per_hour, o.observed_at, o.source
        FROM skus s
        LEFT JOIN on_demand o USING (provider, region, instance_type)
        LEFT JOIN accelerators a ON a.accelerator_id = s.accelerator_id
        ORDER BY s.provider, s.region, s.instance_type
        """,
        [PricingModel.NEGOTIATED.value, PricingModel.ON_DEMAND.value],
    )
