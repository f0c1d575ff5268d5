"""Pinned host memory on the cuda backend, without a GPU (server/pinned.py over
server/backends/cuda/device.py): the worker registers each mapped segment with the driver
(cuMemHostRegister, portable and device-mapped: mapped host memory is the driver's device pointer of
that registration) and copies between it and device memory with cuMemcpy*Async straight
from and to the mapping — asynchronous in stream order for the async calls, waited for by the sync
ones — and unregisters it at UNPIN and at the session's end.

The stand-in driver queues each copy and runs it only when the stream is synchronised, reading and
writing host memory through the pointer it was given, as a DMA engine does: what the program's buffer
holds at that moment is what arrives, which no staged copy could give. What only a GPU can confirm:
that the real driver accepts the registration of a shared mapping and DMAs at full speed from it."""
from __future__ import annotations

import ctypes
import os
import threading

import pytest

from rgpu.server.api import memory
from rgpu.server.backends.cuda import device as cuda_device, waits
from rgpu.server.errors import CudaError
from rgpu.server.pinned import PinnedHost
from rgpu.server import staging
from rgpu.server.dispatch import Dispatcher
from rgpu.server.session import Session
from rgpu.server.shm import DATA, Segment, boot_id
from rgpu.protocol.generated.calltable import BY_NAME
from tests.support import fakecuda, segments

FAKE = r"""
#include <stdio.h>
#include <string.h>
#include "rgpu_cuda.h"

static unsigned char devmem[4 << 20];           /* device memory at 0x7000000 */
#define DEV0 0x7000000ull
static struct { int h2d; void *host; CUdeviceptr dev; size_t n; CUstream s; } q[64];
static int nq, h2d_calls, d2h_calls, syncs;
static int behind;      /* copies given with work still queued before them (a pageable one waits in the call) */
static int event_syncs; /* waits that slept on an event */
static void *reg_ptr, *last_d2h; static size_t reg_size; static unsigned reg_flags; static int registered, unregistered;

int fake_pending(void) { return nq; }
int fake_syncs(void) { return syncs; }
int fake_behind(void) { return behind; }
int fake_event_syncs(void) { return event_syncs; }
int fake_registered(void) { return registered; }
int fake_unregistered(void) { return unregistered; }
void *fake_reg_ptr(void) { return reg_ptr; }
size_t fake_reg_size(void) { return reg_size; }
unsigned fake_reg_flags(void) { return reg_flags; }
void *fake_last_host(void) { return nq ? q[nq - 1].host : NULL; }
void *fake_last_d2h(void) { return last_d2h; }
unsigned char *fake_devmem(void) { return devmem; }

static void run_queue(void) {
    for (int i = 0; i < nq; i++) {
        unsigned char *d = devmem + (q[i].dev - DEV0);
        if (q[i].h2d) memcpy(d, q[i].host, q[i].n); else memcpy(q[i].host, d, q[i].n);
    }
    nq = 0;
    syncs++;
}
void fake_run_queue(void) { run_queue(); } /* the DMA engine finishes what is queued (a test's timer) */

""" + fakecuda.DEVICE + r"""
CUresult cuDeviceGet(CUdevice *d, int ordinal) { *d = ordinal; return CUDA_SUCCESS; }
CUresult cuDeviceTotalMem_v2(size_t *b, CUdevice d) { *b = sizeof devmem; return CUDA_SUCCESS; }
CUresult cuDeviceGetAttribute(int *v, CUdevice_attribute a, CUdevice d) { *v = a == 75 ? 9 : 0; return CUDA_SUCCESS; }
CUresult cuGetErrorName(CUresult e, const char **s) { *s = "CUDA_ERROR_INVALID_VALUE"; return CUDA_SUCCESS; }
CUresult cuMemAlloc_v2(CUdeviceptr *p, size_t n) { *p = DEV0; return CUDA_SUCCESS; }
CUresult cuMemFree_v2(CUdeviceptr p) { return CUDA_SUCCESS; }
CUresult cuStreamCreateWithPriority(CUstream *s, unsigned int f, int p) { *s = (CUstream)0x5100; return CUDA_SUCCESS; }
CUresult cuStreamDestroy_v2(CUstream s) { return CUDA_SUCCESS; }
CUresult cuStreamQuery(CUstream s) { return nq ? CUDA_ERROR_NOT_READY : CUDA_SUCCESS; }
CUresult cuStreamSynchronize(CUstream s) { run_queue(); return CUDA_SUCCESS; }
CUresult cuCtxSynchronize(void) { run_queue(); return CUDA_SUCCESS; }
/* the blocking-sync event a long wait sleeps on (cuda/waits.py): reached as a synchronize is */
CUresult cuEventCreate(CUevent *e, unsigned int f) { *e = (CUevent)0xE000; return CUDA_SUCCESS; }
CUresult cuEventRecord(CUevent e, CUstream s) { return CUDA_SUCCESS; }
CUresult cuEventSynchronize(CUevent e) { event_syncs++; run_queue(); return CUDA_SUCCESS; }
CUresult cuEventDestroy_v2(CUevent e) { return CUDA_SUCCESS; }
CUresult cuMemHostRegister_v2(void *p, size_t n, unsigned int flags) {
    reg_ptr = p, reg_size = n, reg_flags = flags, registered++;
    return CUDA_SUCCESS;
}
/* the registration's device address, for a registration made DEVICEMAP (at a device window of its own) */
#define MAPPED_AT 0x900000000ull
CUresult cuMemHostGetDevicePointer_v2(CUdeviceptr *d, void *p, unsigned int flags) {
    if (!registered || !(reg_flags & 2) || flags || (char *)p < (char *)reg_ptr || (char *)p >= (char *)reg_ptr + reg_size)
        return CUDA_ERROR_INVALID_VALUE;
    *d = MAPPED_AT + (CUdeviceptr)((char *)p - (char *)reg_ptr);
    return CUDA_SUCCESS;
}
CUresult cuMemHostUnregister(void *p) { unregistered += p == reg_ptr; return p == reg_ptr ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE; }
CUresult cuMemcpyHtoDAsync_v2(CUdeviceptr dst, const void *src, size_t n, CUstream s) {
    h2d_calls++;
    behind += nq > 0;
    q[nq].h2d = 1, q[nq].host = (void *)src, q[nq].dev = dst, q[nq].n = n, q[nq].s = s, nq++;
    return CUDA_SUCCESS;
}
CUresult cuMemcpyDtoHAsync_v2(void *dst, CUdeviceptr src, size_t n, CUstream s) {
    d2h_calls++;
    behind += nq > 0;
    last_d2h = dst;
    q[nq].h2d = 0, q[nq].host = dst, q[nq].dev = src, q[nq].n = n, q[nq].s = s, nq++;
    return CUDA_SUCCESS;
}
"""


