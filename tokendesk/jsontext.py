"""JSON as every command prints it: always valid JSON (RFC 8259), which has no NaN or Infinity.

Python's ``json.dumps`` writes ``NaN`` and ``Infinity`` for non-finite floats, which ``jq``, a
browser and most parsers refuse. A non-finite figure has no value to state, so it is written as
``null``; ``allow_nan=False`` then guarantees nothing else slipped through.
"""

from __future__ import annotations

import json
import math
from typing import Any


def finite(value: Any) -> Any:
    """``value`` with every non-finite float (in dicts, lists and tuples) replaced by None."""
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if isinstance(value, dict):
        return {k: finite(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [finite(v) for v in value]
    return value


def dumps(value: Any, *, indent: int | None = 2, **options: Any) -> str:
    """``json.dumps`` that always writes valid JSON (non-finite floats as null), non-ASCII kept."""
    options.setdefault("ensure_ascii", False)
    return json.dumps(finite(value), indent=indent, allow_nan=False, **options)
