#!/usr/bin/env bash
# One-time set-up on a fresh Debian machine with Python 3.11 and gcc: system packages (libzmq's
# headers for the client library, g++ for nvcc's host code), a virtualenv with rgpu and its test
# tools, and librgpu.so. Safe to run again; it only does what is missing.
set -euo pipefail
cd "$(dirname "$0")/.."
PY=${PYTHON:-python3}

need=()
[ -f /usr/include/zmq.h ] || need+=(libzmq3-dev)
command -v g++ >/dev/null || need+=(g++)
# ip and tc for the cross-host test bed (scripts/testbed.sh, tests/network)
command -v ip >/dev/null && command -v tc >/dev/null || need+=(iproute2)
# Debian ships venv's pip bootstrap separately from python3 itself.
$PY -c "import ensurepip" 2>/dev/null || need+=(python3-venv)
if [ ${#need[@]} -gt 0 ]; then
    SUDO=""
    [ "$(id -u)" -eq 0 ] || SUDO=sudo
    echo "setup: installing ${need[*]}"
    $SUDO apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${need[@]}" >/dev/null
fi

if [ ! -x .venv/bin/python ]; then
    $PY -m venv .venv
fi
if ! .venv/bin/python -c "import rgpu, zmq, msgpack, cffi, pytest, xdist" 2>/dev/null \
   || [ pyproject.toml -nt .venv/.installed ]; then
    .venv/bin/python -m pip install -q --upgrade pip
    # the distribution was called rgpu before it became rgpu-pool: one editable install of the tree
    if .venv/bin/python -m pip show -q rgpu >/dev/null 2>&1; then .venv/bin/python -m pip uninstall -q -y rgpu; fi
    .venv/bin/python -m pip install -q -e '.[test]'
    touch .venv/.installed
fi
bash libhook/build.sh build/lib >/dev/null
echo "setup: ready (.venv, build/lib/librgpu.so)"
