"""The calibrated half of the performance model: the measured results, read against the physics
of :mod:`costmodel.perf_model`, fix how much of each bound a part, vendor, runtime, precision,
regime and benchmark achieve.

For each figure (output tok/s per accelerator, TTFT p50 and p99, TPOT p50) the log of
measured ÷ bound is fitted as a sum of effects: one overall, one per vendor, per part, per model
family, per benchmark, per runtime, per precision, per regime and per MLPerf round (an
estimate is read at the newest round's, today's software). The effects are fitted
together by ridge regression with Huber weights (a robust median-like fit: one wild result
moves nothing much), and the ridge pulls every effect toward zero, so a part with few results
sits near its vendor and a vendor with few near the overall figure (hierarchical shrinkage). A
category the fit never saw contributes nothing: the estimate falls back to the levels above it.

The 80% interval comes from leave-one-out residuals (:func:`leave_one_out`): for each
(model, accelerator) pair, fit without any of its results and predict them. Residuals are
grouped by how far the evidence left in the fit is from the case (:data:`EVIDENCE`); an
estimate's interval is the 10%–90% quantiles of its group's residuals.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from costmodel.memory import ModelArchitecture
from costmodel.perf_model import Cases, Hardware, Physics, case_fields, cases_from, physics
from tokendesk.runtimes import canonical_runtime

#: The figures the model estimates: name -> the measured column (ms or tok/s).
METRICS = {
    "tok_s": "output_tok_s_per_accelerator",
    "ttft_p50": "ttft_ms_p50",
    "ttft_p99": "ttft_ms_p99",
    "tpot_p50": "tpot_ms_p50",
}
#: The effects fitted, each with its ridge penalty (larger: pulled harder toward the level above;
#: a category needs about this many results to move halfway to its own median).
EFFECTS = {
    "vendor": 2.0,
    "part": 3.0,
    "family": 3.0,
    "benchmark": 3.0,
    "runtime": 4.0,
    "precision": 4.0,
    "regime": 1.0,
    "benchmark_regime": 3.0,
    "part_regime": 4.0,
    "round": 3.0,
}
#: Huber threshold on log residuals (×1.35 either way counts in full; beyond, less).
HUBER_LOG = 0.3
IRLS_ROUNDS = 4
#: How far the evidence is from a case, nearest first.
EVIDENCE = (
    "same model and part",
    "same part, same model family",
    "same part, other model family",
    "other part of the same vendor",
    "no result of this vendor",
)
#: A part with fewer results than this in a fit is read as a part without results for its
#: interval (its fitted effect is mostly the vendor's).
THIN_PART = 20
THIN_VENDOR = 60
#: A load (a regime) measured by fewer results than this in a fit is said to be thin: the
#: estimate's efficiencies then come mostly from results at other loads.
THIN_REGIME = 60
#: A group with fewer leave-one-out residuals than this borrows the next nearer group's, widened
#: by ``WIDEN`` per step (farther evidence is never trusted more than nearer evidence).
MIN_GROUP = 12
WIDEN = 1.35
#: The interval: 10% to 90% of the residuals (an 80% interval).
LOW_Q, HIGH_Q = 0.10, 0.90
#: Benchmarks that state no mean input length (MLPerf's reference documents state none) are read
#: at this many input tokens; the benchmark's fitted effect takes up the difference. The same
#: for an unstated output length.
ASSUMED_INPUT_TOKENS = 1024.0
ASSUMED_OUTPUT_TOKENS = 256.0
_TTFT_LIMIT = re.compile(r"TTFT\s*<=\s*([0-9.]+)\s*ms", re.IGNORECASE)
_TPOT_LIMIT = re.compile(r"TPOT\s*<=\s*([0-9.]+)\s*ms", re.IGNORECASE)
_SCENARIO_SUFFIX = re.compile(r"-(offline|server|interactive)$")
#: An MLPerf round as results name it ("v5.1").
_ROUND = re.compile(r"^v\d+(\.\d+)*$")
#: The importer's note on a run whose measurements JSON names its source checkpoint's type
#: ("weight_data_types fp16 with weight_transformations 'quantization'").
_QUANTIZED_FROM = re.compile(r"weight_transformations '[^']*quantiz", re.IGNORECASE)
#: Parts whose quantised MLPerf runs are FP4 (Blackwell), not FP8 (see :func:`run_precision`).
FP4_PARTS = ("b200", "b300")
_ACCURACY_SUFFIX = re.compile(r"-99(\.9)?$")


def regime_of(scenario: str, concurrency: float | None) -> str:
    """offline / server / interactive, or concurrency where a run states how many requests it
    kept in flight (whatever its scenario says: its load is that concurrency)."""
    if concurrency is not None:
        return "concurrency"
    if scenario == "offline":
        return "offline"
    if scenario == "interactive":
        return "interactive"
    if scenario in ("server", "online"):
        return "server"
    return "server"


def benchmark_key(model_id: str, workload: str) -> str:
    """The benchmark a result ran: its model and workload, less the scenario and MLPerf's
    accuracy target (the 99% and 99.9% runs read the same prompts), with "_" read as "."
    (submitters file one MLPerf benchmark under both spellings: "llama3.1-8b" by most,
    "llama3_1-8b" by every Xeon run and "llama3_1-405b" by Cisco's; read as two, the Xeon runs'
    benchmark was fitted from those runs alone)."""
    base = _ACCURACY_SUFFIX.sub("", _SCENARIO_SUFFIX.sub("", workload or "unstated"))
    return f"{model_id}:{base.replace('_', '.')}"


def ttft_limit_ms(notes: str) -> float | None:
    found = _TTFT_LIMIT.search(notes or "")
    return float(found.group(1)) if found else None


def tpot_limit_ms(notes: str) -> float | None:
    found = _TPOT_LIMIT.search(notes or "")
    return float(found.group(1)) if found else None


@dataclass
class Corpus:
    """The measured results the model is calibrated on, with their physics, as arrays."""

    rows: list[dict[str, Any]]
    cats: dict[str, np.ndarray]  # effect name -> category label per row
    pair: np.ndarray  # "model_id|accelerator_id"
    model_id: np.ndarray
    measured: dict[str, np.ndarray]  # metric -> measured value (NaN where not measured)
    phys: Physics
    bound: dict[str, np.ndarray] = field(default_factory=dict)  # metric -> physics bound
    #: The run's p99 TTFT target (ms; NaN where it had none): at the load a run is held to,
    #: first-token latency sits near its target, whatever the prefill takes.
    ttft_limit: np.ndarray = field(default_factory=lambda: np.zeros(0))
    #: Each effect's categories (sorted) and every row's index into them.
    levels: dict[str, list[str]] = field(default_factory=dict)
    codes: dict[str, np.ndarray] = field(default_factory=dict)

    def __len__(self) -> int:
        return len(self.rows)


def _float(value: Any) -> float | None:
    if value is None:
        return None
    try:
        out = float(value)
    except (TypeError, ValueError):
        return None
    return out if np.isfinite(out) else None


#: A figure fitted as its ratio to another (``metric -> base``): the p99 TTFT as a multiple of
#: the p50. Under load the tail is queueing, not prefill; the physics bound says nothing of how
#: far the tail sits above the median (the residuals of a fit on the prefill bound do not
#: correlate with it, with the latency targets, the shape or the batch), while the ratio is a
#: property of the runtime and load the effects do describe, and a p99 read this way can never
#: fall below its own p50.
RATIO_OF = {"ttft_p99": "ttft_p50"}


def bounds_of(phys: Physics) -> dict[str, np.ndarray]:
    """Each metric's physics figure, in the measured unit (tok/s; ms); 1 for a ratio
    (:data:`RATIO_OF`), which has none of its own."""
    return {
        "tok_s": phys.tok_s_per_acc,
        "ttft_p50": phys.ttft_s * 1000.0,
        "ttft_p99": np.ones_like(phys.ttft_s),
        "tpot_p50": phys.tpot_s * 1000.0,
    }


def fitted_values(corpus: Corpus, metric: str) -> np.ndarray:
    """What a metric's fit reads per row (log taken by the caller): the measured figure, or its
    ratio to its base figure (:data:`RATIO_OF`)."""
    base = RATIO_OF.get(metric)
    values = corpus.measured[metric]
    return values / corpus.measured[base] if base is not None else values


def build_corpus(
    results: list[dict[str, Any]],
    architectures: dict[str, ModelArchitecture],
    hardware: dict[str, Hardware],
    resolve: Any,
) -> Corpus:
    """The calibration set: every result whose model resolves (``resolve(name)`` -> an
    architecture or None) and whose part is in ``hardware``, read against its physics. Rows the
    physics cannot place (the model does not fit the system) are left out, and so is a second
    copy of one measurement (:func:`measurement_key`): MLPerf's 99% and 99.9% accuracy runs of one
    system are often the same run filed twice, and a curated row may repeat an imported one under
    another spelling of the model. Counted twice, a measurement would weigh double in the fit and
    in the validation's medians."""
    kept: list[dict[str, Any]] = []
    fields: list[dict[str, float]] = []
    seen: set[tuple] = set()
    for row in sorted(results, key=_preference):
        arch = resolve(str(row.get("model") or ""))
        hw = hardware.get(str(row.get("accelerator_id")))
        tok = _float(row.get("output_tok_s_per_accelerator"))
        if arch is None or hw is None or tok is None or tok <= 0:
            continue
        key = measurement_key(row, arch.model_id, tok)
        if key in seen:
            continue
        seen.add(key)
        try:
            fields.append(_row_fields(row, arch, hw))
        except ValueError:  # a precision the physics does not know
            continue
        kept.append({**row, "_arch": arch, "_hw": hw})
    phys = physics(cases_from(fields)) if fields else _empty_physics()
    fits = phys.fits
    kept = [r for r, ok in zip(kept, fits, strict=True) if ok]
    phys = Physics(*(getattr(phys, f)[fits] for f in Physics.__dataclass_fields__))
    return _corpus(kept, phys)


