"""The words a person reads in place of the ids the data stores: one table, used by the CLI, the
dashboard and the briefs alike ("on_demand" is stored; "On demand" is shown)."""

from __future__ import annotations

#: Stored id -> what a person reads. Pricing models, backends, fleet roles and solver words.
LABELS: dict[str, str] = {
    # pricing models
    "on_demand": "On demand",
    "spot": "Spot",
    "reserved_1y": "Reserved 1 yr",
    "reserved_3y": "Reserved 3 yr",
    "savings_plan_1y": "Savings plan 1 yr",
    "savings_plan_3y": "Savings plan 3 yr",
    "committed_use_1y": "Committed use 1 yr",
    "committed_use_3y": "Committed use 3 yr",
    "capacity_block": "Capacity block",
    "negotiated": "Negotiated",
    "owned": "Owned",
    # software backends (what a fleet runs on)
    "cuda": "CUDA (NVIDIA)",
    "rocm": "ROCm (AMD)",
    "hpu": "Gaudi (Intel)",
    "xla": "XLA (Google TPU)",
    "neuron": "Neuron (AWS)",
    "qaic": "Cloud AI 100 (Qualcomm)",
    "cpu": "CPU",
    # the fleet that runs today
    "incumbent": "current fleet",
    # how a price is quoted
    "per_accelerator": "per accelerator",
}


#: Columns whose cells are stored ids a person reads as labels (in a table's raw or shown name).
LABELLED_COLUMNS = frozenset(
    {"pricing_model", "pricing model", "pricing", "backend", "incumbent backend", "basis"}
)


def labelled_column(name: object) -> bool:
    """Whether a column of this name holds ids shown as their labels."""
    return str(name).strip().lower() in LABELLED_COLUMNS


def label(value: object) -> str:
    """What a person reads for a stored id: its label (also at the head of a longer text), else
    the text as it is (never an error — a provider's own region or instance name is already the
    word people use)."""
    text = "" if value is None else str(value)
    if text in LABELS:
        return LABELS[text]
    # An id followed by the rule that sized it ("on_demand held at peak", "reserved_1y base of
    # 3 …"), as the cost model writes a new line's pricing: the id reads as its label there too.
    head, space, rest = text.partition(" ")
    return f"{LABELS[head]}{space}{rest}" if space and head in LABELS else text


def solver_gap(gap: float | None) -> str:
    """The solver's optimality gap in words: "proven cheapest" at zero, else how far from proven.
    ``gap`` is a fraction (0.001 = 0.1%)."""
    if gap is None:
        return "optimality not proven"
    if gap <= 1e-9:
        return "proven cheapest (no cheaper plan exists under these constraints)"
    return f"within {gap * 100:.2g}% of the cheapest possible plan"


def sku_label(
    provider: object,
    region: object = None,
    instance_type: object = None,
    pricing_model: object = None,
    *,
    count: object = None,
    zone: object = None,
) -> str:
    """One SKU in words, in one order everywhere: ``[count ×] provider · region [(zone)] ·
    instance type · pricing model`` (the pricing model as its label). A part given as None or
    empty is left out, so a surface without a region or a pricing model keeps the same order."""
    where = "" if region is None else str(region)
    if where and zone is not None and str(zone):
        where += f" ({zone})"
    parts = [str(provider), where, "" if instance_type is None else str(instance_type)]
    if pricing_model is not None:
        parts.append(label(pricing_model))
    text = " · ".join(part for part in parts if part)
    return text if count is None else f"{count} × {text}"
