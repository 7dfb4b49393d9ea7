# Long by design: one importer for one report family. Schema 0.1 and 0.2 read through the same
# small readers (latencies, lengths, runtime, power, dates) above them; split by schema, each
# half would import the other's helpers.
"""llm-d-benchmark benchmark reports: ``benchmark_report,_<run>.yaml`` (schema 0.1) and
``benchmark_report_v0.2,_<run>.yaml`` (schema 0.2 and its additive revision 0.2.1), as the
harness pod writes them beside each harness's native output (YAML, or JSON when exported so).

One report is one operating point of one stage. What the record takes from each version:

- **0.1** — ``scenario.host`` lists one entry per serving instance (``accelerator[i]``: model,
  memory GB, count, parallelism; ``type[i]``: replica, prefill or decode), ``scenario.platform.
  engine[i]`` the engine of each, ``scenario.model`` the model and quantization,
  ``scenario.load`` the harness (``name``) with its native ``args``, and ``metrics`` the
  results: ``requests``, ``latency`` (statistics with units), ``throughput`` (per second),
  ``time.start`` (Unix seconds) and ``resources.accelerator[i].power``.
- **0.2** — ``scenario.stack[]`` components; an ``inference_engine`` states its role, replicas,
  model and ``accelerator`` (model, count per replica = TP x local DP, parallelism).
  ``scenario.load.standardized`` states the controlled load (``rate_qps``, ``concurrency``), the
  stage and the sequence lengths; ``results.request_performance.aggregate`` the figures;
  ``results.observability.components[].aggregate.power_consumption`` the measured power.

Deployment shape: replicas that each serve requests alone are independent, so the client's
figures are shared out over them (a record is one replica). Prefill/decode disaggregation makes
the whole deployment one unit: every prefill and decode accelerator counts towards it.

Latency statistics carry their own units (s, ms, s/token, ms/token). TPOT is the report's
``time_per_output_token``; inter-token latency (per streamed chunk) and normalised TPOT (E2E per
output token) are not TPOT and are not kept.
"""

from __future__ import annotations

import math
from datetime import UTC, datetime
from typing import Any

from benchmarks.importers.base import Importer, Source
from benchmarks.importers.serving import KNOWN_RUNTIMES, TORCH_DTYPES
from tokendesk.records import BenchmarkResult

V01 = "0.1"
V02 = ("0.2", "0.2.1")
#: Roles of a disaggregated deployment (0.1 host types and 0.2 engine roles).
_SPLIT_ROLES = {"prefill", "decode"}
#: Names a model carries when the converter did not know it.
_NO_MODEL = {"", "unknown", "none", "null"}


def _version(data: Any) -> str:
    value = data.get("version") if isinstance(data, dict) else None
    return str(value).strip() if isinstance(value, str | int | float) else ""


def sniff(src: Source) -> bool:
    data = src.data
    if src.kind not in ("yaml", "json") or not isinstance(data, dict) or not _version(data):
        return False
    return ("scenario" in data and "metrics" in data) or ("run" in data and "results" in data)


# -- small readers -----------------------------------------------------------------------------


def _at(obj: Any, *path: str | int) -> Any:
    """The value at ``path`` (keys or list indexes), or None where any step is missing."""
    for step in path:
        if isinstance(step, int):
            obj = obj[step] if isinstance(obj, list) and -len(obj) <= step < len(obj) else None
        else:
            obj = obj.get(step) if isinstance(obj, dict) else None
        if obj is None:
            return None
    return obj


def _latency_ms(src: Source, stats: Any, stat: str, where: str) -> float | None:
    """One statistic of a latency in ms; ``units`` says s, ms, s/token or ms/token."""
    if not isinstance(stats, dict):
        return None
    value = src.number(stats, stat, f"{where}.")
    if value is None:
        return None
    unit = str(stats.get("units") or "").strip()
    if not unit:
        raise src.fail(f"{where}.units", "a latency without units cannot be placed")
    return src.ms(value, unit.removesuffix("/token"), f"{where}.{stat}")


