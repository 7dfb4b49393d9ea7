"""Every link a brief writes back to the dashboard uses only keys its target page reads, with
values that page accepts: a key the page ignores would make the link claim a view it cannot show."""

from __future__ import annotations

import re

import pytest
from typer.testing import CliRunner

from app import url_state
from app.models.scenarios import INPUTS
from briefs import workspace_plans as wp
from cli.briefs_command import register as register_brief
from cli.main import app
from cli.workspace_command import register as register_scenarios
from costmodel import Engine
from planning import evaluation as pe
from planning import workspaces as pw
from tests.page_links import assert_the_scenarios_page_accepts
from tokendesk.paths import PUBLIC_URL_ENV

register_brief(app)
register_scenarios(app)
runner = CliRunner()


def _view_link(markdown: str) -> str:
    line = next(line for line in markdown.splitlines() if "**dashboard view:**" in line)
    return re.search(r"<(https?://[^>]+)>", line).group(1)


def test_the_check_itself_rejects_foreign_keys_and_out_of_range_values():
    with pytest.raises(AssertionError):
        assert_the_scenarios_page_accepts("http://h/scenarios?out_b=50&amd=0.4")
    with pytest.raises(AssertionError):
        assert_the_scenarios_page_accepts("http://h/scenarios?amd=7")
    with pytest.raises(AssertionError):
        assert_the_scenarios_page_accepts("http://h/scenarios?unit=1g")
    assert assert_the_scenarios_page_accepts("http://h/scenarios?amd=0.4&unit=1m&optimal=true")


def test_the_market_brief_links_only_the_keys_the_scenarios_page_reads(seed_db):
    market_only = ["out_b=50", "in_b=90", "small_b=0", "model=8b"]
    args = [
        "brief",
        "--db",
        str(seed_db),
        "--unit",
        "1m",
        "--base-url",
        "https://d.example/scenarios",
    ]
    both = ["amd=0.4", "slo=900", "pct=p99", "custom=cuda:0.5,rocm:0.5", "rate=7000"]
    for setting in [*market_only, *both]:
        args += ["--set", setting]
    out = runner.invoke(app, args)
    assert out.exit_code == 0, out.output
    params = assert_the_scenarios_page_accepts(_view_link(out.stdout))
    assert params == {
        "amd": "0.4",
        "slo": "900",
        "pct": "p99",  # the Scenarios page reads every SLO at this percentile
        "custom": "cuda:0.5,rocm:0.5",
        "rate": "7000",
        "unit": "1m",
        # The demand what-ifs every workload of the brief shares, as the page reads them.
        "inter": "0.9",
        "peak": "1.8",
        "optimal": "true",  # the brief holds the optimal fleet: its view solves for it
    }
    # The market demand is stated in the brief itself (its Assumptions), where the page
    # cannot show it.
    assert "50 B output and 90 B input tokens a month" in out.stdout


@pytest.mark.parametrize(
    ("knobs", "unit"),
    [
        (pw.Knobs(), "1k"),
        (pw.Knobs(amd_share=0.4, cpu_share=0.3), "1m"),
        (
            pw.Knobs(
                custom=(("cuda", 0.5), ("rocm", 0.3), ("hpu", 0.2)),
                utilisation_cap=0.6,
                loaded_usd_per_engineer_week=8000.0,
            ),
            "1m",
        ),
    ],
)
def test_the_scenarios_brief_link_reproduces_its_view_with_accepted_keys(
    seed_options, knobs, unit, monkeypatch
):
    monkeypatch.setenv(PUBLIC_URL_ENV, "https://dash.example.com/")
    options, _ = seed_options
    ws = pw.example_workspace()
    results = pe.compare(Engine.from_frame(options), ws, knobs)
    doc = wp.workspace_document(results, ws, knobs, unit=unit)
    assert doc.link.startswith("https://dash.example.com/scenarios?")
    params = assert_the_scenarios_page_accepts(doc.link)
    assert dict(doc.meta)["dashboard view"] == doc.link
    assert params["optimal"] == "true"
    view = pw.scenario_view(params, ws)
    assert not view.rejected and view.knobs == knobs and view.workspace == ws
    assert url_state.read(params, INPUTS)[0]["unit"] == unit


def test_the_scenarios_command_writes_a_link_the_page_accepts(seed_db):
    link = "http://localhost:8501/scenarios?amd=0.4&slo=900&unit=1m&optimal=true"
    out = runner.invoke(app, ["scenarios", "--db", str(seed_db), "--link", link, "--format", "md"])
    assert out.exit_code == 0, out.output
    params = assert_the_scenarios_page_accepts(_view_link(out.stdout))
    assert params["amd"] == "0.4" and params["slo"] == "900" and params["unit"] == "1m"


def test_with_no_address_set_the_brief_says_how_to_open_its_view(seed_db, monkeypatch):
    monkeypatch.delenv(PUBLIC_URL_ENV, raising=False)
    monkeypatch.delenv("TOKENDESK_BASE_URL", raising=False)
    out = runner.invoke(
        app, ["scenarios", "--db", str(seed_db), "--amd-share", "0.4", "--format", "md"]
    )
    assert out.exit_code == 0, out.output
    line = next(line for line in out.stdout.splitlines() if "**dashboard view:**" in line)
    assert "http" not in line and "127.0.0.1" not in line and "localhost" not in line, line
    assert "run 'tokendesk app' and open /scenarios?" in line, line
    query = line.split("open ", 1)[1].split(" ", 1)[0].replace("\\", "")
    params = assert_the_scenarios_page_accepts(f"https://any.host{query}")
    assert params["amd"] == "0.4" and params["optimal"] == "true"


@pytest.mark.parametrize(
    ("env", "args", "expected"),
    [
        ({PUBLIC_URL_ENV: "https://dash.example.com"}, [], "https://dash.example.com/scenarios?"),
        (
            {PUBLIC_URL_ENV: "https://dash.example.com", "TOKENDESK_BASE_URL": "https://b/s"},
            [],
            "https://b/s?",
        ),
        (
            {PUBLIC_URL_ENV: "https://dash.example.com"},
            ["--base-url", "https://o.example/scenarios"],
            "https://o.example/scenarios?",
        ),
        (
            {},
            ["--link", "http://10.0.0.7:8600/scenarios?amd=0.4"],
            "http://10.0.0.7:8600/scenarios?",
        ),
    ],
)
def test_the_link_is_built_on_the_address_setting(seed_db, monkeypatch, env, args, expected):
    monkeypatch.delenv(PUBLIC_URL_ENV, raising=False)
    monkeypatch.delenv("TOKENDESK_BASE_URL", raising=False)
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    out = runner.invoke(app, ["scenarios", "--db", str(seed_db), *args, "--format", "md"])
    assert out.exit_code == 0, out.output
    assert _view_link(out.stdout).startswith(expected), _view_link(out.stdout)
