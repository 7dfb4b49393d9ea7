"""Build ``data/market_results.csv``: every public MLPerf Inference LLM result of the pinned
rounds, imported by tokendesk's own importers, with its source and the benchmark's shape.

    python scripts/build_market_results.py --repos /work/.mirror
    python scripts/build_market_results.py --repos ~/mlperf-git --clone   # with network

For each round in ``ROUNDS`` (results repository, pinned commit, subtrees) the script

1. finds a git copy of the repository under ``--repos`` (``<owner>+<name>/repo``,
   ``<owner>+<name>``, ``<name>.git`` or ``<name>``; a bare directory will do), or with
   ``--clone`` makes one there (``git clone --bare --filter=blob:none`` + a fetch of the commit);
2. materialises, from the pinned commit and nothing else, the LLM result folders of the round:
   each ``<division>/<submitter>/results/<system>/<benchmark>/<scenario>/performance/run_N/
   mlperf_log_summary.txt``, the run's ``measurements`` JSON (both layouts) and the submitter's
   ``systems/<system>.json``, at their repository paths;
3. runs ``benchmarks.bulk.import_tree`` over that tree (the importers, the ledger and the
   plausibility gate every other way in uses), dated by the round's publication;
4. fills each record's ``input_tokens`` / ``output_tokens`` from ``SHAPES`` — the mean lengths
   the benchmark's reference documentation states, each pinned to file, commit and sha256 — and
   writes the rows in the columns of ``data/seed_results.csv``.

Everything not imported is listed, counted by reason, in ``data/market_results_curation.md``,
so that a rerun after an importer fix picks the refused files up and says so. The output is a
function of the pinned sources alone: a rerun writes the same bytes.
"""

from __future__ import annotations

import argparse
import csv
import hashlib
import io
import json
import re
import subprocess
import sys
import tempfile
import time
from collections import Counter, defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field, replace
from datetime import UTC, date, datetime
from pathlib import Path, PurePosixPath

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:  # run as a script from anywhere: the project's packages first
    sys.path.insert(0, str(ROOT))

from benchmarks.bulk import IMPORTED, FileOutcome, import_tree  # noqa: E402
from benchmarks.importers import ImportOverrides  # noqa: E402
from benchmarks.importers.mlperf_naming import ROUND_DATES  # noqa: E402
from benchmarks.plausibility import gate  # noqa: E402
from tokendesk.records import BenchmarkResult  # noqa: E402

DATA = ROOT / "data"
OUT_CSV = DATA / "market_results.csv"
OUT_CURATION = DATA / "market_results_curation.md"
#: The columns of the bundled result file, in its order (warehouse.seed reads this format).
SEED_RESULTS = DATA / "seed_results.csv"
GITHUB = "https://github.com"


# ------------------------------------------------------------------------------ pinned sources
@dataclass(frozen=True)
class RoundSource:
    """One MLPerf Inference round's results repository at a pinned commit."""

    round: str
    repo: str  # owner/name as GitHub spells it (what was read)
    commit: str  # 40 hex digits; empty where the round could not be read
    subtrees: tuple[str, ...] = ("closed", "open")
    #: The MLCommons repository this one copies, where ``repo`` is someone else's copy.
    upstream: str = ""
    #: The date every record of the round carries, and what it rests on.
    published: date | None = None
    date_basis: str = ""
    #: Why the round contributes nothing (no copy could be read whole).
    missing: str = ""


def _round_date(version: str) -> date:
    return ROUND_DATES[version].date()  # the importer's own table of publication dates


ROUNDS: tuple[RoundSource, ...] = (
    RoundSource(
        round="v4.1",
        repo="mlcommons/inference_results_v4.1",
        commit="198fc46799b3328b36ee4bcbdebfa2db5a8e6183",
        published=_round_date("v4.1"),
        date_basis="MLPerf Inference v4.1 publication (benchmarks.importers.mlperf.ROUND_DATES)",
    ),
    RoundSource(
        round="v5.0",
        repo="mlcommons/inference_results_v5.0",
        commit="",
        published=_round_date("v5.0"),
        missing=(
            "no copy could be read whole: the repository has too many files for a snapshot "
            "(and so has its public copy ntuhpc/mlperf_inference_results_v5.0), and its "
            "summary_results.json is not in the stored file index; a partial read cannot be "
            "pinned by checksum. Clone it with --clone and add its commit here."
        ),
    ),
    RoundSource(
        round="v5.1",
        repo="mlcommons/inference_results_v5.1",
        commit="965182b03376a00fcae415c54e560e1c83937932",
        published=_round_date("v5.1"),
        date_basis="MLPerf Inference v5.1 publication (benchmarks.importers.mlperf.ROUND_DATES)",
    ),
    RoundSource(
        round="v6.0",
        repo="gbeezybez/inference_results_v6.0",
        upstream="mlcommons/inference_results_v6.0",
        # The copy's last commit from the MLCommons side ("Update system name for Supermicro
        # AS-8126GS-NB3RT (#3)", 2026-04-03). The copy's own later commits (from 2026-05-08, by
        # the copy's owner) only add and remove files under open/Lattix; they are left out.
        commit="4d3916ac9cf474b679cdfcf492d43a0559418ad1",
        published=date(2026, 3, 26),
        date_basis=(
            "the date of the results repository's first commit, ab33b21 'Publishing "
            "Results' (2026-03-26); the runs carry no date of their own"
        ),
    ),
    RoundSource(
        round="v6.1",
        repo="mlcommons/inference_results_v6.1",
        commit="",
        missing=(
            "no snapshot of the repository can be had here; its round table is summary.json "
            "(a JSON object of rows keyed '0', '1', …, 670,121 characters at commit "
            "e777c7be4514), not the summary_results.json list the importer reads, and per-run "
            "results come as performance/result_summary.json, which the importer does not "
            "read yet. Clone it with --clone and add its commit here once the importer reads "
            "that layout."
        ),
    ),
)


