"""The Scenarios brief (the one the Scenarios page downloads) lists every price and benchmark
result behind its fleet lines, as the warehouse holds them: source, clickable address, true date
("date unknown" when the source states none), confidence and snapshot id."""

from __future__ import annotations

import html
import io

import pandas as pd
import pytest
from pypdf import PdfReader

from briefs import plan_evidence
from briefs import workspace_plans as wp
from briefs.render import _md_text, render_document
from briefs.sources import plain_frame
from costmodel import Engine
from planning import evaluation as pe
from planning import workspaces as pw
from tokendesk import formatting


@pytest.fixture(scope="module")
def case(seed_options):
    options, snapshots = seed_options
    ws, knobs = pw.example_workspace(), pw.Knobs(amd_share=0.4)
    results = pe.compare(Engine.from_frame(options), ws, knobs)
    doc = wp.workspace_document(results, ws, knobs, options=options, snapshots=snapshots)
    return ws, results, plain_frame(options), doc


def _rows_of(options: pd.DataFrame, line) -> pd.DataFrame:
    """The warehouse rows of a fleet line's SKU and configuration, found without the brief's code."""
    provider, region_zone, *_ = line.option_id.split(":")
    region, _, zone = region_zone.partition("/")
    config = line.option_id.rsplit(":", 1)[1]
    return options[
        (options["provider"] == provider)
        & (options["region"] == region)
        & (options["zone"].fillna("") == zone)
        & (options["instance_type"] == line.instance_type)
        & (options["config_key"] == config)
    ]


def _stated(ws, line) -> float | None:
    for e in ws.fleet:
        if line.role == "fleet" and (e.provider, e.region, e.instance_type, e.pricing_model) == (
            line.provider,
            line.region,
            line.instance_type,
            line.pricing_model,
        ):
            return e.usd_per_hour
    return None


def _expected(ws, results, options):
    """(price rows, result rows) the brief must list: per line the quotes of its pricing model
    (or the workspace's rate) and every result of its configuration, each once."""
    quotes, stated, found = {}, set(), {}
    for r in results:
        for ln in r.fleet:
            rate = _stated(ws, ln)
            if rate is not None:
                stated.add((ln.provider, ln.region, ln.instance_type, ln.pricing_model, rate))
            if not ln.option_id:
                continue
            rows = _rows_of(options, ln)
            assert not rows.empty, ln  # every sized line rests on warehouse rows
            if rate is None:
                priced = rows[[m in ln.pricing_model for m in rows["pricing_model"]]]
                assert not priced.empty, ln  # every line is priced from a quote or the workspace
                for q in priced.itertuples():
                    quotes[q.price_id] = q
            for b in rows.itertuples():
                found[b.result_id] = b
    return quotes, stated, found


def _table(doc, title: str):
    return next(t for t in doc.tables() if t.title.startswith(title))


def test_every_price_and_result_behind_the_fleet_lines_is_listed_as_the_warehouse_holds_it(case):
    ws, results, options, doc = case
    quotes, stated, found = _expected(ws, results, options)
    prices = _table(doc, "Prices used")
    shown = prices.display()
    assert len(prices.frame) == len(quotes) + len(stated)
    for q in quotes.values():
        (i,) = prices.frame.index[
            (prices.frame["snapshot"] == q.price_snapshot_id)
            & (prices.frame["instance"] == q.instance_type)
            & (prices.frame["pricing"] == q.pricing_model)
            & (prices.frame["region"] == q.region)
        ]
        row = shown.loc[i]
        assert row["source"] == q.price_source and row["source URL"] == q.price_source_url
        assert row["confidence"] == q.price_confidence
        assert row["observed"] == formatting.day(
            None if q.price_observed_at is pd.NaT else q.price_observed_at
        )
    for provider, region, instance, pricing, rate in stated:
        (i,) = prices.frame.index[
            (prices.frame["source"] == plan_evidence.WORKSPACE_RATE)
            & (prices.frame["provider"] == provider)
            & (prices.frame["instance"] == instance)
            & (prices.frame["pricing"] == pricing)
        ]
        row = shown.loc[i]
        assert prices.frame.loc[i, "$/h as quoted"] == rate and row["region"] == region
        assert row["observed"] == formatting.DATE_UNKNOWN and row["snapshot"] == "—"

    benches = _table(doc, "Benchmarks used")
    listed = benches.display()
    assert len(benches.frame) == len(
        {
            (
                b.bench_snapshot_id,
                b.bench_source_url,
                b.model,
                b.precision,
                b.runtime,
                b.runtime_version,
                b.scenario,
            )
            for b in found.values()
        }
    )
    for b in found.values():
        hits = listed[
            (benches.frame["snapshot"] == b.bench_snapshot_id)
            & (benches.frame["source URL"] == b.bench_source_url)
            & (benches.frame["model"] == b.model)
        ]
        assert len(hits) >= 1, b.bench_source_url
        assert set(hits["confidence"]) == {b.bench_confidence}
        assert set(hits["measured"]) == {formatting.day(b.bench_measured_at)}


def test_an_undated_source_reads_date_unknown_never_a_dash_or_a_made_up_date(case):
    ws, results, options, _ = case
    undated = options.copy()
    undated["price_observed_at"] = pd.NaT
    undated["bench_measured_at"] = pd.NaT
    doc = wp.workspace_document(results, ws, options=undated)
    for title, column in (("Prices used", "observed"), ("Benchmarks used", "measured")):
        shown = _table(doc, title).display()
        assert len(shown) and set(shown[column]) == {formatting.DATE_UNKNOWN}, title
    md = render_document(doc, "md").decode()
    assert md.count(formatting.DATE_UNKNOWN) >= len(_table(doc, "Prices used").frame)


def test_sources_are_clickable_and_carry_their_date_confidence_and_snapshot_in_every_format(case):
    _, _, _, doc = case
    prices, benches = _table(doc, "Prices used"), _table(doc, "Benchmarks used")
    urls = {
        u for u in [*prices.frame["source URL"], *benches.frame["source URL"]] if isinstance(u, str)
    }
    snapshots = {
        s for s in [*prices.frame["snapshot"], *benches.frame["snapshot"]] if isinstance(s, str)
    }
    assert urls and snapshots
    page = render_document(doc, "html").decode()
    md = render_document(doc, "md").decode()
    for url in urls:
        assert f'<a href="{html.escape(url)}">' in page and f"<{url}>" in md, url
    reader = PdfReader(io.BytesIO(render_document(doc, "pdf")))
    uris = {
        a.get_object()["/A"]["/URI"]
        for p in reader.pages
        for a in p.get("/Annots", [])
        if a.get_object().get("/Subtype") == "/Link"
    }
    assert urls <= uris
    text = "".join(p.extract_text() for p in reader.pages).replace("\n", "").replace(" ", "")
    for needle in (
        snapshots | set(prices.display()["confidence"]) | set(prices.display()["observed"])
    ):
        assert _md_text(needle) in md and needle.replace(" ", "") in text, needle
