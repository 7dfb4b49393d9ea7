"""Walk a repository and match the rule table against its files, as text.

The scanner never imports, executes or compiles what it reads: Python is tokenised only to drop
comments, notebooks are parsed as JSON, everything else is read line by line. Binary files, files
over ``MAX_FILE_BYTES`` and files it cannot decode are skipped with a note; a symbolic link that
leads outside the audited root is refused and never read.
"""

from __future__ import annotations

import fnmatch
import io
import json
import os
import re
import stat
import tokenize
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime
from pathlib import Path, PurePosixPath

from audit.rules import RuleSet, load_rules

#: Larger files are generated or vendored data, not code a team ports by hand (and reading them
#: would make the audit slow); they are listed as skipped.
MAX_FILE_BYTES = 2 * 1024 * 1024
#: Folders that hold tools' caches or installed packages, never the team's own code.
DEFAULT_EXCLUDES: tuple[str, ...] = (
    ".git",
    ".hg",
    ".svn",
    ".venv",
    "venv",
    "node_modules",
    "__pycache__",
    ".mypy_cache",
    ".ruff_cache",
    ".pytest_cache",
    ".tox",
    "site-packages",
)

_CPP_SUFFIXES = {".cu", ".cuh", ".c", ".cc", ".cpp", ".cxx", ".h", ".hh", ".hpp", ".hxx", ".inl"}
_CI_NAMES = {".gitlab-ci.yml", "jenkinsfile", "azure-pipelines.yml", "bitbucket-pipelines.yml"}
_REQUIREMENT_NAMES = {
    "pyproject.toml",
    "setup.cfg",
    "pipfile",
    "pipfile.lock",
    "poetry.lock",
    "uv.lock",
    "environment.yml",
    "environment.yaml",
}


class AuditPathError(ValueError):
    """The path to audit is missing, not a folder, or otherwise unusable."""


@dataclass(frozen=True)
class Finding:
    rule_id: str
    path: str  # relative to the audited root, with forward slashes
    line: int  # 1-based; 0 for a finding about the repository as a whole
    kind: str
    text: str  # the matched line, trimmed
    cell: int | None = None  # notebook cell (1-based) when the file is a notebook
    #: Backends this line is never compiled for (a CUDA-only preprocessor branch beside a HIP one).
    guarded: tuple[str, ...] = ()


@dataclass(frozen=True)
class Skipped:
    path: str
    reason: str


@dataclass
class ScanResult:
    root: Path
    label: str
    scanned_at: datetime
    rules: RuleSet
    findings: list[Finding] = field(default_factory=list)
    skipped: list[Skipped] = field(default_factory=list)
    files_by_kind: dict[str, int] = field(default_factory=dict)


def classify(relative: PurePosixPath) -> str | None:
    """The file kind the rule table knows, from the path alone; None for files it ignores."""
    name = relative.name.lower()
    suffix = relative.suffix.lower()
    parts = [p.lower() for p in relative.parts]
    if suffix in (".py", ".pyi"):
        return "python"
    if suffix == ".ipynb":
        return "notebook"
    if (
        name in ("dockerfile", "containerfile")
        or name.startswith("dockerfile.")
        or suffix in (".dockerfile", ".containerfile")
    ):
        return "dockerfile"
    in_workflows = len(parts) >= 3 and parts[-3] == ".github" and parts[-2] == "workflows"
    if (
        (in_workflows and suffix in (".yml", ".yaml"))
        or name in _CI_NAMES
        or (
            len(parts) >= 2
            and parts[-2] in (".circleci", ".buildkite")
            and suffix in (".yml", ".yaml")
        )
    ):
        return "ci"
    if (
        name in _REQUIREMENT_NAMES
        or (name.startswith(("requirements", "constraints")) and suffix in (".txt", ".in"))
        or (len(parts) >= 2 and parts[-2] == "requirements" and suffix in (".txt", ".in"))
    ):
        return "requirements"
    if suffix in _CPP_SUFFIXES:
        return "cpp"
    if name in ("cmakelists.txt", "makefile", "gnumakefile") or suffix in (".cmake", ".mk"):
        return "build"
    return None


