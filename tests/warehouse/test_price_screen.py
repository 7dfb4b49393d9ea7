"""The column-by-column screens of a price file (``warehouse.price_screen``) against the per-row
rules they stand in for: the same good and bad rows go through both paths, and both must accept
the same rows, store the same values, flag the same rows with the same words, count the same
integrity checks and refuse with the same message (file, row, field)."""

from __future__ import annotations

import csv
from pathlib import Path

import pytest

import warehouse.seed as seed
from pricing.integrity import PriceReference, check_price_file
from tests.factories import stored_price_rows
from tokendesk.paths import data_dir
from tokendesk.records import PriceQuote
from warehouse import Warehouse
from warehouse.price_rows import PRICE_COLUMNS, price_row
from warehouse.price_screen import screen_checks, screen_rows, screened_values
from warehouse.seed import (
    PRICE_META,
    SEED_PRICES,
    SeedFileError,
    _validate_row,
    ingest_price_file,
    read_price_file,
)

COLUMNS = [
    "seed_snapshot",
    *(name for name in PRICE_COLUMNS),
]

GOOD = {
    "seed_snapshot": "",
    "provider": "sheetco",
    "region": "r1",
    "zone": "",
    "instance_type": "gpu.8x",
    "accelerator_id": "nvidia-h100-sxm-80gb",
    "accelerator_count": "8",
    "vcpus": "",
    "memory_gib": "",
    "pricing_model": "on_demand",
    "usd_per_hour": "30.5",
    "price_basis": "",
    "source": "a test sheet",
    "source_url": "",
    "observed_at": "2026-10-01",
    "source_date_text": "",
    "confidence": "",
    "notes": "",
    "quote_id": "",
    "vendor_contact": "",
    "valid_from": "",
    "expires_on": "",
}

#: One change each from GOOD: cells the screen must store exactly as the record does, and cells
#: it must leave to the record (which accepts some of them and refuses others, in its words).
CHANGES: list[dict[str, str]] = [
    {},
    {"seed_snapshot": "historical"},
    {"seed_snapshot": "current"},
    {"zone": "r1-a"},
    {"zone": " "},
    {"vcpus": "192"},
    {"vcpus": "0"},
    {"vcpus": "08"},
    {"vcpus": "1000001"},
    {"memory_gib": "2048"},
    {"memory_gib": "2048.5"},
    {"memory_gib": "0"},
    {"memory_gib": "1e3"},
    {"memory_gib": "-1"},
    {"usd_per_hour": "0.1"},
    {"usd_per_hour": "0.08"},
    {"usd_per_hour": "0.30000000000000004"},
    {"usd_per_hour": "1600"},
    {"usd_per_hour": "1600.0001"},
    {"usd_per_hour": "30.50"},
    {"usd_per_hour": "030.5"},
    {"usd_per_hour": "3e1"},
    {"usd_per_hour": " 30.5"},
    {"usd_per_hour": "nan"},
    {"usd_per_hour": "inf"},
    {"usd_per_hour": ""},
    {"usd_per_hour": "1,5"},
    {"accelerator_count": "0"},
    {"accelerator_count": "1", "price_basis": "per_accelerator", "usd_per_hour": "3.5"},
    {"accelerator_count": "8", "price_basis": "per_accelerator"},
    {"accelerator_count": "1025"},
    {"accelerator_count": "8.0"},
    {"accelerator_count": "+8"},
    {"accelerator_id": "nvidia-h999"},
    {"accelerator_id": "NVIDIA-H100-SXM-80GB"},
    {"accelerator_id": "cpu-intel-spr-amx", "accelerator_count": "0"},
    {"pricing_model": "spot", "usd_per_hour": "12.5"},
    {"pricing_model": "Spot"},
    {"pricing_model": "weekly"},
    {"pricing_model": "negotiated"},
    {"pricing_model": "negotiated", "quote_id": "Q-1", "vendor_contact": "ann@example.com"},
    {"price_basis": "instance"},
    {"price_basis": "box"},
    {"provider": ""},
    {"provider": " sheetco"},
    {"provider": "sheetco\u202e"},
    {"provider": "\x1b[31msheetco"},
    {"provider": "shéetco"},
    {"region": "r1\t"},
    {"source": "x" * 2000},
    {"source": "x" * 2001},
    {"source_url": "https://example.com/p"},
    {"source_url": "HTTP://EXAMPLE.COM"},
    {"source_url": "javascript:alert(1)"},
    {"observed_at": ""},
    {"observed_at": "2026-10-01 12:30:00"},
    {"observed_at": "2026-10-01T12:30:00"},
    {"observed_at": "2026-10-01T12:30:00Z"},
    {"observed_at": "2026-10-01T12:30:00+02:00"},
    {"observed_at": "2026-10-01T24:00:00"},
    {"observed_at": "2026-02-30"},
    {"observed_at": "2014-12-31"},
    {"observed_at": "2015-01-01"},
    {"observed_at": "2999-01-01"},
    {"observed_at": "01/10/2026"},
    {"valid_from": "2026-01-01", "expires_on": "2027-01-01"},
    {"valid_from": "2027-01-01", "expires_on": "2026-01-01"},
    {"expires_on": "2020-01-01"},
    {"expires_on": "2026-13-01"},
    {"notes": "=HYPERLINK(1)"},
    {"notes": "a note, with a comma"},
    {"confidence": "high"},
]


