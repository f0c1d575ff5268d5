"""Copies to and from a module variable named, not addressed (cudaMemcpyToSymbol and kin: the
rgpuMemcpy*Symbol records in protocol/contract/calls/memory.toml).

The variable is looked up when the copy runs, by the backend's symbol_range, which unlike
cuModuleGetGlobal does not count the address as the program's: on the cuda backend a variable whose
address the program holds becomes an alias after a move (backends/cuda/aliases.py), which cannot
follow the address into device memory; one reached only by name needs none, and is found by name
wherever the target's driver put it. A copy that
outruns the variable (offset + count past its size) changes nothing and fails as CUDA's does."""
from __future__ import annotations

from ..errors import CudaError
from . import handles
from .memory import D2H, H2D, _copy


def _target(s, module, name, offset, count) -> int:
    addr, size = s.device.symbol_range(s.get("module", module), name)
    if offset < 0 or count < 0 or offset + count > size:
        raise CudaError("CUDA_ERROR_INVALID_VALUE",
                        f"[{offset}, +{count}) of module variable '{name}', which is {size} bytes")
    return addr + offset


@handles("rgpuMemcpyToSymbol")
def to_symbol(s, module, name, offset, count, bulk=(), host=None):
    return _copy(s, H2D, _target(s, module, name, offset, count), 0, count, None, bulk, host)


@handles("rgpuMemcpyToSymbolAsync")
def to_symbol_async(s, module, name, offset, count, stream, bulk=()):
    return _copy(s, H2D, _target(s, module, name, offset, count), 0, count, s.get("stream", stream), bulk, None, False)


@handles("rgpuMemcpyFromSymbol")
def from_symbol(s, module, name, offset, count, stream, host=None):
    # the data comes back in the reply whichever form was called: waited for on its stream
    return _copy(s, D2H, 0, _target(s, module, name, offset, count), count, s.get("stream", stream), (), host)


@handles("rgpuModuleGlobalSize")
def global_size(s, module, name):
    return (s.device.symbol_range(s.get("module", module), name)[1],)
