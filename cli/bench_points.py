"""What ``tokendesk bench run`` prints: the operating points table, each point's notes (why it
is not recorded, failures, SLO verdict, repeats' spread, where a sweep stopped) and the parity
score; and the number formatting the result tables share."""

from __future__ import annotations

from tokendesk.terminal import Grid, make_console, print_table

console = make_console()


def figure(value, digits: int = 1) -> str:
    if value is None:
        return "-"
    if 0 < abs(value) < 10 ** (-digits) * 5:
        return f"{value:.2g}"  # a small rate is not zero: 0.04 tok/s must not print as 0.0
    return f"{value:,.{digits}f}"


def print_points(blocks: list[dict], parity: dict | None, basis_words: dict) -> None:
    print_table(console, _points_table(blocks))
    bases = {
        basis_words.get(b["tokens"]["count_basis"], b["tokens"]["count_basis"]) for b in blocks
    }
    if bases:
        console.print(f"output tokens counted from: {', '.join(sorted(bases))}", highlight=False)
    for b in blocks:
        _print_point_notes(b)
    if parity:
        _print_parity(parity)


def _points_table(blocks: list[dict]) -> Grid:
    """One row per operating point: load, outcome, throughput and latency percentiles."""
    table = Grid(title="operating points")
    # (header, priority): priority 0 columns lead each record when a narrow terminal stacks them.
    for col, priority in (
        ("load", 0),
        ("ok", 1),
        ("failed", 0),
        ("out tok/s", 0),
        ("total tok/s", 3),
        ("tok/s/user", 3),
        ("TTFT p50", 1),
        ("TTFT p95", 0),
        ("TTFT p99", 2),
        ("TPOT p50", 1),
        ("ITL p99", 4),
        ("E2EL p95", 4),
        ("recorded", 0),
    ):
        table.add_column(col, priority=priority, justify="right")
    for b in blocks:
        lat = b["latency_ms"]
        validity = b.get("validity") or {"valid": True}
        table.add_row(
            _load_label(b),
            str(b["requests"]["ok"]),
            str(b["requests"]["failed"]),
            figure(b["throughput"]["output_tok_s"]),
            figure(b["throughput"]["total_tok_s"]),
            figure((b.get("interactivity_tok_s_user") or {}).get("p50")),
            figure(lat["ttft"]["p50"], 2),
            figure(lat["ttft"]["p95"], 2),
            figure(lat["ttft"]["p99"], 2),
            figure(lat["tpot"]["p50"], 2),
            figure(lat["itl"]["p99"], 2),
            figure(lat["e2el"]["p95"], 1),
            "yes" if validity["valid"] else "[red]no[/red]",
        )
    return table


def _print_point_notes(b: dict) -> None:
    """What the table cannot show for one point: why it is not recorded, its failures, its SLO
    verdict, its repeats' spread, where a sweep stopped, empty completions."""
    validity = b.get("validity") or {}
    if not validity.get("valid", True):
        console.print(
            f"[red]not recorded[/red] {_load_label(b)}: {validity['reason']}", soft_wrap=True
        )
    if b["requests"]["failure_reasons"]:
        console.print(f"failures at {_load_label(b)}: {b['requests']['failure_reasons']}")
        for f in b["failures"][:3]:
            console.print(
                f"  request {f['index']} ({f['prompt_id']}): {f['reason']}: {f['detail'][:200]}",
                highlight=False,
                soft_wrap=True,
            )
    if b.get("slo"):
        _print_slo_verdict(b)
    rep = b.get("repeats")
    if rep:
        ci = rep["output_tok_s"]["ci95"]
        cv = rep["output_tok_s"]["cv"]
        console.print(
            f"{_load_label(b)}: {rep['n']} repeats, out tok/s mean "
            f"{rep['output_tok_s']['mean']:.1f}, 95% CI {ci[0]:.1f}–{ci[1]:.1f}, "
            f"run-to-run CV {cv:.1%}",
            soft_wrap=True,
        )
    if b.get("sweep_stop"):
        console.print(f"sweep stopped at {_load_label(b)}: {b['sweep_stop']}", soft_wrap=True)
    if b["tokens"].get("empty_completions"):
        console.print(
            f"{_load_label(b)}: {b['tokens']['empty_completions']} empty completion(s), "
            "counted as valid with 0 tokens"
        )


def _print_slo_verdict(b: dict) -> None:
    verdict = b["slo"]
    text = "meets" if verdict["met"] else "misses (" + "; ".join(verdict["violations"]) + ")"
    mark = " [green]<- goodput point (recorded)[/green]" if verdict.get("goodput_point") else ""
    console.print(
        f"SLO at {_load_label(b)}: {text}, attainment {verdict['attainment']:.1%}, "
        f"goodput {verdict['goodput_req_s']:.2f} req/s{mark}",
        soft_wrap=True,
    )


def _print_parity(parity: dict) -> None:
    line = (
        f"parity vs {parity['bundle']} at concurrency {parity.get('concurrency', '?')}: "
        f"exact match {parity['exact_match']:.3f}, token similarity "
        f"{parity['similarity']:.3f} on {parity['prompts']} prompts"
    )
    if parity.get("failed"):
        line += (
            f" — [red]{parity['failed']} request(s) failed[/red] "
            f"{parity.get('failure_reasons')}; the score is not recorded"
        )
    console.print(line, soft_wrap=True)


def _load_label(b: dict) -> str:
    if b.get("replay"):
        return f"replay {b['replay']['speed']:g}x"
    if b.get("request_rate_rps") is None:
        return f"c={b['concurrency']}"
    return f"rate={b['request_rate_rps']}"
