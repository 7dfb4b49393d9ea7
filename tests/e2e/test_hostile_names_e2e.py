"""The dashboard with hostile provider, instance, model and file names loaded: every page shows
them as text, and the browser makes no request anywhere but the dashboard itself (a Markdown
image in a provider name would otherwise be fetched by every visitor)."""

from __future__ import annotations

import json
from urllib.parse import urlparse

import pytest

from cli.main import main
from tests.e2e.artifacts import screenshot
from tests.e2e.server import start_dashboard

pytestmark = pytest.mark.e2e

ATTACKER = "attacker.invalid"
HOSTILE_PROVIDER = f"![p](http://{ATTACKER}/provider.png)"
HOSTILE_INSTANCE = f'<img src="http://{ATTACKER}/instance.png" onerror="alert(1)">'
# "8b": a model the table lacks must state its size to pass the plausibility gate.
HOSTILE_MODEL = f"[m](javascript:alert(1)) ![m](https://{ATTACKER}/model-8b.png)"
HOSTILE_SOURCE = f"<script src=http://{ATTACKER}/x.js></script>:red[loud]"


def _csv(header: list[str], row: list[str]) -> str:
    quoted = ['"' + cell.replace('"', '""') + '"' for cell in row]
    return ",".join(header) + "\n" + ",".join(quoted) + "\n"


@pytest.fixture(scope="module")
def hostile_url(tmp_path_factory):
    folder = tmp_path_factory.mktemp("hostile-e2e")
    db = folder / "hostile.duckdb"
    prices = folder / "prices.csv"
    prices.write_text(
        _csv(
            [
                "provider",
                "region",
                "instance_type",
                "accelerator_id",
                "accelerator_count",
                "pricing_model",
                "usd_per_hour",
                "source",
                "observed_at",
            ],
            [
                HOSTILE_PROVIDER,
                "eu-1",
                HOSTILE_INSTANCE,
                "nvidia-h100-sxm-80gb",
                "8",
                "on_demand",
                "0.5",
                HOSTILE_SOURCE,
                "2026-11-01",
            ],
        ),
        encoding="utf-8",
    )
    results = folder / "results.csv"
    results.write_text(
        _csv(
            [
                "accelerator_id",
                "accelerators_per_replica",
                "runtime",
                "model",
                "precision",
                "workload",
                "scenario",
                "concurrency",
                "output_tok_s",
                "ttft_ms_p50",
                "ttft_ms_p95",
                "ttft_ms_p99",
                "measured_at",
                "source_tool",
                "source_title",
                "source_url",
            ],
            [
                "nvidia-h100-sxm-80gb",
                "1",
                HOSTILE_SOURCE,
                HOSTILE_MODEL,
                "bf16",
                "chat",
                "online",
                "8",
                "1500",
                "100",
                "150",
                "200",
                "2026-10-01",
                "hostile-bench",
                HOSTILE_SOURCE,
                "https://example.org/source",
            ],
        ),
        encoding="utf-8",
    )
    with pytest.raises(SystemExit) as done:
        main(["db", "ingest", str(prices), str(results), "--db", str(db)])
    assert done.value.code in (0, None)
    process, url = start_dashboard(db, folder / "app.log")
    yield url
    process.terminate()
    process.wait(timeout=20)


def _no_hostile_element(page, where: str) -> None:
    """No exception, and no element the hostile strings could have created."""
    assert page.locator('[data-testid="stException"]').count() == 0, where
    assert page.locator(f'img[src*="{ATTACKER}"]').count() == 0, where
    assert page.locator('a[href^="javascript:"]').count() == 0, where
    assert page.locator(f'a[href*="{ATTACKER}"]').count() == 0, where
    assert page.locator(f'script[src*="{ATTACKER}"]').count() == 0, where


#: The Benchmarks tabs past the first (each drawn only once opened) and a heading each shows.
BENCHMARK_TABS = {
    "Throughput vs FTL": "Throughput against first-token latency",
    "Output parity": "Output parity by backend",
    "Import history": "Retract an import",
}


def test_hostile_names_render_as_text_and_fetch_nothing_remote(hostile_url, browser):
    context = browser.new_context(viewport={"width": 1500, "height": 1100})
    page = context.new_page()
    requests: list[str] = []
    page.on("request", lambda request: requests.append(request.url))
    dialogs: list[str] = []
    page.on("dialog", lambda dialog: (dialogs.append(dialog.message), dialog.dismiss()))
    try:
        for path, marker in (
            ("overview", "Data freshness"),
            ("costs", "All options"),
            ("prices", "Cloud prices"),
            ("benchmarks", "Benchmark results"),
            ("scenarios", "Scenarios"),
        ):
            page.goto(f"{hostile_url}/{path}")
            page.get_by_text(marker).first.wait_for(timeout=60_000)
            page.wait_for_timeout(2500)
            _no_hostile_element(page, path)
            screenshot(page, f"hostile-{path}")
        page.goto(f"{hostile_url}/benchmarks")
        page.get_by_text("Benchmark results").first.wait_for(timeout=60_000)
        for tab, marker in BENCHMARK_TABS.items():  # the hostile runtime and model in each
            page.get_by_role("tab", name=tab).click()
            page.get_by_text(marker).first.wait_for(timeout=60_000)
            page.wait_for_timeout(1500)
            _no_hostile_element(page, f"benchmarks, {tab}")
        page.get_by_role("tab", name="Import result file").click()
        upload_name = f"![u](http://{ATTACKER}/upload.png).json"
        page.locator('[data-testid="stFileUploaderDropzoneInput"]').set_input_files(
            files=[
                {
                    "name": upload_name,
                    "mimeType": "application/json",
                    "buffer": json.dumps({"output_throughput": "Infinity"}).encode(),
                }
            ]
        )
        page.get_by_role("button", name="Validate and preview").click()
        alert = page.locator('[data-testid="stAlertContentError"]').first
        alert.wait_for(timeout=30_000)
        # Shown verbatim as text (a word joiner keeps "http:" from becoming a link).
        assert upload_name in alert.inner_text().replace("\u2060", "")
        page.wait_for_timeout(1500)
        assert page.locator(f'img[src*="{ATTACKER}"]').count() == 0
    finally:
        context.close()
    local = urlparse(hostile_url).netloc
    remote = [
        url
        for url in requests
        if urlparse(url).scheme in ("http", "https", "ws", "wss") and urlparse(url).netloc != local
    ]
    assert remote == [], f"the browser requested {remote}"
    assert dialogs == []
