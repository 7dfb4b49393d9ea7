"""Owned servers priced at their total cost of ownership: a hand calculation to the cent, the
break-even against the cloud, the bundled sheets, and owned servers as options the optimizer buys."""

from __future__ import annotations

import pytest

from costmodel import Engine
from costmodel.bundled_tables import electricity_prices, owned_servers
from costmodel.optimizer import solve
from costmodel.optimizer_workspace import OWNED_NOTE, with_owned, workspace_problem
from costmodel.option_table import OWNED, OptionTable
from costmodel.owned import (
    CloudAlternative,
    ElectricityPrice,
    OwnedParams,
    OwnedServer,
    Sourced,
    break_even_months,
    capital_recovery_factor,
    cloud_alternatives,
    electricity_input,
    owned_options,
    owned_rate,
    owned_rates,
)
from costmodel.plan import WorkspaceEngine
from costmodel.plan_inputs import PlanContext
from costmodel.workspace_model import WorkspaceError, workspace_from_dict, workspace_to_dict
from tests.factories import frame, sweep
from tests.workspace_data import OPTIONS, workspace

SERVER = OwnedServer(
    "box",
    "8x H100 box",
    "nvidia-h100-sxm-80gb",
    8,
    Sourced("server capex", 270_000.0, "$", "a test sheet", confidence="medium"),
    Sourced("server power", 10.2, "kW", "a test sheet", confidence="high"),
)
PARAMS = OwnedParams(
    site_region="us-east-1",
    depreciation_years=4,
    financing_rate=0.08,
    pue=1.5,
    colo_usd_per_kw_month=150.0,
    staff_usd_per_fte_year=200_000.0,
    servers_per_fte=50,
)
POWER = Sourced("electricity", 0.0895, "$ per kWh", "a test table", confidence="high")
OWNED_TERMS = {
    "site_region": "us-east-1",
    "depreciation_years": 4,
    "financing_rate": 0.08,
    "pue": 1.5,
    "colo_usd_per_kw_month": 150,
    "staff_usd_per_fte_year": 200000,
    "servers_per_fte": 50,
    "servers": ["dgx-h100"],
}


def test_the_rate_reproduces_a_hand_calculation_to_the_cent():
    # 1.08^4 = 1.36048896, so the annuity factor is 0.08 / (1 - 1/1.36048896) = 0.30192080.
    assert capital_recovery_factor(0.08, 4) == pytest.approx(0.30192080, abs=1e-8)
    assert capital_recovery_factor(0.0, 4) == 0.25
    rate = owned_rate(SERVER, PARAMS, POWER)
    # capital 270,000 × 0.30192080 = 81,518.62 a year; colocation 150 × 10.2 kW × 12 = 18,360;
    # staff 200,000 / 50 = 4,000; power 10.2 kW × 1.5 × $0.0895 = $1.36935 an hour.
    assert round(rate.capital_usd_per_year, 2) == 81_518.62
    assert rate.colo_usd_per_year == pytest.approx(18_360.0)
    assert rate.staff_usd_per_year == pytest.approx(4_000.0)
    assert rate.power_usd_per_hour == pytest.approx(1.36935)
    # (81,518.62 + 18,360 + 4,000) / 8,760 h + 1.36935 = 11.85829 + 1.36935 = $13.23 an hour,
    # $1.65 per accelerator-hour.
    assert round(rate.usd_per_server_hour, 2) == 13.23
    assert round(rate.usd_per_accelerator_hour, 2) == 1.65
    # Running it: (18,360 + 4,000) / 12 + 1.36935 × 730 = 1,863.33 + 999.63 = $2,862.96 a month.
    assert round(rate.running_usd_per_month, 2) == 2_862.96
    # Against $55.04/h (40,179.20 a month): 270,000 / (40,179.20 − 2,862.96) = 7.24 months.
    assert round(break_even_months(rate, 55.04), 2) == 7.24
    # A cloud option cheaper than running the server never pays the server back.
    assert break_even_months(rate, 3.0) is None
    # Its confidence is its weakest sourced input's; every input is named with its source.
    assert rate.confidence == "medium"
    names = [i.name for i in rate.inputs]
    assert {"server capex", "server power", "electricity", "PUE", "colocation fee"} <= set(names)
    assert "a test sheet" in rate.source_note


def _quote(source: str, confidence: str, **kw) -> list[dict]:
    rows = sweep(**kw)
    for row in rows:
        row.update(price_source=source, price_confidence=confidence)
    return rows


