"""The one-page gap list: Markdown (full, with every finding) and PDF (the page to hand over).

Both start with the per-backend summary (blocking findings, engineer-weeks low/base/high,
confidence) and then, per backend, one row per rule that blocks it: where, why, the equivalent
and the weeks. Every rule row names its source; the effort figures are labelled as assumptions.
"""

from __future__ import annotations

import io

from audit.report import AuditReport, location
from tokendesk.textsafety import clean_text

BACKEND_NAMES = {
    "rocm": "ROCm (AMD Instinct)",
    "cpu": "CPU",
    "neuron": "Neuron (AWS Trainium / Inferentia)",
    "xla": "XLA (Google TPU)",
    "hpu": "HPU (Intel Gaudi)",
}
#: Locations listed per rule row before "+N more" (the full list is in the JSON and the appendix).
LOCATIONS_SHOWN = 3
#: Rows in the Markdown appendix of all findings; the JSON output always has every one.
APPENDIX_ROWS = 300
EFFORT_NOTE = (
    "Engineer-weeks are this project's assumptions per rule (data/portability_rules.yaml), summed "
    "over what the scan found plus a per-backend baseline for work a scan cannot see; low, base and "
    "high are summed separately. The sources back why a finding blocks a backend and its equivalent."
)


def _weeks(low: float, base: float, high: float) -> str:
    return f"{base:g} ({low:g}–{high:g})"


def _where(gap) -> str:
    shown = [location(f) for f in gap.findings[:LOCATIONS_SHOWN]]
    more = len(gap.findings) - len(shown)
    return ", ".join(shown) + (f" +{more} more" if more > 0 else "")


def summary_rows(report: AuditReport) -> list[list[str]]:
    rows = []
    for b, s in report.backends.items():
        rows.append(
            [
                BACKEND_NAMES[b],
                str(s.blocking_findings) + (f" (+{len(s.guarded)} guarded)" if s.guarded else ""),
                str(s.files),
                _weeks(s.weeks_low, s.weeks_base, s.weeks_high),
                s.confidence,
                "; ".join(s.confidence_reasons),
            ]
        )
    return rows


SUMMARY_HEADER = [
    "Backend",
    "Blocking findings",
    "Files",
    "Engineer-weeks base (low–high)",
    "Confidence",
    "Why this confidence",
]
MATRIX_HEADER = ["Rule", "Findings", "Where", *(b for b in ("rocm", "cpu", "neuron", "xla", "hpu"))]


def matrix_rows(report: AuditReport) -> list[list[str]]:
    """One row per rule that fired: where, and its engineer-weeks (base) per backend ("—" when
    the rule does not block that backend). The page-one view of the gap list."""
    gaps = {b: {g.rule.id: g for g in s.gaps} for b, s in report.backends.items()}
    rows = []
    for rule in report.scan.rules.rules:
        any_gap = next((gaps[b][rule.id] for b in gaps if rule.id in gaps[b]), None)
        if any_gap is None:
            continue
        cells = [f"{g.weeks_base:g}" if (g := gaps[b].get(rule.id)) else "—" for b in gaps]
        rows.append(
            [f"{rule.id}: {rule.title}", str(len(any_gap.findings)), _where(any_gap), *cells]
        )
    rows.append(
        [
            "baseline (assumption)",
            "—",
            "work a text scan cannot see",
            *(f"{s.baseline.weeks_base:g}" for s in report.backends.values()),
        ]
    )
    rows.append(
        [
            "total, base (low–high)",
            "",
            "",
            *(_weeks(s.weeks_low, s.weeks_base, s.weeks_high) for s in report.backends.values()),
        ]
    )
    return rows


GAP_HEADER = [
    "Rule",
    "Where",
    "Why it blocks",
    "Known equivalent",
    "Weeks base (low–high)",
    "Source",
]


