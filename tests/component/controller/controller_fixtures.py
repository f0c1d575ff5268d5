"""Helpers for controller component tests: a real rgpu-controller subprocess on a free port
(``ControllerProc``, shared with the end-to-end tests, lives in tests/support/controller.py)."""
from tests.support.controller import SECRET, ControllerProc, answers, server_credential  # noqa: F401

GiB = 1 << 30


def fake_gpus(n, prefix, memory=16 * GiB, name="SimGPU A100"):
    return [{"uuid": f"{prefix}-{i}", "index": i, "name": name, "memory_total": memory, "sms": 108,
             "compute_capability": "8.0"} for i in range(n)]
