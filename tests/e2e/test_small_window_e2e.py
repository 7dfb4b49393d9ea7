"""At 1280x720 the pages are usable: the Overview's headline cards show their whole figure, and the
Scenarios table shows its Monthly and $/1K columns without scrolling sideways."""

from __future__ import annotations

import pytest

from tests.e2e.artifacts import ARTIFACTS, screenshot

WIDTH, HEIGHT = 1280, 720


@pytest.fixture
def small_page(browser):
    ARTIFACTS.mkdir(exist_ok=True)
    context = browser.new_context(viewport={"width": WIDTH, "height": HEIGHT})
    yield context.new_page()
    context.close()


def _inside_the_window(box: dict | None) -> bool:
    return box is not None and box["x"] >= 0 and box["x"] + box["width"] <= WIDTH


def _widths(metric_value) -> list[int]:
    """(the text's width, the width that shows it) of a metric card's value: Streamlit cuts a
    value too wide for its card with an ellipsis, so the first is larger when it is cut."""
    return metric_value.evaluate(
        "e => [e.firstElementChild.scrollWidth, e.firstElementChild.clientWidth]"
    )


def test_the_overview_headline_is_whole_at_1280(small_page, app_url):
    page = small_page
    page.goto(app_url)
    values = page.locator('[data-testid="stMetricValue"]')
    values.first.wait_for(timeout=60_000)
    screenshot(page, "overview-1280x720")
    assert values.count() >= 2
    for n in range(values.count()):
        value = values.nth(n)
        value.scroll_into_view_if_needed()
        assert _inside_the_window(value.bounding_box()), value.inner_text()
        text_width, shown_width = _widths(value)
        assert text_width <= shown_width, (value.inner_text(), text_width, shown_width)
    headline = page.get_by_text("against the plan to buy").first
    assert _inside_the_window(headline.bounding_box())


def test_the_scenarios_table_shows_its_monthly_and_per_token_columns_at_1280(small_page, app_url):
    page = small_page
    page.goto(f"{app_url}/scenarios")
    grid = page.locator('[data-testid="stDataFrame"]').first
    grid.wait_for(timeout=60_000)
    grid.scroll_into_view_if_needed()
    screenshot(page, "scenarios-1280x720")
    box = grid.bounding_box()
    assert _inside_the_window(box), box
    assert box["y"] >= 0 and box["y"] + box["height"] <= HEIGHT, box
    # The grid draws on a canvas and keeps an accessible header for each column it shows in its
    # visible area only (columns scrolled out of view have none).
    headers = grid.locator('[role="columnheader"]')
    headers.first.wait_for(state="attached", timeout=30_000)
    shown = [headers.nth(n).inner_text() for n in range(headers.count())]
    wanted_columns = (
        "Scenario",
        "Verdict",
        "$/month compared",  # the figure the verdict rests on
        "Monthly (month 1)",
        "$/1K output tokens (month 1)",
    )
    for wanted in wanted_columns:
        assert wanted in shown, shown


def test_the_futures_page_at_1280(small_page, app_url):
    page = small_page
    page.goto(f"{app_url}/futures")
    page.get_by_text("Decision log").first.wait_for(timeout=60_000)
    screenshot(page, "futures-1280x720")
    value = page.locator('[data-testid="stMetricValue"]').first
    assert _inside_the_window(value.bounding_box())
    text_width, shown_width = _widths(value)
    assert text_width <= shown_width
