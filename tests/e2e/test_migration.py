"""End to end, live migration of unmodified CUDA programs between two servers: a program that keeps
state on several streams, in a module variable, in managed memory and in a large allocation
(migrate_streams; on the cuda backend migrate_copies, whose results the null driver makes too: it
checks what copies and memsets made) is moved back and forth in the
middle of its run and ends with results bit-exact to a run that never moved (and to its own
host-side computation). On a GPU, the cuda backend's refusal to move a session holding texture
objects loses nothing. Each move also between two cuda servers on the
null driver (which runs no kernel: migrate_copies checks what copies and memsets made); the cuda
backend's refusals there: test_cuda_migration.py."""
from __future__ import annotations

import re
import subprocess
import time

import pytest

from rgpu.client import server_client
from rgpu.paths import client_env
from tests.support.daemons import wait_until
from tests.support.null_server import start as start_null_server

pytestmark = pytest.mark.e2e


def only_session(url: str) -> dict | None:
    live = [s for s in server_client.stats(url)["sessions"] if s["state"] == "live"]
    return live[0] if len(live) == 1 else None


def migration(src: str, dst: str) -> tuple[str, dict]:
    """Asks `src` to move the program's one session to `dst`: (the session, the migration once ended)."""
    session = wait_until(lambda: only_session(src), 20, f"the program's session on {src}")["session"]
    r = server_client.request(src, {"op": "migrate", "session": session, "to": f"{dst}#0"})
    assert r["ok"], r
    mid = r["migration"]["id"]
    m = wait_until(lambda: (x := next(m for m in server_client.stats(src)["migrations"] if m["id"] == mid))
                   ["state"] != "running" and x, 60, f"migration {mid}")
    return session, m


def migrate_and_wait(src: str, dst: str) -> dict:
    session, m = migration(src, dst)
    assert m["state"] == "done", (m["message"], m)
    return m["sessions"][session]


@pytest.fixture(params=["test", "null"], ids=["test-backend", "cuda-null-driver"])
def servers(request, start_server, daemons, device_kind):
    """(kind, start): servers of the test backend, and, whatever it is, cuda servers on the null
    driver (benchmarks/native/nulldriver.c); start(memory) -> url."""
    if request.param == "null":
        return "cuda", lambda memory: start_null_server(daemons)[0]
    return device_kind, lambda memory: start_server(memory=memory)[0]


def progress_to(proc: subprocess.Popen, at: int) -> None:
    """Read the program's output until it says PROGRESS `at` or later (it ended first: its stderr)."""
    while True:
        line = proc.stdout.readline()
        assert line, proc.stderr.read()
        if line.startswith("PROGRESS") and int(line.split()[1]) >= at:
            return


def movable(device_kind: str) -> str:
    """The program a backend's results are checked with: migrate_streams checks what its kernels
    computed, which the null driver does not run; migrate_copies checks copies and memsets."""
    return "migrate_streams" if device_kind == "sim" else "migrate_copies"


