"""Charts a page draws on every visit are given margins that already hold their ticks, axis
titles and legend: Plotly has no margin to grow, so it does not draw the chart again to grow it.
The margins are worked out from the labels' widths (``app.glyphs``), which must be the widths the
browser draws them at."""

import pytest

from app.glyphs import label_px

pytestmark = pytest.mark.e2e

#: What Plotly drew with (``_size``) against what the figure asked for (``margin``), and the
#: vertical axis's tick labels with their drawn widths.
DRAWN = """() => [...document.querySelectorAll('.js-plotly-plot')].map(g => ({
    drawn: g._fullLayout._size, given: g._fullLayout.margin,
    ticks: [...g.querySelectorAll('.ytick text')].map(t => [t.textContent, t.getBBox().width])}))"""

PAGES = [
    ("costs", "All options"),
    ("", "Data freshness"),
    ("memory-fit", "Which accelerators fit"),
    ("scenarios", "Side by side"),
]


def _charts(page, app_url: str, path: str, marker: str) -> list[dict]:
    page.goto(f"{app_url}/{path}")
    page.get_by_text(marker).wait_for(timeout=60_000)
    page.locator(".js-plotly-plot").first.wait_for(timeout=30_000)
    page.wait_for_timeout(500)
    return page.evaluate(DRAWN)


@pytest.mark.parametrize(("path", "marker"), PAGES, ids=[p or "overview" for p, _ in PAGES])
def test_the_chart_needs_no_wider_margin_than_it_is_given(app_url, page, path, marker):
    chart = _charts(page, app_url, path, marker)[0]
    for side in ("l", "r", "t", "b"):
        assert round(chart["drawn"][side]) == chart["given"][side], (side, chart["drawn"])


def test_label_widths_are_the_widths_the_browser_draws(app_url, page):
    (chart,) = _charts(page, app_url, "memory-fit", "Which accelerators fit")
    assert len(chart["ticks"]) > 10
    for text, drawn in chart["ticks"]:
        assert label_px(text) == pytest.approx(drawn, abs=1.5), text
