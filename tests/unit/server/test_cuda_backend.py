"""The cuda backend's own policy, without a GPU: kernel timing by windows of launches (not an event
pair per kernel), the running time of kernels that have not finished, device printf captured from
the worker's stdout, stream priorities, attributes read once, and the session's accounting on top.

The driver is a stand-in built here from C against the generated prototypes (so its signatures are
CUDA's). It keeps a device timeline: each launch advances it by the duration the test sets, each
event records the timeline and its place in the order of work, and the test says how far the
"GPU" has got. Its synchronize prints the way NVIDIA's driver prints device printf: through the C
library's buffered stdout.

What only a GPU can confirm: that the real driver's events and printf behave as the stand-in's."""
from __future__ import annotations

import contextlib
import ctypes
import multiprocessing as mp
import os
import subprocess
import sys
import textwrap
import threading
import time

import cffi
import pytest
import structlog

from rgpu.protocol.generated import enums
from rgpu.protocol.generated.structs import CDEF
from rgpu.server.backends.cuda import device as cuda_device
from rgpu.server.errors import CudaError
from rgpu.server.sched import GpuScheduler
from rgpu.server.session import Session
from tests.support import fakecuda
from rgpu.server.worker import _facts

FAKE = r"""
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include "rgpu_cuda.h"

static double timeline;          /* device seconds of all launched work */
static double duration = 0.002;  /* of the next kernels */
static long issued, reached;     /* order of work: everything up to `reached` has run */
static struct { long seq; double t; } ev[4096];
static int nev, launches, records, attr_calls, printed;
static unsigned evflags[4096];   /* each event's creation flags */
static int blocking_waits;       /* cuEventSynchronize on a CU_EVENT_BLOCKING_SYNC event: sleeps */
static int spun_syncs;           /* a stream or context synchronize with work left: the driver spins */
static int stream_waits;         /* cuStreamWaitEvent */
static volatile int ctx_syncs;   /* cuCtxSynchronize calls returned */
static volatile int stuck;       /* the GPU runs a kernel that does not end: synchronize blocks */

static int printing;             /* kernels that printf (the capture test) */
static int refuse_records;       /* cuEventRecord fails while set, as a driver in trouble does */
void fake_refuse_records(int r) { refuse_records = r; }
void fake_set_stuck(int s) { stuck = s; }
void fake_set_printing(int p) { printing = p; }
void fake_set_duration(double s) { duration = s; }
void fake_reach_all(void) { reached = issued; }
void fake_reach(long n) { reached = n; }
long fake_issued(void) { return issued; }
int fake_launches(void) { return launches; }
int fake_records(void) { return records; }
int fake_attr_calls(void) { return attr_calls; }
int fake_blocking_waits(void) { return blocking_waits; }
int fake_spun_syncs(void) { return spun_syncs; }
int fake_stream_waits(void) { return stream_waits; }
int fake_ctx_syncs(void) { return ctx_syncs; }

""" + fakecuda.DEVICE + r"""
CUresult cuDeviceGet(CUdevice *d, int ordinal) { *d = ordinal; return CUDA_SUCCESS; }
CUresult cuDeviceTotalMem_v2(size_t *b, CUdevice d) { *b = 1ull << 32; return CUDA_SUCCESS; }
CUresult cuDeviceGetAttribute(int *v, CUdevice_attribute a, CUdevice d) {
    attr_calls++;
    if (a > 150) return CUDA_ERROR_INVALID_VALUE;
    *v = a == 75 ? 9 : a == 76 ? 0 : 1000 + a;
    return CUDA_SUCCESS;
}
CUresult cuGetErrorName(CUresult e, const char **s) { *s = "CUDA_ERROR_INVALID_VALUE"; return CUDA_SUCCESS; }
CUresult cuStreamCreateWithPriority(CUstream *s, unsigned int f, int p) {
    *s = (CUstream)(uintptr_t)(0x5100 + (-p) * 4 + f); return CUDA_SUCCESS;
}
CUresult cuStreamGetPriority(CUstream s, int *p) { *p = s ? -(int)(((uintptr_t)s - 0x5100) / 4) : 0; return CUDA_SUCCESS; }
CUresult cuStreamGetFlags(CUstream s, unsigned *f) { *f = s ? (unsigned)(((uintptr_t)s - 0x5100) % 4) : 0; return CUDA_SUCCESS; }
CUresult cuStreamDestroy_v2(CUstream s) { return CUDA_SUCCESS; }
CUresult cuEventCreate(CUevent *e, unsigned int f) {
    evflags[nev] = f;
    *e = (CUevent)(uintptr_t)(0x10000 + 16 * nev++);
    return CUDA_SUCCESS;
}
CUresult cuEventDestroy_v2(CUevent e) { return CUDA_SUCCESS; }
static int evi(CUevent e) { return (int)(((uintptr_t)e - 0x10000) / 16); }
CUresult cuEventRecord(CUevent e, CUstream s) {
    if (refuse_records) return CUDA_ERROR_LAUNCH_FAILED;
    records++;
    ev[evi(e)].seq = ++issued;
    ev[evi(e)].t = timeline;
    return CUDA_SUCCESS;
}
CUresult cuEventQuery(CUevent e) { return ev[evi(e)].seq && ev[evi(e)].seq <= reached ? CUDA_SUCCESS : CUDA_ERROR_NOT_READY; }
CUresult cuEventElapsedTime_v2(float *ms, CUevent a, CUevent b) {
    *ms = (float)((ev[evi(b)].t - ev[evi(a)].t) * 1000.0);
    return CUDA_SUCCESS;
}
CUresult cuLaunchKernel(CUfunction f, unsigned gx, unsigned gy, unsigned gz, unsigned bx, unsigned by, unsigned bz,
                        unsigned shmem, CUstream s, void **params, void **extra) {
    launches++;
    issued++;
    timeline += duration;
    return CUDA_SUCCESS;
}
/* waits for the test to say the GPU got there (or, with reach_when_slept, gets there once a wait
   sleeps in a blocking-sync event: whatever the host's load, the wait is seen to sleep) */
static int reach_when_slept;
void fake_reach_when_slept(int on) { reach_when_slept = on; }
CUresult cuEventSynchronize(CUevent e) {
    if (evflags[evi(e)] & 1) {  /* CU_EVENT_BLOCKING_SYNC */
        blocking_waits++;
        if (reach_when_slept) reached = issued;
    }
    while (stuck || ev[evi(e)].seq > reached) usleep(200);
    return CUDA_SUCCESS;
}
CUresult cuStreamWaitEvent(CUstream s, CUevent e, unsigned f) { stream_waits++; return CUDA_SUCCESS; }
CUresult cuStreamQuery(CUstream s) { return stuck || reached < issued ? CUDA_ERROR_NOT_READY : CUDA_SUCCESS; }
CUresult cuStreamSynchronize(CUstream s) {
    if (stuck || reached < issued) spun_syncs++;
    while (stuck) usleep(1000);
    reached = issued;
    if (printing) printf("device printf %d\n", ++printed);
    return CUDA_SUCCESS;
}
CUresult cuCtxSynchronize(void) {
    if (stuck || reached < issued) spun_syncs++;
    while (stuck) usleep(1000);
    reached = issued;
    if (printing) printf("device printf %d\n", ++printed);  /* buffered, as the driver's is: flushed by the reader */
    ctx_syncs++;
    return CUDA_SUCCESS;
}
"""


