"""One rule for every verdict: keep, buy, no-buy or defer.

Every plan an evaluation holds — Stay, the moves, a custom mix and, where it was solved, the
optimal fleet — is compared on one basis: its horizon total, the 36 months with demand growing,
each commitment paid to its real end and then renewed or lapsed as the workspace states, one-time
costs in the month they fall (discounted at the workspace's rate, where it states one). It is the
total the optimizer minimises, so the cheapest plan named here and the optimum are read on one
scale. Month 1 and the run rate are shown beside it, never ranked on.

* a plan that leaves demand unserved is no-buy;
* a plan whose horizon total is no lower than Stay's is no-buy (at a tie it says so);
* a cheaper plan that breaks a workspace constraint is defer (settle the constraint first);
* the remaining plan with the lowest horizon total is buy (then Stay is no-buy); other cheaper
  plans are no-buy, the buy saves more; with no buy, Stay is keep;
* where estimated capacity gives the buy and Stay horizon bands that meet (the buy's high end
  reaches Stay's low end), both reasons add "fragile: within the estimate's band".

Futures day judges a new SKU against the incumbent with the same words (``new_sku_verdict``):
buy if it is cheaper per 1K output tokens by more than the savings threshold and its FTL is no
worse by more than the FTL threshold; defer if its FTL is unknown or nothing comparable runs on
the incumbent; no-buy otherwise.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from tokendesk.labels import label

KEEP_WORD, BUY_WORD, NO_BUY_WORD, DEFER_WORD = "keep", "buy", "no-buy", "defer"
VERDICT_WORDS = (BUY_WORD, NO_BUY_WORD, DEFER_WORD, KEEP_WORD)
#: Differences below a cent over the horizon are ties.
TIE_USD = 0.005
#: What a new SKU is compared against, in a person's words.
INCUMBENT = label("incumbent")


@dataclass(frozen=True)
class Contender:
    """What the rule reads of a plan."""

    name: str
    feasible: bool
    constraint_violations: tuple[str, ...]
    #: The horizon total (see the module docstring).
    horizon_usd: float
    is_baseline: bool
    unserved_tokens_per_month: float = 0.0
    payback_sentence: str = ""
    months: int = 36
    #: The horizon total at the low and high ends of its estimated lines' intervals (the same
    #: as ``horizon_usd`` where every line is measured).
    horizon_low: float | None = None
    horizon_high: float | None = None

    @property
    def usd_per_month(self) -> float:
        """The horizon total ÷ its months (the "$/month compared" column)."""
        return self.horizon_usd / self.months

    @property
    def band(self) -> tuple[float, float]:
        """(low, high) horizon total."""
        low = self.horizon_usd if self.horizon_low is None else self.horizon_low
        high = self.horizon_usd if self.horizon_high is None else self.horizon_high
        return low, high


#: Said of a ranking that could flip inside the estimated lines' intervals.
FRAGILE = "fragile: within the estimate's band"


def fragile(cheaper: Contender, dearer: Contender) -> bool:
    """Whether ``cheaper`` could cost more than ``dearer`` inside their intervals: the
    cheaper plan's high end reaches the dearer plan's low end."""
    return cheaper.band[1] >= dearer.band[0] - TIE_USD and (
        cheaper.band != (cheaper.horizon_usd,) * 2 or dearer.band != (dearer.horizon_usd,) * 2
    )


@dataclass(frozen=True)
class PlanVerdict:
    scenario: str
    verdict: str  # keep | buy | no-buy | defer
    reason: str
    #: The plan's cost per month on the compared basis, and its difference from Stay's.
    usd_per_month: float
    vs_stay_usd_per_month: float
    #: The plan's horizon total, and its difference from Stay's (what the rule ranks on).
    horizon_usd: float = 0.0
    vs_stay_horizon_usd: float = 0.0


def plan_verdicts(plans: Sequence[Contender]) -> list[PlanVerdict]:
    """keep / buy / no-buy / defer per plan (the rule in the module docstring)."""
    stay = next((p for p in plans if p.is_baseline), plans[0])
    base = stay.horizon_usd
    candidates = [
        p
        for p in plans
        if p is not stay
        and p.feasible
        and p.horizon_usd < base - TIE_USD
        and not p.constraint_violations
    ]
    best = min(candidates, key=lambda p: p.horizon_usd) if candidates else None
    out = []
    for p in plans:
        diff = p.horizon_usd - base
        over = f"over {p.months} months"
        if p is stay:
            verdict, reason = (
                (
                    NO_BUY_WORD,
                    f"{best.name} costs ${-(best.horizon_usd - base):,.0f} less {over}"
                    + (f" ({FRAGILE})" if fragile(best, stay) else ""),
                )
                if best
                else (KEEP_WORD, f"no other plan costs less {over} and serves the whole demand")
            )
        elif not p.feasible:
            verdict = NO_BUY_WORD
            reason = f"leaves {p.unserved_tokens_per_month:,.0f} output tokens a month unserved"
        elif abs(diff) < TIE_USD:
            verdict, reason = NO_BUY_WORD, f"costs the same as {stay.name} {over}"
        elif diff > 0:
            verdict, reason = NO_BUY_WORD, f"costs ${diff:,.0f} more than {stay.name} {over}"
        elif p.constraint_violations:
            verdict = DEFER_WORD
            reason = (
                f"${-diff:,.0f} less than {stay.name} {over}, but breaks a workspace constraint: "
                + p.constraint_violations[0]
            )
        elif p is best:
            verdict = BUY_WORD
            reason = (
                f"the cheapest plan that serves the demand, ${-diff:,.0f} below {stay.name} {over}"
            )
            if fragile(p, stay):
                reason += f" ({FRAGILE})"
            if p.payback_sentence:
                pays = p.payback_sentence.rstrip(".")
                reason += f"; {pays[:1].lower()}{pays[1:]}"
        else:
            verdict = NO_BUY_WORD
            assert best is not None  # p is cheaper, feasible and within the constraints
            if abs(p.horizon_usd - best.horizon_usd) < TIE_USD:
                reason = f"costs the same as {best.name} {over}, which is named first"
            else:
                reason = (
                    f"${-diff:,.0f} less than {stay.name} {over}, but {best.name} saves"
                    f" ${base - best.horizon_usd:,.0f}"
                )
        out.append(
            PlanVerdict(
                p.name,
                verdict,
                reason,
                p.usd_per_month,
                p.usd_per_month - stay.usd_per_month,
                p.horizon_usd,
                diff,
            )
        )
    return out


def decided_plan(verdicts: Sequence[PlanVerdict]) -> str:
    """The plan to act on: the one to buy, else the one to keep."""
    for word in (BUY_WORD, KEEP_WORD):
        for v in verdicts:
            if v.verdict == word:
                return v.scenario
    return verdicts[0].scenario


RULE_SENTENCE = " ".join((__doc__ or "").split("\n\n")[1].split())


# -- futures day: a new SKU against the incumbent ---------------------------------------------
def new_sku_verdict(
    cost_change: float | None,
    ftl_change: float | None,
    *,
    min_savings_pct: float,
    max_ftl_regression_pct: float,
    no_incumbent: str = "",
) -> tuple[str, str]:
    """buy / no-buy / defer for a new SKU, and the reason: ``cost_change`` and ``ftl_change`` are
    its $/1K output tokens and FTL relative to the incumbent's (None: nothing to compare with;
    ``no_incumbent`` then says why)."""
    if cost_change is None:
        return DEFER_WORD, no_incumbent
    if not cost_change < -min_savings_pct:
        return (
            NO_BUY_WORD,
            f"$/1K output {cost_change:+.1%} vs {INCUMBENT} (needs < -{min_savings_pct:.0%})",
        )
    if ftl_change is None:
        return (
            DEFER_WORD,
            f"$/1K output {cost_change:+.1%} vs {INCUMBENT}, but no FTL to compare: run the harness",
        )
    if ftl_change > max_ftl_regression_pct:
        return (
            NO_BUY_WORD,
            f"$/1K output {cost_change:+.1%} but FTL {ftl_change:+.1%} vs {INCUMBENT} "
            f"(max +{max_ftl_regression_pct:.0%})",
        )
    return BUY_WORD, f"$/1K output {cost_change:+.1%} and FTL {ftl_change:+.1%} vs {INCUMBENT}"


def new_sku_rule_sentence(
    fleet_labels: Sequence[str],
    incumbent_backends: Sequence[str],
    min_savings_pct: float,
    max_ftl_regression_pct: float,
    *,
    allow_spot: bool = False,
    approved_providers: Sequence[str] | None = None,
) -> str:
    """``new_sku_verdict`` in words: what a new SKU is compared against (the company's fleet
    lines, else the incumbent backends), on which terms, from which providers, and the
    thresholds."""
    return _rule_head(fleet_labels, incumbent_backends, min_savings_pct, max_ftl_regression_pct) + (
        " Prices are compared on the same terms: on demand against on demand or a line's"
        " effective rate, a line's own terms against those terms, and "
        + (
            "spot prices too, as the workspace allows spot."
            if allow_spot
            else "no spot price (the workspace does not allow spot)."
        )
        + (
            f" Only approved providers ({', '.join(approved_providers)}) are suggested."
            if approved_providers
            else ""
        )
    )


def _rule_head(
    fleet_labels: Sequence[str],
    incumbent_backends: Sequence[str],
    min_savings_pct: float,
    max_ftl_regression_pct: float,
) -> str:
    return (
        (
            "Against your own fleet at the rates you pay (" + "; ".join(fleet_labels) + "): buy "
            if fleet_labels
            else f"Against the incumbent ({', '.join(incumbent_backends)}): buy "
        )
        + "if $/1K output tokens is lower by "
        f"more than {min_savings_pct:.0%} and FTL is no more than "
        f"{max_ftl_regression_pct:.0%} "
        "worse; defer when FTL is unknown or nothing comparable runs on the "
        "incumbent; no-buy otherwise."
    )
