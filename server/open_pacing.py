"""How fast one tenant's sessions are opened on a server (issue 39: a session flood).

Opening a session costs the server's CPUs a worker (forked by the zygote), its start and the CURVE
handshake with the program; the session limits bound how many a tenant holds, not how often it opens
and closes them. A tenant churning at its limit (6-10 opens a second) raised a neighbour's sync p99 to
4.5-16x its figure alone (benchmarks/test_flood.py). So each tenant has a bucket of opens: ``burst``
at once (a job that starts its processes together never waits), then ``rate`` a second. A hello past
its bucket is not refused: it waits in its GPU's queue, behind nobody else's, until its tenant's
bucket has an open again (up to PACED_WAIT_S), and fails then saying why.

Not paced: direct mode (no tenant: one user's server) and sessions arriving by migration (the
controller's move, not the tenant's open)."""
from __future__ import annotations

import time

SESSION_OPEN_RATE = 1.0     # opens a second per tenant, past the burst
PACED_WAIT_S = 240.0        # how long a paced hello may wait its turn (the client waits RGPU_TIMEOUT, 300 s)
SESSION_OPEN_BURST = 16     # opens at once per tenant


class OpenPacer:
    def __init__(self, rate: float = SESSION_OPEN_RATE, burst: int = SESSION_OPEN_BURST, clock=time.monotonic):
        self.rate, self.burst, self.clock = float(rate), max(1, int(burst)), clock
        self._buckets: dict[str, tuple[float, float]] = {}   # tenant -> (opens left, when counted)

    def _left(self, tenant: str, now: float) -> float:
        left, at = self._buckets.get(tenant, (float(self.burst), now))
        return min(float(self.burst), left + (now - at) * self.rate)

    def may_open(self, tenant: str) -> bool:
        """Whether ``tenant`` may open a session now (without taking it)."""
        return not tenant or self._left(tenant, self.clock()) >= 1.0

    def take(self, tenant: str) -> bool:
        """Take one open of ``tenant``'s bucket if it has one; True when it may open now."""
        if not tenant:
            return True
        now = self.clock()
        left = self._left(tenant, now)
        if left < 1.0:
            return False
        self._buckets[tenant] = (left - 1.0, now)
        if len(self._buckets) > 4096:   # tenants whose buckets are full again hold nothing worth keeping
            self._buckets = {t: v for t, v in self._buckets.items() if self._left(t, now) < self.burst}
        return True

    def describe(self) -> str:
        return f"{self.burst} at once, then {self.rate:g} a second"
