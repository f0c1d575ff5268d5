"""CUDA IPC at the dispatcher (server/api/ipc.py) on the software GPU, two sessions of one process
standing for two workers of one GPU: what a handle is, who may open it, the counting of opens and
closes, what a free or a session's end does to it; and the sim's shared pages (sim/sharing.py):
both sides see each other's writes at once, neighbours sharing a page keep their bytes, and a
closed range is fresh memory again."""
from __future__ import annotations

import os

import numpy as np
import pytest

from rgpu.protocol.generated import enums
from rgpu.server import ipc_registry
from rgpu.server.api.ipc import MAGIC, IpcState
from rgpu.server.backends.sim.device import SimDevice
from rgpu.server.checkpoint.image import CheckpointError
from rgpu.server.checkpoint.session import describe
from rgpu.server.session import Session
from tests.unit.server.test_vmm import call, d, ok  # noqa: F401  (d: the dispatcher fixture)

NAMES = {v: k for k, v in enums.cudaError_enum.items()}
MiB = 1 << 20
INTERPROCESS, DISABLE_TIMING = 0x4, 0x2


def _session(registry: str, sid: str, owner=("lease-a", 0, 0)) -> Session:
    s = Session(SimDevice(64 * MiB), sid)
    s.ipc = IpcState(registry, list(owner))
    return s


@pytest.fixture
def registry(tmp_path):
    return str(tmp_path)


@pytest.fixture
def pair(registry):
    a, b = _session(registry, "a"), _session(registry, "b")
    yield a, b
    b.close()
    a.close()


def rc(r) -> str:
    return NAMES[r.rc]


def filled(d, s, n: int, seed: int = 0):
    """An allocation of n bytes holding a pattern: (address, the bytes)."""
    p = ok(call(d, s, "cuMemAlloc_v2", n))
    data = (np.arange(n, dtype=np.uint32) * 7 + seed).astype(np.uint8).tobytes()
    ok(call(d, s, "cuMemcpyHtoD_v2", p, n, bulk=[data]))
    return p, data


def read(d, s, p: int, n: int) -> bytes:
    r = call(d, s, "cuMemcpyDtoH_v2", p, n)
    assert r.rc == 0, r.message
    return bytes(r.bulk[0]) if r.bulk else bytes(r.outs[-1])


def test_a_handle_is_rgpus_own_and_the_same_for_one_allocation(d, pair):
    a, _ = pair
    p, _ = filled(d, a, 10_000)
    h = ok(call(d, a, "cuIpcGetMemHandle", p))
    assert len(h) == 64 and h.startswith(MAGIC)
    assert ok(call(d, a, "cuIpcGetMemHandle", p)) == h
    assert ok(call(d, a, "cuIpcGetMemHandle", p + 4096)) == h, "an inner pointer names the same allocation"
    assert len(os.listdir(a.ipc.registry)) == 1


def test_another_session_sees_the_bytes_and_both_see_each_others_writes(d, pair):
    a, b = pair
    before, _ = filled(d, a, 1000, seed=1)  # neighbours that share the export's first and last pages
    p, data = filled(d, a, 3 * 4096 + 100, seed=2)
    after, _ = filled(d, a, 1000, seed=3)
    side = read(d, a, before, 1000), read(d, a, after, 1000)
    h = ok(call(d, a, "cuIpcGetMemHandle", p))
    q = ok(call(d, b, "cuIpcOpenMemHandle_v2", h, 1))
    assert read(d, b, q, len(data)) == data
    ok(call(d, b, "cuMemsetD8_v2", q + 10, 0xAB, 5000))
    assert read(d, a, p + 10, 5000) == b"\xab" * 5000, "the opener's write, seen by the exporter"
    ok(call(d, a, "cuMemsetD8_v2", p, 0x5C, 3))
    assert read(d, b, q, 3) == b"\x5c" * 3, "and the reverse"
    assert (read(d, a, before, 1000), read(d, a, after, 1000)) == side
    # the opener's allocation is exactly the export: a copy past it is refused
    assert rc(call(d, b, "cuMemcpyDtoH_v2", q, len(data) + 1)) == "CUDA_ERROR_INVALID_VALUE"
    assert ok(call(d, b, "cuMemGetAddressRange_v2", q + 5)) == [q, len(data)]


