"""How much to commit, as a document section, as Markdown and as table rows: the brief, the
Scenarios page and ``tokendesk commit`` show the commitments on the optimizer's cheapest path over
the horizon (``planning.commitment``), the same solution ``tokendesk optimize`` shows."""

from __future__ import annotations

from briefs.document import Block, Bullets, Paragraph, Section, table
from costmodel.commit_levels import AT_END
from planning.commitment import BASIS, PlannedCommitments
from tokendesk.labels import sku_label


def basis_sentence(plan: PlannedCommitments) -> str:
    """The basis in words, with the workspace's on-demand basis and what a held commitment does
    when it ends."""
    return (
        f"{BASIS[0].upper()}{BASIS[1:]}. On-demand basis: {plan.on_demand_basis}; a held"
        f" commitment, when it ends, is {AT_END.get(plan.at_end, plan.at_end)}"
        f" (commitment.at_end: {plan.at_end}). Scenarios: {plan.scenarios_basis}."
    )


def commitment_table_rows(plan: PlannedCommitments) -> list[dict]:
    """One row per commitment on the path: what the fleet holds and each new commitment."""
    rows = []
    for r in plan.rows:
        held = r["kind"] == "held"
        rows.append(
            {
                "Workload": r["workload"],
                "Commitment": ("Held: " if held else "New: ")
                + sku_label(r["provider"], r["region"], r["instance_type"], r["pricing_model"]),
                "Units": r["units"],
                "Months": f"{r['from_month']}–{r['until_month']}",
                "Term": "to "
                + (r["commitment_end"] or f"month {r['until_month']}")
                + f"; {r['units_after_end']} kept after it"
                if held
                else f"{r['term_months'] // 12} year{'s' if r['term_months'] > 12 else ''}"
                + _after_horizon(r),
            }
        )
    return rows


def _after_horizon(row: dict) -> str:
    """A term that runs past the horizon: its real end and what is owed after the horizon."""
    if not row.get("months_after_horizon"):
        return ""
    return f" (to month {row['ends_month']}; ${row['usd_after_horizon']:,.0f} after the horizon)"


def scenario_table_rows(plan: PlannedCommitments) -> list[dict]:
    """One row per demand scenario: the new units the path commits under it."""
    return [
        {
            "Scenario": r["scenario"],
            "Probability": f"{r['probability']:.0%}",
            "Demand × month 1": f"{r['demand_factor']:g}",
            "Growth / quarter": r["growth_per_quarter"],
            "New commitments over the horizon": r["new_commitments"],
            "New in month 1": r["new_in_month_1"],
            "Horizon $": "no path" if r["horizon_usd"] is None else f"{r['horizon_usd']:,.2f}",
        }
        for r in plan.scenario_rows()
    ]


def commitment_section(plan: PlannedCommitments) -> Section:
    """The commitments as a document section (for the brief)."""
    blocks: list[Block] = [
        Paragraph(basis_sentence(plan)),
        Bullets(tuple(plan.summary()) + tuple(plan.scenario_sentences())),
        table("Commitments on the cheapest path", commitment_table_rows(plan), sheet="Commitment"),
    ]
    if plan.scenarios:
        blocks.append(
            table(
                "Commitments under the demand scenarios",
                scenario_table_rows(plan),
                sheet="Commitment scenarios",
            )
        )
    return Section("How much to commit", tuple(blocks))


def _markdown_table(rows: list[dict]) -> list[str]:
    if not rows:
        return []
    return [
        "| " + " | ".join(rows[0]) + " |",
        "|" + "---|" * len(rows[0]),
        *("| " + " | ".join(str(v) for v in r.values()) + " |" for r in rows),
    ]


def commitment_markdown(plan: PlannedCommitments) -> str:
    """``tokendesk commit --format md``."""
    lines = [f"# How much to commit: {plan.workspace}", "", basis_sentence(plan), ""]
    lines += [f"- {s}" for s in plan.summary()]
    lines += ["", "## On the cheapest path", "", *_markdown_table(commitment_table_rows(plan))]
    if plan.scenarios:
        lines += ["", f"## Under the demand scenarios ({plan.scenarios_basis})", ""]
        lines += [f"- {s}" for s in plan.scenario_sentences()]
        lines += ["", *_markdown_table(scenario_table_rows(plan))]
    return "\n".join(lines) + "\n"
