"""The protocol-level Streamlit client that ``perf/bench_ws_load.py`` drives the dashboard with:
what it concludes from each ForwardMsg, and one real dashboard driven over its websocket."""

from __future__ import annotations

import asyncio
import concurrent.futures

import pytest
from streamlit.proto.Alert_pb2 import Alert
from streamlit.proto.ForwardMsg_pb2 import ForwardMsg
from streamlit.proto.Slider_pb2 import Slider

from tests.e2e.server import start_dashboard
from tests.streamlit_ws import PageRun, RunReader, Session, Widget, changed_state


def _element(kind: str, **values) -> ForwardMsg:
    msg = ForwardMsg()
    inner = getattr(msg.delta.new_element, kind)
    for name, value in values.items():
        setattr(inner, name, value)
    return msg


def _finished(status: int) -> ForwardMsg:
    msg = ForwardMsg()
    msg.script_finished = status
    return msg


def test_a_run_ends_only_at_script_finished_and_not_at_a_rerun_the_script_asked_for():
    reader = RunReader(PageRun("costs"))
    assert not reader.feed(_element("markdown", body="Cheapest $/1K output tokens"))
    assert not reader.feed(_finished(ForwardMsg.FINISHED_EARLY_FOR_RERUN))
    assert not reader.run.finished
    assert reader.feed(_finished(ForwardMsg.FINISHED_SUCCESSFULLY))
    assert reader.run.ok


def test_an_exception_an_error_box_and_bad_text_are_problems_and_notices_are_apart():
    reader = RunReader(PageRun("prices"))
    reader.feed(_element("exception", type="ValueError", message="bad"))
    reader.feed(_element("alert", body="This page could not be drawn", format=Alert.ERROR))
    reader.feed(_element("markdown", body="Source: None"))
    reader.feed(_element("alert", body="The catalog on h does not answer.", format=Alert.WARNING))
    reader.feed(_element("alert", body="Prices are 40 days old", format=Alert.WARNING))
    reader.feed(_finished(ForwardMsg.FINISHED_WITH_COMPILE_ERROR))
    assert reader.run.problems == [
        "exception: ValueError: bad",
        "error box: This page could not be drawn",
        "markdown shows None: Source: None",
        "the page script did not compile",
    ]
    assert reader.run.notices == ["The catalog on h does not answer."]
    assert not reader.run.ok


def test_widgets_are_found_by_key_and_the_query_string_follows_the_script():
    reader = RunReader(PageRun("scenarios"))
    reader.feed(_element("slider", id="$$ID-0a1b-amd", min=0.0, max=1.0, step=0.01))
    info = ForwardMsg()
    info.page_info_changed.query_string = "amd=0.26"
    reader.feed(info)
    assert reader.run.widgets["amd"].kind == "slider"
    assert reader.query_string == "amd=0.26"


def test_a_changed_value_moves_one_step_and_back_down_at_the_top():
    slider = Slider(id="$$ID-h-amd", min=0.0, max=1.0, step=0.25, data_type=Slider.FLOAT)
    widget = Widget(slider.id, "slider", slider)
    assert list(changed_state(widget, 0.5).double_array_value.data) == [0.75]
    assert list(changed_state(widget, 1.0).double_array_value.data) == [0.75]


@pytest.fixture(scope="module")
def dashboard(tmp_path_factory):
    folder = tmp_path_factory.mktemp("ws")
    process, url = start_dashboard(folder / "ws.duckdb", folder / "app.log")
    yield url
    process.terminate()
    process.wait(timeout=20)


def test_a_real_dashboard_runs_a_page_and_a_what_if_change_to_script_finished(dashboard):
    async def visit() -> tuple[PageRun, PageRun, str, float, PageRun]:
        session = Session(dashboard)
        await session.connect()
        try:
            page = await session.open_page("scenarios")
            change = await session.change_widget("amd")
            query, sent = session.query_string, session.values["amd"]
            missing = await session.open_page("no-such-page")
            return page, change, query, sent, missing
        finally:
            await session.close()

    # In a thread of its own: a browser test earlier in the same run (Playwright's sync API)
    # leaves an event loop running in this one, where asyncio.run() refuses to start another.
    with concurrent.futures.ThreadPoolExecutor(max_workers=1) as pool:
        page, change, query, sent, missing = pool.submit(asyncio.run, visit()).result()
    assert page.ok, page.problems + page.notices
    assert {"amd", "slo"} <= set(page.widgets)
    assert change.ok, change.problems
    # The server took the new value: the page wrote it into the address, as for a user.
    assert f"amd={sent:g}" in query.split("&")
    assert [p for p in missing.problems if p.startswith("page not found")]
