"""The cost-against-FTL scatters are given margins that already hold their ticks, axis titles and
legend: Plotly has no margin to grow, so it does not draw the chart again to grow it."""

import pytest

pytestmark = pytest.mark.e2e

#: What Plotly drew with (``_size``) against what the figure asked for (``margin``).
MARGINS = """() => [...document.querySelectorAll('.js-plotly-plot')].map(g => ({
    drawn: g._fullLayout._size, given: g._fullLayout.margin}))"""


@pytest.mark.parametrize(("path", "marker"), [("costs", "All options"), ("", "Data freshness")])
def test_the_ftl_scatter_needs_no_wider_margin_than_it_is_given(app_url, page, path, marker):
    page.goto(f"{app_url}/{path}")
    page.get_by_text(marker).wait_for(timeout=60_000)
    page.locator(".js-plotly-plot").first.wait_for(timeout=30_000)
    page.wait_for_timeout(500)
    (chart,) = page.evaluate(MARGINS)
    for side in ("l", "r", "t", "b"):
        assert round(chart["drawn"][side]) == chart["given"][side], (side, chart)
