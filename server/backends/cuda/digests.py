"""Digests of a session's memory taken on its GPU, for the checkpoint copier (server/checkpoint/memory.py).

A --failover checkpoint after the first sends only the chunks (256 KiB) whose contents changed, and a
live migration's pre-copy rounds and stop-and-copy likewise: a GPU cannot say what its kernels wrote,
so every chunk is compared with a digest of what was sent. Taken on the host, that is a read of all
of the session's memory over PCIe and a digest at the host's speed (about 14 GB/s here) in every
such pass: the pause grows with the memory, not with what changed, and each pre-copy round takes the
PCIe link from the program for as long. Taken here, one kernel reads every chunk at the GPU's own
bandwidth and only 16 bytes a chunk cross to the host; the host then reads only the chunks whose
digest changed. A pre-copy round runs it on its own thread while the program runs: no piece is
freed under it (placement.py's _no_frees holds Python's frees and the compiled loop's). The
function is server/native/device_digest.h's (256 threads a chunk, their states folded in a fixed
tree); tests/unit/sim/test_device_digest.py runs this PTX on the software GPU against it, bit for
bit.

The kernel is loaded into the session's context but is not the session's: it is in none of the
device's tables, so no checkpoint, move or handle of the program's sees it, and its scratch memory
(32 bytes a chunk) is the server's, outside the arena and the quota. Anything the driver refuses
(no PTX JIT, a GPU this PTX version cannot target, memory) turns it off for the session with one log
line, and the copier reads and digests on the host as before; `RGPU_DEVICE_DIGEST=0` turns it off."""
from __future__ import annotations

import os

import numpy as np
import structlog

from ...errors import CudaError

log = structlog.get_logger("rgpu.server.cuda.digests")

THREADS = 256  # RGPU_DIGEST_THREADS: the kernel's block, which its reduction assumes

