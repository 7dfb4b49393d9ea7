"""The server-side half of ``app.downloads``: middleware in front of Streamlit's ``/media/`` route.

In team mode (sign-in configured) a request for a downloadable file is served only when it
carries a sign-in cookie recorded for that file's bytes by ``app.downloads``; any other request,
a cookie-less one included, gets the same "404 File not found" Streamlit gives for an address it
does not hold, so the answer does not even tell whether the file exists (an address is a hash of
the bytes: existence alone would confirm a guessed file). Files drawn on the page rather than
downloaded (the favicon) are served as Streamlit serves them.

In single-user mode (no sign-in) there is no cookie to tell one visitor from another, and none is
needed: every visitor is the local user, with every right, on a server that binds 127.0.0.1
unless told otherwise (``tokendesk app --host`` says to bind wider only with sign-in or behind
access control of one's own). Downloads are served as Streamlit serves them.
"""

from __future__ import annotations

from collections.abc import Mapping

from starlette.requests import HTTPConnection
from starlette.responses import PlainTextResponse
from starlette.types import ASGIApp, Receive, Scope, Send
from streamlit import config, runtime
from streamlit.runtime.media_file_storage import MediaFileKind
from streamlit.url_util import make_url_path

from app import auth
from app.downloads import OWNERS, session_fingerprint

#: What Streamlit's media route answers for an address it does not hold.
NOT_FOUND = PlainTextResponse("File not found", status_code=404)


class DownloadGuard:
    """Pure ASGI middleware (it sees every request before Streamlit's own routes do)."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http":
            file_id = media_file_id(scope)
            if file_id is not None and not may_fetch(file_id, HTTPConnection(scope).cookies):
                await NOT_FOUND(scope, receive, send)
                return
        await self.app(scope, receive, send)


def media_file_id(scope: Scope) -> str | None:
    """The file id of a request Streamlit's media route would answer (its route is
    ``<base>/media/{file_id:path}``, whatever the method); None for any other request."""
    prefix = make_url_path(config.get_option("server.baseUrlPath") or "", "media/")
    path = _route_path(scope)
    if not path.startswith(prefix) or len(path) == len(prefix):
        return None
    return path[len(prefix) :]


def _route_path(scope: Scope) -> str:
    """The path Starlette's router matches: the request path less the ASGI ``root_path``."""
    path: str = scope["path"]
    root: str = scope.get("root_path", "")
    if root and path.startswith(root) and path[len(root) : len(root) + 1] in ("", "/"):
        return path[len(root) :]
    return path


def may_fetch(file_id: str, cookies: Mapping[str, str]) -> bool:
    if not auth.team_mode():
        return True
    files = runtime.get_instance().media_file_mgr
    if not files.can_read_files:
        return False  # a storage this guard cannot read: refuse rather than guess
    stored = files.read_file(file_id)
    if stored is None:
        return True  # Streamlit answers "not found" itself
    if stored.kind != MediaFileKind.DOWNLOADABLE:
        return True
    return OWNERS.may_fetch(stored.content, session_fingerprint(cookies))
