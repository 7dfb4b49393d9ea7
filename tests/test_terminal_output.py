"""What the commands print never breaks a value: at 80 columns in a terminal, and piped."""

from __future__ import annotations

import fcntl
import json
import os
import pty
import re
import struct
import subprocess
import sys
import termios
from pathlib import Path

import pytest
from rich.text import Text
from typer.testing import CliRunner

from cli.main import app
from tokendesk import formatting
from tokendesk.paths import REPO_ROOT
from tokendesk.terminal import Grid, column_widths, render_text, wrap_text

runner = CliRunner()
ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]")
#: A dollar amount as printed: "$1,234.56", "$0.000517".
AMOUNT = re.compile(r"\$[0-9][0-9,]*(?:\.[0-9]+)?")
DAY = re.compile(r"\b\d{4}-\d{2}-\d{2}\b")


@pytest.fixture(scope="module")
def db(tmp_path_factory) -> Path:
    path = tmp_path_factory.mktemp("terminal") / "cli.duckdb"
    done = runner.invoke(app, ["db", "init", "--db", str(path)])
    assert done.exit_code == 0, done.output
    return path


def _costs_json(db: Path) -> list[dict]:
    done = runner.invoke(app, ["costs", "--db", str(db), "--limit", "10", "--format", "json"])
    assert done.exit_code == 0, done.output
    return json.loads(done.stdout)


def _expected_values(records: list[dict]) -> dict[str, set[str]]:
    """The values a person must find whole in the costs table, as the table formats them."""
    return {
        "amounts": {formatting.usd_per_1k(r["usd_per_1k_output_tokens"]) for r in records}
        | {formatting.usd(r["usd_per_hour"], 3) for r in records},
        "days": {formatting.day(r["price_observed_at"]) for r in records}
        | {formatting.day(r["bench_measured_at"]) for r in records},
        "ids": {r["accelerator_id"] for r in records} | {r["instance_type"] for r in records},
    }


def _run_in_terminal(args: list[str], columns: int = 80) -> str:
    """Run ``tokendesk ARGS`` with a real terminal (a pseudo-terminal) as its output, the
    terminal's own size (the ioctl a program asks) and COLUMNS both ``columns`` wide."""
    leader, follower = pty.openpty()
    fcntl.ioctl(follower, termios.TIOCSWINSZ, struct.pack("HHHH", 50, columns, 0, 0))
    env = {**os.environ, "COLUMNS": str(columns), "TERM": "xterm", "LINES": "50"}
    env.pop("NO_COLOR", None)
    process = subprocess.Popen(
        [sys.executable, "-m", "cli.main", *args],
        stdout=follower,
        stderr=follower,
        stdin=subprocess.DEVNULL,
        cwd=REPO_ROOT,
        env=env,
    )
    os.close(follower)
    chunks = []
    while True:
        try:
            chunk = os.read(leader, 65536)
        except OSError:  # the follower closed: the command has ended
            break
        if not chunk:
            break
        chunks.append(chunk)
    os.close(leader)
    assert process.wait(timeout=120) == 0, b"".join(chunks).decode(errors="replace")
    return ANSI.sub("", b"".join(chunks).decode("utf-8", errors="replace")).replace("\r\n", "\n")


def _assert_whole(text: str, expected: dict[str, set[str]]) -> None:
    lines = text.splitlines()
    for kind, values in expected.items():
        for value in values:
            assert any(value in line for line in lines), f"{kind} {value!r} is not whole:\n{text}"
    # Every amount and date printed is one of the real values, not a piece of one.
    printed_amounts = set(AMOUNT.findall(text))
    assert printed_amounts <= expected["amounts"], printed_amounts - expected["amounts"]
    assert set(DAY.findall(text)) <= expected["days"]


def test_costs_piped_at_80_columns_prints_one_unwrapped_line_per_option(db):
    records = _costs_json(db)
    done = runner.invoke(app, ["costs", "--db", str(db), "--limit", "10"], env={"COLUMNS": "80"})
    assert done.exit_code == 0, done.output
    _assert_whole(done.stdout, _expected_values(records))
    # A title, a header, one line per option and the closing sentence: nothing wrapped.
    assert len(done.stdout.splitlines()) == len(records) + 3, done.stdout


