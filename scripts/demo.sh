#!/usr/bin/env bash
# The demo of README.md: a software-GPU server on this machine, a CUDA program of the project's own
# built with nvcc (the toolkit wheels are installed if there is no nvcc), run through `rgpu run`.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
PY=.venv/bin/python
PORT=${RGPU_DEMO_PORT:-7450}
URL=tcp://127.0.0.1:$PORT
LOG=$(mktemp -t rgpu-demo-server.XXXXXX.log)

echo "== starting rgpu-server --device sim on $URL (log: $LOG)"
.venv/bin/rgpu-server --device sim --listen "$URL" --sim-memory 4GiB >"$LOG" 2>&1 &
SERVER=$!
trap 'kill $SERVER 2>/dev/null; wait $SERVER 2>/dev/null || true' EXIT
$PY - "$URL" <<'PYEOF'
import sys, time
from rgpu.client.server_client import ping
deadline = time.monotonic() + 60
while not ping(sys.argv[1]):
    if time.monotonic() > deadline:
        sys.exit("rgpu-server did not come up; see its log")
    time.sleep(0.1)
PYEOF

echo "== building CUDA programs with nvcc -cudart shared -arch=sm_80"
build() { $PY -m tests.support.cudabuild "tests/cuda/programs/$1.cu" -Itests/cuda/programs; }
QUERY=$(build device_query)
COPY=$(build copy_roundtrip)
STREAMS=$(build streams_events)

for prog in "$QUERY" "$COPY 64" "$STREAMS"; do
    echo "== rgpu run --server $URL -- $(basename ${prog%% *}) ${prog#* }"
    .venv/bin/rgpu run --server "$URL" -- $prog
done
echo "== server accounting after the programs ended"
$PY -c "import json,sys; from rgpu.client.server_client import stats; print(json.dumps(stats('$URL')['gpus'], indent=1))"
echo "== demo finished"