# -- comment removal (so a rule does not fire on a commented-out line) ---------------------------
def _python_code_lines(text: str) -> list[str]:
    """Lines with comments blanked. Tokenising reads the text; it never runs it."""
    lines = text.splitlines()
    try:
        tokens = list(tokenize.generate_tokens(io.StringIO(text).readline))
    except (tokenize.TokenError, IndentationError, SyntaxError):
        return [_strip_hash_comment(line) for line in lines]
    out = list(lines)
    for tok in tokens:
        if tok.type == tokenize.COMMENT:
            row, col = tok.start
            out[row - 1] = out[row - 1][:col]
    return out


def _strip_hash_comment(line: str) -> str:
    """Shell, YAML, Dockerfile, requirements and CMake comments: '#' at the start or after a blank.
    A '#' glued to a word (a URL fragment, a C preprocessor line) stays."""
    if line.lstrip().startswith("#"):
        return ""
    match = re.search(r"\s#", line)
    return line[: match.start()] if match else line


def _cpp_code_lines(text: str) -> list[str]:
    """Blank // and /* */ comments, keeping string literals and line numbers."""
    out: list[str] = []
    buf: list[str] = []
    i, n = 0, len(text)
    in_block = False
    quote = ""
    while i < n:
        ch = text[i]
        nxt = text[i + 1] if i + 1 < n else ""
        if ch == "\n":
            out.append("".join(buf))
            buf = []
            if quote:  # an unterminated literal ends at the line
                quote = ""
            i += 1
            continue
        if in_block:
            if ch == "*" and nxt == "/":
                in_block = False
                i += 2
            else:
                i += 1
            continue
        if quote:
            buf.append(ch)
            if ch == "\\" and nxt and nxt != "\n":
                buf.append(nxt)
                i += 2
                continue
            if ch == quote:
                quote = ""
            i += 1
            continue
        if ch == "/" and nxt == "/":
            while i < n and text[i] != "\n":
                i += 1
            continue
        if ch == "/" and nxt == "*":
            in_block = True
            i += 2
            continue
        if ch in "\"'":
            quote = ch
        buf.append(ch)
        i += 1
    out.append("".join(buf))
    return out


def _notebook_cells(text: str) -> list[list[str]]:
    """The source lines of each code cell of an .ipynb (nbformat 4 JSON)."""
    doc = json.loads(text)
    cells = doc.get("cells") if isinstance(doc, dict) else None
    if not isinstance(cells, list):
        raise ValueError("not a Jupyter notebook (no 'cells' list)")
    out: list[list[str]] = []
    for cell in cells:
        if not isinstance(cell, dict) or cell.get("cell_type") != "code":
            out.append([])
            continue
        source = cell.get("source", "")
        joined = "".join(source) if isinstance(source, list) else str(source)
        out.append(joined.splitlines())
    return out


def _notebook_code_lines(lines: list[str]) -> list[str]:
    """Cell magics and shell escapes (%pip, !pip) are kept as text: they hold wheel indexes."""
    code = [("" if line.lstrip().startswith(("%", "!")) else line) for line in lines]
    cleaned = _python_code_lines("\n".join(code))
    return [
        _strip_hash_comment(raw) if raw.lstrip().startswith(("%", "!")) else kept
        for raw, kept in zip(lines, cleaned + [""] * (len(lines) - len(cleaned)), strict=False)
    ]


_DIRECTIVE = re.compile(r"^\s*#\s*(ifdef|ifndef|if|elif|else|endif)\b(.*)$")


