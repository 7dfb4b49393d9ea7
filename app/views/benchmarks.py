"""Benchmarks: every current result with its source and date, throughput against first-token
latency across each configuration's concurrency sweep, output parity, and result-file upload."""

from __future__ import annotations

from datetime import date
from functools import partial

import numpy as np
import pandas as pd
import streamlit as st

from app import auth, charts, data, ui
from app.models import bench_history, bench_import
from app.safe import plain
from app.url_state import UrlInput
from benchmarks.importers import MAX_IMPORT_BYTES
from tokendesk import formatting
from tokendesk.access import Action
from tokendesk.catalog import load_catalog
from tokendesk.exports import safe_csv
from tokendesk.metrics import PERCENTILES, ftl_with_basis
from warehouse.engine import Wait

#: The importers' own limit, also enforced by the upload widget before a byte reaches the server.
MAX_UPLOAD_MB = MAX_IMPORT_BYTES // (1024 * 1024)
UPLOAD_TYPES = ["json", "jsonl", "csv", "txt", "log", "md"]
FROM_FILE = "(as the file says)"
IMPORT_STATE = "benchmarks_last_import"
PREVIEW_STATE = "benchmarks_upload_preview"
RETRACT_STATE = "benchmarks_retracted"
#: Result filters: URL key = widget key -> results column.
FILTERS = {
    "model": "model",
    "accelerator": "accelerator_id",
    "runtime": "runtime",
    "precision": "precision",
    "scenario": "scenario",
}
LABELS = {
    "model": "Model",
    "accelerator": "Accelerator",
    "runtime": "Runtime",
    "precision": "Precision",
    "scenario": "Scenario",
}
THROUGHPUT = {"replica": "per replica", "accelerator": "per accelerator"}
INPUTS = (
    *(UrlInput(name, "choices", []) for name in FILTERS),
    UrlInput("percentile", "choice", "p95", choices=PERCENTILES),
    UrlInput("throughput", "choice", "replica", choices=tuple(THROUGHPUT)),
    UrlInput("sweeps_only", "flag", False),
)


def _say_waiting(wait: Wait) -> None:
    """A write that waits for another process says so on the page."""
    st.info(wait.message(with_path=False))


def _parity(exact: float | None, similarity: float | None) -> str:
    if (exact is None or pd.isna(exact)) and (similarity is None or pd.isna(similarity)):
        return "not measured"
    parts = []
    if exact is not None and not pd.isna(exact):
        parts.append(f"{formatting.percent(exact)} exact match")
    if similarity is not None and not pd.isna(similarity):
        parts.append(f"similarity {float(similarity):.3f}")
    return " · ".join(parts)


def _load(results: pd.DataFrame) -> pd.Series:
    """The load each point was measured at: a request rate (with its concurrency cap) or a concurrency."""
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


def _labels(frame: pd.DataFrame) -> pd.Series:
    """accelerator · runtime · precision, with just enough more to tell configurations apart."""
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


st.title("Benchmark results")
st.caption(
    "Every current operating point: one configuration (accelerator × "
    "runtime × precision × model × workload) at "
    "one load. Throughput per accelerator = replica output tok/s ÷ "
    "accelerators per replica. First-token latency "
    "(FTL) is the result's TTFT at the chosen percentile, or the next higher published one as an upper bound."
)

path = data.db_path()
user = auth.current_user()
#: Why this person may not import or retract (None: they may); each write control says so.
import_blocked = user.why_not(Action.IMPORT_RESULTS)
retract_blocked = user.why_not(Action.RETRACT)
tab_results, tab_curves, tab_parity, tab_import, tab_history = st.tabs(
    ["Results", "Throughput vs FTL", "Output parity", "Import result file", "Import history"]
)

