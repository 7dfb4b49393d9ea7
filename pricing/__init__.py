"""Price sources -> validated PriceQuote records: AWS, GCP, Azure, price sheets; refresh into the
warehouse and integrity checks. Nothing here opens the warehouse's DuckDB connection."""

from pricing.integrity import IntegrityReport, check_snapshot
from pricing.provider import (
    MissingCredentialsError,
    PermissionDeniedError,
    PricingError,
    ProgressEvent,
    ProviderResult,
    SkippedItem,
)
from pricing.registry import PROVIDERS, ProviderSpec, get_provider
from pricing.sheets import is_expired, load_sheet

__all__ = [
    "PROVIDERS",
    "IntegrityReport",
    "MissingCredentialsError",
    "PermissionDeniedError",
    "PricingError",
    "ProgressEvent",
    "ProviderResult",
    "ProviderSpec",
    "SkippedItem",
    "check_snapshot",
    "get_provider",
    "is_expired",
    "load_sheet",
]
