"""Every page answers at its own address, with its inputs read from (and written to) the URL."""

import re

import pytest

from tests.e2e.artifacts import screenshot

pytestmark = pytest.mark.e2e

#: Page address -> (text the page shows once rendered, query that sets an input on it).
PAGES = {
    "overview": ("Pareto frontier", "slo=900"),
    "costs": ("All options", "tokens=total&percentile=p99"),
    "scenarios": ("Side by side", "amd=0.4"),
    "prices": ("Current quotes", "provider=aws"),
    "benchmarks": ("Operating points", "runtime=vllm"),
    "memory-fit": ("Which accelerators fit", "precision=fp8&sequences=4"),
}


@pytest.mark.parametrize("name", list(PAGES))
def test_each_page_opens_by_name_with_its_url_inputs(app_url, page, name):
    text, query = PAGES[name]
    page.goto(f"{app_url}/{name}?{query}")
    page.get_by_text(text).first.wait_for(timeout=60_000)
    page.wait_for_timeout(1500)
    assert page.get_by_text("Page not found").count() == 0
    assert page.locator('[data-testid="stException"]').count() == 0
    for pair in query.split("&"):
        assert pair in page.url  # the page kept the inputs it was given
    body = page.locator('[data-testid="stMain"]').inner_text()
    # Sentences may start "None of these…"; a literal None, nan or True never shows.
    assert not re.search(r"\bNone\b(?! of)|\bnan\b|\bTrue\b|\bNaT\b", body)
    screenshot(page, f"url-{name}")


def test_a_bad_url_value_shows_a_notice_not_an_error(app_url, page):
    page.goto(f"{app_url}/costs?percentile=p42")
    page.get_by_text("Ignored percentile='p42'").wait_for(timeout=60_000)
    assert page.locator('[data-testid="stException"]').count() == 0
