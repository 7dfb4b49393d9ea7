"""The PDF pieces every printed page of tokendesk shares (the buy/no-buy brief, the portability gap
list): a font that has the project's symbols, text made safe for reportlab's mini-markup, the
landscape A4 page, and the grid table with a repeated header row.

reportlab costs about 0.3 s to import, so the writers import this module only when they write a
PDF.
"""

from __future__ import annotations

import html
import io
import os
from collections.abc import Sequence

import reportlab
from reportlab.lib import colors
from reportlab.lib.pagesizes import A4, landscape
from reportlab.lib.units import mm
from reportlab.pdfbase import pdfmetrics
from reportlab.pdfbase.ttfonts import TTFont
from reportlab.platypus import Flowable, LongTable, SimpleDocTemplate, TableStyle

#: Registered once per process under this name (and ``-Bold``).
FONT = "TokendeskVera"
#: Landscape A4: the wide tables of a brief and a gap list need the width.
PAGE = landscape(A4)
HEADER_BACKGROUND = colors.HexColor("#e8edf3")
GRID_LINE = colors.HexColor("#b0b0b0")
#: Characters Vera lacks, written as words or ASCII instead.
_MISSING_GLYPHS = {"→": "->", "✓": "yes", "✗": "no"}


def fonts() -> tuple[str, str]:
    """(regular, bold) names of Bitstream Vera, shipped with reportlab: it covers ≤, ×, ÷, –, —
    and € that the base-14 PDF fonts lack."""
    if FONT not in pdfmetrics.getRegisteredFontNames():
        folder = os.path.join(os.path.dirname(reportlab.__file__), "fonts")
        pdfmetrics.registerFont(TTFont(FONT, os.path.join(folder, "Vera.ttf")))
        pdfmetrics.registerFont(TTFont(FONT + "-Bold", os.path.join(folder, "VeraBd.ttf")))
    return FONT, FONT + "-Bold"


def plain(text: object) -> str:
    """``text`` with the characters the font lacks replaced (for text drawn on the canvas)."""
    out = str(text)
    for glyph, stand_in in _MISSING_GLYPHS.items():
        out = out.replace(glyph, stand_in)
    return out


def markup(text: object) -> str:
    """``text`` for a reportlab Paragraph: glyphs the font lacks replaced, and escaped so that
    ``<``, ``>`` and ``&`` in outside text print as themselves. (reportlab splits words longer than
    a column, so URLs and ids still wrap.)"""
    return html.escape(plain(text), quote=False)


def landscape_document(
    buffer: io.BytesIO,
    *,
    title: str,
    subject: str = "",
    margin_mm: float,
    bottom_margin_mm: float | None = None,
) -> tuple[SimpleDocTemplate, float]:
    """A landscape A4 document written to ``buffer`` and the width of its text frame (points)."""
    margin = margin_mm * mm
    bottom = (bottom_margin_mm if bottom_margin_mm is not None else margin_mm) * mm
    document = SimpleDocTemplate(
        buffer,
        pagesize=PAGE,
        leftMargin=margin,
        rightMargin=margin,
        topMargin=margin,
        bottomMargin=bottom,
        title=title,
        subject=subject,
        author="tokendesk",
        creator="tokendesk",
    )
    return document, PAGE[0] - 2 * margin


def grid_table(
    rows: Sequence[Sequence[Flowable]],
    widths: Sequence[float],
    *,
    padding_pt: tuple[float, float] = (1.5, 2.5),
) -> LongTable:
    """A ruled table whose first row is the header, shaded and repeated on every page;
    ``padding_pt`` is (top and bottom, left and right) inside each cell."""
    vertical, horizontal = padding_pt
    grid = LongTable([list(row) for row in rows], colWidths=list(widths), repeatRows=1)
    grid.setStyle(
        TableStyle(
            [
                ("GRID", (0, 0), (-1, -1), 0.25, GRID_LINE),
                ("BACKGROUND", (0, 0), (-1, 0), HEADER_BACKGROUND),
                ("VALIGN", (0, 0), (-1, -1), "TOP"),
                ("TOPPADDING", (0, 0), (-1, -1), vertical),
                ("BOTTOMPADDING", (0, 0), (-1, -1), vertical),
                ("LEFTPADDING", (0, 0), (-1, -1), horizontal),
                ("RIGHTPADDING", (0, 0), (-1, -1), horizontal),
            ]
        )
    )
    return grid
