"""Where a run's prompts come from, besides the golden set.

``--dataset`` takes:

* ``golden`` (default): the golden prompts of ``--workload``;
* ``random:IN:OUT``: prompts of exactly IN input tokens asking for OUT output tokens (send
  ``--ignore-eos`` for exact output lengths). Lengths are exact with ``--tokenizer`` (the text
  is cut to IN tokens of that tokenizer); without one they follow the tokenizer-free
  ``approx_tokens`` estimate and the prompt set says so;
* ``sharegpt:PATH``: a ShareGPT-format JSON file (a list of ``{"conversations": [{"from":
  "human", "value": ...}, {"from": "gpt", "value": ...}]}``); the first human turn is the
  prompt and the reply's length (tokenizer, else estimate) its ``max_tokens``, as vLLM does;
* ``jsonl:PATH``: own prompts, one JSON object a line: ``{"prompt": "..."}`` or
  ``{"messages": [{"role": ..., "content": ...}, ...]}``, optional ``"max_tokens"`` (default 128)
  and ``"id"``;
* ``trace:PATH``: a request trace (Azure LLM inference CSV, Mooncake JSON Lines; see
  :mod:`benchmarks.traces`): one prompt per row, in order, of the row's input length asking for
  its output length, sent at the row's arrival time (``--trace-speed`` scales the clock); the
  first ``--num-prompts`` rows;
* ``sessions:SESSIONS:TURNS:IN:OUT``: multi-turn conversations whose context grows: turn k sends
  the k − 1 earlier user turns and replies (the replies are the data set's own OUT-token text, not
  the server's, so every run sends the same bytes) and a new IN-token question; a stream runs
  one session's turns in order;
* ``prefix:IN:OUT:SHARE``: IN-token prompts whose first SHARE × IN tokens (a system prompt) are
  the same in every prompt and the rest unique: a prefix cache can serve SHARE of the input.

A bad file is refused with its path, line and what to fix.
"""

from __future__ import annotations

import json
import random
import re
from pathlib import Path

from benchmarks.prompts import GoldenPrompt, approx_tokens, load_prompts
from benchmarks.traces import TraceFileError, read_trace

DEFAULT_MAX_TOKENS = 128
_WORDS = [
    "price",
    "region",
    "replica",
    "queue",
    "shard",
    "vendor",
    "latency",
    "token",
    "cache",
    "memory",
    "batch",
    "kernel",
    "stream",
    "model",
    "answer",
    "question",
    "system",
    "value",
    "market",
    "supply",
    "demand",
    "contract",
    "capacity",
    "power",
    "cooling",
]


#: Words ``approx_tokens`` counts as one token (five letters or fewer).
_ONE_TOKEN_WORDS = [w for w in _WORDS if approx_tokens(w) == 1]


class DatasetError(ValueError):
    pass


def _count(text: str, tokenizer) -> int:
    return tokenizer.count(text) if tokenizer is not None else approx_tokens(text)


def filler_text(n_tokens: int, rng: random.Random, tokenizer=None) -> str:
    """Random words of ``n_tokens`` tokens: exact with a tokenizer, else exact by
    ``approx_tokens`` (which counts each space-separated word on its own)."""
    if tokenizer is None:
        words: list[str] = []
        total = 0
        while total < n_tokens:
            word = rng.choice(_WORDS)
            words.append(word)
            total += approx_tokens(word)
        if total > n_tokens:  # a two-token word overshot by one: end on a one-token word
            words[-1] = rng.choice(_ONE_TOKEN_WORDS)
        return " ".join(words)
    return _grown_text(n_tokens, rng, tokenizer)


