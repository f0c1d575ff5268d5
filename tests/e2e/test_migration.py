"""End to end, live migration of unmodified CUDA programs between two software-GPU servers: a
program that keeps state on several streams, in a module variable, in managed memory and in a large
allocation is moved back and forth in the middle of its run and ends with results bit-exact to a
run that never moved (and to its own host-side computation). On a GPU, the cuda backend's refusal
to move a session loses nothing."""
from __future__ import annotations

import subprocess
import time

import pytest

from rgpu.client import server_client
from rgpu.paths import client_env
from tests.support.daemons import wait_until

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


# Live migration moves a checkpoint image of the session, which the cuda backend does not make: the
# driver places a module's variables itself, so a session rebuilt in another process could not keep
# the addresses the program holds (server/backends/cuda/device.py). On a GPU the refusal is tested.
MOVES_AN_IMAGE = "live migration moves a checkpoint image, which the cuda backend refuses to make " \
                 "(test_a_session_on_a_real_gpu_is_not_moved_and_runs_on)"


@pytest.mark.sim_only(MOVES_AN_IMAGE)
def test_a_program_moved_three_times_mid_run_gets_bit_exact_results(start_server, cuda_program):
    a, _ = start_server(memory="256MiB")
    b, _ = start_server(memory="256MiB")
    exe = cuda_program("migrate_streams")
    baseline = subprocess.run([str(exe), "30", "0"], env={**client_env([a]), "RGPU_TIMEOUT": "60"},
                              capture_output=True, text=True, timeout=300)
    assert baseline.returncode == 0 and " OK" in baseline.stdout, baseline.stdout + baseline.stderr
    expected = baseline.stdout.strip().splitlines()[-1]

    proc = subprocess.Popen([str(exe), "30", "150"], env={**client_env([a]), "RGPU_TIMEOUT": "60",
                                                            "RGPU_LOG": "info"},
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        assert proc.stdout.readline().startswith("READY")
        hops = [(a, b, 4), (b, a, 12), (a, b, 20)]
        outcomes = []
        for src, dst, at in hops:
            while True:
                line = proc.stdout.readline()
                assert line, proc.stderr.read()
                if line.startswith("PROGRESS") and int(line.split()[1]) >= at:
                    break
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


@pytest.mark.sim_only(MOVES_AN_IMAGE)
def test_an_idle_program_follows_its_session_at_its_next_call(start_server, cuda_program):
    """Moved while it makes no call at all (a notebook between cells): the notice waits for it."""
    a, _ = start_server(memory="256MiB")
    b, _ = start_server(memory="256MiB")
    exe = cuda_program("migrate_streams")
    proc = subprocess.Popen([str(exe), "3", "4000"], env={**client_env([a]), "RGPU_LOG": "info"},
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        while not proc.stdout.readline().startswith("PROGRESS 0"):
            pass
        t0 = time.monotonic()
        migrate_and_wait(a, b)
        assert time.monotonic() - t0 < 4, "the program was still sleeping: it made no call during the move"
        out, err = proc.communicate(timeout=120)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == 0 and " OK" in out, out + err
    assert "moved to" in err


@pytest.mark.gpu_only("the cuda backend's refusal; the software GPU moves sessions (the tests above)")
def test_a_session_on_a_real_gpu_is_not_moved_and_runs_on(start_server, cuda_program):
    """A move the cuda backend cannot make fails with its reason, and loses nothing: the program goes
    on where it was and ends right, and the other server holds nothing of it."""
    a, _ = start_server(memory="256MiB")
    b, _ = start_server(memory="256MiB")
    proc = subprocess.Popen([str(cuda_program("migrate_streams")), "8", "150"],
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
    assert m["state"] == "failed" and "cuda backend cannot checkpoint" in m["message"], m
    assert proc.returncode == 0 and " OK" in out, out + err
    assert "moved to" not in err
    assert not server_client.stats(b)["sessions"]
