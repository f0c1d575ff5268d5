#!/usr/bin/env bash
# Every check of rgpu that needs a real GPU, in one command, for a GPU host: a machine lent for an
# hour, or a cluster's GPU node before rgpu serves it. Nothing is downloaded. Run it from a source
# checkout whose Python has rgpu and its bench tools: `scripts/setup.sh`'s .venv, or an offline
# bundle's source/ (`scripts/bundle.sh --python 3.12 --extra bench --with-source`; docs/offline-install.md, "Checking
# a GPU host"). Each step has a time limit, a failed step does not stop the next, and everything
# lands in OUT (default benchmarks/out/gpu):
#   1. native.md, native.json, native.log: the native-vs-rgpu table (benchmarks/native/run.py)
#   2. null.log: the same table through the cuda backend on a driver that does no GPU work
#      (benchmarks/native/nulldriver.c), on this host's CPUs: set against native.md, each row's
#      difference is the GPU's and the driver's share, the rest rgpu's own path
#   2a. probes.log: facts of this GPU's driver rgpu's design depends on (benchmarks/native/probes/):
#      DMA speed from each kind of host memory (host_memory.cu) and the values it gives texture and
#      surface objects in fresh contexts (object_values.cu, run twice)
#   2b. launch_path.log: the worker's own cost per launch, compiled loop against Python
#   2c. torch_steps.md, torch_steps.json, torch_steps.log: PyTorch's training and decode steps
#      (tests/e2e/torch_workloads.py) natively and through rgpu on this GPU, same host and RGPU_SHM=0,
#      with each configuration's last loss or token (benchmarks/native/torch_steps.py)
#   3. e2e.log, e2e.xml: the end-to-end suite on the GPU (RGPU_TEST_DEVICE=cuda), less the tests
#      whose pinned wheels would have to be downloaded (the CUDA 12 headers, the bundle, the
#      Kubernetes plugin). NVIDIA's math libraries and CuPy/numba run from the host's own Python
#      (RGPU_TORCH_PYTHON, default python3) when it has them (RGPU_NVLIBS_TREE and
#      RGPU_FRAMEWORKS_PYTHON, found here unless set), and are left out when it has not
#   3b. moves.log, moves.xml: live migration, pool migration and failover of cuda-backend sessions on
#      this GPU (tests/e2e/test_migration.py, test_pool_migration.py, test_failover.py)
#   4. pytorch.log, pytorch.xml: tests/e2e/test_pytorch.py with this host's own CUDA torch
#      (RGPU_TORCH_PYTHON, default python3), when it has one
#   5. profile_rows.log: where the session worker's time goes, row by row
#   5b. digest.log, digest.json: a --failover checkpoint's delta pass with its digests taken on the
#      GPU against the host's read and digest of every chunk (benchmarks/test_checkpoint_digest.py)
#   6. diagnose-*.log: the library programs whose failures the e2e suite reports only as a status,
#      run again against a server logging at debug level, with the client library's debug log
#      (scripts/gpu_diagnose.py)
#   summary.txt: each step's exit status and time.
#
#   scripts/gpu_check.sh [OUT] [--device cuda|sim] [--steps a,b] [--quick] [--limit STEP=S]...
# --steps: some of native,null,probes,launch_path,torch_steps,e2e,moves,pytorch,profile_rows,reclaim,migrate,digest,diagnose (default all; a lent machine
# runs a command for at most 10 minutes: `--steps native,null,launch_path` then `--steps e2e`, and so on);
# --device sim runs the same steps on the software GPU (to try the script on a machine without one);
# --quick: one round of the table; --limit: a step's time limit in seconds (to fit a lease's minutes).
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
out=""
device=cuda
quick=0
declare -A limits=([native]=420 [null]=180 [probes]=120 [launch_path]=120 [torch_steps]=240 [e2e]=540 [moves]=300 [pytorch]=540 [profile_rows]=420 [reclaim]=180 [migrate]=240 [digest]=180 [diagnose]=400)
steps=native,null,probes,launch_path,torch_steps,e2e,moves,pytorch,profile_rows,reclaim,migrate,digest,diagnose
while [ $# -gt 0 ]; do
    case "$1" in
        --device) device=$2; shift 2 ;;
        --quick) quick=1; shift ;;
        --steps) steps=$2; shift 2 ;;
        --limit) [[ $2 =~ ^([a-z0-9_]+)=([0-9]+)$ && -n ${limits[${BASH_REMATCH[1]}]:-} ]] ||
                     { echo "gpu_check.sh: --limit wants STEP=SECONDS, got $2" >&2; exit 2; }
                 limits[${BASH_REMATCH[1]}]=${BASH_REMATCH[2]}; shift 2 ;;
        -h|--help) sed -n '2,/^set -uo/{/^set/!p}' "$0"; exit 0 ;;
        -*) echo "gpu_check.sh: unknown option $1 (--help)" >&2; exit 2 ;;
        *) out=$1; shift ;;
    esac
