"""data/market_results.csv: built by scripts/build_market_results.py from pinned MLPerf results
repositories through the project's own importers, every row with its benchmark's shape.

The fixture subtrees under tests/fixtures/real/mlperf_v4.1 and mlperf_v5.1 are files of the
pinned commits, byte for byte (tests/fixtures/real/README.md names repository, path and commit),
so the script run over them must give exactly the committed rows for those runs.
"""

from __future__ import annotations

import csv
import importlib.util
import os
import re
import shutil
import subprocess
import sys
from collections import Counter
from pathlib import Path

import pytest

from benchmarks.plausibility import gate
from warehouse.seed import read_result_file

ROOT = Path(__file__).resolve().parents[1]
REAL = ROOT / "tests" / "fixtures" / "real"
CSV_PATH = ROOT / "data" / "market_results.csv"
CURATION = ROOT / "data" / "market_results_curation.md"
#: Where local git copies of the pinned repositories live, if anywhere (the build's --repos).
MIRRORS = Path(os.environ.get("TOKENDESK_MIRRORS", "/work/.mirror"))


def _load_script():
    spec = importlib.util.spec_from_file_location(
        "build_market_results", ROOT / "scripts" / "build_market_results.py"
    )
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up while the class is built
    spec.loader.exec_module(module)
    return module


bmr = _load_script()


def committed_rows() -> list[dict[str, str]]:
    with CSV_PATH.open(newline="", encoding="utf-8") as handle:
        return list(csv.DictReader(handle))


def _by_title(rows: list[dict[str, str]]) -> dict[str, dict[str, str]]:
    return {row["source_title"]: row for row in rows}


def _fixture_rows(round_name: str, folder: str) -> list[dict[str, str]]:
    source = next(s for s in bmr.ROUNDS if s.round == round_name)
    outcome = bmr.import_round(source, REAL / folder, bmr.Selection())
    return outcome.rows


@pytest.mark.parametrize(
    ("round_name", "folder"), [("v4.1", "mlperf_v4.1"), ("v5.1", "mlperf_v5.1")]
)
def test_the_script_over_a_pinned_subtree_gives_the_committed_rows(round_name, folder):
    produced = _fixture_rows(round_name, folder)
    committed = _by_title(committed_rows())
    curated = bmr.curated_runs()
    assert produced, "the fixture subtree gave no rows"
    for row in produced:
        if bmr.run_key(row["source_url"]) in curated:
            # The curated seed speaks for this run: the market file leaves it out.
            assert row["source_title"] not in committed, row["source_title"]
        else:
            assert committed.get(row["source_title"]) == row, row["source_title"]
    assert any(bmr.run_key(row["source_url"]) not in curated for row in produced)


def test_no_run_is_in_both_the_curated_seed_and_the_market_file():
    curated = bmr.curated_runs()
    assert curated, "the curated seed names no MLPerf run"
    assert not [r for r in committed_rows() if bmr.run_key(r["source_url"]) in curated]


def _printed_tokens_per_s(summary: Path) -> float:
    found = re.search(
        r"^(?:Completed )?[Tt]okens per second\s*:\s*([\d.]+)", summary.read_text(), re.M
    )
    assert found, summary
    return float(found.group(1))


MIXTRAL_V41 = "closed/NVIDIA/results/H200-SXM-141GBx8_TRT/mixtral-8x7b"
AMD_V51 = "closed/AMD/results/8xMI300X_2xEPYC_9575F/llama2-70b-99.9"
RUN = "performance/run_1/mlperf_log_summary.txt"


