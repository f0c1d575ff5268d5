"""Checkpoints on a real GPU (server/checkpoint, live migration): the CudaDevice's part of the Device
interface for capturing a session and rebuilding it in another worker process at the same device
addresses, behind the same handles.

Device memory. A session's allocations come from its arena (arena.py): one range of addresses every
worker reserves at the same place, far from where the host maps anything. The target reserves its
own arena there and maps each allocation back at its address (arena.c's place). A session whose
allocations came from cuMemAlloc (RGPU_ARENA=0, or a driver that gave the arena another range) is
placed allocation by allocation: cuMemAddressReserve with the source's address as its hint,
cuMemCreate, cuMemMap, cuMemSetAccess. CUDA documents the address as a hint ("Fixed starting address
range requested"): a range that is free is reserved there, one that is taken is reserved elsewhere.
With unified addressing cuMemAlloc's addresses are in the host's part of the address space, where
the target process may have mapped anything (on an H200 it held the source's first allocation's
range every time). Elsewhere is useless to a program holding the old address, so the target gives
it back and refuses; the refusal comes at the layout step, while the program runs on at the source.
The VMM granularity (2 MiB) is coarser than cuMemAlloc's alignment, so allocations sharing a
granule are placed as one group: one reservation and one physical allocation over the granules
they cover, released when the last of them is freed.

Module variables. The driver places a module's variables itself when it loads the module; no call
places them at an address. A variable whose address the program was never given (the kernels reach
it by name, compiled into them; cudaMemcpyToSymbol and kin reach it by name too: server/api/symbols.py)
can live anywhere: the target loads the module again and writes the variable's contents, read by
name at the source, into it. A variable whose address was handed to the program (cuModuleGetGlobal:
cudaGetSymbolAddress; NVIDIA's runtime linked into cuBLASLt asks it for its deviceConstants) moves
too, and the address the program holds stays its name on the target: aliases.py rewrites it where
it comes back to the worker (kernel parameters, copies, memsets) to where the variable now is, and
cuModuleGetGlobal answers it again. A variable holding another's address (of its module or another)
is written with where that one is on the target (aliases.relocate; restore_device for other modules'). An address the program stored in its device memory (copied
in, or written by a kernel) would lead a later kernel to where the variable was, which the target
never mapped for it: escape_ranges gives the copy every variable's range to search the memory it
reads for (server/checkpoint/escapes.py), and finding one refuses the move.

CUDA arrays and mipmapped arrays need no place: the program holds the session's handles for them,
never the driver's, and no address of theirs. The target makes them again and writes their bytes,
read at the stop (Device.array_state; kernels write them through surfaces, which no copy tracks).

Managed memory is the arena's too (device.py mem_alloc_managed: the client keeps its host copy
coherent, the GPU sees device memory), and moves as any allocation does.

Also refused, with their reasons: managed memory from cuMemAllocManaged, made where there is no arena
(the driver's UVM places it, and VMM memory is not managed), and what describe() refuses on every
backend (VMM mappings of the program's own, CUDA IPC)."""
from __future__ import annotations

import contextlib
import hashlib
import threading

import numpy as np

from ...errors import CudaError
from . import variables
from ...checkpoint.escapes import Ranges
from .aliases import VariableAliases, relocate
from .digests import DeviceDigests
from .launches import SERVED_ATTRIBUTES

_ACCESS_READWRITE = 3  # CU_MEM_ACCESS_FLAGS_PROT_READWRITE


_NAMES_KEPT = 256
_names_by_image: dict[bytes, set[str] | None] = {}  # the image's SHA-256 -> its variables' names


