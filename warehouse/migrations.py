"""Versioned schema migrations. Each migration runs once, in its own transaction, and is recorded
in ``schema_migrations``; a warehouse built by an older tokendesk is brought forward on open.

Append new migrations at the end; never edit one that has shipped.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import duckdb


@dataclass(frozen=True)
class Migration:
    version: int
    name: str
    sql: str


MIGRATIONS: tuple[Migration, ...] = (
    Migration(
        1,
        "snapshots, catalog, prices, results",
        """
        CREATE TABLE snapshots (
            snapshot_id VARCHAR PRIMARY KEY,
            kind        VARCHAR NOT NULL,          -- prices | benchmarks
            source      VARCHAR NOT NULL,          -- provider name, importer, harness
            origin      VARCHAR NOT NULL,          -- seed | api | bulk | sheet | import | harness
            scope       VARCHAR NOT NULL,          -- '*' or a comma list of regions covered
            created_at  TIMESTAMP NOT NULL,
            as_of       TIMESTAMP NOT NULL,        -- the date the data describes
            status      VARCHAR NOT NULL,          -- ok | partial | failed
            error       VARCHAR NOT NULL DEFAULT '',
            row_count   INTEGER NOT NULL,
            notes       VARCHAR NOT NULL DEFAULT ''
        );
        CREATE TABLE accelerators (
            accelerator_id          VARCHAR PRIMARY KEY,
            name                    VARCHAR NOT NULL,
            vendor                  VARCHAR NOT NULL,
            backend                 VARCHAR NOT NULL,
            memory_gib              DOUBLE,
            memory_bandwidth_tb_s   DOUBLE,
            peak_dense_bf16_tflops  DOUBLE,
            source_title            VARCHAR NOT NULL,
            source_url              VARCHAR NOT NULL,
            source_date             DATE NOT NULL,
            notes                   VARCHAR NOT NULL
        );
        CREATE SEQUENCE price_id_seq;
        CREATE TABLE price_quotes (
            price_id          BIGINT PRIMARY KEY DEFAULT nextval('price_id_seq'),
            snapshot_id       VARCHAR NOT NULL REFERENCES snapshots (snapshot_id),
            provider          VARCHAR NOT NULL,
            region            VARCHAR NOT NULL,
            zone              VARCHAR,
            instance_type     VARCHAR NOT NULL,
            accelerator_id    VARCHAR NOT NULL,
            accelerator_count INTEGER NOT NULL,
            vcpus             INTEGER,
            memory_gib        DOUBLE,
            pricing_model     VARCHAR NOT NULL,
            usd_per_hour      DOUBLE NOT NULL CHECK (usd_per_hour > 0),
            price_basis       VARCHAR NOT NULL,
            source            VARCHAR NOT NULL,
            source_url        VARCHAR NOT NULL,
            observed_at       TIMESTAMP NOT NULL,
            confidence        VARCHAR NOT NULL,
            notes             VARCHAR NOT NULL,
            quote_id          VARCHAR,
            vendor_contact    VARCHAR,
            expires_on        DATE,
            quarantine_reason VARCHAR,             -- failed an integrity rule: kept, never current
            review_flag       VARCHAR              -- current, but flagged for a human to look at
        );
        CREATE SEQUENCE result_id_seq;
        CREATE TABLE benchmark_results (
            result_id                BIGINT PRIMARY KEY DEFAULT nextval('result_id_seq'),
            snapshot_id              VARCHAR NOT NULL REFERENCES snapshots (snapshot_id),
            config_key               VARCHAR NOT NULL,
            accelerator_id           VARCHAR NOT NULL,
            accelerators_per_replica INTEGER NOT NULL,
            instance_type            VARCHAR,
            system                   VARCHAR NOT NULL,
            runtime                  VARCHAR NOT NULL,
            runtime_version          VARCHAR NOT NULL,
            model                    VARCHAR NOT NULL,
            precision                VARCHAR NOT NULL,
            workload                 VARCHAR NOT NULL,
            input_tokens             INTEGER,
            output_tokens            INTEGER,
            scenario                 VARCHAR NOT NULL,
            concurrency              DOUBLE,
            request_rate_rps         DOUBLE,
            output_tok_s             DOUBLE NOT NULL CHECK (output_tok_s > 0),
            total_tok_s              DOUBLE,
            ttft_ms_p50              DOUBLE,
            ttft_ms_p90              DOUBLE,
            ttft_ms_p95              DOUBLE,
            ttft_ms_p99              DOUBLE,
            ttft_basis               VARCHAR NOT NULL,
            tpot_ms_p50              DOUBLE,
            tpot_ms_p95              DOUBLE,
            tpot_ms_p99              DOUBLE,
            e2el_ms_p50              DOUBLE,
            e2el_ms_p95              DOUBLE,
            peak_memory_gib          DOUBLE,
            requests_ok              INTEGER,
            requests_failed          INTEGER,
            parity_exact_match       DOUBLE,
            parity_similarity        DOUBLE,
            measured_at              TIMESTAMP NOT NULL,
            source_tool              VARCHAR NOT NULL,
            source_file              VARCHAR NOT NULL,
            source_title             VARCHAR NOT NULL,
            source_url               VARCHAR NOT NULL,
            confidence               VARCHAR NOT NULL,
            notes                    VARCHAR NOT NULL
        );
        CREATE TABLE integrity_checks (
            snapshot_id VARCHAR NOT NULL REFERENCES snapshots (snapshot_id),
            rule        VARCHAR NOT NULL,
            checked     INTEGER NOT NULL,
            failed      INTEGER NOT NULL,
            detail      VARCHAR NOT NULL
        );
        """,
    ),
    Migration(
        2,
        "current views",
        """
        -- For each provider and region, the newest good price snapshot whose scope covers it.
        -- A snapshot with scope '*' speaks for every region of its provider, so a region that a
        -- newer full snapshot no longer lists stops being current (the SKU was withdrawn).
        CREATE VIEW current_price_snapshots AS
        WITH keys AS (
            SELECT DISTINCT s.source AS provider, q.region
            FROM price_quotes q JOIN snapshots s USING (snapshot_id)
            WHERE s.status = 'ok'
        ),
        ranked AS (
            SELECT k.provider, k.region, s.snapshot_id,
                   row_number() OVER (
                       PARTITION BY k.provider, k.region
                       ORDER BY s.as_of DESC, s.created_at DESC, s.snapshot_id DESC
                   ) AS rank
            FROM keys k
            JOIN snapshots s
              ON s.kind = 'prices' AND s.status = 'ok' AND s.source = k.provider
             AND (s.scope = '*' OR list_contains(string_split(s.scope, ','), k.region))
        )
        SELECT provider, region, snapshot_id FROM ranked WHERE rank = 1;

        CREATE VIEW current_prices AS
        SELECT q.*
        FROM price_quotes q
        JOIN current_price_snapshots c
          ON c.snapshot_id = q.snapshot_id AND c.region = q.region
        WHERE q.quarantine_reason IS NULL;

        -- Results accumulate: every good import adds operating points.
        CREATE VIEW current_results AS
        SELECT r.*
        FROM benchmark_results r JOIN snapshots s USING (snapshot_id)
        WHERE s.status = 'ok';
        """,
    ),
    Migration(
        3,
        "decision log",
        """
        -- Futures-day decisions: append-only (rows are only ever inserted; a correction is a new
        -- row that names the decision it supersedes).
        CREATE SEQUENCE decision_id_seq;
        CREATE TABLE decisions (
            decision_id   BIGINT PRIMARY KEY DEFAULT nextval('decision_id_seq'),
            recorded_at   TIMESTAMP NOT NULL,
            decided_on    DATE NOT NULL,
            subject       VARCHAR NOT NULL,       -- what was decided on: a SKU, a scenario, a backend
            decision      VARCHAR NOT NULL CHECK (decision IN ('buy', 'no-buy', 'defer')),
            rationale     VARCHAR NOT NULL CHECK (length(trim(rationale)) > 0),
            decided_by    VARCHAR NOT NULL CHECK (length(trim(decided_by)) > 0),
            review_from   DATE,                   -- the two dates the review compared
            review_to     DATE,
            snapshot_ids  VARCHAR[] NOT NULL,     -- the snapshots the decision rests on
            supersedes    BIGINT
        );
        """,
    ),
    Migration(
        4,
        "true dates, validity windows, multi-node results, plausibility",
        """
        -- An undated source keeps no date (NULL = "date unknown") and its own words for it.
        ALTER TABLE price_quotes ALTER COLUMN observed_at DROP NOT NULL;
        ALTER TABLE price_quotes ADD COLUMN source_date_text VARCHAR NOT NULL DEFAULT '';
        ALTER TABLE price_quotes ADD COLUMN valid_from DATE;
        ALTER TABLE benchmark_results ALTER COLUMN measured_at DROP NOT NULL;
        ALTER TABLE benchmark_results ADD COLUMN source_date_text VARCHAR NOT NULL DEFAULT '';
        -- Hosts one replica spans (a multi-node MLPerf system).
        ALTER TABLE benchmark_results ADD COLUMN nodes INTEGER NOT NULL DEFAULT 1;
        -- A result kept past the physical plausibility gate on purpose, and the bound it breaks.
        ALTER TABLE benchmark_results ADD COLUMN plausibility_flag VARCHAR NOT NULL DEFAULT '';
        """,
    ),
    Migration(
        5,
        "current prices per priced item",
        """
        -- "Current" is the latest good observation of each priced item: source x region x zone x
        -- instance type x pricing model x basis x quote. A snapshot supersedes exactly the items
        -- it lists, so a one-row file never hides a provider's other prices. An observation's
        -- time is capped at the time its snapshot was written, so a row dated in the future
        -- cannot stay current after a later refresh. An undated row ("date unknown") counts
        -- from its snapshot's date, so an undated historical price never outranks a dated one.
        -- Only a snapshot that declares itself complete for its source (scope '*', written by
        -- the bundled seed) also withdraws the older items it no longer lists.
        CREATE OR REPLACE VIEW price_observations AS
        SELECT q.price_id, q.snapshot_id, s.source, q.region, q.quarantine_reason,
               concat_ws('|', q.region, coalesce(q.zone, ''), q.instance_type, q.pricing_model,
                         q.price_basis, coalesce(q.quote_id, '')) AS item,
               least(coalesce(q.observed_at, s.as_of), s.created_at) AS seen_at,
               s.created_at
        FROM price_quotes q JOIN snapshots s USING (snapshot_id)
        WHERE s.kind = 'prices' AND s.status = 'ok';

        CREATE OR REPLACE VIEW price_withdrawn AS
        SELECT o.price_id
        FROM price_observations o
        WHERE EXISTS (
            SELECT 1 FROM snapshots w
            WHERE w.kind = 'prices' AND w.status = 'ok' AND w.scope = '*'
              AND w.source = o.source AND w.snapshot_id <> o.snapshot_id
              AND least(w.as_of, w.created_at) > o.seen_at
              AND NOT EXISTS (
                  SELECT 1 FROM price_observations l
                  WHERE l.snapshot_id = w.snapshot_id AND l.item = o.item
              )
        );

        -- The newest observation of each item, quarantined or not.
        CREATE OR REPLACE VIEW latest_price_ids AS
        WITH ranked AS (
            SELECT o.*, row_number() OVER (
                       PARTITION BY o.source, o.item
                       ORDER BY o.seen_at DESC, o.created_at DESC, o.snapshot_id DESC,
                                o.price_id DESC) AS rank
            FROM price_observations o
            WHERE o.price_id NOT IN (SELECT price_id FROM price_withdrawn)
        )
        SELECT price_id, snapshot_id, source, region FROM ranked WHERE rank = 1;

        -- Which snapshots speak for some item now (their integrity reports are current).
        CREATE OR REPLACE VIEW current_price_snapshots AS
        SELECT DISTINCT source AS provider, region, snapshot_id FROM latest_price_ids;

        -- The newest good (not quarantined) observation of each item.
        CREATE OR REPLACE VIEW current_price_ids AS
        WITH ranked AS (
            SELECT o.*, row_number() OVER (
                       PARTITION BY o.source, o.item
                       ORDER BY o.seen_at DESC, o.created_at DESC, o.snapshot_id DESC,
                                o.price_id DESC) AS rank
            FROM price_observations o
            WHERE o.quarantine_reason IS NULL
              AND o.price_id NOT IN (SELECT price_id FROM price_withdrawn)
        )
        SELECT price_id, snapshot_id, region FROM ranked WHERE rank = 1;

        CREATE OR REPLACE VIEW current_prices AS
        SELECT q.*
        FROM price_quotes q
        WHERE q.price_id IN (SELECT price_id FROM current_price_ids);
        """,
    ),
    Migration(
        6,
        "workspaces",
        """
        -- The company's own fleet, contracts, demand and constraints. Append-only like snapshots:
        -- every save is a new version (the body is the whole workspace as JSON); the current
        -- workspace is the newest version.
        CREATE SEQUENCE workspace_version_seq;
        CREATE TABLE workspaces (
            version   BIGINT PRIMARY KEY DEFAULT nextval('workspace_version_seq'),
            name      VARCHAR NOT NULL,
            saved_at  TIMESTAMP NOT NULL,
            origin    VARCHAR NOT NULL,       -- seed | import | dashboard
            source    VARCHAR NOT NULL,       -- the file imported, or who saved it
            body      VARCHAR NOT NULL CHECK (json_valid(body))
        );
        """,
    ),
    Migration(
        8,
        "retractions",
        """
        -- An import found wrong (a test run, a mislabelled file) is retracted, never deleted: a
        -- retraction is one appended row naming the snapshot, why, who and when. The snapshot
        -- and its results stay in the history; they are no longer current and no cost uses them.
        -- One retraction per snapshot (the primary key); it cannot be undone by editing, only
        -- by importing the file again.
        CREATE TABLE retractions (
            snapshot_id  VARCHAR PRIMARY KEY REFERENCES snapshots (snapshot_id),
            reason       VARCHAR NOT NULL CHECK (length(trim(reason)) > 0),
            retracted_by VARCHAR NOT NULL CHECK (length(trim(retracted_by)) > 0),
            retracted_at TIMESTAMP NOT NULL
        );

        CREATE OR REPLACE VIEW current_results AS
        SELECT r.*
        FROM benchmark_results r JOIN snapshots s USING (snapshot_id)
        WHERE s.status = 'ok'
          AND r.snapshot_id NOT IN (SELECT snapshot_id FROM retractions);
        """,
    ),
    Migration(
        9,
        "who made each write",
        """
        -- Who made each write: the signed-in person's e-mail address on the dashboard, the OS
        -- user (or the name given with --as / TOKENDESK_USER) on the command line. Rows written
        -- before this was recorded keep '' ("not recorded").
        -- DuckDB cannot add a column to a table that others reference (price quotes, results,
        -- integrity checks and retractions reference snapshots), so a snapshot's author is one
        -- row of its own, written in the snapshot's transaction.
        CREATE TABLE snapshot_authors (
            snapshot_id VARCHAR PRIMARY KEY REFERENCES snapshots (snapshot_id),
            created_by  VARCHAR NOT NULL
        );
        ALTER TABLE workspaces ADD COLUMN created_by VARCHAR NOT NULL DEFAULT '';
        ALTER TABLE decisions ADD COLUMN created_by VARCHAR NOT NULL DEFAULT '';
        """,
    ),
    Migration(
        12,
        "measured power",
        """
        -- Mean power drawn over the run by the hardware one replica occupies (its accelerators),
        -- as the result's own telemetry measured it. NULL: not measured (energy is then an
        -- estimate from the datasheet, labelled as such).
        ALTER TABLE benchmark_results ADD COLUMN measured_power_w DOUBLE;

        CREATE OR REPLACE VIEW current_results AS
        SELECT r.*
        FROM benchmark_results r JOIN snapshots s USING (snapshot_id)
        WHERE s.status = 'ok'
          AND r.snapshot_id NOT IN (SELECT snapshot_id FROM retractions);
        """,
    ),
    Migration(
        13,
        "prefix cache share of a result's load",
        """
        -- The workload shape a result was measured at: besides its input and output lengths,
        -- the share of the input a prefix cache could serve (shared system prompt, multi-turn
        -- context). NULL: not known (other tools' files do not say).
        ALTER TABLE benchmark_results ADD COLUMN prefix_cache_share DOUBLE;

        CREATE OR REPLACE VIEW current_results AS
        SELECT r.*
        FROM benchmark_results r JOIN snapshots s USING (snapshot_id)
        WHERE s.status = 'ok'
          AND r.snapshot_id NOT IN (SELECT snapshot_id FROM retractions);
        """,
    ),
    Migration(
        14,
        "closed reviews",
        """
        -- A futures-day review stays open while decisions are recorded on it; it ends when a
        -- person closes it on purpose. Append-only: each row closes the review that ended on
        -- review_to, and the next review starts there.
        CREATE TABLE review_closings (
            closed_at    TIMESTAMP NOT NULL,
            review_from  DATE,
            review_to    DATE NOT NULL,
            closed_by    VARCHAR NOT NULL CHECK (length(trim(closed_by)) > 0),
            note         VARCHAR NOT NULL,
            created_by   VARCHAR NOT NULL
        );
        """,
    ),
    Migration(
        15,
        "retracted price ingests",
        """
        -- A price ingest can be retracted like a benchmark import (a wrong file, a price held
        -- for confirmation that was not right): its rows stay in the history and leave current
        -- prices, and the item's previous price is current again. A retracted snapshot that
        -- declared itself complete withdraws nothing either.
        CREATE OR REPLACE VIEW price_observations AS
        SELECT q.price_id, q.snapshot_id, s.source, q.region, q.quarantine_reason,
               concat_ws('|', q.region, coalesce(q.zone, ''), q.instance_type, q.pricing_model,
                         q.price_basis, coalesce(q.quote_id, '')) AS item,
               least(coalesce(q.observed_at, s.as_of), s.created_at) AS seen_at,
               s.created_at
        FROM price_quotes q JOIN snapshots s USING (snapshot_id)
        WHERE s.kind = 'prices' AND s.status = 'ok'
          AND s.snapshot_id NOT IN (SELECT snapshot_id FROM retractions);

        CREATE OR REPLACE VIEW price_withdrawn AS
        SELECT o.price_id
        FROM price_observations o
        WHERE EXISTS (
            SELECT 1 FROM snapshots w
            WHERE w.kind = 'prices' AND w.status = 'ok' AND w.scope = '*'
              AND w.snapshot_id NOT IN (SELECT snapshot_id FROM retractions)
              AND w.source = o.source AND w.snapshot_id <> o.snapshot_id
              AND least(w.as_of, w.created_at) > o.seen_at
              AND NOT EXISTS (
                  SELECT 1 FROM price_observations l
                  WHERE l.snapshot_id = w.snapshot_id AND l.item = o.item
              )
        );
        """,
    ),
    Migration(
        16,
        "bundled files loaded",
        """
        -- Which copy of each bundled data/ file a seed snapshot was loaded from (the file's
        -- SHA-256): a warehouse built from an earlier copy of data/ can say so, where it would
        -- otherwise call itself up to date. Append-only.
        CREATE TABLE bundled_files (
            snapshot_id VARCHAR NOT NULL,
            file        VARCHAR NOT NULL,
            sha256      VARCHAR NOT NULL,
            loaded_at   TIMESTAMP NOT NULL
        );
        """,
    ),
)


def pending_migrations(
    con: duckdb.DuckDBPyConnection, migrations: Sequence[Migration] = MIGRATIONS
) -> list[Migration]:
    """Those of ``migrations`` not yet applied to the database ``con`` reads (all of them if
    none was)."""
    exists = con.execute(  # this database's table only (team mode attaches its catalog too)
        "SELECT count(*) FROM information_schema.tables"
        " WHERE table_name = 'schema_migrations' AND table_catalog = current_database()"
    ).fetchone()
    applied: set[int] = set()
    if exists and exists[0]:
        applied = {
            row[0] for row in con.execute("SELECT version FROM schema_migrations").fetchall()
        }
    return [m for m in migrations if m.version not in applied]
