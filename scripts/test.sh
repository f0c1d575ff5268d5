#!/usr/bin/env bash
# The test command of README.md (and of CI): set up, then every tier — unit, component, end-to-end.
# Extra arguments go to pytest (e.g. scripts/test.sh -k copy).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
# NVIDIA's libraries and the frameworks the end-to-end tests run, from their pinned wheels, installed
# once before the tests (tests/support/pinned_venv.py); a later run finds them in .cache/.
.venv/bin/python -m tests.support.pinned_venv
exec .venv/bin/python -m pytest -n 2 "$@"