#: A source address pinned to one commit (a 40-hex id in its path).
_PINNED = re.compile(r"/[0-9a-f]{40}(/|$)")


def _preference(row: dict[str, Any]) -> tuple:
    """Of two copies of one measurement the one kept: the one whose source is pinned to a
    commit, then the one with more latency figures, then the smaller id (stable)."""
    latencies = sum(row.get(c) is not None for c in ("ttft_ms_p50", "ttft_ms_p99", "tpot_ms_p50"))
    return (
        not _PINNED.search(str(row.get("source_url") or "")),
        -latencies,
        str(row.get("result_id")),
    )


def measurement_key(row: dict[str, Any], model_id: str, tok_s_per_acc: float) -> tuple:
    """What makes two result rows one measurement: the model (however spelt), the part, the
    scenario, the system's size and the throughput to 0.01 tok/s per accelerator."""
    return (
        model_id,
        str(row.get("accelerator_id")),
        str(row.get("scenario")),
        int(row.get("accelerators_per_replica") or 1),
        round(tok_s_per_acc, 2),
    )


def _empty_physics() -> Physics:
    empty = np.zeros(0)
    return Physics(empty, empty, empty, empty, empty, np.zeros(0, dtype=bool))


def stated_shape(row: dict[str, Any]) -> tuple[float, float] | None:
    """(input, output) mean tokens a result records, or None unless it records both: half a
    shape (a dataset's input mean beside an output stated only in characters) is none."""
    inputs, outputs = _float(row.get("input_tokens_mean")), _float(row.get("output_tokens_mean"))
    return (inputs, outputs) if inputs and outputs else None


