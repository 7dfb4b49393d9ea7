# Long by design: a Streamlit page script, its forms written in the order the page shows them
# and sharing one set of session-state keys (``key``, ``settings_key``); split, the page's order
# and its keys would be read across files.
"""Workspace: the company's own fleet, contracts, demand and constraints, edited as tables and
saved as a new version (versions are never overwritten). Every scenario starts from here."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import pandas as pd
import streamlit as st

from app import auth, charts, data, downloads, plan_reads, price_reads, ui
from app.models import estimate_pages as estimates
from app.models import workspace as model
from app.models.withheld import WITHHELD_NOTE
from app.safe import plain
from briefs.demand_doc import demand_rows
from costmodel import domain
from costmodel.demand import PERCENTILES
from costmodel.workspace_model import FIRST_DATE, LAST_DATE, ON_DEMAND_BASES, OWNED_REQUIRED
from planning.bill import BillImportError
from planning.workspaces import (
    FIELD_WORDS,
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
shown = plan_reads.shown_workspace(ws)
#: Why this person may not change the workspace (None: they may); every edit control says so.
blocked = auth.why_not(Action.EDIT_WORKSPACE)
locked = blocked is not None

#: Unsaved work on this page: {"base": the workspace whose settings it keeps, "fleet": rows,
#: "demand": rows}; None while the tables show the stored workspace as it is.
DRAFT, GENERATION, SAVED = "ws_draft", "ws_generation", "ws_saved_message"
#: The settings section's own generation: adding a line keeps what was typed there.
SETTINGS_GENERATION = "ws_settings_generation"
#: What the settings section holds once the person has opened it: {"fields": {field: value} in
#: ``model.settings_fields``'s shape, "from": the signature of the settings it started from}. Its
#: widgets are drawn only while it is open and Streamlit forgets a widget that is not drawn, yet
#: Save reads every setting: the page keeps them here, until the workspace they started from
#: changes (a save, here or elsewhere) or the page starts afresh.
SETTINGS_KEPT = "ws_settings_kept"
draft = st.session_state.get(DRAFT)
generation = st.session_state.get(GENERATION, 0)
settings_generation = st.session_state.get(SETTINGS_GENERATION, 0)


def key(name: str) -> str:
    """A widget's key in this generation of the page: a new draft or a save starts the tables
    and fields afresh from the draft or the stored workspace."""
    return name if generation == 0 else f"{name}_{generation}"


def settings_key(name: str) -> str:
    return name if settings_generation == 0 else f"{name}_{settings_generation}"


def restart(new_draft: dict | None, *, keep_settings: bool = False) -> None:
    st.session_state[DRAFT] = new_draft
    st.session_state[GENERATION] = generation + 1
    if not keep_settings:
        st.session_state[SETTINGS_GENERATION] = settings_generation + 1
        st.session_state.pop(SETTINGS_KEPT, None)
    st.rerun()


base = draft["base"] if draft else shown
saved_message = st.session_state.pop(SAVED, None)
if blocked:
    st.info(f"{blocked} You can read the workspace and download it.")
if draft:
    st.caption(
        f"Editing: **{plain(base.name)}** — not saved yet. Nothing changes on the other pages"
        " until you press **Save as a new version** below."
        + (f" The stored workspace is version {version}." if version else "")
    )
else:
    st.caption(model.header(plain(ws.name), version, is_example(ws)))
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

if is_example(ws) and draft is None:
    with st.container(border=True):
        st.warning(
            f"**This is the bundled example, not yours.** {plain(ws.name)} is an illustrative"
            " company. Every figure on the Overview and Scenarios pages starts from it until you"
            " enter your own: start your own workspace here (a few lines: what you run and what"
            " it serves), import your YAML, or derive your fleet from your cloud bill (FOCUS"
            " export) further down."
        )
        start_own = st.button(
            "Start my own workspace",
            type="primary",
            key=key("ws_start_own"),
            disabled=locked,
            help=blocked
            or "Empty tables to fill in, with the example's settings (start month, constraints,"
            " commitment scenarios); saved as a new version when you press Save.",
        )
elif draft is None:
    start_own = st.button(
        "Start a new workspace from empty tables",
        key=key("ws_start_own"),
        disabled=locked,
        help=blocked,
    )
else:
    start_own = False
    if st.button("Discard these changes", key=key("ws_discard")):
        restart(None)
if start_own:
    restart({"base": model.start_own(ws), "fleet": [], "demand": [], "ask_providers": True})
#: A workspace started from empty tables names its own approved providers before it is saved.
ask_providers = bool(draft and draft.get("ask_providers"))

name = st.text_input("Name", base.name, key=key("ws_name"), disabled=locked)
basis = st.radio(
    "On-demand capacity is paid",
    list(ON_DEMAND_BASES),
    list(ON_DEMAND_BASES).index(base.on_demand_basis),
    format_func=lambda b: {
        "held": "for every unit held, all month (730 h)",
        "autoscaled": "for the hours the load needs it (autoscaled)",
    }[b],
    horizontal=True,
    key=key("ws_basis"),
    disabled=locked,
    help="One basis for every plan: Stay's own on-demand lines, top-ups and new capacity alike.",
)


def _number(bound: domain.Bound, label: str, **extra: Any) -> Any:
    return st.column_config.NumberColumn(
        label, min_value=bound.low, max_value=bound.high, step=bound.step, **extra
    )


def _text_help(field: str) -> str:
    return {
        "output_tokens_per_month": "Tokens a month, e.g. 30 B, 1.5 T, 750 M or 30e9.",
        "input_tokens_per_month": (
            "Prompt tokens a month, e.g. 60 B; empty = not stated (capacity is read at the"
            " results' own input:output mix)."
        ),
        "ttft_ms": "First-token latency target, e.g. 1,500 ms (or 1.5 s).",
        "growth_per_quarter": "Demand growth per quarter, e.g. 10 %/qtr (−50 to 200).",
    }[field]


st.subheader("Demand")
st.caption(
    "What your fleet serves: one line per workload, its model and tokens a month, the latency it"
    " must meet and how fast it grows. Fleet lines below name the workload they serve."
)


def model_choices() -> list[tuple[str, str]]:
    """(model, measured | estimated): the results' models, then the ones only estimated."""
    from costmodel.bundled_tables import model_architectures, resolve_architecture

    measured = [str(m) for m in price_reads.benchmark_results(path)["model"].dropna().unique()]
    ids = [arch.model_id for m in measured if (arch := resolve_architecture(m)) is not None]
    return estimates.model_choices(measured, model_architectures(), ids)


