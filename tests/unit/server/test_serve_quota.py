"""The compiled serving loop's memory charge (server/native/quota.c) beside GpuShared.reserve
(server/workers.py): in the same state they give the same answers and leave the same counters, and
sessions charging at once from several processes — some through Python, some through C, two of them
sessions of one lease (one group, one quota) — never take the GPU or a quota past its size, and every
byte charged is accounted for."""
from __future__ import annotations

import multiprocessing
import random

from rgpu.server import ring as ring_mod
from rgpu.server.workers import GpuShared

CAPACITY = 1 << 20
SLOTS = 6


def _gpu(ctx):
    gpu = GpuShared(ctx, SLOTS, CAPACITY)
    gpu.add_locks(ctx)
    for slot, group in enumerate((0, 0, 1, 1, -1, -1)):
        gpu.sched.group[slot] = group
    gpu.quota[0], gpu.quota[1] = 300_000, 500_000
    return gpu


def _c_reserve(gpu, slot: int):
    lib, q = ring_mod.library(), ring_mod.quota_view(gpu, slot, CAPACITY)
    return lambda delta: bool(lib.rgpu_quota_reserve(q, delta))


def test_the_same_answers_and_counters_as_python():
    ctx = multiprocessing.get_context("fork")
    py, c = _gpu(ctx), _gpu(ctx)
    cs = [_c_reserve(c, slot) for slot in range(SLOTS)]
    rnd = random.Random(38)
    held = [0] * SLOTS
    answers = {True: 0, False: 0}
    for _ in range(3000):
        slot = rnd.randrange(SLOTS)
        delta = rnd.randrange(1, 120_000) if rnd.random() < 0.6 or not held[slot] else -rnd.randrange(1, held[slot] + 1)
        a, b = py.reserve(slot, delta, CAPACITY), cs[slot](delta)
        assert a == b, (slot, delta, list(py.usage[:]))
        answers[a] += 1
        if a:
            held[slot] += delta
        assert list(py.usage[:]) == list(c.usage[:]) == held
        assert list(py.peak[:]) == list(c.peak[:])
    assert answers[True] > 100 and answers[False] > 100  # both answers were exercised


def _charge(gpu, slot: int, compiled: bool, seed: int, out) -> None:
    reserve = _c_reserve(gpu, slot) if compiled else (lambda d: gpu.reserve(slot, d, CAPACITY))
    rnd, held, over = random.Random(seed), [], 0
    for _ in range(4000):
        if held and rnd.random() < 0.4:
            assert reserve(-held.pop(rnd.randrange(len(held))))
            continue
        n = rnd.randrange(1, 60_000)
        if reserve(n):
            held.append(n)
            with gpu.lock:  # what every session sees now: no quota and not the GPU past its size
                usage, groups = gpu.usage[:], gpu.sched.group[:]
                g0 = sum(u for u, g in zip(usage, groups) if g == 0)
                g1 = sum(u for u, g in zip(usage, groups) if g == 1)
                over += sum(usage) > CAPACITY or g0 > gpu.quota[0] or g1 > gpu.quota[1]
    out.put((slot, sum(held), over))


def test_sessions_charging_at_once_never_pass_a_quota_and_lose_no_byte():
    ctx = multiprocessing.get_context("fork")
    gpu = _gpu(ctx)
    out = ctx.Queue()
    # slots 0 and 1: two sessions of one lease (group 0), one charging through C, one through Python;
    # the same for group 1; slots 4 and 5 belong to no group and meet only the GPU's capacity
    procs = [ctx.Process(target=_charge, args=(gpu, slot, slot % 2 == 0, slot, out)) for slot in range(SLOTS)]
    for p in procs:
        p.start()
    results = [out.get(timeout=120) for _ in procs]
    for p in procs:
        p.join(30)
        assert p.exitcode == 0
    for slot, held, over in results:
        assert over == 0, slot
        assert gpu.usage[slot] == held, (slot, held, gpu.usage[slot])
