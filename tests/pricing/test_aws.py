"""AWS Pricing API + spot history: pure parsing and the boto3 I/O layer through botocore Stubber."""

from __future__ import annotations

import json
from datetime import UTC, datetime

import boto3
import pytest
from botocore.config import Config
from botocore.exceptions import ReadTimeoutError
from botocore.stub import ANY, Stubber

from pricing.aws import (
    accelerator_for,
    fetch_aws,
    parse_price_list,
    parse_spot_history,
    price_list_filters,
)
from pricing.provider import PermissionDeniedError
from tokendesk.records import PricingModel

NOW = datetime(2026, 9, 1, 12, 0, tzinfo=UTC)


def _items(fixture_json) -> list[str]:
    return [s for page in fixture_json("aws_get_products_pages.json") for s in page["PriceList"]]


def _by(quotes, instance_type, model):
    found = [q for q in quotes if q.instance_type == instance_type and q.pricing_model is model]
    assert len(found) == 1, (instance_type, model, found)
    return found[0]


def test_price_list_entries_are_json_strings_and_parse_to_quotes(fixture_json):
    items = _items(fixture_json)
    assert all(isinstance(s, str) for s in items)
    result, shapes = parse_price_list(items, NOW)
    p5en = _by(result.quotes, "p5en.48xlarge", PricingModel.ON_DEMAND)
    assert p5en.usd_per_hour == pytest.approx(63.296)
    assert (p5en.accelerator_id, p5en.accelerator_count) == ("nvidia-h200-141gb", 8)
    assert p5en.memory_gib == 2048 and p5en.vcpus == 192
    assert ("us-east-1", "p5en.48xlarge") in shapes


def test_reserved_is_effective_hourly_from_the_cheapest_standard_offer(fixture_json):
    result, _ = parse_price_list(_items(fixture_json), NOW)
    # 1yr All Upfront $300,000 -> 300000 / 8760 = 34.246575 $/h, cheaper than No Upfront $40/h;
    # the convertible $10/h offer is not a standard RI and is ignored.
    ri1 = _by(result.quotes, "p5en.48xlarge", PricingModel.RESERVED_1Y)
    assert ri1.usd_per_hour == pytest.approx(300000 / 8760, abs=1e-6)
    assert "All Upfront" in ri1.notes
    # 3yr Partial Upfront: 400000 / 26280 + 15 = 30.220700 $/h
    ri3 = _by(result.quotes, "p5en.48xlarge", PricingModel.RESERVED_3Y)
    assert ri3.usd_per_hour == pytest.approx(400000 / 26280 + 15.0, abs=1e-6)


def test_zero_and_capacity_block_rows_are_reported_not_priced(fixture_json):
    result, _ = parse_price_list(_items(fixture_json), NOW)
    assert not [q for q in result.quotes if q.instance_type in ("p5e.48xlarge", "p5.48xlarge")]
    reasons = {s.what: s.reason for s in result.skipped}
    assert "capacity blocks or reservations" in reasons["p5e.48xlarge us-east-1"]
    assert "CapacityBlock" in reasons["p5.48xlarge us-east-1"]
    # Windows rows are not Linux prices.
    assert not [q for q in result.quotes if q.instance_type == "g6e.12xlarge"]


@pytest.mark.parametrize(
    ("instance_type", "gpu", "vcpus", "expected"),
    [
        ("inf2.48xlarge", "", 192, ("aws-inferentia2", 12)),
        ("inf2.xlarge", None, 4, ("aws-inferentia2", 1)),
        ("trn1.32xlarge", "", 128, ("aws-trainium1", 16)),
        ("trn2.48xlarge", "", 192, ("aws-trainium2", 16)),
        ("dl1.24xlarge", "", 96, ("intel-gaudi1-32gb", 8)),
        ("dl2q.24xlarge", "", 96, ("qualcomm-ai100-std", 8)),
        ("p5en.48xlarge", "8", 192, ("nvidia-h200-141gb", 8)),
        ("p5.48xlarge", "8", 192, ("nvidia-h100-sxm-80gb", 8)),
        ("p4d.24xlarge", "8", 96, ("nvidia-a100-40gb", 8)),
        ("p4de.24xlarge", "8", 96, ("nvidia-a100-80gb", 8)),
        ("g6e.12xlarge", "4", 48, ("nvidia-l40s-48gb", 4)),
        ("g6.xlarge", "1", 4, ("nvidia-l4-24gb", 1)),
        ("g5.48xlarge", "8", 192, ("nvidia-a10g-24gb", 8)),
        ("c7i.48xlarge", "", 192, ("cpu-intel-spr-amx", 2)),
        ("c7i.24xlarge", "", 96, ("cpu-intel-spr-amx", 1)),
        ("m7i.8xlarge", "", 32, ("cpu-intel-spr-amx", 0)),
        ("c8g.48xlarge", "", 192, ("cpu-aws-graviton4", 2)),
        ("m8g.24xlarge", "", 96, ("cpu-aws-graviton4", 1)),
        ("c8i.96xlarge", "", 384, ("cpu-intel-gnr-amx", 2)),
        ("t3.micro", "", 2, None),
    ],
)
def test_accelerator_mapping(instance_type, gpu, vcpus, expected):
    assert accelerator_for(instance_type, gpu, vcpus) == expected


