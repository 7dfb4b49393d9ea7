"""``tokendesk optimize`` on the bundled example workspace and warehouse."""

from __future__ import annotations

import json
import re

import pytest
from typer.testing import CliRunner

from cli.main import app
from cli.optimize_command import register
from planning import workspaces as pw
from tests.workspace_data import EXAMPLE, LINE_FIELDS, example_stay

register(app)
runner = CliRunner()


@pytest.fixture(scope="module")
def db(tmp_path_factory):
    path = tmp_path_factory.mktemp("opt") / "cli.duckdb"
    assert runner.invoke(app, ["db", "init", "--db", str(path)]).exit_code == 0
    return path


@pytest.fixture(scope="module")
def example_json(db):
    out = runner.invoke(
        app, ["optimize", "--db", str(db), "--workspace", str(EXAMPLE), "--format", "json"]
    )
    assert out.exit_code == 0, out.output
    return json.loads(out.stdout)


def test_optimize_json_beats_every_built_in_that_meets_the_constraints(db, example_json):
    body = example_json
    # Proven: the plan costs what the bound says no plan can beat.
    assert body["solver_status"] == "optimal" and body["proven_optimal"] is True
    assert body["objective_usd_per_month"] - body["bound_usd_per_month"] <= 0.01
    assert all(set(line) >= LINE_FIELDS for line in body["fleet"])
    # The objective is the sum of its lines (idle committed units still paid are lines too)
    # plus one-time cost over 36 months.
    lines = sum(line["monthly_usd"] for line in body["fleet"])
    assert body["one_time_usd_per_month"] == pytest.approx(body["one_time_usd"] / 36, abs=0.01)
    assert body["objective_usd_per_month"] == pytest.approx(
        lines + body["one_time_usd"] / 36, abs=0.05
    )
    # Stay is priced the same way by both commands: count × rate × 730.
    assert body["stay_usd_per_month"] == pytest.approx(example_stay(db), abs=0.01)
    for s in body["builtin_scenarios"]:
        if s["feasible"] and not s["constraint_violations"]:
            assert body["objective_usd_per_month"] <= s["comparable_usd_per_month"] + 0.01
    # The workspace caps any vendor at 80% of traffic; approved providers only.
    assert max(body["vendor_shares"].values()) <= 0.8 + 1e-6
    approved = {"aws", "azure", "gcp", "oci", "crusoe"}
    assert {line["provider"] for line in body["fleet"]} <= approved
    # The 5 reserved p5s are paid until mid-2027 whatever happens: all are on the plan, kept or
    # (where the fleet's capacity read at the workload's shape needs fewer) idle and still paid.
    reserved = [ln for ln in body["fleet"] if ln["pricing_model"] == "reserved_1y"]
    assert sum(ln["count"] for ln in reserved) == 5
    frontier = [p for p in body["diversification_frontier"] if p["objective_usd_per_month"]]
    costs = [p["objective_usd_per_month"] for p in frontier]
    assert costs == sorted(costs)


def test_the_plan_can_be_checked_by_hand_hour_by_hour(example_json):
    body = example_json
    loads = body["load_by_hour"]
    assert set(loads) == {"chat-70b", "routing-8b"}
    for w, load in loads.items():
        mine = [ln for ln in body["fleet"] if ln["workload"] == w]
        for h, need in enumerate(load):
            carried = sum(ln["count_by_hour"][h] * ln["output_tok_s_per_count"] for ln in mine)
            assert carried >= need - 1e-3 * need, (w, h)
    for ln in body["fleet"]:
        assert len(ln["count_by_hour"]) == 24
        # No line says "kept" with nothing kept, and every count is what the line pays for.
        if ln["allocation"].endswith("kept"):
            assert ln["count"] > 0 and ln["count_by_hour"] == [ln["count"]] * 24
        if ln["allocation"].endswith("released"):
            assert ln["count"] == 0 and ln["monthly_usd"] == 0
        if ln["role"] == "new" and ln["pricing_model"] == "on_demand":
            # On demand by the hour: the counts × the rate × 730 h ÷ 24 hours.
            assert max(ln["count_by_hour"]) == ln["count"]
            expected = sum(ln["count_by_hour"]) * ln["usd_per_hour"] * 730 / 24
            assert ln["monthly_usd"] == pytest.approx(expected, abs=0.02)
        elif ln["count"]:
            assert ln["monthly_usd"] == pytest.approx(
                ln["count"] * ln["usd_per_hour"] * 730, abs=0.02
            )


