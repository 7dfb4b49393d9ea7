#!/usr/bin/env bash
# Set up (first time) and run the whole test suite, browser tests included.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh --dev
.venv/bin/ruff check .
.venv/bin/ruff format --check .
.venv/bin/mypy
# One process per core the machine allows (at most 4: scripts/test_workers.py), each test file
# whole in one process (its module fixtures start once).
exec .venv/bin/python -m pytest -n "$(.venv/bin/python scripts/test_workers.py)" --dist loadfile "$@"
