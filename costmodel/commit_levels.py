"""The workspace's commitment assumptions: demand scenarios, committed discounts where no
committed price is known, what happens when a held commitment ends, and the rate the horizon total
is discounted at. One set, used by Stay, every plan, ``commit`` and the optimizer alike; how much to
commit is read off the optimizer's path over the horizon (``planning.commitment``)."""

from __future__ import annotations

from dataclasses import dataclass

from tokendesk.records import PricingModel


@dataclass(frozen=True)
class DemandScenario:
    """One way demand may turn out."""

    name: str
    probability: float
    #: Month-1 demand ÷ the workspace's stated demand.
    demand_factor: float = 1.0
    #: Growth per quarter for every workload; None = each workload's own.
    growth_per_quarter: float | None = None
    #: The growth above × this (the default high scenario: twice each workload's own growth).
    growth_multiplier: float = 1.0


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


def default_scenarios() -> tuple[DemandScenario, ...]:
    """Stated assumption where a workspace gives none: no growth, each workload's stated growth,
    twice it."""
    return (
        DemandScenario("low (no growth)", 0.25, 1.0, 0.0),
        DemandScenario("base (stated growth)", 0.5, 1.0, None),
        DemandScenario("high (twice the growth)", 0.25, 1.0, None, 2.0),
    )


#: Committed pricing models by term, as the option table and the fleet spell them.
TERM_MODELS = {
    "1y": (
        PricingModel.RESERVED_1Y.value,
        PricingModel.SAVINGS_PLAN_1Y.value,
        PricingModel.COMMITTED_USE_1Y.value,
    ),
    "3y": (
        PricingModel.RESERVED_3Y.value,
        PricingModel.SAVINGS_PLAN_3Y.value,
        PricingModel.COMMITTED_USE_3Y.value,
    ),
}
