"""Shared by the workload-shape tests: one p5 configuration measured at three shapes, the hand
workspace's chat workload at a chosen shape, and Azure's code-trace excerpt."""

from __future__ import annotations

from tests.factories import sweep
from tests.workspace_data import workspace
from tokendesk.paths import REPO_ROOT

AZURE_CODE = (
    REPO_ROOT
    / "tests"
    / "fixtures"
    / "real"
    / "traces"
    / "AzureLLMInferenceTrace_code_first2000.csv"
)

#: The chat configuration's p5 sweep at 2:1 (1,000 in, 500 out): 8,000 tok/s at FTL 900 ms.
CHAT = sweep(backend="cuda", usd_per_hour=80.0, config_key="p5-70b-2to1")
#: The same configuration measured prompt-heavy, 4,000 in and 200 out (20:1): 2,400 tok/s.
PROMPT_HEAVY = sweep(
    backend="cuda",
    usd_per_hour=80.0,
    config_key="p5-70b-20to1",
    points=((1, 200, 300), (8, 1200, 600), (32, 2400, 850)),
)
#: The same configuration at 2:1 with 70% of the input served from a prefix cache: 9,000 tok/s.
CACHED = sweep(
    backend="cuda",
    usd_per_hour=80.0,
    config_key="p5-70b-2to1-cached",
    points=((1, 600, 140), (8, 3500, 280), (32, 9000, 880)),
)
#: A model the performance model does not know (data/model_architectures.csv), so capacity is
#: carried between shapes by the hand rule these tests check (``costmodel.shape``); the model's
#: own ratio is checked in tests/costmodel/test_estimated_options.py.
HAND_MODEL = "Hand-Rule-70B"
for row in (*CHAT, *PROMPT_HEAVY, *CACHED):
    row["model"] = HAND_MODEL
for row in PROMPT_HEAVY:
    row["input_tokens"], row["output_tokens"] = 4000, 200
for row in CACHED:
    row["prefix_cache_share"] = 0.7


def chat_only(*, input_per_output: float = 2.0, cache: float | None = None, **changes) -> dict:
    """The hand workspace with its chat workload only, at the given shape (50e9 output)."""
    data = workspace(**changes)
    data["fleet"] = data["fleet"][:2]  # 4 reserved + 2 on-demand p5 serve chat
    chat = data["demand"][0]
    chat["model"], chat["accept_results_from"] = HAND_MODEL, []
    chat["input_tokens_per_month"] = input_per_output * chat["output_tokens_per_month"]
    if cache is not None:
        chat["prefix_cache_share"] = cache
    data["demand"] = [chat]
    return data