def test_opens_are_counted_and_closed_memory_is_fresh_again(d, pair):
    a, b = pair
    p, data = filled(d, a, 8192)
    h = ok(call(d, a, "cuIpcGetMemHandle", p))
    inner = ok(call(d, a, "cuIpcGetMemHandle", p + 100))
    q = ok(call(d, b, "cuIpcOpenMemHandle_v2", h, 0))
    assert ok(call(d, b, "cuIpcOpenMemHandle_v2", inner, 0)) == q, "one mapping at the base, counted"
    assert rc(call(d, b, "cuMemFree_v2", q)) == "CUDA_ERROR_INVALID_VALUE", "closed, not freed"
    ok(call(d, b, "cuIpcCloseMemHandle", q))
    assert read(d, b, q, 16) == data[:16], "still open once"
    ok(call(d, b, "cuIpcCloseMemHandle", q))
    assert rc(call(d, b, "cuIpcCloseMemHandle", q)) == "CUDA_ERROR_INVALID_VALUE"
    assert rc(call(d, b, "cuMemcpyDtoH_v2", q, 16)) == "CUDA_ERROR_INVALID_VALUE", "no longer device memory"
    # the range is the opener's again, as zero pages: a new allocation there does not see the export
    n = ok(call(d, b, "cuMemAlloc_v2", 8192))
    assert read(d, b, n, 8192) == bytes(8192)
    assert read(d, a, p, 8192) == data, "the exporter's memory untouched by the close"


def test_who_may_open_a_handle(d, registry):
    a = _session(registry, "a")
    others = {"another lease": ("lease-b", 0, 0), "another vGPU": ("lease-a", 1, 0), "another GPU": ("lease-a", 0, 1)}
    try:
        p, _ = filled(d, a, 4096)
        h = ok(call(d, a, "cuIpcGetMemHandle", p))
        for why, owner in others.items():
            s = _session(registry, why, owner)
            assert rc(call(d, s, "cuIpcOpenMemHandle_v2", h, 0)) == "CUDA_ERROR_INVALID_HANDLE", why
            s.close()
        assert rc(call(d, a, "cuIpcOpenMemHandle_v2", h, 0)) == "CUDA_ERROR_INVALID_CONTEXT", "its own"
        b = _session(registry, "b")
        assert rc(call(d, b, "cuIpcOpenMemHandle_v2", bytes(64), 0)) == "CUDA_ERROR_INVALID_VALUE", "zeros"
        assert rc(call(d, b, "cuIpcOpenMemHandle_v2", h, 2)) == "CUDA_ERROR_INVALID_VALUE", "unknown flags"
        forged = h[:8] + bytes(16) + h[24:]
        assert rc(call(d, b, "cuIpcOpenMemHandle_v2", forged, 0)) == "CUDA_ERROR_INVALID_HANDLE", "a made-up token"
        ok(call(d, b, "cuIpcOpenMemHandle_v2", h, 0))
        b.close()
    finally:
        a.close()


def test_a_handle_dies_with_its_allocation_and_its_session(d, registry):
    a, b = _session(registry, "a"), _session(registry, "b")
    try:
        p, _ = filled(d, a, 4096)
        k, _ = filled(d, a, 4096)
        h, hk = ok(call(d, a, "cuIpcGetMemHandle", p)), ok(call(d, a, "cuIpcGetMemHandle", k))
        ok(call(d, a, "cuMemFree_v2", p))
        assert rc(call(d, b, "cuIpcOpenMemHandle_v2", h, 0)) == "CUDA_ERROR_INVALID_HANDLE"
        q = ok(call(d, b, "cuIpcOpenMemHandle_v2", hk, 0))
        with pytest.raises(CheckpointError, match="CUDA IPC"):
            describe(b)  # neither side can be checkpointed or migrated while they share
        with pytest.raises(CheckpointError, match="CUDA IPC"):
            describe(a)
        a.close()
        assert os.listdir(registry) == []
        assert rc(call(d, b, "cuIpcOpenMemHandle_v2", hk, 0)) == "CUDA_ERROR_INVALID_HANDLE"
        ok(call(d, b, "cuIpcCloseMemHandle", q))
    finally:
        b.close()
        a.close()


def test_what_cannot_be_exported(d, pair):
    a, _ = pair
    assert rc(call(d, a, "cuIpcGetMemHandle", 0x1234)) == "CUDA_ERROR_INVALID_VALUE"
    m = ok(call(d, a, "cuMemAllocManaged", 4096, 1))
    assert rc(call(d, a, "cuIpcGetMemHandle", m)) == "CUDA_ERROR_INVALID_VALUE", "managed memory"
    pooled = ok(call(d, a, "cuMemAllocAsync", 4096, 0))
    assert rc(call(d, a, "cuIpcGetMemHandle", pooled)) == "CUDA_ERROR_INVALID_VALUE", "a pool's"


