"""FOCUS bills -> fleet lines: column names per FOCUS version, the instance type from the columns
that carry it, the pricing model from PricingCategory and the commitment columns, the last full
month, and the derivation's accounting (every charge is in a line or in a reason)."""

from __future__ import annotations

from datetime import date, datetime

import pytest

from pricing import focus

V1_0 = [
    "BilledCost",
    "BillingCurrency",
    "BillingPeriodEnd",
    "BillingPeriodStart",
    "ChargeCategory",
    "ChargeClass",
    "ChargeDescription",
    "ChargePeriodEnd",
    "ChargePeriodStart",
    "CommitmentDiscountId",
    "CommitmentDiscountStatus",
    "ConsumedQuantity",
    "ConsumedUnit",
    "EffectiveCost",
    "PricingCategory",
    "ProviderName",
    "RegionId",
    "RegionName",
    "ServiceCategory",
]


def test_every_focus_version_maps_onto_the_same_names():
    preview = [
        "BilledCost",
        "EffectiveCost",
        "ChargeCategory",
        "ChargePeriodStart",
        "ChargePeriodEnd",
        "ProviderName",
        "Region",
        "UsageQuantity",
        "UsageUnit",
    ]
    v1_2 = [*V1_0, "InvoiceId", "SkuPriceDetails", "CapacityReservationId", "x_UsageType"]
    v1_3 = [c for c in v1_2 if c != "ProviderName"] + ["ServiceProviderName", "HostProviderName"]
    assert focus.resolve_columns(preview, "p.csv").version_hint == "1.0-preview"
    p = focus.resolve_columns(preview, "p.csv")
    assert (p.text["region"], p.numbers["consumed"], p.text["consumed_unit"]) == (
        "Region",
        "UsageQuantity",
        "UsageUnit",
    )
    assert focus.resolve_columns(V1_0, "a.csv").version_hint == "1.0"
    two = focus.resolve_columns(v1_2, "b.csv")
    assert two.version_hint == "1.2"
    assert (two.text["sku_price_details"], two.text["x_usage_type"]) == (
        "SkuPriceDetails",
        "x_UsageType",
    )
    three = focus.resolve_columns(v1_3, "c.csv")
    assert three.version_hint == "1.3"
    assert three.text["provider"] == "ServiceProviderName"
    # Lower-case headers (some hand-written CSVs) resolve too.
    lower = focus.resolve_columns([c.lower() for c in V1_0], "d.csv")
    assert lower.numbers["billed"] == "billedcost"


def test_a_file_that_is_not_a_focus_export_is_named_with_what_it_lacks():
    with pytest.raises(focus.FocusFileError) as err:
        focus.resolve_columns(["date", "service", "cost"], "invoice.csv")
    text = str(err.value)
    assert text.startswith("invoice.csv: not a FOCUS cost export")
    assert "BilledCost" in text and "ServiceProviderName or ProviderName" in text


def group(month=date(2026, 10, 1), **text) -> focus.ChargeGroup:
    return focus.ChargeGroup(
        source="t.csv",
        month=month,
        rows=1,
        billed=text.pop("billed", 10.0),
        effective=text.pop("effective", 10.0),
        consumed=text.pop("consumed", 744.0),
        charge_start=text.pop("start", datetime(month.year, month.month, 1)),
        charge_end=text.pop("end", datetime(month.year, month.month + 1, 1)),
        text={"charge_category": "Usage", "consumed_unit": "Hours", **text},
    )


@pytest.mark.parametrize(
    ("provider", "columns", "expected"),
    [
        ("aws", {"sku_price_details": '{"InstanceType": "p5.48xlarge"}'}, "p5.48xlarge"),
        ("aws", {"x_usage_type": "USE1-BoxUsage:p4d.24xlarge"}, "p4d.24xlarge"),
        ("aws", {"x_usage_type": "SpotUsage:g6e.xlarge"}, "g6e.xlarge"),
        (
            "aws",
            {"charge_description": "$1.624 per On Demand Linux g5.4xlarge Instance Hour"},
            "g5.4xlarge",
        ),
        (
            "azure",
            {"x_sku_details": '{"ServiceType": "Standard_ND96isr_H100_v5", "VCPUs": 96}'},
            "Standard_ND96isr_H100_v5",
        ),
        ("oci", {"charge_description": "Standard - E5"}, ""),
        ("aws", {"charge_description": "$0.023 per GB-Month of storage"}, ""),
        ("aws", {"sku_price_details": "not json"}, ""),
    ],
)
def test_the_instance_type_comes_from_the_column_that_carries_it(provider, columns, expected):
    assert focus.instance_type_of(group(**columns), provider) == expected


