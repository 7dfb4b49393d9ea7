"""The Benchmarks page's model: every current result labelled (its load, its parity, its source),
filtered and headlined; each configuration's sweep of throughput against first-token latency; and
output parity by backend. Plain frames in, labelled frames and text out.

Tables keep the warehouse's column names (the page's downloads and its tests speak them); each
``*_COLUMNS`` mapping says how a column reads on the page. The upload and the import history have
their own models (``bench_import``, ``bench_history``).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import pandas as pd

from app.models.bench_import import ImportOutcome, Preview, UploadFields, fingerprint
from app.models.costs import Headline
from app.models.tables import Column
from app.safe import plain
from tokendesk import formatting
from tokendesk.metrics import ftl_with_basis
from tokendesk.records import Accelerator

#: Result filters: URL key = widget key -> (results column, label).
FILTERS = {
    "model": ("model", "Model"),
    "accelerator": ("accelerator_id", "Accelerator"),
    "runtime": ("runtime", "Runtime"),
    "precision": ("precision", "Precision"),
    "scenario": ("scenario", "Scenario"),
}
#: Throughput bases of the curves, as the URL writes them: what they read as, and their column.
THROUGHPUT = {"replica": "per replica", "accelerator": "per accelerator"}
THROUGHPUT_COLUMNS = {"replica": "output_tok_s", "accelerator": "output_tok_s_per_accelerator"}
#: The upload's accelerator choice that leaves the accelerator to the file.
FROM_FILE = "(as the file says)"
NOT_MEASURED = "not measured"


def _missing(value: object) -> bool:
    return value is None or bool(pd.isna(value))


# -- labelling every result -------------------------------------------------------------------
def parity_text(exact: float | None, similarity: float | None) -> str:
    """ "92.0% exact match · similarity 0.981", either half, or "not measured"."""
    parts = []
    if not _missing(exact):
        parts.append(f"{formatting.percent(exact)} exact match")
    if not _missing(similarity):
        parts.append(f"similarity {float(similarity):.3f}")  # type: ignore[arg-type]
    return " · ".join(parts) or NOT_MEASURED


def load_text(results: pd.DataFrame) -> pd.Series:
    """The load each point was measured at: a request rate (with its concurrency cap), a
    concurrency, or "unstated"."""
    has_rate, has_concurrency = results["request_rate_rps"].notna(), results["concurrency"].notna()
    rate, concurrency = (
        results[c].map(lambda v: f"{v:g}", na_action="ignore").astype(object).fillna("")
        for c in ("request_rate_rps", "concurrency")
    )
    cap = np.where(has_concurrency, ", ≤ " + concurrency + " concurrent", "")
    load = pd.Series("unstated", index=results.index, dtype=object)
    load[has_concurrency] = "concurrency " + concurrency[has_concurrency]
    load[has_rate] = (rate + " req/s" + cap)[has_rate]
    return load


def labelled(results: pd.DataFrame) -> pd.DataFrame:
    """``results`` plus ``source`` (its title, else the tool), ``load`` and ``parity``."""
    titled = results["source_title"].fillna("") != ""
    return results.assign(
        source=results["source_title"].where(titled, results["source_tool"]),
        load=load_text(results),
        parity=[
            parity_text(exact, similarity)
            for exact, similarity in zip(
                results["parity_exact_match"], results["parity_similarity"], strict=True
            )
        ],
    )


def filter_choices(results: pd.DataFrame) -> dict[str, list[str]]:
    """Each filter's values among the results, sorted."""
    return {name: sorted(results[column].unique()) for name, (column, _) in FILTERS.items()}


def filtered(results: pd.DataFrame, picked: Mapping[str, Sequence[str]]) -> pd.DataFrame:
    """The results every non-empty filter in ``picked`` (filter name -> values) keeps."""
    for name, values in picked.items():
        if values:
            results = results[results[FILTERS[name][0]].isin(list(values))]
    return results


def with_ftl(results: pd.DataFrame, percentile: str) -> pd.DataFrame:
    """``results`` plus ``ftl_ms`` and ``ftl_basis``: TTFT at ``percentile``, or the next higher
    published percentile as an upper bound."""
    ftl, basis = ftl_with_basis(results, percentile)
    return results.assign(ftl_ms=ftl, ftl_basis=basis)


