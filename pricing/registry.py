"""The registry of price sources. Refresh, the CLI and the dashboard list and run providers only
through this table; a test checks that every entry is registered and has tests."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from pricing.aws import fetch_aws
from pricing.aws_bulk import fetch_aws_bulk
from pricing.azure import fetch_azure
from pricing.gcp import fetch_gcp
from pricing.provider import ProviderResult, RegionProgress
from pricing.sheets import fetch_sheets


@dataclass(frozen=True)
class ProviderSpec:
    name: str
    description: str
    #: What must be configured for a live call (credentials, permissions, files).
    needs: str
    #: Snapshot origin recorded in the warehouse: api | bulk | sheet.
    origin: str
    #: Snapshot source the quotes are stored under; None = one snapshot per quote provider.
    source: str | None
    fetch: Callable[[Sequence[str] | None, RegionProgress], ProviderResult]
    #: Parts (files) fail independently: a bad part does not make the others partial.
    independent_parts: bool = False
    #: Included when refresh is called without naming providers.
    default: bool = True


def _aws(regions: Sequence[str] | None, progress: RegionProgress) -> ProviderResult:

    return fetch_aws(regions, progress=progress)


def _aws_bulk(regions: Sequence[str] | None, progress: RegionProgress) -> ProviderResult:

    return fetch_aws_bulk(regions, progress=progress)


def _gcp(regions: Sequence[str] | None, progress: RegionProgress) -> ProviderResult:

    return fetch_gcp(regions, progress=progress)


def _azure(regions: Sequence[str] | None, progress: RegionProgress) -> ProviderResult:

    return fetch_azure(regions, progress=progress)


def _sheets(regions: Sequence[str] | None, progress: RegionProgress) -> ProviderResult:

    return fetch_sheets(regions, progress=progress)


PROVIDERS: dict[str, ProviderSpec] = {
    spec.name: spec
    for spec in (
        ProviderSpec(
            "aws",
            "AWS Pricing API (on-demand, reserved 1y/3y) + EC2 spot price history, per region",
            "AWS credentials in boto3's default chain with pricing:GetProducts and"
            " ec2:DescribeSpotPriceHistory",
            "api",
            "aws",
            _aws,
        ),
        ProviderSpec(
            "aws-bulk",
            "AWS public bulk price files (on-demand, reserved 1y/3y; no spot), streamed into DuckDB",
            "nothing (public HTTPS); downloads one large index.csv per region",
            "bulk",
            "aws",
            _aws_bulk,
            default=False,
        ),
        ProviderSpec(
            "gcp",
            "GCP Cloud Billing Catalog SKUs composed onto Compute Engine machine types; TPU per chip",
            "application-default credentials and a project (GOOGLE_CLOUD_PROJECT) with the Cloud"
            " Billing API enabled; billing.skus (cloudbilling.services.list) and"
            " compute.machineTypes.list",
            "api",
            "gcp",
            _gcp,
        ),
        ProviderSpec(
            "azure",
            "Azure Retail Prices API (on-demand, spot, reservations, savings plans), per region",
            "nothing (public, unauthenticated REST API)",
            "api",
            "azure",
            _azure,
        ),
        ProviderSpec(
            "sheets",
            "CSV/YAML price sheets: neoclouds without a price API and negotiated quotes",
            "sheet files in $TOKENDESK_PRICE_SHEETS, data/price_sheets/ or the per-user"
            " price_sheets folder (files named example* are ignored)",
            "sheet",
            None,
            _sheets,
            independent_parts=True,
        ),
    )
}


def provider_names(*, defaults_only: bool = False) -> list[str]:
    return [name for name, spec in PROVIDERS.items() if spec.default or not defaults_only]


def get_provider(name: str) -> ProviderSpec:
    try:
        return PROVIDERS[name]
    except KeyError:
        raise KeyError(f"unknown price provider {name!r}; known: {', '.join(PROVIDERS)}") from None