def _latencies(src: Source, latency: Any, where: str) -> dict[str, float | None]:
    ttft = _at(latency, "time_to_first_token")
    tpot = _at(latency, "time_per_output_token")
    e2el = _at(latency, "request_latency")
    w = f"{where}."
    return dict(
        ttft_ms_p50=_latency_ms(src, ttft, "p50", w + "time_to_first_token"),
        ttft_ms_p90=_latency_ms(src, ttft, "p90", w + "time_to_first_token"),
        ttft_ms_p95=_latency_ms(src, ttft, "p95", w + "time_to_first_token"),
        ttft_ms_p99=_latency_ms(src, ttft, "p99", w + "time_to_first_token"),
        tpot_ms_p50=_latency_ms(src, tpot, "p50", w + "time_per_output_token"),
        tpot_ms_p95=_latency_ms(src, tpot, "p95", w + "time_per_output_token"),
        tpot_ms_p99=_latency_ms(src, tpot, "p99", w + "time_per_output_token"),
        e2el_ms_p50=_latency_ms(src, e2el, "p50", w + "request_latency"),
        e2el_ms_p95=_latency_ms(src, e2el, "p95", w + "request_latency"),
    )


def _lengths(src: Source, requests: Any, where: str) -> tuple[int | None, int | None]:
    """Measured mean input and output lengths (tokens) of the completed requests."""
    out = []
    for key in ("input_length", "output_length"):
        mean = src.number(_at(requests, key) or {}, "mean", f"{where}.{key}.")
        out.append(round(mean) if mean and mean >= 0.5 else None)
    return out[0], out[1]


def _requests(src: Source, requests: Any, where: str) -> tuple[int | None, int | None]:
    """(completed, failed): ``total`` counts every request sent, failures included (the
    converter writes the prompt count as total and prompts minus completed as failures)."""
    if not isinstance(requests, dict):
        return None, None
    total = src.number(requests, "total", f"{where}.")
    failures = src.number(requests, "failures", f"{where}.")
    if total is None:
        return None, None if failures is None else int(failures)
    if failures is not None and failures > total:
        raise src.fail(f"{where}.failures", f"{failures:g} failures of {total:g} requests")
    return int(total - (failures or 0)), None if failures is None else int(failures)


def _precision_from_args(args: Any) -> str | None:
    """``--quantization`` (what the weights are) before ``--dtype`` (the activations)."""
    if not isinstance(args, dict):
        return None
    for key in ("--quantization", "quantization", "-q", "--dtype", "dtype"):
        value = args.get(key)
        if isinstance(value, str) and value and value.lower() != "auto":
            return TORCH_DTYPES.get(value.lower(), value.lower())
    return None


def _image_tag(text: str) -> str:
    """``ghcr.io/llm-d/llm-d-cuda:0.3.1`` -> ``0.3.1``; a plain version stays as it is."""
    tail = text.rsplit("/", 1)[-1]
    return tail.split(":", 1)[1] if ":" in tail else text


def _power_w(
    values: list[float], instance_sizes: list[int], per_replica: int, what: str, notes: list[str]
) -> float | None:
    """The mean power of one replica's accelerators (W), where the report's figures place it.

    The report gives one power statistic per serving instance (DCGM's per-device power,
    aggregated over the instance's pod). With one accelerator per instance and a figure for
    every instance, each figure is one device's draw, so a replica draws their mean times its
    accelerators. With several per instance the report does not say whether a figure is their
    sum or their mean, and with figures for only some instances the rest are not known: either
    way the figures are kept in the notes and not on the record."""
    if not values:
        return None
    mean = sum(values) / len(values)
    if set(instance_sizes) == {1} and len(values) == len(instance_sizes):
        return mean * per_replica
    sizes = "/".join(map(str, sorted(set(instance_sizes)))) or "unknown"
    notes.append(
        f"{what} reports a mean power of {mean:.1f} W over {len(values)} of"
        f" {len(instance_sizes)} serving instances of {sizes} accelerators; not kept as"
        " measured power: the report does not place it on every accelerator of a replica"
    )
    return None


