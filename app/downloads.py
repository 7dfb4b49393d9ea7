"""Download buttons whose files are served only to the signed-in session that made them.

Streamlit keeps a download button's file in memory and serves it at ``/media/<file id>`` to any
request naming that address, with or without a cookie, for as long as it keeps the file. The
address is a hash of the file's bytes: it travels in the page sent to the session and ends up in
browser histories, proxy logs and copied links. An admin's prices CSV with a negotiated quote, or
a brief, must not be readable from it by anyone else.

Every download the dashboard offers is made through ``download_button`` here. In team mode the
file's bytes are recorded (as a SHA-256 digest) with a fingerprint of the session's sign-in
cookie, and ``app.download_guard`` answers "not found" to a request for a downloadable file that
does not carry a sign-in cookie recorded for those bytes. A file generated on click is recorded
when it is generated, with the cookie of the session that drew the button.
"""

from __future__ import annotations

import hashlib
import re
import threading
from collections import OrderedDict
from collections.abc import Callable, Mapping
from typing import Any

import streamlit as st

#: Streamlit's sign-in cookie, and the chunks it splits a long one into (``_streamlit_user_1``…).
#: Its tokens cookie (``_streamlit_user_tokens``) holds no identity of its own and is left out.
SIGN_IN_COOKIE = "_streamlit_user"
_SIGN_IN_CHUNK = re.compile(r"_streamlit_user_\d+")
#: Files remembered at most (a digest and a few fingerprints each). A file whose record was
#: dropped is refused, and the next page run (or click) records it again.
REMEMBERED = 4096

Payload = str | bytes


class Owners:
    """Which sign-in cookies made which bytes: digest of the content -> cookie fingerprints.

    Shared by every session of the server process (page runs, the deferred downloads' worker
    threads and the server's event loop), hence the lock.
    """

    def __init__(self, limit: int = REMEMBERED) -> None:
        self._limit = limit
        self._owners: OrderedDict[bytes, set[str]] = OrderedDict()
        self._lock = threading.Lock()

    def grant(self, content: bytes, session: str) -> None:
        digest = hashlib.sha256(content).digest()
        with self._lock:
            self._owners.setdefault(digest, set()).add(session)
            self._owners.move_to_end(digest)
            while len(self._owners) > self._limit:
                self._owners.popitem(last=False)

    def may_fetch(self, content: bytes, session: str | None) -> bool:
        """True when ``session`` (a cookie fingerprint; None: no sign-in cookie) made ``content``."""
        if session is None:
            return False
        digest = hashlib.sha256(content).digest()
        with self._lock:
            return session in self._owners.get(digest, ())

    def clear(self) -> None:
        with self._lock:
            self._owners.clear()


#: The server process's one record.
OWNERS = Owners()


def session_fingerprint(cookies: Mapping[str, str]) -> str | None:
    """A SHA-256 fingerprint of the sign-in cookie among ``cookies`` (its chunks included); None
    when there is none. Only the fingerprint is kept, never the cookie itself."""
    if SIGN_IN_COOKIE not in cookies:
        return None
    parts = sorted(
        (name, value)
        for name, value in cookies.items()
        if name == SIGN_IN_COOKIE or _SIGN_IN_CHUNK.fullmatch(name)
    )
    digest = hashlib.sha256()
    for name, value in parts:
        digest.update(f"{name}={value}\n".encode("utf-8", "surrogatepass"))
    return digest.hexdigest()


def as_bytes(data: Payload) -> bytes:
    """The bytes Streamlit serves for ``data`` (it encodes text as UTF-8, as here)."""
    if isinstance(data, bytes):
        return data
    if isinstance(data, str):
        return data.encode("utf-8")
    raise TypeError(
        f"a download's data must be text or bytes, not {type(data).__name__}: convert it (e.g."
        " with .to_csv() or .encode()) before passing it to app.downloads.download_button"
    )


def download_button(
    where: Any,
    label: str,
    data: Payload | Callable[[], Payload],
    *,
    file_name: str,
    mime: str,
    key: str | None = None,
) -> bool:
    """``where.download_button(label, data, …)`` (``where``: ``st`` or a column), its file
    recorded for this session's sign-in cookie. ``data`` may be a callable, which Streamlit runs
    when the button is clicked; what it returns is recorded then."""
    session = session_fingerprint(st.context.cookies)
    payload: bytes | Callable[[], bytes] = (
        _recorded_when_made(data, session) if callable(data) else _recorded(as_bytes(data), session)
    )
    return bool(where.download_button(label, payload, file_name=file_name, mime=mime, key=key))


def _recorded(content: bytes, session: str | None) -> bytes:
    if session is not None:
        OWNERS.grant(content, session)
    return content


def _recorded_when_made(make: Callable[[], Payload], session: str | None) -> Callable[[], bytes]:
    def made() -> bytes:
        return _recorded(as_bytes(make()), session)

    return made
