"""What the harness records: only valid points, honest token counts, servers as deployed.

Every test drives the in-repo fake server in its own process; faults are injected by the server
(``--fault-every``, ``[[fault:...]]`` prompts, ``--api-key``), never by patching the client.
"""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

import benchmarks.session as session_mod
from benchmarks.client import RequestRecord
from benchmarks.datasets import DatasetError, load_dataset
from benchmarks.prompts import GoldenPrompt, load_prompts
from benchmarks.readiness import ReadinessError, check_ready
from benchmarks.results import document_to_results, judge_point
from benchmarks.runner import (
    HarnessConfig,
    OperatingPoint,
    run_point,
    saturated,
    summarise_point,
    sweep_concurrencies,
)
from benchmarks.slo import SLOError, parse_slo, pick_goodput_point
from benchmarks.tokens import load_token_counter
from cli.bench_command import bench_app
from cli.bench_points import figure
from cli.main import app as tokendesk_app
from warehouse import Warehouse

BUNDLE = Path(__file__).parents[2] / "data" / "model_bundles" / "fake-echo-1-bf16"


def _cfg(url: str, prompts, **kw) -> HarnessConfig:
    kw.setdefault("num_prompts", 8)
    kw.setdefault("warmup", 0)
    return HarnessConfig(endpoint=url, model="fake/echo-1", prompts=prompts, workload="test", **kw)


def _run_args(url: str, tmp_path: Path, *extra: str) -> list[str]:
    return [
        "run",
        "--endpoint",
        url,
        "--model",
        "fake/echo-1",
        "--accelerator",
        "amd-mi300x-192gb",
        "--accelerators-per-replica",
        "1",
        "--runtime",
        "vllm",
        "--precision",
        "bf16",
        "--workload",
        "chat-short",
        "--db",
        str(tmp_path / "w.duckdb"),
        "--no-progress",
        "--max-tokens",
        "8",
        *extra,
    ]


def _harness_rows(tmp_path: Path):
    db = tmp_path / "w.duckdb"
    if not db.exists():
        return []
    with Warehouse.open(db) as wh:
        frame = wh.query(
            "SELECT concurrency, requests_failed, source_title, source_file, notes "
            "FROM benchmark_results WHERE source_tool = 'tokendesk-harness' ORDER BY concurrency"
        )
    return frame.to_dict("records")


def test_point_with_failures_is_reported_and_not_recorded(make_server, tmp_path):
    server = make_server("--ttft-ms", "2", "--itl-ms", "1", "--fault-every", "4")
    out = tmp_path / "r.json"
    res = CliRunner().invoke(
        bench_app,
        _run_args(server.url, tmp_path, "--concurrency", "2", "--num-prompts", "8")
        + ["-o", str(out)],
    )
    assert res.exit_code == 1, res.output
    assert "not recorded" in res.output and "connection_dropped" in res.output
    # the first failures are shown with their details, not only counted
    assert "RemoteProtocolError" in res.output
    assert _harness_rows(tmp_path) == []
    doc = json.loads(out.read_text())
    [point] = doc["operating_points"]
    assert point["validity"]["valid"] is False and point["requests"]["failed"] >= 2
    assert document_to_results(doc) == []  # importing the file later cannot bring it back


def test_failure_threshold_lets_a_point_through(make_server, tmp_path):
    server = make_server("--ttft-ms", "2", "--itl-ms", "1", "--fault-every", "5")
    res = CliRunner().invoke(
        bench_app,
        _run_args(server.url, tmp_path, "--concurrency", "1", "--num-prompts", "9")
        + ["--max-failure-rate", "0.25"],
    )
    assert res.exit_code == 0, res.output
    [row] = _harness_rows(tmp_path)
    assert row["requests_failed"] == 2


def test_judge_point_reasons():
    block = {"requests": {"ok": 1, "failed": 15, "failure_reasons": {"connection_dropped": 15}}}
    verdict = judge_point(block, 0.0)
    assert not verdict["valid"] and "15 of 16 requests failed" in verdict["reason"]
    assert judge_point({"requests": {"ok": 0, "failed": 0}}, 1.0)["reason"] == (
        "no request completed"
    )
    assert judge_point({"requests": {"ok": 10, "failed": 0}})["valid"]