def cuda_only_lines(lines: list[str], macros: Sequence[str]) -> set[int]:
    """1-based numbers of the lines inside a preprocessor branch that is not compiled for ROCm:
    ``#ifndef USE_ROCM`` / ``#if !defined(USE_ROCM)`` and the ``#else``/``#elif`` of
    ``#ifdef USE_ROCM`` (for any of the guard macros). Other conditions are neutral."""
    if not macros:
        return set()
    names = "|".join(re.escape(m) for m in macros)
    positive = re.compile(rf"^(\s*defined\s*\(?\s*({names})\s*\)?\s*|\s*({names})\s*)$")
    negative = re.compile(rf"^\s*!\s*defined\s*\(?\s*({names})\s*\)?\s*$")
    stack: list[tuple[str, bool]] = []  # (kind of condition, this branch excludes ROCm)
    out: set[int] = set()
    for number, line in enumerate(lines, start=1):
        m = _DIRECTIVE.match(line)
        if m:
            word, rest = m.group(1), m.group(2).strip()
            if word in ("ifdef", "ifndef", "if"):
                cond = rest
                if word == "ifdef" and re.fullmatch(names, cond):
                    stack.append(("hip", False))
                elif word == "ifndef" and re.fullmatch(names, cond):
                    stack.append(("nothip", True))
                elif word == "if" and positive.match(cond):
                    stack.append(("hip", False))
                elif word == "if" and negative.match(cond):
                    stack.append(("nothip", True))
                else:
                    stack.append(("other", False))
            elif word in ("else", "elif") and stack:
                kind, _ = stack[-1]
                if kind == "hip":
                    stack[-1] = (kind, True)  # the branch after #ifdef USE_ROCM is not ROCm
                elif kind == "nothip":
                    stack[-1] = (kind, False)
            elif word == "endif" and stack:
                stack.pop()
            continue
        if any(excluded for _, excluded in stack):
            out.add(number)
    return out


def code_lines(kind: str, text: str) -> list[str]:
    if kind == "python":
        return _python_code_lines(text)
    if kind == "cpp":
        return _cpp_code_lines(text)
    return [_strip_hash_comment(line) for line in text.splitlines()]


# -- the walk ---------------------------------------------------------------------------------------
def _excluded(relative: str, name: str, excludes: Sequence[str]) -> bool:
    return any(fnmatch.fnmatch(name, pat) or fnmatch.fnmatch(relative, pat) for pat in excludes)


def iter_files(
    root: Path, excludes: Sequence[str], skipped: list[Skipped]
) -> Iterator[tuple[Path, str]]:
    """Every regular file under root (as a path inside root and a relative posix name). Symbolic
    links are resolved and refused when they lead outside root; linked folders are not followed."""

    def unreadable(exc: OSError) -> None:
        where = Path(exc.filename or root)
        rel = where.relative_to(root).as_posix() if where.is_relative_to(root) else str(where)
        skipped.append(
            Skipped(rel + "/", f"skipped: cannot list the folder ({exc.strerror or exc})")
        )

    for current, dirs, files in os.walk(root, followlinks=False, onerror=unreadable):
        here = Path(current)
        kept = []
        for d in sorted(dirs):
            rel = (here / d).relative_to(root).as_posix()
            if _excluded(rel, d, excludes):
                continue
            if (here / d).is_symlink():
                target = (here / d).resolve()
                reason = (
                    "refused: symbolic link to a folder outside the audited root"
                    if not target.is_relative_to(root)
                    else "symbolic link to a folder inside the root: not followed (scanned where it lives)"
                )
                skipped.append(Skipped(rel + "/", reason))
                continue
            kept.append(d)
        dirs[:] = kept
        for f in sorted(files):
            path = here / f
            rel = path.relative_to(root).as_posix()
            if _excluded(rel, f, excludes):
                continue
            if path.is_symlink():
                target = path.resolve()
                if not target.is_relative_to(root):
                    skipped.append(
                        Skipped(rel, "refused: symbolic link to a file outside the audited root")
                    )
                    continue
                if not target.is_file():
                    skipped.append(Skipped(rel, "symbolic link that leads to no file"))
                    continue
            elif not _regular(path):
                # A pipe would block the read forever and a device (a copy of /dev/zero) never
                # ends: refused by type, before a byte is read.
                skipped.append(
                    Skipped(rel, "skipped: not a regular file (a pipe, device or socket)")
                )
                continue
            yield path, rel


def _regular(path: Path) -> bool:
    try:
        return stat.S_ISREG(path.lstat().st_mode)
    except OSError:
        return False


