"""The build scripts under scripts/ loaded as modules for their tests (they are not a package)."""

from __future__ import annotations

import importlib.util
import sys
from types import ModuleType

from tokendesk.paths import REPO_ROOT


def load_script(name: str) -> ModuleType:
    """``scripts/<name>.py`` as the module ``name`` (registered, so dataclasses resolve)."""
    path = REPO_ROOT / "scripts" / f"{name}.py"
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module
