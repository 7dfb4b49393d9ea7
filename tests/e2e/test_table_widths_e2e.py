"""At 1280x720 and 1440x900 no table on any page is wider than its container: every dataframe,
editor and table shows its columns without scrolling sideways (the columns left out wait behind
a switch that names them), and none reaches past the main column."""

from __future__ import annotations

import pytest

from tests.e2e.artifacts import ARTIFACTS, screenshot

PAGES = ("", "costs", "workspace", "scenarios", "futures", "prices", "benchmarks", "memory-fit")
#: Each table's own width, the width it shows (the grid's scroller, else the element), and how
#: far it reaches against the main column's right edge.
MEASURE = """() => {
  const main = document.querySelector('[data-testid="stMainBlockContainer"]');
  const right = main.getBoundingClientRect().right;
  const tables = document.querySelectorAll(
    '[data-testid="stDataFrame"], [data-testid="stTable"], [data-testid="stMarkdownContainer"] table'
  );
  return Array.from(tables, (el) => {
    const scroller = el.querySelector('.dvn-scroller') || el;
    const box = el.getBoundingClientRect();
    const heading = el.closest('[data-testid="stElementContainer"]');
    return {
      what: (el.dataset.testid || 'table') + ' after: ' +
        ((heading && heading.previousElementSibling && heading.previousElementSibling.innerText) ||
         '').slice(0, 60),
      content: scroller.scrollWidth, shown: scroller.clientWidth,
      reach: Math.round(box.right), right: Math.round(right),
    };
  });
}"""


@pytest.mark.parametrize("size", [(1280, 720), (1440, 900)], ids=["1280x720", "1440x900"])
def test_no_table_is_cut_on_any_page(browser, app_url, size):
    ARTIFACTS.mkdir(exist_ok=True)
    width, height = size
    context = browser.new_context(viewport={"width": width, "height": height})
    page = context.new_page()
    cut, counted = [], 0
    try:
        for name in PAGES:
            page.goto(f"{app_url}/{name}")
            page.locator('[data-testid="stDataFrame"]').first.wait_for(timeout=90_000)
            page.wait_for_timeout(2500)  # the grids size their columns after they draw
            screenshot(page, f"tables-{name or 'overview'}-{width}x{height}")
            for table in page.evaluate(MEASURE):
                counted += 1
                if table["content"] > table["shown"] + 1 or table["reach"] > table["right"] + 1:
                    cut.append({"page": name or "overview", **table})
    finally:
        context.close()
    assert counted >= len(PAGES), counted  # every page has at least one table measured
    assert not cut, cut
