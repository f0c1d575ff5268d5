"""The device heap: malloc() and free() called from kernels.

Each block a kernel allocates is an allocation of the session's device memory of its own (so
accesses past its end fault as on any allocation, and it counts against the memory quota), taken
from a heap of cudaLimitMallocHeapSize bytes (8 MiB unless the program sets it). It outlives the
kernel until device code frees it; malloc returns NULL when the heap cannot hold the request."""
from __future__ import annotations

import numpy as np

from ..errors import SimError, SimFault
from .interp import op
from .ops_ctrl import _param_reader, ret_slot, write_ret


@op("call.malloc")
def c_malloc(ins, ctx):
    rets, args = ins.operands[0].value, ins.operands[1].value
    size_r = _param_reader(ctx, args[0], np.uint64)[0]
    ret = ret_slot(ctx, rets)

    def run(st, m):
        idx = st.idx(m)
        sizes = size_r(st, idx)
        heap = st.mem.device_heap
        heap.fixed = True
        out = np.zeros(len(idx), np.uint64)
        for k, size in enumerate(sizes.tolist()):  # in lane order, as a serialised allocator would
            if size == 0 or heap.used + size > heap.limit:
                continue
            try:
                addr = st.mem.alloc(size)
            except SimError:  # the device (or the quota) is full: malloc's answer is NULL
                continue
            heap.blocks[addr] = size
            heap.used += size
            out[k] = addr
        if ret is not None:
            write_ret(st, idx, ret, out)
    return run


@op("call.free")
def c_free(ins, ctx):
    ptr_r = _param_reader(ctx, ins.operands[1].value[0], np.uint64)[0]

    def run(st, m):
        idx = st.idx(m)
        heap = st.mem.device_heap
        for addr in ptr_r(st, idx).tolist():
            if addr == 0:
                continue
            size = heap.blocks.pop(addr, None)
            if size is None:
                raise SimFault("CUDA_ERROR_ILLEGAL_ADDRESS",
                               f"{st.name}: free(0x{addr:x}) of memory device malloc did not return (or freed twice)")
            st.mem.free(addr)
            heap.used -= size
    return run
