"""What the ``tokendesk`` commands print for a person, without ever breaking a value.

One renderer for every command's table. A terminal gets a table that fits its width: every number,
date and id column is laid out on one line (never folded mid-value); prose columns wrap only
between words, and a figure stays with its unit ("258 ms"). No column is ever left out: when the
columns do not fit side by side, each record is stacked as a block of ``Header: value`` pairs,
packed onto as few lines as the width allows. Anything that is not a terminal (a pipe, a file, CI)
gets plain, unwrapped, aligned lines, whatever ``COLUMNS`` says. Messages wrap at spaces in a
terminal and never elsewhere.
"""

from __future__ import annotations

import re
import sys
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

from rich import box
from rich.console import Console
from rich.table import Table
from rich.text import Text

Justify = Literal["left", "right", "center"]

#: Columns' borders and padding in the box style used: "│ a │ b │" is 3 per column plus 1.
_PER_COLUMN = 3
_EDGE = 1


class TextConsole(Console):
    """A rich console whose messages wrap only at spaces in a terminal and never outside one: a
    path, id or figure in a piped message stays on its line, so whatever reads it finds it whole."""

    def print(self, *objects: Any, soft_wrap: bool | None = None, **kwargs: Any) -> None:
        if soft_wrap is None:
            soft_wrap = not self.is_terminal
        super().print(*objects, soft_wrap=soft_wrap, **kwargs)


def make_console(stderr: bool = False) -> TextConsole:
    """The console every command prints through (stdout, or stderr for errors and notes)."""
    return TextConsole(stderr=stderr)


@dataclass(frozen=True)
class Col:
    """One column of a :class:`Grid`.

    ``priority`` 0 marks the columns a record is read by (what it is, the figure its verdict
    rests on): in a stacked record they come first. No column is ever left out. ``prose``
    columns (free text: notes, reasons, titles) may wrap between words; every other column holds
    values (figures, dates, ids) and is never wrapped."""

    header: str
    priority: int = 1
    prose: bool = False
    justify: Justify = "left"


#: A figure and its unit, which a line never separates: "258 ms", "1,200 tok/s", "Reserved 1 yr".
_FIGURE_AND_UNIT = re.compile(
    r"[-−+]?[$€£]?\d[\d,.]*%?"
    r" (?:ms|s|h|tok/s|tokens?|GiB|GB|TB|TiB|W|kW|yr|years?|months?|days?|×|x)(?![\w/])"
)
#: What separates the ``Header: value`` pairs a stacked record packs onto one line.
_PAIR_GAP = "  │ "


def _markup(cell: str) -> Text:
    return Text.from_markup(cell)


def _runs(plain: str, breaks: set[int]) -> list[tuple[int, int]]:
    """The runs of ``plain`` between the spaces at ``breaks``, as (start, end) offsets."""
    spans, start = [], None
    for i, char in enumerate(plain + " "):
        if char == " " and (i in breaks or i == len(plain)):
            if start is not None:
                spans.append((start, i))
                start = None
        elif start is None:
            start = i
    return spans


def _words(plain: str) -> list[tuple[int, int]]:
    """The unbreakable runs of one line of text, as (start, end) offsets: split at spaces, except
    a space inside a figure and its unit."""
    glued = {m.start() + m.group().index(" ") for m in _FIGURE_AND_UNIT.finditer(plain)}
    return _runs(plain, {i for i, c in enumerate(plain) if c == " " and i not in glued})


def _values(plain: str, width: int) -> list[tuple[int, int]]:
    """The unbreakable runs of a cell that joins values with " · " ("crusoe · global ·
    H100-SXM-80GB (per GPU) · On demand"): it breaks only after a "·", so an instance type or a
    pricing model with a space in it stays whole; a run longer than ``width`` falls back to
    words. Any other text breaks between words."""
    if " · " not in plain:
        return _words(plain)
    runs = _runs(plain, {i for i, c in enumerate(plain) if c == " " and plain[i - 1 : i] == "·"})
    spans = []
    for start, end in runs:
        if end - start <= width:
            spans.append((start, end))
        else:
            spans += [(start + a, start + b) for a, b in _words(plain[start:end])]
    return spans


