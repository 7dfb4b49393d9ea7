"""A new warehouse file appears whole or not at all.

The first build writes the schema and the bundled data into a staging file beside the target,
closes it (DuckDB checkpoints its write-ahead log into the file on close) and only then links it
into place. A process killed while building leaves a staging file the next build sweeps away,
never a half-written warehouse: DuckDB cannot always replay the write-ahead log a kill leaves,
and a file it cannot open would stop every command.
"""

from __future__ import annotations

import contextlib
import glob
import os
import uuid
from pathlib import Path

#: DuckDB's and tokendesk's companions of a database file, removed with a staging file.
COMPANION_SUFFIXES = ("", ".wal", ".writer-gate")


def staging_path(target: Path) -> Path:
    """A hidden file beside ``target`` that only this process writes (its pid is in the name,
    so that :func:`sweep_abandoned` can tell a live build from a dead one)."""
    return target.with_name(f".{target.name}.building-{os.getpid()}-{uuid.uuid4().hex[:8]}")


def publish(staging: Path, target: Path) -> None:
    """Put the finished ``staging`` file at ``target`` unless another process got there first
    (then its file is used and this one dropped). A hard link creates ``target`` atomically and
    refuses an existing one; a file system without hard links gets a rename that checks first."""
    try:
        os.link(staging, target)
    except FileExistsError:
        pass
    except OSError:
        if not target.exists():
            os.replace(staging, target)
    discard(staging)


def discard(staging: Path) -> None:
    for suffix in COMPANION_SUFFIXES:
        with contextlib.suppress(FileNotFoundError):
            Path(f"{staging}{suffix}").unlink()


def sweep_abandoned(target: Path) -> None:
    """Remove the staging files of builds whose process is gone (killed part way)."""
    prefix = f".{target.name}.building-"
    try:
        candidates = list(target.parent.glob(f"{glob.escape(prefix)}*"))
    except OSError:
        return
    for path in candidates:
        rest = path.name[len(prefix) :]
        pid, _, tail = rest.partition("-")
        if not pid.isdigit() or any(tail.endswith(s) for s in COMPANION_SUFFIXES[1:]):
            continue
        if not _is_running(int(pid)):
            discard(path)


def _is_running(pid: int) -> bool:
    if pid == os.getpid():
        return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:  # another user's live process
        return True
    return True
