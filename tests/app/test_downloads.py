"""Downloads bound to the sign-in cookie of the session that made them (``app.downloads``) and the
middleware that serves them only to it (``app.download_guard``), without a server: the guard runs
around a stand-in for Streamlit's routes, over a stand-in for its media storage. The real server,
signed in at a real provider, is driven in tests/e2e/test_download_owner_e2e.py."""

from __future__ import annotations

import ast
import subprocess
import sys
import textwrap
from pathlib import Path
from types import SimpleNamespace

import pytest
from starlette.applications import Starlette
from starlette.responses import PlainTextResponse, Response
from starlette.routing import Route
from starlette.testclient import TestClient
from streamlit.runtime.media_file_storage import MediaFileKind
from streamlit.runtime.memory_media_file_storage import MemoryFile

from app import download_guard, downloads
from app.downloads import OWNERS, Owners, as_bytes, session_fingerprint

APP = Path(download_guard.__file__).parent
ROOT = APP.parent
ADMIN = {"_streamlit_user": "2|1:0|10:1700000000|15:_streamlit_user|8:YWRtaW4=|abc"}
VIEWER = {"_streamlit_user": "2|1:0|10:1700000000|15:_streamlit_user|8:dmlld2Vy|def"}
PRICES = b"provider,quote_id,usd_per_hour\nexamplecloud,Q-1,16.0\n"


def test_a_fingerprint_is_of_the_sign_in_cookie_and_its_chunks_only():
    assert session_fingerprint({}) is None
    assert session_fingerprint({"_streamlit_xsrf": "2|aa|bb|1"}) is None
    admin = session_fingerprint(ADMIN)
    assert admin is not None and ADMIN["_streamlit_user"] not in admin
    assert session_fingerprint(VIEWER) != admin
    # The tokens cookie and unrelated cookies change nothing; a chunk of the cookie does.
    assert session_fingerprint({**ADMIN, "_streamlit_user_tokens": "t", "_ga": "x"}) == admin
    assert session_fingerprint({**ADMIN, "_streamlit_user_1": "rest"}) != admin
    # A chunk alone (its first part missing) is no sign-in cookie.
    assert session_fingerprint({"_streamlit_user_1": "rest"}) is None


def test_bytes_are_served_to_the_sessions_that_made_them():
    owners = Owners()
    admin, viewer = session_fingerprint(ADMIN), session_fingerprint(VIEWER)
    assert admin is not None and viewer is not None
    owners.grant(PRICES, admin)
    assert owners.may_fetch(PRICES, admin)
    assert not owners.may_fetch(PRICES, viewer)
    assert not owners.may_fetch(PRICES, None)
    assert not owners.may_fetch(PRICES + b"x", admin)
    owners.grant(PRICES, viewer)  # the same bytes made by the viewer too: no secret between them
    assert owners.may_fetch(PRICES, viewer) and owners.may_fetch(PRICES, admin)


def test_the_record_keeps_the_files_granted_last():
    owners = Owners(limit=2)
    for content in (b"a", b"b", b"c"):
        owners.grant(content, "s")
    assert not owners.may_fetch(b"a", "s")
    assert owners.may_fetch(b"b", "s") and owners.may_fetch(b"c", "s")
    owners.grant(b"b", "s")  # made again by a later page run: kept over c
    owners.grant(b"d", "s")
    assert owners.may_fetch(b"b", "s") and not owners.may_fetch(b"c", "s")


def test_text_is_served_as_utf8_and_other_data_is_refused_in_words():
    assert as_bytes("é") == "é".encode()
    assert as_bytes(b"\x00") == b"\x00"
    with pytest.raises(TypeError, match="must be text or bytes, not list.*to_csv"):
        as_bytes([1])  # type: ignore[arg-type]


class Column:
    """Stands in for ``st`` or a column: what the page asked to offer."""

    def __init__(self) -> None:
        self.offered: list[tuple] = []

    def download_button(self, label, data, **kwargs):
        self.offered.append((label, data, kwargs))
        return False


