"""A price file is read, validated, checked and written in batches (``batch_rows``), so memory
does not grow with the file. What crosses a batch boundary must be judged as if the file were one
batch: the first bad row is named with its 1-based row (the header is row 1), a duplicate or a
contradiction of a row in an earlier batch is found, the integrity check compares a spot price
with an on-demand price staged in another batch, and a refused file changes nothing.

The batched path is held to the whole-file reader (``read_price_file`` + ``check_price_file``
over each snapshot, what ``ingest_prices`` stores) on every price file of the hostile corpus and
on the bundled seed: the same refusals, word for word, and the same stored rows."""

from __future__ import annotations

import csv
import json
import tracemalloc
from collections import defaultdict
from datetime import datetime
from pathlib import Path

import pytest

from pricing.integrity import check_price_file
from tests.factories import content_digest, seeded_warehouse, stored_price_rows
from tokendesk.paths import data_dir
from warehouse import Warehouse
from warehouse.bundled import SEED_PRICES
from warehouse.price_rows import utc_naive
from warehouse.seed import SeedFileError, ingest_price_file, read_price_file

HOSTILE = Path(__file__).parents[1] / "fixtures" / "hostile"
HEADER = [
    "provider",
    "region",
    "instance_type",
    "accelerator_id",
    "accelerator_count",
    "pricing_model",
    "usd_per_hour",
    "source",
    "observed_at",
]
BATCH = 3  # rows 2-4 are the first batch, rows 5-7 the second, ...


def _row(n: int, **changes: str) -> dict[str, str]:
    row = {
        "provider": "sheetco",
        "region": f"region-{n}",
        "instance_type": "gpu.8x",
        "accelerator_id": "nvidia-h100-sxm-80gb",
        "accelerator_count": "8",
        "pricing_model": "on_demand",
        "usd_per_hour": f"{20 + n}.5",
        "source": "a test sheet",
        "observed_at": "2026-10-01",
    }
    row.update(changes)
    return row


def _write(path: Path, rows: list[dict[str, str]]) -> Path:
    with path.open("w", encoding="utf-8", newline="") as handle:
        writer = csv.DictWriter(handle, fieldnames=HEADER)
        writer.writeheader()
        writer.writerows(rows)
    return path


@pytest.fixture(scope="module")
def template(tmp_path_factory) -> Path:
    path = tmp_path_factory.mktemp("batched") / "template.duckdb"
    with seeded_warehouse(path):
        pass
    return path


@pytest.fixture
def warehouse(template, tmp_path):
    copy = tmp_path / "w.duckdb"
    copy.write_bytes(template.read_bytes())
    with seeded_warehouse(copy) as opened:
        yield opened


def _refusal(warehouse: Warehouse, path: Path) -> SeedFileError:
    before = content_digest(warehouse)
    with pytest.raises(SeedFileError) as caught, warehouse.atomic():
        ingest_price_file(warehouse, path, check=check_price_file, origin="sheet", batch_rows=BATCH)
    assert content_digest(warehouse) == before, "a refused file changed the warehouse"
    return caught.value


def test_a_bad_row_first_in_the_second_batch_is_named_by_its_row(warehouse, tmp_path):
    rows = [_row(n) for n in range(6)]
    rows[3] = _row(3, usd_per_hour="-5")  # file row 5: the first row of the second batch
    refused = _refusal(warehouse, _write(tmp_path / "prices.csv", rows))
    assert (refused.row, refused.field) == (5, "usd_per_hour")
    assert "prices.csv: row 5: field 'usd_per_hour'" in str(refused)


def test_a_bad_row_last_in_the_first_batch_is_named_by_its_row(warehouse, tmp_path):
    rows = [_row(n) for n in range(6)]
    rows[2] = _row(2, accelerator_id="nvidia-h100-80gb")  # file row 4, end of the first batch
    refused = _refusal(warehouse, _write(tmp_path / "prices.csv", rows))
    assert (refused.row, refused.field) == (4, "accelerator_id")


def test_a_duplicate_of_a_row_in_an_earlier_batch_is_refused(warehouse, tmp_path):
    rows = [_row(n) for n in range(6)]
    rows.append(_row(1))  # file row 8 repeats file row 3
    refused = _refusal(warehouse, _write(tmp_path / "prices.csv", rows))
    assert refused.row == 8
    assert "duplicates row 3" in str(refused)


def test_a_contradiction_across_batches_names_both_rows_and_both_prices(warehouse, tmp_path):
    rows = [_row(n) for n in range(6)]
    rows.append(_row(0, usd_per_hour="99.5"))  # file row 8 prices row 2's item differently
    refused = _refusal(warehouse, _write(tmp_path / "prices.csv", rows))
    assert (refused.row, refused.field) == (8, "usd_per_hour")
    assert "same item as row 2" in str(refused) and "usd_per_hour 20.5 vs 99.5" in str(refused)


def test_a_duplicate_before_a_bad_row_of_the_same_batch_is_reported_first(warehouse, tmp_path):
    rows = [_row(n) for n in range(4)]
    rows[3] = _row(0)  # file row 5 (second batch) repeats row 2 ...
    rows.append(_row(4, usd_per_hour="fast"))  # ... and file row 6 is not a price
    refused = _refusal(warehouse, _write(tmp_path / "prices.csv", rows))
    assert refused.row == 5 and "duplicates row 2" in str(refused)


