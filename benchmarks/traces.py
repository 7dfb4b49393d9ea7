"""Request traces: what real traffic looked like, one row per request, read from the files that
public trace releases and serving tools write.

* **Azure LLM inference trace** (``Azure/AzurePublicDataset``): CSV with the header
  ``TIMESTAMP,ContextTokens,GeneratedTokens``. The 2023 release (``AzureLLMInferenceTrace_code.csv``,
  ``_conv.csv``) writes naive times with 7 fractional digits (``2023-11-16 18:17:03.9799600``), no
  time zone; the 2024 week-long release (``…_code_1week.csv``, ``…_conv_1week.csv``) writes UTC
  times with an offset (``2024-05-10 00:00:00.009930+00:00``, fraction left out on a whole second).
* **Mooncake trace** (``kvcache-ai/Mooncake`` ``FAST25-release/``): JSON Lines,
  ``{"timestamp": ms since the trace start, "input_length", "output_length", "hash_ids": [...]}``;
  each hash id names one 512-token block of the prompt, and an id seen before is a prefix the KV
  cache could reuse.

The format is told from the content, never the file name. A bad row is refused with the file, the
line, the field and what is wrong; nothing of a refused file is used. The readers only read: what
the rows mean for a fleet is derived in :mod:`costmodel.traffic`.
"""

from __future__ import annotations

import csv
import io
import json
import math
import stat
from array import array
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path

from tokendesk.textsafety import clean_text, json_depth_ok, safe_message

AZURE_HEADER = ("TIMESTAMP", "ContextTokens", "GeneratedTokens")
#: Mooncake's README: "The block size is 512 tokens."
MOONCAKE_BLOCK_TOKENS = 512
NO_ZONE = "as recorded (the release states no time zone)"
#: A prompt or a reply longer than this is a broken row, not traffic (no model reads 100M tokens).
MAX_TOKENS_PER_REQUEST = 100_000_000

#: Longest span a trace may cover: the public releases cover an hour to a week; a span of
#: centuries is a broken time stamp, and would ask for millions of per-hour buckets.
MAX_SPAN_S = 366 * 86_400.0
#: Largest trace file read (about 35 million Azure rows; the week-long releases have 17 and 27
#: million): a larger file would need gigabytes of memory. Split it, or keep its busiest week.
MAX_TRACE_BYTES = 1536 * 1024 * 1024

FORMAT_TITLES = {
    "azure-2023": "Azure LLM inference trace (2023 release)",
    "azure-2024": "Azure LLM inference trace (2024 week-long release)",
    "mooncake": "Mooncake trace (JSON Lines, 512-token prefix blocks)",
}


class TraceFileError(ValueError):
    """A trace file is refused whole: the message names the file, the line, the field and why."""

    def __init__(self, file: str, where: str, reason: str):
        self.file = clean_text(str(file))
        self.where = clean_text(str(where))[:200]
        self.reason = safe_message(reason, limit=1_000)
        super().__init__(
            f"{self.file}, {self.where}: {self.reason}" if where else f"{self.file}: {self.reason}"
        )


@dataclass
class Trace:
    """The requests of one trace file, in arrival order as written.

    ``arrival_s`` are seconds after the first row's time (the first row is 0). ``start`` is the
    first row's wall-clock time when the file has one (``clock`` says in which zone), else None:
    Mooncake's timestamps count from the trace's own start and carry no time of day.
    """

    name: str
    format: str
    arrival_s: array = field(default_factory=lambda: array("d"))
    input_tokens: array = field(default_factory=lambda: array("q"))
    output_tokens: array = field(default_factory=lambda: array("q"))
    start: datetime | None = None
    clock: str = ""
    #: Per request, the ids of its prompt's prefix blocks (Mooncake), else None.
    prefix_blocks: list[tuple[int, ...]] | None = None
    block_tokens: int | None = None

    @property
    def title(self) -> str:
        return FORMAT_TITLES[self.format]

    def __len__(self) -> int:
        return len(self.arrival_s)


def _count(value: object, file: str, where: str, name: str) -> int:
    """A token count: a whole number from 0 to MAX_TOKENS_PER_REQUEST."""
    text = str(value).strip()
    try:
        number = int(text) if isinstance(value, str) else value
    except ValueError:
        number = None
    if isinstance(number, bool) or not isinstance(number, int):
        raise TraceFileError(file, where, f"{name} must be a whole number of tokens, not {text!r}")
    if not 0 <= number <= MAX_TOKENS_PER_REQUEST:
        raise TraceFileError(
            file, where, f"{name} {number} is outside 0 to {MAX_TOKENS_PER_REQUEST:,} tokens"
        )
    return number


def _azure_time(text: str, file: str, where: str) -> datetime:
    try:
        return datetime.fromisoformat(text.strip())
    except ValueError:
        raise TraceFileError(
            file,
            where,
            f"TIMESTAMP {text!r} is not a time like 2023-11-16 18:17:03.9799600 "
            "or 2024-05-10 00:00:00.009930+00:00",
        ) from None