def test_event_handles(d, pair):
    a, b = pair
    assert rc(call(d, a, "cuEventCreate", INTERPROCESS)) == "CUDA_ERROR_INVALID_VALUE", "interprocess must not time"
    timed = ok(call(d, a, "cuEventCreate", 0))
    assert rc(call(d, a, "cuIpcGetEventHandle", timed)) == "CUDA_ERROR_INVALID_VALUE"
    e = ok(call(d, a, "cuEventCreate", INTERPROCESS | DISABLE_TIMING))
    ok(call(d, a, "cuEventRecord", e, 0))
    h = ok(call(d, a, "cuIpcGetEventHandle", e))
    assert h.startswith(MAGIC)
    p, _ = filled(d, a, 4096)
    assert rc(call(d, b, "cuIpcOpenMemHandle_v2", h, 0)) == "CUDA_ERROR_INVALID_VALUE", "an event's handle"
    assert rc(call(d, b, "cuIpcOpenEventHandle", ok(call(d, a, "cuIpcGetMemHandle", p)))) == "CUDA_ERROR_INVALID_VALUE"
    opened = ok(call(d, b, "cuIpcOpenEventHandle", h))
    ok(call(d, b, "cuStreamWaitEvent", 0, opened, 0))
    ok(call(d, b, "cuEventQuery", opened))
    assert rc(call(d, b, "cuEventElapsedTime_v2", opened, opened)) != "CUDA_SUCCESS", "no timing"
    ok(call(d, b, "cuEventDestroy_v2", opened))
    ok(call(d, a, "cuEventDestroy_v2", e))
    assert rc(call(d, b, "cuIpcOpenEventHandle", h)) == "CUDA_ERROR_INVALID_HANDLE", "gone with its event"


def test_a_worker_that_exits_leaves_no_handle(registry):
    ipc_registry.write(registry, b"\1" * 16, 4242, {"kind": 1})
    ipc_registry.write(registry, b"\2" * 16, 4343, {"kind": 1})
    ipc_registry.forget_pid(registry, 4242)
    assert ipc_registry.read(registry, b"\1" * 16, 4242) is None
    assert ipc_registry.read(registry, b"\2" * 16, 4343) == {"kind": 1}


def test_pages_once_shared_are_checkpointed_whole(d, pair):
    """A neighbour's bytes in a page that moved into the memory file are the file's: a checkpoint
    after the export ended must still find them written (this process's page tables need not)."""
    a, _ = pair
    p, _ = filled(d, a, 5000)
    y, ydata = filled(d, a, 1000, seed=9)  # in the export's last page
    ok(call(d, a, "cuIpcGetMemHandle", p))
    ok(call(d, a, "cuMemFree_v2", p))
    describe(a)  # nothing is shared any more: it may be checkpointed
    assert a.device.memory.written(y, 1000) == [(y, 1000)]
    assert read(d, a, y, 1000) == ydata


def test_a_killed_servers_directory_is_removed_by_the_next_server(tmp_path, monkeypatch):
    """A server killed outright cannot remove its handle directory; the next one started on the
    host removes those whose server is gone, and only those of its own pid namespace."""
    import subprocess
    import sys
    import tempfile
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    dead = subprocess.Popen([sys.executable, "-c", "pass"])
    dead.wait()
    killed = tmp_path / (ipc_registry.prefix(dead.pid) + "abc123")
    killed.mkdir()
    (killed / "token.4242").write_bytes(b"x")
    running = tmp_path / (ipc_registry.prefix() + "def456")  # this process: alive
    running.mkdir()
    unnamed = tmp_path / "rgpu-ipc-ghi789"  # an older server's name: nothing says whose it is
    unnamed.mkdir()
    elsewhere = tmp_path / f"rgpu-ipc-1-{dead.pid}-jkl012"  # another pid namespace's (a container's)
    elsewhere.mkdir()
    made = ipc_registry.make()
    assert not killed.exists()
    assert running.is_dir() and unnamed.is_dir() and elsewhere.is_dir()
    assert os.path.dirname(made) == str(tmp_path)
    assert os.path.basename(made).startswith(ipc_registry.prefix())
    assert os.stat(made).st_mode & 0o777 == 0o700
    ipc_registry.remove_all(made)
