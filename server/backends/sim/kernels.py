"""Modules and kernel launches of the software GPU: the interface the sim device backend calls.

    mod = KernelModule.load(image)              # fatbin / wrapper / PTX / cubin bytes
    addrs = mod.bind(mem)                       # module variables into device memory
    stats = launch(mod, mod.functions["k"], mem, grid, block, dynamic_shared, params, printf_out)

A launch runs the grid in batches of whole blocks; every thread of a batch is a numpy lane
(ptx/interp.py), or, once a kernel the compiler covers has done enough work, native code (jit/).
Faults raise SimFault after the output printed so far is in ``printf_out``.
"""
from __future__ import annotations

import time
from dataclasses import dataclass, field
from functools import cached_property

import numpy as np
import structlog

from . import archs, cdp, fatbin, jit, lanes
from .cubin import Param, kparam_info, register_counts
from .errors import SimError
from .lanes import MAX_WARPS_PER_SM, NUM_SMS, WARP_SIZE  # noqa: F401  (device limits read from here)
from .memory import DeviceMemory
from .ptx import interp, lazy
from .ptx.parser import Module
from .ptx.program import Program, entry_param_layout, flatten

_log = structlog.get_logger()

# Limits every architecture shares (the others are in archs.py); the device-properties code reads these too.
MAX_THREADS_PER_BLOCK = 1024
MAX_BLOCK_DIM = (1024, 1024, 64)
MAX_GRID_DIM = (2**31 - 1, 65535, 65535)
SHARED_STATIC_MAX = 48 * 1024  # static shared memory, and dynamic without opt-in
MAX_PARAM_BYTES = 32764  # CUDA 12.1+ kernel parameter limit
REGISTERS_PER_SM = 65536  # the register file (MAX_REGISTERS_PER_MULTIPROCESSOR, and per block)
REGISTER_UNIT = 256  # registers are given to warps 256 at a time: 8 per thread
MAX_REGISTERS_PER_THREAD = 255
# Lanes in flight per batch are bounded by the host memory their registers take.
LANE_BYTES_BUDGET = 256 << 20
MAX_LANES = 1 << 20
# A kernel runs in slices of about this much device time when its launch has a checkpoint (the
# session's scheduler): between two, another session may take the GPU, as GPUs time-slice contexts.
TIMESLICE_S = 0.01
# Where a module's functions have their addresses (``mov.u64 %rd, f``: the kernel a device-side launch
# names, ptx/ops_cdp.py; the device function a pointer or a vtable holds, ptx/program.py): above
# device memory and below the generic windows, so that reading one faults, as reading code does.
CODE_WINDOW = 0x7FFB_0000_0000


class _Slices:
    """The device time of one launch, cut into slices at the interpreter's safe points. When a
    slice has run TIMESLICE_S the checkpoint is told its length; it may block for another session's
    turn, and that wait is not device time."""

    __slots__ = ("checkpoint", "start", "seconds")

    def __init__(self, checkpoint):
        self.checkpoint = checkpoint
        self.seconds = 0.0
        self.start = time.perf_counter()

    def __call__(self) -> None:
        run = time.perf_counter() - self.start
        if run < TIMESLICE_S:
            return
        self.seconds += run
        self.checkpoint(run)
        self.start = time.perf_counter()

    def total(self) -> float:
        return self.seconds + time.perf_counter() - self.start


@dataclass
class ModuleVariable:
    name: str
    space: str  # "global" or "const"
    size: int
    init: bytes
    align: int = 16


