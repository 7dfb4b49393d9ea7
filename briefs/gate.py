"""The CI regression gate: a change fails if any backend regresses more than 10% in cost or FTL
without an exception.

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

import fnmatch
import json
import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import date, datetime
from pathlib import Path
from xml.etree import ElementTree as ET

import pandas as pd
from pydantic import ValidationError

from benchmarks.errors import ResultFileError
from benchmarks.importers import import_files
from tokendesk.catalog import load_catalog
from tokendesk.metrics import usd_per_1k_tokens
from tokendesk.records import BenchmarkResult
from tokendesk.safeyaml import YamlInputError, YamlLimits, load_yaml_file
from warehouse.seed import SeedFileError, read_result_file

#: Measured mean token counts vary run to run, so the match uses the workload name, not them.
MATCH_FIELDS = (
    "backend",
    "accelerator_id",
    "accelerators_per_replica",
    "runtime",
    "model",
    "precision",
    "workload",
    "scenario",
    "concurrency",
    "request_rate_rps",
)
METRICS = ("cost", "ftl")
EPSILON = 1e-9  # float noise must not turn exactly 10% into a failure


class GateInputError(ValueError):
    """Bad gate input: names the file, the key and the reason."""

    def __init__(self, path: str | Path, key: str, reason: str) -> None:
        self.path, self.key, self.reason = str(path), key, reason
        super().__init__(f"{path}: {key}: {reason}")


# -- loading result sets ----------------------------------------------------------------------
_HARNESS_KEYS = {
    "output_tok_s": "throughput.output_tok_s",
    "total_tok_s": "throughput.total_tok_s",
    "ttft_ms_p50": "latency_ms.ttft.p50",
    "ttft_ms_p90": "latency_ms.ttft.p90",
    "ttft_ms_p95": "latency_ms.ttft.p95",
    "ttft_ms_p99": "latency_ms.ttft.p99",
    "measured_at": "started_at",
}
_META_KEYS = ("config", "run", "meta", "metadata", "target")
_POINT_KEYS = ("points", "results", "operating_points")


def _validate(path: Path, where: str, fields: dict, harness: bool) -> BenchmarkResult:
    try:
        return BenchmarkResult.model_validate(fields)
    except ValidationError as exc:
        first = exc.errors()[0]
        name = ".".join(str(p) for p in first["loc"]) or "-"
        key = _HARNESS_KEYS.get(name, name) if harness else name
        raise GateInputError(path, f"{where}.{key}" if where else key, first["msg"]) from None
    except ValueError as exc:
        raise GateInputError(
            path, f"{where}.accelerator_id" if where else "accelerator_id", str(exc)
        ) from None


def _harness_point(block: Mapping, meta: Mapping) -> dict:
    """One harness operating-point block (see the runner) flattened onto the run's metadata."""
    throughput = block.get("throughput") or {}
    ttft = (block.get("latency_ms") or {}).get("ttft") or {}
    requests = block.get("requests") or {}
    out = {k: v for k, v in meta.items() if k in BenchmarkResult.model_fields}
    out.update(
        {
            "concurrency": block.get("concurrency"),
            "request_rate_rps": None
            if block.get("request_rate_rps") in (None, "inf")
            else block.get("request_rate_rps"),
            "output_tok_s": throughput.get("output_tok_s"),
            "total_tok_s": throughput.get("total_tok_s"),
            "ttft_ms_p50": ttft.get("p50"),
            "ttft_ms_p90": ttft.get("p90"),
            "ttft_ms_p95": ttft.get("p95"),
            "ttft_ms_p99": ttft.get("p99"),
            "requests_ok": requests.get("ok"),
            "requests_failed": requests.get("failed"),
            "measured_at": block.get("started_at")
            or meta.get("measured_at")
            or meta.get("started_at"),
        }
    )
    out.setdefault("source_tool", meta.get("source_tool", "tokendesk-harness"))
    out.setdefault("workload", meta.get("workload", "golden-prompts"))
    return {k: v for k, v in out.items() if v is not None}


