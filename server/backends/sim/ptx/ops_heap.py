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


def heap_alloc(mem, size: int) -> int:
    """A block of the device heap; 0 (NULL) when the heap, the device or the quota is full."""
    heap = mem.device_heap
    heap.fixed = True
    if size == 0 or heap.used + size > heap.limit:
        return 0
    try:
        addr = mem.alloc(size)
    except SimError:
        return 0
    heap.blocks[addr] = size
    heap.used += size
    return addr


def heap_free(mem, addr: int) -> bool:
    """Gives a block back; False for an address the heap did not hand out (or one freed already)."""
    size = mem.device_heap.blocks.pop(addr, None)
    if size is None:
        return False
    mem.free(addr)
    mem.device_heap.used -= size
    return True


@op("call.malloc")
def c_malloc(ins, ctx):
    rets, args = ins.operands[0].value, ins.operands[1].value
    size_r = _param_reader(ctx, args[0], np.uint64)[0]
    ret = ret_slot(ctx, rets)

    def run(st, m):
        idx = st.idx(m)
        # in lane order, as a serialised allocator would
        out = np.array([heap_alloc(st.mem, size) for size in size_r(st, idx).tolist()], np.uint64)
        if ret is not None:
            write_ret(st, idx, ret, out)
    return run


@op("call.free")
def c_free(ins, ctx):
    ptr_r = _param_reader(ctx, ins.operands[1].value[0], np.uint64)[0]

    def run(st, m):
        idx = st.idx(m)
        for addr in ptr_r(st, idx).tolist():
            if addr and not heap_free(st.mem, addr):
                raise SimFault("CUDA_ERROR_ILLEGAL_ADDRESS",
                               f"{st.name}: free(0x{addr:x}) of memory device malloc did not return (or freed twice)")
    return run
