"""The bundled ``data/`` files a warehouse is built from, and which copy of each it holds.

Each seed snapshot records the SHA-256 of the file it was loaded from (``bundled_files``), so a
warehouse built from an earlier copy of ``data/`` (a checkout updated since) can say so rather
than call itself up to date. Light (hashlib and DuckDB alone): the dashboard's server checks
this before it listens.
"""

from __future__ import annotations

from pathlib import Path

import duckdb

from tokendesk.digests import sha256_file

SEED_PRICES = "seed_prices.csv"
SEED_RESULTS = "seed_results.csv"
#: The whole market, built by scripts/build_market_*.py from pinned public sources: the cloud
#: catalog with its dated history, and every public LLM result. Loaded after the curated seed
#: when present (a checkout may carry the curated seed alone).
MARKET_PRICES = "market_prices.csv"
MARKET_RESULTS = "market_results.csv"
#: Dated price history from a pinned public source (scripts/build_price_history.py): one
#: snapshot per published price-list version, loaded after the market catalog.
PRICE_HISTORY = "price_history.csv"

#: The bundled files, in the order a warehouse is built from them.
BUNDLED_FILES = (SEED_PRICES, MARKET_PRICES, PRICE_HISTORY, SEED_RESULTS, MARKET_RESULTS)
RESULT_FILES = (SEED_RESULTS, MARKET_RESULTS)
#: The files every build loads; the others only where the checkout carries them.
REQUIRED_FILES = (SEED_PRICES, SEED_RESULTS)


def loaded_digests(connection: duckdb.DuckDBPyConnection) -> dict[str, str]:
    """The SHA-256 of the copy of each bundled file the warehouse last loaded, by file name
    (empty where it records none)."""
    rows = connection.execute(
        "SELECT file, sha256 FROM bundled_files"
        " QUALIFY row_number() OVER (PARTITION BY file ORDER BY loaded_at DESC) = 1"
    ).fetchall()
    return {str(file): str(sha256) for file, sha256 in rows}


def changed_files(loaded: dict[str, str], folder: Path) -> list[str] | None:
    """The bundled files in ``folder`` of which the warehouse holds another copy, or none, in
    load order; None where it records no bundled file at all (built by an earlier tokendesk,
    which did not record them, or without the bundled data)."""
    if not loaded:
        return None
    return [
        name
        for name in BUNDLED_FILES
        if (folder / name).exists() and loaded.get(name) != _digest(folder / name)
    ]


def _digest(path: Path) -> str | None:
    """The file's SHA-256; None where it cannot be read (a folder, no permission): then it is
    not the copy the warehouse loaded, and a rebuild names what is wrong with it."""
    try:
        return sha256_file(path)
    except OSError:
        return None
