"""A protocol-level Streamlit client: one dashboard session over the server's websocket, with no
browser and nothing rendered.

It speaks what Streamlit's own front end speaks on ``/_stcore/stream``: binary ``BackMsg``
protobufs up (``rerun_script`` with the query string, the page and the widget states), binary
``ForwardMsg`` protobufs down (``new_session``, the page's deltas, ``page_info_changed`` when the
script rewrites the query string, ``script_finished``). A page run's server time is from sending
the rerun to receiving ``script_finished``; what the page showed is judged from its deltas only
(an exception element, an error box, a traceback or "None" in its text are problems; the
dashboard's plain "warehouse busy" or "catalog does not answer" notices are counted apart).

Used by ``perf/bench_ws_load.py`` (many sessions against several servers) and by the test that
runs one page on a real dashboard. The dashboard runs without sign-in here: the XSRF token and
the signed user cookie Streamlit checks on this socket only matter for a signed-in session.
"""

from __future__ import annotations

import asyncio
import re
import time
from dataclasses import dataclass, field
from typing import Any

import websockets
from streamlit.proto.Alert_pb2 import Alert
from streamlit.proto.BackMsg_pb2 import BackMsg
from streamlit.proto.ForwardMsg_pb2 import ForwardMsg
from streamlit.proto.WidgetStates_pb2 import WidgetState

#: Longest a page run may take before it counts as an error (a user would have given up).
RUN_LIMIT_S = 60.0
#: Text a page must never show a user.
BAD_TEXT = re.compile(r"Traceback|\bNone\b")
#: The dashboard's own plain notices for a warehouse it cannot read at the moment (file mode: a
#: writer holds the file; team mode: the catalog server does not answer). Not faults, but not
#: the page either: counted apart.
NOTICES = ("is being written by another tokendesk process", "does not answer")
#: Elements whose text is read for ``BAD_TEXT`` and ``NOTICES``: field holding the text.
TEXT_FIELDS = {"markdown": "body", "alert": "body", "heading": "body", "text": "body"}
FINISHED = ForwardMsg.ScriptFinishedStatus


@dataclass
class Widget:
    """A widget as the server described it in a delta: its id and its element (a protobuf)."""

    id: str
    kind: str
    element: Any

    @property
    def key(self) -> str:
        """The ``key=`` the page gave it (the id is ``$$ID-<hash>-<key>``), or ``""``."""
        parts = self.id.split("-", 2)
        return parts[2] if len(parts) == 3 and self.id.startswith("$$ID") else ""


@dataclass
class PageRun:
    """One script run as the server reported it."""

    page: str
    server_s: float = 0.0
    finished: bool = False
    problems: list[str] = field(default_factory=list)
    notices: list[str] = field(default_factory=list)
    widgets: dict[str, Widget] = field(default_factory=dict)
    messages: int = 0
    received_bytes: int = 0

    @property
    def ok(self) -> bool:
        return self.finished and not self.problems and not self.notices


class RunReader:
    """Reads the ForwardMsgs of one script run; ``feed`` says when the run has finished.

    Kept apart from the socket so what it concludes from each message can be tested alone.
    """

    def __init__(self, run: PageRun) -> None:
        self.run = run
        self.query_string: str | None = None  # the script's last st.query_params write, if any
        self.pages: dict[str, str] = {}  # url path -> page script hash, from ``navigation``

    def feed(self, msg: ForwardMsg) -> bool:
        kind = msg.WhichOneof("type")
        if kind == "delta" and msg.delta.WhichOneof("type") == "new_element":
            self._element(msg.delta.new_element)
        elif kind == "page_info_changed":
            self.query_string = msg.page_info_changed.query_string
        elif kind == "navigation":
            self.pages = {p.url_pathname: p.page_script_hash for p in msg.navigation.app_pages}
        elif kind == "page_not_found":
            self.run.problems.append(f"page not found: {msg.page_not_found.page_name}")
        elif kind == "script_finished":
            status = msg.script_finished
            if status == FINISHED.FINISHED_EARLY_FOR_RERUN:
                return False  # the script asked for a rerun (st.rerun, st.switch_page): it goes on
            if status == FINISHED.FINISHED_WITH_COMPILE_ERROR:
                self.run.problems.append("the page script did not compile")
            self.run.finished = True
            return True
        return False

    def _element(self, element: Any) -> None:
        kind = element.WhichOneof("type")
        if kind is None:
            return
        inner = getattr(element, kind)
        if kind == "exception":
            self.run.problems.append(f"exception: {inner.type}: {inner.message[:200]}")
            return
        fields = inner.DESCRIPTOR.fields_by_name
        if "id" in fields and inner.id:
            widget = Widget(inner.id, kind, inner)
            self.run.widgets[widget.key or widget.id] = widget
        text = getattr(inner, TEXT_FIELDS[kind]) if kind in TEXT_FIELDS else ""
        notice = next((n for n in NOTICES if n in text), None)
        if notice:
            self.run.notices.append(text[:200])
        elif kind == "alert" and inner.format == Alert.ERROR:
            self.run.problems.append(f"error box: {text[:200]}")
        elif BAD_TEXT.search(text):
            self.run.problems.append(f"{kind} shows {BAD_TEXT.search(text).group()}: {text[:200]}")


