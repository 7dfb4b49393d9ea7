"""Model bundles: the weights, tokenizer, prompt template and expected golden outputs that make a
model portable and its outputs checkable on every backend.

A bundle is a directory with ``manifest.json``::

    {
      "manifest_version": 1,
      "name": "fake-echo-1-bf16",
      "model": "fake/echo-1",
      "weights": {"format": "safetensors",                       # safetensors | gguf | pytorch | onnx
                  "files": [{"path": "weights/model.safetensors", "sha256": "<64 hex>", "bytes": 96}]},
      "tokenizer": {"kind": "huggingface", "files": [{"path": "tokenizer/tokenizer.json", "sha256": "..."}]},
      "prompt_template": {"path": "templates/chat_template.jinja", "sha256": "..."},
      "quantization": {"method": "none", "precision": "bf16"},   # e.g. awq/int4, gptq/int4, fp8, gguf/q4_k_m
      "golden": {"prompt_set": "golden_prompts", "api": "chat", "temperature": 0, "max_tokens": 64,
                 "expected_outputs": {"path": "expected_outputs.jsonl", "sha256": "..."}}
    }

``expected_outputs.jsonl`` has one ``{"prompt_id": ..., "output": ...}`` per line: the reference
backend's greedy output for that golden prompt. Every path is relative to the bundle and must stay
inside it. :func:`verify_bundle` reports *every* problem (missing file, checksum or size mismatch,
unknown prompt id, non-zero temperature, ...) in one :class:`BundleError`.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

from benchmarks.errors import BundleError
from benchmarks.prompts import load_prompts
from tokendesk.digests import sha256_file

MANIFEST = "manifest.json"
WEIGHT_FORMATS = {"safetensors", "gguf", "pytorch", "onnx"}
_HEX = set("0123456789abcdef")


@dataclass(frozen=True)
class Bundle:
    root: Path
    manifest: dict
    expected: dict[str, str]

    @property
    def name(self) -> str:
        return str(self.manifest.get("name", self.root.name))

    @property
    def model(self) -> str:
        return str(self.manifest.get("model", ""))

    @property
    def precision(self) -> str:
        return str((self.manifest.get("quantization") or {}).get("precision", ""))

    @property
    def golden(self) -> dict:
        return self.manifest.get("golden") or {}


def _inside(root: Path, rel: str, where: str, problems: list[str]) -> Path | None:
    if not isinstance(rel, str) or not rel:
        problems.append(f"{where}: 'path' is missing")
        return None
    path = (root / rel).resolve()
    if Path(rel).is_absolute() or root.resolve() not in path.parents:
        problems.append(f"{where}: path {rel!r} must be relative and inside the bundle")
        return None
    return path


def _check_file(root: Path, entry: object, where: str, problems: list[str]) -> Path | None:
    if not isinstance(entry, dict):
        problems.append(f"{where}: expected an object with 'path' and 'sha256'")
        return None
    path = _inside(root, entry.get("path", ""), where, problems)
    if path is None:
        return None
    want = str(entry.get("sha256", "")).lower()
    if len(want) != 64 or not set(want) <= _HEX:
        problems.append(
            f"{where}: 'sha256' must be 64 hex digits (got {entry.get('sha256')!r}); "
            f"compute it with `sha256sum {entry.get('path')}`"
        )
    if not path.is_file():
        problems.append(f"{where}: file {entry['path']!r} is missing from the bundle")
        return None
    size = entry.get("bytes")
    if size is not None and path.stat().st_size != int(size):
        problems.append(
            f"{where}: {entry['path']!r} is {path.stat().st_size} bytes, manifest says {size}"
        )
    if len(want) == 64:
        got = sha256_file(path)
        if got != want:
            problems.append(
                f"{where}: checksum mismatch for {entry['path']!r}: manifest {want}, file {got}"
            )
    return path


def verify_bundle(root: Path) -> Bundle:
    """Check a bundle end to end; raise :class:`BundleError` listing every problem found."""
    root = Path(root)
    manifest_path = root / MANIFEST
    if not manifest_path.is_file():
        raise BundleError(
            f"{root}: no {MANIFEST}; a bundle directory needs one (see benchmarks/bundle.py)"
        )
    try:
        manifest = json.loads(manifest_path.read_text(encoding="utf-8"))
    except json.JSONDecodeError as exc:
        raise BundleError(
            f"{manifest_path}: not valid JSON ({exc.msg} at line {exc.lineno})"
        ) from exc
    problems: list[str] = []
    if manifest.get("manifest_version") != 1:
        problems.append(f"manifest_version: expected 1, got {manifest.get('manifest_version')!r}")
    for key in ("name", "model", "weights", "tokenizer", "quantization", "golden"):
        if key not in manifest:
            problems.append(f"{key}: required key is missing")
    weights = manifest.get("weights") or {}
    if weights:
        if weights.get("format") not in WEIGHT_FORMATS:
            problems.append(
                f"weights.format: {weights.get('format')!r} is not one of {sorted(WEIGHT_FORMATS)}"
            )
        files = weights.get("files") or []
        if not files:
            problems.append("weights.files: list the weight files with their sha256")
        for i, entry in enumerate(files):
            _check_file(root, entry, f"weights.files[{i}]", problems)
    tokenizer = manifest.get("tokenizer") or {}
    for i, entry in enumerate(tokenizer.get("files") or []):
        _check_file(root, entry, f"tokenizer.files[{i}]", problems)
    if tokenizer and not tokenizer.get("files"):
        problems.append("tokenizer.files: list the tokenizer files with their sha256")
    if "prompt_template" in manifest:
        _check_file(root, manifest["prompt_template"], "prompt_template", problems)
    quant = manifest.get("quantization") or {}
    if quant and not quant.get("precision"):
        problems.append("quantization.precision: required (e.g. bf16, fp8, int4-awq, q4_k_m)")
    golden = manifest.get("golden") or {}
    expected: dict[str, str] = {}
    if golden:
        if golden.get("temperature", 0) != 0:
            problems.append(
                "golden.temperature: expected outputs are only comparable at 0, got "
                f"{golden.get('temperature')!r}"
            )
        if not isinstance(golden.get("max_tokens"), int) or golden["max_tokens"] < 1:
            problems.append(
                "golden.max_tokens: required positive integer (the length the outputs were produced with)"
            )
        exp_path = _check_file(
            root, golden.get("expected_outputs"), "golden.expected_outputs", problems
        )
        if exp_path is not None:
            known = {p.prompt_id for p in load_prompts()}
            for line_no, line in enumerate(
                exp_path.read_text(encoding="utf-8").splitlines(), start=1
            ):
                if not line.strip():
                    continue
                where = f"{golden['expected_outputs']['path']}:{line_no}"
                try:
                    row = json.loads(line)
                    pid, out = row["prompt_id"], row["output"]
                except (json.JSONDecodeError, KeyError, TypeError):
                    problems.append(f'{where}: expected {{"prompt_id": ..., "output": ...}}')
                    continue
                if pid not in known:
                    problems.append(
                        f"{where}: unknown prompt id {pid!r} (not in data/golden_prompts/prompts.jsonl)"
                    )
                elif pid in expected:
                    problems.append(f"{where}: duplicate prompt id {pid!r}")
                else:
                    expected[pid] = str(out)
            if not expected and not any("expected_outputs" in p for p in problems):
                problems.append("golden.expected_outputs: the file holds no outputs")
    if problems:
        raise BundleError(
            f"{root}: bundle verification failed ({len(problems)} problem(s)):\n  - "
            + "\n  - ".join(problems)
        )
    return Bundle(root=root, manifest=manifest, expected=expected)