def gap_rows(report: AuditReport, backend: str) -> list[list[str]]:
    s = report.backends[backend]
    rows = [
        [
            f"{g.rule.id}: {g.rule.title}",
            _where(g),
            g.block.why,
            g.block.equivalent,
            _weeks(g.weeks_low, g.weeks_base, g.weeks_high),
            g.block.source.url or g.block.source.title,
        ]
        for g in s.gaps
    ]
    if s.guarded:
        rows.append(
            [
                "guarded (not counted)",
                ", ".join(location(f) for f in s.guarded[:LOCATIONS_SHOWN])
                + (
                    f" +{len(s.guarded) - LOCATIONS_SHOWN} more"
                    if len(s.guarded) > LOCATIONS_SHOWN
                    else ""
                ),
                "these lines sit in a preprocessor branch that is never compiled for this backend",
                "a HIP path already exists beside them; verify it in the harness",
                "0",
                "the file's own preprocessor guard",
            ]
        )
    rows.append(
        [
            "baseline",
            "—",
            "work a text scan cannot see",
            s.baseline.basis,
            _weeks(s.baseline.weeks_low, s.baseline.weeks_base, s.baseline.weeks_high),
            "assumption",
        ]
    )
    return rows


def _intro(report: AuditReport) -> str:
    scan = report.scan
    kinds = ", ".join(f"{n} {k}" for k, n in sorted(scan.files_by_kind.items())) or "none"
    return (
        f"Audit of {scan.label} on {report.date} (UTC) against {len(scan.rules.rules)} rules "
        f"({scan.rules.path.name}, version {scan.rules.version}). Files scanned: {kinds}. "
        f"{len(scan.findings)} findings; {len(scan.skipped)} paths skipped or refused. "
        "The scan reads files as text; it never imports or runs them."
    )


def _md(text: str) -> str:
    """A table cell: escape sequences, control and bidi characters removed, one line, pipes
    escaped (a scanned file's line or name is the audited repository's, not ours)."""
    return clean_text(str(text)).replace("\\", "\\\\").replace("|", "\\|")


def _md_table(header: list[str], rows: list[list[str]]) -> list[str]:
    out = ["| " + " | ".join(header) + " |", "|" + "|".join("---" for _ in header) + "|"]
    out += ["| " + " | ".join(_md(c) for c in row) + " |" for row in rows]
    return [*out, ""]


def markdown(report: AuditReport) -> bytes:
    scan = report.scan
    out = [
        f"# Portability gap list: {_md(scan.label)}",
        "",
        _intro(report),
        "",
        "## Summary per backend",
        "",
    ]
    out += _md_table(SUMMARY_HEADER, summary_rows(report))
    out += ["## Gaps: engineer-weeks (base) per rule and backend", ""]
    out += _md_table(MATRIX_HEADER, matrix_rows(report))
    out += [f"_{EFFORT_NOTE}_", ""]
    for backend in report.backends:
        out += [f"## {BACKEND_NAMES[backend]}", ""]
        out += _md_table(GAP_HEADER, gap_rows(report, backend))
    if scan.skipped:
        out += ["## Skipped or refused", ""]
        out += _md_table(["Path", "Reason"], [[s.path, s.reason] for s in scan.skipped])
    out += ["## All findings", ""]
    rows = [
        [location(f), f.rule_id, ", ".join(sorted(_rule(report, f.rule_id).blocks)), f.text]
        for f in scan.findings[:APPENDIX_ROWS]
    ]
    out += _md_table(["Where", "Rule", "Blocks", "Line"], rows) if rows else ["_(none)_", ""]
    if len(scan.findings) > APPENDIX_ROWS:
        out += [f"_{len(scan.findings) - APPENDIX_ROWS} more findings in the JSON output._", ""]
    out += ["## Sources", ""]
    used = {g.block.source.key: g.block.source for s in report.backends.values() for g in s.gaps}
    out += [f"- {src.title}" + (f" — <{src.url}>" if src.url else "") for src in used.values()]
    if not used:
        out.append("- No rule fired, so no source is cited.")
    return ("\n".join(out).rstrip() + "\n").encode("utf-8")


