"""The buy/no-buy brief: a scenario comparison turned into a document procurement can forward,
defend and reproduce.

Each option gets **buy**, **no-buy** or **defer** from explicit rules whose thresholds are
inputs (:class:`Thresholds`), and the brief prints every rule it checked, the value it saw and
the threshold, so the recommendation can be argued with. The baseline is **keep** unless an
alternative earns **buy**. Every price and benchmark the fleets rest on is listed with its
source, date and snapshot id.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field, fields
from datetime import UTC, datetime
from typing import Any

import pandas as pd

from briefs.document import (
    MODEL_COLUMNS,
    BarChart,
    Bullets,
    Document,
    LiveModel,
    Paragraph,
    Section,
    Table,
    brief_stem,
    cents,
    table,
)
from briefs.render import render_document
from briefs.sources import (
    bench_rows,
    option_key,
    price_rows,
    rows_behind,
    snapshot_ids,
    source_tables,
)
from briefs.sources import day as _date
from costmodel import (
    CostRange,
    Demand,
    FleetPolicy,
    Scenario,
    ScenarioResult,
    UncertaintyInputs,
    cost_range,
    evaluate_scenarios,
    tornado,
)
from costmodel.summary import summary_row, token_cost_labels
from tokendesk import formatting

BUY, NO_BUY, DEFER, KEEP = "buy", "no-buy", "defer", "keep"


@dataclass(frozen=True)
class Thresholds:
    """The decision rule's inputs. Shares are fractions (0.05 = 5%)."""

    #: Buy only if the option saves more than this share of the baseline's monthly cost.
    min_savings_pct: float = 0.05
    #: Buy only if the one-time migration pays back within this many months.
    max_payback_months: float = 12.0
    #: Defer if spend-weighted software maturity is below this score (0-100): certify first.
    min_maturity_score: float = 70.0
    #: Defer if more than this share of spend rests on benchmarks older than one quarter.
    max_stale_share: float = 0.5
    #: Defer if more than this share of spend is on reservation-only / capacity-block SKUs.
    max_reservation_only_share: float = 1.0

    def rows(self) -> list[tuple[str, str]]:
        return [
            ("minimum savings vs baseline", formatting.percent(self.min_savings_pct)),
            ("maximum payback", f"{self.max_payback_months:g} months"),
            ("minimum software maturity", f"{self.min_maturity_score:g}/100"),
            ("maximum spend on stale benchmarks", formatting.percent(self.max_stale_share)),
            (
                "maximum spend on reservation-only SKUs",
                formatting.percent(self.max_reservation_only_share),
            ),
        ]


@dataclass(frozen=True)
class RuleCheck:
    rule: str
    value: str
    threshold: str
    passed: bool
    #: What a failure leads to: no-buy (the economics or the SLO fail) or defer (evidence missing).
    on_fail: str


@dataclass(frozen=True)
class Recommendation:
    scenario: str
    verdict: str
    reason: str
    checks: tuple[RuleCheck, ...]


@dataclass(frozen=True)
class Comparison:
    """Everything a brief is rendered from. ``options`` is the cost-options frame the scenarios
    were evaluated on (it carries the provenance columns); ``snapshots`` the warehouse's snapshot
    list (optional)."""

    results: tuple[ScenarioResult, ...]
    options: pd.DataFrame | None = None
    demand: Demand | None = None
    policy: FleetPolicy = field(default_factory=FleetPolicy)
    thresholds: Thresholds = field(default_factory=Thresholds)
    uncertainty: UncertaintyInputs = field(default_factory=UncertaintyInputs)
    snapshots: pd.DataFrame | None = None
    generated_at: datetime = field(default_factory=lambda: datetime.now(UTC))
    #: Kept for callers that pass it; never printed (a brief is forwarded outside this machine).
    warehouse: str = ""
    title: str = "Accelerator procurement brief"
    #: The dashboard address that reproduces this comparison (see ``briefs.document``).
    link: str = ""
    #: The company workspace the demand comes from; empty for the market-wide what-if.
    workspace: str = ""
    #: The token count every $/token figure is quoted per ("1k" or "1m", the dashboard's switch).
    unit: str = formatting.DEFAULT_TOKEN_UNIT

    @property
    def baseline(self) -> ScenarioResult:
        for r in self.results:
            if r.savings_vs_baseline_usd == 0.0 and r.payback_sentence == "Baseline scenario.":
                return r
        return self.results[0]


def build_comparison(
    options: pd.DataFrame,
    scenarios: Sequence[Scenario],
    demand: Demand,
    policy: FleetPolicy | None = None,
    thresholds: Thresholds | None = None,
    **kwargs,
) -> Comparison:
    """Evaluate ``scenarios`` on a cost-options frame and wrap the results for rendering."""

    policy = policy or FleetPolicy()
    results = evaluate_scenarios(options, demand, list(scenarios), policy)
    return Comparison(results, options, demand, policy, thresholds or Thresholds(), **kwargs)


# -- the decision rule ------------------------------------------------------------------------
def _risk(result: ScenarioResult, name: str) -> float | None:
    for figure in result.risk.figures():
        if figure.name == name:
            return figure.value
    return None


