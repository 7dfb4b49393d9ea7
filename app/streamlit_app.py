"""Dashboard entry point: ``tokendesk app`` (or ``streamlit run app/asgi.py``, which serves it behind
the download guard)."""

from __future__ import annotations

from pathlib import Path

from app import warming

warming.wait()  # a visitor who arrived while the server was starting: its imports first

import streamlit as st
from PIL import Image

from app import auth, data
from app.safe import plain
from app.ui import bundled_note
from tokendesk.access import AccessDenied
from warehouse import CatalogUnreachable, WarehouseError
from warehouse.lake import unreachable_reason
from warehouse.queries import TooManyPlanningOptions

PAGES = Path(__file__).parent / "views"
#: Team mode: PostgreSQL, which keeps the shared warehouse's catalog, does not answer (restarting,
#: down). Nothing is lost: the catalog commits whole snapshots only.
CATALOG_DOWN = (
    "The team warehouse's catalog server does not answer (it may be restarting); nothing is lost."
)

# The favicon is an image the server itself serves: a ":material/…" icon (ours or a page's) is
# fetched from a third-party font host, and the dashboard makes no request beyond its own server.
FAVICON = Image.new("RGB", (32, 32), "#2f6fd0")
st.set_page_config(page_title="tokendesk", page_icon=FAVICON, layout="wide")
# In team mode (sign-in configured) nothing below runs for a visitor who is not signed in.
user = auth.require_sign_in()

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
            PAGES / "workspace.py",
            title="Workspace",
            icon=":material/business:",
            url_path="workspace",
        ),
        st.Page(
            PAGES / "scenarios.py",
            title="Scenarios",
            icon=":material/compare_arrows:",
            url_path="scenarios",
        ),
        st.Page(
            PAGES / "futures.py",
            title="Futures day",
            icon=":material/event_upcoming:",
            url_path="futures",
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
try:
    path = data.db_path()  # looks once per run whether the warehouse changed (or is reachable)
    if data.catalog_outage(path):
        st.warning(
            CATALOG_DOWN + " What this page shows was read before it stopped answering.",
            icon=":material/cloud_off:",
        )
    auth.sidebar(user, data.hidden_negotiated_quotes(path))
    bundled_note(data.bundled_changes(path))
    navigation.run()
    warming.page_ran()
except AccessDenied as exc:  # a write asked for by a role that may not make it: nothing written
    st.warning(f"Nothing was written. {plain(exc)}")
except TooManyPlanningOptions as exc:  # a warehouse too large to plan on: what to do about it
    said = plain(exc)
    st.warning(f"Nothing to plan on this page: {said}.", icon="⚠️")
except CatalogUnreachable as exc:  # what did not happen, and that nothing is lost
    said = plain(exc)
    st.warning(f"{said[:1].upper()}{said[1:]} Reload in a moment.", icon=":material/cloud_off:")
except WarehouseError:
    # A command-line ingest or refresh holds the file: DuckDB lets one process write it and none
    # read it meanwhile. Say so, instead of Streamlit's redacted error.
    st.info(
        "The warehouse is being written by another tokendesk process (a command-line ingest,"
        " import or refresh). This page shows again when it finishes: reload in a moment.",
        icon=":material/hourglass_top:",
    )
except Exception as exc:  # the last line of defence: a plain message, never a traceback
    reason = unreachable_reason(exc)
    if reason:  # a team-mode read cut off by PostgreSQL going away, outside the engine's reads
        st.warning(
            f"The team warehouse's catalog server does not answer ({reason}); nothing is lost."
            " Reload in a moment.",
            icon=":material/cloud_off:",
        )
    else:
        st.error(
            f"This page could not be drawn ({plain(type(exc).__name__)}: {plain(exc)}). The"
            " warehouse is unchanged. Reload the page; if this persists, run `tokendesk db info`"
            " to check the warehouse."
        )