def shape_of(row: dict[str, Any]) -> tuple[float, float]:
    """(input, output) tokens a result is read at: its stated shape, else the assumed pair
    (paired with half a shape, the assumed other half would misstate the prefill share; the
    benchmark's fitted effect takes up an assumed pair's difference as it does for no shape)."""
    return stated_shape(row) or (ASSUMED_INPUT_TOKENS, ASSUMED_OUTPUT_TOKENS)


def run_precision(row: dict[str, Any]) -> str:
    """The precision a result ran at, as the physics reads it. An MLPerf run whose measurements
    JSON says fp16 weights *with* a quantization transformation names its source checkpoint, not
    what ran: NVIDIA's calibration.md (MLPerf v4.1) says its LLM submissions quantise to FP8 on
    parts with FP8 and to FP4 on Blackwell, and the quantised AMD runs are AMD's FP8 stack. Read
    at FP16, those runs sat at or above the FP16 compute bound (physically impossible)."""
    stated = str(row.get("precision") or "").lower()
    if stated in ("fp16", "bf16") and _QUANTIZED_FROM.search(str(row.get("notes") or "")):
        part = str(row.get("accelerator_id") or "")
        return "fp4" if any(tag in part for tag in FP4_PARTS) else "fp8"
    return stated


def round_of(row: dict[str, Any]) -> str:
    """The MLPerf round a result was submitted to ("mlperf v5.1"), else "other": each round's
    rules and software generation move every result of it alike."""
    stated = str(row.get("round_or_version") or "")
    if str(row.get("tool") or "") == "mlperf" and _ROUND.match(stated):
        return f"mlperf {stated}"
    return "other"