# -- results ----------------------------------------------------------------------------------
def results_headline(results: pd.DataFrame) -> list[Headline]:
    """Operating points, configurations and the newest result (with what it is and its source)."""
    dated = results[results["measured_at"].notna()]
    newest = dated.loc[dated["measured_at"].idxmax()] if len(dated) else results.iloc[0]
    return [
        Headline("Operating points", f"{len(results):,}"),
        Headline("Configurations", f"{results['config_key'].nunique():,}"),
        Headline(
            "Newest result",
            formatting.day(newest["measured_at"]),
            f"{plain(newest['accelerator_name'])} · {plain(newest['runtime'])} · "
            f"{plain(newest['model'])}: {plain(newest['source'])}",
        ),
    ]


#: What ran and what it measured first (what fits a 1280 px window), then how and the evidence.
RESULT_COLUMNS = {
    "accelerator_name": Column("Accelerator"),
    "model": Column("Model"),
    "output_tok_s": Column("Output tok/s (replica)", "number", "%.0f"),
    "ttft_ms_p95": Column("TTFT p95", "number", "%.0f ms"),
    "accelerators_per_replica": Column("Accelerators / replica", "number", "%d"),
    "runtime": Column("Runtime"),
    "runtime_version": Column("Version"),
    "precision": Column("Precision"),
    "workload": Column("Workload"),
    "scenario": Column("Scenario"),
    "load": Column("Load"),
    "output_tok_s_per_accelerator": Column("Output tok/s per accelerator", "number", "%.0f"),
    "total_tok_s": Column("Total tok/s", "number", "%.0f"),
    "ttft_ms_p50": Column("TTFT p50", "number", "%.0f ms"),
    "ttft_ms_p99": Column("TTFT p99", "number", "%.0f ms"),
    "ttft_basis": Column("TTFT basis"),
    "tpot_ms_p50": Column("TPOT p50", "number", "%.1f ms"),
    "tpot_ms_p95": Column("TPOT p95", "number", "%.1f ms"),
    "parity": Column(
        "Output parity", help="Exact-match share and token similarity against the golden outputs"
    ),
    "source": Column("Source"),
    "measured_at": Column("Result date"),
    "source_file": Column("File"),
    "config_key": Column("Configuration"),
    "snapshot_id": Column("Snapshot"),
    "source_url": Column("Source link", "link"),
}


def results_table(results: pd.DataFrame) -> pd.DataFrame:
    """Every result in reading order; an undated source reads "date unknown", never a blank or
    a made-up date."""
    table = results[list(RESULT_COLUMNS)]
    return table.assign(measured_at=table["measured_at"].map(formatting.day))


# -- throughput against first-token latency ---------------------------------------------------
def configuration_labels(frame: pd.DataFrame) -> pd.Series:
    """accelerator · runtime · precision per row, with just enough more (model, scenario,
    workload, runtime version, date, configuration key) to tell configurations apart."""
    configs = frame.drop_duplicates("config_key").set_index("config_key")
    label = (
        configs["accelerator_name"].fillna(configs["accelerator_id"])
        + " · "
        + configs["runtime"]
        + " · "
        + configs["precision"]
    )
    extras = (
        configs["model"],
        configs["scenario"],
        configs["workload"],
        configs["runtime_version"].map(lambda v: f"v{v}" if v else "version unstated"),
        configs["measured_at"].map(formatting.day),
        pd.Series(configs.index, index=configs.index),
    )
    for extra in extras:
        duplicated = label.duplicated(keep=False)
        if not duplicated.any():
            break
        label[duplicated] = label[duplicated] + " · " + extra[duplicated].astype(str)
    return frame["config_key"].map(label)


def curve_points(results: pd.DataFrame, sweeps_only: bool) -> pd.DataFrame:
    """The points with a first-token latency (of configurations measured at more than one load,
    when ``sweeps_only``), labelled by ``configuration`` and in order of load within each."""
    points = results[results["ftl_ms"].notna()]
    if sweeps_only:
        points = points[points.groupby("config_key")["result_id"].transform("size") > 1]
    if points.empty:
        return points.assign(configuration=pd.Series(dtype=object))
    return points.assign(configuration=configuration_labels(points)).sort_values(
        ["configuration", "concurrency", "request_rate_rps", "output_tok_s"], na_position="first"
    )


