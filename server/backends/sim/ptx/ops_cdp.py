"""Dynamic parallelism: the device runtime's calls (libcudadevrt, CDP2) that kernels make to launch
kernels, provided by the software GPU itself.

nvcc turns a launch in device code, ``child<<<g, b, shared, stream>>>(args)``, into
``__cudaCDP2GetParameterBufferV2(&child, g, b, shared)``, stores of the arguments into the buffer it
returns (the kernel's parameter layout), and ``__cudaCDP2LaunchDeviceV2(buffer, stream)``; the
documented PTX-level names (cudaGetParameterBufferV2, cudaLaunchDeviceV2) are the same calls. The
launch itself is the grid's (kernels.DeviceLaunches): each child grid runs once its parent grid has
run, and tail launches after every other child. CUDA guarantees a parent nothing of its children's
progress until it ends (CDP2 has no device-side synchronize), so this order is one a GPU may take.

What a device-side call returns, and the last error it leaves (cudaGetLastError in device code), is
each thread's own, as on a GPU."""
from __future__ import annotations

import numpy as np

from .interp import op
from .ops_ctrl import _param_reader, ret_slot, write_ret
from .parser import Operand

# cudaError_t values the device runtime returns
SUCCESS = 0


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


def _returned(st, idx, ret, codes: np.ndarray) -> None:
    """Codes returned by a call: each a lane's last error too, where it is one."""
    failed = codes != SUCCESS
    if failed.any():
        _errors(st)[idx[failed]] = codes[failed]
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
        failed = codes != SUCCESS
        if failed.any():  # NULL back, and the reason kept as the lane's last error
            _errors(st)[idx[failed]] = codes[failed]
        if ret is not None:
            write_ret(st, idx, ret, out)
    return run


@op("call.__cudaCDP2LaunchDeviceV2", "call.cudaLaunchDeviceV2")
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


@op("call.__cudaCDP2StreamCreateWithFlags")
def c_stream_create(ins, ctx):
    """A stream of device code's own: launches into it run with the grid's other children."""
    from .ops_mem import resolve
    rets, args = ins.operands[0].value, ins.operands[1].value
    ptr_r = _reader(ctx, args[0], np.uint64)
    ret = ret_slot(ctx, rets)

    def run(st, m):
        idx = st.idx(m)
        handles = st.launches.streams(len(idx))
        for arena, offs, sel in resolve(st, "generic", ptr_r(st, idx), 8, idx):
            vals = handles if sel is None else handles[sel]
            for off, v in zip(offs.tolist(), vals.tolist()):
                arena[off:off + 8] = np.frombuffer(v.to_bytes(8, "little"), np.uint8)
        if ret is not None:
            write_ret(st, idx, ret, np.zeros(len(idx), np.uint32))
    return run


@op("call.__cudaCDP2StreamDestroy")
def c_stream_destroy(ins, ctx):
    ret = ret_slot(ctx, ins.operands[0].value)

    def run(st, m):
        if ret is not None:
            write_ret(st, st.idx(m), ret, np.zeros(len(st.idx(m)), np.uint32))
    return run
