"""``tokendesk workspace from-bill``: the fleet a FOCUS bill yields, the charges it cannot place,
the reconciliation against Stay and the preview / save of a new workspace version.

The hand-made bills in tests/fixtures/bills/ are worked out by hand in that folder's README; the
real sample (tests/fixtures/real/focus/) is the FinOps Foundation's anonymised export. Every
total here is recomputed from the files with the csv module, not with the code under test.
"""

from __future__ import annotations

import csv
import gzip
import io
import json
import shutil
from datetime import date, timedelta
from pathlib import Path

import pyarrow.csv as pacsv
import pyarrow.parquet as pq
import pytest
import yaml
from typer.testing import CliRunner

from cli.main import app
from cli.workspace_command import register
from costmodel.workspace_model import FLEET_COLUMNS
from planning import bill as bill_import
from planning import evaluation as pe
from planning import workspaces as pw
from tokendesk.paths import REPO_ROOT
from warehouse import Warehouse
from warehouse.workspace_versions import workspace_versions

register(app)
runner = CliRunner()
BILLS = REPO_ROOT / "tests" / "fixtures" / "bills"
AWS = BILLS / "aws_focus_1_2_gpu_fleet.csv"
AZURE = BILLS / "azure_focus_1_0_nd_h100_reservation.csv"
OCI = BILLS / "oci_focus_1_3_gpu_hours.csv"
NO_UPFRONT = BILLS / "aws_focus_1_2_no_upfront_ri.csv"
EXAMPLE = REPO_ROOT / "data" / "workspace_example.yaml"
SAMPLE = REPO_ROOT / "tests" / "fixtures" / "real" / "focus" / "focus_sample.csv.gz"
#: What a line of the JSON's fleet holds besides the workspace's fields: what the bill billed for
#: it, its usage and its commitment's fees apart, and whether it comes from the bill or is kept.
BILLED = ["billed_usd", "usage_billed_usd", "commitment_fees_usd", "origin"]


@pytest.fixture(scope="module")
def db(tmp_path_factory):
    path = tmp_path_factory.mktemp("bill") / "bill.duckdb"
    assert runner.invoke(app, ["db", "init", "--db", str(path)]).exit_code == 0
    return path


_READ: dict[tuple, dict] = {}


def from_bill(db: Path, *files: Path, extra: tuple[str, ...] = ()) -> dict:
    """The command's JSON (read once per warehouse, files and options: it stores nothing)."""
    key = (db, files, extra)
    if key not in _READ:
        _READ[key] = _run(db, *files, extra=extra)
    return json.loads(json.dumps(_READ[key]))


def _run(db: Path, *files: Path, extra: tuple[str, ...] = ()) -> dict:
    out = runner.invoke(
        app,
        ["workspace", "from-bill", *map(str, files), "--db", str(db), "--format", "json", *extra],
    )
    assert out.exit_code == 0, out.output
    return json.loads(out.stdout)


def billed_total(path: Path) -> float:
    """Σ BilledCost of a bill file, read with the csv module ("NULL" cells count as nothing)."""
    opener = gzip.open if path.suffix == ".gz" else open
    with opener(path, "rt", encoding="utf-8", newline="") as handle:
        return sum(
            float(r["BilledCost"])
            for r in csv.DictReader(handle)
            if r["BilledCost"] not in ("", "NULL")
        )


def accounted(report: dict) -> float:
    """The bill's lines plus its unplaced charges (a line kept from the workspace is on no bill)."""
    return sum(ln["billed_usd"] for ln in report["fleet"] if ln["origin"] == "bill") + sum(
        u["cost_usd"] for u in report["unplaced"]
    )


def test_the_json_has_the_contract_fields(db):
    report = from_bill(db, AWS)
    assert {"fleet", "unplaced", "reconciliation"} <= set(report)
    for line in report["fleet"]:
        assert list(line) == [*FLEET_COLUMNS, *BILLED]
    for row in report["unplaced"]:
        assert set(row) == {"reason", "cost_usd", "rows"}
    assert {"bill_usd", "stay_month1_usd", "difference_usd", "explained"} <= set(
        report["reconciliation"]
    )


