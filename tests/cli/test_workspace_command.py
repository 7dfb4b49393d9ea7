"""``tokendesk workspace import | export | versions`` and ``tokendesk scenarios``."""

from __future__ import annotations

import json
import re
import shutil

import pytest
import yaml
from typer.testing import CliRunner

from audit.report import summarise, to_json
from audit.rules import load_rules
from audit.scan import scan
from cli.main import app
from cli.workspace_command import register
from planning import workspaces as pw
from planning.optimal_plan import optimize
from tests.factories import content_digest
from tests.workspace_data import EXAMPLE, LINE_FIELDS, example_stay, list_price
from tokendesk.paths import REPO_ROOT
from warehouse import Warehouse
from warehouse.workspace_versions import current_workspace, workspace_versions

register(app)
runner = CliRunner()
FIELDS = {
    "name",
    "requested_allocation",
    "achieved_allocation",
    "feasible",
    "unserved_tokens_per_month",
    "monthly_usd",
    "monthly_usd_by_month",
    "one_time_usd",
    "payback_month",
    "fleet",
    "risk",
    "timeline",
}


@pytest.fixture(scope="module")
def db(tmp_path_factory):
    path = tmp_path_factory.mktemp("ws") / "cli.duckdb"
    assert runner.invoke(app, ["db", "init", "--db", str(path)]).exit_code == 0
    return path


def test_the_example_workspace_is_stored_when_the_warehouse_is_built(db):
    with Warehouse.open(db, read_only=True) as wh:
        version, body = current_workspace(wh)
    assert version == 1
    assert body == json.loads(json.dumps(yaml.safe_load(EXAMPLE.read_text()), default=str))


def test_scenarios_json_has_the_contract_fields_and_the_stay_sum(db):
    out = runner.invoke(
        app, ["scenarios", "--db", str(db), "--workspace", str(EXAMPLE), "--format", "json"]
    )
    assert out.exit_code == 0, out.output
    rows = json.loads(out.stdout)
    assert [r["name"] for r in rows] == ["Stay", "Shift 25% to AMD", "Add CPU fallback", "Optimal"]
    # Every plan carries its verdict and the traffic each vendor carries; the optimal fleet (its
    # month-1 plan, no curve) is the last row.
    for row in rows:
        assert {"decision", "compared_usd_per_month", "allocation_by_vendor", "fleet"} <= set(row)
    rows = rows[:-1]
    for row in rows:
        assert set(row) >= FIELDS
        assert len(row["monthly_usd_by_month"]) == 36
        assert all(set(line) >= LINE_FIELDS for line in row["fleet"])
    stay = rows[0]
    assert stay["monthly_usd"] == example_stay(db)
    assert stay["feasible"] and stay["payback_month"] is None


def test_the_example_shift_checked_by_hand(db, tmp_path):
    # Measured results only (estimated capacity would serve routing-8b on AMD too).
    body = yaml.safe_load(EXAMPLE.read_text())
    body["constraints"]["allow_estimates"] = False
    path = tmp_path / "measured_only.yaml"
    path.write_text(yaml.safe_dump(body))
    out = runner.invoke(
        app, ["scenarios", "--db", str(db), "--workspace", str(path), "--format", "json"]
    )
    stay, shift = json.loads(out.stdout)[:2]
    # 25% of chat-70b (150 of 170 billion output tokens) moves; routing-8b has no AMD result.
    assert shift["requested_allocation"] == {"cuda": 0.75, "rocm": 0.25}
    assert shift["achieved_allocation"]["rocm"] == pytest.approx(0.25 * 150 / 170, abs=1e-6)
    # The moved share frees whole p5s only: floor(25% of 7 units) = 1, an on-demand one.
    fleet = {(ln["role"], ln["instance_type"], ln["pricing_model"]): ln for ln in shift["fleet"]}
    assert fleet[("fleet", "p5.48xlarge", "on_demand")]["count"] == 1
    assert fleet[("fleet", "p5.48xlarge", "reserved_1y")]["count"] == 5
    new = next(ln for ln in shift["fleet"] if ln["role"] == "new")
    assert shift["monthly_usd"] == pytest.approx(
        stay["monthly_usd"] - list_price(db, "p5.48xlarge") * 730 + new["monthly_usd"], abs=0.01
    )
    # rocm bring-up: 12 engineer-weeks × $5,000 + 2 certification runs × $2,500.
    assert shift["one_time_usd"] == 65_000
    # Nothing changes before the cut-over month; payback is read from the two curves.
    cut = shift["timeline"]["cutover_month"]
    assert shift["monthly_usd_by_month"][: cut - 1] == stay["monthly_usd_by_month"][: cut - 1]
    cumulative, payback = -shift["one_time_usd"], None
    for m, (a, b) in enumerate(
        zip(stay["monthly_usd_by_month"], shift["monthly_usd_by_month"], strict=True), start=1
    ):
        cumulative += a - b
        if payback is None and cumulative >= 0:
            payback = m
    assert shift["payback_month"] == payback