#: The reference documentation read for the shapes: (file in mlcommons/inference, round) ->
#: (the file's last commit before the round's publication date, sha256 of the file there).
INFERENCE_REPO = "mlcommons/inference"
DOCS: dict[tuple[str, str], tuple[str, str]] = {
    ("language/llama2-70b/README.md", "v4.1"): (
        "c3c68ee61896e1e4d74b096565b627e14422337d",
        "2e489eb4a3683274807ff04381d788a1a26bb4146a0eb98ff69da2c7477d6e2e",
    ),
    ("language/mixtral-8x7b/README.md", "v4.1"): (
        "1c4cf2759e79291567cdbdfdcab9cbb864fbb1e2",
        "39b0fb89296fe776f948b3a5fbc8637997ade1654577544e47100c4e3690ff5f",
    ),
    ("language/gpt-j/README.md", "v4.1"): (
        "8c17da9b0d4b03e8e1c8aa356e279dd50e8c25d9",
        "940972ececc025401bc0599e4dc10c6f58c5b3e3c157b19cf231df1ee9fa97b8",
    ),
    ("language/llama2-70b/README.md", "v5.1"): (
        "0a3570efb0309b5581f2831d84c05fe5483b5ef7",
        "c20c9774a1975c0f33b00f7173604ee8cfdd35704ea194ef6d5d0d89eba7500a",
    ),
    ("language/mixtral-8x7b/README.md", "v5.1"): (
        "e0fdceab4dc3d99f66a69a58eb90e7d74936dd9a",
        "4e7bccbe8685542f125a183f68e6f5c873bef01be15a9d227584caec9c175e7e",
    ),
    ("language/llama3.1-405b/README.md", "v5.1"): (
        "263335c0a09620c7ba8c7547f3a82d6db9636fc8",
        "f59dc978477e1dbaf6c445a462dc4254c70e82099388e0933bbc0fe30fd7e26d",
    ),
    ("language/llama3.1-8b/README.md", "v5.1"): (
        "e064826a152a0a61b4541141522fa2a3f92b879d",
        "97c24c8b963be4bd74bfa7f689d6e8b35ce0cdc3366ac142c3b97c638312e7dd",
    ),
    ("language/deepseek-r1/README.md", "v5.1"): (
        "e064826a152a0a61b4541141522fa2a3f92b879d",
        "8ae21754bee45323cca811206cee321bb4bf443774dfac5386f5d03f7ae26af9",
    ),
    ("language/gpt-j/README.md", "v5.1"): (
        "e0fdceab4dc3d99f66a69a58eb90e7d74936dd9a",
        "20974f0da05eb667d94fbbd5514c22d79e0996e71c1b4180c8fb1084ebd8fe6f",
    ),
    ("language/llama2-70b/README.md", "v6.0"): (
        "02a2dbb161b88af90953f6663f51809b401911ec",
        "f7eee4fb707a5035e7c8f8fe01f351a4620ea1ab904ca8086fcd9043eabb6b5e",
    ),
    ("language/mixtral-8x7b/README.md", "v6.0"): (
        "02a2dbb161b88af90953f6663f51809b401911ec",
        "ade5964790ae0dfbc58d1be1c1e7aa1b3ddd9d14fd6a0962c304c5e751bacc8b",
    ),
    ("language/llama3.1-405b/README.md", "v6.0"): (
        "dd0b647ab4233ce67dab319fafaec12bb09090d5",
        "c27a7151f7b5f6e616819ecd2a0a5efe341b1fff901f85223fc36a7f8e7ef284",
    ),
    ("language/llama3.1-8b/README.md", "v6.0"): (
        "3d06ae1a2cd371bd740593f9ab69c205c5bd6c5b",
        "643c76c476eb20707c2c055526f4521aec43e800146401eb0b16803d5d6649a8",
    ),
    ("language/deepseek-r1/README.md", "v6.0"): (
        "dd0b647ab4233ce67dab319fafaec12bb09090d5",
        "2eb5e42d43f5f266ff7f2a740cb3faa2ef6039c287626b933d425a1dfdf05e58",
    ),
    ("language/gpt-oss-120b/README.md", "v6.0"): (
        "f6b0fbe24d47c8592141249d8c6659a54585f8bf",
        "e617a57d298824c8631e7e96c459728da311478cfb98e7e9a9ae4d02fc25d2cc",
    ),
    ("language/gpt-j/README.md", "v6.0"): (
        "dd0b647ab4233ce67dab319fafaec12bb09090d5",
        "e1cc1505b69143c99851a7df3007441b5d7cac65f5787cdc57438a31b54e7e67",
    ),
    ("multimodal/qwen3-vl/README.md", "v6.0"): (
        "948e53487d090c4b2157b8933ae4e61a64a6768d",
        "f4df122d1d63f17a04440ac079693e273a8d9d364783299a53770fc03998eae1",
    ),
}


@dataclass(frozen=True)
class Figure:
    """A mean length as the documentation prints it; the number is read from ``quote``."""

    path: str
    quote: str  # the exact text in the file (checked against the file when it is at hand)
    unit: str = "tokens per sample"

    @property
    def value(self) -> float:
        return float(re.findall(r"\d+(?:\.\d+)?", self.quote)[-1])


#: Per-sample token counts of the official MLPerf dataset files, as a public dashboard extracted
#: them (its mlperf-data/original/generate_dataset_summaries.py reads each file's token-length
#: column into mlperf-data/summaries/*.csv). No reference document states a mean input length;
#: this is the nearest source. Its reference-output means equal the reference READMEs' figures
#: where both exist (llama3.1-405b 684.68, mixtral-8x7b 144.84), so the extraction is faithful.
SUMMARIES_REPO = "openshift-psap/performance-dashboard"
SUMMARIES_COMMIT = "71007029fb5bced1d79808e7e64dc4c2af82ea55"


