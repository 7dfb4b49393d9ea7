"""GCP: SKU classification and composition, and the real google-cloud clients over their REST
transport against a local HTTP server serving documented payloads (with paging)."""

from __future__ import annotations

import json
from datetime import UTC, datetime

import pytest
from google.api_core.client_options import ClientOptions
from google.auth.credentials import AnonymousCredentials
from google.cloud import billing_v1, compute_v1

from pricing.gcp import fetch_gcp, fetch_skus, not_sold_on_demand, parse_gcp
from pricing.provider import PermissionDeniedError
from tokendesk.records import PriceBasis, PricingModel

NOW = datetime(2026, 9, 1, tzinfo=UTC)


def _skus(fixture_json):
    return [
        billing_v1.Sku.to_dict(billing_v1.Sku.from_json(json.dumps(s), ignore_unknown_fields=True))
        for page in fixture_json("gcp_skus_pages.json")
        for s in page["skus"]
    ]


def _machine_types(fixture_json):
    out = []
    for page in fixture_json("gcp_machine_types_pages.json"):
        for scoped in page["items"].values():
            for m in scoped.get("machineTypes", []):
                out.append(
                    compute_v1.MachineType.to_dict(compute_v1.MachineType.from_json(json.dumps(m)))
                )
    return out


def _get(quotes, name, model, region="us-central1"):
    found = [
        q
        for q in quotes
        if q.instance_type == name and q.pricing_model is model and q.region == region
    ]
    assert len(found) == 1, (name, model, found)
    return found[0]


def test_instance_price_is_the_sum_of_components(fixture_json):
    result = parse_gcp(_skus(fixture_json), _machine_types(fixture_json), NOW)
    a3 = _get(result.quotes, "a3-highgpu-8g", PricingModel.ON_DEMAND)
    # 208 vCPU x $0.02 + 1872 GiB x $0.003 + 8 x $10 + 6000 GiB local SSD x $0.08/730
    expected = 208 * 0.02 + 1872 * 0.003 + 8 * 10 + 6000 * 0.08 / 730
    assert a3.usd_per_hour == pytest.approx(expected, abs=1e-6)
    assert (a3.accelerator_id, a3.accelerator_count, a3.vcpus) == ("nvidia-h100-sxm-80gb", 8, 208)
    spot = _get(result.quotes, "a3-highgpu-8g", PricingModel.SPOT)
    assert spot.usd_per_hour == pytest.approx(
        208 * 0.008 + 1872 * 0.001 + 8 * 2.5 + 6000 * 0.04 / 730, abs=1e-6
    )
    cud = _get(result.quotes, "a3-highgpu-8g", PricingModel.COMMITTED_USE_1Y)
    assert cud.usd_per_hour == pytest.approx(
        208 * 0.013 + 1872 * 0.002 + 8 * 7 + 6000 * 0.08 / 730, abs=1e-6
    )
    # one quote per region even though two zones list the machine type; DWS SKU not matched
    assert len([q for q in result.quotes if q.instance_type == "a3-highgpu-8g"]) == 3


def test_machine_types_not_sold_on_demand_are_flagged(fixture_json):
    result = parse_gcp(_skus(fixture_json), _machine_types(fixture_json), NOW)
    for name in ("a3-ultragpu-8g", "a3-highgpu-2g"):
        assert not [
            q
            for q in result.quotes
            if q.instance_type == name and q.pricing_model is PricingModel.ON_DEMAND
        ]
        assert any(
            s.what.startswith(name) and "not sold on demand" in s.reason for s in result.skipped
        )
    ultra_spot = _get(result.quotes, "a3-ultragpu-8g", PricingModel.SPOT)
    assert ultra_spot.accelerator_id == "nvidia-h200-141gb"
    assert ultra_spot.usd_per_hour == pytest.approx(224 * 0.01 + 2900 * 0.001 + 8 * 3.7, abs=1e-6)
    assert not_sold_on_demand("a4-highgpu-8g") and not not_sold_on_demand("a3-highgpu-8g")


