"""Per-session and per-lease accounting of one server: device time (from the GPU schedulers),
memory in use and its peak, kernels. Live sessions are read from the shared arrays the workers
update; a session that ended is folded into its lease's totals, which are kept until the lease
itself is gone (released or expired), so `rgpu leases` still shows what a finished program used."""
from __future__ import annotations

import threading
from dataclasses import dataclass


COUNTERS = ("device_time_s", "kernels", "calls", "bytes_in", "bytes_out")


@dataclass
class LeaseTotals:
    device_time_s: float = 0.0  # of sessions that ended
    kernels: int = 0
    calls: int = 0
    bytes_in: int = 0
    bytes_out: int = 0
    memory_peak_bytes: int = 0
    sessions_ended: int = 0


class Ledger:
    """Used from the main loop (sessions end) and the registrar thread (reports): one lock."""

    def __init__(self):
        self.leases: dict[str, LeaseTotals] = {}
        self._lock = threading.Lock()

    @staticmethod
    def session(gpu, slot: int) -> dict:
        """What the shared arrays say of the session in `slot` of `gpu` right now."""
        calls, bytes_in, bytes_out = gpu.traffic[3 * slot:3 * slot + 3]
        return {"device_time_s": gpu.sched.device_time[slot] + gpu.sched.running[slot],
                "kernels": gpu.sched.kernels[slot],
                "calls": calls, "bytes_in": bytes_in, "bytes_out": bytes_out,
                "memory_used_bytes": gpu.usage[slot], "memory_peak_bytes": gpu.peak[slot]}

    def _observe(self, lease: str, now: dict) -> None:
        """Carry a live session's memory peak (the worker keeps it) into its lease's."""
        if lease:
            t = self.leases.setdefault(lease, LeaseTotals())
            t.memory_peak_bytes = max(t.memory_peak_bytes, now["memory_peak_bytes"])

    def ended(self, lease: str, final: dict) -> None:
        if not lease:
            return
        with self._lock:
            t = self.leases.setdefault(lease, LeaseTotals())
            for key in COUNTERS:
                setattr(t, key, getattr(t, key) + final[key])
            t.memory_peak_bytes = max(t.memory_peak_bytes, final["memory_peak_bytes"])
            t.sessions_ended += 1

    def forget(self, valid: set) -> None:
        """Drop the totals of leases the controller no longer lists."""
        with self._lock:
            for lease in [k for k in self.leases if k not in valid]:
                del self.leases[lease]

    def report(self, live: list[tuple[str, dict]]) -> dict:
        """lease -> {device_time_s, kernels, calls, bytes_in, bytes_out, memory_used_bytes,
        memory_peak_bytes, sessions}"""
        with self._lock:
            return self._report(live)

    def _report(self, live):
        out = {}
        for lease, t in self.leases.items():
            out[lease] = {**{k: getattr(t, k) for k in COUNTERS}, "memory_used_bytes": 0,
                          "memory_peak_bytes": t.memory_peak_bytes, "sessions": 0}
        for lease, now in live:
            if not lease:
                continue
            self._observe(lease, now)
            r = out.setdefault(lease, {**{k: 0 for k in COUNTERS}, "memory_used_bytes": 0,
                                       "memory_peak_bytes": 0, "sessions": 0})
            for key in (*COUNTERS, "memory_used_bytes"):
                r[key] += now[key]
            r["memory_peak_bytes"] = max(r["memory_peak_bytes"], self.leases[lease].memory_peak_bytes)
            r["sessions"] += 1
        return out