def newest_round(labels: np.ndarray) -> str:
    """The newest MLPerf round among ``labels`` (an estimate is made at today's software: the
    newest round's), or "other" when there is none."""
    rounds = [str(v) for v in set(labels) if str(v).startswith("mlperf v")]
    if not rounds:
        return "other"
    return max(rounds, key=lambda r: tuple(int(p) for p in r.removeprefix("mlperf v").split(".")))


def fixed_replica(size: int, concurrency: float | None, one_replica: bool = False) -> int:
    """The replica size a count of accelerators fixes (0: none, the physics chooses): a load at a
    stated concurrency is served by one replica of that size; otherwise the count is a system's
    (an MLPerf system's), split into replicas as the physics finds best, unless a question says
    it is one replica (``one_replica``: a deployment's tensor-parallel size). Results and
    questions are read by this one rule."""
    return size if concurrency is not None or one_replica else 0


def _row_fields(row: dict[str, Any], arch: ModelArchitecture, hw: Hardware) -> dict[str, float]:
    conc = _float(row.get("concurrency"))
    system = int(row.get("accelerators_per_replica") or 1)
    inputs, outputs = shape_of(row)
    return case_fields(
        arch,
        hw,
        run_precision(row),
        system=system,
        fixed_tp=fixed_replica(system, conc),
        input_tokens=inputs,
        output_tokens=outputs,
        regime=regime_of(str(row.get("scenario")), conc),
        tpot_limit_ms=tpot_limit_ms(str(row.get("notes") or "")),
        concurrency=conc,
    )


def labels_of(row: dict[str, Any]) -> dict[str, str]:
    """A row's category per effect."""
    arch: ModelArchitecture = row["_arch"]
    hw: Hardware = row["_hw"]
    regime = regime_of(str(row.get("scenario")), _float(row.get("concurrency")))
    benchmark = benchmark_key(arch.model_id, str(row.get("workload") or ""))
    return {
        # A vendor's CPUs and its accelerators are different machines (Intel Xeon, Gaudi).
        "vendor": f"{hw.vendor} {hw.backend}",
        "part": hw.accelerator_id,
        "family": arch.family,
        "benchmark": benchmark,
        "runtime": canonical_runtime(row.get("runtime")),
        "precision": run_precision(row),
        "regime": regime,
        "benchmark_regime": f"{benchmark}|{regime}",
        "part_regime": f"{hw.accelerator_id}|{regime}",
        "round": round_of(row),
    }


def _corpus(rows: list[dict[str, Any]], phys: Physics) -> Corpus:
    labels = [labels_of(r) for r in rows]
    cats = {e: np.array([lab[e] for lab in labels], dtype=object) for e in EFFECTS}
    model_id = np.array([r["_arch"].model_id for r in rows], dtype=object)
    pair = np.array(
        [f"{m}|{r['_hw'].accelerator_id}" for m, r in zip(model_id, rows, strict=True)],
        dtype=object,
    )
    measured = {
        m: np.array([_float(r.get(col)) or np.nan for r in rows], dtype=float)
        for m, col in METRICS.items()
    }
    limit = np.array(
        [ttft_limit_ms(str(r.get("notes") or "")) or np.nan for r in rows], dtype=float
    )
    levels = {e: sorted(set(cats[e])) for e in EFFECTS}
    codes = {
        e: np.array([{lv: i for i, lv in enumerate(levels[e])}[v] for v in cats[e]], dtype=int)
        for e in EFFECTS
    }
    return Corpus(rows, cats, pair, model_id, measured, phys, bounds_of(phys), limit, levels, codes)


