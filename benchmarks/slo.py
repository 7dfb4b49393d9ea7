"""Service-level objectives, goodput and repeated runs: the answers the cost model needs.

* An **SLO** is a set of latency percentile bounds, e.g. ``ttft_p95<=500,tpot_p95<=50`` (ms).
  A point *meets* it when every bounded percentile of the point is within its bound.
* **Attainment** is the share of the point's requests whose own TTFT and TPOT are within every
  bound (an empty completion has no TTFT or TPOT and is counted as meeting them); **goodput**
  is those requests per second (DistServe's definition).
* The **goodput point** is the highest load (request rate, else concurrency) among the valid
  points that meet the SLO: the most traffic a replica takes while keeping its promise, and the
  one operating point worth pricing.
* **Repeats**: the same point run N times; the recorded run is the one with the median output
  throughput (a real, self-consistent run, not an average of percentiles), and the spread is
  kept as a 95% confidence interval of the mean (Student's t, its lower end clipped at 0) and a
  coefficient of variation. Two repeats give a wide interval (t = 12.7); five are a fair start.
"""

from __future__ import annotations

import math
import re
import statistics

METRICS = ("ttft", "tpot", "itl", "e2el")
_TERM = re.compile(r"^\s*(ttft|tpot|itl|e2el)_p(50|90|95|99)\s*(<=|=|<)\s*([0-9.]+)\s*(ms)?\s*$")

# two-sided 95% Student t quantiles for n-1 degrees of freedom (n = 2..10), then the normal
_T95 = {1: 12.706, 2: 4.303, 3: 3.182, 4: 2.776, 5: 2.571, 6: 2.447, 7: 2.365, 8: 2.306, 9: 2.262}


class SLOError(ValueError):
    pass


def parse_slo(text: str) -> dict[str, float]:
    """``"ttft_p95<=500,tpot_p95<=50"`` -> ``{"ttft_p95": 500.0, "tpot_p95": 50.0}`` (ms)."""
    out: dict[str, float] = {}
    for term in filter(None, (t.strip() for t in text.split(","))):
        m = _TERM.match(term.lower())
        if not m:
            raise SLOError(
                f"--slo term {term!r}: write METRIC_pNN<=MS with METRIC one of "
                f"{', '.join(METRICS)} and NN one of 50, 90, 95, 99, e.g. ttft_p95<=500"
            )
        bound = float(m.group(4))
        if bound <= 0:
            raise SLOError(f"--slo term {term!r}: the bound must be positive")
        out[f"{m.group(1)}_p{m.group(2)}"] = bound
    if not out:
        raise SLOError("--slo is empty: give at least one bound, e.g. ttft_p95<=500")
    return out


def evaluate_point(block: dict, slo: dict[str, float], per_request: list[tuple]) -> dict:
    """The point's SLO verdict; ``per_request`` is (ttft_ms, tpot_ms) of each ok request."""
    violations = []
    for key, bound in slo.items():
        metric, pct = key.split("_")
        value = (block["latency_ms"].get(metric) or {}).get(pct)
        if value is None or value > bound:
            shown = "none" if value is None else f"{value:.1f}"
            violations.append(f"{key} {shown} ms > {bound:g} ms")
    req_bounds = {
        m: min(b for k, b in slo.items() if k.startswith(m + "_"))
        for m in ("ttft", "tpot")
        if any(k.startswith(m + "_") for k in slo)
    }
    good = sum(
        1
        for ttft, tpot in per_request
        if (ttft is None or ttft <= req_bounds.get("ttft", math.inf))
        and (tpot is None or tpot <= req_bounds.get("tpot", math.inf))
    )
    attempted = block["requests"]["ok"] + block["requests"]["failed"]
    span_rps = (block["throughput"] or {}).get("request_s")
    ok = block["requests"]["ok"]
    return {
        "targets_ms": dict(slo),
        "met": not violations,
        "violations": violations,
        "attainment": good / attempted if attempted else 0.0,
        "goodput_req_s": (span_rps * good / ok) if span_rps and ok else 0.0,
    }


def load_of(block: dict) -> float:
    rate = block.get("request_rate_rps")
    if rate is not None:
        return math.inf if rate == "inf" else float(rate)
    return float(block.get("concurrency") or 0)


def pick_goodput_point(blocks: list[dict]) -> dict | None:
    """The highest-load valid point that meets its SLO, marked ``slo.goodput_point``."""
    best = None
    for block in blocks:
        slo = block.get("slo")
        if not slo or not slo["met"] or not (block.get("validity") or {}).get("valid", True):
            continue
        if best is None or load_of(block) > load_of(best):
            best = block
    for block in blocks:
        if block.get("slo"):
            block["slo"]["goodput_point"] = block is best
    return best


def spread(values: list[float]) -> dict:
    """Mean, 95% confidence interval of the mean and coefficient of variation of repeats."""
    vals = [float(v) for v in values if v is not None]
    n = len(vals)
    if n == 0:
        return {"n": 0, "mean": None, "ci95": None, "cv": None, "values": []}
    mean = statistics.fmean(vals)
    if n == 1:
        return {"n": 1, "mean": mean, "ci95": None, "cv": None, "values": vals}
    sd = statistics.stdev(vals)
    half = _T95.get(n - 1, 1.96) * sd / math.sqrt(n)
    return {
        "n": n,
        "mean": mean,
        # every repeated metric is a rate or a latency: a negative bound is not possible
        "ci95": [max(0.0, mean - half), mean + half],
        "cv": sd / mean if mean else None,
        "values": vals,
    }


def merge_repeats(runs: list[dict]) -> dict:
    """One block for N repeats of a point: the median-throughput run, with the spread of all."""
    if len(runs) == 1:
        return runs[0]
    ordered = sorted(runs, key=lambda b: b["throughput"]["output_tok_s"] or 0.0)
    chosen = dict(ordered[(len(ordered) - 1) // 2])
    failed = sum(b["requests"]["failed"] for b in runs)
    reasons: dict[str, int] = {}
    for b in runs:
        for k, v in b["requests"]["failure_reasons"].items():
            reasons[k] = reasons.get(k, 0) + v
    # validity must see every repeat's failures, not only the chosen run's
    chosen["requests"] = {
        **chosen["requests"],
        "failed": failed,
        "ok": sum(b["requests"]["ok"] for b in runs),
        "failure_reasons": dict(sorted(reasons.items())),
    }
    chosen["failures"] = [f for b in runs for f in b["failures"]][:50]
    chosen["repeats"] = {
        "n": len(runs),
        "recorded": "the run with the median output tok/s",
        "output_tok_s": spread([b["throughput"]["output_tok_s"] for b in runs]),
        "ttft_p95_ms": spread([b["latency_ms"]["ttft"]["p95"] for b in runs]),
        "tpot_p50_ms": spread([b["latency_ms"]["tpot"]["p50"] for b in runs]),
    }
    return chosen