@dataclass(frozen=True)
class InputMean:
    """A dataset's mean input length: the mean of its per-sample ``input_length`` column."""

    path: str  # in SUMMARIES_REPO at SUMMARIES_COMMIT
    sha256: str
    samples: int
    total_tokens: int  # the column's sum; the mean is total / samples
    column: str  # the dataset file and the column the extraction read

    @property
    def value(self) -> float:
        return round(self.total_tokens / self.samples, 2)

    def note(self) -> str:
        return (
            f"mean input {self.value:g} tokens per sample: the mean of the {self.samples:,}"
            f" per-sample input token counts of the official dataset file ({self.column}) as"
            f" {SUMMARIES_REPO} {self.path} at {SUMMARIES_COMMIT[:12]} lists them (derived"
            " here; no reference document states a mean input length)"
        )


_SUMMARY = "mlperf-data/summaries/"
INPUT_MEANS = {
    "llama2-70b": InputMean(
        _SUMMARY + "llama2-70b-99.csv",
        "83b5ef2099a14a72e886f6c63c331137e2ce1e514ba59f131a3dee5ed84d6916",
        24576,
        5463976,
        "open_orca_gpt4_tokenized_llama.sampled_24576.pkl, tok_input_length",
    ),
    "mixtral-8x7b": InputMean(
        _SUMMARY + "mixtral-8x7b.csv",
        "7ffd735eb7b488aecbfbc19f1efb86accc1e1a9a7d5786cbeb8dd90860d2f0de",
        15000,
        6410905,
        "09292024_mixtral_15k_mintoken2_v1.pkl, tok_input_len",
    ),
    "llama3.1-405b": InputMean(
        _SUMMARY + "llama3-1-405b.csv",
        "41572777b8ae4499a612016a570c99eaa32afc736e8e003c920efa7bbccb72aa",
        8313,
        78380323,
        "mlperf_llama3.1_405b_dataset_8313_processed_fp16_eval.pkl, tok_input_len",
    ),
    "llama3.1-8b": InputMean(
        _SUMMARY + "llama3-1-8b-datacenter.csv",
        "f903317343c10ad208014d12443d73911cbacc6c9bd733bd15224b6994407f73",
        13368,
        11639915,
        "cnn_eval.json, the length of tok_input",
    ),
    "deepseek-r1": InputMean(
        _SUMMARY + "deepseek-r1.csv",
        "bddc93e4bff296c930cb3c8eb31b9cd136bf5e208c469e779d5179daf900cf30",
        4388,
        3527036,
        "mlperf_deepseek_r1_dataset_4388_fp8_eval.pkl, tok_input_len",
    ),
}


@dataclass(frozen=True)
class Shape:
    """The dataset one benchmark defines and the mean lengths its documentation states."""

    benchmark: str
    dataset: str
    doc: str  # the file in mlcommons/inference the shape rests on
    output: Figure | None
    #: Why a length is empty: the documentation states no mean (or states it in characters).
    gaps: str
    input: InputMean | None = None


_NO_INPUT = "the reference documentation states no mean input length"
_CHARS = (
    "no mean output length in tokens: the documentation's gen_len is the summed length of "
    "the decoded outputs in characters (evaluation.py takes len() of the decoded text)"
)
_L2 = "language/llama2-70b/README.md"
_MX = "language/mixtral-8x7b/README.md"
_405 = "language/llama3.1-405b/README.md"
_8B = "language/llama3.1-8b/README.md"
_DS = "language/deepseek-r1/README.md"
_OSS = "language/gpt-oss-120b/README.md"
_GJ = "language/gpt-j/README.md"
_QW = "multimodal/qwen3-vl/README.md"


def _shapes() -> dict[tuple[str, str], Shape]:
    """(benchmark, round) -> shape. The benchmark is the results folder's name with the
    accuracy target (-99, -99.9) and v5.0's "-interactive" dropped (``base_benchmark``)."""
    orca = "OpenOrca (GPT-4 split, max_seq_len=1024), 24,576 samples"
    llama2 = Shape("llama2-70b", orca, _L2, Figure(_L2, "Tokens per sample: 294.45"), _NO_INPUT)
    mix = "OpenOrca, GSM8K and MBXP, 5,000 samples each (15,000)"
    r405 = "LongBench, LongDataCollections, Ruler and GovReport subsets, 8,313 samples"
    ds = "AIME, MATH500, GPQA, MMLU-Pro and LiveCodeBench ensemble, 4,388 samples"
    cnn = "CNN/DailyMail validation"
    shapes: dict[tuple[str, str], Shape] = {}
    for rnd in ("v4.1", "v5.1", "v6.0"):
        shapes["llama2-70b", rnd] = llama2
        shapes["gptj", rnd] = Shape(
            "gptj", f"{cnn}, 13,368 samples", _GJ, None, _NO_INPUT + "; " + _CHARS
        )
    mixtral_quote = {"v4.1": "'tokens_per_sample': 145.9"}
    for rnd in ("v4.1", "v5.1", "v6.0"):
        quote = mixtral_quote.get(rnd, "'tokens_per_sample': 144.84")
        shapes["mixtral-8x7b", rnd] = Shape("mixtral-8x7b", mix, _MX, Figure(_MX, quote), _NO_INPUT)
    for rnd in ("v5.1", "v6.0"):
        shapes["llama3.1-405b", rnd] = Shape(
            "llama3.1-405b", r405, _405, Figure(_405, "'tokens_per_sample': 684.68"), _NO_INPUT
        )
        shapes["llama3.1-8b", rnd] = Shape(
            "llama3.1-8b",
            f"{cnn}, 13,368 samples (datacenter)",
            _8B,
            None,
            _NO_INPUT + "; " + _CHARS,
        )
        shapes["llama3.1-8b-edge", rnd] = Shape(
            "llama3.1-8b-edge", f"{cnn}, 5,000 samples (edge)", _8B, None, _NO_INPUT + "; " + _CHARS
        )
        shapes["deepseek-r1", rnd] = Shape(
            "deepseek-r1", ds, _DS, Figure(_DS, '"mean-output-tok-len": 3886.2274'), _NO_INPUT
        )
    shapes["gpt-oss-120b", "v6.0"] = Shape(
        "gpt-oss-120b",
        "AIME25, GPQA Diamond and LiveCodeBench v6 (performance set perf/perf_eval_ref.parquet)",
        _OSS,
        Figure(_OSS, "(1278.20 tokens)"),
        _NO_INPUT + "; the output mean is TEST09's reference for the performance set at "
        "reasoning_effort=low, the figure the compliance test holds a run's mean output to",
    )
    shapes["qwen3-vl-235b-a22b", "v6.0"] = Shape(
        "qwen3-vl-235b-a22b",
        "Shopify/product-catalogue, 48,289 samples (text and image)",
        _QW,
        None,
        "the reference documentation states no mean input or output length (it lists the "
        "input length of individual samples only)",
    )
    # The input mean of the datasets the per-sample counts cover (llama3.1-8b: the datacenter
    # set of 13,368 samples; the edge set is another file).
    for key, shape in list(shapes.items()):
        found = INPUT_MEANS.get(shape.benchmark)
        if found is not None:
            gaps = "; ".join(g for g in shape.gaps.split("; ") if g != _NO_INPUT)
            shapes[key] = replace(shape, input=found, gaps=gaps)
    return shapes