def test_scenarios_table_and_markdown_show_the_same_figures(db):
    md = runner.invoke(app, ["scenarios", "--db", str(db), "--format", "md"])
    assert md.exit_code == 0, md.output
    # The same month-1 figure: whole dollars in the Markdown brief (which escapes its dollar
    # signs), to the cent in the terminal table.
    stay = example_stay(db)
    # The achieved allocation is a column of the brief's table (a shortfall sentence says
    # "achieved" too, but only where a move falls short of what it asks).
    assert f"${stay:,.0f}" in md.stdout.replace("\\$", "$") and "| Achieved |" in md.stdout
    table = runner.invoke(
        app, ["scenarios", "--db", str(db), "--format", "table"], env={"COLUMNS": "250"}
    )
    assert table.exit_code == 0 and f"${stay:,.2f}" in table.stdout


def test_the_scenario_brief_carries_optimal_and_the_price_of_diversification(db):
    md = runner.invoke(app, ["scenarios", "--db", str(db), "--format", "md"])
    assert md.exit_code == 0, md.output
    with Warehouse.open(db, read_only=True) as wh:
        _, ws = pw.stored_workspace(wh)
        engine = pw.engine_for(wh)
    want = optimize(engine, ws, pw.Knobs())
    text = md.stdout.replace("\\$", "$")  # markdown escapes dollar signs
    assert "## Optimal" in text and "## Price of diversification" in text
    # The same optimum and saving as ``tokendesk optimize`` and the Scenarios page.
    assert f"Optimal: ${want.solution.objective_usd_per_month:,.0f}/month" in text
    assert f"saving ${want.saving_vs_stay:,.0f}/month" in text
    for point in want.frontier:
        if point.feasible:
            assert f"cap {point.max_vendor_share:.0%}, HHI {point.hhi:,.0f}" in text


def test_a_custom_plan_that_serves_nothing_is_infeasible_and_not_cheapest(db):
    out = runner.invoke(
        app, ["scenarios", "--db", str(db), "--custom", "hpu:1", "--format", "json"]
    )
    rows = json.loads(out.stdout)
    hpu = next(r for r in rows if r["name"].startswith("Custom"))
    assert hpu["name"] == "Custom: Intel Gaudi 100%"
    assert hpu["feasible"] is False and hpu["unserved_tokens_per_month"] > 0
    assert hpu["cheapest"] is False and hpu["payback_month"] is None


def test_one_time_cost_is_an_explicit_input(db):
    out = runner.invoke(
        app, ["scenarios", "--db", str(db), "--one-time", "rocm=1000000", "--format", "json"]
    )
    shift = json.loads(out.stdout)[1]
    assert shift["one_time_usd"] == 1_000_000


