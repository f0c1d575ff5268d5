"""The cuda backend's generic path: a forwarded driver call that no API handler covers, and whose
arguments are scalars, handles, plain structs and arrays of them, is served straight from its
call-table row by calling the real driver entry point through cffi (declarations generated from
cuda.h: protocol/generated/driver.py). Each wire kind has one conversion here — the server's half of
what the generated client stubs put and read — and handles are translated both ways through the
session, so the driver only ever sees its own objects and the client only the session's integers.

A Runtime call whose record says `same_as` a driver call is served by that driver function (same
arguments, the Runtime's error numbers)."""
from __future__ import annotations

from rgpu.protocol.generated.calltable import CALLS

from ...errors import CudaError
from . import device as drv


def handlers() -> dict[str, object]:
    """Call name -> handler for every row the generic path may serve on cuda."""
    return {c.name: _handler(c) for c in CALLS.values() if c.generic and "cuda" not in c.unsupported_on}


def _handler(call):
    ins = [p for p in call.params if not p[1].startswith("o")]
    in_index = {p[0]: i for i, p in enumerate(ins)}
    drops = call.drops

    def length(spec: str, args) -> int:
        n = int(spec) if spec.isdigit() else args[in_index[spec]]
        if not isinstance(n, int) or n < 0:
            raise CudaError("CUDA_ERROR_INVALID_VALUE", f"{call.name}: array length {n!r}")
        return n

    def handler(s, *args):
        ffi, lib = drv.ffi(), drv.lib()
        fn = getattr(lib, call.generic)
        c_args, outs, dropped = [], [], None
        arg_types = ffi.typeof(fn).args
        if len(arg_types) != len(call.params):
            raise CudaError("CUDA_ERROR_NOT_SUPPORTED", f"{call.generic}: the driver's prototype differs from the record")
        it = iter(args)
        for (name, kind, _size, _struct, ln, hkind), at in zip(call.params, arg_types):
            if kind.startswith("o"):
                cell = _out_arg(ffi, kind, at, ln and length(ln, args))
                c_args.append(cell[0])
                outs.append((kind, hkind, cell))
                continue
            value = next(it)
            c_args.append(_in_arg(ffi, s, kind, at, hkind, value, ln and length(ln, args), call.name))
            if name == drops:
                dropped = (hkind, value)
        drv.check(fn(*c_args))
        if dropped is not None:
            s.drop(*dropped)
        return tuple(_out_value(ffi, s, kind, hkind, cell) for kind, hkind, cell in outs)

    handler.__name__ = f"generic_{call.name}"
    handler.__doc__ = f"{call.name}: the driver's {call.generic}, its arguments by its record ({call.record})"
    return handler


def _handle(ffi, s, at, hkind: str, value: int):
    obj = s.get(hkind, value)
    return ffi.NULL if obj is None else ffi.cast(at, obj)


def _bytes_into(ffi, ctype_ptr, data: bytes, count: int, name: str):
    """A new C array of `count` items of the pointee of `ctype_ptr`, filled from `data` (exactly its size)."""
    item = ctype_ptr.item
    need = ffi.sizeof(item) * count
    if len(data) != need:
        raise CudaError("CUDA_ERROR_INVALID_VALUE", f"{name}: {len(data)} bytes where {need} are needed")
    arr = ffi.new(f"{item.cname}[]", max(count, 1))
    ffi.memmove(arr, data, need)
    return arr


def _in_arg(ffi, s, kind, at, hkind, value, n, name):
    if kind in ("i", "u", "f"):
        if at.kind == "pointer":  # a scalar passed by pointer ("in" of an int *)
            return ffi.new(at, value)
        return value
    if kind == "d":
        return s.device.dev  # the session's GPU: the client's ordinal was routed, the server sees 0
    if kind == "h":
        if at.kind == "pointer" and at.item.kind == "pointer":  # an "in" handle passed by pointer
            return ffi.new(at, _handle(ffi, s, at.item, hkind, value))
        return _handle(ffi, s, at, hkind, value)
    if kind == "s":
        return ffi.NULL if value is None else value.encode()
    if kind == "b":
        return ffi.NULL if value is None else _bytes_into(ffi, at, value, 1, name)
    if kind == "v":
        return _bytes_into(ffi, ffi.typeof(at.cname + " *"), value, 1, name)[0]
    if kind == "a":
        return ffi.NULL if value is None else _bytes_into(ffi, at, value, n, name)
    if kind == "ah":
        if len(value) != n:
            raise CudaError("CUDA_ERROR_INVALID_VALUE", f"{name}: {len(value)} handles where {n} are needed")
        return ffi.new(f"{at.item.cname}[]", [_handle(ffi, s, at.item, hkind, h) for h in value] or [ffi.NULL])
    raise CudaError("CUDA_ERROR_NOT_SUPPORTED", f"{name}: wire kind {kind} has no generic conversion")


def _out_arg(ffi, kind, at, n):
    if kind in ("oa", "oah"):
        return ffi.new(f"{at.item.cname}[]", max(n, 1)), n
    return ffi.new(at), None


def _out_value(ffi, s, kind, hkind, cell):
    p, n = cell
    if kind in ("oi", "ou", "of"):
        v = p[0]
        return int(ffi.cast("uintptr_t", v)) if isinstance(v, ffi.CData) else v
    if kind == "oh":
        return s.new_handle(hkind, p[0])
    if kind == "ob":
        return bytes(ffi.buffer(p))
    if kind == "oa":
        return bytes(ffi.buffer(p, ffi.sizeof(ffi.typeof(p).item) * n))
    if kind == "oah":
        return [s.new_handle(hkind, p[i]) for i in range(n)]
    raise CudaError("CUDA_ERROR_NOT_SUPPORTED", f"out kind {kind} has no generic conversion")