SHAPES = _shapes()

#: Benchmark folders of LLM results (the other benchmarks report samples or queries).
LLM_BENCHMARK = re.compile(r"llama|mixtral|deepseek|gpt|qwen|mistral|falcon", re.IGNORECASE)
_PERF_RUN = re.compile(
    r"^(?P<division>[^/]+)/(?P<submitter>[^/]+)/results/(?P<system>[^/]+)/(?P<benchmark>[^/]+)/"
    r"(?P<scenario>[^/]+)/performance/run_\d+/mlperf_log_summary\.txt$"
)
_SYSTEM_JSON = re.compile(
    r"^(?P<division>[^/]+)/(?P<submitter>[^/]+)/systems/(?P<system>[^/]+)\.json$"
)
#: The precision JSON in either layout: measurements/<system>/<benchmark>/<scenario>/*.json, or
#: (v6.0) results/<system>/<benchmark>/<scenario>/measurements.json beside performance/.
_MEASUREMENTS = re.compile(
    r"^(?P<division>[^/]+)/(?P<submitter>[^/]+)/(?:measurements/(?P<system>[^/]+)/(?P<benchmark>[^/]+)/"
    r"(?P<scenario>[^/]+)/[^/]+\.json|results/(?P<system2>[^/]+)/(?P<benchmark2>[^/]+)/"
    r"(?P<scenario2>[^/]+)/measurements\.json)$"
)


def base_benchmark(folder: str) -> str:
    """``llama2-70b-99.9`` -> ``llama2-70b``; ``llama3_1-8b`` -> ``llama3.1-8b``; v5.0's
    ``llama2-70b-interactive-99`` -> ``llama2-70b``."""
    name = folder.lower().replace("llama3_1", "llama3.1")
    name = re.sub(r"-interactive(?=-|$)", "", name)
    return re.sub(r"-99(\.9)?$", "", name)


# ------------------------------------------------------------------------------ git copies
def _git(git_dir: Path, *args: str, stdin: bytes | None = None) -> bytes:
    done = subprocess.run(
        ["git", "-C", str(git_dir), *args], input=stdin, capture_output=True, check=False
    )
    if done.returncode:
        raise SystemExit(
            f"git {' '.join(args[:3])} in {git_dir} failed: {done.stderr.decode().strip()}"
        )
    return done.stdout


def find_copy(repos: Path, repo: str) -> Path | None:
    """The git directory of ``repo`` under ``repos`` (the layouts people and tools use)."""
    owner, name = repo.split("/")
    for candidate in (
        repos / f"{owner}+{name}" / "repo",
        repos / f"{owner}+{name}",
        repos / f"{name}.git",
        repos / name,
    ):
        if (candidate / "HEAD").is_file() or (candidate / ".git").exists():
            return candidate
    return None


def clone(repos: Path, repo: str, commit: str) -> Path:
    """A blob-less bare clone of ``repo`` with ``commit`` in it (blobs come when read)."""
    owner, name = repo.split("/")
    target = repos / f"{owner}+{name}" / "repo"
    if not target.exists():
        target.parent.mkdir(parents=True, exist_ok=True)
        subprocess.run(
            ["git", "clone", "--bare", "--filter=blob:none", f"{GITHUB}/{repo}.git", str(target)],
            check=True,
        )
    # A commit no branch points at any more is still served by GitHub when asked for by id.
    subprocess.run(
        ["git", "-C", str(target), "fetch", "--filter=blob:none", "origin", commit], check=True
    )
    return target


def has_commit(git_dir: Path, commit: str) -> bool:
    done = subprocess.run(
        ["git", "-C", str(git_dir), "cat-file", "-e", f"{commit}^{{commit}}"],
        capture_output=True,
        check=False,
    )
    return done.returncode == 0


