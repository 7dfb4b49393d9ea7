from __future__ import annotations

import io
import shutil
from datetime import date, datetime, timedelta

import duckdb
import pandas as pd
import pytest
from openpyxl import load_workbook
from typer.testing import CliRunner

from briefs.futures import FuturesRules, compare, compare_warehouse, futures_document
from briefs.render import render_document
from cli.briefs import register
from cli.main import app
from warehouse import Warehouse
from warehouse import futures as wf
from warehouse.decisions import Decision, DecisionError, decisions, record_decision
from warehouse.futures import price_snapshots_as_of, prices_as_of

register(app)
runner = CliRunner()


def _price(
    provider,
    region,
    instance,
    model,
    usd,
    acc="nvidia-h100-sxm-80gb",
    snap="s1",
    observed="2025-01-01",
):
    return dict(
        provider=provider,
        region=region,
        instance_type=instance,
        pricing_model=model,
        accelerator_id=acc,
        usd_per_hour=usd,
        source=f"{provider} list",
        observed_at=pd.Timestamp(observed),
        snapshot_id=snap,
    )


def _cost(
    provider,
    instance,
    acc,
    backend,
    model,
    usd_1k,
    p95=None,
    p99=None,
    region="r1",
    pricing="on_demand",
):
    return dict(
        provider=provider,
        region=region,
        instance_type=instance,
        pricing_model=pricing,
        accelerator_id=acc,
        backend=backend,
        model=model,
        usd_per_1k_output_tokens=usd_1k,
        ttft_ms_p95=p95,
        ttft_ms_p99=p99,
    )


def test_compare_on_hand_built_frames():
    old = pd.DataFrame(
        [
            _price("aws", "us-east-1", "p5", "on_demand", 100.0),
            _price("aws", "us-east-1", "old1", "on_demand", 10.0),
            _price("gcp", "us-c1", "a3", "spot", 20.0),
        ]
    )
    new = pd.DataFrame(
        [
            _price("aws", "us-east-1", "p5", "on_demand", 56.0, snap="s2"),
            _price("gcp", "us-c1", "a3", "spot", 20.05, snap="s2"),  # below the 0.5% noise floor
            _price("neo", "x", "mi300x", "on_demand", 2.0, acc="amd-mi300x-192gb", snap="s2"),
            _price("neo", "x", "slow", "on_demand", 2.0, acc="amd-mi325x-256gb", snap="s2"),
            _price("neo", "x", "blind", "on_demand", 2.0, acc="intel-gaudi3-128gb", snap="s2"),
        ]
    )
    costs_old = pd.DataFrame(
        [_cost("aws", "p5", "nvidia-h100-sxm-80gb", "cuda", "m", 0.010, p95=200)]
    )
    costs_new = pd.DataFrame(
        [
            _cost("aws", "p5", "nvidia-h100-sxm-80gb", "cuda", "m", 0.0056, p95=200),
            _cost(
                "neo", "mi300x", "amd-mi300x-192gb", "rocm", "m", 0.0040, p95=210
            ),  # -29% cost, +5% FTL -> buy
            _cost(
                "neo", "slow", "amd-mi325x-256gb", "rocm", "m", 0.0030, p95=300
            ),  # cheaper but FTL +50% -> no-buy
            _cost("neo", "blind", "intel-gaudi3-128gb", "hpu", "m", 0.0030),  # no FTL -> defer
            _cost(
                "neo", "blind", "intel-gaudi3-128gb", "hpu", "other", 0.0030
            ),  # no incumbent -> defer
        ]
    )
    results = pd.DataFrame(
        [
            dict(
                accelerator_id="amd-mi300x-192gb",
                model="m",
                precision="fp8",
                runtime="vllm",
                runtime_version="0.6",
                measured_at=pd.Timestamp("2026-01-01"),
                source_title="old run",
            ),
            dict(
                accelerator_id="nvidia-h100-sxm-80gb",
                model="m",
                precision="fp8",
                runtime="vllm",
                runtime_version="0.9",
                measured_at=pd.Timestamp("2026-11-01"),
                source_title="fresh run",
            ),
        ]
    )
    report = compare("2025-03-31", "2026-11-30", old, new, costs_old, costs_new, results)
    assert list(report.price_changes["instance_type"]) == ["p5"]
    assert report.price_changes["change_pct"].iloc[0] == pytest.approx(-0.44)
    assert set(report.new_skus["instance_type"]) == {"mi300x", "slow", "blind"}
    assert list(report.removed_skus["instance_type"]) == ["old1"]
    verdicts = {(r.instance_type, r.model): r.suggestion for r in report.suggestions.itertuples()}
    assert verdicts == {
        ("mi300x", "m"): "buy",
        ("slow", "m"): "no-buy",
        ("blind", "m"): "defer",
        ("blind", "other"): "defer",
    }
    assert (
        list(report.stale["source_title"]) == ["old run"]
        and report.stale["age_days"].iloc[0] == 333
    )
    h100 = report.perf_per_dollar.set_index("accelerator_id").loc["nvidia-h100-sxm-80gb"]
    assert h100["change_pct"] == pytest.approx(0.010 / 0.0056 - 1)
    with pytest.raises(ValueError, match="must come before"):
        compare("2026-01-01", "2025-01-01", old, new, costs_old, costs_new, results)