@pytest.fixture
def signed_in(monkeypatch):
    """A page run of the admin's session (its cookies as the websocket's handshake carried)."""
    monkeypatch.setattr(downloads, "st", SimpleNamespace(context=SimpleNamespace(cookies=ADMIN)))
    OWNERS.clear()
    yield session_fingerprint(ADMIN)
    OWNERS.clear()


def test_a_file_made_with_the_page_is_recorded_for_the_session(signed_in):
    column = Column()
    downloads.download_button(column, "YAML", "name: x\n", file_name="w.yaml", mime="text/yaml")
    ((label, data, kwargs),) = column.offered
    assert data == b"name: x\n"
    assert kwargs == {"file_name": "w.yaml", "mime": "text/yaml", "key": None}
    assert OWNERS.may_fetch(b"name: x\n", signed_in)


def test_a_file_made_on_click_is_recorded_when_it_is_made(signed_in):
    column = Column()
    downloads.download_button(column, "CSV", lambda: PRICES, file_name="p.csv", mime="text/csv")
    ((_, make, _),) = column.offered
    assert not OWNERS.may_fetch(PRICES, signed_in)  # nothing made before the click
    assert make() == PRICES
    assert OWNERS.may_fetch(PRICES, signed_in)


def test_without_a_sign_in_cookie_nothing_is_recorded(monkeypatch):
    monkeypatch.setattr(downloads, "st", SimpleNamespace(context=SimpleNamespace(cookies={})))
    OWNERS.clear()
    column = Column()
    downloads.download_button(column, "CSV", PRICES, file_name="p.csv", mime="text/csv")
    assert column.offered[0][1] == PRICES
    assert not OWNERS.may_fetch(PRICES, session_fingerprint(ADMIN))


# -- the guard ------------------------------------------------------------------------------------
STORED = {
    "prices": MemoryFile(PRICES, "text/csv", MediaFileKind.DOWNLOADABLE, "p.csv"),
    "favicon": MemoryFile(b"\x89PNG", "image/png", MediaFileKind.MEDIA, None),
    "unrecorded": MemoryFile(b"other", "text/csv", MediaFileKind.DOWNLOADABLE, "o.csv"),
}


class Files:
    """Stands in for Streamlit's media file manager (what ``read_file`` returns for an id)."""

    can_read_files = True

    def read_file(self, file_id: str):
        return STORED.get(file_id.split(".")[0])


async def _media(request):
    stored = STORED.get(request.path_params["file_id"].split(".")[0])
    if stored is None:
        return PlainTextResponse("File not found", status_code=404)
    return Response(stored.content, media_type=stored.mimetype)


def _client(monkeypatch, *, team: bool) -> TestClient:
    monkeypatch.setattr(download_guard.auth, "team_mode", lambda: team)
    files = Files()
    monkeypatch.setattr(
        download_guard.runtime, "get_instance", lambda: SimpleNamespace(media_file_mgr=files)
    )
    OWNERS.clear()
    OWNERS.grant(PRICES, session_fingerprint(ADMIN) or "")
    routes = [
        Route("/media/{file_id:path}", _media, methods=["GET", "HEAD"]),
        Route("/_stcore/health", lambda request: PlainTextResponse("ok")),
    ]
    app = Starlette(routes=routes)
    return TestClient(download_guard.DownloadGuard(app))