@pytest.fixture(scope="module")
def fake_libcuda(tmp_path_factory):
    return fakecuda.build(tmp_path_factory.mktemp("fakecuda"), FAKE)


@pytest.fixture
def gpu(fake_libcuda, monkeypatch):
    """A CudaDevice on the stand-in driver (loaded afresh: its state is per test) and its controls."""
    monkeypatch.setenv("RGPU_LIBCUDA", str(fake_libcuda))
    monkeypatch.setattr(cuda_device, "_lib", None)
    dev = cuda_device.CudaDevice(0, 1 << 30)
    fake = ctypes.CDLL(str(fake_libcuda))
    fake.fake_set_duration.argtypes = [ctypes.c_double]
    fake.fake_reach.argtypes = [ctypes.c_long]
    fake.fake_issued.restype = ctypes.c_long
    yield dev, fake
    # the stand-in keeps its state for the process: leave it idle for the next test
    fake.fake_set_stuck(0)
    fake.fake_reach_when_slept(0)
    fake.fake_reach_all()


def _launch(dev, stream=None):
    dev.launch(cuda_device.ffi().NULL, (1, 1, 1), (1, 1, 1), 0, stream, b"")


@contextlib.contextmanager
def _gpu_gets_there(fake, seconds: float):
    """The stand-in GPU reaches all the work given so far `seconds` from now (a thread says so),
    and the block takes that long (a timer's wait may end a few milliseconds early)."""
    timer = threading.Timer(seconds, fake.fake_reach_all)
    timer.start()
    t0 = time.monotonic()
    try:
        yield
    finally:
        timer.join()
    assert time.monotonic() - t0 >= 0.9 * seconds


