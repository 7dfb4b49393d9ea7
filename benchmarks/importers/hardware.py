"""Accelerator names as result files spell them -> catalog ids.

Only unambiguous names are mapped (an "A100" without its memory size could be 40 or 80 GB, so it
is left to ``--accelerator``). Order matters: the first matching pattern wins.
"""

from __future__ import annotations

import re

ALIASES: list[tuple[str, str]] = [
    (r"gh200", "nvidia-gh200-96gb"),
    (r"h100.*nvl", "nvidia-h100-nvl-94gb"),
    (r"h100.*pcie", "nvidia-h100-pcie-80gb"),
    (r"h100", "nvidia-h100-sxm-80gb"),  # "H100 80GB HBM3", "H100-SXM-80GB": the SXM part
    (r"h200", "nvidia-h200-141gb"),
    (r"b200", "nvidia-b200-180gb"),
    (r"a100.*80\s*gb|a100-sxm4-80|a100-80", "nvidia-a100-80gb"),
    (r"a100.*40\s*gb|a100-sxm4-40|a100-40|a100-pcie-40", "nvidia-a100-40gb"),
    (r"l40s", "nvidia-l40s-48gb"),
    (r"\bl4\b", "nvidia-l4-24gb"),
    (r"mi300x", "amd-mi300x-192gb"),
    (r"mi325x", "amd-mi325x-256gb"),
    (r"mi355x", "amd-mi355x-288gb"),
    (r"gaudi\W*3|hl-325", "intel-gaudi3-128gb"),  # "Intel® Gaudi® 3", "Gaudi-3"
    (r"gaudi\W*2|hl-225", "intel-gaudi2-96gb"),
    (r"tpu.*v5e|tpu.*v5\s*lite|v5litepod", "google-tpu-v5e"),
    (r"tpu.*v5p", "google-tpu-v5p"),
    (r"tpu.*v6e|trillium", "google-tpu-v6e"),
    (r"inferentia\s*2|\binf2\b", "aws-inferentia2"),
    (r"trainium\s*2|\btrn2\b", "aws-trainium2"),
    (r"trainium|\btrn1\b", "aws-trainium1"),
    (r"ai\s*100", "qualcomm-ai100-std"),
    # CPUs (llama-bench cpu_info, MLPerf host processors)
    (r"xeon.*\b6\d{3}p\b|xeon\s*6\b|granite\s*rapids", "cpu-intel-gnr-amx"),
    (r"xeon.*(platinum|gold|silver)\s*[4-8]4\d\d|sapphire\s*rapids", "cpu-intel-spr-amx"),
    (r"epyc\s*9\d\d4|genoa", "cpu-amd-genoa"),
    (r"epyc\s*9\d\d5|turin", "cpu-amd-turin"),
    (r"graviton\s*4", "cpu-aws-graviton4"),
]

_COMPILED = [(re.compile(pattern, re.IGNORECASE), acc) for pattern, acc in ALIASES]


def accelerator_for(name: str) -> str | None:
    """The catalog id for a vendor/tool accelerator name, or None when it is unknown or ambiguous."""
    for pattern, acc in _COMPILED:
        if pattern.search(name or ""):
            return acc
    return None