# The import runs first so every other tab already shows the new snapshot.
with tab_import:
    st.subheader("Import a result file")
    st.caption(
        "Result files from vLLM/SGLang bench serving, llama-bench, "
        "genai-perf/AIPerf, GuideLLM, LLMPerf, MLPerf "
        "summaries and tokendesk's own harness. Fill in what the file does not say (the same "
        "fields as `tokendesk bench import`), preview every record it would write with its "
        "physical plausibility verdict, then write it as one new snapshot. "
        f"At most {MAX_UPLOAD_MB} MB."
    )
    if import_blocked:
        st.info(import_blocked)
    uploaded = st.file_uploader(
        "Result file",
        type=UPLOAD_TYPES,
        max_upload_size=MAX_UPLOAD_MB,
        key="upload_file",
        disabled=import_blocked is not None,
        help=import_blocked,
    )
    catalog = load_catalog()
    col1, col2, col3 = st.columns(3)
    override_acc = col1.selectbox(
        "Accelerator",
        [FROM_FILE, *sorted(catalog)],
        key="upload_accelerator",
        format_func=lambda i: i if i == FROM_FILE else f"{catalog[i].name} ({i})",
        help="Fill in (or correct) the accelerator when the file does not name one the catalog knows",
    )
    override_per_replica = col2.number_input(
        "Accelerators per replica",
        min_value=0,
        max_value=512,
        value=0,
        step=1,
        key="upload_accelerators_per_replica",
        help="Tensor × pipeline parallel size of one replica; 0 = as the file says",
    )
    override_model = col3.text_input(
        "Model",
        key="upload_model",
        placeholder="as the file says, e.g. meta-llama/Llama-3.1-8B-Instruct",
    )
    col4, col5, col6 = st.columns(3)
    override_precision = col4.text_input(
        "Precision", key="upload_precision", placeholder="as the file says, e.g. bf16, fp8"
    )
    override_runtime = col5.text_input(
        "Runtime", key="upload_runtime", placeholder="as the file says, e.g. vllm, sglang"
    )
    override_measured = col6.date_input(
        "Measured on",
        value=None,
        max_value=date.today(),
        key="upload_measured_on",
        help="When the results were measured, for a file that carries no date (optional)",
    )
    col7, col8, _ = st.columns(3)
    override_version = col7.text_input(
        "Runtime version", key="upload_runtime_version", placeholder="optional, e.g. 0.11.0"
    )
    override_instance = col8.text_input(
        "Instance type", key="upload_instance_type", placeholder="optional, e.g. p5.48xlarge"
    )
    fields = bench_import.UploadFields(
        accelerator_id=None if override_acc == FROM_FILE else override_acc,
        accelerators_per_replica=int(override_per_replica) or None,
        model=override_model,
        precision=override_precision,
        runtime=override_runtime,
        runtime_version=override_version,
        instance_type=override_instance,
        measured_on=override_measured,
    )
    clicked = st.button(
        "Validate and preview",
        key="upload_preview",
        disabled=uploaded is None or import_blocked is not None,
    )
    if clicked and uploaded is not None:
        st.session_state.pop(IMPORT_STATE, None)
        st.session_state[PREVIEW_STATE] = bench_import.build_preview(
            uploaded.name, uploaded.getvalue(), fields, catalog
        )
    preview = st.session_state.get(PREVIEW_STATE)
    current = (
        bench_import.fingerprint(uploaded.name, uploaded.getvalue(), fields)
        if uploaded is not None
        else None
    )
    if preview is not None and preview.fingerprint != current:
        # The file or a field changed since: that preview no longer shows what would be written.
        st.session_state.pop(PREVIEW_STATE, None)
        preview = None
        if uploaded is not None:
            st.info("The file or a field changed since the preview; preview it again.")
    if preview is not None:
        for error in preview.errors:
            st.error(plain(error))
        if preview.table is not None:
            st.markdown(
                f"**{plain(preview.file)}** would write {len(preview.results)} operating "
                f"point(s) ({plain(preview.tool)}) as one new snapshot:"
            )
            ui.show_table(preview.table, key="upload_preview_table")
        for note in preview.notes:
            st.caption(f"Note: {plain(note)}")
        if preview.errors:
            st.caption(
                "Fill in or correct the fields above and preview again; nothing is written "
                "until a preview passes and you confirm it."
            )
        if st.button(
            "Write to the warehouse",
            type="primary",
            key="upload_confirm",
            disabled=not preview.writable or import_blocked is not None,
            help=import_blocked,
        ):
            try:
                with data.writer(Action.IMPORT_RESULTS, _say_waiting) as warehouse:
                    outcome = bench_import.write(warehouse, preview)
            except Exception as exc:  # shown to the person, never as a traceback
                st.error(
                    f"{plain(preview.file)} is valid but could not be written to the warehouse: "
                    f"{plain(exc)}. Nothing was written."
                )
            else:
                st.session_state.pop(PREVIEW_STATE, None)
                st.session_state[IMPORT_STATE] = outcome
    last = st.session_state.get(IMPORT_STATE)
    if last:
        st.success(
            f"Imported {last.points} operating point(s) from **{plain(last.file)}** "
            f"({plain(last.tool)}) as snapshot `{last.snapshot_id}`."
        )
        for note in last.notes:
            st.caption(f"Note: {plain(note)}")

