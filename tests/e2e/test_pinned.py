"""Pinned host memory the workers map (libhook/src/memory/hostmem.c, server/pinned.py): copies from and
to it are exact, synchronous and asynchronous, on several streams and devices, and carry no data — the
server's log says how many bytes moved through pinned mappings, through the session segment and in
frames. A client that dies leaves no segment behind (that a stranger cannot make a worker map
someone else's segment is tests/security/test_pinned_segments.py)."""
from __future__ import annotations

import os
import re
import signal
import subprocess

import pytest

from rgpu.paths import client_env
from tests.support.daemons import wait_until
from tests.support.null_server import start as start_null_server
from benchmarks.native import run as native

pytestmark = pytest.mark.e2e

MIB = 1 << 20


def _run(exe, urls, *args, **env):
    e = client_env(urls)
    e.update(env)
    p = subprocess.Popen([str(exe), *args], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=e)
    p.stdout, p.stderr = p.communicate(timeout=300)
    return p


def _ended(handle, count=1):
    lines = wait_until(lambda: (lambda f: f if len(f) >= count else None)(
        re.findall(r"event=session_ended .*", handle.output(400000))), 20, "session end")
    return lines


def _field(line, name):
    return int(re.search(rf"\b{name}=(\d+)", line).group(1))


def _segments(pid=None):
    pre = f"rgpu-{pid}-h" if pid else "rgpu-"
    return sorted(f for f in os.listdir("/dev/shm") if f.startswith(pre) and "-h" in f)


@pytest.mark.parametrize("cudart", ["shared", "static"])
def test_pinned_copies_are_exact_and_move_no_data(cuda_program, start_server, cudart):
    """`static`: NVIDIA's runtime inside the program pins through rgpu's driver (cuMemHostAlloc)."""
    url, handle = start_server()
    exe = cuda_program("pinned_copies", cudart=cudart)
    p = _run(exe, [url], "8")
    assert p.returncode == 0 and "OK pinned_copies 1 device(s) 8 MiB" in p.stdout, p.stdout + p.stderr
    (line,) = _ended(handle)
    # H2D from pinned: 8 MiB sync + 4 MiB at an offset + 8 MiB on streams + 8 MiB then freed + the
    # shared buffer's 8 MiB; D2H into pinned: as many again, less the registered range's
    assert _field(line, "pinned_bytes_in") >= 36 * MIB, line
    assert _field(line, "pinned_bytes_out") >= 28 * MIB, line
    # the registered range (the staged path) is the only bulk data: through the session segment
    assert _field(line, "shm_bytes_in") <= 8 * MIB + 4096 and _field(line, "bytes_in") < MIB, line
    assert "pinned_segments=0" in line  # every segment was unmapped at its cudaFreeHost
    assert not _segments(p.pid), "the program's pinned segments are gone after its exit"


@pytest.mark.parametrize("fast, gbps", [("1", "0"), ("1", "2"), ("0", "0")])
def test_sync_pinned_copies_are_served_by_the_compiled_loop_on_the_cuda_backend(daemons, fast, gbps):
    """On the cuda backend (the null driver, on any host) a plain cudaMemcpy from or to pinned memory
    whose segment the worker has mapped goes on the call ring and is served by the worker's compiled
    loop (server/backends/cuda/native/copies.c, pinned_sync_one), waited for there. The native table's
    program (benchmarks/native/native_bench.cu) copies 16 MiB of cudaMallocHost memory up and down
    (a warm-up, then a round each way) and checks what came back; the bytes are counted as pinned, as
    Python counts them. The first copy naming the segment is Python's (it maps and registers it); with
    RGPU_FAST_COPY=0 every copy is (the loop's count holds its cudaMalloc and cudaFree too).
    `gbps` 2: each copy keeps the null driver's engine busy 8 ms (RGPU_NULL_COPY_GBPS), past the
    loop's poll: it waits in the driver's synchronize, and never hands a copy it queued to Python,
    which would run it again."""
    url, handle = start_null_server(daemons, env={"RGPU_FAST_COPY": fast, "RGPU_NULL_COPY_GBPS": gbps})
    p = _run(native.build(), [url], "--rows", "h2d_pinned_gbps,d2h_pinned_gbps", "--scale", "sim", "--rounds", "1")
    assert p.returncode == 0 and '"d2h_pinned_gbps"' in p.stdout, p.stdout + p.stderr
    (line,) = _ended(handle)
    copies = (_field(line, "pinned_bytes_in") + _field(line, "pinned_bytes_out")) // (16 * MIB)
    assert copies >= 11 and _field(line, "bytes_in") < MIB, line
    if fast == "1":
        assert _field(line, "copies_compiled") >= copies - 1, line
    else:
        assert _field(line, "copies_compiled") == 0, line


def test_pinned_memory_is_portable_across_two_servers(cuda_program, start_server):
    (a, ha), (b, hb) = start_server(), start_server()
    p = _run(cuda_program("pinned_copies"), [a, b], "4")
    assert p.returncode == 0 and "OK pinned_copies 2 device(s) 4 MiB" in p.stdout, p.stdout + p.stderr
    for h in (ha, hb):
        (line,) = _ended(h)
        assert _field(line, "pinned_bytes_in") >= 16 * MIB and _field(line, "bytes_in") < MIB, line


def test_without_shared_memory_pinned_copies_travel_in_frames(cuda_program, start_server):
    url, handle = start_server()
    p = _run(cuda_program("pinned_copies"), [url], "4", RGPU_SHM="0")
    assert p.returncode == 0 and "OK pinned_copies" in p.stdout, p.stdout + p.stderr
    (line,) = _ended(handle)
    assert _field(line, "pinned_bytes_in") == 0 and _field(line, "bytes_in") >= 16 * MIB, line


def test_a_client_that_dies_leaves_no_segment(cuda_program, start_server):
    """Killed while the worker has its pinned memory mapped: the worker unlinks the dead client's
    segments it mapped when the session ends, and the next program that pins memory sweeps the rest."""
    url, handle = start_server("--session-grace", "1")
    exe = cuda_program("pinned_copies")
    p = subprocess.Popen([str(exe), "256"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                         env=client_env([url]))
    try:
        wait_until(lambda: "event=pinned_mapped" in handle.output(200000), 120, "a pinned segment mapped")
    finally:
        p.send_signal(signal.SIGKILL)
        p.wait()
    assert _segments(p.pid)  # what the program had pinned (the worker may not have them all)
    (line,) = _ended(handle)
    assert "reason=client_gone" in line
    mapped = set(re.findall(r"event=pinned_mapped .*?name=/(\S+)", handle.output(400000)))
    assert mapped
    wait_until(lambda: not mapped & set(_segments(p.pid)), 10, "the worker unlinking what it had mapped")
    q = _run(exe, [url], "1")
    assert q.returncode == 0, q.stdout + q.stderr
    assert not _segments(p.pid), "the next program that pinned memory swept the rest"