def test_a_spot_price_is_checked_against_an_on_demand_price_in_a_later_batch(warehouse, tmp_path):
    rows = [_row(n) for n in range(5)]
    # File row 2: spot above the on-demand price of the same item, which is file row 7.
    rows.insert(0, _row(9, pricing_model="spot", usd_per_hour="40"))
    rows.append(_row(9, usd_per_hour="30"))
    path = _write(tmp_path / "prices.csv", rows)
    with warehouse.atomic():
        ingest_price_file(warehouse, path, check=check_price_file, origin="sheet", batch_rows=BATCH)
    flagged = warehouse.query(
        "SELECT pricing_model, quarantine_reason FROM price_quotes"
        " WHERE provider = 'sheetco' AND quarantine_reason IS NOT NULL"
    )
    assert flagged.to_dict("records") == [
        {"pricing_model": "spot", "quarantine_reason": "spot $40 above on-demand $30"}
    ]


# -- the batched path against the whole-file reader -------------------------------------------


def _price_files() -> list[Path]:
    cases = json.loads((HOSTILE / "cases.json").read_text(encoding="utf-8"))["cases"]
    names = {
        name
        for case in cases
        if case["command"] == "ingest"
        for name in case["files"]
        if not name.startswith("@")
    }
    files = []
    for name in sorted(names):
        head = (HOSTILE / name).read_bytes()[:4096]
        # Price files by their header, as `db ingest` tells them apart (any encoding).
        if (
            b"usd_per_hour" in head
            or b"u\x00s\x00d\x00_\x00p" in head
            or b"\x00u\x00s\x00d" in head
        ):
            files.append(HOSTILE / name)
    return [*files, data_dir() / SEED_PRICES]


def _whole_file(warehouse: Warehouse, path: Path) -> str | None:
    """What the whole-file reader refuses (its message), or None after storing what it reads."""
    try:
        quotes = read_price_file(path)
    except SeedFileError as exc:
        return str(exc)
    groups: dict[tuple[str, str], list] = defaultdict(list)
    for name, quote in quotes:
        groups[(name, quote.provider)].append(quote)
    known = [utc_naive(q.observed_at) for _, q in quotes if q.observed_at]
    oldest = min(known) if known else datetime(1970, 1, 1)
    with warehouse.atomic():
        for (name, provider), group in sorted(
            groups.items(), key=lambda item: (item[0][0] != "historical", item[0][1])
        ):
            historical = name == "historical"
            previous = [] if historical else groups.get(("historical", provider), [])
            report = check_price_file(group, previous, historical=historical)
            dated = [utc_naive(q.observed_at) for q in group if q.observed_at]
            warehouse.ingest_prices(
                provider,
                group,
                origin="sheet",
                as_of=max(dated) if dated else (oldest if historical else None),
                quarantine=report.quarantine,
                review_flags=report.review_flags,
                integrity=report.as_tuples(),
            )
    return None


@pytest.mark.parametrize("path", _price_files(), ids=lambda p: p.name)
def test_batches_refuse_and_store_exactly_what_the_whole_file_reader_does(path):
    with Warehouse.open(":memory:") as whole, Warehouse.open(":memory:") as batched:
        expected = _whole_file(whole, path)
        try:
            with batched.atomic():
                ingest_price_file(
                    batched, path, check=check_price_file, origin="sheet", batch_rows=2
                )
        except SeedFileError as exc:
            assert str(exc) == expected
        else:
            assert expected is None, f"the whole-file reader refuses it: {expected}"
            assert stored_price_rows(batched) == stored_price_rows(whole)


def _sheet(path: Path, rows: int) -> Path:
    """``rows`` distinct valid quotes in eight regions."""
    return _write(
        path,
        [
            _row(n % 8, instance_type=f"gpu{n // 8}.8x", usd_per_hour=f"{20 + n % 50}.5")
            for n in range(rows)
        ],
    )


def test_python_memory_of_an_ingest_does_not_grow_with_the_file(tmp_path):
    # The file as filed: a million rows held as records took 4.4 GB. With batches of 500, four
    # times the rows must not take four times the memory (DuckDB's own is not counted here;
    # perf/bench_price_ingest.py measures the whole process).
    peaks = {}
    for rows in (1_000, 4_000):
        path = _sheet(tmp_path / f"prices_{rows}.csv", rows)
        with Warehouse.open(":memory:") as warehouse:
            tracemalloc.start()
            try:
                with warehouse.atomic():
                    ingest_price_file(
                        warehouse, path, check=check_price_file, origin="sheet", batch_rows=500
                    )
                peaks[rows] = tracemalloc.get_traced_memory()[1]
            finally:
                tracemalloc.stop()
            assert warehouse.table_counts()["price_quotes"] == rows
    assert peaks[4_000] < peaks[1_000] * 1.5, peaks


def test_the_write_is_held_to_its_memory_cap_and_the_cap_is_lifted_after(warehouse, tmp_path):
    def limit() -> str:
        return str(warehouse.query("SELECT current_setting('memory_limit') AS m").m[0])

    before = limit()
    seen: list[str] = []
    original = warehouse.ingest_price_frames

    def spy(*args, **kwargs):
        seen.append(limit())
        return original(*args, **kwargs)

    warehouse.ingest_price_frames = spy  # type: ignore[method-assign]
    with warehouse.atomic():
        ingest_price_file(
            warehouse, _sheet(tmp_path / "p.csv", 10), check=check_price_file, origin="sheet"
        )
    assert seen == ["152.5 MiB"]  # 160 MB, as DuckDB shows it
    assert limit() == before
