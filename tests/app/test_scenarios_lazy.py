"""The Scenarios page draws only what is open: a closed plan's tables and charts, and the tabs
not shown, are not sent to the browser (each cost it as much as one in view)."""

from __future__ import annotations

import json

from streamlit.testing.v1 import AppTest

from tests.app.pages import VIEWS


def test_only_the_open_plan_and_tab_are_drawn(app_env):
    at = AppTest.from_file(str(VIEWS / "scenarios.py"), default_timeout=120)
    at.run()
    assert not at.exception, at.exception
    charts = [c.proto.id for c in at.get("plotly_chart")]
    assert not [c for c in charts if "gantt_" in c], charts  # timelines: unopened tabs
    assert any("curve" in c for c in charts)
    # The optimal fleet's 36-month path is drawn beside the plans'.
    curve = next(c for c in at.get("plotly_chart") if "curve" in c.proto.id)
    names = [trace["name"] for trace in json.loads(curve.proto.spec)["data"]]
    assert names == ["Stay", "Shift 25% to AMD", "Add CPU fallback", "Optimal"], names
    fleets = [d.value for d in at.dataframe if "Pricing model" in d.value.columns]
    assert len(fleets) == 1  # Stay's fleet: the one plan open to begin with
    titles = [e.label for e in at.expander]
    assert len([t for t in titles if "/month" in t]) == 3  # Stay and both moves still listed
    # How much to commit: the section listed, its tables not drawn until opened.
    assert "Every commitment, and under each scenario" in titles
    assert not [d for d in at.dataframe if "Commitment" in d.value.columns]
