"""Per-session and per-lease accounting of one server: device time (from the GPU schedulers),
memory in use and its peak, kernels. Live sessions are read from the shared arrays the workers
update; a session that ended is folded into its lease's totals, which are kept until the lease
itself is gone (released or expired), so `rgpu leases` still shows what a finished program used."""
from __future__ import annotations

import threading
import time
from collections import deque
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
        self.vgpus: dict[tuple, dict] = {}   # (lease, vgpu, gpu index) -> COUNTERS of sessions that ended
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

    def ended(self, lease: str, final: dict, vgpu: tuple | None = None, grant=None) -> None:
        """A session of ``lease`` ended with ``final`` (Ledger.session); ``vgpu``: (vgpu, gpu index),
        ``grant``: its lease_gate.Grant (the vGPU's quotas, still shown once its sessions are gone)."""
        if not lease:
            return
        with self._lock:
            if vgpu is not None:
                v = self.vgpus.setdefault((lease, *vgpu), {k: 0 for k in COUNTERS})
                for key in COUNTERS:
                    v[key] += final[key]
                v["grant"] = grant
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
            for key in [k for k in self.vgpus if k[0] not in valid]:
                del self.vgpus[key]

    def vgpu_totals(self) -> dict[tuple, dict]:
        with self._lock:
            return {k: dict(v) for k, v in self.vgpus.items()}

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


class ShareMeter:
    """The share of a GPU's time a key (a vGPU, a whole GPU) achieved over the last ``window``
    seconds, from its device-time counter as sampled at each report (heartbeats, scrapes)."""

    def __init__(self, window: float = 5.0, clock=time.monotonic):
        self.window, self.clock = window, clock
        self._samples: dict[object, deque] = {}
        self._lock = threading.Lock()

    def share(self, key, device_time: float) -> float:
        """Percent of wall time spent on the device by ``key`` lately (0 at the first sample)."""
        now = self.clock()
        with self._lock:
            q = self._samples.setdefault(key, deque())
            q.append((now, device_time))
            while len(q) > 2 and now - q[1][0] >= self.window:
                q.popleft()             # keep one sample at least ``window`` old: the rate's base
            t0, d0 = q[0]
        return 0.0 if now - t0 <= 0 else max(0.0, min(100.0, 100.0 * (device_time - d0) / (now - t0)))

    def forget_except(self, keys) -> None:
        with self._lock:
            for k in [k for k in self._samples if k not in keys]:
                del self._samples[k]