def test_import_export_round_trip_appends_a_version(db, tmp_path):
    body = yaml.safe_load(EXAMPLE.read_text())
    body["fleet"][2]["count"] = 20
    path = tmp_path / "mine.yaml"
    path.write_text(yaml.safe_dump(body))
    out = runner.invoke(app, ["workspace", "import", str(path), "--db", str(db)])
    assert out.exit_code == 0, out.output
    exported = runner.invoke(app, ["workspace", "export", "--db", str(db)])
    assert yaml.safe_load(exported.stdout)["fleet"][2]["count"] == 20
    old = runner.invoke(app, ["workspace", "export", "--version", "1", "--db", str(db)])
    assert yaml.safe_load(old.stdout)["fleet"][2]["count"] == 15
    with Warehouse.open(db, read_only=True) as wh:
        assert list(workspace_versions(wh).version)[:2] == [2, 1]


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (lambda b: b["fleet"][0].update(count="six"), "fleet[0].count"),
        (lambda b: b["demand"][0].update(peak_to_mean=24), "demand[0].peak_to_mean"),
        (lambda b: b["fleet"][1].update(instance_type="p9.huge"), "fleet[1].usd_per_hour"),
    ],
)
def test_a_bad_file_is_rejected_naming_the_field_and_the_warehouse_is_unchanged(
    db, tmp_path, change, message
):
    body = yaml.safe_load(EXAMPLE.read_text())
    change(body)
    path = tmp_path / "bad.yaml"
    path.write_text(yaml.safe_dump(body))
    with Warehouse.open(db, read_only=True) as wh:
        before = content_digest(wh)
    out = runner.invoke(app, ["workspace", "import", str(path), "--db", str(db)])
    assert out.exit_code == 2
    assert "bad.yaml" in out.output and message in out.output
    assert "unchanged" in out.output
    with Warehouse.open(db, read_only=True) as wh:
        assert content_digest(wh) == before


def test_a_loosely_written_instance_is_refused_naming_the_line_from_1_with_the_nearest_type(
    db, tmp_path
):
    body = yaml.safe_load(EXAMPLE.read_text())
    body["fleet"][1].update(provider="azure", region="eastus", instance_type="ND96isr MI300X v5")
    path = tmp_path / "mine.yaml"
    path.write_text(yaml.safe_dump(body))
    out = runner.invoke(app, ["workspace", "import", str(path), "--db", str(db)])
    assert out.exit_code == 2
    text = " ".join(out.output.split())
    assert (
        "mine.yaml: Fleet line 2 (ND96isr MI300X v5), $/hour (effective) (at fleet[1].usd_per_hour):"
        " no current on demand list price for ND96isr MI300X v5 in azure eastus; give the rate"
        " you pay — did you mean Standard_ND96isr_MI300X_v5?"
    ) in text


def test_a_scenarios_link_gives_the_page_figures_and_every_brief_format(db, tmp_path):
    link = "http://localhost:8501/scenarios?amd=0.4&slo=900"
    out = runner.invoke(app, ["scenarios", "--db", str(db), "--link", link, "--format", "json"])
    assert out.exit_code == 0, out.output
    assert [r["name"] for r in json.loads(out.stdout)][1] == "Shift 40% to AMD"
    for fmt in ("md", "html", "pdf", "xlsx", "csv"):
        target = tmp_path / f"brief.{fmt}"
        done = runner.invoke(
            app, ["scenarios", "--db", str(db), "--link", link, "--format", fmt, "-o", str(target)]
        )
        assert done.exit_code == 0, done.output
        assert target.stat().st_size > 200
    bad = runner.invoke(app, ["scenarios", "--db", str(db), "--link", "http://x/scenarios?peak=24"])
    assert bad.exit_code == 2 and "Ignored peak='24'" in bad.output