@pytest.fixture(scope="module")
def fake_libcuda(tmp_path_factory):
    return fakecuda.build(tmp_path_factory.mktemp("fakepinned"), FAKE)


class _Session:
    def __init__(self, device):
        self.device = device


@pytest.fixture
def gpu(fake_libcuda, monkeypatch):
    monkeypatch.setenv("RGPU_LIBCUDA", str(fake_libcuda))
    monkeypatch.setattr(cuda_device, "_lib", None)
    dev = cuda_device.CudaDevice(0, 4 << 20)
    fake = ctypes.CDLL(str(fake_libcuda))
    for f in ("fake_reg_ptr", "fake_last_host", "fake_devmem", "fake_last_d2h"):
        getattr(fake, f).restype = ctypes.c_void_p
    fake.fake_reg_size.restype = ctypes.c_size_t
    return dev, fake


@pytest.fixture
def segment():
    """A pinned segment as the client library makes one: the nonce page, then the program's memory."""
    name = f"/rgpu-{os.getpid()}-h{os.urandom(8).hex()}"
    size = DATA + 65536
    nonce = segments.make(name, size)
    yield name, nonce, size
    segments.unlink(name)


def test_a_mapped_segment_is_registered_with_the_driver_portable(gpu, segment):
    dev, fake = gpu
    name, nonce, size = segment
    pinned = PinnedHost(_Session(dev))
    registered, unregistered = fake.fake_registered(), fake.fake_unregistered()
    view, addr = pinned.region([name, nonce, size, DATA, 4096])
    assert fake.fake_registered() == registered + 1
    assert fake.fake_reg_ptr() == addr - DATA and fake.fake_reg_size() == size  # the whole mapping
    assert fake.fake_reg_flags() == 3  # CU_MEMHOSTREGISTER_PORTABLE | CU_MEMHOSTREGISTER_DEVICEMAP
    pinned.region([name, nonce, size, DATA + 4096, 4096])
    assert fake.fake_registered() == registered + 1  # once per segment
    with pytest.raises(CudaError):
        pinned.region([name, b"x" * 16, size, DATA, 4096])  # another nonce under the same name
    assert pinned.drop(name) and fake.fake_unregistered() == unregistered + 1