def _pieces(word: Text, width: int) -> list[Text]:
    """A word longer than ``width`` cut after its slashes (a file path, an address) into pieces
    that fit where it can; a word without slashes, or a piece between two, stays whole."""
    if word.cell_len <= width or "/" not in word.plain or " " in word.plain:  # "4,020 tok/s"
        return [word]
    pieces: list[Text] = []
    start = 0
    cuts = [i + 1 for i, char in enumerate(word.plain) if char == "/"] + [len(word.plain)]
    for previous, cut in zip([0, *cuts], cuts, strict=False):
        if cut - start > width and previous > start:
            pieces.append(word[start:previous])
            start = previous
    pieces.append(word[start:])
    return pieces


def wrap_text(text: Text, width: int, indent: int = 0, values: bool = False) -> list[Text]:
    """``text`` wrapped at ``width`` between words only (a figure stays with its unit); lines
    after the first are indented by ``indent``. ``values``: the text is a table's cell, which
    breaks only between the values it joins with " · " where it has any. A word longer than the
    line keeps a line of its own, whole (a path is cut after a slash)."""
    lines: list[Text] = []
    offset = 0
    for raw in text.plain.split("\n"):
        paragraph = text[offset : offset + len(raw)]
        offset += len(raw) + 1
        current: Text | None = None
        room = width - indent
        runs = _values(raw, room) if values else _words(raw)
        for word in (piece for a, b in runs for piece in _pieces(paragraph[a:b], room)):
            if current is None:
                current = Text(" " * (indent if lines else 0)) + word
            elif current.cell_len + 1 + word.cell_len <= width:
                current.append(" ")
                current.append_text(word)
            else:
                lines.append(current)
                current = Text(" " * indent) + word
        lines.append(current if current is not None else Text(""))
    return lines


def _lines(markup: str) -> list[str]:
    return _markup(markup).plain.split("\n")


def _width(markup: str) -> int:
    return max((Text(line).cell_len for line in _lines(markup)), default=0)


def _longest_word(markup: str) -> int:
    widths = [
        Text(line[a:b]).cell_len for line in _lines(markup) for a, b in _values(line, sys.maxsize)
    ]
    return max(widths, default=0)


@dataclass
class Grid:
    """A table to print with :func:`print_table`; cells are rich markup, like ``rich.Table``'s."""

    title: str = ""
    columns: list[Col] = field(default_factory=list)
    rows: list[list[str]] = field(default_factory=list)

    def add_column(
        self, header: str, priority: int = 1, prose: bool = False, justify: Justify = "left"
    ) -> None:
        self.columns.append(Col(header, priority, prose, justify))

    def add_row(self, *cells: object) -> None:
        if len(cells) != len(self.columns):
            raise ValueError(f"a row of {len(cells)} cells for {len(self.columns)} columns")
        self.rows.append(["" if c is None else str(c) for c in cells])

    def natural_width(self, index: int) -> int:
        return max([_width(self.columns[index].header)] + [_width(r[index]) for r in self.rows])

    def min_width(self, index: int) -> int:
        """The narrowest a column can be without breaking a value (a prose word included)."""
        column = self.columns[index]
        if not column.prose:
            return self.natural_width(index)
        return max(
            [_longest_word(column.header)] + [_longest_word(r[index]) for r in self.rows] + [1]
        )


def column_widths(grid: Grid, width: int) -> list[int] | None:
    """Every column's width at ``width``, or None when the columns do not fit side by side
    without breaking a value (the records are then stacked). Prose columns give up width, the
    widest first, down to their longest word."""

    def needed(widths: list[int]) -> int:
        return sum(widths) + _PER_COLUMN * len(widths) + _EDGE

    indexes = range(len(grid.columns))
    minimum = [grid.min_width(i) for i in indexes]
    if not grid.columns or needed(minimum) > width:
        return None
    widths = [grid.natural_width(i) for i in indexes]
    while needed(widths) > width:
        candidates = [i for i in indexes if grid.columns[i].prose and widths[i] > minimum[i]]
        widest = max(candidates, key=lambda i: widths[i])
        widths[widest] -= 1
    return widths


