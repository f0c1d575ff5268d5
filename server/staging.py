"""The same-host copy paths of a session worker: data through the client's shared segment (server/shm.py)
— staged whole, or chunk by chunk while the client copies the next chunk in or out (libhook's
stage_progressive and take_early) — and copies straight between the program's pinned memory
(server/pinned.py) and the device, with the segment registered with a device that DMAs. worker.py's
_serve picks the path from the call's shared-memory element (protocol/wire.py)."""
from __future__ import annotations

import os
import struct
import time

import structlog

from rgpu.protocol.wire import Shm

from .copy_calls import copy_of
from .dispatch import Result
from .errors import CudaError, code_for
from .shm import DATA


def _pinned_region(session, pin):
    """(view, address) of the pinned region a copy names (server/pinned.py), or the Result refusing it."""
    if session.shm is None:  # the session segment is the proof of the same host
        return Result(1, message="pinned host memory named, but the client is not on this host")
    try:
        return session.pinned.region(pin)
    except CudaError as e:
        return Result(1, message=e.message)


def run_pinned(session, run, call_id, args, pin) -> Result:
    """A copy whose host side is the program's pinned memory (server/pinned.py): no data travels."""
    host = _pinned_region(session, pin)
    if type(host) is Result:
        return host
    res = run(session, call_id, args, (), host)
    if not res.rc:
        c = copy_of(call_id, args)
        if c is not None and c.h2d:
            session.pinned.bytes_in += pin.length
        else:
            session.pinned.bytes_out += pin.length
    host[0].release()
    return res


def fill_pinned(session, pin, bulk) -> Result:
    """An async D2H copy's data (wire.OUT_LATER) put into the program's pinned memory the copy names, at
    once: a --failover session beside its worker (libhook's memcpy.c). The copy ran to its end in its
    stream's order (the backend's copy_dtoh waits for it), so the data is in place before any later
    reply, and the client digests it there for its log at the next one instead of taking a LATE_OUT
    message: its replies keep to the call ring."""
    host = _pinned_region(session, pin)
    if type(host) is Result:
        return host
    view = host[0]
    try:
        n = sum(map(len, bulk))
        if n != len(view):
            return Result(1, message=f"a pinned region of {len(view)} bytes for a copy of {n}")
        off = 0
        for b in bulk:
            view[off:off + len(b)] = b
            off += len(b)
    finally:
        view.release()
    session.pinned.bytes_out += n
    return Result(0)


STAGE_STALL_S = 10.0  # no progress for this long: the client is gone or broken, the copy fails


def run_staged(session, run, call_id, args, shm, sync, dispatcher) -> Result:
    """A large sync H2D copy whose data the client is still copying into the segment (libhook's
    stage_progressive): the segment's first page holds the call's seq and how many bytes are in
    place; each chunk goes to the device as soon as it has arrived, while the client copies the next."""
    if not shm.regions and shm.room:
        return _run_staged_out(session, run, call_id, args, shm.room, shm.seq, sync, dispatcher)
    c = copy_of(call_id, args)
    seg = session.shm
    if c is None or not c.h2d or c.stream is not None or seg is None or not sync or len(shm.regions) != 1:
        return Result(1, message="a progressively staged copy must be a sync H2D copy through the shared segment")
    (off, n), = shm.regions
    dst, count = args[c.addr], args[c.count]
    try:
        region = seg.region(off, n)
    except ValueError as e:
        return Result(1, message=str(e))
    found = session.device.allocation(dst) if isinstance(dst, int) else None
    if count != n or found is None or dst + n > found[0] + found[1]:
        # the whole copy is checked before any of it moves, as CUDA does: the handler refuses it
        # without reading the data, so nothing waits for it
        try:
            return run(session, call_id, args, [region])
        finally:
            _release(region)
    if n >= REGISTER_MIN and session.device.registers_host:
        _dma_ready(session, seg, off + n)  # the device reads each chunk from the segment itself
    seq, header, done, res = shm.seq, seg.view, 0, None
    stalled = time.monotonic()
    try:
        while done < n:
            staged_seq, staged = struct.unpack_from("<QQ", header, 16)
            ready = min(staged, n) if staged_seq == seq else 0
            if ready <= done:
                if time.monotonic() - stalled > STAGE_STALL_S:
                    return Result(1, message="the client stopped staging its copy")
                time.sleep(20e-6)
                continue
            a = args.copy()
            a[c.addr], a[c.count] = dst + done, ready - done
            res = run(session, call_id, a, [region[done:ready]])
            if res.rc:
                return res
            seg.bytes_in += ready - done
            done = ready
            stalled = time.monotonic()
        return res
    finally:
        _release(region)


