"""A new user enters their own workspace on the Workspace page: start from empty tables, add the
workloads and the fleet lines (instances found by search over the current prices), in people's
units, with problems that name the line as they see it; the header follows the save.

Over the warehouse built from the shipped seed (it prices Azure's Standard_ND96isr_MI300X_v5)."""

from __future__ import annotations

from streamlit.testing.v1 import AppTest

from app.models import workspace as model
from app.safe import plain
from tests.app.pages import VIEWS, open_section
from tests.factories import fixture_workspace
from warehouse import Warehouse
from warehouse.workspace_versions import current_workspace

NEAREST = "did you mean Standard_ND96isr_MI300X_v5?"
MORE_SETTINGS = "ws_more_settings_open"


def _page() -> AppTest:
    at = AppTest.from_file(str(VIEWS / "workspace.py"), default_timeout=180)
    at.run()
    assert not at.exception, at.exception
    return at


def _header(at: AppTest) -> str:
    captions = (c.value.replace("\\", "") for c in at.caption)  # markdown escapes
    return next(c for c in captions if c.startswith(("Current:", "Editing:")))


def test_the_demand_table_reads_in_peoples_units_and_saves_what_they_type():
    ws = fixture_workspace()
    rows = model.demand_rows(ws)
    assert rows[0]["output_tokens_per_month"] == "10 B"  # not 1.000e+10
    assert rows[0]["ttft_ms"] == "2,000 ms"  # not 2000.00
    assert rows[0]["growth_per_quarter"] == "0 %/qtr"
    rows[0].update(output_tokens_per_month="30B", ttft_ms="1,500 ms", growth_per_quarter="10 %")
    edited, problems = model.edited_workspace(ws, model.fleet_rows(ws), rows)
    assert problems == [] and edited is not None
    chat = edited.demand[0]
    assert (chat.output_tokens_per_month, chat.ttft_ms, chat.growth_per_quarter) == (
        30e9,
        1500,
        0.1,
    )
    rows[1]["input_tokens_per_month"] = "2 GB"
    _, problems = model.edited_workspace(ws, model.fleet_rows(ws), rows)
    assert problems[0].startswith(f"Workload 2 ({ws.demand[1].workload}), Input tokens / month:")
    assert "K, M, B or T" in problems[0]


def test_input_tokens_not_stated_show_as_an_empty_cell_not_zero_and_stay_not_stated():
    """Empty input tokens mean "not stated" (capacity is read at the results' own mix): the table
    must not tell the person the workload sends no prompts, and saving the empty cell keeps it
    empty (None), never 0, which would make the cost per total token the cost per output token.
    """
    import dataclasses

    ws = fixture_workspace()
    first = dataclasses.replace(ws.demand[0], input_tokens_per_month=None)
    ws = dataclasses.replace(ws, demand=(first, *ws.demand[1:]))
    rows = model.demand_rows(ws)
    assert rows[0]["input_tokens_per_month"] == ""
    edited, problems = model.edited_workspace(ws, model.fleet_rows(ws), rows)
    assert problems == [] and edited is not None
    assert edited.demand[0].input_tokens_per_month is None
    # A typed 0 is kept as typed.
    rows[0]["input_tokens_per_month"] = "0"
    edited, _ = model.edited_workspace(ws, model.fleet_rows(ws), rows)
    assert edited is not None and edited.demand[0].input_tokens_per_month == 0.0


def test_every_empty_demand_cell_saves_as_not_stated_or_its_stated_default_never_zero():
    ws = fixture_workspace()
    rows = model.demand_rows(ws)
    for column in ("input_tokens_per_month", "interactive_share", "peak_to_mean", "ttft_ms"):
        rows[0][column] = ""
    rows[1]["interactive_share"] = float("nan")  # an emptied number cell comes back as NaN
    edited, problems = model.edited_workspace(ws, model.fleet_rows(ws), rows)
    assert problems == [] and edited is not None
    chat, routing = edited.demand
    assert chat.input_tokens_per_month is None
    # The schema's stated defaults (costmodel.workspace_model.Workload), not 0.
    assert (chat.interactive_share, chat.peak_to_mean, chat.ttft_ms) == (1.0, 1.5, 2000.0)
    assert routing.interactive_share == 1.0


