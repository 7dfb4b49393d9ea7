"""The hostile-input corpus (tests/fixtures/hostile/, written by its generate.py): every
malformed or hostile file is rejected by ``db ingest``, ``bench import`` or ``workspace import``
with a plain error that names the file (and row and field where there is one), exit code 2, no
traceback, no escape sequence, no secret in the output or in the stored failure, and the
warehouse's data unchanged; a refused price or result file is recorded as a failed snapshot.
Every case is bounded: it must finish within ``CASE_LIMIT_S`` and allocate less than
``CASE_MEMORY_BYTES`` (alias bombs, /dev/zero and pipes included), and print a short message."""

from __future__ import annotations

import contextlib
import errno
import hashlib
import json
import os
import shutil
import signal
import time
import tracemalloc
from collections.abc import Iterator
from pathlib import Path

import pytest

from cli.main import main
from tests.factories import seeded_warehouse
from tokendesk.textsafety import MAX_FILE_BYTES, clean_text
from warehouse import Warehouse

CORPUS = Path(__file__).parent / "fixtures" / "hostile"
MANIFEST = json.loads((CORPUS / "cases.json").read_text(encoding="utf-8"))
SECRETS: list[str] = MANIFEST["secrets"]
CASES: list[dict] = MANIFEST["cases"]
FILE_CASES = [c for c in CASES if c["command"] in ("ingest", "import")]
WORKSPACE_CASES = [c for c in CASES if c["command"] == "workspace"]
BILL_CASES = [c for c in CASES if c["command"] == "from-bill"]
TRACE_CASES = [c for c in CASES if c["command"] == "demand-from"]
CLI_CASES = [c for c in CASES if c["command"] == "cli"]
#: Wall-clock bound of one case (the slowest take about a second on a loaded machine).
CASE_LIMIT_S = 30
#: Python allocations one case may make (an expanded alias bomb would take gigabytes).
CASE_MEMORY_BYTES = 256 * 1024 * 1024
#: Longest output a refusal may print: a sentence per rejected file, never the input echoed.
MAX_OUTPUT_CHARS = 3_000


def data_digest(warehouse: Warehouse) -> str:
    """A digest of every stored figure: all tables, snapshots other than failed attempts."""
    digest = hashlib.sha256()
    for sql in (
        "SELECT * FROM snapshots WHERE status <> 'failed' ORDER BY ALL",
        "SELECT * FROM price_quotes ORDER BY ALL",
        "SELECT * FROM benchmark_results ORDER BY ALL",
        "SELECT * FROM integrity_checks ORDER BY ALL",
        "SELECT * FROM accelerators ORDER BY ALL",
    ):
        digest.update(warehouse.query(sql).to_csv(index=False).encode())
    return digest.hexdigest()


@pytest.fixture(scope="module")
def template(tmp_path_factory) -> tuple[Path, str]:
    """A warehouse built from data/ and its digest (each case starts from a copy of it)."""
    path = tmp_path_factory.mktemp("hostile") / "template.duckdb"
    with seeded_warehouse(path) as warehouse:
        return path, data_digest(warehouse)


