"""Errors the benchmark importers and the harness raise, naming the file, the key and the fix."""

from __future__ import annotations

from tokendesk.textsafety import clean_text, safe_message


class ResultFileError(ImportError):
    """A result file failed validation; it is rejected whole (nothing from it is stored)."""

    def __init__(self, file: str, key: str, reason: str):
        # File names and reasons come from outside: no escape sequences, no secrets.
        self.file = clean_text(str(file))
        self.key = clean_text(str(key))[:200]
        self.reason = safe_message(reason, limit=1_000)
        super().__init__(f"{self.file}: {key}: {reason}" if key else f"{self.file}: {reason}")


class BundleError(ValueError):
    """A model bundle failed verification."""
