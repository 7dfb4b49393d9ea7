"""Build ``data/model_architectures.csv`` from pinned public sources.

The manifest ``data/sources/model_sources.yaml`` pins every file the build reads (repository,
commit, path, sha256): published model configs (Hugging Face ``config.json`` copies kept in a
GitHub repository) and model cards that state total and active parameters. Rows typed before
this build existed are carried from ``data/sources/model_architectures_carried.csv``, checked
against a pinned config where one exists.

    python scripts/build_models.py --cache ~/.cache/tokendesk/model_sources
    python scripts/build_models.py --cache tests/fixtures/real/model_configs --offline

The cache holds each file at ``<repo>/<commit>/<path>``; a missing file is downloaded from
``https://raw.githubusercontent.com/<repo>/<commit>/<path>`` (unless ``--offline``) and every
file's sha256 is checked before it is read. The output is sorted as the manifest lists the rows
and written with ``\\n`` line ends, so two runs give identical bytes.
"""

from __future__ import annotations

import argparse
import csv
import hashlib
import io
import json
import re
import sys
import urllib.request
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

ROOT = Path(__file__).resolve().parents[1]
MANIFEST = ROOT / "data" / "sources" / "model_sources.yaml"
CARRIED = ROOT / "data" / "sources" / "model_architectures_carried.csv"
OUT = ROOT / "data" / "model_architectures.csv"
RAW = "https://raw.githubusercontent.com/{repo}/{commit}/{path}"

FIELDS = [
    "model_id",
    "name",
    "family",
    "aliases",
    "params_b",
    "active_params_b",
    "layers",
    "hidden_size",
    "attention_heads",
    "kv_heads",
    "head_dim",
    "vocab_size",
    "max_context",
    "attention",
    "kv_lora_rank",
    "qk_rope_head_dim",
    "full_attention_layers",
    "attention_window",
    "experts",
    "experts_per_token",
    "params_source",
    "source_url",
    "retrieved",
    "confidence",
    "notes",
]
#: Figures a carried row must share with its pinned config.
CHECKED = (
    "layers",
    "hidden_size",
    "attention_heads",
    "kv_heads",
    "head_dim",
    "vocab_size",
    "max_context",
)
#: How far a carried parameter figure may sit from the count (a publisher's rounding).
PARAMS_TOLERANCE = 0.005
#: Config model types whose parameters count_params knows how to count.
COUNTABLE = {"llama", "mistral", "mixtral", "qwen3", "qwen3_moe", "qwen3_vl_moe_text"}


class BuildError(RuntimeError):
    """A source that cannot be read as pinned; the message names the file, the field and the fix."""


@dataclass(frozen=True)
class Pinned:
    key: str
    repo: str
    commit: str
    path: str
    sha256: str
    date: str
    copy_of: str = ""

    @property
    def url(self) -> str:
        return RAW.format(repo=self.repo, commit=self.commit, path=self.path)


def load_manifest(path: Path = MANIFEST) -> dict[str, Any]:
    data = yaml.safe_load(path.read_text(encoding="utf-8"))
    for section in ("files", "carried", "models"):
        if section not in data:
            raise BuildError(f"{path}: the {section!r} section is missing; add it")
    return data


def pinned_files(manifest: dict[str, Any]) -> dict[str, Pinned]:
    out = {}
    for key, entry in manifest["files"].items():
        try:
            out[key] = Pinned(key=key, **entry)
        except TypeError as exc:
            raise BuildError(
                f"{MANIFEST}: files.{key}: {exc}; give repo, commit, path, sha256, date"
            ) from None
    return out


