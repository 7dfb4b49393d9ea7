"""Accelerator names as result files spell them -> catalog ids, exactly or not at all.

A name is placed only when it identifies one catalog part: a family with several parts (H100
SXM / PCIe / NVL, H200 SXM / NVL, GH200 96 / 144 GB, A100 SXM4 / PCIe × 40 / 80 GB) needs the
name to state what tells them apart — the form factor, the memory size or the memory type — or
the whole name the vendor's driver reports for that part alone ("NVIDIA H200" is the SXM part:
the NVL card reports "NVIDIA H200 NVL"). A name that states a memory size no catalog part of its
family has ("B200 192GB", "H100-SXM5-94GB") is not placed either. Whatever is not placed is
returned with the reason, and the importer asks for ``--accelerator``: never the nearest part.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

_MEMORY = re.compile(r"\b(\d{2,3})\s*g(?:i?b)?\b")
_FORM = (("nvl", re.compile(r"\bnvl\b")), ("pcie", re.compile(r"\bpcie\b")))
_SXM = re.compile(r"\bsxm\d?\b")
_MEMORY_TYPE = re.compile(r"\b(hbm3e|hbm3|hbm2e|hbm2|gddr7|gddr6)\b")


@dataclass(frozen=True)
class Part:
    accelerator_id: str
    #: "sxm", "pcie" or "nvl" where the family is sold in more than one form; None otherwise.
    form: str | None = None
    #: Memory sizes (GB) a name may state for this part; the GH200's driver name states HBM plus
    #: the Grace CPU's LPDDR5X (480 GB), so that total names it too.
    memory_gb: tuple[int, ...] = ()
    memory_type: str | None = None
    #: Whole names (normalised) that the vendor's driver reports for this part and no other.
    device_names: tuple[str, ...] = ()


@dataclass(frozen=True)
class Family:
    label: str
    pattern: re.Pattern[str]
    parts: tuple[Part, ...]


def _family(label: str, pattern: str, *parts: Part) -> Family:
    return Family(label, re.compile(pattern), parts)


FAMILIES: tuple[Family, ...] = (
    # -- NVIDIA (Grace-based parts first: "GB200" and "GH200" contain "B200" and "H200")
    _family(
        "GH200",
        r"\bgh200\b",
        Part("nvidia-gh200-96gb", memory_gb=(96, 480), memory_type="hbm3"),
        Part(
            "nvidia-gh200-144gb",
            memory_gb=(144, 624),
            memory_type="hbm3e",
            device_names=("nvidia gh200 144g hbm3e",),
        ),
    ),
    _family("GB200", r"\bgb200\b", Part("nvidia-gb200-186gb", memory_gb=(186,))),
    _family("GB300", r"\bgb300\b", Part("nvidia-gb300-288gb", memory_gb=(288,))),
    # NVIDIA's MLPerf v6.0 and v6.1 submissions name the B300 "B300-SXM-270GB": their harness
    # (closed/NVIDIA/code/common/systems/known_hardware.py, KnownGPU.B300_SXM_270GB) knows the
    # part by its PCI id 3182 with the "268 GiB" its driver reports (about 288 GB in decimal units),
    # and the same submission's README lists the machine as "B300-SXM-288GBx8 (NVIDIA DGX B300)".
    # 270 GB is the memory the driver leaves visible, not another part.
    _family("B300", r"\bb300\b", Part("nvidia-b300-288gb", memory_gb=(288, 270))),
    _family("B200", r"\bb200\b", Part("nvidia-b200-180gb", memory_gb=(180,))),
    _family(
        "H200",
        r"\bh200\b",
        Part("nvidia-h200-141gb", "sxm", (141,), "hbm3e", device_names=("nvidia h200",)),
        Part("nvidia-h200-nvl-141gb", "nvl", (141,), "hbm3e", device_names=("nvidia h200 nvl",)),
    ),
    _family(
        "H100",
        r"\bh100\b",
        Part("nvidia-h100-sxm-80gb", "sxm", (80,), "hbm3"),
        Part("nvidia-h100-pcie-80gb", "pcie", (80,), "hbm2e"),
        Part("nvidia-h100-nvl-94gb", "nvl", (94,), "hbm3"),
    ),
    _family(
        "A100",
        r"\ba100\b",
        Part("nvidia-a100-40gb", "sxm", (40,), "hbm2"),
        Part("nvidia-a100-80gb", "sxm", (80,), "hbm2e"),
        Part("nvidia-a100-pcie-40gb", "pcie", (40,), "hbm2"),
        Part("nvidia-a100-pcie-80gb", "pcie", (80,), "hbm2e"),
    ),
    _family("L40S", r"\bl40s\b", Part("nvidia-l40s-48gb", memory_gb=(48,))),
    _family("L4", r"\bl4\b", Part("nvidia-l4-24gb", memory_gb=(24,))),
    _family("A10G", r"\ba10g\b", Part("nvidia-a10g-24gb", memory_gb=(24,))),
    # The PCIe A10 (not AWS's A10G: \b stops "a10" matching inside "a10g").
    _family("A10", r"\ba10\b", Part("nvidia-a10-24gb", memory_gb=(24,))),
    _family("T4", r"\bt4\b", Part("nvidia-t4-16gb", memory_gb=(16,))),
    _family("RTX PRO 6000", r"\brtx pro 6000\b", Part("nvidia-rtx-pro-6000-96gb", memory_gb=(96,))),
    # -- AMD
    _family("MI300X", r"\bmi300x\b", Part("amd-mi300x-192gb", memory_gb=(192,))),
    _family("MI325X", r"\bmi325x\b", Part("amd-mi325x-256gb", memory_gb=(256,))),
    _family("MI355X", r"\bmi355x\b", Part("amd-mi355x-288gb", memory_gb=(288,))),
    # -- Intel Gaudi ("Intel® Gaudi® 3", "Gaudi-3", "HL-325L")
    _family("Gaudi 3", r"\bgaudi ?3\b|\bhl 325", Part("intel-gaudi3-128gb", memory_gb=(128,))),
    _family("Gaudi 2", r"\bgaudi ?2\b|\bhl 225", Part("intel-gaudi2-96gb", memory_gb=(96,))),
    _family("Gaudi 1", r"\bgaudi ?1\b|\bhl 205\b", Part("intel-gaudi1-32gb", memory_gb=(32,))),
    _family(  # "Gaudi" alone: the memory size may still say which
        "Gaudi",
        r"\bgaudi\b",
        Part("intel-gaudi1-32gb", memory_gb=(32,)),
        Part("intel-gaudi2-96gb", memory_gb=(96,)),
        Part("intel-gaudi3-128gb", memory_gb=(128,)),
    ),
    # -- Google TPU
    _family("TPU v5e", r"\btpu.*\bv5 ?(e|lite)\b|\bv5litepod\b", Part("google-tpu-v5e")),
    _family("TPU v5p", r"\btpu.*\bv5p\b", Part("google-tpu-v5p")),
    _family("TPU v6e", r"\btpu.*\bv6 ?e\b|\btrillium\b", Part("google-tpu-v6e")),
    _family("TPU v7", r"\btpu.*\bv7x?\b|\bironwood\b|\btpu7x\b", Part("google-tpu-v7")),
    # -- AWS (a bare "Trainium" or "Inferentia" does not say which generation)
    _family("Inferentia2", r"\binferentia ?2\b|\binf2\b", Part("aws-inferentia2")),
    _family("Trainium2", r"\btrainium ?2\b|\btrn2\b", Part("aws-trainium2")),
    _family("Trainium1", r"\btrainium ?1\b|\btrn1n?\b", Part("aws-trainium1")),
    _family(
        "Trainium",
        r"\btrainium\b",
        Part("aws-trainium1", memory_gb=(32,)),
        Part("aws-trainium2", memory_gb=(96,)),
    ),
    _family("Cloud AI 100", r"\bai ?100\b", Part("qualcomm-ai100-std")),
    # -- CPUs (llama-bench cpu_info, MLPerf host processors): the model number names the family
    _family("Xeon 6", r"\bxeon.*\b6\d{3}p\b|\bgranite rapids\b", Part("cpu-intel-gnr-amx")),
    _family(
        "Xeon 5th gen",
        r"\bxeon.*\b(platinum|gold|silver|bronze) [4-8]5\d\d|\bemerald rapids\b",
        Part("cpu-intel-emr-amx"),
    ),
    _family(
        "Xeon 4th gen",
        r"\bxeon.*\b(platinum|gold|silver|bronze) [3-8]4\d\d|\bsapphire rapids\b",
        Part("cpu-intel-spr-amx"),
    ),
    _family("EPYC 9004", r"\bepyc 9\d\d4\w*\b|\bgenoa\b", Part("cpu-amd-genoa")),
    _family("EPYC 9005", r"\bepyc 9\d\d5\w*\b|\bturin\b", Part("cpu-amd-turin")),
    _family("Graviton4", r"\bgraviton ?4\b", Part("cpu-aws-graviton4")),
)


@dataclass(frozen=True)
class Identification:
    """What a name says: the catalog id, or why it names none."""

    accelerator_id: str | None
    reason: str = ""
    #: The parts a name of a mixed system lists, one each ("AMD Instinct MI300X 192GB HBM3
    #: (x8)", …); empty for a name of one part. No flag places such a name.
    mixed: tuple[str, ...] = ()


#: How a name joins the parts of a mixed system: MLPerf v6.0 writes "… (x8) and … (x8)", v5.1
#: "… (x32), … (x16)"; people write "MI300X+MI325X".
_JOINS = re.compile(r"\s+and\s+|\s*[+;,]\s*", re.IGNORECASE)


def _accelerator_families(text: str) -> list[Family]:
    """The accelerator families a normalised name names, each once, in the catalog's order;
    a match inside another family's match ("gaudi" in "gaudi 3") is that family's, and host
    CPUs named beside an accelerator are not counted."""
    spans: list[tuple[int, int]] = []
    found: list[Family] = []
    for family in FAMILIES:
        if family.parts[0].accelerator_id.startswith("cpu-"):
            continue
        own = [
            m.span()
            for m in family.pattern.finditer(text)
            if not any(a <= m.start() and m.end() <= b for a, b in spans)
        ]
        if own:
            found.append(family)
            spans += own
    return found


def _mixed(name: str, text: str) -> Identification | None:
    families = _accelerator_families(text)
    if len(families) < 2:
        return None
    parts = tuple(p.strip() for p in _JOINS.split(name) if p.strip())
    if len(parts) < 2:
        parts = tuple(f.label for f in families)
    return Identification(
        None,
        f"{name!r} is one system of mixed accelerators ({'; '.join(parts)}): its result is "
        "the whole mix's, which no single catalog part stands for",
        mixed=parts,
    )


def normalise(name: str) -> str:
    """Lower case, trademarks dropped, separators as single spaces: ``"NVIDIA H200-NVL-141GB"``
    -> ``"nvidia h200 nvl 141gb"``."""
    text = (name or "").lower()
    text = re.sub(r"\((r|tm)\)|[®™]", " ", text)
    text = re.sub(r"[_\-/,()]+", " ", text)
    return re.sub(r"\s+", " ", text).strip()


def identify(name: str, memory_gb: float | None = None) -> Identification:
    """Place ``name`` (optionally with the memory size the file states beside it) in the
    catalog, or say why it cannot be placed."""
    text = normalise(name)
    mixed = _mixed(name, text)
    if mixed:
        return mixed
    family = next((f for f in FAMILIES if f.pattern.search(text)), None)
    if family is None:
        return Identification(None, f"{name!r} is not an accelerator the catalog knows")
    stated_memory = {int(m) for m in _MEMORY.findall(text)}
    if memory_gb:
        stated_memory.add(round(memory_gb))
    for part in family.parts:
        if text in part.device_names and stated_memory <= set(part.memory_gb):
            return Identification(part.accelerator_id)
    form = "sxm" if _SXM.search(text) else next((f for f, rx in _FORM if rx.search(text)), None)
    memory_type = (_MEMORY_TYPE.search(text) or [None, None])[1]
    candidates = [
        p
        for p in family.parts
        if (form is None or p.form is None or p.form == form)
        and (not stated_memory or not p.memory_gb or stated_memory <= set(p.memory_gb))
        and (memory_type is None or p.memory_type is None or p.memory_type == memory_type)
    ]
    if len(candidates) == 1:
        return Identification(candidates[0].accelerator_id)
    if not candidates:
        said = ", ".join(
            x
            for x in (
                form,
                " / ".join(f"{m} GB" for m in sorted(stated_memory)),
                memory_type,
            )
            if x
        )
        return Identification(
            None,
            f"{name!r} is a {family.label} with {said}, which no {family.label} in the catalog "
            f"has (known: {', '.join(p.accelerator_id for p in family.parts)})",
        )
    return Identification(
        None,
        f"{name!r} could be any of {', '.join(p.accelerator_id for p in candidates)}: the name "
        "does not say the form factor or memory that tells them apart",
    )


def accelerator_for(name: str, memory_gb: float | None = None) -> str | None:
    """The catalog id for a vendor/tool accelerator name, or None when it is unknown or
    ambiguous (:func:`identify` says which)."""
    return identify(name, memory_gb).accelerator_id
