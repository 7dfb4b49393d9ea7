"""Trace readers on real trace files (excerpts of the public releases; see
tests/fixtures/real/README.md) and on broken ones."""

from __future__ import annotations

import csv
import json
from datetime import UTC, datetime
from pathlib import Path

import pytest

from benchmarks.traces import TraceFileError, parse_trace_bytes, read_trace
from tokendesk.paths import REPO_ROOT

REAL = REPO_ROOT / "tests" / "fixtures" / "real" / "traces"
AZURE_CODE = REAL / "AzureLLMInferenceTrace_code_first2000.csv"
AZURE_CONV = REAL / "AzureLLMInferenceTrace_conv_first500.csv"
MOONCAKE_CONV = REAL / "mooncake_conversation_trace_first300.jsonl"
MOONCAKE_SYNTH = REAL / "mooncake_synthetic_trace_first200.jsonl"


def _csv_rows(path: Path) -> list[list[str]]:
    with path.open(newline="") as f:
        return list(csv.reader(f))[1:]


@pytest.mark.parametrize("path", [AZURE_CODE, AZURE_CONV])
def test_azure_2023_release_reads_every_row(path):
    rows = _csv_rows(path)
    trace = read_trace(path)
    assert trace.format == "azure-2023"
    assert len(trace) == len(rows)
    assert list(trace.input_tokens) == [int(r[1]) for r in rows]
    assert list(trace.output_tokens) == [int(r[2]) for r in rows]
    first = datetime.fromisoformat(rows[0][0])
    last = datetime.fromisoformat(rows[-1][0])
    assert trace.start == first and trace.start.tzinfo is None
    assert trace.arrival_s[-1] == pytest.approx((last - first).total_seconds())
    assert "no time zone" in trace.clock
    assert trace.prefix_blocks is None


def test_azure_code_excerpt_first_rows_as_written():
    trace = read_trace(AZURE_CODE)
    # the file's first two rows: 2023-11-16 18:17:03.9799600,4808,10 and …04.0319600,3180,8
    assert trace.start == datetime(2023, 11, 16, 18, 17, 3, 979960)
    assert trace.arrival_s[1] == pytest.approx(0.052)
    assert (trace.input_tokens[0], trace.output_tokens[0]) == (4808, 10)
    assert (trace.input_tokens[1], trace.output_tokens[1]) == (3180, 8)


# The 2024 week-long release is not in any repository (hundreds of MB in blob storage); these
# are its first rows as the release's own notebook (analysis/AzureLLMInferenceDataset2024.ipynb)
# prints them, with the whole-second form its comment names ("2024-05-12 00:00:00+00:00").
AZURE_2024 = (
    "TIMESTAMP,ContextTokens,GeneratedTokens\r\n"
    "2024-05-10 00:00:00.009930+00:00,2162,5\r\n"
    "2024-05-10 00:00:00.017335+00:00,2399,6\r\n"
    "2024-05-10 00:00:00.022314+00:00,76,15\r\n"
    "2024-05-10 00:00:01+00:00,2376,1\r\n"
)


def test_azure_2024_release_is_utc():
    trace = parse_trace_bytes("code_1week.csv", AZURE_2024.encode())
    assert trace.format == "azure-2024"
    assert trace.clock == "UTC"
    assert trace.start == datetime(2024, 5, 10, 0, 0, 0, 9930, tzinfo=UTC)
    assert trace.arrival_s[3] == pytest.approx(1 - 0.00993)
    assert list(trace.input_tokens) == [2162, 2399, 76, 2376]


