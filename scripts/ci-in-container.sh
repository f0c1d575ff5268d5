#!/usr/bin/env bash
# Run CI as a brand-new machine would: a clean clone of this repository's HEAD (with ../shared beside
# it) in a debian:bookworm-slim container that has only python3, gcc and git — no CUDA toolkit, no
# venv, no libzmq — so a missing install step fails here instead of hiding behind this machine's
# state. Needs a Docker engine. Usage: scripts/ci-in-container.sh [IMAGE]
set -euo pipefail
cd "$(dirname "$0")/.."
image=${1:-debian:bookworm-slim}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
git clone -q . "$work/repo"
[ -d ../shared ] && cp -r ../shared "$work/shared"
cat > "$work/run.sh" <<'IN'
set -e
apt-get update -qq
DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends \
    python3 gcc libc6-dev git ca-certificates >/dev/null
cp -r /src /work && cd /work/repo
CI=true bash .ci/run
IN
docker run --rm --shm-size=2g -v "$work:/src:ro" "$image" bash /src/run.sh