def test_a_program_moved_three_times_mid_run_gets_bit_exact_results(servers, cuda_program):
    kind, start = servers
    a, b = start("256MiB"), start("256MiB")
    exe = cuda_program(movable(kind))
    baseline = subprocess.run([str(exe), "60", "0"], env={**client_env([a]), "RGPU_TIMEOUT": "60"},
                              capture_output=True, text=True, timeout=300)
    assert baseline.returncode == 0 and " OK" in baseline.stdout, baseline.stdout + baseline.stderr
    expected = baseline.stdout.strip().splitlines()[-1]

    proc = subprocess.Popen([str(exe), "60", "150"], env={**client_env([a]), "RGPU_TIMEOUT": "60",
                                                            "RGPU_LOG": "info"},
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        assert proc.stdout.readline().startswith("READY")
        hops = [(a, b, 4), (b, a, 12), (a, b, 20)]
        outcomes = []
        for src, dst, at in hops:
            progress_to(proc, at)
            outcomes.append(migrate_and_wait(src, dst))
        out, err = proc.communicate(timeout=300)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == 0, out + err
    assert out.strip().splitlines()[-1] == expected, (out, expected)
    assert err.count("moved to") == 3, err
    for o in outcomes:
        # the 24 MiB written once travels before the stop, not during it
        assert o["precopy_bytes"] >= 24 << 20 and o["final_bytes"] < 24 << 20, o
    # the program ended on b: nothing is left on either server
    wait_until(lambda: not server_client.stats(a)["sessions"] and not server_client.stats(b)["sessions"], 20,
               "both servers free")
    assert server_client.stats(a)["gpus"][0]["memory_used"] == server_client.stats(b)["gpus"][0]["memory_used"] == 0


def test_an_idle_program_follows_its_session_at_its_next_call(servers, cuda_program):
    """Moved while it makes no call at all (a notebook between cells): the notice waits for it."""
    kind, start = servers
    a, b = start("256MiB"), start("256MiB")
    exe = cuda_program(movable(kind))
    proc = subprocess.Popen([str(exe), "3", "4000"], env={**client_env([a]), "RGPU_LOG": "info"},
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        while not proc.stdout.readline().startswith("PROGRESS 0"):
            pass
        t0 = time.monotonic()
        moved = migrate_and_wait(a, b)
        assert time.monotonic() - t0 < 4, "the program was still sleeping: it made no call during the move"
        out, err = proc.communicate(timeout=120)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == 0 and " OK" in out, out + err
    assert "moved to" in err
    if kind == "cuda":
        # the last pre-copy round read the memory after all its work was done and no call came
        # since: the stop reads nothing again (a real GPU cannot say what changed)
        assert moved["final_read_bytes"] == 0 and moved["final_bytes"] == 0, moved


@pytest.mark.gpu_only("the cuda backend's refusal; the software GPU moves sessions (the tests above); on the "
                      "null driver: test_cuda_migration.py")
def test_a_session_on_a_real_gpu_is_not_moved_and_runs_on(start_server, cuda_program):
    """A move the cuda backend cannot make fails with its reason, and loses nothing: the program goes
    on where it was and ends right, and the other server holds nothing of it."""
    a, _ = start_server(memory="256MiB")
    b, _ = start_server(memory="256MiB")
    # 60 iterations of 150 ms: the pre-copy that finds the stored address ends well before the program
    # (on the H200, 8 iterations ended first, and the move failed as "the session ended" instead)
    proc = subprocess.Popen([str(cuda_program("migrate_copies")), "60", "150", "escape"],
                            env={**client_env([a]), "RGPU_TIMEOUT": "60", "RGPU_LOG": "info"},
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        while not proc.stdout.readline().startswith("PROGRESS 2"):
            assert proc.poll() is None, proc.stderr.read()
        _, m = migration(a, b)
        out, err = proc.communicate(timeout=300)
    finally:
        if proc.poll() is None:
            proc.kill()
    # migrate_copies `escape` stored a module variable's address in device memory, where the target's
    # driver would not put the variable (server/checkpoint/escapes.py)
    assert m["state"] == "failed" and "keeps its GPU" in m["message"], m
    assert "stored the address of module variable 'marks'" in m["message"], m
    assert proc.returncode == 0 and " OK" in out, out + err
    assert "moved to" not in err
    # the target had opened the session for the pre-copy that found the address: the failed move's
    # abort frees it there (a polling deadline: its worker's end is the target's)
    wait_until(lambda: not server_client.stats(b)["sessions"], 30, "the target free of the session")


def test_a_program_holding_cuda_arrays_moves_there_and_back_and_they_go_with_it(servers, cuda_program):
    """migrate_copies `texture` writes a row of a CUDA array and a word of a mipmapped array's level
    every iteration and reads rows back, and samples the array through a texture object and writes it
    through a surface object from kernels (where kernels run). Moved there and back mid-run, the
    arrays are made again behind the handles the program holds, with their bytes (read at the stop on
    the cuda backend: server/backends/base.py array_state), the level is the same handle, the objects
    keep their values (server/checkpoint/session.py; on the cuda backend made again in the order the
    driver numbers them, a filler for the value the program freed below them: cuda/arrays.py), and
    the program ends with the unmoved run's results."""
    kind, start = servers
    how = "texture"
    a, b = start("256MiB"), start("256MiB")
    exe = cuda_program("migrate_copies")
    env = {**client_env([a]), "RGPU_TIMEOUT": "60"}
    # 48 iterations of 150 ms: the program still runs when the second move is ordered, on a loaded machine
    baseline = subprocess.run([str(exe), "48", "0", how], env=env, capture_output=True, text=True, timeout=300)
    assert baseline.returncode == 0 and " OK" in baseline.stdout, baseline.stdout + baseline.stderr
    expected = baseline.stdout.strip().splitlines()[-1]
    proc = subprocess.Popen([str(exe), "48", "150", how], env={**env, "RGPU_LOG": "info"},
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        ready = proc.stdout.readline()
        assert ready.startswith("READY")
        # where kernels run (all but the null driver), what they sampled and wrote through the objects
        # is checked too
        null = "null driver" in server_client.stats(a)["gpus"][0]["name"]
        assert null or "kernels run" in ready, ready
        for src, dst, at in [(a, b, 3), (b, a, 12)]:
            progress_to(proc, at)
            migrate_and_wait(src, dst)
        out, err = proc.communicate(timeout=300)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == 0 and out.strip().splitlines()[-1] == expected, (out, err, expected)
    assert err.count("moved to") == 2, err
    wait_until(lambda: not server_client.stats(a)["sessions"] and not server_client.stats(b)["sessions"], 20,
               "both servers free")
    assert server_client.stats(a)["gpus"][0]["memory_used"] == server_client.stats(b)["gpus"][0]["memory_used"] == 0


def test_a_program_whose_cuda_graph_runs_in_the_worker_is_moved_and_its_graph_goes_with_it(servers, cuda_program):
    """migrate_copies `graph` ends each iteration with a launch of a CUDA graph the worker built once
    (server/api/graphs.py): moved there and back mid-run, its graph is the session's object on each
    server (checkpoint/objects.py), launched under the same handle without being sent again, and the
    program ends with the unmoved run's results."""
    kind, start = servers
    a, b = start("256MiB"), start("256MiB")
    exe = cuda_program("migrate_copies")
    env = {**client_env([a]), "RGPU_TIMEOUT": "60", "RGPU_STATS": "1"}
    baseline = subprocess.run([str(exe), "40", "0", "graph"], env=env, capture_output=True, text=True, timeout=300)
    assert baseline.returncode == 0 and " OK" in baseline.stdout, baseline.stdout + baseline.stderr
    expected = baseline.stdout.strip().splitlines()[-1]
    proc = subprocess.Popen([str(exe), "40", "150", "graph"], env={**env, "RGPU_LOG": "info"},
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        assert proc.stdout.readline().startswith("READY")
        for src, dst, at in [(a, b, 3), (b, a, 9)]:
            progress_to(proc, at)
            migrate_and_wait(src, dst)
        out, err = proc.communicate(timeout=300)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == 0 and out.strip().splitlines()[-1] == expected, (out, err, expected)
    assert err.count("moved to") == 2, err
    calls = dict(re.findall(r"rgpu stats: call (rgpuGraph\w+) round_trips=(\d+ async=\d+)", err))
    assert calls.get("rgpuGraphBuild") == "1 async=0" and calls.get("rgpuGraphLaunch") == "0 async=40", calls


@pytest.mark.sim_only("the software GPU runs a synchronize's queued kernels on the worker's own thread, with "
                     "its checks at each time slice; the null driver runs no kernel")
def test_a_move_ordered_while_a_kernel_runs_starts_after_it_and_is_done(start_server, cuda_program):
    """The program waits in cudaDeviceSynchronize while its kernels run on the worker's thread, and
    the order to move comes at one of their time slices. The move starts after the kernel, between
    two messages. (Started at the time slice, its first step read the session's state, which waits
    for the kernel that very thread was running: the worker, and the program, waited for ever.) The
    program runs 15 s, long enough on a loaded machine to make calls after the move and follow it."""
    a, _ = start_server(memory="256MiB")
    b, _ = start_server(memory="256MiB")
    proc = subprocess.Popen([str(cuda_program("spin_kernels")), "15", "20000"],
                            env={**client_env([a]), "RGPU_TIMEOUT": "120", "RGPU_LOG": "info"},
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        assert proc.stdout.readline().startswith("READY")
        wait_until(lambda: any(s["device_time_s"] > 0.5 for s in server_client.stats(a)["sessions"]), 30,
                   "kernels running")
        _, m = migration(a, b)
        assert m["state"] == "done", m
        out, err = proc.communicate(timeout=120)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == 0 and "OK spin_kernels" in out, out + err
    assert err.count("moved to") == 1, err


@pytest.mark.parametrize("null", [False, True], ids=["test-backend", "cuda-null-driver"])
def test_a_program_uploading_on_its_data_stream_is_moved_mid_copy_and_every_byte_arrives(
        start_server, daemons, cuda_program, null):
    """Across hosts on a plain wire (here RGPU_SHM=0) a copy's pieces go on the session's data stream
    (server/data_stream.py), several messages ahead of their replies. A move commits between two
    messages, so pieces the client sent already reach the old worker after it: it reads their
    streamed data first (the client writes it before it reads the answer) and answers with the
    notice; the client sends them again to the target. Moved three times in the middle of 64 MiB
    uploads, the program reads back exactly what it uploaded, and the old workers say how many
    frames they read for messages they redirected."""
    import os
    servers = [start_null_server(daemons) if null else start_server(memory="256MiB") for _ in range(2)]
    (a, ha), (b, hb) = servers
    before = {id(h): h.log_size() for _, h in servers}
    env = {**os.environ, **client_env([a]), "RGPU_SHM": "0", "RGPU_TIMEOUT": "60", "RGPU_LOG": "info"}
    proc = subprocess.Popen([str(cuda_program("hold_memory")), "64", "uploads", "400"], env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        assert proc.stdout.readline().startswith("READY")
        for src, dst in [(a, b), (b, a), (a, b)]:
            time.sleep(0.5)  # uploads under way
            assert proc.poll() is None, "the program ended before its moves: give it more uploads"
            migrate_and_wait(src, dst)
        out, err = proc.communicate(timeout=300)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait(30)
    assert proc.returncode == 0 and "OK hold_memory 400" in out, out + err[-4000:]
    assert err.count("moved to") == 3, err[-4000:]
    ended = []
    for _, h in servers:
        log = h.output(1 << 62)[before[id(h)]:]
        ended += [dict(re.findall(r"(\w+)=(\S+)", x)) for x in log.splitlines() if "event=session_ended" in x]
    assert [e["bulk_kind"] for e in ended] == ["stream"] * 4, ended  # each hop's session streamed its pieces
    moved = [e for e in ended if e["reason"] == "moved"]
    assert len(moved) == 3, ended
    drained = sum(int(e["redirect_drained_frames"]) for e in moved)
    assert drained >= 1 and all(int(e["redirected_messages"]) >= int(e["redirect_drained_frames"]) for e in moved), moved
    if null:  # the cuda backend read each piece it copied into its page-locked stage (cuda/host_stage.py)
        last = next(e for e in ended if e["reason"] != "moved")
        assert int(last["staged_frames"]) == int(last["bulk_frames_in"]) > 0 and last["stage_pinned"] == "1", last
        assert all(0 < int(e["staged_frames"]) <= int(e["bulk_frames_in"]) for e in moved), moved
