"""A tiny random-weight llama model in GGUF, written by the tests for llama.cpp's server.

Two layers, 64-wide, a sentencepiece-style vocabulary: control tokens, the 256 byte tokens
llama.cpp's tokenizer falls back to (it aborts on a character it cannot map without them), and
ASCII pieces. The weights are random (seeded), so the greedy output is nonsense but
deterministic; the control tokens decode to no text, so the server streams some events with
empty text, as real models do for special tokens. The byte tokens' output rows are zero, so
greedy decoding never picks one over the random-logit pieces: no output holds a multi-byte
character, whose tokens llama-cpp-python would merge into one event.
"""

from __future__ import annotations

import string
from pathlib import Path

import numpy as np

N_EMBD = 64
N_HEAD = 4
N_LAYER = 2
N_FF = 128
N_CTX = 1024

# token types of llama.cpp's vocabulary (gguf.TokenType)
NORMAL, UNKNOWN, CONTROL, BYTE = 1, 2, 3, 6
N_SPECIAL = 3 + 24  # <unk>, <s>, </s> and the control tokens
N_BYTES = 256


def vocabulary() -> tuple[list[str], list[float], list[int]]:
    tokens = ["<unk>", "<s>", "</s>"]
    types = [UNKNOWN, CONTROL, CONTROL]
    tokens += [f"<ctrl_{i}>" for i in range(24)]
    types += [CONTROL] * 24
    tokens += [f"<0x{b:02X}>" for b in range(N_BYTES)]
    types += [BYTE] * N_BYTES
    words = [
        "the",
        "of",
        "and",
        "to",
        "in",
        "is",
        "that",
        "for",
        "it",
        "on",
        "with",
        "as",
        "was",
        "at",
        "by",
        "an",
        "be",
        "this",
        "are",
        "or",
        "from",
        "token",
        "latency",
        "cache",
        "memory",
        "batch",
        "kernel",
        "stream",
        "price",
        "region",
        "queue",
        "shard",
        "model",
    ]
    pieces = ["\u2581" + w for w in words] + ["\u2581"]
    pieces += list(string.ascii_letters + string.digits + ".,;:!?-'()")
    pieces += ["\u2581" + c for c in string.ascii_lowercase]
    tokens += pieces
    types += [NORMAL] * len(pieces)
    scores = [0.0] * (N_SPECIAL + N_BYTES) + [-float(i) for i in range(len(pieces))]
    return tokens, scores, types


def write_tiny_llama(path: Path, *, seed: int = 0, name: str = "tiny-random-llama") -> Path:
    """Write the model to ``path`` and return it."""
    import gguf

    tokens, scores, types = vocabulary()
    n_vocab = len(tokens)
    rng = np.random.default_rng(seed)

    def weight(*shape: int, scale: float = 0.5) -> np.ndarray:
        return (rng.standard_normal(shape) * scale).astype(np.float32)

    writer = gguf.GGUFWriter(str(path), "llama")
    writer.add_name(name)
    writer.add_context_length(N_CTX)
    writer.add_embedding_length(N_EMBD)
    writer.add_block_count(N_LAYER)
    writer.add_feed_forward_length(N_FF)
    writer.add_head_count(N_HEAD)
    writer.add_head_count_kv(N_HEAD)
    writer.add_rope_dimension_count(N_EMBD // N_HEAD)
    writer.add_layer_norm_rms_eps(1e-5)
    writer.add_file_type(gguf.LlamaFileType.ALL_F32)
    writer.add_tokenizer_model("llama")
    writer.add_token_list(tokens)
    writer.add_token_scores(scores)
    writer.add_token_types(types)
    writer.add_unk_token_id(0)
    writer.add_bos_token_id(1)
    writer.add_eos_token_id(2)
    writer.add_add_bos_token(True)
    writer.add_add_eos_token(False)

    writer.add_tensor("token_embd.weight", weight(n_vocab, N_EMBD))
    for i in range(N_LAYER):
        blk = f"blk.{i}"
        writer.add_tensor(f"{blk}.attn_norm.weight", np.ones(N_EMBD, dtype=np.float32))
        for part in ("q", "k", "v", "output"):
            writer.add_tensor(f"{blk}.attn_{part}.weight", weight(N_EMBD, N_EMBD, scale=0.2))
        writer.add_tensor(f"{blk}.ffn_norm.weight", np.ones(N_EMBD, dtype=np.float32))
        writer.add_tensor(f"{blk}.ffn_gate.weight", weight(N_FF, N_EMBD, scale=0.2))
        writer.add_tensor(f"{blk}.ffn_up.weight", weight(N_FF, N_EMBD, scale=0.2))
        writer.add_tensor(f"{blk}.ffn_down.weight", weight(N_EMBD, N_FF, scale=0.2))
    writer.add_tensor("output_norm.weight", np.ones(N_EMBD, dtype=np.float32))
    output = weight(n_vocab, N_EMBD)
    output[N_SPECIAL : N_SPECIAL + N_BYTES] = 0.0  # logit 0: never the greedy choice
    writer.add_tensor("output.weight", output)
    writer.write_header_to_file()
    writer.write_kv_data_to_file()
    writer.write_tensors_to_file()
    writer.close()
    return path
