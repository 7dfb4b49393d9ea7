"""How much capacity to commit, and for how long, when demand is uncertain.

One workload, one purchasable unit (an instance at its at-SLO capacity), an on-demand rate ``p``
and a committed rate ``c_t`` per term ``t`` (1 year, 3 years). Demand is a set of scenarios, each
with a probability, a level (``demand_factor`` × the stated demand) and a quarterly growth; the
hour-by-hour need of month ``m`` in scenario ``s`` is

    D_h(s, m) = units_h × demand_factor_s × (1 + g_s)^⌊(m − 1) / 3⌋     (units_h: month 1, stated)

The fleet may already hold committed capacity: ``K_m`` units (in the same unit's capacity) whose
term covers month ``m``, paid ``k_m`` a month whatever is decided. They carry need first. Committing
``R`` more whole units and buying the rest on demand by the hour, month ``m`` costs

    cost(R, s, m) = k_m + R × c_t × 730 + p × 730 / 24 × Σ_h ⌈max(0, D_h(s, m) − K_m − R)⌉

and the figure compared is its mean over the horizon (36 months; a 1-year commitment is renewed
at the same level each year, so every option is compared over the same months). ``R`` runs over
every whole number of units from 0 to the horizon's peak need net of what is held (the busiest
hour of the busiest month of any scenario, rounded up), so the cheapest whole commitment is
always among the options. Each is labelled with its true share of the stated month-1 mean need
(3 units of a 3.5-unit mean need is 86%). Then, per option (term, units):

* **expected cost** = Σ_s P(s) × cost(R, s);
* **regret** in scenario ``s`` = cost(R, s) − the cheapest option's cost in ``s`` (what hindsight
  would have saved); the expected and the worst regret are both reported;
* **break-even utilisation** = c_t ÷ p: a committed unit pays for itself once it is busy more than
  this share of the hours (u* = 1 − discount).

The recommendation is the option with the least expected cost (the shorter term, then the smaller
commitment, on a tie); the option with the least worst-case regret is shown beside it.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import date

import numpy as np

from costmodel.demand import HOURS_PER_MONTH

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
    #: What happens when a commitment the fleet holds ends (``AT_END``), in Stay, every plan,
    #: ``commit`` and the optimizer alike.
    at_end: str = "renew"
    #: Yearly rate the horizon total is discounted at (0: plain sum of the months).
    discount_rate_per_year: float = 0.0


#: What happens when a held commitment ends: renewed at its effective rate, lapsed to the list
#: on-demand price, or whichever of the two (or releasing the units) the optimizer finds cheaper.
AT_END = {
    "renew": "renewed at the effective rate it has today",
    "lapse": "lapsed to the list on-demand price",
    "optimize": "renewed, lapsed to list or released, as the optimizer finds cheapest",
}


def default_scenarios(base_growth: float) -> tuple[DemandScenario, ...]:
    """Stated assumption where a workspace gives none: no growth, the stated growth, twice it."""
    return (
        DemandScenario("low (no growth)", 0.25, 1.0, 0.0),
        DemandScenario("base (stated growth)", 0.5, 1.0, None),
        DemandScenario("high (twice the growth)", 0.25, 1.0, 2 * base_growth),
    )


@dataclass(frozen=True)
class HeldCommitment:
    """Committed capacity the fleet already holds for the workload."""

    #: The fleet line, in words (provider, instance type, pricing model).
    line: str
    count: int
    #: Its capacity in units of the analysis (an identical unit counts 1).
    units: float
    term_end: date | None
    usd_per_month: float

    def describe(self) -> str:
        end = f"until {self.term_end.isoformat()}" if self.term_end else "with no end date"
        same = abs(self.units - self.count) < 1e-6
        size = "" if same else f" (the capacity of {_units(self.units)})"
        # No money here: the commitment is paid whatever is decided, and its rate may be a
        # negotiated one that not every reader may see.
        return f"{self.count} × {self.line} {end}{size}"


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
    horizon_months: int = HORIZON_MONTHS
    #: Units already committed in each month of the horizon (0 once their term ends), in the
    #: unit's capacity; empty = none held.
    held_units_by_month: tuple[float, ...] = ()
    #: What the held commitments cost in each month of the horizon (paid whatever is decided).
    held_usd_by_month: tuple[float, ...] = ()
    #: The held commitments themselves, for the reader.
    held_commitments: tuple[HeldCommitment, ...] = ()

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
        for name in ("held_units_by_month", "held_usd_by_month"):
            given = getattr(self, name)
            if given and len(given) != self.horizon_months:
                raise ValueError(f"{name} needs one figure per month of the horizon")

    @property
    def mean_units(self) -> float:
        """The stated month-1 mean need, in units (what every level is a share of)."""
        return float(np.mean(self.units_by_hour))

    @property
    def held(self) -> np.ndarray:
        """Units held in each month of the horizon."""
        if not self.held_units_by_month:
            return np.zeros(self.horizon_months)
        return np.asarray(self.held_units_by_month, dtype=float)

    @property
    def held_usd(self) -> np.ndarray:
        if not self.held_usd_by_month:
            return np.zeros(self.horizon_months)
        return np.asarray(self.held_usd_by_month, dtype=float)

    def need(self, s: DemandScenario) -> np.ndarray:
        """Units needed in each month (rows) and hour of the day (columns) in scenario ``s``."""
        months = np.arange(self.horizon_months)
        factor = s.demand_factor * (1.0 + self.growth(s)) ** (months // 3)
        return factor[:, None] * np.asarray(self.units_by_hour, dtype=float)[None, :]

    def net_need(self, s: DemandScenario) -> np.ndarray:
        """The need the held commitments leave over, by month and hour."""
        return np.maximum(0.0, self.need(s) - self.held[:, None])

    @property
    def peak_units(self) -> int:
        """The horizon's peak need net of what is held, in whole units: the most worth
        committing (a unit above it would idle every hour of every scenario)."""
        peak = max(float(self.net_need(s).max()) for s in self.scenarios)
        return max(0, math.ceil(peak - _EPS))

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

    #: Units the fleet already holds in month 1 (counted before these).
    held_units: float = 0.0

    @property
    def label(self) -> str:
        if self.term == "none":
            if self.held_units > _EPS:
                return "No new commitment (held units, the rest on demand)"
            return "No commitment (all on demand)"
        more = " more" if self.held_units > _EPS else ""
        return f"Commit {_units(self.committed_units)}{more} ({self.level:.0%}) for {self.term}"


def _units(n: float) -> str:
    text = f"{n:g}" if n == int(n) else f"{n:,.1f}"
    return f"{text} unit" if n == 1 else f"{text} units"


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


#: Unit levels costed at once: a block of levels holds levels × months × day slots numbers.
_LEVELS_PER_BLOCK = 64


def _by_level(net: np.ndarray, peak: int) -> tuple[np.ndarray, np.ndarray]:
    """For 0..``peak`` more units committed, over the net need ``net`` (months × day slots):
    the mean over the months of each month's whole on-demand units summed over the day slots,
    and the mean units in use of those committed (the held units carry the need first)."""
    burst_means, used_means = [], []
    for first in range(0, peak + 1, _LEVELS_PER_BLOCK):
        units = np.arange(first, min(peak, first + _LEVELS_PER_BLOCK - 1) + 1, dtype=float)
        levels = units[:, None, None]
        burst = np.ceil(np.maximum(0.0, net[None] - levels) - _EPS).clip(min=0)
        burst_means.append(burst.sum(axis=2).mean(axis=1))
        used_means.append(np.minimum(net[None], levels).mean(axis=(1, 2)))
    return np.concatenate(burst_means), np.concatenate(used_means)


def _utilisation(
    problem: CommitmentProblem, levels: list[tuple[np.ndarray, np.ndarray]], units: int
) -> float | None:
    """Expected share of the new committed unit-hours in use (the held units carry need first)."""
    if units <= 0:
        return None
    used = sum(
        s.probability * float(in_use[units])
        for s, (_, in_use) in zip(problem.scenarios, levels, strict=True)
    )
    return used / units


def committed_units(problem: CommitmentProblem, level: float) -> int:
    """Whole units for a share of the stated month-1 mean need (halves round up)."""
    return int(math.floor(level * problem.mean_units + 0.5))


def share_of_mean_need(problem: CommitmentProblem, units: float) -> float:
    """``units`` as a share of the stated month-1 mean need (3 of 3.5 units is 86%)."""
    return units / problem.mean_units if problem.mean_units > _EPS else 0.0


def evaluate(problem: CommitmentProblem) -> CommitmentResult:
    """Every option's expected cost and regret, and the recommendation (module docstring)."""
    p = problem.on_demand_usd_per_unit_hour
    plans: list[tuple[str, int, float | None]] = [("none", 0, None)]
    for term in problem.terms:
        plans += [(term.name, k, term.usd_per_unit_hour) for k in range(1, problem.peak_units + 1)]
    nets = [problem.net_need(s) for s in problem.scenarios]
    probs = np.array([s.probability for s in problem.scenarios])
    # A month's cost is held + units × rate × hours + the on-demand rate × slot hours × the
    # slots' burst units; its mean over the months is taken term by term, each level's burst once.
    levels = [_by_level(net, problem.peak_units) for net in nets]
    slot = HOURS_PER_MONTH / nets[0].shape[1] if nets else 0.0
    held_mean = float(problem.held_usd.mean()) if problem.horizon_months else 0.0
    costs = np.array(
        [
            [
                held_mean + units * (rate or 0.0) * HOURS_PER_MONTH + p * slot * float(burst[units])
                for burst, _ in levels
            ]
            for _, units, rate in plans
        ]
    )
    best = costs.min(axis=0)
    held_now = float(problem.held[0]) if problem.horizon_months else 0.0
    outcomes = []
    for (name, units, rate), row in zip(plans, costs, strict=True):
        regret = row - best
        outcomes.append(
            OptionOutcome(
                term=name,
                level=share_of_mean_need(problem, units),
                committed_units=units,
                usd_per_unit_hour=rate,
                monthly_usd_by_scenario=tuple(float(v) for v in row),
                expected_monthly_usd=float(probs @ row),
                regret_by_scenario=tuple(float(v) for v in regret),
                expected_regret_usd=float(probs @ regret),
                max_regret_usd=float(regret.max()),
                break_even_utilisation=None if rate is None else rate / p,
                expected_utilisation=_utilisation(problem, levels, units),
                held_units=held_now,
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
    """One sentence a brief or a page prints for a workload: what is already held (counted
    first), then what to commit on top of it."""
    r, none = result.recommended, result.no_commitment
    problem = result.problem
    held = problem.held_commitments
    already = (
        f"already holds {'; '.join(h.describe() for h in held)}, counted before anything more; "
        if held
        else ""
    )
    if r.term == "none":
        what = "commit nothing more" if held else "commit nothing"
        rest = "the rest on demand" if held else "all on demand"
        return (
            f"{workload}: {already}{what}; {rest} is cheapest in expectation"
            f" (${r.expected_monthly_usd:,.0f}/month over {problem.horizon_months} months)."
        )
    saving = none.expected_monthly_usd - r.expected_monthly_usd
    worst = int(np.argmax(r.regret_by_scenario))
    regret = (
        "no regret in any scenario"
        if r.max_regret_usd < 0.5
        else f"worst regret ${r.max_regret_usd:,.0f}/month (if demand turns out"
        f" {problem.scenarios[worst].name})"
    )
    top = (
        "; that covers the horizon's peak need, the most worth committing"
        if r.committed_units >= problem.peak_units
        else ""
    )
    more = " more" if held else ""
    baseline = "no new commitment" if held else "all on demand"
    return (
        f"{workload}: {already}commit {_units(r.committed_units)}{more} ({r.level:.0%} of the"
        f" stated month-1 mean need of {_units(round(problem.mean_units, 1))}) for {r.term} at"
        f" ${r.usd_per_unit_hour:,.2f}/unit-hour: expected ${r.expected_monthly_usd:,.0f}/month"
        f" over {problem.horizon_months} months of demand, ${saving:,.0f}/month less than"
        f" {baseline}; break-even utilisation {r.break_even_utilisation:.0%}, expected"
        f" utilisation {r.expected_utilisation:.0%}; {regret}{top}."
    )


#: Commitment levels a table lists in full; above it, the levels near the recommendation.
SHOWN_LEVELS = 12


def shown_options(result: CommitmentResult) -> tuple[OptionOutcome, ...]:
    """The options a table for people lists: every level up to ``SHOWN_LEVELS`` units or three
    above the recommendation and the least-regret option (whichever is more), and the horizon's
    peak; ``option_rows(result, every=True)`` has them all."""
    top = max(
        SHOWN_LEVELS,
        result.recommended.committed_units + 3,
        result.least_regret.committed_units + 3,
    )
    peak = result.problem.peak_units
    return tuple(o for o in result.options if o.committed_units <= top or o.committed_units == peak)


def hidden_levels_note(result: CommitmentResult) -> str:
    """What a table leaves out, in words ('' when nothing)."""
    hidden = len(result.options) - len(shown_options(result))
    if not hidden:
        return ""
    return (
        f"{hidden} further options (every whole unit up to the horizon's peak need of"
        f" {_units(result.problem.peak_units)}) cost more in expectation than the recommendation;"
        " `tokendesk commit --format json` lists them all"
    )


def option_rows(result: CommitmentResult, every: bool = True) -> list[dict]:
    """One row per option, for a table (the CLI, the page, a brief section); ``every=False``:
    only the ``shown_options``."""
    names = [s.name for s in result.problem.scenarios]
    rows = []
    for o in result.options if every else shown_options(result):
        row: dict = {
            "option": o.label,
            "term": o.term,
            "level": o.level,
            "share_of_month_1_mean_need": round(o.level, 4),
            "committed_units": o.committed_units,
            "held_units_month_1": round(o.held_units, 3),
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
