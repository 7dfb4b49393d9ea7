"""Helpers the page tests share: where the page scripts are and how to read a drawn chart."""

import base64
import json
import re

import numpy as np

from tokendesk.paths import REPO_ROOT

VIEWS = REPO_ROOT / "app" / "views"


def shown(markdown: str) -> str:
    """What a reader sees of a Markdown string that carries escaped outside text (``app.safe``):
    backslash escapes resolved, word joiners dropped."""
    return re.sub(r"\\(.)", r"\1", markdown).replace("\u2060", "")


def plain(value):
    """Plotly sends numeric arrays as base64 typed arrays; turn them back into lists."""
    if isinstance(value, dict) and "bdata" in value:
        return np.frombuffer(base64.b64decode(value["bdata"]), dtype=value["dtype"]).tolist()
    if isinstance(value, dict):
        return {k: plain(v) for k, v in value.items()}
    if isinstance(value, list):
        return [plain(v) for v in value]
    return value


def chart(at, key):
    """The plotly figure a page drew under ``key``, as plain JSON."""
    charts = [c for c in at.get("plotly_chart") if key in c.proto.id]
    assert charts, f"no plotly chart with key {key}"
    return plain(json.loads(charts[0].proto.spec))


def open_section(at, key: str, value: object = True):
    """Open a keyed expander (``True``) or pick a keyed tab (its label) the way a person's click
    does: the page reruns with it open."""
    at.session_state[key] = value
    at.run()
    assert not at.exception, at.exception
    return at
