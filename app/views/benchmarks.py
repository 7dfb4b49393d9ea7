"""Benchmarks: every current result with its source and date, throughput against first-token
latency across each configuration's concurrency sweep, output parity, and result-file upload."""

from __future__ import annotations

from datetime import date
from functools import partial

import pandas as pd
import streamlit as st

from app import auth, charts, data, downloads, price_reads, ui
from app.models import bench_history, bench_import
from app.models import benchmarks as model
from app.models import estimate_pages as estimates
from app.safe import plain
from app.url_state import UrlInput
from benchmarks.importers import MAX_IMPORT_BYTES
from tokendesk.access import Action, Principal
from tokendesk.catalog import load_catalog
from tokendesk.exports import safe_csv
from tokendesk.metrics import PERCENTILES
from warehouse.engine import Wait

#: The importers' own limit, also enforced by the upload widget before a byte reaches the server.
MAX_UPLOAD_MB = MAX_IMPORT_BYTES // (1024 * 1024)
UPLOAD_TYPES = ["json", "jsonl", "csv", "txt", "log", "md", "yaml", "yml"]
IMPORT_STATE = "benchmarks_last_import"
PREVIEW_STATE = "benchmarks_upload_preview"
RETRACT_STATE = "benchmarks_retracted"
INPUTS = (
    *(UrlInput(name, "choices", []) for name in model.FILTERS),
    UrlInput("percentile", "choice", "p95", choices=PERCENTILES),
    UrlInput("throughput", "choice", "replica", choices=tuple(model.THROUGHPUT)),
    UrlInput("sweeps_only", "flag", False),
)


def say_waiting(wait: Wait) -> None:
    """A write that waits for another process says so on the page."""
    st.info(wait.message(with_path=False))


def upload_form(catalog: dict) -> bench_import.UploadFields:
    """The fields a result file may not state, as ``tokendesk bench import`` takes them."""
    slots = [*st.columns(3), *st.columns(3), *st.columns(3)]  # three rows of three
    helps, named = model.UPLOAD_HELP, partial(model.accelerator_choice, catalog)
    accelerator = slots[0].selectbox(
        "Accelerator",
        [model.FROM_FILE, *sorted(catalog)],
        format_func=named,
        key="upload_accelerator",
        help=helps["accelerator"],
    )
    per_replica = slots[1].number_input(
        "Accelerators per replica",
        min_value=0,
        max_value=512,
        value=0,
        step=1,
        key="upload_accelerators_per_replica",
        help=helps["accelerators_per_replica"],
    )
    measured_on = slots[5].date_input(
        "Measured on",
        None,
        max_value=date.today(),
        key="upload_measured_on",
        help=helps["measured_on"],
    )
    texts = {
        name: place.text_input(label, key=f"upload_{name}", placeholder=placeholder)
        for place, (name, (label, placeholder)) in zip(
            (slots[2], slots[3], slots[4], slots[6], slots[7]),
            model.UPLOAD_TEXTS.items(),
            strict=True,
        )
    }
    return model.upload_fields(
        accelerator=accelerator,
        accelerators_per_replica=per_replica,
        measured_on=measured_on,
        **texts,
    )


def import_tab(blocked: str | None) -> None:
    """The upload, its preview and the write; ``blocked`` says why this person may not import."""
    st.subheader("Import a result file")
    st.caption(model.import_note(MAX_UPLOAD_MB))
    if blocked:
        st.info(blocked)
    uploaded = st.file_uploader(
        "Result file",
        type=UPLOAD_TYPES,
        max_upload_size=MAX_UPLOAD_MB,
        key="upload_file",
        disabled=blocked is not None,
        help=blocked,
    )
    catalog = load_catalog()
    fields = upload_form(catalog)
    clicked = st.button(
        "Validate and preview",
        key="upload_preview",
        disabled=uploaded is None or blocked is not None,
    )
    if clicked and uploaded is not None:
        st.session_state.pop(IMPORT_STATE, None)
        st.session_state[PREVIEW_STATE] = bench_import.build_preview(
            uploaded.name, uploaded.getvalue(), fields, catalog
        )
    preview = st.session_state.get(PREVIEW_STATE)
    if preview is not None:
        name, payload = (None, b"") if uploaded is None else (uploaded.name, uploaded.getvalue())
        if model.still_previewed(preview, name, payload, fields):
            show_preview(preview, blocked)
        else:  # the file or a field changed: that preview no longer shows what would be written
            st.session_state.pop(PREVIEW_STATE, None)
            if uploaded is not None:
                st.info("The file or a field changed since the preview; preview it again.")
    last = st.session_state.get(IMPORT_STATE)
    if last:
        st.success(model.imported(last))
        for note in last.notes:
            st.caption(f"Note: {plain(note)}")


