"""A client session: the device it is bound to, the handles it was given, its sticky error.

Handles that reach the client are small integers issued here, never backend objects or pointers,
so a forged or stale handle is an invalid-handle error rather than a crash of a real driver."""
from __future__ import annotations

from .backends.base import Device
from .errors import CudaError

DEFAULT_STREAMS = (0, 1, 2)  # NULL, cudaStreamLegacy, cudaStreamPerThread
# A run of launches in one message keeps the GPU (one acquire, one release) until it has used this
# much device time or the client waits for a reply: a stream of tiny kernels then costs the
# scheduler one round trip through its lock per message, not per kernel, and a neighbour waits at
# most this long (or one kernel, if longer) for its turn, as with a time slice.
HOLD_S = 0.005
# A real GPU runs a session's kernels after their launch. Handing the GPU to a neighbour that wants it
# while they still run would let the GPU run both at once, sharing itself by its own time slices
# instead of by guarantee, and put each session's kernels inside the other's timing. So the
# kernels get up to this long to finish first (Device.settle); longer ones are time-sliced by the
# GPU with the neighbour's, as they would be without rgpu.
HAND_OVER_S = 0.25


class SessionEnding(BaseException):
    """Raised from inside a long call (a kernel at a time-slice checkpoint) when the session must
    end now: its lease ended or its client is gone. A BaseException so that no handler's error
    translation turns it into a CUDA error for a client that is not there."""

    def __init__(self, reason: str):
        super().__init__(reason)
        self.reason = reason


