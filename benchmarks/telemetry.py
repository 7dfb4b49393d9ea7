"""Accelerator and host telemetry while the harness runs.

Each vendor tool is split into a thin command and a pure parser over its documented output:

* NVIDIA ``nvidia-smi --query-gpu=index,name,memory.used,memory.total,utilization.gpu
  --format=csv,noheader,nounits`` (memory in MiB, utilisation in %).
* AMD ``amd-smi metric --usage --mem-usage --json`` (a list of per-GPU objects, or
  ``{"gpu_data": [...]}`` in newer releases; values are ``{"value", "unit"}`` pairs or bare
  numbers) and the older ``rocm-smi --showmeminfo vram --showuse --json``
  (``{"card0": {"GPU use (%)": "12", "VRAM Total Used Memory (B)": "..."}}``).
* Intel Gaudi ``hl-smi -Q index,name,memory.used,memory.total,utilization.aip
  -f csv,noheader,nounits`` (same CSV conventions as nvidia-smi; units tolerated if present).
* Host vCPU utilisation from two reads of ``/proc/stat`` (no psutil).

Telemetry measures the machine the harness runs on, so it is only meaningful when the server is
local (the CLI turns it on for localhost endpoints, or when asked).
"""

from __future__ import annotations

import json
import shutil
import subprocess
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

MIB_PER_GIB = 1024.0


@dataclass(frozen=True)
class DeviceSample:
    index: int
    name: str
    memory_used_gib: float | None
    memory_total_gib: float | None
    utilization_pct: float | None


class TelemetryParseError(ValueError):
    pass


def _num(text: str) -> float | None:
    text = str(text).strip()
    if not text or text.upper() in {"N/A", "[N/A]", "[NOT SUPPORTED]"}:
        return None
    text = text.split()[0].rstrip("%")
    try:
        return float(text)
    except ValueError as exc:
        raise TelemetryParseError(f"not a number: {text!r}") from exc


def _csv_mib_line(line: str, tool: str) -> DeviceSample:
    cols = [c.strip() for c in line.split(",")]
    if len(cols) < 5:
        raise TelemetryParseError(
            f"{tool}: expected 5 columns (index,name,memory.used,memory.total,util), got {line!r}"
        )
    used, total = _num(cols[2]), _num(cols[3])
    return DeviceSample(
        index=int(cols[0]),
        name=cols[1],
        memory_used_gib=None if used is None else used / MIB_PER_GIB,
        memory_total_gib=None if total is None else total / MIB_PER_GIB,
        utilization_pct=_num(cols[4]),
    )


NVIDIA_SMI_CMD = [
    "nvidia-smi",
    "--query-gpu=index,name,memory.used,memory.total,utilization.gpu",
    "--format=csv,noheader,nounits",
]
HL_SMI_CMD = [
    "hl-smi",
    "-Q",
    "index,name,memory.used,memory.total,utilization.aip",
    "-f",
    "csv,noheader,nounits",
]
AMD_SMI_CMD = ["amd-smi", "metric", "--usage", "--mem-usage", "--json"]
ROCM_SMI_CMD = ["rocm-smi", "--showmeminfo", "vram", "--showuse", "--json"]


def parse_nvidia_smi(text: str) -> list[DeviceSample]:
    return [_csv_mib_line(line, "nvidia-smi") for line in text.splitlines() if line.strip()]


def parse_hl_smi(text: str) -> list[DeviceSample]:
    return [_csv_mib_line(line, "hl-smi") for line in text.splitlines() if line.strip()]


def _value(obj) -> tuple[float | None, str]:
    if isinstance(obj, dict):
        return _num(obj.get("value", "")), str(obj.get("unit", ""))
    if obj is None:
        return None, ""
    return _num(str(obj)), ""


