"""Workspace: the company's own fleet, contracts, demand and constraints, edited as tables and
saved as a new version (versions are never overwritten). Every scenario starts from here."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import pandas as pd
import streamlit as st

from app import auth, charts, data
from app.models import workspace as model
from app.models.withheld import WITHHELD_NOTE
from app.safe import plain
from briefs.demand_doc import demand_rows
from costmodel import domain
from costmodel.demand import PERCENTILES
from costmodel.workspace import FLEET_PRICING_MODELS, ON_DEMAND_BASES
from planning.bill import BillImportError
from planning.workspaces import (
    WorkspaceFileError,
    export_yaml,
    is_example,
    workspace_from_upload,
)
from tokendesk.access import Action

st.title("Workspace")
st.caption(
    "What you run today, under which contracts, the demand it serves and the limits you buy "
    "within. Stay prices this fleet as it is; every move starts from it. Saving adds a new "
    "version; earlier ones stay in the warehouse."
)

path = data.db_path()
version, ws = data.workspace(path)
#: What this person may read of it: negotiated fleet rates withheld from a role that may not see them.
shown = data.shown_workspace(ws)
#: Why this person may not change the workspace (None: they may); every edit control says so.
blocked = auth.why_not(Action.EDIT_WORKSPACE)
locked = blocked is not None
if blocked:
    st.info(f"{blocked} You can read the workspace and download it.")
st.caption(
    f"Current: **{plain(ws.name)}**, "
    + (f"version {version}." if version else "the bundled example (not saved yet).")
)
if ws.audit:
    st.caption(
        plain(
            f"Porting effort {ws.audit_basis}: "
            + "; ".join(
                f"{a.backend} {a.weeks_base:g} engineer-weeks ({a.weeks_low:g}–{a.weeks_high:g},"
                f" {a.confidence} confidence)"
                for a in ws.audit
            )
            + ". Scenarios take their one-time cost and certify gate from it.",
            limit=2000,
        )
    )
else:
    st.caption(
        "No portability audit kept: one-time migration costs use default engineer-week "
        "estimates. Keep one with `tokendesk workspace audit PATH`."
    )

if is_example(ws):
    st.warning(
        f"This is the bundled example, {plain(ws.name)}: an illustrative company, not yours."
        " Every figure on the Overview and Scenarios pages starts from it until you replace it —"
        " edit the tables below and save, import your YAML, or derive your fleet from your cloud"
        " bill (FOCUS export) further down."
    )
name = st.text_input("Name", ws.name, key="ws_name", disabled=locked)
basis = st.radio(
    "On-demand capacity is paid",
    list(ON_DEMAND_BASES),
    list(ON_DEMAND_BASES).index(ws.on_demand_basis),
    format_func=lambda b: {
        "held": "for every unit held, all month (730 h)",
        "autoscaled": "for the hours the load needs it (autoscaled)",
    }[b],
    horizontal=True,
    key="ws_basis",
    disabled=locked,
    help="One basis for every plan: Stay's own on-demand lines, top-ups and new capacity alike.",
)


def _number(bound: domain.Bound, label: str, **extra: Any) -> Any:
    return st.column_config.NumberColumn(
        label, min_value=bound.low, max_value=bound.high, step=bound.step, **extra
    )


st.subheader("Fleet")
if shown is not ws:
    st.caption(WITHHELD_NOTE)
workloads = [w.workload for w in ws.demand]
fleet = st.data_editor(
    pd.DataFrame(model.fleet_rows(shown), columns=list(model.FLEET_COLUMNS)),
    num_rows="dynamic",
    hide_index=True,
    key="ws_fleet",
    disabled=locked,
    width="stretch",
    column_order=model.FLEET_ORDER,
    column_config={
        "count": _number(domain.FLEET_COUNT, "Count", width="small", format="%d"),
        "provider": st.column_config.TextColumn("Provider", help="aws, azure, gcp, … or owned"),
        "region": st.column_config.TextColumn("Region"),
        "instance_type": st.column_config.TextColumn("Instance type"),
        "pricing_model": st.column_config.SelectboxColumn(
            "Pricing model", options=list(FLEET_PRICING_MODELS)
        ),
        "usd_per_hour": st.column_config.TextColumn(
            "$/hour (effective)",
            help="Leave empty to use the current list price of this pricing model"
            f" ({domain.USD_PER_HOUR.low:g} to {domain.USD_PER_HOUR.high:,.0f}).",
        ),
        "commitment_end": st.column_config.TextColumn(
            "Commitment ends", help="YYYY-MM-DD; committed capacity is paid until then."
        ),
        "early_termination_usd": st.column_config.TextColumn(
            "Early-termination cost ($)",
            help="To end the whole line's commitment now; empty = unknown (paid to the end).",
        ),
        "serves": st.column_config.SelectboxColumn("Serves", options=workloads),
    },
)

st.subheader("Demand")
demand = st.data_editor(
    pd.DataFrame(model.demand_rows(ws), columns=list(model.DEMAND_COLUMNS)),
    num_rows="dynamic",
    hide_index=True,
    key="ws_demand",
    disabled=locked,
    width="stretch",
    column_config={
        "workload": st.column_config.TextColumn("Workload"),
        "model": st.column_config.TextColumn("Model"),
        "output_tokens_per_month": _number(
            domain.TOKENS_PER_MONTH, "Output tokens / month", format="%.3e"
        ),
        "input_tokens_per_month": _number(
            domain.TOKENS_PER_MONTH, "Input tokens / month", format="%.3e"
        ),
        "interactive_share": _number(domain.INTERACTIVE_SHARE, "Interactive share"),
        "peak_to_mean": _number(domain.PEAK_TO_MEAN, "Peak ÷ mean", help=domain.PEAK_TO_MEAN.why),
        "ttft_ms": _number(domain.SLO_MS, "FTL SLO (ms)"),
        "percentile": st.column_config.SelectboxColumn("Percentile", options=list(PERCENTILES)),
        "growth_per_quarter": _number(domain.GROWTH_PER_QUARTER, "Growth / quarter"),
        "accept_results_from": st.column_config.TextColumn(
            "Results that may stand in", help="Comma list of same-size models"
        ),
        "small_model": st.column_config.CheckboxColumn("Small model (CPU may serve)"),
    },
)

with st.expander("Demand from a request trace"):
    st.caption(
        "Upload a request log to read what your traffic asks of a fleet: tokens per month, "
        "peak ÷ mean, the daily curve, prompt and reply lengths and the share of input a "
        "prefix cache could serve. Reads: an Azure LLM inference trace CSV "
        "(TIMESTAMP, ContextTokens, GeneratedTokens) or a Mooncake trace (JSON Lines). "
        "Nothing is saved: put the figures you accept into the Demand table."
    )
    trace_file = st.file_uploader(
        "Request trace",
        type=["csv", "jsonl", "json"],
        key="ws_trace",
        max_upload_size=model.MAX_TRACE_UPLOAD_BYTES // 1024**2,
        help="Larger traces: `tokendesk workspace demand-from FILE` reads them from disk.",
    )
    if trace_file is not None:
        doc, refused = model.trace_demand(trace_file.name, trace_file.getvalue())
        if refused is not None:
            st.error(f"Not read — {refused}")
        elif doc is not None:
            st.table(
                pd.DataFrame(demand_rows(doc), columns=["Figure", "Value"]).set_index("Figure")
            )
            for note in doc["notes"]:
                st.caption(f"• {plain(note, limit=500)}")
            if model.daily_curve_complete(doc):
                st.plotly_chart(
                    charts.daily_curve(model.hour_of_day_frame(doc), doc["hour_of_day"]["clock"]),
                    width="stretch",
                    key="ws_trace_curve",
                )
            else:
                st.caption(
                    "No daily curve: the trace does not cover every hour of the day (see the "
                    "notes). Its rate over the time it covers:"
                )
            over_time = model.over_time_frame(doc)
            if not over_time.empty:
                st.plotly_chart(
                    charts.rate_over_time(over_time), width="stretch", key="ws_trace_over_time"
                )
            st.plotly_chart(
                charts.length_distribution(model.length_frame(doc)),
                width="stretch",
                key="ws_trace_lengths",
            )

st.subheader("Constraints")
left, middle, right = st.columns(3)
providers = left.text_input(
    "Approved providers (comma list; empty = any)",
    ", ".join(ws.constraints.providers or ()),
    key="ws_providers",
    disabled=locked,
)
regions = middle.text_input(
    "Approved regions for new capacity (comma list; empty = any)",
    ", ".join(ws.constraints.regions or ()),
    key="ws_regions",
    disabled=locked,
)
cap = right.number_input(
    domain.MAX_VENDOR_SHARE.label,
    domain.MAX_VENDOR_SHARE.low,
    domain.MAX_VENDOR_SHARE.high,
    ws.constraints.max_vendor_share,
    step=domain.MAX_VENDOR_SHARE.step,
    key="ws_cap",
    disabled=locked,
)


def _names(text: str) -> tuple[str, ...] | None:
    names = tuple(p.strip() for p in text.split(",") if p.strip())
    return names or None


if st.button("Save as a new version", type="primary", key="ws_save", disabled=locked, help=blocked):
    base = replace(
        ws,
        name=name.strip() or ws.name,
        on_demand_basis=basis,
        # replace(), so constraints this page does not edit (allow_owned) are kept.
        constraints=replace(
            ws.constraints,
            providers=tuple(p.lower() for p in _names(providers) or ()) or None,
            regions=_names(regions),
            max_vendor_share=cap,
        ),
    )
    edited, problems = model.edited_workspace(
        base, fleet.to_dict("records"), demand.to_dict("records")
    )
    if edited is not None:
        problems = data.check_workspace(path, edited)
    if problems:
        for problem in problems:
            st.error(f"Not saved — {problem}")
    else:
        saved = data.save_workspace(edited)
        st.success(f"Saved as version {saved}. The Scenarios and Overview pages now start from it.")

st.subheader("Import and export")
left, right = st.columns(2)
left.download_button(
    "Download as YAML",
    export_yaml(shown),
    file_name="workspace.yaml",
    mime="application/x-yaml",
    key="ws_export",
)
upload = right.file_uploader(
    "Import a workspace YAML", type=["yaml", "yml"], key="ws_import", disabled=locked, help=blocked
)
if upload is not None and right.button(
    "Store the uploaded workspace", key="ws_import_go", disabled=locked
):
    try:
        imported, _ = workspace_from_upload(upload.name, upload.getvalue())
        problems = data.check_workspace(path, imported)
    except WorkspaceFileError as exc:
        problems = [str(exc)]
    if problems:
        for problem in problems:
            right.error(f"Not imported — {problem}")
    else:
        right.success(f"Stored as version {data.save_workspace(imported)}.")

st.subheader("From your cloud bill")
st.caption(
    "Upload FOCUS cost exports (CSV, gzip CSV or Parquet; AWS, Azure, Google Cloud, OCI; several"
    " months and providers at once). The accelerator instances of the last full month become"
    " fleet lines at their effective rates; every other charge is listed by reason. Nothing is"
    " stored until you save."
)
bills = st.file_uploader(
    "FOCUS bill files",
    type=["csv", "gz", "parquet"],
    accept_multiple_files=True,
    key="ws_bill",
    disabled=locked,
    help=blocked,
)
if bills:
    try:
        report = data.bill_report(path, [(b.name, b.getvalue()) for b in bills])
    except BillImportError as exc:
        st.error(f"Not read — {exc}")
        report = None
    if report is not None:
        bill_view = model.bill_view(report)
        st.caption(plain(bill_view.source, limit=2000))
        st.dataframe(pd.DataFrame(bill_view.fleet), hide_index=True, width="stretch")
        st.markdown("**Charges not placed in the fleet**")
        st.dataframe(pd.DataFrame(bill_view.unplaced), hide_index=True, width="stretch")
        st.markdown(plain(bill_view.reconciliation, limit=2000))
        for line in bill_view.explained:
            st.caption(plain(line, limit=2000))
        st.markdown("**Against the current workspace**")
        st.dataframe(pd.DataFrame(bill_view.changes), hide_index=True, width="stretch")
        for note in bill_view.notes:
            st.warning(plain(note, limit=1000))
        if st.button(
            "Save the bill's fleet as a new version",
            key="ws_bill_save",
            disabled=locked or not report.workspace.fleet,
            help=blocked,
        ):
            try:
                st.success(f"Saved as version {data.save_bill(report)}.")
            except BillImportError as exc:
                st.error(f"Not saved — {exc}")

with st.expander("Versions"):
    st.dataframe(
        data.workspace_versions(path),
        hide_index=True,
        width="stretch",
        column_config={"created_by": "Saved by"},
    )
