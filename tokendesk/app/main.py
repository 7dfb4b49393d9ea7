"""Dashboard entry point: ``tokendesk app`` (or ``streamlit run tokendesk/app/main.py``)."""

from __future__ import annotations

from pathlib import Path

import streamlit as st

PAGES = Path(__file__).parent / "views"

st.set_page_config(page_title="tokendesk", page_icon="🪙", layout="wide")

navigation = st.navigation(
    [
        st.Page(PAGES / "costs.py", title="Costs", icon="💲", url_path="costs", default=True),
    ]
)
navigation.run()
