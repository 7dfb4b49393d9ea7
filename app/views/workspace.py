"""Workspace: the company's own fleet, contracts, demand and constraints, edited as tables and
saved as a new version (versions are never overwritten). Every scenario starts from here."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import pandas as pd
import streamlit as st

from app import auth, data
from app.models import workspace as model
from app.models.withheld import WITHHELD_NOTE
from app.safe import plain
from briefs.workspace_input import workspace_from_upload
from briefs.workspace_plans import WorkspaceFileError, export_yaml
from costmodel import domain
from costmodel.demand import PERCENTILES
from costmodel.workspace import FLEET_PRICING_MODELS
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

name = st.text_input("Name", ws.name, key="ws_name", disabled=locked)


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

with st.expander("Versions"):
    st.dataframe(
        data.workspace_versions(path),
        hide_index=True,
        width="stretch",
        column_config={"created_by": "Saved by"},
    )