def tree_files(git_dir: Path, commit: str, subtrees: Sequence[str]) -> dict[str, str]:
    """path -> blob id of every file under ``subtrees`` at ``commit``."""
    out = _git(git_dir, "ls-tree", "-r", "-z", "--full-tree", commit, "--", *subtrees)
    files: dict[str, str] = {}
    for entry in out.split(b"\0"):
        if not entry:
            continue
        meta, path = entry.split(b"\t", 1)
        mode, kind, oid = meta.split()
        if kind == b"blob" and mode != b"120000":  # links are not result files
            files[path.decode("utf-8", "surrogateescape")] = oid.decode()
    return files


def read_blobs(git_dir: Path, oids: Iterable[str]) -> dict[str, bytes | None]:
    """oid -> content (None where the copy lacks the object), through one ``cat-file --batch``."""
    wanted = sorted(set(oids))
    out = _git(git_dir, "cat-file", "--batch", stdin="".join(f"{o}\n" for o in wanted).encode())
    blobs: dict[str, bytes | None] = {}
    stream = io.BytesIO(out)
    for oid in wanted:
        header = stream.readline().decode().split()
        if len(header) < 3 or header[1] != "blob":  # "<oid> missing" in a shallow or partial copy
            blobs[oid] = None
            continue
        blobs[oid] = stream.read(int(header[2]))
        stream.read(1)  # the newline after each object
    return blobs


# ------------------------------------------------------------------------------ selection
@dataclass
class Selection:
    """What one round's tree holds: the LLM runs and their companions, and what was left."""

    runs: dict[str, str] = field(default_factory=dict)  # path -> oid
    companions: dict[str, str] = field(default_factory=dict)
    other_runs: Counter[str] = field(default_factory=Counter)  # benchmark -> runs not read


def select(files: dict[str, str]) -> Selection:
    chosen = Selection()
    wanted: set[tuple[str, ...]] = set()
    for path, oid in sorted(files.items()):
        match = _PERF_RUN.match(path)
        if not match:
            continue
        if LLM_BENCHMARK.search(match["benchmark"]):
            chosen.runs[path] = oid
            wanted.add((match["division"], match["submitter"], match["system"]))
            wanted.add(
                (
                    match["division"],
                    match["submitter"],
                    match["system"],
                    match["benchmark"],
                    match["scenario"],
                )
            )
        else:
            chosen.other_runs[match["benchmark"]] += 1
    for path, oid in sorted(files.items()):
        system = _SYSTEM_JSON.match(path)
        if system and (system["division"], system["submitter"], system["system"]) in wanted:
            chosen.companions[path] = oid
            continue
        found = _MEASUREMENTS.match(path)
        if found:
            key = (
                found["division"],
                found["submitter"],
                found["system"] or found["system2"],
                found["benchmark"] or found["benchmark2"],
                found["scenario"] or found["scenario2"],
            )
            if key in wanted:
                chosen.companions[path] = oid
    return chosen


def materialise(git_dir: Path, source: RoundSource, root: Path) -> tuple[Selection, list[str]]:
    """Write the round's LLM runs and companions under ``root`` at their repository paths;
    the paths the copy lacks the content of are returned."""
    chosen = select(tree_files(git_dir, source.commit, source.subtrees))
    paths = {**chosen.runs, **chosen.companions}
    blobs = read_blobs(git_dir, paths.values())
    absent = []
    for path, oid in sorted(paths.items()):
        data = blobs[oid]
        if data is None:
            absent.append(path)
            continue
        target = root / PurePosixPath(path)
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(data)
    return chosen, absent


# ------------------------------------------------------------------------------ rows
def columns() -> list[str]:
    with SEED_RESULTS.open(newline="", encoding="utf-8") as handle:
        return next(csv.reader(handle))


@dataclass
class Refusal:
    round: str
    path: str  # repository path
    reason: str
    status: str = "refused"


def _cell(value: object) -> str:
    if value is None:
        return ""
    if isinstance(value, datetime):
        return value.date().isoformat()
    if isinstance(value, float):
        # LoadGen prints nanoseconds: six decimals of a millisecond keep every digit it printed
        # and drop the binary noise of the division (318.67968099999996 -> 318.679681).
        return repr(round(value, 6))
    return str(value)


def folder_url(source: RoundSource, run_path: str) -> str:
    """The scenario folder (``…/<benchmark>/<Scenario>``) at the pinned commit."""
    folder = run_path.split("/performance/")[0]
    return f"{GITHUB}/{source.repo}/tree/{source.commit}/{folder}"


def _system_type(root: Path, division: str, submitter: str, system: str) -> str:
    path = root / division / submitter / "systems" / f"{system}.json"
    try:
        described = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return ""
    return (
        str(described.get("system_type") or "").strip().lower()
        if isinstance(described, dict)
        else ""
    )


def row_for(
    source: RoundSource, root: Path, run_path: str, data: bytes, result: BenchmarkResult
) -> dict[str, str] | Refusal:
    match = _PERF_RUN.match(run_path)
    assert match  # only runs the pattern chose are imported
    benchmark = base_benchmark(match["benchmark"])
    shape = SHAPES.get((benchmark, source.round))
    if shape is None:
        return Refusal(
            source.round,
            run_path,
            f"benchmark folder {match['benchmark']!r} names no benchmark of MLPerf "
            f"{source.round} with a documented dataset (an open-division variant); its shape "
            "cannot be stated",
        )
    system_type = _system_type(root, match["division"], match["submitter"], match["system"])
    output = shape.output
    fields = result.model_dump()
    fields.update(
        # The system's own name can repeat across submitters; the folder names it uniquely.
        system=f"{result.system} [{match['division']}/{match['submitter']}/{match['system']}]",
        input_tokens=round(shape.input.value) if shape.input else None,
        output_tokens=round(output.value) if output else None,
        source_title=(
            f"MLPerf Inference {source.round} results repo: {run_path}"
            + (f" (a copy of {source.upstream})" if source.upstream else "")
        ),
        source_url=folder_url(source, run_path),
        source_date_text=f"{source.published.isoformat()}: {source.date_basis}"
        if source.published
        else "",
    )
    notes = [
        f"MLPerf Inference {source.round}, {match['division']} division, submitter "
        f"{match['submitter']}" + (f", {system_type} system" if system_type else ""),
        result.notes,
        f"shape: {shape.dataset}"
        + (f"; {shape.input.note()}" if shape.input else "")
        + (
            f"; mean output {output.value:g} {output.unit} ({INFERENCE_REPO} {output.path} at "
            f"{DOCS[output.path, source.round][0][:12]})"
            if output
            else ""
        )
        + (f"; {shape.gaps}" if shape.gaps else ""),
    ]
    if result.request_rate_rps:
        notes.append(f"target_qps {result.request_rate_rps:g} samples/s")
    notes.append(f"mlperf_log_summary.txt sha256 {hashlib.sha256(data).hexdigest()}")
    fields["notes"] = " | ".join(n for n in notes if n)
    fields["confidence"] = result.confidence
    return {name: _cell(fields.get(name)) for name in columns() if name != "source_rows"} | {
        "source_rows": ""
    }


