"""How many async calls one message carries (RGPU_BATCH_CALLS, libhook/src/transport/session.c): held,
a loop's launches wait in the client until its synchronisation and go with it (a --failover session's
default); with a smaller number they go as they are made, that many at a time, so the device starts on
a step's kernels while the program still makes them (the default: 16, each such message on the call
ring beside the worker, on the socket across hosts, run by the worker's compiled loop either way). The same kernels run with the same
arguments either way (the program's digest tells), on one host and across hosts, with the same round
trips; and the messages split the same way every step, so across hosts their heads cross as
differences from the last step's."""
from __future__ import annotations

import os
import re

from tests.conftest import run_cli
from tests.support.daemons import wait_until

STEPS = 10
LAUNCHES = 24  # failover_launches.cu: each step queues 24 launches, then reads a few words back


def stats_total(stderr: str) -> tuple[dict, int, int, int]:
    """(round trips by call, async calls, messages of async calls only, of those on the call ring) of
    RGPU_STATS=1's lines. The module's load is left out: the first run on a server sends its image after
    the server said it has none (two round trips), every later one names it (one)."""
    m = re.search(r"rgpu stats: total round_trips=(\d+) async_calls=(\d+) async_messages=(\d+) "
                  r"async_on_ring=(\d+)", stderr)
    assert m, stderr[-3000:]
    trips = {c: int(n) for c, n in re.findall(r"rgpu stats: call (\w+) round_trips=(\d+)", stderr)
             if c != "cuModuleLoadData"}
    return trips, int(m.group(2)), int(m.group(3)), int(m.group(4))


def test_a_loops_launches_go_some_at_a_time_and_compute_the_same(cuda_program, start_server):
    url, handle = start_server()
    exe = str(cuda_program("failover_launches"))
    runs = {}
    for name, env in (("held", {"RGPU_BATCH_CALLS": "256"}), ("5 at a time", {"RGPU_BATCH_CALLS": "5"}),
                      ("16 at a time, across hosts", {"RGPU_BATCH_CALLS": "16", "RGPU_SHM": "0"}),
                      ("the default, on one host", {}), ("the default, across hosts", {"RGPU_SHM": "0"}),
                      ("a malformed number", {"RGPU_BATCH_CALLS": "five"})):
        p = run_cli("run", "--server", url, "--", exe, str(STEPS), "0",
                    env={**os.environ, "RGPU_STATS": "1", **env})
        assert p.returncode == 0 and " OK" in p.stdout, name + ": " + p.stdout + p.stderr[-3000:]
        runs[name] = (p.stdout.strip().splitlines()[-1], stats_total(p.stderr), p.stderr)
    digests = {name: r[0] for name, r in runs.items()}
    assert len(set(digests.values())) == 1, digests
    # held: a step's launches went with its read back; 5 at a time: four messages of five a step
    # before the read (24 = 4 x 5 + 4); 16: one of 16 (24 = 16 + 8); the same round trips
    held, five, across, default, default_across = (runs[n][1] for n in (
        "held", "5 at a time", "16 at a time, across hosts", "the default, on one host", "the default, across hosts"))
    assert all(r[1][1] == held[1] and r[1][0] == held[0] for r in runs.values()), runs
    assert held[2] < STEPS, held
    assert five[2] >= STEPS * (LAUNCHES // 5) > held[2], (held, five)
    assert STEPS <= across[2] < five[2], (five, across)
    # beside the worker each message of async calls only took the call ring; across hosts none can
    assert five[3] == five[2] and across[3] == 0, (five, across)
    # the default: 16 at a time, on the ring beside the worker, on the socket across hosts
    assert STEPS <= default[2] == default[3] < five[2], default
    assert default_across[2] == across[2] == default[2] and default_across[3] == 0, (default_across, across)
    # a malformed value is said and the default used
    bad = runs["a malformed number"]
    assert "RGPU_BATCH_CALLS=five is not a whole number >= 1: using the default" in bad[2], bad[2][-2000:]
    assert bad[1][2] == default[2], (bad[1], default)
    # across hosts a step's two heads (16 launches; 8 and the read) came as their differences from
    # the last step's, both kept though their lengths are equal modulo the table's size (head_delta.c)
    line = wait_until(lambda: next((x for x in handle.output(1_000_000).splitlines()
                                    if "event=session_ended" in x and "head_deltas=" in x), None),
                      20, "the session across hosts ended")
    deltas = int(re.search(r"\bhead_deltas=(\d+)", line).group(1))
    assert deltas >= (STEPS - 1) * 2, line


def test_programs_whose_async_calls_go_one_a_message_run_as_they_do_held(cuda_program, sim_server):
    """Every async call its own message (RGPU_BATCH_CALLS=1), beside the worker: launches and memsets
    take the call ring while async copies from pageable memory larger than a record, sent whole
    (RGPU_PIECES=0; by default they go in pieces a record holds), carry their data as frames on the
    socket, so the two ways interleave call by call, and the worker must take them in the order sent
    (a ring record names the socket messages sent before it). The programs check their own results,
    streams, events and an async error reported at the next synchronising call, as held."""
    on_ring = socket = 0
    for name in ("streams_events", "kernels_basic", "driver_async_error", "pinned_copies"):
        p = run_cli("run", "--server", sim_server, "--", str(cuda_program(name)),
                    env={**os.environ, "RGPU_STATS": "1", "RGPU_BATCH_CALLS": "1", "RGPU_PIECES": "0"})
        assert p.returncode == 0 and f"OK {name}" in p.stdout, name + ": " + p.stdout + p.stderr[-3000:]
        _, calls, messages, ring = stats_total(p.stderr)
        assert calls and ring <= messages, (name, calls, messages, ring)
        on_ring, socket = on_ring + ring, socket + messages - ring
    assert on_ring > 0 and socket > 0, (on_ring, socket)