@pytest.mark.parametrize(
    "files", [(AWS,), (AZURE,), (OCI,), (AWS, AZURE, OCI), (SAMPLE,), (NO_UPFRONT,)]
)
def test_lines_plus_unplaced_are_the_files_total_billed_cost(db, files):
    report = from_bill(db, *files)
    total = sum(billed_total(f) for f in files)
    assert accounted(report) == pytest.approx(total, abs=1e-5)
    assert report["total_billed_usd"] == pytest.approx(total, abs=1e-5)


def test_the_hand_made_bills_give_the_fleet_worked_out_by_hand(db):
    report = from_bill(db, AWS, AZURE, OCI)
    assert report["source"]["month"] == "2026-10"
    lines = {
        (ln["provider"], ln["instance_type"], ln["pricing_model"]): ln for ln in report["fleet"]
    }
    assert set(lines) == {
        ("aws", "p5.48xlarge", "reserved_1y"),
        ("aws", "p5.48xlarge", "on_demand"),
        ("aws", "g6e.xlarge", "spot"),
        ("aws", "g5.4xlarge", "on_demand"),
        ("azure", "Standard_ND96isr_H100_v5", "reserved_3y"),
        ("oci", "BM.GPU.H100.8", "on_demand"),
    }
    ri = lines["aws", "p5.48xlarge", "reserved_1y"]
    # 3,672 used hours / 744 = 4.94 -> 5; 115,521.12 effective / 3,672 h = 31.46; the purchase
    # row runs 2026-10-01 .. 2027-10-01, so the term is one year and ends then. Its $1,377,948.00
    # upfront payment (billed in October) is the line's billed cost, listed apart from the usage.
    assert (ri["count"], ri["usd_per_hour"], ri["commitment_end"]) == (5, 31.46, "2027-10-01")
    assert (ri["billed_usd"], ri["usage_billed_usd"], ri["commitment_fees_usd"]) == (
        1377948.00,
        0.0,
        1377948.00,
    )
    od = lines["aws", "p5.48xlarge", "on_demand"]
    assert (od["count"], od["usd_per_hour"], od["billed_usd"]) == (2, 55.04, 61424.64)
    spot = lines["aws", "g6e.xlarge", "spot"]
    assert (spot["count"], spot["usd_per_hour"], spot["serves"]) == (15, 0.9, "routing-8b")
    nd = lines["azure", "Standard_ND96isr_H100_v5", "reserved_3y"]
    assert (nd["count"], nd["usd_per_hour"], nd["commitment_end"]) == (2, 63.0, None)
    # The reservation's monthly payment ($93,744.00, the purchase row) is its billed cost.
    assert (nd["billed_usd"], nd["commitment_fees_usd"]) == (93744.00, 93744.00)
    gpu = lines["oci", "BM.GPU.H100.8", "on_demand"]
    assert (gpu["count"], gpu["usd_per_hour"]) == (1, 80.0)  # 5,952 GPU-hours / 8 / 744 h
    # g5.4xlarge is priced by the market catalog: 100 hours for $162.40 -> $1.624/h, one instance
    g5 = lines["aws", "g5.4xlarge", "on_demand"]
    assert (g5["count"], g5["usd_per_hour"], g5["billed_usd"]) == (1, 1.624, 162.40)
    reasons = {u["reason"]: u["cost_usd"] for u in report["unplaced"]}
    assert not [r for r in reasons if "commitment purchases" in r]  # each fee is on its line
    assert reasons["accelerator instances in 2026-11 (the fleet is taken from 2026-10)"] == 1320.96
    assert not any("g5.4xlarge" in reason for reason in reasons)
    assert reasons["tax"] == 1234.56 and reasons["credits"] == -500.00


