"""What a GPU says of itself, for the server's stats and heartbeats: utilisation, memory in use by
every process, temperature.

A real GPU (the cuda backend) answers through NVML, looked up by its uuid (NVML's order of devices
need not be CUDA's). The software GPU's equivalents are the supervisor's own (gpu_usage there:
utilisation from the device time its scheduler accounts, memory its sessions hold, no
temperature). A host without the NVIDIA driver reports nothing for a real GPU rather than failing."""
from __future__ import annotations

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