def nothing_to_plot(sweeps_only: bool, percentile: str) -> str:
    """Why the curves are empty."""
    if sweeps_only:
        return (
            "No configuration with a latency has been measured at more than one load; import a "
            "concurrency sweep."
        )
    return (
        f"None of these results publishes a TTFT at {percentile} or above, so there is nothing to "
        "plot. Offline results have no latency; choose another filter or import a concurrency "
        "sweep."
    )


def curve_notes(points: pd.DataFrame, results: pd.DataFrame, percentile: str) -> list[str]:
    """What the curves show and leave out: the sweeps drawn, the points drawn at an upper bound
    and the results with no first-token latency at all."""
    notes = []
    if not points.empty:
        sweeps = points.groupby("config_key").size()
        notes.append(
            f"{len(sweeps)} configuration(s), {int((sweeps > 1).sum())} with a sweep of more than "
            "one load. Each line joins one configuration's operating points in order of load; "
            "points further right serve more tokens, points lower answer sooner."
        )
        upper = int((points["ftl_basis"] != percentile).sum())
        if upper:
            notes.append(
                f"{upper} of {len(points)} points publish no {percentile}; they are drawn at "
                "their next higher published percentile (an upper bound, labelled in the hover)."
            )
    missing = int(results["ftl_ms"].isna().sum())
    if missing:
        notes.append(
            f"{missing} operating points have no first-token latency and are listed in Results "
            "only."
        )
    return notes


# -- output parity ----------------------------------------------------------------------------
PARITY_COLUMNS = {
    "backend": Column("Backend (accelerator · runtime)"),
    "model": Column("Model"),
    "precision": Column("Precision"),
    "exact_match": Column("Exact match"),
    "similarity": Column("Similarity"),
    "points": Column("Operating points", "number", "%d"),
    "source": Column("Source"),
    "measured_at": Column("Result date", "date"),
}


def parity_table(results: pd.DataFrame) -> pd.DataFrame:
    """Mean parity per backend (accelerator · runtime version) × model × precision × source,
    best first, unmeasured last; "not measured" where the source ran no parity check."""
    backend = (
        results["accelerator_name"].fillna(results["accelerator_id"])
        + " · "
        + results["runtime"]
        + results["runtime_version"].map(lambda v: f" {v}" if v else "")
    )
    grouped = (
        results.assign(backend=backend)
        .groupby(["backend", "model", "precision", "source"], dropna=False)
        .agg(
            parity_exact_match=("parity_exact_match", "mean"),
            parity_similarity=("parity_similarity", "mean"),
            points=("result_id", "size"),
            measured_at=("measured_at", "max"),
        )
        .reset_index()
        .sort_values(["parity_exact_match", "backend"], ascending=[False, True], na_position="last")
    )
    shown = grouped.assign(
        exact_match=grouped["parity_exact_match"].map(
            lambda v: NOT_MEASURED if pd.isna(v) else formatting.percent(v)
        ),
        similarity=grouped["parity_similarity"].map(
            lambda v: NOT_MEASURED if pd.isna(v) else f"{v:.3f}"
        ),
    )
    return shown[list(PARITY_COLUMNS)]


def parity_summary(table: pd.DataFrame) -> str:
    measured = int((table["exact_match"] != NOT_MEASURED).sum())
    return f"{measured} of {len(table)} backend configurations have a parity measurement."


# -- upload -----------------------------------------------------------------------------------
def upload_fields(*, accelerator: str, accelerators_per_replica: int, **given: Any) -> UploadFields:
    """What the upload form says: ``FROM_FILE`` and 0 accelerators per replica leave those to the
    file; ``given`` holds the other fields by their UploadFields name."""
    return UploadFields(
        accelerator_id=None if accelerator == FROM_FILE else accelerator,
        accelerators_per_replica=int(accelerators_per_replica) or None,
        **given,
    )