def workload_form() -> dict[str, Any] | None:
    """The "Add a workload" fields: what was typed when the person pressed Add, else None."""
    with st.form(key("ws_add_workload_form"), clear_on_submit=False, border=False):
        one, two = st.columns(2)
        typed: dict[str, Any] = {
            "workload": one.text_input(
                "Workload name", key=key("ws_new_workload"), placeholder="chat-70b"
            ),
            "model": two.text_input(
                "Model",
                key=key("ws_new_model"),
                placeholder="llama-3.3-70b-instruct",
            ),
        }
        st.caption(estimates.choices_text(model_choices()))
        one, two, three = st.columns(3)
        typed["output_tokens"] = one.text_input(
            "Output tokens / month", key=key("ws_new_output"), placeholder="30 B"
        )
        typed["input_tokens"] = two.text_input(
            "Input tokens / month",
            key=key("ws_new_input"),
            placeholder="60 B (empty: the results' own mix)",
        )
        typed["growth"] = three.text_input(
            "Growth / quarter", key=key("ws_new_growth"), placeholder="10 %/qtr"
        )
        one, two, three = st.columns(3)
        typed["slo"] = one.text_input("FTL SLO", key=key("ws_new_slo"), placeholder="1,500 ms")
        typed["percentile"] = two.selectbox(
            "Percentile",
            list(PERCENTILES),
            index=list(PERCENTILES).index("p95"),
            key=key("ws_new_percentile"),
        )
        typed["peak_to_mean"] = three.number_input(
            "Peak ÷ mean",
            domain.PEAK_TO_MEAN.low,
            domain.PEAK_TO_MEAN.high,
            1.5,
            step=domain.PEAK_TO_MEAN.step,
            key=key("ws_new_peak"),
            help=domain.PEAK_TO_MEAN.why,
        )
        measured_models = sorted(price_reads.benchmark_results(path)["model"].dropna().unique())
        typed["stand_ins"] = st.multiselect(
            "Results that may stand in (same size and architecture)",
            measured_models,
            key=key("ws_new_stand_ins"),
            help="Published results for these models are used where your model has none on an"
            " accelerator (e.g. llama-3.1-70b-instruct for llama-3.3-70b-instruct). Without a"
            " result that meets the SLO, a fleet line counts as no capacity.",
        )
        added = st.form_submit_button("Add workload", disabled=locked)
    return typed if added else None


