"""Dynamic parallelism: the device runtime's calls (libcudadevrt, CDP2) that kernels make to launch
kernels, provided by the software GPU itself.

nvcc turns a launch in device code, ``child<<<g, b, shared, stream>>>(args)``, into
``__cudaCDP2GetParameterBufferV2(&child, g, b, shared)``, stores of the arguments into the buffer it
returns (the kernel's parameter layout), and ``__cudaCDP2LaunchDeviceV2(buffer, stream)``; the
documented PTX-level names (cudaGetParameterBufferV2, cudaLaunchDeviceV2) are the same calls. The
launch itself is the grid's (cdp.DeviceLaunches): each child grid runs once its parent grid has
run, and tail launches after every other child. CUDA guarantees a parent nothing of its children's
progress until it ends (CDP2 has no device-side synchronize), so this order is one a GPU may take.

Beside launches: device code's streams and events, cudaMalloc/cudaFree (the device heap, as
malloc's), cudaMemcpyAsync/cudaMemsetAsync of device memory (queued with the launches, cdp.py) and
cudaDeviceGetAttribute. What a device-side call returns, and the last error it leaves
(cudaGetLastError in device code), is each thread's own, as on a GPU."""
from __future__ import annotations

import numpy as np

from ..cdp import INVALID_VALUE, MEMORY_ALLOCATION
from .interp import op
from .ops_ctrl import _param_reader, ret_slot, write_ret
from .ops_heap import heap_alloc, heap_free
from .ops_mem import resolve
from .parser import Operand

SUCCESS = 0
MEMCPY_DEVICE_TO_DEVICE, MEMCPY_DEFAULT = 3, 4  # cudaMemcpyKind


def _reader(ctx, arg: Operand, dtype, plus: int = 0):
    """A .param argument (or a field `plus` bytes into one: dim3 is passed by value) for each lane."""
    return _param_reader(ctx, Operand(arg.kind, arg.value, offset=arg.offset + plus), dtype)[0]


def _dim3(ctx, arg: Operand):
    parts = [_reader(ctx, arg, np.uint32, 4 * k) for k in range(3)]
    return lambda st, idx: [p(st, idx) for p in parts]


def _errors(st) -> np.ndarray:
    """The last error of each lane of the batch (device-side cudaGetLastError), made on first use."""
    errs = st.__dict__.get("cdp_errors")
    if errs is None:
        errs = st.cdp_errors = np.zeros(st.n, np.uint32)
    return errs


def _note_errors(st, idx, codes: np.ndarray) -> None:
    """Each failed call's code as its lane's last error."""
    failed = codes != SUCCESS
    if failed.any():
        _errors(st)[idx[failed]] = codes[failed]


def _returned(st, idx, ret, codes: np.ndarray) -> None:
    """Codes returned by a call: each a lane's last error too, where it is one."""
    _note_errors(st, idx, codes)
    if ret is not None:
        write_ret(st, idx, ret, codes)


@op("call.__cudaCDP2GetParameterBufferV2", "call.cudaGetParameterBufferV2")
def c_parameter_buffer(ins, ctx):
    rets, args = ins.operands[0].value, ins.operands[1].value
    func_r = _reader(ctx, args[0], np.uint64)
    grid_r, block_r = _dim3(ctx, args[1]), _dim3(ctx, args[2])
    shared_r = _reader(ctx, args[3], np.uint32)
    ret = ret_slot(ctx, rets)

    def run(st, m):
        idx = st.idx(m)
        funcs, grids, blocks, shared = func_r(st, idx), grid_r(st, idx), block_r(st, idx), shared_r(st, idx)
        out = np.zeros(len(idx), np.uint64)
        codes = np.zeros(len(idx), np.uint32)
        for k in range(len(idx)):  # in lane order, as the device runtime's allocator serialises them
            out[k], codes[k] = st.launches.parameter_buffer(
                int(funcs[k]), tuple(int(g[k]) for g in grids), tuple(int(b[k]) for b in blocks), int(shared[k]))
        _note_errors(st, idx, codes)  # NULL back, and the reason kept as the lane's last error
        if ret is not None:
            write_ret(st, idx, ret, out)
    return run


@op("call.__cudaCDP2LaunchDeviceV2", "call.cudaLaunchDeviceV2", "call.__cudaCDP2LaunchDeviceV2_ptsz",
    "call.cudaLaunchDeviceV2_ptsz")
def c_launch_device(ins, ctx):
    rets, args = ins.operands[0].value, ins.operands[1].value
    buf_r, stream_r = _reader(ctx, args[0], np.uint64), _reader(ctx, args[1], np.uint64)
    ret = ret_slot(ctx, rets)

    def run(st, m):
        idx = st.idx(m)
        bufs, streams = buf_r(st, idx), stream_r(st, idx)
        codes = np.array([st.launches.launch(int(b), int(s)) for b, s in zip(bufs, streams)], np.uint32)
        _returned(st, idx, ret, codes)
    return run


@op("call.__cudaCDP2GetLastError", "call.__cudaCDP2PeekAtLastError")
def c_last_error(ins, ctx):
    ret = ret_slot(ctx, ins.operands[0].value)
    clear = ins.opcode.endswith("GetLastError")

    def run(st, m):
        idx = st.idx(m)
        errs = _errors(st)
        if ret is not None:
            write_ret(st, idx, ret, errs[idx].copy())
        if clear:
            errs[idx] = SUCCESS
    return run


def _store(st, idx, ptrs, values: np.ndarray) -> None:
    """values[k] through lane idx[k]'s generic pointer ptrs[k] (an out-parameter of device code's)."""
    width = values.dtype.itemsize
    raw = np.ascontiguousarray(values).view(np.uint8).reshape(-1, width)
    for arena, offs, sel in resolve(st, "generic", ptrs, width, idx):
        for off, row in zip(offs.tolist(), raw if sel is None else raw[sel]):
            arena[off:off + width] = row


