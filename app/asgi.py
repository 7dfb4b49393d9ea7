"""The dashboard's server: Streamlit's own, with ``app.download_guard`` in front of its routes.

``tokendesk app`` runs ``streamlit run app/asgi.py`` (through ``app.serve``). Streamlit finds the
``st.App`` below and serves ``app/streamlit_app.py`` with its usual routes, the middleware given
here running first on every request: the only public way to reach a request before Streamlit's
``/media/`` route answers it. Running ``streamlit run app/streamlit_app.py`` instead serves the
same pages without the guard (fine for single-user mode, not for team mode).
"""

from __future__ import annotations

from pathlib import Path

import streamlit as st
from starlette.middleware import Middleware

from app.download_guard import DownloadGuard

app = st.App(
    Path(__file__).with_name("streamlit_app.py"),
    middleware=[Middleware(DownloadGuard)],
)
