"""A new user enters their company's situation on the Workspace page as a person would, in a
real browser: start my own workspace, two workloads in people's units, three fleet lines found by
searching the price catalog, save; the saved workspace holds what was typed and the Scenarios
page evaluates it. The test's own clock times the entry for the report (printed, not asserted:
a busy machine is no defect of the page)."""

from __future__ import annotations

import re
import time
from pathlib import Path

import pytest
import yaml

from tests.e2e.artifacts import screenshot

pytestmark = pytest.mark.e2e

STAY = re.compile(r"^Stay — \$([\d,]+)/month")


def settle(page) -> None:
    """Wait for the page's script run to finish: the running indicator gone and no element of the
    previous run left on the page (Streamlit marks those stale until it replaces them)."""
    page.wait_for_timeout(400)
    page.locator('[data-testid="stStatusWidget"]').wait_for(state="hidden", timeout=90_000)
    page.wait_for_function(
        "() => document.querySelectorAll('[data-stale=\"true\"]').length === 0",
        timeout=90_000,
    )
    page.wait_for_timeout(200)


def type_into(page, label: str, text: str, *, enter: bool = True) -> None:
    box = page.get_by_label(label, exact=True)
    box.fill(text)
    if enter:
        box.press("Enter")
        settle(page)


def choose(page, label: str, option: str) -> None:
    box = page.get_by_role("combobox", name=label, exact=True)
    if box.input_value() == option:
        return  # chosen already
    box.click()
    page.get_by_role("option", name=option, exact=True).click()
    settle(page)


def open_section(page, title: str, field: str) -> None:
    """Open an expander unless its ``field`` shows already."""
    if not page.get_by_label(field, exact=True).is_visible():
        page.locator("summary").filter(has_text=title).first.click()
        page.get_by_label(field, exact=True).wait_for(timeout=10_000)


def pick_many(page, label: str, options) -> None:
    """Choose ``options`` in a multiselect by typing each and taking the match."""
    field = page.locator('[data-testid="stMultiSelect"]').filter(has_text=label)
    for option in options:
        box = field.locator("input").first
        box.click()
        box.fill(option)
        page.get_by_role("option", name=option, exact=True).click()
    if options:  # close the list by going back to a field above it
        page.get_by_label("Workload name", exact=True).click()


def add_workload(page, name, model, output, slo="", growth="", stand_ins=()) -> None:
    open_section(page, "Add a workload", "Workload name")
    for label, text in (
        ("Workload name", name),
        ("Model", model),
        ("Output tokens / month", output),
        ("FTL SLO", slo),
        ("Growth / quarter", growth),
    ):
        if text:
            type_into(page, label, text, enter=False)
    pick_many(page, "Results that may stand in (same size and architecture)", stand_ins)
    page.get_by_role("button", name="Add workload").click()
    settle(page)
    assert page.locator('[data-testid="stAlertContentError"]').count() == 0


def add_line(page, search, count, *, serves, pricing=None, region="", rate="", end="") -> None:
    open_section(page, "Add a line from the price catalog", "Search instance types")
    type_into(page, "Search instance types", search)
    type_into(page, "Count", str(count))
    if pricing:
        choose(page, "Pricing model", pricing)
    choose(page, "Serves", serves)
    for label, text in (
        ("Your region (if not the catalog's)", region),
        ("$/hour you pay (empty = list price)", rate),
        ("Commitment ends (reserved)", end),
    ):
        if text:
            type_into(page, label, text)
    page.get_by_role("button", name="Add to fleet").click()
    settle(page)