@pytest.mark.parametrize(
    ("round_name", "folder", "run", "scenario", "output_tokens"),
    [
        # mlcommons/inference language/mixtral-8x7b/README.md at 1c4cf275 (the v4.1 dataset)
        # prints {'tokens_per_sample': 145.9}; from e0fdceab (v5.1 on) 144.84.
        ("v4.1", "mlperf_v4.1", f"{MIXTRAL_V41}/Offline/{RUN}", "offline", "146"),
        ("v4.1", "mlperf_v4.1", f"{MIXTRAL_V41}/Server/{RUN}", "server", "146"),
        # language/llama2-70b/README.md prints "Tokens per sample: 294.45".
        ("v5.1", "mlperf_v5.1", f"{AMD_V51}/Offline/{RUN}", "offline", "294"),
        ("v5.1", "mlperf_v5.1", f"{AMD_V51}/Server/{RUN}", "server", "294"),
        ("v5.1", "mlperf_v5.1", f"{AMD_V51}/Interactive/{RUN}", "interactive", "294"),
    ],
)
def test_a_fixture_run_is_a_row_with_the_figure_loadgen_printed_and_its_shape(
    round_name, folder, run, scenario, output_tokens
):
    title = f"MLPerf Inference {round_name} results repo: {run}"
    row = _by_title(committed_rows())[title]
    assert float(row["output_tok_s"]) == _printed_tokens_per_s(REAL / folder / run)
    assert row["scenario"] == scenario
    assert row["output_tokens"] == output_tokens
    # The dataset's mean input: the sum of the pinned per-sample input counts over the samples
    # (scripts/build_market_results.py INPUT_MEANS, re-checked against the file on each build).
    benchmark = "mixtral-8x7b" if "mixtral" in run else "llama2-70b"
    mean = bmr.INPUT_MEANS[benchmark]
    assert row["input_tokens"] == str(round(mean.total_tokens / mean.samples))
    source = next(s for s in bmr.ROUNDS if s.round == round_name)
    folder_path = run.split("/performance/")[0]
    assert (
        row["source_url"] == f"https://github.com/{source.repo}/tree/{source.commit}/{folder_path}"
    )


def test_every_row_carries_the_shape_of_its_benchmark_at_its_round():
    for row in committed_rows():
        round_name = bmr._round_of(row)
        match = bmr._PERF_RUN.match(bmr._run_of(row))
        assert match, row["source_title"]
        shape = bmr.SHAPES[bmr.base_benchmark(match["benchmark"]), round_name]
        expected = str(round(shape.output.value)) if shape.output else ""
        assert row["output_tokens"] == expected, row["source_title"]
        assert row["input_tokens"] == (str(round(shape.input.value)) if shape.input else "")
        assert f"shape: {shape.dataset}" in row["notes"]
        assert shape.gaps in row["notes"]
        if shape.input:
            assert shape.input.note() in row["notes"]


def test_counts_by_round_and_scenario_agree_with_the_curation_log():
    rows = committed_rows()
    counts = Counter((bmr._round_of(r), r["scenario"]) for r in rows)
    assert {scenario for _, scenario in counts} <= {"offline", "server", "interactive"}
    log = CURATION.read_text(encoding="utf-8")
    table = log.split("## Rows by round and scenario")[1].split("\n## ")[0]
    for line in table.splitlines():
        cells = [c.strip() for c in line.strip("|").split("|")]
        if len(cells) == 5 and cells[0].startswith("v"):
            rnd, offline, server, interactive, total = cells
            assert int(offline) == counts[rnd, "offline"]
            assert int(server) == counts[rnd, "server"]
            assert int(interactive) == counts[rnd, "interactive"]
            assert int(total) == sum(n for (r, _), n in counts.items() if r == rnd)
    assert sum(counts.values()) == len(rows)
    # Rounds that gave nothing say why.
    for source in bmr.ROUNDS:
        if source.missing:
            assert f"**{source.round}**" in log


def test_the_file_loads_as_the_warehouse_reads_it_and_passes_the_result_gate():
    with (ROOT / "data" / "seed_results.csv").open(newline="", encoding="utf-8") as handle:
        seed_header = next(csv.reader(handle))
    with CSV_PATH.open(newline="", encoding="utf-8") as handle:
        assert next(csv.reader(handle)) == seed_header
    results = read_result_file(CSV_PATH)
    _, _, rejected = gate(CSV_PATH.name, results)
    assert rejected == []
    assert len(results) == len(committed_rows())


def _git(cwd: Path, *args: str) -> str:
    env = {
        **os.environ,
        "GIT_AUTHOR_NAME": "t",
        "GIT_AUTHOR_EMAIL": "t@t",
        "GIT_COMMITTER_NAME": "t",
        "GIT_COMMITTER_EMAIL": "t@t",
    }
    return subprocess.run(
        ["git", *args], cwd=cwd, env=env, check=True, capture_output=True, text=True
    ).stdout.strip()


@pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")
def test_a_git_copy_is_materialised_imported_and_written_the_same_way_twice(tmp_path, monkeypatch):
    # A repository holding the v5.1 fixture subtree at its paths: the script reads it only
    # through the commit (ls-tree + cat-file), as it reads a results repository.
    repo = tmp_path / "repos" / "inference_results_v5.1"
    shutil.copytree(REAL / "mlperf_v5.1", repo)
    _git(repo, "init", "-q")
    _git(repo, "add", "-A")
    _git(repo, "commit", "-q", "-m", "fixture")
    commit = _git(repo, "rev-parse", "HEAD")
    # Gone from the work tree, still in the commit: the system description is read from there.
    (repo / "closed" / "AMD" / "systems" / "8xMI300X_2xEPYC_9575F.json").unlink()
    pinned = next(s for s in bmr.ROUNDS if s.round == "v5.1")
    source = bmr.RoundSource(
        round="v5.1",
        repo=pinned.repo,
        commit=commit,
        published=pinned.published,
        date_basis=pinned.date_basis,
    )
    monkeypatch.setattr(bmr, "ROUNDS", (source,))
    outputs = []
    for attempt in ("a", "b"):
        work = tmp_path / f"work_{attempt}"
        work.mkdir()
        rows, outcomes, problems = bmr.build(tmp_path / "repos", work, allow_clone=False)
        assert problems == []
        out = tmp_path / f"out_{attempt}.csv"
        bmr.write_csv(out, rows)
        outputs.append(out.read_bytes())
    assert outputs[0] == outputs[1]
    # The AMD runs read from the commit are the committed rows, but for the commit in the URL.
    committed = _by_title(committed_rows())
    amd = [r for r in rows if AMD_V51 in r["source_title"]]
    assert len(amd) == 3
    for row in amd:
        expected = dict(committed[row["source_title"]])
        expected["source_url"] = expected["source_url"].replace(pinned.commit, commit)
        assert row == expected
    # The summary table at the root is no run of the tree, so nothing of it is counted.
    assert outcomes[0].selection.other_runs == Counter()


@pytest.mark.parametrize(
    ("reason", "key"),
    [
        (
            "weight_data_types: precision unknown: pass the run's measurements/<system>_"
            "<Scenario>.json with the summary, or --precision",
            "weight_data_types: precision unknown",
        ),
        (
            "accelerator_model_name: cannot place the accelerator: 'NVIDIA B300-SXM-270GB' is a "
            "B300 with sxm, 270 GB, which no B300 in the catalog has (known: nvidia-b300-288gb); "
            "pass --accelerator ID",
            "accelerator_model_name: cannot place the accelerator: 'NVIDIA B300-SXM-270GB' is a "
            "B300 with sxm, 270 GB, which no B300 in the catalog has",
        ),
    ],
)
def test_refusals_are_counted_under_their_reason_without_the_advice(reason, key):
    assert bmr.reason_key(reason) == key


def test_benchmark_folders_name_their_benchmark():
    assert bmr.base_benchmark("llama2-70b-99.9") == "llama2-70b"
    assert bmr.base_benchmark("llama3_1-8b") == "llama3.1-8b"
    assert bmr.base_benchmark("llama2-70b-interactive-99") == "llama2-70b"
    assert bmr.base_benchmark("llama3.1-8b-edge") == "llama3.1-8b-edge"


@pytest.mark.skipif(
    not (MIRRORS / "mlcommons+inference" / "repo").is_dir(),
    reason="no local copy of mlcommons/inference (set TOKENDESK_MIRRORS)",
)
def test_every_shape_figure_is_in_its_file_at_its_commit():
    assert bmr.verify_shapes(MIRRORS) == ""


def test_every_model_the_bundled_results_name_is_in_the_model_table():
    from benchmarks.plausibility import architecture_for
    from costmodel.bundled_tables import resolve_architecture

    seed = ROOT / "data" / "seed_results.csv"
    with seed.open(newline="", encoding="utf-8") as handle:
        names = {row["model"] for row in committed_rows()} | {
            row["model"] for row in csv.DictReader(handle)
        }
    unknown = sorted(n for n in names if not resolve_architecture(n) or not architecture_for(n))
    assert not unknown, f"models the results name but the model table lacks: {unknown}"
