"""Any command may be the first one a new install runs: each that reads the warehouse finds it
whole (every migration and the bundled data, ``warehouse.files.missing_parts``) or builds it
first, and a warehouse whose build stopped between its schema and its data is built again,
never read as an empty market.

Every command of the CLI is listed from the typer app itself, so a new command fails
``test_every_command_is_run_first_or_said_why_not`` until it is given an invocation here."""

from __future__ import annotations

import csv
import json
import os
import random
import shutil
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import duckdb
import pytest
from typer.testing import CliRunner

from cli import dashboard_command
from cli.main import COMMANDS, app, load_command
from pricing.integrity import check_price_file
from tokendesk.paths import DATA_DIR_ENV, DB_PATH_ENV, data_dir
from warehouse import Warehouse
from warehouse import store as warehouse_store
from warehouse.bundled import MARKET_PRICES, MARKET_RESULTS, SEED_PRICES
from warehouse.files import BUNDLED_DATA, is_up_to_date, missing_parts

runner = CliRunner()


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


FREE_PORT = _free_port()
ROOT = Path(__file__).resolve().parents[2]
REAL = ROOT / "tests" / "fixtures" / "real"
PRICE_SHEET = (
    "defaults: {provider: lambda, source: Lambda pricing page, observed_at: 2026-09-01}\n"
    "quotes:\n  - {instance_type: gpu_8x_h100_sxm5, region: us-east-1,"
    " accelerator_id: nvidia-h100-sxm-80gb, accelerator_count: 8, pricing_model: on_demand,"
    " usd_per_hour: 23.92}\n"
)

#: A minimal valid invocation of every command (the words after ``tokendesk``; the warehouse is
#: named by the case), and the exit code it ends with on a new install. Exit 2 is a refusal in
#: words (an unknown snapshot), which still reads the warehouse first.
INVOCATIONS: dict[str, tuple[list[str], int]] = {
    "app": (["--port", "8642"], 0),
    "audit": ([str(REAL / "audit" / "micrograd"), "--format", "json"], 0),
    "bench import": (
        [str(REAL / "vllm" / "openai-chat-infqps-concurrency4-echo-1-20261201-101900.json")],
        2,  # the file names no accelerator: refused in words, after the warehouse was read
    ),
    "bench import-tree": (
        [str(REAL / "mlperf_v5.0"), "--accelerator", "nvidia-h100-nvl-94gb"]
        + ["--accelerators-per-replica", "8", "--precision", "fp8", "--format", "json"],
        0,
    ),
    "bench results": (["--format", "json"], 0),
    "bench retract": (["no-such-snapshot", "--reason", "a first-command check"], 2),
    "bench serve-fake": (["--port", str(FREE_PORT), "--duration-s", "0.01"], 0),
    "bench verify-bundle": ([str(ROOT / "data" / "model_bundles" / "fake-echo-1-bf16")], 0),
    "brief": ([], 0),
    "commit": (["--format", "json"], 0),
    "costs": (["--format", "json", "--limit", "1"], 0),
    "db info": (["--format", "json"], 0),
    "db ingest": ([str(ROOT / "tests" / "fixtures" / "warehouse" / "seed_results.csv")], 0),
    "db init": ([], 0),
    "db migrate": (["--to", "ducklake:postgres:dbname=none host=127.0.0.1 port=9"], 2),
    "db rebuild": ([], 0),
    "db retract": (["no-such-snapshot", "--reason", "a first-command check"], 2),
    "estimate validate": (["--format", "json"], 0),
    "futures close": (["--by", "procurement"], 0),
    "futures compare": ([], 0),
    "futures decide": (
        ["--subject", "p5.48xlarge", "--decision", "defer", "--rationale", "r", "--by", "p"],
        0,
    ),
    "futures log": ([], 0),
    "gate": (
        ["--baseline", str(ROOT / "tests" / "fixtures" / "warehouse" / "seed_results.csv")]
        + ["--candidate", str(ROOT / "tests" / "fixtures" / "warehouse" / "seed_results.csv")],
        0,
    ),
    "optimize": (["--format", "json"], 0),
    "prices integrity": ([], 0),
    "prices list": (["--format", "json"], 0),
    "prices providers": ([], 0),
    "prices refresh": (["--provider", "sheets"], 0),
    "scenarios": (["--format", "json"], 0),
    "workspace audit": ([str(REAL / "audit" / "micrograd")], 0),
    "workspace demand-from": (
        [str(REAL / "traces" / "AzureLLMInferenceTrace_code_first2000.csv"), "--format", "json"],
        0,
    ),
    "workspace export": ([], 0),
    "workspace from-bill": (
        [str(ROOT / "tests" / "fixtures" / "bills" / "aws_focus_1_2_gpu_fleet.csv")]
        + ["--format", "json"],
        0,
    ),
    "workspace import": ([str(ROOT / "data" / "workspace_example.yaml")], 0),
    "workspace versions": ([], 0),
}