@pytest.mark.parametrize(
    ("columns", "terms", "expected"),
    [
        ({"pricing_category": "Standard"}, {}, "on_demand"),
        ({"pricing_category": "On-Demand"}, {}, "on_demand"),  # 1.0-preview
        ({"pricing_category": ""}, {}, "on_demand"),  # OCI: one pricing category
        ({"pricing_category": "Dynamic"}, {}, "spot"),
        ({"pricing_category": "Other"}, {}, "negotiated"),
        (
            {
                "pricing_category": "Committed",
                "commitment_type": "Reserved Instance",
                "commitment_id": "ri",
            },
            {"ri": 365.0},
            "reserved_1y",
        ),
        (
            {
                "pricing_category": "Committed",
                "commitment_type": "Savings Plan",
                "commitment_id": "sp",
            },
            {"sp": 3 * 365.0},
            "savings_plan_3y",
        ),
        (
            {"pricing_category": "Commitment-Based", "commitment_category": "Spend"},
            {},
            "savings_plan_1y",
        ),
        (
            {"pricing_category": "Committed", "commitment_type": "Reservation", "x_sku_term": "36"},
            {},
            "reserved_3y",
        ),
        ({"pricing_category": "Standard", "capacity_reservation_id": "cr-1"}, {}, "capacity_block"),
        (
            {"pricing_category": "Standard", "x_usage_type": "CapacityBlockUsage:p5.48xlarge"},
            {},
            "capacity_block",
        ),
    ],
)
def test_the_pricing_model_follows_pricing_category_and_the_commitment(columns, terms, expected):
    assert focus.pricing_model_of(group(**columns), "aws", terms) == expected
    assert focus.pricing_model_of(
        group(pricing_category="Committed", commitment_category="Usage"), "gcp", {}
    ).startswith("committed_use")


def test_the_last_full_month_is_the_latest_one_covered_from_first_to_last_day():
    september = group(date(2026, 9, 1), end=datetime(2026, 9, 30, 23))  # hourly export
    october = group(date(2026, 10, 1))
    november = group(date(2026, 11, 1), end=datetime(2026, 11, 12))
    assert focus.last_full_month([september, october, november]) == (date(2026, 10, 1), True)
    assert focus.last_full_month([november]) == (date(2026, 11, 1), False)
    late_start = group(date(2026, 10, 1), start=datetime(2026, 10, 5))
    assert focus.last_full_month([september, late_start]) == (date(2026, 9, 1), True)


SHAPES = {("aws", "p5.48xlarge"): focus.InstanceShape("nvidia-h100-sxm-80gb", 8)}


def test_every_charge_is_in_a_line_or_a_reason():
    groups = [
        group(x_usage_type="BoxUsage:p5.48xlarge", provider="AWS", region="us-east-1", billed=55.0),
        group(charge_category="Tax", billed=7.0),
        group(charge_category="Credit", billed=-3.0),
        group(x_usage_type="BoxUsage:g3.4xlarge", provider="AWS", billed=2.0),
        group(
            x_usage_type="BoxUsage:c5.large", provider="AWS", service_category="Compute", billed=1.0
        ),
        group(provider="AWS", service_category="Storage", consumed_unit="GB-Mo", billed=0.5),
    ]
    files = [focus.FileSummary("t.csv", 6, 62.5, "1.0", ("AWS",), None, None)]
    bill = focus.derive_fleet(groups, files, SHAPES)
    (line,) = bill.fleet_lines()
    assert (line.instance_type, line.count, line.billed_usd) == ("p5.48xlarge", 1, 55.0)
    reasons = {u.reason: u.cost_usd for u in bill.unplaced}
    assert reasons == {
        "tax": 7.0,
        "credits": -3.0,
        "accelerator instance not in the price data (aws g3.4xlarge)": 2.0,
        "not an accelerator instance (Compute)": 1.0,
        "not an accelerator instance (Storage)": 0.5,
    }
    assert line.billed_usd + sum(reasons.values()) == pytest.approx(bill.total_billed_usd)


