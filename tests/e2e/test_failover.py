"""End to end, failover: a program under a `rgpu run --failover` lease of a controller with two
servers; its server is killed with SIGKILL (the supervisor and every process it started) in the
middle of the run, and the program carries on on the other server from its last checkpoint and its
log, and ends with the results of an unkilled run. A program that saw, since its last checkpoint, a
result a replay does not give again (an event timing) fails with an error that says so. Another
tenant's program, on the server that lives, runs on untouched. On two software GPUs, and on two cuda
servers on the null driver."""
from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import threading
import time

import pytest

from tests.e2e.test_migration import movable, progress_to
from tests.e2e.test_pool_migration import pool, servers_pool  # noqa: F401  (the fixture: a controller and two servers)
from tests.support.daemons import wait_until
from tests.support.procs import descendants
from tests.support.pool import Pool

pytestmark = pytest.mark.e2e


SEGMENT = "bulk data to"  # the client's line when a server on its host maps the session segment (shm.c)
# the two ways a session's data moves: through the shared segment and call ring of a server on the
# program's host, or in frames as to a server on another host (RGPU_SHM=0)
BOTH_PATHS = pytest.mark.parametrize("shm", ["1", "0"], ids=["same-host", "frames"])


def start(pool, exe, *args: str, failover: bool = True, interval: str = "0.3",  # noqa: F811
          shm: str = "1", budget: str | None = None, timeout: str = "60") -> subprocess.Popen:
    """The program under `rgpu run`; without failover on the emptiest GPU (spread): another tenant,
    away from the failover program's server."""
    env = dict(pool.env, RGPU_TIMEOUT=timeout, RGPU_LOG="info", RGPU_FAILOVER_INTERVAL=interval, RGPU_SHM=shm,
               **({"RGPU_FAILOVER_BUDGET": budget} if budget else {}))
    return subprocess.Popen([sys.executable, "-m", "rgpu.client.cli", "run", "--controller", pool.url,
                             "--mem", "128MiB", *(["--failover"] if failover else ["--policy", "spread"]),
                             "--", str(exe), *args],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)