# Every section below that starts closed is drawn only while open (keyed, rerun on open and
# close): a closed section's widgets and tables cost the browser as much as open ones. While a
# draft is being entered the two "Add" sections open with each new generation of the page.
add_workload_section = st.expander(
    "Add a workload",
    expanded=draft is not None,
    key=key("ws_add_workload_open"),
    on_change="rerun",
)
new_workload = None
if add_workload_section.open:
    with add_workload_section:
        new_workload = workload_form()

demand_frame = pd.DataFrame(
    draft["demand"] if draft else model.demand_rows(base), columns=list(model.DEMAND_COLUMNS)
)
demand_config, demand_order, demand_hidden = ui.fit_layout(
    demand_frame,
    key("ws_demand"),
    {
        "workload": st.column_config.TextColumn(FIELD_WORDS["workload"]),
        "model": st.column_config.TextColumn(FIELD_WORDS["model"]),
        **{
            column: st.column_config.TextColumn(FIELD_WORDS[column], help=_text_help(column))
            for column in model.HUMAN_COLUMNS
        },
        "interactive_share": _number(domain.INTERACTIVE_SHARE, FIELD_WORDS["interactive_share"]),
        "peak_to_mean": _number(
            domain.PEAK_TO_MEAN, FIELD_WORDS["peak_to_mean"], help=domain.PEAK_TO_MEAN.why
        ),
        "percentile": st.column_config.SelectboxColumn(
            FIELD_WORDS["percentile"], options=list(PERCENTILES)
        ),
        "accept_results_from": st.column_config.TextColumn(
            FIELD_WORDS["accept_results_from"], help="Comma list of same-size models"
        ),
        "small_model": st.column_config.CheckboxColumn("Small model (CPU may serve)"),
    },
    model.DEMAND_ORDER,
)
demand = st.data_editor(
    demand_frame,
    num_rows="dynamic",
    hide_index=True,
    key=key("ws_demand"),
    disabled=locked,
    width="stretch",
    column_order=demand_order,
    column_config=demand_config,
)
ui.more_columns(key("ws_demand"), demand_hidden, demand_config)
demand_records = demand.to_dict("records")
workloads = [
    r["workload"].strip()
    for r in demand_records
    if isinstance(r["workload"], str) and r["workload"].strip()
]

pending_workload = None
if new_workload is not None:
    row, problem = model.new_workload_row(**new_workload)
    if problem:
        st.error(f"Not added — {problem}")
    else:
        pending_workload = row


def trace_demand_form() -> None:
    """Demand read from an uploaded request log; nothing is stored."""
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


trace_section = st.expander("Demand from a request trace", key="ws_trace_open", on_change="rerun")
if trace_section.open:
    with trace_section:
        trace_demand_form()

st.subheader("Fleet")
st.caption(
    "What runs today: one line per instance type, region and pricing model. Leave $/hour empty"
    " to pay the current list price."
)
if shown is not ws:
    st.caption(WITHHELD_NOTE)