def test_break_even_is_against_the_cheapest_approved_option_per_gpu_quotes_included():
    # An 8-GPU instance at $80/h, the same instance reserved at $50/h, one GPU at $3.90/h from a
    # per-GPU seller (8 × 3.90 = $31.20/h for the server's eight), a cheaper per-GPU seller that
    # is not approved, and spot (which can be taken back) at $10/h.
    table = OptionTable.from_frame(
        frame(
            _quote("a list price", "low", usd_per_hour=80.0),
            _quote("a reservation", "high", usd_per_hour=50.0, pricing_model="reserved_1y"),
            _quote(
                "a GPU seller's page",
                "medium",
                provider="crusoe",
                region="global",
                instance_type="H100 (per GPU)",
                usd_per_hour=3.90,
                accelerator_count=1,
                accelerators_per_replica=1,
                price_basis="per_accelerator",
            ),
            _quote(
                "elsewhere",
                "medium",
                provider="cheapo",
                region="global",
                instance_type="H100 (per GPU)",
                usd_per_hour=2.0,
                accelerator_count=1,
                accelerators_per_replica=1,
                price_basis="per_accelerator",
            ),
            _quote("spot", "high", usd_per_hour=10.0, pricing_model="spot"),
        )
    )
    rate = owned_rate(SERVER, PARAMS, POWER)
    found = cloud_alternatives(table.options, rate, ["aws", "crusoe"])
    assert [(a.pricing_model, a.option.provider) for a in found] == [
        ("on_demand", "crusoe"),
        ("reserved_1y", "aws"),
    ]
    cheapest = found[0]
    assert isinstance(cheapest, CloudAlternative)
    assert cheapest.usd_per_server_hour == pytest.approx(8 * 3.90)
    assert cheapest.usd_per_accelerator_hour == pytest.approx(3.90)
    assert "per accelerator-hour × 8 accelerators" in cheapest.basis
    # 270,000 / (31.20 × 730 − 2,862.96) = 270,000 / 19,913.04 = 13.56 months, not the 7.24
    # months the $80 instance would suggest.
    assert cheapest.break_even_months == pytest.approx(270_000 / (31.2 * 730 - 2_862.96), abs=0.01)
    assert round(cheapest.break_even_months, 2) == 13.56
    # The price keeps its source and confidence for the reader.
    assert (cheapest.option.price_source, cheapest.option.price_confidence) == (
        "a GPU seller's page",
        "medium",
    )
    # Every provider approved: the cheaper seller wins.
    assert cloud_alternatives(table.options, rate, None)[0].option.provider == "cheapo"


def test_the_bundled_sheets_load_with_sources_dates_and_confidence():
    servers = owned_servers()
    assert {s.server_id for s in servers} >= {"dgx-h100", "mi300x-8gpu"}
    for s in servers:
        for figure in (s.capex, s.power_kw):
            assert figure.source_url.startswith("https://")
            assert figure.as_of
            assert figure.confidence in ("low", "medium", "high")
    power = electricity_prices()
    assert all(0.01 < e.usd_per_kwh < 1.0 and e.source_url.startswith("https://") for e in power)
    virginia = electricity_input(PARAMS, power, "aws")
    assert virginia.value == pytest.approx(0.0895)
    assert "2023" in virginia.as_of


def test_a_site_without_an_electricity_price_or_an_unknown_server_is_a_clear_error():
    with pytest.raises(ValueError, match=r"owned.site_region.*usd_per_kwh"):
        electricity_input(OwnedParams(**{**PARAMS.__dict__, "site_region": "mars-1"}), [])
    stated = OwnedParams(**{**PARAMS.__dict__, "site_region": "mars-1", "usd_per_kwh": 0.2})
    assert electricity_input(stated, []).value == 0.2
    with pytest.raises(ValueError, match="owned.servers: nope"):
        owned_rates([SERVER], OwnedParams(**{**PARAMS.__dict__, "servers": ("nope",)}), POWER)