def test_empty_completion_is_valid_with_zero_tokens(fake_server):
    prompts = [GoldenPrompt("empty-1", "test", "say nothing [[fault:empty]]", 16)]
    for api in ("chat", "completions"):
        cfg = _cfg(fake_server.url, prompts, api=api, num_prompts=2)
        block, records = asyncio.run(
            run_point(cfg, OperatingPoint(concurrency=1), return_records=True)
        )
        assert block["requests"]["failed"] == 0 and block["requests"]["ok"] == 2
        assert all(r.ok and r.output_tokens == 0 and r.ttft_s is None for r in records)
        assert block["tokens"]["empty_completions"] == 2
        assert block["tokens"]["output_mean"] == 0


def test_done_before_any_finish_reason_is_a_stream_cut_short(fake_server):
    """llama-cpp-python ends a streaming request with a clean [DONE] when the next one arrives,
    with no finish reason: a failure, not a short (or, cut before its first token, empty)
    completion that would make the point look fast."""
    prompts = [GoldenPrompt("cut-1", "test", "tell a long story [[fault:cutshort]]", 64)]
    for api in ("chat", "completions"):
        cfg = _cfg(fake_server.url, prompts, api=api, num_prompts=2)
        block, records = asyncio.run(
            run_point(cfg, OperatingPoint(concurrency=1), return_records=True)
        )
        assert block["requests"]["ok"] == 0
        assert block["requests"]["failure_reasons"] == {"cut_short": 2}
        assert all(r.error == "cut_short" and r.chunk_times for r in records)  # text came first
        assert not judge_point(block)["valid"]


def test_non_event_stream_answer_is_named(fake_server):
    prompts = [GoldenPrompt("notsse-1", "test", "answer in one piece [[fault:notsse]]", 8)]
    block = asyncio.run(run_point(_cfg(fake_server.url, prompts, num_prompts=1), OperatingPoint(1)))
    assert block["requests"]["failure_reasons"] == {"not_event_stream": 1}
    assert "application/json" in block["failures"][0]["detail"]


def test_tokenizer_counts_when_the_server_sends_no_usage(make_server):
    prompts = load_prompts("chat-short")[:4]
    with_usage = make_server("--ttft-ms", "2", "--itl-ms", "1")
    no_usage = make_server("--ttft-ms", "2", "--itl-ms", "1", "--no-usage")
    counter = load_token_counter(BUNDLE / "tokenizer")
    base = asyncio.run(run_point(_cfg(with_usage.url, prompts, num_prompts=4), OperatingPoint(2)))
    counted = asyncio.run(
        run_point(_cfg(no_usage.url, prompts, num_prompts=4, tokenizer=counter), OperatingPoint(2))
    )
    events = asyncio.run(run_point(_cfg(no_usage.url, prompts, num_prompts=4), OperatingPoint(2)))
    assert base["tokens"]["count_basis"] == "usage"
    assert counted["tokens"]["count_basis"] == "tokenizer"
    assert events["tokens"]["count_basis"] == "chunks"
    # the fake model writes one word per token, which the bundle's word-level tokenizer counts
    assert counted["tokens"]["output_mean"] == base["tokens"]["output_mean"]
    assert events["tokens"]["output_mean"] == base["tokens"]["output_mean"]


def test_token_basis_reaches_console_file_and_costs(make_server, tmp_path):
    server = make_server("--ttft-ms", "2", "--itl-ms", "1", "--no-usage")
    out = tmp_path / "r.json"
    res = CliRunner().invoke(
        bench_app,
        _run_args(server.url, tmp_path, "--concurrency", "1", "--num-prompts", "3", "-o", str(out)),
    )
    assert res.exit_code == 0, res.output
    assert "1 per streamed event" in res.output
    [row] = _harness_rows(tmp_path)
    assert row["source_title"].endswith("tokens: 1 per streamed event")
    assert Path(row["source_file"]).is_absolute()
    costs = CliRunner().invoke(
        tokendesk_app,
        ["costs", "--db", str(tmp_path / "w.duckdb"), "--model", "fake/echo-1", "--format", "json"],
    )
    assert costs.exit_code == 0, costs.output
    options = json.loads(costs.output)
    assert options, "the recorded point must be a cost option"
    assert {o["bench_source_title"] for o in options} == {row["source_title"]}
    assert {o["concurrency"] for o in options} == {1}
    table = CliRunner().invoke(
        tokendesk_app,
        ["costs", "--db", str(tmp_path / "w.duckdb"), "--model", "fake/echo-1"],
        env={"COLUMNS": "250"},
    )
    assert table.exit_code == 0, table.output
    assert "c=1" in table.output and "tokens: 1 per streamed event" in table.output


