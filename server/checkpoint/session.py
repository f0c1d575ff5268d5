"""Capture a session into an Image, and restore one into a fresh session.

Capture is called at a call boundary (the worker is between messages), after the device has
drained its streams, so what it sees is exactly what every call the client sent so far produced.
Restore rebuilds in dependency order: the allocations at their addresses (module variables, device
malloc blocks and the driver's own words included), then their contents, then the objects under
their handles, then the session's settings and errors. A live migration runs the same steps with
the memory sent ahead of the stop (server/migration/)."""
from __future__ import annotations

import secrets

from ..api import pools
from ..dispatch import Result
from . import objects
from .image import CheckpointError, Image, decompress, new_meta
from .memory import Copier, inside


def describe(session, contents: bool = True) -> tuple[dict, dict[str, bytes]]:
    """The session's state (everything but memory contents; a driver's CUDA arrays' bytes included)
    and the module images it needs. Raises CheckpointError, before anything changes, for what cannot
    be captured; `contents` False: only that is asked, and no array is read."""
    dev = session.device
    if session.vmm is not None and session.vmm.reservations:
        raise CheckpointError("memory mapped through the VMM API (cuMemAddressReserve/cuMemMap) cannot be "
                              "checkpointed or migrated yet: the session keeps its GPU")
    if session.ipc is not None and session.ipc.active:
        raise CheckpointError("memory shared with another process (CUDA IPC) cannot be checkpointed or migrated: "
                              "the other process maps it on this GPU; the session keeps its GPU")
    state = {
        "objects": objects.capture(session, contents),
        "textures": _texture_objects(session),
        "next_handle": session.next_handle,
        "managed": [[a, n] for a, n in session.managed.items()],
        "pools": pools.capture(session),
        "settings": getattr(session, "settings", None),
        "sticky": [session.sticky.code, session.sticky.message, session.sticky.sticky] if session.sticky else None,
        "deferred": list(session.deferred) if session.deferred else None,
        # an H2D copy's piece that failed, the rest of its pieces still to come (server/pieces.py):
        # the copy's last call, served after the move, answers that failure
        "piece_error": _piece_error(session.piece_error),
        "device": dev.capture_device(),
        "calls": session.calls,
    }
    images = {}
    for h, kind, d in state["objects"]:
        if kind == "module":
            for digest in (d["digest"], d.get("companion")):
                if digest and digest not in images:
                    data = session.images.get(digest)
                    if data is None:
                        raise CheckpointError(f"the image of module {digest[:16]} is no longer held")
                    images[digest] = data
    return state, images


def _texture_objects(session) -> list[list]:
    """[[kind, value, resource, texture and view descriptors], ...]: the descriptors as the program
    gave them (the resource names its array by the session's handle, which keeps its number)."""
    held = sorted(session.objects.items())
    if held and not session.device.objects_keep_values:
        (kind, value), _ = held[0]
        raise CheckpointError(f"the session holds {kind} object 0x{value:x} ({len(held)} texture and surface "
                              f"objects in all): kernels receive such an object by value, and a GPU's driver chooses "
                              f"the value of each object it makes, so on another GPU the value the program holds "
                              f"would name nothing; the session keeps its GPU until it destroys them")
    return [[kind, value, rec.res_raw, rec.tex_raw, rec.view_raw] for (kind, value), rec in held]


def _restore_texture_objects(session, described: list[list]) -> None:
    from ..api import textures
    # in the order of the values: a GPU's driver numbers textures and surfaces together (cuda/arrays.py)
    for kind, value, res_raw, tex_raw, view_raw in sorted(described, key=lambda d: d[1]):
        res = textures.decode_resource(session, res_raw)
        tex = textures.decode_texture(tex_raw, res) if kind == "texture" else None
        view = textures.decode_view(view_raw, res) if kind == "texture" else None
        obj = session.device.object_restore(kind, value, res, tex, view)
        session.objects[(kind, value)] = textures.ObjectRecord(res, obj, res_raw, tex_raw, view_raw)
    if described:
        session.device.objects_restored()


