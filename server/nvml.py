"""What a GPU says of itself, for the server's stats and heartbeats: utilisation, memory in use by
every process, temperature.

A real GPU (the cuda backend) answers through NVML, looked up by its uuid (NVML's order of devices
need not be CUDA's). The software GPU reports its own equivalents: utilisation is the share of wall
time its sessions' kernels ran since the last report (the device time the scheduler accounts),
memory is what its sessions hold, and it has no temperature (None). A host without the NVIDIA
driver reports nothing for a real GPU rather than failing."""
from __future__ import annotations

import threading
import time

import structlog

log = structlog.get_logger()
_state = {"ready": None}
KEYS = ("utilization_pct", "memory_used_device", "temperature_c")


def _init() -> bool:
    if _state["ready"] is None:
        try:
            import pynvml
            pynvml.nvmlInit()
            _state["ready"] = True
        except Exception as e:  # pynvml raises NVMLError subclasses, or ImportError without it
            log.info("nvml_unavailable", reason=str(e)[:200])
            _state["ready"] = False
    return _state["ready"]


def gpu_usage(index: int, uuid: str | None = None) -> dict:
    """{utilization_pct, memory_used_device, temperature_c} of a real GPU (by uuid when given, else
    by NVML index), or {} without NVML or without that GPU."""
    if not _init():
        return {}
    import pynvml
    try:
        h = pynvml.nvmlDeviceGetHandleByUUID(uuid) if uuid else pynvml.nvmlDeviceGetHandleByIndex(index)
        util = pynvml.nvmlDeviceGetUtilizationRates(h)
        mem = pynvml.nvmlDeviceGetMemoryInfo(h)
        temp = pynvml.nvmlDeviceGetTemperature(h, pynvml.NVML_TEMPERATURE_GPU)
        return {"utilization_pct": util.gpu, "memory_used_device": mem.used, "temperature_c": temp}
    except Exception as e:
        log.warning("nvml_query_failed", gpu=index, reason=str(e)[:200])
        return {}


class SimHealth:
    """The software GPU's equivalents, per GPU: utilisation from the device time of its sessions
    between two reports (at least MIN_WINDOW_S apart; a faster caller sees the last figure)."""

    MIN_WINDOW_S = 1.0

    def __init__(self):
        self._last: dict[int, tuple[float, dict, float]] = {}  # gpu -> (when, {session: device s}, pct)
        self._lock = threading.Lock()  # stats (main loop) and heartbeats (registrar thread)

    def usage(self, gpu: int, memory_used: int, device_times: dict) -> dict:
        now = time.monotonic()
        with self._lock:
            when, before, pct = self._last.get(gpu, (None, {}, 0.0))
            if when is None or now - when >= self.MIN_WINDOW_S:
                if when is not None:
                    # sessions that ended in between are left out: their last window is lost, not negative
                    ran = sum(max(t - before.get(s, 0.0), 0.0) for s, t in device_times.items())
                    pct = min(100.0, 100.0 * ran / (now - when))
                self._last[gpu] = (now, dict(device_times), pct)
        return {"utilization_pct": round(pct, 1), "memory_used_device": memory_used, "temperature_c": None}