def drawn_value(widget: Widget) -> float:
    """The value the server drew a slider or number input with (its own, else its default)."""
    element = widget.element
    if widget.kind == "slider":
        return (list(element.value) or list(element.default))[0]
    if widget.kind == "number_input":
        return element.value if element.HasField("value") else element.default
    raise ValueError(f"no value change defined for a {widget.kind} widget ({widget.id})")


def changed_state(widget: Widget, current: float) -> WidgetState:
    """The widget's state one step away from ``current`` (up, or down at the top), as the front
    end sends it when a user moves a slider or edits a number."""
    element = widget.element
    value = current + element.step
    if value > element.max and (widget.kind == "slider" or element.has_max):
        value = current - element.step
    whole = element.data_type == type(element).INT
    state = WidgetState(id=widget.id)
    if widget.kind == "slider":
        (state.int_array_value if whole else state.double_array_value).data.append(
            int(value) if whole else value
        )
    elif whole:
        state.int_value = int(value)
    else:
        state.double_value = value
    return state


class Session:
    """One dashboard user: a websocket to ``/_stcore/stream`` and the page it is on."""

    def __init__(self, url: str, *, run_limit_s: float = RUN_LIMIT_S) -> None:
        self.stream_url = url.replace("http://", "ws://").rstrip("/") + "/_stcore/stream"
        self.run_limit_s = run_limit_s
        self.query_string = ""
        self.pages: dict[str, str] = {}
        self.page = ""
        self.widgets: dict[str, Widget] = {}
        # The value this user last set per widget key: a widget drawn from the URL may report
        # only its default, and a change must move away from what the user already set.
        self.values: dict[str, float] = {}
        self._socket: Any = None

    async def connect(self) -> None:
        # The front end offers the "streamlit" subprotocol (then an XSRF token and a session id
        # to resume; none here). Frames can be large (a table's Arrow bytes): no size cap.
        self._socket = await websockets.connect(
            self.stream_url, subprotocols=["streamlit"], max_size=None, open_timeout=30
        )

    async def close(self) -> None:
        if self._socket is not None:
            await self._socket.close()
            self._socket = None

    async def open_page(self, path: str) -> PageRun:
        """Go to a page by its URL path (``""`` is the default page), as a sidebar link does."""
        message = BackMsg()
        message.rerun_script.query_string = ""
        if path in self.pages:
            message.rerun_script.page_script_hash = self.pages[path]
        else:  # the first visit: the server finds the page by its name, as for a typed URL
            message.rerun_script.page_name = path
        return await self._run(message, path or "(default)")

    async def change_widget(self, key: str) -> PageRun:
        """Change the widget with ``key`` on the current page to another value and rerun."""
        widget = self.widgets.get(key)
        if widget is None:
            raise KeyError(f"no widget with key {key!r} on the page {self.page!r}")
        message = BackMsg()
        message.rerun_script.query_string = self.query_string
        message.rerun_script.page_script_hash = self.pages.get(self.page, "")
        state = changed_state(widget, self.values.get(key, drawn_value(widget)))
        kind = state.WhichOneof("value")
        value = getattr(state, kind)
        self.values[key] = value.data[0] if kind.endswith("array_value") else value
        message.rerun_script.widget_states.widgets.append(state)
        return await self._run(message, self.page or "(default)")

    async def _run(self, message: BackMsg, page: str) -> PageRun:
        run = PageRun(page)
        reader = RunReader(run)
        started = time.perf_counter()
        try:
            await self._socket.send(message.SerializeToString())
            async with asyncio.timeout(self.run_limit_s):
                while True:
                    raw = await self._socket.recv()
                    run.messages += 1
                    run.received_bytes += len(raw)
                    msg = ForwardMsg()
                    msg.ParseFromString(raw)
                    if reader.feed(msg):
                        break
        except TimeoutError:
            run.problems.append(f"no script_finished within {self.run_limit_s:g} s")
        except websockets.ConnectionClosed as exc:
            run.problems.append(f"connection closed: {exc}")
        run.server_s = time.perf_counter() - started
        self.pages = reader.pages or self.pages
        self.page = page if page != "(default)" else ""
        # What the address bar holds now: the script's rewrite, else what this rerun sent.
        sent = message.rerun_script.query_string
        self.query_string = sent if reader.query_string is None else reader.query_string
        self.widgets = run.widgets
        return run
