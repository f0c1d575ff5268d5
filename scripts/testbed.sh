#!/usr/bin/env bash
# The cross-host test bed on this machine (tests/support/testbed.py): network namespaces for a head,
# two GPU hosts and a CPU host, joined by veth pairs through a relay that adds a round trip.
#   scripts/testbed.sh up [--rtt-ms MS]   make the bed named "bed" (root; addresses 10.231.x.y inside it only)
#   scripts/testbed.sh status             what exists
#   scripts/testbed.sh down               remove it, and whatever runs in it
#   scripts/testbed.sh sweep              remove beds left by test runs that died
# Run a command on a host: ip netns exec rgbed-bed-cpu CMD (or Testbed("bed").argv("cpu", [...]) in Python).
set -euo pipefail
cd "$(dirname "$0")/.."
action=${1:-status}
shift || true
PY=.venv/bin/python
[ -x "$PY" ] || PY=python3
export PYTHONPATH=.
if [ "$action" = up ]; then
    # an interrupted `up` leaves nothing behind (a failed one removes what it made itself)
    trap '"$PY" -m tests.support.testbed down >/dev/null 2>&1; exit 130' INT TERM
    "$PY" -m tests.support.testbed up "$@"
    exit
fi
exec "$PY" -m tests.support.testbed "$action" "$@"