def test_api_key_header_and_readiness(make_server, tmp_path, monkeypatch):
    server = make_server("--ttft-ms", "2", "--itl-ms", "1", "--api-key", "s3cret")
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    args = _run_args(server.url, tmp_path, "--concurrency", "1", "--num-prompts", "2")
    refused = CliRunner().invoke(bench_app, args)
    assert refused.exit_code == 2 and "API key" in refused.output
    assert _harness_rows(tmp_path) == []
    ok = CliRunner().invoke(bench_app, args, env={"OPENAI_API_KEY": "s3cret"})
    assert ok.exit_code == 0, ok.output
    flag = CliRunner().invoke(bench_app, [*args, "--api-key", "s3cret", "--header", "X-Route: a"])
    assert flag.exit_code == 0, flag.output
    bad = CliRunner().invoke(bench_app, [*args, "--api-key", "s3cret", "--header", "nocolon"])
    assert bad.exit_code == 2 and "Name: value" in bad.output


def test_readiness_messages():
    with pytest.raises(ReadinessError, match="no server answers"):
        check_ready("http://127.0.0.1:9")


def test_parity_refuses_another_models_bundle(fake_server, tmp_path):
    base = _run_args(fake_server.url, tmp_path, "--concurrency", "1", "--num-prompts", "2")
    wrong_precision = [a if a != "bf16" else "fp8" for a in base]
    res = CliRunner().invoke(bench_app, [*wrong_precision, "--bundle", str(BUNDLE)])
    assert res.exit_code == 2 and "does not match this run" in res.output
    assert "precision 'bf16'" in res.output
    wrong_model = [a if a != "fake/echo-1" else "other/model" for a in base]
    res = CliRunner().invoke(bench_app, [*wrong_model, "--bundle", str(BUNDLE)])
    assert res.exit_code == 2 and "model 'fake/echo-1'" in res.output
    assert _harness_rows(tmp_path) == []


def test_parity_concurrency_is_a_flag_and_failures_void_the_score(make_server, tmp_path):
    server = make_server("--ttft-ms", "2", "--itl-ms", "1")
    out = tmp_path / "r.json"
    args = _run_args(server.url, tmp_path, "--concurrency", "1", "--num-prompts", "2")
    res = CliRunner().invoke(
        bench_app, [*args, "--bundle", str(BUNDLE), "--parity-concurrency", "3", "-o", str(out)]
    )
    assert res.exit_code == 0, res.output
    parity = json.loads(out.read_text())["parity"]
    assert parity["concurrency"] == 3 and parity["failed"] == 0 and parity["exact_match"] == 1.0
    # every 7th request dropped: the parity pass fails some prompts, so its score is not recorded
    flaky = make_server("--ttft-ms", "2", "--itl-ms", "1", "--fault-every", "7")
    res = CliRunner().invoke(
        bench_app,
        [
            *_run_args(flaky.url, tmp_path / "x", "--concurrency", "1", "--num-prompts", "3"),
            "--bundle",
            str(BUNDLE),
            "--max-failure-rate",
            "0.5",
        ],
    )
    assert res.exit_code == 1, res.output
    assert "the score is not recorded" in res.output
    with Warehouse.open(tmp_path / "x" / "w.duckdb") as wh:
        frame = wh.query(
            "SELECT parity_exact_match FROM benchmark_results WHERE source_tool = "
            "'tokendesk-harness'"
        )
    assert len(frame) == 1 and frame["parity_exact_match"].isna().all()