def _materialise(name: str, tmp_path: Path) -> tuple[str, str]:
    """(argument to pass, the name the error must show) for one corpus file or marker."""
    if name == "@devzero":
        return "/dev/zero", "/dev/zero"
    if name == "@directory":
        return str(tmp_path), tmp_path.name
    if name == "@missing":
        return str(tmp_path / "no_such_file.csv"), "no_such_file.csv"
    if name == "@oversized":
        big = tmp_path / "oversized.csv"
        with big.open("wb") as handle:  # sparse: costs no disk
            handle.truncate(MAX_FILE_BYTES + 1)
        return str(big), "oversized.csv"
    if name == "@fifo":
        fifo = tmp_path / "workspace.yaml"
        os.mkfifo(fifo)  # nobody ever writes: a read would block forever
        return str(fifo), "workspace.yaml"
    if name == "@oversized_workspace":
        big = tmp_path / "big_workspace.yaml"
        big.write_text("# padding\n" * 60_000, encoding="utf-8")  # 600 KiB of comments
        return str(big), "big_workspace.yaml"
    if name == "@oversized_trace":
        big = tmp_path / "trace_50m_rows.csv"
        with big.open("wb") as handle:  # sparse: the size a 50M-row trace has, no disk used
            handle.write(b"TIMESTAMP,ContextTokens,GeneratedTokens\n")
            handle.truncate(50_000_000 * 42)
        return str(big), "trace_50m_rows.csv"
    if name == "@deep_tree":
        folder = tmp_path / "tree"
        folder.mkdir()
        deepest = os.open(folder, os.O_RDONLY)
        for _ in range(3000):  # relative to a folder handle: the path outgrows PATH_MAX
            os.mkdir("d", dir_fd=deepest)
            inner = os.open("d", os.O_RDONLY, dir_fd=deepest)
            os.close(deepest)
            deepest = inner
        os.close(os.open("summary_results.json", os.O_CREAT | os.O_WRONLY, dir_fd=deepest))
        os.close(deepest)
        return str(folder), "tree"
    if name == "@many_regions_prices":
        # 4,000 regions of one H100 instance: each region joins every H100 result, which puts
        # the options to plan on past the engine's limit (the quotes themselves are fine).
        prices = tmp_path / "many_regions.csv"
        header = "provider,region,instance_type,accelerator_id,accelerator_count,pricing_model,"
        rows = [
            f"acme,r-{i:05d},x8,nvidia-h100-sxm-80gb,8,on_demand,"
            f"{20 + (i % 97) / 10},acme sheet,2026-11-01"
            for i in range(4_000)
        ]
        text = header + "usd_per_hour,source,observed_at\n" + "\n".join(rows) + "\n"
        prices.write_text(text, encoding="utf-8")
        return str(prices), "many_regions.csv"
    if name == "@missing_folder_file":
        return str(tmp_path / "no_such_folder" / "out.json"), "out.json"
    if name == "@ansi_name":
        hostile = tmp_path / "evil\x1b[2J\x1b[31mname.csv"
        hostile.write_bytes((CORPUS / "name_ansi_red_provider.csv").read_bytes())
        return str(hostile), "evil"
    return str(CORPUS / name), name


class CaseTookTooLong(Exception):
    pass


#: Per case: surface, seconds and peak Python allocation, and whether it faulted or hung. With
#: ``TOKENDESK_HOSTILE_REPORT=path`` the table is written there when the module ends.
MEASURED: dict[str, dict] = {}


@contextlib.contextmanager
def bounded(case_id: str = "", surface: str = "") -> Iterator[None]:
    """Fail (not hang) past ``CASE_LIMIT_S``; fail past ``CASE_MEMORY_BYTES`` allocated; record
    the time and the peak allocation under ``case_id``."""

    def _alarm(signum, frame):
        raise CaseTookTooLong(f"the case ran past {CASE_LIMIT_S} s")

    previous = signal.signal(signal.SIGALRM, _alarm)
    signal.alarm(CASE_LIMIT_S)
    tracemalloc.start()
    started = time.perf_counter()
    hung = False
    try:
        yield
    except CaseTookTooLong:
        hung = True
        raise
    finally:
        seconds = time.perf_counter() - started
        _, peak = tracemalloc.get_traced_memory()
        tracemalloc.stop()
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)
        if case_id:
            MEASURED[case_id] = {
                "surface": surface,
                "seconds": round(seconds, 3),
                "peak_bytes": peak,
                "hung": hung,
            }
    assert peak < CASE_MEMORY_BYTES, f"the case allocated {peak / 2**20:.0f} MiB"


def _summary() -> dict[str, dict]:
    """Per surface: cases, faults, hangs, the longest time and the largest peak allocation."""
    out: dict[str, dict] = {}
    for row in MEASURED.values():
        s = out.setdefault(
            row["surface"],
            {"cases": 0, "faults": 0, "hangs": 0, "max_seconds": 0.0, "max_peak_mib": 0.0},
        )
        s["cases"] += 1
        s["faults"] += int(row.get("fault", False))
        s["hangs"] += int(row["hung"])
        s["max_seconds"] = max(s["max_seconds"], row["seconds"])
        s["max_peak_mib"] = max(s["max_peak_mib"], round(row["peak_bytes"] / 2**20, 1))
    return out


@pytest.fixture(scope="module", autouse=True)
def _report() -> Iterator[None]:
    yield
    target = os.environ.get("TOKENDESK_HOSTILE_REPORT")
    if target:
        Path(target).write_text(
            json.dumps({"surfaces": _summary(), "cases": MEASURED}, indent=1), encoding="utf-8"
        )