def test_cpu_counts_from_fixture(fixture_json):
    result, _ = parse_price_list(_items(fixture_json), NOW)
    counts = {
        q.instance_type: q.accelerator_count
        for q in result.quotes
        if q.instance_type.startswith("c7i")
    }
    assert counts == {"c7i.48xlarge": 2, "c7i.24xlarge": 1, "c7i.16xlarge": 0}


def test_spot_min_median_and_reading_time(fixture_json):
    result, shapes = parse_price_list(_items(fixture_json), NOW)
    entries = fixture_json("aws_spot_price_history.json")["SpotPriceHistory"]
    for e in entries:
        e["Timestamp"] = datetime.fromisoformat(e["Timestamp"])
    spot = parse_spot_history(entries, "us-east-1", {t: s for (_, t), s in shapes.items()})
    p5en = _by(spot, "p5en.48xlarge", PricingModel.SPOT)
    # latest per AZ: 1a 27.1988 (the older 40.0 reading is superseded), 1b 30, 1c 33 -> median 30
    assert p5en.usd_per_hour == pytest.approx(30.0)
    assert "min $27.1988 in us-east-1a" in p5en.notes and "3 AZ" in p5en.notes
    assert p5en.observed_at == datetime(2026, 9, 1, 10, 0, tzinfo=UTC)


# -- I/O layer through botocore Stubber ------------------------------------------------------


def _session():
    # Explicit dummy keys for an offline session; nothing is read from or written to disk.
    return boto3.session.Session(
        aws_access_key_id="testing", aws_secret_access_key="testing", region_name="us-east-1"
    )


def _clients():
    session = _session()
    config = Config(retries={"max_attempts": 1})
    pricing = session.client("pricing", region_name="us-east-1", config=config)
    ec2 = {
        r: session.client("ec2", region_name=r, config=config)
        for r in ("us-east-1", "ap-east-1", "us-west-2")
    }
    return pricing, ec2


def _expect_pages(stubber: Stubber, pages, region: str, family: str) -> None:
    token = None
    for page in pages:
        params = {
            "ServiceCode": "AmazonEC2",
            "Filters": price_list_filters(region, family),
            "FormatVersion": "aws_v1",
        }
        if token:
            params["NextToken"] = token
        stubber.add_response("get_products", page, params)
        token = page.get("NextToken")


def _spot_response(fixture_json):
    payload = fixture_json("aws_spot_price_history.json")
    for e in payload["SpotPriceHistory"]:
        e["Timestamp"] = datetime.fromisoformat(e["Timestamp"])
    return payload


def test_fetch_pages_through_next_token_and_adds_spot(fixture_json):
    pricing, ec2 = _clients()
    pages = fixture_json("aws_get_products_pages.json")
    with Stubber(pricing) as ps, Stubber(ec2["us-east-1"]) as es:
        _expect_pages(ps, pages, "us-east-1", "p5en")
        es.add_response(
            "describe_spot_price_history",
            _spot_response(fixture_json),
            {"InstanceTypes": ANY, "ProductDescriptions": ["Linux/UNIX"], "StartTime": NOW},
        )
        events = []
        result = fetch_aws(
            ["us-east-1"],
            families=["p5en"],
            pricing_client=pricing,
            ec2_client_for=ec2.__getitem__,
            now=NOW,
            progress=lambda region, done, total, msg="": events.append((region, done, total)),
        )
        ps.assert_no_pending_responses()
    models = {(q.instance_type, q.pricing_model) for q in result.quotes}
    assert ("p5en.48xlarge", PricingModel.SPOT) in models
    assert ("c7i.48xlarge", PricingModel.ON_DEMAND) in models  # from the second page
    assert not result.partial
    assert events == [("us-east-1", 1, 1)]