_OUT_PROGRESS = 32  # the staged D2H copy's [seq, bytes in place] words in the segment's first page


def _run_staged_out(session, run, call_id, args, room, seq, sync, dispatcher) -> Result:
    """A large D2H copy into pageable memory, written into the session segment a chunk at a time,
    the segment's first page saying how much is in place: the client copies each chunk out while
    the device writes the next (libhook's take_early). The whole range is checked first; the reply
    names the data's region, as a staged copy's does. An async copy comes as a sync call (its data
    must come back to pageable memory): each of its chunks is waited for on its stream before it is
    said to be in place. Anything else that asks for it is served as a staged copy is, whole."""
    seg = session.shm
    c = copy_of(call_id, args)
    if c is None or c.h2d or seg is None or not sync:
        return _staged_whole(session, run, call_id, args, room, sync, dispatcher)
    src, count = args[c.addr], args[c.count]
    found = session.device.allocation(src) if isinstance(src, int) else None
    if not isinstance(count, int) or found is None or src + count > found[0] + found[1] or \
            not 0 < count <= min(room, seg.size - DATA):
        return _staged_whole(session, run, call_id, args, room, sync, dispatcher)  # refused, or whole
    try:
        stream = session.get("stream", args[c.stream]) if c.stream is not None else None
    except CudaError:
        return run(session, call_id, args, ())  # the handler refuses the stream, with its face's code
    if count >= REGISTER_MIN and session.device.registers_host:
        _dma_ready(session, seg, DATA + count)  # the device writes into the segment itself
    header, res = seg.view, None
    # The copy is said to be under way (its seq) only once its first chunk is in place: until then
    # the client waits asleep (take_early), however long the kernels queued before the copy run.
    struct.pack_into("<Q", header, _OUT_PROGRESS + 8, 0)
    a = list(args)
    for off in range(0, count, STAGE_CHUNK):
        k = min(STAGE_CHUNK, count - off)
        a[c.addr], a[c.count] = src + off, k
        view = seg.region(DATA + off, k)
        try:
            res = run(session, call_id, a, (), (view, seg.addr + DATA + off))
            if not res.rc and c.stream is not None:
                session.device.stream_synchronize(stream)  # landed, before the client is told so
        except CudaError as e:  # the stream's earlier work failed: the copy reports it, as CUDA's would
            if e.sticky:
                session.sticky = e
            res = Result(code_for(res.face, e.code), message=e.message, face=res.face)
        finally:
            _release(view)
        if res.rc:
            return res
        struct.pack_into("<Q", header, _OUT_PROGRESS + 8, off + k)
        if not off:
            struct.pack_into("<Q", header, _OUT_PROGRESS, seq)  # after its count: a client that sees it sees that
    seg.bytes_out += count
    return Result(0, res.outs, Placed(([DATA, count],)), face=res.face)


STAGE_CHUNK = 4 << 20  # the client's PIPE_CHUNK


def _staged_whole(session, run, call_id, args, room, sync, dispatcher) -> Result:
    """A copy that asked to be staged out in chunks, served as one staged whole (its data put in the
    segment, the reply naming it) — or refused by its handler, with nothing staged."""
    res = run_shm(session, run, call_id, args, (), Shm([], room), sync, dispatcher)
    if res.rc or not res.bulk or type(res.bulk) is Placed:
        return res
    regions = session.shm.put(res.bulk, room)
    return res if regions is None else Result(0, res.outs, Placed(regions), face=res.face)


def _release(view) -> None:
    try:
        view.release()
    except BufferError:  # a handler kept a view: it goes when that does
        pass