def recommend(result: ScenarioResult, baseline: ScenarioResult, t: Thresholds) -> Recommendation:
    if result is baseline:
        return Recommendation(result.name, KEEP, "Baseline: what we buy today.", ())
    checks: list[RuleCheck] = []
    served = not result.unserved
    checks.append(
        RuleCheck(
            "serves every segment",
            "yes" if served else "; ".join(result.unserved),
            "every segment served",
            served,
            NO_BUY,
        )
    )
    slo_ok = all(lat.meets for lat in result.latency) and bool(result.latency)
    # An FTL that is not known counts as the worst: the SLO cannot be shown to hold.
    worst = max(
        result.latency,
        key=lambda lat: (math.inf if lat.ftl_ms is None else lat.ftl_ms) / lat.slo_ms,
        default=None,
    )
    checks.append(
        RuleCheck(
            "meets the FTL SLO",
            f"worst {worst.segment} on {worst.allocation}: {formatting.ms(worst.ftl_ms)} "
            f"vs {worst.slo_ms:,.0f} ms ({worst.percentile})"
            if worst
            else "no interactive traffic sized",
            "FTL ≤ SLO for every segment",
            slo_ok,
            NO_BUY,
        )
    )
    pct = result.savings_pct
    checks.append(
        RuleCheck(
            f"saves more than {t.min_savings_pct:.0%} vs {baseline.name}",
            "—" if pct is None else f"{pct:+.1%} ({_usd0(result.savings_vs_baseline_usd)}/month)",
            f"> {t.min_savings_pct:.0%}",
            pct is not None and pct > t.min_savings_pct,
            NO_BUY,
        )
    )
    pay = result.payback_months
    one_time = result.migration.one_time_usd
    pay_ok = (one_time == 0 and (result.savings_vs_baseline_usd or 0) > 0) or (
        pay is not None and pay <= t.max_payback_months
    )
    checks.append(
        RuleCheck(
            f"pays back within {t.max_payback_months:g} months",
            "no migration cost"
            if one_time == 0
            else ("never" if pay is None else f"{pay:.1f} months"),
            f"≤ {t.max_payback_months:g} months",
            pay_ok,
            NO_BUY,
        )
    )
    maturity = _risk(result, "software_maturity")
    checks.append(
        RuleCheck(
            "software maturity",
            "—" if maturity is None else f"{maturity:.0f}/100",
            f"≥ {t.min_maturity_score:g}/100",
            maturity is not None and maturity >= t.min_maturity_score,
            DEFER,
        )
    )
    stale = _risk(result, "stale_benchmark_share")
    checks.append(
        RuleCheck(
            "spend on benchmarks older than a quarter",
            formatting.percent(stale),
            f"≤ {t.max_stale_share:.0%}",
            stale is not None and stale <= t.max_stale_share,
            DEFER,
        )
    )
    blocked = _risk(result, "reservation_only_share")
    checks.append(
        RuleCheck(
            "spend on reservation-only SKUs",
            formatting.percent(blocked),
            f"≤ {t.max_reservation_only_share:.0%}",
            blocked is not None and blocked <= t.max_reservation_only_share,
            DEFER,
        )
    )
    failed = [c for c in checks if not c.passed]
    hard = [c for c in failed if c.on_fail == NO_BUY]
    if hard:
        verdict = NO_BUY
        reason = "; ".join(f"fails '{c.rule}' ({c.value}; needs {c.threshold})" for c in hard)
    elif failed:
        verdict = DEFER
        reason = "economics pass, evidence short: " + "; ".join(
            f"'{c.rule}' is {c.value} (needs {c.threshold})" for c in failed
        )
    else:
        verdict = BUY
        reason = "passes every rule: " + "; ".join(f"{c.rule} ({c.value})" for c in checks)
    return Recommendation(result.name, verdict, reason, tuple(checks))


def recommendations(comparison: Comparison) -> list[Recommendation]:
    base = comparison.baseline
    recs = [recommend(r, base, comparison.thresholds) for r in comparison.results]
    if not any(r.verdict == BUY for r in recs):
        return _with_confidence(comparison, recs)
    out = []
    for r in recs:
        if r.verdict == KEEP:
            winners = ", ".join(x.scenario for x in recs if x.verdict == BUY)
            r = Recommendation(
                r.scenario, NO_BUY, f"Baseline, but {winners} passes every rule.", r.checks
            )
        out.append(r)
    return _with_confidence(comparison, out)


def low_confidence_figures(comparison: Comparison) -> dict[str, list[str]]:
    """Per option: the low-confidence prices and results its fleet lines rest on (named by SKU
    and configuration; their sources are in the provenance tables)."""
    rows = used_rows(comparison)
    out: dict[str, list[str]] = {}
    if rows.empty:
        return out
    priced = rows[
        [str(m) in str(p) for m, p in zip(rows["pricing_model"], rows["line_pricing"], strict=True)]
    ]
    for row in priced.itertuples():
        found = out.setdefault(row.option, [])
        if str(row.price_confidence or "").lower().startswith("low"):
            found.append(f"the {row.provider} {row.instance_type} {row.pricing_model} price")
        if str(row.bench_confidence or "").lower().startswith("low"):
            found.append(f"the {row.model} result on {row.accelerator_id}")
    return {option: list(dict.fromkeys(found)) for option, found in out.items() if found}


