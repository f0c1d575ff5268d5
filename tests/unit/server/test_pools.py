"""Stream-ordered memory pools at the dispatcher (server/api/pools.py), the same on every backend:
cudaMallocAsync takes from the current pool and is charged to the quota like cudaMalloc; a pool's
attributes (reuse policies, release threshold, the byte counters and their resets), its maximum
size, access descriptors, the default and current pools, and destroying a pool whose allocations
are still in use; other sessions' pools are invalid handles."""
from __future__ import annotations

import struct

import pytest

from rgpu.protocol.generated import enums
from rgpu.server.backends.sim.device import SimDevice
from rgpu.server.session import Session
from tests.unit.server.test_vmm import call, d, ok, quota_session  # noqa: F401  (d: the dispatcher fixture)

DRV = enums.cudaError_enum
MiB = 1 << 20
DEVICE = struct.pack("<ii", 1, 0)  # CUmemLocation: device 0
RELEASE_THRESHOLD, RESERVED_CURRENT, RESERVED_HIGH, USED_CURRENT, USED_HIGH = 4, 5, 6, 7, 8


def props(max_size: int = 0, location_type: int = 1) -> bytes:
    """CUmemPoolProps: allocType, handleTypes, location {type, id}, win32 pointer, maxSize, usage, reserved[54]."""
    return struct.pack("<iiii", 1, 0, location_type, 0) + struct.pack("<QQH", 0, max_size, 0) + bytes(54)


@pytest.fixture
def s():
    session = quota_session(4 * MiB)
    yield session
    session.close()


def attr(d, s, pool, a):
    return ok(call(d, s, "cuMemPoolGetAttribute", pool, a))


