"""Inputs read within limits: YAML (aliases, depth, numbers, size), special files refused by type
before a byte is read, dates a workspace can hold, and error messages that quote at most a short
excerpt. A workspace the import accepts is read by every command afterwards."""

from __future__ import annotations

import json
import os
import time
from pathlib import Path

import pytest
import yaml
from typer.testing import CliRunner

from cli.commit_command import register as register_commit
from cli.main import app
from cli.optimize_command import register as register_optimize
from cli.workspace_command import register
from costmodel.workspace_model import WorkspaceError, workspace_from_dict
from planning.workspaces import WorkspaceFileError, workspace_from_upload
from planning.workspaces import read_workspace_file as read_workspace
from tests.workspace_data import EXAMPLE
from tokendesk.safeyaml import YamlInputError, YamlLimits, load_yaml_text, read_yaml_text
from tokendesk.textsafety import excerpt
from warehouse import Warehouse
from warehouse.workspace_versions import current_workspace

register(app)
register_commit(app)
register_optimize(app)
runner = CliRunner()
LIMITS = YamlLimits(max_bytes=64 * 1024)


def _bomb(levels: int) -> str:
    lines = ['a0: &a0 ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]']
    lines += [f"a{i}: &a{i} [{','.join([f'*a{i - 1}'] * 9)}]" for i in range(1, levels + 1)]
    return "\n".join(lines) + "\n"


@pytest.mark.parametrize("levels", [4, 9])
def test_an_alias_bomb_is_refused_in_a_sentence_not_expanded(levels):
    started = time.monotonic()
    with pytest.raises(YamlInputError) as refused:
        load_yaml_text(_bomb(levels), "bomb.yaml", LIMITS)
    assert time.monotonic() - started < 2
    assert "more than 32 aliases" in str(refused.value)
    assert len(str(refused.value)) < 200


def test_a_few_anchors_are_still_fine():
    text = "base: &b {count: 1}\nfirst: *b\nsecond: *b\n"
    assert load_yaml_text(text, "ok.yaml", LIMITS) == {
        "base": {"count": 1},
        "first": {"count": 1},
        "second": {"count": 1},
    }


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("x: " + "[" * 30 + "]" * 30, "nests deeper than 24 levels"),
        ("x: " + "9" * 200, "200 digits at line 1"),
        ("start: 2026-02-30", "day is out of range for month"),
        ("x: [" + "y" * 10_000, "not valid YAML"),
        ("a: 1\n" * 20_000, "larger than 64 KiB"),
    ],
)
def test_yaml_limits_and_unreadable_values_say_which(text, message):
    with pytest.raises(YamlInputError) as refused:
        load_yaml_text(text, "in.yaml", LIMITS)
    assert message in str(refused.value)
    assert len(str(refused.value)) < 300  # the input is never echoed


def test_a_quoted_long_number_is_text():
    assert load_yaml_text("x: '" + "9" * 200 + "'", "in.yaml", LIMITS) == {"x": "9" * 200}


def _fifo(tmp_path: Path) -> Path:
    path = tmp_path / "pipe.yaml"
    os.mkfifo(path)
    return path


@pytest.mark.parametrize(
    "make",
    [_fifo, lambda tmp: Path("/dev/zero"), lambda tmp: tmp],
    ids=["fifo", "dev-zero", "directory"],
)
def test_special_files_are_refused_by_type_before_reading(make, tmp_path):
    with pytest.raises(YamlInputError, match="not a regular file"):
        read_yaml_text(make(tmp_path), LIMITS)


@pytest.mark.parametrize(
    ("data", "message"),
    [
        ("name: Café\n".encode("latin-1"), r"not UTF-8 text \(byte 9 is 0xe9"),
        ("name: x\n".encode("utf-16"), "is UTF-16 text"),
    ],
)
def test_other_encodings_are_refused_with_what_to_do(data, message, tmp_path):
    path = tmp_path / "ws.yaml"
    path.write_bytes(data)
    with pytest.raises(YamlInputError, match=message):
        read_yaml_text(path, LIMITS)
    with pytest.raises(WorkspaceFileError, match="save it as UTF-8"):
        workspace_from_upload("ws.yaml", data)