def _from_json(path: Path) -> list[BenchmarkResult]:
    try:
        doc = json.loads(path.read_text(encoding="utf-8"))
    except json.JSONDecodeError as exc:
        raise GateInputError(path, f"line {exc.lineno}", f"not valid JSON: {exc.msg}") from None
    if isinstance(doc, list):
        return [_validate(path, f"[{i}]", dict(row), harness=False) for i, row in enumerate(doc)]
    if not isinstance(doc, dict):
        raise GateInputError(
            path, "-", "expected a JSON object (harness result) or a list of results"
        )
    meta: dict = {}
    for key in _META_KEYS:
        if isinstance(doc.get(key), dict):
            meta.update(doc[key])
    meta.update({k: v for k, v in doc.items() if not isinstance(v, dict | list)})
    points_key = next((k for k in _POINT_KEYS if isinstance(doc.get(k), list)), None)
    if points_key is None:
        raise GateInputError(
            path,
            "points",
            f"missing: a result file needs a list under one of {', '.join(_POINT_KEYS)}",
        )
    out = []
    for i, block in enumerate(doc[points_key]):
        if not isinstance(block, dict):
            raise GateInputError(path, f"{points_key}[{i}]", "expected an object")
        harness = "throughput" in block or "latency_ms" in block
        fields = (
            _harness_point(block, meta)
            if harness
            else {**{k: v for k, v in meta.items() if k in BenchmarkResult.model_fields}, **block}
        )
        out.append(_validate(path, f"{points_key}[{i}]", fields, harness=harness))
    return out


def _from_importers(path: Path) -> list[BenchmarkResult] | None:
    """Harness result JSON and other tools' result files, through the benchmark importers (format
    detected from the content). None when no importer recognises the file."""

    try:
        [(_, results)] = import_files([path])
    except ResultFileError as exc:
        if "unrecognised result format" in exc.reason:
            return None
        raise GateInputError(exc.file, exc.key or "-", exc.reason) from None
    return list(results)


def _harness_with_repeats(path: Path) -> pd.DataFrame | None:
    """A harness result file whose points were repeated (``--repeats N``): the recorded runs,
    each with the run-to-run spread the file measured (``cv_*`` columns). None otherwise."""
    try:
        from benchmarks.results import SCHEMA, document_points
    except ImportError:
        return None
    try:
        doc = json.loads(path.read_text(encoding="utf-8"))
    except (ValueError, UnicodeDecodeError):
        return None
    if not isinstance(doc, dict) or doc.get("schema") != SCHEMA:
        return None
    points = doc.get("operating_points") or []
    if not any(isinstance(b, dict) and b.get("repeats") for b in points):
        return None
    try:
        pairs = document_points(doc, source_file=path.name)
    except (KeyError, ValueError):
        return None  # let the importer report what is wrong with the file
    rows = []
    for block, result in pairs:
        row = result.model_dump(mode="python")
        rep = block.get("repeats") or {}
        row["cv_output_tok_s"] = (rep.get("output_tok_s") or {}).get("cv")
        row["cv_ttft_ms_p95"] = (rep.get("ttft_p95_ms") or {}).get("cv")
        rows.append(row)
    return pd.DataFrame(rows) if rows else None


def load_result_set(
    spec: str, snapshot_loader: Callable[[str], pd.DataFrame] | None = None
) -> pd.DataFrame:
    """A result set as a frame of BenchmarkResult fields: ``snapshot:<id>`` from the warehouse, a
    seed-format results CSV, the harness's result JSON or any file a benchmark importer reads, or
    a JSON list of BenchmarkResult rows."""
    if spec.startswith("snapshot:"):
        snapshot_id = spec.split(":", 1)[1]
        if snapshot_loader is None:
            raise GateInputError(spec, "snapshot", "no warehouse to read snapshots from; pass --db")
        frame = snapshot_loader(snapshot_id)
        if frame.empty:
            raise GateInputError(
                spec,
                "snapshot_id",
                f"no benchmark results in snapshot {snapshot_id!r}; see `tokendesk db info`",
            )
        return frame
    path = Path(spec)
    if not path.exists():
        raise GateInputError(path, "-", "file not found")
    if path.suffix.lower() == ".csv":
        try:
            results = read_result_file(path)
        except SeedFileError as exc:
            raise GateInputError(path, f"row {exc.row}.{exc.field}", exc.message) from None
    else:
        spread = _harness_with_repeats(path)
        if spread is not None:
            return spread
        found = _from_importers(path)
        if found is None and path.suffix.lower() == ".json":
            found = _from_json(path)  # a JSON list of BenchmarkResult rows, or {config, points}
        if found is None:
            raise GateInputError(
                path,
                "-",
                "unrecognised result format: use a harness or importer result file, a "
                "seed-format results .csv or snapshot:<id>",
            )
        results = found
    if not results:
        raise GateInputError(path, "-", "no results in file")
    return pd.DataFrame([r.model_dump(mode="python") for r in results])


# -- exceptions -------------------------------------------------------------------------------
@dataclass(frozen=True)
class GateException:
    match: tuple[tuple[str, str], ...]
    metric: str  # cost | ftl | any
    reason: str
    expires_on: date
    index: int = 0

    def expired(self, today: date) -> bool:
        return self.expires_on < today

    def applies(self, config: Mapping[str, object], metric: str) -> bool:
        if self.metric not in ("any", metric):
            return False
        return all(fnmatch.fnmatchcase(_norm(config.get(k)), pattern) for k, pattern in self.match)

    @property
    def label(self) -> str:
        return ", ".join(f"{k}={v}" for k, v in self.match) + f" [{self.metric}]"