def test_an_owned_server_takes_the_operating_points_of_the_same_hardware():
    table = OptionTable.from_frame(OPTIONS)
    rate = owned_rate(SERVER, PARAMS, POWER)
    extra = owned_options(table, [rate], "us-east-1")
    # Two configurations run on 8x H100 instances (70B and 8B); MI300X ones are not this server.
    assert len(extra) == 2
    assert {o.pricing_model for o in extra} == {OWNED}
    assert {o.accelerator_id for o in extra} == {"nvidia-h100-sxm-80gb"}
    assert all(o.usd_per_unit_hour == pytest.approx(rate.usd_per_server_hour) for o in extra)
    grown = table.with_options(extra)
    assert len(grown) == len(table) + 2
    # The existing options keep their points; the new ones carry the cloud instance's points.
    for i in range(len(table)):
        lo, hi = table.offsets[i], table.offsets[i + 1]
        assert list(grown.pt_tok_s[lo:hi]) == list(table.pt_tok_s[lo:hi])
    source = next(i for i, o in enumerate(table.options) if o.config_key == extra[0].config_key)
    new = len(table)
    assert list(grown.pt_tok_s[grown.offsets[new] : grown.offsets[new + 1]]) == list(
        table.pt_tok_s[table.offsets[source] : table.offsets[source + 1]]
    )


def _owned_planner(allow: bool) -> tuple[WorkspaceEngine, tuple]:
    data = workspace(
        constraints={"max_vendor_share": 1.0, "providers": ["aws", "oci"], "allow_owned": allow},
        owned=OWNED_TERMS,
    )
    ws = workspace_from_dict(data)
    engine, owned = with_owned(
        Engine.from_frame(OPTIONS), ws, owned_servers(), electricity_prices()
    )
    return WorkspaceEngine(engine, PlanContext(ws)), owned


def test_the_optimizer_buys_owned_servers_only_when_the_workspace_allows_them():
    planner, owned = _owned_planner(False)
    assert owned == ()
    assert not any(c.pricing_model == OWNED for c in workspace_problem(planner).candidates)
    without = solve(workspace_problem(planner), mip_rel_gap=0.0)

    planner, owned = _owned_planner(True)
    problem = workspace_problem(planner)
    mine = [c for c in problem.candidates if c.pricing_model == OWNED]
    assert mine and all(c.kind == "held" and c.provider == "owned" for c in mine)
    assert all(c.note.endswith(OWNED_NOTE) for c in mine)
    got = solve(problem, mip_rel_gap=0.0)
    # More ways to buy never cost more; at about $13/server-hour against $80 the servers win.
    assert got.objective_usd_per_month <= without.objective_usd_per_month + 0.01
    assert any(ch.candidate.pricing_model == OWNED and any(ch.units) for ch in got.choices)
    # Each server is shown beside the cheapest approved cloud instance with its accelerators.
    (comparison,) = owned
    model, option, usd, months, *_ = comparison.cloud[0]
    assert (option.provider, option.instance_type, usd) == ("aws", "p5.48xlarge", 80.0)
    assert months == pytest.approx(break_even_months(comparison.rate, 80.0))


def test_the_workspace_validates_and_round_trips_its_owned_terms():
    data = workspace(constraints={"allow_owned": True}, owned=OWNED_TERMS)
    ws = workspace_from_dict(data)
    assert ws.constraints.allow_owned and ws.owned is not None
    assert ws.owned.servers == ("dgx-h100",)
    assert workspace_from_dict(workspace_to_dict(ws)) == ws
    with pytest.raises(WorkspaceError, match="constraints.allow_owned"):
        workspace_from_dict(workspace(constraints={"allow_owned": True}))
    with pytest.raises(WorkspaceError, match="constraints.allow_owned"):
        workspace_from_dict(workspace(constraints={"allow_owned": "yes"}))
    with pytest.raises(WorkspaceError, match=r"owned.pue"):
        workspace_from_dict(workspace(owned={**OWNED_TERMS, "pue": 0.5}))
    with pytest.raises(WorkspaceError, match=r"owned.servers_per_fte: is required"):
        terms = {k: v for k, v in OWNED_TERMS.items() if k != "servers_per_fte"}
        workspace_from_dict(workspace(owned=terms))
    with pytest.raises(WorkspaceError, match=r"owned: unknown field\(s\) tdp"):
        workspace_from_dict(workspace(owned={**OWNED_TERMS, "tdp": 1}))


def test_electricity_rows_cover_the_regions_the_bundled_prices_use_for_h100_and_mi300x():
    regions = {(e.provider, e.region) for e in electricity_prices()}
    assert ("aws", "us-east-1") in regions and ("azure", "northcentralus") in regions
    assert all(isinstance(e, ElectricityPrice) for e in electricity_prices())