def reason_key(reason: str) -> str:
    """What a refusal is counted under: the reason without the advice that follows it and
    without what names one run (a file path, the figures of a gate rejection)."""
    if "physically implausible" in reason:
        return "the result gate: physically implausible (beyond a physical bound as labelled)"
    if reason.startswith("the result gate: describe the same operating point"):
        return (
            "the result gate: repeats the operating point of a row already kept (same system "
            "folder, model and scenario: a further performance run) with different figures"
        )
    text = re.split(r"[;:] pass |; if the file is right", reason)[0]
    text = re.sub(r" \(known: [^)]*\)", "", text)
    return re.sub(r"(?:closed|open)/\S+", "<path>", text).strip()


@dataclass
class RoundOutcome:
    source: RoundSource
    rows: list[dict[str, str]] = field(default_factory=list)
    refusals: list[Refusal] = field(default_factory=list)
    selection: Selection = field(default_factory=Selection)
    files: int = 0


def import_round(source: RoundSource, root: Path, selection: Selection) -> RoundOutcome:
    """import_tree over a materialised round; each run's record as a row, or why not."""
    outcome = RoundOutcome(source, selection=selection)
    published = (
        datetime(*source.published.timetuple()[:3], tzinfo=UTC) if source.published else None
    )
    results: list[FileOutcome] = import_tree(root, ImportOverrides(measured_at=published))
    for file in results:
        run_path = file.path.relative_to(root).as_posix()
        match = _PERF_RUN.match(run_path)
        if not match or not LLM_BENCHMARK.search(match["benchmark"]):
            continue  # only the runs materialise() chose are in the tree; this is a guard
        outcome.files += 1
        if file.status != IMPORTED:
            reason = file.reason.replace(str(root) + "/", "")
            if file.key:
                reason = f"{file.key}: {reason}"
            outcome.refusals.append(Refusal(source.round, run_path, reason, file.status))
            continue
        data = file.path.read_bytes()
        for result in file.results:
            row = row_for(source, root, run_path, data, result)
            if isinstance(row, Refusal):
                outcome.refusals.append(row)
            else:
                outcome.rows.append(row)
    return outcome


# ------------------------------------------------------------------------------ the whole file
def gate_rows(rows: list[dict[str, str]], work: Path) -> tuple[list[dict[str, str]], list[Refusal]]:
    """The rows the warehouse would take: each read back as the warehouse reads the file
    (``warehouse.seed.read_result_file``) and put through the result gate it is given
    (``benchmarks.plausibility.gate``); a refused row is left out with the gate's reason."""
    from warehouse.seed import read_result_file

    probe = work / "gate_probe.csv"
    write_csv(probe, rows)
    results = read_result_file(probe)
    _, _, rejected = gate(probe.name, results, where=str)
    dropped: dict[int, str] = {}
    for error in rejected:
        numbers = [int(n) for n in re.findall(r"\d+", error.key)]
        dropped.setdefault(
            numbers[-1],
            f"{error.reason} (with {rows[numbers[0]]['source_title']})"
            if len(numbers) > 1
            else error.reason,
        )
    kept = [row for i, row in enumerate(rows) if i not in dropped]
    refusals = [
        Refusal(_round_of(rows[i]), _run_of(rows[i]), f"the result gate: {reason}")
        for i, reason in sorted(dropped.items())
    ]
    return kept, refusals


def _round_of(row: dict[str, str]) -> str:
    return row["source_title"].split()[2]


def _run_of(row: dict[str, str]) -> str:
    return row["source_title"].split("results repo: ", 1)[1].split(" (a copy of")[0]


def write_csv(path: Path, rows: list[dict[str, str]]) -> None:
    # The same writer as data/seed_results.csv (csv's default dialect, CRLF rows).
    with path.open("w", newline="", encoding="utf-8") as handle:
        writer = csv.DictWriter(handle, fieldnames=columns())
        writer.writeheader()
        writer.writerows(rows)


