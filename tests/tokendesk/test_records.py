import pytest
from pydantic import ValidationError

from tests.factories import quote, result
from tokendesk.catalog import check_accelerator_id, check_in_catalog
from tokendesk.units import UnitError, to_ms, to_tok_s, to_usd_per_hour
from warehouse import Warehouse, WarehouseError


def test_valid_records_are_frozen():
    q = quote()
    with pytest.raises(ValidationError):
        q.usd_per_hour = 1.0
    assert q.usd_per_accelerator_hour == pytest.approx(63.296 / 8)


@pytest.mark.parametrize("price", [0, -1.5])
def test_non_positive_price_is_rejected(price):
    with pytest.raises(ValidationError, match="usd_per_hour"):
        quote(usd_per_hour=price)


def test_unknown_accelerator_lists_close_matches():
    # A record checks its own fields only; the catalog check runs where rows come in.
    row = quote(accelerator_id="nvidia-h100-80gb")
    with pytest.raises(ValueError) as caught:
        check_in_catalog(row)
    message = str(caught.value)
    assert "unknown accelerator id 'nvidia-h100-80gb'" in message
    assert "nvidia-h100-sxm-80gb" in message


def test_check_accelerator_id_passes_known_ids():
    assert check_accelerator_id("amd-mi300x-192gb") == "amd-mi300x-192gb"


def test_unordered_ttft_percentiles_are_rejected():
    with pytest.raises(ValidationError, match="p50 <= p90 <= p95 <= p99"):
        result(ttft_ms_p50=500, ttft_ms_p95=400, ttft_ms_p99=900)


def test_ordered_percentiles_with_gaps_are_accepted():
    assert result(ttft_ms_p50=100, ttft_ms_p99=900).ttft_ms_p99 == 900


def test_total_throughput_below_output_is_rejected():
    with pytest.raises(ValidationError, match="total_tok_s"):
        result(total_tok_s=100.0)


def test_accelerator_count_zero_only_for_cpu():
    with pytest.raises(ValueError, match="at least 1"):
        check_in_catalog(quote(accelerator_count=0))
    cpu = quote(
        instance_type="c7i.16xlarge",
        accelerator_id="cpu-intel-spr-amx",
        accelerator_count=0,
        usd_per_hour=2.856,
    )
    assert check_in_catalog(cpu).usd_per_accelerator_hour is None


def test_the_warehouse_refuses_a_row_outside_the_catalog():
    store = Warehouse.open(":memory:", build=False)
    with pytest.raises(WarehouseError, match="unknown accelerator id 'nvidia-h100-80gb'"):
        store.ingest_prices("aws", [quote(), quote(accelerator_id="nvidia-h100-80gb")])
    assert store.table_counts()["price_quotes"] == 0


def test_negotiated_quote_needs_an_id():
    with pytest.raises(ValidationError, match="quote_id"):
        quote(pricing_model="negotiated")


def test_per_accelerator_quote_covers_one_accelerator():
    with pytest.raises(ValidationError, match="exactly one accelerator"):
        quote(price_basis="per_accelerator")


def test_units_convert_and_missing_units_are_errors():
    assert to_ms(1.5, "s") == 1500
    assert to_ms(2_000_000, "ns") == pytest.approx(2.0)
    assert to_tok_s(60, "tokens/min") == pytest.approx(1.0)
    assert to_usd_per_hour(730, "usd/month") == pytest.approx(1.0)
    with pytest.raises(UnitError, match="has no unit"):
        to_ms(12.0, None)
    with pytest.raises(UnitError, match="not known"):
        to_ms(12.0, "fortnights")
