"""Errors the benchmark importers and the harness raise, naming the file, the key and the fix."""

from __future__ import annotations


class ResultFileError(ImportError):
    """A result file failed validation; it is rejected whole (nothing from it is stored)."""

    def __init__(self, file: str, key: str, reason: str):
        self.file = str(file)
        self.key = key
        self.reason = reason
        super().__init__(f"{self.file}: {key}: {reason}" if key else f"{self.file}: {reason}")


class BundleError(ValueError):
    """A model bundle failed verification."""
