"""The cuda backend's idle reclaim (server/backends/cuda/suspension.py) against the null driver
(benchmarks/native/nulldriver.c), which answers CUDA's checkpoint calls from another process in
the driver's order of states and unmaps device memory while a process is checkpointed. Each case
runs in a process of its own that loaded the null driver, as a worker does."""
from __future__ import annotations

import subprocess

from tests.support.null_server import run_script


PRELUDE = """
import ctypes, os
from rgpu.server.backends.cuda import device, suspension
from rgpu.server.errors import CudaError

ledger = [0]
room = [1 << 30]
def reserve(delta):
    if delta > 0 and ledger[0] + delta > room[0]:
        return False
    ledger[0] += delta
    return True

def mapped(addr):
    # whether memory the process can read is mapped at addr (a checkpointed range of the session's
    # arena stays reserved, inaccessible)
    for line in open("/proc/self/maps"):
        span, perms = line.split()[:2]
        lo, hi = (int(x, 16) for x in span.split("-"))
        if lo <= addr < hi:
            return perms.startswith("r")
    return False

def refused(f, *args):
    try:
        f(*args)
    except CudaError as e:
        return e.code, e.message
    raise AssertionError("not refused")
"""


def run(body: str, ok: bool = True) -> subprocess.CompletedProcess:
    return run_script(PRELUDE, body, ok)


def test_a_suspended_session_gives_its_memory_back_and_resumes_at_the_same_addresses():
    run("""
        dev = device.CudaDevice(0, 1 << 30, reserve)
        a, b = dev.mem_alloc(3 << 20), dev.mem_alloc(4096)
        ctypes.memset(a, 0x5A, 3 << 20)
        ctypes.memset(b, 0x33, 4096)
        assert ledger[0] == (3 << 20) + 4096
        assert dev.suspend() == (3 << 20) + 4096
        assert ledger[0] == 0, "the quota is released with the memory"
        assert not mapped(a) and not mapped(b), "the driver holds no device memory for it"
        dev.resume()
        assert ledger[0] == (3 << 20) + 4096 and mapped(a)
        assert ctypes.string_at(a, 3 << 20) == b"\\x5a" * (3 << 20) and ctypes.string_at(b, 4096) == b"3" * 4096
        c = dev.mem_alloc(1 << 20)  # and the session goes on
        dev.mem_free(c)
        dev.close()
    """)


def test_a_session_ending_while_suspended_touches_no_driver_call_to_release_its_host_memory():
    """A session reclaimed idle that then ends (its program gone) releases its segment's, its call
    ring's and its pinned segments' registrations (server/staging.py close_shm, pinned.py) without a
    driver call: the process is checkpointed, where any call of its own blocks until a restore (the
    null driver ends the process instead: `run` would see it fail)."""
    run("""
        import mmap
        dev = device.CudaDevice(0, 1 << 30, reserve)
        mm = mmap.mmap(-1, 2 << 20)
        at = ctypes.addressof(ctypes.c_char.from_buffer(mm))
        handle = dev.host_register(at, 1 << 20)
        dev.mem_alloc(4096)
        dev.suspend()
        dev.host_unregister(handle)
        dev.close()
    """)


def test_a_resume_without_room_fails_and_leaves_the_session_suspended_to_try_again():
    run("""
        dev = device.CudaDevice(0, 1 << 30, reserve)
        a = dev.mem_alloc(8 << 20)
        ctypes.memset(a, 7, 8 << 20)
        dev.suspend()
        room[0] = 4 << 20  # another session took the rest meanwhile
        code, _ = refused(dev.resume)
        assert code == "CUDA_ERROR_OUT_OF_MEMORY" and ledger[0] == 0 and not mapped(a)
        room[0] = 1 << 30
        dev.resume()
        assert ctypes.string_at(a + (8 << 20) - 1, 1) == b"\\x07" and ledger[0] == 8 << 20
    """)


def test_the_driver_refusing_a_step_is_a_clear_error_that_says_what_state_it_left():
    out = run("""
        lib = device.lib()
        lib.cuInit(0)
        pid = os.getpid()
        code, msg = refused(suspension.restore, pid)  # nothing checkpointed: left running
        print("restore-first", code, msg)
        suspension.checkpoint(pid)
        code, msg = refused(suspension.checkpoint, pid)  # twice: it is checkpointed, calls cannot run
        print("twice", code, msg)
        suspension.restore(pid)
        code, msg = refused(suspension.checkpoint, 1)  # a process that never loaded the driver
        print("stranger", code, msg)
    """).stdout
    lines = dict(line.split(" ", 1) for line in out.splitlines())
    assert lines["restore-first"].startswith("CUDA_ERROR_ILLEGAL_STATE") and "left the process running" in \
        lines["restore-first"]
    assert lines["twice"].startswith("CUDA_ERROR_ILLEGAL_STATE") and "left the process checkpointed" in lines["twice"]
    assert lines["stranger"].startswith("CUDA_ERROR_INVALID_VALUE") and "cuCheckpointProcessLock" in lines["stranger"]


def test_a_call_of_the_suspended_process_itself_is_caught():
    """The real driver blocks such a call until a restore that the same worker would have to start:
    a deadlock on a GPU. The null driver ends the process and names the call."""
    p = run("""
        dev = device.CudaDevice(0, 1 << 30, reserve)
        dev.mem_alloc(1 << 20)
        dev.suspend()
        dev.mem_alloc(8 << 20)  # memory of its own: the driver's cuMemCreate (arena.c)
    """, ok=False)
    assert "nulldriver: cuMemCreate called while this process is checkpointed" in p.stderr, p.stderr
