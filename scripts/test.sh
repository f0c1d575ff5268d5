#!/usr/bin/env bash
# The test command of README.md (and of CI): set up, then every tier — unit, component, end-to-end.
# Extra arguments go to pytest (e.g. scripts/test.sh -k copy).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
exec .venv/bin/python -m pytest -n 2 "$@"
