"""The harness's workload shapes: trace replay prompts, multi-turn sessions, shared prefixes,
and the shape a run records — checked by hand on small data sets."""

from __future__ import annotations

import json
import random

import pytest

from benchmarks.datasets import (
    DatasetError,
    filler_text,
    load_dataset,
    prefix_prompts,
    reusable_prefix_share,
    session_prompts,
    trace_prompts,
    workload_shape,
)
from benchmarks.prompts import GoldenPrompt, approx_tokens
from benchmarks.results import document_to_results
from benchmarks.runner import OperatingPoint, replay_summary, work_units
from tokendesk.paths import REPO_ROOT

AZURE_CODE = (
    REPO_ROOT
    / "tests"
    / "fixtures"
    / "real"
    / "traces"
    / "AzureLLMInferenceTrace_code_first2000.csv"
)


@pytest.mark.parametrize("n", [1, 2, 7, 64, 513])
def test_filler_text_has_exactly_the_asked_tokens(n):
    rng = random.Random(n)
    assert approx_tokens(filler_text(n, rng)) == n


def test_trace_prompts_keep_recorded_lengths_and_arrivals():
    prompts = trace_prompts(AZURE_CODE, limit=5)
    # The file's first rows: 4808/10, 3180/8, 110/27, 7433/14, 34/12 at 0, .052, .098, .141, .445 s
    assert [approx_tokens(p.text) for p in prompts] == [4808, 3180, 110, 7433, 34]
    assert [p.max_tokens for p in prompts] == [10, 8, 27, 14, 12]
    assert [round(p.meta["arrival_s"], 3) for p in prompts] == [0, 0.052, 0.098, 0.141, 0.445]
    summary = replay_summary(prompts, speed=2.0)
    # 5 requests, 4 gaps over 0.445 s of trace sent in 0.2225 s -> 17.98 req/s
    assert summary["offered_rate_rps"] == pytest.approx(4 / (0.44499 / 2), rel=1e-3)


def test_sessions_grow_their_context_turn_by_turn():
    prompts = session_prompts(2, 3, 10, 5)
    assert [p.prompt_id for p in prompts[:3]] == [
        "session-000-turn-00",
        "session-000-turn-01",
        "session-000-turn-02",
    ]
    third = prompts[2].messages()
    assert [m["role"] for m in third] == ["user", "assistant", "user", "assistant", "user"]
    # turn k carries turn k-1's messages unchanged, then its reply and a new question
    assert third[:3] == prompts[1].messages()[:3] and third[:1] == prompts[0].messages()
    # inputs 10, 10+5+10 = 25, 25+5+10 = 40 tokens; each turn reuses the whole turn before:
    # (10 + 25) of (10 + 25 + 40) = 35 / 75 per session
    shape = workload_shape(prompts)
    assert shape["input_tokens_mean"] == 25
    assert shape["max_tokens_mean"] == 5
    assert shape["prefix_cache_share"] == pytest.approx(35 / 75)


def test_shared_prefix_share_by_hand():
    prompts = prefix_prompts(100, 8, 0.7, count=4)
    assert all(approx_tokens(p.system) == 70 and approx_tokens(p.text) == 30 for p in prompts)
    assert len({p.system for p in prompts}) == 1 and len({p.text for p in prompts}) == 4
    # 3 of 4 prompts reuse the 70-token prefix: 210 of 400 tokens, plus any leading words a
    # unique part happens to share with an earlier one (random words from a small vocabulary)
    share = reusable_prefix_share(prompts)
    assert 210 / 400 <= share < 215 / 400
    assert reusable_prefix_share(prefix_prompts(100, 8, 0.0, count=4)) < 0.05


def test_reuse_is_read_at_whole_prefixes_only():
    a = GoldenPrompt("a", "w", "alpha beta gamma", 1)
    b = GoldenPrompt("b", "w", "alpha beta delta", 1)
    c = GoldenPrompt("c", "w", "beta gamma", 1)  # same words, not a prefix
    # 'alpha beta' (2 of b's 3 tokens) repeat a's start; c repeats nothing: 2 of 8 tokens
    assert reusable_prefix_share([a, b, c]) == pytest.approx(2 / 8)


