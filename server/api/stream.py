"""Streams and events."""
from __future__ import annotations

from ..errors import CudaError
from . import handles, ipc


NON_BLOCKING, DISABLE_TIMING = 0x1, 0x2  # CU_STREAM_NON_BLOCKING, CU_EVENT_DISABLE_TIMING


def _new_stream(s, flags, priority):
    stream = s.device.stream_create(flags, priority)
    for ev in _ctx_waits(s):  # cuCtxWaitEvent: later work of every stream, new ones too, waits
        s.device.stream_wait_event(stream, ev)
    return (s.new_handle("stream", stream),)


@handles("cudaStreamCreate")
def stream_create(s):
    return _new_stream(s, 0, 0)


@handles("cudaStreamCreateWithFlags", "cuStreamCreate")
def stream_create_flags(s, flags):
    return _new_stream(s, flags, 0)


@handles("cudaStreamCreateWithPriority", "cuStreamCreateWithPriority")
def stream_create_priority(s, flags, priority):
    priority = min(0, max(-5, priority))  # CUDA clamps to the device's range
    return _new_stream(s, flags, priority)


# -- context-wide events (cuCtxRecordEvent, cuCtxWaitEvent: CUDA 12.5) -------------------------------
# A device's contexts share its session, so "the context's work" is the session's: never less.
def _streams(s) -> list:
    """Every stream of the session, the legacy default one (None) first."""
    return [None] + [obj for _, (kind, obj) in sorted(s.handles().items()) if kind == "stream"]


def _record_after(s, target, streams=(), events=()) -> None:
    """Record `target` (a backend event) where the work queued so far on each of `streams`, and the
    work each of `events` marks, has finished: each stream's point is marked, a stream of the
    worker's own waits for every mark and event, and `target` is recorded there. The marks and the
    stream go at once (CUDA keeps what is queued on them)."""
    dev = s.device
    join = dev.stream_create(NON_BLOCKING, 0)
    try:
        for stream in streams:
            mark = dev.event_create(DISABLE_TIMING)
            try:
                dev.event_record(mark, stream)
                dev.stream_wait_event(join, mark)
            finally:
                dev.event_destroy(mark)
        for ev in events:
            dev.stream_wait_event(join, ev)
        dev.event_record(target, join)
    finally:
        dev.stream_destroy(join)


def _ctx_waits(s) -> list:
    """The worker's events of cuCtxWaitEvent calls whose work has not finished; those that have are
    destroyed (a stream made now need not wait for them)."""
    pending = []
    for ev in s.ctx_waits:
        if s.device.event_query(ev):
            s.device.event_destroy(ev)
        else:
            pending.append(ev)
    s.ctx_waits = pending
    return pending


@handles("cuCtxRecordEvent")
def ctx_record_event(s, event):
    """[event]: recorded where the work queued so far on every stream of the session has finished."""
    _record_after(s, s.get("event", event), streams=_streams(s))
    return ()


@handles("cuCtxWaitEvent")
def ctx_wait_event(s, event):
    """[event]: the later work of every stream waits for the event's, streams made later included.
    Those wait for a copy of the worker's own, which the program's next record or destroy of its
    event leaves as it was asked."""
    ev = s.get("event", event)
    for stream in _streams(s):
        s.device.stream_wait_event(stream, ev)
    kept = s.device.event_create(DISABLE_TIMING)
    _record_after(s, kept, events=[ev])
    s.ctx_waits = _ctx_waits(s) + [kept]
    return ()


@handles("cudaStreamDestroy", "cuStreamDestroy_v2")
def stream_destroy(s, stream):
    s.device.stream_destroy(s.drop("stream", stream))
    return ()


@handles("cudaStreamSynchronize", "cuStreamSynchronize")
def stream_synchronize(s, stream):
    s.device.stream_synchronize(s.get("stream", stream))
    return ()


@handles("cudaStreamQuery", "cuStreamQuery")
def stream_query(s, stream):
    if not s.device.stream_query(s.get("stream", stream)):
        raise CudaError("CUDA_ERROR_NOT_READY", "work pending")
    return ()


@handles("cudaStreamWaitEvent", "cuStreamWaitEvent")
def stream_wait_event(s, stream, event, flags):
    s.device.stream_wait_event(s.get("stream", stream), s.get("event", event))
    return ()


@handles("cudaStreamGetPriority", "cuStreamGetPriority")
def stream_get_priority(s, stream):
    return (s.device.stream_priority(s.get("stream", stream)),)


@handles("cudaStreamGetFlags", "cuStreamGetFlags")
def stream_get_flags(s, stream):
    return (s.device.stream_flags(s.get("stream", stream)),)


@handles("cudaEventCreate")
def event_create(s):
    return (s.new_handle("event", s.device.event_create(0)),)


@handles("cudaEventCreateWithFlags", "cuEventCreate")
def event_create_flags(s, flags):
    return (s.new_handle("event", s.device.event_create(flags)),)


@handles("cudaEventRecord", "cuEventRecord")
def event_record(s, event, stream):
    s.device.event_record(s.get("event", event), s.get("stream", stream))
    return ()


@handles("cudaEventRecordWithFlags", "cuEventRecordWithFlags")
def event_record_flags(s, event, stream, flags):
    return event_record(s, event, stream)


@handles("cudaEventSynchronize", "cuEventSynchronize")
def event_synchronize(s, event):
    s.device.event_synchronize(s.get("event", event))
    return ()


@handles("cudaEventQuery", "cuEventQuery")
def event_query(s, event):
    if not s.device.event_query(s.get("event", event)):
        raise CudaError("CUDA_ERROR_NOT_READY", "event not reached")
    return ()


@handles("cudaEventElapsedTime", "cuEventElapsedTime_v2")
def event_elapsed(s, start, end):
    return (s.device.event_elapsed_ms(s.get("event", start), s.get("event", end)),)


@handles("cudaEventDestroy", "cuEventDestroy_v2")
def event_destroy(s, event):
    s.device.event_destroy(s.drop("event", event))
    ipc.event_destroyed(s, event)
    return ()