# The history (and a retraction) also runs before the results are read, for the same reason.
with tab_history:
    st.subheader("Import history")
    st.caption(
        "Every benchmark snapshot, newest first. Nothing is ever deleted: a retracted import "
        "stays here with its reason, and its results count nowhere (results, costs, "
        "scenarios). On the command line: `tokendesk bench retract SNAPSHOT_ID --reason TEXT`."
    )
    history = data.benchmark_history(path)
    ui.show_table(bench_history.history_table(history), key="history_table")
    candidates = bench_history.retractable(history)
    with st.expander("Retract an import"):
        if not candidates:
            st.info("No current import to retract.")
        elif retract_blocked:
            st.info(retract_blocked)
            st.button("Retract this import", key="retract_confirm", disabled=True)
        else:
            target = st.selectbox(
                "Snapshot",
                candidates,
                format_func=partial(bench_history.describe, history),
                key="retract_snapshot",
            )
            reason = st.text_input(
                "Reason", key="retract_reason", placeholder="e.g. a test run, wrong accelerator"
            )
            if user.signed_in:  # the signed-in identity is who retracts; nothing to type
                who = user.name
                st.caption(f"Recorded as retracted by {plain(who)}.")
            else:
                who = st.text_input("Your name", key="retract_by")
            if st.button("Retract this import", key="retract_confirm"):
                if not reason.strip() or not who.strip():
                    st.error("Give a reason and your name; nothing was retracted.")
                else:
                    try:
                        with data.writer(Action.RETRACT, _say_waiting) as warehouse:
                            warehouse.retract_snapshot(target, reason, who)
                    except Exception as exc:  # shown to the person, never as a traceback
                        st.error(f"Snapshot {plain(target)} was not retracted: {plain(exc)}.")
                    else:
                        st.session_state[RETRACT_STATE] = target
                        st.rerun()
    retracted = st.session_state.pop(RETRACT_STATE, None)
    if retracted:
        st.success(f"Retracted snapshot `{retracted}`: its results no longer count anywhere.")

results = data.benchmark_results(path).copy()
if results.empty:
    for tab in (tab_results, tab_curves, tab_parity):
        with tab:
            st.info(
                "No benchmark results yet. Import a result file in the “Import result file” tab."
            )
    st.stop()

results["source"] = results["source_title"].where(
    results["source_title"].fillna("") != "", results["source_tool"]
)
results["load"] = _load(results)
results["parity"] = [
    _parity(e, s)
    for e, s in zip(results["parity_exact_match"], results["parity_similarity"], strict=True)
]

filter_choices = {name: sorted(results[column].unique()) for name, column in FILTERS.items()}
start = ui.url_inputs(INPUTS, choices=filter_choices)
with st.sidebar:
    st.header("Result filters")
    picked = {
        name: st.multiselect(LABELS[name], filter_choices[name], default=start[name], key=name)
        for name in FILTERS
    }
    percentile = st.selectbox(
        "FTL percentile", PERCENTILES, PERCENTILES.index(start["percentile"]), key="percentile"
    )
chosen = {FILTERS[name]: selection for name, selection in picked.items()}
for column, selection in chosen.items():
    if selection:
        results = results[results[column].isin(selection)]
results["ftl_ms"], results["ftl_basis"] = ftl_with_basis(results, percentile)