class KernelFunction:
    """One ``.entry`` of a module. Its name and parameter layout come from the header alone; the
    program (and what depends on the code: shared and local memory, registers) is built on first
    use, so a module of hundreds of kernels costs only the ones a program touches."""

    def __init__(self, module: "KernelModule", name: str, params: list[Param], param_size: int,
                 max_threads: int, register_cap: int = 64):
        self.module, self.name, self.params, self.param_size = module, name, params, param_size
        self._max_threads = max_threads  # from .maxntid/.reqntid in the header
        self._register_cap = register_cap  # what ptxas would stay within (register_cap())
        self._program: Program | None = None
        self._error: SimError | None = None
        self._max_dynamic: int | None = None

    @property
    def program(self) -> Program | None:
        """The flattened kernel; None when it cannot be built (``load_error`` says why)."""
        if self._program is None and self._error is None:
            try:
                prog = flatten(self.module.ptx, self.name)
                names = list(prog.kparams)
                if len(names) == len(self.params):
                    # The program reads its parameters where the launch buffer has them: the cubin's
                    # layout when the image has one, which differs from the PTX declarations' where the
                    # ABI places the buffer (sm_90 puts a 128-byte aligned parameter, a __grid_constant__
                    # CUtensorMap, at cubin offset 112, not 0).
                    prog.kparams = {n: p.offset for n, p in zip(names, self.params)}
                self._program = prog
            except SimError as exc:
                self._error = SimError(exc.code, f"{exc.message} (kernel {self.name}{self.module.where()})")
        return self._program

    @cached_property
    def required_cluster(self) -> tuple[int, int, int] | None:
        """The cluster dimensions compiled into the kernel (.reqnctapercluster: __cluster_dims__);
        read once, as every launch asks it."""
        d = self._header_directives().get(".reqnctapercluster")
        return None if not d else tuple((list(d) + [1, 1])[:3])

    @property
    def explicit_cluster(self) -> bool:
        """Whether the kernel must be launched in clusters (.explicitcluster)."""
        return ".explicitcluster" in self._header_directives()

    def _header_directives(self) -> dict:
        try:
            return self.module.ptx.functions.header(self.name).directives
        except (KeyError, AttributeError, SimError):
            return {}

    @property
    def load_error(self) -> SimError | None:
        self.program  # noqa: B018  (builds it, or records why it cannot be built)
        return self._error

    @property
    def static_shared_bytes(self) -> int:
        return self.program.static_shared if self.program else 0

    @property
    def local_bytes(self) -> int:
        return self.program.local_size if self.program else 0

    @property
    def num_regs(self) -> int:
        counted = self.module.register_counts.get(self.name)
        if counted is not None:  # the image's own machine code: what ptxas allocated
            return counted
        prog = self.program
        if prog is None:
            return 0
        # The PTX's virtual registers, a ceiling on what ptxas would allocate, within the budget
        # ptxas keeps to so that the kernel runs at its launch bounds.
        declared = sum(2 if t in ("b64", "u64", "s64", "f64") else 1 for t, _ in prog.regs.values() if t != "pred")
        return min(self._register_cap, max(16, declared))

    @property
    def const_bytes(self) -> int:
        """CU_FUNC_ATTRIBUTE_CONST_SIZE_BYTES: the module's user constant bank (its .const
        variables, laid out as the driver loads them), which every kernel of the module sees."""
        size = 0
        for v in self.module.variables.values():
            if v.space == "const":
                size = -(-size // v.align) * v.align + v.size
        return size

    @property
    def max_threads_per_block(self) -> int:
        limit = min(MAX_THREADS_PER_BLOCK, self._max_threads)
        counted = self.module.register_counts.get(self.name)
        if counted:
            # SASS's registers, which ptxas fitted to no launch bound it was told of: the block's
            # warps must find them in one SM's register file (as the driver reports a kernel of
            # 255 registers with a maximum of 256 threads), allocated per warp 256 at a time
            per_warp = -(-counted * WARP_SIZE // REGISTER_UNIT) * REGISTER_UNIT
            limit = min(limit, max(1, REGISTERS_PER_SM // per_warp) * WARP_SIZE)
        return limit

    @property
    def max_dynamic_shared_bytes(self) -> int:
        if self._max_dynamic is None:
            return max(0, SHARED_STATIC_MAX - self.static_shared_bytes)
        return self._max_dynamic

    def set_max_dynamic_shared(self, nbytes: int) -> None:
        """cuFuncSetAttribute(CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES)."""
        optin = self.module.arch.shared_optin
        if nbytes < 0 or nbytes + self.static_shared_bytes > optin:
            raise SimError("CUDA_ERROR_INVALID_VALUE",
                           f"{nbytes} bytes of dynamic shared memory exceed the device maximum of "
                           f"{optin - self.static_shared_bytes} for {self.name}")
        self._max_dynamic = nbytes


@dataclass
class LaunchStats:
    thread_instructions: int
    seconds: float
    blocks: int
    batches: int


def param_layout(image: bytes, cc=None) -> dict[str, tuple[list[Param], int]]:
    """Kernel name -> (parameter layout, total bytes) of a module image, from the cubin's
    EIATTR_KPARAM_INFO when the image carries one, else from the PTX ``.entry`` declarations."""
    img = fatbin.parse_image(image)
    out: dict[str, tuple[list[Param], int]] = {}
    for e in img.cubins:
        out.update(kparam_info(e.data))
    if img.ptx:
        try:
            mod = lazy.load(fatbin.choose_ptx(img, _arch(cc).cc).data)
        except SimError:
            mod = None
        if mod is not None:
            for name in mod.functions:
                fn = mod.functions.header(name)
                if fn.entry and not fn.extern:
                    ptx_params, size = entry_param_layout(fn)
                    if name in out and len(out[name][0]) == len(ptx_params):
                        # The cubin's offsets (the launch buffer's layout, which the ABI may shift from
                        # the PTX's); PTX also knows each parameter's declared alignment.
                        out[name] = ([Param(c.offset, c.size, p.align) for c, p in zip(out[name][0], ptx_params)],
                                     out[name][1])
                    else:
                        out.setdefault(name, (ptx_params, size))
    return out


def _arch(arch) -> archs.Arch:
    """An Arch from an Arch, a name ("sm_90"), a compute capability tuple, or None (the default)."""
    if isinstance(arch, archs.Arch):
        return arch
    if isinstance(arch, tuple):
        return archs.get(f"sm_{arch[0]}{arch[1]}")
    return archs.get(arch)


class KernelModule:
    def __init__(self, ptx: Module, layouts: dict[str, tuple[list[Param], int]], arch: archs.Arch | None = None,
                 label: str = ""):
        self.ptx = ptx
        self.arch = arch or archs.get()
        self.label = label  # what the module is, for error messages (a library's name, ...)
        self.register_counts: dict[str, int] = {}  # kernel -> registers, from a cubin of the image
        self.ptx_arch = self.arch.number
        self.functions: dict[str, KernelFunction] = {}
        self.variables: dict[str, ModuleVariable] = {}
        self.addresses: dict[str, int] = {}
        self.segment: int | None = None  # the one allocation holding every variable (bind)
        self._mem: DeviceMemory | None = None
        self._compiled: dict[tuple, list] = {}
        self._bound: dict[str, list] = {}  # kernel name -> code compiled for ``_bound_to``
        self._bound_to: dict[str, int] | None = None
        self._jitted: dict[tuple, object] = {}  # (kernel, addresses) -> jit.engine.Compiled, or None: interpreted
        for var in ptx.variables.values():
            if var.space in ("global", "const") and not var.extern:
                self.variables[var.name] = ModuleVariable(var.name, var.space, var.size,
                                                          var.init or bytes(var.size), max(1, var.align))
        headers = getattr(ptx.functions, "header", ptx.functions.__getitem__)
        # every function's address, as code has one (a kernel's for device-side launches, a device
        # function's for calls through pointers and vtables)
        self.code_addresses: dict[str, int] = {}
        for name in list(ptx.functions):
            fn = headers(name)
            if fn.extern:
                continue
            self.code_addresses[name] = CODE_WINDOW + 256 * (len(self.code_addresses) + 1)
            if not fn.entry:
                continue
            params, psize = layouts.get(name) or entry_param_layout(fn)
            max_threads = MAX_THREADS_PER_BLOCK
            for d in (".maxntid", ".reqntid"):
                if fn.directives.get(d):
                    n = 1
                    for v in fn.directives[d]:
                        n *= v
                    max_threads = min(max_threads, n)
            self.functions[name] = KernelFunction(self, name, params, psize, max_threads,
                                                  register_cap(max_threads, fn.directives))
        self._entries_at = {self.code_addresses[name]: fn for name, fn in self.functions.items()}

    def function_at(self, addr: int) -> "KernelFunction | None":
        """The kernel whose address device code took (a device-side launch's function)."""
        return self._entries_at.get(addr)

    def where(self) -> str:
        return f", module {self.label}" if self.label else ""

    @classmethod
    def load(cls, image: bytes, cc=None, arch=None, label: str = "") -> "KernelModule":
        """The module in ``image`` for a device of ``arch`` (an Arch, "sm_90", or a (major, minor)
        ``cc``; default: archs.DEFAULT)."""
        arch = _arch(arch if arch is not None else cc)
        img = fatbin.parse_image(image)
        units = fatbin.choose_ptx_units(img, arch.cc)
        ptx = _link([lazy.load(e.data) for e in units])
        layouts: dict[str, tuple[list[Param], int]] = {}
        for e in img.cubins:
            try:
                layouts.update(kparam_info(e.data))
            except SimError:
                pass
        headers = getattr(ptx.functions, "header", ptx.functions.__getitem__)
        for name, (plist, size) in list(layouts.items()):
            fn = headers(name) if name in ptx.functions else None
            if fn is not None and len(fn.params) == len(plist):
                layouts[name] = ([Param(c.offset, c.size, p.align) for c, p in zip(plist, fn.params)], size)
        mod = cls(ptx, layouts, arch, label)
        # Register counts of the cubin nearest the device (never one newer): its machine code's.
        cubins = sorted((e for e in img.cubins if e.arch <= arch.number), key=lambda e: e.arch)
        for e in cubins[-1:]:
            try:
                mod.register_counts = register_counts(e.data)
            except SimError:
                pass
        # What cudaFuncAttributes.ptxVersion reports: the PTX the kernels were JIT-compiled from
        # (CUB picks its tuning policies, and the kernels they name, by it), not the device's.
        mod.ptx_arch = max(e.arch for e in units) or arch.number
        return mod

    def bind(self, mem: DeviceMemory) -> dict[str, int]:
        """Allocate and initialise the module's variables in ``mem``; returns name -> address.

        All of them lie in one allocation, the module's data segment, as a driver loads them: a
        module of CuPy's CUB reductions declares some 1,300 variables, and as allocations of their
        own each load paid for every allocation made before it."""
        offsets, size = {}, 0
        for v in self.variables.values():
            size = -(-size // v.align) * v.align
            offsets[v.name] = size
            size += max(v.size, 1)
        base = mem.alloc(size) if offsets else None
        addrs = {name: base + off for name, off in offsets.items()}
        data = bytearray(size)
        for v in self.variables.values():
            off = offsets[v.name]
            data[off:off + v.size] = v.init[:v.size].ljust(v.size, b"\0")
            for roff, sym, addend in self.ptx.variables[v.name].relocs:
                target = addrs.get(sym, self.code_addresses.get(sym, 0)) + addend
                n = min(8, v.size - roff)
                data[off + roff:off + roff + n] = target.to_bytes(8, "little")[:n]
        if data:
            mem.write(base, bytes(data))
        self.addresses = addrs
        self.segment = base
        self._mem = mem
        return addrs

    def compiled(self, func: KernelFunction) -> list:
        if self._bound_to is not self.addresses:  # rebound (or unloaded) since: look up again
            self._bound, self._bound_to = {}, self.addresses
        code = self._bound.get(func.name)
        if code is not None:
            return code
        # Compiled code embeds symbol addresses; a fresh session usually gets the same ones back.
        key = (func.name, tuple(sorted(self.addresses.items())))
        code = self._compiled.get(key)
        if code is None:
            if func.program is None:
                raise func.load_error
            try:
                code = interp.compile_program(func.program, {**self.code_addresses, **self.addresses})
            except SimError as exc:
                raise SimError(exc.code, exc.message + self.where()) from None
            self._compiled[key] = code
        self._bound[func.name] = code
        return code

    def jitted(self, func: KernelFunction, work: float = float("inf")):
        """The kernel's native code (jit/), or None: interpreted. A kernel is compiled once its
        launches' estimated `work` passes jit.after() (before that, None); one the compiler does not
        cover stays interpreted, decided once per kernel and logged once."""
        key = (func.name, tuple(sorted(self.addresses.items())))
        if key in self._jitted:
            return self._jitted[key]
        func._jit_work = getattr(func, "_jit_work", 0.0) + work
        if func._jit_work < jit.after():
            return None
        from .jit import check, engine
        from .jit.values import Unsupported
        compiled = None
        prog = func.program
        why = "the kernel cannot be built" if prog is None else check.why_not(prog)
        if why is None:
            try:
                compiled = engine.compile_kernel(prog, {**self.code_addresses, **self.addresses})
            except Unsupported as exc:
                why = str(exc)
            except Exception as exc:  # noqa: BLE001  (a compiler bug must cost speed, never a launch)
                why = f"compiler error {exc!r}"
        if compiled is None:
            _log.info("sim_jit_fallback", kernel=func.name, reason=why)
        self._jitted[key] = compiled
        return compiled


def register_cap(max_threads: int, directives: dict[str, list[int]]) -> int:
    """The most registers a thread of this kernel may have: what ptxas keeps to so that a block of
    its most threads (.maxntid, .reqntid, else the device's 1024), ``.minnctapersm`` of them at
    once, fit one SM's register file, and no more than ``.maxnreg``. CUDA's occupancy calculator
    then finds at least one block resident at every block size up to MAX_THREADS_PER_BLOCK, as on a
    GPU; CUB sizes its grids by it (a zero there launches nothing)."""
    ctas = max(1, (directives.get(".minnctapersm") or [1])[0])
    warps = -(-max(1, max_threads) // WARP_SIZE) * ctas
    per_warp = REGISTERS_PER_SM // warps // REGISTER_UNIT * REGISTER_UNIT
    cap = min(MAX_REGISTERS_PER_THREAD, per_warp // WARP_SIZE)
    if directives.get(".maxnreg"):
        cap = min(cap, directives[".maxnreg"][0])
    return max(cap, 8)  # ptxas's floor for any kernel: a .minnctapersm past the file is its error


def _link(units: list[Module]) -> Module:
    """Merge the PTX of several -rdc translation units: definitions replace extern declarations."""
    mod = units[0]
    for other in units[1:]:
        for name, fn in other.functions.items():
            if name not in mod.functions or (mod.functions[name].extern and not fn.extern):
                mod.functions[name] = fn
        for name, var in other.variables.items():
            if name not in mod.variables or (mod.variables[name].extern and not var.extern):
                mod.variables[name] = var
    return mod


def _check_config(func: KernelFunction, grid, block, dynamic_shared: int, params: bytes) -> None:
    if len(grid) != 3 or len(block) != 3:
        raise SimError("CUDA_ERROR_INVALID_VALUE", "grid and block must have three dimensions")
    if any(b < 1 for b in block) or any(b > m for b, m in zip(block, MAX_BLOCK_DIM)):
        raise SimError("CUDA_ERROR_INVALID_VALUE", f"block {tuple(block)} exceeds the limits {MAX_BLOCK_DIM}")
    nthreads = block[0] * block[1] * block[2]
    bound = min(MAX_THREADS_PER_BLOCK, func._max_threads)
    if nthreads > bound:
        # past the device's limit or the kernel's launch bound (.maxntid, .reqntid): the driver's
        # CUDA_ERROR_INVALID_VALUE (numba-cuda's TestLaunchBounds, run on GPUs, expects it)
        raise SimError("CUDA_ERROR_INVALID_VALUE",
                       f"{nthreads} threads per block exceed the maximum of {bound} for {func.name}")
    if nthreads > func.max_threads_per_block:
        # within its bounds but past what its registers allow in one SM: the driver's "too many
        # resources requested for launch"
        raise SimError("CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES",
                       f"{nthreads} threads per block need more registers than an SM has: {func.name} "
                       f"uses {func.num_regs} a thread, which allows {func.max_threads_per_block}")
    if any(g < 1 for g in grid) or any(g > m for g, m in zip(grid, MAX_GRID_DIM)):
        raise SimError("CUDA_ERROR_INVALID_VALUE", f"grid {tuple(grid)} exceeds the limits {MAX_GRID_DIM}")
    if dynamic_shared < 0 or dynamic_shared > func.max_dynamic_shared_bytes:
        raise SimError("CUDA_ERROR_INVALID_VALUE",
                       f"{dynamic_shared} bytes of dynamic shared memory exceed the {func.max_dynamic_shared_bytes} "
                       f"allowed for {func.name} (raise it with cudaFuncSetAttribute, up to "
                       f"{func.module.arch.shared_optin - func.static_shared_bytes})")
    if func.static_shared_bytes + dynamic_shared > func.module.arch.shared_optin:
        raise SimError("CUDA_ERROR_INVALID_VALUE", "shared memory per block exceeds the device maximum")
    if len(params) < func.param_size:
        raise SimError("CUDA_ERROR_INVALID_VALUE",
                       f"{func.name} takes {func.param_size} bytes of parameters, {len(params)} given")
    if len(params) > func.param_size:
        # as the driver answers a CU_LAUNCH_PARAM_BUFFER_SIZE past the kernel's parameters (seen on an H200)
        raise SimError("CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES",
                       f"{func.name} takes {func.param_size} bytes of parameters, a buffer of {len(params)} given")


def _batch_state(func, prog, mem, grid, block, start, nb, dynamic_shared, kparam, cluster=(1, 1, 1)):
    arch = func.module.arch
    geo = lanes.geometry(grid, block, start, nb, arch.sms, arch.max_warps_per_sm, cluster)
    n = geo.n
    st = interp.State(n, geo)
    st.name = func.name
    st.mem = mem
    st.dynamic_shared = dynamic_shared
    st.shared_limit = lanes.shared_window(prog.dynamic_shared_offset + dynamic_shared if dynamic_shared
                                          else prog.static_shared)
    if _uses_reserved_smem(prog):
        # Only kernels that ask for it get the reserved region, so that every other kernel's
        # shared-memory bounds stay those of its allocation.
        st.reserved_smem = -(-st.shared_limit // 16) * 16
        st.shared_limit = st.reserved_smem + interp.RESERVED_SMEM
    st.shared_stride = -(-max(st.shared_limit, 1) // 16) * 16
    # Fresh per launch: shared and local memory start zeroed, registers read as zero until written.
    st.shared = np.zeros(nb * st.shared_stride, np.uint8)
    st.local_limit = prog.local_size
    st.local_stride = max(16, prog.local_size)
    st.local = np.zeros(n * st.local_stride, np.uint8)
    st.kparam = kparam
    st.carry = np.zeros(n, bool)
    st.R = interp.Regs(_decl_cache(prog), n)
    return st, geo.live


def _does_nothing(prog: Program) -> bool:
    """Whether a kernel's body is only returns (`ret`, `ret.uni`, `exit`, guarded or not): an empty
    kernel. Remembered per program."""
    empty = getattr(prog, "_does_nothing", None)
    if empty is None:
        empty = prog._does_nothing = bool(prog.code) and all(
            getattr(ins, "opcode", "").split(".")[0] in ("ret", "exit") for ins in prog.code)
    return empty


def _uses_reserved_smem(prog: Program) -> bool:
    uses = getattr(prog, "_reserved_smem", None)
    if uses is None:
        def names(o):
            return [n for x in o.value for n in names(x)] if o.kind in ("vec", "list") else [o.value]
        uses = any(isinstance(n, str) and n.startswith("%reserved_smem")
                   for ins in prog.code for o in ins.operands for n in names(o))
        prog._reserved_smem = uses
    return uses


def _decl_cache(prog: Program):
    d = getattr(prog, "_decl", None)
    if d is None:
        from .ptx.types import dtype_of
        d = {name: dtype_of(t) for name, (t, _v) in prog.regs.items()}
        prog._decl = d
    return d


def _plan(func: KernelFunction, grid, block, dynamic_shared: int, params: bytes) -> tuple[int, int]:
    """(blocks in the grid, blocks per batch) of a valid configuration. Validation and sizing
    depend only on the configuration, so they are remembered per function."""
    # _max_dynamic (None: the default) stands for max_dynamic_shared_bytes, the rest of which is
    # fixed per function: a launch's key costs no property chain (the sim's launch rate, issue 14)
    key = (grid, block, dynamic_shared, len(params), func._max_dynamic)
    plans = func.__dict__.get("_plans")
    if plans is None:
        plans = func._plans = {}
    plan = plans.get(key)
    if plan is None:
        _check_config(func, grid, block, dynamic_shared, params)
        prog = func.program
        tpad = -(-(block[0] * block[1] * block[2]) // WARP_SIZE) * WARP_SIZE
        nblocks = grid[0] * grid[1] * grid[2]
        if prog is None:  # nothing to size: compiled() reports why the kernel cannot run
            return nblocks, 1
        per_lane = 8 * max(len(prog.regs), 1) + prog.local_size + 64
        max_lanes = max(tpad, min(MAX_LANES, LANE_BYTES_BUDGET // per_lane))
        plan = (nblocks, max(1, min(nblocks, max_lanes // tpad)))
        if len(plans) >= 64:
            plans.clear()
        plans[key] = plan
    return plan


def launch(module: KernelModule, func: KernelFunction, mem: DeviceMemory, grid, block, dynamic_shared: int,
           params: bytes, printf_out: list[str], checkpoint=None, grid_workspace: int = 0,
           cluster: tuple = (1, 1, 1), depth: int = 0) -> LaunchStats:
    """Run a kernel to completion. `grid_workspace` (cooperative launches): the address the kernel
    finds in %envreg1:%envreg2 for grid-wide sync; the whole grid then runs as one batch, because
    its blocks wait for one another. `cluster`: thread-block cluster dimensions (checked by the
    caller to divide the grid); its blocks run in one batch, cluster by cluster (lanes.py). The
    grids its threads launch (dynamic parallelism; `depth`: how deep this grid is) run after it,
    within this call (cdp.py)."""
    if type(grid) is not tuple or type(block) is not tuple:
        grid, block = tuple(map(int, grid)), tuple(map(int, block))
    dynamic_shared = int(dynamic_shared)
    nblocks, per_batch = _plan(func, grid, block, dynamic_shared, params)
    csize = cluster[0] * cluster[1] * cluster[2]
    if csize > 1:
        per_batch = max(csize, per_batch // csize * csize)
    if module._mem is not mem:
        module.bind(mem)
    prog = func.program
    if not grid_workspace and prog is not None and _does_nothing(prog):
        # Nothing to interpret: no lane can read, write, print or fault. Done at its launch, as
        # a GPU is within a microsecond (a stream of such launches measures rgpu, not the interpreter).
        return LaunchStats(0, 0.0, nblocks, 0)
    envregs = {}
    if grid_workspace:
        per_batch = nblocks
        envregs = {"%envreg1": grid_workspace >> 32, "%envreg2": grid_workspace & 0xFFFFFFFF}
    compiled = None
    compilable = jit.enabled() and not grid_workspace and csize == 1 and prog is not None
    if compilable:
        # compiled (once) before the launch's clock starts: compiling is not device time
        compiled = module.jitted(func, nblocks * block[0] * block[1] * block[2] * len(prog.code))
    slices = _Slices(checkpoint) if checkpoint is not None else None
    t0 = time.perf_counter()
    # Read-only, like the GPU's parameter bank: nothing stores to kernel parameters.
    params = bytes(params)
    kparam = np.frombuffer(params.ljust(-(-max(len(params), 1) // 16) * 16, b"\0"), np.uint8)
    if compiled is not None:
        from .jit import runner
        executed = runner.run(compiled, prog, mem, grid, block, dynamic_shared, kparam, slices,
                              printf_out=printf_out, batch_blocks=per_batch)
        seconds = slices.total() if slices is not None else time.perf_counter() - t0
        return LaunchStats(executed, seconds, nblocks, 1)
    code = module.compiled(func)
    executed = 0
    batches = 0
    children = cdp.DeviceLaunches(module, mem, depth, _check_config)
    try:
        with np.errstate(all="ignore"):
            for start in range(0, nblocks, per_batch):
                nb = min(per_batch, nblocks - start)
                st, live = _batch_state(func, prog, mem, grid, block, start, nb, dynamic_shared, kparam, cluster)
                st.checkpoint = slices
                st.envregs = envregs
                st.launches = children
                t_batch = time.perf_counter()
                try:
                    interp.run(st, code, live)
                except SimError:  # a fault (SimFault) among them
                    printf_out.extend(st.printf_out)
                    raise
                except (IndexError, KeyError, ValueError, TypeError, OverflowError, AttributeError,
                        ZeroDivisionError) as exc:
                    printf_out.extend(st.printf_out)
                    raise SimError("CUDA_ERROR_NOT_SUPPORTED",
                                   f"the software GPU failed executing {func.name}: {exc!r}") from exc
                printf_out.extend(st.printf_out)
                executed += st.executed
                batches += 1
                # measured before the clock's call, which may wait while other sessions run
                spent = time.perf_counter() - t_batch
                if slices is not None:
                    slices()
                # The estimate (threads x code length) misses loops, and the interpreter's rate
                # falls with the lanes it runs at once (one thread: some 1e5 instructions a second, not
                # 1e8): a batch counts what it ran, or its time at the nominal rate, whichever is more.
                # Past the threshold the kernel is compiled (for its next launch: eigenvalues'
                # bisection, LargeKernelParameter's one-thread loop) and this launch's blocks still to
                # run run compiled (blocks are independent, and the ones before them have finished).
                ran = max(st.executed, spent * jit.interpreted_rate())
                more = ran - nb * block[0] * block[1] * block[2] * len(prog.code) if compilable else 0
                if more > 0:
                    compiled = module.jitted(func, more)
                    if compiled is not None and start + nb < nblocks:
                        from .jit import runner
                        executed += runner.run(compiled, prog, mem, grid, block, dynamic_shared, kparam, slices,
                                               first=start + nb, printf_out=printf_out,
                                               batch_blocks=per_batch)
                        break
    except BaseException:
        children.drop()  # the launches its threads made will not run
        raise
    seconds = slices.total() if slices is not None else time.perf_counter() - t0
    if children:
        def child(f, g, b, shared, p, d):
            return launch(module, f, mem, g, b, shared, p, printf_out, checkpoint, depth=d)
        more, more_s = children.run(child)
        executed += more
        seconds += more_s
    return LaunchStats(executed, seconds, nblocks, batches)