def _row(change: dict[str, str]) -> list[str]:
    return [change.get(name, GOOD[name]) for name in COLUMNS]


def _by_record(cells: list[str]) -> dict | None:
    """The stored values the record gives a row, or None where it refuses it."""
    try:
        quote = _validate_row(
            Path("x.csv"), PriceQuote, PRICE_META, 2, dict(zip(COLUMNS, cells, strict=True))
        )
    except SeedFileError:
        return None
    return price_row(quote)


def test_every_row_the_screen_passes_is_one_the_record_stores_the_same():
    rows = [_row(change) for change in CHANGES]
    screened = screened_values(COLUMNS, rows)
    passed = 0
    for change, cells, values in zip(CHANGES, rows, screened, strict=True):
        if values is None:
            continue
        passed += 1
        assert values == _by_record(cells), change
    # The screen must pass the plain rows, or it saves nothing (GOOD and its plain variants).
    assert screened[0] is not None
    assert passed >= 20


# -- whole files through both paths -----------------------------------------------------------


def _every_row(con, raw, *, into, now=None):
    """The per-row path: the screen vouches for no row."""
    screen_rows(con, raw, into=into, now=now)
    con.execute(f"DELETE FROM {into}")
    return raw.column("row_no").to_pylist()


def _every_check(con, relation, params, facts, *, into):
    """The per-row path of the integrity check: every row goes through the rules."""
    screen_checks(con, relation, params, facts, into=into)
    con.execute(f"CREATE OR REPLACE TABLE {into} AS SELECT row_no FROM ({relation})", params)
    return {}


def _outcome(path: Path, reference: PriceReference | None) -> tuple | str:
    with Warehouse.open(":memory:") as warehouse:
        try:
            with warehouse.atomic():
                ingest_price_file(
                    warehouse,
                    path,
                    check=check_price_file,
                    origin="sheet",
                    batch_rows=4,
                    reference=reference,
                )
        except SeedFileError as exc:
            return str(exc)
        return stored_price_rows(warehouse)


def _both_paths(path: Path, monkeypatch, reference: PriceReference | None = None):
    screened = _outcome(path, reference)
    with monkeypatch.context() as patched:
        patched.setattr(seed, "screen_rows", _every_row)
        patched.setattr(seed, "screen_checks", _every_check)
        per_row = _outcome(path, reference)
    assert screened == per_row
    return screened


def _write(path: Path, rows: list[list[str]]) -> Path:
    with path.open("w", encoding="utf-8", newline="") as handle:
        writer = csv.writer(handle)
        writer.writerow(COLUMNS)
        writer.writerows(rows)
    return path


def _plain(n: int, **change: str) -> list[str]:
    return _row({"region": f"r{n}", **change})


@pytest.fixture(scope="module")
def reference() -> PriceReference:
    """The bundled seed's current prices, which a far-off price is held against."""
    quotes = [q for name, q in read_price_file(data_dir() / SEED_PRICES) if name == "current"]
    return PriceReference.from_quotes(quotes)


@pytest.mark.parametrize("index", range(len(CHANGES)), ids=lambda i: repr(CHANGES[i])[:60])
def test_one_row_between_good_rows_fares_the_same_on_both_paths(index, tmp_path, monkeypatch):
    rows = [_plain(n) for n in range(5)] + [_row({"region": "odd", **CHANGES[index]})]
    rows += [_plain(n) for n in range(5, 9)]
    _both_paths(_write(tmp_path / "sheet.csv", rows), monkeypatch)