@dataclass(frozen=True)
class Fit:
    """One metric's fitted effects: intercept + slopes · continuous terms + effect[name][category]
    in log space."""

    metric: str
    intercept: float
    effects: dict[str, dict[str, float]]
    results: int
    #: Coefficients of :data:`CONTINUOUS`.
    slopes: tuple[float, ...]

    def log_value(self, labels: dict[str, str], bound: float, ttft_limit: float | None) -> float:
        """log of the calibrated figure for one case."""
        terms = continuous_terms(
            np.array([bound]), np.array([np.nan if ttft_limit is None else ttft_limit])
        )[0]
        return (
            self.intercept
            + float(np.dot(self.slopes, terms))
            + sum(self.effects[e].get(labels[e], 0.0) for e in EFFECTS if e in labels)
        )


#: Continuous terms of every fit: the log of the physics bound (its slope fitted: the bound's
#: spread across parts is not all achieved) and the log of the run's TTFT target.
CONTINUOUS = ("log_bound", "log_ttft_limit", "has_ttft_limit")


def continuous_terms(bound: np.ndarray, ttft_limit: np.ndarray) -> np.ndarray:
    has = np.isfinite(ttft_limit)
    return np.column_stack(
        [np.log(bound), np.where(has, np.log(np.where(has, ttft_limit, 1.0)), 0.0), has * 1.0]
    )


#: Backfitting sweeps (each effect re-fitted on the others' residual); Huber weights are
#: renewed every ``REWEIGHT_EVERY`` sweeps.
SWEEPS = 24
REWEIGHT_EVERY = 6


def fit_metric(corpus: Corpus, metric: str, keep: np.ndarray | None = None) -> Fit | None:
    """Fit one metric on the rows ``keep`` selects (all by default) that measured it; None when
    none did. Backfitting: the continuous terms by weighted least squares, then each effect as
    the shrunken weighted mean of what the rest leaves, ``sum(w r) / (sum(w) + penalty)`` per
    category, repeated; no large matrix is formed (a few milliseconds a fit)."""
    with np.errstate(invalid="ignore"):
        y_all = np.log(fitted_values(corpus, metric))
    use = np.isfinite(y_all) & np.isfinite(np.log(corpus.bound[metric]))
    if keep is not None:
        use &= keep
    if not use.any():
        return None
    y = y_all[use]
    x = np.column_stack(
        [np.ones(len(y)), continuous_terms(corpus.bound[metric][use], corpus.ttft_limit[use])]
    )
    codes = {e: corpus.codes[e][use] for e in EFFECTS}
    sizes = {e: len(corpus.levels[e]) for e in EFFECTS}
    effect = {e: np.zeros(sizes[e]) for e in EFFECTS}
    by_row = {e: np.zeros(len(y)) for e in EFFECTS}
    weights = np.ones(len(y))
    beta = np.zeros(x.shape[1])
    ridge = np.diag([1e-6] + [1e-3] * (x.shape[1] - 1))
    for sweep in range(SWEEPS):
        rest = y - sum(by_row.values())
        xw = x * weights[:, None]
        beta = np.linalg.solve(xw.T @ x + ridge, xw.T @ rest)
        base = x @ beta
        for e, lam in EFFECTS.items():
            partial = y - base - (sum(by_row.values()) - by_row[e])
            num = np.bincount(codes[e], weights * partial, minlength=sizes[e])
            den = np.bincount(codes[e], weights, minlength=sizes[e]) + lam
            effect[e] = num / den
            by_row[e] = effect[e][codes[e]]
        if (sweep + 1) % REWEIGHT_EVERY == 0:
            resid = np.abs(y - base - sum(by_row.values()))
            weights = np.where(resid <= HUBER_LOG, 1.0, HUBER_LOG / np.maximum(resid, 1e-12))
    seen = {e: np.bincount(codes[e], minlength=sizes[e]) > 0 for e in EFFECTS}
    effects = {
        e: {
            str(level): float(value)
            for level, value, ok in zip(corpus.levels[e], effect[e], seen[e], strict=True)
            if ok
        }
        for e in EFFECTS
    }
    slopes = tuple(float(b) for b in beta[1:])
    return Fit(metric, float(beta[0]), effects, int(use.sum()), slopes)