def _rule(report: AuditReport, rule_id: str):
    return next(r for r in report.scan.rules.rules if r.id == rule_id)


# -- PDF ------------------------------------------------------------------------------------------
def pdf(report: AuditReport) -> bytes:
    """The gap list without the appendix of every finding (that is in the Markdown and JSON)."""
    # reportlab (through tokendesk.pdf) is imported only when a PDF is written: about 0.3 s.
    from reportlab.lib.styles import ParagraphStyle, getSampleStyleSheet
    from reportlab.platypus import PageBreak, Paragraph, Spacer

    from tokendesk.pdf import fonts, grid_table, landscape_document, markup

    regular, bold = fonts()
    base = getSampleStyleSheet()
    body = ParagraphStyle(
        "a-body", parent=base["BodyText"], fontName=regular, fontSize=7.5, leading=9.5
    )
    small = ParagraphStyle("a-small", parent=body, fontSize=6.3, leading=7.6)
    head = ParagraphStyle("a-head", parent=small, fontName=bold)
    h1 = ParagraphStyle(
        "a-h1", parent=base["Title"], fontName=bold, fontSize=14, leading=17, alignment=0
    )
    h2 = ParagraphStyle(
        "a-h2",
        parent=base["Heading2"],
        fontName=bold,
        fontSize=9.5,
        leading=12,
        spaceBefore=4,
        spaceAfter=2,
    )
    buffer = io.BytesIO()
    doc, width = landscape_document(
        buffer, title=f"Portability gap list: {report.scan.label}", margin_mm=10
    )

    def table(header: list[str], rows: list[list[str]], fractions: list[float]):
        cells = [[Paragraph(markup(h), head) for h in header]]
        cells += [[Paragraph(markup(c), small) for c in row] for row in rows]
        return grid_table(cells, [f * width for f in fractions], padding_pt=(1, 2))

    story = [
        Paragraph(markup(f"Portability gap list: {report.scan.label}"), h1),
        Paragraph(markup(_intro(report)), body),
        Spacer(1, 3),
        Paragraph("Summary per backend", h2),
        table(SUMMARY_HEADER, summary_rows(report), [0.17, 0.08, 0.05, 0.14, 0.08, 0.48]),
        Paragraph("Gaps: engineer-weeks (base) per rule and backend", h2),
        table(MATRIX_HEADER, matrix_rows(report), [0.25, 0.06, 0.29, 0.08, 0.08, 0.08, 0.08, 0.08]),
    ]
    details = any(s.gaps or s.guarded for s in report.backends.values()) or report.scan.skipped
    if not details:
        story.append(
            Paragraph(markup(EFFORT_NOTE + " No rule fired: only the baselines remain."), small)
        )
        doc.build(story)
        return buffer.getvalue()
    story += [
        Paragraph(
            markup(EFFORT_NOTE + " Why each gap blocks, its equivalent and sources: next pages."),
            small,
        ),
        PageBreak(),
    ]
    for backend, s in report.backends.items():
        if not s.gaps and not s.guarded:
            story.append(
                Paragraph(markup(f"{BACKEND_NAMES[backend]}: nothing found by the scan"), h2)
            )
            continue
        story.append(Paragraph(markup(f"{BACKEND_NAMES[backend]}"), h2))
        story.append(
            table(GAP_HEADER, gap_rows(report, backend), [0.14, 0.2, 0.19, 0.23, 0.08, 0.16])
        )
    if report.scan.skipped:
        story.append(Paragraph("Skipped or refused", h2))
        story.append(
            table(["Path", "Reason"], [[s.path, s.reason] for s in report.scan.skipped], [0.4, 0.6])
        )
    doc.build(story)
    return buffer.getvalue()
