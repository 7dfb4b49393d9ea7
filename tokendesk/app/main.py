"""Dashboard entry point: ``tokendesk app`` (or ``streamlit run tokendesk/app/main.py``)."""

from __future__ import annotations

from pathlib import Path

import streamlit as st

PAGES = Path(__file__).parent / "views"

st.set_page_config(page_title="tokendesk", page_icon=":material/token:", layout="wide")

navigation = st.navigation(
    [
        st.Page(PAGES / "overview.py", title="Overview", icon=":material/dashboard:", url_path="overview", default=True),
        st.Page(PAGES / "costs.py", title="Costs", icon=":material/payments:", url_path="costs"),
        st.Page(PAGES / "scenarios.py", title="Scenarios", icon=":material/compare_arrows:", url_path="scenarios"),
    ]
)
navigation.run()