def test_a_new_user_enters_their_fleet_and_demand_and_scenarios_evaluates_it(app_url, browser):
    context = browser.new_context(viewport={"width": 1440, "height": 900}, accept_downloads=True)
    page = context.new_page()
    try:
        page.goto(f"{app_url}/workspace")
        page.get_by_text("This is the bundled example, not yours.").wait_for(timeout=90_000)
        settle(page)
        screenshot(page, "workspace-entry-example-1440x900")
        started = time.monotonic()

        page.get_by_role("button", name="Start my own workspace").click()
        settle(page)
        type_into(page, "Name", "Acme Inference")
        add_workload(
            page,
            "chat-70b",
            "llama-3.3-70b-instruct",
            "30 B",
            "1,500 ms",
            "10 %/qtr",
            stand_ins=("llama-3.1-70b-instruct", "llama-2-70b-chat"),
        )
        add_workload(page, "routing-8b", "llama-3.1-8b-instruct", "10 B")
        add_line(page, "ND96isr MI300X v5", 2, serves="chat-70b", region="eastus")
        add_line(
            page,
            "p5.48xlarge",
            3,
            serves="chat-70b",
            pricing="Reserved 1 yr",
            rate="31.46",
            end="2027-06-30",
        )
        add_line(page, "g6e.xlarge", 15, serves="routing-8b")
        screenshot(page, "workspace-entry-fleet-1440x900")
        page.get_by_role("heading", name="Demand").scroll_into_view_if_needed()
        screenshot(page, "workspace-entry-demand-1440x900")
        # A new workspace names its own approved providers (the example's are not carried).
        type_into(page, "Approved providers (comma list; empty = any)", "aws, azure")
        page.get_by_role("button", name="Save as a new version").click()
        page.get_by_text(re.compile(r"Saved as version \d+")).wait_for(timeout=90_000)
        elapsed = time.monotonic() - started
        print(f"\nworkspace entry (start my own to saved, 3 lines, 2 workloads): {elapsed:.1f} s")

        version = re.search(
            r"Saved as version (\d+)", page.get_by_text(re.compile("Saved as version")).inner_text()
        ).group(1)
        assert page.get_by_text(f"version {version}.", exact=False).first.is_visible()
        settle(page)
        screenshot(page, "workspace-entry-saved-1440x900")
        page.get_by_role("heading", name="Workspace").scroll_into_view_if_needed()
        screenshot(page, "workspace-entry-saved-top-1440x900")
        page.set_viewport_size({"width": 1280, "height": 720})
        page.wait_for_timeout(500)
        screenshot(page, "workspace-entry-saved-top-1280x720")
        page.get_by_role("heading", name="Fleet").scroll_into_view_if_needed()
        screenshot(page, "workspace-entry-saved-fleet-1280x720")
        page.locator("summary").filter(has_text="More settings").first.click()
        page.get_by_role("group", name="Month 1 of every 36-month plan starts").wait_for()
        page.get_by_role("heading", name="Constraints").scroll_into_view_if_needed()
        screenshot(page, "workspace-entry-settings-1280x720")

        with page.expect_download(timeout=60_000) as download:
            page.get_by_role("button", name="Download as YAML").click()
        saved = yaml.safe_load(Path(download.value.path()).read_text(encoding="utf-8"))
        assert saved["name"] == "Acme Inference"
        assert saved["fleet"] == [
            {
                "provider": "azure",
                "region": "eastus",
                "instance_type": "Standard_ND96isr_MI300X_v5",
                "count": 2,
                "pricing_model": "on_demand",
                "serves": "chat-70b",
            },
            {
                "provider": "aws",
                "region": "us-east-1",
                "instance_type": "p5.48xlarge",
                "count": 3,
                "pricing_model": "reserved_1y",
                "usd_per_hour": 31.46,
                "commitment_end": "2027-06-30",
                "serves": "chat-70b",
            },
            {
                "provider": "aws",
                "region": "us-east-1",
                "instance_type": "g6e.xlarge",
                "count": 15,
                "pricing_model": "on_demand",
                "serves": "routing-8b",
            },
        ]
        chat, routing = saved["demand"]
        assert (chat["workload"], chat["output_tokens_per_month"]) == ("chat-70b", 30e9)
        assert chat["accept_results_from"] == ["llama-3.1-70b-instruct", "llama-2-70b-chat"]
        assert chat["slo"] == {"ttft_ms": 1500.0, "percentile": "p95"}
        assert chat["growth_per_quarter"] == 0.1
        assert (routing["workload"], routing["output_tokens_per_month"]) == ("routing-8b", 10e9)

        page.goto(f"{app_url}/scenarios")
        page.get_by_text(STAY).first.wait_for(timeout=120_000)
        assert page.get_by_text("Acme Inference").first.is_visible()
        # the fleet as entered serves the whole demand: Stay is a plan, not "demand unserved"
        headline = page.get_by_text(re.compile(r"Your fleet as it runs \(Stay\) costs")).first
        assert "unserved" not in headline.inner_text()
        assert page.locator('[data-testid="stException"]').count() == 0
        settle(page)
        screenshot(page, "workspace-entry-scenarios-1280x720")
    finally:
        context.close()
