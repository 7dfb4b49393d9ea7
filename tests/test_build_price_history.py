"""``scripts/build_price_history.py``: AWS Price List versions -> dated price snapshots, and the
bundled ``data/price_history.csv`` it wrote, loaded by the seed beside the curated quotes.

``data/sources/aws_price_list/`` holds the kept lines of the pinned document byte for byte
(``data/sources/aws_price_list_history.yaml`` names its repository, path and commit). Expected
figures are quoted from those lines (the comment names the table row).
"""

from __future__ import annotations

import csv
import importlib.util
import json
import shutil
import sys
from pathlib import Path
from types import ModuleType

import pytest
from typer.testing import CliRunner

from cli.main import app
from tokendesk.paths import REPO_ROOT

runner = CliRunner()


def _script() -> ModuleType:
    path = REPO_ROOT / "scripts" / "build_price_history.py"
    spec = importlib.util.spec_from_file_location("build_price_history", path)
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


bph = _script()
PIN = bph.load_pin()
COPY = bph.SOURCE_COPY / PIN.path


def test_the_kept_lines_are_the_pinned_ones_and_a_rerun_writes_the_same_file():
    rows, left_out = bph.all_rows()
    history = [row for row in rows if row["seed_snapshot"] != "current"]
    assert bph.render(history) == (REPO_ROOT / "data" / "price_history.csv").read_text(
        encoding="utf-8"
    )
    # Types the catalog does not describe are named, not guessed.
    assert "p6-b300.48xlarge" in left_out and "p6-b300.48xlarge" not in {
        row["instance_type"] for row in rows
    }


def test_each_version_is_dated_by_its_publication_time():
    text = COPY.read_text(encoding="utf-8")
    # The p5.48xlarge table's row for the first version after the cut.
    assert "| `20250703204906` | 2025-06 | **$55.0400000000** |" in text
    rows, _ = bph.all_rows()
    (row,) = [
        r
        for r in rows
        if r["instance_type"] == "p5.48xlarge" and r["seed_snapshot"] == "historical 20250703204906"
    ]
    assert row["usd_per_hour"] == "55.04"
    assert row["observed_at"] == "2025-07-03"
    assert (
        "published 2025-07-03 20:49:06 UTC; the source labels it 2025-06"
        in (row["source_date_text"])
    )
    assert row["source_url"].endswith(f"/blob/{PIN.commit}/{PIN.path}")


def test_the_current_version_is_the_one_the_inventory_row_names():
    # "`Version 20260728175247`" in the PL-CUR row; p4de.24xlarge "| 27.4470500 |" in its set.
    current = {row["instance_type"]: row for row in bph.current_rows()}
    assert current["p4de.24xlarge"]["usd_per_hour"] == "27.44705"
    assert current["p4de.24xlarge"]["observed_at"] == "2026-07-28"
    assert {row["seed_snapshot"] for row in current.values()} == {"current"}


def _copy_with(tmp_path: Path, old: str, new: str) -> Path:
    folder = tmp_path / "source"
    target = folder / PIN.path
    target.parent.mkdir(parents=True)
    shutil.copyfile(COPY, target)
    text = target.read_text(encoding="utf-8")
    assert old in text
    target.write_text(text.replace(old, new, 1), encoding="utf-8")
    return folder


def test_a_changed_line_stops_the_build_naming_the_pin(tmp_path):
    folder = _copy_with(tmp_path, "**$98.3200000000** |", "**$89.3200000000** |")
    with pytest.raises(bph.HistoryError, match="not the pinned ones"):
        bph.all_rows(folder)
    out = tmp_path / "out.csv"
    assert bph.main(["--source", str(folder), "--out", str(out)]) == 1
    assert not out.exists()


def test_one_version_with_two_rates_for_a_type_is_refused():
    pin = bph.Pin(**{**PIN.__dict__})
    rates = [
        bph.Rate("p5.48xlarge", "20260728175247", "2026-07", bph.Decimal("55.04")),
        bph.Rate("p5.48xlarge", "20260728175247", "", bph.Decimal("55.14")),
    ]
    described = {"p5.48xlarge": dict.fromkeys(("accelerator_id", "accelerator_count"), "x")}
    with pytest.raises(bph.HistoryError, match="two rates"):
        bph.build_rows(pin, "20260728175247", rates, described)


@pytest.fixture(scope="module")
def built(tmp_path_factory) -> Path:
    db = tmp_path_factory.mktemp("history") / "history.duckdb"
    assert runner.invoke(app, ["db", "init", "--db", str(db)]).exit_code == 0
    return db


def test_db_info_shows_a_dated_aws_snapshot_per_version(built):
    out = runner.invoke(app, ["db", "info", "--db", str(built), "--format", "json"])
    assert out.exit_code == 0, out.output
    dated = sorted(
        s["data_as_of"]
        for s in json.loads(out.stdout)
        if s["kind"] == "prices" and s["source"] == "aws" and s["data_as_of"]
    )
    with (REPO_ROOT / "data" / "price_history.csv").open(newline="", encoding="utf-8") as handle:
        versions = {row["observed_at"] for row in csv.DictReader(handle)}
    assert versions <= set(dated)
    # The 24 months before this build's data date: 2024-12 to 2026-12.
    assert len([d for d in dated if "2024-12-03" <= d <= "2026-12-03"]) >= 6


def test_futures_compare_sees_the_june_2025_cut_on_its_date(built):
    out = runner.invoke(
        app,
        [
            "futures",
            "compare",
            "--db",
            str(built),
            "--from",
            "2025-06-01",
            "--to",
            "2025-07-31",
            "--format",
            "json",
        ],
    )
    assert out.exit_code == 0, out.output
    changes = json.loads(out.stdout)["price_changes"]
    (p5,) = [
        c
        for c in changes
        if c["instance_type"] == "p5.48xlarge"
        and c["pricing_model"] == "on_demand"
        and c["region"] == "us-east-1"
    ]
    # The Price List versions of 2025-05-29 ($98.32) and 2025-07-03 ($55.04).
    assert (p5["usd_per_hour_from"], p5["usd_per_hour_to"]) == (98.32, 55.04)
