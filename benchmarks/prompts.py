"""The golden prompt bundle: the same prompts on every backend, so results are comparable.

``data/golden_prompts/prompts.jsonl`` holds one prompt per line. Short chats and code prompts are
stored verbatim (original text written for tokendesk). Long contexts (8K, 32K) and RAG contexts
are *not* stored: each carries a generator name and a seed, and the document is produced
deterministically at load time, so the bundle stays a few kilobytes and every machine builds
byte-identical prompts. Each synthetic document plants one fact (a "needle") that the question
asks for, so a correct answer is checkable.

Token lengths are **approximate and tokenizer-free** (``approx-regex-v1``): every punctuation
mark counts as one token and every run of word characters counts as ``ceil(len/5)`` tokens.
It is not any model's tokenizer; use it to size workloads, never to account for tokens (the
harness takes token counts from the server's ``usage``).
"""

from __future__ import annotations

import hashlib
import json
import math
import random
import re
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path

from tokendesk.paths import data_dir

PROMPTS_DIR = "golden_prompts"
PROMPTS_FILE = "prompts.jsonl"
TOKEN_COUNT_METHOD = "approx-regex-v1"

_PIECES = re.compile(r"\w+|[^\w\s]")


def approx_tokens(text: str) -> int:
    """Tokenizer-free token estimate (see the module docstring for the rule)."""
    total = 0
    for piece in _PIECES.findall(text):
        first = piece[0]
        if first.isalnum() or first == "_":
            total += max(1, math.ceil(len(piece) / 5))
        else:
            total += 1
    return total


@dataclass(frozen=True)
class GoldenPrompt:
    prompt_id: str
    workload: str
    text: str
    max_tokens: int
    system: str = ""
    approx_input_tokens: int = 0
    #: What the long-context question asks for (the planted fact), when there is one.
    needle: str = ""
    #: Earlier turns of a multi-turn session, ``(role, content)`` in order, before ``text``.
    history: tuple[tuple[str, str], ...] = ()
    meta: dict = field(default_factory=dict, compare=False, hash=False)

    def messages(self) -> list[dict[str, str]]:
        out = []
        if self.system:
            out.append({"role": "system", "content": self.system})
        out.extend({"role": role, "content": content} for role, content in self.history)
        out.append({"role": "user", "content": self.text})
        return out

    def completion_prompt(self) -> str:
        parts = [self.system] if self.system else []
        parts.extend(content for _, content in self.history)
        parts.append(self.text)
        return "\n\n".join(parts)


class PromptBundleError(ValueError):
    pass


# ---------------------------------------------------------------- synthetic documents
_SITES = [
    "Lisbon",
    "Porto",
    "Recife",
    "Hamburg",
    "Leipzig",
    "Campinas",
    "Graz",
    "Curitiba",
    "Bremen",
    "Braga",
    "Dresden",
    "Natal",
    "Kassel",
    "Faro",
    "Belem",
    "Essen",
]
_PARTS = [
    "valve",
    "bearing",
    "gasket",
    "sensor",
    "bracket",
    "relay",
    "coupling",
    "filter",
    "spindle",
    "rotor",
    "manifold",
    "damper",
    "bushing",
    "encoder",
    "nozzle",
    "clamp",
]
_VERBS = [
    "shipped",
    "received",
    "inspected",
    "returned",
    "repaired",
    "stored",
    "assembled",
    "calibrated",
    "rejected",
    "packed",
]
_ADJ = [
    "routine",
    "delayed",
    "urgent",
    "partial",
    "scheduled",
    "unplanned",
    "quarterly",
    "weekly",
    "expedited",
    "standard",
]
_NOTES = [
    "The night shift logged no incidents.",
    "Humidity stayed within the target band.",
    "A forklift was out of service for two hours.",
    "The audit trail was exported to the archive.",
    "Two operators completed refresher training.",
    "The loading dock was repainted.",
    "Power draw peaked during the afternoon.",
    "The supplier confirmed the next delivery window.",
]


def _sentence(rng: random.Random) -> str:
    kind = rng.random()
    if kind < 0.55:
        return (
            f"In week {rng.randint(1, 52)}, the {rng.choice(_SITES)} site {rng.choice(_VERBS)} "
            f"{rng.randint(10, 9999)} units of {rng.choice(_PARTS)} batch "
            f"{rng.choice('ABCDEFGHJK')}-{rng.randint(100, 999)} in a {rng.choice(_ADJ)} run."
        )
    if kind < 0.8:
        return (
            f"Line {rng.randint(1, 40)} at {rng.choice(_SITES)} reported a yield of "
            f"{rng.randint(80, 99)}.{rng.randint(0, 9)} percent for {rng.choice(_PARTS)} parts."
        )
    return rng.choice(_NOTES)


def _paragraphs(rng: random.Random, target_tokens: int) -> list[str]:
    paragraphs: list[str] = []
    total = 0
    while total < target_tokens:
        para = " ".join(_sentence(rng) for _ in range(rng.randint(4, 8)))
        paragraphs.append(para)
        total += approx_tokens(para) + 1
    return paragraphs


