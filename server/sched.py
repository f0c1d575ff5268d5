"""Compute shares on a shared GPU: one kernel at a time across every session of the GPU, chosen by
weighted fair queueing on device time, each session capped at its limit.

Every worker of a GPU shares one GpuScheduler (shared memory + a condition variable made by the
supervisor). A session has a guarantee g% (its weight) and a limit l%:
- among sessions waiting to launch, the one with the least device time per unit of weight runs
  next, so sessions that all have work get device time in proportion to their guarantees — with
  guarantees that add up to at most 100, each gets at least its g%;
- the GPU never idles while someone eligible waits (time nobody needs is lent to others);
- after a kernel of d seconds, a session with limit l may not start another for d·(100/l − 1)
  seconds, so alone it stays at or below l% of the GPU.
A session that was idle re-enters at the least virtual time of those active, so idling banks no
credit. A real GPU runs kernels after their launch returned: there a session that gives the GPU up
while a neighbour wants it (`contended`) first lets its kernels finish (session.py, HAND_OVER_S), or
"one kernel at a time" would hold for the launches only, and the GPU would share itself out by its
own time slices. Device time is what the device reports for each kernel (interpretation time on the
software GPU), not wall time around the call.

The unit of sharing is a group: every session of one vGPU of a lease (``configure(..., group=g)``)
shares one weight, one virtual time and one limit, so a lease that opens three programs on its vGPU
gets its guarantee once, not three times. A session alone in its group (the default) is a group.

The condition variable is made where the scheduler is used: ``locks=False`` makes one without it,
to be pickled to the process that forks the workers, which adds it (``add_lock``); named
semaphores that a killed server would leave behind in /dev/shm are never created."""
from __future__ import annotations

import time

MIN_WEIGHT = 0.5  # a session with guarantee 0 still runs when nobody with a guarantee waits
IDLE_S = 0.05  # a session that launched nothing for this long re-enters at the others' level
# Between two kernels a session is briefly not waiting (its worker is fetching the next launch);
# for this long after a kernel it still counts as a contender, or fair queueing would hand every
# such gap to whoever happens to be waiting. The price: at most this much idle GPU when it stops.
RETURN_S = 0.002
# Each kernel is charged this much virtual time beside its device time: what a launch costs the GPU's
# queue (its serving loop, the driver's launch path) however short the kernel. Without it a flood of
# empty kernels costs its sender almost no device time, stays first in the fair queue and keeps a
# neighbour waiting for the GPU for hundreds of milliseconds (issue 39, attack 6): the launch rate
# is shared by guarantee as device time is. Counted in the queue's order only, not in device_time.
LAUNCH_COST_S = 20e-6


