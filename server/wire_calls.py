"""The wire's own calls that the worker answers itself, not the dispatcher (protocol/wire.py): PARAMS (a
function's parameter layout), MAP_HOST (mapped host memory) and UNPIN (a pinned segment freed)."""
from __future__ import annotations

from rgpu.protocol import wire
from rgpu.protocol.generated.calltable import BY_NAME

from .errors import CudaError, driver_code


_PARAM_INFO = BY_NAME["cuFuncGetParamInfo"]
_PAST_THE_LAST = driver_code("CUDA_ERROR_INVALID_VALUE")


def params(sock, ident, seq, sync, args, session, run) -> None:
    """PARAMS [function]: the function's parameter layout, outs [offset, size] of each parameter in
    order, flattened: cuFuncGetParamInfo index by index (either backend's), to the first index it
    refuses as past the last. Any other refusal (a bad handle, a sticky error) is the reply's."""
    outs, res = [], None
    refused = _cannot_run(session, args[0]) if len(args) == 1 and type(args[0]) is int else None
    if refused is not None:
        if sync:
            sock.send_multipart([ident, wire.encode_reply(seq, refused[0], [], message=refused[1])])
        return
    if len(args) == 1 and type(args[0]) is int:
        for i in range(wire.PARAMS_MAX):
            res = run(session, _PARAM_INFO, [args[0], i], ())
            if res.rc:
                break
            outs += res.outs
    rc, msg = (0, "") if res is not None and res.rc in (0, _PAST_THE_LAST) else \
        (res.rc, res.message) if res is not None else (_PAST_THE_LAST, "PARAMS takes [function handle]")
    if sync:
        sock.send_multipart([ident, wire.encode_reply(seq, rc, outs if rc == 0 else [], message=msg)])


def _cannot_run(session, handle: int):
    """(rc, message) when the device cannot run the function's code (the software GPU's interpreter
    lacks one of its instructions), else None. PARAMS is the client's first question before a
    function's first launch, so the launch itself fails with the cause."""
    prepare = getattr(session.device, "prepare_function", None)
    if prepare is None:
        return None
    try:
        fn = session.get("function", handle)
    except CudaError:
        return None  # a bad handle: cuFuncGetParamInfo's answer, below
    try:
        prepare(fn)
    except CudaError as exc:
        return driver_code(exc.code), exc.message
    return None


def map_host(sock, ident, seq, sync, args, session) -> None:
    """MAP_HOST [name, nonce, size]: mapped host memory. The pinned segment is mapped into the device's
    address space (server/pinned.py); outs [device address of its first data byte]."""
    rc, msg, outs = 0, "", []
    if session.shm is None:
        # the segment is on the client's host; only a worker that shares its memory can map it
        rc, msg = driver_code("CUDA_ERROR_NOT_SUPPORTED"), "mapped host memory needs the client on the server's host"
    else:
        try:
            outs = [session.pinned.device_map(*args[:3])]
        except CudaError as e:
            rc, msg = driver_code(e.code), e.message
        except (TypeError, ValueError):
            rc, msg = driver_code("CUDA_ERROR_INVALID_VALUE"), "malformed MAP_HOST"
    if sync:
        sock.send_multipart([ident, wire.encode_reply(seq, rc, outs, message=msg)])


def unpin(sock, ident, seq, sync, args, session, log) -> None:
    """UNPIN [name]: the client frees a pinned segment. cudaFreeHost synchronises the device first:
    no copy still in flight reads or writes the memory when it is unmapped."""
    rc, msg = 0, ""
    try:
        session.device.synchronize()
    except CudaError as e:
        rc, msg = driver_code(e.code), e.message
    if args and isinstance(args[0], str):
        session.pinned.drop(args[0])
    if sync:
        sock.send_multipart([ident, wire.encode_reply(seq, rc, message=msg)])
