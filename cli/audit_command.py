"""``tokendesk audit PATH``: the portability audit of a repository, as Markdown, JSON or PDF.

Mount at top level from ``cli.main._register_subcommands``::

    from cli.audit_command import register
    register(app)
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Annotated

import typer

from audit.gap_list import markdown, pdf
from audit.report import summarise, to_json
from audit.rules import RuleTableError, load_rules
from audit.scan import AuditPathError, scan
from cli.exits import fail
from tokendesk import jsontext
from tokendesk.terminal import make_console

err = make_console(stderr=True)
FORMATS = ("md", "json", "pdf")


def audit(
    path: Annotated[Path, typer.Argument(help="Root folder of the repository to audit.")],
    fmt: Annotated[str, typer.Option("--format", help="md, json or pdf")] = "md",
    output: Annotated[
        Path | None, typer.Option("-o", "--output", help="Output file (default: stdout).")
    ] = None,
    exclude: Annotated[
        list[str] | None,
        typer.Option(
            "--exclude", help="Glob of paths to leave out (repeatable), e.g. 'third_party/*'."
        ),
    ] = None,
    rules_file: Annotated[
        Path | None,
        typer.Option("--rules", help="Another rule table (default: data/portability_rules.yaml)."),
    ] = None,
) -> None:
    """Find what ties a repository to CUDA, per target backend (rocm, cpu, neuron, xla, hpu), with
    the known equivalent and an engineer-week estimate. Reads files as text; never runs them."""
    fmt = fmt.lower().lstrip(".")
    if fmt not in FORMATS:
        raise fail(f"unknown format {fmt!r}; choose one of {', '.join(FORMATS)}")
    if fmt == "pdf" and (output is None or str(output) == "-"):
        raise fail("a PDF needs a file: add -o gaps.pdf")
    try:
        rules = load_rules(rules_file)
        report = summarise(scan(path, rules, excludes=tuple(exclude or ())))
    except (AuditPathError, RuleTableError) as exc:
        raise fail(str(exc)) from None
    if fmt == "json":
        data = (jsontext.dumps(to_json(report), indent=1) + "\n").encode("utf-8")
    elif fmt == "pdf":
        data = pdf(report)
    else:
        data = markdown(report)
    if output is None or str(output) == "-":
        sys.stdout.buffer.write(data)
        sys.stdout.flush()
    else:
        output.parent.mkdir(parents=True, exist_ok=True)
        output.write_bytes(data)
        err.print(f"wrote {output} ({len(data):,} bytes)")
    rocm = report.backends["rocm"]
    err.print(
        f"{len(report.scan.findings)} findings; ROCm {rocm.weeks_base:g} engineer-weeks "
        f"({rocm.weeks_low:g}–{rocm.weeks_high:g}, {rocm.confidence} confidence)."
    )


def register(app: typer.Typer) -> None:
    if not any(c.callback is audit for c in app.registered_commands):
        app.command("audit")(audit)