def load_exceptions(path: str | Path) -> list[GateException]:

    path = Path(path)
    if not path.exists():
        raise GateInputError(path, "-", "file not found")
    try:
        doc = load_yaml_file(path, YamlLimits(max_bytes=1024 * 1024))
    except YamlInputError as exc:
        raise GateInputError(path, "-", exc.message) from None
    items = doc.get("exceptions") if isinstance(doc, dict) else doc
    if doc is None:
        return []
    if not isinstance(items, list):
        raise GateInputError(path, "exceptions", "expected a list of exceptions")
    out = []
    for i, item in enumerate(items):
        where = f"exceptions[{i}]"
        if not isinstance(item, dict):
            raise GateInputError(
                path, where, "expected a mapping with match, metric, reason, expires_on"
            )
        match = item.get("match")
        if not isinstance(match, dict) or not match:
            raise GateInputError(
                path,
                f"{where}.match",
                f"missing: name the configuration with any of {', '.join(MATCH_FIELDS)}",
            )
        unknown = sorted(set(match) - set(MATCH_FIELDS))
        if unknown:
            raise GateInputError(
                path, f"{where}.match.{unknown[0]}", f"unknown field; use {', '.join(MATCH_FIELDS)}"
            )
        metric = str(item.get("metric", "")).lower()
        if metric not in ("cost", "ftl", "any"):
            raise GateInputError(path, f"{where}.metric", "must be cost, ftl or any")
        reason = item.get("reason")
        if not isinstance(reason, str) or not reason.strip():
            raise GateInputError(path, f"{where}.reason", "missing: every exception needs a reason")
        expires = item.get("expires_on")
        if expires is None or expires == "":
            raise GateInputError(
                path,
                f"{where}.expires_on",
                "missing: every exception needs an expiry date (YYYY-MM-DD)",
            )
        try:
            expires_on = (
                expires
                if isinstance(expires, date) and not isinstance(expires, datetime)
                else date.fromisoformat(str(expires)[:10])
            )
        except ValueError:
            raise GateInputError(
                path, f"{where}.expires_on", f"{expires!r} is not a date (YYYY-MM-DD)"
            ) from None
        out.append(
            GateException(
                tuple((k, _norm(v)) for k, v in match.items()),
                metric,
                reason.strip(),
                expires_on,
                i,
            )
        )
    return out


# -- comparison -------------------------------------------------------------------------------
def _norm(value: object) -> str:
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return ""
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value)


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
    keys = frame[list(MATCH_FIELDS)].map(_norm)
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
                        _norm(v)
                        for v in rows.get("runtime_version", pd.Series(dtype=object))
                        if _norm(v)
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
        if a[key]["ttft_ms_p95"] is not None and b[key]["ttft_ms_p95"] is not None:
            report.checks.append(
                _check(
                    config,
                    "ftl",
                    "TTFT p95 (ms)",
                    a[key]["ttft_ms_p95"],
                    b[key]["ttft_ms_p95"],
                    max_ftl_regression,
                    active,
                    report,
                    _noise(a[key], b[key], "ttft_ms_p95"),
                )
            )
        elif a[key]["ttft_ms_p99"] is not None and b[key]["ttft_ms_p99"] is not None:
            report.checks.append(
                _check(
                    config,
                    "ftl",
                    "TTFT p99 (ms) — p95 not published on both sides",
                    a[key]["ttft_ms_p99"],
                    b[key]["ttft_ms_p99"],
                    max_ftl_regression,
                    active,
                    report,
                    _noise(a[key], b[key], "ttft_ms_p99"),
                )
            )
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


# -- outputs ----------------------------------------------------------------------------------
def _fmt(value: float | None, metric: str, basis: str) -> str:
    if value is None:
        return "—"
    if metric == "ftl":
        return f"{value:,.0f} ms"
    if basis.startswith("$"):
        return f"${value:.5f}" if value < 1 else f"${value:,.3f}"
    return f"{value:,.2f} acc·s"


def _md(text: object) -> str:
    return str(text).replace("|", "\\|").replace("\n", " ")


