"""NVML usage for heartbeats: real figures where a driver is present, nothing (not an error) elsewhere."""
from __future__ import annotations

from rgpu.server import nvml


def test_gpu_usage_is_empty_without_a_driver_and_complete_with_one():
    usage = nvml.gpu_usage(0)
    if nvml._state["ready"]:
        assert set(usage) == {"utilization_pct", "memory_used_device", "temperature_c"}
    else:
        assert usage == {}
    assert nvml.gpu_usage(10_000) == {}  # no such GPU: logged, not raised