def show_preview(preview: bench_import.Preview, blocked: str | None) -> None:
    """What the upload would write, its errors and notes, and the confirm button."""
    for error in preview.errors:
        st.error(plain(error))
    if preview.table is not None:
        st.markdown(model.preview_heading(preview))
        ui.show_table(preview.table, key="upload_preview_table")
    for note in preview.notes:
        st.caption(f"Note: {plain(note)}")
    if preview.errors:
        st.caption(model.FIX_AND_PREVIEW)
    locked = not preview.writable or blocked is not None
    if not st.button(
        "Write to the warehouse",
        type="primary",
        key="upload_confirm",
        disabled=locked,
        help=blocked,
    ):
        return
    try:
        with data.writer(Action.IMPORT_RESULTS, say_waiting) as warehouse:
            outcome = bench_import.write(warehouse, preview)
    except Exception as exc:  # shown to the person, never as a traceback
        st.error(model.not_written(preview, exc))
    else:
        st.session_state.pop(PREVIEW_STATE, None)
        st.session_state[IMPORT_STATE] = outcome


def history_tab(path: str, user: Principal) -> None:
    st.subheader("Import history")
    st.caption(model.HISTORY_NOTE)
    history = price_reads.benchmark_history(path)
    ui.show_table(bench_history.history_table(history), key="history_table")
    with st.expander("Retract an import"):
        retract_form(history, user)
    retracted = st.session_state.pop(RETRACT_STATE, None)
    if retracted:
        st.success(f"Retracted snapshot `{retracted}`: its results no longer count anywhere.")


def retract_form(history: pd.DataFrame, user: Principal) -> None:
    candidates = bench_history.retractable(history)
    blocked = user.why_not(Action.RETRACT)
    if not candidates:
        st.info("No current import to retract.")
        return
    if blocked:
        st.info(blocked)
        st.button("Retract this import", key="retract_confirm", disabled=True)
        return
    described = partial(bench_history.describe, history)
    target = st.selectbox("Snapshot", candidates, format_func=described, key="retract_snapshot")
    reason = st.text_input(
        "Reason", key="retract_reason", placeholder="e.g. a test run, wrong accelerator"
    )
    if user.signed_in:  # the signed-in identity is who retracts; nothing to type
        who = user.name
        st.caption(f"Recorded as retracted by {plain(who)}.")
    else:
        who = st.text_input("Your name", key="retract_by")
    if not st.button("Retract this import", key="retract_confirm"):
        return
    if not reason.strip() or not who.strip():
        st.error("Give a reason and your name; nothing was retracted.")
        return
    try:
        with data.writer(Action.RETRACT, say_waiting) as warehouse:
            warehouse.retract_snapshot(target, reason, who)
    except Exception as exc:  # shown to the person, never as a traceback
        st.error(f"Snapshot {plain(target)} was not retracted: {plain(exc)}.")
    else:
        st.session_state[RETRACT_STATE] = target
        st.rerun()


def sidebar(choices: dict[str, list[str]], start: dict) -> tuple[dict[str, list[str]], str]:
    """The filters picked (filter name -> values) and the FTL percentile."""
    with st.sidebar:
        st.header("Result filters")
        picked = {
            name: st.multiselect(label, choices[name], default=start[name], key=name)
            for name, (_, label) in model.FILTERS.items()
        }
        percentile = st.selectbox(
            "FTL percentile", PERCENTILES, PERCENTILES.index(start["percentile"]), key="percentile"
        )
    return picked, percentile


def results_tab(results: pd.DataFrame) -> None:
    if results.empty:
        st.info(model.NO_MATCH)
        return
    for place, figure in zip(st.columns(3), model.results_headline(results), strict=True):
        place.metric(figure.label, figure.value, help=figure.help or None)
    table = model.results_table(results)
    ui.show_columns(table, model.RESULT_COLUMNS, key="results_table")
    st.caption(model.RESULTS_NOTE)
    csv = partial(safe_csv, table)  # written when the button is clicked, not on every rerun
    downloads.download_button(
        st, "Download these results (CSV)", csv, file_name="tokendesk-results.csv", mime="text/csv"
    )


