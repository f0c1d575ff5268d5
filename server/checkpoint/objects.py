"""The objects a session holds behind its handles, kind by kind: how each is described in a
checkpoint and made again on the device a session is restored onto.

A kind is a ``Kind`` in KINDS, restored in the order of ``rank`` (a function needs its module).
Handles keep their numbers: the program holds them. A session holding a handle of a kind with no
entry here cannot be checkpointed, and says which kind — that refusal comes before anything stops.
New kinds of objects add an entry here (``register``) and, where the device makes them, a pair of
backend methods like the ones below. Texture and surface objects are no handles but values the
kernels receive: server/checkpoint/session.py carries them.

Graphs live in the client library (libhook/src/graph/); the executable graphs of kernels it has the
worker build (server/api/graphs.py) are a kind here, their kernels kept by function handle.
"""
from __future__ import annotations

from dataclasses import astuple, dataclass, field
from typing import Callable

from .image import CheckpointError


@dataclass(frozen=True)
class Kind:
    rank: int
    capture: Callable  # (session, handle, obj, Context) -> msgpack-able description
    restore: Callable  # (session, description, objects_by_handle) -> obj


KINDS: dict[str, Kind] = {}


@dataclass
class Context:
    """What a capture may look at beyond its own object: which handle each device object has, and
    whether memory contents are read (False: a check that the session can be captured at all)."""
    handles_of: dict = field(default_factory=dict)
    contents: bool = True


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


def _capture_function(s, h, obj, ctx):
    found = ctx.handles_of.get(("module", s.device.object_key(s.device.function_module(obj))))
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


# -- CUDA arrays and mipmapped arrays (api/arrays.py): the backend says what makes each again
# (Device.array_state); a level of a mipmapped array the program asked for goes with its mipmap
def _capture_mipmap(s, h, mip, ctx):
    levels = [lv.obj for lv in mip.levels]
    return {"desc": list(astuple(mip.desc)), "device": s.device.mipmap_state(mip.desc, mip.obj, levels, ctx.contents)}


def _restore_mipmap(s, d, _):
    from ..backends.resources import ArrayDesc, ArrayRef, MipmapRef
    desc = ArrayDesc(*d["desc"])
    obj, level_objs = s.device.mipmap_restore(desc, d["device"])
    mip = MipmapRef(desc, obj)
    mip.levels = [ArrayRef(desc.level(n), o, level_of=mip) for n, o in enumerate(level_objs)]
    return mip


def _capture_array(s, h, ref, ctx):
    if ref.level_of is not None:
        mip = ref.level_of
        [n] = [n for n, lv in enumerate(mip.levels) if lv is ref]
        [of] = [mh for mh, (kind, obj) in s.handles().items() if obj is mip]
        return {"level_of": of, "level": n}
    return {"desc": list(astuple(ref.desc)), "device": s.device.array_state(ref.desc, ref.obj, ctx.contents)}


def _restore_array(s, d, objects):
    from ..backends.resources import ArrayDesc, ArrayRef
    if "level_of" in d:
        mip = objects[d["level_of"]]
        return mip.levels[d["level"]]
    desc = ArrayDesc(*d["desc"])
    return ArrayRef(desc, s.device.array_restore(desc, d["device"]))


register("mipmap", 0, _capture_mipmap, _restore_mipmap)
register("array", 1, _capture_array, _restore_array)


def capture(session, contents: bool = True) -> list[list]:
    """[[handle, kind, description], ...] for every handle of the session (in handle order);
    `contents`: False where only whether it can be captured is asked."""
    ctx = Context(contents=contents)
    for h, (kind, obj) in session.handles().items():
        ctx.handles_of[(kind, session.device.object_key(obj))] = h
    out = []
    for h, (kind, obj) in sorted(session.handles().items()):
        k = KINDS.get(kind)
        if k is None:
            raise CheckpointError(f"the session holds a {kind} (handle 0x{h:x}), which checkpoints do not "
                                  f"capture yet: it cannot be moved or reclaimed until it is destroyed")
        out.append([h, kind, k.capture(session, h, obj, ctx)])
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
        elif kind == "array" and "level_of" in d:  # the same handle for the level, as before
            objects[d["level_of"]].level_handles[d["level"]] = h
            objects[h] = made
            session.adopt(h, kind, made)
        else:
            objects[h] = made
            session.adopt(h, kind, made)
