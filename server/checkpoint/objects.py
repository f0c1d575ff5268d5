"""The objects a session holds behind its handles, kind by kind: how each is described in a
checkpoint and made again on the device a session is restored onto.

A kind is a ``Kind`` in KINDS, restored in the order of ``rank`` (a function needs its module).
Handles keep their numbers: the program holds them. A session holding a handle of a kind with no
entry here cannot be checkpointed, and says which kind — that refusal comes before anything stops.
New kinds of objects (CUDA arrays and texture objects, ...) add an entry here
(``register``) and, where the device makes them, a pair of backend methods like the ones below.

Graphs live in the client library (libhook/src/graph/); the executable graphs of kernels it has the
worker build (server/api/graphs.py) are a kind here, their kernels kept by function handle.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

from .image import CheckpointError


@dataclass(frozen=True)
class Kind:
    rank: int
    capture: Callable  # (session, handle, obj, handles_of) -> msgpack-able description
    restore: Callable  # (session, description, objects_by_handle) -> obj


KINDS: dict[str, Kind] = {}


def register(name: str, rank: int, capture, restore) -> None:
    KINDS[name] = Kind(rank, capture, restore)


# -- streams and events ------------------------------------------------------------------------
register("stream", 0,
         lambda s, h, obj, _: s.device.stream_state(obj),
         lambda s, d, _: s.device.stream_create(d["flags"], d["priority"]))
register("event", 0,
         lambda s, h, obj, _: s.device.event_state(obj),
         lambda s, d, _: s.device.event_restore(d))


# -- modules and functions -----------------------------------------------------------------------
def _capture_module(s, h, obj, _):
    origin = s.origins.get(h)
    if origin is None:
        raise CheckpointError(f"module 0x{h:x} has no recorded image (it was not loaded through cuModuleLoadData)")
    return {**origin, "device": s.device.module_state(obj)}


def _restore_module(s, d, _):
    image = s.restore_images.get(d["digest"])
    if image is None:
        raise CheckpointError(f"the checkpoint lacks the image of module {d['digest'][:16]}")
    companion = None
    if d.get("companion"):
        bundle = s.restore_images.get(d["companion"])
        if bundle is None:
            raise CheckpointError(f"the checkpoint lacks the companion {d['companion'][:16]} of a module")
        companion = (d["companion"], bundle)
    return s.device.module_restore(image, companion, d["device"])


def _capture_function(s, h, obj, handles_of):
    found = handles_of.get(("module", s.device.object_key(s.device.function_module(obj))))
    if found is None:
        raise CheckpointError(f"function 0x{h:x} belongs to no module of this session")
    return {"module": found, "name": s.device.function_name(obj), "attrs": s.device.function_state(obj)}


def _restore_function(s, d, objects):
    fn = s.device.module_function(objects[d["module"]], d["name"])
    s.device.function_restore(fn, d["attrs"])
    return fn, objects[d["module"]]


register("module", 1, _capture_module, _restore_module)
register("function", 2, _capture_function, _restore_function)


def _restore_graph(s, d, objects):
    from ..api.graphs import build
    return build(s.device, d["nodes"], objects.__getitem__)


register("graph", 3, lambda s, h, obj, _: {"nodes": obj.nodes}, _restore_graph)


# -- memory pools: the session's bookkeeping (api/pools.py), restored with the rest of the state ----
def _restore_pool(s, d, _):
    from ..api import pools
    return pools.restored(s, d["handle"])


register("mempool", 0, lambda s, h, obj, _: {"handle": h}, _restore_pool)
# Arrays and textures (the textures engineer): register("array", 1, capture, restore) with a backend
# pair array_state(obj) / array_restore(description) that carries the array's contents, and
# register("texture", 2, ...) naming the array's handle as functions name their module's.


def capture(session) -> list[list]:
    """[[handle, kind, description], ...] for every handle of the session (in handle order)."""
    handles_of = {}
    for h, (kind, obj) in session.handles().items():
        handles_of[(kind, session.device.object_key(obj))] = h
    out = []
    for h, (kind, obj) in sorted(session.handles().items()):
        k = KINDS.get(kind)
        if k is None:
            raise CheckpointError(f"the session holds a {kind} (handle 0x{h:x}), which checkpoints do not "
                                  f"capture yet: it cannot be moved or reclaimed until it is destroyed")
        out.append([h, kind, k.capture(session, h, obj, handles_of)])
    return out


def restore(session, described: list[list]) -> None:
    """Make every object again, under its own handle."""
    objects: dict[int, object] = {}
    for h, kind, d in sorted(described, key=lambda e: (KINDS[e[1]].rank if e[1] in KINDS else 99, e[0])):
        k = KINDS.get(kind)
        if k is None:
            raise CheckpointError(f"the checkpoint holds a {kind}, which this rgpu cannot restore")
        made = k.restore(session, d, objects)
        if kind == "function":  # a function goes with its module: the session keeps which
            objects[h], module = made
            session.new_function(module, objects[h], h)
        else:
            objects[h] = made
            session.adopt(h, kind, made)
