"""A full disk is told apart from a fault, however it is reported."""

from __future__ import annotations

import errno

import duckdb

from warehouse.disk import is_disk_full


def test_enospc_and_duckdbs_words_are_a_full_disk():
    assert is_disk_full(OSError(errno.ENOSPC, "No space left on device"))
    # DuckDB's own wording when a checkpoint or the WAL cannot grow.
    assert is_disk_full(
        duckdb.IOException('Could not write file "w.duckdb": No space left on device')
    )


def test_a_full_disk_behind_a_failed_rollback_is_still_a_full_disk():
    try:
        try:
            raise OSError(errno.ENOSPC, "No space left on device")
        except OSError:
            raise duckdb.TransactionException("cannot rollback") from None
    except duckdb.TransactionException as exc:
        assert is_disk_full(exc)


def test_other_errors_are_not():
    assert not is_disk_full(OSError(errno.EACCES, "Permission denied"))
    assert not is_disk_full(duckdb.IOException("Could not open file: no such file"))
    assert not is_disk_full(ValueError("No space left on device"))