def read_pinned(pin: Pinned, cache: Path, *, offline: bool) -> bytes:
    """The pinned file's bytes from the cache, downloaded first when missing and allowed."""
    local = cache / pin.repo / pin.commit / pin.path
    if not local.exists():
        if offline:
            raise BuildError(
                f"{local}: not in the cache (files.{pin.key}); run without --offline to "
                f"download {pin.url}"
            )
        local.parent.mkdir(parents=True, exist_ok=True)
        with urllib.request.urlopen(pin.url, timeout=60) as response:
            local.write_bytes(response.read())
    body = local.read_bytes()
    digest = hashlib.sha256(body).hexdigest()
    if digest != pin.sha256:
        raise BuildError(
            f"{local}: sha256 {digest} is not the pinned {pin.sha256} (files.{pin.key}.sha256); "
            "delete the cached file and download it again, or pin the new file deliberately"
        )
    return body


def text_config(config: dict[str, Any]) -> dict[str, Any]:
    """The language model's part of a config (multimodal configs nest it in text_config)."""
    return config.get("text_config", config)


def _need(cfg: dict[str, Any], key: str, where: str) -> Any:
    if cfg.get(key) is None:
        raise BuildError(f"{where}: field {key!r} is missing; pin a config that states it")
    return cfg[key]