def _when(value: Any) -> datetime | None:
    if isinstance(value, datetime):
        return value if value.tzinfo else value.replace(tzinfo=UTC)
    if isinstance(value, int | float) and not isinstance(value, bool) and value > 0:
        return datetime.fromtimestamp(value, UTC)
    if isinstance(value, str) and value.strip():
        try:
            parsed = datetime.fromisoformat(value.strip().replace("Z", "+00:00"))
        except ValueError:
            return None
        return parsed if parsed.tzinfo else parsed.replace(tzinfo=UTC)
    return None


def _model(src: Source, stated: Any, harness_model: Any, notes: list[str]) -> str:
    if isinstance(stated, str) and stated.strip().lower() not in _NO_MODEL:
        return src.required_text(stated.strip(), "--model", "model")
    if not src.overrides.model and isinstance(harness_model, str) and harness_model.strip():
        notes.append(
            f"model from the harness configuration ({harness_model.strip()}); the report's"
            f" model name is {stated!r}"
        )
        return harness_model.strip()
    return src.required_text(None, "--model", "model")


def _runtime(src: Source, name: Any, where: str, notes: list[str], server_type: Any) -> str:
    if src.overrides.runtime:
        return src.overrides.runtime
    found = str(name or "").strip().lower()
    if found in KNOWN_RUNTIMES:
        return found
    if not found and str(server_type or "").strip().lower() in KNOWN_RUNTIMES:
        notes.append(f"runtime from the harness's server type ({str(server_type).lower()})")
        return str(server_type).strip().lower()
    raise src.fail(
        where,
        (f"engine {found!r} is not a server runtime tokendesk knows" if found else "no engine")
        + "; pass --runtime (e.g. vllm, sglang)",
    )


def _finish(
    src: Source, fields: dict[str, Any], replicas: int, notes: list[str], output_key: str
) -> BenchmarkResult:
    """Share the deployment's figures out over its independent replicas and build the record."""
    output = fields["output_tok_s"]
    if output is None:
        raise src.fail(output_key, "the report gives no output token throughput")
    if output <= 0:
        raise src.fail(output_key, f"output token throughput must be positive, got {output:g}")
    if replicas > 1:
        notes.append(
            f"measured across {replicas} replicas behind one endpoint; throughput and offered"
            f" load divided by {replicas} (the report's figures are the deployment's)"
        )
        for key in ("output_tok_s", "total_tok_s", "request_rate_rps", "concurrency"):
            if fields.get(key) is not None:
                fields[key] /= replicas
    return src.result(source_tool="llm-d-benchmark", notes="; ".join(notes), **fields)


# -- schema 0.1 -------------------------------------------------------------------------------


def _from_flags(src: Source, accelerator_at: str, count_at: str, why: str) -> tuple[str, int, int]:
    """A report that does not state its accelerators: both from the flags, or the question."""
    accelerator = src.accelerator(None, accelerator_at)
    if not src.overrides.accelerators_per_replica:
        raise src.fail(count_at, f"{why}; pass --accelerators-per-replica N")
    return accelerator, src.per_replica(None), 1


def _v01_deployment(src: Source, scenario: dict, notes: list[str]) -> tuple[str, int, int]:
    """(accelerator id, accelerators per replica, independent replicas) from ``scenario.host``."""
    host = _at(scenario, "host") or {}
    entries = [e for e in _at(host, "accelerator") or [] if isinstance(e, dict)]
    if not entries:
        return _from_flags(
            src,
            "scenario.host.accelerator",
            "scenario.host",
            "the report does not say how many accelerators served it",
        )
    models = {str(e.get("model") or "") for e in entries}
    memories = {e.get("memory") for e in entries}
    if (len(models) > 1 or len(memories) > 1) and not src.overrides.accelerator_id:
        raise src.fail(
            "scenario.host.accelerator",
            f"instances on different accelerators ({', '.join(sorted(models))}); a record"
            " is one kind of accelerator — pass --accelerator ID for the one to record",
        )
    memory = src.number(entries[0], "memory", "scenario.host.accelerator[0].")
    accelerator = src.accelerator(
        next(iter(sorted(models))) or None, "scenario.host.accelerator[0].model", memory
    )
    roles = [str(t).lower() for t in _at(host, "type") or []]
    counts = [int(src.number(e, "count", "scenario.host.accelerator[].") or 0) for e in entries]
    shapes = []
    for i, entry in enumerate(entries):
        par = _at(entry, "parallelism") or {}
        role = roles[i] if i < len(roles) else "replica"
        shapes.append(
            f"{role} x{counts[i]} (tp {par.get('tp', 1)}, pp {par.get('pp', 1)}, "
            f"ep {par.get('ep', 1)}, dp {par.get('dp', 1)})"
        )
    notes.append("instances: " + "; ".join(shapes))
    if _SPLIT_ROLES.intersection(roles):
        notes.append("prefill/decode disaggregated: the whole deployment is one unit")
        return accelerator, src.per_replica(sum(counts)), 1
    if len(set(counts)) > 1 and not src.overrides.accelerators_per_replica:
        raise src.fail(
            "scenario.host.accelerator",
            f"replicas of different sizes ({', '.join(map(str, counts))} accelerators);"
            " pass --accelerators-per-replica N",
        )
    return accelerator, src.per_replica(counts[0] or None), len(entries)


