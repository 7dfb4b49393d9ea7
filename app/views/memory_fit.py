"""Memory fit: which accelerators hold a model's weights plus its KV cache, and how many of them
one replica needs."""

from __future__ import annotations

from typing import Any

import streamlit as st

from app import charts, data, ui
from app.models import memory_fit as model
from app.url_state import UrlInput
from costmodel.bundled_tables import model_architectures
from costmodel.memory import kv_bytes_per_token
from tokendesk.catalog import load_catalog

INPUTS = (
    UrlInput("model", "choice", "llama-3.1-70b"),
    UrlInput("precision", "choice", "bf16", choices=model.PRECISIONS),
    UrlInput("context", "integer", model.DEFAULT_CONTEXT, low=128, high=1_048_576),
    UrlInput("sequences", "integer", 1, low=1, high=4096),
    UrlInput("cpus", "flag", False),
    UrlInput("explain", "choices", list(model.DEFAULT_EXPLAINED)),
)


def _clamp_context() -> None:
    """Choosing a model with a shorter context window brings the context length within it."""
    limit = architectures[st.session_state["model"]].max_context
    if st.session_state.get("context", 0) > limit:
        st.session_state["context"] = limit


def sidebar(start: dict) -> dict:
    ids = list(architectures)
    with st.sidebar:
        st.header("Workload")
        chosen: dict[str, Any] = {
            "model": st.selectbox(
                "Model",
                ids,
                ids.index(start["model"]),
                format_func=lambda i: architectures[i].name,
                key="model",
                on_change=_clamp_context,
            ),
            "precision": st.selectbox(
                "Weight precision",
                model.PRECISIONS,
                model.PRECISIONS.index(start["precision"]),
                key="precision",
            ),
        }
        arch = architectures[chosen["model"]]
        context = start["context"]
        if "context" not in st.query_params:  # the default never exceeds the model
            context = min(model.DEFAULT_CONTEXT, arch.max_context)
        chosen["context"] = st.number_input(
            "Context length (tokens per sequence)",
            128,
            1_048_576,
            context,
            step=1024,
            key="context",
            help=f"{arch.name} supports up to {arch.max_context:,} tokens",
        )
        chosen["sequences"] = st.number_input(
            "Concurrent sequences",
            1,
            4096,
            start["sequences"],
            step=1,
            key="sequences",
            help="Sequences whose full-context KV cache must fit at once",
        )
        chosen["cpus"] = st.toggle("Include CPUs (host memory)", start["cpus"], key="cpus")
    return chosen


def headline(arch, fitted: dict, table, precision: str, context: int, sequences: int) -> None:
    sample = next(iter(fitted.values()))
    kv_kib = kv_bytes_per_token(arch, "bf16" if precision == "bf16" else "fp8") / 1024
    col1, col2, col3, col4 = st.columns(4)
    col1.metric(
        "Weights", f"{sample.weights_gib:,.1f} GiB", help=f"{arch.params_b:g}B in {precision}"
    )
    col2.metric(
        "KV cache per sequence",
        f"{sample.kv_gib_per_sequence:,.2f} GiB",
        help=f"{kv_kib:,.0f} KiB per token × {context:,} tokens",
    )
    col3.metric(
        "KV cache needed",
        f"{sample.kv_gib_per_sequence * sequences:,.1f} GiB",
        help=f"{sequences} concurrent sequence(s)",
    )
    col4.metric(
        "Accelerators that fit",
        f"{int(table['fits'].sum())} of {len(table)}",
        help="Within 64 accelerators per replica",
    )


def explain(table, fitted: dict, start: list[str]) -> list[str]:
    st.subheader("Why")
    ids = list(table["accelerator_id"])
    default = [i for i in start if i in ids] or ids[:2]
    chosen = st.multiselect(
        "Explain", ids, default=default, format_func=lambda i: catalog[i].name, key="explain"
    )
    for acc_id in chosen:
        st.markdown(model.verdict(catalog[acc_id].name, fitted[acc_id]))
    return chosen


def breakdown(table, fitted: dict, arch, precision: str, context: int, sequences: int) -> None:
    st.subheader("Weights and KV cache per replica")
    parts = model.breakdown(table, fitted, sequences)
    if parts.empty:
        st.info(
            f"No accelerator in the catalog holds {arch.name} in {precision} with {sequences} × "
            f"{context:,}-token sequences within 64 per replica. Try a lower precision, a shorter "
            "context or fewer sequences."
        )
        return
    st.plotly_chart(charts.memory_breakdown(parts), width="stretch", key="fit_chart")
    st.caption(
        "Memory figures are the vendors' datasheet capacities (source per accelerator in the "
        "table above). GiB = 2³⁰ bytes. The spare memory holds more KV cache: more concurrent "
        "sequences or longer contexts."
    )


st.title("Memory fit")
st.caption(
    "weights = parameters × bytes per parameter (INT4 adds 3% for scales); KV cache per token = "
    "2 × layers × KV heads × head dim × bytes (BF16 KV for 16-bit weights, FP8 KV otherwise). "
    f"Usable per device = {model.USABLE_FRACTION:g} × memory − {model.OVERHEAD_GIB:g} GiB runtime "
    f"overhead, and at least {model.MIN_KV_FRACTION:.0%} of it must stay free for KV cache. Tensor "
    "parallel is a power of two that divides the attention and KV heads, at most 8 per node; "
    "beyond that, pipeline stages must divide the layers."
)
architectures = model_architectures()
catalog = load_catalog()
start = ui.url_inputs(INPUTS, choices={"model": list(architectures), "explain": list(catalog)})
chosen = sidebar(start)
arch = architectures[chosen["model"]]
retrieved = data.architecture_retrieved().get(chosen["model"], "")
st.caption(
    f"{arch.name}: {arch.params_b:g}B parameters ({arch.active_params_b:g}B active), "
    f"{arch.layers} layers, {arch.attention_heads} attention / {arch.kv_heads} KV heads × "
    f"{arch.head_dim}, {arch.max_context:,}-token context. "
    f"Source: [{arch.source_url}]({arch.source_url})"
    + (f", retrieved {retrieved}." if retrieved else ".")
    + (f" {arch.notes}." if arch.notes else "")
)
precision, context, sequences = chosen["precision"], chosen["context"], chosen["sequences"]
if context > arch.max_context:
    ui.keep_in_url(chosen | {"explain": start["explain"]}, INPUTS)
    st.error(
        f"{arch.name} supports at most {arch.max_context:,} tokens of context; {context:,} were "
        "asked for. Lower the context length in the sidebar."
    )
    st.stop()
fitted = model.fits(catalog, arch, precision, context, sequences, chosen["cpus"])
table = model.fit_frame(catalog, fitted)
if table.empty:
    st.info("The accelerator catalog is empty; nothing to check.")
    st.stop()
headline(arch, fitted, table, precision, context, sequences)
st.subheader("Which accelerators fit, and how many per replica")
ui.show_table(
    model.fit_table(table),
    key="fit_table",
    Why=st.column_config.TextColumn("Why", width="large"),
)
chosen["explain"] = explain(table, fitted, start["explain"])
ui.keep_in_url(chosen, INPUTS)
breakdown(table, fitted, arch, precision, context, sequences)