def fleet_line_form(workloads: list[str]) -> dict | None:
    """A line found in the current prices: the fleet row to add when the person pressed Add."""
    catalog = price_reads.instance_catalog(path)
    one, two, three = st.columns([2, 1, 1])
    query = one.text_input(
        "Search instance types",
        key=key("ws_sku_search"),
        placeholder="mi300x, ND96isr MI300X v5, p5.48xlarge, L40S …",
        help="Matches the provider, region, instance type and accelerator, ignoring case,"
        " spaces and underscores.",
    )
    found = model.search_catalog(catalog, query)
    sku_providers = sorted(found["provider"].unique())
    provider = two.selectbox(
        "Provider", ["Any provider", *sku_providers], key=key("ws_sku_provider")
    )
    if provider != "Any provider":
        found = found[found["provider"] == provider]
    sku_regions = sorted(found["region"].unique())
    region = three.selectbox("Region", ["Any region", *sku_regions], key=key("ws_sku_region"))
    if region != "Any region":
        found = found[found["region"] == region]
    skus = {
        f"{r['provider']}|{r['region']}|{r['instance_type']}": r for r in found.to_dict("records")
    }
    if not skus:
        st.caption("No instance type in the current prices matches; try fewer words.")
    sku_key = st.selectbox(
        f"Instance type ({len(skus):,} listed in the current prices)",
        list(skus),
        format_func=lambda k: (
            f"{skus[k]['provider']} {skus[k]['region']}: {model.sku_text(skus[k])}"
        ),
        key=key("ws_sku"),
    )
    one, two, three = st.columns(3)
    line_count = one.number_input(
        "Count",
        int(domain.FLEET_COUNT.low) or 1,
        int(domain.FLEET_COUNT.high),
        1,
        step=1,
        key=key("ws_line_count"),
    )
    line_pricing = two.selectbox(
        "Pricing model", list(model.PRICING_LABELS), key=key("ws_line_pricing")
    )
    line_serves = three.selectbox(
        "Serves", workloads or ["(add a workload first)"], key=key("ws_line_serves")
    )
    one, two, three = st.columns(3)
    line_region = one.text_input(
        "Your region (if not the catalog's)",
        key=key("ws_line_region"),
        placeholder=str(skus[sku_key]["region"]) if sku_key else "",
    )
    line_rate = two.text_input(
        "$/hour you pay (empty = list price)", key=key("ws_line_rate"), placeholder="31.46"
    )
    line_end = three.text_input(
        "Commitment ends (reserved)", key=key("ws_line_end"), placeholder="2027-06-30"
    )
    if (
        not st.button(
            "Add to fleet",
            key=key("ws_add_line"),
            disabled=locked or not sku_key or not workloads,
            help=blocked or (None if workloads else "Add the workload this line serves first."),
        )
        or not sku_key
    ):
        return None
    return model.fleet_line_from_sku(
        skus[sku_key],
        count=int(line_count),
        pricing_model=line_pricing,
        serves=line_serves,
        region=line_region,
        usd_per_hour=line_rate,
        commitment_end=line_end,
    )


add_line_section = st.expander(
    "Add a line from the price catalog",
    expanded=draft is not None,
    key=key("ws_add_line_open"),
    on_change="rerun",
)
new_line = None
if add_line_section.open:
    with add_line_section:
        new_line = fleet_line_form(workloads)

