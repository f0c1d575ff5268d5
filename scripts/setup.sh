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
# iptables: the bed's `silence` drops a link's packets, a host that acknowledges nothing any more
[ -x /usr/sbin/iptables ] || command -v iptables >/dev/null || need+=(iptables)
# etcd: the controller's replicated store (tests start their own on free ports)
command -v etcd >/dev/null || need+=(etcd-server)
# openssl: the TLS tests make their certificates with it (tests/support/pki.py)
command -v openssl >/dev/null || need+=(openssl)
# Debian ships venv's pip bootstrap separately from python3 itself.
$PY -c "import ensurepip" 2>/dev/null || need+=(python3-venv)
# The container images (scripts/build_images.sh, tests/e2e/test_images.py): an engine when this host
# has none (Podman, with runc for hosts that are themselves containers), and mmdebstrap, which makes
# their Debian base from the mirror instead of pulling one from a registry. Without recommends (~40 MB,
# about 35 s). The engine as root only: the test runs it as root (it skips, saying so, for other users).
engine=()
if [ "$(id -u)" -eq 0 ]; then
    command -v mmdebstrap >/dev/null || engine+=(mmdebstrap)
fi
# docker-compose (Debian's v1, without recommends: not Docker's engine): tests/unit/test_compose.py
# checks docker-compose.yml with compose itself where Docker's compose plugin is not installed.
command -v docker-compose >/dev/null || { command -v docker >/dev/null && docker compose version >/dev/null 2>&1; } \
    || engine+=(docker-compose)
if [ "$(id -u)" -eq 0 ] && ! command -v podman >/dev/null && ! { command -v docker >/dev/null && timeout 20 docker info >/dev/null 2>&1; }; then
    engine+=(podman runc)
fi
if [ ${#need[@]} -gt 0 ] || [ ${#engine[@]} -gt 0 ]; then
    SUDO=""
    [ "$(id -u)" -eq 0 ] || SUDO=sudo
    echo "setup: installing ${need[*]} ${engine[*]}"
    $SUDO apt-get update -qq
    # etcd-server's postinst would start a system etcd on 2379; a policy-rc.d refusing starts keeps
    # it stopped (tests and deployments run their own). Ours is removed after, one found is kept.
    own_policy=""
    if [ ! -e /usr/sbin/policy-rc.d ]; then
        printf '#!/bin/sh\nexit 101\n' | $SUDO tee /usr/sbin/policy-rc.d >/dev/null
        $SUDO chmod +x /usr/sbin/policy-rc.d
        own_policy=1
    fi
    [ ${#need[@]} -eq 0 ] || DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${need[@]}" >/dev/null
    [ ${#engine[@]} -eq 0 ] \
        || DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${engine[@]}" >/dev/null
    [ -z "$own_policy" ] || $SUDO rm -f /usr/sbin/policy-rc.d
    if [[ " ${need[*]} " == *" etcd-server "* ]] && command -v systemctl >/dev/null; then
        $SUDO systemctl disable --now etcd >/dev/null 2>&1 || true
    fi
    # likewise Podman's API socket, which its package enables: build_images.sh runs podman itself
    if [[ " ${engine[*]} " == *" podman "* ]] && command -v systemctl >/dev/null; then
        $SUDO systemctl disable --now podman.socket >/dev/null 2>&1 || true
    fi
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