def test_map_host_hands_back_the_drivers_device_pointer_of_the_registration(gpu, segment):
    """Mapped host memory (MAP_HOST): the device address is the one the driver gives for the segment's
    first data byte in the registration copies already use; no second registration is made, and
    UNPIN takes the mapping away with the registration."""
    dev, fake = gpu
    name, nonce, size = segment
    pinned = PinnedHost(_Session(dev))
    registered, unregistered = fake.fake_registered(), fake.fake_unregistered()
    assert pinned.device_map(name, nonce, size) == 0x900000000 + DATA
    assert pinned.device_map(name, nonce, size) == 0x900000000 + DATA  # once per segment
    assert fake.fake_registered() == registered + 1
    with pytest.raises(CudaError):
        pinned.device_map(name, b"y" * 16, size)  # another nonce under the same name
    assert pinned.drop(name) and fake.fake_unregistered() == unregistered + 1 and not pinned.maps


def test_async_copies_dma_from_and_to_the_mapping_in_stream_order(gpu, segment):
    dev, fake = gpu
    name, nonce, size = segment
    pinned = PinnedHost(_Session(dev))
    d = dev.mem_alloc(65536)
    stream = dev.stream_create(0, 0)
    view, addr = pinned.region([name, nonce, size, DATA, 4096])
    view[:] = b"a" * 4096
    memory._copy(_Session(dev), memory.H2D, d, 0, 4096, stream, (), (view, addr), False)
    # queued, not waited for: the driver holds the program's own buffer, not a copy of it
    assert fake.fake_pending() == 1 and fake.fake_last_host() == addr
    view[:16] = b"b" * 16  # (a program may not do this; the stand-in shows no staging copy was made)
    out, out_addr = pinned.region([name, nonce, size, DATA + 8192, 4096])
    memory._copy(_Session(dev), memory.D2H, 0, d, 4096, stream, (), (out, out_addr), False)
    assert fake.fake_pending() == 2 and fake.fake_last_host() == out_addr
    assert bytes(out[:4]) == b"\0\0\0\0"  # nothing has landed before the stream is synchronised
    dev.stream_synchronize(stream)
    assert bytes(out) == b"b" * 16 + b"a" * 4080  # DMA'd from the mapping at its turn, then back


def test_sync_copies_wait_and_unpin_unregisters(gpu, segment):
    dev, fake = gpu
    name, nonce, size = segment
    pinned = PinnedHost(_Session(dev))
    d = dev.mem_alloc(65536)
    view, addr = pinned.region([name, nonce, size, DATA, 1024])
    view[:] = bytes(range(256)) * 4
    memory._copy(_Session(dev), memory.H2D, d, 0, 1024, None, (), (view, addr))  # cudaMemcpy: waits
    assert fake.fake_pending() == 0
    devmem = (ctypes.c_ubyte * 1024).from_address(fake.fake_devmem())
    assert bytes(devmem) == bytes(range(256)) * 4
    with pytest.raises(CudaError):  # a region of another length than the copy
        memory._copy(_Session(dev), memory.H2D, d, 0, 2048, None, (), (view, addr))
    before = fake.fake_unregistered()
    pinned.close()
    assert fake.fake_unregistered() == before + 1 and not pinned.maps


