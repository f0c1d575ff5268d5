"""What a PyTorch program waits for (issue 37, "round trips are counted"): each workload of
tests/e2e/torch_workloads.py (a CNN's and a transformer's training step, a decode loop with and without
a CUDA graph) runs through `rgpu run` on the null driver (the cuda backend on a driver that runs no
kernels), and the client library's own counters say how many blocking round trips each step made after
the warm-up, by call. Across a network every one of them costs the network's round trip, so the
program's own synchronisations (one `.item()` a step) are the floor and at most one more is allowed.

Counts, not times: the same program makes the same calls every step, so these are exact. The
workloads run one after the other in one process (PyTorch starts once), twice: on one host (the
session's shared segment and the program's pinned memory shared with the worker) and as across hosts
(RGPU_SHM=0: no segment, pinned memory not shared)."""
from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import run_cli
from tests.support import torchenv
from tests.support.daemons import DaemonSet, wait_until
from tests.support.null_server import start as start_null_server
from tests.support.pool import Pool
from benchmarks.native import run as native

pytestmark = pytest.mark.e2e

WORKLOADS = Path(__file__).parent / "torch_workloads.py"


@pytest.fixture(scope="module")
def null_server():
    with DaemonSet() as daemons:
        yield start_null_server(daemons)


def run_workload(server: str, workload: str, *args: str, env: dict | None = None):
    return run_cli("run", "--server", server, "--", str(torchenv.python()), str(WORKLOADS), workload, *args,
                   env={**os.environ, **(env or {})}, timeout=600)


def results(p) -> list[dict]:
    assert p.returncode == 0, p.stdout[-4000:] + p.stderr[-4000:]
    return [json.loads(line) for line in p.stdout.splitlines() if line.startswith("{")]


def result(p) -> dict:
    return results(p)[-1]


NAMES = ["cnn", "transformer", "transformer_amp", "decode", "decode_graph"]


@pytest.mark.parametrize("shm", ["1", "0"], ids=["same-host", "across-hosts"])
def test_a_step_waits_only_for_the_programs_own_synchronisation(null_server, shm):
    """Blocking round trips per step ≤ the program's own synchronisations + 1, for every workload.
    Before the counting, on one host the CNN step made 7 (cuDNN setting its kernels' dynamic shared
    memory to the forward pass's size and back to the backward pass's: 4; pulling cuDNN's two managed
    allocations back after the step's synchronisation: 2), and across hosts every step made one more
    (`.item()`'s copy into pinned memory waited for its data before the stream synchronize)."""
    got = {r["workload"]: r for r in results(run_workload(null_server[0], *NAMES, "--warmup", "3", "--steps", "5",
                                                            env={"RGPU_SHM": shm}))}
    assert sorted(got) == sorted(NAMES)
    over = {n: r["by_call"] for n, r in got.items() if r["round_trips"] > r["syncs_per_step"] + 1}
    assert not over, json.dumps(over, indent=1)
    for r in got.values():
        assert r["device"] == "rgpu null driver (no GPU work)"
        # every step makes the same calls: whole numbers, and the program's own synchronisation among them
        assert all(float(c["round_trips"]).is_integer() for c in r["by_call"].values()), r
        assert r["round_trips"] >= r["syncs_per_step"], r