# rgpu_chunk_digests(ranges, out, count): block b digests the chunk ranges[b] = {address, length}
# into out[b] = {two 64-bit words}. Thread t folds 16-byte words t, t + 256, ... of the chunk (loads
# coalesced across the block); the thread after the last whole word takes the tail byte by byte,
# zero-padded (a chunk may end anywhere inside its allocation, and nothing past it may be read); the
# 256 states meet in shared memory in a fixed tree.
PTX = r"""
.version 7.0
.target sm_75
.address_size 64

// fold(a, b): the 128-bit product's halves xored (device_digest.h's rgpu_dd_fold)
.func (.reg .b64 out) fold(.reg .b64 a, .reg .b64 b)
{
    .reg .b64 lo, hi;
    mul.lo.u64 lo, a, b;
    mul.hi.u64 hi, a, b;
    xor.b64 out, lo, hi;
    ret;
}

.visible .entry rgpu_chunk_digests(.param .u64 ranges, .param .u64 out, .param .u32 count)
.reqntid 256, 1, 1
{
    .reg .pred %p<10>;
    .reg .b32 %r<12>;
    .reg .b64 %rd<48>;
    .shared .align 8 .b64 states[256];

    mov.u32 %r1, %ctaid.x;
    mov.u32 %r2, %tid.x;
    ld.param.u64 %rd1, [ranges];
    ld.param.u64 %rd2, [out];
    ld.param.u32 %r3, [count];
    setp.ge.u32 %p1, %r1, %r3;
    @%p1 bra DONE;
    cvta.to.global.u64 %rd1, %rd1;
    cvta.to.global.u64 %rd2, %rd2;
    mul.wide.u32 %rd3, %r1, 16;
    add.u64 %rd4, %rd1, %rd3;
    ld.global.u64 %rd5, [%rd4];
    ld.global.u64 %rd6, [%rd4+8];
    mov.u64 %rd10, 0x6a09e667f3bcc909;
    mov.u64 %rd11, 0xbb67ae8584caa73b;
    mov.u64 %rd12, 0x3c6ef372fe94f82b;
    mov.u64 %rd13, 0xa54ff53a5f1d36f1;
    shr.u64 %rd7, %rd6, 4;
    cvt.u64.u32 %rd8, %r2;
    mul.lo.u64 %rd20, %rd8, %rd11;
    xor.b64 %rd20, %rd20, %rd10;
WORDS:
    setp.ge.u64 %p2, %rd8, %rd7;
    @%p2 bra TAIL;
    shl.b64 %rd9, %rd8, 4;
    add.u64 %rd14, %rd5, %rd9;
    ld.global.u64 %rd15, [%rd14];
    ld.global.u64 %rd16, [%rd14+8];
    xor.b64 %rd17, %rd20, %rd15;
    xor.b64 %rd18, %rd16, %rd12;
    call (%rd20), fold, (%rd17, %rd18);
    add.u64 %rd8, %rd8, 256;
    bra WORDS;
TAIL:
    and.b64 %rd22, %rd6, 15;
    setp.eq.u64 %p3, %rd22, 0;
    @%p3 bra REDUCE;
    and.b64 %rd23, %rd7, 255;
    cvt.u64.u32 %rd24, %r2;
    setp.ne.u64 %p4, %rd23, %rd24;
    @%p4 bra REDUCE;
    shl.b64 %rd9, %rd7, 4;
    add.u64 %rd14, %rd5, %rd9;
    mov.u64 %rd15, 0;
    mov.u64 %rd16, 0;
    mov.u64 %rd25, 0;
BYTES:
    setp.ge.u64 %p5, %rd25, %rd22;
    @%p5 bra FOLD_TAIL;
    add.u64 %rd26, %rd14, %rd25;
    ld.global.u8 %r5, [%rd26];
    cvt.u64.u32 %rd27, %r5;
    cvt.u32.u64 %r6, %rd25;
    and.b32 %r6, %r6, 7;
    shl.b32 %r6, %r6, 3;
    shl.b64 %rd27, %rd27, %r6;
    setp.lt.u64 %p6, %rd25, 8;
    @%p6 or.b64 %rd15, %rd15, %rd27;
    @!%p6 or.b64 %rd16, %rd16, %rd27;
    add.u64 %rd25, %rd25, 1;
    bra BYTES;
FOLD_TAIL:
    xor.b64 %rd17, %rd20, %rd15;
    xor.b64 %rd18, %rd16, %rd12;
    call (%rd20), fold, (%rd17, %rd18);
REDUCE:
    mov.u64 %rd30, states;
    mul.wide.u32 %rd31, %r2, 8;
    add.u64 %rd32, %rd30, %rd31;
    st.shared.u64 [%rd32], %rd20;
    mov.u32 %r9, 128;
LEVEL:
    bar.sync 0;
    setp.ge.u32 %p7, %r2, %r9;
    @%p7 bra NEXT;
    mul.wide.u32 %rd33, %r9, 8;
    add.u64 %rd34, %rd32, %rd33;
    ld.shared.u64 %rd35, [%rd32];
    ld.shared.u64 %rd36, [%rd34];
    xor.b64 %rd17, %rd35, %rd10;
    xor.b64 %rd18, %rd36, %rd11;
    call (%rd37), fold, (%rd17, %rd18);
    st.shared.u64 [%rd32], %rd37;
NEXT:
    shr.u32 %r9, %r9, 1;
    setp.ne.u32 %p8, %r9, 0;
    @%p8 bra LEVEL;
    setp.ne.u32 %p9, %r2, 0;
    @%p9 bra DONE;
    ld.shared.u64 %rd35, [%rd32];
    xor.b64 %rd17, %rd35, %rd12;
    xor.b64 %rd18, %rd6, %rd13;
    call (%rd38), fold, (%rd17, %rd18);
    add.u64 %rd39, %rd2, %rd3;
    st.global.u64 [%rd39], %rd38;
    st.global.u64 [%rd39+8], %rd35;
DONE:
    ret;
}
"""

NAME = b"rgpu_chunk_digests"


def enabled() -> bool:
    return os.environ.get("RGPU_DEVICE_DIGEST", "1") != "0"