def _with_segment(s):
    """`s` with a 16 MiB session segment (server/shm.py) attached, as a client on this host offers it."""
    name = f"/rgpu-{os.getpid()}-0-{os.urandom(4).hex()}"
    nonce = segments.make(name, 16 << 20)
    try:
        s.shm, why = Segment.attach({"name": name, "size": 16 << 20, "nonce": nonce, "boot": boot_id()})
        assert s.shm is not None, why
    finally:
        segments.unlink(name)
    return s


def test_a_staged_d2h_copy_is_dma_d_into_the_registered_session_segment(gpu):
    """The session segment (server/shm.py) is registered with the driver when a large staged copy first
    needs it (its used prefix, growing by doubling: registering allocates the pages); a sync D2H copy
    through it is written there by the driver itself, its reply naming the region, not carrying data."""
    dev, fake = gpu
    s = _with_segment(Session(dev, "s"))
    seg = s.shm
    registered = fake.fake_registered()
    d = dev.mem_alloc(2 << 20)
    run = Dispatcher("cuda").run
    small = staging._run_d2h_placed(s, run, BY_NAME["cuMemcpyDtoH_v2"], [d, 4096], 8 << 20)
    assert small.rc == 0 and type(small.bulk) is not staging.Placed  # a small copy: not worth registering
    assert fake.fake_registered() == registered
    n = 1 << 20
    devmem = (ctypes.c_ubyte * n).from_address(fake.fake_devmem())
    devmem[:] = list(range(256)) * (n // 256)
    res = staging._run_d2h_placed(s, run, BY_NAME["cuMemcpyDtoH_v2"], [d, n], 8 << 20)
    assert fake.fake_registered() == registered + 1 and fake.fake_reg_ptr() == seg.addr
    assert fake.fake_reg_size() == 4 << 20  # the used prefix, not the whole 16 MiB segment
    assert res.rc == 0 and list(res.bulk) == [[DATA, n]]
    assert fake.fake_last_d2h() == seg.addr + DATA and fake.fake_pending() == 0  # into the segment, waited for
    assert bytes(seg.view[DATA:DATA + n]) == bytes(range(256)) * (n // 256)
    staging.close_shm(s)
    assert fake.fake_unregistered() >= 1 and s.shm is None


def test_a_staged_out_d2h_copy_is_dma_d_into_the_segment_chunk_by_chunk(gpu, monkeypatch):
    """RGPU_SHM_PIPELINE's D2H half (staging._run_staged_out): each chunk is DMA'd into the registered
    session segment and waited for, then the segment's progress words say how much is in place, so
    the client copies it out while the next chunk is written; the reply names the whole region."""
    import struct
    dev, fake = gpu
    s = _with_segment(Session(dev, "s"))
    seg = s.shm
    n = 3 << 20
    d = dev.mem_alloc(n)
    devmem = (ctypes.c_ubyte * n).from_address(fake.fake_devmem())
    devmem[:] = list(range(251)) * (n // 251) + list(range(n % 251))
    monkeypatch.setattr(staging, "STAGE_CHUNK", 1 << 20)
    run = Dispatcher("cuda").run
    seen = []
    real_run = run

    def watching(session, call_id, args, bulk, host=None):
        seen.append((struct.unpack_from("<QQ", seg.view, 32), host[1] if host else None))
        return real_run(session, call_id, args, bulk, host)
    res = staging._run_staged_out(s, watching, BY_NAME["cuMemcpyDtoH_v2"], [d, n], n, 77, True, Dispatcher("cuda"))
    assert res.rc == 0 and list(res.bulk) == [[DATA, n]]
    # each chunk straight into its place in the segment, after the words said the ones before it arrived;
    # the copy's seq only once its first chunk is in place (until then the client waits asleep: on a GPU
    # the first chunk may wait seconds behind queued kernels, and a client told "started" spins)
    assert seen == [((0, 0), seg.addr + DATA)] + [((77, k << 20), seg.addr + DATA + (k << 20)) for k in (1, 2)]
    assert struct.unpack_from("<QQ", seg.view, 32) == (77, n) and fake.fake_pending() == 0
    assert bytes(seg.view[DATA:DATA + n]) == bytes(devmem)
    # an async copy into pageable memory comes as a sync call: each chunk is waited for on its stream
    # (the stand-in runs a stream's copies only then) before the words say it is in place
    stream_h = s.new_handle("stream", dev.stream_create(0, 0))
    seg.view[DATA:DATA + n] = bytes(n)
    seen.clear()
    res = staging._run_staged_out(s, watching, BY_NAME["cuMemcpyDtoHAsync_v2"], [d, n, stream_h], n, 79, True,
                                 Dispatcher("cuda"))
    assert res.rc == 0 and list(res.bulk) == [[DATA, n]] and fake.fake_pending() == 0
    assert [w for w, _addr in seen] == [(77, 0), (79, 1 << 20), (79, 2 << 20)]  # the last copy's seq, nothing in place
    assert bytes(seg.view[DATA:DATA + n]) == bytes(devmem)
    # past the end of the allocation: the handler's error, nothing staged
    bad = staging._run_staged_out(s, run, BY_NAME["cuMemcpyDtoH_v2"], [d, n + 4096], n + 4096, 78, True, Dispatcher("cuda"))
    assert bad.rc != 0 and struct.unpack_from("<Q", seg.view, 32) == (79,)
    staging.close_shm(s)


def test_a_pageable_copy_behind_queued_work_waits_for_it_asleep_before_it_is_issued(gpu, segment):
    """A copy from or to the worker's own (pageable) memory waits for its stream inside the driver's
    copy call, spinning a CPU; behind queued work the stream is first waited for as a synchronize
    is (cuda/waits.py: asleep on a blocking-sync event), so the copy call has nothing to wait for."""
    dev, fake = gpu
    name, nonce, size = segment
    pinned = PinnedHost(_Session(dev))
    d = dev.mem_alloc(65536)
    view, addr = pinned.region([name, nonce, size, DATA, 4096])
    view[:] = b"q" * 4096
    memory._copy(_Session(dev), memory.H2D, d, 0, 4096, None, (), (view, addr), False)
    assert fake.fake_pending() == 1  # queued: a pageable copy now would wait behind it
    behind, slept = fake.fake_behind(), fake.fake_event_syncs()
    assert bytes(dev.copy_dtoh(d, 4096, None)) == b"q" * 4096
    dev.copy_htod(d, b"r" * 16, None)
    assert fake.fake_behind() == behind and fake.fake_event_syncs() > slept


@pytest.mark.parametrize("nbytes, polled", [(65536, True), (1024, False)], ids=["as long as its DMA", "small"])
def test_a_sync_copy_is_polled_for_as_long_as_its_dma_can_take(gpu, segment, monkeypatch, nbytes, polled):
    """A synchronous copy is waited for by polling for about as long as a slow link takes to move
    it (waits.copy_spin_s): it is answered the moment its DMA ends, with no blocking-sync event and
    no thread's wake-up in between. A copy still not done past that is behind other work: it sleeps.
    Here the link's rate is scaled down so that the stand-in's DMA, which ends 30 ms after the call,
    is within the 64 KiB copy's polling and past the 1 KiB one's."""
    monkeypatch.setattr(waits, "COPY_POLL_RATE", 65536 / 0.3)  # 64 KiB: polled for 0.3 s at most,
    monkeypatch.setattr(waits, "COPY_POLL_MAX_S", 0.5)  # 1 KiB for 5 ms
    dev, fake = gpu
    name, nonce, size = segment
    pinned = PinnedHost(_Session(dev))
    d = dev.mem_alloc(65536)
    view, addr = pinned.region([name, nonce, size, DATA, nbytes])
    view[:] = b"p" * nbytes
    slept = fake.fake_event_syncs()
    timer = threading.Timer(0.03, fake.fake_run_queue)
    timer.start()
    try:
        memory._copy(_Session(dev), memory.H2D, d, 0, nbytes, None, (), (view, addr))  # cudaMemcpy: waits
    finally:
        timer.join()
    assert fake.fake_pending() == 0
    assert bytes((ctypes.c_ubyte * nbytes).from_address(fake.fake_devmem())) == b"p" * nbytes
    assert (fake.fake_event_syncs() == slept) == polled
