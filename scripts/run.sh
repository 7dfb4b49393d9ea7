#!/usr/bin/env bash
# Set up (first time) and serve the dashboard on the embedded default: the warehouse is built
# from data/ on first start, with no network and no credentials.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
exec .venv/bin/tokendesk app "$@"
