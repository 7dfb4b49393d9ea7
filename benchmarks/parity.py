"""Output parity: a backend's greedy (temperature 0) outputs against a bundle's expected outputs.

* **exact match rate**: share of prompts whose output equals the expected output after trimming
  surrounding whitespace;
* **similarity**: mean over prompts of ``difflib.SequenceMatcher(None, a, b).ratio()`` on
  whitespace-separated tokens (2·matches / (len(a)+len(b)); 1.0 = identical, 0.0 = disjoint).
  Whitespace tokens keep the figure tokenizer-free, so two backends with different tokenizers
  are compared on the same footing.
"""

from __future__ import annotations

import difflib
from dataclasses import dataclass


def token_similarity(a: str, b: str) -> float:
    ta, tb = a.split(), b.split()
    if not ta and not tb:
        return 1.0
    return difflib.SequenceMatcher(None, ta, tb, autojunk=False).ratio()


@dataclass(frozen=True)
class ParityReport:
    prompts: int
    exact_match: float
    similarity: float
    per_prompt: list[dict]
    missing: list[str]

    def to_json(self) -> dict:
        return {
            "prompts": self.prompts,
            "exact_match": self.exact_match,
            "similarity": self.similarity,
            "missing": self.missing,
            "per_prompt": self.per_prompt,
        }


def compare_outputs(expected: dict[str, str], actual: dict[str, str | None]) -> ParityReport:
    """Compare outputs by prompt id; a prompt with no output (failed request) scores 0 on both."""
    rows = []
    exact = 0
    sim_total = 0.0
    missing = []
    for pid in sorted(expected):
        want = expected[pid]
        got = actual.get(pid)
        if got is None:
            missing.append(pid)
            rows.append({"prompt_id": pid, "exact": False, "similarity": 0.0})
            continue
        is_exact = got.strip() == want.strip()
        sim = 1.0 if is_exact else token_similarity(want, got)
        exact += is_exact
        sim_total += sim
        rows.append({"prompt_id": pid, "exact": is_exact, "similarity": round(sim, 6)})
    n = len(expected)
    return ParityReport(
        prompts=n,
        exact_match=(exact / n) if n else 0.0,
        similarity=(sim_total / n) if n else 0.0,
        per_prompt=rows,
        missing=missing,
    )
