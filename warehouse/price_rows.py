"""One price quote as a warehouse row, and back: the columns, their types, and the conversions
every write of prices and the price-file staging share."""

from __future__ import annotations

from collections.abc import Mapping
from datetime import UTC, datetime
from typing import Any

import pyarrow as pa

from tokendesk.records import PriceBasis, PriceQuote, PricingModel

PRICE_COLUMNS = (
    "provider",
    "region",
    "zone",
    "instance_type",
    "accelerator_id",
    "accelerator_count",
    "vcpus",
    "memory_gib",
    "pricing_model",
    "usd_per_hour",
    "price_basis",
    "source",
    "source_url",
    "observed_at",
    "source_date_text",
    "confidence",
    "notes",
    "quote_id",
    "vendor_contact",
    "valid_from",
    "expires_on",
)

#: The stored types of ``PRICE_COLUMNS`` (those of the ``price_quotes`` table).
PRICE_TYPES: dict[str, pa.DataType] = {
    "provider": pa.string(),
    "region": pa.string(),
    "zone": pa.string(),
    "instance_type": pa.string(),
    "accelerator_id": pa.string(),
    "accelerator_count": pa.int32(),
    "vcpus": pa.int32(),
    "memory_gib": pa.float64(),
    "pricing_model": pa.string(),
    "usd_per_hour": pa.float64(),
    "price_basis": pa.string(),
    "source": pa.string(),
    "source_url": pa.string(),
    "observed_at": pa.timestamp("us"),
    "source_date_text": pa.string(),
    "confidence": pa.string(),
    "notes": pa.string(),
    "quote_id": pa.string(),
    "vendor_contact": pa.string(),
    "valid_from": pa.date32(),
    "expires_on": pa.date32(),
}


def utc_naive(moment: datetime | None) -> datetime | None:
    """DuckDB TIMESTAMP has no zone; we store UTC. None (date unknown) stays None."""
    if moment is not None and moment.tzinfo is not None:
        moment = moment.astimezone(UTC).replace(tzinfo=None)
    return moment


def price_row(quote: PriceQuote) -> dict[str, Any]:
    """The stored values of one quote, keyed by ``PRICE_COLUMNS``."""
    row = quote.model_dump(mode="python", include=set(PRICE_COLUMNS))
    row["observed_at"] = utc_naive(row["observed_at"])
    row["pricing_model"] = str(quote.pricing_model)
    row["price_basis"] = str(quote.price_basis)
    return row


def stored_quote(values: Mapping[str, Any]) -> PriceQuote:
    """A quote rebuilt from the stored values of a row that was validated on its way in (the
    staging of a price file): not validated again, which would cost more than the whole write."""
    fields = {name: values[name] for name in PRICE_COLUMNS}
    fields["pricing_model"] = PricingModel(fields["pricing_model"])
    fields["price_basis"] = PriceBasis(fields["price_basis"])
    for name in ("source_url", "source_date_text", "confidence", "notes"):
        fields[name] = fields[name] or ""
    return PriceQuote.model_construct(**fields)