def _needle(rng: random.Random) -> tuple[str, str, str]:
    vault = f"{rng.choice(_SITES)}-{rng.randint(10, 99)}"
    code = f"{rng.choice('QRSTUVWXYZ')}{rng.randint(1000, 9999)}"
    fact = f"The access code for cabinet {vault} is {code}."
    question = f"What is the access code for cabinet {vault}? Answer with the code only."
    return fact, question, code


def synthetic_document(seed: int, target_tokens: int) -> tuple[str, str]:
    """A deterministic report of about ``target_tokens`` tokens, plus the question it answers."""
    rng = random.Random(seed)
    fact, question, answer = _needle(rng)
    paragraphs = _paragraphs(rng, target_tokens)
    paragraphs.insert(rng.randint(0, len(paragraphs)), fact)
    doc = "\n\n".join(paragraphs)
    text = (
        f"Read the operations report below and answer the question.\n\n<report>\n{doc}\n</report>\n\n"
        f"Question: {question}"
    )
    return text, answer


def synthetic_rag(seed: int, passages: int, target_tokens: int) -> tuple[str, str]:
    """Numbered retrieved passages (one holds the answer) followed by a question."""
    rng = random.Random(seed)
    fact, question, answer = _needle(rng)
    per_passage = max(40, target_tokens // passages)
    blocks = [" ".join(_paragraphs(rng, per_passage)) for _ in range(passages)]
    hit = rng.randrange(passages)
    blocks[hit] = f"{blocks[hit]} {fact}"
    body = "\n\n".join(f"[{i + 1}] {b}" for i, b in enumerate(blocks))
    text = (
        f"Answer using only the retrieved passages. Cite the passage number.\n\n{body}\n\n"
        f"Question: {question}"
    )
    return text, answer


_GENERATORS = {"synthetic-doc-v1", "synthetic-rag-v1"}


def _from_row(row: dict, where: str) -> GoldenPrompt:
    try:
        prompt_id = str(row["id"])
        workload = str(row["workload"])
        max_tokens = int(row["max_tokens"])
    except (KeyError, TypeError, ValueError) as exc:
        raise PromptBundleError(f"{where}: missing or invalid field {exc}") from exc
    needle = ""
    if "context" in row:
        ctx = row["context"]
        gen = ctx.get("generator")
        if gen not in _GENERATORS:
            raise PromptBundleError(
                f"{where}: unknown context generator {gen!r}; known: {sorted(_GENERATORS)}"
            )
        if gen == "synthetic-doc-v1":
            text, needle = synthetic_document(int(ctx["seed"]), int(ctx["target_tokens"]))
        else:
            text, needle = synthetic_rag(
                int(ctx["seed"]), int(ctx["passages"]), int(ctx["target_tokens"])
            )
        system = str(row.get("system", ""))
    elif "text" in row:
        text = str(row["text"])
        system = str(row.get("system", ""))
    else:
        raise PromptBundleError(f"{where}: a prompt needs 'text' or 'context'")
    counted = approx_tokens(f"{system}\n{text}".strip())
    return GoldenPrompt(
        prompt_id=prompt_id,
        workload=workload,
        text=text,
        max_tokens=max_tokens,
        system=system,
        approx_input_tokens=counted,
        needle=needle,
        meta={k: v for k, v in row.items() if k not in {"text", "system"}},
    )


def prompts_path() -> Path:
    return data_dir() / PROMPTS_DIR / PROMPTS_FILE


def read_prompt_rows(path: Path | None = None) -> list[dict]:
    path = path or prompts_path()
    rows = []
    for line_no, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        if line.strip():
            try:
                rows.append(json.loads(line))
            except json.JSONDecodeError as exc:
                raise PromptBundleError(f"{path}:{line_no}: not JSON ({exc.msg})") from exc
    return rows


@cache
def _load_cached(path_str: str) -> tuple[GoldenPrompt, ...]:
    path = Path(path_str)
    prompts = []
    seen: set[str] = set()
    for i, row in enumerate(read_prompt_rows(path), start=1):
        prompt = _from_row(row, f"{path}:{i}")
        if prompt.prompt_id in seen:
            raise PromptBundleError(f"{path}:{i}: duplicate prompt id {prompt.prompt_id!r}")
        seen.add(prompt.prompt_id)
        prompts.append(prompt)
    return tuple(prompts)


def load_prompts(workload: str | None = None, path: Path | None = None) -> list[GoldenPrompt]:
    """All golden prompts, or those of one workload (``golden`` = every prompt)."""
    prompts = _load_cached(str(path or prompts_path()))
    if workload in (None, "golden", "all"):
        return list(prompts)
    chosen = [p for p in prompts if p.workload == workload]
    if not chosen:
        known = sorted({p.workload for p in prompts})
        raise PromptBundleError(
            f"no golden prompts for workload {workload!r}; known workloads: {', '.join(known)}"
        )
    return chosen


def workloads(path: Path | None = None) -> list[str]:
    return sorted({p.workload for p in _load_cached(str(path or prompts_path()))})


def prompt_set_digest(prompts: list[GoldenPrompt]) -> str:
    """sha256 over the prompts as sent, so two runs can prove they used the same inputs."""
    h = hashlib.sha256()
    for p in prompts:
        h.update(p.prompt_id.encode())
        h.update(b"\0")
        h.update(p.completion_prompt().encode())
        h.update(b"\0")
    return h.hexdigest()