def test_doubled_demand_is_solved_without_forcing_equal_hours_to_one_count(db, tmp_path):
    """The example with twice the demand, on-demand capacity autoscaled: $189,262.92 is a plan an
    independent MILP found (``tests.optimizer_reference.reference_milp``, 600 s, equal hours
    with different unit counts; its proven lower bound then was $187,786.25), so no proven
    bound may pass it; the optimizer's own plan is checked apart from the solver."""
    from costmodel.optimizer import solve
    from costmodel.optimizer_workspace import workspace_problem
    from costmodel.plan import WorkspaceEngine
    from costmodel.plan_inputs import PlanContext
    from tests.optimizer_reference import checked_plan_cost
    from warehouse import Warehouse

    text = re.sub(
        r"(_tokens_per_month: )([0-9.]+e9)",
        lambda m: f"{m[1]}{2 * float(m[2]):.0f}",
        EXAMPLE.read_text(encoding="utf-8"),
    )
    # Hour-by-hour unit counts matter where on-demand capacity follows the load.
    text += "on_demand_basis: autoscaled\n"
    doubled = tmp_path / "doubled.yaml"
    doubled.write_text(text, encoding="utf-8")
    ws, _ = pw.read_workspace_file(doubled)
    assert ws.demand[0].output_tokens_per_month == 300e9
    assert ws.demand[1].output_tokens_per_month == 40e9
    with Warehouse.open(db, read_only=True) as wh:
        engine = pw.engine_for(wh)
    problem = workspace_problem(WorkspaceEngine(engine, PlanContext(ws)))
    got = solve(problem, mip_rel_gap=0.0)
    known = 189_262.92
    assert got.bound_usd_per_month <= known + 0.01
    assert got.objective_usd_per_month <= known + 0.01
    assert got.status == "optimal"
    assert checked_plan_cost(problem, got.choices) == pytest.approx(
        got.objective_usd_per_month, abs=0.01
    )
    # Within the default tolerance the plan is not called optimal unless the gap is closed.
    loose = solve(problem, mip_rel_gap=1e-3)
    assert loose.bound_usd_per_month <= known + 0.01
    assert (loose.status == "optimal") == (
        loose.objective_usd_per_month - loose.bound_usd_per_month <= 0.01
    )


def test_optimize_md(db):
    out = runner.invoke(
        app, ["optimize", "--db", str(db), "--workspace", str(EXAMPLE), "--format", "md"]
    )
    assert out.exit_code == 0, out.output
    assert "Price of diversification" in out.stdout
    # The example holds 5 reserved p5s (data/workspace_example.yaml, fleet line 1: count 5),
    # paid until mid-2027 whatever happens: all 5 are on the table, kept or idle and still paid
    # (how many carry load follows the capacity read at the workload's shape and the vendor cap).
    reserved = [
        ln.split(" | ")
        for ln in out.stdout.splitlines()
        if ln.startswith("| chat-70b | fleet: ") and "| p5.48xlarge | Reserved 1 yr |" in ln
    ]
    assert {cells[1] for cells in reserved} <= {"fleet: fleet kept", "fleet: released, still paid"}
    assert sum(int(cells[5]) for cells in reserved) == 5
    # The $/month column adds up to the headline (the one-time cost is a row of its own).
    table = [ln.split(" | ") for ln in out.stdout.splitlines() if ln.startswith("| ")][1:]
    monthly = [float(cells[-1].strip(" |").replace(",", "")) for cells in table]
    assert sum(monthly[:-1]) == pytest.approx(monthly[-1], abs=len(monthly))
    assert "None" not in out.stdout


def test_a_bad_workspace_file_is_a_clear_error(db, tmp_path):
    bad = tmp_path / "bad.yaml"
    bad.write_text("name: x\ndemand: []\n")
    out = runner.invoke(app, ["optimize", "--db", str(db), "--workspace", str(bad)])
    assert out.exit_code == 2
    assert "demand" in out.output