def test_a_failover_sessions_step_waits_for_what_the_same_step_waits_for_without_it(daemons, tmp_path):
    """Under `rgpu run --failover` beside its server (the call ring, the segment), every workload's step
    waits only for the program's own synchronisations, as without --failover. It made 3 round trips a
    step after the CNN had run: cuDNN's two buffers of mapped host memory are managed memory in a
    --failover session (its log must see what the device writes there), and each was pulled back in a
    round trip of its own after every `.item()`; the pull now goes ahead of a synchronisation of the
    legacy stream in its message (libhook/src/managed/managed.c, plan_ahead). Checkpoints are put off
    (RGPU_FAILOVER_INTERVAL) so that each step makes the same calls; the log is kept all the same."""
    pool = Pool(daemons, tmp_path)
    url = pool.add_server("2GiB", "--device", "cuda", env={"RGPU_LIBCUDA": str(native.null_driver())})
    wait_until(lambda: pool.states() == {url: "up"}, 60, "the null-driver server up")
    p = subprocess.run([sys.executable, "-m", "rgpu.client.cli", "run", "--controller", pool.url, "--mem", "1GiB",
                        "--failover", "--", str(torchenv.python()), str(WORKLOADS), *NAMES, "--warmup", "3",
                        "--steps", "5"], capture_output=True, text=True, timeout=600,
                       env=dict(pool.env, RGPU_TIMEOUT="120", RGPU_FAILOVER_INTERVAL="3600"))
    got = {r["workload"]: r for r in results(p)}
    assert sorted(got) == sorted(NAMES)
    over = {n: r["by_call"] for n, r in got.items() if r["round_trips"] != r["syncs_per_step"]}
    assert not over, json.dumps(over, indent=1)
    log = pool.servers[url].log_path.read_text(errors="replace")
    started = [x.split() for x in log.splitlines() if "event=session_started" in x]
    assert started and all("failover" in x for x in started), log[-3000:]  # a --failover lease's session


STEPS = 12  # the timed steps of _steps_counted's runs, after 3 of warm-up


def _steps_counted(null_server, workload: str, shm: str) -> tuple[dict, dict]:
    """A workload's timed steps through the null-driver server with RGPU_SHM=`shm`: what the program
    printed, and the worker's session_ended counts for that session."""
    url, handle = null_server
    before = handle.log_size()
    r = result(run_workload(url, workload, "--warmup", "3", "--steps", str(STEPS), env={"RGPU_SHM": shm}))
    return r, {k: int(v) for k, v in handle.session_ended(before, 30).items() if v.isdigit()}


@pytest.mark.parametrize("workload", ["cnn", "transformer_amp"])
def test_a_training_steps_messages_are_served_by_the_workers_compiled_loop(null_server, workload):
    """On one host every message of a training step takes the call ring and the worker's compiled loop
    serves it without Python (server/native/serve.c): each message of async calls only, and the step's
    last message with its `.item()`. A CNN's or a transformer's last message holds AdamW's fused
    launches, 24-27 KB of parameters each (124 KiB for five), which a record of the 128 KiB ring held
    only when it was empty, so every such step went on the socket through the worker's Python; a
    mixed-precision step's matmuls are cuBLASLt's cuLaunchKernelEx, which the loop did not launch, so
    all but three of its 645 messages of async calls went to Python."""
    r, got = _steps_counted(null_server, workload, shm="1")
    assert r["async_on_ring"] == r["async_messages"] > 0, r
    # every message of async calls only the client sent ran in the loop, none in Python
    assert got["batches_compiled"] == got["client_async_messages"] > 0, got
    # and each step's synchronising messages too (the warm-up's first steps load kernels: not counted)
    assert got["ring_compiled"] - got["batches_compiled"] >= STEPS * r["syncs_per_step"], (got, r)


def test_a_training_steps_batch_from_another_host_is_copied_in_by_the_compiled_loop(null_server):
    """From another host (RGPU_SHM=0 here: no session segment, no call ring) a step's first message
    carries the batch the program copies in from pinned memory without blocking (a DataLoader's
    pin_memory=True), each copy's data in a frame. The worker's compiled loop runs that message too,
    the copies from their frames (server/backends/cuda/native/copies.c frame_h2d_one), so that every
    message of async calls only the client sent is the loop's, and every byte of every timed step's
    batch went from its frame to the device without the worker's Python (a CNN's: 8 images of
    3x32x32 floats and 8 labels, 98,368 bytes a step)."""
    r, got = _steps_counted(null_server, "cnn", shm="0")
    assert r["async_on_ring"] == 0 and r["async_messages"] > 0, r
    assert got["batches_compiled"] == got["client_async_messages"] > 0, got
    assert got["frame_bytes_compiled"] >= STEPS * (8 * 3 * 32 * 32 * 4 + 8 * 8), got
    assert got["frame_bytes_compiled"] <= got["bytes_in"], got


