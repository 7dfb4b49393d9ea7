"""Dashboard entry point: ``tokendesk app`` (or ``streamlit run app/main.py``)."""

from __future__ import annotations

from pathlib import Path

import streamlit as st

PAGES = Path(__file__).parent / "views"

st.set_page_config(page_title="tokendesk", page_icon=":material/token:", layout="wide")

#: The default page is served at the app root; its own url_path only reserves a name.
OVERVIEW = st.Page(
    PAGES / "overview.py",
    title="Overview",
    icon=":material/dashboard:",
    url_path="home",
    default=True,
)


def _overview_by_name() -> None:
    """``/overview`` (a link typed or shared by name) opens the Overview, keeping its inputs."""
    st.switch_page(OVERVIEW, query_params=st.query_params.to_dict())


navigation = st.navigation(
    [
        OVERVIEW,
        st.Page(_overview_by_name, title="Overview", url_path="overview", visibility="hidden"),
        st.Page(PAGES / "costs.py", title="Costs", icon=":material/payments:", url_path="costs"),
        st.Page(
            PAGES / "scenarios.py",
            title="Scenarios",
            icon=":material/compare_arrows:",
            url_path="scenarios",
        ),
        st.Page(PAGES / "prices.py", title="Prices", icon=":material/sell:", url_path="prices"),
        st.Page(
            PAGES / "benchmarks.py",
            title="Benchmarks",
            icon=":material/speed:",
            url_path="benchmarks",
        ),
        st.Page(
            PAGES / "memory_fit.py",
            title="Memory fit",
            icon=":material/memory:",
            url_path="memory-fit",
        ),
    ]
)
navigation.run()
