"""Memory fit: which accelerators hold a model's weights plus its KV cache, and how many of them
one replica needs."""

from __future__ import annotations

import pandas as pd
import streamlit as st

from app import charts, data
from costmodel import memory_fit
from costmodel.memory import kv_bytes_per_token
from costmodel.tables import model_architectures
from tokendesk.catalog import load_catalog
from tokendesk.records import Backend

PRECISIONS = ["bf16", "fp8", "int8", "int4"]
#: The cost model's defaults, shown so the explanation can be checked by hand.
USABLE_FRACTION = 0.9
OVERHEAD_GIB = 4.0
MIN_KV_FRACTION = 0.1
PART_COLOURS = {
    "Weights": "#4C78A8",
    "KV cache (requested sequences)": "#F58518",
    "Spare (more KV cache)": "#BAB0AC",
    "Reserved (runtime overhead, headroom)": "#E4E4E4",
}

st.title("Memory fit")
st.caption(
    "weights = parameters × bytes per parameter (INT4 adds 3% for scales); "
    "KV cache per token = 2 × layers × KV heads × "
    "head dim × bytes (BF16 KV for 16-bit weights, FP8 KV otherwise). "
    f"Usable per device = {USABLE_FRACTION:g} × memory − "
    f"{OVERHEAD_GIB:g} GiB runtime overhead, and at least "
    f"{MIN_KV_FRACTION:.0%} of it must stay free for KV cache. Tensor "
    "parallel is a power of two that divides the attention and KV heads, "
    "at most 8 per node; beyond that, pipeline "
    "stages must divide the layers."
)

architectures = model_architectures()
ids = list(architectures)


def _clamp_context() -> None:
    """Choosing a model with a shorter context window brings the context length within it."""
    limit = architectures[st.session_state["m_model"]].max_context
    if st.session_state.get("m_context", 0) > limit:
        st.session_state["m_context"] = limit


with st.sidebar:
    st.header("Workload")
    model_id = st.selectbox(
        "Model",
        ids,
        index=ids.index("llama-3.1-70b") if "llama-3.1-70b" in ids else 0,
        format_func=lambda i: architectures[i].name,
        key="m_model",
        on_change=_clamp_context,
    )
    precision = st.selectbox("Weight precision", PRECISIONS, key="m_precision")
    arch = architectures[model_id]
    context = int(
        st.number_input(
            "Context length (tokens per sequence)",
            min_value=128,
            max_value=1_048_576,
            value=min(8192, arch.max_context),
            step=1024,
            key="m_context",
            help=f"{arch.name} supports up to {arch.max_context:,} tokens",
        )
    )
    sequences = int(
        st.number_input(
            "Concurrent sequences",
            min_value=1,
            max_value=4096,
            value=1,
            step=1,
            key="m_sequences",
            help="Sequences whose full-context KV cache must fit at once",
        )
    )
    include_cpus = st.toggle("Include CPUs (host memory)", value=False, key="m_cpus")

retrieved = data.architecture_retrieved().get(model_id, "")
st.caption(
    f"{arch.name}: {arch.params_b:g}B parameters ({arch.active_params_b:g}B active), {arch.layers} layers, "
    f"{arch.attention_heads} attention / {arch.kv_heads} KV heads × "
    f"{arch.head_dim}, {arch.max_context:,}-token context. "
    f"Source: [{arch.source_url}]({arch.source_url})"
    + (f", retrieved {retrieved}." if retrieved else ".")
    + (f" {arch.notes}." if arch.notes else "")
)

if context > arch.max_context:
    st.error(
        f"{arch.name} supports at most {arch.max_context:,} tokens of context; {context:,} were asked for. "
        "Lower the context length in the sidebar."
    )
    st.stop()

catalog = load_catalog()
rows = []
fits = {}
for acc in catalog.values():
    if acc.backend is Backend.CPU and not include_cpus:
        continue
    fit = memory_fit(
        arch,
        precision,
        context,
        accelerator_id=acc.accelerator_id,
        accelerator_name=acc.name,
        memory_gib=acc.memory_gib,
        usable_fraction=USABLE_FRACTION,
        overhead_gib_per_device=OVERHEAD_GIB,
        concurrent_sequences=sequences,
        min_kv_fraction=MIN_KV_FRACTION,
    )
    fits[acc.accelerator_id] = fit
    rows.append(
        {
            "accelerator_id": acc.accelerator_id,
            "accelerator": acc.name,
            "vendor": acc.vendor,
            "memory_gib": acc.memory_gib,
            "fits": "yes" if fit.fits else "no",
            "per_replica": fit.accelerators_per_replica,
            "tp": fit.tensor_parallel,
            "pp": fit.pipeline_parallel,
            "kv_tokens": fit.kv_tokens_capacity,
            "explanation": fit.explanation,
            "memory_source": f"{acc.source_title} ({acc.source_date:%Y-%m-%d})",
        }
    )
table = pd.DataFrame(rows)
if table.empty:
    st.info("The accelerator catalog is empty; nothing to check.")
    st.stop()
table = table.sort_values(
    ["fits", "per_replica", "memory_gib"], ascending=[False, True, False], na_position="last"
)