def _with_confidence(comparison: Comparison, recs: list[Recommendation]) -> list[Recommendation]:
    """A recommendation resting on a low-confidence figure says so."""
    low = low_confidence_figures(comparison)
    return [
        Recommendation(
            r.scenario,
            r.verdict,
            f"{r.reason.rstrip('.')}; rests on low-confidence figures: {'; '.join(low[r.scenario])}",
            r.checks,
        )
        if low.get(r.scenario)
        else r
        for r in recs
    ]


# -- provenance -------------------------------------------------------------------------------
def used_rows(comparison: Comparison) -> pd.DataFrame:
    """Cost-option rows behind every fleet line: all quotes of the line's SKU group (the sizing
    chose among their pricing models) and every operating point of its configuration."""
    lines = [
        {
            "option": r.name,
            "segment": ln.segment,
            "allocation": ln.allocation,
            "mode": ln.mode,
            **option_key(ln.option_id, ln.instance_type),
            "line_monthly_usd": ln.monthly_usd,
            "line_pricing": ln.pricing,
            "units_peak": ln.units_peak,
        }
        for r in comparison.results
        for ln in r.lines
    ]
    return rows_behind(comparison.options, lines)


def price_sources(comparison: Comparison) -> pd.DataFrame:
    return price_rows(used_rows(comparison))


def bench_sources(comparison: Comparison) -> pd.DataFrame:
    return bench_rows(used_rows(comparison))


# -- the document -----------------------------------------------------------------------------
def _usd0(v: Any) -> str:
    if isinstance(v, str):
        return v
    if isinstance(v, int | float) and v == v and v < 0:
        return "−" + formatting.usd(-v, 0)
    return formatting.usd(v, 0)


def _weeks(v: Any) -> str:
    return "—" if v is None or v != v else f"{float(v):g} w"


def assumptions_frame(c: Comparison) -> pd.DataFrame:
    rows: list[tuple[str, str, str]] = []
    for name, value in c.thresholds.rows():
        rows.append(("decision rule", name, value))
    if c.demand is not None:
        for seg in c.demand.segments:
            rows += [
                (f"demand: {seg.name}", "models", ", ".join(seg.models)),
                (f"demand: {seg.name}", "monthly input tokens", f"{seg.monthly_input_tokens:,.0f}"),
                (
                    f"demand: {seg.name}",
                    "monthly output tokens",
                    f"{seg.monthly_output_tokens:,.0f}",
                ),
                (
                    f"demand: {seg.name}",
                    "interactive share",
                    formatting.percent(seg.interactive_share),
                ),
                (f"demand: {seg.name}", "SLO", seg.slo.describe()),
                (f"demand: {seg.name}", "daily peak / mean", f"{seg.profile.peak:.2f}"),
                (
                    f"demand: {seg.name}",
                    "home regions",
                    ", ".join(seg.home_regions) if seg.home_regions else "any",
                ),
                (
                    f"demand: {seg.name}",
                    "small model (CPU fallback may serve)",
                    "yes" if seg.small_model else "no",
                ),
            ]
    p = c.policy
    for f in fields(p):
        value = getattr(p, f.name)
        rows.append(
            (
                "fleet policy",
                f.name.replace("_", " "),
                "— (no restriction)"
                if value is None
                else ", ".join(value)
                if isinstance(value, tuple)
                else ("yes" if value else "no")
                if isinstance(value, bool)
                else str(value),
            )
        )
    for r in c.results:
        m = r.scenario.migration
        rows.append((f"scenario: {r.name}", "description", r.scenario.description))
        rows.append(
            (
                f"scenario: {r.name}",
                "allocations",
                "; ".join(
                    f"{a.label} {a.share:.0%}"
                    + (f" (+{a.standby_share:.0%} standby)" if a.standby_share else "")
                    for a in r.scenario.allocations
                ),
            )
        )
        rows.append(
            (f"scenario: {r.name}", "incumbent backends", ", ".join(r.scenario.incumbent_backends))
        )
        rows.append(
            (
                f"scenario: {r.name}",
                "migration cost basis",
                f"${m.loaded_usd_per_engineer_week:,.0f}/engineer-week; "
                + ", ".join(f"{b} {w:g} w" for b, w in m.engineer_weeks)
                + f" ({m.engineer_weeks_basis})"
                + f"; {m.certification_runs_per_backend} certification runs × "
                f"${m.usd_per_certification_run:,.0f}",
            )
        )
    if c.link and not c.workspace:
        rows.append(
            (
                "dashboard view",
                "what the link carries",
                "the what-ifs and knobs the Scenarios page reads; that page prices your "
                "workspace's demand, this brief the market demand above",
            )
        )
    u = c.uncertainty
    rows += [
        ("sensitivity", "price band", f"×{u.price.low:g} / ×{u.price.base:g} / ×{u.price.high:g}"),
        (
            "sensitivity",
            "throughput band",
            f"×{u.throughput.low:g} / ×{u.throughput.base:g} / ×{u.throughput.high:g}",
        ),
        ("sensitivity", "demand band", f"×{u.demand.low:g} / ×{u.demand.high:g}"),
        (
            "formula",
            formatting.cost_label(c.unit, "output"),
            "instance $/h ÷ (instance output tok/s × 3,600 s/h) × "
            f"{formatting.TOKEN_UNITS[c.unit]:,} tokens; instance tok/s = replicas × result "
            "tok/s (total tokens: the same with input + output tok/s)",
        ),
        (
            "formula",
            "monthly cost",
            "every paid hour counts (730 h/month), units sized at the SLO under the utilisation cap",
        ),
    ]
    return pd.DataFrame(rows, columns=["area", "assumption", "value"])


