"""Choosing the device backend: the cuda backend needs the NVIDIA driver and says what to do
without one; auto falls back to the software GPU."""
from __future__ import annotations

import subprocess

from rgpu.client.server_client import stats
from rgpu.server.backends.cuda import device as cuda_backend
from tests.conftest import server_argv
from tests.support.daemons import free_url


def _driver_present() -> bool:
    try:
        cuda_backend.probe()
        return True
    except cuda_backend.CudaUnavailable:
        return False


def test_cuda_backend_without_a_driver_names_the_software_gpu(daemons):
    url = free_url()
    argv = [a if a != "sim" else "cuda" for a in server_argv(url)]
    if _driver_present():  # a machine with a GPU serves it
        daemons.start(argv, ready=lambda: stats(url)["device"] == "cuda", deadline_s=30)
        return
    p = subprocess.run(argv, capture_output=True, text=True, timeout=60)
    assert p.returncode != 0
    assert "libcuda.so.1" in p.stderr and "--device sim" in p.stderr


def test_auto_uses_the_software_gpu_when_there_is_no_driver(daemons):
    url = free_url()
    argv = [a if a != "sim" else "auto" for a in server_argv(url)]
    daemons.start(argv, ready=lambda: stats(url)["ok"], deadline_s=30)
    assert stats(url)["device"] == ("cuda" if _driver_present() else "sim")
