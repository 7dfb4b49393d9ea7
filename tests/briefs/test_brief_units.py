"""The briefs follow the dashboard's $/1K <-> $/1M switch: every cost-per-token figure in every
format is 1,000 times larger per 1M tokens, and its label names the unit and which tokens."""

from __future__ import annotations

import io
import re

import pytest
from openpyxl import load_workbook
from pypdf import PdfReader
from typer.testing import CliRunner

from briefs import workspace_plans as wp
from briefs.render import render_document
from cli.briefs_command import register as register_brief
from cli.main import app
from cli.workspace_command import register as register_scenarios
from costmodel import Engine
from planning import evaluation as pe
from planning import workspaces as pw
from tokendesk import formatting

register_brief(app)
register_scenarios(app)

#: A per-token label as every brief must write it: the unit, then which tokens it counts.
PER_TOKEN = re.compile(r"\$/1[KM] (output|input|total \(input \+ output\)) tokens")
UNITS = tuple(formatting.TOKEN_UNITS)


@pytest.fixture(scope="module")
def workspace_case(seed_options):
    options, snapshots = seed_options
    ws, knobs = pw.example_workspace(), pw.Knobs(amd_share=0.4)
    results = pe.compare(Engine.from_frame(options), ws, knobs)
    return ws, knobs, results, options, snapshots


def _market(brief, unit):
    return wp.workspace_document(
        brief.results,
        brief.workspace,
        unit=unit,
        options=brief.options,
        snapshots=brief.snapshots,
    )


def _scenarios(case, unit):
    ws, knobs, results, options, snapshots = case
    return wp.workspace_document(
        results, ws, knobs, unit=unit, options=options, snapshots=snapshots
    )


def _per_token_columns(doc) -> dict[str, list]:
    """Every table column holding a cost per token, by its label (the unit is in the label)."""
    out = {}
    for t in doc.tables():
        for column in t.frame.columns:
            if formatting.token_unit_in(str(column)) is not None:
                out[f"{t.title} | {column}"] = list(t.frame[column])
    return out


@pytest.mark.parametrize("which", ["market", "scenarios"])
def test_per_token_figures_are_exactly_1000_times_larger_per_1m_tokens(
    which, market_brief, workspace_case
):
    build = _market if which == "market" else _scenarios
    source = market_brief if which == "market" else workspace_case
    per_1k = _per_token_columns(build(source, "1k"))
    per_1m = _per_token_columns(build(source, "1m"))
    assert per_1k and len(per_1k) == len(per_1m)
    for (label_k, values_k), (label_m, values_m) in zip(
        per_1k.items(), per_1m.items(), strict=True
    ):
        assert label_m == label_k.replace("$/1K", "$/1M"), (label_k, label_m)
        assert PER_TOKEN.search(label_k) and PER_TOKEN.search(label_m), label_k
        numbers = [(k, m) for k, m in zip(values_k, values_m, strict=True) if k == k and k]
        assert numbers, label_k  # a column of real figures, not only gaps
        for k, m in numbers:
            assert m == pytest.approx(k * 1000, rel=1e-12), label_k


@pytest.mark.parametrize("which", ["market", "scenarios"])
@pytest.mark.parametrize("unit", UNITS)
def test_every_format_names_the_chosen_unit_and_never_the_other(
    which, unit, market_brief, workspace_case
):
    doc = _market(market_brief, unit) if which == "market" else _scenarios(workspace_case, unit)
    chosen = formatting.token_unit_label(unit)
    other = formatting.token_unit_label(next(u for u in UNITS if u != unit))
    texts = {
        "md": render_document(doc, "md").decode(),
        "html": render_document(doc, "html").decode(),
        "csv": render_document(doc, "csv").decode(),
        "pdf": "\n".join(
            p.extract_text() for p in PdfReader(io.BytesIO(render_document(doc, "pdf"))).pages
        ),
    }
    for fmt, text in texts.items():
        assert chosen in text, (fmt, chosen)
        assert other not in text, (fmt, other)
    # In the text formats each $/token label says which tokens it counts.
    for mention in re.findall(r"\$/1[KM][^|<\n]{0,40}", texts["md"]):
        assert PER_TOKEN.match(mention) or mention.startswith(f"{chosen} tokens"), mention


@pytest.mark.parametrize("unit", UNITS)
def test_xlsx_per_token_cells_carry_the_number_format_of_their_unit(unit, market_brief):
    book = load_workbook(io.BytesIO(render_document(_market(market_brief, unit), "xlsx")))
    expected = formatting.spreadsheet_cost_format(unit)
    seen = 0
    for ws in book.worksheets:
        header = [c.value for c in ws[1]]
        for j, name in enumerate(header, start=1):
            if not isinstance(name, str) or formatting.token_unit_in(name) is None:
                continue
            assert formatting.token_unit_in(name) == unit, name
            for (cell,) in ws.iter_rows(min_row=2, min_col=j, max_col=j):
                if isinstance(cell.value, float):
                    seen += 1
                    assert cell.number_format == expected, (ws.title, cell.coordinate)
    assert seen >= len(market_brief.results)
    assert expected == ('"$"0.000000' if unit == "1k" else '"$"0.000')


def test_the_brief_command_takes_the_unit_from_the_option_or_the_link(seed_db):
    runner = CliRunner()
    base = ["brief", "--db", str(seed_db)]
    per_1m = runner.invoke(app, [*base, "--unit", "1m"])
    assert per_1m.exit_code == 0, per_1m.output
    assert "$/1M total (input + output) tokens" in per_1m.output and "$/1K" not in per_1m.output
    linked = runner.invoke(app, [*base, "--link", "http://h/scenarios?unit=1m&amd=0.3"])
    assert linked.exit_code == 0 and "$/1M output tokens" in linked.output
    default = runner.invoke(app, base)
    assert "$/1K output tokens" in default.output and "$/1M" not in default.output
    bad = runner.invoke(app, [*base, "--unit", "1g"])
    assert bad.exit_code == 2 and "--unit '1g'" in bad.output and "1k, 1m" in bad.output


def test_the_scenarios_command_quotes_its_brief_in_the_chosen_unit(seed_db):
    out = CliRunner().invoke(
        app, ["scenarios", "--db", str(seed_db), "--format", "md", "--unit", "1m"]
    )
    assert out.exit_code == 0, out.output
    assert "$/1M output tokens (month 1)" in out.stdout and "$/1K" not in out.stdout
    assert "unit=1m" in out.stdout  # the link back reproduces the switch too


def test_cents_round_a_half_cent_as_every_other_figure_does():
    from briefs.document import cents

    # 43,331.705 is the figure a plan's JSON rounds to 43,331.71 (round(x, 2)); the CSV's lines
    # must add up to that same cent, not to the half-to-even 43,331.70.
    total = 43331.705
    assert sum(cents([total - 0.005, 0.005], total)) == pytest.approx(round(total, 2), abs=1e-9)
    assert cents([total], total) == [round(total, 2)]
