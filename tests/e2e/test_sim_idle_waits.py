"""The software GPU's waits answered by the compiled serving loop while its device is idle
(server/backends/sim/idle_waits.py): on the call ring (same host) and at the socket's door (another
host, RGPU_SHM=0), a synchronize or query costs the worker no Python, and answers as Python's path does.
While kernels are queued or running, a kernel's error is kept or printf output is due, every message is
Python's: the queries still say NOT_READY while a kernel runs, the fault is still reported at the
synchronize that follows it, the output still comes with the reply."""
from __future__ import annotations

import os
import re

import pytest

from tests.component.server.test_serve_loop import _ended
from tests.component.server.test_serve_socket import WAITS, _door_on_and_off
from tests.conftest import run_cli

pytestmark = [pytest.mark.e2e, pytest.mark.sim_only("the software GPU's idle waits")]

# RGPU_FAST_LAUNCH=0: every wait through Python (the comparison)
LOOPS = {"compiled": {}, "python": {"RGPU_FAST_LAUNCH": "0"}}


def test_waits_from_another_host_are_the_doors_with_pythons_replies(start_server):
    """A client without a segment: an event made and recorded, 20 rounds of the ten waits (stream,
    event and device; the driver's and the runtime's faces), then an allocation, a memset, a wait on a
    stream the session never made and a free. The waits are the door's, byte for byte Python's
    replies; the rest Python's, the bad wait refused with its message."""
    (malloc, memset, bad, free), counts_on, counts_off = _door_on_and_off(
        lambda loop: start_server(env=LOOPS["compiled" if loop else "python"]))
    assert malloc[1] == 0 and memset[1] == 0 and free[1] == 0
    assert bad[1] != 0 and "not a stream of this session" in bad[4], bad
    assert counts_on["socket_compiled"] == WAITS and counts_on["waits_compiled"] == WAITS, counts_on
    # the event's making and recording, the allocation, the memset, the bad wait, the free, the goodbye
    assert counts_on["socket_to_python"] == 7, counts_on
    assert counts_off["socket_compiled"] == 0 and counts_off["waits_compiled"] == 0, counts_off


@pytest.mark.parametrize("shm", ["1", "0"], ids=["ring", "socket"])
def test_programs_waits_are_the_loops_only_while_the_device_is_idle(cuda_program, start_server, shm):
    """Programs whose waits find work running or an error kept, on the ring and through the door:
    a stream and an event queried while a kernel runs (NOT_READY), async faults reported at the next
    synchronize, and streams and events of every kind; the same output as with every wait Python's,
    and waits the loop answered in each session."""
    out = {}
    for name, env in LOOPS.items():
        url, handle = start_server(env=env)
        runs = [("query_while_running", ["0.5"]), ("faults", []), ("driver_async_error", []),
                ("streams_events", [])]
        for nth, (program, args) in enumerate(runs, 1):
            p = run_cli("run", "--server", url, "--", str(cuda_program(program)), *args,
                        env={**os.environ, "RGPU_SHM": shm})
            assert p.returncode == 0 and f"OK {program}" in p.stdout, (name, program, p.stdout + p.stderr)
            counts = _ended(handle, nth)
            out[name, program] = p.stdout, counts
    p, _ = out["compiled", "query_while_running"]
    assert "stream query: cudaErrorNotReady, event query: cudaErrorNotReady" in p and "\nrunning\n" in p, p
    for program in ("faults", "driver_async_error", "streams_events"):
        same = [re.sub(r"elapsed [\d.]+ ms", "elapsed", out[name, program][0]) for name in LOOPS]  # (a timing)
        assert same[0] == same[1], program
    for program in ("query_while_running", "streams_events"):
        assert out["compiled", program][1]["waits_compiled"] > 0, (program, out["compiled", program][1])
        assert out["python", program][1]["waits_compiled"] == 0, program
