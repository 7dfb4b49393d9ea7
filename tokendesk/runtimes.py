"""One name per serving runtime, however a result file, a flag or a person spells it.

Results name their runtime as their tool wrote it ("trt-llm" from MLPerf's framework strings,
"tensorrtllm" from genai-perf, "TensorRT-LLM" typed by hand). The performance model fits one
effect per runtime and picks measured answers by runtime, so two spellings of one engine would
be read as two engines: a question about "TensorRT-LLM" would find none of the results filed as
"trt-llm".
"""

from __future__ import annotations

import re

#: Spellings of one engine (after lower-casing, with "_" and spaces read as "-") -> its name.
ALIASES = {
    "tensorrt-llm": "trt-llm",
    "tensorrtllm": "trt-llm",
    "trtllm": "trt-llm",
    "llamacpp": "llama.cpp",
    "llama-cpp": "llama.cpp",
    "text-generation-inference": "tgi",
    "sg-lang": "sglang",
}
_SEPARATORS = re.compile(r"[\s_]+")


def canonical_runtime(name: str | None) -> str:
    """The one name of the runtime ``name`` spells ("" for none): lower case, "_" and spaces as
    "-", and the engines of :data:`ALIASES` by their usual name; any other name as it is then."""
    spelt = _SEPARATORS.sub("-", str(name or "").strip().lower())
    return ALIASES.get(spelt, spelt)


#: Words a result gives in place of a runtime's name (not a runtime to name to a person).
PLACEHOLDERS = frozenset({"", "n/a", "na", "none", "todo", "unknown", "unstated"})
