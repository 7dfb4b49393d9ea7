"""Where tokendesk finds its bundled data and keeps its warehouse.

The bundled reference data lives in the repository's ``data/`` folder; the warehouse lives in
a per-user data directory so that a read-only checkout still works.
"""

from __future__ import annotations

import os
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parents[1]

#: Overrides the bundled data folder (tests point it at crafted copies).
DATA_DIR_ENV = "TOKENDESK_DATA_DIR"
#: Overrides the warehouse file; the CLI's ``--db`` flag wins over this.
DB_PATH_ENV = "TOKENDESK_DB"
#: The dashboard's public address (``https://dash.example.com``), which a brief's link back to
#: its view is built on; ``tokendesk app --public-url`` wins over this.
PUBLIC_URL_ENV = "TOKENDESK_PUBLIC_URL"


def data_dir() -> Path:
    override = os.environ.get(DATA_DIR_ENV)
    return Path(override) if override else REPO_ROOT / "data"


def _base_dir(variable: str, default: Path) -> Path:
    """The folder an environment variable names, where it names an absolute one; else
    ``default``. An empty or relative value is ignored, as the XDG base-directory rules say:
    taken as is, it would put the user's files under whatever folder a command ran in."""
    value = os.environ.get(variable, "")
    return Path(value) if value and Path(value).is_absolute() else default


def user_data_dir() -> Path:
    """XDG data home on Linux, ~/Library/Application Support on macOS, %APPDATA% on Windows."""
    if os.name == "nt":
        base = _base_dir("APPDATA", Path.home() / "AppData" / "Roaming")
    elif os.uname().sysname == "Darwin":
        base = Path.home() / "Library" / "Application Support"
    else:
        base = _base_dir("XDG_DATA_HOME", Path.home() / ".local" / "share")
    return base / "tokendesk"


def user_cache_dir() -> Path:
    """What may be thrown away: XDG cache home on Linux, ~/Library/Caches on macOS,
    %LOCALAPPDATA% on Windows."""
    if os.name == "nt":
        base = _base_dir("LOCALAPPDATA", Path.home() / "AppData" / "Local")
    elif os.uname().sysname == "Darwin":
        base = Path.home() / "Library" / "Caches"
    else:
        base = _base_dir("XDG_CACHE_HOME", Path.home() / ".cache")
    return base / "tokendesk"


def default_db_path() -> Path:
    override = os.environ.get(DB_PATH_ENV)
    return Path(override) if override else user_data_dir() / "tokendesk.duckdb"