def verify_shapes(repos: Path | None) -> str:
    """Check every cited figure against its file at its commit; '' when all agree, else why
    they could not be checked. A figure the file does not state stops the build."""
    copy = find_copy(repos, INFERENCE_REPO) if repos else None
    if copy is None:
        return f"not re-checked: no copy of {INFERENCE_REPO} under --repos"
    for (path, rnd), (commit, digest) in sorted(DOCS.items()):
        text = _git(copy, "show", f"{commit}:{path}")
        if hashlib.sha256(text).hexdigest() != digest:
            raise SystemExit(f"{INFERENCE_REPO} {path} at {commit}: sha256 differs from DOCS")
        for (_, shape_round), shape in SHAPES.items():
            output = shape.output if shape_round == rnd else None
            if output and output.path == path and output.quote not in text.decode("utf-8"):
                raise SystemExit(
                    f"{INFERENCE_REPO} {path} at {commit} does not say {output.quote!r}; fix SHAPES"
                )
    summaries = find_copy(repos, SUMMARIES_REPO) if repos else None
    if summaries is None:
        return f"(input means) not re-checked: no copy of {SUMMARIES_REPO} under --repos"
    for benchmark, mean in sorted(INPUT_MEANS.items()):
        data = _git(summaries, "show", f"{SUMMARIES_COMMIT}:{mean.path}")
        if hashlib.sha256(data).hexdigest() != mean.sha256:
            raise SystemExit(f"{SUMMARIES_REPO} {mean.path} at {SUMMARIES_COMMIT}: sha256 differs")
        counts = [int(r["input_length"]) for r in csv.DictReader(io.StringIO(data.decode()))]
        if (len(counts), sum(counts)) != (mean.samples, mean.total_tokens):
            raise SystemExit(
                f"{SUMMARIES_REPO} {mean.path}: {len(counts)} samples, {sum(counts)} input tokens;"
                f" INPUT_MEANS[{benchmark!r}] says {mean.samples}, {mean.total_tokens}"
            )
    return ""


def build(
    repos: Path | None, work: Path, *, allow_clone: bool
) -> tuple[list[dict[str, str]], list[RoundOutcome], list[str]]:
    outcomes: list[RoundOutcome] = []
    problems: list[str] = []
    for source in ROUNDS:
        if source.missing:
            outcomes.append(RoundOutcome(source))
            continue
        copy = find_copy(repos, source.repo) if repos else None
        if copy is None and allow_clone and repos:
            copy = clone(repos, source.repo, source.commit)
        if copy is None or not has_commit(copy, source.commit):
            problems.append(
                f"{source.round}: no git copy of {source.repo} with commit {source.commit} "
                "under --repos (pass --clone to make one)"
            )
            outcomes.append(RoundOutcome(source))
            continue
        root = work / source.round
        selection, absent = materialise(copy, source, root)
        outcome = import_round(source, root, selection)
        outcome.refusals += [
            Refusal(source.round, path, "the local copy lacks this file's content (a partial copy)")
            for path in absent
            if _PERF_RUN.match(path)
        ]
        outcomes.append(outcome)
    curated = curated_runs()
    for outcome in outcomes:
        held = [row for row in outcome.rows if run_key(row["source_url"]) in curated]
        outcome.rows = [row for row in outcome.rows if row not in held]
        outcome.refusals += [
            Refusal(outcome.source.round, row["source_url"].split("/tree/", 1)[-1], CURATED)
            for row in held
        ]
    rows = [row for outcome in outcomes for row in outcome.rows]
    rows.sort(key=_order)
    kept, refused = gate_rows(rows, work) if rows else ([], [])
    by_round = {o.source.round: o for o in outcomes}
    for refusal in refused:
        by_round[refusal.round].refusals.append(refusal)
    return kept, outcomes, problems


#: Why a run the curated seed already holds is left out here.
CURATED = (
    "the curated seed holds this run (data/seed_results.csv, with the corrections"
    " data/seed_curation.md gives)"
)
_RUN_URL = re.compile(r"inference_results_(v\d+\.\d+)/tree/[^/]+/(.+?)/?$")


def run_key(url: str) -> tuple[str, str] | None:
    """(round, scenario folder) of an MLPerf results URL, whichever copy or ref it names."""
    found = _RUN_URL.search(url)
    return (found.group(1), found.group(2)) if found else None


def curated_runs() -> set[tuple[str, str]]:
    """The MLPerf runs data/seed_results.csv holds: its curated figures (precision read from
    the submission's own calibration notes, accelerator counts from the system descriptions)
    speak for them, so the market file does not carry a second, uncorrected copy."""
    with SEED_RESULTS.open(newline="", encoding="utf-8") as handle:
        keys = {run_key(row["source_url"]) for row in csv.DictReader(handle)}
    return {key for key in keys if key is not None}


_ROUND_ORDER = {source.round: i for i, source in enumerate(ROUNDS)}


def _order(row: dict[str, str]) -> tuple:
    return (_ROUND_ORDER[_round_of(row)], _run_of(row), row["model"], row["scenario"])


# ------------------------------------------------------------------------------ curation log
def scenario_of(row: dict[str, str]) -> str:
    return row["scenario"]


def division_and_type(row: dict[str, str]) -> tuple[str, str]:
    """(closed | open, datacenter | edge | … | "not stated") of a row."""
    found = re.search(r"submitter [^,|]+, ([^|]+?) system \|", row["notes"])
    return _run_of(row).split("/")[0], found.group(1) if found else "not stated"


