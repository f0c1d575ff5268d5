"""Streams and events."""
from __future__ import annotations

from ..errors import CudaError
from . import handles, ipc


@handles("cudaStreamCreate")
def stream_create(s):
    return (s.new_handle("stream", s.device.stream_create(0, 0)),)


@handles("cudaStreamCreateWithFlags", "cuStreamCreate")
def stream_create_flags(s, flags):
    return (s.new_handle("stream", s.device.stream_create(flags, 0)),)


@handles("cudaStreamCreateWithPriority", "cuStreamCreateWithPriority")
def stream_create_priority(s, flags, priority):
    priority = min(0, max(-5, priority))  # CUDA clamps to the device's range
    return (s.new_handle("stream", s.device.stream_create(flags, priority)),)


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
