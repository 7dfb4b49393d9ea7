import json

import pytest

from tests.e2e.artifacts import screenshot

pytestmark = pytest.mark.e2e

BAD_RESULT = {
    "backend": "vllm",
    "model_id": "meta-llama/Llama-3.1-8B-Instruct",
    "dtype": "bf16",
    "gpu": "H100 SXM",
    "num_gpus": 1,
    "num_prompts": 100,
    "output_throughput": 640.0,
    "median_ttft_ms": 45,
    "p99_ttft_ms": 95,
}  # no "completed": the importer must name that key


def no_exception(page):
    assert page.locator('[data-testid="stException"]').count() == 0


def test_prices_page_explorer_and_history(app_url, page):
    page.goto(f"{app_url}/prices")
    page.get_by_text("Cloud prices").first.wait_for(timeout=60_000)
    page.locator('[data-testid="stDataFrame"]').first.wait_for(timeout=30_000)
    page.get_by_text("Current quotes").wait_for(timeout=30_000)
    page.wait_for_timeout(1000)
    screenshot(page, "prices")
    page.get_by_role("tab", name="Price history").click()
    page.get_by_text("A SKU's price across every snapshot").wait_for(timeout=30_000)
    # The pre-cut catalog row states no date of its own.
    page.get_by_text("(historical, date unknown)").wait_for(timeout=30_000)
    # The post-cut list price is dated by its AWS Price List version (published 2026-07-28).
    assert page.get_by_text("(current, 2026-07-28)").is_visible()
    page.locator(".js-plotly-plot >> visible=true").first.wait_for(timeout=30_000)
    page.wait_for_timeout(1000)
    screenshot(page, "prices-history")
    page.get_by_role("tab", name="$/accelerator-hour").click()
    page.get_by_text("$ per accelerator-hour across providers").wait_for(timeout=30_000)
    page.wait_for_timeout(1000)
    screenshot(page, "prices-per-accelerator")
    no_exception(page)


def test_benchmarks_page_rejects_a_bad_upload(app_url, page):
    page.goto(f"{app_url}/benchmarks")
    page.get_by_text("Benchmark results").first.wait_for(timeout=60_000)
    page.locator('[data-testid="stDataFrame"]').first.wait_for(timeout=30_000)
    page.wait_for_timeout(1000)
    screenshot(page, "benchmarks")
    page.get_by_role("tab", name="Import result file").click()
    page.locator('[data-testid="stFileUploaderDropzoneInput"]').set_input_files(
        files=[
            {
                "name": "bad.json",
                "mimeType": "application/json",
                "buffer": json.dumps(BAD_RESULT).encode(),
            }
        ]
    )
    page.get_by_text("bad.json").first.wait_for(timeout=30_000)
    page.get_by_role("button", name="Validate and preview").click()
    alert = page.locator('[data-testid="stAlertContentError"]').first
    alert.wait_for(timeout=30_000)
    text = alert.inner_text()
    assert "bad.json was not imported" in text and "Nothing was written." in text
    assert "completed" in text and "required number is missing" in text
    page.wait_for_timeout(500)
    screenshot(page, "benchmarks-bad-upload")
    page.get_by_role("tab", name="Throughput vs FTL").click()
    curves = page.locator(".js-plotly-plot >> visible=true").first
    curves.wait_for(timeout=30_000)
    curves.scroll_into_view_if_needed()
    page.wait_for_timeout(1000)
    screenshot(page, "benchmarks-curves")
    no_exception(page)


def test_memory_fit_page(app_url, page):
    page.goto(f"{app_url}/memory-fit")
    page.get_by_text("Which accelerators fit, and how many per replica").wait_for(timeout=60_000)
    page.locator(".js-plotly-plot >> visible=true").first.wait_for(timeout=30_000)
    assert page.get_by_text("AMD Instinct MI300X 192GB: 1 per replica").is_visible()
    assert page.get_by_text("NVIDIA H100 SXM 80GB: 4 per replica").is_visible()
    page.wait_for_timeout(1000)
    screenshot(page, "memory-fit")
    page.locator(".js-plotly-plot >> visible=true").first.scroll_into_view_if_needed()
    page.wait_for_timeout(500)
    screenshot(page, "memory-fit-breakdown")
    no_exception(page)
