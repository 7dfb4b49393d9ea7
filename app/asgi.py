"""The dashboard's server: Streamlit's own, with ``app.download_guard`` in front of its routes.

``tokendesk app`` runs ``streamlit run app/asgi.py`` (through ``app.serve``). Streamlit finds the
``st.App`` below and serves ``app/streamlit_app.py`` with its usual routes, the middleware given
here running first on every request: the only public way to reach a request before Streamlit's
``/media/`` route answers it. Running ``streamlit run app/streamlit_app.py`` instead serves the
same pages without the guard (fine for single-user mode, not for team mode).
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

import streamlit as st
from starlette.middleware import Middleware
from streamlit import cli_util, config
from streamlit.web.server import server_util

from app.download_guard import DownloadGuard


@asynccontextmanager
async def open_a_browser(_served: st.App) -> AsyncIterator[None]:
    """``tokendesk app --no-headless``: open the dashboard in a browser once it serves, as
    ``streamlit run`` does for a plain script (for an ``st.App`` it does not)."""
    if not config.get_option("server.headless"):
        address = server_util.get_display_address(config.get_option("server.address") or "")
        url = server_util.get_url(address or "localhost")
        asyncio.get_running_loop().call_soon(cli_util.open_browser, url)
    yield


app = st.App(
    Path(__file__).with_name("streamlit_app.py"),
    middleware=[Middleware(DownloadGuard)],
    lifespan=open_a_browser,
)
