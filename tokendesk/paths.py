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


def user_data_dir() -> Path:
    """XDG data home on Linux, ~/Library/Application Support on macOS, %APPDATA% on Windows."""
    if os.name == "nt":
        base = Path(os.environ.get("APPDATA", Path.home() / "AppData" / "Roaming"))
    elif os.uname().sysname == "Darwin":
        base = Path.home() / "Library" / "Application Support"
    else:
        base = Path(os.environ.get("XDG_DATA_HOME", Path.home() / ".local" / "share"))
    return base / "tokendesk"


def user_cache_dir() -> Path:
    """What may be thrown away: XDG cache home on Linux, ~/Library/Caches on macOS,
    %LOCALAPPDATA% on Windows."""
    if os.name == "nt":
        base = Path(os.environ.get("LOCALAPPDATA", Path.home() / "AppData" / "Local"))
    elif os.uname().sysname == "Darwin":
        base = Path.home() / "Library" / "Caches"
    else:
        base = Path(os.environ.get("XDG_CACHE_HOME", Path.home() / ".cache"))
    return base / "tokendesk"


def default_db_path() -> Path:
    override = os.environ.get(DB_PATH_ENV)
    return Path(override) if override else user_data_dir() / "tokendesk.duckdb"