def test_costs_in_an_80_column_terminal_show_every_column_without_breaking_a_value(db):
    records = _costs_json(db)
    text = _run_in_terminal(["costs", "--db", str(db), "--limit", "10"])
    expected = _expected_values(records)
    # No column is left out at this width: the model each figure is for included.
    expected["models"] = {r["model"] for r in records}
    _assert_whole(text, expected)
    assert max(len(line) for line in text.splitlines()) <= 80, text
    assert "Not shown" not in text
    # Each record's pairs share lines: fewer lines than one per field of the 13 columns.
    assert len(text.splitlines()) < len(records) * 13, text


def test_db_info_keeps_snapshot_ids_and_dates_whole_in_a_terminal_and_piped(db):
    from warehouse import Warehouse

    with Warehouse.open(db, read_only=True) as warehouse:
        ids = set(warehouse.snapshots()["snapshot_id"])
    for text in (
        _run_in_terminal(["db", "info", "--db", str(db)]),
        runner.invoke(app, ["db", "info", "--db", str(db)], env={"COLUMNS": "80"}).stdout,
    ):
        lines = text.splitlines()
        for snapshot_id in ids:
            assert any(snapshot_id in line for line in lines), f"{snapshot_id}:\n{text}"
        assert not re.search(r"\d{4}-\s*\n", text), text


def test_a_message_keeps_a_long_path_and_the_snapshot_id_on_one_line_when_piped(tmp_path):
    """A temporary folder deep enough to pass 80 columns: ``ingested as`` stays with its path."""
    deep = tmp_path.joinpath(*(["a-rather-long-folder-name"] * 4))
    deep.mkdir(parents=True)
    sheet = deep / "extra.csv"
    sheet.write_text(
        "provider,region,instance_type,accelerator_id,accelerator_count,pricing_model,"
        "usd_per_hour,source,observed_at\n"
        "aws,us-east-1,p5.48xlarge,nvidia-h100-sxm-80gb,8,on_demand,50.0,my sheet,2026-11-20\n",
        encoding="utf-8",
    )
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "cli.main",
            "db",
            "ingest",
            str(sheet),
            "--db",
            str(deep / "w.duckdb"),
        ],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=REPO_ROOT,
        env={**os.environ, "COLUMNS": "80"},
    )
    assert done.returncode == 0, done.stderr
    assert re.search(rf"^{re.escape(str(sheet))}: ingested as prices-\S+$", done.stdout, re.M), (
        done.stdout
    )


# ---- the layout rules, on a grid alone ---------------------------------------------------------
def _grid() -> Grid:
    grid = Grid(title="options")
    grid.add_column("Where", priority=0, prose=True)
    grid.add_column("$/1K out", priority=0, justify="right")
    grid.add_column("Price date", priority=1)
    grid.add_column("Source", priority=2, prose=True)
    grid.add_row("aws · us-east-1 · p5en.48xlarge · On demand", "$0.000120", "2023-12-06", "x")
    grid.add_row("azure · eastus · Standard_ND96isr_H200_v5", "$207,874.80", "2024-08-28", "a b")
    return grid


def test_no_column_is_left_out_when_the_columns_do_not_fit_side_by_side():
    assert column_widths(_grid(), 60) is None  # stacked: every record shows every column
    text = render_text(_grid(), 60)
    for header in ("Where", "$/1K out", "Price date", "Source"):
        assert text.count(f"{header}: ") == 2, text
    assert max(len(line) for line in text.splitlines()) <= 60, text


def test_columns_that_fit_are_printed_side_by_side_with_prose_wrapped():
    widths = column_widths(_grid(), 80)
    assert widths is not None and len(widths) == 4
    text = render_text(_grid(), 80)
    assert "│ $207,874.80 │" in text and max(len(line) for line in text.splitlines()) <= 80


def test_too_narrow_for_the_essential_columns_prints_one_record_per_block():
    text = render_text(_grid(), 30)
    assert "$/1K out: $207,874.80" in text and "Price date: 2023-12-06" in text


@pytest.mark.parametrize("width", [40, 60, 80, 120])
def test_no_width_breaks_a_value(width):
    text = render_text(_grid(), width)
    for value in ("$0.000120", "$207,874.80", "2023-12-06", "p5en.48xlarge", "us-east-1"):
        assert value in text, text
    assert max(len(line) for line in text.splitlines()) <= max(width, 45)