@pytest.mark.parametrize("workload, item_bytes", [("transformer", 4), ("decode", 8)])
def test_a_steps_item_from_another_host_is_answered_by_the_compiled_loop(null_server, workload, item_bytes):
    """From another host (RGPU_SHM=0) a step's last message ends as `.item()` ends it: the value's async
    copy into pinned memory, whose data goes back before the reply (wire.OUT_LATER), then the stream's
    synchronize. The worker's compiled loop serves that message too (copies.c late_frame_one: the copy
    made once the wait is answered), so that no message of the step goes through the worker's Python:
    every timed step's value (a float32 loss, an int64 token) was read by the loop."""
    r, got = _steps_counted(null_server, workload, shm="0")
    assert r["syncs_per_step"] == 1, r
    assert got["late_bytes_compiled"] >= STEPS * item_bytes, got
    assert got["batches_compiled"] == got["client_async_messages"], got


@pytest.mark.parametrize("workload", ["cnn", "transformer_amp"])
def test_a_steps_managed_pulls_from_another_host_are_answered_by_the_compiled_loop(null_server, workload):
    """PyTorch's cuDNN keeps two managed buffers of 64 KiB, and from another host (RGPU_SHM=0) every
    synchronisation after device work carries their pulls (rgpuManagedPull, after the wait in its
    message: libhook/src/managed/managed.c plan_pull). The worker's compiled loop answers those too
    (copies.c rgpu_copier_pull_call: read and digested once the wait is answered), so that a CNN's and
    a mixed-precision transformer's `.item()` messages, pulls and all, went through no Python of the
    worker: at least two pulls and one value per synchronisation of every timed step."""
    r, got = _steps_counted(null_server, workload, shm="0")
    syncs = STEPS * r["syncs_per_step"]
    assert got["pulls_compiled"] >= 2 * syncs, got
    assert got["late_bytes_compiled"] >= 4 * syncs, got
    assert got["batches_compiled"] == got["client_async_messages"], got


def test_counts_are_printed_at_exit_and_logged_by_the_worker(null_server):
    """RGPU_STATS=1: the totals and one line per call (round trips, async calls, the library that
    called) on stderr at exit; the worker's session_ended line carries the totals the goodbye brought."""
    url, handle = null_server
    p = run_workload(url, "decode", "--warmup", "1", "--steps", "2", env={"RGPU_STATS": "1"})
    r = result(p)
    total = re.search(r"rgpu stats: total round_trips=(\d+) async_calls=(\d+) async_messages=(\d+)", p.stderr)
    assert total, p.stderr[-3000:]
    trips = int(total.group(1))
    assert trips >= 3 * r["syncs_per_step"] + 2  # hello, attach, the steps' own synchronisations at least
    # the step's synchronisation, from PyTorch's library (through rgpu's runtime face)
    assert re.search(r"rgpu stats: call cudaStreamSynchronize round_trips=\d+ async=0 from=libtorch_cuda\.so:\d+",
                     p.stderr), p.stderr[-3000:]
    assert re.search(r"rgpu stats: call cudaLaunchKernel round_trips=0 async=[1-9]", p.stderr), p.stderr[-3000:]
    line = f"client_round_trips={trips} client_async_calls={total.group(2)}"
    wait_until(lambda: line in handle.log_path.read_text(errors="replace"), 30, "session_ended with the counts")
    logged = [x for x in handle.log_path.read_text(errors="replace").splitlines() if line in x]
    # the goodbye's own message is sent after it was written: the printed total counts it too
    assert "session_ended" in logged[-1] and f"client_async_messages={int(total.group(3)) - 1}" in logged[-1], logged