#: Commands that never open the warehouse, and why: run first, they must leave no file at all
#: (the command after them builds it). Every other command must leave it whole.
NO_WAREHOUSE: dict[str, str] = {
    "app": "becomes the dashboard's server, which builds the warehouse with `db init` before"
    " it listens when `warehouse.files.is_up_to_date` says it is not whole (checked below)",
    "audit": "reads a repository's files only",
    "bench serve-fake": "serves a fake endpoint (stopped at once here); no warehouse",
    "bench verify-bundle": "checks a model bundle's files only",
    "db migrate": "copies an existing warehouse file; on a new install there is none, refused",
    "prices providers": "lists the providers' settings only",
    "workspace demand-from": "reads a trace file only; the workspace is unchanged",
}

#: Commands not run here, and why. A command absent from INVOCATIONS must be named here.
EXEMPT: dict[str, str] = {
    "bench run": "needs a serving endpoint and minutes of load; it opens the warehouse only to"
    " record its points, through the same Warehouse.open(seed_check=...) as every command",
}

#: Ways a new install names its warehouse; each command runs with one of them (in turn).
WAYS = ("--db", DB_PATH_ENV, "HOME")


def leaf_commands() -> list[str]:
    """Every command a person can run ("db init", "optimize", ...), from the app's own tree."""

    def walk(command: Any, path: list[str]) -> list[str]:
        children = getattr(command, "commands", None)
        if not children:
            return [" ".join(path)]
        return [leaf for name, c in children.items() for leaf in walk(c, [*path, name])]

    return sorted(leaf for name in COMMANDS for leaf in walk(load_command(name), [name]))


def data_kinds(db: Path) -> set[str]:
    """The kinds of good snapshot with rows the file holds, read without building anything."""
    with duckdb.connect(str(db), read_only=True) as connection:
        assert missing_parts(connection) == [], f"{db} is not whole"
        rows = connection.execute(
            "SELECT DISTINCT kind FROM snapshots WHERE status = 'ok' AND row_count > 0"
        ).fetchall()
    return {kind for (kind,) in rows}


@pytest.fixture(scope="module")
def small_data(tmp_path_factory) -> Path:
    """The bundled data/ with the curated prices of the example fleet's cloud (AWS) and of every
    AMD part (its vendor-share cap needs them), and the curated results, read from the bundled
    files: every command's first run builds from it in a fraction of the whole data's time;
    ``optimize`` below builds from the whole data/."""
    folder = tmp_path_factory.mktemp("small") / "data"
    shutil.copytree(
        data_dir(), folder, ignore=shutil.ignore_patterns(MARKET_PRICES, MARKET_RESULTS)
    )
    with (data_dir() / SEED_PRICES).open(newline="", encoding="utf-8") as handle:
        rows = [
            row
            for row in csv.DictReader(handle)
            if row["provider"] == "aws" or row["accelerator_id"].startswith("amd-")
        ]
    with (folder / SEED_PRICES).open("w", newline="", encoding="utf-8") as handle:
        writer = csv.DictWriter(handle, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)
    return folder