def test_outside_a_terminal_every_row_is_one_plain_line():
    text = render_text(_grid(), 40, terminal=False)
    assert text.splitlines()[2].startswith("aws · us-east-1 · p5en.48xlarge · On demand")
    assert len(text.splitlines()) == 4


def test_prose_columns_wrap_between_words_only_in_an_80_column_terminal():
    from pricing.registry import PROVIDERS

    text = _run_in_terminal(["prices", "providers"])
    words = {w for spec in PROVIDERS.values() for w in f"{spec.description} {spec.needs}".split()}
    lines = text.splitlines()
    for word in words:
        assert any(word in line for line in lines), f"{word!r} is broken:\n{text}"
    assert max(len(line) for line in lines) <= 80, text


# ---- wrapping never separates a figure from its unit --------------------------------------------
@pytest.mark.parametrize("width", range(8, 40))
def test_a_figure_stays_with_its_unit_at_every_width(width):
    text = Text("FTL 258 ms vs 1,146 ms at 4,020 tok/s on Reserved 1 yr: a cut of 44%")
    lines = [line.plain for line in wrap_text(text, width)]
    for whole in ("258 ms", "1,146 ms", "4,020 tok/s", "1 yr", "44%"):
        assert any(whole in line for line in lines), (whole, lines)
    assert " ".join(lines).split() == text.plain.split()


def test_a_path_longer_than_the_line_is_cut_only_after_a_slash():
    path = "closed/NVIDIA/results/DGX-H100_H100-SXM-80GBx8_TRT/llama2-70b-99/Server/run_1/x.txt"
    lines = [line.plain for line in wrap_text(Text(f"source: {path}"), 40)]
    assert max(len(line) for line in lines) <= 40, lines
    assert "".join(lines) == f"source: {path}" and all(line.endswith("/") for line in lines[:-1])


# ---- the commands a person reads at 80 columns --------------------------------------------------
def _json(args: list[str]):
    done = runner.invoke(app, [*args, "--format", "json"])
    assert done.exit_code == 0, done.output
    return json.loads(done.stdout)


FUTURES = ["futures", "compare", "--from", "2025-03-31", "--to", "2026-11-30"]


@pytest.mark.parametrize(
    "args", [FUTURES, ["scenarios"], ["costs", "--limit", "20"], ["optimize"]], ids=" ".join
)
def test_every_line_fits_80_columns_with_no_markdown_escapes(db, args):
    text = _run_in_terminal([*args, "--db", str(db)])
    widest = max(text.splitlines(), key=len)
    assert len(widest) <= 80, widest
    assert "\\$" not in text and "| ---" not in text and "**" not in text, text


def test_scenarios_in_a_terminal_show_the_figure_their_verdicts_rest_on(db):
    plans = _json(["scenarios", "--db", str(db)])
    text = _run_in_terminal(["scenarios", "--db", str(db)])
    for plan in plans:
        figure = formatting.usd(plan["compared_usd_per_month"])
        assert f"$/month compared: {figure}" in text, (figure, text)


def test_optimize_in_a_terminal_shows_each_line_s_role(db):
    text = _run_in_terminal(["optimize", "--db", str(db)])
    assert text.count("Role: ") >= 2, text


def test_futures_compare_keeps_every_figure_whole_in_a_terminal_and_piped(db):
    report = _json([*FUTURES, "--db", str(db)])
    assert report["suggestions"], "the seed has suggestions to print"
    terminal = _run_in_terminal([*FUTURES, "--db", str(db)])
    env = {k: v for k, v in os.environ.items() if k != "COLUMNS"}
    piped = subprocess.run(
        [sys.executable, "-m", "cli.main", *FUTURES, "--db", str(db)],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=REPO_ROOT,
        env=env,
    )
    assert piped.returncode == 0, piped.stderr
    piped_lines = piped.stdout.splitlines()
    for row in report["suggestions"]:
        ftl = formatting.ms(row["ftl_ms"])
        price = formatting.usd_per_1k(row["usd_per_1k_output"])
        assert f"ftl ms: {ftl}" in terminal, (ftl, terminal)
        # Piped, one suggestion is one line holding all its values.
        assert any(
            row["instance_type"] in line and ftl in line and price in line and row["rule"] in line
            for line in piped_lines
        ), row
    assert "\\$" not in piped.stdout and "| ---" not in piped.stdout