def test_work_units_keep_a_sessions_turns_together():
    prompts = session_prompts(2, 3, 4, 2)
    assert list(work_units(prompts, 8)) == [[0, 1, 2], [3, 4, 5], [6, 7]]
    plain = [GoldenPrompt(str(i), "w", "x", 1) for i in range(2)]
    assert list(work_units(plain, 3)) == [[0], [1], [2]]


@pytest.mark.parametrize(
    ("spec", "words"),
    [
        ("prefix:100:8", "prefix:IN:OUT:SHARE"),
        ("prefix:100:8:1.0", "including"),
        ("sessions:2:3:10", "sessions:SESSIONS:TURNS:IN:OUT"),
        ("sessions:0:3:10:5", "positive"),
        ("trace:/no/such/file.csv", "no such file"),
    ],
)
def test_bad_specs_say_how_to_write_them(spec, words):
    with pytest.raises(DatasetError, match=words):
        load_dataset(spec, "chat-short")


def test_a_bad_trace_row_names_file_and_line(tmp_path):
    bad = tmp_path / "t.csv"
    bad.write_text("TIMESTAMP,ContextTokens,GeneratedTokens\n2023-11-16 18:17:03,x,1\n")
    with pytest.raises(DatasetError, match=r"t.csv, line 2: ContextTokens"):
        load_dataset(f"trace:{bad}", "chat-short")


def test_recorded_result_carries_the_shape(tmp_path):
    """A result file's workload shape reaches the BenchmarkResult (prefix share) and its notes."""
    doc = json.loads(
        (REPO_ROOT / "tests" / "benchmarks" / "fixtures" / "harness_results.json").read_text()
    )
    doc["config"]["workload_shape"] = {
        "input_tokens_mean": 100.0,
        "max_tokens_mean": 8.0,
        "prefix_cache_share": 0.63,
        "token_count": "approx-regex-v1",
    }
    results = document_to_results(doc)
    assert results and all(r.prefix_cache_share == 0.63 for r in results)
    assert all("reusable prefix share 63%" in r.notes for r in results)
    del doc["config"]["workload_shape"]
    assert all(r.prefix_cache_share is None for r in document_to_results(doc))


def test_replay_point_label():
    assert OperatingPoint(replay_speed=10).label() == "trace replay at 10x"


def test_random_prompts_are_the_ones_earlier_runs_sent():
    """random:IN:OUT keeps its generator: the digest is the one the harness recorded before the
    workload shapes were added (computed on that version)."""
    from benchmarks.prompts import prompt_set_digest

    prompts, _ = load_dataset("random:64:16", "chat-short")
    assert (
        prompt_set_digest(prompts)
        == "49c6a93917f153730a21160f26397da386456040295b5771f0bd4cddf83e477b"
    )


def test_sessions_run_whole_sessions_in_order_without_warm_up(fake_server):
    """Against the in-repo server: every turn is sent once, each after the one before it in
    its session, and none is spent as warm-up."""
    import asyncio

    from benchmarks.runner import HarnessConfig, run_point

    prompts = session_prompts(3, 3, 8, 4)
    cfg = HarnessConfig(
        endpoint=fake_server.url,
        model="fake/echo-1",
        prompts=prompts,
        workload="sessions",
        num_prompts=len(prompts),
        max_tokens=4,
    )
    block, records = asyncio.run(run_point(cfg, OperatingPoint(concurrency=2), return_records=True))
    assert block["requests"]["warmup"] == 0 and block["requests"]["ok"] == 9
    by_id = {r.prompt_id: r for r in records}
    for s in range(3):
        turns = [by_id[f"session-{s:03d}-turn-{k:02d}"] for k in range(3)]
        assert all(a.done_at() <= b.sent_at for a, b in zip(turns, turns[1:], strict=False))
