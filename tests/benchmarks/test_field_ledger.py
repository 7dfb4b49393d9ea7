"""The field ledger: every field of every real file is mapped or ignored with a reason, the
ledger's Markdown is the one shipped, and a field the ledger does not know is named in the
records' notes (so a new tool version shows up in a dry run)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from benchmarks.importers import (
    REGISTRY,
    ImportOverrides,
    _source,
    detect,
    import_files,
    import_sources,
)
from benchmarks.importers import ledger as ledger_module
from benchmarks.importers.ledger import LEDGER_FILE, LEDGERS, UNLEDGERED, markdown, not_understood

ROOT = Path(__file__).resolve().parents[2]
REAL = ROOT / "tests" / "fixtures" / "real"
#: Folders of real files that are not benchmark results: audited source trees, cloud bills
#: (``pricing.focus``), request traces (``benchmarks.traces``) and the model configs the model
#: table is built from (``scripts/build_models.py``) and the price catalog rows the market prices
#: are built from (``scripts/build_market_prices.py``), each tested by its own suite.
NOT_RESULTS = {"audit", "focus", "traces", "model_configs", "skypilot"}
CORPUS = sorted(
    p
    for p in REAL.rglob("*")
    if p.is_file() and p.name != "README.md" and not NOT_RESULTS & set(p.parts)
)


@pytest.mark.parametrize("path", CORPUS, ids=lambda p: str(p.relative_to(REAL)))
def test_every_field_of_every_real_file_is_in_its_format_s_ledger(path):
    src = _source(str(path), path.read_bytes(), ImportOverrides())
    imp = detect(src)
    assert ledger_module.ledger_for(imp.name) is not None, imp.name
    assert not_understood(imp.name, src.kind, src.data, src.text) == []


def test_every_format_keeps_a_ledger_or_says_why_not():
    covered = {fmt for ledger in LEDGERS for fmt in ledger.formats}
    assert {imp.name for imp in REGISTRY} == covered | set(UNLEDGERED)
    for ledger in LEDGERS:
        # Every ignored field says why, every mapped one where it goes.
        assert all(reason.strip() for reason in ledger.ignored.values())
        assert all(target.strip() for target in ledger.mapped.values())
        assert not set(ledger.mapped) & set(ledger.ignored)


def test_the_shipped_ledger_is_the_one_the_code_keeps():
    assert (ROOT / LEDGER_FILE).read_text(encoding="utf-8") == markdown()


def test_a_field_the_ledger_does_not_know_is_named_in_the_dry_run_notes():
    # AIPerf 0.13's export with one field a later version might add: the figures still import,
    # and every record says which field was not understood.
    path = next(REAL.glob("aiperf/*/profile_export_aiperf.json"))
    data = json.loads(path.read_bytes())
    data["speculative_acceptance_rate"] = {"unit": "ratio", "avg": 0.7}
    overrides = ImportOverrides(
        accelerator_id="nvidia-h100-sxm-80gb", runtime="vllm", precision="bf16"
    )
    [(_, _, records)] = import_sources([(path.name, json.dumps(data).encode())], overrides)
    [(_, _, plain)] = import_sources([(path.name, path.read_bytes())], overrides)
    assert "'speculative_acceptance_rate' not understood" in records[0].notes
    assert "not understood" not in plain[0].notes
    assert records[0].output_tok_s == plain[0].output_tok_s


def test_an_mlperf_summary_line_loadgen_adds_is_named_too():
    path = REAL / (
        "mlperf_v5.1/closed/RedHat/results/XE8640_4xH100_vLLM/llama3.1-8b/Offline/"
        "performance/run_1/mlperf_log_summary.txt"
    )
    text = path.read_text(encoding="utf-8").replace(
        "Result is : VALID", "Result is : VALID\nEnergy per token (J) : 0.41"
    )
    fmt = "mlperf-log-summary"
    assert not_understood(fmt, "text", None, text) == ["Energy per token (J)"]


def test_a_companion_found_in_the_submission_layout_is_held_to_its_ledger(tmp_path):
    # The run's measurements JSON is read from disk beside the summary; a field it gains later
    # is named on the record like one in a file given on the command line.
    root = tmp_path / "v5.1"
    shutil.copytree(REAL / "mlperf_v5.1/closed/RedHat", root / "closed/RedHat")
    measured = next((root / "closed/RedHat/measurements").rglob("Server/*.json"))
    data = json.loads(measured.read_text(encoding="utf-8"))
    data["kv_cache_data_type"] = "fp8"
    measured.write_text(json.dumps(data), encoding="utf-8")
    run = next((root / "closed/RedHat/results").rglob("Server/performance/run_1/*.txt"))
    [(_, [record])] = import_files([run])
    assert "'kv_cache_data_type' not understood" in record.notes
    assert "mlperf-measurements" in record.notes