def curation(
    rows: list[dict[str, str]], outcomes: list[RoundOutcome], shape_check: str, problems: list[str]
) -> str:
    lines = [
        "# Market results curation log",
        "",
        "Written by `scripts/build_market_results.py`: every public MLPerf Inference LLM result of",
        "the pinned rounds, imported by `benchmarks.bulk.import_tree`, each row carrying its",
        "benchmark's shape. What was not imported, and why, is below, counted by reason.",
        "",
        "## Sources",
        "",
        "| round | repository | commit | rows | LLM runs read | not imported |",
        "|---|---|---|---|---|---|",
    ]
    counts = Counter(_round_of(row) for row in rows)
    for outcome in outcomes:
        s = outcome.source
        repo = s.repo + (f" (a public copy of {s.upstream})" if s.upstream else "")
        commit = s.commit or "—"
        lines.append(
            f"| {s.round} | {repo} | {commit} | {counts[s.round]} | {outcome.files} | "
            f"{len(outcome.refusals) if not s.missing else 'round missing'} |"
        )
    lines += ["", "Rounds not read:", ""]
    lines += [
        f"- **{o.source.round}** ({o.source.repo}): {o.source.missing}"
        for o in outcomes
        if o.source.missing
    ]
    lines += [f"- {p}" for p in problems]
    lines += [
        "",
        "## Shapes (mean tokens per sample)",
        "",
    ]
    lines += [
        f"Figures are read from {INFERENCE_REPO} at the last commit of each file before the round's "
        "publication date. No reference document states a mean input length: where a mean input "
        f"is given it is the mean of the dataset's per-sample input token counts as {SUMMARIES_REPO}"
        " extracted them from the official dataset file (derived here; file and commit in the "
        "column)."
        + (
            f" Figures {shape_check}."
            if shape_check
            else " Every figure was re-checked against its file (sha256 and text)."
        ),
        "",
        "| benchmark | round | dataset | mean input | mean output | file @ commit (sha256) | gaps |",
        "|---|---|---|---|---|---|---|",
    ]
    for (benchmark, rnd), shape in sorted(SHAPES.items()):
        doc = DOCS.get((shape.doc, rnd))
        where = f"`{shape.doc}` @ {doc[0][:12]} ({doc[1][:12]}…)" if doc else f"`{shape.doc}`"
        out = f'{shape.output.value:g} ("{shape.output.quote}")' if shape.output else ""
        inp = (
            f"{shape.input.value:g} (mean of {shape.input.samples:,} samples,"
            f" `{shape.input.path}` @ {SUMMARIES_COMMIT[:12]})"
            if shape.input
            else ""
        )
        lines.append(
            f"| {benchmark} | {rnd} | {shape.dataset} | {inp} | {out} | {where} | {shape.gaps} |"
        )
    lines += [
        "",
        "## Rows by round and scenario",
        "",
        "| round | offline | server | interactive | total |",
        "|---|---|---|---|---|",
    ]
    by = Counter((_round_of(r), r["scenario"]) for r in rows)
    for outcome in outcomes:
        rnd = outcome.source.round
        lines.append(
            f"| {rnd} | {by[rnd, 'offline']} | {by[rnd, 'server']} | {by[rnd, 'interactive']} "
            f"| {counts[rnd]} |"
        )
    lines += [
        "",
        "## Rows by division and system type",
        "",
        "| round | division | system type | rows |",
        "|---|---|---|---|",
    ]
    kinds = Counter((_round_of(r), *division_and_type(r)) for r in rows)
    lines += [f"| {rnd} | {div} | {kind} | {n} |" for (rnd, div, kind), n in sorted(kinds.items())]
    lines += ["", "## Rows by submitter", "", "| round | division | submitter | rows |"]
    lines.append("|---|---|---|---|")
    subs = Counter((_round_of(r), *_run_of(r).split("/")[:2]) for r in rows)
    lines += [f"| {rnd} | {div} | {sub} | {n} |" for (rnd, div, sub), n in sorted(subs.items())]
    lines += ["", "## Model strings in the file", ""]
    models = Counter(r["model"] for r in rows)
    lines += [f"- `{m}`: {n} rows" for m, n in sorted(models.items())]
    lines += [
        "",
        "Benchmark folders (the importer's model string) of LLM runs not imported, by round:",
        "",
    ]
    for outcome in outcomes:
        refused = Counter(
            match["benchmark"]
            for refusal in outcome.refusals
            if (match := _PERF_RUN.match(refusal.path))
        )
        if refused:
            listed = ", ".join(f"`{b}` {n}" for b, n in sorted(refused.items()))
            lines.append(f"- {outcome.source.round}: {listed}")
    lines += ["", "## Not imported, by reason", ""]
    for outcome in outcomes:
        if not outcome.refusals:
            continue
        lines += [f"### {outcome.source.round}", ""]
        grouped: dict[str, list[Refusal]] = defaultdict(list)
        for refusal in outcome.refusals:
            grouped[reason_key(refusal.reason)].append(refusal)
        for key, members in sorted(grouped.items(), key=lambda kv: (-len(kv[1]), kv[0])):
            lines.append(f"- **{len(members)}** × {key}")
            for refusal in sorted(members, key=lambda r: r.path):
                lines.append(f"  - `{refusal.path}` ({refusal.status}): {refusal.reason}")
        lines.append("")
    lines += ["## Other benchmarks' runs not read (not LLM token benchmarks)", ""]
    for outcome in outcomes:
        other = outcome.selection.other_runs
        if other:
            listed = ", ".join(f"{b} {n}" for b, n in sorted(other.items()))
            lines.append(f"- {outcome.source.round}: {sum(other.values())} runs ({listed})")
    return "\n".join(lines) + "\n"


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repos", type=Path, help="folder holding git copies (bare is fine)")
    parser.add_argument("--clone", action="store_true", help="clone what --repos lacks (network)")
    parser.add_argument("--out", type=Path, default=OUT_CSV)
    parser.add_argument("--curation", type=Path, default=OUT_CURATION)
    args = parser.parse_args(argv)
    started = time.monotonic()
    shape_check = verify_shapes(args.repos)
    with tempfile.TemporaryDirectory(prefix="market_results_") as tmp:
        rows, outcomes, problems = build(args.repos, Path(tmp), allow_clone=args.clone)
    write_csv(args.out, rows)
    args.curation.write_text(curation(rows, outcomes, shape_check, problems), encoding="utf-8")
    refused = sum(len(o.refusals) for o in outcomes)
    print(
        f"{len(rows)} rows -> {args.out} ({args.out.stat().st_size:,} bytes); {refused} LLM runs "
        f"not imported (see {args.curation.name}); {time.monotonic() - started:.0f} s"
    )
    for problem in problems:
        print(problem, file=sys.stderr)
    return 1 if problems else 0


if __name__ == "__main__":
    raise SystemExit(main())