def plain_lines(grid: Grid) -> list[str]:
    """The grid as aligned lines without wrapping or colour: for pipes, files and CI logs."""
    lines = [grid.title] if grid.title else []
    if not grid.columns:
        return lines
    table = [[_markup(c.header).plain for c in grid.columns]] + [
        [" / ".join(_lines(cell)) for cell in row] for row in grid.rows
    ]
    widths = [max(Text(r[i]).cell_len for r in table) for i in range(len(grid.columns))]
    for cells in table:
        padded = [
            cell.rjust(w) if col.justify == "right" else cell.ljust(w)
            for cell, w, col in zip(cells, widths, grid.columns, strict=True)
        ]
        lines.append("  ".join(padded).rstrip())
    return lines


def _pairs(grid: Grid, row: list[str]) -> list[Text]:
    """A record's ``Header: value`` pairs, the columns it is read by first; empty cells omitted."""
    order = sorted(range(len(grid.columns)), key=lambda i: grid.columns[i].priority != 0)
    pairs = []
    for i in order:
        value = Text(" / ").join(_markup(line) for line in row[i].split("\n"))
        if value.plain.strip():
            header = _markup(grid.columns[i].header).append(": ")
            header.stylize("bold")
            pairs.append(header + value)
    return pairs


def block_lines(grid: Grid, width: int) -> list[Text]:
    """One record per block, its ``Header: value`` pairs packed onto lines of at most ``width``
    (a pair is split, between words, only when it alone is longer): for a terminal too narrow
    for the table's columns side by side."""
    lines = wrap_text(Text(grid.title), width) if grid.title else []
    for number, row in enumerate(grid.rows, start=1):
        lines.append(Text(f"— {number} of {len(grid.rows)} —", style="dim"))
        current: Text | None = None
        for pair in _pairs(grid, row):
            if current is not None and current.cell_len + len(_PAIR_GAP) + pair.cell_len <= width:
                current.append(_PAIR_GAP, style="dim")
                current.append_text(pair)
                continue
            if current is not None:
                lines.append(current)
            *whole, current = wrap_text(pair, width, indent=2, values=True)
            lines.extend(whole)
        if current is not None:
            lines.append(current)
    return lines


def print_table(out: Console, grid: Grid, more: str = "") -> None:
    """Print ``grid`` on ``out`` without breaking any value or leaving out a column (see the
    module's docstring). ``more`` names where a stacked table reads one row per record (e.g.
    "--format csv"); it is only printed when the records were stacked."""
    if not out.is_terminal:
        out.file.write("\n".join(plain_lines(grid)) + "\n")
        out.file.flush()
        return
    widths = column_widths(grid, out.width)
    if widths is None:
        for line in block_lines(grid, out.width):
            # Already wrapped to the width: a single value longer than the line stays whole.
            out.print(line, crop=False, overflow="ignore", no_wrap=True)
        if more:
            note = (
                f"The {len(grid.columns)} columns do not fit side by side at {out.width} columns,"
                f" so each record is stacked; {more} gives one row per record."
            )
            for line in wrap_text(Text(note, style="dim"), out.width):
                out.print(line, crop=False, overflow="ignore", no_wrap=True)
        return
    table = Table(title=grid.title or None, box=box.SQUARE, show_edge=True, padding=(0, 1))
    for column, width in zip(grid.columns, widths, strict=True):
        table.add_column(
            column.header, justify=column.justify, width=width, no_wrap=True, overflow="ignore"
        )
    for row in grid.rows:
        cells = [
            Text("\n").join(wrap_text(_markup(cell), width, values=True))
            if column.prose
            else _markup(cell)
            for cell, column, width in zip(row, grid.columns, widths, strict=True)
        ]
        table.add_row(*cells)
    out.print(table)


def render_text(grid: Grid, width: int, terminal: bool = True) -> str:
    """What :func:`print_table` prints at ``width``: for tests and previews."""
    import io

    buffer = io.StringIO()
    probe = Console(file=buffer, width=width, force_terminal=terminal, color_system=None)
    print_table(probe, grid)
    return buffer.getvalue()


def grid_from_rows(
    rows: Sequence[Mapping[str, str]],
    title: str = "",
    essential: Iterable[str] = (),
    prose: Iterable[str] = (),
) -> Grid:
    """A grid of ``rows`` (header -> cell, the same headers in every row). ``essential`` columns
    lead each stacked record; ``prose`` columns may wrap between words."""
    keep, words = set(essential), set(prose)
    grid = Grid(title=title)
    for header in rows[0] if rows else ():
        grid.add_column(header, priority=0 if header in keep else 1, prose=header in words)
    for row in rows:
        grid.add_row(*row.values())
    return grid