def test_ctrl_c_writes_finished_points_and_ingests_nothing(fake_server, tmp_path, monkeypatch):
    async def interrupted(*args, **kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr(session_mod, "run_parity", interrupted)
    out = tmp_path / "r.json"
    args = _run_args(fake_server.url, tmp_path, "--concurrency", "1,2", "--num-prompts", "2")
    res = CliRunner().invoke(bench_app, [*args, "--bundle", str(BUNDLE), "-o", str(out)])
    assert res.exit_code == 130, res.output
    doc = json.loads(out.read_text())
    assert doc["interrupted"] is True and len(doc["operating_points"]) == 2
    assert _harness_rows(tmp_path) == []
    res = CliRunner().invoke(bench_app, [*args, "--bundle", str(BUNDLE), "--ingest-partial"])
    assert res.exit_code == 0, res.output
    assert len(_harness_rows(tmp_path)) == 2


def test_help_shows_every_required_flag_at_80_columns():
    res = CliRunner().invoke(bench_app, ["run", "--help"], env={"COLUMNS": "80", "TERM": "dumb"})
    assert res.exit_code == 0
    for flag in (
        "--endpoint",
        "--model",
        "--accelerator",
        "--accelerators-per-replica",
        "--runtime",
        "--precision",
    ):
        assert flag in res.output, flag
    assert "…" not in res.output and "[required]" in res.output


def test_throughput_is_never_zero_when_a_request_completed():
    # one request that ran wholly before the closed loop's steady window: the window holds no
    # token, so the whole span is used instead of reporting 0 tok/s
    rec = RequestRecord(index=1, prompt_id="p", warmup=False, sent_at=10.0, ttft_s=0.5)
    rec.e2el_s = 2.0
    rec.chunk_times = [10.5, 11.0, 11.5, 12.0]
    rec.output_tokens = 4
    marks = {"start": 12.5, "end": 20.0, "run_start": 9.0, "run_end": 20.0}
    block = summarise_point(OperatingPoint(concurrency=1), [rec], marks, _now())
    assert block["throughput"]["output_tok_s"] == pytest.approx(2.0)
    assert block["steady_state"]["basis"] == "full"
    assert figure(0.04) == "0.04" and figure(0.0) == "0.0" and figure(None) == "-"


def _now():
    from datetime import UTC, datetime

    return datetime.now(UTC)


def test_interactivity_is_recorded_per_point(fake_server):
    cfg = _cfg(fake_server.url, load_prompts("chat-short")[:2], num_prompts=2)
    block = asyncio.run(run_point(cfg, OperatingPoint(concurrency=1)))
    tpot = block["latency_ms"]["tpot"]["p50"]
    assert block["interactivity_tok_s_user"]["p50"] == pytest.approx(1000.0 / tpot)


def _block(load: int, met: bool, valid: bool = True, tps: float = 100.0) -> dict:
    return {
        "concurrency": load,
        "request_rate_rps": None,
        "requests": {"ok": 10, "failed": 0 if valid else 1},
        "throughput": {"output_tok_s": tps},
        "validity": {"valid": valid},
        "slo": {"met": met},
    }


def test_goodput_point_is_the_highest_valid_load_that_meets_the_slo():
    blocks = [_block(1, True), _block(2, True), _block(4, True, valid=False), _block(8, False)]
    assert pick_goodput_point(blocks) is blocks[1]
    assert [b["slo"]["goodput_point"] for b in blocks] == [False, True, False, False]
    assert pick_goodput_point([_block(1, False)]) is None
    assert parse_slo("ttft_p95<=500, tpot_p99<=40ms") == {"ttft_p95": 500.0, "tpot_p99": 40.0}
    with pytest.raises(SLOError, match="METRIC_pNN<=MS"):
        parse_slo("ttft<=5")


def test_sweep_stops_at_saturation_failures_or_slo():
    assert sweep_concurrencies(1, 16) == [1, 2, 4, 8, 16]
    rising = [_block(1, True, tps=100), _block(2, True, tps=190)]
    assert saturated(rising, 0.05) == ""
    flat = [*rising, _block(4, True, tps=195)]
    assert "saturated" in saturated(flat, 0.05)
    assert "failed" in saturated([*rising, _block(4, True, valid=False, tps=300)], 0.05)
    assert "SLO" in saturated([*rising, _block(4, False, tps=300)], 0.05)


def test_slo_records_only_the_goodput_point(fake_server, tmp_path):
    args = _run_args(fake_server.url, tmp_path, "--concurrency", "1,2", "--num-prompts", "4")
    out = tmp_path / "r.json"
    res = CliRunner().invoke(bench_app, [*args, "--slo", "ttft_p95<=5000", "-o", str(out)])
    assert res.exit_code == 0, res.output
    assert "goodput point (recorded)" in res.output
    [row] = _harness_rows(tmp_path)
    assert row["concurrency"] == 2 and "goodput point for SLO ttft_p95<=5000" in row["notes"]
    # the fake server's TTFT is 30 ms: a 1 ms bound is missed everywhere, nothing is recorded
    res = CliRunner().invoke(
        bench_app,
        _run_args(fake_server.url, tmp_path / "x", "--concurrency", "1", "--num-prompts", "2")
        + ["--slo", "ttft_p50<=1"],
    )
    assert res.exit_code == 1 and "no valid point meets the SLO" in res.output
    assert _harness_rows(tmp_path / "x") == []


def test_repeats_record_the_median_run_with_a_confidence_interval(fake_server, tmp_path):
    out = tmp_path / "r.json"
    args = _run_args(fake_server.url, tmp_path, "--concurrency", "2", "--num-prompts", "4")
    res = CliRunner().invoke(bench_app, [*args, "--repeats", "3", "-o", str(out)])
    assert res.exit_code == 0, res.output
    [point] = json.loads(out.read_text())["operating_points"]
    rep = point["repeats"]["output_tok_s"]
    assert rep["n"] == 3 and len(rep["values"]) == 3
    assert rep["ci95"][0] <= rep["mean"] <= rep["ci95"][1]
    assert point["throughput"]["output_tok_s"] == sorted(rep["values"])[1]
    [row] = _harness_rows(tmp_path)
    assert "median of 3 repeats" in row["notes"]


def test_time_bounded_point_stops_sending(fake_server):
    cfg = _cfg(fake_server.url, load_prompts("chat-short")[:4], num_prompts=10**9, duration_s=0.5)
    block = asyncio.run(run_point(cfg, OperatingPoint(concurrency=2)))
    # each request takes >= 30 ms (the server's TTFT), so half a second holds a bounded number
    assert 0 < block["requests"]["sent"] < 100


def test_datasets_random_sharegpt_and_jsonl(tmp_path):
    counter = load_token_counter(BUNDLE / "tokenizer")
    prompts, name = load_dataset("random:40:16", "chat-short", tokenizer=counter)
    assert name == "random:40:16" and len(prompts) == 64
    assert {counter.count(p.text) for p in prompts} == {40}
    assert {p.max_tokens for p in prompts} == {16}
    share = tmp_path / "sg.json"
    share.write_text(
        json.dumps(
            [
                {
                    "id": "c1",
                    "conversations": [
                        {"from": "human", "value": "what is the price"},
                        {"from": "gpt", "value": "the token latency"},
                    ],
                },
                {"id": "c2", "conversations": [{"from": "human", "value": "alone"}]},
            ]
        )
    )
    [p], _ = load_dataset(f"sharegpt:{share}", "x", tokenizer=counter)
    assert (p.prompt_id, p.text, p.max_tokens) == ("c1", "what is the price", 3)
    own = tmp_path / "own.jsonl"
    own.write_text(
        '{"prompt": "hello", "max_tokens": 5}\n'
        '{"id": "m", "messages": [{"role": "system", "content": "be brief"}, '
        '{"role": "user", "content": "hi"}]}\n'
    )
    a, b = load_dataset(f"jsonl:{own}", "x")[0]
    assert (a.text, a.max_tokens, b.prompt_id, b.system, b.text) == (
        "hello",
        5,
        "m",
        "be brief",
        "hi",
    )
    own.write_text('{"prompt": "ok"}\n{"max_tokens": 3}\n')
    with pytest.raises(DatasetError, match="line 2: give 'prompt'"):
        load_dataset(f"jsonl:{own}", "x")


def test_cli_runs_an_own_jsonl_dataset(fake_server, tmp_path):
    own = tmp_path / "own.jsonl"
    own.write_text("".join(json.dumps({"prompt": f"question {i}"}) + "\n" for i in range(3)))
    args = _run_args(fake_server.url, tmp_path, "--concurrency", "1", "--num-prompts", "3")
    res = CliRunner().invoke(bench_app, [*args, "--dataset", f"jsonl:{own}"])
    assert res.exit_code == 0, res.output
    with Warehouse.open(tmp_path / "w.duckdb") as wh:
        frame = wh.query(
            "SELECT workload FROM benchmark_results WHERE source_tool = 'tokendesk-harness'"
        )
    assert frame["workload"].tolist() == ["jsonl-own.jsonl"]


def test_sweep_min_gain_reaches_the_sweep_and_only_a_sweep(fake_server, tmp_path, monkeypatch):
    # The option was parsed and then dropped: a sweep never stopped at saturation.
    seen: list[float | None] = []
    real = session_mod.run_harness

    async def recording(*args, **kwargs):
        seen.append(kwargs.get("sweep_min_gain"))
        return await real(*args, **kwargs)

    monkeypatch.setattr(session_mod, "run_harness", recording)
    sweep = _run_args(fake_server.url, tmp_path, "--sweep", "--sweep-max", "2")
    res = CliRunner().invoke(bench_app, [*sweep, "--num-prompts", "2", "--sweep-min-gain", "0.2"])
    assert res.exit_code == 0, res.output
    fixed = _run_args(fake_server.url, tmp_path, "--concurrency", "1", "--num-prompts", "2")
    res = CliRunner().invoke(bench_app, fixed)
    assert res.exit_code == 0, res.output
    assert seen == [0.2, None]