def _amd_mem_gib(obj) -> float | None:
    value, unit = _value(obj)
    if value is None:
        return None
    unit = unit.strip().upper()
    # amd-smi's "MB" is 2^20 bytes: an MI300X reports total_vram 196592 MB for its 192 GiB.
    factor = {
        "B": 1 / 1024**3,
        "KB": 1 / 1024**2,
        "MB": 1 / 1024,
        "MIB": 1 / 1024,
        "GB": 1.0,
        "GIB": 1.0,
    }.get(unit or "MB")
    if factor is None:
        raise TelemetryParseError(f"amd-smi: unknown memory unit {unit!r}")
    return value * factor


def parse_amd_smi(text: str) -> list[DeviceSample]:
    data = json.loads(text)
    if isinstance(data, dict):
        data = data.get("gpu_data", [data])
    if not isinstance(data, list):
        raise TelemetryParseError("amd-smi: expected a JSON list of GPUs")
    out = []
    for pos, gpu in enumerate(data):
        usage = gpu.get("usage") or {}
        mem = gpu.get("mem_usage") or {}
        util, _ = _value(usage.get("gfx_activity"))
        out.append(
            DeviceSample(
                index=int(gpu.get("gpu", pos)),
                name=str(gpu.get("name", "AMD GPU")),
                memory_used_gib=_amd_mem_gib(mem.get("used_vram")),
                memory_total_gib=_amd_mem_gib(mem.get("total_vram")),
                utilization_pct=util,
            )
        )
    return out


def parse_rocm_smi(text: str) -> list[DeviceSample]:
    data = json.loads(text)
    out = []
    for key in sorted(k for k in data if k.startswith("card")):
        card = data[key]
        used = card.get("VRAM Total Used Memory (B)")
        total = card.get("VRAM Total Memory (B)")
        out.append(
            DeviceSample(
                index=int(key[4:]),
                name=str(card.get("Card series", card.get("Card SKU", "AMD GPU"))),
                memory_used_gib=None if used is None else float(used) / 1024**3,
                memory_total_gib=None if total is None else float(total) / 1024**3,
                utilization_pct=_num(card.get("GPU use (%)", "")),
            )
        )
    return out


#: (tool binary, command, parser), tried in order; the first present tool wins.
PROBES = [
    ("nvidia-smi", NVIDIA_SMI_CMD, parse_nvidia_smi),
    ("amd-smi", AMD_SMI_CMD, parse_amd_smi),
    ("rocm-smi", ROCM_SMI_CMD, parse_rocm_smi),
    ("hl-smi", HL_SMI_CMD, parse_hl_smi),
]


# ---------------------------------------------------------------- host CPU
@dataclass(frozen=True)
class CpuTimes:
    busy: int
    total: int


def parse_proc_stat(text: str) -> CpuTimes:
    """Aggregate ``cpu`` line of /proc/stat: idle = idle + iowait; guest time is already in user."""
    for line in text.splitlines():
        if line.startswith("cpu "):
            fields = [int(x) for x in line.split()[1:]]
            fields = (fields + [0] * 10)[:10]
            user, nice, system, idle, iowait, irq, softirq, steal, _guest, _guest_nice = fields
            idle_all = idle + iowait
            total = user + nice + system + idle_all + irq + softirq + steal
            return CpuTimes(busy=total - idle_all, total=total)
    raise TelemetryParseError("/proc/stat has no aggregate 'cpu' line")


def cpu_utilization_pct(before: CpuTimes, after: CpuTimes) -> float | None:
    dt = after.total - before.total
    if dt <= 0:
        return None
    return 100.0 * (after.busy - before.busy) / dt


def read_cpu_times(path: Path = Path("/proc/stat")) -> CpuTimes | None:
    try:
        return parse_proc_stat(path.read_text())
    except (OSError, TelemetryParseError):
        return None