@pytest.fixture(scope="module")
def built(tmp_path_factory) -> Path:
    """One warehouse built by `tokendesk db init` from the whole bundled data, shared by the
    tests that only read it."""
    db = tmp_path_factory.mktemp("built") / "tokendesk.duckdb"
    done = runner.invoke(app, ["db", "init", "--db", str(db)])
    assert done.exit_code == 0, done.output
    return db


def test_every_command_is_run_first_or_said_why_not():
    commands = set(leaf_commands())
    assert len(commands) > 30  # a guard: an empty walk would pass
    assert not commands - INVOCATIONS.keys() - EXEMPT.keys(), "give the new command a row"
    assert not (INVOCATIONS.keys() | EXEMPT.keys() | NO_WAREHOUSE.keys()) - commands, "stale rows"
    assert not INVOCATIONS.keys() & EXEMPT.keys()


def _first_run(command: str, way: str, home: Path, monkeypatch) -> tuple[Any, Path]:
    """Run ``command`` as the first command of a new install whose warehouse is named ``way``;
    return the result and where its warehouse is."""
    words, _ = INVOCATIONS[command]
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.delenv("XDG_DATA_HOME", raising=False)
    monkeypatch.delenv(DB_PATH_ENV, raising=False)
    db = home / "named" / "tokendesk.duckdb"
    args = [*command.split(), *words]
    if way == "--db" and "--db" in _options(command):
        args += ["--db", str(db)]
    elif way == "HOME" or "--db" not in _options(command):
        db = home / ".local" / "share" / "tokendesk" / "tokendesk.duckdb"
    else:
        monkeypatch.setenv(DB_PATH_ENV, str(db))
    return runner.invoke(app, args), db


def _options(command: str) -> set[str]:
    """The option names ``command`` takes."""
    leaf: Any = load_command(command.split()[0])
    for name in command.split()[1:]:
        leaf = leaf.commands[name]
    return {opt for param in leaf.params for opt in getattr(param, "opts", [])}


@pytest.mark.parametrize("command", sorted(INVOCATIONS))
def test_a_first_command_leaves_the_warehouse_whole_or_untouched(
    command, small_data, tmp_path, monkeypatch
):
    monkeypatch.setenv(DATA_DIR_ENV, str(small_data))
    sheets = tmp_path / "sheets"
    sheets.mkdir()
    (sheets / "lambda.yaml").write_text(PRICE_SHEET, encoding="utf-8")
    monkeypatch.setenv("TOKENDESK_PRICE_SHEETS", str(sheets))
    monkeypatch.setattr(dashboard_command.os, "execv", lambda _exe, _argv: None)
    monkeypatch.setattr(dashboard_command.os, "chdir", lambda _path: None)
    way = WAYS[sorted(INVOCATIONS).index(command) % len(WAYS)]
    result, db = _first_run(command, way, tmp_path / "home", monkeypatch)
    assert result.exception is None or isinstance(result.exception, SystemExit), result.output
    assert result.exit_code == INVOCATIONS[command][1], result.output
    if command in NO_WAREHOUSE:
        assert not db.exists(), f"{command} touched the warehouse: {NO_WAREHOUSE[command]}"
        return
    assert db.exists(), f"{command} run first ({way}) left no warehouse at {db}"
    assert {"prices", "benchmarks"} <= data_kinds(db), f"{command} left it without data"


def test_optimize_first_gives_the_example_s_optimal_fleet(built, tmp_path, monkeypatch):
    # The whole bundled data, as a new install has it: the answer equals the one after db init.
    monkeypatch.delenv(DATA_DIR_ENV, raising=False)
    first_db = tmp_path / "new" / "tokendesk.duckdb"
    first = runner.invoke(app, ["optimize", "--format", "json", "--db", str(first_db)])
    after_init = runner.invoke(app, ["optimize", "--format", "json", "--db", str(built)])
    assert first.exit_code == 0 and after_init.exit_code == 0, first.output + after_init.output
    mine, theirs = json.loads(first.stdout), json.loads(after_init.stdout)
    assert mine["solver_status"] == "optimal" and mine["proven_optimal"]
    assert mine["fleet"] and mine["fleet"] == theirs["fleet"]
    assert mine["objective_usd_per_month"] == theirs["objective_usd_per_month"]