@pytest.mark.parametrize("path", [MOONCAKE_CONV, MOONCAKE_SYNTH])
def test_mooncake_reads_lengths_and_prefix_blocks(path):
    rows = [json.loads(line) for line in path.read_text().splitlines() if line.strip()]
    trace = read_trace(path)
    assert trace.format == "mooncake" and trace.start is None and trace.block_tokens == 512
    assert len(trace) == len(rows)
    assert list(trace.input_tokens) == [r["input_length"] for r in rows]
    assert list(trace.output_tokens) == [r["output_length"] for r in rows]
    assert trace.prefix_blocks == [tuple(r["hash_ids"]) for r in rows]
    assert trace.arrival_s[-1] == (rows[-1]["timestamp"] - rows[0]["timestamp"]) / 1000
    # Each prompt has ceil(input_length / 512) blocks, as the release's README describes.
    assert all(len(r["hash_ids"]) == -(-r["input_length"] // 512) for r in rows)


@pytest.mark.parametrize(
    ("text", "where"),
    [
        ("TIMESTAMP,in,out\n1,2,3\n", "line 1: the header must be TIMESTAMP"),
        ("time,in,out\n1,2,3\n", "line 1: not a trace this reads"),
        (AZURE_2024 + "2024-05-10 00:00:02+00:00,12x,3\n", "line 6: ContextTokens must be"),
        (AZURE_2024 + "2024-05-10 00:00:02+00:00,12\n", "line 6: expected 3 fields"),
        (AZURE_2024 + "2024-05-10 00:00:02,12,3\n", "line 6: TIMESTAMP mixes"),
        (AZURE_2024 + "yesterday,12,3\n", "line 6: TIMESTAMP 'yesterday' is not a time"),
        (AZURE_2024 + "2024-05-10 00:00:02+00:00,-4,3\n", "line 6: ContextTokens -4 is outside"),
        ("TIMESTAMP,ContextTokens,GeneratedTokens\n", "no requests"),
        (
            '{"timestamp": 0, "input_length": 5, "output_length": 1, "hash_ids": [1]}\n{oops\n',
            "line 2: not JSON",
        ),
        (
            '{"timestamp": 0, "input_length": 5, "output_length": 1}\n'
            '{"timestamp": 9, "input_length": 5}\n',
            "line 2: output_length is missing",
        ),
        (
            '{"timestamp": "soon", "input_length": 5, "output_length": 1}\n',
            "line 1: timestamp must be milliseconds",
        ),
        (
            '{"timestamp": 0, "input_length": 5, "output_length": 1, "hash_ids": "a"}\n',
            "line 1: hash_ids must be a list",
        ),
        ('{"prompt": "hi"}\n', "not a trace this reads"),
    ],
)
def test_bad_files_are_refused_naming_line_and_field(text, where):
    with pytest.raises(TraceFileError) as info:
        parse_trace_bytes("bad.txt", text.encode())
    assert str(info.value).startswith("bad.txt")
    assert where in str(info.value)


def test_not_utf8_and_missing_file(tmp_path):
    with pytest.raises(TraceFileError, match="not UTF-8"):
        parse_trace_bytes("x.csv", b"\xff\xfe\x00T")
    with pytest.raises(TraceFileError, match="cannot read"):
        read_trace(tmp_path / "absent.csv")


@pytest.mark.parametrize("path", [AZURE_CODE, AZURE_CONV])
def test_the_fast_azure_reader_agrees_with_the_row_by_row_one(path):
    from benchmarks.traces import _azure_fast, parse_trace

    fast = _azure_fast(path.name, path)
    assert fast is not None
    assert parse_trace_bytes(path.name, path.read_bytes()).input_tokens == fast.input_tokens
    with path.open(newline="") as f:
        careful = parse_trace(path.name, f)
    assert (fast.format, fast.clock, fast.start) == (careful.format, careful.clock, careful.start)
    assert fast.input_tokens == careful.input_tokens
    assert fast.output_tokens == careful.output_tokens
    # the release's 7th fractional digit: pandas keeps it, Python's datetime drops it
    assert list(fast.arrival_s) == pytest.approx(list(careful.arrival_s), abs=1e-6)


def test_the_fast_reader_leaves_bad_rows_to_the_careful_one(tmp_path):
    bad = tmp_path / "t.csv"
    bad.write_text(AZURE_2024 + "2024-05-10 00:00:02+00:00,12x,3\n")
    with pytest.raises(TraceFileError, match="line 6: ContextTokens must be"):
        read_trace(bad)
    word = tmp_path / "w.csv"
    word.write_text(AZURE_2024 + "now,12,3\n")  # pandas alone would read it as the time now
    with pytest.raises(TraceFileError, match="line 6: TIMESTAMP 'now' is not a time"):
        read_trace(word)
    empty = tmp_path / "e.csv"
    empty.write_text(AZURE_2024 + ",12,3\n")
    with pytest.raises(TraceFileError, match="line 6: TIMESTAMP '' is not a time"):
        read_trace(empty)
    mixed = tmp_path / "m.csv"
    mixed.write_text(AZURE_2024 + "2024-05-10 00:00:02,12,3\n")
    with pytest.raises(TraceFileError, match="line 6: TIMESTAMP mixes"):
        read_trace(mixed)
    good = tmp_path / "g.csv"
    good.write_bytes(("\ufeff" + AZURE_2024).encode())
    trace = read_trace(good)
    assert trace.format == "azure-2024" and len(trace) == 4
    assert trace.start == datetime(2024, 5, 10, 0, 0, 0, 9930, tzinfo=UTC)


def test_an_azure_trace_read_in_chunks_is_the_trace_read_whole(monkeypatch):
    # The fast reader parses a chunk at a time; 7-row chunks cut the 2,000-row excerpt 286 times
    # and every figure must come out as from one read.
    import benchmarks.traces as traces

    whole = read_trace(AZURE_CODE)
    monkeypatch.setattr(traces, "_CHUNK_ROWS", 7)
    chunked = read_trace(AZURE_CODE)
    assert len(whole) == len(chunked) == 2000  # header + 2,000 rows (tests/fixtures/real/README.md)
    assert list(chunked.arrival_s) == list(whole.arrival_s)
    assert list(chunked.input_tokens) == list(whole.input_tokens)
    assert list(chunked.output_tokens) == list(whole.output_tokens)
    assert (chunked.start, chunked.clock, chunked.format) == (
        whole.start,
        whole.clock,
        whole.format,
    )


def test_a_fifo_is_refused_before_it_is_opened(tmp_path):
    import os

    fifo = tmp_path / "trace.csv"
    os.mkfifo(fifo)  # nobody writes: opening it to read would block forever
    with pytest.raises(TraceFileError, match="not a regular file"):
        read_trace(fifo)