def test_async_allocations_come_from_the_current_pool_and_count(d, s):
    default = ok(call(d, s, "cuDeviceGetDefaultMemPool", 0))
    assert ok(call(d, s, "cuDeviceGetMemPool", 0)) == default
    assert ok(call(d, s, "cudaMemGetDefaultMemPool", DEVICE, 1)) == default
    a = ok(call(d, s, "cuMemAllocAsync", MiB, 0))
    b = ok(call(d, s, "cudaMallocAsync", MiB // 2, 0))
    assert attr(d, s, default, USED_CURRENT) >= 3 * MiB // 2 and s.quota["used"] >= 3 * MiB // 2
    assert attr(d, s, default, RESERVED_CURRENT) == attr(d, s, default, USED_CURRENT)
    # the quota holds for pools as for cudaMalloc
    assert call(d, s, "cuMemAllocAsync", 4 * MiB, 0).rc == DRV["CUDA_ERROR_OUT_OF_MEMORY"]
    ok(call(d, s, "cuMemFreeAsync", a, 0))
    ok(call(d, s, "cudaFree", b))  # cudaFree of an asynchronous allocation gives it back too
    assert attr(d, s, default, USED_CURRENT) == 0 and s.quota["used"] == 0
    assert attr(d, s, default, USED_HIGH) >= 3 * MiB // 2
    ok(call(d, s, "cuMemPoolSetAttribute", default, USED_HIGH, 0))  # a reset, to the current value
    assert attr(d, s, default, USED_HIGH) == 0


def test_created_pools_attributes_limits_and_destroy(d, s):
    pool = ok(call(d, s, "cudaMemPoolCreate", props(max_size=MiB)))
    assert attr(d, s, pool, 1) == 1 and attr(d, s, pool, RELEASE_THRESHOLD) == 0
    ok(call(d, s, "cuMemPoolSetAttribute", pool, RELEASE_THRESHOLD, 1 << 40))
    ok(call(d, s, "cuMemPoolSetAttribute", pool, 2, 0))
    assert attr(d, s, pool, RELEASE_THRESHOLD) == 1 << 40 and attr(d, s, pool, 2) == 0
    # counters are the pool's: they cannot be set, and high-water marks only reset to 0
    for a, v in ((USED_CURRENT, 0), (RESERVED_CURRENT, 5), (USED_HIGH, 7), (99, 0)):
        assert call(d, s, "cuMemPoolSetAttribute", pool, a, v).rc == DRV["CUDA_ERROR_INVALID_VALUE"]
    p = ok(call(d, s, "cuMemAllocFromPoolAsync", MiB // 2, pool, 0))
    # the pool's maximum size holds
    assert call(d, s, "cuMemAllocFromPoolAsync", MiB, pool, 0).rc == DRV["CUDA_ERROR_OUT_OF_MEMORY"]
    assert attr(d, s, pool, USED_CURRENT) == MiB // 2
    # made current, cudaMallocAsync takes from it; destroyed, the default is current again and the
    # allocation it made stays valid until freed
    ok(call(d, s, "cuDeviceSetMemPool", 0, pool))
    q = ok(call(d, s, "cudaMallocAsync", 4096, 0))
    assert attr(d, s, pool, USED_CURRENT) > MiB // 2
    ok(call(d, s, "cuMemPoolTrimTo", pool, 0))
    ok(call(d, s, "cuMemPoolDestroy", pool))
    default = ok(call(d, s, "cuDeviceGetDefaultMemPool", 0))
    assert ok(call(d, s, "cuDeviceGetMemPool", 0)) == default
    ok(call(d, s, "cuMemsetD8_v2", p, 1, MiB // 2))
    ok(call(d, s, "cuMemFreeAsync", p, 0))
    ok(call(d, s, "cuMemFreeAsync", q, 0))
    assert call(d, s, "cuMemPoolTrimTo", pool, 0).rc == DRV["CUDA_ERROR_INVALID_HANDLE"]
    assert call(d, s, "cuMemPoolDestroy", default).rc == DRV["CUDA_ERROR_INVALID_VALUE"]


def test_access_and_refusals(d, s):
    pool = ok(call(d, s, "cuMemPoolCreate", props()))
    ok(call(d, s, "cuMemPoolSetAccess", pool, struct.pack("<iiI", 1, 0, 3), 1))
    assert ok(call(d, s, "cuMemPoolGetAccess", pool, DEVICE)) == 3
    assert call(d, s, "cuMemPoolSetAccess", pool, struct.pack("<iiI", 1, 0, 9), 1).rc == DRV["CUDA_ERROR_INVALID_VALUE"]
    assert call(d, s, "cuMemPoolCreate", props(location_type=2)).rc == DRV["CUDA_ERROR_NOT_SUPPORTED"]
    assert call(d, s, "cuMemPoolCreate", b"short").rc == DRV["CUDA_ERROR_INVALID_VALUE"]
    other = Session(SimDevice(64 * MiB))
    try:
        assert call(d, other, "cuMemAllocFromPoolAsync", 4096, pool, 0).rc == DRV["CUDA_ERROR_INVALID_HANDLE"]
    finally:
        other.close()


def test_pools_their_settings_counters_and_allocations_go_through_a_checkpoint(d, s, tmp_path):
    """A move, a failover or an idle reclaim restores the session from a checkpoint: the pools come
    back behind their handles with their settings and counters, the current one still current, each
    allocation still its pool's (freed, it leaves that pool's count), and a destroyed pool's
    allocation still valid."""
    from rgpu.server.checkpoint import session as cksession
    from rgpu.server.checkpoint.image import Image
    default = ok(call(d, s, "cudaDeviceGetDefaultMemPool", 0))
    ok(call(d, s, "cuMemPoolSetAttribute", default, RELEASE_THRESHOLD, 1 << 30))
    a = ok(call(d, s, "cudaMallocAsync", 8192, 0))
    made = ok(call(d, s, "cudaMemPoolCreate", props(max_size=MiB)))
    gone = ok(call(d, s, "cudaMemPoolCreate", props()))
    g = ok(call(d, s, "cuMemAllocFromPoolAsync", 4096, gone, 0))
    ok(call(d, s, "cuMemPoolDestroy", gone))
    ok(call(d, s, "cuDeviceSetMemPool", 0, made))
    b = ok(call(d, s, "cudaMallocAsync", MiB // 4, 0))
    ok(call(d, s, "cuMemsetD8_v2", b, 7, 16))
    path = tmp_path / "pools.ckpt"
    cksession.capture(s, "sim").save(path)
    image = Image.load(path)
    t = Session(SimDevice(64 * MiB, window=image.meta["window"]), "b")
    try:
        cksession.restore(t, image, "sim")
        for x in (s, t):
            assert ok(call(d, x, "cuDeviceGetMemPool", 0)) == made
            assert ok(call(d, x, "cuDeviceGetDefaultMemPool", 0)) == default
            assert attr(d, x, default, RELEASE_THRESHOLD) == 1 << 30
            assert attr(d, x, default, USED_CURRENT) == 8192 and attr(d, x, made, USED_CURRENT) == MiB // 4
            # the maximum size still holds: MiB // 4 of MiB is taken
            assert call(d, x, "cudaMallocAsync", MiB, 0).rc == DRV["CUDA_ERROR_OUT_OF_MEMORY"]
            ok(call(d, x, "cuMemFreeAsync", b, 0))
            ok(call(d, x, "cuMemFreeAsync", a, 0))
            ok(call(d, x, "cuMemFreeAsync", g, 0))
            assert attr(d, x, made, USED_CURRENT) == 0 and attr(d, x, default, USED_CURRENT) == 0
            assert attr(d, x, made, USED_HIGH) == MiB // 4
            assert call(d, x, "cuMemPoolTrimTo", gone, 0).rc == DRV["CUDA_ERROR_INVALID_HANDLE"]
    finally:
        t.close()