def _schema_without_data(db: Path) -> Path:
    """The file a build leaves when it stops between its schema and its data."""
    Warehouse.open(db, build=False).close()
    with duckdb.connect(str(db), read_only=True) as connection:
        assert missing_parts(connection) == [BUNDLED_DATA]
    return db


def test_a_build_that_failed_after_its_schema_is_built_again_by_the_next_command(
    built, tmp_path, monkeypatch
):
    db = tmp_path / "w.duckdb"

    def fail_to_load(*_args: Any, **_kwargs: Any) -> None:
        raise OSError(28, "No space left on device")

    with monkeypatch.context() as patched:
        patched.setattr(warehouse_store, "load_seed", fail_to_load)
        with pytest.raises(OSError):
            Warehouse.open(db, seed_check=check_price_file)
    assert not is_up_to_date(str(db))  # the dashboard's server would run `db init` first
    from app.serve import build_command

    init, _ = build_command(["--warehouse", str(db), "run"])
    assert init is not None and init[-5:] == ["db", "init", "--db", str(db), "--no-solve-ahead"]
    costs = runner.invoke(app, ["costs", "--format", "json", "--limit", "1", "--db", str(db)])
    assert costs.exit_code == 0, costs.output
    assert json.loads(costs.stdout), "the market was read empty"
    assert data_kinds(db) == data_kinds(built)
    assert is_up_to_date(str(db))


def test_a_schema_without_data_is_filled_once_and_never_copied_empty(tmp_path):
    db = _schema_without_data(tmp_path / "w.duckdb")
    migrate = runner.invoke(
        app, ["db", "migrate", "--to", "ducklake:postgres:dbname=x", "--db", str(db)]
    )
    assert migrate.exit_code == 2 and "is not whole" in migrate.output, migrate.output
    info = runner.invoke(app, ["db", "info", "--format", "json", "--db", str(db)])
    assert info.exit_code == 0, info.output
    snapshots = json.loads(info.stdout)
    again = json.loads(
        runner.invoke(app, ["db", "info", "--format", "json", "--db", str(db)]).stdout
    )
    assert {s["kind"] for s in snapshots if s["row_count"] > 0} >= {"prices", "benchmarks"}
    assert len(again) == len(snapshots)  # loaded once: the second open finds it whole


def test_a_refused_seed_is_said_in_words_and_writes_nothing(small_data, tmp_path, monkeypatch):
    folder = tmp_path / "data"
    shutil.copytree(small_data, folder)
    prices = folder / "seed_prices.csv"
    with prices.open(newline="", encoding="utf-8") as handle:
        rows = list(csv.DictReader(handle))
    rows[0]["usd_per_hour"] = "-1"
    with prices.open("w", newline="", encoding="utf-8") as handle:
        writer = csv.DictWriter(handle, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)
    monkeypatch.setenv(DATA_DIR_ENV, str(folder))
    db = _schema_without_data(tmp_path / "w.duckdb")
    done = subprocess.run(
        [sys.executable, "-m", "cli.main", "optimize", "--db", str(db)],
        capture_output=True,
        text=True,
        cwd=ROOT,
        env={**os.environ, DATA_DIR_ENV: str(folder)},
        timeout=120,
    )
    assert done.returncode in (1, 2), done.stdout + done.stderr
    assert "seed_prices.csv: row 2" in done.stderr and "fault in tokendesk" not in done.stderr
    assert not is_up_to_date(str(db))
    # On a new path the same refusal leaves the migrated file without data (as an interrupted
    # fill would) and no staging file beside it.
    fresh = tmp_path / "new" / "w.duckdb"
    init = runner.invoke(app, ["db", "init", "--db", str(fresh)])
    assert init.exit_code == 1 and "seed_prices.csv: row 2" in init.output, init.output
    assert fresh.exists() and not is_up_to_date(str(fresh))
    assert not list(fresh.parent.glob(".w.duckdb.building-*"))


