"""How much capacity to commit, and for how long, when demand is uncertain.

One workload, one purchasable unit (an instance at its at-SLO capacity), an on-demand rate ``p``
and a committed rate ``c_t`` per term ``t`` (1 year, 3 years). Demand is a set of scenarios, each
with a probability, a level (``demand_factor`` × the stated demand) and a quarterly growth; the
hour-by-hour need of month ``m`` in scenario ``s`` is

    D_h(s, m) = units_h × demand_factor_s × (1 + g_s)^⌊(m − 1) / 3⌋     (units_h: month 1, stated)

Committing ``R`` whole units (a level ``f`` of the stated mean need, ``R = round(f × mean_h
units_h)``) and buying the rest on demand by the hour, month ``m`` costs

    cost(R, s, m) = R × c_t × 730 + p × 730 / 24 × Σ_h ⌈max(0, D_h(s, m) − R)⌉

and the figure compared is its mean over the horizon (36 months; a 1-year commitment is renewed
at the same level each year, so every option is compared over the same months). Then, per option
(term, level):

* **expected cost** = Σ_s P(s) × cost(R, s);
* **regret** in scenario ``s`` = cost(R, s) − the cheapest option's cost in ``s`` (what hindsight
  would have saved); the expected and the worst regret are both reported;
* **break-even utilisation** = c_t ÷ p: a committed unit pays for itself once it is busy more than
  this share of the hours (u* = 1 − discount).

Levels that round to the same whole units are one option, listed at the lowest level.

The recommendation is the option with the least expected cost (the shorter term, then the smaller
commitment, on a tie); the option with the least worst-case regret is shown beside it.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from costmodel.demand import HOURS_PER_MONTH

#: Shares of the stated mean need that may be committed.
LEVELS = (0.0, 0.25, 0.5, 0.75, 1.0)
HORIZON_MONTHS = 36
_EPS = 1e-9


@dataclass(frozen=True)
class DemandScenario:
    """One way demand may turn out."""

    name: str
    probability: float
    #: Month-1 demand ÷ the workspace's stated demand.
    demand_factor: float = 1.0
    #: Growth per quarter for every workload; None = each workload's own.
    growth_per_quarter: float | None = None


@dataclass(frozen=True)
class CommitmentInputs:
    """The workspace's ``commitment`` block: demand scenarios and the committed discounts to use
    where no committed price is known."""

    scenarios: tuple[DemandScenario, ...] = ()
    discount_1y: float | None = None
    discount_3y: float | None = None


def default_scenarios(base_growth: float) -> tuple[DemandScenario, ...]:
    """Stated assumption where a workspace gives none: no growth, the stated growth, twice it."""
    return (
        DemandScenario("low (no growth)", 0.25, 1.0, 0.0),
        DemandScenario("base (stated growth)", 0.5, 1.0, None),
        DemandScenario("high (twice the growth)", 0.25, 1.0, 2 * base_growth),
    )


@dataclass(frozen=True)
class Term:
    name: str  # "1y" | "3y"
    months: int
    usd_per_unit_hour: float
    #: Where the committed rate comes from (a price, a fleet line, a stated discount).
    basis: str = ""


@dataclass(frozen=True)
class CommitmentProblem:
    on_demand_usd_per_unit_hour: float
    terms: tuple[Term, ...]
    #: Units needed in each hour of month 1's average day at the stated demand (24 values).
    units_by_hour: tuple[float, ...]
    #: The workload's own quarterly growth (for scenarios that state none).
    growth_per_quarter: float
    scenarios: tuple[DemandScenario, ...]
    levels: tuple[float, ...] = LEVELS
    horizon_months: int = HORIZON_MONTHS

    def __post_init__(self) -> None:
        if not self.on_demand_usd_per_unit_hour > 0:
            raise ValueError("the on-demand rate must be positive")
        if not self.scenarios:
            raise ValueError("give at least one demand scenario")
        total = sum(s.probability for s in self.scenarios)
        if abs(total - 1.0) > 1e-6:
            raise ValueError(f"scenario probabilities add up to {total:g}; they must add up to 1")
        if not self.units_by_hour or min(self.units_by_hour) < 0:
            raise ValueError("units_by_hour needs non-negative hourly figures")

    @property
    def mean_units(self) -> float:
        return float(np.mean(self.units_by_hour))

    def growth(self, s: DemandScenario) -> float:
        return self.growth_per_quarter if s.growth_per_quarter is None else s.growth_per_quarter


@dataclass(frozen=True)
class OptionOutcome:
    """One commitment option (term × level) across the scenarios."""

    term: str  # "none" for no commitment
    level: float
    committed_units: int
    usd_per_unit_hour: float | None
    #: Mean monthly cost over the horizon, per scenario (same order as the problem's).
    monthly_usd_by_scenario: tuple[float, ...]
    expected_monthly_usd: float
    regret_by_scenario: tuple[float, ...]
    expected_regret_usd: float
    max_regret_usd: float
    #: Committed rate ÷ on-demand rate (None for no commitment).
    break_even_utilisation: float | None
    #: Expected share of committed unit-hours in use.
    expected_utilisation: float | None

    @property
    def label(self) -> str:
        if self.term == "none":
            return "No commitment (all on demand)"
        return f"Commit {_units(self.committed_units)} ({self.level:.0%}) for {self.term}"


def _units(n: int) -> str:
    return f"{n} unit" if n == 1 else f"{n} units"


@dataclass(frozen=True)
class CommitmentResult:
    problem: CommitmentProblem
    options: tuple[OptionOutcome, ...]
    recommended: OptionOutcome
    least_regret: OptionOutcome

    @property
    def no_commitment(self) -> OptionOutcome:
        return next(o for o in self.options if o.term == "none")


def monthly_cost(
    committed_units: int, committed_rate: float, on_demand_rate: float, need_by_hour: np.ndarray
) -> float:
    """One month: committed units all month, whole on-demand units each hour for the rest."""
    burst = np.ceil(np.maximum(0.0, need_by_hour - committed_units) - _EPS).clip(min=0)
    hours_per_day_slot = HOURS_PER_MONTH / len(need_by_hour)
    return float(
        committed_units * committed_rate * HOURS_PER_MONTH
        + on_demand_rate * hours_per_day_slot * burst.sum()
    )


def _need(problem: CommitmentProblem, s: DemandScenario, month: int) -> np.ndarray:
    factor = s.demand_factor * (1.0 + problem.growth(s)) ** ((month - 1) // 3)
    return np.asarray(problem.units_by_hour, dtype=float) * factor


def _mean_cost(problem: CommitmentProblem, s: DemandScenario, units: int, rate: float) -> float:
    months = range(1, problem.horizon_months + 1)
    p = problem.on_demand_usd_per_unit_hour
    return float(np.mean([monthly_cost(units, rate, p, _need(problem, s, m)) for m in months]))


def _utilisation(problem: CommitmentProblem, units: int) -> float | None:
    if units <= 0:
        return None
    used = 0.0
    for s in problem.scenarios:
        months = range(1, problem.horizon_months + 1)
        busy = np.mean([np.minimum(_need(problem, s, m), units).mean() for m in months])
        used += s.probability * float(busy)
    return used / units


def committed_units(problem: CommitmentProblem, level: float) -> int:
    """Whole units for a level of the stated mean need (halves round up)."""
    return int(math.floor(level * problem.mean_units + 0.5))


def evaluate(problem: CommitmentProblem) -> CommitmentResult:
    """Every option's expected cost and regret, and the recommendation (module docstring)."""
    p = problem.on_demand_usd_per_unit_hour
    plans: list[tuple[str, float, int, float | None]] = [("none", 0.0, 0, None)]
    for term in problem.terms:
        seen = {0}
        for level in problem.levels:
            # Levels that round to the same whole units are one commitment, listed at the lowest.
            units = committed_units(problem, level)
            if units not in seen:
                seen.add(units)
                plans.append((term.name, level, units, term.usd_per_unit_hour))
    costs = np.array(
        [
            [_mean_cost(problem, s, units, rate or 0.0) for s in problem.scenarios]
            for _, _, units, rate in plans
        ]
    )
    probs = np.array([s.probability for s in problem.scenarios])
    best = costs.min(axis=0)
    outcomes = []
    for (name, level, units, rate), row in zip(plans, costs, strict=True):
        regret = row - best
        outcomes.append(
            OptionOutcome(
                term=name,
                level=level,
                committed_units=units,
                usd_per_unit_hour=rate,
                monthly_usd_by_scenario=tuple(float(v) for v in row),
                expected_monthly_usd=float(probs @ row),
                regret_by_scenario=tuple(float(v) for v in regret),
                expected_regret_usd=float(probs @ regret),
                max_regret_usd=float(regret.max()),
                break_even_utilisation=None if rate is None else rate / p,
                expected_utilisation=_utilisation(problem, units),
            )
        )
    order = {t.name: i for i, t in enumerate(problem.terms)}
    order["none"] = -1

    def tie_break(o: OptionOutcome) -> tuple:
        return (order[o.term], o.committed_units)

    recommended = min(outcomes, key=lambda o: (round(o.expected_monthly_usd, 6), tie_break(o)))
    least_regret = min(outcomes, key=lambda o: (round(o.max_regret_usd, 6), tie_break(o)))
    return CommitmentResult(problem, tuple(outcomes), recommended, least_regret)