def read_azure(name: str, lines: Iterable[str]) -> Trace:
    """The Azure LLM inference trace CSV (2023 or 2024 release; see the module docstring)."""
    rows = csv.reader(lines)
    header = next(rows, None)
    if header is None or tuple(h.strip() for h in header) != AZURE_HEADER:
        raise TraceFileError(name, "line 1", f"the header must be {','.join(AZURE_HEADER)}")
    trace = Trace(name=name, format="azure-2023")
    first: datetime | None = None
    aware: bool | None = None
    for number, row in enumerate(rows, start=2):
        where = f"line {number}"
        if not row or all(not cell.strip() for cell in row):
            continue
        if len(row) != 3:
            raise TraceFileError(name, where, f"expected 3 fields, found {len(row)}")
        stamp = _azure_time(row[0], name, where)
        if aware is None:
            aware = stamp.tzinfo is not None
        elif aware != (stamp.tzinfo is not None):
            raise TraceFileError(name, where, "TIMESTAMP mixes times with and without a UTC offset")
        if first is None:
            first = stamp
        offset = (stamp - first).total_seconds()
        _check_span(offset, name, where, "TIMESTAMP")
        trace.arrival_s.append(offset)
        trace.input_tokens.append(_count(row[1], name, where, "ContextTokens"))
        trace.output_tokens.append(_count(row[2], name, where, "GeneratedTokens"))
    if first is None:
        raise TraceFileError(name, "", "no requests after the header")
    if aware:
        trace.format = "azure-2024"
        trace.start = first.astimezone(UTC)
        trace.clock = "UTC"
    else:
        trace.start = first
        trace.clock = NO_ZONE
    return trace


def read_mooncake(name: str, lines: Iterable[str]) -> Trace:
    """Mooncake's JSON Lines trace (see the module docstring)."""
    trace = Trace(name=name, format="mooncake", prefix_blocks=[])
    trace.block_tokens = MOONCAKE_BLOCK_TOKENS
    blocks = trace.prefix_blocks
    assert blocks is not None
    first_ms: float | None = None
    for number, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        where = f"line {number}"
        if not json_depth_ok(line):
            raise TraceFileError(name, where, "nested deeper than a trace row can be")
        try:
            row = json.loads(line)
        except ValueError as exc:
            raise TraceFileError(name, where, f"not JSON ({exc})") from None
        if not isinstance(row, dict):
            raise TraceFileError(name, where, "expected an object")
        stamp = row.get("timestamp")
        if (
            isinstance(stamp, bool)
            or not isinstance(stamp, int | float)
            or not math.isfinite(stamp)
            or stamp < 0
        ):
            raise TraceFileError(
                name, where, f"timestamp must be milliseconds from the trace start, not {stamp!r}"
            )
        ids = row.get("hash_ids", [])
        if not isinstance(ids, list) or not all(
            isinstance(i, int) and not isinstance(i, bool) for i in ids
        ):
            raise TraceFileError(name, where, "hash_ids must be a list of whole numbers")
        if first_ms is None:
            first_ms = float(stamp)
        offset = (float(stamp) - first_ms) / 1000.0
        _check_span(offset, name, where, "timestamp")
        trace.arrival_s.append(offset)
        for key, target in (
            ("input_length", trace.input_tokens),
            ("output_length", trace.output_tokens),
        ):
            if key not in row:
                raise TraceFileError(name, where, f"{key} is missing")
            target.append(_count(row[key], name, where, key))
        blocks.append(tuple(ids))
    if first_ms is None:
        raise TraceFileError(name, "", "no requests in the file")
    return trace


def _check_span(offset_s: float, file: str, where: str, field_name: str) -> None:
    if abs(offset_s) > MAX_SPAN_S:
        raise TraceFileError(
            file,
            where,
            f"{field_name} is {abs(offset_s) / 86_400:,.0f} days from the first request's; a"
            f" trace may span at most {MAX_SPAN_S / 86_400:,.0f} days: fix the time stamp or"
            " split the trace",
        )


def _first_line(text_lines: Iterator[str]) -> tuple[str, list[str]]:
    """The first non-empty line, and every line read so far (to put back in front)."""
    seen = []
    for line in text_lines:
        seen.append(line)
        if line.strip():
            return line, seen
    return "", seen


def parse_trace(name: str, lines: Iterable[str]) -> Trace:
    """Read a trace from its lines, telling the format from the first non-empty line."""
    stream = iter(lines)
    first, seen = _first_line(stream)
    head = first.lstrip("\ufeff").strip()
    rest = _chain(seen, stream)
    if head.startswith("TIMESTAMP"):
        return read_azure(name, rest)
    if head.startswith("{"):
        try:
            row = json.loads(head)
        except ValueError:
            row = None
        if isinstance(row, dict) and "input_length" in row:
            return read_mooncake(name, rest)
    raise TraceFileError(
        name,
        "line 1",
        "not a trace this reads: an Azure LLM inference trace CSV "
        "(TIMESTAMP,ContextTokens,GeneratedTokens) or a Mooncake JSON Lines trace "
        '({"timestamp", "input_length", "output_length", "hash_ids"})',
    )