#: Months the decision's money is shown over (the horizon procurement signs for).
HORIZON_MONTHS = 36


@dataclass(frozen=True)
class Money:
    """One option's money as page 1 states it; the CSV and the workbook reconcile to these."""

    monthly_usd: float
    one_time_usd: float
    horizon_usd: float
    vs_baseline_horizon_usd: float


def money(result: ScenarioResult, baseline: ScenarioResult) -> Money:
    """Monthly cost held flat for the horizon plus the one-time migration cost (the brief's
    demand has no growth; the workspace scenarios show growth month by month)."""
    total = result.monthly_usd * HORIZON_MONTHS + result.migration.one_time_usd
    base = baseline.monthly_usd * HORIZON_MONTHS + baseline.migration.one_time_usd
    return Money(result.monthly_usd, result.migration.one_time_usd, total, total - base)


def recommended(recs: Sequence[Recommendation]) -> str:
    """The scenario a brief is named after: the one to buy, else the one to keep, else the first."""
    for verdict in (BUY, KEEP):
        for r in recs:
            if r.verdict == verdict:
                return r.scenario
    return recs[0].scenario


def _short_reason(rec: Recommendation, low: list[str]) -> str:
    failed = [c for c in rec.checks if not c.passed]
    if rec.verdict == KEEP:
        text = "the fleet as bought today; no alternative passes every rule"
    elif rec.verdict == BUY:
        text = f"passes all {len(rec.checks)} decision rules"
    elif not rec.checks:
        text = rec.reason.rstrip(".").split(";")[0]
    elif rec.verdict == NO_BUY:
        text = "fails " + ", ".join(
            f"'{c.rule}' ({c.value})" for c in failed if c.on_fail == NO_BUY
        )
    else:
        text = "the economics pass but the evidence is short: " + ", ".join(
            f"'{c.rule}' is {c.value}" for c in failed
        )
    if low:
        text += f"; rests on {len(low)} low-confidence figure{'s' if len(low) > 1 else ''}"
    return text


def _signed_usd(v: float) -> str:
    return ("+" if v > 0 else "") + _usd0(v)


def decision_sentences(c: Comparison, recs: dict[str, Recommendation]) -> list[str]:
    """One sentence per option: the verdict, the money and the reason."""
    base = c.baseline
    low = low_confidence_figures(c)
    out = []
    for r in c.results:
        rec, m = recs[r.name], money(r, base)
        against = (
            "" if r is base else f" ({_signed_usd(m.vs_baseline_horizon_usd)} against {base.name})"
        )
        one_time = f" including {_usd0(m.one_time_usd)} one-time" if m.one_time_usd else ""
        out.append(
            f"{rec.verdict.upper()} {r.name}: {_usd0(m.monthly_usd)}/month, "
            f"{_usd0(m.horizon_usd)} over {HORIZON_MONTHS} months{one_time}{against} — "
            f"{_short_reason(rec, low.get(r.name, []))}."
        )
    return out


def top_risks(c: Comparison, recs: dict[str, Recommendation], limit: int = 2) -> list[str]:
    """Per option the risks that bear on the decision: failed evidence rules first, then
    low-confidence figures, then silicon-vendor concentration."""
    low = low_confidence_figures(c)
    out = []
    for r in c.results:
        found = [
            f"{c_.rule}: {c_.value} (needs {c_.threshold})"
            for c_ in recs[r.name].checks
            if not c_.passed and c_.on_fail == DEFER
        ]
        if low.get(r.name):
            found.append("low-confidence figures: " + "; ".join(low[r.name][:2]))
        found.append(r.risk.hhi_vendor.sentence.rstrip("."))
        found += [f"unserved: {u}" for u in r.unserved]
        out.append(f"{r.name}: " + "; ".join(found[:limit]) + ".")
    return out


def timeline_sentences(c: Comparison) -> list[str]:
    out = []
    for r in c.results:
        weeks = r.timeline.weeks_to_cutover
        when = (
            "nothing to migrate"
            if not weeks
            else f"{weeks:g} weeks to full cutover ({', '.join(r.timeline.backends)})"
        )
        said = r.payback_sentence.rstrip(".")
        pay = "" if r is c.baseline or not said else f"; {said[:1].lower()}{said[1:]}"
        out.append(f"{r.name}: {when}{pay}.")
    return out