def test_in_team_mode_a_download_is_served_only_with_the_cookie_that_made_it(monkeypatch):
    client = _client(monkeypatch, team=True)
    for cookies in ({}, VIEWER, {"_streamlit_xsrf": "2|aa|bb|1"}):
        client.cookies.clear()
        client.cookies.update(cookies)
        answer = client.get("/media/prices.csv")
        assert (answer.status_code, answer.text) == (404, "File not found")
        assert client.head("/media/prices.csv").status_code == 404
    client.cookies.clear()
    client.cookies.update(ADMIN)
    assert client.get("/media/prices.csv").content == PRICES
    # A downloadable file nobody recorded (made past app.downloads) is refused to everyone.
    assert client.get("/media/unrecorded.csv").status_code == 404
    # A file drawn on the page (the favicon) is served as Streamlit serves it; so is every other
    # route; an address Streamlit does not hold gets Streamlit's own answer.
    client.cookies.clear()
    assert client.get("/media/favicon.png").content == b"\x89PNG"
    assert client.get("/_stcore/health").text == "ok"
    assert client.get("/media/nothing.csv").status_code == 404
    OWNERS.clear()


def test_in_single_user_mode_downloads_are_served_as_streamlit_serves_them(monkeypatch):
    client = _client(monkeypatch, team=False)
    assert client.get("/media/prices.csv").content == PRICES
    assert client.get("/media/unrecorded.csv").content == b"other"
    OWNERS.clear()


def test_the_guard_covers_the_media_route_under_a_base_path(monkeypatch):
    options = {"server.baseUrlPath": "/desk/"}
    monkeypatch.setattr(download_guard.config, "get_option", options.__getitem__)
    assert download_guard.media_file_id({"path": "/desk/media/abc.csv"}) == "abc.csv"
    assert download_guard.media_file_id({"path": "/desk/media/a/b"}) == "a/b"
    assert download_guard.media_file_id({"path": "/desk/media/"}) is None
    assert download_guard.media_file_id({"path": "/desk/_stcore/health"}) is None
    assert download_guard.media_file_id({"path": "/media/abc.csv"}) is None  # not routed there
    proxied = {"path": "/proxy/desk/media/abc.csv", "root_path": "/proxy"}
    assert download_guard.media_file_id(proxied) == "abc.csv"


def _download_calls(path: Path) -> list[str]:
    """How each ``….download_button(…)`` call in ``path`` is made: ``downloads`` or another."""
    calls = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and node.func.attr == "download_button"
        ):
            owner = node.func.value
            calls.append(owner.id if isinstance(owner, ast.Name) else ast.unparse(owner))
    return calls


def test_every_download_the_dashboard_offers_goes_through_app_downloads():
    """A page calling Streamlit's download button itself would offer a file the guard refuses
    in team mode (nobody recorded it), or, worse, one whose bytes it was never told about."""
    pages = [p for p in APP.rglob("*.py") if p.name != "downloads.py"]
    calls = {str(p.relative_to(APP)): _download_calls(p) for p in pages}
    assert {name: c for name, c in calls.items() if set(c) - {"downloads"}} == {}
    assert sum(len(c) for c in calls.values()) >= 5  # the pages' five downloads


# -- the server that runs the guard ---------------------------------------------------------------
def _browser_opened(headless: bool) -> str:
    """What ``app.asgi``'s start opens in a browser (in a process of its own: building the
    ``st.App`` fixes Streamlit's script path for the whole process)."""
    script = textwrap.dedent(
        f"""
        import asyncio
        from streamlit import cli_util, config
        config.set_option("server.headless", {headless})
        config.set_option("server.port", 8642)
        config.set_option("server.address", "127.0.0.1")
        import app.asgi as served
        assert served.app.script_path.name == "streamlit_app.py"
        opened = []
        cli_util.open_browser = opened.append
        async def start():
            async with served.open_a_browser(served.app):
                await asyncio.sleep(0)
        asyncio.run(start())
        print(opened)
        """
    )
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, cwd=ROOT, timeout=120
    )
    assert done.returncode == 0, done.stderr
    return done.stdout.strip()


def test_the_served_dashboard_opens_a_browser_unless_headless():
    assert _browser_opened(headless=False) == "['http://127.0.0.1:8642']"
    assert _browser_opened(headless=True) == "[]"
