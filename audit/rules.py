"""The portability rule table (``data/portability_rules.yaml``), loaded and validated.

The rules are data so that a platform team can add one without touching the scanner; this module
only checks that every rule is complete (pattern compiles, every backend entry has why, equivalent,
an ordered effort range and a known source) and fails with the rule id and field otherwise.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from tokendesk.paths import data_dir
from tokendesk.safeyaml import YamlInputError, YamlLimits, load_yaml_file

BACKENDS: tuple[str, ...] = ("rocm", "cpu", "neuron", "xla", "hpu")
FILE_KINDS: tuple[str, ...] = (
    "python",
    "notebook",
    "dockerfile",
    "requirements",
    "ci",
    "cpp",
    "build",
)
SCOPES = ("per_finding", "per_file", "once")
CONFIDENCE_LEVELS = ("low", "medium", "high")
RULES_FILE = "portability_rules.yaml"


class RuleTableError(ValueError):
    """The rule table is malformed; the message names the file, the rule and the field."""


@dataclass(frozen=True)
class Source:
    key: str
    title: str
    url: str


@dataclass(frozen=True)
class Block:
    """What one rule means for one backend."""

    backend: str
    why: str
    equivalent: str
    weeks_low: float
    weeks_base: float
    weeks_high: float
    source: Source


@dataclass(frozen=True)
class Rule:
    id: str
    title: str
    kinds: tuple[str, ...]
    pattern: re.Pattern[str]
    scope: str
    absent: bool
    blocks: dict[str, Block]
    examples: tuple[str, ...]
    clean: tuple[str, ...]


@dataclass(frozen=True)
class Baseline:
    weeks_low: float
    weeks_base: float
    weeks_high: float
    basis: str


@dataclass(frozen=True)
class RuleSet:
    version: str
    path: Path
    rules: tuple[Rule, ...]
    sources: dict[str, Source]
    baseline: dict[str, Baseline]
    max_confidence: dict[str, tuple[str, str]]  # backend -> (level, reason)
    rocm_guard_macros: tuple[str, ...] = ()

    def for_kind(self, kind: str) -> tuple[Rule, ...]:
        return tuple(r for r in self.rules if kind in r.kinds and not r.absent)


def _weeks(value: object, where: str) -> tuple[float, float, float]:
    if not isinstance(value, list) or len(value) != 3:
        raise RuleTableError(f"{where}: weeks must be [low, base, high]")
    try:
        low, base, high = (float(v) for v in value)
    except (TypeError, ValueError):
        raise RuleTableError(f"{where}: weeks must be numbers, got {value!r}") from None
    if not 0 <= low <= base <= high:
        raise RuleTableError(f"{where}: weeks must satisfy 0 <= low <= base <= high, got {value!r}")
    if high > 52:
        raise RuleTableError(
            f"{where}: {high} engineer-weeks for one rule is over a year; check it"
        )
    return low, base, high


def _text(entry: dict, key: str, where: str) -> str:
    value = entry.get(key)
    if not isinstance(value, str) or not value.strip():
        raise RuleTableError(f"{where}: field {key!r} is missing or empty")
    return value.strip()


#: The bundled rule table is 40 KiB; a custom one may be larger, never unbounded.
RULE_TABLE_LIMITS = YamlLimits(max_bytes=4 * 1024 * 1024)


# Long by design: the rule file's validation, one check per field in file order, each error
# naming the entry and the fix; split, the schema would be read across functions.
def load_rules(path: Path | None = None) -> RuleSet:
    path = Path(path) if path else data_dir() / RULES_FILE
    try:
        raw = load_yaml_file(path, RULE_TABLE_LIMITS)
    except YamlInputError as exc:
        raise RuleTableError(f"cannot read the rule table: {exc}") from None
    if not isinstance(raw, dict) or not isinstance(raw.get("rules"), list):
        raise RuleTableError(f"{path}: expected a mapping with a 'rules' list")
    sources = {
        key: Source(key, _text(v, "title", f"{path}: source {key}"), str(v.get("url") or ""))
        for key, v in (raw.get("sources") or {}).items()
    }
    baseline = {}
    for backend in BACKENDS:
        entry = (raw.get("baseline") or {}).get(backend)
        if not isinstance(entry, dict):
            raise RuleTableError(f"{path}: baseline for backend {backend!r} is missing")
        low, base, high = _weeks(entry.get("weeks"), f"{path}: baseline {backend}")
        baseline[backend] = Baseline(low, base, high, _text(entry, "basis", f"{path}: baseline"))
    max_confidence = {}
    for backend in BACKENDS:
        entry = (raw.get("max_confidence") or {}).get(backend) or {}
        level = entry.get("level")
        if level not in CONFIDENCE_LEVELS:
            raise RuleTableError(
                f"{path}: max_confidence {backend}: level must be one of {CONFIDENCE_LEVELS}"
            )
        max_confidence[backend] = (
            level,
            _text(entry, "reason", f"{path}: max_confidence {backend}"),
        )
    rules: list[Rule] = []
    seen: set[str] = set()
    for index, entry in enumerate(raw["rules"], start=1):
        if not isinstance(entry, dict):
            raise RuleTableError(f"{path}: rule #{index} is not a mapping")
        rule_id = _text(entry, "id", f"{path}: rule #{index}")
        where = f"{path}: rule {rule_id}"
        if rule_id in seen:
            raise RuleTableError(f"{where}: duplicate id")
        seen.add(rule_id)
        kinds = tuple(entry.get("kinds") or ())
        unknown = [k for k in kinds if k not in FILE_KINDS]
        if not kinds or unknown:
            raise RuleTableError(f"{where}: kinds must be a non-empty subset of {FILE_KINDS}")
        try:
            pattern = re.compile(_text(entry, "pattern", where))
        except re.error as exc:
            raise RuleTableError(f"{where}: pattern does not compile ({exc})") from None
        scope = entry.get("scope")
        if scope not in SCOPES:
            raise RuleTableError(f"{where}: scope must be one of {SCOPES}, got {scope!r}")
        match = entry.get("match", "present")
        if match not in ("present", "absent"):
            raise RuleTableError(f"{where}: match must be 'present' or 'absent'")
        blocks: dict[str, Block] = {}
        for backend, b in (entry.get("blocks") or {}).items():
            bw = f"{where}, backend {backend}"
            if backend not in BACKENDS:
                raise RuleTableError(f"{bw}: unknown backend; use one of {BACKENDS}")
            key = _text(b, "source", bw)
            if key not in sources:
                raise RuleTableError(f"{bw}: source {key!r} is not in the sources table")
            low, base, high = _weeks(b.get("weeks"), bw)
            blocks[backend] = Block(
                backend,
                _text(b, "why", bw),
                _text(b, "equivalent", bw),
                low,
                base,
                high,
                sources[key],
            )
        if not blocks:
            raise RuleTableError(f"{where}: blocks no backend; a rule must block at least one")
        examples = tuple(entry.get("examples") or ())
        if not examples:
            raise RuleTableError(f"{where}: needs at least one example line the rule finds")
        rules.append(
            Rule(
                rule_id,
                _text(entry, "title", where),
                kinds,
                pattern,
                scope,
                match == "absent",
                blocks,
                examples,
                tuple(entry.get("clean") or ()),
            )
        )
    guards = raw.get("rocm_guard_macros") or {}
    macros = tuple(guards.get("macros") or ())
    if not all(isinstance(m, str) and re.fullmatch(r"\w+", m) for m in macros):
        raise RuleTableError(f"{path}: rocm_guard_macros.macros must be a list of macro names")
    return RuleSet(
        str(raw.get("version", "")),
        path,
        tuple(rules),
        sources,
        baseline,
        max_confidence,
        macros,
    )