def _read_text(path: Path, size: int) -> tuple[str | None, str | None]:
    if size > MAX_FILE_BYTES:
        return (
            None,
            f"skipped: {size / 1024 / 1024:.1f} MiB is over the {MAX_FILE_BYTES // 1024 // 1024} MiB limit",
        )
    with path.open("rb") as handle:  # never more than the limit, whatever the size said
        data = handle.read(MAX_FILE_BYTES + 1)
    if len(data) > MAX_FILE_BYTES:
        return None, f"skipped: over the {MAX_FILE_BYTES // 1024 // 1024} MiB limit"
    if b"\x00" in data[:8192]:
        return None, "skipped: binary file"
    try:
        return data.decode("utf-8"), None
    except UnicodeDecodeError:
        try:
            return data.decode("latin-1"), None
        except UnicodeDecodeError:  # pragma: no cover - latin-1 decodes any byte
            return None, "skipped: not text"


def scan(
    path: str | Path,
    rules: RuleSet | None = None,
    excludes: Sequence[str] = (),
    now: datetime | None = None,
) -> ScanResult:
    """Audit the folder at ``path`` against the rule table."""
    given = Path(path)
    if not given.exists():
        raise AuditPathError(f"{given}: no such folder; pass the root of a repository to audit")
    if not given.is_dir():
        raise AuditPathError(f"{given}: not a folder; pass the root of a repository to audit")
    root = given.resolve()
    rules = rules or load_rules()
    result = ScanResult(
        root=root,
        label=given.name or root.name,
        scanned_at=now or datetime.now(UTC),
        rules=rules,
    )
    ci_files: list[tuple[str, list[str]]] = []
    for file_path, rel in iter_files(root, (*DEFAULT_EXCLUDES, *excludes), result.skipped):
        kind = classify(PurePosixPath(rel))
        if kind is None:
            continue
        try:
            text, why_not = _read_text(file_path, file_path.stat().st_size)
        except OSError as exc:
            result.skipped.append(Skipped(rel, f"skipped: cannot read ({exc.strerror or exc})"))
            continue
        if text is None:
            result.skipped.append(Skipped(rel, why_not or "skipped"))
            continue
        result.files_by_kind[kind] = result.files_by_kind.get(kind, 0) + 1
        applicable = rules.for_kind(kind)
        if kind == "notebook":
            try:
                cells = _notebook_cells(text)
            except (ValueError, json.JSONDecodeError) as exc:
                result.skipped.append(Skipped(rel, f"skipped: notebook is not valid JSON ({exc})"))
                result.files_by_kind[kind] -= 1
                continue
            for cell_no, cell_lines in enumerate(cells, start=1):
                result.findings += _match(
                    applicable, rel, kind, _notebook_code_lines(cell_lines), cell_no
                )
            continue
        lines = code_lines(kind, text)
        found = _match(applicable, rel, kind, lines, None)
        if kind == "cpp" and found:
            cuda_only = cuda_only_lines(lines, rules.rocm_guard_macros)
            found = [replace(f, guarded=("rocm",)) if f.line in cuda_only else f for f in found]
        result.findings += found
        if kind == "ci":
            ci_files.append((rel, lines))
    result.findings += _absence_findings(rules, result.findings, ci_files)
    return result


def _match(rules, rel: str, kind: str, lines: list[str], cell: int | None) -> list[Finding]:
    found = []
    for number, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        for rule in rules:
            if rule.pattern.search(line):
                found.append(Finding(rule.id, rel, number, kind, line.strip()[:160], cell))
    return found


def _absence_findings(
    rules: RuleSet, findings: list[Finding], ci_files: list[tuple[str, list[str]]]
) -> list[Finding]:
    """A `match: absent` rule fires when the code is tied to CUDA (other findings exist) and no
    CI file shows a job on any other backend."""
    if not findings:
        return []
    out = []
    for rule in rules.rules:
        if not rule.absent:
            continue
        relevant = [(rel, lines) for rel, lines in ci_files if "ci" in rule.kinds]
        if any(rule.pattern.search(line) for _, lines in relevant for line in lines):
            continue
        where = relevant[0][0] if relevant else "(repository)"
        text = (
            f"{len(relevant)} CI file(s), none runs on a non-CUDA backend"
            if relevant
            else "no CI configuration found"
        )
        out.append(Finding(rule.id, where, 0, "ci", text, None))
    return out