def _piece_error(res) -> list | None:
    return None if res is None else [res.rc, res.message, res.face]


def meta_of(session, backend: str) -> dict:
    return new_meta(backend, session.device.arch_name(), session.device.window())


def capture(session, backend: str) -> Image:
    """The whole session as an Image (its memory read and compressed now)."""
    session.device.synchronize()
    state, images = describe(session)
    copier = Copier(session.device, once=True)
    chunks = list(copier.changed(copier.pieces(state["device"]["allocations"])))
    return Image(meta_of(session, backend), state, images, chunks)


class Chain:
    """What the client of a --failover session holds of it: a whole image and the deltas after it.

    A delta carries the session's whole state but only the memory chunks whose contents changed since
    the image before it (each chunk's digest compared with the one sent), the module images not sent
    before, and the keys of every chunk the memory is made of now; restoring applies the images in
    order (``merged``). Every chunk is digested each time: a real GPU cannot say what its kernels
    wrote, and the digest catches every way memory changes. On the cuda backend a kernel takes the
    digests where the memory is (cuda/digests.py) and only the chunks that changed are read; elsewhere
    each chunk is read and digested on the host. What a delta saves is the read (on a GPU), the
    compression, the trip and the client's memory for what did not change: a model's weights during
    inference, the other models of a process, a dataset or a key/value cache in device memory."""

    def __init__(self, device):
        self.id = secrets.token_hex(8)
        self.index = 0           # images of the chain made so far
        self.copier = Copier(device)
        self.modules: set[str] = set()
        self.sizes: dict[tuple[int, int], int] = {}  # chunk -> its compressed bytes, as last sent


class Capture:
    """A failover checkpoint made but not yet known to have reached the client: ``commit`` once it
    is sent, so that the next delta is taken against what the client holds."""

    def __init__(self, session, chain: Chain, image: Image, pending: dict, allocations, module_bytes: int):
        self.session, self.chain, self.image = session, chain, image
        self.pending, self.allocations = pending, allocations
        self.sizes = {(a, n): len(f) for a, n, f in image.chunks}
        keys = image.meta.get("keys")
        keys = self.sizes if keys is None else [tuple(k) for k in keys]
        # what a whole image would take now: the client asks for one when its chain outgrows it
        self.whole_bytes = module_bytes + sum(self.sizes.get(k, chain.sizes.get(k, 0)) for k in keys)

    @property
    def delta(self) -> bool:
        return bool(self.image.meta.get("delta"))

    def commit(self) -> None:
        c = self.chain
        c.copier.sent.update(self.pending)
        c.copier.forget_outside(self.allocations)
        c.sizes.update(self.sizes)
        c.sizes = {k: c.sizes[k] for k in c.copier.sent if k in c.sizes}
        c.modules.update(self.image.modules)
        c.index += 1
        self.session.fo_chain = c


def capture_failover(session, backend: str, delta: bool) -> Capture:
    """A --failover checkpoint: a delta on the session's chain when `delta` (the client holds the
    chain's images) and the session has one, else a whole image that starts a new chain."""
    session.device.synchronize()
    state, images = describe(session)
    chain = getattr(session, "fo_chain", None) if delta else None
    if chain is None:
        chain = Chain(session.device)
    allocations = state["device"]["allocations"]
    pending: dict = {}
    chunks = list(chain.copier.changed(chain.copier.pieces(allocations), pending))
    module_bytes = sum(map(len, images.values()))
    meta = meta_of(session, backend)
    meta["chain"] = [chain.id, chain.index]
    if chain.index:
        # the chunks the memory is made of after this delta: those sent now and those kept from
        # before, less what lies outside the allocations now (freed, or made again otherwise)
        keys = set(chain.copier.sent) | set(pending)
        meta["delta"] = True
        meta["keys"] = [list(k) for k in sorted(inside(allocations, keys))]
        images = {d: b for d, b in images.items() if d not in chain.modules}
    return Capture(session, chain, Image(meta, state, images, chunks), pending, allocations, module_bytes)