def kill_server(pool, url: str) -> None:  # noqa: F811
    """SIGKILL to the server and everything it started: nothing of it says goodbye."""
    handle = pool.servers[url]
    below = descendants(handle.pid)
    handle.proc.send_signal(signal.SIGKILL)
    for pid in below:
        try:
            os.kill(pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
    handle.proc.wait(10)


def signal_server(pool, url: str, sig: int) -> None:  # noqa: F811
    """`sig` to the server and everything it started (SIGSTOP: it holds its connections, answers nothing)."""
    for pid in [pool.servers[url].pid, *descendants(pool.servers[url].pid)]:
        try:
            os.kill(pid, sig)
        except ProcessLookupError:
            pass


def kill_left(*procs) -> None:
    """Each program still running (a test that failed before it ended) killed."""
    for p in procs:
        if p is not None and p.poll() is None:
            p.kill()


def kill_its_server_at(pool, proc: subprocess.Popen, at: int, lease: list | None = None) -> tuple[str, str]:  # noqa: F811
    """Once the program under the one --failover lease says READY and then PROGRESS `at`, its server is
    killed; the program's output when it ends (the lease's id appended to `lease`). The program is
    killed if the test fails first."""
    try:
        assert proc.stdout.readline().startswith("READY")
        held, a = lease_of(pool)
        if lease is not None:
            lease.append(held)
        progress_to(proc, at)
        kill_server(pool, a)
        return proc.communicate(timeout=300)
    finally:
        kill_left(proc)


def ended(pool, lease: str) -> list[dict]:
    """The fields of every session_ended line the pool's servers logged for `lease`."""
    out = []
    for path in pool.tmp_path.glob("server-*.log"):
        for line in path.read_text(errors="replace").splitlines():
            if "event=session_ended" in line and f"lease={lease}" in line:
                out.append(dict(re.findall(r"(\w+)=(\S+)", line)))
    return out


def lease_of(pool) -> tuple[str, str]:  # noqa: F811
    """The one --failover lease and its server."""
    leases = wait_until(lambda: {k: v for k, v in pool.leases().items() if v["request"].get("failover")}, 30,
                        "the program's lease")
    [(lease, entry)] = leases.items()
    return lease, entry["vgpus"][0]["server"]


@BOTH_PATHS
def test_a_program_whose_server_is_killed_finishes_on_the_other_with_the_same_results(pool, cuda_program, shm):  # noqa: F811
    exe = cuda_program(movable(pool.kind))
    base = pool.run("--mem", "128MiB", "--", str(exe), "30", "0")
    assert base.returncode == 0 and " OK" in base.stdout, base.stdout + base.stderr
    expected = base.stdout.strip().splitlines()[-1]
    proc = start(pool, exe, "30", "150", shm=shm)
    other = None
    try:
        assert proc.stdout.readline().startswith("READY")
        lease, a = lease_of(pool)
        [b] = [u for u in pool.servers if u != a]
        # another tenant on the server that lives: it must not notice
        other = start(pool, exe, "30", "20", failover=False)
        assert other.stdout.readline().startswith("READY")
        progress_to(proc, 8)
        kill_server(pool, a)
        out, err = proc.communicate(timeout=300)
        other_out, other_err = other.communicate(timeout=300)
    finally:
        kill_left(proc, other)
    assert proc.returncode == 0, out + err
    assert out.strip().splitlines()[-1] == expected, (out, expected)
    assert "from its checkpoint" in err, "resumed from a checkpoint, not by replaying the whole run: " + err
    # on this host, through the segment both before the kill and after (the servers share the host)
    assert err.count(SEGMENT) == (2 if shm == "1" else 0), err
    assert other.returncode == 0 and other_out.strip().splitlines()[-1] == expected, other_out + other_err
    entry = pool.leases().get(lease)
    assert entry is None or entry["vgpus"][0]["server"] == b, entry


def test_a_result_the_replay_does_not_give_again_fails_the_program_with_a_clear_error(pool, cuda_program):  # noqa: F811
    exe = cuda_program("failover_timing")
    # no checkpoint after the first second: the timings the program saw since are in the log
    proc = start(pool, exe, "60", "100", interval="3600")
    out, err = kill_its_server_at(pool, proc, 3)
    assert proc.returncode != 0 and "DONE" not in out, out + err
    assert "cannot be replayed exactly" in err, err


def test_checkpoints_at_every_synchronisation_leave_a_program_s_results_as_they_were(pool, cuda_program):  # noqa: F811
    """Pinned memory, async copies both ways, several streams: with a checkpoint at every sync point
    (RGPU_FAILOVER_INTERVAL=0, RGPU_FAILOVER_BUDGET=1) and every message logged, the program computes
    what it computes without; with a budget of 5% of its time the checkpoints are as many as
    keep each one's time within it: fewer."""
    exe = cuda_program("pinned_copies")
    args = ["8", "copy"] if pool.kind == "cuda" else ["8"]
    taken = {}
    for budget in ("1", "0.05"):
        env = dict(pool.env, RGPU_FAILOVER_INTERVAL="0", RGPU_FAILOVER_BUDGET=budget, RGPU_LOG="debug")
        p = pool.run("--mem", "128MiB", "--failover", "--", str(exe), *args, env=env)
        assert p.returncode == 0 and "OK pinned_copies" in p.stdout, p.stdout + p.stderr
        taken[budget] = [(float(t), float(g)) for t, g in
                         re.findall(r"failover: checkpoint \d+ of \S+ \((?:whole|a delta)\), \d+ bytes in ([\d.]+) s; the next in "
                                    r"([\d.]+) s",
                                    p.stderr)]
        assert taken[budget], "checkpoints were taken: " + p.stderr[-2000:]
    # budget 1: at every synchronisation; 5%: each checkpoint keeps the next 19 times its own time away
    assert all(g == 0 for _, g in taken["1"]), taken["1"]
    assert all(abs(g - t * 19) <= 0.1 for t, g in taken["0.05"]), taken["0.05"]
    assert len(taken["0.05"]) < len(taken["1"]), taken


def test_an_env_only_lease_fails_over_too(pool, cuda_program, libdir, tmp_path):  # noqa: F811
    """A program with only environment variables (RGPU_CONTROLLER, RGPU_MEM, RGPU_FAILOVER=1): its own
    lease asks for failover, and the library resumes it on the other server with its own token."""
    exe = cuda_program(movable(pool.kind))
    base = pool.run("--mem", "128MiB", "--", str(exe), "30", "0")
    assert base.returncode == 0 and " OK" in base.stdout, base.stdout + base.stderr
    env = {k: v for k, v in pool.env.items() if k not in ("RGPU_CLUSTER_SECRET", "RGPU_SERVER", "RGPU_LEASE")}
    env.update(LD_LIBRARY_PATH=str(libdir), LD_PRELOAD=str(libdir / "librgpu.so"), RGPU_MEM="128MiB",
               RGPU_FAILOVER="1", RGPU_FAILOVER_INTERVAL="0.3", RGPU_LOG="info", RGPU_TIMEOUT="60",
               XDG_CACHE_HOME=str(tmp_path / "cache"))
    env["RGPU_CREDENTIAL"] = str(pool.controller.user("fay"))
    proc = subprocess.Popen([str(exe), "30", "150"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            env=env)
    out, err = kill_its_server_at(pool, proc, 8)
    assert proc.returncode == 0, out + err
    assert out.strip().splitlines()[-1] == base.stdout.strip().splitlines()[-1], out
    assert "from its checkpoint" in err and "released" in err, err


def test_a_session_the_server_cannot_checkpoint_runs_on_and_says_so_once(pool, cuda_program):  # noqa: F811
    """VMM mappings cannot be checkpointed yet (server/checkpoint/session.py): under --failover the
    program runs as it would without (a checkpoint asked at every sync point, RGPU_FAILOVER_INTERVAL=0
    and RGPU_FAILOVER_BUDGET=1: the first, taken before the program maps memory, would otherwise keep
    the next away; each later one refused), and the log says so once."""
    exe = cuda_program("driver_vmm")
    args = ["copy"] if pool.kind == "cuda" else []
    env = dict(pool.env, RGPU_FAILOVER_INTERVAL="0", RGPU_FAILOVER_BUDGET="1", RGPU_LOG="info")
    p = pool.run("--mem", "128MiB", "--failover", "--", str(exe), *args, env=env)
    assert p.returncode == 0 and "OK driver_vmm" in p.stdout, p.stdout + p.stderr
    assert p.stderr.count("keeps no checkpoint of this session") == 1, p.stderr


def test_a_log_that_outgrows_its_bound_with_checkpoints_refused_is_dropped_and_the_program_runs_on(pool, cuda_program):  # noqa: F811
    """The same program, whose checkpoints the server refuses, with a log bound (RGPU_FAILOVER_LOG_MAX)
    it passes: the log is dropped rather than kept growing for as long as the program runs, the
    program runs on with its results, and the log says so once."""
    exe = cuda_program("driver_vmm")
    args = ["copy"] if pool.kind == "cuda" else []
    env = dict(pool.env, RGPU_FAILOVER_INTERVAL="0", RGPU_FAILOVER_BUDGET="1", RGPU_FAILOVER_LOG_MAX="256",
               RGPU_LOG="info")
    p = pool.run("--mem", "128MiB", "--failover", "--", str(exe), *args, env=env)
    assert p.returncode == 0 and "OK driver_vmm" in p.stdout, p.stdout + p.stderr
    assert p.stderr.count("has no failover until the server takes one") == 1, p.stderr


@BOTH_PATHS
def test_a_replayed_read_gives_what_the_program_saw_though_the_next_write_overwrote_it(pool, cuda_program, shm):  # noqa: F811
    """Each step writes a buffer and reads it back, and the next step's write overwrites it. No checkpoint
    after the first: the log holds every step since. The replay must run each logged message only
    once the replies to the one before are out, as the program did: back to back, the server would
    write step i+1's data while step i's read was still being sent (the software GPU sends device
    memory without a copy), and the replay would give other data than the program saw. Through the
    segment, the log holds each copy as it would have gone in frames (the segment's contents are the
    next step's by then), and what the program read there is compared with the frames of the replay."""
    exe = cuda_program("failover_readback")
    base = pool.run("--mem", "128MiB", "--", str(exe), "12", "0")
    assert base.returncode == 0 and " OK" in base.stdout, base.stdout + base.stderr
    expected = base.stdout.strip().splitlines()[-1]
    proc = start(pool, exe, "12", "100", interval="3600", shm=shm)
    lease = []
    out, err = kill_its_server_at(pool, proc, 5, lease)
    assert proc.returncode == 0, out + err
    assert out.strip().splitlines()[-1] == expected, (out, expected)
    assert "resumed on" in err, err
    assert err.count(SEGMENT) == (2 if shm == "1" else 0), err
    # each step's batch from pinned memory: on this host the worker read it there (the log holds
    # its bytes, which the replay above sent in frames), across hosts it came in frames
    [new] = wait_until(lambda: ended(pool, lease[0]), 30, "the resumed session's end")
    assert (int(new["pinned_bytes_in"]) >= 4 * 65536) == (shm == "1"), new
    # each step's few words read back into pinned memory: on this host the worker wrote them there
    # before its next reply (no message of their own), across hosts they came ahead of it; either
    # way the replay brought each again and it matched what the program had read (steps 0-5 at least)
    assert (int(new["pinned_bytes_out"]) >= 4 * 256) == (shm == "1"), new
    assert replayed_alike(err)[1] >= 6, err


@BOTH_PATHS
def test_a_loops_nearly_identical_messages_are_logged_as_differences_and_replayed_right(pool, cuda_program, shm):  # noqa: F811
    """Every step queues the same 24 kernels with 1.2 KB of parameters each (a list of addresses and a
    scalar per tensor, as a foreach optimizer's), then reads a few words back: heads that differ from
    step to step only in the calls' seqs and the step's scalars, which the log keeps as their
    differences from the first (libhook/src/transport/log_delta.c). No checkpoint after the first:
    the server killed, the log's heads are laid back over their key and replayed, and on the software
    GPU the kernels' arithmetic with every step's scalars makes the digest the unkilled run's."""
    exe = cuda_program("failover_launches")
    base = pool.run("--mem", "128MiB", "--", str(exe), "14", "0")
    assert base.returncode == 0 and " OK" in base.stdout, base.stdout + base.stderr
    proc = start(pool, exe, "14", "100", interval="3600", shm=shm)
    out, err = kill_its_server_at(pool, proc, 7)
    assert proc.returncode == 0, out + err
    assert out.strip().splitlines()[-1] == base.stdout.strip().splitlines()[-1], (out, base.stdout)
    kept = re.search(r"logged message\(s\) \((\d+) of their heads kept as differences\)", err)
    assert kept and int(kept.group(1)) >= 6, err
    assert replayed_alike(err)[0] >= 7, err


@BOTH_PATHS
def test_managed_buffers_the_device_seldom_writes_are_replayed_alike(pool, cuda_program, shm):  # noqa: F811
    """Two managed buffers read by the host after every synchronisation of the legacy stream, one
    written by the device at every step, the other at every fourth (and by the host at every
    seventh). On this host their pull goes ahead of the synchronisation into shadows the worker
    writes, and a shadow that comes back as the host last saw it keeps the digest the log took when
    those bytes last came instead of being digested again. In frames the pull names the digest the
    worker gave of what the client holds, and an unchanged buffer's reply carries no data
    (rgpuManagedPull). The server killed, the replay's pulls must compare alike with every result
    logged, or the program would be refused as unreplayable; the host checks both buffers whole
    after every step, and the results are the unkilled run's."""
    exe = cuda_program("failover_managed")
    base = pool.run("--mem", "128MiB", "--", str(exe), "16", "0")
    assert base.returncode == 0 and " OK" in base.stdout, base.stdout + base.stderr
    expected = base.stdout.strip().splitlines()[-1]
    proc = start(pool, exe, "16", "100", interval="3600", shm=shm)
    out, err = kill_its_server_at(pool, proc, 10)
    assert proc.returncode == 0, out + err
    assert out.strip().splitlines()[-1] == expected, (out, expected)
    assert err.count(SEGMENT) == (2 if shm == "1" else 0), err
    # the two pulls of each of steps 0-10 at least, each compared with what it gave the program: on
    # this host async copies' data, in frames the results of the synchronisation's followers
    assert replayed_alike(err)[0 if shm == "0" else 1] >= 22, err


def replayed_alike(err: str) -> tuple[int, int]:
    """From the client's line on resuming: how many call results and async copies' data the replay
    compared with what the program had seen."""
    m = re.search(r"replayed alike: (\d+) call result\(s\) and (\d+) asynchronous copies' data", err)
    assert m, err
    return int(m.group(1)), int(m.group(2))


@BOTH_PATHS
def test_data_a_kernel_never_writes_alike_read_into_pinned_memory_cannot_be_replayed_and_says_so(pool, cuda_program, shm):  # noqa: F811
    """A kernel stores the device's clock, and an async copy brings it into pinned memory before a
    stream synchronize, as PyTorch's `.item()` does. The copy's data is digested as the program gets
    it: on this host once the worker has written it into the pinned memory the copy named, which it
    does before its next reply (the log keeps the copy without the name); in frames as it comes ahead
    of that reply. Replayed on the other server the copy brings another time: the program fails and
    says why. The null driver runs no kernel code, so there the word is the same on replay, every
    copy's data is compared, and the program finishes."""
    exe = cuda_program("failover_clock")
    proc = start(pool, exe, "40", "100", interval="3600", shm=shm)
    out, err = kill_its_server_at(pool, proc, 3)
    if pool.null:
        assert proc.returncode == 0 and "DONE" in out, out + err
        assert replayed_alike(err)[1] >= 4, err
    else:
        assert proc.returncode != 0 and "DONE" not in out, out + err
        assert "(an asynchronous copy's data) since the last checkpoint gives another data" in err, err
        assert "cannot be replayed exactly" in err, err


@BOTH_PATHS
def test_a_program_resumes_from_a_whole_checkpoint_and_the_deltas_taken_after_it(pool, cuda_program, shm):  # noqa: F811
    """A checkpoint at every synchronisation (interval 0, budget 1): the first is a whole image, the
    next ones deltas holding only what each step changed (server/checkpoint/session.py Chain). The
    server killed a few steps in, the other restores the whole image and every delta after it, in
    order, and the program ends as an unkilled run does."""
    exe = cuda_program("failover_readback")
    base = pool.run("--mem", "128MiB", "--", str(exe), "12", "0")
    assert base.returncode == 0 and " OK" in base.stdout, base.stdout + base.stderr
    proc = start(pool, exe, "12", "100", interval="0", budget="1", shm=shm)
    out, err = kill_its_server_at(pool, proc, 3)
    assert proc.returncode == 0, out + err
    assert out.strip().splitlines()[-1] == base.stdout.strip().splitlines()[-1], out
    deltas = re.search(r"resumed on \S+ from its checkpoint \(a whole image and (\d+) deltas?\)", err)
    assert deltas and int(deltas.group(1)) >= 1, err


@BOTH_PATHS
def test_a_long_chain_of_small_deltas_is_kept_and_restored_whole(pool, cuda_program, shm):  # noqa: F811
    """A checkpoint at every step of a program whose steps change a few KB of its memory (each launch
    writes one of its tensors): the deltas are small, and the client keeps them after the first whole
    image for as long as they hold less than twice what a whole one would (libhook/src/transport/failover.c
    rgpu_fo_wants_delta), not only 15 of them as before: a whole image crosses the network again only
    when the bytes say so. Killed at step 30, the other server restores the whole image and every delta
    after it, in order, and the program ends as an unkilled run does."""
    exe = cuda_program("failover_launches")
    base = pool.run("--mem", "128MiB", "--", str(exe), "36", "0", "1")
    assert base.returncode == 0 and " OK" in base.stdout, base.stdout + base.stderr
    proc = start(pool, exe, "36", "50", "1", interval="0", budget="1", shm=shm)
    out, err = kill_its_server_at(pool, proc, 30)
    assert proc.returncode == 0, out + err
    assert out.strip().splitlines()[-1] == base.stdout.strip().splitlines()[-1], (out, base.stdout)
    deltas = re.search(r"resumed on \S+ from its checkpoint \(a whole image and (\d+) deltas?\)", err)
    assert deltas and int(deltas.group(1)) >= 20, err


def test_a_module_the_first_server_had_cached_loads_on_a_second_that_never_saw_it(daemons, tmp_path, cuda_program,
                                                                                  device_kind):
    """Servers cache module images by digest (per owner), and a client offers a module by its digest
    first. Here each server has a cache of its own, as on two hosts (the suite's servers share one):
    an earlier run and another program of the same owner put the image in the first server's, and
    the --failover program, placed there too (binpack: the fuller GPU), found it cached. No checkpoint
    is taken, so its load is in the log replayed on the second server, which has never seen the image:
    the replay must load it there, not answer "not found" where the program saw the load succeed."""
    pool = Pool(daemons, tmp_path)
    # on real GPUs both servers would register the same UUIDs, which the controller takes once
    # (gpu_taken): each serves a half of them instead (--gpu-part)
    a, b = (pool.add_server("512MiB", *(("--gpu-part", f"{i + 1}/2") if device_kind == "cuda" else ()),
                            env={"RGPU_MODULE_CACHE": str(tmp_path / f"modules-{i}")}) for i in range(2))
    wait_until(lambda: pool.states() == {a: "up", b: "up"}, 60, "both servers up")
    exe = cuda_program("migrate_streams")
    base = pool.run("--mem", "128MiB", "--", str(exe), "30", "0")
    assert base.returncode == 0 and " OK" in base.stdout, base.stdout + base.stderr
    holder = subprocess.Popen([sys.executable, "-m", "rgpu.client.cli", "run", "--controller", pool.url, "--mem",
                               "128MiB", "--", str(exe), "60", "1000"], stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, text=True, env=dict(pool.env, RGPU_TIMEOUT="60"))
    proc = None
    try:
        assert holder.stdout.readline().startswith("READY")
        progress_to(holder, 1)  # its module loaded and its kernels ran
        [held] = [v["vgpus"][0]["server"] for v in pool.leases().values()]
        proc = start(pool, exe, "30", "100", interval="3600")
        assert proc.stdout.readline().startswith("READY")
        _, on = lease_of(pool)
        assert on == held, "the --failover program went to the other server: the case is not made"
        progress_to(proc, 6)
        kill_server(pool, on)
        out, err = proc.communicate(timeout=300)
    finally:
        kill_left(holder, proc)
    assert proc.returncode == 0, out + err
    assert out.strip().splitlines()[-1] == base.stdout.strip().splitlines()[-1], (out, base.stdout)
    assert "resumed on" in err and "from the start" in err, err


@pytest.mark.parametrize("how", ["graph", "texture", "managed"])
def test_a_program_whose_objects_live_in_the_worker_fails_over_with_them(pool, cuda_program, how):  # noqa: F811
    """migrate_copies `graph` launches a CUDA graph the worker built (server/api/graphs.py) every
    iteration; `texture` writes and reads CUDA arrays and samples and writes them through texture and
    surface objects (where kernels run), `managed` managed memory from the host and the device: its
    server killed, the program resumes on the other from its checkpoint, where the graph, the arrays
    and the objects are the session's again, the objects at the values the program holds
    (checkpoint/objects.py, checkpoint/session.py; the cuda backend's: cuda/arrays.py), and ends with
    the results of a run left alone."""
    exe = cuda_program("migrate_copies")
    base = pool.run("--mem", "128MiB", "--", str(exe), "16", "0", how)
    assert base.returncode == 0 and " OK" in base.stdout, base.stdout + base.stderr
    expected = base.stdout.strip().splitlines()[-1]
    out, err = kill_its_server_at(pool, start(pool, exe, "16", "150", how), 6)
    assert out.strip().splitlines()[-1] == expected, (out, err, expected)
    assert "from its checkpoint" in err, err


def test_a_variable_address_the_program_was_handed_is_in_a_checkpoint_before_its_server_can_be_lost(pool, cuda_program):  # noqa: F811
    """migrate_copies `address` asks for a module variable's address (cudaGetSymbolAddress) and uses it
    every iteration. The other server's driver places the variable elsewhere (on the null driver, as on
    a GPU), so a replay of that call answers another address and a recovery from before it is refused.
    With an interval far longer than the run, the one checkpoint is the one the handed address asks for
    at the next sync point (failover.c, handed_new): the kill at iteration 6 resumes from it, where the
    server keeps the address the program holds (aliases.py), and the program ends as a run left alone."""
    exe = cuda_program("migrate_copies")
    base = pool.run("--mem", "128MiB", "--", str(exe), "16", "0", "address")
    assert base.returncode == 0 and " OK" in base.stdout, base.stdout + base.stderr
    proc = start(pool, exe, "16", "150", "address", interval="3600")
    out, err = kill_its_server_at(pool, proc, 6)
    assert proc.returncode == 0, out + err[-4000:]
    assert out.strip().splitlines()[-1] == base.stdout.strip().splitlines()[-1], (out, err[-4000:])
    assert "from its checkpoint" in err, err[-4000:]


def test_a_server_killed_while_large_copies_move_in_pieces_is_failed_over(pool, cuda_program):  # noqa: F811
    """Across hosts a copy of 4 MiB or more moves in pieces, a message each (copy_pieces.c): here 8 MiB
    written and read back, step after step with no pause, so the program spends nearly all its time in
    pieces and the kill lands in one. The pieces sent are kept with the rest until the copy's reply,
    and the recovery sends them all again to the other server: the program ends as an unkilled run."""
    exe = cuda_program("failover_readback")
    base = pool.run("--mem", "128MiB", "--", str(exe), "40", "0")
    assert base.returncode == 0 and " OK" in base.stdout, base.stdout + base.stderr
    proc = start(pool, exe, "40", "0", shm="0")
    out, err = kill_its_server_at(pool, proc, 10)
    assert proc.returncode == 0, out + err
    assert out.strip().splitlines()[-1] == base.stdout.strip().splitlines()[-1], (out, err)
    assert "resumed on" in err, err


@pytest.fixture(params=["test", "null"], ids=["test-backend", "cuda-null-driver"])
def pool3(request, daemons, tmp_path, device_kind):
    """A controller and three servers with a GPU each (servers_pool)."""
    p = servers_pool(daemons, tmp_path, device_kind, request.param == "null", count=3)
    yield p
    for handle in p.servers.values():
        handle.stop()


def test_a_server_lost_during_the_recovery_sends_it_on_to_a_third(pool3, cuda_program):
    """The program's server dies, and so does the one the controller places its vGPU on, before the
    session is resumed there (a rack's power, a second failure while the first is handled): the
    recovery asks the controller again, naming both servers lost, and the program resumes on the
    third and ends with the results of an unkilled run. Deterministic: the other two servers are
    stopped (SIGSTOP: their connections open, nothing answered) before the first is killed, so the
    session cannot open on the one chosen before the test kills it; the last is let go on then."""
    pool = pool3
    exe = cuda_program(movable(pool.kind))
    base = pool.run("--mem", "128MiB", "--", str(exe), "20", "0")
    assert base.returncode == 0 and " OK" in base.stdout, base.stdout + base.stderr
    proc = start(pool, exe, "20", "100")
    stopped: list[str] = []
    try:
        assert proc.stdout.readline().startswith("READY")
        lease, a = lease_of(pool)
        progress_to(proc, 4)
        stopped = [u for u in pool.servers if u != a]
        for u in stopped:
            signal_server(pool, u, signal.SIGSTOP)
        kill_server(pool, a)
        # the program asked for another server: the controller placed the vGPU on one of the stopped
        second = wait_until(lambda: {pool.leases()[lease]["vgpus"][0]["server"]} - {a}, 30, "the first failover").pop()
        kill_server(pool, second)
        [third] = [u for u in stopped if u != second]
        signal_server(pool, third, signal.SIGCONT)
        out, err = proc.communicate(timeout=300)
    finally:
        for u in stopped:
            if pool.servers[u].proc.poll() is None:
                signal_server(pool, u, signal.SIGCONT)
        kill_left(proc)
    assert proc.returncode == 0, out + err
    assert out.strip().splitlines()[-1] == base.stdout.strip().splitlines()[-1], (out, err)
    assert re.search(rf"lost {re.escape(second)}\S* too, before the session was resumed there", err), err
    assert re.search(rf"resumed on {re.escape(third)}\S* from its checkpoint", err), err


def test_a_server_lost_after_the_session_opened_there_sends_it_on_to_a_third(pool3, cuda_program):
    """As above, the second server dying after it started the session: while the client attaches to
    its worker or replays the log there. No checkpoint is taken (interval 3600 s), so the log holds
    every message of 300 iterations, each replayed with a barrier after it (150 iterations were 1,075
    messages, replayed in 2.6 s once and in 0.54 s later, too quick for a kill 0.3 s in to land there):
    the kill, sent 0.1 s after the second server logs the session's start, lands in the
    replay (or, on a machine that stalls, in the attach: either is a loss before the session was
    resumed, which is what is asserted). The loss is seen when the connection drops (the socket's
    monitor): RGPU_TIMEOUT is 600 s and the test waits 240 s at most, so a recovery that waited for
    the timeout instead fails here."""
    pool = pool3
    exe = cuda_program(movable(pool.kind))
    base = pool.run("--mem", "128MiB", "--", str(exe), "400", "0")
    assert base.returncode == 0 and " OK" in base.stdout, base.stdout + base.stderr
    proc = start(pool, exe, "400", "5", interval="3600", timeout="600")
    try:
        assert proc.stdout.readline().startswith("READY")
        lease, a = lease_of(pool)
        progress_to(proc, 300)
        kill_server(pool, a)
        second = wait_until(lambda: {pool.leases()[lease]["vgpus"][0]["server"]} - {a}, 30, "the first failover").pop()
        log = pool.tmp_path / f"server-{second.rsplit(':', 1)[1]}.log"
        wait_until(lambda: any("event=session_started" in line and f"lease={lease}" in line
                               for line in log.read_text(errors="replace").splitlines()), 30,
                   "the session's start on the second server")
        time.sleep(0.1)  # the attach done, the replay under way (choreography, not a measurement)
        kill_server(pool, second)
        out, err = proc.communicate(timeout=240)
    finally:
        kill_left(proc)
    assert proc.returncode == 0, out + err
    assert out.strip().splitlines()[-1] == base.stdout.strip().splitlines()[-1], (out, err)
    lost = re.search(rf"lost {re.escape(second)}\S* too, before the session was resumed there \((.*)\); asking", err)
    assert lost, err
    assert re.match(r"the new server \S+ did not answer the (replayed calls|restore)|the session could not be opened",
                    lost.group(1)), lost.group(1)
    [third] = [u for u in pool.servers if u not in (a, second)]
    assert re.search(rf"resumed on {re.escape(third)}\S* from the start \(no checkpoint yet\)", err), err


def test_a_server_lost_during_the_restore_sends_it_on_to_a_third(pool3, cuda_program):
    """As above, the second server dying while it restores the checkpoint. The program holds 64 MiB of
    pseudo-random bytes (migrate_copies `noise`: its checks are of copies and memsets, which both
    backends run), so the image is about as large and its restore takes a while; the library says
    when it starts one (an info line), and the test stops that server then (SIGSTOP: it answers
    nothing, the restore cannot end) and kills it. The loss is seen when the connection drops, not
    after RGPU_TIMEOUT (600 s against the test's 240 s), and the program resumes on the third from
    the same checkpoint."""
    pool = pool3
    exe = cuda_program("migrate_copies")
    base = pool.run("--mem", "128MiB", "--", str(exe), "300", "0", "noise")
    assert base.returncode == 0 and " OK" in base.stdout, base.stdout + base.stderr
    proc = start(pool, exe, "300", "20", "noise", timeout="600")
    err: list[str] = []
    restoring: list[str] = []  # the server named by the first restore line, stopped at once
    seen = threading.Event()

    def read_err():
        for line in proc.stderr:
            err.append(line)
            if not seen.is_set() and "restoring its checkpoint on" in line:
                [u] = [u for u in pool.servers if u in line]
                signal_server(pool, u, signal.SIGSTOP)
                restoring.append(u)
                seen.set()

    reader = threading.Thread(target=read_err, daemon=True)
    reader.start()
    try:
        assert proc.stdout.readline().startswith("READY")
        lease, a = lease_of(pool)
        progress_to(proc, 100)  # 2 s and more in: its first checkpoint (the 64 MiB whole) is held
        kill_server(pool, a)
        assert seen.wait(120), "".join(err)
        [second] = restoring
        kill_server(pool, second)
        proc.wait(240)  # its output (300 short lines at most) fits the pipe
        out = proc.stdout.read()
        reader.join(30)
    finally:
        for u in restoring:
            if pool.servers[u].proc.poll() is None:
                signal_server(pool, u, signal.SIGCONT)
        kill_left(proc)
    err_text = "".join(err)
    assert proc.returncode == 0, out + err_text
    assert out.strip().splitlines()[-1] == base.stdout.strip().splitlines()[-1], (out, err_text)
    lost = re.search(rf"lost {re.escape(second)}\S* too, before the session was resumed there \((.*)\); asking", err_text)
    assert lost, err_text
    assert re.match(rf"the new server {re.escape(second)}\S* did not answer the restore$", lost.group(1)), lost.group(1)
    [third] = [u for u in pool.servers if u not in (a, second)]
    assert re.search(rf"resumed on {re.escape(third)}\S* from its checkpoint", err_text), err_text
