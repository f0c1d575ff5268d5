"""The client's table of the program's device allocations (libhook/src/state/addresses.c): a program
with two devices gets the same answers from it as from the servers (RGPU_ALLOC_TABLE=0 asks them),
and its device-to-device copies and pointer queries cost no round trip of their own (the servers'
count of calls in their session_ended lines is the witness, not a clock)."""
from __future__ import annotations

import re
import subprocess

import pytest

from rgpu.paths import client_env
from tests.support.daemons import wait_until

pytestmark = pytest.mark.e2e

# Calls each round of the program sends: the copy across devices (one D2H on device 0, one H2D on
# device 1: less than a chunk), the cudaMemcpyDefault and the cudaMemcpyAsync within device 0.
# The three pointer queries send none.
CALLS_PER_ROUND = 4


def _calls_per_run(handles, runs: int) -> list[int]:
    """Each run's calls over both servers, in the order the runs went (each has a session on each)."""
    per_server = []
    for h in handles:
        lines = wait_until(lambda: (found := re.findall(r"event=session_ended .*", h.output(500000)))
                           and len(found) >= runs and found, 15, "sessions end")
        per_server.append([int(re.search(r"\bcalls=(\d+)", line).group(1)) for line in lines[:runs]])
    return [sum(run) for run in zip(*per_server)]


def _run(exe, urls, rounds: int, *more: str, **env) -> str:
    p = subprocess.run([str(exe), str(rounds), *more], capture_output=True, text=True, timeout=180,
                       env={**client_env(urls), **env})
    assert p.returncode == 0 and f"OK alloc_table {rounds} rounds" in p.stdout, p.stdout + p.stderr
    return p.stdout


def test_the_table_answers_as_the_servers_do_without_their_round_trips(cuda_program, start_server):
    servers = [start_server() for _ in range(2)]
    urls = [url for url, _ in servers]
    handles = [h for _, h in servers]
    exe = cuda_program("driver_alloc_table")
    rounds = 20

    with_table = _run(exe, urls, 0)
    asked = _run(exe, urls, 0, RGPU_ALLOC_TABLE="0")
    assert with_table == asked
    # what both said: device memory of the right device inside and at the end of each kind of
    # allocation whichever device is current, and the freed and reset ones unknown again
    assert "current 0\na0 type=2 device=0 devptr=self hostptr=null\n" in with_table
    assert "current 1\na0 type=2 device=0 devptr=self hostptr=null\n" in with_table
    assert "a1+7 type=2 device=1 devptr=self hostptr=null" in with_table
    assert "p1 last byte type=2 device=1" in with_table and "q0 last byte type=2 device=0" in with_table
    assert "host type=0 device=-2 devptr=null hostptr=self" in with_table
    for gone in ("a1 freed", "b0 freed", "d0 freed", "p1 after reset"):
        assert f"{gone} type=0 device=-2" in with_table
    assert "c1 from device 0 type=2 device=1" in with_table

    # (counted after a first run: on a fresh server the module's digest misses the server's cache and
    # its image follows in a second cuModuleLoadData)
    _run(exe, urls, 0)
    _run(exe, urls, rounds)
    _run(exe, urls, rounds, RGPU_ALLOC_TABLE="0")
    _, asked_none, table_none, table_many, asked_many = _calls_per_run(handles, 5)
    assert table_many - table_none == rounds * CALLS_PER_ROUND
    # asking the servers, each copy within device 0 first asks where its pointers are
    assert asked_many - asked_none > rounds * CALLS_PER_ROUND


def test_sync_copies_name_memory_by_address_whichever_device_is_current(cuda_program, start_server):
    """Under unified addressing a sync copy to or from device 1's memory works while device 0 is current
    (Runtime and Driver API); the table says whose memory it is."""
    urls = [start_server()[0] for _ in range(2)]
    out = _run(cuda_program("driver_alloc_table"), urls, 1, "uva")
    assert "uva copies ok" in out