fleet_frame = pd.DataFrame(
    draft["fleet"] if draft else model.fleet_rows(shown), columns=list(model.FLEET_COLUMNS)
)
fleet_config, fleet_order, fleet_hidden = ui.fit_layout(
    fleet_frame,
    key("ws_fleet"),
    {
        "count": _number(domain.FLEET_COUNT, FIELD_WORDS["count"], width="small", format="%d"),
        "provider": st.column_config.TextColumn(
            FIELD_WORDS["provider"], help="aws, azure, gcp, … or owned"
        ),
        "region": st.column_config.TextColumn(FIELD_WORDS["region"]),
        "instance_type": st.column_config.TextColumn(FIELD_WORDS["instance_type"]),
        "pricing_model": st.column_config.SelectboxColumn(
            FIELD_WORDS["pricing_model"], options=list(model.PRICING_LABELS)
        ),
        "usd_per_hour": st.column_config.TextColumn(
            FIELD_WORDS["usd_per_hour"],
            help="Leave empty to use the current list price of this pricing model"
            f" ({domain.USD_PER_HOUR.low:g} to {domain.USD_PER_HOUR.high:,.0f}).",
        ),
        "commitment_end": st.column_config.TextColumn(
            FIELD_WORDS["commitment_end"], help="YYYY-MM-DD; committed capacity is paid until then."
        ),
        "early_termination_usd": st.column_config.TextColumn(
            FIELD_WORDS["early_termination_usd"],
            help="To end the whole line's commitment now; empty = unknown (paid to the end).",
        ),
        "serves": st.column_config.SelectboxColumn(FIELD_WORDS["serves"], options=workloads),
    },
    model.FLEET_ORDER,
)
fleet = st.data_editor(
    fleet_frame,
    num_rows="dynamic",
    hide_index=True,
    key=key("ws_fleet"),
    disabled=locked,
    width="stretch",
    column_order=fleet_order,
    column_config=fleet_config,
)
ui.more_columns(key("ws_fleet"), fleet_hidden, fleet_config)
fleet_records = fleet.to_dict("records")

st.subheader("Constraints")
if ask_providers:
    st.warning(
        "**Which providers may you buy from?** Name them under Approved providers (aws, azure,"
        " gcp, …), or tick “Any provider”. A new workspace does not take the example's: the"
        " optimal fleet and every move buy only from the providers named here.",
        icon=":material/policy:",
    )
left, middle, right = st.columns(3)
providers = left.text_input(
    "Approved providers (comma list; empty = any)",
    ", ".join(base.constraints.providers or ()),
    key=key("ws_providers"),
    disabled=locked,
)
regions = middle.text_input(
    "Approved regions for new capacity (comma list; empty = any)",
    ", ".join(base.constraints.regions or ()),
    key=key("ws_regions"),
    disabled=locked,
)
cap = right.number_input(
    domain.MAX_VENDOR_SHARE.label,
    domain.MAX_VENDOR_SHARE.low,
    domain.MAX_VENDOR_SHARE.high,
    base.constraints.max_vendor_share,
    step=domain.MAX_VENDOR_SHARE.step,
    key=key("ws_cap"),
    disabled=locked,
)

any_provider = (
    st.checkbox(
        "Any provider (no restriction on where new capacity is bought)",
        key=key("ws_any_provider"),
        disabled=locked,
    )
    if ask_providers
    else False
)
allow_owned = st.checkbox(
    "The optimizer may also buy servers (owned hardware, priced by the terms below)",
    base.constraints.allow_owned,
    key=settings_key("ws_allow_owned"),
    disabled=locked,
)
allow_spot = st.checkbox(
    "The workloads may run on spot (interruptible) capacity: only then does a spot price compete"
    " with a line that is not spot on Futures day",
    base.constraints.allow_spot,
    key=settings_key("ws_allow_spot"),
    disabled=locked,
)
allow_estimates = st.checkbox(
    "A workload no measured result serves may use estimated capacity (the calibrated performance"
    " model's figure, marked 'estimated ±x%' with its 80% interval)",
    base.constraints.allow_estimates,
    key=settings_key("ws_allow_estimates"),
    disabled=locked,
)


def table_rows(fields: dict[str, Any], name: str) -> list[dict]:
    """The rows a settings table is drawn from. A table editor applies a person's edits to the
    rows it was given, so while it is open it gets the rows it opened with; when it is drawn
    afresh (the section was closed) it opens with what it held last."""
    opened_with = f"{name}_opened_with"
    if settings_key(f"ws_{name}") not in st.session_state or opened_with not in fields:
        fields[opened_with] = fields[name]
    return fields[opened_with]