def brief_document(c: Comparison) -> Document:
    """The brief: the decision on page 1, then the evidence behind it, section by section."""
    recs = {r.scenario: r for r in recommendations(c)}
    ranges = {r.name: cost_range(r, c.uncertainty) for r in c.results if r.lines}
    prices, benches = price_sources(c), bench_sources(c)
    sections = (
        decision_section(c, recs, ranges),
        recommendation_section(c, recs),
        rules_section(c, recs),
        Section("Cost", (fleet_cost_table(c),)),
        risk_section(c),
        timeline_section(c),
        Section("Sensitivity", (sensitivity_table(c, ranges),)),
        Section("Notes from the model", (Bullets(tuple(model_notes(c))),)),
        Section(
            "Assumptions", (table("Assumptions", assumptions_frame(c), sheet="Assumption list"),)
        ),
        Section("Sources", source_tables(prices, benches, c.snapshots)),
    )
    return Document(
        title=c.title,
        subtitle=f"Buy / no-buy recommendation: {', '.join(r.name for r in c.results)}",
        meta=tuple(brief_meta(c, prices, benches)),
        sections=sections,
        assumptions=assumptions_frame(c),
        csv_frame=brief_csv_frame(c, recs),
        live_model=live_model(c),
        file_stem=brief_stem(c.generated_at.date(), recommended(list(recs.values()))),
        link=c.link,
    )


# -- page 1: the decision ---------------------------------------------------------------------
def decision_section(
    c: Comparison, recs: dict[str, Recommendation], ranges: dict[str, CostRange]
) -> Section:
    """Page 1: the headline, one sentence per option, the money, its chart, risks and timeline."""
    return Section(
        "Decision",
        (
            Paragraph(headline(c)),
            Bullets(tuple(decision_sentences(c, recs))),
            money_table(c, recs, ranges),
            cost_chart(c, recs, ranges),
            Bullets(tuple(top_risks(c, recs)), title="Top risks"),
            Bullets(tuple(timeline_sentences(c)), title="Timeline"),
        ),
    )


def headline(c: Comparison) -> str:
    """How many options, the baseline's money and the cheapest option that serves everything."""
    base = c.baseline
    # A plan that leaves demand unserved is never called the cheapest.
    served = [r for r in c.results if not r.unserved]
    cheapest = min(served, key=lambda r: r.monthly_usd) if served else None
    return (
        f"{len(c.results)} options compared against {base.name} "
        f"({formatting.usd(base.monthly_usd, 0)}/month). "
        + (
            f"Cheapest that serves the whole demand: {cheapest.name} at "
            f"{formatting.usd(cheapest.monthly_usd, 0)}/month."
            if cheapest is not None
            else "No option serves the whole demand."
        )
    )


def money_table(
    c: Comparison, recs: dict[str, Recommendation], ranges: dict[str, CostRange]
) -> Table:
    """Per option: monthly, one-time and horizon money, its sensitivity band and the cutover."""
    base = c.baseline
    rows = []
    for r in c.results:
        m = money(r, base)
        band = ranges.get(r.name)
        rows.append(
            {
                "option": r.name,
                "decision": recs[r.name].verdict,
                "$/month": m.monthly_usd,
                "one-time": m.one_time_usd,
                f"{HORIZON_MONTHS} months": m.horizon_usd,
                f"vs {base.name}, {HORIZON_MONTHS} months": m.vs_baseline_horizon_usd,
                "$/month low": band.monthly_usd_low if band else "— (no fleet to price)",
                "$/month high": band.monthly_usd_high if band else "— (no fleet to price)",
                "weeks to cutover": r.timeline.weeks_to_cutover,
            }
        )
    return table(
        "The money",
        rows,
        formats={
            "$/month": _usd0,
            "$/month low": _usd0,
            "$/month high": _usd0,
            "one-time": _usd0,
            f"{HORIZON_MONTHS} months": _usd0,
            f"vs {base.name}, {HORIZON_MONTHS} months": _signed_usd,
            "weeks to cutover": _weeks,
        },
        sheet="Money",
        note=f"{HORIZON_MONTHS} months = monthly cost × {HORIZON_MONTHS} + one-time migration "
        "cost; low and high: the sensitivity bands' best and worst case.",
    )


def cost_chart(
    c: Comparison, recs: dict[str, Recommendation], ranges: dict[str, CostRange]
) -> BarChart:
    """The one chart of page 1: monthly cost per option, its band, coloured by the decision."""

    def band(r: ScenarioResult, side: str) -> float:
        return getattr(ranges[r.name], side) if r.name in ranges else float("nan")

    return BarChart(
        "Monthly cost per option",
        tuple(r.name for r in c.results),
        tuple(r.monthly_usd for r in c.results),
        "$/month",
        low=tuple(band(r, "monthly_usd_low") for r in c.results),
        high=tuple(band(r, "monthly_usd_high") for r in c.results),
        groups=tuple(recs[r.name].verdict for r in c.results),
        value_format=lambda v: formatting.usd(v, 0),
        note="Bars: base case; whiskers: best to worst case of the sensitivity "
        "bands; colour: recommendation.",
    )


