"""Idle reclaim of an unmodified program, end to end through `rgpu run`: the program leaves buffers,
a module variable, a stream and an event on the device and goes idle; the server reclaims its
session (its memory off the GPU and off the quota) while the program sleeps; the program's next
call restores it, and it finds every byte where it left it, at the addresses it holds, round after
round.

Two servers: the test backend (the software GPU, whose reclaim writes a checkpoint image; on a GPU
host the real GPU, whose driver checkpoints the worker's process), and the cuda backend on the null
driver (benchmarks/native/nulldriver.c), which answers the driver's checkpoint calls as the real one
does and unmaps device memory while the process is checkpointed: what CI has of the cuda backend's
reclaim (server/backends/cuda/suspension.py)."""
from __future__ import annotations

import os
import subprocess
import sys

import pytest

from rgpu.client import server_client
from rgpu.client.server_client import ping
from tests.conftest import server_argv
from tests.e2e.test_pool_migration import NULL_UUIDS
from tests.support.daemons import free_url, wait_until
from tests.support.null_server import start as start_null_server

pytestmark = pytest.mark.e2e

NULL_WINDOW = (0x300000000000, 0x400000000000)  # the null driver's device memory (nulldriver.c)


def _device_mappings(pid: int) -> int:
    """How many readable mappings of the worker's process lie in the null driver's device memory (the
    session's arena stays reserved, inaccessible, while the driver holds its checkpoint)."""
    with open(f"/proc/{pid}/maps") as f:
        return sum(NULL_WINDOW[0] <= int(line.split("-", 1)[0], 16) < NULL_WINDOW[1] and line.split()[1][0] == "r"
                   for line in f)


@pytest.fixture(params=["test backend", "null driver"])
def reclaiming(request, daemons, tmp_path, device_sizes):
    """(server url, which, pause ms): a server reclaiming sessions idle for a second."""
    args = ["--reclaim-after", "1", "--checkpoint-dir", str(tmp_path / "ckpt")]
    if request.param == "null driver":
        return start_null_server(daemons, *args)[0], request.param, 6000
    url = free_url()
    daemons.start([*server_argv(url), *args], ready=lambda: ping(url), deadline_s=60)
    return url, request.param, device_sizes["reclaim_pause_ms"]


def _session(url: str) -> dict | None:
    sessions = server_client.stats(url)["sessions"]
    return sessions[0] if len(sessions) == 1 else None