class DeviceDigests:
    """The kernel and its scratch in one context, made by `prepare` (off the pause: the first
    checkpoint, a move's pre-copy; loading PTX makes the driver compile it); `take` answers None
    once anything of it failed (the copier then digests on the host)."""

    def __init__(self, ffi, lib, check, stream):
        """`stream`: where its copies and launches go (placement.py's side stream: the program's
        work is not waited for)."""
        self.ffi, self.lib, self.check, self.stream = ffi, lib, check, stream
        self.func = None
        self.module = None
        self.off = not enabled()
        self.scratch = 0  # device memory: `cap` ranges, then `cap` digests (16 bytes each)
        self.cap = 0

    def _ready(self, n: int) -> None:
        ffi, lib, check = self.ffi, self.lib, self.check
        if self.func is None:
            m = ffi.new("CUmodule *")
            check(lib.cuModuleLoadData(m, ffi.from_buffer(PTX.encode() + b"\0")))
            self.module = m[0]
            f = ffi.new("CUfunction *")
            check(lib.cuModuleGetFunction(f, self.module, NAME))
            self.func = f[0]
        if n > self.cap or not self.scratch:
            if self.scratch:
                check(lib.cuMemFree_v2(self.scratch))
                self.scratch, self.cap = 0, 0
            cap = max(2 * n, 1024)  # room to grow: a new scratch costs the pause a free and an allocation
            p = ffi.new("CUdeviceptr *")
            check(lib.cuMemAlloc_v2(p, 32 * cap))
            self.scratch, self.cap = int(p[0]), cap

    def prepare(self, n: int) -> None:
        """The kernel loaded and scratch for `n` pieces, and one launch made (the driver's and cffi's
        first calls cost milliseconds each): what the next `take` of up to `n` pieces then costs is the
        digests' own time. The context is current."""
        if not self.off:
            self._run(lambda: self._ready(n) or self._launch(np.array([[self.scratch, 16]], dtype=np.uint64)))

    def take(self, ranges: np.ndarray) -> np.ndarray | None:
        """The 16-byte digests (an n x 16 uint8 array) of `ranges` (an n x 2 uint64 array of address,
        length, each piece allocated: the caller holds the free lock), in order; None when this GPU's
        digests are off. The context is current."""
        if self.off:
            return None
        if not len(ranges):
            return np.zeros((0, 16), np.uint8)
        return self._run(lambda: self._ready(len(ranges)) or self._launch(ranges))

    def _launch(self, ranges: np.ndarray) -> np.ndarray:
        ffi, lib, check = self.ffi, self.lib, self.check
        n = len(ranges)
        ranges = np.ascontiguousarray(ranges, dtype=np.uint64)
        s = self.stream
        check(lib.cuMemcpyHtoDAsync_v2(self.scratch, ffi.from_buffer(ranges), 16 * n, s))
        out_d = self.scratch + 16 * self.cap
        args = [ffi.new("uint64_t *", self.scratch), ffi.new("uint64_t *", out_d), ffi.new("uint32_t *", n)]
        params = ffi.new("void *[3]", [ffi.cast("void *", a) for a in args])
        check(lib.cuLaunchKernel(self.func, n, 1, 1, THREADS, 1, 1, 0, s, params, ffi.NULL))
        out = np.empty((n, 16), np.uint8)
        check(lib.cuMemcpyDtoHAsync_v2(ffi.from_buffer(out), out_d, 16 * n, s))
        check(lib.cuStreamSynchronize(s))
        return out

    def _run(self, work):
        try:
            return work()
        except (CudaError, AttributeError) as e:  # AttributeError: a driver without one of these calls
            # a failed launch may leave the context's error sticky: that is the session's end either
            # way, and the next call says so; anything else only turns this off
            self.off = True
            log.warning("device_digest_off", reason=getattr(e, "message", None) or str(e))
            return None

    def close(self) -> None:
        if self.scratch:
            self.lib.cuMemFree_v2(self.scratch)
            self.scratch = 0
        if self.module is not None:
            self.lib.cuModuleUnload(self.module)
            self.module = None