def test_the_reconciliation_of_the_hand_made_bills_checked_by_hand(db):
    rec = from_bill(db, AWS, AZURE, OCI)["reconciliation"]
    # Bill (EffectiveCost, idle reserved hours included): 10,044 + 61,424.64 + 115,521.12 +
    # 1,510.08 + 93,744 + 59,520 + 162.40 (g5.4xlarge). Stay: count x rate x 730 per line.
    assert rec["bill_usd"] == 341926.24
    assert rec["stay_month1_usd"] == pytest.approx(
        15 * 0.9 * 730
        + 2 * 55.04 * 730
        + 5 * 31.46 * 730
        + 2 * 63.0 * 730
        + 80.0 * 730
        + 1 * 1.624 * 730
    )
    assert rec["difference_usd"] == pytest.approx(rec["stay_month1_usd"] - rec["bill_usd"])
    by_line = {e["line"]: e for e in rec["explained"]}
    ri = by_line["5 × aws · us-east-1 · p5.48xlarge · Reserved 1 yr"]
    assert [p["usd"] for p in ri["parts"]] == [-2202.20, 1510.08, -1510.08]
    assert "idle commitment" in ri["parts"][2]["why"]
    od = by_line["2 × aws · us-east-1 · p5.48xlarge · On demand"]
    assert [p["usd"] for p in od["parts"]] == [-1541.12, 20474.88]
    spot = by_line["15 × aws · us-east-1 · g6e.xlarge · Spot"]
    assert "ran $0.8000–$1.0000/h" in spot["parts"][-1]["why"]
    for entry in rec["explained"]:
        assert sum(p["usd"] for p in entry["parts"]) == pytest.approx(
            entry["difference_usd"], abs=0.02
        )


def test_stay_comes_from_the_same_engine_as_the_scenarios(db):
    """The adapter's per-line Stay equals the fleet lines of `tokendesk scenarios`' Stay."""
    with Warehouse.open(db, read_only=True) as wh:
        report = bill_import.build_report(wh, [AWS, AZURE, OCI])
        engine = pw.engine_for(wh)
    stay = pe.compare(engine, report.workspace)[0]
    assert stay.is_baseline
    fleet_usd = sum(ln.monthly_usd for ln in stay.fleet if ln.role == "fleet")
    assert report.reconciliation.stay_month1_usd == pytest.approx(fleet_usd)


def test_the_real_sample_is_accounted_for_and_its_gpus_named(db):
    report = from_bill(db, SAMPLE)
    assert report["source"]["files"][0]["rows"] == 1000
    assert report["source"]["files"][0]["providers"] == ["AWS", "Microsoft", "Oracle"]
    assert report["source"]["month"] == "2024-09" and report["source"]["month_is_full"]
    # Its only accelerator instances are g5.4xlarge (A10G) and g3.4xlarge (M60). The market
    # catalog prices g5.4xlarge, so its 8 rows become one fleet line; g3.4xlarge (M60, in no
    # price data) is listed, not dropped and not made into a line.
    g5_rows = _sample_rows("g5.4xlarge")
    assert len(g5_rows) == 8
    (line,) = report["fleet"]
    assert (line["provider"], line["region"], line["instance_type"]) == (
        "aws",
        "us-east-1",
        "g5.4xlarge",
    )
    assert (line["count"], line["pricing_model"]) == (1, "on_demand")
    assert line["billed_usd"] == pytest.approx(sum(float(r["BilledCost"]) for r in g5_rows))
    effective = sum(float(r["EffectiveCost"]) for r in g5_rows)
    hours = sum(float(r["ConsumedQuantity"]) for r in g5_rows)
    assert line["usd_per_hour"] == pytest.approx(effective / hours, abs=1e-5)
    reasons = {u["reason"]: u for u in report["unplaced"]}
    assert not any("g5.4xlarge" in reason for reason in reasons)
    assert reasons["accelerator instance not in the price data (aws g3.4xlarge)"]["rows"] == 2
    assert sum(u["rows"] for u in report["unplaced"]) == 1000 - len(g5_rows)
    (explained,) = report["reconciliation"]["explained"]
    assert explained["line"] == "1 × aws · us-east-1 · g5.4xlarge · On demand"


def _sample_rows(instance_type: str) -> list[dict[str, str]]:
    with gzip.open(SAMPLE, "rt", encoding="utf-8", newline="") as handle:
        return [
            row
            for row in csv.DictReader(handle)
            if instance_type in (row["ChargeDescription"] or "")
        ]