def test_optimize_with_owned_servers_allowed_shows_their_rate_and_break_even(
    db, tmp_path, example_json
):
    mine = tmp_path / "owned.yaml"
    text = EXAMPLE.read_text(encoding="utf-8")
    assert "allow_owned: false" in text
    mine.write_text(text.replace("allow_owned: false", "allow_owned: true"), encoding="utf-8")
    out = runner.invoke(
        app, ["optimize", "--db", str(db), "--workspace", str(mine), "--format", "json"]
    )
    assert out.exit_code == 0, out.output
    body, without = json.loads(out.stdout), example_json
    assert without["owned_hardware"] == []
    servers = {row["server"]: row for row in body["owned_hardware"]}
    approved = {"aws", "azure", "gcp", "oci", "crusoe"}
    assert set(servers) == {"dgx-h100", "mi300x-8gpu"}
    for row in servers.values():
        parts = ("capital", "power", "colo", "staff")
        total = sum(row[f"{p}_usd_per_hour"] for p in parts)
        assert row["usd_per_server_hour"] == pytest.approx(total, abs=1e-3)
        assert row["usd_per_accelerator_hour"] == pytest.approx(
            row["usd_per_server_hour"] / 8, abs=1e-4
        )
        assert all(i["source"] for i in row["inputs"])
        assert row["versus_cloud"], "each server is compared with a cloud instance"
        first = row["versus_cloud"][0]
        assert first["break_even_months"] == pytest.approx(
            row["capex_usd"] / (first["usd_per_hour"] * 730 - row["running_usd_per_month"]),
            abs=0.06,
        )
    # The MI300X server against the cheapest approved option with its accelerator: a per-GPU
    # quote × 8 GPUs, not a dearer 8-GPU instance; the price's source and confidence are shown.
    mi300x = servers["mi300x-8gpu"]["versus_cloud"]
    first = mi300x[0]
    assert first["price_basis"] == "per_accelerator"
    assert first["usd_per_hour"] == pytest.approx(8 * first["usd_per_accelerator_hour"], abs=1e-3)
    assert first["usd_per_hour"] == min(v["usd_per_hour"] for v in mi300x)
    assert first["provider"] in approved
    assert first["break_even_months"] == pytest.approx(8.9, abs=0.05)
    assert first["source"] and first["confidence"] in ("low", "medium", "high")
    assert first["as_of"]
    # More ways to buy never cost more than the cloud-only optimum.
    assert body["objective_usd_per_month"] <= without["objective_usd_per_month"] + 0.01
    owned = [ln for ln in body["fleet"] if ln["pricing_model"] == "owned"]
    assert all(ln["provider"] == "owned" for ln in owned)
    md = runner.invoke(
        app, ["optimize", "--db", str(db), "--workspace", str(mine), "--format", "md"]
    )
    assert "Owned NVIDIA DGX H100" in md.stdout and "pays back in" in md.stdout
    assert "per accelerator-hour × 8 accelerators" in md.stdout and "confidence)" in md.stdout


def test_the_brief_gains_an_owned_hardware_section_only_when_owned_servers_are_allowed(db):
    from dataclasses import replace

    from briefs.optimal import brief_sections
    from planning.optimal_plan import optimize
    from warehouse import Warehouse

    ws, _ = pw.read_workspace_file(EXAMPLE)
    with Warehouse.open(db, read_only=True) as wh:
        engine = pw.engine_for(wh)
    titles = [s.title for s in brief_sections(optimize(engine, ws))]
    assert "Owned hardware" not in titles
    allowed = replace(ws, constraints=replace(ws.constraints, allow_owned=True))
    sections = {s.title: s for s in brief_sections(optimize(engine, allowed))}
    owned = sections["Owned hardware"]
    tables = [b for b in owned.blocks if hasattr(b, "frame")]
    rates, inputs = tables
    assert list(rates.frame["server"]) == ["dgx-h100", "mi300x-8gpu"]
    # Every input of every server is listed with its source.
    assert len(inputs.frame) == 2 * 9 and inputs.frame["source"].str.len().min() > 0


def test_every_hhi_is_weighted_by_month_1_spend_and_says_so(example_json):
    """Optimal's HHI and each cap's are on every plan's basis: its fleet lines' $/month by
    vendor (committed units still paid included), not the traffic each vendor carries."""
    spend: dict[str, float] = {}
    for line in example_json["fleet"]:
        vendor = line["vendor"] or "unknown"
        spend[vendor] = spend.get(vendor, 0.0) + line["monthly_usd"]
    total = sum(spend.values())
    by_hand = sum((100 * v / total) ** 2 for v in spend.values() if v > 0)
    assert example_json["hhi"] == pytest.approx(by_hand, abs=0.5)
    assert "month-1 spend" in example_json["hhi_basis"]
    assert "tokens" in example_json["vendor_shares_basis"]
    for point in example_json["diversification_frontier"]:
        if point["hhi"] is not None:
            assert 0 < point["hhi"] <= 10_000 and "month-1 spend" in point["hhi_basis"]