def recommendation_sentence(workload: str, result: CommitmentResult) -> str:
    """One sentence a brief or a page prints for a workload."""
    r, none = result.recommended, result.no_commitment
    if r.term == "none":
        return (
            f"{workload}: commit nothing; all on demand is cheapest in expectation"
            f" (${r.expected_monthly_usd:,.0f}/month over {result.problem.horizon_months} months)."
        )
    saving = none.expected_monthly_usd - r.expected_monthly_usd
    worst = int(np.argmax(r.regret_by_scenario))
    regret = (
        "no regret in any scenario"
        if r.max_regret_usd < 0.5
        else f"worst regret ${r.max_regret_usd:,.0f}/month (if demand turns out"
        f" {result.problem.scenarios[worst].name})"
    )
    top = (
        "; this is the top of the range asked, so committing more may pay too"
        if r.committed_units == committed_units(result.problem, max(result.problem.levels))
        else ""
    )
    return (
        f"{workload}: commit {_units(r.committed_units)} ({r.level:.0%} of the stated mean need)"
        f" for {r.term} at ${r.usd_per_unit_hour:,.2f}/unit-hour: expected"
        f" ${r.expected_monthly_usd:,.0f}/month over {result.problem.horizon_months} months of"
        f" demand, ${saving:,.0f}/month less than all on demand; break-even utilisation"
        f" {r.break_even_utilisation:.0%}, expected utilisation {r.expected_utilisation:.0%};"
        f" {regret}{top}."
    )