def accelerator_choice(catalog: Mapping[str, Accelerator], choice: str) -> str:
    """How the upload's accelerator picker names a choice: "NVIDIA H100 SXM 80GB (nvidia-h100-…)"."""
    return choice if choice == FROM_FILE else f"{catalog[choice].name} ({choice})"


def still_previewed(
    preview: Preview, name: str | None, payload: bytes, fields: UploadFields
) -> bool:
    """Whether ``preview`` still shows what the file and fields now would write: a change to
    either (or no file) makes it stale, so nothing is written that nobody has seen."""
    return name is not None and preview.fingerprint == fingerprint(name, payload, fields)


def preview_heading(preview: Preview) -> str:
    return (
        f"**{plain(preview.file)}** would write {len(preview.results)} operating point(s) "
        f"({plain(preview.tool)}) as one new snapshot:"
    )


def imported(outcome: ImportOutcome) -> str:
    return (
        f"Imported {outcome.points} operating point(s) from **{plain(outcome.file)}** "
        f"({plain(outcome.tool)}) as snapshot `{outcome.snapshot_id}`."
    )


def not_written(preview: Preview, error: object) -> str:
    return (
        f"{plain(preview.file)} is valid but could not be written to the warehouse: "
        f"{plain(error)}. Nothing was written."
    )


#: The help line of each upload field that needs one.
UPLOAD_HELP = {
    "accelerator": "Fill in (or correct) the accelerator when the file does not name one the "
    "catalog knows",
    "accelerators_per_replica": "Tensor × pipeline parallel size of one replica; 0 = as the file "
    "says",
    "measured_on": "When the results were measured, for a file that carries no date (optional)",
}
#: The upload's text fields, in the form's order: UploadFields name -> (label, placeholder).
UPLOAD_TEXTS = {
    "model": ("Model", "as the file says, e.g. meta-llama/Llama-3.1-8B-Instruct"),
    "precision": ("Precision", "as the file says, e.g. bf16, fp8"),
    "runtime": ("Runtime", "as the file says, e.g. vllm, sglang"),
    "runtime_version": ("Runtime version", "optional, e.g. 0.11.0"),
    "instance_type": ("Instance type", "optional, e.g. p5.48xlarge"),
}


# -- what the page says -----------------------------------------------------------------------
PAGE_NOTE = (
    "Every current operating point: one configuration (accelerator × runtime × precision × model "
    "× workload) at one load. Throughput per accelerator = replica output tok/s ÷ accelerators "
    "per replica. First-token latency (FTL) is the result's TTFT at the chosen percentile, or the "
    "next higher published one as an upper bound."
)
RESULTS_NOTE = (
    "Empty latency cells were not published by the source (MLPerf Offline has no latency bound; "
    "MLPerf Server publishes p99 only). Result date is the source's own date."
)
PARITY_NOTE = (
    "How closely each backend reproduces the golden outputs: exact match = share of prompts "
    "whose output is identical; similarity = mean token similarity (1.0 = identical). “not "
    "measured” means the result's source ran no parity check — not that parity is poor."
)
NO_MATCH = "No result matches these filters. Remove a filter in the sidebar to see more results."
NO_RESULTS = "No benchmark results yet. Import a result file in the “Import result file” tab."
FIX_AND_PREVIEW = (
    "Fill in or correct the fields above and preview again; nothing is written until a preview "
    "passes and you confirm it."
)
HISTORY_NOTE = (
    "Every benchmark snapshot, newest first. Nothing is ever deleted: a retracted import stays "
    "here with its reason, and its results count nowhere (results, costs, scenarios). On the "
    "command line: `tokendesk bench retract SNAPSHOT_ID --reason TEXT`."
)


def import_note(max_mb: int) -> str:
    return (
        "Result files from vLLM/SGLang bench serving, llama-bench, genai-perf/AIPerf, GuideLLM, "
        "LLMPerf, MLPerf summaries and tokendesk's own harness. Fill in what the file does not "
        "say (the same fields as `tokendesk bench import`), preview every record it would write "
        "with its physical plausibility verdict, then write it as one new snapshot. "
        f"At most {max_mb} MB."
    )
