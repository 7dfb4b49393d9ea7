"""A :class:`~briefs.document.Document` printed for a person at a terminal, or as plain lines.

The same content as the Markdown export, without its syntax (no ``#``, ``|``, ``**`` or ``\\$``):
headings, paragraphs and bullets wrap between words at the terminal's width, every table goes
through the one table renderer every command uses (side by side when the columns fit, each row
stacked as ``Header: value`` pairs when they do not), and bar charts are drawn to the width.
Outside a terminal (a pipe, a file) nothing is wrapped: a line holds a whole paragraph or row.
"""

from __future__ import annotations

from rich.console import Console
from rich.text import Text

from briefs.document import BarChart, Bullets, Document, Paragraph, Table
from tokendesk.terminal import Grid, print_table, wrap_text
from tokendesk.textsafety import clean_text, safe_message, terminal_text

#: The widest a bar is drawn, in characters (the Markdown export's width).
_BAR_WIDTH = 30
#: A line no piped paragraph reaches: outside a terminal nothing wraps.
_UNWRAPPED = 1_000_000
#: A column whose cells run to this many words is free text that may wrap between words.
_PROSE_WORDS = 3


def _text(value: object, style: str = "") -> Text:
    """Any text of the document, on one line, control characters and secrets removed."""
    cleaned = safe_message(str(value), limit=10_000).replace("\r", " ").replace("\n", " ")
    return Text(cleaned, style=style)


class _Printer:
    def __init__(self, out: Console) -> None:
        self.out = out
        self.width = out.width if out.is_terminal else _UNWRAPPED

    def line(self, text: Text) -> None:
        self.out.print(text, crop=False, overflow="ignore", no_wrap=True, soft_wrap=False)

    def wrapped(self, text: Text, indent: int = 0) -> None:
        for line in wrap_text(text, self.width, indent):
            self.line(line)

    def blank(self) -> None:
        self.line(Text(""))


def _grid(table: Table) -> Grid:
    shown = table.display()
    grid = Grid(title="")
    for column in shown.columns:
        cells = [str(v) for v in shown[column]]
        prose = any(len(cell.split()) >= _PROSE_WORDS for cell in cells)
        grid.add_column(terminal_text(str(column)), prose=prose)
    for row in shown.itertuples(index=False):
        grid.add_row(*(terminal_text(str(v)) for v in row))
    return grid


def _table(p: _Printer, table: Table) -> None:
    p.wrapped(_text(table.title, "bold"))
    if table.frame.empty:
        p.line(Text("(none)", style="dim"))
    else:
        print_table(p.out, _grid(table))
    if table.note:
        p.wrapped(_text(table.note, "italic"))


def _chart_line(p: _Printer, chart: BarChart, i: int, label_width: int, top: float) -> None:
    value = chart.values[i]
    figure = chart.value_format(value)
    if chart.low is not None and chart.high is not None:
        figure += (
            f"  (range {chart.value_format(chart.low[i])} – {chart.value_format(chart.high[i])})"
        )
    if chart.groups:
        figure += f"  [{chart.groups[i]}]"
    label = clean_text(chart.labels[i])
    room = p.width - label_width - 2 - 1 - len(figure)
    # Too narrow for the label, the bar and the figure on one line: the label goes above.
    stacked = room < _BAR_WIDTH // 3
    if stacked:
        p.wrapped(Text(label))
        room = p.width - 1 - len(figure)
    length = max(min(_BAR_WIDTH, room), 0)
    bar = "█" * max(int(round(value / top * length)), 0) if value == value else ""
    lead = "" if stacked else label.ljust(label_width) + "  "
    p.line(Text(f"{lead}{bar} {figure}"))


def _chart(p: _Printer, chart: BarChart) -> None:
    p.wrapped(_text(f"{chart.title} ({chart.unit})", "bold"))
    top = max([*(v for v in chart.values if v == v), *(chart.high or ()), 0.0]) or 1.0
    label_width = max((len(clean_text(label)) for label in chart.labels), default=0)
    for i in range(len(chart.values)):
        _chart_line(p, chart, i, label_width, top)
    if chart.note:
        p.wrapped(_text(chart.note, "italic"))


def print_document(out: Console, doc: Document) -> None:
    """Print ``doc`` on ``out``: fitted to a terminal's width, or as plain unwrapped lines."""
    p = _Printer(out)
    p.wrapped(_text(doc.title, "bold"))
    p.wrapped(_text(doc.subtitle))
    for label, value in doc.meta:
        p.wrapped(_text(f"{label}: {value}"), indent=2)
    for section in doc.sections:
        p.blank()
        heading = _text(section.title, "bold")
        p.wrapped(heading)
        p.line(Text("─" * min(heading.cell_len, p.width), style="dim"))
        for block in section.blocks:
            p.blank()
            if isinstance(block, Paragraph):
                p.wrapped(_text(block.text))
            elif isinstance(block, Bullets):
                if block.title:
                    p.wrapped(_text(block.title, "bold"))
                for item in block.items:
                    p.wrapped(Text("• ") + _text(item), indent=2)
            elif isinstance(block, Table):
                _table(p, block)
            elif isinstance(block, BarChart):
                _chart(p, block)