def test_tpus_are_per_chip_with_preemptible_detected_from_description(fixture_json):
    result = parse_gcp(_skus(fixture_json), _machine_types(fixture_json), NOW)
    v6e = _get(result.quotes, "tpu-v6e", PricingModel.ON_DEMAND, "us-east1")
    assert v6e.usd_per_hour == pytest.approx(2.7) and v6e.price_basis is PriceBasis.PER_ACCELERATOR
    assert v6e.accelerator_count == 1 and v6e.accelerator_id == "google-tpu-v6e"
    assert _get(
        result.quotes, "tpu-v6e", PricingModel.SPOT, "us-east1"
    ).usd_per_hour == pytest.approx(1.89)
    assert _get(result.quotes, "tpu-v5e", PricingModel.ON_DEMAND).usd_per_hour == pytest.approx(1.2)
    assert _get(
        result.quotes, "tpu-v5p", PricingModel.COMMITTED_USE_1Y, "us-east5"
    ).usd_per_hour == pytest.approx(2.94)


def test_cpu_fallback_sockets(fixture_json):
    result = parse_gcp(_skus(fixture_json), _machine_types(fixture_json), NOW)
    counts = {
        q.instance_type: q.accelerator_count
        for q in result.quotes
        if q.instance_type.startswith("c3")
    }
    assert counts == {"c3-standard-176": 2, "c3-standard-88": 1, "c3-standard-4": 0}


def test_region_filter(fixture_json):
    result = parse_gcp(_skus(fixture_json), _machine_types(fixture_json), NOW, regions=["us-east1"])
    assert {q.region for q in result.quotes} == {"us-east1"}


# -- the real clients over REST against a local server --------------------------------------


def _serve(httpserver, fixture_json):
    sku_pages = fixture_json("gcp_skus_pages.json")
    httpserver.expect_ordered_request(
        "/v1/services/6F81-5844-456A/skus", query_string={"$alt": "json;enum-encoding=int"}
    ).respond_with_json(sku_pages[0])
    httpserver.expect_ordered_request(
        "/v1/services/6F81-5844-456A/skus",
        query_string={"pageToken": "skus-page-2", "$alt": "json;enum-encoding=int"},
    ).respond_with_json(sku_pages[1])
    mt_pages = fixture_json("gcp_machine_types_pages.json")
    httpserver.expect_ordered_request(
        "/compute/v1/projects/demo-project/aggregated/machineTypes"
    ).respond_with_json(mt_pages[0])
    httpserver.expect_ordered_request(
        "/compute/v1/projects/demo-project/aggregated/machineTypes"
    ).respond_with_json(mt_pages[1])


def _clients(httpserver):
    endpoint = f"http://{httpserver.host}:{httpserver.port}"
    catalog = billing_v1.CloudCatalogClient(
        credentials=AnonymousCredentials(),
        transport="rest",
        client_options=ClientOptions(api_endpoint=endpoint),
    )
    machines = compute_v1.MachineTypesClient(
        credentials=AnonymousCredentials(),
        transport="rest",
        client_options=ClientOptions(api_endpoint=endpoint),
    )
    return catalog, machines


def test_fetch_walks_both_apis_page_by_page(httpserver, fixture_json):
    _serve(httpserver, fixture_json)
    catalog, machines = _clients(httpserver)
    steps = []
    result = fetch_gcp(
        project="demo-project",
        catalog_client=catalog,
        machine_types_client=machines,
        now=NOW,
        progress=lambda region, done, total, msg="": steps.append((done, total)),
    )
    httpserver.check_assertions()
    assert steps[-1] == (2, 2)
    names = {q.instance_type for q in result.quotes}
    assert {"a3-highgpu-8g", "c3-standard-4", "tpu-v6e"} <= names  # c3-standard-4 is on page 2


def test_denied_catalog_call_names_the_permission(httpserver):
    httpserver.expect_request("/v1/services/6F81-5844-456A/skus").respond_with_json(
        {
            "error": {
                "code": 403,
                "message": "Cloud Billing API has not been used in project",
                "status": "PERMISSION_DENIED",
            }
        },
        status=403,
    )
    catalog, _ = _clients(httpserver)
    with pytest.raises(PermissionDeniedError, match="billing.skus"):
        fetch_skus(catalog)