def settings_form(fields: dict[str, Any]) -> dict[str, Any]:
    """Month 1, owned-hardware terms, commitment and one-time costs, drawn from ``fields`` (what
    the section held when last open, or the workspace's own); returns what the widgets hold."""
    fields = dict(fields)
    fields["start"] = st.date_input(
        "Month 1 of every 36-month plan starts",
        fields["start"],
        min_value=FIRST_DATE,
        max_value=LAST_DATE,
        key=settings_key("ws_start"),
        disabled=locked,
    )
    st.markdown("**Owned hardware** (used where the optimizer may buy servers)")
    columns = st.columns(4)
    fields["site_region"] = columns[0].text_input(
        FIELD_WORDS["site_region"],
        fields["site_region"],
        key=settings_key("ws_owned_site_region"),
        disabled=locked,
    )
    fields["usd_per_kwh"] = columns[1].text_input(
        f"{FIELD_WORDS['usd_per_kwh']}, empty = the region's average",
        fields["usd_per_kwh"],
        key=settings_key("ws_owned_usd_per_kwh"),
        disabled=locked,
    )
    for index, (field, bound) in enumerate(OWNED_REQUIRED):
        fields[field] = columns[(index + 2) % 4].number_input(
            FIELD_WORDS[field],
            bound.low,
            bound.high,
            fields[field],
            step=bound.step,
            # whole dollars, people and years show without ".00"
            format="%.0f" if bound.step >= 1 else None,
            key=settings_key(f"ws_owned_{field}"),
            disabled=locked,
            help=bound.why or None,
        )
    st.markdown("**Commitment** (`tokendesk commit`: how much to commit, and for how long)")
    left, right = st.columns(2)
    fields["discount_1y"] = left.text_input(
        f"{FIELD_WORDS['discount_1y']} (0 to 0.95; empty = none)",
        fields["discount_1y"],
        key=settings_key("ws_discount_1y"),
        disabled=locked,
    )
    fields["discount_3y"] = right.text_input(
        f"{FIELD_WORDS['discount_3y']} (0 to 0.95; empty = none)",
        fields["discount_3y"],
        key=settings_key("ws_discount_3y"),
        disabled=locked,
    )
    fields["scenarios"] = st.data_editor(
        pd.DataFrame(table_rows(fields, "scenarios"), columns=list(model.SCENARIO_COLUMNS)),
        num_rows="dynamic",
        hide_index=True,
        key=settings_key("ws_scenarios"),
        disabled=locked,
        width="stretch",
        column_config={
            "name": st.column_config.TextColumn("Scenario"),
            "probability": _number(domain.PROBABILITY, FIELD_WORDS["probability"]),
            "demand_factor": _number(domain.DEMAND_FACTOR, FIELD_WORDS["demand_factor"]),
            "growth_per_quarter": st.column_config.TextColumn(
                FIELD_WORDS["growth_per_quarter"],
                help="e.g. 20 %/qtr; empty = each workload's own growth",
            ),
        },
    ).to_dict("records")
    st.markdown("**One-time migration cost per new backend** (overrides the estimate)")
    fields["one_time"] = st.data_editor(
        pd.DataFrame(table_rows(fields, "one_time"), columns=list(model.ONE_TIME_COLUMNS)),
        num_rows="dynamic",
        hide_index=True,
        key=settings_key("ws_one_time"),
        disabled=locked,
        column_config={
            "backend": st.column_config.TextColumn("Backend (rocm, cpu, …)"),
            "usd": _number(domain.ONE_TIME_USD, "One-time cost ($)", format="dollar"),
        },
    ).to_dict("records")
    return fields


own_settings = model.settings_fields(base)
settings_from = model.settings_signature(own_settings)
kept = st.session_state.get(SETTINGS_KEPT)
settings_fields = kept["fields"] if kept and kept["from"] == settings_from else own_settings
more_settings = st.expander(
    "More settings: month 1, owned hardware, commitment, one-time costs",
    key="ws_more_settings_open",
    on_change="rerun",
)
if more_settings.open:
    with more_settings:
        settings_fields = settings_form(settings_fields)
    st.session_state[SETTINGS_KEPT] = {"fields": settings_fields, "from": settings_from}


