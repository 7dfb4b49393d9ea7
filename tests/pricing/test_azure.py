"""Azure Retail Prices API: parsing rules and the httpx I/O layer through respx."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import httpx
import pytest
import respx

from pricing.azure import (
    API_URL,
    SIZES,
    WaitBudget,
    _retry_after_s,
    fetch_azure,
    fetch_pages,
    parse_items,
    region_filter,
)
from tokendesk.records import PricingModel

NOW = datetime(2026, 9, 1, tzinfo=UTC)
H100 = "Standard_ND96isr_H100_v5"


def _all_items(pages):
    return [item for group in pages.values() for page in group for item in page["Items"]]


def _get(quotes, sku, model):
    found = [q for q in quotes if q.instance_type == sku and q.pricing_model is model]
    assert len(found) == 1, (sku, model, found)
    return found[0]


def test_parse_linux_only_spot_separate_low_priority_dropped(fixture_json):
    result = parse_items(_all_items(fixture_json("azure_retail_pages.json")), NOW)
    od = _get(result.quotes, H100, PricingModel.ON_DEMAND)
    assert od.usd_per_hour == pytest.approx(98.32)  # not the Windows 110 / ' Win' 111 rows
    assert (od.accelerator_id, od.accelerator_count) == ("nvidia-h100-sxm-80gb", 8)
    assert _get(result.quotes, H100, PricingModel.SPOT).usd_per_hour == pytest.approx(29.496)
    assert not [q for q in result.quotes if q.usd_per_hour == pytest.approx(19.66)]  # Low Priority


def test_reservations_are_term_totals_converted_to_hourly(fixture_json):
    result = parse_items(_all_items(fixture_json("azure_retail_pages.json")), NOW)
    # 1 Year $525,600 / 8760 h = $60/h; 3 Years $1,051,200 / 26280 h = $40/h
    assert _get(result.quotes, H100, PricingModel.RESERVED_1Y).usd_per_hour == pytest.approx(60.0)
    assert _get(result.quotes, H100, PricingModel.RESERVED_3Y).usd_per_hour == pytest.approx(40.0)
    assert _get(result.quotes, H100, PricingModel.SAVINGS_PLAN_1Y).usd_per_hour == pytest.approx(
        68.8
    )


def test_mi300x_count_supplied_and_unpriced_preview_reported(fixture_json):
    result = parse_items(_all_items(fixture_json("azure_retail_pages.json")), NOW)
    mi = _get(result.quotes, "Standard_ND96isr_MI300X_v5", PricingModel.ON_DEMAND)
    assert (mi.accelerator_id, mi.accelerator_count) == ("amd-mi300x-192gb", 8)
    assert not [q for q in result.quotes if q.instance_type == "Standard_ND96isr_H200_v5"]
    assert any("Standard_ND96isr_H200_v5" in s.what for s in result.skipped)
    assert not [q for q in result.quotes if q.instance_type == "Standard_D2s_v5"]


def _mock_region(router: respx.Router, pages, region="eastus"):
    consumption, reservation = pages["consumption"], pages["reservation"]
    first = router.get(API_URL, params={"$filter": region_filter(region, "Consumption", _sizes())})
    first.mock(return_value=httpx.Response(200, json=consumption[0]))
    router.get(consumption[0]["NextPageLink"]).mock(
        return_value=httpx.Response(200, json=consumption[1])
    )
    router.get(API_URL, params={"$filter": region_filter(region, "Reservation", _sizes())}).mock(
        return_value=httpx.Response(200, json=reservation[0])
    )
    return first


def _sizes():
    from pricing.azure import SIZES

    return tuple(SIZES)


def test_fetch_follows_next_page_link(fixture_json):
    pages = fixture_json("azure_retail_pages.json")
    with respx.mock(assert_all_called=True) as router:
        _mock_region(router, pages)
        result = fetch_azure(["eastus"], now=NOW, sleep=lambda s: None)
    assert not result.partial
    models = {(q.instance_type, q.pricing_model) for q in result.quotes}
    assert ("Standard_ND96isr_MI300X_v5", PricingModel.ON_DEMAND) in models  # page 2
    assert (H100, PricingModel.RESERVED_3Y) in models


def test_429_then_success_honours_retry_after(fixture_json):
    pages = fixture_json("azure_retail_pages.json")
    slept: list[float] = []
    with respx.mock() as router:
        route = router.get(API_URL)
        route.side_effect = [
            httpx.Response(429, headers={"Retry-After": "7"}),
            httpx.Response(429),
            httpx.Response(200, json={**pages["consumption"][1], "NextPageLink": None}),
        ]
        with httpx.Client() as client:
            items = fetch_pages(client, API_URL, {"$filter": "x"}, sleep=slept.append)
    assert slept == [7.0, 2.0]  # Retry-After honoured; then exponential backoff (1 s x 2^1)
    assert len(items) == len(pages["consumption"][1]["Items"])


def test_timeout_mid_walk_marks_region_partial_and_keeps_others(fixture_json):
    pages = fixture_json("azure_retail_pages.json")
    with respx.mock() as router:
        _mock_region(router, pages, "eastus")
        router.get(
            API_URL, params={"$filter": region_filter("westus3", "Consumption", _sizes())}
        ).mock(
            return_value=httpx.Response(
                200, json={**pages["consumption"][0], "NextPageLink": f"{API_URL}?page=westus3-2"}
            )
        )
        router.get(f"{API_URL}?page=westus3-2").mock(
            side_effect=httpx.ReadTimeout("read timed out")
        )
        result = fetch_azure(["eastus", "westus3"], now=NOW, sleep=lambda s: None)
    assert result.partial and "ReadTimeout" in result.region_errors["westus3"]
    assert {q.region for q in result.quotes} == {"eastus"}


def test_invalid_json_page_is_a_region_error():
    with respx.mock() as router:
        router.get(API_URL).mock(
            return_value=httpx.Response(200, content=b"<html>gateway error</html>")
        )
        result = fetch_azure(["eastus"], now=NOW, sleep=lambda s: None)
    assert result.partial and "not valid JSON" in result.region_errors["eastus"]


def test_forbidden_region_is_reported():
    with respx.mock() as router:
        router.get(API_URL).mock(return_value=httpx.Response(403, json={"error": "denied"}))
        result = fetch_azure(["eastus"], now=NOW, sleep=lambda s: None)
    assert "403" in result.region_errors["eastus"]


def test_region_filter_is_lower_case_and_names_sizes():
    text = region_filter("WestUS3", "Consumption", ["Standard_ND96isr_H100_v5"])
    assert (
        "armRegionName eq 'westus3'" in text and "armSkuName eq 'Standard_ND96isr_H100_v5'" in text
    )


def test_retry_after_over_the_cap_skips_the_region_without_sleeping():
    slept: list[float] = []
    with respx.mock() as router:
        router.get(API_URL).mock(return_value=httpx.Response(429, headers={"Retry-After": "3600"}))
        result = fetch_azure(["eastus"], now=NOW, sleep=slept.append)
    assert slept == []
    assert result.partial
    assert "3600 s, over the 60 s cap" in result.region_errors["eastus"]


def test_waiting_stops_at_the_refresh_budget_and_names_what_was_skipped():
    slept: list[float] = []
    budget = WaitBudget(max_total_wait_s=100.0)
    with respx.mock() as router:
        router.get(API_URL).mock(return_value=httpx.Response(429, headers={"Retry-After": "45"}))
        result = fetch_azure(["eastus", "westus3"], now=NOW, sleep=slept.append, budget=budget)
    assert slept == [45.0, 45.0]  # a third wait would pass the 100 s budget
    assert set(result.region_errors) == {"eastus", "westus3"}
    assert "waiting budget" in result.region_errors["westus3"]


def test_refresh_deadline_is_checked_before_each_request():
    ticks = iter([0.0, 0.0, 1000.0, 1000.0, 1000.0])
    budget = WaitBudget(deadline_s=900.0, clock=lambda: next(ticks))
    with respx.mock() as router:
        router.get(API_URL).mock(return_value=httpx.Response(503))
        result = fetch_azure(["eastus"], now=NOW, sleep=lambda s: None, budget=budget)
    assert "deadline (900 s) passed" in result.region_errors["eastus"]


def test_retry_after_as_an_http_date():
    from email.utils import format_datetime

    when = format_datetime(datetime.now(UTC) + timedelta(seconds=30), usegmt=True)
    seconds = _retry_after_s(httpx.Response(429, headers={"Retry-After": when}), 0)
    assert 25 <= seconds <= 31


def test_an_empty_region_is_reported_not_passed_over():
    with respx.mock() as router:
        router.get(API_URL).mock(
            return_value=httpx.Response(200, json={"Items": [], "NextPageLink": None})
        )
        result = fetch_azure(["eastus"], now=NOW, sleep=lambda s: None)
    assert not result.quotes
    assert [(s.what, s.reason) for s in result.skipped] == [
        ("eastus", "the price API returned no items; check the region name")
    ]


def test_nc_a100_v4_is_priced_as_the_pcie_card_not_the_sxm_module():
    # NC A100 v4 sizes carry A100 80GB PCIe cards (1,935 GB/s, 300 W); the ND A100 v4 sizes
    # carry SXM4 modules. The catalog keeps them apart, so the prices do too.
    for name in (
        "Standard_NC24ads_A100_v4",
        "Standard_NC48ads_A100_v4",
        "Standard_NC96ads_A100_v4",
    ):
        assert SIZES[name].accelerator_id == "nvidia-a100-pcie-80gb"
    assert SIZES["Standard_ND96amsr_A100_v4"].accelerator_id == "nvidia-a100-80gb"