class Session:
    def __init__(self, device: Device, session_id: str = ""):
        self.device = device
        self.id = session_id
        self._handles: dict[int, tuple[str, object]] = {}
        # function handles by their module's object key: they go with it (module_unload)
        self._functions_of: dict[int, set[int]] = {}
        self.next_handle = 0x1000  # handles are never reused: a stale one stays invalid
        # How some objects were made, by handle: a module's image digests (checkpoint/objects.py),
        # and the images themselves by digest while a module of them lives (a checkpoint carries them).
        self.origins: dict[int, dict] = {}
        self.images: dict[str, bytes] = {}
        self.restore_images: dict[str, bytes] = {}
        self.sched = None  # GpuScheduler of this session's GPU (None: no other session to share with)
        self.bulk = None  # the bulk channel beside a CURVE wire, when the client offers one (server/bulk.py)
        self.heads = None  # the bases of heads sent as deltas, across hosts (server/head_delta.py)
        self.slot = 0
        # The worker's check for "end this session now" (stop from the supervisor, client gone),
        # run at time-slice checkpoints of long kernels; raises SessionEnding.
        self.housekeeping = None
        # Whose module images this session may load from the server's cache by digest alone: the
        # lease owner's ("" in direct mode, where no one has an identity): api/module.py
        self.cache_scope = ""
        self.managed: dict[int, int] = {}  # managed allocations: address -> size asked for (api/managed.py)
        self.vmm = None  # reserved ranges, mappings and physical allocations of the VMM API (api/vmm.py)
        self.pools = None  # memory pools and what each holds (api/pools.py)
        self.ipc = None  # handles exported and opened by CUDA IPC, when the server shares (api/ipc.py)
        self.ctx_waits: list = []  # the worker's events that streams made later wait for (api/stream.py)
        # Texture and surface objects by ("texture" | "surface", value): kernels receive the value
        # itself, so it is the backend's own, not a handle of this session's (api/textures.py).
        self.objects: dict[tuple[str, int], object] = {}
        # (free, total) as the lease's quotas make them, when the worker knows better than the device
        # alone: every session of the vGPU shares its memory (workers.GpuShared.mem_info).
        self.memory_view = None
        self.sticky: CudaError | None = None
        self.deferred: CudaError | None = None
        # Copies in pieces (server/pieces.py): the failed piece's result, for its copy's sync call,
        # and how many pieces came in and went out.
        self.piece_error = None
        self.pieces_in = self.pieces_out = 0
        # the bytes of the next message's D2H copy the socket's door sent in pieces before handing it
        # over (serve.c d2h_out): Python sends the rest from there (pieces.py run_d2h_pieces)
        self.d2h_sent = 0
        self.calls = 0
        self.last_seq = 0  # of the last call run (a migration resumes the client after it)
        self.closed = False
        self.messages = 0
        # What the client counted, from its goodbye: round trips it waited for, async calls, messages
        # of async calls only (libhook/src/transport/stats.c); logged when the session ends
        self.client_counts: list[int] | None = None
        # Async D2H copies into pinned memory the worker does not map (wire.OUT_LATER): (seq, data
        # frames) of each, sent before the next sync call's reply (worker.py, _send_late)
        self.later: list[tuple[int, tuple]] = []
        self.bytes_in = 0
        self.bytes_out = 0
        # Accounting: the backend's device time already charged to the scheduler, and the run of
        # kernels that holds the GPU now (see HOLD_S).
        self._accounted = 0.0
        self._holding = False
        self._held_time = 0.0
        self._held_kernels = 0

    def new_handle(self, kind: str, obj) -> int:
        h = self.next_handle
        self.next_handle += 8
        self.adopt(h, kind, obj)
        return h

    def adopt(self, h: int, kind: str, obj) -> None:
        """Put an object under handle h (a restored one under the handle the program holds:
        checkpoint/objects.py)."""
        self._handles[h] = (kind, obj)
        if (loop := self.device.compiled_loop) is not None:  # it looks handles up itself
            loop.learn(h, kind, obj)

    def new_function(self, module, fn, h: int | None = None) -> int:
        """A handle for function `fn` of `module` (h: the one it had, restored), which goes with the
        module (drop_functions_of)."""
        if h is None:
            h = self.new_handle("function", fn)
        else:
            self.adopt(h, "function", fn)
        self._functions_of.setdefault(self.device.object_key(module), set()).add(h)
        return h

    def drop_functions_of(self, module) -> None:
        """A module's function handles, gone with it (cuModuleUnload: CUDA invalidates them)."""
        for h in sorted(self._functions_of.pop(self.device.object_key(module), ())):
            if h in self._handles:
                self.drop("function", h)

    def handles(self) -> dict[int, tuple[str, object]]:
        return self._handles

    def remember_module(self, h: int, digest: str, image: bytes, companion: tuple[str, bytes] | None) -> None:
        """What a checkpoint needs to load module ``h`` again elsewhere: its image and companion."""
        self.origins[h] = {"digest": digest, "companion": companion[0] if companion else ""}
        self.images[digest] = image
        if companion:
            self.images[companion[0]] = companion[1]

    def get(self, kind: str, h: int):
        """The object behind handle h; default streams are None."""
        if not isinstance(h, int):
            raise CudaError("CUDA_ERROR_INVALID_HANDLE", f"a {kind} handle is an integer, not {type(h).__name__}")
        if kind == "stream" and h in DEFAULT_STREAMS:
            return None
        found = self._handles.get(h)
        if found is None or found[0] != kind:
            raise CudaError("CUDA_ERROR_INVALID_HANDLE", f"0x{h:x} is not a {kind} of this session")
        return found[1]

    def drop(self, kind: str, h: int):
        obj = self.get(kind, h)
        if obj is None:
            raise CudaError("CUDA_ERROR_INVALID_HANDLE", f"the default {kind} cannot be destroyed")
        del self._handles[h]  # (a function's entry in _functions_of may stay: handles are never reused)
        if (loop := self.device.compiled_loop) is not None:
            loop.forget(h)
        origin = self.origins.pop(h, None)
        if origin is not None:  # the last module of an image lets the image go
            used = {d for o in self.origins.values() for d in (o["digest"], o["companion"])}
            for d in (origin["digest"], origin["companion"]):
                if d and d not in used:
                    self.images.pop(d, None)
        return obj

    def mem_info(self) -> tuple[int, int]:
        """cudaMemGetInfo's answer: what this session can still allocate, and its vGPU's memory (the
        spare of its quota it holds for the client's placements is its own to allocate: api/placed.py)."""
        if self.memory_view is None:
            return self.device.mem_info()
        free, total = self.memory_view()
        return min(total, free + self.device.spare), total

    def run_kernel(self, launch) -> None:
        """Run `launch()` when the GPU's scheduler says it is this session's turn, charging it the
        device time the backend measured (a backend that runs kernels asynchronously, the cuda
        one, reports it once they completed: it is charged then, at a later launch or at
        `settle`)."""
        sched, device = self.sched, self.device
        if device.schedules_itself:  # its executor takes the GPU around each kernel (sim/queue.py)
            device.sched, device.slot = sched, self.slot
            launch()
            return

        def slice_done(seconds: float) -> None:
            if sched is not None:
                self._accounted += seconds
                sched.yield_slice(self.slot, seconds)
            if self.housekeeping is not None:
                self.housekeeping()

        device.checkpoint = slice_done
        try:
            if sched is None:
                launch()
                return
            if not self._holding:
                sched.acquire(self.slot)
                self._holding = True
            try:
                launch()
            except BaseException:
                self._held_kernels += 1
                self._release()
                raise
            self._held_kernels += 1
            self._held_time += self._new_device_time()
            if self._held_time >= HOLD_S:
                self._release()
        finally:
            device.checkpoint = None

    def hold_for_launches(self) -> bool:
        """Makes the GPU this session's for the device's compiled launch loop (cuda/launches.py), and
        says whether the loop may launch: not with something sticky to report. The GPU is held by a
        run of launches already, or taken now as run_kernel takes it for a first launch (the loop's
        first call is a launch: a run of one launch and a synchronize, the common step, is then the
        loop's too)."""
        if self.sticky is not None or self.piece_error is not None:
            return False
        if self.sched is not None and not self._holding:
            self.sched.acquire(self.slot)
            self._holding = True
        return True

    def hold_for_step(self) -> bool:
        """`hold_for_launches` for a message of launches and one wait that the compiled loop serves
        whole (worker.py): only with no error pending to report at the wait, and while no other
        session of the GPU wants it. The GPU is then given back after the wait (`stepped`) rather
        than before it: the loop answers only a wait on work done within its short poll (launches.c,
        as long as waits.py's; a longer one is Python's, which gives the GPU back first), and the
        kernels are done by then, so their device time is charged at the release. A session that gives the GPU
        up to a neighbour lets its kernels finish first (`_release`), and that is Python's path."""
        if self.deferred is not None or (self.sched is not None and self.sched.contended(self.slot)):
            return False
        return self.hold_for_launches()

    def stepped(self, n: int, device_time: float, kernels: int | None = None) -> None:
        """The compiled loop served a step whole (`hold_for_step`): `n` calls, `kernels` of them launches
        (default all; the others a step's memsets and copies), then the wait (counted with its reply),
        the kernel clock settled at `device_time`. Counted as `ran_launches` counts launches, and the
        GPU given back with every second of device time since the last charge."""
        self.calls += n
        if self.loop_sched is not None:  # (the GPU the loop took)
            self._held_kernels += n if kernels is None else kernels
            self._give_back(device_time)

    def ran_launches(self, n: int, last_seq: int, runtime: bool, kernels: int | None = None) -> None:
        """The compiled loop ran `n` calls, `kernels` of them launches (default all), the last of them
        call `last_seq`: counted as run_kernel counts each launch, and the GPU given back once the run
        has used its time (HOLD_S)."""
        self.calls += n
        self.last_seq = last_seq
        self.face = "runtime" if runtime else "driver"
        if self.loop_sched is not None:
            self._held_kernels += n if kernels is None else kernels
            self._held_time += self._new_device_time()
            if self._held_time >= HOLD_S:
                self._release()

    def _new_device_time(self, t: float | None = None) -> float:
        """Device time counted since the last charge; `t`: the device's count, if already read."""
        if t is None:
            t = self.device.device_time
        d, self._accounted = t - self._accounted, t
        return max(d, 0.0)

    def _release(self) -> None:
        self.device.settle(HAND_OVER_S if self.sched.contended(self.slot) else 0.0)
        self._give_back()

    def _give_back(self, device_time: float | None = None) -> None:
        """The GPU back to the scheduler, with the kernels and device time held since it was taken."""
        self.sched.release(self.slot, self._held_time + self._new_device_time(device_time), kernels=self._held_kernels)
        self._holding, self._held_time, self._held_kernels = False, 0.0, 0

    def settle(self) -> None:
        """The client is about to wait (a synchronous call, or the end of a message): give up the
        GPU held since the last launches, let the backend close its timing of them, and charge
        device time that completed since (a real GPU's kernels finish after their launch)."""
        if self._holding:
            self._release()  # settles the device too, waiting for its kernels if someone else waits
            return
        if self.device.schedules_itself:
            return  # its executor charged its kernels
        self.settled(self.device.settle_and_time())

    @property
    def accounted(self) -> float:
        """The device time charged to the scheduler so far (infinite without one: nothing to charge):
        the worker's compiled serving loop leaves a wait that settled past it to `settled`."""
        return self._accounted if self.sched is not None else float("inf")

    def loop_accounted(self, device_time: float) -> None:
        """The worker's compiled serving loop charged the scheduler up to `device_time` (its steps'
        give-backs, as `stepped`)."""
        self._accounted = device_time

    @property
    def loop_sched(self):
        """The scheduler the worker's compiled serving loop takes the GPU from for a step (server/ring.py,
        native/sched.c), or None: no scheduler, or a device whose executor takes the GPU around each of
        its kernels (the software GPU's, served by the loop only while idle: its copies take no GPU
        time, as Python's run of them takes none)."""
        return None if self.device.schedules_itself else self.sched

    def held_by_loop(self) -> None:
        """The worker's compiled serving loop took the GPU for a step (as `hold_for_step`) and left the
        rest of it to Python: the session holds it, with nothing held yet to charge."""
        if self.loop_sched is not None:
            self._holding, self._held_time, self._held_kernels = True, 0.0, 0

    def settled(self, device_time: float) -> None:
        """The device settled itself and read its device time (settle without holding the GPU): what
        completed since the last charge is charged."""
        if self.sched is not None and device_time > self._accounted:
            self.sched.charge(self.slot, self._new_device_time(device_time))

    def close(self) -> None:
        """Free everything the session holds (once: a migrated session is closed when it moves)."""
        if self.closed:
            return
        self.closed = True
        if self.ipc is not None:
            self.ipc.close()
        self._handles.clear()
        self._functions_of.clear()
        if (loop := self.device.compiled_loop) is not None:
            loop.clear()
        self.origins.clear()
        self.images.clear()
        self.objects.clear()
        self.device.close()
