"""The check every test of a link back to the dashboard shares: each key is one the Scenarios page
reads, each value one it accepts."""

from __future__ import annotations

from urllib.parse import parse_qsl, urlparse

from app import url_state
from app.models.scenarios import INPUTS, accepted_keys
from planning import what_ifs as si


def assert_the_scenarios_page_accepts(link: str) -> dict[str, str]:
    """The link's keys, each one the Scenarios page reads, each value within its bounds."""
    parsed = urlparse(link)
    assert parsed.path.endswith("/scenarios"), link
    pairs = parse_qsl(parsed.query, keep_blank_values=True, strict_parsing=bool(parsed.query))
    params = dict(pairs)
    assert len(params) == len(pairs), f"a key repeats in {link}"
    assert set(params) <= accepted_keys(), set(params) - accepted_keys()
    _, rejected = si.from_params({k: v for k, v in params.items() if k in si.PAGE_KEYS})
    assert not rejected, rejected
    _, notices = url_state.read(params, INPUTS)
    assert not notices, notices
    return params
