"""The Workspace page drives the Scenarios page; a share link never crashes; the Overview headline
and the Scenarios comparison agree on the same workspace."""

import re

import pytest

from tests.e2e.artifacts import screenshot

pytestmark = pytest.mark.e2e

STAY = re.compile(r"^Stay — \$([\d,]+)/month")


def stay_cost(page) -> str:
    page.get_by_text(STAY).first.wait_for(timeout=60_000)
    return STAY.match(page.get_by_text(STAY).first.inner_text()).group(1)


def test_a_link_with_a_peak_outside_the_domain_shows_a_notice(app_url, page):
    for value in ("0.9", "24"):
        page.goto(f"{app_url}/scenarios?peak={value}")
        page.get_by_text(f"Ignored peak='{value}'").wait_for(timeout=60_000)
        assert page.get_by_text("between 1 and 20").first.is_visible()
        page.get_by_text(STAY).first.wait_for(timeout=60_000)
        assert page.locator('[data-testid="stException"]').count() == 0


def test_overview_headline_and_scenarios_agree(app_url, page):
    page.goto(f"{app_url}/scenarios")
    stay = stay_cost(page)
    page.goto(app_url)
    headline = page.get_by_text(re.compile(r"Your fleet as it runs \(Stay\) costs"))
    headline.first.wait_for(timeout=60_000)
    assert f"costs ${stay}/month" in headline.first.inner_text()


def test_editing_the_fleet_changes_the_scenarios(app_url, page):
    page.goto(f"{app_url}/scenarios")
    before = stay_cost(page)
    page.goto(f"{app_url}/workspace")
    grid = page.locator('[data-testid="stDataFrame"]').nth(1)  # the Demand table comes first
    grid.wait_for(timeout=60_000)
    grid.scroll_into_view_if_needed()
    page.wait_for_timeout(1500)
    box = grid.bounding_box()
    # The count column comes first, after the row markers; rows are 35 px under a 35 px header.
    x, y = box["x"] + 60, box["y"] + 35 + 35 * 2 + 17  # third fleet row: 15 × g6e.xlarge
    page.mouse.dblclick(x, y)
    editor = page.locator("textarea, input.gdg-input").first
    editor.wait_for(timeout=10_000)
    editor.fill("30")
    editor.press("Enter")
    page.wait_for_timeout(1000)
    page.get_by_role("button", name="Save as a new version").click()
    page.get_by_text(re.compile(r"Saved as version \d+")).wait_for(timeout=60_000)
    screenshot(page, "workspace")
    page.goto(f"{app_url}/scenarios")
    page.wait_for_timeout(1000)
    after = stay_cost(page)
    assert after != before
    # 15 more g6e.xlarge at $1.861 list for 730 h: +$20,378 a month.
    delta = int(after.replace(",", "")) - int(before.replace(",", ""))
    assert abs(delta - 15 * 1.861 * 730) < 1.5


def test_an_uploaded_trace_shows_its_demand_daily_curve_and_lengths(app_url, page):
    from tokendesk.paths import REPO_ROOT

    trace = REPO_ROOT / "tests/fixtures/real/traces/AzureLLMInferenceTrace_code_first2000.csv"
    page.goto(f"{app_url}/workspace")
    page.get_by_text("Demand from a request trace").first.click()
    uploader = page.locator('[data-testid="stFileUploader"]').filter(has_text="Request trace")
    uploader.locator('input[type="file"]').set_input_files(str(trace))
    page.get_by_text("12,239,724,983").first.wait_for(timeout=60_000)  # input tokens / month
    assert page.get_by_text("181,829,595").first.is_visible()  # output tokens / month
    # under an hour of trace: the rate over it (per minute) and the length distribution
    charts = page.locator('[data-testid="stPlotlyChart"]')
    charts.nth(1).wait_for(timeout=60_000)
    assert charts.count() == 2
    assert page.get_by_text("No daily curve").first.is_visible()
    assert page.locator('[data-testid="stException"]').count() == 0
    page.get_by_text("Input tokens / month").last.scroll_into_view_if_needed()
    screenshot(page, "workspace-trace-figures")
    charts.nth(1).scroll_into_view_if_needed()
    page.wait_for_timeout(500)
    screenshot(page, "workspace-trace-plots")
