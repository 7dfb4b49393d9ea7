"""Setup leaves the project's own modules compiled, as pip leaves every package it installs: where
Python may not write bytecode at run time, each start of the dashboard would otherwise compile
them again before its first page."""

from __future__ import annotations

import importlib.util
import struct
import subprocess
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def _packages() -> list[str]:
    settings = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    patterns = settings["tool"]["setuptools"]["packages"]["find"]["include"]
    return [pattern.rstrip("*") for pattern in patterns]


def _current(source: Path) -> bool:
    """Whether ``source`` has bytecode Python would use as it is (same mtime and size)."""
    compiled = Path(importlib.util.cache_from_source(str(source)))
    if not compiled.exists():
        return False
    header = compiled.read_bytes()[:16]
    flags, mtime, size = struct.unpack("<III", header[4:16])
    stat = source.stat()
    return flags == 0 and mtime == int(stat.st_mtime) & 0xFFFFFFFF and size == stat.st_size


def test_the_bytecode_step_compiles_every_module_of_every_installed_package():
    subprocess.run([ROOT / "scripts" / "bytecode.sh"], check=True, cwd=ROOT)
    sources = [path for name in _packages() for path in (ROOT / name).rglob("*.py")]
    assert len(sources) > 100
    stale = [str(path.relative_to(ROOT)) for path in sources if not _current(path)]
    assert stale == []


def test_setup_runs_it_after_installing():
    lines = (ROOT / "scripts" / "setup.sh").read_text(encoding="utf-8").splitlines()
    install = max(n for n, line in enumerate(lines) if "pip_install" in line and "-e ." in line)
    assert "scripts/bytecode.sh" in lines[install + 1 :]