with tab_results:
    if results.empty:
        st.info(
            "No result matches these filters. Remove a filter in the sidebar to see more results."
        )
    else:
        col1, col2, col3 = st.columns(3)
        col1.metric("Operating points", f"{len(results):,}")
        col2.metric("Configurations", f"{results['config_key'].nunique():,}")
        dated = results[results["measured_at"].notna()]
        newest = dated.loc[dated["measured_at"].idxmax()] if len(dated) else results.iloc[0]
        col3.metric(
            "Newest result",
            formatting.day(newest["measured_at"]),
            help=f"{plain(newest['accelerator_name'])} · {plain(newest['runtime'])} · "
            f"{plain(newest['model'])}: {plain(newest['source'])}",
        )
        table = results[
            [
                "accelerator_name",
                "accelerators_per_replica",
                "runtime",
                "runtime_version",
                "precision",
                "model",
                "workload",
                "scenario",
                "load",
                "output_tok_s",
                "output_tok_s_per_accelerator",
                "total_tok_s",
                "ttft_ms_p50",
                "ttft_ms_p95",
                "ttft_ms_p99",
                "ttft_basis",
                "tpot_ms_p50",
                "tpot_ms_p95",
                "parity",
                "source",
                "measured_at",
                "source_file",
                "config_key",
                "snapshot_id",
                "source_url",
            ]
        ].copy()
        # An undated source reads "date unknown", never a blank or a made-up date.
        table["measured_at"] = table["measured_at"].map(formatting.day)
        ui.show_frame(
            table,
            key="results_table",
            column_config={
                "accelerator_name": "Accelerator",
                "accelerators_per_replica": st.column_config.NumberColumn(
                    "Accelerators / replica", format="%d"
                ),
                "runtime": "Runtime",
                "runtime_version": "Version",
                "precision": "Precision",
                "model": "Model",
                "workload": "Workload",
                "scenario": "Scenario",
                "load": "Load",
                "output_tok_s": st.column_config.NumberColumn(
                    "Output tok/s (replica)", format="%.0f"
                ),
                "output_tok_s_per_accelerator": st.column_config.NumberColumn(
                    "Output tok/s per accelerator", format="%.0f"
                ),
                "total_tok_s": st.column_config.NumberColumn("Total tok/s", format="%.0f"),
                "ttft_ms_p50": st.column_config.NumberColumn("TTFT p50", format="%.0f ms"),
                "ttft_ms_p95": st.column_config.NumberColumn("TTFT p95", format="%.0f ms"),
                "ttft_ms_p99": st.column_config.NumberColumn("TTFT p99", format="%.0f ms"),
                "ttft_basis": "TTFT basis",
                "tpot_ms_p50": st.column_config.NumberColumn("TPOT p50", format="%.1f ms"),
                "tpot_ms_p95": st.column_config.NumberColumn("TPOT p95", format="%.1f ms"),
                "parity": st.column_config.TextColumn(
                    "Output parity",
                    help="Exact-match share and token similarity against the golden outputs",
                ),
                "source": "Source",
                "measured_at": st.column_config.TextColumn("Result date"),
                "source_file": "File",
                "config_key": "Configuration",
                "snapshot_id": "Snapshot",
                "source_url": st.column_config.LinkColumn("Source link"),
            },
        )
        st.caption(
            "Empty latency cells were not published by the source (MLPerf Offline "
            "has no latency bound; MLPerf "
            "Server publishes p99 only). Result date is the source's own date."
        )
        # The CSV is written when the button is clicked, not on every rerun.
        st.download_button(
            "Download these results (CSV)",
            partial(safe_csv, table),
            file_name="tokendesk-results.csv",
            mime="text/csv",
        )

