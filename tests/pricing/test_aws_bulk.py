"""AWS bulk price file: DuckDB-streamed parse of a file shaped like the real index.csv."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

import httpx
import pytest
import respx

from pricing.aws_bulk import BULK_HEADER, BULK_URL, fetch_aws_bulk, parse_bulk_csv
from tokendesk.records import PricingModel

NOW = datetime(2026, 9, 1, tzinfo=UTC)
DISCLAIMER = [
    '"FormatVersion","v1.0"',
    '"Disclaimer","This pricing list is for informational purposes only. '
    "All prices are subject to the additional terms included in the "
    "pricing pages on http://aws.amazon.com. All Free Tier prices are also "
    'subject to the terms included at https://aws.amazon.com/free/"',
    '"Publication Date","2026-08-28T19:07:23Z"',
    '"Version","20260828190723"',
    '"OfferCode","AmazonEC2"',
]


def row(
    sku,
    term,
    term_type,
    unit,
    price,
    instance,
    *,
    region="us-east-1",
    os_="Linux",
    tenancy="Shared",
    market="OnDemand",
    lease="",
    option="",
    cls="",
    vcpu="192",
    memory="2048 GiB",
    gpu="",
    capacity="Used",
    description="",
) -> str:
    values = dict.fromkeys(BULK_HEADER, "")
    values.update(
        {
            "SKU": sku,
            "OfferTermCode": term,
            "RateCode": f"{sku}.{term}.6YS6EN2CT7",
            "TermType": term_type,
            "PriceDescription": description
            or f"${price} per {term_type} {os_} {instance} Instance Hour",
            "EffectiveDate": "2026-08-01",
            "StartingRange": "0",
            "EndingRange": "Inf",
            "Unit": unit,
            "PricePerUnit": price,
            "Currency": "USD",
            "LeaseContractLength": lease,
            "PurchaseOption": option,
            "OfferingClass": cls,
            "Product Family": "Compute Instance",
            "serviceCode": "AmazonEC2",
            "Location": "US East (N. Virginia)",
            "Location Type": "AWS Region",
            "Instance Type": instance,
            "Current Generation": "Yes",
            "Instance Family": "Accelerated Computing",
            "vCPU": vcpu,
            "Memory": memory,
            "Tenancy": tenancy,
            "Operating System": os_,
            "License Model": "No License required",
            "usageType": f"BoxUsage:{instance}",
            "operation": "RunInstances",
            "CapacityStatus": capacity,
            "GPU": gpu,
            "MarketOption": market,
            "Pre Installed S/W": "NA",
            "Region Code": region,
            "serviceName": "Amazon Elastic Compute Cloud",
        }
    )
    # Like the real file: every non-empty field quoted, empty fields bare.
    return ",".join(f'"{values[c]}"' if values[c] != "" else "" for c in BULK_HEADER)


def write_bulk(path: Path, rows: list[str]) -> Path:
    header = ",".join(f'"{c}"' for c in BULK_HEADER)
    path.write_text("\n".join([*DISCLAIMER, header, *rows]) + "\n", encoding="utf-8")
    return path


@pytest.fixture
def bulk_file(tmp_path: Path) -> Path:
    return write_bulk(
        tmp_path / "index.csv",
        [
            row("P5EN", "JRTCKXETXF", "OnDemand", "Hrs", "63.2960000000", "p5en.48xlarge", gpu="8"),
            row(
                "P5EN",
                "6QCMYABX3D",
                "Reserved",
                "Quantity",
                "300000",
                "p5en.48xlarge",
                lease="1yr",
                option="All Upfront",
                cls="standard",
                gpu="8",
            ),
            row(
                "P5EN",
                "6QCMYABX3D",
                "Reserved",
                "Hrs",
                "0.0000000000",
                "p5en.48xlarge",
                lease="1yr",
                option="All Upfront",
                cls="standard",
                gpu="8",
            ),
            row(
                "P5EN",
                "4NA7Y494T4",
                "Reserved",
                "Hrs",
                "40.0000000000",
                "p5en.48xlarge",
                lease="1yr",
                option="No Upfront",
                cls="standard",
                gpu="8",
            ),
            row(
                "P5EN",
                "38NPMPTW36",
                "Reserved",
                "Quantity",
                "400000",
                "p5en.48xlarge",
                lease="3yr",
                option="Partial Upfront",
                cls="standard",
                gpu="8",
            ),
            row(
                "P5EN",
                "38NPMPTW36",
                "Reserved",
                "Hrs",
                "15.0000000000",
                "p5en.48xlarge",
                lease="3yr",
                option="Partial Upfront",
                cls="standard",
                gpu="8",
            ),
            row("P5ECB", "JRTCKXETXF", "OnDemand", "Hrs", "0.0000000000", "p5e.48xlarge", gpu="8"),
            row(
                "P5CB",
                "JRTCKXETXF",
                "OnDemand",
                "Hrs",
                "31.4640000000",
                "p5.48xlarge",
                market="CapacityBlock",
                gpu="8",
            ),
            row(
                "WIN",
                "JRTCKXETXF",
                "OnDemand",
                "Hrs",
                "70.0000000000",
                "p5en.48xlarge",
                os_="Windows",
                gpu="8",
            ),
            row(
                "DED",
                "JRTCKXETXF",
                "OnDemand",
                "Hrs",
                "70.0000000000",
                "p5en.48xlarge",
                tenancy="Dedicated",
                gpu="8",
            ),
            row(
                "RES",
                "JRTCKXETXF",
                "OnDemand",
                "Hrs",
                "63.2960000000",
                "p5en.48xlarge",
                capacity="UnusedCapacityReservation",
                gpu="8",
            ),
            row(
                "INF2",
                "JRTCKXETXF",
                "OnDemand",
                "Hrs",
                "12.9812700000",
                "inf2.48xlarge",
                memory="768 GiB",
            ),
            row(
                "C7I",
                "JRTCKXETXF",
                "OnDemand",
                "Hrs",
                "8.5680000000",
                "c7i.48xlarge",
                memory="384 GiB",
            ),
            row(
                "T3",
                "JRTCKXETXF",
                "OnDemand",
                "Hrs",
                "0.0104000000",
                "t3.micro",
                vcpu="2",
                memory="1 GiB",
            ),
        ],
    )


def test_bulk_parse_filters_in_sql_and_amortises_reserved(bulk_file: Path):
    result = parse_bulk_csv(bulk_file, NOW)
    got = {(q.instance_type, q.pricing_model): q for q in result.quotes}
    assert set(got) == {
        ("p5en.48xlarge", PricingModel.ON_DEMAND),
        ("p5en.48xlarge", PricingModel.RESERVED_1Y),
        ("p5en.48xlarge", PricingModel.RESERVED_3Y),
        ("inf2.48xlarge", PricingModel.ON_DEMAND),
        ("c7i.48xlarge", PricingModel.ON_DEMAND),
    }
    assert got[("p5en.48xlarge", PricingModel.ON_DEMAND)].usd_per_hour == pytest.approx(63.296)
    assert got[("p5en.48xlarge", PricingModel.RESERVED_1Y)].usd_per_hour == pytest.approx(
        300000 / 8760, abs=1e-6
    )
    assert got[("p5en.48xlarge", PricingModel.RESERVED_3Y)].usd_per_hour == pytest.approx(
        400000 / 26280 + 15, abs=1e-6
    )
    assert got[("inf2.48xlarge", PricingModel.ON_DEMAND)].accelerator_count == 12
    assert got[("c7i.48xlarge", PricingModel.ON_DEMAND)].accelerator_count == 2
    reasons = " | ".join(f"{s.what}: {s.reason}" for s in result.skipped)
    assert "p5e.48xlarge us-east-1: $0 on-demand price" in reasons
    assert "p5.48xlarge us-east-1: market option CapacityBlock" in reasons


def test_bulk_file_with_wrong_header_names_the_problem(tmp_path: Path):
    bad = tmp_path / "index.csv"
    bad.write_text("\n".join([*DISCLAIMER, '"SKU","Price"', '"A","1"']) + "\n", encoding="utf-8")
    with pytest.raises(ValueError, match="expected header"):
        parse_bulk_csv(bad, NOW)


@respx.mock
def test_fetch_bulk_streams_each_region_and_reports_missing_files(bulk_file: Path, tmp_path: Path):
    respx.get(BULK_URL.format(region="us-east-1")).mock(
        return_value=httpx.Response(200, content=bulk_file.read_bytes())
    )
    respx.get(BULK_URL.format(region="eu-south-9")).mock(return_value=httpx.Response(404))
    respx.get(BULK_URL.format(region="us-west-2")).mock(side_effect=httpx.ReadTimeout("timed out"))
    result = fetch_aws_bulk(["us-east-1", "eu-south-9", "us-west-2"], now=NOW, work_dir=tmp_path)
    assert {q.region for q in result.quotes} == {"us-east-1"}
    assert any(s.what == "eu-south-9" for s in result.skipped)
    assert result.partial and "us-west-2" in result.region_errors
    assert list((tmp_path / "tmp" / "aws-bulk").iterdir()) == []


@respx.mock
def test_a_killed_refresh_leaves_no_temp_file_past_the_next_start(tmp_path: Path):
    left = tmp_path / "tmp" / "aws-bulk" / "refresh-killed"
    left.mkdir(parents=True)
    (left / "us-east-1.csv").write_bytes(b"x" * 4096)  # what a kill -9 mid-download leaves
    respx.get(BULK_URL.format(region="us-east-1")).mock(return_value=httpx.Response(404))
    fetch_aws_bulk(["us-east-1"], now=NOW, work_dir=tmp_path)
    assert list((tmp_path / "tmp" / "aws-bulk").iterdir()) == []
