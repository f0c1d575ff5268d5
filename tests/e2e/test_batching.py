"""How many async calls one message carries (RGPU_BATCH_CALLS, libhook/src/transport/session.c): by
default a loop's launches wait in the client until its synchronisation and go with it; with a smaller
number they go as they are made, that many at a time, so the device starts on a step's kernels while
the program still makes them. The same kernels run with the same arguments either way (the program's
digest tells), on one host and across hosts, with the same round trips; and the messages split the
same way every step, so across hosts their heads cross as differences from the last step's."""
from __future__ import annotations

import os
import re

from tests.conftest import run_cli
from tests.support.daemons import wait_until

STEPS = 10
LAUNCHES = 24  # failover_launches.cu: each step queues 24 launches, then reads a few words back


def stats_total(stderr: str) -> tuple[dict, int, int]:
    """(round trips by call, async calls, messages of async calls only) of RGPU_STATS=1's lines. The
    module's load is left out: the first run on a server sends its image after the server said it
    has none (two round trips), every later one names it (one)."""
    m = re.search(r"rgpu stats: total round_trips=(\d+) async_calls=(\d+) async_messages=(\d+)", stderr)
    assert m, stderr[-3000:]
    trips = {c: int(n) for c, n in re.findall(r"rgpu stats: call (\w+) round_trips=(\d+)", stderr)
             if c != "cuModuleLoadData"}
    return trips, int(m.group(2)), int(m.group(3))


def test_a_loops_launches_go_some_at_a_time_and_compute_the_same(cuda_program, start_server):
    url, handle = start_server()
    exe = str(cuda_program("failover_launches"))
    runs = {}
    for name, env in (("held", {}), ("5 at a time", {"RGPU_BATCH_CALLS": "5"}),
                      ("16 at a time, across hosts", {"RGPU_BATCH_CALLS": "16", "RGPU_SHM": "0"}),
                      ("a malformed number", {"RGPU_BATCH_CALLS": "five"})):
        p = run_cli("run", "--server", url, "--", exe, str(STEPS), "0",
                    env={**os.environ, "RGPU_STATS": "1", **env})
        assert p.returncode == 0 and " OK" in p.stdout, name + ": " + p.stdout + p.stderr[-3000:]
        runs[name] = (p.stdout.strip().splitlines()[-1], stats_total(p.stderr), p.stderr)
    digests = {name: r[0] for name, r in runs.items()}
    assert len(set(digests.values())) == 1, digests
    # held: a step's launches went with its read back; 5 at a time: four messages of five a step
    # before the read (24 = 4 x 5 + 4); 16: one of 16 (24 = 16 + 8); the same round trips
    held, five, across = (runs[n][1] for n in ("held", "5 at a time", "16 at a time, across hosts"))
    assert five[1] == held[1] == across[1] and five[0] == held[0] == across[0], runs
    assert held[2] < STEPS, held
    assert five[2] >= STEPS * (LAUNCHES // 5) > held[2], (held, five)
    assert STEPS <= across[2] < five[2], (five, across)
    # a malformed value is said and the default used: calls held as by default
    bad = runs["a malformed number"]
    assert "RGPU_BATCH_CALLS=five is not a whole number" in bad[2] and bad[1][2] == held[2], bad[1:]
    # across hosts a step's two heads (16 launches; 8 and the read) came as their differences from
    # the last step's, both kept though their lengths are equal modulo the table's size (head_delta.c)
    line = wait_until(lambda: next((x for x in handle.output(1_000_000).splitlines()
                                    if "event=session_ended" in x and "head_deltas=" in x), None),
                      20, "the session across hosts ended")
    deltas = int(re.search(r"\bhead_deltas=(\d+)", line).group(1))
    assert deltas >= (STEPS - 1) * 2, line