def test_parquet_and_gzip_read_like_the_csv(db, tmp_path):
    parquet = tmp_path / "aws.parquet"
    table = pacsv.read_csv(AWS, convert_options=pacsv.ConvertOptions(strings_can_be_null=True))
    pq.write_table(table, parquet)
    gz = tmp_path / "aws.csv.gz"
    gz.write_bytes(gzip.compress(AWS.read_bytes()))
    base = from_bill(db, AWS)
    for other in (parquet, gz):
        got = from_bill(db, other)
        assert got["fleet"] == base["fleet"]
        assert got["unplaced"] == base["unplaced"]
        assert got["reconciliation"] == base["reconciliation"]


def test_parquet_key_value_columns_are_read_as_json(db, tmp_path):
    """A Parquet export may store SkuPriceDetails as a struct rather than JSON text."""
    import pyarrow as pa

    table = pacsv.read_csv(AWS, convert_options=pacsv.ConvertOptions(strings_can_be_null=True))
    details = [
        {"InstanceType": "g6e.xlarge", "CoreCount": 4} if text else None
        for text in table.column("SkuPriceDetails").to_pylist()
    ]
    index = table.schema.get_field_index("SkuPriceDetails")
    table = table.set_column(index, "SkuPriceDetails", pa.array(details))
    assert pa.types.is_struct(table.schema.field("SkuPriceDetails").type)
    parquet = tmp_path / "struct.parquet"
    pq.write_table(table, parquet)
    assert from_bill(db, parquet)["fleet"] == from_bill(db, AWS)["fleet"]


def test_a_bad_cell_is_named_by_file_row_and_column_and_nothing_is_stored(db, tmp_path):
    text = AWS.read_text(encoding="utf-8").replace(",252.96,252.96,252.96,", ",n/a,252.96,252.96,")
    bad = tmp_path / "bad.csv"
    bad.write_text(text, encoding="utf-8")
    before = _versions(db)
    out = runner.invoke(app, ["workspace", "from-bill", str(bad), "--db", str(db), "--save"])
    assert out.exit_code == 2
    message = " ".join(out.output.split())
    assert "bad.csv: row 9 (line 10), BilledCost: 'n/a' is not a number" in message
    assert "Traceback" not in out.output and "The warehouse is unchanged" in message
    assert _versions(db) == before


def test_a_file_that_is_not_a_bill_says_which_columns_it_lacks(db, tmp_path):
    other = tmp_path / "invoice.csv"
    other.write_text("date,service,cost\n2026-10-01,GPU,10\n", encoding="utf-8")
    out = runner.invoke(app, ["workspace", "from-bill", str(other), "--db", str(db)])
    assert out.exit_code == 2
    assert "invoice.csv: not a FOCUS cost export" in " ".join(out.output.split())
    empty = tmp_path / "empty.csv"
    empty.write_bytes(b"")
    out = runner.invoke(app, ["workspace", "from-bill", str(empty), "--db", str(db)])
    assert out.exit_code == 2 and "empty.csv: the file is empty" in out.output
    missing = runner.invoke(app, ["workspace", "from-bill", "nope.csv", "--db", str(db)])
    assert missing.exit_code == 2 and "nope.csv: file not found" in missing.output


def _versions(db: Path) -> list[int]:
    with Warehouse.open(db, read_only=True) as wh:
        return list(workspace_versions(wh)["version"])