def run_shm(session, run, call_id, args, bulk, shm, sync, dispatcher) -> Result:
    """A call whose bulk input is in the client's shared segment (regions come after any frames)."""
    if not dispatcher.shm_allowed(call_id):
        return Result(1, message=f"call {call_id} does not move its data through shared memory (its record)")
    seg = session.shm
    if seg is None or not sync:
        return Result(1, message="shared-memory regions named, but no shared segment is attached")
    try:
        regions = [seg.region(off, n) for off, n in shm.regions]
    except ValueError as e:
        return Result(1, message=str(e))
    if regions:
        n = sum(map(len, regions))
        seg.bytes_in += n
        bulk = list(bulk) + regions if bulk else regions
        if n >= REGISTER_MIN and session.device.registers_host:
            _dma_ready(session, seg, max(off + k for off, k in shm.regions))
    elif not bulk and shm.room and session.device.registers_host:
        return _run_d2h_placed(session, run, call_id, args, shm.room)
    try:
        return run(session, call_id, args, bulk)
    finally:
        for r in regions:
            try:
                r.release()
            except BufferError:  # a handler kept a view: it goes when that does
                pass


class Placed(tuple):
    """A reply's data already in the session segment: its [offset, length] regions."""


def _run_d2h_placed(session, run, call_id, args, room) -> Result:
    """A sync D2H copy through the session segment, written there by the device itself (a real GPU
    DMAs into the registered segment) instead of into a buffer then copied into the segment. Only on
    a device that registers host memory, for copies of REGISTER_MIN or more: the sim's copy out of
    device memory is a view, and its one copy into the segment is what `put` does anyway. Any other
    call runs as it is, its reply's data put in the segment by the caller."""
    seg, c = session.shm, copy_of(call_id, args)
    count = args[c.count] if c is not None and not c.h2d and c.stream is None else None
    if not isinstance(count, int) or not REGISTER_MIN <= count <= min(room, seg.size - DATA) or \
            not _dma_ready(session, seg, DATA + count):
        return run(session, call_id, args, ())
    view = seg.region(DATA, count)
    try:
        res = run(session, call_id, args, (), (view, seg.addr + DATA))
    finally:
        _release(view)
    if res.rc:
        return res
    seg.bytes_out += count
    return Result(0, res.outs, Placed(([DATA, count],)), face=res.face)


REGISTER_MIN = 1 << 20  # staged copies smaller than this are not worth registering the segment for


def _dma_ready(session, seg, end: int) -> bool:
    """Whether the session segment's first `end` bytes are registered with the device, registering
    them if not — lazily, growing by doubling: registering page-locks (and so allocates) the pages,
    and a segment is sized for the largest copy (256 MiB), not what a program moves through it. The
    staged copies are synchronous, so nothing is in flight when the registration changes."""
    if seg.reg_len >= end:
        return True
    if seg.reg_failed:
        return False
    n = min(seg.size, max(4 * REGISTER_MIN, 1 << (end - 1).bit_length()))
    dev = session.device
    try:
        if seg.handle is not None:
            dev.host_unregister(seg.handle)
            seg.handle, seg.reg_len = None, 0
        seg.handle, seg.reg_len = dev.host_register(seg.addr, n), n
    except CudaError as e:
        seg.reg_failed = True  # staged copies go on through the driver's own staging
        structlog.get_logger().info("shm_not_registered", reason=e.message)
        return False
    return True


def register_ring(session) -> bool:
    """Register the call ring's area (server/ring.py: its records and replies, 1.07 MiB at the
    segment's end, past every region a staged copy registers) with a device that DMAs: the compiled
    loop copies an async copy's frames to the device from where the client wrote them in the ring
    (ring.c, in place), so a GPU's driver then reads them by DMA instead of through a page-locked
    buffer of its own. (Replies are not read from the device into the ring: a D2H reply's data goes
    through the worker's buffer, then into the ring with the reply.)
    Once per attach, so nothing is in flight; a driver that refuses leaves the ring pageable, which
    costs that copy and nothing else. Whether it is registered."""
    ring, seg = session.ring, session.shm
    if ring is None or seg is None or not session.device.registers_host:
        return False
    if os.environ.get("RGPU_RING_REGISTER", "1") == "0":  # for comparisons
        return False
    try:
        seg.ring_handle = session.device.host_register(seg.addr + ring.offset, ring.size)
    except CudaError as e:
        structlog.get_logger().info("ring_not_registered", reason=e.message)
        return False
    return True


def close_shm(session) -> None:
    session.ring = None  # the call ring lives in the segment (server/ring.py)
    seg, session.shm = session.shm, None
    if seg is None:
        return
    for handle in (seg.handle, seg.ring_handle):
        if handle is not None:
            try:
                session.device.host_unregister(handle)
            except CudaError:
                pass
    seg.close()
