"""LLVM through llvmlite: IR text -> optimised native code, cached in memory by the IR's digest.

llvmlite is the binding numba itself is built on: wheels for every platform the server runs on,
LLVM linked in statically (no system LLVM to match), and an MCJIT whose functions ctypes calls
without holding the GIL, so the blocks of a launch run on several cores at once. The IR's digest
covers everything a kernel's code depends on (its PTX and the module-variable addresses embedded
in it), so kernels of different sessions that load the same module share one compilation: in
memory within a session, and through the object code kept in the server's sim cache directory
(ptx/cache.py) across sessions.
"""
from __future__ import annotations

import ctypes
import hashlib
import threading
import time
from dataclasses import dataclass, field

import structlog

from ..ptx import cache
from .check import host_call
from .codegen import Kernel
from .values import Unsupported

log = structlog.get_logger()

RUN = ctypes.CFUNCTYPE(ctypes.c_int32, ctypes.c_void_p)
_lock = threading.Lock()
_machine = None
_by_digest: dict[str, "Compiled"] = {}
CACHE_ENTRIES = 256
# Above this much IR, LLVM's loop unrolling and vectorisers are left out: in a kernel that big (CUB's
# onesweep radix sort: 3,200 PTX instructions, 245 warp-collective resume points, 4 MB of IR) they
# take half of a 9 s compilation, for loops nvcc has already unrolled as it wanted and per-thread
# code that has nothing to vectorise. Smaller kernels compile in about a second either way.
LEAN_IR_CHARS = 2_000_000


@dataclass
class Compiled:
    """A kernel's native code and the facts its launches need."""

    name: str
    run: object  # RUN: int32 rgpu_run(int64 *ctx)
    slots: int  # global-access cache slots in the context
    rf_size: int  # register-file bytes per thread
    compile_s: float
    engine: object = field(repr=False, default=None)  # keeps the code alive
    per_thread: float = 0.0  # thread-instructions a thread of its launches ran (runner.py; 0: none yet)
    host_calls: bool = False  # calls vprintf or __assertfail (runner.HostCalls)
    loop_free: bool = False  # no backward branch: each thread runs at most len(code) instructions


def _target():
    """A target machine for one engine (an MCJIT engine owns and frees the one it is given)."""
    global _machine
    import llvmlite.binding as llvm
    if _machine is None:
        llvm.initialize_native_target()
        llvm.initialize_native_asmprinter()
        _machine = (llvm.get_host_cpu_name(), llvm.get_host_cpu_features().flatten())
    # The host's own CPU: the server runs what it compiles. No fast-math flags are ever set, so
    # LLVM keeps every float operation as written (no contraction into FMA, no reassociation).
    return llvm.Target.from_default_triple().create_target_machine(cpu=_machine[0], features=_machine[1], opt=3)


def _tuning(ir_chars: int):
    import llvmlite.binding as llvm
    tuning = llvm.PipelineTuningOptions(speed_level=3)
    if ir_chars > LEAN_IR_CHARS:
        tuning.loop_unrolling = tuning.loop_vectorization = tuning.slp_vectorization = False
    return tuning


def host_has(feature: str) -> bool:
    """Whether the host CPU (the one kernels are compiled for) has an LLVM feature, e.g. f16c."""
    _target()
    return f"+{feature}" in _machine[1].split(",")


def compile_kernel(prog, symbols: dict[str, int]) -> Compiled:
    """Native code of a flattened kernel; raises Unsupported when the compiler does not cover it."""
    t0 = time.perf_counter()
    k = Kernel(prog, symbols)
    ir = k.module()
    digest = hashlib.sha256(ir.encode()).hexdigest()
    with _lock:
        hit = _by_digest.get(digest)
        if hit is not None:
            return hit
        import llvmlite.binding as llvm
        tm = _target()
        # object code on disk beside the parsed PTX (ptx/cache.py: verified on read, the server's
        # own directory), keyed by the IR and the CPU it was compiled for
        key = "jit:" + hashlib.sha256(f"{digest}:{llvm.llvm_version_info}:{_machine}".encode()).hexdigest()
        obj = cache.load_bytes(key)
        cached = obj is not None
        if obj is None:
            try:
                mod = llvm.parse_assembly(ir)
                mod.verify()
            except RuntimeError as exc:  # a form the code generator wrote wrong: the interpreter runs it
                raise Unsupported(f"LLVM rejected the generated code: {str(exc).splitlines()[0][:200]}") from exc
            pb = llvm.create_pass_builder(tm, _tuning(len(ir)))
            pb.getModulePassManager().run(mod, pb)
            obj = tm.emit_object(mod)
            cache.store_bytes(key, obj)
        holder = llvm.parse_assembly("")
        holder.triple = tm.triple
        engine = llvm.create_mcjit_compiler(holder, tm)
        engine.add_object_file(llvm.ObjectFileRef.from_data(obj))
        engine.finalize_object()
        addr = engine.get_function_address("rgpu_run")
        if not addr:
            raise Unsupported("the compiled object has no rgpu_run")
        compiled = Compiled(prog.name, RUN(addr), k.slots, k.rf_size, time.perf_counter() - t0, engine,
                            host_calls=any(host_call(i) for i in prog.code), loop_free=not k.loops)
        if len(_by_digest) >= CACHE_ENTRIES:
            _by_digest.pop(next(iter(_by_digest)))
        _by_digest[digest] = compiled
    log.info("sim_jit_compiled", kernel=prog.name, seconds=round(compiled.compile_s, 4),
             instructions=len(prog.code), from_disk=cached)
    return compiled
