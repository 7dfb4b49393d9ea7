"""YAML from outside, read within limits: size, nesting, aliases and node count are checked on the
parser's event stream before any Python object is built, and every error is a short sentence.

``yaml.safe_load`` alone is safe from code execution but not from size: nine levels of aliases
("billion laughs") build a few kilobytes of references that anything walking the document (a
validator, ``repr`` in an error message, a JSON dump) expands into billions of values. A real
workspace, rule table or price sheet uses a handful of anchors at most.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import yaml

from tokendesk.textsafety import InputFileError, clean_text, read_limited

#: Aliases (``*name``) one document may use; hand-written files use a few to repeat a block.
MAX_YAML_ALIASES = 32
#: Deepest nesting of mappings and lists (a workspace nests 5 levels).
MAX_YAML_DEPTH = 24
#: Scalars, mappings and lists in one document, before aliases are expanded.
MAX_YAML_NODES = 200_000


#: libyaml's safe loader when PyYAML was built with it (about 20x faster on large files), else
#: the pure-Python one: both build only plain data (no Python objects from tags).
_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
#: Longest run of digits read as a number: Python refuses to convert more than 4,300, and no
#: figure in any input needs more than a few dozen.
MAX_NUMBER_DIGITS = 100


class YamlInputError(ValueError):
    """A YAML input was refused: ``message`` says which limit or which line, briefly."""

    def __init__(self, source: str, message: str) -> None:
        self.source, self.message = clean_text(source), message
        super().__init__(f"{self.source}: {message}")


@dataclass(frozen=True)
class YamlLimits:
    max_bytes: int
    max_aliases: int = MAX_YAML_ALIASES
    max_depth: int = MAX_YAML_DEPTH
    max_nodes: int = MAX_YAML_NODES


def _where(mark: object) -> str:
    line = getattr(mark, "line", None)
    return f"line {line + 1}" if isinstance(line, int) else "the document"


def _check_events(text: str, source: str, limits: YamlLimits) -> None:
    aliases = depth = nodes = 0
    try:
        for event in yaml.parse(text, Loader=_LOADER):
            if isinstance(event, yaml.AliasEvent):
                aliases += 1
                if aliases > limits.max_aliases:
                    raise YamlInputError(
                        source,
                        f"uses more than {limits.max_aliases} aliases (*name) — at"
                        f" {_where(event.start_mark)}; write the values out instead of"
                        " repeating anchors",
                    )
            elif isinstance(event, (yaml.MappingStartEvent, yaml.SequenceStartEvent)):
                depth += 1
                nodes += 1
                if depth > limits.max_depth:
                    raise YamlInputError(
                        source,
                        f"nests deeper than {limits.max_depth} levels at"
                        f" {_where(event.start_mark)}",
                    )
            elif isinstance(event, (yaml.MappingEndEvent, yaml.SequenceEndEvent)):
                depth -= 1
            elif isinstance(event, yaml.ScalarEvent):
                nodes += 1
                _check_number(event, source)
            if nodes > limits.max_nodes:
                raise YamlInputError(
                    source, f"holds more than {limits.max_nodes:,} values; split or shorten it"
                )
    except yaml.YAMLError as exc:
        raise YamlInputError(source, f"not valid YAML ({yaml_problem(exc)})") from None


def _check_number(event: yaml.ScalarEvent, source: str) -> None:
    """An unquoted run of digits YAML would make an integer too long to handle."""
    value = event.value
    # Plain (unquoted) scalars only: a quoted run of digits is text. The C parser reports the
    # plain style as "" and the Python one as None.
    if event.style in (None, "") and len(value) > MAX_NUMBER_DIGITS:
        digits = value.lstrip("+-").replace("_", "")
        if digits.isdigit():
            raise YamlInputError(
                source,
                f"holds a number of {len(digits):,} digits at {_where(event.start_mark)}; no"
                f" figure needs more than {MAX_NUMBER_DIGITS}",
            )


def yaml_problem(exc: yaml.YAMLError) -> str:
    """What the YAML parser found wrong and where, without the quoted snippet of the input."""
    problem = getattr(exc, "problem", None) or getattr(exc, "context", None) or "unreadable"
    mark = getattr(exc, "problem_mark", None) or getattr(exc, "context_mark", None)
    line = getattr(mark, "line", None)
    column = getattr(mark, "column", None)
    where = (
        f" at line {line + 1}, column {column + 1}"
        if isinstance(line, int) and isinstance(column, int)
        else ""
    )
    return clean_text(str(problem))[:200] + where


def load_yaml_text(text: str, source: str, limits: YamlLimits) -> object:
    """The document in ``text``, after the limits are checked; a :class:`YamlInputError` if not.

    Values the YAML loader itself cannot build (``2026-02-30`` as a date, a number too large for
    a float) are refused here too, naming the problem, not left to fail later.
    """
    if len(text.encode("utf-8", "surrogatepass")) > limits.max_bytes:
        raise YamlInputError(source, f"is larger than {_size(limits.max_bytes)}; shorten it")
    _check_events(text, source, limits)
    try:
        return yaml.load(text, Loader=_LOADER)  # a safe loader (C or Python): plain data only
    except yaml.YAMLError as exc:
        raise YamlInputError(source, f"not valid YAML ({yaml_problem(exc)})") from None
    except (ValueError, OverflowError, TypeError) as exc:
        # The loader builds dates and numbers as it goes: 2026-02-30 is a ValueError from date().
        raise YamlInputError(
            source, f"holds a value YAML cannot read: {clean_text(str(exc))[:120]}"
        ) from None


def _size(limit: int) -> str:
    return f"{limit // 1024:,} KiB" if limit < 1024 * 1024 else f"{limit // (1024 * 1024):,} MiB"


def read_yaml_text(path: Path | str, limits: YamlLimits) -> str:
    """The text of a YAML file: a regular file (not a directory, device or pipe — checked before
    reading), at most ``limits.max_bytes``, in UTF-8 (YAML's own default; a UTF-16 or Latin-1
    file is refused with what to do)."""
    path = Path(path)
    try:
        data = read_limited(path, limits.max_bytes)
    except InputFileError as exc:
        raise YamlInputError(path.name or str(path), _readable(exc.message, limits)) from None
    except OSError as exc:
        raise YamlInputError(
            path.name, f"cannot be read ({clean_text(exc.strerror or '')})"
        ) from None
    if data.startswith((b"\xff\xfe", b"\xfe\xff")):
        raise YamlInputError(
            path.name, "is UTF-16 text; save it as UTF-8 (the encoding YAML files use)"
        )
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise YamlInputError(
            path.name,
            f"is not UTF-8 text (byte {exc.start:,} is 0x{data[exc.start]:02x}, as in Latin-1);"
            " save it as UTF-8",
        ) from None


def _readable(message: str, limits: YamlLimits) -> str:
    if message.startswith("larger than"):
        return f"is larger than {_size(limits.max_bytes)}; shorten it"
    return message


def load_yaml_file(path: Path | str, limits: YamlLimits) -> object:
    """:func:`read_yaml_text` then :func:`load_yaml_text`."""
    return load_yaml_text(read_yaml_text(path, limits), Path(path).name, limits)