def predict(fit: Fit, corpus: Corpus, rows: np.ndarray) -> np.ndarray:
    """The calibrated figure for the corpus rows selected by ``rows`` (a boolean mask)."""
    idx = np.flatnonzero(rows)
    cont = continuous_terms(corpus.bound[fit.metric][idx], corpus.ttft_limit[idx])
    logs = fit.intercept + cont @ np.array(fit.slopes)
    for effect in EFFECTS:
        table = fit.effects[effect]
        logs += np.array([table.get(v, 0.0) for v in corpus.cats[effect][idx]], dtype=float)
    return np.exp(logs)


def evidence_level(
    seen: dict[str, Any],
    model_id: str,
    family: str,
    part: str,
    vendor: str,
    runtime: str,
) -> int:
    """The index in :data:`EVIDENCE` of the nearest evidence ``seen`` holds (an unseen runtime
    counts one step farther; a part with fewer than :data:`THIN_PART` results counts as one
    without: its own effect rests on too little to narrow the interval; the same for a vendor
    with fewer than :data:`THIN_VENDOR`)."""
    on_part = seen["part_count"].get(part, 0) >= THIN_PART
    if (model_id, part) in seen["pair"]:
        level = 0
    elif (family, part) in seen["family_part"] and on_part:
        level = 1
    elif on_part:
        level = 2
    elif seen["vendor_count"].get(vendor, 0) >= THIN_VENDOR:
        level = 3
    else:
        level = 4
    if runtime not in seen["runtime"]:
        level = min(level + 1, len(EVIDENCE) - 1)
    return level


def seen_sets(corpus: Corpus, keep: np.ndarray) -> dict[str, Any]:
    idx = np.flatnonzero(keep)
    part, fam, ven = corpus.cats["part"], corpus.cats["family"], corpus.cats["vendor"]
    return {
        "pair": {(corpus.model_id[i], part[i]) for i in idx},
        "family_part": {(fam[i], part[i]) for i in idx},
        "part": {part[i] for i in idx},
        "part_count": Counter(part[i] for i in idx),
        "vendor": {ven[i] for i in idx},
        "vendor_count": Counter(ven[i] for i in idx),
        "runtime": {corpus.cats["runtime"][i] for i in idx},
    }


@dataclass
class LeaveOneOut:
    """Per metric and corpus row: the prediction made without the row's (model, part) pair and
    the evidence level of that prediction (NaN / -1 where the row did not measure the metric)."""

    predicted: dict[str, np.ndarray]
    level: dict[str, np.ndarray]
    #: For each pair, the rows of the corpus the fits that predicted it used (for the test that
    #: the held-out pair never reaches its own fit).
    fitted_on: dict[str, np.ndarray]


def leave_one_out(corpus: Corpus) -> LeaveOneOut:
    """For each (model, accelerator) pair: fit every metric without any of its results, then
    predict them."""
    n = len(corpus)
    predicted = {m: np.full(n, np.nan) for m in METRICS}
    level = {m: np.full(n, -1) for m in METRICS}
    fitted_on: dict[str, np.ndarray] = {}
    for pair in sorted(set(corpus.pair)):
        held = corpus.pair == pair
        keep = ~held
        fitted_on[pair] = keep
        fits: dict[str, Fit | None] = {}
        for metric in METRICS:
            rows = held & np.isfinite(corpus.measured[metric])
            if not rows.any():
                continue
            fit = fits[metric] = fit_metric(corpus, metric, keep)
            base = RATIO_OF.get(metric)
            if base is not None and base not in fits:
                fits[base] = fit_metric(corpus, base, keep)
            base_fit = fits.get(base) if base is not None else None
            if fit is None or (base is not None and base_fit is None):
                continue
            value = predict(fit, corpus, rows)
            if base_fit is not None:
                value = predict(base_fit, corpus, rows) * np.maximum(value, 1.0)
            predicted[metric][rows] = value
            metric_keep = keep & np.isfinite(corpus.measured[metric])
            lv = _levels(corpus, seen_sets(corpus, metric_keep), rows)
            level[metric][rows] = lv
    return LeaveOneOut(predicted, level, fitted_on)


