"""The dashboard reads in the light and the dark theme: both carry its colours (a single [theme]
with a white background forced dark-theme visitors onto light), and the colours the charts set
themselves for lines that are no series read on both backgrounds."""

from __future__ import annotations

import tomllib

from app import charts
from tokendesk.paths import REPO_ROOT


def _config() -> dict:
    return tomllib.loads((REPO_ROOT / ".streamlit" / "config.toml").read_text(encoding="utf-8"))


def _luminance(colour: str) -> float:
    """WCAG relative luminance of ``#rrggbb``."""
    channels = [int(colour.lstrip("#")[i : i + 2], 16) / 255 for i in (0, 2, 4)]
    linear = [c / 12.92 if c <= 0.03928 else ((c + 0.055) / 1.055) ** 2.4 for c in channels]
    return 0.2126 * linear[0] + 0.7152 * linear[1] + 0.0722 * linear[2]


def _contrast(a: str, b: str) -> float:
    high, low = sorted((_luminance(a), _luminance(b)), reverse=True)
    return (high + 0.05) / (low + 0.05)


def test_light_and_dark_both_carry_the_dashboards_colours():
    theme = _config()["theme"]
    assert "base" not in theme and "backgroundColor" not in theme  # the visitor's choice wins
    for mode in ("light", "dark"):
        colours = theme[mode]
        assert {"primaryColor", "backgroundColor", "textColor"} <= set(colours), mode
        # Body text well above WCAG AA (4.5:1) on its own background.
        assert _contrast(colours["textColor"], colours["backgroundColor"]) >= 7, mode
    assert _luminance(theme["dark"]["backgroundColor"]) < 0.05


def test_lines_and_bars_the_charts_colour_themselves_read_on_both_backgrounds():
    theme = _config()["theme"]
    backgrounds = [theme[mode]["backgroundColor"] for mode in ("light", "dark")]
    own = [charts.NEUTRAL_LINE, *charts.MEMORY_PART_COLOURS.values()]
    for colour in own:
        for background in backgrounds:
            assert _contrast(colour, background) >= 1.8, (colour, background)