def merged(images: list[Image]) -> Image:
    """One image from a chain: a whole image and the deltas after it, in order (Chain). Raises
    CheckpointError for images that are not one chain in order, or a delta that names a chunk none
    of the images before it holds."""
    if not images:
        raise CheckpointError("restore carries no checkpoint image")
    base = images[0]
    chain = base.meta.get("chain")
    if base.meta.get("delta"):
        raise CheckpointError("the first checkpoint image is a delta: the whole image it follows is missing")
    if len(images) > 1 and not chain:
        raise CheckpointError("the first checkpoint image starts no chain: no delta can follow it")
    if len(images) == 1:
        return base
    chunks = {(a, n): (a, n, f) for a, n, f in base.chunks}
    modules = dict(base.modules)
    for k, d in enumerate(images[1:], 1):
        if not d.meta.get("delta") or d.meta.get("chain") != [chain[0], chain[1] + k]:
            raise CheckpointError(f"checkpoint image {k + 1} is not the delta that follows image {k} of its chain: "
                                  "the images are not one checkpoint")
        for a, n, f in d.chunks:
            chunks[(a, n)] = (a, n, f)
        modules.update(d.modules)
        try:
            chunks = {tuple(key): chunks[tuple(key)] for key in d.meta["keys"]}
        except KeyError as e:
            raise CheckpointError(f"checkpoint image {k + 1} names memory chunk {e} that no image before it holds: "
                                  "the chain is broken") from None
    last = images[-1]
    return Image(last.meta, last.state, modules, sorted(chunks.values()))


def restore_layout(session, allocations) -> None:
    """Allocate every allocation of a checkpoint at its address (the quota is charged here: a
    session that does not fit fails now, with out-of-memory, before any of it is used)."""
    session.device.restore_allocations(allocations)


def reconcile_layout(session, old, new) -> None:
    """Bring a layout restored earlier (pre-copy) to the source's final one: free what the source
    freed since, allocate what it allocated."""
    old_set = {tuple(a) for a in old}
    new_set = {tuple(a) for a in new}
    for a in sorted(old_set - new_set):
        session.device.release_allocation(a[0])
    added = sorted(new_set - old_set)
    if added:
        session.device.restore_allocations([list(a) for a in added])


def apply_chunks(session, chunks) -> int:
    """Write (address, raw length, zstd frame) chunks into device memory; returns bytes written."""
    n = 0
    for addr, raw, frame in chunks:
        session.device.write_memory(addr, decompress(frame, raw))
        n += raw
    return n


def restore_objects(session, state: dict, images: dict[str, bytes]) -> None:
    session.restore_images = images
    pools.restore(session, state.get("pools"))  # before the handles that name them
    try:
        objects.restore(session, state["objects"])
    finally:
        session.restore_images = {}
    _restore_texture_objects(session, state.get("textures", []))
    session.images.update(images)
    for h, kind, d in state["objects"]:
        if kind == "module":  # what a later checkpoint of this session needs in its turn
            session.origins[h] = {"digest": d["digest"], "companion": d.get("companion", "")}
    session.device.restore_device(state["device"])
    session.next_handle = state["next_handle"]
    session.managed = {a: n for a, n in state["managed"]}
    if state.get("settings") is not None:
        session.settings = state["settings"]
    if state.get("sticky"):
        from ..errors import CudaError
        code, message, sticky = state["sticky"]
        session.sticky = CudaError(code, message)
        session.sticky.sticky = sticky
    session.deferred = tuple(state["deferred"]) if state.get("deferred") else None
    if state.get("piece_error"):
        rc, message, face = state["piece_error"]
        session.piece_error = Result(rc, message=message, face=face)
    session.calls = state.get("calls", 0)


def restore(session, image: Image, backend: str) -> None:
    """Rebuild a checkpointed session into ``session`` (fresh, its device opened at the image's
    address window)."""
    image.check_compatible(backend, session.device.arch_name())
    restore_layout(session, image.state["device"]["allocations"])
    apply_chunks(session, image.chunks)
    restore_objects(session, image.state, image.modules)