def test_preview_stores_nothing_and_save_stores_a_version_with_its_source(db, tmp_path):
    copy = tmp_path / "save.duckdb"
    shutil.copy(db, copy)
    before = _versions(copy)
    preview = from_bill(copy, AWS)
    changes = {
        (c["change"], c["instance_type"], c["pricing_model"]) for c in preview["preview"]["changes"]
    }
    assert ("added", "g6e.xlarge", "spot") in changes
    assert ("removed", "g6e.xlarge", "on_demand") in changes
    rate = next(
        c
        for c in preview["preview"]["changes"]
        if c["pricing_model"] == "on_demand" and c["instance_type"] == "p5.48xlarge"
    )
    assert rate["details"] == ["rate list price -> $55.0400/h"]
    assert _versions(copy) == before
    saved = runner.invoke(
        app, ["workspace", "from-bill", str(AWS), "--db", str(copy), "--save", "--format", "yaml"]
    )
    assert saved.exit_code == 0, saved.output
    with Warehouse.open(copy, read_only=True) as wh:
        versions = workspace_versions(wh)
        _, ws = pw.stored_workspace(wh)
    newest = versions.iloc[0]
    assert len(versions) == len(before) + 1
    assert newest["origin"] == "bill"
    # The g5.4xlarge line (priced by the market catalog) adds its $162.40 to the spend and
    # 1 x $1.624 x 730 h = $1,185.52 to Stay.
    assert newest["source"] == (
        "bill: aws_focus_1_2_gpu_fleet.csv (2026-10); accelerator spend $188,662.24,"
        " Stay month 1 $206,227.92"
    )
    assert newest["created_by"]
    assert {(e.instance_type, e.pricing_model, e.count) for e in ws.fleet} == {
        ("p5.48xlarge", "reserved_1y", 5),
        ("p5.48xlarge", "on_demand", 2),
        ("g6e.xlarge", "spot", 15),
        ("g5.4xlarge", "on_demand", 1),
    }
    # The YAML printed is the workspace that was stored.
    assert pw.parse_workspace_text(saved.stdout, "out")[0] == ws
    # The brief says where the fleet came from and how the bill reconciled with Stay.
    brief = runner.invoke(app, ["scenarios", "--db", str(copy), "--format", "md"])
    assert brief.exit_code == 0, brief.output
    assumptions = brief.stdout.replace("\\", "").split("## Assumptions", 1)[1].split("\n## ")[0]
    assert (
        "fleet from the cloud bill: bill: aws_focus_1_2_gpu_fleet.csv (2026-10); accelerator"
        " spend $188,662.24, Stay month 1 $206,227.92" in assumptions
    )


def test_serves_must_name_a_workload(db):
    out = runner.invoke(app, ["workspace", "from-bill", str(OCI), "--db", str(db), "--serves", "x"])
    assert out.exit_code == 2 and "--serves 'x' is not a workload" in out.output
    report = from_bill(db, OCI, extra=("--serves", "routing-8b"))
    assert report["fleet"][0]["serves"] == "routing-8b"


def test_the_table_shows_the_fleet_the_reasons_and_the_reconciliation(db):
    out = runner.invoke(app, ["workspace", "from-bill", str(AWS), "--db", str(db)])
    assert out.exit_code == 0, out.output
    text = io.StringIO(out.output).read()
    for expected in ("Fleet from the bill", "Charges not placed", "Stay month 1", "Preview only"):
        assert expected in text


# ---- what the bill does not know is kept --------------------------------------------------------
def test_a_no_upfront_ri_fee_is_the_covered_lines_billed_cost(db):
    """AWS bills a No Upfront RI's usage at $0 and its fee as a recurring purchase row: the fee
    belongs to the line it covers, apart from the usage (tests/fixtures/bills/README.md)."""
    report = from_bill(db, NO_UPFRONT)
    lines = {(ln["instance_type"], ln["pricing_model"]): ln for ln in report["fleet"]}
    ri = lines["p5.48xlarge", "reserved_1y"]
    assert (ri["billed_usd"], ri["usage_billed_usd"], ri["commitment_fees_usd"]) == (
        117031.20,
        0.0,
        117031.20,
    )
    assert report["unplaced"] == []
    # The reconciliation is unchanged by it: the fee is amortised into the usage's EffectiveCost.
    explained = {e["line"]: e for e in report["reconciliation"]["explained"]}
    assert explained["5 × aws · us-east-1 · p5.48xlarge · Reserved 1 yr"]["bill_usd"] == 117031.20


def _import(db: Path, tmp_path: Path, body: dict) -> None:
    path = tmp_path / "current.yaml"
    path.write_text(yaml.safe_dump(body), encoding="utf-8")
    done = runner.invoke(app, ["workspace", "import", str(path), "--db", str(db)])
    assert done.exit_code == 0, done.output