def curves_tab(results: pd.DataFrame, percentile: str, start: dict) -> dict[str, object]:
    """The sweeps drawn as lines; returns the tab's inputs (throughput basis, sweeps only)."""
    st.subheader(f"Throughput against first-token latency ({percentile})")
    basis = st.radio(
        "Throughput",
        list(model.THROUGHPUT),
        list(model.THROUGHPUT).index(start["throughput"]),
        format_func=model.THROUGHPUT.get,
        horizontal=True,
        key="throughput",
    )
    sweeps_only = st.toggle(
        "Only configurations measured at more than one load",
        start["sweeps_only"],
        key="sweeps_only",
    )
    points = model.curve_points(results, sweeps_only)
    if points.empty:
        st.info(model.nothing_to_plot(sweeps_only, percentile))
    else:
        figure = charts.throughput_against_ftl(
            points, model.THROUGHPUT_COLUMNS[basis], model.THROUGHPUT[basis], percentile
        )
        st.plotly_chart(figure, width="stretch", key="curve_chart")
    for note in model.curve_notes(points, results, percentile):
        st.caption(note)
    return {"throughput": basis, "sweeps_only": sweeps_only}


def parity_tab(results: pd.DataFrame) -> None:
    st.subheader("Output parity by backend")
    st.caption(model.PARITY_NOTE)
    if results.empty:
        st.info("No result matches these filters.")
        return
    table = model.parity_table(results)
    st.markdown(model.parity_summary(table))
    ui.show_columns(table, model.PARITY_COLUMNS, key="parity_table")


def estimates_tab(path: str) -> None:
    st.subheader("Estimates against measured results")
    report = data.validation_report(path)
    metric = st.radio(
        "Figure",
        list(estimates.METRIC_WORDS),
        format_func=estimates.METRIC_WORDS.get,
        horizontal=True,
        key="estimates_metric",
    )
    points = estimates.validation_points(report, metric)
    st.markdown(estimates.validation_sentence(report, metric))
    if points.empty:
        return
    figure = charts.predicted_vs_measured(points, estimates.METRIC_WORDS[metric])
    st.plotly_chart(figure, width="stretch", key="estimates_chart")
    st.caption(
        "Each point is one measured result, predicted by the performance model fitted without any"
        " result of its model × accelerator; the bar is its 80% interval. Where no result of its"
        " vendor is left in the fit, a first-token interval reaches up to the run's latency"
        " target: nothing then says where that vendor's scheduler sits under it. On the dashed"
        " line the prediction equals the measurement. Plans use these estimates only where no"
        " measured result serves a workload, and mark each such line 'estimated ±x%'."
    )


st.title("Benchmark results")
st.caption(model.PAGE_NOTE)
path = data.db_path()
user = auth.current_user()
# Only the open tab is drawn (the tabs rerun the page when one is picked): every tab drawn on each
# run cost the server as much as the one in view.
tab_results, tab_curves, tab_parity, tab_import, tab_history, tab_estimates = st.tabs(
    [
        "Results",
        "Throughput vs FTL",
        "Output parity",
        "Import result file",
        "Import history",
        "Estimates vs measured",
    ],
    key="benchmarks_tab",
    on_change="rerun",
)
# The import and a retraction run before the results are read, so the filters and every other
# tab already show the new snapshot.
if tab_import.open:
    with tab_import:
        import_tab(user.why_not(Action.IMPORT_RESULTS))
if tab_history.open:
    with tab_history:
        history_tab(path, user)
if tab_estimates.open:
    with tab_estimates:
        estimates_tab(path)
results = price_reads.benchmark_results(path)
if results.empty:
    for tab in (tab_results, tab_curves, tab_parity):
        if tab.open:
            with tab:
                st.info(model.NO_RESULTS)
    st.stop()
results = model.labelled(results)
choices = model.filter_choices(results)
start = ui.url_inputs(INPUTS, choices=choices)
picked, percentile = sidebar(choices, start)
# The curves tab's own inputs as the URL gives them while it is closed, so they stay in the URL.
curve_inputs: dict[str, object] = {name: start[name] for name in ("throughput", "sweeps_only")}
if tab_results.open or tab_curves.open or tab_parity.open:
    results = model.with_ftl(model.filtered(results, picked), percentile)
    if tab_results.open:
        with tab_results:
            results_tab(results)
    if tab_curves.open:
        with tab_curves:
            curve_inputs = curves_tab(results, percentile, start)
    if tab_parity.open:
        with tab_parity:
            parity_tab(results)
ui.keep_in_url(picked | {"percentile": percentile} | curve_inputs, INPUTS)