def test_the_add_a_workload_fields_keep_empty_input_tokens_empty():
    row, problem = model.new_workload_row(
        "batch", "llama-3.1-8b-instruct", "5 B", "", "1,000 ms", "p95", "", 1.5
    )
    assert problem is None and row["input_tokens_per_month"] == ""
    ws = fixture_workspace()
    edited, problems = model.edited_workspace(
        ws, model.fleet_rows(ws), [*model.demand_rows(ws), row]
    )
    assert problems == [] and edited is not None
    assert edited.workload("batch").input_tokens_per_month is None


def test_every_empty_optional_fleet_cell_saves_as_not_stated():
    ws = fixture_workspace()
    fleet = model.fleet_rows(ws)
    assert fleet[0]["usd_per_hour"] and fleet[0]["commitment_end"]
    fleet[0]["usd_per_hour"] = ""  # the list price
    fleet[0]["early_termination_usd"] = ""  # unknown: paid until the end
    edited, problems = model.edited_workspace(ws, fleet, model.demand_rows(ws))
    assert problems == [] and edited is not None
    assert edited.fleet[0].usd_per_hour is None and edited.fleet[0].early_termination_usd is None


def test_empty_settings_save_as_not_stated_and_an_empty_one_time_cost_is_named():
    ws = fixture_workspace()
    fields = model.settings_fields(ws)
    fields |= {"discount_1y": "", "discount_3y": " "}
    fields["scenarios"] = [
        {"name": "base", "probability": 1.0, "demand_factor": None, "growth_per_quarter": ""}
    ]
    settings = model.settings_from_fields(fields, owned=False)
    edited, problems = model.edited_workspace(
        ws, model.fleet_rows(ws), model.demand_rows(ws), lambda: settings
    )
    assert problems == [] and edited is not None
    assert edited.commitment.discount_1y is None and edited.commitment.discount_3y is None
    (scenario,) = edited.commitment.scenarios
    assert scenario.growth_per_quarter is None and scenario.demand_factor == 1.0
    fields["one_time"] = [{"backend": "rocm", "usd": None}]
    settings = model.settings_from_fields(fields, owned=False)
    _, problems = model.edited_workspace(
        ws, model.fleet_rows(ws), model.demand_rows(ws), lambda: settings
    )
    assert problems and "0 when there is none" in problems[0], problems


def test_the_fleet_table_shows_pricing_models_in_words_and_stores_the_id():
    ws = fixture_workspace()
    fleet = model.fleet_rows(ws)
    assert {row["pricing_model"] for row in fleet} >= {"On demand"}
    fleet[0]["pricing_model"] = "Reserved 1 yr"
    fleet[0]["commitment_end"] = "2027-06-30"
    edited, problems = model.edited_workspace(ws, fleet, model.demand_rows(ws))
    assert problems == [] and edited is not None
    assert edited.fleet[0].pricing_model == "reserved_1y"


def test_a_loosely_written_instance_is_named_from_1_with_the_nearest_catalog_type(app_env):
    from planning.workspaces import engine_for, pricing_problems

    ws = fixture_workspace()
    fleet = model.fleet_rows(ws)
    fleet[1].update(
        provider="azure", region="eastus", instance_type="ND96isr MI300X v5", usd_per_hour=""
    )
    edited, problems = model.edited_workspace(ws, fleet, model.demand_rows(ws))
    assert problems == [] and edited is not None
    with Warehouse.open(app_env, read_only=True) as wh:
        (problem,) = pricing_problems(engine_for(wh), edited)
    assert problem.startswith(
        "Fleet line 2 (ND96isr MI300X v5), $/hour (effective): no current on demand list price"
    )
    assert problem.endswith(NEAREST)
    assert "fleet[" not in problem  # the YAML path only where a file is fixed