any_fit = next(iter(fits.values()))
weights_gib = any_fit.weights_gib
kv_seq_gib = any_fit.kv_gib_per_sequence
kv_per_token_kib = kv_bytes_per_token(arch, "bf16" if precision == "bf16" else "fp8") / 1024
col1, col2, col3, col4 = st.columns(4)
col1.metric(
    "Weights", f"{weights_gib:,.1f} GiB", help=f"{arch.params_b:g}B parameters in {precision}"
)
col2.metric(
    "KV cache per sequence",
    f"{kv_seq_gib:,.2f} GiB",
    help=f"{kv_per_token_kib:,.0f} KiB per token × {context:,} tokens",
)
col3.metric(
    "KV cache needed",
    f"{kv_seq_gib * sequences:,.1f} GiB",
    help=f"{sequences} concurrent sequence(s)",
)
fitting = table[table["fits"] == "yes"]
col4.metric(
    "Accelerators that fit",
    f"{len(fitting)} of {len(table)}",
    help="Within 64 accelerators per replica",
)

st.subheader("Which accelerators fit, and how many per replica")
st.dataframe(
    table[
        [
            "accelerator",
            "vendor",
            "memory_gib",
            "fits",
            "per_replica",
            "tp",
            "pp",
            "kv_tokens",
            "explanation",
            "memory_source",
        ]
    ],
    hide_index=True,
    width="stretch",
    key="fit_table",
    column_config={
        "accelerator": "Accelerator",
        "vendor": "Vendor",
        "memory_gib": st.column_config.NumberColumn("Memory", format="%.0f GiB"),
        "fits": "Fits",
        "per_replica": st.column_config.NumberColumn("Accelerators / replica", format="%d"),
        "tp": st.column_config.NumberColumn("TP", format="%d", help="Tensor parallel size"),
        "pp": st.column_config.NumberColumn("PP", format="%d", help="Pipeline stages"),
        "kv_tokens": st.column_config.NumberColumn(
            "KV cache room (tokens)",
            format="%,.0f",
            help="Tokens of KV cache the replica can hold after the weights",
        ),
        "explanation": st.column_config.TextColumn("Why", width="large"),
        "memory_source": "Memory source",
    },
)

st.subheader("Why")
explain_ids = list(table["accelerator_id"])
default_pair = [
    i for i in ("amd-mi300x-192gb", "nvidia-h100-sxm-80gb") if i in explain_ids
] or explain_ids[:2]
chosen = st.multiselect(
    "Explain",
    explain_ids,
    default=default_pair,
    format_func=lambda i: catalog[i].name,
    key="m_explain",
)
for acc_id in chosen:
    fit = fits[acc_id]
    name = catalog[acc_id].name
    if fit.fits:
        verdict = (
            f"**{name}: {fit.accelerators_per_replica} per replica** (TP "
            f"{fit.tensor_parallel} × PP {fit.pipeline_parallel})."
        )
    else:
        verdict = f"**{name}: does not fit.**"
    st.markdown(f"{verdict} {fit.explanation}.")

st.subheader("Weights and KV cache per replica")
if fitting.empty:
    st.info(
        f"No accelerator in the catalog holds {arch.name} in {precision} with "
        f"{sequences} × {context:,}-token "
        "sequences within 64 per replica. Try a lower precision, a shorter context or fewer sequences."
    )
else:
    parts = []
    for row in fitting.itertuples():
        fit = fits[row.accelerator_id]
        n = fit.accelerators_per_replica
        total = n * row.memory_gib
        usable = n * fit.usable_gib_per_device
        kv_need = fit.kv_gib_per_sequence * sequences
        label = f"{n} × {row.accelerator}"
        for part, gib in (
            ("Weights", fit.weights_gib),
            ("KV cache (requested sequences)", kv_need),
            ("Spare (more KV cache)", max(usable - fit.weights_gib - kv_need, 0.0)),
            ("Reserved (runtime overhead, headroom)", total - usable),
        ):
            parts.append({"replica": label, "part": part, "gib": gib, "total": total})
    frame = pd.DataFrame(parts)
    order = list(frame.drop_duplicates("replica").sort_values("total")["replica"])
    figure = charts.stacked_bars(
        frame,
        "replica",
        "gib",
        "part",
        PART_COLOURS,
        value_hover=",.1f",
        hover={"replica memory (GiB)": frame["total"].map("{:,.0f}".format)},
        category_axis=charts.axis("Accelerators per replica"),
        category_order=order,
        value_axis=charts.axis("Memory per replica (GiB)", ticksuffix=" GiB", rangemode="tozero"),
        legend_title="",
        height=max(320, 36 * len(order) + 140),
    )
    figure.update_layout(legend={"orientation": "h", "y": -0.15})
    st.plotly_chart(figure, width="stretch", key="fit_chart")
    st.caption(
        "Memory figures are the vendors' datasheet capacities (source per "
        "accelerator in the table above). GiB = 2³⁰ "
        "bytes. The spare memory holds more KV cache: more concurrent sequences or longer contexts."
    )