def test_a_run_of_launches_is_timed_by_one_window_not_an_event_pair_each(gpu):
    dev, fake = gpu
    before = fake.fake_records()
    for _ in range(50):
        _launch(dev)
    dev.settle()
    assert fake.fake_launches() >= 50
    assert fake.fake_records() - before == 2  # one window: start and end
    assert dev.device_time == 0.0  # the GPU has not run them yet
    fake.fake_reach_all()
    assert dev.device_time == pytest.approx(50 * 0.002, rel=1e-4)
    # a second message's launches: a second window, added to the first
    for _ in range(10):
        _launch(dev)
    dev.settle()
    fake.fake_reach_all()
    assert dev.device_time == pytest.approx(60 * 0.002, rel=1e-4)


def test_a_settle_the_driver_refuses_closes_nothing_and_loses_no_time(gpu):
    """The driver refuses the end events of a settle (the clock's close): the error is the settle's,
    every window stays open, and the next settle closes them all; the kernels' time is counted once.
    A window the driver refuses to open refuses its launch."""
    dev, fake = gpu
    s1, s2 = dev.stream_create(0, 0), dev.stream_create(0, -1)  # the stand-in's streams differ by priority
    _launch(dev, s1)
    _launch(dev, s2)
    fake.fake_refuse_records(1)
    try:
        with pytest.raises(CudaError):
            dev.settle()
        with pytest.raises(CudaError):
            _launch(dev, dev.stream_create(0, -2))  # a third stream: its window cannot open
    finally:
        fake.fake_refuse_records(0)
    records = fake.fake_records()
    dev.settle()
    assert fake.fake_records() - records == 2  # both windows were still open: an end event each
    fake.fake_reach_all()
    assert dev.device_time == pytest.approx(2 * 0.002, rel=1e-4)


def test_windows_of_two_streams_count_each_moment_once(gpu):
    """The stand-in runs all work in one order (as a GPU that a kernel fills): stream 1's window
    contains stream 2's kernel, and the session's device time is still three kernels, not five."""
    dev, fake = gpu
    s1, s2 = dev.stream_create(0, 0), dev.stream_create(1, -2)
    before = fake.fake_records()
    _launch(dev, s1)
    _launch(dev, s2)
    _launch(dev, s1)
    dev.settle()
    assert fake.fake_records() - before == 4  # a window per stream
    fake.fake_reach_all()
    assert dev.device_time == pytest.approx(3 * 0.002, rel=1e-4)
    _launch(dev, s2)
    dev.settle()
    fake.fake_reach_all()
    assert dev.device_time == pytest.approx(4 * 0.002, rel=1e-4)


def test_kernels_still_running_report_their_time(gpu):
    dev, fake = gpu
    fake.fake_set_duration(1e6)  # a kernel that does not end
    _launch(dev)
    dev.settle()
    assert dev.running_time() == 0.0  # not started: the GPU has not reached the window's start
    fake.fake_reach(fake.fake_issued() - 1)  # the start event is reached, the kernel runs
    assert dev.running_time() == 0.0  # first seen running now
    time.sleep(0.05)
    assert 0.04 < dev.running_time() < 5
    assert dev.device_time == 0.0
    fake.fake_set_duration(0.002)


