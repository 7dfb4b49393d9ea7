"""What the ``tokendesk`` commands print for a person, without ever breaking a value.

A terminal gets a table that fits its width: every number, date and id column is laid out on one
line (never folded mid-value); prose columns wrap only between words; when the columns do not fit,
the least important ones are left out (and named), and when even the essential ones do not fit,
each record is printed as a block of ``Header: value`` lines. Anything that is not a terminal (a
pipe, a file, CI) gets plain, unwrapped, aligned lines, whatever ``COLUMNS`` says. Messages wrap at
spaces in a terminal and never elsewhere.
"""

from __future__ import annotations

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

    ``priority`` 0 is always shown; higher numbers are left out first when the width runs short.
    ``prose`` columns (free text: notes, reasons, titles) may wrap between words; every other
    column holds values (figures, dates, ids) and is never wrapped."""

    header: str
    priority: int = 1
    prose: bool = False
    justify: Justify = "left"


def _lines(markup: str) -> list[str]:
    return Text.from_markup(markup).plain.split("\n")


def _width(markup: str) -> int:
    return max((Text(line).cell_len for line in _lines(markup)), default=0)


def _longest_word(markup: str) -> int:
    words = [w for line in _lines(markup) for w in line.split()]
    return max((Text(w).cell_len for w in words), default=0)


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


def column_widths(grid: Grid, width: int) -> tuple[list[int], list[int]] | None:
    """The columns shown at ``width`` and their widths, or None when even the essential columns
    do not fit without breaking a value. Least important columns go first (the rightmost among
    equals); prose columns then give up width, down to their longest word."""
    shown = list(range(len(grid.columns)))

    def needed(indexes: list[int], widths: list[int]) -> int:
        return sum(widths) + _PER_COLUMN * len(indexes) + _EDGE

    while shown:
        minimum = [grid.min_width(i) for i in shown]
        if needed(shown, minimum) <= width:
            widths = [grid.natural_width(i) for i in shown]
            # Narrow the widest prose column, one cell at a time, until the table fits.
            while needed(shown, widths) > width:
                candidates = [
                    k
                    for k, i in enumerate(shown)
                    if grid.columns[i].prose and widths[k] > minimum[k]
                ]
                widest = max(candidates, key=lambda k: widths[k])
                widths[widest] -= 1
            return shown, widths
        droppable = [i for i in shown if grid.columns[i].priority > 0]
        if not droppable:
            return None
        least = max(droppable, key=lambda i: (grid.columns[i].priority, i))
        shown.remove(least)
    return None


def plain_lines(grid: Grid) -> list[str]:
    """The grid as aligned lines without wrapping or colour: for pipes, files and CI logs."""
    lines = [grid.title] if grid.title else []
    if not grid.columns:
        return lines
    table = [[c.header for c in grid.columns]] + [
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


def block_lines(grid: Grid) -> list[str]:
    """One record per block of ``Header: value`` lines: for a terminal too narrow for the table."""
    lines = [grid.title] if grid.title else []
    for number, row in enumerate(grid.rows, start=1):
        lines.append(f"— {number} of {len(grid.rows)} —")
        for column, cell in zip(grid.columns, row, strict=True):
            value = " / ".join(_lines(cell))
            if value:
                lines.append(f"{column.header}: {value}")
    return lines


def print_table(out: Console, grid: Grid, more: str = "") -> None:
    """Print ``grid`` on ``out`` without breaking any value (see the module's docstring).

    ``more`` says where the columns left out at this width can be read in full (e.g. "--format
    csv"); it is only printed when columns were left out."""
    if not out.is_terminal:
        out.file.write("\n".join(plain_lines(grid)) + "\n")
        out.file.flush()
        return
    layout = column_widths(grid, out.width)
    if layout is None:
        for line in block_lines(grid):
            # Wrapped between words only: a single value longer than the terminal stays whole.
            out.print(Text(line, overflow="ignore"), crop=False)
        return
    shown, widths = layout
    table = Table(title=grid.title or None, box=box.SQUARE, show_edge=True, padding=(0, 1))
    for index, width in zip(shown, widths, strict=True):
        column = grid.columns[index]
        table.add_column(
            column.header,
            justify=column.justify,
            width=width,
            no_wrap=not column.prose,
            overflow="fold",
        )
    for row in grid.rows:
        table.add_row(*(row[i] for i in shown))
    out.print(table)
    hidden = [c.header for i, c in enumerate(grid.columns) if i not in shown]
    if hidden:
        where = f"; {more} shows every column" if more else ""
        out.print(
            Text(
                f"Not shown at {out.width} columns: {', '.join(hidden)} (a wider terminal{where})."
            )
        )


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
    always show; the others give way right to left; ``prose`` columns may wrap between words."""
    keep, words = set(essential), set(prose)
    grid = Grid(title=title)
    for position, header in enumerate(rows[0] if rows else ()):
        grid.add_column(
            header, priority=0 if header in keep else position + 1, prose=header in words
        )
    for row in rows:
        grid.add_row(*row.values())
    return grid