def _v01_sizes(scenario: dict) -> list[int]:
    """Accelerators of each serving instance, as ``scenario.host.accelerator[].count`` states."""
    entries = _at(scenario, "host", "accelerator") or []
    return [int(e.get("count") or 0) for e in entries if isinstance(e, dict)]


#: How far a stage's request count may stray from rate x duration before the report is taken
#: to describe another stage (Poisson arrivals over 20 s at 10 req/s stay well within this).
_STAGE_COUNT_SLACK = 1.5


def _check_stage_count(
    src: Source, settings: dict, rate: float, sent: float | None, stage: int, where: str
) -> None:
    """A report whose request count the stage it names could not have sent is refused: its
    figures belong to another load than the one the record would carry."""
    duration = src.number(settings, "duration", where)
    planned = src.number(settings, "num_requests", where) or (rate * duration if duration else None)
    if not planned or sent is None:
        return
    if sent > planned * _STAGE_COUNT_SLACK + 5 or sent < planned / _STAGE_COUNT_SLACK - 5:
        raise src.fail(
            "metrics.requests.total",
            f"{sent:g} requests, but stage {stage} sends about {planned:g}"
            + (f" ({rate:g} req/s for {duration:g} s)" if duration else "")
            + ": the figures are not that stage's, so the load they were measured at is not"
            " known",
        )


def _v01_load(
    src: Source, load: dict, sent: float | None, notes: list[str]
) -> tuple[float | None, float | None]:
    """(request rate, concurrency) the harness controlled, read from its native arguments."""
    harness = str(load.get("name") or "")
    args = _at(load, "args") or {}
    stage = _at(load, "metadata", "stage")
    if harness == "inference-perf" and isinstance(_at(args, "load"), dict):
        settings = args["load"]
        stages = [s for s in settings.get("stages") or [] if isinstance(s, dict)]
        if stage is None and len(stages) == 1:
            stage = 0
        if not isinstance(stage, int) or not 0 <= stage < len(stages):
            raise src.fail(
                "scenario.load.metadata.stage",
                f"stage {stage!r} is not one of the {len(stages)} load stages the harness ran,"
                " so the report does not say which load it measured; check that the report is"
                " the converter's unmodified output",
            )
        notes.append(f"inference-perf stage {stage} of {len(stages)}")
        where = f"scenario.load.args.load.stages[{stage}]."
        if str(settings.get("type") or "").lower() == "concurrent":
            return None, src.number(stages[stage], "concurrency_level", where, required=True)
        rate = src.number(stages[stage], "rate", where)
        if rate is not None:
            notes.append(f"{settings.get('type') or 'constant'} arrivals at {rate:g} req/s")
            _check_stage_count(src, stages[stage], rate, sent, stage, where)
        return rate, None
    notes.append(
        f"load not known: the {harness or 'harness'}'s native arguments are not read, so the"
        " record keeps neither a request rate nor a concurrency"
    )
    return None, None


