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


def test_the_software_gpu_reports_utilisation_from_its_sessions_device_time(monkeypatch):
    clock = [100.0]
    monkeypatch.setattr(nvml.time, "monotonic", lambda: clock[0])
    health = nvml.SimHealth()
    first = health.usage(0, 4096, {"a": 1.0})
    assert first == {"utilization_pct": 0.0, "memory_used_device": 4096, "temperature_c": None}
    clock[0] += 2.0
    # a ran 0.5 s more, b (new) 0.3 s, c ended in between: 0.8 s of 2 s
    assert health.usage(0, 8192, {"a": 1.5, "b": 0.3})["utilization_pct"] == 40.0
    clock[0] += 0.2  # within the window: the last figure again, memory as it is now
    assert health.usage(0, 0, {"a": 1.9})["utilization_pct"] == 40.0
    clock[0] += 1.0
    assert health.usage(0, 0, {"a": 9.0})["utilization_pct"] == 100.0  # clamped
    assert health.usage(1, 0, {})["utilization_pct"] == 0.0  # each GPU on its own
