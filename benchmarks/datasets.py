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
  and ``"id"``.

A bad file is refused with its path, line and what to fix.
"""

from __future__ import annotations

import json
import random
from pathlib import Path

from benchmarks.prompts import GoldenPrompt, approx_tokens, load_prompts

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


class DatasetError(ValueError):
    pass


def _count(text: str, tokenizer) -> int:
    return tokenizer.count(text) if tokenizer is not None else approx_tokens(text)


def random_prompts(
    n_in: int, n_out: int, *, tokenizer=None, count: int = 64, seed: int = 0
) -> list[GoldenPrompt]:
    if n_in < 1 or n_out < 1:
        raise DatasetError("random:IN:OUT needs positive token counts, e.g. random:512:128")
    rng = random.Random(seed)
    out = []
    for i in range(count):
        words: list[str] = []
        # Grow past the target, then cut back to exactly n_in tokens of the tokenizer.
        while _count(" ".join(words), tokenizer) < n_in:
            words.extend(rng.choice(_WORDS) for _ in range(max(8, n_in // 4)))
        while len(words) > 1 and _count(" ".join(words[:-1]), tokenizer) >= n_in:
            words.pop()
        text = " ".join(words)
        out.append(GoldenPrompt(f"random-{n_in}-{n_out}-{i:03d}", "random", text, n_out))
    return out


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


def load_dataset(spec: str, workload: str, *, tokenizer=None) -> tuple[list[GoldenPrompt], str]:
    """The prompts and the prompt set's name for ``--dataset SPEC``."""
    kind, _, rest = spec.partition(":")
    if kind == "golden":
        return load_prompts(workload), "golden_prompts"
    if kind == "random":
        try:
            n_in, n_out = (int(x) for x in rest.split(":"))
        except ValueError as exc:
            raise DatasetError("--dataset random:IN:OUT, e.g. random:512:128") from exc
        name = f"random:{n_in}:{n_out}" + ("" if tokenizer else " (approximate lengths)")
        return random_prompts(n_in, n_out, tokenizer=tokenizer), name
    if kind in ("sharegpt", "jsonl"):
        path = Path(rest)
        if not rest or not path.is_file():
            raise DatasetError(f"--dataset {spec}: no such file")
        if kind == "sharegpt":
            return sharegpt_prompts(path, tokenizer=tokenizer), f"sharegpt:{path.name}"
        return jsonl_prompts(path), f"jsonl:{path.name}"
    raise DatasetError(
        f"--dataset {spec!r}: use golden, random:IN:OUT, sharegpt:PATH or jsonl:PATH"
    )
