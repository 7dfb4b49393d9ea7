"""Whether a write failed because the disk is full: DuckDB reports it as an ``IOException``
("No space left on device"), Python's own file writes (the staging scratch files) as an
``OSError`` with ``ENOSPC``. A full disk is no fault of the command: the write is rolled back
and the user is told to free space."""

from __future__ import annotations

import errno

import duckdb

_DISK_FULL_WORDS = ("no space left on device", "disk is full", "not enough space on the disk")


def is_disk_full(exc: BaseException) -> bool:
    """True when ``exc`` (or what it was raised from) says the disk or quota is full."""
    seen: set[int] = set()
    current: BaseException | None = exc
    while current is not None and id(current) not in seen:
        seen.add(id(current))
        if isinstance(current, OSError) and current.errno in (errno.ENOSPC, errno.EDQUOT):
            return True
        if isinstance(current, (duckdb.Error, OSError)):
            text = str(current).lower()
            if any(words in text for words in _DISK_FULL_WORDS):
                return True
        current = current.__cause__ or current.__context__
    return False