@op("call.__cudaCDP2StreamCreateWithFlags", "call.__cudaCDP2EventCreateWithFlags")
def c_handle_create(ins, ctx):
    """A stream or an event of device code's own: everything device code asks for runs in one order
    here (cdp.py), so a stream is a name and an event is always complete."""
    rets, args = ins.operands[0].value, ins.operands[1].value
    ptr_r = _reader(ctx, args[0], np.uint64)
    ret = ret_slot(ctx, rets)

    def run(st, m):
        idx = st.idx(m)
        _store(st, idx, ptr_r(st, idx), st.launches.streams(len(idx)))
        if ret is not None:
            write_ret(st, idx, ret, np.zeros(len(idx), np.uint32))
    return run


@op("call.__cudaCDP2StreamDestroy", "call.__cudaCDP2EventDestroy", "call.__cudaCDP2EventRecord",
    "call.__cudaCDP2EventRecord_ptsz", "call.__cudaCDP2StreamWaitEvent", "call.__cudaCDP2StreamWaitEvent_ptsz")
def c_in_order(ins, ctx):
    """Calls that order work between device code's streams: already so (c_handle_create)."""
    ret = ret_slot(ctx, ins.operands[0].value)

    def run(st, m):
        if ret is not None:
            write_ret(st, st.idx(m), ret, np.zeros(len(st.idx(m)), np.uint32))
    return run


@op("call.__cudaCDP2Malloc")
def c_device_malloc(ins, ctx):
    """cudaMalloc in device code: a block of the device heap, as malloc's (ops_heap.py)."""
    rets, args = ins.operands[0].value, ins.operands[1].value
    ptr_r, size_r = _reader(ctx, args[0], np.uint64), _reader(ctx, args[1], np.uint64)
    ret = ret_slot(ctx, rets)

    def run(st, m):
        idx = st.idx(m)
        got = np.array([heap_alloc(st.mem, size) for size in size_r(st, idx).tolist()], np.uint64)
        _store(st, idx, ptr_r(st, idx), got)
        _returned(st, idx, ret, np.where(got == 0, np.uint32(MEMORY_ALLOCATION), np.uint32(SUCCESS)))
    return run


@op("call.__cudaCDP2Free")
def c_device_free(ins, ctx):
    rets, args = ins.operands[0].value, ins.operands[1].value
    ptr_r = _reader(ctx, args[0], np.uint64)
    ret = ret_slot(ctx, rets)

    def run(st, m):
        idx = st.idx(m)
        codes = [SUCCESS if addr == 0 or heap_free(st.mem, addr) else INVALID_VALUE
                 for addr in ptr_r(st, idx).tolist()]
        _returned(st, idx, ret, np.array(codes, np.uint32))
    return run


@op("call.__cudaCDP2DeviceGetAttribute")
def c_device_attribute(ins, ctx):
    rets, args = ins.operands[0].value, ins.operands[1].value
    ptr_r, attr_r = _reader(ctx, args[0], np.uint64), _reader(ctx, args[1], np.int32)
    dev_r = _reader(ctx, args[2], np.int32)
    ret = ret_slot(ctx, rets)

    def run(st, m):
        idx = st.idx(m)
        values = [st.launches.attribute(a) for a in attr_r(st, idx).tolist()]
        codes = np.array([INVALID_VALUE if v is None or d < 0 else SUCCESS
                          for v, d in zip(values, dev_r(st, idx).tolist())], np.uint32)
        ok = codes == SUCCESS
        if ok.any():
            _store(st, idx[ok], ptr_r(st, idx)[ok], np.array([v for v, good in zip(values, ok) if good], np.int32))
        _returned(st, idx, ret, codes)
    return run


@op("call.__cudaCDP2MemcpyAsync", "call.__cudaCDP2MemcpyAsync_ptsz")
def c_device_memcpy(ins, ctx):
    """Device memory to device memory (the only kind device code may copy), queued in order."""
    rets, args = ins.operands[0].value, ins.operands[1].value
    dst_r, src_r, n_r = (_reader(ctx, args[k], np.uint64) for k in range(3))
    kind_r = _reader(ctx, args[3], np.uint32)
    ret = ret_slot(ctx, rets)

    def run(st, m):
        idx = st.idx(m)
        codes = [st.launches.copy(d, s, n) if kind in (MEMCPY_DEVICE_TO_DEVICE, MEMCPY_DEFAULT) else INVALID_VALUE
                 for d, s, n, kind in zip(dst_r(st, idx).tolist(), src_r(st, idx).tolist(), n_r(st, idx).tolist(),
                                          kind_r(st, idx).tolist())]
        _returned(st, idx, ret, np.array(codes, np.uint32))
    return run


@op("call.__cudaCDP2MemsetAsync", "call.__cudaCDP2MemsetAsync_ptsz")
def c_device_memset(ins, ctx):
    rets, args = ins.operands[0].value, ins.operands[1].value
    dst_r, value_r, n_r = _reader(ctx, args[0], np.uint64), _reader(ctx, args[1], np.uint32), \
        _reader(ctx, args[2], np.uint64)
    ret = ret_slot(ctx, rets)

    def run(st, m):
        idx = st.idx(m)
        codes = [st.launches.fill(d, v, n)
                 for d, v, n in zip(dst_r(st, idx).tolist(), value_r(st, idx).tolist(), n_r(st, idx).tolist())]
        _returned(st, idx, ret, np.array(codes, np.uint32))
    return run