def brief_meta(c: Comparison, prices: pd.DataFrame, benches: pd.DataFrame) -> list[tuple[str, str]]:
    """The key/value lines under the title: when, against what, how old the data, which view."""
    return [
        ("generated", f"{c.generated_at:%Y-%m-%d %H:%M} UTC"),
        ("baseline", c.baseline.name),
        ("prices dated", _date_span(prices, "price_observed_at")),
        ("benchmarks dated", _date_span(benches, "bench_measured_at")),
        ("snapshots", f"{len(snapshot_ids(prices, benches))} (listed under Sources)"),
        (
            "workspace",
            c.workspace or "none — a market-wide demand from the scenario inputs (see Assumptions)",
        ),
        ("token costs", f"{formatting.token_unit_label(c.unit)} tokens"),
        (
            "dashboard view",
            c.link or "— (not made from dashboard inputs: no view to link back to)",
        ),
    ]


def _date_span(frame: pd.DataFrame, column: str) -> str:
    """The oldest to the newest date, and how many sources state none."""
    dates = frame[column].dropna() if column in frame else pd.Series(dtype=object)
    undated = len(frame) - len(dates)
    span = f"{_date(dates.min())} to {_date(dates.max())}" if len(dates) else "—"
    return span + (f" ({undated} with {formatting.DATE_UNKNOWN})" if undated else "")


# -- the evidence: recommendation, rules, cost, risk, timeline, sensitivity --------------------
def recommendation_section(c: Comparison, recs: dict[str, Recommendation]) -> Section:
    """Each option's verdict with its full reason, and the side-by-side summary."""
    verdicts = [f"{rec.scenario}: {rec.verdict.upper()} — {rec.reason}" for rec in recs.values()]
    return Section(
        "Recommendation per option",
        (Bullets(tuple(verdicts)), summary_table(c, recs)),
        new_page=True,
    )


def summary_table(c: Comparison, recs: dict[str, Recommendation]) -> Table:
    """The Scenarios page's summary row per option, with the verdict and its reason."""
    base = c.baseline
    rows = []
    for r in c.results:
        row = summary_row(r, base, c.unit)
        rows.append(
            {
                "option": row.pop("Scenario"),
                "recommendation": recs[r.name].verdict,
                **row,
                "why": recs[r.name].reason,
            }
        )
    per_tokens = {label: formatting.usd_per_1k for label in token_cost_labels(c.unit)}
    return table(
        "Recommendation per option",
        rows,
        formats={
            "Monthly cost": _usd0,
            **per_tokens,
            f"Savings vs {base.name} ($/month)": _usd0,
            "Savings %": formatting.percent,
            "One-time migration": _usd0,
            "Weeks to cutover": _weeks,
            "Vendor HHI": lambda v: f"{v:,.0f}",
            "Maturity /100": lambda v: f"{v:.0f}",
        },
        sheet="Summary",
    )


def rules_section(c: Comparison, recs: dict[str, Recommendation]) -> Section:
    """How a verdict is reached: the thresholds, then every rule checked per option."""
    rule_rows = [
        {
            "option": rec.scenario,
            "rule": ch.rule,
            "value": ch.value,
            "threshold": ch.threshold,
            "result": "pass" if ch.passed else f"fail → {ch.on_fail}",
        }
        for rec in recs.values()
        for ch in rec.checks
    ]
    return Section(
        "Decision rules",
        (
            Paragraph(
                "Buy needs every rule to pass. A failed economic or SLO rule means "
                "no-buy; a failed evidence rule "
                "(maturity, stale benchmarks, reservation-only supply) means defer "
                "until the evidence is in."
            ),
            table(
                "Thresholds",
                [{"rule input": k, "value": v} for k, v in c.thresholds.rows()],
                sheet="Thresholds",
            ),
            table(
                "Rules checked",
                rule_rows,
                columns=["option", "rule", "value", "threshold", "result"],
                sheet="Rules",
            ),
        ),
    )


FLEET_COLUMNS = [
    "option",
    "segment · mode",
    "allocation",
    "units (peak)",
    "SKU",
    "accelerator",
    "model",
    "pricing",
    "$/month",
    "FTL ms",
    "SLO met",
    "price date",
    "benchmark date",
]


def fleet_cost_table(c: Comparison) -> Table:
    """Every fleet line of every option: what is bought, how, for how much, and how fast."""
    rows = [
        {
            "option": r.name,
            "segment · mode": f"{ln.segment} · {ln.mode}",
            "allocation": ln.allocation,
            "units (peak)": ln.units_peak,
            "SKU": f"{ln.instance_type} ({ln.provider} {ln.region})",
            "accelerator": ln.accelerator_id,
            "model": ln.model,
            "pricing": ln.pricing,
            "$/month": ln.monthly_usd,
            "FTL ms": ln.ftl_ms,
            "SLO met": "—" if ln.slo_met is None else ("yes" if ln.slo_met else "no"),
            "price date": _date(ln.price_observed_at),
            "benchmark date": _date(ln.bench_measured_at),
        }
        for r in c.results
        for ln in r.lines
    ]
    return table(
        "Fleet and monthly cost per option",
        rows,
        columns=FLEET_COLUMNS,
        formats={
            "$/month": _usd0,
            "FTL ms": lambda v: "—" if v is None or v != v else formatting.ms(v),
        },
        sheet="Cost",
        note="FTL is shown for interactive lines (sized at the SLO); batch lines "
        "run at the highest measured throughput.",
    )


