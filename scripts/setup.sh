#!/usr/bin/env bash
# Create .venv (if missing) and install tokendesk with pinned dependencies.
# Usage: scripts/setup.sh [--dev]   (--dev adds test and lint tools, Debian's chromium, LibreOffice
# and PostgreSQL)
set -euo pipefail
cd "$(dirname "$0")/.."
PYTHON=${PYTHON:-python3}
[ -x .venv/bin/python ] || "$PYTHON" -m venv .venv

# pip install with patience for a flaky network: pip resumes a cut download itself, and when
# a download keeps breaking at the same byte, a fresh pip process starts it over (up to four).
pip_install() {
    local attempt
    for attempt in 1 2 3 4; do
        if .venv/bin/python -m pip install --quiet --retries 10 --timeout 60 "$@"; then
            return 0
        fi
        [ "$attempt" = 4 ] && break
        echo "setup: pip install failed (attempt $attempt of 4); trying again" >&2
        sleep $((attempt * 5))
    done
    echo "setup: pip install failed four times; see pip's message above" >&2
    return 1
}

# Debian packages for the dev tools, with apt's own retries for a flaky mirror.
apt_install() {
    local sudo=""
    [ "$(id -u)" = 0 ] || sudo="sudo"
    $sudo apt-get -o Acquire::Retries=5 update -qq
    $sudo apt-get -o Acquire::Retries=5 install -y -qq "$@" >/dev/null
}

pip_install --upgrade pip
if [ "${1:-}" = "--dev" ]; then
    # llama-cpp-python compiles llama.cpp; its multimodal library (mtmd) is not needed by the
    # tests, so it is not compiled. pip caches the built wheel for the next setup.
    CMAKE_ARGS="${CMAKE_ARGS:--DLLAVA_BUILD=OFF}" \
        pip_install --resume-retries 10 -r requirements-dev.txt
    # Browser tests drive Debian's chromium; Playwright's own browser download is not used.
    [ -x /usr/bin/chromium ] || apt_install chromium
    # The brief's workbook test recalculates its formulas with LibreOffice, headless.
    command -v soffice >/dev/null || apt_install --no-install-recommends libreoffice-calc-nogui
    # Team-mode tests start a real PostgreSQL server (the DuckLake catalog) in a temp folder.
    ls /usr/lib/postgresql/*/bin/initdb >/dev/null 2>&1 || apt_install --no-install-recommends postgresql
else
    pip_install --resume-retries 10 -r requirements.txt
fi
pip_install --no-deps -e .
scripts/bytecode.sh