def _levels(corpus: Corpus, seen: dict[str, Any], rows: np.ndarray) -> np.ndarray:
    return np.array(
        [
            evidence_level(
                seen,
                corpus.model_id[i],
                corpus.cats["family"][i],
                corpus.cats["part"][i],
                corpus.cats["vendor"][i],
                corpus.cats["runtime"][i],
            )
            for i in np.flatnonzero(rows)
        ],
        dtype=int,
    )


def log_residuals(corpus: Corpus, loo: LeaveOneOut, metric: str) -> np.ndarray:
    """log(measured ÷ leave-one-out prediction) per row (NaN where not measured)."""
    return np.log(corpus.measured[metric]) - np.log(loo.predicted[metric])


def interval_factors(
    residuals: np.ndarray,
    levels: np.ndarray,
    level: int,
    same_vendor: np.ndarray | None = None,
) -> tuple[float, float, int]:
    """(low, high) multipliers of an estimate at evidence ``level``, from the residuals given,
    and the number of residuals they rest on. A thin group borrows the nearest fuller one at or
    below its level (widened ``WIDEN`` per step), then the nearest above it.

    ``same_vendor`` marks the residuals of the estimate's own vendor (and kind of part): where
    they are at least ``MIN_GROUP`` and spread wider than the level's, the interval takes their
    spread. A vendor with little evidence (Intel's Gaudi, CPUs) misses by more than the corpus
    at large, and its interval must say so."""
    lo, hi, n = _level_factors(residuals, levels, level)
    if same_vendor is None:
        return lo, hi, n
    own = residuals[np.isfinite(residuals) & same_vendor]
    if len(own) < MIN_GROUP:
        return lo, hi, n
    v_lo, v_hi = np.quantile(own, [LOW_Q, HIGH_Q])
    return min(lo, float(np.exp(min(v_lo, 0.0)))), max(hi, float(np.exp(max(v_hi, 0.0)))), n


#: The figures a first-token target bounds: a valid run's p50 and p99 first-token latencies sit
#: at or under its p99 target.
TARGET_BOUNDED = ("ttft_p50", "ttft_p99")


def reach_target(metric: str, level: Any, high: Any, ttft_limit: Any) -> np.ndarray:
    """An interval's high end (one or many), raised to the first-token target where the estimate
    has no result of its vendor (the farthest :data:`EVIDENCE`) and is held to a target. Where a
    first-token latency sits under its target is the scheduler's choice (how long it holds a
    prompt to fill a batch), and no first-token result of the vendor says where its scheduler
    sits: Intel's Xeon runs of one benchmark, held to 2,000 ms at a like throughput, moved from
    a median of about 515 ms (MLPerf v5.1) to about 1,400 ms (v6.0). A valid run never exceeds
    its target, so the target is where such an interval ends."""
    high = np.asarray(high, dtype=float)
    if metric not in TARGET_BOUNDED:
        return high
    limit = np.asarray(ttft_limit, dtype=float)
    far = (np.asarray(level) == len(EVIDENCE) - 1) & np.isfinite(limit)
    return np.where(far, np.fmax(high, limit), high)


def _level_factors(
    residuals: np.ndarray, levels: np.ndarray, level: int
) -> tuple[float, float, int]:
    ok = np.isfinite(residuals)
    order = [*range(level, -1, -1), *range(level + 1, len(EVIDENCE))]
    for candidate in order:
        group = residuals[ok & (levels == candidate)]
        if len(group) >= MIN_GROUP:
            widen = WIDEN ** max(level - candidate, 0)
            lo, hi = np.quantile(group, [LOW_Q, HIGH_Q])
            return (
                float(np.exp(min(lo, 0.0) * widen)),
                float(np.exp(max(hi, 0.0) * widen)),
                len(group),
            )
    group = residuals[ok]
    if len(group) == 0:
        return 0.5, 2.0, 0
    lo, hi = np.quantile(group, [LOW_Q, HIGH_Q])
    widen = WIDEN ** len(EVIDENCE)
    return float(np.exp(min(lo, 0.0) * widen)), float(np.exp(max(hi, 0.0) * widen)), len(group)


def one_case(fields: dict[str, float]) -> Cases:
    return cases_from([fields])