with tab_curves:
    st.subheader(f"Throughput against first-token latency ({percentile})")
    x_basis = st.radio(
        "Throughput",
        list(THROUGHPUT),
        list(THROUGHPUT).index(start["throughput"]),
        format_func=THROUGHPUT.get,
        horizontal=True,
        key="throughput",
    )
    x_column = "output_tok_s" if x_basis == "replica" else "output_tok_s_per_accelerator"
    plotted = results[results["ftl_ms"].notna()].copy()
    sweeps_only = st.toggle(
        "Only configurations measured at more than one load",
        start["sweeps_only"],
        key="sweeps_only",
    )
    ui.keep_in_url(
        picked | {"percentile": percentile, "throughput": x_basis, "sweeps_only": sweeps_only},
        INPUTS,
    )
    if sweeps_only:
        plotted = plotted[plotted.groupby("config_key")["result_id"].transform("size") > 1]
    if plotted.empty and sweeps_only:
        st.info(
            "No configuration with a latency has been measured at more than one "
            "load; import a concurrency sweep."
        )
    elif plotted.empty:
        st.info(
            f"None of these results publishes a TTFT at {percentile} or above, so there is nothing to plot. "
            "Offline results have no latency; choose another filter or import a concurrency sweep."
        )
    else:
        plotted["configuration"] = _labels(plotted)
        plotted = plotted.sort_values(
            ["configuration", "concurrency", "request_rate_rps", "output_tok_s"],
            na_position="first",
        )
        figure = charts.lines_by(
            plotted,
            x_column,
            "ftl_ms",
            "configuration",
            hover={
                "load": "load",
                "model": "model",
                "workload": "workload",
                "scenario": "scenario",
                "FTL basis": "ftl_basis",
                "source": "source",
                "result date": "measured_at",
            },
            x_axis=charts.axis(
                f"Output tokens/s {THROUGHPUT[x_basis]}",
                ticksuffix=" tok/s",
                rangemode="tozero",
                tickformat=",.0f",
            ),
            y_axis=charts.axis(f"First-token latency {percentile} (ms)", charts.MS_AXIS),
            legend_title="Accelerator · runtime · precision",
        )
        # The labels are long, so the legend goes under the plot, one entry per line, in a bottom
        # margin sized for it: the axes keep their size however many configurations are shown.
        plot_px, axis_px, entry_px = 460, 70, 20
        legend_px = entry_px * (plotted["configuration"].nunique() + 1)
        figure.update_layout(
            height=30 + plot_px + axis_px + legend_px,
            margin={"l": 10, "r": 10, "t": 30, "b": axis_px + legend_px},
            legend={
                "orientation": "v",
                "yanchor": "top",
                "y": -axis_px / plot_px,
                "xanchor": "left",
                "x": 0,
            },
        )
        st.plotly_chart(figure, width="stretch", key="curve_chart")
        sweeps = plotted.groupby("config_key").size()
        st.caption(
            f"{len(sweeps)} configuration(s), {int((sweeps > 1).sum())} with a "
            "sweep of more than one load. Each line "
            "joins one configuration's operating points in order of load; points "
            "further right serve more tokens, "
            "points lower answer sooner."
        )
        upper = (plotted["ftl_basis"] != percentile).sum()
        if upper:
            st.caption(
                f"{upper} of {len(plotted)} points publish no {percentile}; they are "
                "drawn at their next higher "
                "published percentile (an upper bound, labelled in the hover)."
            )
    missing = results[results["ftl_ms"].isna()]
    if not missing.empty:
        st.caption(
            f"{len(missing)} operating points have no first-token latency and are listed in Results only."
        )

with tab_parity:
    st.subheader("Output parity by backend")
    st.caption(
        "How closely each backend reproduces the golden outputs: exact match = "
        "share of prompts whose output is "
        "identical; similarity = mean token similarity (1.0 = identical). “not "
        "measured” means the result's source "
        "ran no parity check — not that parity is poor."
    )
    if results.empty:
        st.info("No result matches these filters.")
    else:
        grouped = (
            results.assign(
                backend=results["accelerator_name"].fillna(results["accelerator_id"])
                + " · "
                + results["runtime"]
                + results["runtime_version"].map(lambda v: f" {v}" if v else "")
            )
            .groupby(["backend", "model", "precision", "source"], dropna=False)
            .agg(
                parity_exact_match=("parity_exact_match", "mean"),
                parity_similarity=("parity_similarity", "mean"),
                points=("result_id", "size"),
                measured_at=("measured_at", "max"),
            )
            .reset_index()
        )
        grouped["exact_match"] = grouped["parity_exact_match"].map(
            lambda v: "not measured" if pd.isna(v) else formatting.percent(v)
        )
        grouped["similarity"] = grouped["parity_similarity"].map(
            lambda v: "not measured" if pd.isna(v) else f"{v:.3f}"
        )
        grouped = grouped.sort_values(
            ["parity_exact_match", "backend"], ascending=[False, True], na_position="last"
        )
        measured = int(grouped["parity_exact_match"].notna().sum() + 0)
        st.markdown(
            f"{measured} of {len(grouped)} backend configurations have a parity measurement."
        )
        ui.show_frame(
            grouped[
                [
                    "backend",
                    "model",
                    "precision",
                    "exact_match",
                    "similarity",
                    "points",
                    "source",
                    "measured_at",
                ]
            ],
            key="parity_table",
            column_config={
                "backend": "Backend (accelerator · runtime)",
                "model": "Model",
                "precision": "Precision",
                "exact_match": "Exact match",
                "similarity": "Similarity",
                "points": st.column_config.NumberColumn("Operating points", format="%d"),
                "source": "Source",
                "measured_at": st.column_config.DateColumn("Result date"),
            },
        )