# ---------------------------------------------------------------- sampler
@dataclass
class TelemetrySummary:
    tool: str | None
    samples: int = 0
    peak_memory_gib: float | None = None  # peak of the sum over devices
    peak_memory_gib_per_device: dict[int, float] = field(default_factory=dict)
    mean_utilization_pct: float | None = None
    peak_utilization_pct: float | None = None
    host_cpu_util_pct_mean: float | None = None
    host_cpu_util_pct_peak: float | None = None
    errors: list[str] = field(default_factory=list)

    def to_json(self) -> dict:
        return {
            "tool": self.tool,
            "samples": self.samples,
            "peak_memory_gib": self.peak_memory_gib,
            "peak_memory_gib_per_device": {
                str(k): v for k, v in self.peak_memory_gib_per_device.items()
            },
            "mean_accelerator_utilization_pct": self.mean_utilization_pct,
            "peak_accelerator_utilization_pct": self.peak_utilization_pct,
            "host_cpu_util_pct_mean": self.host_cpu_util_pct_mean,
            "host_cpu_util_pct_peak": self.host_cpu_util_pct_peak,
            "errors": self.errors[:5],
        }


class TelemetrySampler:
    """Polls the first available vendor tool and /proc/stat on a background thread."""

    def __init__(
        self, interval_s: float = 0.5, probes=None, run=None, proc_stat: Path = Path("/proc/stat")
    ):
        self.interval_s = interval_s
        self._probes = PROBES if probes is None else probes
        self._run: Callable[[list[str]], str] = run or self._run_cmd
        self._proc_stat = proc_stat
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self.tool: str | None = None
        self._cmd: list[str] | None = None
        self._parse: Callable[[str], list[DeviceSample]] | None = None
        for tool, cmd, parse in self._probes:
            if shutil.which(cmd[0]) or run is not None:
                self.tool, self._cmd, self._parse = tool, cmd, parse
                break
        self._device_samples: list[list[DeviceSample]] = []
        self._cpu: list[float] = []
        self._errors: list[str] = []

    @staticmethod
    def _run_cmd(cmd: list[str]) -> str:
        return subprocess.run(cmd, capture_output=True, text=True, timeout=5, check=True).stdout

    def sample_once(self) -> None:
        if self._cmd is not None and self._parse is not None:
            try:
                self._device_samples.append(self._parse(self._run(self._cmd)))
            except (OSError, subprocess.SubprocessError, TelemetryParseError, ValueError) as exc:
                self._errors.append(f"{self.tool}: {exc}")

    def _loop(self) -> None:
        last = read_cpu_times(self._proc_stat)
        while not self._stop.wait(self.interval_s):
            self.sample_once()
            now = read_cpu_times(self._proc_stat)
            if last is not None and now is not None:
                pct = cpu_utilization_pct(last, now)
                if pct is not None:
                    self._cpu.append(pct)
            last = now

    def start(self) -> TelemetrySampler:
        self.sample_once()
        self._thread = threading.Thread(target=self._loop, name="tokendesk-telemetry", daemon=True)
        self._thread.start()
        return self

    def stop(self) -> TelemetrySummary:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=10)
        return summarise(self.tool, self._device_samples, self._cpu, self._errors)


def summarise(
    tool: str | None,
    device_samples: list[list[DeviceSample]],
    cpu: list[float],
    errors: list[str] | None = None,
) -> TelemetrySummary:
    out = TelemetrySummary(tool=tool, samples=len(device_samples), errors=list(errors or []))
    utils: list[float] = []
    for sample in device_samples:
        used = [d.memory_used_gib for d in sample if d.memory_used_gib is not None]
        if used:
            total = sum(used)
            out.peak_memory_gib = (
                total if out.peak_memory_gib is None else max(out.peak_memory_gib, total)
            )
        for d in sample:
            if d.memory_used_gib is not None:
                out.peak_memory_gib_per_device[d.index] = max(
                    out.peak_memory_gib_per_device.get(d.index, 0.0), d.memory_used_gib
                )
            if d.utilization_pct is not None:
                utils.append(d.utilization_pct)
    if utils:
        out.mean_utilization_pct = sum(utils) / len(utils)
        out.peak_utilization_pct = max(utils)
    if cpu:
        out.host_cpu_util_pct_mean = sum(cpu) / len(cpu)
        out.host_cpu_util_pct_peak = max(cpu)
    return out
