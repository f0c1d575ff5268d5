"""Quotas belong to the lease, not to a session (issue 16, "High" 4): every session of a lease's vGPU
shares its memory and its compute share, what cudaMemGetInfo says is what can be allocated, and a
lease cannot open sessions without bound."""
from __future__ import annotations

import multiprocessing as mp
import time

import pytest

from rgpu.server.sched import GpuScheduler
from tests.security.test_server_wire import _token, _uuid
from tests.support.daemons import wait_until
from tests.support.pool import stats
from tests.support.session import Refused, Session

MiB = 1 << 20
OOM = 2  # cudaErrorMemoryAllocation


def test_three_programs_on_one_lease_share_its_memory(secret_server):
    plain_url, url, _ = secret_server(memory="1GiB")
    uuid = _uuid(url)
    small = _token(plain_url, uuid, 256 * MiB, lease="l-small")
    a, b, c = (Session(url, lease=small) for _ in range(3))
    # before: each session had the whole quota, three of them held 768 MiB of a 256 MiB lease
    assert a.call("cudaMalloc", 128 * MiB)[0] == 0
    assert b.call("cudaMalloc", 128 * MiB)[0] == 0
    assert c.call("cudaMalloc", 128 * MiB)[0] == OOM
    rc, (free, total), _, _ = c.call("cudaMemGetInfo")
    assert (rc, free, total) == (0, 0, 256 * MiB)          # what it is told is what it can have
    # a second tenant's 512 MiB lease on the same GPU gets all of it, and is told so
    other = Session(url, lease=_token(plain_url, uuid, 512 * MiB, lease="l-other"))
    rc, (free, total), _, _ = other.call("cudaMemGetInfo")
    assert (rc, free, total) == (0, 512 * MiB, 512 * MiB)
    assert other.call("cudaMalloc", 512 * MiB)[0] == 0
    # memory freed by one session of the lease is there for the others
    b.close()
    wait_until(lambda: c.call("cudaMalloc", 128 * MiB)[0] == 0, 20, "b's memory back to its lease")
    for s in (a, c, other):
        s.close()


def test_sessions_per_lease_are_bounded(secret_server):
    plain_url, url, _ = secret_server("--max-sessions-per-lease", "3")
    token = _token(plain_url, _uuid(url))
    held = [Session(url, lease=token) for _ in range(3)]
    with pytest.raises(Refused) as info:
        Session(url, lease=token)
    assert info.value.reply["error"] == "busy" and "3 sessions" in info.value.reply["message"]
    other = Session(url, lease=_token(plain_url, _uuid(url), lease="l-someone-else"))   # others are not held up
    held.pop().close()
    wait_until(lambda: len(stats(plain_url)["sessions"]) == 3, 20, "the closed session reaped")
    held.append(Session(url, lease=token))
    for s in held + [other]:
        s.close()


def test_hellos_that_never_attach_cost_nothing_for_long(secret_server):
    plain_url, url, _ = secret_server("--max-sessions-per-lease", "4")
    token = _token(plain_url, _uuid(url))
    from tests.support.session import connect, exchange
    from rgpu.protocol import wire
    sup = connect(url)
    replies = [wire.unpack(exchange(sup, [wire.pack({"op": "hello", "proto": wire.PROTOCOL_VERSION, "gpu": 0,
                                                      "lease": token})])[0]) for _ in range(6)]
    sup.close(0)
    assert [r["ok"] for r in replies] == [True] * 4 + [False] * 2
    # nobody attaches: the sessions end by themselves and the lease may open sessions again
    wait_until(lambda: not stats(plain_url)["sessions"], 40, "unattached sessions ended")
    Session(url, lease=token).close()


def _spin(sched, slot, seconds, start, kernel_s=0.004):
    while time.monotonic() < start:
        time.sleep(0.001)
    while time.monotonic() < start + seconds:
        sched.acquire(slot)
        time.sleep(kernel_s)
        sched.release(slot, kernel_s)


def test_compute_share_is_per_lease_not_per_session():
    """Three sessions of lease A (one group, 50%) against one of lease B (50%): A gets half, not 3/4."""
    ctx = mp.get_context("spawn")
    sched = GpuScheduler(ctx, 8)
    for slot in range(3):
        sched.configure(slot, 50, 100, group=0)
    sched.configure(3, 50, 100, group=1)
    start = time.monotonic() + 1.0
    procs = [ctx.Process(target=_spin, args=(sched, slot, 2.5, start)) for slot in range(4)]
    for p in procs:
        p.start()
    for p in procs:
        p.join(30)
        assert p.exitcode == 0
    a = sum(sched.device_time[s] for s in range(3))
    b = sched.device_time[3]
    assert 0.4 < a / (a + b) < 0.6, (a, b)
