"""Property tests over generated workspace files: whatever the import accepts, every command
reads (scenarios, optimize, commit, export, and the stored form reads back the same); whatever
it refuses, it refuses with one short sentence naming the file, and the warehouse is unchanged.

Generated files mix valid values with the hostile ones the corpus found (dates as YAML
timestamps and out of range, huge and negative numbers, control characters and line breaks in
names, wrong types). Example counts are kept small so the file runs in seconds.
"""

from __future__ import annotations

import datetime as dt
import json
import math
import shutil

import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from briefs import workspace_plans as wp
from cli.main import app
from cli.workspace_command import register
from costmodel.workspace_model import FLEET_PRICING_MODELS, WorkspaceError, workspace_to_dict
from planning import evaluation as pe
from planning import workspaces as pw
from planning.commitment import commitments
from planning.optimal_plan import optimize
from planning.workspaces import parse_workspace_text as workspace_from_text
from tokendesk.textsafety import has_control
from warehouse import Warehouse

register(app)
runner = CliRunner()
SOURCE = "generated.yaml"
#: Longest refusal: one sentence, the input never echoed.
MAX_MESSAGE_CHARS = 600

INSTANCES = ["p5.48xlarge", "g6e.xlarge", "no-such-instance"]
WORKLOADS = ["chat-70b", "routing-8b"]
MODELS = ["llama-3.3-70b-instruct", "llama-3.1-8b-instruct", "unknown-model"]

#: Text: mostly plain names, sometimes with a line break, an escape or a bidi override.
names = st.one_of(
    st.sampled_from(["acme", "Example Corp", "chat", "é-team"]),
    st.text(min_size=1, max_size=12),
    st.sampled_from(["x\n# heading", "x\x1b[31m", "x\u202eoc", "", "x" * 300]),
    st.integers(min_value=-(10**40), max_value=10**40),
)
days = st.one_of(
    st.dates(min_value=dt.date(1990, 1, 1), max_value=dt.date(2300, 12, 31)),
    st.dates(),
    st.datetimes(min_value=dt.datetime(2020, 1, 1), max_value=dt.datetime(2040, 1, 1)).map(
        lambda d: d.replace(hour=0, minute=0, second=0, microsecond=0)
    ),
    st.datetimes(min_value=dt.datetime(2020, 1, 1), max_value=dt.datetime(2040, 1, 1)),
    st.sampled_from(["2026-12-01", "not a date", "2026-02-30"]),
)
numbers = st.one_of(
    st.integers(min_value=-5, max_value=50),
    st.integers(min_value=-(10**40), max_value=10**40),
    st.floats(allow_nan=True, allow_infinity=True),
    st.floats(min_value=0.01, max_value=200),
    st.sampled_from(["12", "lots", None, True]),
)


@st.composite
def fleet_lines(draw, workloads: list[str]):
    line = {
        "provider": draw(st.sampled_from(["aws", "AWS", "gcp", "nowhere"])),
        "region": draw(st.sampled_from(["us-east-1", "us-central1", "mars-1"])),
        "instance_type": draw(st.sampled_from(INSTANCES)),
        "count": draw(st.one_of(st.integers(min_value=1, max_value=20), numbers)),
        "pricing_model": draw(st.sampled_from([*FLEET_PRICING_MODELS[:4], "bogus"])),
        "serves": draw(st.one_of(st.sampled_from(workloads), names)),
    }
    if draw(st.booleans()):
        line["usd_per_hour"] = draw(st.one_of(st.floats(min_value=0.5, max_value=100), numbers))
    if line["pricing_model"] not in ("on_demand", "spot") and draw(st.booleans()):
        line["commitment_end"] = draw(days)
    return line