def _names_of(image: bytes) -> set[str] | None:
    """variables.names, kept by the image's digest for the images last read: a library loads the same
    image again under a new module (cuBLASLt loads a module to probe the GPU and unloads it), and a
    --failover session's checkpoints would read the fatbin again each time (0.3-0.8 s for cuBLAS's;
    the digest, a few milliseconds). By digest, not by the bytes: an image unloaded is not kept."""
    key = hashlib.sha256(image).digest()
    if key not in _names_by_image:
        if len(_names_by_image) >= _NAMES_KEPT:
            del _names_by_image[next(iter(_names_by_image))]
        _names_by_image[key] = variables.names(image)
    return _names_by_image[key]


class CudaPlacement(VariableAliases):
    """Mixed into CudaDevice: needs its tables (``_allocs``, ``_starts``, ``_streams``, ``_events``,
    ``_modules``), ``_reserve``, ``_prop`` (vmm.py) and the module's driver."""

    def _placement_tables(self) -> None:
        self._groups: dict[int, list] = {}  # group start -> [reserved size, physical handle, member addrs]
        self._group_of: dict[int, int] = {}  # placed allocation -> its group's start
        self._managed: set[int] = set()  # allocations made by cuMemAllocManaged
        self._event_flags: dict[int, int] = {}  # event key -> the flags it was made with
        self._handed: dict[int, set[str]] = {}  # module key -> variables whose address the program got
        self._images: dict[int, bytes] = {}  # module key -> the image it was loaded from
        # module key -> its variables' names, read from the image once (a library's fatbin is large:
        # read when a move is asked, never again in the pause)
        self._variable_names: dict[int, set[str] | None] = {}
        self._var_ranges: dict[int, list] = {}  # module key -> (start, end, name) of its variables here
        self._func_attrs: dict[int, dict[str, int]] = {}  # function key -> attributes the program set
        # what module_restore loaded and wrote, for restore_device's relocation across modules
        self._restore_vars: list = []  # (address here, contents at the source, as written, name)
        self._restore_moves: list = []  # (start, end at the source or as held, start here)
        self._restore_modules = 0
        self._alias_tables()
        # held by a pre-copy read and by every free Python makes: a read never lands in memory freed
        # under it (the compiled loop's frees wait on the copier's lock instead: _no_frees)
        self.free_lock = threading.RLock()
        self._digests: DeviceDigests | None = None  # made at the first checkpoint or pre-copy
        self._own_stream = None  # the stream of _side_stream, made at the first read

    # -- what a checkpoint cannot hold --------------------------------------------------------------
    def _refuse(self, why: str):
        raise CudaError("CUDA_ERROR_NOT_SUPPORTED", f"the cuda backend cannot move this session: {why}; "
                        "it keeps its GPU")

    def memory_layout(self) -> list[list[int]]:
        if self._managed:
            self._refuse(f"it holds managed memory (cuMemAllocManaged, {len(self._managed)} allocation(s)), "
                         "which the driver's UVM places and VMM cannot place again")
        return [[a, n, n] for a, n in sorted(self._allocs.items())]

    def capture_device(self) -> dict:
        return {"allocations": self.memory_layout()}

    # -- memory, from any thread (pre-copy reads while the program runs) ----------------------------
    def _current(self):
        ffi, lib, check = self._driver()
        check(lib.cuCtxSetCurrent(self.ctx))
        return ffi, lib, check

    def quiesce(self) -> bool:
        # the context's work issued so far, from any thread, is done when this returns
        _, lib, check = self._current()
        check(lib.cuCtxSynchronize())
        return True

    @contextlib.contextmanager
    def _no_frees(self):
        """Nothing of the session's memory is freed inside, from any thread: Python's frees take
        free_lock; the compiled serving loop's (copies.c's free_one, on the worker's loop while a
        move's pre-copy reads on its own thread) take the copier's lock, and its table, which
        `_live` asks, has them at once, where _allocs learns of them only after the loop's message."""
        with self.free_lock:
            if self.copier is None:
                yield
            else:
                with self.copier.held():
                    yield

    def _live(self, ranges: np.ndarray) -> np.ndarray:
        """Whether each (address, length) row lies wholly inside an allocation now (inside _no_frees)."""
        if self.copier is not None:
            return self.copier.live(ranges)
        held = sorted(self._allocs.items())
        if not held:
            return np.zeros(len(ranges), bool)
        starts = np.array([a for a, _ in held], dtype=np.uint64)
        ends = starts + np.array([n for _, n in held], dtype=np.uint64)
        at = np.searchsorted(starts, ranges[:, 0], side="right").astype(np.int64) - 1
        return (at >= 0) & (ranges[:, 0] + ranges[:, 1] <= ends[np.maximum(at, 0)])

    def read_memory(self, addr: int, size: int, _variable: bool = False) -> bytearray:
        ffi, lib, check = self._current()
        out = bytearray(size)
        with self._no_frees():
            if not _variable:
                found = self.allocation(addr)
                if found is None or addr + size > found[0] + found[1] or (
                        found[0] in self._allocs and not self._live(np.array([[addr, size]], np.uint64))[0]):
                    # freed since the pre-copy looked (by Python, or by the loop: _allocs not told yet)
                    raise CudaError("CUDA_ERROR_INVALID_VALUE", f"[0x{addr:x}, +{size}) is no longer allocated")
            side = self._side_stream()
            check(lib.cuMemcpyDtoHAsync_v2(ffi.from_buffer(out), addr, size, side))
            check(lib.cuStreamSynchronize(side))
        return out  # not bytes(out): a checkpoint reads all of a session's memory, and the copy was a third of it

    def digest_ranges(self, pieces: list[tuple[int, int]]) -> list[bytes | None] | None:
        """The GPU's digest of each (address, length) piece, taken by a kernel (digests.py), None in
        the place of a piece not wholly inside an allocation (freed since the layout was read); None
        for all when this GPU's digests are off (`RGPU_DEVICE_DIGEST=0`, or refused once): the
        copier then reads every piece and digests it on the host. From any thread: a move's
        pre-copy asks it while the program runs."""
        with self._no_frees():  # no piece freed under the kernel: a kernel's read of freed memory ends the context
            digests = self._device_digests()
            if digests.off:
                return None
            ranges = np.array(pieces, dtype=np.uint64).reshape(-1, 2)
            live = self._live(ranges)
            got = digests.take(ranges[live])
        if got is None:
            return None
        out: list[bytes | None] = [None] * len(pieces)
        for i, d in zip(np.flatnonzero(live).tolist(), got):
            out[i] = d.tobytes()
        return out

    def prepare_digests(self, pieces: int) -> None:
        """The digest kernel loaded and ready for a pass of `pieces` chunks, off the pause."""
        with self.free_lock:
            self._device_digests().prepare(pieces)

    def _device_digests(self) -> DeviceDigests:
        """This context's digest kernel (made at the first use), the context made current."""
        ffi, lib, check = self._current()
        if self._digests is None:
            self._digests = DeviceDigests(ffi, lib, check, self._side_stream())
        return self._digests

    def _side_stream(self):
        """A stream of the server's own that waits for none of the program's (CU_STREAM_NON_BLOCKING;
        in none of the session's tables): a pre-copy's reads and digests run beside the program's
        work, not after all of it as on the legacy stream, so that the loop's frees, which wait for
        them (_no_frees), wait for them alone; what the program writes meanwhile a later pass reads.
        The context is current (called inside _no_frees or free_lock)."""
        if self._own_stream is None:
            ffi, lib, check = self._driver()
            s = ffi.new("CUstream *")
            check(lib.cuStreamCreateWithPriority(s, 1, 0))
            self._own_stream = s[0]
        return self._own_stream

    def close_digests(self) -> None:
        """The digest kernel and the side stream gone (the session's close, before its context)."""
        if self._digests is not None:
            self._digests.close()
            self._digests = None
        if self._own_stream is not None:
            self._driver()[1].cuStreamDestroy_v2(self._own_stream)
            self._own_stream = None

    def write_memory(self, addr: int, data) -> None:
        ffi, lib, check = self._current()
        check(lib.cuMemcpyHtoDAsync_v2(addr, ffi.from_buffer(bytes(data)), len(data), ffi.NULL))
        check(lib.cuStreamSynchronize(ffi.NULL))

    # -- placing allocations at their addresses (the target) ---------------------------------------
    def restore_allocations(self, allocations: list[list[int]]) -> None:
        """Every [address, size, span] placed at its address and charged, or none of them."""
        arena = self.arena
        inside, outside = [], []
        for a in allocations:
            (inside if arena is not None and arena.contains(a[0]) else outside).append(a)
        done = []
        try:
            for addr, size, _span in sorted(inside):
                self._place_in_arena(addr, size)
                done.append(addr)
            for hull, members in self._hulls(outside):
                self._place(hull, members)
                done.extend(a for a, _ in members)
        except Exception:
            for a in done:
                self._mem_free(a)
            raise

    def _place_in_arena(self, addr: int, size: int) -> None:
        """An allocation the source made in its arena, at the same address in this worker's (arena.py)."""
        if self._reserve is not None and not self._reserve(size):
            raise CudaError("CUDA_ERROR_OUT_OF_MEMORY", f"{size} bytes exceed this session's memory")
        try:
            if not self.arena.place(addr, size):  # else the driver's own refusal (out of memory), as it is
                raise CudaError("CUDA_ERROR_INVALID_VALUE",
                                f"the driver here cannot place the session's memory at 0x{addr:x} (+{size}): that "
                                "part of the session's address range is taken in this worker; the program holds "
                                "those addresses, so the session stays where it is")
        except CudaError:
            if self._reserve is not None:
                self._reserve(-size)
            raise
        self._track(addr, size)
        if self.arena.lent(addr, size):  # the client placed it: its free goes to the spare there, so here too
            self._placed[addr] = size

    def _hulls(self, allocations):
        """(granule-aligned [start, end), [(addr, size), ...]) of the allocations, those that share
        a granule in one."""
        g = self.vmm_granularity(False)
        out = []
        for addr, size, _span in sorted(allocations):
            lo, hi = addr - addr % g, -(-(addr + max(size, 1)) // g) * g
            if out and lo < out[-1][0][1]:
                out[-1][0][1] = max(out[-1][0][1], hi)
                out[-1][1].append((addr, size))
            else:
                out.append(([lo, hi], [(addr, size)]))
        return out

    def _place(self, hull, members) -> None:
        ffi, lib, check = self._current()
        lo, hi = hull
        for start, (span, _h, held) in self._groups.items():
            if lo < start + span and start < hi:
                if start <= lo and hi <= start + span:  # inside a group placed before (a reconcile)
                    self._admit(members, start)
                    return
                self._refuse(f"[0x{lo:x}, 0x{hi:x}) overlaps a range placed before but does not fit in it")
        charge = sum(n for _, n in members)
        if self._reserve is not None and not self._reserve(charge):
            raise CudaError("CUDA_ERROR_OUT_OF_MEMORY", f"{charge} bytes exceed this session's memory")
        p = ffi.new("CUdeviceptr *")
        h = ffi.new("CUmemGenericAllocationHandle *")
        reserved = created = False
        try:
            check(lib.cuMemAddressReserve(p, hi - lo, 0, lo, 0))
            reserved = True
            if p[0] != lo:
                # the hint was not honoured: that range is taken in this process
                raise CudaError("CUDA_ERROR_INVALID_VALUE",
                                f"the driver here cannot place the session's memory at 0x{lo:x} (+{hi - lo}): the "
                                f"range is taken in this process (it offered 0x{p[0]:x}); the program holds "
                                "those addresses, so the session stays where it is")
            check(lib.cuMemCreate(h, hi - lo, self._prop(), 0))
            created = True
            check(lib.cuMemMap(lo, hi - lo, 0, h[0], 0))
            access = ffi.new("CUmemAccessDesc *")
            access.location.type, access.location.id, access.flags = 1, self.dev, _ACCESS_READWRITE
            rc = lib.cuMemSetAccess(lo, hi - lo, access, 1)
            if rc != 0:
                lib.cuMemUnmap(lo, hi - lo)
                check(rc)
        except Exception:
            if created:
                lib.cuMemRelease(h[0])
            if reserved:
                lib.cuMemAddressFree(p[0], hi - lo)
            if self._reserve is not None:
                self._reserve(-charge)
            raise
        self._groups[lo] = [hi - lo, h[0], set()]
        self._admit(members, lo, charged=True)

    def _admit(self, members, start, charged=False) -> None:
        charge = sum(n for _, n in members)
        if not charged and self._reserve is not None and not self._reserve(charge):
            raise CudaError("CUDA_ERROR_OUT_OF_MEMORY", f"{charge} bytes exceed this session's memory")
        for a, n in members:
            self._groups[start][2].add(a)
            self._group_of[a] = start
            self._track(a, n)

    def _unplace(self, addr: int) -> None:
        """Free one placed allocation (mem_free, release_allocation, close); its group's memory goes
        with the last of its members."""
        _, lib, check = self._driver()
        start = self._group_of.pop(addr)
        size = self._untrack_alloc(addr)
        self._untrack_start(addr)
        if self._reserve is not None:
            self._reserve(-size)
        span, handle, members = self._groups[start]
        members.discard(addr)
        if not members:
            del self._groups[start]
            check(lib.cuMemUnmap(start, span))
            check(lib.cuMemRelease(handle))
            check(lib.cuMemAddressFree(start, span))

    # -- objects ---------------------------------------------------------------------------------
    def stream_state(self, stream) -> dict:
        return {"flags": self.stream_flags(stream), "priority": self.stream_priority(stream)}

    def event_state(self, event) -> dict:
        # The event is made again, not recorded: work recorded before the move is complete by the
        # time the session moves (the stop waits for it), and a wait on it passes, as on the source.
        return {"flags": self._event_flags.get(self.object_key(event), 0)}

    def event_restore(self, state: dict):
        return self.event_create(state["flags"])

    def _names(self, key: int) -> set[str] | None:
        """The names of a module's variables, read from its image once (None: a format this server
        cannot list)."""
        if key not in self._variable_names:
            image = self._images.get(key)
            self._variable_names[key] = None if image is None else _names_of(image)
        return self._variable_names[key]

    def escape_ranges(self) -> list[tuple[int, int, str]]:
        # every variable of every module (a kernel can store any one's address, not only those the
        # program was handed), and the addresses the program kept from before a move
        ffi, lib, _ = self._current()
        p, n = ffi.new("CUdeviceptr *"), ffi.new("size_t *")
        with self.free_lock:  # a module unloaded meanwhile takes its ranges with it
            out = [(held, held + self._aliases[held][1], name) for (_, name), held in self._alias_of.items()]
            for m in list(self._modules):
                key = self.object_key(m)
                ranges = self._var_ranges.get(key)
                if ranges is None:
                    ranges = []
                    for name in sorted((self._names(key) or set()) | self._handed.get(key, set())):
                        if lib.cuModuleGetGlobal_v2(p, n, m, name.encode()) == 0 and n[0]:
                            ranges.append((p[0], p[0] + n[0], name))
                    self._var_ranges[key] = ranges
                out.extend(ranges)
        return out

    def module_state(self, module) -> dict:
        key = self.object_key(module)
        if self._images.get(key) is None:
            self._refuse("a module was loaded in a way whose image this server did not keep")
        found = self._names(key)
        if found is None:
            self._refuse("a module's image is in a format whose variables this server cannot list")
        ffi, lib, _ = self._current()
        out, handed, at = {}, {}, {}
        p, n = ffi.new("CUdeviceptr *"), ffi.new("size_t *")
        for name in sorted(found | self._handed.get(key, set())):
            if lib.cuModuleGetGlobal_v2(p, n, module, name.encode()) != 0:
                continue  # not a variable the driver placed (an internal symbol)
            out[name] = self.read_memory(p[0], n[0], _variable=True) if n[0] else b""
            at[name] = p[0]
            if name in self._handed.get(key, ()):
                # the address the program holds: this process's, or the one it kept from before a move
                handed[name] = self._alias_of.get((key, name), p[0])
        return {"variables": out, "handed": handed, "addresses": at}

    def module_restore(self, image: bytes, companion, state: dict):
        try:
            m = self.module_load(image, companion)
        except CudaError as e:  # another model (a move an admin named across models): no code for it
            if e.code not in ("CUDA_ERROR_NO_BINARY_FOR_GPU", "CUDA_ERROR_INVALID_PTX"):
                raise
            raise CudaError(e.code, f"a module of the session has no code this GPU ({self.arch_name()}) runs: it "
                            f"carries {variables.code_in(image)}; the session stays on its GPU") from None
        ffi, lib, check = self._current()
        p, n = ffi.new("CUdeviceptr *"), ffi.new("size_t *")
        values = state.get("variables", {})
        here = {}
        for name, data in values.items():
            check(lib.cuModuleGetGlobal_v2(p, n, m, name.encode()))
            if n[0] != len(data):
                raise CudaError("CUDA_ERROR_INVALID_IMAGE", f"module variable '{name}' is {n[0]} bytes here, "
                                f"{len(data)} at the source")
            here[name] = p[0]
        key = self.object_key(m)
        moved = []  # (start, end at the source or as the program holds it, start here)
        for name, held in state.get("handed", {}).items():
            addr, size = self.symbol_range(m, name)
            self._handed.setdefault(key, set()).add(name)
            if addr != held:
                self._alias_add(key, name, held, addr, size)
                moved.append((held, held + size, addr))
        was = state.get("addresses", {})
        moved += [(was[name], was[name] + len(data), here[name]) for name, data in values.items()
                  if data and was.get(name, here[name]) != here[name]]
        self._restore_moves.extend(moved)
        moved = Ranges(moved)  # sorted once: a library's module has thousands of variables
        for name, data in values.items():
            if data:
                # a variable holding another's address (an initializer the driver relocated at
                # load, or one the program stored) holds where that variable is here
                written = relocate(data, moved, name)
                self.write_memory(here[name], written)
                self._restore_vars.append((here[name], data, written, name))
        self._restore_modules += 1
        return m

    def restore_device(self, state: dict) -> None:
        """After every module is loaded again: a variable holding the address of another module's
        variable (stored by the program by name, or `extern` variables linked across modules)
        points where that one is now. Each module's own were pointed there by module_restore."""
        kept, moves, modules = self._restore_vars, self._restore_moves, self._restore_modules
        self._restore_vars, self._restore_moves, self._restore_modules = [], [], 0
        if modules < 2 or not moves:
            return
        every = Ranges(moves)
        for addr, data, written, name in kept:
            out = relocate(data, every, name)
            if out != written:
                self.write_memory(addr, out)

    def function_state(self, function) -> dict:
        state = dict(self._func_attrs.get(self.object_key(function), {}))
        launcher = getattr(self, "launcher", None)
        if launcher is not None:  # what a step set (launches.py serve_attributes) is the loop's to say
            for name in SERVED_ATTRIBUTES:
                if (value := launcher.attribute_of(function, name)) is not None:
                    state[name] = value
        return state

    def function_restore(self, function, state: dict) -> None:
        for attribute, value in state.items():
            self.function_set_attribute(function, attribute, value)