COMMANDS = {
    "ingest": ["db", "ingest"],
    "import": ["bench", "import"],
    "workspace": ["workspace", "import"],
    # --save: a bill that got past the checks would be stored; JSON: what a script would read.
    "from-bill": ["workspace", "from-bill"],
    "demand-from": ["workspace", "demand-from"],
}
OPTIONS = {"from-bill": ["--save", "--format", "json"], "demand-from": ["--format", "json"]}
#: Commands that only read a file (no warehouse option).
NO_DB = {"demand-from"}
SURFACES = {
    "ingest": "db ingest",
    "import": "bench import",
    "workspace": "workspace import",
    "from-bill": "workspace from-bill",
    "demand-from": "workspace demand-from",
}


def _run(entry: dict, db: Path, tmp_path: Path, capsys) -> tuple[int, str, tuple[str, ...]]:
    args, shown = zip(*(_materialise(name, tmp_path) for name in entry["files"]), strict=True)
    command = entry["command"]
    with bounded(entry["id"], SURFACES[command]), pytest.raises(SystemExit) as exit_info:
        db_args = [] if command in NO_DB else ["--db", str(db)]
        main([*COMMANDS[command], *args, *OPTIONS.get(command, []), *db_args])
    out = capsys.readouterr()
    output = out.out + out.err
    MEASURED[entry["id"]]["fault"] = "fault in tokendesk" in output
    return exit_info.value.code, output, shown


@pytest.mark.parametrize("entry", FILE_CASES, ids=[c["id"] for c in FILE_CASES])
def test_hostile_input_is_rejected_plainly_and_changes_nothing(entry, template, tmp_path, capsys):
    db = tmp_path / "w.duckdb"
    shutil.copy(template[0], db)
    code, output, shown = _run(entry, db, tmp_path, capsys)

    assert code == 2, output
    assert "Traceback" not in output and 'File "' not in output
    assert "\x1b" not in output and "\x9b" not in output
    for secret in SECRETS:
        assert secret not in output
    lowered = " ".join(output.lower().split())
    for fragment in entry["expect"]:
        assert fragment.lower() in lowered, output
    # The file at fault is named (a name that is itself a secret is shown redacted).
    culprit = clean_text(Path(shown[-1]).name)
    assert culprit in output or "[redacted" in output, output

    with Warehouse.open(db, read_only=True) as warehouse:
        assert data_digest(warehouse) == template[1], "a rejected input changed the warehouse"
        errors = warehouse.query("SELECT source, error FROM snapshots WHERE status = 'failed'")
    assert len(errors) >= 1, "the failed attempt was not recorded"
    stored = " ".join(errors.source) + " ".join(errors.error)
    assert "\x1b" not in stored
    for secret in SECRETS:
        assert secret not in stored


def _workspace_versions(db: Path) -> str:
    with Warehouse.open(db, read_only=True) as warehouse:
        return warehouse.query("SELECT * FROM workspaces ORDER BY ALL").to_csv(index=False)


@pytest.mark.parametrize("entry", WORKSPACE_CASES, ids=[c["id"] for c in WORKSPACE_CASES])
def test_hostile_workspace_is_refused_briefly_and_changes_nothing(
    entry, template, tmp_path, capsys
):
    db = tmp_path / "w.duckdb"
    shutil.copy(template[0], db)
    before = _workspace_versions(db)
    code, output, shown = _run(entry, db, tmp_path, capsys)

    assert code == 2, output
    assert "fault in tokendesk" not in output and "Traceback" not in output
    assert "\x1b" not in output and "\u202e" not in output
    assert len(output) < MAX_OUTPUT_CHARS, f"{len(output)} characters: {output[:300]}"
    lowered = " ".join(output.lower().split())
    for fragment in entry["expect"]:
        assert fragment.lower() in lowered, output
    assert clean_text(Path(shown[-1]).name) in output, output
    assert "warehouse is unchanged" in lowered
    assert _workspace_versions(db) == before


@pytest.mark.parametrize("entry", BILL_CASES, ids=[c["id"] for c in BILL_CASES])
def test_hostile_bill_is_refused_by_file_row_and_column_and_saves_nothing(
    entry, template, tmp_path, capsys
):
    db = tmp_path / "w.duckdb"
    shutil.copy(template[0], db)
    before = _workspace_versions(db)
    code, output, shown = _run(entry, db, tmp_path, capsys)

    assert code == 2, output
    assert "fault in tokendesk" not in output and "Traceback" not in output
    assert "\x1b" not in output and "\u202e" not in output
    assert len(output) < MAX_OUTPUT_CHARS, f"{len(output)} characters: {output[:300]}"
    lowered = " ".join(output.lower().split())
    for fragment in entry["expect"]:
        assert fragment.lower() in lowered, output
    assert clean_text(Path(shown[-1]).name) in output, output
    assert "warehouse is unchanged" in lowered
    assert _workspace_versions(db) == before
    with Warehouse.open(db, read_only=True) as warehouse:
        assert data_digest(warehouse) == template[1]


