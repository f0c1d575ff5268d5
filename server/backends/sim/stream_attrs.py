"""Stream attributes on the software GPU (cuStreamGetAttribute, cuStreamSetAttribute,
cuStreamCopyAttributes and the Runtime's): what a program sets it reads back, checked as CUDA
checks it, and a new stream starts from CUDA's defaults. None changes how the software GPU runs a
stream's work — it has no L2 to keep an access-policy window's lines in, and its work ends with its
call — except the priority, which is the stream's own (cuStreamGetPriority answers it). The cuda
backend passes these calls to the driver (their records)."""
from __future__ import annotations

import struct

from ...errors import CudaError
from .properties import VALUES as DEVICE_VALUES

ACCESS_POLICY_WINDOW, SYNC_POLICY, PRIORITY, MEM_SYNC_DOMAIN_MAP, MEM_SYNC_DOMAIN = 1, 3, 8, 9, 10
VALUE = 64  # bytes of CUlaunchAttributeValue (CUstreamAttrValue)
WINDOW = struct.Struct("<QQfii")  # base_ptr, num_bytes, hitRatio, hitProp, missProp
INT = struct.Struct("<i")
MAX_WINDOW = DEVICE_VALUES["MAX_ACCESS_POLICY_WINDOW_SIZE"]  # what the device reports
PRIORITIES = range(-5, 1)  # cuCtxGetStreamPriorityRange: greatest -5, least 0 (api/device.py)
SYNC_POLICIES = range(1, 5)  # AUTO, SPIN, YIELD, BLOCKING_SYNC

DEFAULTS = {ACCESS_POLICY_WINDOW: bytes(VALUE), SYNC_POLICY: INT.pack(1).ljust(VALUE, b"\0"),
            MEM_SYNC_DOMAIN_MAP: bytes([0, 1]).ljust(VALUE, b"\0"), MEM_SYNC_DOMAIN: bytes(VALUE)}


def _invalid(why: str) -> CudaError:
    return CudaError("CUDA_ERROR_INVALID_VALUE", why)


def _kept(s, stream: int) -> dict[int, bytes]:
    if not hasattr(s, "stream_attrs"):
        s.stream_attrs = {}
    return s.stream_attrs.setdefault(stream, {})


def _get(s, stream: int, attr: int) -> bytes:
    obj = s.get("stream", stream)
    if attr == PRIORITY:
        return INT.pack(s.device.stream_priority(obj) if obj is not None else 0).ljust(VALUE, b"\0")
    if attr not in DEFAULTS:
        raise _invalid(f"attribute {attr} is not a stream's")
    return _kept(s, stream).get(attr, DEFAULTS[attr])


def _checked(attr: int, value: bytes) -> bytes:
    value = bytes(value or b"")[:VALUE].ljust(VALUE, b"\0")
    if attr == ACCESS_POLICY_WINDOW:
        _, size, ratio, hit, miss = WINDOW.unpack_from(value)
        if size > MAX_WINDOW or not 0.0 <= ratio <= 1.0 or hit not in (0, 1, 2) or miss not in (0, 1, 2):
            raise _invalid("access policy window: size past the device's limit, a hit ratio outside [0, 1] or "
                           "an unknown access property")
    elif attr == SYNC_POLICY and INT.unpack_from(value)[0] not in SYNC_POLICIES:
        raise _invalid(f"synchronization policy {INT.unpack_from(value)[0]}")
    elif attr == MEM_SYNC_DOMAIN and INT.unpack_from(value)[0] not in (0, 1):
        raise _invalid(f"memory synchronization domain {INT.unpack_from(value)[0]}")
    return value


def _set(s, stream: int, attr: int, value: bytes) -> None:
    obj = s.get("stream", stream)
    if attr == PRIORITY:
        if obj is None:
            raise _invalid("the default stream's priority is fixed")
        # clamped into the device's range, as cuStreamCreateWithPriority clamps it
        obj.priority = min(max(INT.unpack_from(bytes(value).ljust(4, b"\0"))[0], PRIORITIES[0]), PRIORITIES[-1])
        return
    if attr not in DEFAULTS:
        raise _invalid(f"attribute {attr} is not a stream's")
    _kept(s, stream)[attr] = _checked(attr, value)


def handlers() -> dict[str, object]:
    """Call name -> handler(session, *args) for the stream-attribute calls the sim serves."""
    def get(s, stream, attr):
        return (_get(s, stream, attr),)

    def set_(s, stream, attr, value):
        _set(s, stream, attr, value)
        return ()

    def copy(s, dst, src):
        for attr in (*DEFAULTS, PRIORITY):
            if attr != PRIORITY or s.get("stream", dst) is not None:
                _set(s, dst, attr, _get(s, src, attr))
        return ()
    return {"cuStreamGetAttribute": get, "cudaStreamGetAttribute": get, "cuStreamSetAttribute": set_,
            "cudaStreamSetAttribute": set_, "cuStreamCopyAttributes": copy, "cudaStreamCopyAttributes": copy}
