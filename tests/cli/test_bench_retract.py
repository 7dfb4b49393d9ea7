"""`tokendesk bench retract`: one marker per import, refused (exit 2, nothing written) otherwise."""

import pytest

from cli.main import main
from tests.factories import content_digest, result, seeded_warehouse
from warehouse import Warehouse

MODEL = "retraction-probe-70b"


@pytest.fixture
def cli(capsys, monkeypatch):
    """Run ``tokendesk ARGS`` as a person would (exit code, stdout + stderr)."""
    monkeypatch.setenv("COLUMNS", "400")

    def run(*args: str) -> tuple[int, str]:
        try:
            main(list(args))
            code = 0
        except SystemExit as exc:
            code = exc.code or 0
        captured = capsys.readouterr()
        return code, captured.out + captured.err

    return run


@pytest.fixture
def imported(tmp_path):
    path = tmp_path / "cli.duckdb"
    with seeded_warehouse(path) as wh:
        snapshot = wh.ingest_results("import:test", [result(model=MODEL)], origin="import")
    return path, snapshot


def _digest(path):
    with Warehouse.open(path, read_only=True) as wh:
        return content_digest(wh)


def _costs(cli, path):
    code, out = cli("costs", "--db", str(path), "--model", MODEL, "--format", "json")
    assert code == 0, out
    return out


def test_retract_takes_the_results_out_of_the_costs_and_says_so(imported, cli):
    path, snapshot = imported
    assert MODEL in _costs(cli, path)
    code, out = cli(
        "bench", "retract", snapshot, "--reason", "a test run", "--by", "ana", "--db", str(path)
    )
    assert code == 0, out
    assert f"retracted snapshot {snapshot} (1 result(s)) on " in out
    assert "UTC by ana: a test run" in out
    assert MODEL not in _costs(cli, path)
    code, info = cli("db", "info", "--db", str(path))
    assert code == 0 and "retracted" in info and "a test run" in info


def test_retracting_twice_exits_2_with_the_first_retraction_and_writes_nothing(imported, cli):
    path, snapshot = imported
    args = [
        "bench",
        "retract",
        snapshot,
        "--reason",
        "a test run",
        "--by",
        "ana",
        "--db",
        str(path),
    ]
    assert cli(*args)[0] == 0
    before = _digest(path)
    code, out = cli(*args)
    assert code == 2
    assert "was already retracted on" in out and "by ana: a test run" in out
    assert "Traceback" not in out
    assert _digest(path) == before


def test_an_unknown_snapshot_exits_2_and_writes_nothing(imported, cli):
    path, _ = imported
    before = _digest(path)
    code, out = cli("bench", "retract", "benchmarks-nope", "--reason", "x", "--db", str(path))
    assert code == 2
    assert "no snapshot 'benchmarks-nope'; `tokendesk db info` lists every snapshot id" in out
    assert _digest(path) == before