def test_gpu_hours_are_turned_into_instance_hours():
    oci = {("oci", "BM.GPU.H100.8"): focus.InstanceShape("nvidia-h100-sxm-80gb", 8)}
    g = group(
        provider="Oracle",
        sku_price_details='{"InstanceType": "BM.GPU.H100.8"}',
        consumed_unit="GPU Hours",
        consumed=8 * 744.0,
        effective=8 * 744 * 10.0,
    )
    (line,) = focus.derive_fleet([g], [], oci).fleet_lines()
    assert (line.consumed_hours, line.count, line.usd_per_hour) == (744.0, 1, 80.0)


def test_a_commitment_bought_in_a_partial_month_does_not_make_it_whole():
    november_usage = group(date(2026, 11, 1), end=datetime(2026, 11, 12))
    purchase = group(
        date(2026, 11, 1),
        charge_category="Purchase",
        commitment_id="ri",
        end=datetime(2027, 11, 1),
    )
    october = group(date(2026, 10, 1))
    assert focus.last_full_month([october, november_usage, purchase]) == (date(2026, 10, 1), True)


def test_hours_without_an_effective_cost_make_no_line_but_a_reason():
    free = group(
        x_usage_type="BoxUsage:p5.48xlarge",
        provider="AWS",
        pricing_category="Committed",
        commitment_type="Savings Plan",
        commitment_id="sp",
        billed=0.0,
        effective=0.0,
    )
    bill = focus.derive_fleet([free], [], SHAPES)
    assert bill.fleet_lines() == []
    assert [u.reason for u in bill.unplaced] == [
        "accelerator usage with no effective cost (commitment not amortised)"
    ]


def test_a_gpu_billed_apart_from_its_machine_is_named_as_an_accelerator_charge():
    gpu = group(
        provider="Google Cloud",
        service_category="Compute",
        charge_description="Nvidia H100 80GB GPU running in Americas",
    )
    bill = focus.derive_fleet([gpu], [], SHAPES)
    assert [u.reason for u in bill.unplaced] == ["accelerator charge with no instance type (gcp)"]


def test_a_commitment_fee_is_billed_on_the_line_it_covers_and_a_shared_one_stays_unplaced():
    def usage(itype: str, cid: str) -> focus.ChargeGroup:
        return group(
            x_usage_type=f"BoxUsage:{itype}",
            provider="AWS",
            region="us-east-1",
            pricing_category="Committed",
            commitment_type="Reserved Instance",
            commitment_id=cid,
            billed=0.0,
        )

    def fee(cid: str, billed: float) -> focus.ChargeGroup:
        return group(
            charge_category="Purchase", commitment_id=cid, billed=billed, effective=0.0, consumed=0
        )

    shapes = {**SHAPES, ("aws", "g6e.xlarge"): focus.InstanceShape("nvidia-l40s-48gb", 1)}
    groups = [usage("p5.48xlarge", "ri"), fee("ri", 30.0)]
    (line,) = focus.derive_fleet(groups, [], shapes).fleet_lines()
    assert (line.billed_usd, line.commitment_fees_usd) == (30.0, 30.0)
    # A savings plan covering two lines: its fee is not split by guesswork.
    shared = [usage("p5.48xlarge", "sp"), usage("g6e.xlarge", "sp"), fee("sp", 40.0)]
    bill = focus.derive_fleet(shared, [], shapes)
    assert [ln.commitment_fees_usd for ln in bill.fleet_lines()] == [0.0, 0.0]
    assert sum(u.cost_usd for u in bill.unplaced) == 40.0
    assert any("cover 2 lines" in n for n in bill.notes)
