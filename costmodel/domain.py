"""One input domain: the bounds of every number a person can enter, defined once.

The dashboard's widgets take their min/max/step from here, the URL validator rejects a shared link's
value outside them (falling back with a notice), the workspace validator names the field that is out
of range, and the model checks the same bounds — so no value the UI accepts can crash the model.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from tokendesk.textsafety import excerpt


@dataclass(frozen=True)
class Bound:
    """Inclusive [low, high] for one input, with the widget step and why the limit is there."""

    key: str
    label: str
    low: float
    high: float
    step: float
    why: str = ""

    @property
    def widget_format(self) -> str:
        """A number input's printf format: as many decimals as the step has (1,500 ms shows as
        "1500", not "1500.00")."""
        decimals = 0
        for value in (self.step, self.low):  # the smallest allowed value must show, too
            while decimals < 4 and abs(round(value, decimals) - value) > 1e-9:
                decimals += 1
        return f"%.{decimals}f"

    def check(self, value: object) -> float:
        """The value as a float, or a ValueError that says what is allowed."""
        if isinstance(value, bool):
            raise ValueError(f"{self.label}: expected a number, got {excerpt(value)}")
        try:
            number = float(value)  # type: ignore[arg-type]
        except OverflowError:  # a whole number too large for a float: out of range, not a fault
            number = math.inf
        except (TypeError, ValueError):
            raise ValueError(f"{self.label}: {excerpt(value)} is not a number") from None
        if not math.isfinite(number) or not self.low <= number <= self.high:
            reason = f" ({self.why})" if self.why else ""
            raise ValueError(
                f"{self.label} must be a number between {self.low:g} and {self.high:g}{reason},"
                f" got {excerpt(value)}"
            )
        return number

    def contains(self, value: float) -> bool:
        try:
            self.check(value)
        except ValueError:
            return False
        return True


def _b(key: str, label: str, low: float, high: float, step: float, why: str = "") -> Bound:
    return Bound(key, label, low, high, step, why)


#: The peak-to-mean factor shapes the day (``costmodel.demand.HourlyProfile``): a sinusoid up to 2,
#: a narrower single peak above. At an hourly grain a day cannot peak above 24 times its mean
#: (every token in one hour); 20 leaves that limit out of reach of a rounding step.
PEAK_TO_MEAN = _b(
    "peak",
    "Peak hour ÷ mean hour",
    1.0,
    20.0,
    0.1,
    "the busiest hour ÷ the average hour; above 20 nearly all of a day's traffic falls in one"
    " hour, so give the 24-hour curve instead",
)
INTERACTIVE_SHARE = _b("inter", "Interactive share", 0.0, 1.0, 0.05)
SLO_MS = _b("slo", "FTL SLO (ms)", 10.0, 120_000.0, 100.0)
UTILISATION_CAP = _b("util", "Utilisation cap", 0.1, 1.0, 0.05)
AMD_SHARE = _b("amd", "Shift to AMD: share", 0.01, 0.99, 0.01)
CPU_SHARE = _b("cpu", "CPU fallback: share of small-model traffic", 0.01, 0.99, 0.01)
ENGINEER_WEEK_USD = _b("rate", "Loaded cost per engineer-week ($)", 0.0, 100_000.0, 500.0)
OUTPUT_BILLIONS = _b("out_b", "Output tokens per month (billions)", 0.001, 100_000.0, 5.0)
INPUT_BILLIONS = _b("in_b", "Input tokens per month (billions)", 0.0, 1_000_000.0, 10.0)
SMALL_BILLIONS = _b(
    "small_b", "Small-model output tokens per month (billions)", 0.0, 100_000.0, 1.0
)

# Workspace fields.
FLEET_COUNT = _b("count", "Instance count", 0.0, 100_000.0, 1.0)
USD_PER_HOUR = _b(
    "usd_per_hour",
    "Effective $ per instance-hour",
    0.0001,
    10_000.0,
    0.01,
    "a $0 instance is never a valid price",
)
EARLY_TERMINATION_USD = _b("early_termination_usd", "Early-termination cost ($)", 0.0, 1e10, 1000.0)
TOKENS_PER_MONTH = _b("tokens_per_month", "Tokens per month", 0.0, 1e16, 1e9)
PREFIX_CACHE_SHARE = _b(
    "prefix_cache_share",
    "Prefix-cache share of input tokens",
    0.0,
    1.0,
    0.05,
    "a share of the input tokens: 0 (nothing cached) to 1 (all cached)",
)
TOKENS_PER_REQUEST = _b(
    "tokens_per_request", "Mean tokens per request", 1.0, 1e7, 1.0, "1 to 10 million tokens"
)
GROWTH_PER_QUARTER = _b(
    "growth_per_quarter", "Demand growth per quarter", -0.5, 2.0, 0.01, "-50% to +200% a quarter"
)
MAX_VENDOR_SHARE = _b("max_vendor_share", "Largest share of traffic on one vendor", 0.01, 1.0, 0.05)
ONE_TIME_USD = _b("one_time_usd", "One-time migration cost ($)", 0.0, 1e10, 1000.0)
FINDINGS = _b("blocking_findings", "Blocking findings", 0.0, 1e9, 1.0)
ENGINEER_WEEKS = _b("engineer_weeks", "Engineer-weeks", 0.0, 10_000.0, 0.5)

# Owned hardware (total cost of ownership).
DEPRECIATION_YEARS = _b("depreciation_years", "Depreciation (years)", 1.0, 10.0, 1.0)
FINANCING_RATE = _b(
    "financing_rate", "Financing rate (per year)", 0.0, 0.5, 0.005, "0% (cash) to 50% a year"
)
PUE = _b(
    "pue",
    "Power usage effectiveness (PUE)",
    1.0,
    3.0,
    0.05,
    "facility power ÷ IT power: 1 is the physical floor",
)
COLO_USD_PER_KW_MONTH = _b(
    "colo_usd_per_kw_month", "Colocation fee ($ per kW per month)", 0.0, 10_000.0, 5.0
)
STAFF_USD_PER_FTE_YEAR = _b(
    "staff_usd_per_fte_year", "Operations staff ($ per full-time person per year)", 0.0, 5e6, 1000.0
)
SERVERS_PER_FTE = _b("servers_per_fte", "Servers one operations person runs", 1.0, 100_000.0, 1.0)
USD_PER_KWH = _b("usd_per_kwh", "Electricity ($ per kWh)", 0.001, 5.0, 0.001)

# Commitment under uncertainty.
PROBABILITY = _b("probability", "Probability", 0.0, 1.0, 0.05)
DEMAND_FACTOR = _b("demand_factor", "Demand ÷ the workspace's stated demand", 0.01, 100.0, 0.05)
DISCOUNT_RATE = _b(
    "discount_rate_per_year",
    "Yearly discount rate of the horizon total",
    0.0,
    0.5,
    0.01,
    "0% to 50% a year",
)
DISCOUNT = _b(
    "discount", "Discount off the on-demand rate", 0.0, 0.95, 0.01, "0% to 95% off on-demand"
)

#: Every bound by its key (URL keys and workspace field names).
BOUNDS: dict[str, Bound] = {
    b.key: b
    for b in (
        PEAK_TO_MEAN,
        INTERACTIVE_SHARE,
        SLO_MS,
        UTILISATION_CAP,
        AMD_SHARE,
        CPU_SHARE,
        ENGINEER_WEEK_USD,
        OUTPUT_BILLIONS,
        INPUT_BILLIONS,
        SMALL_BILLIONS,
        FLEET_COUNT,
        USD_PER_HOUR,
        EARLY_TERMINATION_USD,
        TOKENS_PER_MONTH,
        GROWTH_PER_QUARTER,
        MAX_VENDOR_SHARE,
        ONE_TIME_USD,
    )
}