@st.composite
def workspaces(draw):
    workloads = draw(st.lists(st.sampled_from(WORKLOADS), min_size=1, max_size=2, unique=True))
    demand = []
    for name in workloads:
        row = {
            "workload": draw(st.one_of(st.just(name), names)),
            "model": draw(st.sampled_from(MODELS)),
            "output_tokens_per_month": draw(
                st.one_of(st.floats(min_value=1e6, max_value=1e11), numbers)
            ),
        }
        if draw(st.booleans()):
            row["slo"] = {"ttft_ms": draw(st.one_of(st.just(2000), numbers)), "percentile": "p95"}
        demand.append(row)
    body = {
        "name": draw(names),
        "start": draw(days),
        "fleet": draw(st.lists(fleet_lines(workloads), max_size=3)),
        "demand": demand,
    }
    if draw(st.booleans()):
        body["constraints"] = {"max_vendor_share": draw(st.one_of(st.just(0.8), numbers))}
    return yaml.safe_dump(body, allow_unicode=True, sort_keys=False)


@pytest.fixture(scope="module")
def db(tmp_path_factory):
    path = tmp_path_factory.mktemp("props") / "w.duckdb"
    assert runner.invoke(app, ["db", "init", "--db", str(path)]).exit_code == 0
    return path


@pytest.fixture(scope="module")
def engine(db):
    with Warehouse.open(db, read_only=True) as warehouse:
        return pw.engine_for(warehouse)


def _readable_everywhere(engine, ws) -> None:
    """What every page and command does with a stored workspace."""
    stored = json.loads(json.dumps(workspace_to_dict(ws)))  # the warehouse keeps JSON
    again, _ = workspace_from_text(yaml.safe_dump(stored), "stored.yaml")
    assert again == ws, "the stored form reads back as a different workspace"
    exported, _ = workspace_from_text(pw.export_yaml(ws), "exported.yaml")
    assert exported == ws
    results = pe.compare(engine, ws)
    assert results and all(math.isfinite(r.monthly_usd) for r in results)
    json.loads(wp.results_json(results))


@settings(
    max_examples=25,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(text=workspaces())
def test_accepted_is_readable_everywhere_and_refused_is_one_short_sentence(engine, text):
    try:
        ws, _ = workspace_from_text(text, SOURCE)
    except pw.WorkspaceFileError as exc:
        message = str(exc)
        assert message.startswith(SOURCE + ": ")
        assert len(message) < MAX_MESSAGE_CHARS, message
        assert not has_control(message)
        return
    try:
        pw.check_workspace(engine, ws)  # the import's second step: rates it can price
    except WorkspaceError as exc:
        assert exc.where.startswith("fleet[") and len(exc.message) < MAX_MESSAGE_CHARS
        return
    _readable_everywhere(engine, ws)


@settings(
    max_examples=6,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(text=workspaces())
def test_an_accepted_workspace_also_optimises_and_commits(engine, text):
    try:
        ws, _ = workspace_from_text(text, SOURCE)
        pw.check_workspace(engine, ws)
    except (pw.WorkspaceFileError, WorkspaceError):
        return
    optimize(engine, ws)
    commitments(engine, ws, pw.Knobs())


@settings(
    max_examples=8,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(text=workspaces())
def test_the_import_command_either_stores_a_readable_version_or_changes_nothing(
    db, tmp_path_factory, text
):
    folder = tmp_path_factory.mktemp("gen")
    path, copy = folder / SOURCE, folder / "w.duckdb"
    path.write_text(text, encoding="utf-8")
    shutil.copy(db, copy)

    def versions() -> int:
        with Warehouse.open(copy, read_only=True) as warehouse:
            return int(warehouse.query("SELECT count(*) AS n FROM workspaces")["n"][0])

    before = versions()
    imported = runner.invoke(app, ["workspace", "import", str(path), "--db", str(copy)])
    assert imported.exit_code in (0, 2), imported.output
    assert "fault in tokendesk" not in imported.output and "Traceback" not in imported.output
    if imported.exit_code == 2:
        assert versions() == before
        assert SOURCE in imported.output and len(imported.output) < MAX_MESSAGE_CHARS + 200
        return
    assert versions() == before + 1
    for command in (["scenarios", "--format", "json"], ["workspace", "export"]):
        done = runner.invoke(app, [*command, "--db", str(copy)])
        assert done.exit_code == 0, (command, done.output[-400:])
