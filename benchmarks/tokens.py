"""Counting output tokens when the server does not say how many it generated.

The basis, best first: the server's own ``usage`` (exact); a tokenizer re-encoding the streamed
text (a Hugging Face ``tokenizer.json``, from the model bundle or a local file: exact for the
model's tokenizer up to how the decoded text re-tokenizes); one token per streamed event (exact
for servers that send one event per token, like llama.cpp's, low for servers that batch several
tokens into one event). The basis travels with every result so a reader knows which it got.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from benchmarks.errors import BundleError


class TokenizerError(ValueError):
    pass


@dataclass(frozen=True)
class TokenCounter:
    """Counts the tokens of a text with one tokenizer; ``source`` says which file it is."""

    source: str
    _tokenizer: Any  # a tokenizers.Tokenizer

    def count(self, text: str) -> int:
        if not text:
            return 0
        return len(self._tokenizer.encode(text, add_special_tokens=False).ids)


def load_token_counter(path: Path) -> TokenCounter:
    """A counter from a Hugging Face ``tokenizer.json`` (or a directory holding one)."""
    from tokenizers import Tokenizer

    file = path / "tokenizer.json" if path.is_dir() else path
    if not file.is_file():
        raise TokenizerError(
            f"--tokenizer {path}: no tokenizer.json there; give the file a Hugging Face "
            "tokenizer was saved to (tokenizer.json)"
        )
    try:
        tokenizer = Tokenizer.from_file(str(file))
    except Exception as exc:  # the Rust library raises its own Exception subclass
        raise TokenizerError(f"{file}: not a tokenizer.json this library can read ({exc})") from exc
    return TokenCounter(source=file.name, _tokenizer=tokenizer)


def bundle_token_counter(bundle) -> TokenCounter | None:
    """The bundle's own tokenizer, when it ships a ``tokenizer.json``."""
    for entry in (bundle.manifest.get("tokenizer") or {}).get("files") or []:
        rel = entry.get("path", "")
        if rel.endswith("tokenizer.json"):
            try:
                return load_token_counter(bundle.root / rel)
            except TokenizerError as exc:
                raise BundleError(f"bundle tokenizer: {exc}") from exc
    return None