def test_a_session_whose_kernels_still_run_is_not_suspended(gpu, monkeypatch):
    """Idle reclaim asks the driver's checkpoint only of a session whose GPU work has finished: a
    program sleeping beside a long kernel is busy, and waiting for the kernel would stop the worker
    serving it meanwhile."""
    dev, fake = gpu
    asked = []
    monkeypatch.setattr(cuda_device.suspension, "checkpoint", asked.append)
    fake.fake_set_duration(1e6)
    _launch(dev)
    with pytest.raises(cuda_device.CudaError) as e:
        dev.suspend()
    assert e.value.code == "CUDA_ERROR_NOT_READY" and not asked and dev._suspended is None
    dev.settle()
    fake.fake_reach_all()
    assert dev.suspend() == 0 and asked == [os.getpid()]
    fake.fake_set_duration(0.002)


def test_a_wait_behind_a_kernel_that_never_ends_keeps_doing_housekeeping(gpu):
    """The serving thread runs the worker's checks while the driver waits; when they end the
    session, the wait is abandoned and closing the device does not wait for the kernel either."""
    from rgpu.server.session import SessionEnding
    dev, fake = gpu
    fake.fake_set_stuck(1)
    _launch(dev)
    checks = []

    def housekeeping():
        checks.append(time.monotonic())
        if len(checks) == 3:
            raise SessionEnding("stopped_by_server")
    dev.housekeeping = housekeeping
    t0 = time.monotonic()
    with pytest.raises(SessionEnding):
        dev.synchronize()
    assert len(checks) == 3 and 0.5 < time.monotonic() - t0 < 5
    dev.close()  # returns: nothing waits for the kernel
    # The abandoned wait's helper is still in the driver: let it out and see its synchronize
    # return, or on a loaded host it would run into a later test (its cuCtxSynchronize marks all
    # work reached, so a later wait could find nothing left to sleep for).
    syncs = fake.fake_ctx_syncs()
    fake.fake_set_stuck(0)
    fake.fake_reach_all()
    deadline = time.monotonic() + 30
    while fake.fake_ctx_syncs() == syncs and time.monotonic() < deadline:
        time.sleep(0.001)
    assert fake.fake_ctx_syncs() > syncs, "the abandoned wait never left the driver"


def test_short_waits_are_answered_without_the_helper(gpu):
    """...and without a driver call beyond the query and the synchronize: the sync round trip
    pays nothing for the blocking waits below."""
    dev, fake = gpu
    _launch(dev)
    dev.housekeeping = lambda: pytest.fail("a wait that the GPU answers at once ran housekeeping")
    fake.fake_reach_all()
    before = fake.fake_records(), fake.fake_blocking_waits(), fake.fake_spun_syncs()
    dev.synchronize()
    dev.stream_synchronize(None)
    assert (fake.fake_records(), fake.fake_blocking_waits(), fake.fake_spun_syncs()) == before


@pytest.mark.parametrize("helper", [False, True], ids=["serving thread", "helper"])
@pytest.mark.parametrize("wait", ["context", "stream", "event"])
def test_a_long_wait_sleeps_in_a_blocking_sync_event_instead_of_the_drivers_spin(gpu, wait, helper):
    """Past the first polls, a wait sleeps in cuEventSynchronize on an event made with
    CU_EVENT_BLOCKING_SYNC, recorded behind what it waits for (an event of the program's: on a
    stream of the worker's that waits for it); the driver's synchronize, which spins a CPU in a
    context that schedules automatically, runs only once nothing is left to wait for."""
    dev, fake = gpu
    if helper:
        dev.housekeeping = lambda: None
    s = dev.stream_create(0, 0)
    _launch(dev, s)
    event = dev.event_create(0)
    dev.event_record(event, s)
    sleeps, spun, stream_waits = fake.fake_blocking_waits(), fake.fake_spun_syncs(), fake.fake_stream_waits()
    # The GPU gets there when the wait sleeps, not after a set time: a host too loaded to poll for
    # that time would otherwise see it there before the wait went to sleep. The timer only ends a
    # wait that never sleeps (the test then fails, late, instead of hanging).
    fake.fake_reach_when_slept(1)
    timer = threading.Timer(10, fake.fake_reach_all)
    timer.start()
    try:
        {"context": dev.synchronize, "stream": lambda: dev.stream_synchronize(s),
         "event": lambda: dev.event_synchronize(event)}[wait]()
    finally:
        timer.cancel()
    assert fake.fake_blocking_waits() > sleeps and fake.fake_spun_syncs() == spun
    assert fake.fake_stream_waits() == stream_waits + (wait == "event")


