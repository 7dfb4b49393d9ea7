"""The demand a request trace implies, as one document the CLI (``tokendesk workspace
demand-from``) and the Workspace page both show: the same figures, the same words."""

from __future__ import annotations

from pathlib import Path

from benchmarks.traces import Trace, TraceFileError, parse_trace_bytes, read_trace
from costmodel.traffic import TrafficError, derive_demand

__all__ = ["TraceFileError", "TrafficError", "demand_document", "demand_rows", "trace_document"]


def demand_document(trace: Trace) -> dict:
    """Where the trace came from, then every derived figure (see :mod:`costmodel.traffic`)."""
    demand = derive_demand(
        trace.arrival_s,
        trace.input_tokens,
        trace.output_tokens,
        start=trace.start,
        clock=trace.clock,
        prefix_blocks=trace.prefix_blocks,
        block_tokens=trace.block_tokens,
    )
    return {
        "source": {
            "file": trace.name,
            "format": trace.format,
            "title": trace.title,
            "first_request": trace.start.isoformat() if trace.start else None,
            "clock": trace.clock or None,
        },
        **demand.to_json(),
        "workload_fields": demand.workload_fields(trace.name),
    }


def trace_document(path: Path | None = None, *, name: str = "", data: bytes | None = None) -> dict:
    """The document for a trace file (``path``) or an upload (``name`` and ``data``)."""
    trace = read_trace(path) if path is not None else parse_trace_bytes(name, data or b"")
    return demand_document(trace)


def _share(value: float | None) -> str:
    return "cannot be told" if value is None else f"{value:.1%}"


def _ratio(value: float | None) -> str:
    return "not measurable" if value is None else f"{value:,.2f}"


def demand_rows(doc: dict) -> list[tuple[str, str]]:
    """(label, value) rows for people: numbers with separators, never split."""
    src, bursts = doc["source"], doc["burstiness"]
    rows = [
        ("File", f"{src['file']} ({src['title']})"),
        ("First request", src["first_request"] or "no wall-clock time (relative time stamps)"),
        ("Requests", f"{doc['requests']:,}"),
        ("Trace span", f"{doc['trace_hours']:,.3f} h"),
        ("Input tokens / month", f"{doc['input_tokens_per_month']:,}"),
        ("Output tokens / month", f"{doc['output_tokens_per_month']:,}"),
        ("Hours per month", f"{doc['hours_per_month']:g} (the month is the trace repeated)"),
        ("Input : output", _ratio(doc["input_output_ratio"])),
        ("Peak ÷ mean", f"{_ratio(doc['peak_to_mean'])} (per {doc['peak_to_mean_grain']})"),
        ("Prefix cache share", _share(doc["prefix_cache_share"])),
        (
            "Burstiness",
            f"gap CV {_ratio(bursts['interarrival_cv'])}, requests per bucket variance ÷ mean "
            f"{_ratio(bursts['count_dispersion'])}",
        ),
    ]
    for key, label in (("input_length", "Input length"), ("output_length", "Output length")):
        d = doc[key]
        rows.append(
            (
                label,
                f"mean {d['mean']:,.1f}, p50 {d['p50']:,.0f}, p90 {d['p90']:,.0f}, "
                f"p99 {d['p99']:,.0f}, max {d['max']:,}",
            )
        )
    curve = doc["hour_of_day"]
    if curve is not None:
        hours = ", ".join(
            f"{h:02d}h {v:.2f}" for h, v in enumerate(curve["values"]) if v is not None
        )
        rows.append(("Hour of day", f"{hours} (clock: {curve['clock']}; 1 = the mean rate)"))
    return rows
