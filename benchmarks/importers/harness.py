"""The harness's own result file (``tokendesk bench run -o results.json --no-ingest``), so a run
made on one machine can be ingested on another."""

from __future__ import annotations

from benchmarks.importers.base import Importer, Source
from benchmarks.results import SCHEMA, document_to_results
from tokendesk.records import BenchmarkResult


def sniff(src: Source) -> bool:
    return src.kind == "json" and isinstance(src.data, dict) and src.data.get("schema") == SCHEMA


def parse(src: Source) -> list[BenchmarkResult]:
    try:
        results = document_to_results(src.data, source_file=src.name)
    except KeyError as exc:
        raise src.fail(str(exc.args[0]), "required key is missing") from exc
    except ValueError as exc:
        raise src.fail("operating_points", str(exc)) from exc
    if not results:
        raise src.fail("operating_points", "no operating point completed a request")
    return results


IMPORTERS = [
    Importer(
        "tokendesk-harness", "tokendesk-harness", "tokendesk bench run results JSON", sniff, parse
    )
]
