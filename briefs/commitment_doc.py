"""How much to commit, as a document section and as data: the brief, the Scenarios page and
``tokendesk commit`` show the same figures."""

from __future__ import annotations

from briefs.document import Bullets, Paragraph, Section, table
from costmodel.commit_levels import option_rows, recommendation_sentence
from costmodel.commitment_workspace import WorkloadCommitment, brief_rows
from costmodel.workspace_model import Workspace

BASIS = (
    "each option is priced over 36 months of demand (a 1-year commitment renewed at the same"
    " level): the fleet's commitments still in term carry need first and are paid whatever is"
    " decided; new committed units are paid every hour; the rest is bought on demand hour by hour"
    " in whole units; options run over every whole unit up to the horizon's peak need, each"
    " labelled with its share of the stated month-1 mean need; regret = the option's cost − the"
    " cheapest option's cost in the same scenario; break-even utilisation = committed rate ÷"
    " on-demand rate"
)


def commitment_section(analysis: list[WorkloadCommitment]) -> Section:
    """The analysis as a document section (for the brief)."""
    rows, sentences = brief_rows(analysis)
    return Section(
        "How much to commit",
        (
            Paragraph(BASIS[0].upper() + BASIS[1:] + "."),
            Bullets(tuple(sentences)),
            table("Commitment options under demand uncertainty", rows, sheet="Commitment"),
        ),
    )


def commitment_json(ws: Workspace, analysis: list[WorkloadCommitment]) -> dict:
    """The analysis as data (``tokendesk commit --format json``)."""
    workloads = []
    for a in analysis:
        entry: dict = {
            "workload": a.workload,
            "provider": a.provider,
            "region": a.region,
            "instance_type": a.instance_type,
            "unit_output_tok_s": round(a.unit_output_tok_s, 2),
            "notes": list(a.notes),
        }
        if a.result is not None:
            p, r = a.result.problem, a.result
            entry |= {
                "on_demand_usd_per_unit_hour": p.on_demand_usd_per_unit_hour,
                "on_demand_basis": a.on_demand_basis,
                "terms": [
                    {
                        "term": t.name,
                        "usd_per_unit_hour": round(t.usd_per_unit_hour, 4),
                        "basis": t.basis,
                        "break_even_utilisation": round(
                            t.usd_per_unit_hour / p.on_demand_usd_per_unit_hour, 4
                        ),
                    }
                    for t in p.terms
                ],
                "mean_units_needed_month_1": round(p.mean_units, 3),
                "peak_units_needed_over_horizon": p.peak_units,
                "held_commitments": [
                    {
                        "line": h.line,
                        "count": h.count,
                        "units": round(h.units, 3),
                        "term_end": h.term_end.isoformat() if h.term_end else None,
                        "usd_per_month": round(h.usd_per_month, 2),
                    }
                    for h in p.held_commitments
                ],
                "held_units_by_month": [round(u, 3) for u in p.held],
                "scenarios": [
                    {
                        "name": s.name,
                        "probability": s.probability,
                        "demand_factor": s.demand_factor,
                        "growth_per_quarter": p.growth(s),
                    }
                    for s in p.scenarios
                ],
                "scenarios_basis": (
                    "default assumption: no growth / the stated growth / twice it (25/50/25%)"
                    if a.default_scenarios
                    else "the workspace's commitment scenarios"
                ),
                "options": option_rows(r),
                "recommended": r.recommended.label,
                "least_worst_regret": r.least_regret.label,
                "recommendation": recommendation_sentence(a.workload, r),
            }
        workloads.append(entry)
    return {"workspace": ws.name, "basis": BASIS, "workloads": workloads}