def test_repeats_and_contradictions_are_named_the_same_on_both_paths(tmp_path, monkeypatch):
    rows = [_plain(n) for n in range(6)]
    cases = {
        "repeat": [*rows, _plain(2)],
        "repeat with other notes": [*rows, _plain(2, notes="again")],
        "contradiction": [*rows, _plain(3, usd_per_hour="31.5")],
        "same moment, one zoned": [
            *rows,
            _plain(1, observed_at="2026-10-01T00:00:00Z"),
            _plain(1, observed_at="2026-10-01T00:00:00"),
        ],
        "same instant, other zones": [
            *rows,
            _plain(1, observed_at="2026-10-01T02:00:00+02:00", usd_per_hour="31.5"),
            _plain(1, observed_at="2026-10-01T00:00:00Z", usd_per_hour="32.5"),
        ],
        "same item, two seed snapshots": [*rows, _plain(2, seed_snapshot="historical")],
        "'' and 'current' seed snapshots": [*rows, _plain(2, seed_snapshot="current")],
        "repeat before a bad row": [*rows, _plain(2), _plain(7, usd_per_hour="-1")],
        "bad row before a repeat": [*rows, _plain(7, usd_per_hour="-1"), _plain(2)],
        "short row": [*rows, _plain(8)[:5]],
        "long row": [*rows, [*_plain(8), "extra"]],
    }
    outcomes = {
        name: _both_paths(_write(tmp_path / "sheet.csv", case), monkeypatch)
        for name, case in cases.items()
    }
    assert "duplicates row 4" in outcomes["repeat"]
    assert "prices the same item as row 5" in outcomes["contradiction"]
    assert "duplicates row 4" in outcomes["repeat before a bad row"]
    assert "row 8:" in outcomes["bad row before a repeat"]


def test_integrity_flags_and_counts_are_the_same_on_both_paths(tmp_path, monkeypatch, reference):
    # The anchored p5.48xlarge in us-east-1 and its known count of 8 come from the bundled
    # data (data/price_anchors.csv, pricing.aws); the rest are sheet rows.
    aws = {"provider": "aws", "region": "us-east-1", "instance_type": "p5.48xlarge"}
    rows = [
        _plain(0),
        _plain(0, pricing_model="spot", usd_per_hour="12.5"),
        _plain(1, pricing_model="spot", usd_per_hour="40.5"),  # above on-demand
        _plain(1),
        _plain(2, pricing_model="reserved_1y", usd_per_hour="31.5"),  # above on-demand
        _plain(2, usd_per_hour="30.5"),
        _plain(3, expires_on="2020-01-01"),  # expired
        _plain(4, usd_per_hour="1500"),  # far above every peer
        _plain(5, usd_per_hour="0.5", accelerator_count="8"),  # far below
        _plain(6, seed_snapshot="historical", usd_per_hour="10.5"),
        _plain(6, usd_per_hour="30.5"),  # moved +190% since the historical row
        _plain(7, seed_snapshot="historical", usd_per_hour="29.5"),
        _plain(7, usd_per_hour="30.5"),  # moved a little
        _row({**aws, "usd_per_hour": "55.04"}),
        _row({**aws, "region": "us-west-2", "accelerator_count": "4", "usd_per_hour": "98.32"}),
        _row({**aws, "pricing_model": "spot", "usd_per_hour": "30.5"}),
        _row(
            {
                "region": "c1",
                "accelerator_id": "cpu-intel-spr-amx",
                "accelerator_count": "0",
                "usd_per_hour": "1",
            }
        ),
        _row({"region": "r9", "accelerator_id": "cpu-intel-spr-amx", "accelerator_count": "2"}),
    ]
    path = _write(tmp_path / "sheet.csv", rows)
    stored = _both_paths(path, monkeypatch, reference)
    assert isinstance(stored, tuple)
    _, rules = stored
    assert any(int(checked) > 0 and int(failed) > 0 for _, _, checked, failed, _ in rules)
    _both_paths(path, monkeypatch, None)


def test_the_bundled_seed_is_stored_the_same_on_both_paths(monkeypatch):
    _both_paths(data_dir() / SEED_PRICES, monkeypatch)
