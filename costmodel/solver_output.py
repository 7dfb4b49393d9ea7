"""Keep the MILP solver's own chatter off standard output.

HiGHS (under ``scipy.optimize.milp``) prints some diagnostics with C ``printf`` whatever its
``disp`` option says, e.g. "HighsMipSolverData::transformNewIntegerFeasibleSolution ...". A
command's standard output is its JSON or its table, so while a solve runs, file descriptor 1
points at standard error: the line stays visible to whoever watches the terminal and never
corrupts what a pipe reads."""

from __future__ import annotations

import ctypes
import os
import sys
from collections.abc import Iterator
from contextlib import contextmanager, suppress


def _flush_c_stdio() -> None:
    # C stdio buffers printf output when stdout is a pipe; flush it while fd 1 still points at
    # standard error, or the buffered line would reach the real stdout later.
    with suppress(OSError, AttributeError):
        ctypes.CDLL(None).fflush(None)


@contextmanager
def solver_chatter_to_stderr() -> Iterator[None]:
    try:
        sys.stdout.flush()
        saved = os.dup(1)
    except (OSError, ValueError):
        # No usable fd 1 (an embedded interpreter, a closed stdout): nothing to protect.
        yield
        return
    try:
        os.dup2(2, 1)
        yield
    finally:
        _flush_c_stdio()
        os.dup2(saved, 1)
        os.close(saved)
