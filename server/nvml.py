"""What NVML says of a real GPU (utilisation, memory in use by every process, temperature), added to
the heartbeats of a server on the cuda backend. The software GPU has no NVML; nor does a host
without the NVIDIA driver, where this reports nothing rather than failing."""
from __future__ import annotations

import structlog

log = structlog.get_logger()
_state = {"ready": None}


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


def gpu_usage(index: int) -> dict:
    """{utilization_pct, memory_used_device, temperature_c} of GPU `index`, or {} without NVML."""
    if not _init():
        return {}
    import pynvml
    try:
        h = pynvml.nvmlDeviceGetHandleByIndex(index)
        util = pynvml.nvmlDeviceGetUtilizationRates(h)
        mem = pynvml.nvmlDeviceGetMemoryInfo(h)
        temp = pynvml.nvmlDeviceGetTemperature(h, pynvml.NVML_TEMPERATURE_GPU)
        return {"utilization_pct": util.gpu, "memory_used_device": mem.used, "temperature_c": temp}
    except Exception as e:
        log.warning("nvml_query_failed", gpu=index, reason=str(e)[:200])
        return {}