def risk_section(c: Comparison) -> Section:
    """Silicon-vendor concentration as a chart, then every risk figure with its reason."""
    chart = BarChart(
        "Silicon-vendor concentration (HHI)",
        tuple(r.name for r in c.results),
        tuple(r.risk.hhi_vendor.value for r in c.results),
        "HHI 0-10,000 (>1,800 highly concentrated)",
    )
    rows = [
        {
            "option": r.name,
            "figure": f.name.replace("_", " "),
            "value": f.value,
            "unit": f.unit,
            "explanation": f.sentence,
        }
        for r in c.results
        for f in r.risk.figures()
    ]
    risks = table(
        "Risk",
        rows,
        columns=["option", "figure", "value", "unit", "explanation"],
        formats={"value": lambda v: f"{v:,.0f}" if v > 1 else f"{v:.0%}"},
        sheet="Risk",
    )
    return Section("Risk", (chart, risks))


def timeline_section(c: Comparison) -> Section:
    """Weeks to cutover per option, then every stage gate on the way."""
    chart = BarChart(
        "Weeks to full cutover",
        tuple(r.name for r in c.results),
        tuple(r.timeline.weeks_to_cutover for r in c.results),
        "weeks (critical path of the stage gates)",
        value_format=lambda v: f"{v:g} w",
    )
    rows = [
        {
            "option": r.name,
            "backend": g.backend,
            "gate": g.gate,
            "start week": g.start_week,
            "end week": g.end_week,
            "critical": "yes" if g.critical else "",
            "basis": g.basis,
        }
        for r in c.results
        for g in r.timeline.gates
    ]
    gates = table(
        "Stage-gate timeline",
        rows,
        columns=["option", "backend", "gate", "start week", "end week", "critical", "basis"],
        formats={"start week": lambda v: f"{v:g}", "end week": lambda v: f"{v:g}"},
        sheet="Timeline",
    )
    return Section("Timeline", (chart, gates))


def sensitivity_table(c: Comparison, ranges: dict[str, CostRange]) -> Table:
    """Per option: the monthly cost at the bands' best and worst case and its largest drivers."""
    rows = []
    for r in c.results:
        if r.name not in ranges:
            continue
        band = ranges[r.name]
        top = tornado(r, c.uncertainty)[:3]
        rows.append(
            {
                "option": r.name,
                "low $/month": band.monthly_usd_low,
                "base $/month": band.monthly_usd_base,
                "high $/month": band.monthly_usd_high,
                "largest drivers": "; ".join(
                    f"{b.input} (swing {formatting.usd(b.swing_usd, 0)})" for b in top
                ),
            }
        )
    return table(
        "Sensitivity: monthly cost range and largest drivers",
        rows,
        columns=["option", "low $/month", "base $/month", "high $/month", "largest drivers"],
        formats={"low $/month": _usd0, "base $/month": _usd0, "high $/month": _usd0},
        sheet="Sensitivity",
    )


def model_notes(c: Comparison) -> list[str]:
    """What the cost model said about each option: latency, timeline, payback, warnings."""
    out: list[str] = []
    for r in c.results:
        out += [f"{r.name}: {s.sentence}" for s in r.latency]
        out.append(f"{r.name}: {r.timeline.sentence}")
        out.append(f"{r.name}: {r.migration.sentence} {r.payback_sentence}")
        out += [f"{r.name} — warning: {w}" for w in r.warnings]
        out += [f"{r.name} — UNSERVED: {u}" for u in r.unserved]
    return out


#: Per fleet line: what it is, how it is bought, what it costs, and where its figures come from.
CSV_COLUMNS = [
    "row",
    "option",
    "decision",
    "segment",
    "mode",
    "allocation",
    "provider",
    "region",
    "instance_type",
    "accelerator_id",
    "model",
    "precision",
    "runtime",
    "pricing",
    "units_peak",
    "units_reserved",
    "on_demand_unit_hours",
    "units_spot",
    "committed_usd_per_unit_hour",
    "on_demand_usd_per_unit_hour",
    "spot_usd_per_unit_hour",
    "monthly_usd",
    "ftl_ms",
    "price_source",
    "price_source_url",
    "price_observed_at",
    "price_confidence",
    "price_snapshot_id",
    "bench_source_title",
    "bench_source_url",
    "bench_measured_at",
    "bench_confidence",
    "bench_snapshot_id",
]