def test_an_idle_program_is_reclaimed_and_finds_its_state_at_its_next_call(reclaiming, cuda_program):
    url, which, pause_ms = reclaiming
    exe = cuda_program("idle_state")
    proc = subprocess.Popen([sys.executable, "-m", "rgpu.client.cli", "run", "--server", url, "--",
                             str(exe), str(pause_ms), "2"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            env={**os.environ, "RGPU_TIMEOUT": "60"})
    try:
        for r in range(2):
            line = proc.stdout.readline()
            assert line.startswith(f"PAUSE {r}"), line or proc.stderr.read()
            # reclaimed within the pause (less a second for what is asked below before it ends)
            s = wait_until(lambda: (x := _session(url)) and x["state"] == "reclaimed" and x, pause_ms / 1000 - 1,
                           f"the idle program's session reclaimed (pause {r})")
            assert server_client.stats(url)["gpus"][0]["memory_used"] == 0, "its memory is off the quota"
            assert s["reclaim"]["memory_bytes"] >= (24 << 20) + (1 << 20), s["reclaim"]
            if which == "null driver":
                assert _device_mappings(s["pid"]) == 0, "the driver holds no device memory for it"
                assert s["reclaim"]["stored_bytes"] == 0, "the driver's checkpoint, in the worker's memory"
            line = proc.stdout.readline()
            assert line.startswith(f"ROUND {r} OK"), line
            s = _session(url)
            assert s["reclaim"]["restores"] == r + 1 and s["reclaim"]["restore_s"] > 0, s["reclaim"]
            if which == "null driver":
                assert _device_mappings(s["pid"]) > 0
        out, err = proc.communicate(timeout=120)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == 0 and "OK idle_state 2 rounds" in out, out + err
    wait_until(lambda: not server_client.stats(url)["sessions"], 20, "the session ended")
    assert server_client.stats(url)["gpus"][0]["memory_used"] == 0


def test_a_cuda_session_whose_program_holds_a_variables_address_moves_and_the_address_still_reaches_it(
        daemons, cuda_program):
    """idle_state asked cudaGetSymbolAddress for its module variable before its first pause; the
    driver of the other server places the variable elsewhere. Moved during the pause, the program
    reads the variable through the address it holds and by name, writes it by name, and finds every
    byte of both rounds (server/backends/cuda/aliases.py); the source holds nothing of it after."""
    # two GPUs: each null driver keeps its own data before module variables, of a size its UUID decides
    servers = [start_null_server(daemons, env={"RGPU_NULL_UUID": u}) for u in NULL_UUIDS]
    urls = [url for url, _ in servers]
    proc = subprocess.Popen([sys.executable, "-m", "rgpu.client.cli", "run", "--server", urls[0], "--",
                             str(cuda_program("idle_state")), "3000", "2"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env={**os.environ, "RGPU_LOG": "info"})
    try:
        assert proc.stdout.readline().startswith("PAUSE 0")
        session = wait_until(lambda: _session(urls[0]), 20, "the program's session")["session"]
        r = server_client.request(urls[0], {"op": "migrate", "session": session, "to": f"{urls[1]}#0"})
        assert r["ok"], r
        mid = r["migration"]["id"]
        m = wait_until(lambda: (x := next(m for m in server_client.stats(urls[0])["migrations"]
                                          if m["id"] == mid))["state"] != "running" and x, 30, "the move")
        assert m["state"] == "done", m
        out, err = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == 0 and "ROUND 0 OK" in out and "OK idle_state 2 rounds" in out, out + err
    assert "moved to" in err, err
    assert _session(urls[0]) is None, "the source keeps nothing"
    # the variable is elsewhere on the target: the program's address was an alias there
    log = servers[1][1].log_path.read_text()
    assert "variable_alias" in log and "tally" in log, log[-3000:]


def test_a_driver_that_leaves_the_process_locked_fails_the_session_clearly_and_the_server_serves_on(
        daemons, cuda_program):
    """The null driver's checkpoint fails and leaves the worker's process locked
    (RGPU_NULL_CHECKPOINT=stuck), where every call would block on a real GPU: the program's next
    call fails with the reason instead of hanging, no call of that session reaches the driver again
    (the null driver would end the worker and say so), and the next program is served."""
    url, handle = start_null_server(daemons, "--reclaim-after", "1", env={"RGPU_NULL_CHECKPOINT": "stuck"})
    p = subprocess.run([sys.executable, "-m", "rgpu.client.cli", "run", "--server", url, "--",
                        str(cuda_program("idle_state")), "3000", "1"], capture_output=True, text=True, timeout=120)
    assert p.returncode != 0 and "PAUSE 0" in p.stdout and "ROUND 0 OK" not in p.stdout, p.stdout + p.stderr
    assert "cudaErrorIllegalState" in p.stdout, p.stdout + p.stderr  # its CHECK names the error
    wait_until(lambda: not server_client.stats(url)["sessions"], 20, "the session ended")
    log = handle.output(200_000)
    assert "left the process locked" in log and "called while this process is" not in log, log[-3000:]
    p = subprocess.run([sys.executable, "-m", "rgpu.client.cli", "run", "--server", url, "--",
                        str(cuda_program("copy_roundtrip")), "1"], capture_output=True, text=True, timeout=120)
    assert p.returncode == 0 and "OK copy_roundtrip" in p.stdout, p.stdout + p.stderr


def test_a_program_that_ends_while_its_session_is_reclaimed_ends_it_without_a_call_to_the_driver(
        daemons, cuda_program):
    """The program is killed while its session is reclaimed (the driver holds the worker's process
    checkpointed). The session ends: its segment, its call ring and any pinned memory were registered
    with the driver (server/staging.py register_ring), and releasing them there would block on a real
    GPU until a restore that never comes (the null driver ends the worker and says so). They go
    with the process instead; the session's memory is off the quota and the next program is served."""
    url, handle = start_null_server(daemons, "--reclaim-after", "1")
    proc = subprocess.Popen([sys.executable, "-m", "rgpu.client.cli", "run", "--server", url, "--",
                             str(cuda_program("idle_state")), "60000", "1"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        line = proc.stdout.readline()
        assert line.startswith("PAUSE 0"), line or proc.stderr.read()
        wait_until(lambda: (x := _session(url)) and x["state"] == "reclaimed", 30, "the idle session reclaimed")
    finally:
        proc.kill()
        proc.communicate(timeout=30)
    wait_until(lambda: not server_client.stats(url)["sessions"], 30, "the session ended")
    log = handle.output(200_000)
    assert "ring_registered=1" in log, log[-3000:]  # (its attach registered the ring: session_ended says)
    assert "called while this process is" not in log, log[-3000:]
    assert server_client.stats(url)["gpus"][0]["memory_used"] == 0
    p = subprocess.run([sys.executable, "-m", "rgpu.client.cli", "run", "--server", url, "--",
                        str(cuda_program("copy_roundtrip")), "1"], capture_output=True, text=True, timeout=120)
    assert p.returncode == 0 and "OK copy_roundtrip" in p.stdout, p.stdout + p.stderr
