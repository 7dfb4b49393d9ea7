"""Bar charts drawn with reportlab's vector graphics: embedded as vector art in the PDF and as
inline SVG in the HTML (no external assets, no browser needed)."""

from __future__ import annotations

import re

from reportlab.graphics.shapes import Drawing, Line, Rect, String
from reportlab.lib import colors

from briefs.document import BarChart

# reportlab is imported where a chart is drawn (about 0.3 s on the dev box; see briefs/render.py).

#: Colour per recommendation; anything else gets the neutral blue.
GROUP_COLOURS = {
    "buy": colors.HexColor("#2e7d32"),
    "no-buy": colors.HexColor("#c62828"),
    "defer": colors.HexColor("#ef8f00"),
    "keep": colors.HexColor("#1565c0"),
    "cut": colors.HexColor("#2e7d32"),
    "rise": colors.HexColor("#c62828"),
}
NEUTRAL = colors.HexColor("#1565c0")
FONT = "Helvetica"
BAR_H = 16
GAP = 8
LABEL_W = 170
VALUE_W = 120
TOP = 22


def _ascii(text: str) -> str:
    # The base-14 Helvetica used inside drawings covers Latin-1 only.
    return (
        text.replace("→", "->")
        .replace("≤", "<=")
        .replace("≥", ">=")
        .replace("—", "-")
        .replace("–", "-")
    )


def drawing(chart: BarChart, width: float = 480) -> Drawing:
    n = len(chart.labels)
    height = TOP + n * (BAR_H + GAP) + 24
    d = Drawing(width, height)
    plot_w = width - LABEL_W - VALUE_W
    tops = [*chart.values, *(chart.high or ())]
    vmax = max([v for v in tops if v == v] + [0.0]) or 1.0
    scale = plot_w / vmax
    d.add(String(0, height - 14, _ascii(chart.title), fontName=FONT + "-Bold", fontSize=10))
    for i, (label, value) in enumerate(zip(chart.labels, chart.values, strict=True)):
        y = height - TOP - (i + 1) * (BAR_H + GAP) + GAP
        group = chart.groups[i] if chart.groups else ""
        colour = GROUP_COLOURS.get(group, NEUTRAL)
        text = label if len(label) <= 32 else label[:31] + "…"
        d.add(String(LABEL_W - 6, y + 4, _ascii(text), fontName=FONT, fontSize=8, textAnchor="end"))
        if value == value and value > 0:
            d.add(Rect(LABEL_W, y, value * scale, BAR_H, fillColor=colour, strokeColor=None))
        if chart.low is not None and chart.high is not None:
            lo, hi = chart.low[i], chart.high[i]
            if lo == lo and hi == hi:
                mid = y + BAR_H / 2
                d.add(
                    Line(
                        LABEL_W + lo * scale,
                        mid,
                        LABEL_W + hi * scale,
                        mid,
                        strokeColor=colors.black,
                        strokeWidth=1,
                    )
                )
                for x in (lo, hi):
                    d.add(
                        Line(
                            LABEL_W + x * scale,
                            mid - 4,
                            LABEL_W + x * scale,
                            mid + 4,
                            strokeColor=colors.black,
                        )
                    )
        caption = chart.value_format(value) + (f"  [{group}]" if group else "")
        right = max(value, chart.high[i] if chart.high is not None else 0.0)
        d.add(
            String(LABEL_W + right * scale + 4, y + 4, _ascii(caption), fontName=FONT, fontSize=8)
        )
    d.add(Line(LABEL_W, 14, LABEL_W, height - TOP + 2, strokeColor=colors.grey))
    d.add(
        String(
            LABEL_W,
            2,
            _ascii(chart.unit + ("; whiskers: low-high range" if chart.low is not None else "")),
            fontName=FONT,
            fontSize=7,
            fillColor=colors.grey,
        )
    )
    return d


def svg(chart: BarChart, width: float = 640) -> str:
    """The chart as an inline ``<svg>`` element (no XML prolog, no DOCTYPE, no external refs)."""
    from reportlab.graphics import renderSVG

    text = renderSVG.drawToString(drawing(chart, width))
    text = re.sub(r"<\?xml[^>]*\?>", "", text)
    text = re.sub(r"<!DOCTYPE[^>]*>", "", text, flags=re.S)
    return text.strip()
