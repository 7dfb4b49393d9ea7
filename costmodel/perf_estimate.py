"""Estimates for any model × accelerator × shape × load: the calibrated performance model
(:mod:`costmodel.perf_model`, :mod:`costmodel.perf_calibration`) answering one question, with an
80% interval, or a measured result where one sits at the question's shape.

Callers build an :class:`Estimator` once from the measured results and ask it
:meth:`Estimator.estimate` for each :class:`EstimateQuery`.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import asdict, dataclass
from typing import Any

import numpy as np

from costmodel.memory import ModelArchitecture
from costmodel.perf_calibration import (
    ASSUMED_INPUT_TOKENS,
    ASSUMED_OUTPUT_TOKENS,
    EVIDENCE,
    METRICS,
    RATIO_OF,
    THIN_REGIME,
    Corpus,
    Fit,
    LeaveOneOut,
    benchmark_key,
    bounds_of,
    evidence_level,
    fit_metric,
    fixed_replica,
    interval_factors,
    leave_one_out,
    log_residuals,
    newest_round,
    reach_target,
    seen_sets,
    stated_shape,
    tpot_limit_ms,
)
from costmodel.perf_model import Hardware, case_fields, cases_from, physics
from tokendesk.runtimes import PLACEHOLDERS, canonical_runtime

SCENARIOS = ("offline", "server", "interactive")
#: Without a replica size asked for, the physics picks the best up to this many accelerators.
MAX_REPLICA = 64


@dataclass(frozen=True)
class EstimateQuery:
    model: str
    accelerator_id: str
    precision: str
    accelerators_per_replica: int | None = None
    runtime: str | None = None
    input_tokens: float | None = None
    output_tokens: float | None = None
    #: One of offline / server / interactive, or None with a concurrency or a TTFT target.
    scenario: str | None = None
    concurrency: float | None = None
    ttft_slo_ms: float | None = None
    #: Leave every result of this model × accelerator out of the fit.
    leave_out: bool = False
    #: Read ``accelerators_per_replica`` as one replica of that size at any load (a deployment's
    #: tensor-parallel size), not as a system to split (see :func:`fixed_replica`).
    one_replica: bool = False


@dataclass(frozen=True)
class Band:
    estimate: float
    low: float
    high: float


@dataclass(frozen=True)
class Estimate:
    query: EstimateQuery
    model_id: str
    output_tok_s_per_accelerator: Band
    ttft_ms_p50: Band
    ttft_ms_p99: Band
    tpot_ms_p50: Band
    #: "measured" (a result at this shape) or "estimated".
    basis: str
    evidence: str
    input_tokens: float
    output_tokens: float
    shape_note: str
    replica_size: int
    batch: float
    #: Whether the p99 TTFT estimate meets the TTFT target asked (None: none was asked).
    meets_ttft_slo: bool | None
    #: The results nearest the question the fit used, (result_id, source) of each: every
    #: result of the same model or the same part (the fit reads all ``calibration_results``;
    #: these are the ones that move this estimate most). With ``leave_out`` none is of the
    #: model × accelerator asked.
    calibrated_on: tuple[tuple[Any, str], ...]
    calibration_results: int
    #: What widened an interval beyond its residuals' spread, in words ("" where nothing did).
    interval_note: str = ""
    #: The runtime the estimate reads, by its one name (a measured answer asked with none: the
    #: runtimes its results ran, joined), and how the question's was read.
    runtime: str = ""
    runtime_note: str = ""
    #: Where few results in the fit ran at the load asked, in words ("" where enough did).
    load_note: str = ""

    def as_dict(self) -> dict[str, Any]:
        out = asdict(self)
        out["calibrated_on"] = [{"result_id": i, "source": s} for i, s in self.calibrated_on]
        return out


class EstimateError(ValueError):
    """A question the model cannot answer, said in words."""


class Estimator:
    """The model fitted on a corpus, with leave-one-out residuals for the intervals."""

    def __init__(
        self,
        corpus: Corpus,
        architectures: dict[str, ModelArchitecture],
        hardware: dict[str, Hardware],
        resolve: Any,
        loo: LeaveOneOut | None = None,
    ) -> None:
        self.corpus = corpus
        self.architectures = architectures
        self.hardware = hardware
        self.resolve = resolve
        # ``loo`` is the same corpus's leave-one-out, kept from an earlier build (it is the
        # seconds of building one; ``planning.estimates`` keeps it per results snapshot).
        self.loo: LeaveOneOut = leave_one_out(corpus) if loo is None else loo
        self._fits: dict[str, Fit | None] = {m: fit_metric(corpus, m) for m in METRICS}

    def _arch(self, model: str) -> ModelArchitecture:
        arch = self.resolve(model)
        if arch is None:
            known = ", ".join(sorted(self.architectures))
            raise EstimateError(
                f"model {model!r} is not in data/model_architectures.csv; use one of {known}"
                " (or add its architecture to that table)"
            )
        return arch

    def _hw(self, accelerator_id: str) -> Hardware:
        if accelerator_id not in self.hardware:
            known = ", ".join(sorted(self.hardware))
            raise EstimateError(
                f"accelerator {accelerator_id!r} is not in data/accelerators.csv; use one of"
                f" {known}"
            )
        return self.hardware[accelerator_id]

    def estimate(self, query: EstimateQuery) -> Estimate:
        arch = self._arch(query.model)
        hw = self._hw(query.accelerator_id)
        c = self.corpus
        pair = f"{arch.model_id}|{hw.accelerator_id}"
        keep = c.pair != pair if query.leave_out else np.ones(len(c), dtype=bool)
        regime = _regime(query)
        same_model = keep & (c.model_id == arch.model_id)
        bench = _most_common(c.cats["benchmark"][same_model]) or benchmark_key(
            arch.model_id, "unstated"
        )
        in_bench = same_model & (c.cats["benchmark"] == bench)
        input_tokens, output_tokens, note = self._shape(query, in_bench)
        limits = self._limits(query, regime, bench, keep)
        runtime, runtime_note = self._runtime(query, hw, keep)
        labels = {
            "vendor": f"{hw.vendor} {hw.backend}",
            "part": hw.accelerator_id,
            "family": arch.family,
            "benchmark": bench,
            "runtime": runtime,
            "precision": query.precision.lower(),
            "regime": regime,
            "benchmark_regime": f"{bench}|{regime}",
            "part_regime": f"{hw.accelerator_id}|{regime}",
            "round": newest_round(c.cats["round"][keep]),
        }
        # The calibration read the model's results at its benchmark's shape (where the source
        # states no input length, at an assumed one): the fitted level is taken there, and the
        # physics alone carries it to the shape asked (prefill grows with every input token).
        ref_in, ref_out, _ = self._shape(EstimateQuery(query.model, "", ""), in_bench)
        try:
            both = [
                case_fields(
                    arch,
                    hw,
                    query.precision,
                    system=query.accelerators_per_replica or MAX_REPLICA,
                    fixed_tp=fixed_replica(
                        query.accelerators_per_replica or 0, query.concurrency, query.one_replica
                    ),
                    input_tokens=tokens_in,
                    output_tokens=tokens_out,
                    regime=regime,
                    tpot_limit_ms=limits[1],
                    concurrency=query.concurrency,
                )
                for tokens_in, tokens_out in ((input_tokens, output_tokens), (ref_in, ref_out))
            ]
        except ValueError as exc:
            raise EstimateError(str(exc)) from None
        phys = physics(cases_from(both))
        if not phys.fits.all():
            size = query.accelerators_per_replica or "up to 64"
            raise EstimateError(
                f"{arch.name} in {query.precision} does not fit {size} × {hw.accelerator_id}"
                " with room for its KV cache; pass a larger --accelerators-per-replica"
            )
        bounds = {m: float(v[0]) for m, v in bounds_of(phys).items()}
        at_ref = {m: float(v[1]) for m, v in bounds_of(phys).items()}
        fits = self._fits if not query.leave_out else {m: fit_metric(c, m, keep) for m in METRICS}
        seen = seen_sets(c, keep)
        level = evidence_level(
            seen, arch.model_id, arch.family, hw.accelerator_id, labels["vendor"], runtime
        )
        level = max(level, 1)  # not at the measured shape: no nearer than another result
        bands: dict[str, Band] = {}
        reached: set[str] = set()  # the figures whose high end the target set
        for metric in METRICS:
            fit = fits[metric]
            value = (
                float(np.exp(fit.log_value(labels, at_ref[metric], limits[0])))
                * bounds[metric]
                / at_ref[metric]
                if fit is not None
                else bounds[metric]
            )
            base = RATIO_OF.get(metric)
            if base is not None:  # a multiple of its base figure, never below it
                value = bands[base].estimate * max(value, 1.0)
            others = np.where(c.pair == pair, np.nan, log_residuals(c, self.loo, metric))
            lo, hi, _ = interval_factors(
                others, self.loo.level[metric], level, c.cats["vendor"] == labels["vendor"]
            )
            high = float(
                reach_target(metric, level, value * hi, np.nan if limits[0] is None else limits[0])
            )
            if high > value * hi:
                reached.add(metric)
            bands[metric] = Band(value, value * lo, high)
        measured = self._measured(
            query, arch, hw, regime, keep & (c.cats["benchmark"] == bench), runtime
        )
        basis = "estimated"
        found: dict[str, Band] = {}
        if measured is not None:
            found, runtimes = measured
            bands.update(found)
            basis = "measured"
            if not query.runtime:  # the measured answer reads every runtime's results
                runtime = ", ".join(runtimes)
                runtime_note = f"no runtime given: the results measured on {runtime}"
        used = keep & ((c.model_id == arch.model_id) | (c.cats["part"] == hw.accelerator_id))
        return Estimate(
            query=query,
            model_id=arch.model_id,
            output_tok_s_per_accelerator=bands["tok_s"],
            ttft_ms_p50=bands["ttft_p50"],
            ttft_ms_p99=bands["ttft_p99"],
            tpot_ms_p50=bands["tpot_p50"],
            basis=basis,
            evidence="a measured result at this shape" if basis == "measured" else EVIDENCE[level],
            input_tokens=input_tokens,
            output_tokens=output_tokens,
            shape_note=note,
            replica_size=int(phys.replica[0]),
            batch=round(float(phys.batch[0]), 1),
            meets_ttft_slo=(
                None
                if query.ttft_slo_ms is None
                else bands["ttft_p99"].estimate <= query.ttft_slo_ms
            ),
            calibration_results=int(keep.sum()),
            runtime=runtime,
            runtime_note=runtime_note,
            load_note=self._load_note(regime, keep),
            interval_note=(
                f"the TTFT intervals end at the {limits[0]:,.0f} ms target: no first-token"
                " result of this vendor says where its scheduler sits under it"
                if reached - set(found)
                else ""
            ),
            calibrated_on=tuple(
                (c.rows[i].get("result_id"), str(c.rows[i].get("source") or ""))
                for i in np.flatnonzero(used)
            ),
        )

    def _load_note(self, regime: str, keep: np.ndarray) -> str:
        """Where few results in the fit ran at the load asked, in words (else "")."""
        at_load = int((keep & (self.corpus.cats["regime"] == regime)).sum())
        if at_load >= THIN_REGIME:
            return ""
        streams = regime == "concurrency"
        load = "at a stated concurrency" if streams else f"as {regime} runs"
        return (
            f"only {at_load:,} of the results in the fit were measured {load}: each figure is"
            " calibrated on its own, mostly on results at other loads (MLPerf's tuned ones), so"
            " here they need not agree with one another"
            + (" (throughput against streams ÷ TPOT)" if streams else "")
            + "; the weakest footing the model has"
        )

    def _runtime(self, query: EstimateQuery, hw: Hardware, keep: np.ndarray) -> tuple[str, str]:
        """The runtime the estimate reads (its one name: :func:`canonical_runtime`) and how it
        was read, in words. Not asked: the runtime most of the part's results ran (else most
        results). Asked but never measured: no runtime effect, and the interval a step wider."""
        c = self.corpus
        asked = canonical_runtime(query.runtime)
        if not asked:
            on_part = _most_common(c.cats["runtime"][keep & (c.cats["part"] == hw.accelerator_id)])
            chosen = on_part or _most_common(c.cats["runtime"][keep]) or ""
            whose = "this part's results" if on_part else "the results"
            return chosen, f"no runtime given: read as {chosen}, the one most of {whose} ran"
        said = "" if asked == str(query.runtime).strip() else f"{query.runtime} read as {asked}"
        if asked in set(c.cats["runtime"][keep]):
            return asked, said
        named = Counter(str(r) for r in c.cats["runtime"][keep] if str(r) not in PLACEHOLDERS)
        unmeasured = (
            f"no result in the fit ran {asked}, so the estimate carries no runtime effect and its"
            " interval is a step wider (results ran "
            + ", ".join(name for name, _ in named.most_common())
            + ")"
        )
        return asked, "; ".join(filter(None, [said, unmeasured]))

    def _shape(self, query: EstimateQuery, same_model: np.ndarray) -> tuple[float, float, str]:
        if query.input_tokens is not None and query.output_tokens is not None:
            return float(query.input_tokens), float(query.output_tokens), "the shape asked for"
        rows = [self.corpus.rows[i] for i in np.flatnonzero(same_model)]
        stated = [shape for r in rows if (shape := stated_shape(r))]
        ins = [i for i, _ in stated]
        outs = [o for _, o in stated]
        i = query.input_tokens or (float(np.median(ins)) if ins else ASSUMED_INPUT_TOKENS)
        o = query.output_tokens or (float(np.median(outs)) if outs else ASSUMED_OUTPUT_TOKENS)
        said = (
            "the model's benchmark shape (median of its results' stated means)"
            if rows
            else "no result of this model"
        )
        assumed = [
            f"{what} {n:,.0f} tokens assumed (no stated mean)"
            for what, n, known in (("input", i, ins), ("output", o, outs))
            if not known and getattr(query, f"{what}_tokens") is None
        ]
        return float(i), float(o), "; ".join([said, *assumed])

    def _limits(
        self, query: EstimateQuery, regime: str, bench: str, keep: np.ndarray
    ) -> tuple[float | None, float | None]:
        """(TTFT, TPOT) targets in ms: the asked TTFT target, else the benchmark's own for the
        scenario, else the median of every run of the scenario."""
        if regime in ("offline", "concurrency") and query.ttft_slo_ms is None:
            return None, None
        c = self.corpus
        scope = keep & (c.cats["regime"] == regime)
        mine = scope & (c.cats["benchmark"] == bench)
        rows = mine if mine.any() else scope
        tpot = [tpot_limit_ms(str(c.rows[i].get("notes") or "")) for i in np.flatnonzero(rows)]
        tpots = [t for t in tpot if t is not None]
        ttfts = c.ttft_limit[rows]
        ttfts = ttfts[np.isfinite(ttfts)]
        ttft = query.ttft_slo_ms or (float(np.median(ttfts)) if len(ttfts) else None)
        return ttft, (float(np.median(tpots)) if tpots else None)

    def _measured(
        self,
        query: EstimateQuery,
        arch: ModelArchitecture,
        hw: Hardware,
        regime: str,
        keep: np.ndarray,
        runtime: str,
    ) -> tuple[dict[str, Band], list[str]] | None:
        """Bands from the results measured at exactly this question (on ``runtime`` where one
        was asked), with the runtimes they ran, if any."""
        # A measured result answers a question at its scenario only, and an MLPerf result's count
        # is a system's: none is a measurement of one replica of a given size.
        if query.concurrency is not None or query.ttft_slo_ms is not None or query.one_replica:
            return None
        c = self.corpus
        hit = (
            keep
            & (c.model_id == arch.model_id)
            & (c.cats["part"] == hw.accelerator_id)
            & (c.cats["precision"] == query.precision.lower())
            & (c.cats["regime"] == regime)
        )
        idx = [
            i
            for i in np.flatnonzero(hit)
            if (
                (query.input_tokens is None and query.output_tokens is None)
                or _same_shape(c.rows[i], query)
            )
            and (query.runtime is None or c.cats["runtime"][i] == runtime)
            and (
                query.accelerators_per_replica is None
                or int(c.rows[i].get("accelerators_per_replica") or 0)
                == query.accelerators_per_replica
            )
        ]
        if not idx:
            return None
        out = {}
        for metric in METRICS:
            values = c.measured[metric][idx]
            values = values[np.isfinite(values)]
            if len(values):
                out[metric] = Band(
                    float(np.median(values)), float(values.min()), float(values.max())
                )
        runtimes = sorted({str(c.cats["runtime"][i]) for i in idx})
        return (out, runtimes) if "tok_s" in out else None


def _same_shape(row: dict[str, Any], query: EstimateQuery) -> bool:
    for field, asked in (
        ("input_tokens_mean", query.input_tokens),
        ("output_tokens_mean", query.output_tokens),
    ):
        if row.get(field) is None or asked is None or float(row[field]) != float(asked):
            return False
    return True


def _regime(query: EstimateQuery) -> str:
    if query.concurrency is not None:
        return "concurrency"
    if query.ttft_slo_ms is not None:
        return "server"
    return query.scenario or "offline"


def _most_common(values: np.ndarray) -> str | None:
    counts = Counter(str(v) for v in values)
    return counts.most_common(1)[0][0] if counts else None
