"""Host memory the cuda backend registers with the driver, on the null driver
(benchmarks/native/nulldriver.c) in a process of its own that loaded it, as a worker does. The null
driver keeps registrations as the driver does: a range overlapping one still registered is refused,
and so is unregistering anything but a registered range's start, or asking a device pointer for host
memory not registered. A session's call ring (1.07 MiB at its segment's end) is registered beside the
segment's staged region, which grows up to where the ring begins (server/staging.py register_ring,
_dma_ready), so the driver reads the frames the compiled loop copies from the ring by DMA; closing
the segment releases both; RGPU_RING_REGISTER=0 leaves it pageable."""
from __future__ import annotations

from tests.support.null_server import script_result


PRELUDE = """
import json, mmap, os, types
from rgpu.server.backends.cuda import device
from rgpu.server.errors import CudaError

dev = device.CudaDevice(0, 1 << 30)

def refused(fn, *args):
    # the driver's error name, or None where it was accepted
    try:
        fn(*args)
    except CudaError as e:
        return e.code
    return None
"""


def run(body: str) -> dict:
    return script_result(PRELUDE, body)


def test_the_null_driver_keeps_registrations_as_the_driver_does():
    out = run("""
        mm = mmap.mmap(-1, 8 << 20)
        import ctypes
        a = ctypes.addressof(ctypes.c_char.from_buffer(mm))
        MiB = 1 << 20
        got = {
            "first": refused(dev.host_register, a, 4 * MiB),
            "inside": refused(dev.host_register, a + MiB, MiB),
            "straddling": refused(dev.host_register, a + 3 * MiB, 2 * MiB),
            "empty": refused(dev.host_register, a + 6 * MiB, 0),
            "adjacent": refused(dev.host_register, a + 4 * MiB, MiB),
        }
        # a device pointer only for registered host memory (0: CUDA_SUCCESS, 1: CUDA_ERROR_INVALID_VALUE)
        d = device._ffi.new("CUdeviceptr *")
        for what, at in (("devptr_registered", a + 4 * MiB + 100), ("devptr_unregistered", a + 6 * MiB)):
            got[what] = device._lib.cuMemHostGetDevicePointer_v2(d, device._ffi.cast("void *", at), 0)
        got["devptr_is_host"] = int(d[0]) == a + 4 * MiB + 100
        got |= {
            "not_a_start": refused(dev.host_unregister, a + MiB),
            "unregister_first": refused(dev.host_unregister, a),
            "again": refused(dev.host_unregister, a),
            "inside_after": refused(dev.host_register, a + MiB, MiB),
        }
        print(json.dumps(got))
    """)
    assert out == {"first": None, "inside": "CUDA_ERROR_HOST_MEMORY_ALREADY_REGISTERED",
                   "straddling": "CUDA_ERROR_HOST_MEMORY_ALREADY_REGISTERED", "empty": "CUDA_ERROR_INVALID_VALUE",
                   "adjacent": None, "devptr_registered": 0, "devptr_unregistered": 1, "devptr_is_host": True,
                   "not_a_start": "CUDA_ERROR_HOST_MEMORY_NOT_REGISTERED",
                   "unregister_first": None, "again": "CUDA_ERROR_HOST_MEMORY_NOT_REGISTERED",
                   "inside_after": None}, out


def test_a_sessions_ring_is_registered_beside_its_staged_region_and_released_with_the_segment():
    out = run("""
        from rgpu.server import staging
        from rgpu.server.ring import layout
        from rgpu.server.shm import Segment
        size = 32 << 20
        ring_size = layout()["size"]
        seg = Segment(mmap.mmap(-1, size), size)
        seg.size = size - ring_size  # where the ring begins, as CallRing.attach leaves it
        ring = types.SimpleNamespace(offset=size - ring_size, size=ring_size)
        session = types.SimpleNamespace(ring=ring, shm=seg, device=dev)
        ring_at = seg.addr + ring.offset
        got = {"registered": staging.register_ring(session)}
        got["ring_held"] = refused(dev.host_register, ring_at, 4096)
        # the staged region grows to the segment's whole size, up to the ring and not into it
        got["staged"] = staging._dma_ready(session, seg, seg.size)
        got["staged_len"] = seg.reg_len == seg.size
        got["segment_held"] = refused(dev.host_register, seg.addr, 4096)
        staging.close_shm(session)
        got["ring_free"] = refused(dev.host_register, ring_at, 4096)
        got["segment_free"] = refused(dev.host_register, seg.addr, 4096)
        # a session without a ring, or on a device that registers nothing, registers none
        got["no_ring"] = staging.register_ring(types.SimpleNamespace(ring=None, shm=seg, device=dev))
        got["no_dma"] = staging.register_ring(types.SimpleNamespace(
            ring=ring, shm=seg, device=types.SimpleNamespace(registers_host=False)))
        # RGPU_RING_REGISTER=0, for comparisons: the ring stays pageable
        os.environ["RGPU_RING_REGISTER"] = "0"
        got["switched_off"] = staging.register_ring(types.SimpleNamespace(ring=ring, shm=seg, device=dev))
        print(json.dumps(got))
    """)
    assert out == {"switched_off": False, "registered": True, "ring_held": "CUDA_ERROR_HOST_MEMORY_ALREADY_REGISTERED",
                   "staged": True, "staged_len": True,
                   "segment_held": "CUDA_ERROR_HOST_MEMORY_ALREADY_REGISTERED",
                   "ring_free": None, "segment_free": None, "no_ring": False, "no_dma": False}, out
