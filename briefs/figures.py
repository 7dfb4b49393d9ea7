"""Bar charts drawn with reportlab's vector graphics: embedded as vector art in the PDF and as
inline SVG in the HTML (no external assets, no browser needed)."""

from __future__ import annotations

import math
import re

from reportlab.graphics.shapes import Drawing, Line, Rect, String
from reportlab.lib import colors

from briefs.document import BarChart
from planning.verdicts import BUY_WORD, DEFER_WORD, KEEP_WORD, NO_BUY_WORD

# reportlab is imported where a chart is drawn (about 0.3 s on the dev box; see briefs/render.py).

#: Colour per recommendation; anything else gets the neutral blue.
GROUP_COLOURS = {
    BUY_WORD: colors.HexColor("#2e7d32"),
    NO_BUY_WORD: colors.HexColor("#c62828"),
    DEFER_WORD: colors.HexColor("#ef8f00"),
    KEEP_WORD: colors.HexColor("#1565c0"),
    "cut": colors.HexColor("#2e7d32"),
    "rise": colors.HexColor("#c62828"),
}
NEUTRAL = colors.HexColor("#1565c0")
FONT = "Helvetica"
BAR_H = 16
GAP = 6
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


def nice_ticks(vmax: float, count: int = 4) -> list[float]:
    """0 and round steps (1, 2, 2.5 or 5 × a power of ten) up to at least ``vmax``."""
    if vmax <= 0:
        return [0.0, 1.0]
    raw = vmax / count
    power = 10 ** math.floor(math.log10(raw))
    step = next(m * power for m in (1, 2, 2.5, 5, 10) if m * power >= raw)
    ticks = [0.0]
    while ticks[-1] < vmax - 1e-9:
        ticks.append(ticks[-1] + step)
    return ticks


def drawing(chart: BarChart, width: float = 480, bar_h: float = BAR_H) -> Drawing:
    """Horizontal bars with a value axis: ticks, tick labels and the unit as the axis title."""
    n = len(chart.labels)
    axis_h = 30  # tick labels and the axis title under the bars
    height = TOP + n * (bar_h + GAP) + axis_h
    d = Drawing(width, height)
    plot_w = width - LABEL_W - VALUE_W
    tops = [*chart.values, *(chart.high or ())]
    ticks = nice_ticks(max([v for v in tops if v == v] + [0.0]))
    scale = plot_w / ticks[-1]
    d.add(String(0, height - 14, _ascii(chart.title), fontName=FONT + "-Bold", fontSize=10))
    axis_y = axis_h - 2
    for tick in ticks:
        x = LABEL_W + tick * scale
        d.add(Line(x, axis_y, x, height - TOP + 2, strokeColor=colors.HexColor("#e3e3e3")))
        d.add(Line(x, axis_y - 3, x, axis_y, strokeColor=colors.grey))
        d.add(
            String(
                x,
                axis_y - 11,
                _ascii(chart.value_format(tick)),
                fontName=FONT,
                fontSize=7,
                textAnchor="middle",
                fillColor=colors.HexColor("#444444"),
            )
        )
    for i, (label, value) in enumerate(zip(chart.labels, chart.values, strict=True)):
        y = height - TOP - (i + 1) * (bar_h + GAP) + GAP
        group = chart.groups[i] if chart.groups else ""
        colour = GROUP_COLOURS.get(group, NEUTRAL)
        text = label if len(label) <= 32 else label[:31] + "…"
        d.add(
            String(
                LABEL_W - 6,
                y + bar_h / 2 - 3,
                _ascii(text),
                fontName=FONT,
                fontSize=8,
                textAnchor="end",
            )
        )
        if value == value and value > 0:
            d.add(Rect(LABEL_W, y, value * scale, bar_h, fillColor=colour, strokeColor=None))
        if chart.low is not None and chart.high is not None:
            lo, hi = chart.low[i], chart.high[i]
            if lo == lo and hi == hi:
                mid = y + bar_h / 2
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
        shown = value if value == value else 0.0
        caption = (chart.value_format(value) if value == value else "— (no fleet)") + (
            f"  [{group}]" if group else ""
        )
        high = chart.high[i] if chart.high is not None and chart.high[i] == chart.high[i] else 0.0
        right = max(shown, high)
        d.add(
            String(
                LABEL_W + right * scale + 4,
                y + bar_h / 2 - 3,
                _ascii(caption),
                fontName=FONT,
                fontSize=8,
            )
        )
    d.add(Line(LABEL_W, axis_y, LABEL_W + plot_w, axis_y, strokeColor=colors.grey))
    d.add(Line(LABEL_W, axis_y, LABEL_W, height - TOP + 2, strokeColor=colors.grey))
    d.add(
        String(
            LABEL_W + plot_w / 2,
            1,
            _ascii(chart.unit + ("; whiskers: low-high range" if chart.low is not None else "")),
            fontName=FONT,
            fontSize=7,
            textAnchor="middle",
            fillColor=colors.HexColor("#444444"),
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