AZURE_LINE = {
    "provider": "azure",
    "region": "eastus",
    "instance_type": "Standard_ND96isr_H100_v5",
    "count": 2,
    "pricing_model": "on_demand",
    "usd_per_hour": 63.0,  # a rate of its own: the price data has no list price for it
    "serves": "chat-70b",
}


def test_saving_over_the_example_keeps_the_commitment_end_and_the_other_providers_lines(
    db, tmp_path
):
    copy = tmp_path / "keep.duckdb"
    shutil.copy(db, copy)
    example = yaml.safe_load(EXAMPLE.read_text(encoding="utf-8"))
    _import(copy, tmp_path, {**example, "fleet": [*example["fleet"], AZURE_LINE]})
    (reserved,) = [ln for ln in example["fleet"] if ln["pricing_model"] == "reserved_1y"]
    saved = runner.invoke(
        app, ["workspace", "from-bill", str(NO_UPFRONT), "--db", str(copy), "--save"]
    )
    assert saved.exit_code == 0, saved.output
    with Warehouse.open(copy, read_only=True) as wh:
        _, ws = pw.stored_workspace(wh)
    (p5,) = [e for e in ws.fleet if e.pricing_model == "reserved_1y"]
    # The bill's monthly fee says nothing of the term's end: the example's end is kept.
    assert p5.commitment_end.isoformat() == str(reserved["commitment_end"])
    (azure,) = [e for e in ws.fleet if e.provider == "azure"]
    assert (azure.instance_type, azure.count, azure.usd_per_hour) == (
        AZURE_LINE["instance_type"],
        2,
        63.0,
    )


def test_the_preview_says_kept_changed_added_removed_and_why(db, tmp_path):
    copy = tmp_path / "preview.duckdb"
    shutil.copy(db, copy)
    example = yaml.safe_load(EXAMPLE.read_text(encoding="utf-8"))
    _import(copy, tmp_path, {**example, "fleet": [*example["fleet"], AZURE_LINE]})
    report = _run(copy, AWS)
    changes = {(c["instance_type"], c["pricing_model"]): c for c in report["preview"]["changes"]}
    assert changes["Standard_ND96isr_H100_v5", "on_demand"]["change"] == "kept"
    assert (
        "the bill does not cover azure"
        in changes["Standard_ND96isr_H100_v5", "on_demand"]["reason"]
    )
    assert changes["g6e.xlarge", "spot"]["change"] == "added"
    assert changes["g6e.xlarge", "on_demand"]["change"] == "removed"
    assert "shows no use of this line in 2026-10" in changes["g6e.xlarge", "on_demand"]["reason"]
    assert changes["p5.48xlarge", "on_demand"]["change"] == "changed"
    assert all(c["reason"] for c in report["preview"]["changes"])
    kept = [ln for ln in report["fleet"] if ln["origin"] == "kept"]
    assert [(ln["provider"], ln["billed_usd"]) for ln in kept] == [("azure", None)]
    # The kept line is not reconciled with a bill that does not cover it.
    assert not [e for e in report["reconciliation"]["explained"] if "azure" in e["line"]]


def test_a_bill_older_than_a_quarter_is_named_with_its_period(db):
    sample = from_bill(db, SAMPLE)  # September 2024
    assert sample["source"]["older_than_a_quarter"] is True
    assert sample["notes"][0].startswith("The bill is from 2024-09, more than a quarter before ")
    october = from_bill(db, NO_UPFRONT)
    stale = date.today() - date(2026, 10, 31) > timedelta(days=92)
    assert october["source"]["older_than_a_quarter"] is stale
    # Against a fixed day: October 2026 is recent on 2026-12-03 and old on 2027-02-01.
    assert not bill_import.older_than_a_quarter(date(2026, 10, 1), date(2026, 12, 3))
    assert bill_import.older_than_a_quarter(date(2026, 10, 1), date(2027, 2, 1))
    assert "2026-10" in bill_import.age_note(date(2026, 10, 1), date(2027, 2, 1))