def markdown(report: GateReport) -> str:
    r = report
    verdict = "✅ **PASS**" if r.passed else f"❌ **FAIL** — {len(r.regressions)} regression(s)"
    out = [
        "## tokendesk gate",
        "",
        f"{verdict}: baseline `{_md(r.baseline)}` vs candidate "
        f"`{_md(r.candidate)}`; limits: cost +{r.max_cost_regression:.1%}, "
        f"FTL +{r.max_ftl_regression:.1%}.",
        "",
        "| status | configuration | metric | baseline | candidate | change | note |",
        "|---|---|---|---:|---:|---:|---|",
    ]
    order = {"regression": 0, "excepted": 1, "not-compared": 2, "pass": 3}
    icons = {
        "regression": "❌ regression",
        "excepted": "⚠️ excepted",
        "not-compared": "➖ not compared",
        "pass": "✅ pass",
    }
    for c in sorted(r.checks, key=lambda c: (order[c.status], c.label, c.metric)):
        change = "—" if c.change_pct is None else f"{c.change_pct:+.1%}"
        out.append(
            f"| {icons[c.status]} | {_md(c.label)} "
            f"({_md(c.config['runtime_version'])}) | {c.metric}: {_md(c.basis)} | "
            f"{_fmt(c.baseline, c.metric, c.basis)} | "
            f"{_fmt(c.candidate, c.metric, c.basis)} | {change} | {_md(c.note)} |"
        )
    if r.applied_exceptions:
        out += ["", "**Exceptions applied**", ""]
        out += [
            f"- {_md(e.label)}: {_md(e.reason)} (expires {e.expires_on}) → "
            f"{_md(c.label)} {c.metric} {c.change_pct:+.1%}"
            for e, c in r.applied_exceptions
        ]
    if r.expired_exceptions:
        out += ["", "**Expired exceptions (no longer applied)**", ""]
        out += [
            f"- {_md(e.label)}: {_md(e.reason)} (expired {e.expires_on})"
            for e in r.expired_exceptions
        ]
    if r.missing_in_candidate:
        out += ["", "**In the baseline only (not measured by the candidate)**", ""]
        out += [
            f"- {_md(' · '.join(_norm(v) for v in k.values() if _norm(v)))}"
            for k in r.missing_in_candidate
        ]
    if r.new_in_candidate:
        out += ["", "**New in the candidate (nothing to compare with)**", ""]
        out += [
            f"- {_md(' · '.join(_norm(v) for v in k.values() if _norm(v)))}"
            for k in r.new_in_candidate
        ]
    out += [
        "",
        f"<sub>Rule: {_md(r.cost_rule)} FTL = TTFT p95; p99 only when both "
        "sides publish it and p95 is missing "
        "on one. A regression beyond the limit fails unless an unexpired "
        "exception with a reason covers it.</sub>",
        "",
    ]
    return "\n".join(out)


def junit_xml(report: GateReport) -> bytes:
    r = report
    suite = ET.Element(
        "testsuite",
        {
            "name": "tokendesk-gate",
            "tests": str(len(r.checks)),
            "failures": str(len(r.regressions)),
            "errors": "0",
            "skipped": str(sum(c.status == "not-compared" for c in r.checks)),
            "timestamp": datetime.now().replace(microsecond=0).isoformat(),
        },
    )
    props = ET.SubElement(suite, "properties")
    for name, value in (
        ("baseline", r.baseline),
        ("candidate", r.candidate),
        ("max_cost_regression", f"{r.max_cost_regression:g}"),
        ("max_ftl_regression", f"{r.max_ftl_regression:g}"),
        ("cost_rule", r.cost_rule),
    ):
        ET.SubElement(props, "property", {"name": name, "value": value})
    for c in r.checks:
        case = ET.SubElement(
            suite,
            "testcase",
            {
                "classname": f"gate.{c.config['backend'] or 'unknown'}",
                "name": f"{c.label} [{c.metric}]",
                "time": "0",
            },
        )
        detail = (
            f"{c.metric} ({c.basis}): baseline {_fmt(c.baseline, c.metric, c.basis)}, candidate "
            f"{_fmt(c.candidate, c.metric, c.basis)}"
            + ("" if c.change_pct is None else f", change {c.change_pct:+.1%}")
        )
        if c.status == "regression":
            ET.SubElement(case, "failure", {"message": c.note, "type": "regression"}).text = detail
        elif c.status == "not-compared":
            ET.SubElement(case, "skipped", {"message": c.note})
        elif c.status == "excepted":
            ET.SubElement(case, "system-out").text = f"{detail}; {c.note}"
    return ET.tostring(suite, encoding="utf-8", xml_declaration=True)


def parse_fraction(text: str | float) -> float:
    """ "10%" -> 0.10; "0.1" -> 0.10; a bare number above 1 is read as percent ("10" -> 0.10)."""
    if isinstance(text, int | float):
        value = float(text)
    else:
        raw = str(text).strip()
        try:
            value = float(raw[:-1]) / 100.0 if raw.endswith("%") else float(raw)
        except ValueError:
            raise ValueError(f"{text!r} is not a percentage (e.g. 10% or 0.1)") from None
        if not raw.endswith("%") and value > 1:
            value /= 100.0
    if not 0 <= value < 10:
        raise ValueError(f"{text!r} is out of range")
    return value