def test_stream_priority_and_flags_come_from_the_driver(gpu):
    dev, _ = gpu
    s = dev.stream_create(1, -3)
    assert (dev.stream_priority(s), dev.stream_flags(s)) == (-3, 1)
    assert (dev.stream_priority(None), dev.stream_flags(None)) == (0, 0)


def test_attributes_are_read_from_the_driver_once(gpu):
    dev, fake = gpu
    first = dev.attributes()
    calls = fake.fake_attr_calls()
    assert first[75] == 9 and first[16] == 1016 and 151 not in first
    assert dev.attributes() is first and fake.fake_attr_calls() == calls


def test_the_facts_a_session_attaches_with_are_the_drivers_with_rgpus_policy(gpu):
    """What the client answers attribute and property queries from (server/worker.py _facts)."""
    dev, _ = gpu
    facts = _facts(Session(dev), structlog.get_logger())
    attrs = facts["attrs"]
    assert attrs[75] == 9 and attrs[16] == 1016 and 151 not in attrs
    assert attrs[enums.CUdevice_attribute_enum["CU_DEVICE_ATTRIBUTE_CONCURRENT_MANAGED_ACCESS"]] == 0
    ffi = cffi.FFI()
    ffi.cdef(CDEF)
    assert len(facts["props"]) == ffi.sizeof("struct cudaDeviceProp")
    p = ffi.from_buffer("struct cudaDeviceProp *", facts["props"])
    assert ffi.string(p.name).decode() == dev.name and p.multiProcessorCount == 1016
    assert p.totalGlobalMem == dev.total_memory


def test_the_session_charges_windows_to_the_scheduler(gpu):
    dev, fake = gpu
    ctx = mp.get_context("fork")
    sched = GpuScheduler(ctx, 4)
    sched.configure(0, 100, 100)
    s = Session(dev)
    s.sched, s.slot = sched, 0
    for _ in range(20):
        s.run_kernel(lambda: _launch(dev))
    s.settle()  # the client waits: the GPU is released, the window closed
    assert sched.kernels[0] == 20 and sched.busy.value == -1
    fake.fake_reach_all()
    s.settle()  # the next message: what completed is charged
    assert sched.device_time[0] == pytest.approx(20 * 0.002, rel=1e-4)


def test_device_printf_is_captured_from_the_workers_stdout(fake_libcuda, tmp_path):
    """In a process of its own, as in a worker: fd 1 becomes a pipe the device drains; Python's
    own prints still reach the original stdout."""
    script = textwrap.dedent("""
        import ctypes, os
        from rgpu.server.backends.cuda import device
        ctypes.CDLL(os.environ["RGPU_LIBCUDA"]).fake_set_printing(1)
        dev = device.CudaDevice(0, 1 << 30, capture_printf=True)
        print("python says hello", flush=True)
        dev.synchronize()
        dev.synchronize()
        out = dev.take_output()
        assert out == "device printf 1\\ndevice printf 2\\n", repr(out)
        assert dev.take_output() == ""
        # more than the pipe holds, still in the C library's buffer at the take: the take flushes it,
        # the drain thread keeps the pipe from blocking the writer, and every byte comes back in order
        libc = ctypes.CDLL(None)
        stdout = ctypes.c_void_p.in_dll(libc, "stdout")
        lines = [f"{k:04d}" + "x" * 995 + "\\n" for k in range(200)]
        for line in lines:
            libc.fputs(line.encode(), stdout)
        out = dev.take_output()
        assert out == "".join(lines), (len(out), out[:20])
        assert dev.take_output() == ""
        # a synchronize alone in its message, answered by the compiled loop: its reply carries what
        # the driver printed at it (the loop's own printf check)
        import structlog, zmq
        from rgpu.protocol import wire
        from rgpu.protocol.generated.calltable import BY_NAME
        from rgpu.server.dispatch import Dispatcher
        from rgpu.server.session import Session
        from rgpu.server.worker import _serve
        class Sock:
            sent = []
            def send(self, data, flags=0):
                self.sent.append(bytes(data))
        session, sock = Session(dev), Sock()
        session.messages = 1
        message = [zmq.Frame(wire.pack([[7, BY_NAME["cuStreamSynchronize"], 1, [0], 0]]))]
        assert _serve(sock, b"id", message, session, Dispatcher("cuda"), structlog.get_logger())
        reply = wire.unpack(sock.sent[1])
        assert dev.launcher.waits == 1 and reply[:2] == [7, 0] and reply[5] == "device printf 3\\n", reply
        dev.close()
        print("captured ok", flush=True)
    """)
    p = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=60,
                       env={**os.environ, "RGPU_LIBCUDA": str(fake_libcuda)})
    assert p.returncode == 0, p.stdout + p.stderr
    assert p.stdout.splitlines() == ["python says hello", "captured ok"]


