import pytest

from tests.e2e.artifacts import screenshot

pytestmark = pytest.mark.e2e


def test_costs_page_shows_table_and_chart(app_url, page):
    page.goto(f"{app_url}/costs")
    page.get_by_text("All options").wait_for(timeout=60_000)
    page.locator(".js-plotly-plot").first.wait_for(timeout=30_000)
    # The table is drawn after the chart: wait for it rather than count at once (a busy machine
    # drew the chart and not yet the table).
    page.locator('[data-testid="stDataFrame"]').first.wait_for(timeout=30_000)
    assert page.locator('[data-testid="stDataFrame"]').count() >= 1
    assert page.get_by_text("$/1K tokens and first-token latency").is_visible()
    assert page.get_by_text("Cheapest $/1K output tokens").is_visible()
    page.wait_for_timeout(1000)
    path = screenshot(page, "costs")
    assert path.stat().st_size > 20_000
    assert page.locator('[data-testid="stException"]').count() == 0
