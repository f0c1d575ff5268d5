"""Mapped ("zero-copy") host memory (libhook/src/memory/hostmem.c, server/pinned.py): on the server's
host the program's pinned segments are mapped into the device's address space — the software GPU maps
their pages into its arena, the cuda backend hands back the device pointer the driver gives for the
registered mapping — so kernels read and write the program's own pages; the program's own memory
registered mapped is moved into a segment first. Without shared memory (another host, RGPU_SHM=0)
the device says canMapHostMemory 0 and a mapped registration is refused, while a mapped allocation
still runs as managed memory. numba's mapped arrays are in tests/e2e/test_numba_suite.py."""
from __future__ import annotations

import os
import re

import pytest

from tests.conftest import run_cli
from tests.support.daemons import wait_until

pytestmark = pytest.mark.e2e


def _session_line(handle):
    return wait_until(lambda: (lambda f: f[-1] if f else None)(
        re.findall(r"event=session_ended .*", handle.output(400000))), 20, "session end")


@pytest.mark.parametrize("cudart", ["shared", "static"])
def test_kernels_read_and_write_mapped_host_memory_in_place(cuda_program, start_server, cudart):
    """`static`: NVIDIA's runtime inside the program maps through rgpu's driver (cuMemHostAlloc
    DEVICEMAP, cuMemHostGetDevicePointer, cuMemHostRegister DEVICEMAP)."""
    url, handle = start_server()
    p = run_cli("run", "--server", url, "--", str(cuda_program("driver_mapped_host", cudart=cudart)), "local")
    assert p.returncode == 0 and "OK driver_mapped_host local" in p.stdout, p.stdout + p.stderr
    line = _session_line(handle)
    # five segments mapped into the device (two allocations, a registration twice, cudaMallocHost)...
    assert len(re.findall(r"event=pinned_device_mapped ", handle.output(400000))) >= 5
    # ...and no data of theirs moved: the kernels' 20 KiB buffers never travelled (only the 16-byte copy)
    assert int(re.search(r"\bbytes_out=(\d+)", line).group(1)) < 4096, line
    assert "pinned_segments=0" in line  # every mapping undone at cudaFreeHost / cudaHostUnregister
    # the host's pages are no device memory: only the 16-byte cudaMalloc was charged (a mapped
    # allocation used to be managed memory, 20 KiB of the device's)
    assert int(re.search(r"\bmemory_peak=(\d+)", line).group(1)) < 16384, line


def test_without_shared_memory_the_device_cannot_map_host_memory(cuda_program, start_server):
    url, _handle = start_server()
    p = run_cli("run", "--server", url, "--", str(cuda_program("driver_mapped_host")), "remote",
                env={**os.environ, "RGPU_SHM": "0"})
    assert p.returncode == 0 and "OK driver_mapped_host remote" in p.stdout, p.stdout + p.stderr
    assert "canMapHostMemory 0" in p.stderr  # the refusal says why, by default
