"""Every provider is registered and has tests that exercise its fetch function."""

from __future__ import annotations

from pathlib import Path

from pricing.registry import PROVIDERS, provider_names

HERE = Path(__file__).parent
#: provider -> (test module, fetch function the tests must exercise)
TESTED_BY = {
    "aws": ("test_aws.py", "fetch_aws"),
    "aws-bulk": ("test_aws_bulk.py", "fetch_aws_bulk"),
    "gcp": ("test_gcp.py", "fetch_gcp"),
    "azure": ("test_azure.py", "fetch_azure"),
    "sheets": ("test_sheets.py", "fetch_sheets"),
}


def test_every_provider_is_registered_and_tested():
    assert set(PROVIDERS) == set(TESTED_BY)
    for name, (module, function) in TESTED_BY.items():
        text = (HERE / module).read_text(encoding="utf-8")
        assert f"{function}(" in text, f"{module} does not exercise {function} for provider {name}"


def test_every_provider_says_what_it_needs():
    for spec in PROVIDERS.values():
        assert spec.needs and spec.description and spec.origin in {"api", "bulk", "sheet"}
    assert "aws-bulk" not in provider_names(defaults_only=True)
