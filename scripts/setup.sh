#!/usr/bin/env bash
# Create .venv (if missing) and install tokendesk with pinned dependencies.
# Usage: scripts/setup.sh [--dev]   (--dev adds test and lint tools, Debian's chromium, LibreOffice
# and PostgreSQL)
set -euo pipefail
cd "$(dirname "$0")/.."
PYTHON=${PYTHON:-python3}
[ -x .venv/bin/python ] || "$PYTHON" -m venv .venv
.venv/bin/python -m pip install --quiet --upgrade pip
if [ "${1:-}" = "--dev" ]; then
    # llama-cpp-python compiles llama.cpp; its multimodal library (mtmd) is not needed by the
    # tests, so it is not compiled. pip caches the built wheel for the next setup.
    CMAKE_ARGS="${CMAKE_ARGS:--DLLAVA_BUILD=OFF}" \
        .venv/bin/python -m pip install --quiet -r requirements-dev.txt
    if [ ! -x /usr/bin/chromium ]; then
        # Browser tests drive Debian's chromium; Playwright's own browser download is not used.
        SUDO=""; [ "$(id -u)" = 0 ] || SUDO="sudo"
        $SUDO apt-get update -qq && $SUDO apt-get install -y -qq chromium >/dev/null
    fi
    if ! command -v soffice >/dev/null; then
        # The brief's workbook test recalculates its formulas with LibreOffice, headless.
        SUDO=""; [ "$(id -u)" = 0 ] || SUDO="sudo"
        $SUDO apt-get update -qq
        $SUDO apt-get install -y -qq --no-install-recommends libreoffice-calc-nogui >/dev/null
    fi
    if ! ls /usr/lib/postgresql/*/bin/initdb >/dev/null 2>&1; then
        # Team-mode tests start a real PostgreSQL server (the DuckLake catalog) in a temp folder.
        SUDO=""; [ "$(id -u)" = 0 ] || SUDO="sudo"
        $SUDO apt-get update -qq
        $SUDO apt-get install -y -qq --no-install-recommends postgresql >/dev/null
    fi
else
    .venv/bin/python -m pip install --quiet -r requirements.txt
fi
.venv/bin/python -m pip install --quiet --no-deps -e .
scripts/bytecode.sh