@pytest.mark.parametrize("entry", TRACE_CASES, ids=[c["id"] for c in TRACE_CASES])
def test_hostile_trace_is_refused_by_file_and_line_in_bounded_time(
    entry, template, tmp_path, capsys
):
    db = tmp_path / "w.duckdb"
    shutil.copy(template[0], db)
    code, output, shown = _run(entry, db, tmp_path, capsys)

    assert code == 2, output
    assert "fault in tokendesk" not in output and "Traceback" not in output
    assert len(output) < MAX_OUTPUT_CHARS, f"{len(output)} characters: {output[:300]}"
    lowered = " ".join(output.lower().split())
    for fragment in entry["expect"]:
        assert fragment.lower() in lowered, output
    assert clean_text(Path(shown[-1]).name) in output, output


def _remove_deep_tree(folder: Path) -> None:
    """Remove the 3,000-deep tree bottom-up without recursion (shutil.rmtree, and so pytest's
    own clean-up of tmp_path, recurses once per level and would fail on it)."""
    handles = [os.open(folder, os.O_RDONLY)]
    while "d" in os.listdir(handles[-1]):
        handles.append(os.open("d", os.O_RDONLY, dir_fd=handles[-1]))
    os.unlink("summary_results.json", dir_fd=handles[-1])
    for child in range(len(handles) - 1, 0, -1):
        os.close(handles[child])
        os.rmdir("d", dir_fd=handles[child - 1])
    os.close(handles[0])


def _disk_full_on_write(monkeypatch) -> None:
    """The write layer runs, then the disk fills: what was written inside the transaction must
    be rolled back whole."""
    from warehouse.snapshot_writes import SnapshotWrites

    for name in ("ingest_price_frames", "ingest_results"):
        original = getattr(SnapshotWrites, name)

        def full(self, *args, _original=original, **kwargs):
            _original(self, *args, **kwargs)
            raise OSError(errno.ENOSPC, "No space left on device")

        monkeypatch.setattr(SnapshotWrites, name, full)


@pytest.mark.parametrize("entry", CLI_CASES, ids=[c["id"] for c in CLI_CASES])
def test_hostile_command_line_is_answered_plainly_and_changes_nothing(
    entry, template, tmp_path, capsys, monkeypatch
):
    db = tmp_path / "w.duckdb"
    shutil.copy(template[0], db)
    before = _workspace_versions(db)
    monkeypatch.chdir(tmp_path)
    if entry["inject"] == "enospc":
        _disk_full_on_write(monkeypatch)
    args = [
        _materialise(a, tmp_path)[0] if a.startswith("@") or (CORPUS / a).is_file() else a
        for a in entry["args"]
    ]
    try:
        with (
            bounded(entry["id"], f"cli: {entry['args'][0]}"),
            pytest.raises(SystemExit) as exit_info,
        ):
            main([*args, "--db", str(db)])
    finally:
        if "@deep_tree" in entry["args"]:
            _remove_deep_tree(tmp_path / "tree")
    out = capsys.readouterr()
    output = out.out[-MAX_OUTPUT_CHARS:] + out.err
    MEASURED[entry["id"]]["fault"] = "fault in tokendesk" in output

    assert (exit_info.value.code or 0) == entry["code"], output
    assert "fault in tokendesk" not in output and "Traceback" not in output
    lowered = " ".join(output.lower().split())
    for fragment in entry["expect"]:
        assert fragment.lower() in lowered, output
    assert _workspace_versions(db) == before
    with Warehouse.open(db, read_only=True) as warehouse:
        assert data_digest(warehouse) == template[1]


def test_the_corpus_covers_every_class_with_at_least_80_inputs():
    classes = {c["class"] for c in CASES}
    assert len(CASES) >= 80
    assert {
        "consistency",
        "workspace",
        "non-finite",
        "bounds",
        "integer-overflow",
        "dates",
        "encoding",
        "binary",
        "size-depth",
        "structure",
        "hostile-names",
        "secrets",
        "multi-file",
        "bill",
        "trace",
        "cli",
    } <= classes
    assert {c["command"] for c in CASES} == {*COMMANDS, "cli"}
