#!/usr/bin/env bash
# The benchmark command of docs/performance.md: set up, then benchmarks/ (pytest-benchmark). Prints one table
# of rgpu vs raw ZeroMQ figures and ratios and writes benchmarks/out/summary.json.
# Extra arguments go to pytest (e.g. scripts/bench.sh -k transport). RGPU_BENCH_ROUNDS=N (default 3)
# sets the rounds per figure; RGPU_BENCH_PROFILE=PREFIX cProfiles the session workers to PREFIX.PID.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
exec .venv/bin/python -m pytest benchmarks -p no:xdist -p no:randomly --benchmark-disable-gc \
    --benchmark-columns=min,max --benchmark-sort=name -o testpaths=benchmarks "$@"