def _parse_v01(src: Source) -> BenchmarkResult:
    d = src.data
    scenario, metrics = src.need(d, "scenario"), src.need(d, "metrics")
    notes: list[str] = ["llm-d-benchmark report 0.1"]
    accelerator, per_replica, replicas = _v01_deployment(src, scenario, notes)
    load = _at(scenario, "load") or {}
    server = _at(load, "args", "server") or {}
    engines = [e for e in _at(scenario, "platform", "engine") or [] if isinstance(e, dict)]
    if len({str(e.get("name")) for e in engines}) > 1:
        raise src.fail("scenario.platform.engine", "instances run different engines")
    engine = engines[0] if engines else {}
    model = _model(src, _at(scenario, "model", "name"), server.get("model_name"), notes)
    precision = src.required_text(
        _at(scenario, "model", "quantization") or _precision_from_args(engine.get("args")),
        "--precision",
        "precision",
    )
    runtime = _runtime(
        src, engine.get("name"), "scenario.platform.engine", notes, server.get("type")
    )
    requests = src.need(metrics, "requests", "metrics.")
    sent = src.number(requests, "total", "metrics.requests.")
    rate, concurrency = _v01_load(src, load, sent, notes)
    isl, osl = _lengths(src, requests, "metrics.requests")
    ok, failed = _requests(src, requests, "metrics.requests")
    incomplete = src.number(requests, "incomplete", "metrics.requests.")
    if incomplete:
        notes.append(f"{incomplete:g} requests incomplete at the end of the run")
    throughput = src.need(metrics, "throughput", "metrics.")
    power = [
        p
        for entry in _at(metrics, "resources", "accelerator") or []
        if (p := src.number(_at(entry, "power") or {}, "mean", "metrics.resources.power."))
    ]
    workload = _name(load.get("type"), _at(load, "args", "data", "type"))
    fields: dict[str, Any] = dict(
        accelerator_id=accelerator,
        accelerators_per_replica=per_replica,
        runtime=runtime,
        runtime_version=str(engine.get("version") or ""),
        model=model,
        precision=str(precision).lower(),
        workload=f"{workload}-isl{isl}-osl{osl}" if isl and osl else workload,
        input_tokens=isl,
        output_tokens=osl,
        request_rate_rps=rate,
        concurrency=concurrency,
        output_tok_s=src.number(throughput, "output_tokens_per_sec", "metrics.throughput."),
        total_tok_s=src.number(throughput, "total_tokens_per_sec", "metrics.throughput."),
        requests_ok=ok,
        requests_failed=failed,
        measured_power_w=_power_w(
            power, _v01_sizes(scenario), per_replica, "metrics.resources", notes
        ),
        measured_at=src.when(_when(_at(metrics, "time", "start"))),
        **_latencies(src, src.need(metrics, "latency", "metrics."), "metrics.latency"),
    )
    if str(load.get("name") or ""):
        notes.append(f"harness {load['name']}")
    return _finish(src, fields, replicas, notes, "metrics.throughput.output_tokens_per_sec")


# -- schema 0.2 / 0.2.1 -----------------------------------------------------------------------


def _v02_engines(stack: Any) -> list[tuple[int, dict, dict]]:
    """(index, component, its standardized block) of each inference engine in the stack."""
    out = []
    for i, component in enumerate(stack or []):
        std = _at(component, "standardized")
        if isinstance(std, dict) and std.get("kind") == "inference_engine":
            out.append((i, component, std))
    return out