class GpuScheduler:
    def __init__(self, ctx, slots: int, *, locks: bool = True):
        self.slots = slots
        self.cond = ctx.Condition(ctx.Lock()) if locks else None
        self.busy = ctx.Value("i", -1, lock=False)
        # per slot (a session)
        self.waiting = ctx.Array("b", slots, lock=False)
        self.device_time = ctx.Array("d", slots, lock=False)
        # Seconds of kernels running now and not charged yet (a gauge, written without the lock by
        # the worker's watch of a real GPU: its kernels cannot be time-sliced into charges).
        self.running = ctx.Array("d", slots, lock=False)
        self.kernels = ctx.Array("q", slots, lock=False)
        self.last = ctx.Array("d", slots, lock=False)  # when the slot last finished a kernel
        self.group = ctx.Array("i", [-1] * slots, lock=False)  # the slot's session's group (-1: none)
        # per group (a lease's vGPU): ids are in [0, slots)
        self.weight = ctx.Array("d", [100.0] * slots, lock=False)
        self.limit = ctx.Array("d", [100.0] * slots, lock=False)
        self.vtime = ctx.Array("d", slots, lock=False)
        self.ready_at = ctx.Array("d", slots, lock=False)
        self.members = ctx.Array("i", slots, lock=False)
        self.hi = ctx.Value("i", 0, lock=False)  # 1 + the highest slot ever configured: scans stop there

    def add_lock(self, ctx) -> None:
        self.cond = ctx.Condition(ctx.Lock())

    def configure(self, slot: int, guarantee: float, limit: float, group: int | None = None) -> None:
        """A new session in `slot`, of `group` (default: a group of its own), before it runs anything."""
        g = slot if group is None else group
        with self.cond:
            self.hi.value = max(self.hi.value, slot + 1, g + 1)
            self.group[slot] = g
            if self.members[g] <= 0:
                self.members[g] = 0
                self.weight[g] = max(float(guarantee), MIN_WEIGHT)
                self.limit[g] = min(max(float(limit), 1.0), 100.0)
                self.vtime[g] = self._floor(exclude=g)
                self.ready_at[g] = 0.0
            self.members[g] += 1
            self.waiting[slot] = 0
            self.device_time[slot] = 0.0
            self.running[slot] = 0.0
            self.kernels[slot] = 0
            self.last[slot] = 0.0

    def _floor(self, exclude: int) -> float:
        """The least virtual time of the groups that have work, but ``exclude``."""
        group = self.group
        active = [self.vtime[group[s]] for s in range(self.hi.value)
                  if group[s] not in (exclude, -1) and self.members[group[s]] > 0
                  and (self.waiting[s] or self.busy.value == s)]
        return min(active) if active else max((self.vtime[g] for g in range(self.hi.value) if g != exclude),
                                              default=0.0)

    def _next(self, now: float) -> int:
        """The slot that should run next: -1 if a session just between kernels comes first."""
        best, best_v = -1, 0.0
        group = self.group
        for s in range(self.hi.value):
            g = group[s]
            if g < 0:
                continue
            contender = self.waiting[s] or (now - self.last[s] < RETURN_S and self.kernels[s])
            if contender and self.ready_at[g] <= now and (best < 0 or self.vtime[g] < best_v):
                best, best_v = s, self.vtime[g]
        return best if best >= 0 and self.waiting[best] else -1

    def acquire(self, slot: int, timeout: float | None = None) -> bool:
        """Block until `slot` may run one kernel on the GPU."""
        deadline = None if timeout is None else time.monotonic() + timeout
        g = self.group[slot]
        with self.cond:
            if not self.waiting[slot]:
                if time.monotonic() - self.last[slot] > IDLE_S:
                    self.vtime[g] = max(self.vtime[g], self._floor(exclude=g))
                self.waiting[slot] = 1
            while True:
                now = time.monotonic()
                if self.busy.value < 0 and self._next(now) == slot:
                    self.busy.value = slot
                    self.waiting[slot] = 0
                    return True
                if deadline is not None and now >= deadline:
                    self.waiting[slot] = 0
                    self.cond.notify_all()
                    return False
                # Wake for a release (notify) or when a throttled session becomes eligible.
                wake = min([self.ready_at[self.group[s]] for s in range(self.hi.value)
                            if self.waiting[s] and self.group[s] >= 0 and self.ready_at[self.group[s]] > now]
                           + [self.last[s] + RETURN_S for s in range(self.hi.value) if now - self.last[s] < RETURN_S],
                           default=now + 0.05)
                wait = max(1e-4, min(wake - now, 0.05))
                if deadline is not None:
                    wait = min(wait, max(deadline - now, 1e-4))
                self.cond.wait(wait)

    def release(self, slot: int, seconds: float, kernels: int = 1) -> None:
        """The `kernels` kernels `slot` ran while it held the GPU took `seconds` of device time."""
        g = self.group[slot]
        with self.cond:
            self.device_time[slot] += seconds
            self.kernels[slot] += kernels
            self.vtime[g] += (seconds + kernels * LAUNCH_COST_S) / self.weight[g]
            lim = self.limit[g]
            now = time.monotonic()
            self.last[slot] = now
            if lim < 100.0:
                self.ready_at[g] = now + seconds * (100.0 / lim - 1.0)
            if self.busy.value == slot:
                self.busy.value = -1
            # Only a waiting slot sleeps on the condition (acquire): with none, nobody to wake,
            # and the common case (one session alone on its GPU) skips the condition's semaphores.
            waiting = self.waiting
            if any(waiting[s] for s in range(self.hi.value)):
                self.cond.notify_all()

    def charge(self, slot: int, seconds: float) -> None:
        """Device time of `slot`'s kernels that completed after the GPU was released (a real GPU
        runs them asynchronously): counted and queued by as if charged at their release."""
        if seconds <= 0:
            return
        g = self.group[slot]
        with self.cond:
            self.device_time[slot] += seconds
            self.vtime[g] += seconds / self.weight[g]
            lim = self.limit[g]
            if lim < 100.0:
                self.ready_at[g] = max(self.ready_at[g], time.monotonic()) + seconds * (100.0 / lim - 1.0)

    def yield_slice(self, slot: int, seconds: float) -> None:
        """`slot`, holding the GPU, has run `seconds` of a kernel that is not finished (a time slice,
        as a GPU time-slices contexts): charge them, and if another session should run first or this
        one is over its limit, give the GPU up until it is this session's turn again. Without this a
        long kernel — or one that never ends — would hold the GPU against every neighbour."""
        g, group = self.group[slot], self.group
        with self.cond:
            self.device_time[slot] += seconds
            self.vtime[g] += seconds / self.weight[g]
            now = time.monotonic()
            lim = self.limit[g]
            if lim < 100.0:
                self.ready_at[g] = now + seconds * (100.0 / lim - 1.0)
            mine = self.vtime[g]
            if self.ready_at[g] <= now and not any(
                    self.waiting[s] and self.ready_at[group[s]] <= now and self.vtime[group[s]] < mine
                    for s in range(self.hi.value) if s != slot and group[s] >= 0):
                return
            if self.busy.value == slot:
                self.busy.value = -1
            self.last[slot] = now
            self.cond.notify_all()
        self.acquire(slot)

    def contended(self, slot: int) -> bool:
        """Whether another session of the GPU wants it: waiting to launch, or between two runs of
        its kernels (it gave the GPU back less than IDLE_S ago). A session on a real GPU lets its
        kernels finish before it hands the GPU to such a neighbour (session.py). Read without the
        lock: a neighbour that arrives a moment later waits its turn as it would anyway."""
        now = time.monotonic()
        group, waiting, kernels, last = self.group, self.waiting, self.kernels, self.last
        return any(s != slot and group[s] >= 0 and (waiting[s] or (kernels[s] and now - last[s] < IDLE_S))
                   for s in range(self.hi.value))

    def forget(self, slot: int) -> None:
        """The session in `slot` ended (or its worker died holding the GPU)."""
        with self.cond:
            g = self.group[slot]
            if g >= 0 and self.members[g] > 0:
                self.members[g] -= 1
            self.group[slot] = -1
            self.waiting[slot] = 0
            if self.busy.value == slot:
                self.busy.value = -1
            self.cond.notify_all()