def test_an_excerpt_never_walks_or_prints_a_huge_value():
    nested: list = ["lol"] * 9
    for _ in range(9):
        nested = [nested] * 9  # 9^10 leaves if walked
    assert excerpt(nested) == "a list of 9 item(s)"
    assert excerpt("x" * 10_000).endswith("(9,940 more characters)")
    assert excerpt(10**5000) == "a whole number of about 5,000 digits"
    assert excerpt(10**59) == "a whole number of 60 digits"


# -- workspace dates -------------------------------------------------------------------------------
BASE = yaml.safe_load(EXAMPLE.read_text(encoding="utf-8"))


def _with(**changes) -> dict:
    body = json.loads(json.dumps(BASE, default=str))
    body.update(changes)
    return body


@pytest.mark.parametrize(
    ("text", "stored"),
    [
        ("start: 2026-12-01", "2026-12-01"),
        ("start: 2026-12-01 00:00:00", "2026-12-01"),
        ("start: 2026-12-01T00:00:00Z", "2026-12-01"),
        ("start: '2026-12-01'", "2026-12-01"),
        # How a version stored before the normalisation holds a timestamp: still readable.
        ("start: '2026-12-01T00:00:00'", "2026-12-01"),
        ("start: '2026-12-01T00:00:00+00:00'", "2026-12-01"),
    ],
)
def test_a_yaml_timestamp_start_is_stored_as_its_day(text, stored):
    body = _with(start=yaml.safe_load(text)["start"])
    assert workspace_from_dict(body).start.isoformat() == stored


@pytest.mark.parametrize(
    ("value", "message"),
    [
        ("9999-12-01", "9999-12-01 is outside 2000-01-01 to 2199-12-31"),
        ("1900-01-01", "outside"),
        ("2026-12-01 10:30:00", "has a time of day"),
        (["2026-12-01"], "is not a date"),
    ],
)
def test_a_start_out_of_range_or_with_a_time_is_refused_naming_the_field(value, message):
    if isinstance(value, str):
        value = yaml.safe_load(f"v: {value}")["v"]
    with pytest.raises(WorkspaceError) as refused:
        workspace_from_dict(_with(start=value))
    assert refused.value.where == "workspace.start"
    assert message in refused.value.message


@pytest.fixture(scope="module")
def db(tmp_path_factory):
    path = tmp_path_factory.mktemp("bounded") / "w.duckdb"
    assert runner.invoke(app, ["db", "init", "--db", str(path)]).exit_code == 0
    return path


def test_a_workspace_with_yaml_timestamps_is_read_by_every_command(db, tmp_path):
    text = EXAMPLE.read_text(encoding="utf-8")
    text = text.replace("start: 2026-12-01", "start: 2026-12-01 00:00:00")
    assert "2026-12-01 00:00:00" in text, "the example starts on 2026-12-01"
    text = text.replace("commitment_end: 2027-06-30", "commitment_end: 2027-06-30T00:00:00Z")
    path = tmp_path / "timestamps.yaml"
    path.write_text(text, encoding="utf-8")
    imported = runner.invoke(app, ["workspace", "import", str(path), "--db", str(db)])
    assert imported.exit_code == 0, imported.output
    with Warehouse.open(db, read_only=True) as warehouse:
        _, body = current_workspace(warehouse)
    assert body["start"] == "2026-12-01"
    for command in (
        ["workspace", "export"],
        ["scenarios", "--format", "json"],
        ["commit"],
        ["optimize"],
    ):
        done = runner.invoke(app, [*command, "--db", str(db)])
        assert done.exit_code == 0, (command, done.output[-500:])
        assert "is not a date" not in done.output
    exported = runner.invoke(app, ["workspace", "export", "--db", str(db)]).output
    assert "start: '2026-12-01'" in exported


def test_reading_a_workspace_file_refuses_a_pipe_without_blocking(tmp_path):
    with pytest.raises(WorkspaceFileError, match="not a regular file"):
        read_workspace(_fifo(tmp_path))