def architecture(config: dict[str, Any], where: str) -> dict[str, Any]:
    """The table's architecture columns read from one published config."""
    t = text_config(config)
    layers = int(_need(t, "num_hidden_layers", where))
    heads = int(_need(t, "num_attention_heads", where))
    hidden = int(_need(t, "hidden_size", where))
    kv_lora = int(t.get("kv_lora_rank") or 0)
    rope = int(t.get("qk_rope_head_dim") or 0)
    if kv_lora:
        # MLA: the query/key head is the no-position part plus the rotary part.
        head_dim = int(_need(t, "qk_nope_head_dim", where)) + rope
    else:
        head_dim = int(t.get("head_dim") or hidden // heads)
    kv_heads = int(t.get("num_key_value_heads") or heads)
    types = t.get("layer_types") or []
    if any(kind not in ("full_attention", "sliding_attention") for kind in types):
        raise BuildError(
            f"{where}: layer_types holds {sorted(set(types))}; only full and sliding-window "
            "attention layers are modelled, leave this model out of the manifest"
        )
    full = types.count("full_attention") if types else layers
    window = int(t.get("sliding_window") or 0) if full < layers else 0
    experts = int(t.get("n_routed_experts") or t.get("num_local_experts") or 0)
    experts = experts or int(t.get("num_experts") or 0)
    per_token = int(t.get("num_experts_per_tok") or t.get("experts_per_token") or 0)
    return {
        "layers": layers,
        "hidden_size": hidden,
        "attention_heads": heads,
        "kv_heads": kv_heads,
        "head_dim": head_dim,
        "vocab_size": int(_need(t, "vocab_size", where)),
        "max_context": int(_need(t, "max_position_embeddings", where)),
        "attention": "mla" if kv_lora else ("mha" if kv_heads == heads else "gqa"),
        "kv_lora_rank": kv_lora,
        "qk_rope_head_dim": rope if kv_lora else 0,
        "full_attention_layers": full,
        "attention_window": window,
        "experts": experts,
        "experts_per_token": per_token if experts else 0,
    }


def count_params(config: dict[str, Any], where: str) -> tuple[float, float]:
    """(total, active) parameters of a Llama-style decoder, dense or MoE, from its config.

    Per layer: attention q, k, v, o projections (plus Qwen3's q/k norms), two RMS norms, and
    either a gated MLP (3 x hidden x intermediate) or E experts of that shape plus the router
    (hidden x E); active parameters count experts_per_token experts instead of E. Plus the token
    embedding, the LM head unless tied, and the final norm. Checked against the carried Llama
    3.1 and Mixtral 8x7B figures by the build itself.
    """
    t = text_config(config)
    kind = t.get("model_type", "")
    if kind not in COUNTABLE:
        raise BuildError(
            f"{where}: model_type {kind!r} has no parameter count here ({sorted(COUNTABLE)}); "
            "take the parameters from a model card (params: {from: card})"
        )
    if t.get("attention_bias") or t.get("mlp_only_layers") or t.get("decoder_sparse_step", 1) != 1:
        raise BuildError(
            f"{where}: biases or dense layers inside a MoE are not counted; use a card"
        )
    arch = architecture(config, where)
    hidden, heads, kv, hd = (
        arch["hidden_size"],
        arch["attention_heads"],
        arch["kv_heads"],
        arch["head_dim"],
    )
    attention = 2 * hidden * heads * hd + 2 * hidden * kv * hd + 2 * hidden
    if kind.startswith("qwen3"):
        attention += 2 * hd
    experts, per_token = arch["experts"], arch["experts_per_token"]
    if experts:
        inter = int(t.get("moe_intermediate_size") or _need(t, "intermediate_size", where))
        expert = 3 * hidden * inter
        total_layer = attention + experts * expert + hidden * experts
        active_layer = attention + per_token * expert + hidden * experts
    else:
        total_layer = active_layer = attention + 3 * hidden * int(
            _need(t, "intermediate_size", where)
        )
    tied = bool(config.get("tie_word_embeddings", t.get("tie_word_embeddings", False)))
    embeddings = arch["vocab_size"] * hidden * (1 if tied else 2) + hidden
    layers = arch["layers"]
    return (
        (layers * total_layer + embeddings) / 1e9,
        (layers * active_layer + embeddings) / 1e9,
    )


_SCALE = {"B": 1.0, "T": 1000.0}


def card_params(text: str, pattern: str, where: str) -> tuple[float, float]:
    """(total, active) billions as the model card states them, read with the manifest's pattern."""
    match = re.search(pattern, text, flags=re.DOTALL)
    if not match:
        raise BuildError(
            f"{where}: the params pattern {pattern!r} does not match; the card changed, fix the "
            "pattern in data/sources/model_sources.yaml"
        )
    found = match.groupdict()
    total = float(found["total"]) * _SCALE[found.get("total_unit") or "B"]
    active = float(found.get("active") or found["total"]) * _SCALE[found.get("active_unit") or "B"]
    return total, active


def _fmt(value: float) -> str:
    return f"{value:.2f}"


def _join(aliases: list[str]) -> str:
    return ";".join(aliases)


def carried_rows(
    manifest: dict[str, Any], pins: dict[str, Pinned], configs: dict[str, dict[str, Any]]
) -> list[dict[str, str]]:
    with CARRIED.open(newline="", encoding="utf-8") as handle:
        rows = {row["model_id"]: row for row in csv.DictReader(handle)}
    out = []
    for entry in manifest["carried"]:
        row = rows.get(entry["model_id"])
        if row is None:
            raise BuildError(f"{CARRIED}: no row for carried model_id {entry['model_id']!r}")
        derived = {"experts": 0, "experts_per_token": 0}
        check = entry.get("check")
        if check:
            derived = _checked(row, configs[check], pins[check])
        kv, heads = int(row["kv_heads"]), int(row["attention_heads"])
        aliases = row["aliases"].split(";") + list(entry.get("aliases", []))
        out.append(
            {
                **{
                    k: row[k] for k in ("model_id", "name", "family", "params_b", "active_params_b")
                },
                **{k: row[k] for k in CHECKED},
                "aliases": _join(aliases),
                "attention": "mha" if kv == heads else "gqa",
                "kv_lora_rank": "0",
                "qk_rope_head_dim": "0",
                "full_attention_layers": row["layers"],
                "attention_window": "0",
                "experts": str(derived["experts"]),
                "experts_per_token": str(derived["experts_per_token"]),
                "params_source": "carried" + (f"; counted from {pins[check].url}" if check else ""),
                "source_url": row["source_url"],
                "retrieved": row["retrieved"],
                "confidence": "high" if check else "medium",
                "notes": row["notes"],
            }
        )
    return out


def _checked(row: dict[str, str], config: dict[str, Any], pin: Pinned) -> dict[str, Any]:
    """The config's architecture, after checking that the carried row agrees with it."""
    arch = architecture(config, pin.url)
    total, active = count_params(config, pin.url)
    wrong = [f"{k} {row[k]} != {arch[k]}" for k in CHECKED if int(row[k]) != arch[k]]
    for name, counted in (("params_b", total), ("active_params_b", active)):
        # Carried parameters may be a publisher's rounding (Mixtral's "12.9B" active is 12.88).
        if abs(float(row[name]) - counted) > PARAMS_TOLERANCE * counted:
            wrong.append(f"{name} {row[name]} != {_fmt(counted)} counted")
    if wrong:
        raise BuildError(
            f"{CARRIED}: {row['model_id']} disagrees with {pin.url}: {'; '.join(wrong)}; "
            "correct the carried row from the config"
        )
    return arch


def pinned_rows(
    manifest: dict[str, Any],
    pins: dict[str, Pinned],
    configs: dict[str, dict[str, Any]],
    texts: dict[str, str],
) -> list[dict[str, str]]:
    out = []
    for entry in manifest["models"]:
        pin = pins[entry["config"]]
        config = configs[entry["config"]]
        arch = architecture(config, pin.url)
        params = entry["params"]
        if params["from"] == "card":
            card = pins[params["file"]]
            total, active = card_params(texts[params["file"]], params["pattern"], card.url)
            params_source = f"stated in {card.url}"
        elif params["from"] == "count":
            total, active = count_params(config, pin.url)
            params_source = f"counted from {pin.url}"
        else:
            raise BuildError(f"{MANIFEST}: {entry['model_id']}: params.from must be card or count")
        if not 0 < active <= total:
            raise BuildError(
                f"{MANIFEST}: {entry['model_id']}: active {active} must be in (0, total {total}]"
            )
        notes = entry.get("notes", "")
        if pin.copy_of:
            notes = (
                f"{notes}; config is a copy of {pin.copy_of}" if notes else f"copy of {pin.copy_of}"
            )
        out.append(
            {
                "model_id": entry["model_id"],
                "name": entry["name"],
                "family": entry["family"],
                "aliases": _join(entry["aliases"]),
                "params_b": _fmt(total),
                "active_params_b": _fmt(active),
                **{k: str(v) for k, v in arch.items()},
                "params_source": params_source,
                "source_url": pin.url,
                "retrieved": pin.date,
                "confidence": "high",
                "notes": notes,
            }
        )
    return out


def build(cache: Path, *, offline: bool = False, manifest_path: Path = MANIFEST) -> str:
    """The table's CSV text."""
    manifest = load_manifest(manifest_path)
    pins = pinned_files(manifest)
    texts = {
        key: read_pinned(pin, cache, offline=offline).decode("utf-8") for key, pin in pins.items()
    }
    configs = {}
    for key, pin in pins.items():
        if pin.path.endswith(".json"):
            try:
                configs[key] = json.loads(texts[key])
            except json.JSONDecodeError as exc:
                raise BuildError(
                    f"{pin.url}: not JSON ({exc}); pin the config.json itself"
                ) from None
    rows = carried_rows(manifest, pins, configs) + pinned_rows(manifest, pins, configs, texts)
    seen: set[str] = set()
    for row in rows:
        if row["model_id"] in seen:
            raise BuildError(f"{MANIFEST}: model_id {row['model_id']!r} appears twice")
        seen.add(row["model_id"])
    buffer = io.StringIO()
    writer = csv.DictWriter(buffer, fieldnames=FIELDS, lineterminator="\n")
    writer.writeheader()
    writer.writerows(rows)
    return buffer.getvalue()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--cache", type=Path, required=True, help="folder of pinned files")
    parser.add_argument("--offline", action="store_true", help="never download; cache only")
    parser.add_argument("--out", type=Path, default=OUT, help=f"default {OUT}")
    args = parser.parse_args(argv)
    try:
        text = build(args.cache, offline=args.offline)
    except BuildError as exc:
        print(f"build_models: {exc}", file=sys.stderr)
        return 1
    args.out.write_bytes(text.encode("utf-8"))
    print(f"wrote {args.out} ({text.count(chr(10)) - 1} models)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
