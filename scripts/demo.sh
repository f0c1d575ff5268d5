#!/usr/bin/env bash
# The demo of README.md, the embedded default of DESIGN.md on one machine: an rgpu-controller (its
# database in a temporary directory), a software-GPU rgpu-server with two GPUs that joins its pool,
# and CUDA programs of the project's own (built with nvcc; the toolkit wheels are installed if there
# is no nvcc) run on leases through `rgpu run --controller`. Everything started here stops at exit.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
PY=.venv/bin/python
RGPU=.venv/bin/rgpu
CONTROLLER=tcp://127.0.0.1:${RGPU_DEMO_CONTROLLER_PORT:-7440}
SERVER=tcp://127.0.0.1:${RGPU_DEMO_PORT:-7450}
TMP=$(mktemp -d -t rgpu-demo.XXXXXX)
PIDS=()
cleanup() {
    for pid in "${PIDS[@]}"; do kill "$pid" 2>/dev/null || true; done
    for pid in "${PIDS[@]}"; do wait "$pid" 2>/dev/null || true; done
    echo "== stopped the demo's daemons (logs and database were in $TMP)"
}
trap cleanup EXIT
export RGPU_CONTROLLER=$CONTROLLER
# The demo's own config dir: the controller writes its public key and this account's admin credential
# there, and `rgpu` finds them (a pool's wire is encrypted and its users authenticated).
export RGPU_CONFIG_DIR=$TMP/config

echo "== starting rgpu-controller on $CONTROLLER (database $TMP/controller.db)"
.venv/bin/rgpu-controller --listen "$CONTROLLER" --db "$TMP/controller.db" --secret-file "$TMP/cluster-secret" --init-secret \
    >"$TMP/controller.log" 2>&1 &
PIDS+=($!)
echo "== starting rgpu-server --device sim --gpus 2 on $SERVER, joining the pool"
.venv/bin/rgpu-server --device sim --gpus 2 --sim-memory 4GiB --listen "$SERVER" --controller "$CONTROLLER" \
    --secret-file "$TMP/cluster-secret" --init-secret >"$TMP/server.log" 2>&1 &
PIDS+=($!)
$PY - "$CONTROLLER" "$SERVER" "$TMP" <<'PYEOF'
import sys, time
from rgpu.client.controller_client import ControllerClient, ControllerError
controller, server, tmp = sys.argv[1:]
deadline = time.monotonic() + 60
while True:
    try:
        with ControllerClient(controller, timeout=1.0) as c:
            if any(s["url"] == server and s["state"] == "up" for s in c.ls()["servers"]):
                break
    except ControllerError:
        pass
    if time.monotonic() > deadline:
        sys.exit(f"the pool did not come up; see {tmp}/controller.log and {tmp}/server.log")
    time.sleep(0.1)
PYEOF

echo "== rgpu ls"
$RGPU ls

echo "== building CUDA programs with nvcc -cudart shared -arch=sm_80"
build() { $PY -m tests.support.cudabuild "tests/cuda/programs/$1.cu" -Itests/cuda/programs; }
QUERY=$(build device_query)
COPY=$(build copy_roundtrip)
STREAMS=$(build streams_events)
MULTI=$(build multi_vgpu)
KERNELS=$(build kernels_basic)
MANAGED=$(build managed_add)
GRAPHS=$(build graphs)

echo "== rgpu run --controller $CONTROLLER -- device_query          (a whole GPU)"
$RGPU run -- "$QUERY"
echo "== rgpu run --mem 512MiB -- copy_roundtrip 64                 (a slice of a GPU)"
$RGPU run --mem 512MiB -- "$COPY" 64
echo "== rgpu run --mem 256MiB --compute 25 -- streams_events"
$RGPU run --mem 256MiB --compute 25 -- "$STREAMS"
echo "== rgpu run --mem 256MiB -- kernels_basic     (kernels run by the software GPU; device printf)"
$RGPU run --mem 256MiB -- "$KERNELS"
echo "== rgpu run --mem 256MiB -- managed_add     (cudaMallocManaged, as in NVIDIA's \"Even Easier Introduction\")"
$RGPU run --mem 256MiB -- "$MANAGED"
echo "== rgpu run --mem 256MiB -- graphs capture   (a stream captured into a CUDA graph, replayed)"
$RGPU run --mem 256MiB -- "$GRAPHS" capture
echo "== rgpu run -n 2 --policy spread --mem 1GiB -- multi_vgpu      (two vGPUs, one per GPU)"
$RGPU run -n 2 --policy spread --mem 1GiB -- "$MULTI"

echo "== rgpu reserve --mem 1GiB --compute 50                        (a lease that outlives one program)"
LEASE=$($RGPU reserve --mem 1GiB --compute 50 --json | $PY -c 'import json, sys; print(json.load(sys.stdin)["lease"])')
echo "lease $LEASE"
echo "== rgpu ls"
$RGPU ls
echo "== rgpu leases"
$RGPU leases
echo "== rgpu run --lease $LEASE -- device_query                    (reports the lease's 1 GiB)"
$RGPU run --lease "$LEASE" -- "$QUERY"
echo "== rgpu release $LEASE"
$RGPU release "$LEASE"
echo "== rgpu leases"
$RGPU leases
echo "== demo finished"
