"""One fleet, the same output volume, two shapes: the workspace's chat and Azure's code trace."""

from __future__ import annotations

import pytest

from briefs.demand_doc import trace_document
from costmodel import Engine
from costmodel.workspace_model import workspace_from_dict
from planning.shapes import shape_comparison
from tests.factories import frame
from tests.shape_data import AZURE_CODE, CHAT, PROMPT_HEAVY, chat_only


def test_the_code_trace_shape_costs_more_per_output_token_on_the_same_fleet():
    ws = workspace_from_dict(chat_only())
    engine = Engine.from_frame(frame(CHAT, PROMPT_HEAVY))
    chat, code = shape_comparison(engine, ws, "chat", trace_document(AZURE_CODE))
    # Same output volume, the trace's input:output (67.3:1) and its mean lengths.
    assert code["output_tokens_per_month"] == chat["output_tokens_per_month"] == 50e9
    assert code["input_per_output_token"] == pytest.approx(67.31, abs=0.01)
    assert chat["input_per_output_token"] == 2
    # Chat: 4 reserved p5 at $50 and 2 on demand at $80 (list), 730 h, no top-up needed.
    assert chat["stay_month1_usd"] == pytest.approx((4 * 50 + 2 * 80) * 730)
    assert chat["stay_top_up_usd"] == 0
    # Code: the fleet carries 2,400 × 6 / 17.83 tok/s per p5 (the 20:1 result, estimated), far
    # below the load, so Stay buys a top-up and each output token costs more.
    assert code["stay_top_up_usd"] > 0
    assert code["usd_per_1k_output_tokens"] > 2 * chat["usd_per_1k_output_tokens"]
    assert code["capacity_basis"][0]["kind"] == "estimated"
    assert chat["capacity_basis"][0]["kind"] == "measured"
    assert chat["usd_per_1k_output_tokens"] == pytest.approx(
        chat["stay_month1_usd"] / 50e9 * 1000, abs=1e-9
    )