def test_db_init_killed_at_any_moment_leaves_a_warehouse_the_next_command_builds(
    small_data, tmp_path, monkeypatch
):
    # SIGKILL `db init` at a moment drawn within its writes (from when its staging file
    # appears); whatever it left, the next command finds the warehouse whole or builds it: never
    # an empty market, never a file DuckDB cannot open.
    monkeypatch.setenv(DATA_DIR_ENV, str(small_data))
    draw = random.Random(43)
    left: list[str] = []
    for attempt in range(6):
        db = tmp_path / f"killed{attempt}.duckdb"
        init = subprocess.Popen(
            [sys.executable, "-m", "cli.main", "db", "init", "--db", str(db)],
            env={**os.environ, DATA_DIR_ENV: str(small_data)},
            cwd=ROOT,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        deadline = time.monotonic() + 60
        while (
            not any(tmp_path.glob(f"*killed{attempt}.duckdb*"))
            and init.poll() is None
            and time.monotonic() < deadline
        ):
            time.sleep(0.005)
        time.sleep(draw.uniform(0.0, 0.8))
        init.send_signal(signal.SIGKILL)
        init.wait(timeout=30)
        left.append("whole" if is_up_to_date(str(db)) else "part" if db.exists() else "none")
        after = runner.invoke(app, ["prices", "list", "--format", "json", "--db", str(db)])
        assert after.exit_code == 0, after.output
        assert json.loads(after.stdout), f"an empty market after a kill that left {left[-1]}"
        assert {"prices", "benchmarks"} <= data_kinds(db)
        # The dead build's staging file is swept by the next build, or was never left.
        assert not [p.name for p in tmp_path.glob(f".killed{attempt}.duckdb.building-*")]
    print("db init killed; it left:", left)
    assert "part" not in left  # the file appears whole or not at all


def test_a_log_duckdb_cannot_replay_is_said_in_words_and_rebuild_mends_it(
    small_data, tmp_path, monkeypatch
):
    # A write-ahead log that does not belong to its file (what some kills leave) makes DuckDB
    # raise an internal error on open; the command says what happened and how to mend it.
    monkeypatch.setenv(DATA_DIR_ENV, str(small_data))  # up to date: with the data it was built from
    env = {**os.environ, DATA_DIR_ENV: str(small_data)}
    db = tmp_path / "w.duckdb"
    assert runner.invoke(app, ["db", "init", "--db", str(db)], env=env).exit_code == 0
    other = tmp_path / "other.duckdb"
    subprocess.run(
        [
            sys.executable,
            "-c",
            "import duckdb, os, sys\n"
            "c = duckdb.connect(sys.argv[1]); c.execute('CREATE TABLE t (x INT)'); c.close()\n"
            "c = duckdb.connect(sys.argv[1]); c.execute('INSERT INTO t VALUES (1)')\n"
            "os._exit(0)  # killed before its log is checkpointed",
            str(other),
        ],
        check=True,
        timeout=60,
    )
    shutil.copy(f"{other}.wal", f"{db}.wal")

    def tokendesk(*args: str) -> subprocess.CompletedProcess:
        return subprocess.run(
            [sys.executable, "-m", "cli.main", *args, "--db", str(db)],
            capture_output=True,
            text=True,
            cwd=ROOT,
            env=env,
            timeout=300,
        )

    listed = tokendesk("prices", "list")
    assert listed.returncode != 0
    assert "cannot replay the log" in listed.stderr and "tokendesk db rebuild" in listed.stderr
    assert "Traceback" not in listed.stderr and "INTERNAL" not in listed.stderr
    rebuilt = tokendesk("db", "rebuild")
    assert rebuilt.returncode == 0, rebuilt.stderr
    assert is_up_to_date(str(db)) and list(tmp_path.glob("w.*.bak.duckdb.wal"))
