"""The folder the optimizer over time keeps its proven answers in (``costmodel.kept_answers``).

One JSON file per programme, named by the programme's digest, in the user's cache folder
(``~/.cache/tokendesk/horizon-answers`` on Linux), or in the folder ``TOKENDESK_SOLUTION_STORE``
names; ``TOKENDESK_SOLUTION_STORE=off`` keeps nothing and reads nothing. The folder is a cache:
deleting it loses nothing but the time to solve again. A file that cannot be read or written is
passed over in silence — the run solves instead — and only the newest ``KEPT`` files are kept.
JSON, never pickle: a file is data the checks in ``costmodel.kept_answers`` read, not code.
"""

from __future__ import annotations

import json
import os
import re
import tempfile
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from tokendesk.paths import user_cache_dir

SOLUTION_STORE_ENV = "TOKENDESK_SOLUTION_STORE"
#: Files kept at most (each is the answer for one workspace against one market, ~20 KB).
KEPT = 200
#: A kept file is never read past this size (an answer is tens of kilobytes).
MAX_BYTES = 5_000_000
_KEY = re.compile(r"[0-9a-f]{64}")


class SolutionFolder:
    """An :class:`~costmodel.kept_answers.AnswerStore` over one folder."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder

    def _file(self, key: str) -> Path | None:
        return self.folder / f"{key}.json" if _KEY.fullmatch(key) else None

    def get(self, key: str) -> Mapping[str, Any] | None:
        path = self._file(key)
        try:
            if path is None or path.stat().st_size > MAX_BYTES:
                return None
            raw = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return None
        return raw if isinstance(raw, dict) else None

    def put(self, key: str, answer: Mapping[str, Any]) -> None:
        path = self._file(key)
        if path is None:
            return
        try:
            self.folder.mkdir(parents=True, exist_ok=True)
            handle, staging = tempfile.mkstemp(dir=self.folder, suffix=".part")
        except OSError:
            return
        try:
            with os.fdopen(handle, "w", encoding="utf-8") as out:
                json.dump(answer, out, allow_nan=False)
            os.replace(staging, path)  # atomic: a reader never sees half a file
            self._prune()
        except (OSError, ValueError):
            Path(staging).unlink(missing_ok=True)

    def _prune(self) -> None:
        files = sorted(self.folder.glob("*.json"), key=lambda f: f.stat().st_mtime, reverse=True)
        for old in files[KEPT:]:
            old.unlink(missing_ok=True)


def default_store() -> SolutionFolder | None:
    """The store this process uses: the folder ``TOKENDESK_SOLUTION_STORE`` names, None when it
    says ``off``, else the user's cache folder."""
    setting = os.environ.get(SOLUTION_STORE_ENV, "").strip()
    if setting.lower() == "off":
        return None
    return SolutionFolder(Path(setting) if setting else user_cache_dir() / "horizon-answers")