done
out=$(mkdir -p "${out:-$root/benchmarks/out/gpu}" && cd "${out:-$root/benchmarks/out/gpu}" && pwd)
py=${RGPU_PYTHON:-$root/.venv/bin/python}
[ -x "$py" ] || py=$(command -v python3)
export PYTHONUNBUFFERED=1
: > "$out/summary.txt"
wanted() { [[ ",$steps," == *",$1,"* ]]; }

step() {  # step NAME COMMAND...: runs it (within its limit) with its output in OUT/NAME.log, notes status and time
    local name=$1 limit=${limits[$1]}
    shift
    local t0=$SECONDS
    echo "== $name: $*" | tee -a "$out/summary.txt"
    timeout --kill-after=10 "$limit" "$@" > "$out/$name.log" 2>&1
    local rc=$?
    echo "   exit $rc after $((SECONDS - t0)) s" | tee -a "$out/summary.txt"
    tail -n 3 "$out/$name.log" | sed 's/^/   | /' | tee -a "$out/summary.txt"
}

{
    echo "host $(hostname), $(date -u +%FT%TZ), python $("$py" -c 'import sys; print(sys.version.split()[0])')"
    command -v nvidia-smi >/dev/null && nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader
    command -v nvcc >/dev/null && nvcc --version | tail -n 1
} 2>&1 | tee -a "$out/summary.txt"

rounds=3
[ $quick -eq 1 ] && rounds=1
if wanted native; then
    step native "$py" -m benchmarks.native.run --device "$device" --rounds "$rounds"
    cp benchmarks/out/native.md benchmarks/out/native.json "$out/" 2>/dev/null
fi
# the null driver's table is printed only (--no-write): native.md stays the GPU's
wanted null && step null "$py" -m benchmarks.native.run --device null --rounds "$rounds" --no-write
# built here with the host's nvcc against its driver (cuda backend only: they call the driver directly)
[ "$device" = cuda ] && wanted probes && step probes bash -c 'set -e; d=$(mktemp -d)
    for p in host_memory object_values; do nvcc -O2 -o "$d/$p" "benchmarks/native/probes/$p.cu" -lcuda; done
    "$d/host_memory" 64; "$d/object_values"; echo "-- object_values again, in a second process"; "$d/object_values"'
wanted launch_path && step launch_path "$py" -m pytest benchmarks/test_launch_path.py -p no:xdist -q

torch_py=${RGPU_TORCH_PYTHON:-python3}
# Modules the e2e step leaves out are not collected at all (--ignore): collecting one can fail already
# where its extras are not installed (test_k8s_device_plugin.py imports kubernetes, which the bench
# bundle does not carry); test_pytorch.py is step 4's.
ignore=()
for m in tests/e2e/test_cuda12*.py tests/e2e/test_mixed_runtimes.py tests/e2e/test_bundle.py \
         tests/e2e/test_k8s_device_plugin.py tests/e2e/test_pytorch.py; do
    ignore+=(--ignore "$m")
done
skip=""
# The host's own NVIDIA libraries and frameworks (an offline host cannot fetch the pinned ones).
if [ -z "${RGPU_NVLIBS_TREE:-}" ]; then
    RGPU_NVLIBS_TREE=$("$torch_py" -c 'import nvidia, os; print(next(p for p in nvidia.__path__ if all(
        os.path.exists(f"{p}/cu13/lib/{so}") for so in ("libcublas.so.13", "libcufft.so.12", "libcurand.so.10",
        "libcusparse.so.12", "libcusolver.so.12", "libnvJitLink.so.13"))).removesuffix("/nvidia"))' 2>/dev/null)
fi
if [ -z "${RGPU_FRAMEWORKS_PYTHON:-}" ] && "$torch_py" -c 'import cupy, numba.cuda' 2>/dev/null; then
    RGPU_FRAMEWORKS_PYTHON=$(command -v "$torch_py")
fi
[ -n "$RGPU_NVLIBS_TREE" ] && export RGPU_NVLIBS_TREE || skip="${skip:+$skip and }not test_nvidia_libs"
[ -n "${RGPU_FRAMEWORKS_PYTHON:-}" ] && export RGPU_FRAMEWORKS_PYTHON || skip="${skip:+$skip and }not test_frameworks"
# A framework that fails on this GPU without rgpu (the H200 image's numba called np.row_stack, which
# its numpy no longer has) is the host's to fix: its tests are left out, and the reason is kept.
if wanted e2e && [ -n "${RGPU_FRAMEWORKS_PYTHON:-}" ] && [ "$device" = cuda ] && ! timeout 300 "$RGPU_FRAMEWORKS_PYTHON" \
        tests/frameworks/numba_kernels.py "$out/numba-native.npz" > "$out/numba-native.log" 2>&1; then
    skip="${skip:+$skip and }not test_numba and not test_cupy_and_numba"
    echo "numba fails natively on this host (numba-native.log): its tests are left out" | tee -a "$out/summary.txt"
