"""The CI regression gate's rule: a change fails if any backend regresses more than 10% in cost
or FTL without an exception. Its inputs are read by ``planning.gate_inputs``; ``briefs.gate``
renders the report.

Two result sets (baseline A, candidate B) are matched per configuration — backend, accelerator,
accelerators per replica, runtime, model, precision, workload, token lengths, scenario and load
(concurrency / request rate); the runtime *version* is what a change usually moves, so it is not
part of the match.

The runtime *version* and the measured token counts are not part of the match either.

* **Cost** = $/1K output tokens at a reference price: the median on-demand $/accelerator-hour of
  the accelerator over current prices × accelerators per replica ÷ (output tok/s × 3.6). With no
  price for the accelerator, cost is the inverse of throughput per accelerator
  (accelerator-seconds per 1K output tokens). Either way both sides use the same rule, so the
  change is the change in accelerator time per token.
* **FTL** = TTFT p95; when either side lacks p95, p99 is used only if both sides have it, and is
  labelled so. Otherwise FTL is not compared (reported, never guessed).
* **Noise**: where a side holds repeated runs of a configuration (``tokendesk bench run
  --repeats N`` files list each run, or several result files), the medians are compared and the
  run-to-run spread is measured: noise = 2 × √(cv_A² + cv_B²), cv being the sample standard
  deviation over the mean of that metric's runs on each side (about a 95% band for the relative
  change). A change beyond the limit but within limit + noise is reported as within noise and
  passes; only a change beyond limit + noise is a regression. With one run per side the noise
  is not measured and the plain limit applies; the report says which rule each check used.
* An **exception** (YAML: configuration match, metric, reason, expires_on) turns a regression it
  matches into a pass that is reported with its reason; an expired one no longer applies.

Exit codes: 0 pass, 1 regression, 2 bad input (the message names the file, the key and why).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import date

import pandas as pd

from planning.gate_inputs import MATCH_FIELDS, GateException, norm_value
from tokendesk.catalog import load_catalog
from tokendesk.metrics import usd_per_1k_tokens

METRICS = ("cost", "ftl")
EPSILON = 1e-9  # float noise must not turn exactly 10% into a failure


def _with_backend(frame: pd.DataFrame) -> pd.DataFrame:

    catalog = load_catalog()
    out = frame.copy()
    out["backend"] = [
        str(catalog[a].backend) if a in catalog else "" for a in out["accelerator_id"]
    ]
    for column in MATCH_FIELDS:
        if column not in out:
            out[column] = None
    for column in ("ttft_ms_p95", "ttft_ms_p99", "output_tok_s"):
        if column not in out:
            out[column] = float("nan")
        out[column] = pd.to_numeric(out[column], errors="coerce")
    return out


def _cv(rows: pd.DataFrame, column: str) -> float | None:
    """Run-to-run coefficient of variation (sample sd / mean) over the rows' runs, or the one a
    repeated harness run measured itself (``cv_<column>``); None when nothing was repeated."""
    vals = pd.to_numeric(rows[column], errors="coerce").dropna()
    if len(vals) >= 2 and vals.mean() > 0:
        return float(vals.std(ddof=1) / vals.mean())
    measured = f"cv_{column}"
    if measured in rows.columns:
        own = pd.to_numeric(rows[measured], errors="coerce").dropna()
        if len(own):
            return float(own.max())
    return None


def _noise(a: dict, b: dict, metric_key: str) -> float | None:
    """About a 95% band of the relative change from run-to-run noise; None if unmeasured."""
    cvs = [side["cv"].get(metric_key) for side in (a, b)]
    if all(cv is None for cv in cvs):
        return None
    return 2.0 * math.sqrt(sum((cv or 0.0) ** 2 for cv in cvs))


def _aggregate(frame: pd.DataFrame) -> dict[tuple[str, ...], dict]:
    """Per configuration: median throughput and TTFT over repeated runs of the same point."""
    out: dict[tuple[str, ...], dict] = {}
    keys = frame[list(MATCH_FIELDS)].map(norm_value)
    for key, idx in keys.groupby(list(MATCH_FIELDS), sort=True).groups.items():
        rows = frame.loc[idx]
        out[tuple(key)] = {
            "cv": {
                "output_tok_s": _cv(rows, "output_tok_s"),
                "ttft_ms_p95": _cv(rows, "ttft_ms_p95"),
                "ttft_ms_p99": _cv(rows, "ttft_ms_p99"),
            },
            "output_tok_s": float(rows["output_tok_s"].median()),
            "ttft_ms_p95": float(rows["ttft_ms_p95"].median())
            if rows["ttft_ms_p95"].notna().any()
            else None,
            "ttft_ms_p99": float(rows["ttft_ms_p99"].median())
            if rows["ttft_ms_p99"].notna().any()
            else None,
            "runs": len(rows),
            "runtime_version": ", ".join(
                sorted(
                    {
                        norm_value(v)
                        for v in rows.get("runtime_version", pd.Series(dtype=object))
                        if norm_value(v)
                    }
                )
            ),
        }
    return out


@dataclass(frozen=True)
class Check:
    config: dict
    metric: str  # cost | ftl
    basis: str  # how the metric was computed (price / throughput rule; p95 / p99)
    baseline: float | None
    candidate: float | None
    change_pct: float | None
    status: str  # pass | regression | excepted | not-compared
    note: str = ""

    @property
    def label(self) -> str:
        c = self.config
        load = (
            f"c={c['concurrency']}"
            if c.get("concurrency")
            else (f"rps={c['request_rate_rps']}" if c.get("request_rate_rps") else "")
        )
        parts = [
            c["backend"] or "?",
            c["accelerator_id"],
            f"x{c['accelerators_per_replica']}",
            c["runtime"],
            c["model"],
            c["precision"],
            c["workload"],
            c["scenario"],
            load,
        ]
        return " · ".join(p for p in parts if p)


@dataclass
class GateReport:
    baseline: str
    candidate: str
    max_cost_regression: float
    max_ftl_regression: float
    checks: list[Check] = field(default_factory=list)
    missing_in_candidate: list[dict] = field(default_factory=list)
    new_in_candidate: list[dict] = field(default_factory=list)
    expired_exceptions: list[GateException] = field(default_factory=list)
    applied_exceptions: list[tuple[GateException, Check]] = field(default_factory=list)
    cost_rule: str = ""
    today: date = field(default_factory=date.today)

    @property
    def regressions(self) -> list[Check]:
        return [c for c in self.checks if c.status == "regression"]

    @property
    def passed(self) -> bool:
        return not self.regressions

    @property
    def exit_code(self) -> int:
        return 0 if self.passed else 1


#: The rest of the rule in words, after the cost rule (``GateReport.cost_rule``).
FTL_AND_EXCEPTION_RULE = (
    "FTL = TTFT p95; p99 only when both sides publish it and p95 is missing on one. A regression "
    "beyond the limit fails unless an unexpired exception with a reason covers it."
)


def _price_rule(prices: Mapping[str, float]) -> str:
    return (
        "cost = $/1K output tokens at a reference price: the median current "
        "on-demand $/accelerator-hour of the "
        "accelerator × accelerators per replica ÷ (output tok/s × 3.6); where "
        "no price is known for an accelerator, "
        "cost = accelerator-seconds per 1K output tokens (1000 × accelerators "
        "per replica ÷ output tok/s), the inverse "
        "of throughput per accelerator. Both sides use the same rule, so the "
        "change is the change in accelerator time per token."
        + ("" if prices else " No reference prices were available for this run.")
    )


# Long by design: one pass over the keys of two result sets (only in one, only in the other,
# in both) that builds one report; its three loops share the report being written.
#: The FTL columns the gate compares, first choice first, with the metric's name in the report.
FTL_COLUMNS = (
    ("ttft_ms_p95", "TTFT p95 (ms)"),
    ("ttft_ms_p99", "TTFT p99 (ms) — p95 not published on both sides"),
)


def compare_results(
    baseline: pd.DataFrame,
    candidate: pd.DataFrame,
    *,
    max_cost_regression: float = 0.10,
    max_ftl_regression: float = 0.10,
    prices: Mapping[str, float] | None = None,
    exceptions: Sequence[GateException] = (),
    today: date | None = None,
    baseline_label: str = "baseline",
    candidate_label: str = "candidate",
    price_note: str = "",
) -> GateReport:
    prices = dict(prices or {})
    today = today or date.today()
    report = GateReport(
        baseline_label,
        candidate_label,
        max_cost_regression,
        max_ftl_regression,
        cost_rule=_price_rule(prices) + (f" {price_note}" if price_note else ""),
        today=today,
    )
    active = [e for e in exceptions if not e.expired(today)]
    report.expired_exceptions = [e for e in exceptions if e.expired(today)]
    a, b = _aggregate(_with_backend(baseline)), _aggregate(_with_backend(candidate))
    for key in sorted(set(a) - set(b)):
        report.missing_in_candidate.append(dict(zip(MATCH_FIELDS, key, strict=True)))
    for key in sorted(set(b) - set(a)):
        report.new_in_candidate.append(dict(zip(MATCH_FIELDS, key, strict=True)))
    for key in sorted(set(a) & set(b)):
        config = dict(zip(MATCH_FIELDS, key, strict=True))
        config["runtime_version"] = (
            f"{a[key]['runtime_version'] or '?'} → {b[key]['runtime_version'] or '?'}"
        )
        acc, apr = config["accelerator_id"], float(config["accelerators_per_replica"] or 1)
        price = prices.get(acc)

        def cost(tps: float, price: float | None = price, apr: float = apr) -> float | None:
            if not tps or not tps > 0:
                return None
            return usd_per_1k_tokens(price * apr, tps) if price else 1000.0 * apr / tps

        basis = (
            f"$/1K output tokens at ${price:,.2f}/accelerator-hour"
            if price
            else "accelerator-seconds per 1K output tokens (no price)"
        )
        report.checks.append(
            _check(
                config,
                "cost",
                basis,
                cost(a[key]["output_tok_s"]),
                cost(b[key]["output_tok_s"]),
                max_cost_regression,
                active,
                report,
                _noise(a[key], b[key], "output_tok_s"),
            )
        )
        # FTL at p95 where both sides publish it, else at p99 (said in the metric's name).
        for column, metric in FTL_COLUMNS:
            if a[key][column] is not None and b[key][column] is not None:
                report.checks.append(
                    _check(
                        config,
                        "ftl",
                        metric,
                        a[key][column],
                        b[key][column],
                        max_ftl_regression,
                        active,
                        report,
                        _noise(a[key], b[key], column),
                    )
                )
                break
        else:
            report.checks.append(
                Check(
                    config,
                    "ftl",
                    "TTFT",
                    a[key]["ttft_ms_p95"] or a[key]["ttft_ms_p99"],
                    b[key]["ttft_ms_p95"] or b[key]["ttft_ms_p99"],
                    None,
                    "not-compared",
                    "no TTFT percentile (p95, else p99) published on both sides",
                )
            )
    return report


def _check(
    config: dict,
    metric: str,
    basis: str,
    base: float | None,
    cand: float | None,
    limit: float,
    exceptions: Sequence[GateException],
    report: GateReport,
    noise: float | None = None,
) -> Check:
    if base is None or cand is None or not base > 0:
        return Check(
            config, metric, basis, base, cand, None, "not-compared", "a side has no usable value"
        )
    change = cand / base - 1.0
    if change <= limit + EPSILON:
        return Check(config, metric, basis, base, cand, change, "pass")
    if noise is not None and change <= limit + noise + EPSILON:
        return Check(
            config,
            metric,
            basis,
            base,
            cand,
            change,
            "pass",
            f"within noise: {change:+.1%} is over the +{limit:.0%} limit but inside the measured "
            f"run-to-run noise ±{noise:.1%} (limit + noise = +{limit + noise:.1%})",
        )
    for exc in exceptions:
        if exc.applies(config, metric):
            check = Check(
                config,
                metric,
                basis,
                base,
                cand,
                change,
                "excepted",
                f"exception: {exc.reason} (expires {exc.expires_on})",
            )
            report.applied_exceptions.append((exc, check))
            return check
    expired = [e for e in report.expired_exceptions if e.applies(config, metric)]
    note = f"regressed {change:+.1%} (limit +{limit:.0%}"
    note += (
        f" + measured noise ±{noise:.1%})"
        if noise is not None
        else "; noise not measured: one run per side)"
    )
    if expired:
        note += f"; exception expired on {expired[0].expires_on}: {expired[0].reason}"
    return Check(config, metric, basis, base, cand, change, "regression", note)