def test_an_audit_kept_in_the_workspace_sets_the_shift_one_time_cost(tmp_path):
    path = tmp_path / "audited.duckdb"
    assert runner.invoke(app, ["db", "init", "--db", str(path)]).exit_code == 0
    repo = REPO_ROOT / "tests" / "fixtures" / "real" / "audit" / "llm.c"
    report = to_json(summarise(scan(repo, load_rules())))  # what `tokendesk audit` prints
    rocm = report["backends"]["rocm"]["engineer_weeks"]["base"]
    before = runner.invoke(app, ["scenarios", "--format", "json", "--db", str(path)])
    stored = runner.invoke(app, ["workspace", "audit", str(repo), "--db", str(path)])
    assert stored.exit_code == 0, stored.output
    assert "Stored workspace version 2 with the audit (from the audit of llm.c" in stored.output
    after = runner.invoke(app, ["scenarios", "--format", "json", "--db", str(path)])
    shift_before, shift_after = json.loads(before.stdout)[1], json.loads(after.stdout)[1]
    assert shift_before["one_time_usd"] == 12 * 5000 + 2 * 2500  # the default rocm estimate
    assert shift_after["one_time_usd"] == pytest.approx(rocm * 5000 + 2 * 2500)
    exported = yaml.safe_load(runner.invoke(app, ["workspace", "export", "--db", str(path)]).stdout)
    assert exported["audit"]["backends"]["rocm"]["engineer_weeks"]["base"] == rocm


def test_a_bad_audit_leaves_the_warehouse_unchanged(db, tmp_path):
    bad = tmp_path / "audit.json"
    bad.write_text(json.dumps({"basis": "x", "backends": {"rocm": {"engineer_weeks": {}}}}))
    with Warehouse.open(db, read_only=True) as wh:
        digest = content_digest(wh)
    out = runner.invoke(app, ["workspace", "audit", str(bad), "--db", str(db)])
    assert out.exit_code == 2
    assert "audit.backends.rocm.engineer_weeks" in out.output and "unchanged" in out.output
    with Warehouse.open(db, read_only=True) as wh:
        assert content_digest(wh) == digest


def test_the_scenarios_brief_opens_with_the_decision_and_links_back_to_its_view(
    db, tmp_path, monkeypatch
):
    from urllib.parse import parse_qsl, urlparse

    from briefs.render import csv_table

    for name in ("TOKENDESK_PUBLIC_URL", "TOKENDESK_BASE_URL"):  # no address set
        monkeypatch.delenv(name, raising=False)
    link = "http://localhost:8501/scenarios?amd=0.4&slo=900"
    md = runner.invoke(app, ["scenarios", "--db", str(db), "--link", link, "--format", "md"])
    assert md.exit_code == 0, md.output
    text = md.stdout
    sections = [line for line in text.splitlines() if line.startswith("## ")]
    assert sections[0] == "## Decision"
    decision = text.split("## Decision", 1)[1].split("\n## ", 1)[0]
    # One sentence per plan: Stay, the two moves and the optimal fleet.
    assert sum(decision.count(f"- {w} ") for w in ("KEEP", "BUY", "NO-BUY", "DEFER")) == 4
    assert "**Top risks**" in decision and "**Timeline**" in decision
    assert ".duckdb" not in text and str(db) not in text
    view = next(line for line in text.splitlines() if "dashboard view" in line)
    url = view.split("<", 1)[1].rstrip(">")
    # No address is set: the link is on the address of the --link the view came from.
    assert url.startswith("http://localhost:8501/scenarios?") and "optimal=true" in url
    # The link reproduces the comparison: same figures as the link it came from.
    again = runner.invoke(app, ["scenarios", "--db", str(db), "--link", url, "--format", "json"])
    first = runner.invoke(app, ["scenarios", "--db", str(db), "--link", link, "--format", "json"])
    assert json.loads(again.stdout) == json.loads(first.stdout)
    assert dict(parse_qsl(urlparse(url).query))["amd"] == "0.4"

    raw = runner.invoke(app, ["scenarios", "--db", str(db), "--link", link, "--format", "csv"])
    head = dict(line.split(",", 1) for line in raw.stdout.split("\n\n", 1)[0].splitlines())
    assert head["title"] == "Scenarios for Example Corp" and head["dashboard view"] == url
    assert head["workspace"] == "Example Corp" and head["generated"].endswith("UTC")
    frame = csv_table(raw.stdout_bytes)
    results = json.loads(first.stdout)
    lines, totals = frame[frame["row"] == "line"], frame[frame["row"] == "total"]
    assert len(lines) == sum(len(r["fleet"]) for r in results)
    for r in results:
        cents = round(lines.loc[lines["scenario"] == r["name"], "monthly_usd"].sum() * 100)
        total = totals.loc[totals["scenario"] == r["name"], "monthly_usd"].item()
        assert cents == round(total * 100) == round(r["monthly_usd"] * 100), r["name"]
        sentence = next(ln for ln in decision.splitlines() if f" {r['name']}: " in ln)
        assert f"\\${total:,.0f} run rate at month 1" in sentence
        compared = r["compared_usd_per_month"]
        assert f"{r['name']}: \\${compared:,.0f}/month as compared" in sentence

    monkeypatch.chdir(tmp_path)
    pdf = runner.invoke(app, ["scenarios", "--db", str(db), "--link", link, "--format", "pdf"])
    assert pdf.exit_code == 0, pdf.output
    from briefs.document import slug

    chosen = re.search(r"^- (?:BUY|KEEP) (.+?): ", decision, flags=re.M).group(1)
    (written,) = tmp_path.glob("brief-*.pdf")
    assert re.fullmatch(rf"brief-\d{{4}}-\d{{2}}-\d{{2}}-{slug(chosen)}\.pdf", written.name)


