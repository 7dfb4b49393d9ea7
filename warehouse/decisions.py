"""The futures-day decision log: what was decided, why, by whom, when, and on which snapshots.

Append-only: this module only inserts and reads. A changed mind is a new decision that names
the one it supersedes; the old row stays, so every past review can be replayed.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, date, datetime
from typing import TYPE_CHECKING

import pandas as pd

if TYPE_CHECKING:
    from warehouse.store import Warehouse

DECISIONS = ("buy", "no-buy", "defer")
DECISION_COLUMNS = [
    "decision_id",
    "recorded_at",
    "decided_on",
    "subject",
    "decision",
    "rationale",
    "decided_by",
    "review_from",
    "review_to",
    "snapshot_ids",
    "supersedes",
]


class DecisionError(ValueError):
    pass


@dataclass(frozen=True)
class Decision:
    subject: str
    decision: str
    rationale: str
    decided_by: str
    decided_on: date
    snapshot_ids: tuple[str, ...] = ()
    review_from: date | None = None
    review_to: date | None = None
    supersedes: int | None = None

    def __post_init__(self) -> None:
        if self.decision not in DECISIONS:
            raise DecisionError(f"decision {self.decision!r}: use one of {', '.join(DECISIONS)}")
        for name in ("subject", "rationale", "decided_by"):
            if not getattr(self, name).strip():
                raise DecisionError(f"a decision needs a non-empty {name}")


def record_decision(warehouse: Warehouse, decision: Decision) -> int:
    """Append one decision; return its id. Unknown snapshot ids or superseded ids are rejected."""
    cur = warehouse.cursor()
    known = (
        set(cur.execute("SELECT snapshot_id FROM snapshots").df()["snapshot_id"])
        if decision.snapshot_ids
        else set()
    )
    missing = sorted(set(decision.snapshot_ids) - known)
    if missing:
        raise DecisionError(f"unknown snapshot id(s) {', '.join(missing)}; see `tokendesk db info`")
    if decision.supersedes is not None:
        row = cur.execute(
            "SELECT count(*) FROM decisions WHERE decision_id = ?", [decision.supersedes]
        ).fetchone()
        if not row or not row[0]:
            raise DecisionError(
                f"decision {decision.supersedes} does not exist, so it cannot be superseded"
            )
    values = [
        datetime.now(UTC).replace(tzinfo=None),
        decision.decided_on,
        decision.subject.strip(),
        decision.decision,
        decision.rationale.strip(),
        decision.decided_by.strip(),
        decision.review_from,
        decision.review_to,
        list(decision.snapshot_ids),
        decision.supersedes,
        warehouse.actor.name,
    ]
    numbers = warehouse.next_ids("decision_id", 1)
    if numbers is not None:  # team mode: the id comes from the catalog, no RETURNING
        with warehouse._transaction() as tx:
            tx.execute(
                "INSERT INTO decisions (decision_id, recorded_at, decided_on, subject, decision,"
                " rationale, decided_by, review_from, review_to, snapshot_ids, supersedes,"
                " created_by) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                [numbers[0], *values],
            )
        return numbers[0]
    with warehouse._transaction() as tx:
        row = tx.execute(
            "INSERT INTO decisions (recorded_at, decided_on, subject, decision, rationale, decided_by,"
            " review_from, review_to, snapshot_ids, supersedes, created_by)"
            " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING decision_id",
            values,
        ).fetchone()
    if row is None:  # RETURNING always yields the inserted row
        raise RuntimeError("the warehouse returned no id for the recorded decision")
    return int(row[0])


def decisions(
    warehouse: Warehouse,
    *,
    since: date | None = None,
    until: date | None = None,
    subjects: Sequence[str] | None = None,
) -> pd.DataFrame:
    """The log, oldest first, with ``superseded_by`` filled where a later decision replaced one."""
    sql = (
        "SELECT d.*, (SELECT min(n.decision_id) FROM decisions n WHERE "
        "n.supersedes = d.decision_id) AS superseded_by"
        " FROM decisions d WHERE 1 = 1"
    )
    params: list[object] = []
    if since is not None:
        sql += " AND d.decided_on >= ?"
        params.append(since)
    if until is not None:
        sql += " AND d.decided_on <= ?"
        params.append(until)
    if subjects:
        sql += f" AND d.subject IN ({', '.join('?' for _ in subjects)})"
        params.extend(subjects)
    sql += " ORDER BY d.decided_on, d.decision_id"
    return warehouse.query(sql, params)


@dataclass(frozen=True)
class ReviewClosing:
    """A review closed on purpose: the window it compared, who closed it and why. Decisions
    recorded on a review do not close it; this does, and the next review starts at ``review_to``.
    """

    review_to: date
    closed_by: str
    review_from: date | None = None
    note: str = ""

    def __post_init__(self) -> None:
        if not self.closed_by.strip():
            raise DecisionError("closing a review needs the name of who closes it")
        if self.review_from is not None and self.review_from >= self.review_to:
            raise DecisionError(
                f"the review's start ({self.review_from}) must come before its end"
                f" ({self.review_to})"
            )


def close_review(warehouse: Warehouse, closing: ReviewClosing) -> None:
    """Append one closed review: the next comparison without dates starts at its end."""
    with warehouse._transaction() as tx:
        tx.execute(
            "INSERT INTO review_closings (closed_at, review_from, review_to, closed_by, note,"
            " created_by) VALUES (?, ?, ?, ?, ?, ?)",
            [
                datetime.now(UTC).replace(tzinfo=None),
                closing.review_from,
                closing.review_to,
                closing.closed_by.strip(),
                closing.note.strip(),
                warehouse.actor.name,
            ],
        )


@dataclass(frozen=True)
class LastReview:
    """Where "since the last review" starts: the day, and what it was read from."""

    day: date
    #: "review" (a review closed on purpose ended that day) or "oldest snapshot" (no review was
    #: closed yet). Recorded decisions never end a review.
    basis: str
    #: The closed review's own start, when it named one (to show it again on the day it closed).
    review_from: date | None = None


def last_review(warehouse: Warehouse) -> LastReview | None:
    """The end of the latest review closed on purpose, else the oldest snapshot's data date, else
    None (an empty warehouse)."""
    row = warehouse.query(
        "SELECT review_from, review_to FROM review_closings"
        " ORDER BY review_to DESC, closed_at DESC LIMIT 1"
    )
    if not row.empty:
        first = row.iloc[0]
        began = first["review_from"]
        return LastReview(
            pd.Timestamp(first["review_to"]).date(),
            "review",
            None if pd.isna(began) else pd.Timestamp(began).date(),
        )
    oldest = warehouse.query("SELECT min(as_of) AS day FROM snapshots WHERE status = 'ok'")
    if oldest.empty or pd.isna(oldest.iloc[0]["day"]):
        return None
    return LastReview(pd.Timestamp(oldest.iloc[0]["day"]).date(), "oldest snapshot")
