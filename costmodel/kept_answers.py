"""A solver's answer to one mixed-integer programme, kept for the next run that poses the same one.

The optimizer over time takes seconds to prove its path; every start of the dashboard and every
command asks it the same programme again while neither the market nor the workspace has changed.
An answer the solver proved is kept under a digest of the exact programme it was given (every
coefficient, bound and option, and the solver's version), so a later run that builds a programme
equal to the last bit reads the same answer instead of solving again: the figures cannot differ.

A kept answer is checked against the programme before it is used — the right length, whole where
the programme says whole, within every bound and row, its objective the cost of its point, its
bound no higher — and a run solves again whenever one check fails. Only proven answers (the
solver's status 0: optimal within the gap asked) are kept; one cut short by a time limit depends
on how fast the machine was and is never reused.

No I/O here: the store is the caller's (``planning.solution_store``).
"""

from __future__ import annotations

import hashlib
import json
import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Protocol

import numpy as np
import scipy
from scipy.sparse import csr_array

#: Bumped when what a kept answer holds, or how its key is made, changes.
FORMAT = 1
#: A kept point may miss a bound or a row by this much, relative to the bound (the solver's own
#: feasibility tolerance is 1e-7).
TOLERANCE = 1e-6


class AnswerStore(Protocol):
    """Where answers are kept: ``get`` gives None for a key it does not hold (or cannot read)."""

    def get(self, key: str) -> Mapping[str, Any] | None: ...

    def put(self, key: str, answer: Mapping[str, Any]) -> None: ...


@dataclass(frozen=True)
class Programme:
    """min cost·x subject to lower ≤ x ≤ upper, row_lower ≤ matrix·x ≤ row_upper, integrality."""

    cost: np.ndarray
    integrality: np.ndarray
    lower: np.ndarray
    upper: np.ndarray
    matrix: csr_array
    row_lower: np.ndarray
    row_upper: np.ndarray

    def key(self, options: Mapping[str, float]) -> str:
        """A digest of everything the solver is given, and of the solver's version."""
        digest = hashlib.sha256()
        digest.update(
            json.dumps(
                {"format": FORMAT, "scipy": scipy.__version__, "options": dict(options)},
                sort_keys=True,
            ).encode()
        )
        matrix = self.matrix.copy()
        matrix.sum_duplicates()  # one canonical form: sorted indices, no repeated entries
        arrays = (
            self.cost,
            self.integrality,
            self.lower,
            self.upper,
            self.row_lower,
            self.row_upper,
            matrix.indptr,
            matrix.indices,
            matrix.data,
        )
        for array in arrays:
            digest.update(str(array.shape).encode())
            digest.update(np.ascontiguousarray(array, dtype=np.float64).tobytes())
        return digest.hexdigest()


@dataclass(frozen=True)
class Answer:
    """What the horizon reads from ``scipy.optimize.milp``'s result, and how long it took."""

    status: int
    x: np.ndarray | None
    fun: float | None
    mip_dual_bound: float | None
    message: str
    solve_seconds: float
    #: Read from a store rather than solved in this run.
    reused: bool = False

    @classmethod
    def from_result(cls, res: Any, seconds: float) -> Answer:
        def number(name: str) -> float | None:
            value = getattr(res, name, None)
            return None if value is None else float(value)

        x = None if res.x is None else np.asarray(res.x, dtype=float)
        return cls(
            int(res.status), x, number("fun"), number("mip_dual_bound"), str(res.message), seconds
        )

    def as_dict(self) -> dict[str, Any]:
        return {
            "format": FORMAT,
            "status": self.status,
            "x": None if self.x is None else [float(v) for v in self.x],
            "fun": self.fun,
            "mip_dual_bound": self.mip_dual_bound,
            "message": self.message,
            "solve_seconds": self.solve_seconds,
        }


def kept_answer(raw: Mapping[str, Any] | None, programme: Programme) -> Answer | None:
    """The kept answer ``raw`` if it is a proven answer to ``programme`` (every check in the
    module docstring), else None."""
    try:
        return _checked(raw, programme)
    except (TypeError, ValueError, KeyError, AttributeError):
        return None


def _checked(raw: Mapping[str, Any] | None, p: Programme) -> Answer | None:
    if not isinstance(raw, Mapping) or raw.get("format") != FORMAT or raw.get("status") != 0:
        return None
    x = np.asarray(raw["x"], dtype=float)
    fun, bound, seconds = (
        float(raw["fun"]),
        float(raw["mip_dual_bound"]),
        float(raw["solve_seconds"]),
    )
    message = raw["message"]
    if x.shape != p.cost.shape or not isinstance(message, str):
        return None
    if not (np.isfinite(x).all() and math.isfinite(fun) and math.isfinite(bound)):
        return None
    if not (math.isfinite(seconds) and seconds >= 0):
        return None
    whole = p.integrality.astype(bool)
    if np.any(np.abs(x[whole] - np.round(x[whole])) > TOLERANCE):
        return None
    if not (_within(x, p.lower, p.upper) and _within(p.matrix @ x, p.row_lower, p.row_upper)):
        return None
    slack = TOLERANCE * max(1.0, abs(fun))
    if abs(float(p.cost @ x) - fun) > slack or bound > fun + slack:
        return None
    return Answer(0, x, fun, bound, message, seconds, reused=True)


def _within(values: np.ndarray, lower: np.ndarray, upper: np.ndarray) -> bool:
    with np.errstate(invalid="ignore"):  # infinite bounds
        low_ok = values >= lower - TOLERANCE * np.maximum(1.0, np.abs(lower))
        high_ok = values <= upper + TOLERANCE * np.maximum(1.0, np.abs(upper))
    return bool(np.all(low_ok | np.isneginf(lower)) and np.all(high_ok | np.isposinf(upper)))