def _v02_deployment(
    src: Source, engines: list[tuple[int, dict, dict]], notes: list[str]
) -> tuple[str, int, int]:
    if not engines:
        return _from_flags(
            src,
            "scenario.stack",
            "scenario.stack",
            "the report names no inference engine, so not how many accelerators served it",
        )
    models = {str(_at(std, "accelerator", "model") or "") for _, _, std in engines}
    if len(models) > 1 and not src.overrides.accelerator_id:
        raise src.fail(
            "scenario.stack[].standardized.accelerator.model",
            f"engines on different accelerators ({', '.join(sorted(models))}); a record is one"
            " kind of accelerator — pass --accelerator ID for the one to record",
        )
    first = engines[0][0]
    accelerator = src.accelerator(
        next(iter(sorted(models))) or None,
        f"scenario.stack[{first}].standardized.accelerator.model",
    )
    shapes, counts, roles, replica_total = [], [], [], 0
    for i, _, std in engines:
        where = f"scenario.stack[{i}].standardized."
        accel = _at(std, "accelerator") or {}
        count = int(src.number(accel, "count", where + "accelerator.", required=True))
        replicas = int(src.number(std, "replicas", where) or 1)
        role = str(std.get("role") or "replica").lower()
        par = _at(std, "accelerator", "parallelism") or {}
        shapes.append(
            f"{role} {replicas} x {count} (tp {par.get('tp', 1)}, pp {par.get('pp', 1)}, "
            f"ep {par.get('ep', 1)}, dp {par.get('dp', 1)}, dp_local {par.get('dp_local', 1)})"
        )
        counts.append((count, replicas))
        roles.append(role)
        replica_total += replicas
    notes.append("engines: " + "; ".join(shapes))
    if _SPLIT_ROLES.intersection(roles):
        notes.append("prefill/decode disaggregated: the whole deployment is one unit")
        return accelerator, src.per_replica(sum(c * r for c, r in counts) or None), 1
    sizes = {c for c, _ in counts}
    if len(sizes) > 1 and not src.overrides.accelerators_per_replica:
        raise src.fail(
            "scenario.stack[].standardized.accelerator.count",
            f"replicas of different sizes ({', '.join(map(str, sorted(sizes)))} accelerators);"
            " pass --accelerators-per-replica N",
        )
    return accelerator, src.per_replica(counts[0][0] or None), replica_total


def _v02_load(src: Source, std: dict, notes: list[str]) -> tuple[float | None, float | None]:
    where = "scenario.load.standardized."
    rate = src.number(std, "rate_qps", where)
    concurrency = src.number(std, "concurrency", where)
    if concurrency is not None and math.isinf(concurrency):
        concurrency = None
        notes.append("concurrency unbounded")
    if rate is not None and math.isinf(rate):
        rate = None
        notes.append("request rate unbounded")
    if rate is None and concurrency is None:
        notes.append("load not known: the report states neither a request rate nor a concurrency")
    return rate, concurrency


def _throughput(src: Source, aggregate: Any, key: str) -> float | None:
    stats = _at(aggregate, "throughput", key)
    if not isinstance(stats, dict):
        return None
    unit = str(stats.get("units") or "tokens/s")
    where = f"results.request_performance.aggregate.throughput.{key}"
    if unit != "tokens/s":
        raise src.fail(f"{where}.units", f"expected tokens/s, got {unit!r}")
    return src.number(stats, "mean", f"{where}.")


def _v02_power(
    src: Source, d: dict, engines: list[tuple[int, dict, dict]]
) -> tuple[list[float], str]:
    """Mean power of each engine instance (``observability.components`` whose label is an
    inference engine's), in W."""
    labels = {str(_at(c, "metadata", "label")) for _, c, _ in engines}
    values = []
    for i, component in enumerate(_at(d, "results", "observability", "components") or []):
        stats = _at(component, "aggregate", "power_consumption")
        if not isinstance(stats, dict) or str(_at(component, "component_label")) not in labels:
            continue
        where = f"results.observability.components[{i}].aggregate.power_consumption"
        if str(stats.get("units")) != "Watts":
            raise src.fail(f"{where}.units", f"expected Watts, got {stats.get('units')!r}")
        value = src.number(stats, "mean", where + ".")
        if value:
            values.append(value)
    return values, "results.observability"