def test_prices_as_of_mirror_the_current_view_with_a_cutoff(seed_db):
    with Warehouse.open(seed_db, read_only=True) as warehouse:
        then = prices_as_of(warehouse, "2025-03-31")
        now = prices_as_of(warehouse, "2026-11-30")
        current = warehouse.query(
            "SELECT provider, region, snapshot_id FROM current_price_snapshots ORDER BY 1, 2"
        )
        # Today: an undated source's snapshot is dated by when it was recorded (this build).
        as_of_now = price_snapshots_as_of(warehouse, datetime.now() + timedelta(days=1))[
            ["provider", "region", "snapshot_id"]
        ]
    pd.testing.assert_frame_equal(current.reset_index(drop=True), as_of_now.reset_index(drop=True))

    def p5(f):
        return f[(f.instance_type == "p5.48xlarge") & (f.pricing_model == "on_demand")][
            "usd_per_hour"
        ].tolist()

    assert p5(then) == [98.32] and p5(now) == [55.06]
    # Currency is per observation: every price known on the day was observed by then.
    # (An undated price counts from its snapshot's date.)
    dated = pd.to_datetime(then["observed_at"]).dropna()
    assert not dated.empty and (dated <= pd.Timestamp("2025-03-31 23:59:59")).all()
    undated = then[then["observed_at"].isna()]
    assert (pd.to_datetime(undated["snapshot_as_of"]) <= pd.Timestamp("2025-03-31 23:59:59")).all()


def test_many_days_read_together_are_each_day_read_alone(seed_db):
    """Every as-of read takes several days at once (the Futures page reads every day a review
    may start on together); each day's frames are what reading that day alone gives, a day
    before any data included, whatever other days come with it."""
    days = ["2020-01-01", "2025-03-31", date(2025, 9, 4), datetime(2026, 5, 18, 12), "2026-11-30"]
    reads = {
        "snapshots": (wf.price_snapshots_as_of, wf.price_snapshots_as_of_days),
        "prices": (wf.prices_as_of, wf.prices_as_of_days),
        "results": (wf.results_as_of, wf.results_as_of_days),
        "costs": (wf.costs_as_of, wf.costs_as_of_days),
    }
    with Warehouse.open(seed_db, read_only=True) as warehouse:
        for name, (one_day, many_days) in reads.items():
            together = many_days(warehouse, days)
            backwards = many_days(warehouse, days[::-1])[::-1]
            for day, frame, other in zip(days, together, backwards, strict=True):
                alone = one_day(warehouse, day)
                assert list(frame.columns) == list(alone.columns), name
                assert frame.astype(object).equals(alone.astype(object)), (name, day)
                assert frame.astype(object).equals(other.astype(object)), (name, day)
            sizes = [len(frame) for frame in together]
            assert sizes[0] == 0 and min(sizes[1:]) > 0 and len(set(sizes)) > 2, (name, sizes)


def test_futures_day_on_the_seed_warehouse(seed_db):
    with Warehouse.open(seed_db, read_only=True) as warehouse:
        report = compare_warehouse(warehouse, "2025-03-31", "2026-11-30")
    changes = report.price_changes.set_index(["instance_type", "pricing_model"])
    p5 = changes.loc[("p5.48xlarge", "on_demand")]
    assert (p5["usd_per_hour_from"], p5["usd_per_hour_to"]) == (98.32, 55.06)
    assert round(p5["change_pct"] * 100) == -44
    assert len(report.new_skus) > 0 and set(report.suggestions["suggestion"]) <= {
        "buy",
        "no-buy",
        "defer",
    }
    assert report.snapshots_from and report.snapshots_to
    md = render_document(futures_document(report), "md").decode()
    assert "p5.48xlarge" in md and "-44.0%" in md and "$98.320" in md and "$55.060" in md