def settings() -> dict:
    """What the settings section holds, in the workspace file's shape (validated on save)."""
    return model.settings_from_fields(settings_fields, owned=base.owned is not None or allow_owned)


def _names(text: str) -> tuple[str, ...] | None:
    names = tuple(p.strip() for p in text.split(",") if p.strip())
    return names or None


edited_base = replace(
    base,
    name=name.strip() or base.name,
    on_demand_basis=basis,
    # replace(), so a constraint added to the records later is kept until the page edits it.
    constraints=replace(
        base.constraints,
        providers=tuple(p.lower() for p in _names(providers) or ()) or None,
        regions=_names(regions),
        max_vendor_share=cap,
        allow_owned=allow_owned,
        allow_spot=allow_spot,
        allow_estimates=allow_estimates,
    ),
)
if pending_workload is not None or new_line is not None:
    restart(
        {
            "base": edited_base,
            "fleet": fleet_records + ([new_line] if new_line else []),
            "demand": demand_records + ([pending_workload] if pending_workload else []),
            "ask_providers": ask_providers,
        },
        keep_settings=True,
    )

if saved_message:
    st.success(saved_message)
if st.button(
    "Save as a new version", type="primary", key=key("ws_save"), disabled=locked, help=blocked
):
    edited, problems = model.edited_workspace(edited_base, fleet_records, demand_records, settings)
    unchosen = (
        model.providers_problem(edited_base.constraints.providers, any_provider)
        if ask_providers
        else None
    )
    if unchosen:
        edited, problems = None, [*problems, unchosen]
    elif edited is not None:
        problems = plan_reads.check_workspace(path, edited)
    if problems:
        for problem in problems:
            st.error(f"Not saved — {plain(problem, limit=1000)}")
    else:
        saved = plan_reads.save_workspace(edited)
        # A fresh run reads the stored version, so the header names the one just saved.
        st.session_state[SAVED] = (
            f"Saved as version {saved}. The Scenarios and Overview pages now start from it."
        )
        restart(None)

st.subheader("Import and export")
left, right = st.columns(2)
downloads.download_button(
    left,
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
        problems = plan_reads.check_workspace(path, imported)
    except WorkspaceFileError as exc:
        problems = [str(exc)]
    if problems:
        for problem in problems:
            right.error(f"Not imported — {problem}")
    else:
        st.session_state[SAVED] = f"Stored as version {plan_reads.save_workspace(imported)}."
        restart(None)

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
        report = plan_reads.bill_report(path, [(b.name, b.getvalue()) for b in bills])
    except BillImportError as exc:
        st.error(f"Not read — {exc}")
        report = None
    if report is not None:
        bill_view = model.bill_view(report)
        st.caption(plain(bill_view.source, limit=2000))
        ui.dataframe(pd.DataFrame(bill_view.fleet), key="bill_fleet")
        st.markdown("**Charges not placed in the fleet**")
        ui.dataframe(pd.DataFrame(bill_view.unplaced), key="bill_unplaced")
        st.markdown(plain(bill_view.reconciliation, limit=2000))
        for line in bill_view.explained:
            st.caption(plain(line, limit=2000))
        st.markdown("**Against the current workspace**")
        ui.dataframe(pd.DataFrame(bill_view.changes), key="bill_changes")
        for note in bill_view.notes:
            st.warning(plain(note, limit=1000))
        if st.button(
            "Save the bill's fleet as a new version",
            key="ws_bill_save",
            disabled=locked or not report.workspace.fleet,
            help=blocked,
        ):
            try:
                st.session_state[SAVED] = f"Saved as version {plan_reads.save_bill(report)}."
            except BillImportError as exc:
                st.error(f"Not saved — {exc}")
            else:
                restart(None)

versions_section = st.expander("Versions", key="ws_versions_open", on_change="rerun")
if versions_section.open:
    with versions_section:
        ui.dataframe(
            data.workspace_versions(path),
            key="ws_versions",
            column_config={"created_by": "Saved by"},
        )