def _grown_text(n_tokens: int, rng: random.Random, tokenizer=None) -> str:
    """Grow past the target, then cut back to exactly ``n_tokens`` tokens of the tokenizer
    (or of ``approx_tokens``). ``random:IN:OUT`` keeps this way, so its prompts, and the prompt
    set's digest, stay what earlier runs sent."""
    words: list[str] = []
    while _count(" ".join(words), tokenizer) < n_tokens:
        words.extend(rng.choice(_WORDS) for _ in range(max(8, n_tokens // 4)))
    while len(words) > 1 and _count(" ".join(words[:-1]), tokenizer) >= n_tokens:
        words.pop()
    return " ".join(words)


def random_prompts(
    n_in: int, n_out: int, *, tokenizer=None, count: int = 64, seed: int = 0
) -> list[GoldenPrompt]:
    if n_in < 1 or n_out < 1:
        raise DatasetError("random:IN:OUT needs positive token counts, e.g. random:512:128")
    rng = random.Random(seed)
    return [
        GoldenPrompt(
            f"random-{n_in}-{n_out}-{i:03d}", "random", _grown_text(n_in, rng, tokenizer), n_out
        )
        for i in range(count)
    ]


def trace_prompts(path: Path, *, tokenizer=None, limit: int = 100) -> list[GoldenPrompt]:
    """The trace's first ``limit`` rows as prompts of the recorded lengths, each with its
    arrival time (``meta["arrival_s"]``, seconds after the first row)."""
    try:
        trace = read_trace(path)
    except TraceFileError as exc:
        raise DatasetError(str(exc)) from exc
    rng = random.Random(0)
    out = []
    for i in range(min(limit, len(trace))):
        text = filler_text(max(1, trace.input_tokens[i]), rng, tokenizer)
        prompt = GoldenPrompt(f"trace-{i:06d}", "trace", text, max(1, trace.output_tokens[i]))
        prompt.meta["arrival_s"] = trace.arrival_s[i]
        out.append(prompt)
    return out


def session_prompts(
    sessions: int, turns: int, n_in: int, n_out: int, *, tokenizer=None, seed: int = 0
) -> list[GoldenPrompt]:
    """``sessions`` conversations of ``turns`` turns, listed session by session, turn by turn."""
    if min(sessions, turns, n_in, n_out) < 1:
        raise DatasetError(
            "sessions:SESSIONS:TURNS:IN:OUT needs positive numbers, e.g. sessions:8:4:64:32"
        )
    rng = random.Random(seed)
    out = []
    for s in range(sessions):
        history: list[tuple[str, str]] = []
        for k in range(turns):
            question = filler_text(n_in, rng, tokenizer)
            prompt = GoldenPrompt(
                f"session-{s:03d}-turn-{k:02d}",
                "sessions",
                question,
                n_out,
                history=tuple(history),
            )
            prompt.meta.update(session=s, turn=k)
            out.append(prompt)
            history += [("user", question), ("assistant", filler_text(n_out, rng, tokenizer))]
    return out


def prefix_prompts(
    n_in: int, n_out: int, share: float, *, tokenizer=None, count: int = 64, seed: int = 0
) -> list[GoldenPrompt]:
    """Prompts of ``n_in`` tokens whose first ``share`` × ``n_in`` tokens are common to all."""
    if n_in < 1 or n_out < 1 or not 0 <= share < 1:
        raise DatasetError(
            "prefix:IN:OUT:SHARE needs positive token counts and a share from 0 up to (not "
            "including) 1, e.g. prefix:1024:128:0.7"
        )
    rng = random.Random(seed)
    shared_tokens = round(share * n_in)
    system = filler_text(shared_tokens, rng, tokenizer) if shared_tokens else ""
    return [
        GoldenPrompt(
            f"prefix-{n_in}-{n_out}-{share:g}-{i:03d}",
            "prefix",
            filler_text(max(1, n_in - shared_tokens), rng, tokenizer),
            n_out,
            system=system,
        )
        for i in range(count)
    ]


_PIECE = re.compile(r"\S+")


def reusable_prefix_share(prompts: list[GoldenPrompt]) -> float | None:
    """Share of the input (by ``approx_tokens``, over the prompts in send order, each once) that
    repeats a prefix of an earlier prompt: what a prefix cache that never evicts could serve.

    Read at word boundaries on the prompt's messages as sent, not on the model's tokens (a chat
    template adds a few of its own), so it is the data set's shape, not the server's hit rate.
    """
    seen: set[int] = set()
    reused = total = 0
    for prompt in prompts:
        state = 0
        matching = True
        for message in prompt.messages():
            # The role starts each message's chain but counts no tokens of its own.
            state = hash((state, message["role"]))
            for word in _PIECE.findall(message["content"]):
                state = hash((state, word))
                tokens = approx_tokens(word)
                total += tokens
                matching = matching and state in seen
                if matching:
                    reused += tokens
                seen.add(state)
    return reused / total if total else None


def sharegpt_prompts(path: Path, *, tokenizer=None, limit: int = 1000) -> list[GoldenPrompt]:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise DatasetError(f"{path}: not a readable JSON file ({exc})") from exc
    if not isinstance(data, list):
        raise DatasetError(f"{path}: a ShareGPT file is a JSON list of conversations")
    out = []
    for i, conv in enumerate(data):
        turns = conv.get("conversations") if isinstance(conv, dict) else None
        if not isinstance(turns, list) or len(turns) < 2:
            continue  # vLLM skips single-turn rows too
        human, reply = turns[0], turns[1]
        if not isinstance(human, dict) or not isinstance(reply, dict):
            raise DatasetError(f"{path}: conversation [{i}]: turns must be objects")
        text, answer = str(human.get("value") or ""), str(reply.get("value") or "")
        if not text.strip() or not answer.strip():
            continue
        pid = str(conv.get("id") or f"sharegpt-{i:05d}")
        out.append(GoldenPrompt(pid, "sharegpt", text, max(1, _count(answer, tokenizer))))
        if len(out) >= limit:
            break
    if not out:
        raise DatasetError(f"{path}: no conversation with a human turn and a reply")
    return out


def jsonl_prompts(path: Path) -> list[GoldenPrompt]:
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except OSError as exc:
        raise DatasetError(f"{path}: cannot read ({exc})") from exc
    out = []
    for n, line in enumerate(lines, 1):
        if not line.strip():
            continue
        try:
            row = json.loads(line)
        except ValueError as exc:
            raise DatasetError(f"{path}, line {n}: not JSON ({exc})") from exc
        if not isinstance(row, dict):
            raise DatasetError(f"{path}, line {n}: expected an object")
        max_tokens = row.get("max_tokens", DEFAULT_MAX_TOKENS)
        if not isinstance(max_tokens, int) or max_tokens < 1:
            raise DatasetError(f"{path}, line {n}: max_tokens must be a positive integer")
        pid = str(row.get("id") or f"jsonl-{n:05d}")
        if isinstance(row.get("prompt"), str) and row["prompt"].strip():
            out.append(GoldenPrompt(pid, "jsonl", row["prompt"], max_tokens))
            continue
        messages = row.get("messages")
        if not isinstance(messages, list) or not messages:
            raise DatasetError(f"{path}, line {n}: give 'prompt' (text) or 'messages' (a list)")
        system = "\n".join(str(m.get("content", "")) for m in messages if m.get("role") == "system")
        user = "\n\n".join(str(m.get("content", "")) for m in messages if m.get("role") != "system")
        if not user.strip():
            raise DatasetError(f"{path}, line {n}: the messages carry no user text")
        out.append(GoldenPrompt(pid, "jsonl", user, max_tokens, system=system))
    if not out:
        raise DatasetError(f"{path}: no prompts")
    return out


def _numbers(rest: str, kinds: tuple[type, ...], usage: str) -> list:
    parts = rest.split(":")
    if len(parts) != len(kinds):
        raise DatasetError(f"--dataset {usage}")
    try:
        return [kind(part) for kind, part in zip(kinds, parts, strict=True)]
    except ValueError as exc:
        raise DatasetError(f"--dataset {usage}") from exc


def load_dataset(
    spec: str, workload: str, *, tokenizer=None, limit: int = 100
) -> tuple[list[GoldenPrompt], str]:
    """The prompts and the prompt set's name for ``--dataset SPEC`` (``limit``: trace rows)."""
    kind, _, rest = spec.partition(":")
    approx = "" if tokenizer else " (approximate lengths)"
    if kind == "golden":
        return load_prompts(workload), "golden_prompts"
    if kind == "random":
        n_in, n_out = _numbers(rest, (int, int), "random:IN:OUT, e.g. random:512:128")
        return random_prompts(n_in, n_out, tokenizer=tokenizer), f"random:{n_in}:{n_out}{approx}"
    if kind == "sessions":
        sessions, turns, n_in, n_out = _numbers(
            rest, (int,) * 4, "sessions:SESSIONS:TURNS:IN:OUT, e.g. sessions:8:4:64:32"
        )
        prompts = session_prompts(sessions, turns, n_in, n_out, tokenizer=tokenizer)
        return prompts, f"sessions:{sessions}:{turns}:{n_in}:{n_out}{approx}"
    if kind == "prefix":
        n_in, n_out, share = _numbers(
            rest, (int, int, float), "prefix:IN:OUT:SHARE, e.g. prefix:1024:128:0.7"
        )
        prompts = prefix_prompts(n_in, n_out, share, tokenizer=tokenizer)
        return prompts, f"prefix:{n_in}:{n_out}:{share:g}{approx}"
    if kind in ("sharegpt", "jsonl", "trace"):
        path = Path(rest)
        if not rest or not path.is_file():
            raise DatasetError(f"--dataset {spec}: no such file")
        if kind == "sharegpt":
            return sharegpt_prompts(path, tokenizer=tokenizer), f"sharegpt:{path.name}"
        if kind == "trace":
            prompts = trace_prompts(path, tokenizer=tokenizer, limit=limit)
            return prompts, f"trace:{path.name}{approx}"
        return jsonl_prompts(path), f"jsonl:{path.name}"
    raise DatasetError(
        f"--dataset {spec!r}: use golden, random:IN:OUT, sharegpt:PATH, jsonl:PATH, trace:PATH, "
        "sessions:SESSIONS:TURNS:IN:OUT or prefix:IN:OUT:SHARE"
    )


def workload_shape(prompts: list[GoldenPrompt]) -> dict:
    """The shape of what a run sends: mean input (``approx_tokens`` of the messages) and
    requested output tokens, and the reusable prefix share (see :func:`reusable_prefix_share`)."""
    inputs = [sum(approx_tokens(m["content"]) for m in p.messages()) for p in prompts]
    return {
        "input_tokens_mean": sum(inputs) / len(inputs),
        "max_tokens_mean": sum(p.max_tokens for p in prompts) / len(prompts),
        "prefix_cache_share": reusable_prefix_share(prompts),
        "token_count": "approx-regex-v1",
    }