def test_decision_log_is_append_only_and_shown_at_the_next_review(seed_db, tmp_path):
    db = tmp_path / "w.duckdb"
    shutil.copy(seed_db, db)
    with Warehouse.open(db) as warehouse:
        snaps = list(price_snapshots_as_of(warehouse, "2026-11-30")["snapshot_id"])[:2]
        first = record_decision(
            warehouse,
            Decision(
                "aws p5.48xlarge",
                "buy",
                "44% cheaper after the June cut",
                "cto",
                date(2026, 11, 30),
                tuple(snaps),
                date(2025, 3, 31),
                date(2026, 11, 30),
            ),
        )
        second = record_decision(
            warehouse,
            Decision(
                "aws p5.48xlarge",
                "defer",
                "capacity not available",
                "procurement",
                date(2026, 12, 2),
                supersedes=first,
            ),
        )
        with pytest.raises(DecisionError, match="unknown snapshot"):
            record_decision(warehouse, Decision("x", "buy", "r", "me", date(2026, 1, 1), ("nope",)))
        with pytest.raises(DecisionError, match="no-buy"):
            Decision("x", "maybe", "r", "me", date(2026, 1, 1))
        with pytest.raises(DecisionError, match="rationale"):
            Decision("x", "buy", " ", "me", date(2026, 1, 1))
        log = decisions(warehouse)
        assert list(log["decision_id"]) == [first, second]
        assert list(log["snapshot_ids"].iloc[0]) == snaps and log["superseded_by"].iloc[0] == second
        report = compare_warehouse(warehouse, "2026-11-30", "2027-02-28")
    doc = futures_document(report)
    xlsx = load_workbook(io.BytesIO(render_document(doc, "xlsx")))
    rows = list(xlsx["Decision log"].iter_rows(values_only=True))
    assert rows[1][2] == "aws p5.48xlarge" and rows[1][3] == "buy" and snaps[0] in rows[1][8]
    assert "44% cheaper after the June cut" in render_document(doc, "md").decode()
    with duckdb.connect(str(db)) as con:
        assert con.execute("SELECT count(*) FROM decisions").fetchone()[0] == 2


def test_futures_cli_compare_decide_log(seed_db, tmp_path):
    db = tmp_path / "w.duckdb"
    shutil.copy(seed_db, db)
    out = runner.invoke(
        app, ["futures", "compare", "--from", "2025-03-31", "--to", "2026-11-30", "--db", str(db)]
    )
    assert out.exit_code == 0, out.output
    assert "p5.48xlarge" in out.output and "-44.0%" in out.output
    decided = runner.invoke(
        app,
        [
            "futures",
            "decide",
            "--subject",
            "tensorwave MI300X",
            "--decision",
            "defer",
            "--rationale",
            "needs an FTL run",
            "--by",
            "platform",
            "--on",
            "2026-11-30",
            "--from",
            "2025-03-31",
            "--to",
            "2026-11-30",
            "--db",
            str(db),
        ],
    )
    assert decided.exit_code == 0, decided.output
    assert "snapshots linked" in decided.output
    log = runner.invoke(app, ["futures", "log", "--format", "csv", "--db", str(db)])
    assert log.exit_code == 0 and "tensorwave MI300X" in log.output and "prices-aws-" in log.output
    bad = runner.invoke(
        app,
        [
            "futures",
            "decide",
            "--subject",
            "x",
            "--decision",
            "maybe",
            "--rationale",
            "r",
            "--by",
            "me",
            "--db",
            str(db),
        ],
    )
    assert bad.exit_code == 2
    pdf = tmp_path / "futures.pdf"
    exported = runner.invoke(
        app,
        [
            "futures",
            "compare",
            "--from",
            "2025-03-31",
            "--to",
            "2026-11-30",
            "--format",
            "pdf",
            "-o",
            str(pdf),
            "--db",
            str(db),
        ],
    )
    assert exported.exit_code == 0 and pdf.read_bytes().startswith(b"%PDF")


def test_rules_are_inputs():
    assert FuturesRules(min_savings_pct=0.2).min_savings_pct == 0.2


def test_the_incumbent_is_the_company_fleet_at_its_own_rate():
    from briefs.futures import FleetRate, suggestions

    costs = pd.DataFrame(
        [
            dict(_cost("aws", "p5", "nvidia-h100-sxm-80gb", "cuda", "m", 0.0056, p95=200)),
            dict(_cost("gcp", "a3", "nvidia-h100-sxm-80gb", "cuda", "m", 0.0020, p95=200)),
            dict(_cost("neo", "mi300x", "amd-mi300x-192gb", "rocm", "m", 0.0040, p95=210)),
        ]
    ).assign(usd_per_hour=[56.0, 20.0, 2.0])
    added = pd.DataFrame(
        [dict(provider="neo", instance_type="mi300x", accelerator_id="amd-mi300x-192gb")]
    )
    # Market rule: the cheapest NVIDIA option anywhere (gcp a3 at 0.0020) is the incumbent.
    market = suggestions(costs, added, FuturesRules())
    assert market["incumbent"].iloc[0].startswith("gcp a3")
    # Fleet rule: the p5 the company runs, at the $28/h it pays: 0.0056 × 28/56 = 0.0028 per 1K.
    fleet = FuturesRules(fleet=(FleetRate("aws", "p5", 28.0, "your fleet: 6 × aws p5"),))
    mine = suggestions(costs, added, fleet).iloc[0]
    assert mine["incumbent"] == "your fleet: 6 × aws p5"
    assert mine["incumbent_usd_per_1k_output"] == pytest.approx(0.0028)
    assert mine["cost_change_pct"] == pytest.approx(0.0040 / 0.0028 - 1)
    assert mine["suggestion"] == "no-buy"
