"""Tables laid out for a 1280 px window: the leading columns that fit, every width set; fleet
tables and the what-ifs line read as words, never stored ids or URL keys."""

from __future__ import annotations

import pandas as pd

from app import ui
from app.models.scenarios import fleet_frame, what_ifs_sentence


def _wide(columns: int) -> pd.DataFrame:
    return pd.DataFrame({f"column {n}": ["a value of some length"] * 3 for n in range(columns)})


def test_a_wide_table_shows_the_leading_columns_that_fit_and_sets_every_width():
    frame = _wide(12)
    shown, config = ui.fitted(frame, None)
    assert shown == list(frame.columns[: len(shown)])  # the page's order, none skipped
    assert 1 <= len(shown) < 12
    widths = [config[c]["width"] for c in frame.columns]
    assert all(isinstance(w, int) and w > 0 for w in widths)
    assert sum(widths[: len(shown)]) <= ui.FIT_PX
    assert sum(widths[: len(shown) + 1]) > ui.FIT_PX


def test_a_narrow_table_shows_every_column_and_keeps_its_labels():
    frame = pd.DataFrame({"a": [1.5], "b": ["x"]})
    shown, config = ui.fitted(frame, {"a": "Price", "b": {"label": "Name", "help": "h"}})
    assert shown == ["a", "b"]
    assert config["a"]["label"] == "Price"
    assert config["b"]["label"] == "Name" and config["b"]["help"] == "h"


def test_a_column_hidden_on_purpose_stays_hidden():
    frame = pd.DataFrame({"a": [1], "secret": [2]})
    shown, _ = ui.fitted(frame, {"secret": None})
    assert shown == ["a"]


def test_a_fleet_table_reads_labels_not_stored_ids():
    rows = [
        {
            "workload": "chat",
            "instance_type": "p5.48xlarge",
            "pricing_model": "reserved_1y",
            "backend": "rocm",
            "usd_per_hour": 31.46,
            "monthly_usd": 100.0,
        }
    ]
    frame = fleet_frame(rows)
    assert list(frame.columns) == [
        "Workload",
        "Instance type",
        "Pricing model",
        "Backend",
        "$/hour",
        "$/month",
    ]
    assert frame.loc[0, "Pricing model"] == "Reserved 1 yr"
    assert frame.loc[0, "Backend"] == "ROCm (AMD)"
    assert frame.loc[0, "$/hour"] == 31.46  # numbers stay numbers
    sized = fleet_frame([{"pricing_model": "on_demand held at peak"}])
    assert sized.loc[0, "Pricing model"] == "On demand held at peak"


def test_the_what_ifs_line_names_each_input():
    said = what_ifs_sentence({"inter": 1.0, "pct": "p99", "slo": 1500.0})
    assert said == "Interactive share 1; Latency percentile p99; FTL SLO (ms) 1500"
    assert "=" not in said


def test_a_move_that_changes_nothing_says_why_and_its_saving_has_no_escape(app_env):
    """On the example read on measured results only, Add CPU fallback moves no traffic (no CPU
    result for its small model; estimated capacity would serve it): the page says so in words,
    and its saving sentence is plain text (the page escapes it once, so no literal backslash
    shows)."""
    from dataclasses import replace

    from app.models.scenarios import savings_sentence, unchanged_reason
    from planning.evaluation import evaluate
    from planning.workspaces import Knobs, engine_for, stored_workspace
    from warehouse import Warehouse

    with Warehouse.open(app_env, read_only=True) as warehouse:
        _, ws = stored_workspace(warehouse)
        ws = replace(ws, constraints=replace(ws.constraints, allow_estimates=False))
        engine = engine_for(warehouse, ws)
    evaluation = evaluate(engine, ws, Knobs())
    cpu = next(r for r in evaluation.plans if "CPU" in r.name)
    said = unchanged_reason(cpu, evaluation.stay)
    assert said and said.startswith(f"{cpu.name} changes nothing")
    assert "no CPU result" in said, said
    assert unchanged_reason(evaluation.stay, evaluation.stay) is None
    assert "\\" not in savings_sentence(cpu)
