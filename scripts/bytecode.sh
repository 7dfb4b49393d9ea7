#!/usr/bin/env bash
# Compile the project's own modules to bytecode, as pip does for every package it installs (the
# project is installed editable, so pip leaves its modules to be compiled on first import). Where
# Python may not write bytecode when it runs (PYTHONDONTWRITEBYTECODE, common in containers, or a
# read-only checkout) every start would compile them again: the dashboard's first page waits for
# that. A module edited later is compiled afresh on import; stale bytecode is never used.
set -euo pipefail
cd "$(dirname "$0")/.."
.venv/bin/python -m compileall -q -j 0 \
    tokendesk app pricing benchmarks warehouse costmodel briefs audit planning cli >/dev/null