def option_rows(result: CommitmentResult) -> list[dict]:
    """One row per option, for a table (the CLI, the page, a brief section)."""
    names = [s.name for s in result.problem.scenarios]
    rows = []
    for o in result.options:
        row: dict = {
            "option": o.label,
            "term": o.term,
            "level": o.level,
            "committed_units": o.committed_units,
            "committed_usd_per_unit_hour": o.usd_per_unit_hour,
            "break_even_utilisation": o.break_even_utilisation,
            "expected_utilisation": o.expected_utilisation,
            "expected_monthly_usd": round(o.expected_monthly_usd, 2),
            "expected_regret_usd": round(o.expected_regret_usd, 2),
            "max_regret_usd": round(o.max_regret_usd, 2),
        }
        for name, cost in zip(names, o.monthly_usd_by_scenario, strict=True):
            row[f"monthly_usd_{name}"] = round(cost, 2)
        rows.append(row)
    return rows


def terms_from(
    on_demand: float,
    committed: Sequence[tuple[str, int, float | None, str]],
    discounts: dict[str, float | None],
) -> tuple[tuple[Term, ...], list[str]]:
    """Terms with a committed rate: the priced one, else on-demand × (1 − the stated discount).
    Returns the terms and a note for each term with neither."""
    terms, missing = [], []
    for name, months, price, basis in committed:
        if price is not None:
            terms.append(Term(name, months, price, basis))
            continue
        discount = discounts.get(name)
        if discount is None:
            missing.append(
                f"no {name} committed price known; give commitment.discount_{name} in the workspace"
            )
            continue
        terms.append(
            Term(
                name,
                months,
                on_demand * (1.0 - discount),
                f"on-demand × (1 − {discount:.0%}), the workspace's stated {name} discount",
            )
        )
    return tuple(terms), missing
