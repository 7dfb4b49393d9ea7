"""The Benchmarks page's import history, without Streamlit: every benchmark snapshot with its
state (current, retracted, failed) and, for a retracted one, why, who and when."""

from __future__ import annotations

import pandas as pd

from app.models.tables import Table, readable
from tokendesk import formatting

HISTORY_LABELS = {
    "state": "State",
    "retraction": "Retraction",
    "created_at": "Written (UTC)",
    "created_by": "By",
    "source": "Source",
    "origin": "Origin",
    "row_count": "Results",
    "as_of": "Data as of",
    "detail": "Notes / error",
    "snapshot_id": "Snapshot",
}


def state(row: pd.Series) -> str:
    if pd.notna(row.get("retracted_at")):
        return "retracted"
    return "current" if row["status"] == "ok" else str(row["status"])


def retraction_text(row: pd.Series) -> str:
    """ "retracted 2026-12-01 14:05 UTC by ana: a test import", or "" when not retracted."""
    if pd.isna(row.get("retracted_at")):
        return ""
    moment = pd.Timestamp(row["retracted_at"])
    return f"retracted {moment:%Y-%m-%d %H:%M} UTC by {row['retracted_by']}: {row['retraction_reason']}"


def history_table(history: pd.DataFrame) -> Table:
    frame = history.copy()
    frame["state"] = [state(row) for _, row in frame.iterrows()]
    frame["retraction"] = [retraction_text(row) for _, row in frame.iterrows()]
    frame["created_at"] = [f"{pd.Timestamp(v):%Y-%m-%d %H:%M}" for v in frame["created_at"]]
    frame["as_of"] = frame["as_of"].map(formatting.day)
    frame["created_by"] = frame["created_by"].replace("", "not recorded")
    frame["detail"] = [
        error if isinstance(error, str) and error else notes
        for error, notes in zip(frame["error"], frame["notes"], strict=True)
    ]
    return readable(frame, HISTORY_LABELS, {"row_count": "%d"})


def retractable(history: pd.DataFrame) -> list[str]:
    """Snapshot ids a retraction can name: good imports not yet retracted, newest first."""
    keep = (history["status"] == "ok") & history["retracted_at"].isna()
    return list(history.loc[keep, "snapshot_id"])


def describe(history: pd.DataFrame, snapshot_id: str) -> str:
    """How the retraction picker names a snapshot: when, what, how many results."""
    row = history.set_index("snapshot_id").loc[snapshot_id]
    return (
        f"{pd.Timestamp(row['created_at']):%Y-%m-%d %H:%M} · {row['source']} · "
        f"{int(row['row_count'])} result(s) · {snapshot_id}"
    )