def _chain(seen: list[str], stream: Iterator[str]) -> Iterator[str]:
    if seen:
        seen[0] = seen[0].lstrip("\ufeff")
    yield from seen
    yield from stream


#: Rows pandas parses at a time: memory holds one chunk's text, not the whole file's (a
#: 5-million-row trace read at once peaked at 1.1 GB, mostly the time stamps as Python strings).
_CHUNK_ROWS = 500_000


def _azure_fast(name: str, source: Path | io.BytesIO) -> Trace | None:
    """An Azure trace through pandas' C parser, a chunk at a time: about ten times faster than
    row by row (the week-long files have 17 and 27 million rows), in memory bounded by the
    arrays it keeps. None when any row needs the careful reader, which then names the line and
    the field."""
    import pandas as pd

    trace = Trace(name=name, format="azure-2023")
    first = None
    try:
        chunks = pd.read_csv(
            source,
            encoding="utf-8-sig",
            dtype={"TIMESTAMP": str, "ContextTokens": "int64", "GeneratedTokens": "int64"},
            chunksize=_CHUNK_ROWS,
        )
        for frame in chunks:
            stamps = _fast_chunk(frame)
            if stamps is None:
                return None
            if first is None:
                first = stamps.iloc[0]
            elif (stamps.dt.tz is None) != (first.tzinfo is None):
                return None  # times with and without an offset: the careful reader says where
            offsets = (stamps - first).dt.total_seconds()
            if offsets.abs().max() > MAX_SPAN_S:
                return None  # the careful reader names the line
            trace.arrival_s.extend(offsets.to_numpy())
            trace.input_tokens.extend(frame["ContextTokens"].to_numpy())
            trace.output_tokens.extend(frame["GeneratedTokens"].to_numpy())
    except (ValueError, TypeError, OverflowError, pd.errors.ParserError):
        return None  # not a whole number, a bad or mixed-zone time, a ragged row, ...
    if first is None:
        return None
    trace.start = first.floor("us").to_pydatetime()
    if first.tzinfo is not None:
        trace.format, trace.clock = "azure-2024", "UTC"
        trace.start = trace.start.astimezone(UTC)
    else:
        trace.clock = NO_ZONE
    return trace


def _fast_chunk(frame):  # pandas stays a lazy import: no annotation names it
    """The chunk's times, or None when a row needs the careful reader."""
    import pandas as pd

    if [str(c).strip() for c in frame.columns] != list(AZURE_HEADER) or frame.empty:
        return None
    # pandas also reads words ("now", "today") as times: only dates go the fast way
    if not frame["TIMESTAMP"].str.match(r"\s*\d{4}-\d\d-\d\d[ T]\d", na=False).all():
        return None
    counts = frame[["ContextTokens", "GeneratedTokens"]]
    if not ((counts >= 0) & (counts <= MAX_TOKENS_PER_REQUEST)).all().all():
        return None
    return pd.to_datetime(frame["TIMESTAMP"], format="ISO8601")


def _check_file(path: Path) -> None:
    """A FIFO, a device (/dev/zero) or a directory would block or never end: refused before a
    byte is read, as is a file too large to hold in memory."""
    try:
        info = path.stat()
    except OSError as exc:
        raise TraceFileError(path.name, "", f"cannot read ({exc.strerror or exc})") from None
    if not stat.S_ISREG(info.st_mode):
        raise TraceFileError(path.name, "", "not a regular file; give the trace file itself")
    if info.st_size > MAX_TRACE_BYTES:
        raise TraceFileError(path.name, "", _too_large(info.st_size))


def _too_large(size: int) -> str:
    return (
        f"the file is {size / 2**20:,.0f} MiB; a trace may be at most"
        f" {MAX_TRACE_BYTES / 2**20:,.0f} MiB (about 35 million requests): keep its busiest"
        " week, or split it"
    )


def read_trace(path: Path) -> Trace:
    """Read a trace file (streamed: the week-long Azure files are hundreds of megabytes)."""
    _check_file(path)
    try:
        with path.open(encoding="utf-8", newline="") as handle:
            if handle.readline().lstrip("\ufeff").startswith("TIMESTAMP"):
                fast = _azure_fast(path.name, path)
                if fast is not None:
                    return fast
            handle.seek(0)
            return parse_trace(path.name, handle)
    except UnicodeDecodeError as exc:
        raise TraceFileError(path.name, "", f"not UTF-8 text ({exc.reason})") from None
    except OSError as exc:
        raise TraceFileError(path.name, "", f"cannot read ({exc.strerror or exc})") from None


def parse_trace_bytes(name: str, data: bytes) -> Trace:
    """Read an uploaded trace."""
    if len(data) > MAX_TRACE_BYTES:
        raise TraceFileError(name, "", _too_large(len(data)))
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise TraceFileError(name, "", f"not UTF-8 text ({exc.reason})") from None
    if text.lstrip("\ufeff").startswith("TIMESTAMP"):
        fast = _azure_fast(name, io.BytesIO(data))
        if fast is not None:
            return fast
    return parse_trace(name, io.StringIO(text, newline=""))