def test_the_catalog_search_finds_the_instance_however_it_is_written(app_env):
    from warehouse.catalog_queries import instance_catalog

    with Warehouse.open(app_env, read_only=True) as wh:
        catalog = instance_catalog(wh)
    for query in ("ND96isr MI300X v5", "mi300x", "standard_nd96isr"):
        found = model.search_catalog(catalog, query)
        assert "Standard_ND96isr_MI300X_v5" in set(found["instance_type"]), query
    (row,) = model.search_catalog(catalog, "ND96isr MI300X v5").to_dict("records")
    text = model.sku_text(row)
    assert text.startswith("Standard_ND96isr_MI300X_v5 — 8 × AMD Instinct MI300X 192GB — $")
    assert "/h on demand (" in text
    undated = catalog[catalog["instance_type"] == "g6e.xlarge"].to_dict("records")[0]
    assert model.sku_text(undated).endswith("$1.86/h on demand (date unknown)")


def test_start_my_own_add_search_and_save_and_the_header_follows(writable_env):
    at = _page()
    assert "version 1 (the bundled example)" in _header(at)
    at.button(key="ws_start_own").click().run()
    assert not at.exception, at.exception
    assert _header(at).startswith("Editing: **My company** — not saved yet")
    g = 1  # every widget starts afresh with the new workspace
    assert at.dataframe(key=f"ws_fleet_{g}").value.empty
    assert at.dataframe(key=f"ws_demand_{g}").value.empty
    at.text_input(key=f"ws_name_{g}").set_value("Acme")
    for field, value in (
        ("workload", "chat-70b"),
        ("model", "llama-3.3-70b-instruct"),
        ("output", "30B"),
        ("slo", "1,500 ms"),
        ("growth", "10 %/qtr"),
    ):
        at.text_input(key=f"ws_new_{field}_{g}").set_value(value)
    at.button(key=f"FormSubmitter:ws_add_workload_form_{g}-Add workload").click().run()
    assert not at.exception and not at.error, [e.value for e in at.error]
    g += 1
    (row,) = at.dataframe(key=f"ws_demand_{g}").value.to_dict("records")
    assert (row["output_tokens_per_month"], row["ttft_ms"]) == ("30 B", "1,500 ms")
    at.text_input(key=f"ws_sku_search_{g}").set_value("ND96isr MI300X v5").run()
    (choice,) = at.selectbox(key=f"ws_sku_{g}").options
    assert "Standard_ND96isr_MI300X_v5 — 8 × AMD Instinct MI300X 192GB" in choice
    at.number_input(key=f"ws_line_count_{g}").set_value(2)
    at.text_input(key=f"ws_line_region_{g}").set_value("eastus")
    at.button(key=f"ws_add_line_{g}").click().run()
    assert not at.exception and not at.error, [e.value for e in at.error]
    g += 1
    # A new workspace asks for its approved providers (the example's are not carried over):
    # the field starts empty and a save without them, or "Any provider", is refused.
    assert at.text_input(key=f"ws_providers_{g}").value == ""
    assert any("Which providers may you buy from?" in w.value for w in at.warning)
    at.button(key=f"ws_save_{g}").click().run()
    assert [e.value for e in at.error] == [f"Not saved — {plain(model.PROVIDERS_UNCHOSEN)}"]
    at.text_input(key=f"ws_providers_{g}").set_value("azure")
    at.button(key=f"ws_save_{g}").click().run()
    assert not at.exception and not at.error, [e.value for e in at.error]
    assert any("Saved as version 2" in s.value for s in at.success)
    assert _header(at) == "Current: **Acme**, version 2."
    with Warehouse.open(writable_env, read_only=True) as wh:
        version, body = current_workspace(wh) or (None, {})
    assert version == 2 and body["name"] == "Acme"
    assert body["fleet"] == [
        {
            "provider": "azure",
            "region": "eastus",
            "instance_type": "Standard_ND96isr_MI300X_v5",
            "count": 2,
            "pricing_model": "on_demand",
            "serves": "chat-70b",
        }
    ]
    (chat,) = body["demand"]
    assert chat["output_tokens_per_month"] == 30e9 and chat["growth_per_quarter"] == 0.1
    assert chat["slo"] == {"ttft_ms": 1500.0, "percentile": "p95"}
    assert body["constraints"]["providers"] == ["azure"]


