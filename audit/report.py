"""From findings to a gap list: per backend, which rules block it, where, and the engineer-weeks.

Effort per backend = the backend's baseline (work the scan cannot see) + for every rule that
blocks it, its weeks × how often it counts (every finding, every file, or once, as the rule table
says). Low, base and high are summed separately, so the high end assumes every rule lands at its
high end together — a deliberately cautious band.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass

from audit.rules import BACKENDS, CONFIDENCE_LEVELS, Baseline, Block, Rule
from audit.scan import Finding, ScanResult

#: The band's width (high ÷ low) up to which an estimate is "high" / "medium" confidence.
HIGH_CONFIDENCE_MAX_SPREAD = 3.0
MEDIUM_CONFIDENCE_MAX_SPREAD = 6.0


@dataclass(frozen=True)
class RuleGap:
    rule: Rule
    block: Block
    findings: tuple[Finding, ...]
    units: int  # how many times the rule's effort counts (findings, files, or 1)
    weeks_low: float
    weeks_base: float
    weeks_high: float

    @property
    def files(self) -> tuple[str, ...]:
        return tuple(dict.fromkeys(f.path for f in self.findings))


@dataclass(frozen=True)
class BackendSummary:
    backend: str
    blocking_findings: int
    files: int
    gaps: tuple[RuleGap, ...]
    baseline: Baseline
    weeks_low: float
    weeks_base: float
    weeks_high: float
    confidence: str
    confidence_reasons: tuple[str, ...]
    #: Findings in a preprocessor branch never compiled for this backend (a HIP path exists
    #: beside them): listed, not counted.
    guarded: tuple[Finding, ...] = ()


@dataclass(frozen=True)
class AuditReport:
    scan: ScanResult
    backends: dict[str, BackendSummary]

    @property
    def date(self) -> str:
        return f"{self.scan.scanned_at:%Y-%m-%d}"

    @property
    def basis_label(self) -> str:
        return f"from the audit of {self.scan.label} on {self.date}"


def _units(rule: Rule, findings: list[Finding]) -> int:
    if rule.scope == "per_finding":
        return len(findings)
    if rule.scope == "per_file":
        return len({f.path for f in findings})
    return 1


def _confidence(
    low: float, high: float, skipped: int, ceiling: tuple[str, str]
) -> tuple[str, tuple[str, ...]]:
    spread = high / low if low > 0 else float("inf")
    if spread <= HIGH_CONFIDENCE_MAX_SPREAD:
        level = "high"
    elif spread <= MEDIUM_CONFIDENCE_MAX_SPREAD:
        level = "medium"
    else:
        level = "low"
    reasons = [f"the band is {spread:.1f}× wide (high ÷ low)"]
    if skipped:
        level = CONFIDENCE_LEVELS[max(CONFIDENCE_LEVELS.index(level) - 1, 0)]
        reasons.append(f"{skipped} file(s) could not be read and were not audited")
    cap, why = ceiling
    if CONFIDENCE_LEVELS.index(level) > CONFIDENCE_LEVELS.index(cap):
        level = cap
        reasons.append(f"at most {cap}: {why}")
    return level, tuple(reasons)


def summarise(scan: ScanResult) -> AuditReport:
    by_rule: dict[str, list[Finding]] = defaultdict(list)
    for f in scan.findings:
        by_rule[f.rule_id].append(f)
    unread = sum(1 for s in scan.skipped if s.reason.startswith("skipped"))
    backends: dict[str, BackendSummary] = {}
    for backend in BACKENDS:
        gaps = []
        guarded: list[Finding] = []
        for rule in scan.rules.rules:
            block = rule.blocks.get(backend)
            if block is None:
                continue
            found = [f for f in by_rule.get(rule.id, ()) if backend not in f.guarded]
            guarded += [f for f in by_rule.get(rule.id, ()) if backend in f.guarded]
            if not found:
                continue
            units = _units(rule, found)
            gaps.append(
                RuleGap(
                    rule,
                    block,
                    tuple(found),
                    units,
                    round(units * block.weeks_low, 2),
                    round(units * block.weeks_base, 2),
                    round(units * block.weeks_high, 2),
                )
            )
        gaps.sort(key=lambda g: -g.weeks_base)
        base = scan.rules.baseline[backend]
        low = base.weeks_low + sum(g.weeks_low for g in gaps)
        mid = base.weeks_base + sum(g.weeks_base for g in gaps)
        high = base.weeks_high + sum(g.weeks_high for g in gaps)
        level, reasons = _confidence(low, high, unread, scan.rules.max_confidence[backend])
        backends[backend] = BackendSummary(
            backend,
            sum(len(g.findings) for g in gaps),
            len({f.path for g in gaps for f in g.findings if f.line}),
            tuple(gaps),
            base,
            round(low, 2),
            round(mid, 2),
            round(high, 2),
            level,
            reasons,
            tuple(guarded),
        )
    return AuditReport(scan, backends)


def location(f: Finding) -> str:
    if f.line == 0:
        return f.path
    if f.cell is not None:
        return f"{f.path} cell {f.cell} line {f.line}"
    return f"{f.path}:{f.line}"


def to_json(report: AuditReport) -> dict:
    """Everything in the report as plain data (the `--format json` output; a workspace can keep it)."""
    scan = report.scan
    return {
        "audited": scan.label,
        "scanned_at": scan.scanned_at.isoformat(timespec="seconds"),
        "basis": report.basis_label,
        "rules": {"file": scan.rules.path.name, "version": scan.rules.version},
        "files_by_kind": dict(sorted(scan.files_by_kind.items())),
        "skipped": [{"path": s.path, "reason": s.reason} for s in scan.skipped],
        "findings": [
            {
                "rule": f.rule_id,
                "file": f.path,
                "line": f.line,
                "cell": f.cell,
                "kind": f.kind,
                "text": f.text,
                "guarded_for": list(f.guarded),
                "blocks": sorted(next(r for r in scan.rules.rules if r.id == f.rule_id).blocks),
            }
            for f in scan.findings
        ],
        "backends": {
            b: {
                "blocking_findings": s.blocking_findings,
                "files": s.files,
                "guarded_findings": [location(f) for f in s.guarded],
                "engineer_weeks": {"low": s.weeks_low, "base": s.weeks_base, "high": s.weeks_high},
                "confidence": s.confidence,
                "confidence_reasons": list(s.confidence_reasons),
                "baseline": {
                    "low": s.baseline.weeks_low,
                    "base": s.baseline.weeks_base,
                    "high": s.baseline.weeks_high,
                    "basis": s.baseline.basis,
                },
                "gaps": [
                    {
                        "rule": g.rule.id,
                        "title": g.rule.title,
                        "findings": len(g.findings),
                        "files": list(g.files),
                        "locations": [location(f) for f in g.findings],
                        "why": g.block.why,
                        "equivalent": g.block.equivalent,
                        "effort_per_unit_weeks": [
                            g.block.weeks_low,
                            g.block.weeks_base,
                            g.block.weeks_high,
                        ],
                        "scope": g.rule.scope,
                        "units": g.units,
                        "engineer_weeks": {
                            "low": g.weeks_low,
                            "base": g.weeks_base,
                            "high": g.weeks_high,
                        },
                        "source": {"title": g.block.source.title, "url": g.block.source.url},
                    }
                    for g in s.gaps
                ],
            }
            for b, s in report.backends.items()
        },
    }