def test_region_not_opted_in_is_skipped_and_reported(fixture_json):
    pricing, ec2 = _clients()
    pages = json.loads(
        json.dumps(fixture_json("aws_get_products_pages.json")).replace(
            '\\"us-east-1\\"', '\\"ap-east-1\\"'
        )
    )
    with Stubber(pricing) as ps, Stubber(ec2["ap-east-1"]) as es:
        _expect_pages(ps, pages, "ap-east-1", "p5en")
        es.add_client_error(
            "describe_spot_price_history", service_error_code="OptInRequired", http_status_code=401
        )
        result = fetch_aws(
            ["ap-east-1"],
            families=["p5en"],
            pricing_client=pricing,
            ec2_client_for=ec2.__getitem__,
            now=NOW,
        )
    assert result.quotes == [] and not result.partial
    es.assert_no_pending_responses()
    assert any(s.what == "ap-east-1" and "OptInRequired" in s.reason for s in result.skipped)


def test_denied_pricing_call_names_the_permission():
    pricing, ec2 = _clients()
    with Stubber(pricing) as ps:
        ps.add_client_error(
            "get_products", service_error_code="AccessDeniedException", http_status_code=400
        )
        with pytest.raises(PermissionDeniedError, match="pricing:GetProducts"):
            fetch_aws(
                ["us-east-1"],
                families=["p5en"],
                pricing_client=pricing,
                ec2_client_for=ec2.__getitem__,
                now=NOW,
            )


def test_denied_spot_call_names_the_permission_and_marks_partial(fixture_json):
    pricing, ec2 = _clients()
    with Stubber(pricing) as ps, Stubber(ec2["us-east-1"]) as es:
        _expect_pages(ps, fixture_json("aws_get_products_pages.json"), "us-east-1", "p5en")
        es.add_client_error(
            "describe_spot_price_history",
            service_error_code="UnauthorizedOperation",
            http_status_code=403,
        )
        result = fetch_aws(
            ["us-east-1"],
            families=["p5en"],
            pricing_client=pricing,
            ec2_client_for=ec2.__getitem__,
            now=NOW,
        )
    assert result.partial
    assert "ec2:DescribeSpotPriceHistory" in result.region_errors["us-east-1"]


def test_timeout_mid_walk_keeps_finished_regions(fixture_json):
    """Page 1 of us-west-2 answers, page 2 times out: us-west-2 is an error, us-east-1 is kept."""
    pricing, ec2 = _clients()
    pages = fixture_json("aws_get_products_pages.json")
    calls = {"n": 0}

    def before_call(model, params, **kwargs):
        if model.name != "GetProducts":
            return None
        calls["n"] += 1
        # calls 1-2: us-east-1 pages 1-2; call 3: us-west-2 page 1; call 4: us-west-2 page 2
        if calls["n"] == 4:
            raise ReadTimeoutError(endpoint_url="https://api.pricing.us-east-1.amazonaws.com")
        page = pages[(calls["n"] - 1) % 2]
        from botocore.awsrequest import AWSResponse

        return AWSResponse("https://api.pricing.us-east-1.amazonaws.com", 200, {}, None), dict(page)

    pricing.meta.events.register("before-call.pricing.GetProducts", before_call)
    with Stubber(ec2["us-east-1"]) as es:
        es.add_response("describe_spot_price_history", {"SpotPriceHistory": []}, None)
        result = fetch_aws(
            ["us-east-1", "us-west-2"],
            families=["p5en"],
            pricing_client=pricing,
            ec2_client_for=ec2.__getitem__,
            now=NOW,
        )
    assert (
        result.partial
        and "us-west-2" in result.region_errors
        and "timeout" in result.region_errors["us-west-2"].lower()
    )
    assert {q.region for q in result.quotes} == {"us-east-1"}


def test_invalid_json_price_list_entry_is_a_region_error():
    pricing, ec2 = _clients()
    with Stubber(pricing) as ps:
        ps.add_response(
            "get_products", {"FormatVersion": "aws_v1", "PriceList": ["{not json"]}, None
        )
        result = fetch_aws(
            ["us-east-1"],
            families=["p5en"],
            pricing_client=pricing,
            ec2_client_for=ec2.__getitem__,
            now=NOW,
        )
    assert result.partial and "us-east-1" in result.region_errors


def test_requested_regions_of_other_clouds_do_not_call_aws():
    result = fetch_aws(["eastus", "us-central1"], now=NOW)  # no session built, no call made
    assert result.quotes == [] and not result.region_errors


def test_price_list_item_is_valid_json_of_the_documented_shape(fixture_json):
    item = json.loads(_items(fixture_json)[0])
    assert set(item) >= {"product", "serviceCode", "terms", "version", "publicationDate"}
    offer = next(iter(item["terms"]["OnDemand"].values()))
    dim = next(iter(offer["priceDimensions"].values()))
    assert dim["pricePerUnit"]["USD"] == "63.2960000000"