def _line_sources(rows: pd.DataFrame, r: ScenarioResult, ln) -> dict[str, str]:
    """The price quote(s) of the line's pricing model and the result behind the line."""
    if rows.empty:
        return {}
    provider, rest = ln.option_id.split(":", 1)
    mine = rows[
        (rows["option"] == r.name)
        & (rows["segment"] == ln.segment)
        & (rows["allocation"] == ln.allocation)
        & (rows["mode"] == ln.mode)
        & (rows["instance_type"] == ln.instance_type)
        & (rows["region"] == ln.region)
    ]
    priced = mine[[str(m) in str(ln.pricing) for m in mine["pricing_model"]]]
    if priced.empty:
        priced = mine

    def joined(frame: pd.DataFrame, column: str, fmt=str) -> str:
        if column not in frame:
            return "—"
        values = list(dict.fromkeys(fmt(v) for v in frame[column]))
        return " | ".join(values) if values else "—"

    return {
        "price_source": joined(priced, "price_source"),
        "price_source_url": joined(priced, "price_source_url"),
        "price_observed_at": joined(priced, "price_observed_at", _date),
        "price_confidence": joined(priced, "price_confidence"),
        "price_snapshot_id": joined(priced, "price_snapshot_id"),
        "bench_source_title": joined(mine, "bench_source_title"),
        "bench_source_url": joined(mine, "bench_source_url"),
        "bench_measured_at": joined(mine, "bench_measured_at", _date),
        "bench_confidence": joined(mine, "bench_confidence"),
        "bench_snapshot_id": joined(mine, "bench_snapshot_id"),
    }


def brief_csv_frame(c: Comparison, recs: dict[str, Recommendation]) -> pd.DataFrame:
    """One row per fleet line (not per quote), then one total row per option whose monthly cost
    is the option's, to the cent; lines are rounded to cents so that they add up to it."""
    rows = used_rows(c)
    out = []
    for r in c.results:
        amounts = cents([ln.monthly_usd for ln in r.lines], r.monthly_usd)
        for ln, amount in zip(r.lines, amounts, strict=True):
            prices = ln.sizing.prices
            out.append(
                {
                    "row": "line",
                    "option": r.name,
                    "decision": recs[r.name].verdict,
                    "segment": ln.segment,
                    "mode": ln.mode,
                    "allocation": ln.allocation,
                    "provider": ln.provider,
                    "region": ln.region,
                    "instance_type": ln.instance_type,
                    "accelerator_id": ln.accelerator_id,
                    "model": ln.model,
                    "precision": ln.precision,
                    "runtime": ln.runtime,
                    "pricing": ln.pricing,
                    "units_peak": ln.units_peak,
                    "units_reserved": ln.units_reserved,
                    "on_demand_unit_hours": round(ln.on_demand_unit_hours, 2),
                    "units_spot": ln.units_spot,
                    "committed_usd_per_unit_hour": prices.committed,
                    "on_demand_usd_per_unit_hour": prices.on_demand,
                    "spot_usd_per_unit_hour": prices.spot,
                    "monthly_usd": amount,
                    "ftl_ms": None if ln.ftl_ms is None else round(ln.ftl_ms, 1),
                    **_line_sources(rows, r, ln),
                }
            )
        out.append(
            {
                "row": "total",
                "option": r.name,
                "decision": recs[r.name].verdict,
                "units_peak": sum(ln.units_peak for ln in r.lines),
                "monthly_usd": round(r.monthly_usd, 2),
            }
        )
    return pd.DataFrame(out).reindex(columns=CSV_COLUMNS)


def live_model(c: Comparison) -> LiveModel:
    """Each fleet line's units and rates, so the workbook recomputes every option's cost."""
    rows = []
    for r in c.results:
        for ln in r.lines:
            prices = ln.sizing.prices
            rows.append(
                {
                    "option": r.name,
                    "line": f"{ln.segment} · {ln.mode} · {ln.allocation}: {ln.units_peak} × "
                    f"{ln.instance_type} ({ln.provider} {ln.region}), {ln.pricing}",
                    MODEL_COLUMNS[0]: ln.units_reserved,
                    MODEL_COLUMNS[1]: prices.committed if ln.units_reserved else None,
                    MODEL_COLUMNS[2]: ln.on_demand_unit_hours,
                    MODEL_COLUMNS[3]: prices.on_demand if ln.on_demand_unit_hours else None,
                    MODEL_COLUMNS[4]: ln.units_spot,
                    MODEL_COLUMNS[5]: prices.spot if ln.units_spot else None,
                    "monthly_usd": ln.monthly_usd,
                }
            )
    return LiveModel(
        pd.DataFrame(rows, columns=["option", "line", *MODEL_COLUMNS, "monthly_usd"]),
        tuple((r.name, r.migration.one_time_usd) for r in c.results),
        c.baseline.name,
        horizon_months=HORIZON_MONTHS,
        money_columns={
            "$/month": "monthly",
            "one-time": "one_time",
            f"{HORIZON_MONTHS} months": "horizon",
            f"vs {c.baseline.name}, {HORIZON_MONTHS} months": "vs_baseline",
        },
    )


def render_brief(comparison: Comparison | Sequence[ScenarioResult], fmt: str) -> bytes:
    """The brief as bytes in ``fmt`` (md, html, pdf, xlsx or csv): what a download button serves."""

    if not isinstance(comparison, Comparison):
        comparison = Comparison(tuple(comparison))
    return render_document(brief_document(comparison), fmt)