def _contended_session(dev):
    """A session of slot 0 (guarantee 25) whose neighbour in slot 1 (75) waits to launch."""
    sched = GpuScheduler(mp.get_context("fork"), 4)
    sched.configure(0, 25, 100)
    sched.configure(1, 75, 100)
    s = Session(dev)
    s.sched, s.slot = sched, 0
    sched.waiting[1] = 1
    return s, sched


def test_the_gpu_goes_to_a_waiting_neighbour_once_the_kernels_it_ran_have_finished(gpu):
    """A real GPU runs kernels after their launch: given up at once, the GPU would run the
    neighbour's beside them, shared by the GPU's time slices instead of by guarantee, and each
    session's timing would hold the other's kernels. So the session keeps it until they finish,
    and is charged their exact time as it hands it over."""
    dev, fake = gpu
    s, sched = _contended_session(dev)
    for _ in range(8):
        s.run_kernel(lambda: _launch(dev))
    assert sched.busy.value == 0
    t0 = time.monotonic()
    with _gpu_gets_there(fake, 0.1):
        s.settle()  # the client waits: the GPU goes to the neighbour, after the kernels
        settled = time.monotonic() - t0
    assert settled >= 0.09 and sched.busy.value == -1 and sched.kernels[0] == 8
    assert sched.device_time[0] == pytest.approx(8 * 0.002, rel=1e-4)


def test_with_nobody_else_the_gpu_is_given_up_without_waiting(gpu):
    dev, fake = gpu
    s, sched = _contended_session(dev)
    sched.waiting[1] = 0  # the neighbour has not launched anything lately
    for _ in range(8):
        s.run_kernel(lambda: _launch(dev))
    s.settle()
    assert sched.busy.value == -1 and sched.device_time[0] == 0.0  # the kernels run on: charged later
    fake.fake_reach_all()
    s.settle()
    assert sched.device_time[0] == pytest.approx(8 * 0.002, rel=1e-4)


def test_kernels_that_outlast_the_hand_over_are_left_to_the_gpus_time_slices(gpu, monkeypatch):
    """A kernel that never ends holds a waiting neighbour up for HAND_OVER_S once, then never again."""
    from rgpu.server import sched as sched_module
    from rgpu.server import session as session_module
    monkeypatch.setattr(session_module, "HAND_OVER_S", 0.1)
    # the neighbour here only says it waits and never takes its turn: without the launch's cost in
    # the queue (sched.LAUNCH_COST_S) this session stays level with it, first on the tie, and may
    # launch again while it still waits
    monkeypatch.setattr(sched_module, "LAUNCH_COST_S", 0.0)
    dev, fake = gpu
    s, sched = _contended_session(dev)
    fake.fake_set_stuck(1)
    s.run_kernel(lambda: _launch(dev))
    t0 = time.monotonic()
    s.settle()
    assert 0.09 <= time.monotonic() - t0 < 1 and sched.busy.value == -1
    s.run_kernel(lambda: _launch(dev))
    t0 = time.monotonic()
    s.settle()
    assert time.monotonic() - t0 < 0.05 and sched.busy.value == -1
