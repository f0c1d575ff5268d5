#!/usr/bin/env bash
# One command for a GPU machine lent for a few minutes (no internet, its image's own Python with
# PyTorch, CuPy and numba): installs rgpu from the offline bundle carried in .gpu/ into that Python,
# runs scripts/gpu_check.sh's steps within a total budget, and leaves the logs as one tarball and the
# tables beside it in DEST (the lender's $OUT: at most 8 files come back).
#
# Here, before the lease (the bundle leaves out what the image has: numpy and llvmlite are 75 MB, and a
# call carries at most 64 MiB):
#   scripts/bundle.sh --python 3.12 --extra bench --with-source --without numpy --without llvmlite --out .gpu
# There (the working tree's copy, .gpu carried):
#   bash scripts/gpu_lease.sh DEST BUDGET_S [--quick] STEP[=LIMIT_S]...
#   e.g. bash scripts/gpu_lease.sh "$OUT" 540 native=130 null=40 torch_steps=110 moves=100 pytorch=90 migrate=60
# Steps run in gpu_check.sh's order; each stops at its limit and the whole at the budget, and what ran
# still comes back. The image's python3 is often a virtualenv itself: a virtualenv made from it would
# not see its packages, so rgpu goes into it directly (the machine is bare again after the lease).
# RGPU_LEASE_PYTHON and RGPU_LEASE_BUNDLE name another Python and bundle (to try this script elsewhere).
set -uo pipefail
[ $# -ge 3 ] || { sed -n '2,16p' "$0"; exit 2; }
dest=$1 budget=$2
shift 2
root=$(cd "$(dirname "$0")/.." && pwd)
t0=$SECONDS
work=/tmp/rgpu-lease
mkdir -p "$work/out" "$dest"
bundle=${RGPU_LEASE_BUNDLE:-$(ls "$root"/.gpu/rgpu-bundle-*.tar.gz 2>/dev/null | head -1)}
[ -n "$bundle" ] || { echo "gpu_lease.sh: no bundle in .gpu/ (make one here first: see the top of this file)" >&2; exit 2; }
tar xzf "$bundle" -C "$work"
src=$(ls -d "$work"/rgpu-bundle-*/ | head -1)
py=${RGPU_LEASE_PYTHON:-$(command -v python3)}
{
    "$py" -m pip install -q --no-index --find-links "$src/wheels" --upgrade setuptools wheel &&
        "$src/install.sh" "$py"
} > "$work/out/install.log" 2>&1
echo "install: exit $? after $((SECONDS - t0)) s ($py)"
steps="" limits=()
quick=()
for s in "$@"; do
    [ "$s" = --quick ] && { quick=(--quick); continue; }
    name=${s%%=*}
    steps=${steps:+$steps,}$name
    [[ $s == *=* ]] && limits+=(--limit "$s")
done
export PYTHONUNBUFFERED=1
RGPU_PYTHON=$py RGPU_TORCH_PYTHON=$py timeout -k 10 $((budget - (SECONDS - t0))) \
    "$src/source/scripts/gpu_check.sh" "$work/out" --steps "$steps" "${limits[@]}" "${quick[@]}"
echo "gpu_check: exit $? after $((SECONDS - t0)) s"
tar czf "$dest/gpu.tgz" -C "$work/out" .
for f in summary.txt native.md torch_steps.md probes.log; do
    [ -f "$work/out/$f" ] && cp "$work/out/$f" "$dest/"
done
cat "$work/out/summary.txt"