# Across hosts an async copy into pinned memory brings its data before the next reply (wire.OUT_LATER)
# instead of being a round trip of its own: the program sees it after its synchronisation, and a copy
# that reads the same pinned memory later in stream order reads what the first one wrote.
LATE_COPIES = """
import torch
values = [float(i) * 0.5 for i in range(4096)]
g = torch.tensor(values, device="cuda")           # host to device: the null driver copies for real
assert torch.tensor([3.5], device="cuda").item() == 3.5
p = torch.empty(4096).pin_memory()
p.copy_(g, non_blocking=True)                      # into pinned memory: its data comes later
again = p.to("cuda", non_blocking=True)            # and out of it, in stream order after
torch.cuda.current_stream().synchronize()
assert p.tolist() == values, "the async copy's data"
assert again.cpu().tolist() == values, "a copy reading the pinned memory after it"
q = torch.empty(4096).pin_memory()
q.copy_(g, non_blocking=True)
del q                                              # freed (cached by torch) with the data still to come
torch.cuda.synchronize()
print("OK late copies")
"""


def test_async_copies_into_pinned_memory_across_hosts(null_server):
    p = run_cli("run", "--server", null_server[0], "--", str(torchenv.python()), "-c", LATE_COPIES,
                env={**os.environ, "RGPU_SHM": "0"}, timeout=600)
    assert p.returncode == 0 and "OK late copies" in p.stdout, p.stdout[-3000:] + p.stderr[-3000:]


_ATTRIBUTE_SETS = r'''
import ctypes, re, sys
lib = ctypes.CDLL(sys.argv[1])
ptx = b".version 7.0\n.target sm_50\n.address_size 64\n.visible .entry empty() { ret; }\n"
ctx, mod, fn = ctypes.c_void_p(), ctypes.c_void_p(), ctypes.c_void_p()
assert lib.cuInit(0) == 0 and lib.cuDevicePrimaryCtxRetain(ctypes.byref(ctx), 0) == 0
assert lib.cuCtxSetCurrent(ctx) == 0
assert lib.cuModuleLoadData(ctypes.byref(mod), ptx) == 0
assert lib.cuModuleGetFunction(ctypes.byref(fn), mod, b"empty") == 0

def sent():
    buf = ctypes.create_string_buffer(1 << 16)
    lib.rgpu_stats_text(buf, len(buf))
    m = re.search(rb"call cuFuncSetAttribute round_trips=(\d+) async=(\d+)", buf.value)
    return int(m[1]) + int(m[2]) if m else 0

MAX_DYNAMIC_SHARED = 8
got = []
for value in (1024, 1024, 1024, 2048, 2048, 1024, 1024):
    assert lib.cuFuncSetAttribute(fn, MAX_DYNAMIC_SHARED, value) == 0
    got.append(sent())
assert lib.cuCtxSynchronize() == 0  # the sets sent without waiting reached the driver, and succeeded
print(got)
'''


def test_a_function_attribute_set_again_to_its_value_is_not_sent(null_server, tmp_path):
    """cuBLAS and cuDNN set their kernels' attributes before every launch, mostly to the value they
    have: such a set changes nothing and is answered by the client library (func_facts.c), so a
    step's message stays one the worker's compiled loop serves whole. A new value is still sent."""
    import subprocess
    import sys

    from rgpu.paths import client_env, libdir
    url, _ = null_server
    script = tmp_path / "sets.py"
    script.write_text(_ATTRIBUTE_SETS)
    p = subprocess.run([sys.executable, str(script), str(libdir() / "librgpu.so")],
                       env={**client_env([url], preload=False), "RGPU_SHM": "1"}, capture_output=True, text=True,
                       timeout=120)
    assert p.returncode == 0, p.stderr[-3000:]
    # sent: the first 1024, the first 2048, the return to 1024; the repeats of each, not
    assert json.loads(p.stdout.strip().splitlines()[-1]) == [1, 1, 1, 2, 2, 3, 3]