def _parse_v02(src: Source) -> BenchmarkResult:
    d = src.data
    version = _version(d)
    notes: list[str] = [f"llm-d-benchmark report {version}"]
    engines = _v02_engines(_at(d, "scenario", "stack"))
    accelerator, per_replica, replicas = _v02_deployment(src, engines, notes)
    load_std = _at(d, "scenario", "load", "standardized") or {}
    native = _at(d, "scenario", "load", "native", "config") or {}
    engine_std = engines[0][2] if engines else {}
    engine_models = {str(_at(std, "model", "name")) for _, _, std in engines}
    if len(engine_models) > 1:
        raise src.fail("scenario.stack[].standardized.model.name", "engines serve different models")
    model = _model(
        src, _at(engine_std, "model", "name"), _at(native, "server", "model_name"), notes
    )
    engine_args = _at(engines[0][1], "native", "args") if engines else None
    precision = src.required_text(_precision_from_args(engine_args), "--precision", "precision")
    runtime = _runtime(
        src,
        engine_std.get("tool"),
        "scenario.stack[].standardized.tool",
        notes,
        _at(native, "server", "type"),
    )
    rate, concurrency = _v02_load(src, load_std, notes)
    if load_std.get("tool"):
        notes.append(
            f"harness {load_std['tool']} {load_std.get('tool_version') or ''}".strip()
            + (f", stage {load_std['stage']}" if load_std.get("stage") is not None else "")
        )
    aggregate = _at(d, "results", "request_performance", "aggregate")
    if not isinstance(aggregate, dict):
        raise src.fail(
            "results.request_performance.aggregate",
            "the report holds no request performance (a session-only or observability-only"
            " report); import the stage's request report",
        )
    requests = _at(aggregate, "requests") or {}
    isl, osl = _lengths(src, requests, "results.request_performance.aggregate.requests")
    isl = isl or _int_or_none(src.number(_at(load_std, "input_seq_len") or {}, "value"))
    osl = osl or _int_or_none(src.number(_at(load_std, "output_seq_len") or {}, "value"))
    ok, failed = _requests(src, requests, "results.request_performance.aggregate.requests")
    power, where = _v02_power(src, d, engines)
    workload = _name(_at(native, "data", "type"), load_std.get("source"))
    fields: dict[str, Any] = dict(
        accelerator_id=accelerator,
        accelerators_per_replica=per_replica,
        runtime=runtime,
        runtime_version=_runtime_version(engine_std, runtime, notes),
        model=model,
        precision=str(precision).lower(),
        workload=f"{workload}-isl{isl}-osl{osl}" if isl and osl else workload,
        input_tokens=isl,
        output_tokens=osl,
        request_rate_rps=rate,
        concurrency=concurrency,
        output_tok_s=_throughput(src, aggregate, "output_token_rate"),
        total_tok_s=_throughput(src, aggregate, "total_token_rate"),
        requests_ok=ok,
        requests_failed=failed,
        measured_power_w=_power_w(
            power,
            [
                int(_at(std, "accelerator", "count") or 0)
                for _, _, std in engines
                for _ in range(int(std.get("replicas") or 1))
            ],
            per_replica,
            where,
            notes,
        ),
        measured_at=src.when(_when(_at(d, "run", "time", "start"))),
        **_latencies(
            src, _at(aggregate, "latency"), "results.request_performance.aggregate.latency"
        ),
    )
    return _finish(
        src,
        fields,
        replicas,
        notes,
        "results.request_performance.aggregate.throughput.output_token_rate",
    )


def _runtime_version(engine: dict, runtime: str, notes: list[str]) -> str:
    """The engine's version when the engine is the runtime recorded; an image of another tool
    (``llm-d``'s own build of vLLM) names that tool's version, kept in the notes."""
    image = str(engine.get("tool_version") or "")
    if str(engine.get("tool") or "").strip().lower() == runtime:
        return _image_tag(image)
    if image:
        notes.append(f"engine {engine.get('tool')} {image}")
    return ""


def _name(*candidates: Any) -> str:
    """The first plain name among ``candidates`` (a harness's data type, the load's source), for
    the workload; "llm-d" when none is a name."""
    for value in candidates:
        if isinstance(value, str) and value.strip():
            return value.strip()
    return "llm-d"


def _int_or_none(value: float | None) -> int | None:
    return round(value) if value and value >= 0.5 else None


def parse(src: Source) -> list[BenchmarkResult]:
    version = _version(src.data)
    if version == V01:
        return [_parse_v01(src)]
    if version in V02:
        return [_parse_v02(src)]
    raise src.fail(
        "version",
        f"report schema {version!r} is not one this importer was checked against"
        f" ({V01}, {', '.join(V02)})",
    )


IMPORTERS = [
    Importer(
        "llmd-report",
        "llm-d-benchmark",
        "llm-d-benchmark benchmark report (schema 0.1, 0.2, 0.2.1) YAML or JSON",
        sniff,
        parse,
    )
]