def test_the_settings_beyond_the_tables_are_edited_on_the_page_and_kept_on_save(writable_env):
    from datetime import date

    from planning.workspaces import example_workspace

    at = open_section(_page(), MORE_SETTINGS)
    at.date_input(key="ws_start").set_value(date(2027, 1, 1))
    at.text_input(key="ws_discount_1y").set_value("0.3")
    at.checkbox(key="ws_allow_owned").check()
    assert at.checkbox(key="ws_allow_spot").value is False  # the default: no spot
    at.checkbox(key="ws_allow_spot").check()
    at.button(key="ws_save").click().run()
    assert not at.exception and not at.error, [e.value for e in at.error]
    with Warehouse.open(writable_env, read_only=True) as wh:
        _, body = current_workspace(wh) or (None, {})
    example = example_workspace()
    assert body["start"] == "2027-01-01"
    assert body["commitment"]["discount_1y"] == 0.3
    assert body["commitment"]["discount_3y"] == example.commitment.discount_3y
    assert [s["name"] for s in body["commitment"]["scenarios"]] == ["low", "base", "high"]
    assert body["constraints"]["allow_owned"] is True
    assert body["constraints"]["allow_spot"] is True
    assert example.owned is not None and body["owned"]["pue"] == example.owned.pue

    at = open_section(_page(), MORE_SETTINGS)
    frame = at.dataframe(key="ws_scenarios").value
    assert list(frame["growth_per_quarter"]) == ["0 %/qtr", "", "20 %/qtr"]
    at.text_input(key="ws_discount_3y").set_value("1.5")
    at.button(key="ws_save").click().run()
    (problem,) = [e.value.replace("\\", "") for e in at.error]  # markdown escapes
    assert problem == (
        "Not saved — 3-year committed discount: Discount off the on-demand rate must be a number"
        " between 0 and 0.95 (0% to 95% off on-demand), got 1.5"
    )


def test_a_line_named_with_control_characters_is_named_cleanly():
    from costmodel.workspace_model import WorkspaceError
    from planning.workspaces import problem_in_words
    from tokendesk.textsafety import has_control

    body = {"fleet": [{"instance_type": "p5\u202e.48x\x1b[31mlarge" + "x" * 100}]}
    text = problem_in_words(WorkspaceError("fleet[0].count", "is required"), body)
    assert not has_control(text) and "\x1b" not in text
    assert text.startswith("Fleet line 1 (p5.48xlargexxx") and text.endswith(
        "x…), Count: is required"
    )
    huge = {"fleet": [{"instance_type": 10**5000}]}
    assert problem_in_words(WorkspaceError("fleet[0].count", "is required"), huge) == (
        "Fleet line 1, Count: is required"
    )


def test_a_new_workspace_does_not_inherit_the_examples_approved_providers():
    from planning.workspaces import example_workspace

    example = example_workspace()
    assert example.constraints.providers  # the example approves some: the test would pass idly
    own = model.start_own(example)
    assert own.constraints.providers is None and own.constraints.regions is None
    assert own.constraints.max_vendor_share == example.constraints.max_vendor_share
    assert model.providers_problem(None, False) == model.PROVIDERS_UNCHOSEN
    assert model.providers_problem(("aws",), False) is None
    assert model.providers_problem(None, True) is None