@pytest.mark.skipif(
    shutil.which("soffice") is None,
    reason="LibreOffice (soffice) is not installed: scripts/setup.sh --dev installs "
    "libreoffice-calc-nogui; without it the workbook's formulas cannot be recalculated here",
)
def test_the_scenarios_workbook_recalculates_to_the_page_figures(db, tmp_path):
    import subprocess

    from openpyxl import load_workbook

    link = "http://localhost:8501/scenarios?amd=0.4&slo=900"
    target = tmp_path / "brief.xlsx"
    done = runner.invoke(
        app, ["scenarios", "--db", str(db), "--link", link, "--format", "xlsx", "-o", str(target)]
    )
    assert done.exit_code == 0, done.output
    results = json.loads(
        runner.invoke(
            app, ["scenarios", "--db", str(db), "--link", link, "--format", "json"]
        ).stdout
    )
    subprocess.run(
        [
            shutil.which("soffice"),
            f"-env:UserInstallation=file://{tmp_path}/lo-profile",
            "--headless",
            "--calc",
            "--convert-to",
            "xlsx",
            "--outdir",
            str(tmp_path / "out"),
            str(target),
        ],
        check=True,
        capture_output=True,
        timeout=180,
    )
    formulas = load_workbook(target)
    values = load_workbook(tmp_path / "out" / "brief.xlsx", data_only=True)
    assert formulas.sheetnames[:3] == ["Decision", "Assumptions", "Cost model"]
    ws, live = values["Decision"], formulas["Decision"]
    top = next(r for r in range(1, ws.max_row + 1) if ws.cell(r, 1).value == "option")
    header = [c.value for c in ws[top]]
    j = header.index("$/month (month 1)") + 1
    for offset, r in enumerate(results, start=1):
        assert ws.cell(top + offset, 1).value == r["name"]
        assert str(live.cell(top + offset, j).value).startswith("='Cost model'!")
        assert round(ws.cell(top + offset, j).value, 2) == r["monthly_usd"], r["name"]


def test_the_scenarios_pdf_holds_the_decision_of_four_options_on_page_one(db, tmp_path):
    from pypdf import PdfReader

    link = "http://localhost:8501/scenarios?amd=0.4&custom=cuda:0.5,rocm:0.5"
    target = tmp_path / "brief.pdf"
    done = runner.invoke(
        app, ["scenarios", "--db", str(db), "--link", link, "--format", "pdf", "-o", str(target)]
    )
    assert done.exit_code == 0, done.output
    first = re.sub(r"\s+", "", PdfReader(target).pages[0].extract_text())
    assert "Toprisks" in first and "Timeline" in first
    for name in ("Stay", "Shift40%toAMD", "AddCPUfallback", "Custom:NVIDIA50%/AMD50%"):
        assert first.count(name + ":") >= 3, name
