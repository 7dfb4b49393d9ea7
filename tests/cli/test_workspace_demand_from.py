"""``tokendesk workspace demand-from FILE``: the demand a real trace implies, checked against a
computation written out here from the file's own rows."""

from __future__ import annotations

import csv
import json
from datetime import datetime

import pytest
from typer.testing import CliRunner

from cli.main import app
from cli.workspace_command import register
from tokendesk.paths import REPO_ROOT

register(app)
runner = CliRunner()
REAL = REPO_ROOT / "tests" / "fixtures" / "real" / "traces"
AZURE_CODE = REAL / "AzureLLMInferenceTrace_code_first2000.csv"
MOONCAKE_CONV = REAL / "mooncake_conversation_trace_first300.jsonl"
KEYS = {
    "source",
    "requests",
    "trace_hours",
    "hours_per_month",
    "input_tokens_per_month",
    "output_tokens_per_month",
    "input_tokens_mean",
    "output_tokens_mean",
    "input_output_ratio",
    "peak_to_mean",
    "peak_to_mean_grain",
    "peak_to_mean_basis",
    "prefix_cache_share",
    "burstiness",
    "hour_of_day",
    "over_time",
    "input_length",
    "output_length",
    "notes",
    "workload_fields",
}


def _json(path) -> dict:
    res = runner.invoke(app, ["workspace", "demand-from", str(path), "--format", "json"])
    assert res.exit_code == 0, res.output
    return json.loads(res.stdout)


def test_azure_code_excerpt_month_and_peak_as_computed_from_its_rows():
    doc = _json(AZURE_CODE)
    assert set(doc) == KEYS
    with AZURE_CODE.open(newline="") as f:
        rows = list(csv.reader(f))[1:]
    stamps = [datetime.fromisoformat(r[0]) for r in rows]
    hours = (stamps[-1] - stamps[0]).total_seconds() / 3600
    ins = sum(int(r[1]) for r in rows)
    outs = sum(int(r[2]) for r in rows)
    assert doc["requests"] == 2000
    assert doc["trace_hours"] == pytest.approx(hours)
    assert doc["hours_per_month"] == 730
    assert doc["input_tokens_per_month"] == round(ins * 730 / hours)
    assert doc["output_tokens_per_month"] == round(outs * 730 / hours)
    assert doc["input_output_ratio"] == pytest.approx(ins / outs)
    # Per whole minute from the first request: input + output tokens.
    per_minute: dict[int, int] = {}
    whole = int((stamps[-1] - stamps[0]).total_seconds() // 60)
    for stamp, row in zip(stamps, rows, strict=True):
        minute = int((stamp - stamps[0]).total_seconds() // 60)
        if minute < whole:
            per_minute[minute] = per_minute.get(minute, 0) + int(row[1]) + int(row[2])
    mean = sum(per_minute.values()) / whole
    assert doc["peak_to_mean_grain"] == "1 minute"
    assert doc["peak_to_mean"] == pytest.approx(max(per_minute.values()) / mean)
    # The Azure trace carries no prefix ids and covers part of one hour of the day.
    assert doc["prefix_cache_share"] is None
    assert doc["source"]["format"] == "azure-2023"
    values = doc["hour_of_day"]["values"]
    assert [h for h, v in enumerate(values) if v is not None] == [18]
    assert any("covers 1 of the 24 hours" in n for n in doc["notes"])
    assert any("cannot be told" in n for n in doc["notes"])


def test_mooncake_excerpt_prefix_share_from_hash_ids():
    doc = _json(MOONCAKE_CONV)
    rows = [json.loads(line) for line in MOONCAKE_CONV.read_text().splitlines()]
    seen: set[int] = set()
    hits = total = 0
    for row in rows:
        hits += sum(1 for b in row["hash_ids"] if b in seen)
        total += len(row["hash_ids"])
        seen.update(row["hash_ids"])
    assert doc["prefix_cache_share"] == pytest.approx(hits / total)
    assert 0 < doc["prefix_cache_share"] < 1
    assert doc["hour_of_day"] is None
    assert doc["input_tokens_mean"] == pytest.approx(
        sum(r["input_length"] for r in rows) / len(rows)
    )
    # 100 s of 3-second time stamps: too short for a per-minute peak, and the notes say so.
    assert doc["peak_to_mean"] is None
    assert any("steps of about 3 s" in n for n in doc["notes"])


def test_table_output_keeps_numbers_whole():
    res = runner.invoke(app, ["workspace", "demand-from", str(AZURE_CODE)])
    assert res.exit_code == 0, res.output
    assert "12,239,724,983" in res.output  # input tokens / month, on one line
    assert "cannot be told" in res.output


def test_bad_trace_is_refused_with_file_and_line_no_traceback(tmp_path):
    bad = tmp_path / "trace.csv"
    bad.write_text("TIMESTAMP,ContextTokens,GeneratedTokens\n2023-11-16 18:17:03,abc,3\n")
    res = runner.invoke(app, ["workspace", "demand-from", str(bad)])
    assert res.exit_code == 2
    assert "trace.csv, line 2: ContextTokens must be a whole number" in res.output
    assert "Traceback" not in res.output
    one = tmp_path / "one.csv"
    one.write_text("TIMESTAMP,ContextTokens,GeneratedTokens\n2023-11-16 18:17:03,5,3\n")
    res = runner.invoke(app, ["workspace", "demand-from", str(one)])
    assert res.exit_code == 2 and "no time span" in res.output