fi
# The host's CUDA torch, for the e2e tests that run PyTorch (the null driver's among them) and for
# steps 4 and 6: the pinned torch is a wheel an offline host cannot fetch.
if "$torch_py" -c 'import torch, sys; sys.exit(not torch.version.cuda)' 2>/dev/null; then
    export RGPU_TORCH_PYTHON=$(command -v "$torch_py")
fi
echo "NVIDIA's libraries: ${RGPU_NVLIBS_TREE:-none (left out)}; CuPy and numba: ${RGPU_FRAMEWORKS_PYTHON:-none (left out)}" |
    tee -a "$out/summary.txt"
workers=$(( $(nproc) > 12 ? 12 : $(nproc) ))
# -v: a step stopped at its limit still shows which tests passed and failed
if wanted torch_steps && [ "$device" = cuda ] && [ -n "${RGPU_TORCH_PYTHON:-}" ]; then
    step torch_steps "$py" -m benchmarks.native.torch_steps --device cuda --rounds "$rounds" --out "$out"
elif wanted torch_steps; then
    echo "== torch_steps: skipped ($torch_py has no CUDA torch, or --device is not cuda)" | tee -a "$out/summary.txt"
fi
# RGPU_GPU_E2E: the e2e modules to run instead of all of tests/e2e (a lease's few minutes)
wanted e2e && RGPU_TEST_DEVICE=$device step e2e "$py" -m pytest ${RGPU_GPU_E2E:-tests/e2e} "${ignore[@]}" -n "$workers" -v \
    --tb=short -rfE --timeout 300 ${skip:+-k "$skip"} --junitxml "$out/e2e.xml"

wanted moves && RGPU_TEST_DEVICE=$device step moves "$py" -m pytest tests/e2e/test_migration.py \
    tests/e2e/test_pool_migration.py tests/e2e/test_failover.py -n "$workers" -v --tb=short -rfE --timeout 120 \
    --junitxml "$out/moves.xml"

if ! wanted pytorch; then
    :
elif [ "$device" = cuda ] && [ -n "${RGPU_TORCH_PYTHON:-}" ]; then
    RGPU_TEST_DEVICE=$device step pytorch \
        "$py" -m pytest tests/e2e/test_pytorch.py -n 2 -q --timeout 300 --junitxml "$out/pytorch.xml"
else
    echo "== pytorch: skipped ($torch_py has no CUDA torch, or --device is not cuda)" | tee -a "$out/summary.txt"
fi

# RGPU_GPU_PROFILE_ROWS: only the groups holding these rows (e.g. "h2d_pinned_gbps"), with their profiles
# kept in OUT/profiles
prof=()
for r in ${RGPU_GPU_PROFILE_ROWS:-}; do prof+=(--group "$r"); done
[ ${#prof[@]} -gt 0 ] && prof+=(--out "$out/profiles")
wanted profile_rows && step profile_rows "$py" -m benchmarks.native.profile_rows --device "$device" "${prof[@]}"
# idle reclaim: the driver's checkpoint of a worker's process and the restore a call pays, 64/256 MiB
wanted reclaim && RGPU_TEST_DEVICE=$device step reclaim "$py" benchmarks/migration.py --reclaim-only 64 256
# live migration between two servers on this GPU: pause, pre-copy and the plain copy beside them
# (RGPU_GPU_MIGRATE_SIZES: other sizes in MiB, e.g. "1024 8192 32768" for issue 43's pause times)
wanted migrate && RGPU_TEST_DEVICE=$device step migrate "$py" benchmarks/migration.py ${RGPU_GPU_MIGRATE_SIZES:-64 256 1024}
# a --failover checkpoint's delta pass with the digests taken by a kernel on this GPU, against the host's
# read and digest of every chunk (1 GiB, one chunk changed)
[ "$device" = cuda ] && wanted digest && RGPU_BENCH_DIGEST_DEVICE=cuda RGPU_BENCH_DIGEST_MIB=1024 \
    step digest "$py" -m pytest benchmarks/test_checkpoint_digest.py -p no:xdist -q --benchmark-json "$out/digest.json"
if wanted diagnose; then
    step diagnose "$py" scripts/gpu_diagnose.py "$out" --device "$device"
fi
echo "logs: $out"
