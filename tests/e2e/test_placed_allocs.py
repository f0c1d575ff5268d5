"""cudaMalloc and cuMemAlloc at addresses the client chooses (libhook/src/memory/placed.c,
server/api/placed.py): a program sees what it sees when the worker chooses (RGPU_PLACE=0), on the
software GPU and on the cuda backend's own code (the null driver), while its allocations cost no round
trip of their own (the client's count of the round trips it waited for, in the server's session_ended
line, is the witness); and a lease's quota still holds exactly: out-of-memory is cudaMalloc's own
answer at the quota, within one allocation of it, and the memory a free gives back can be had again."""
from __future__ import annotations

import os
import re
import subprocess

import pytest

from rgpu.client import server_client
from rgpu.paths import client_env
from tests.conftest import run_cli
from tests.e2e.test_migration import migrate_and_wait
from tests.support.daemons import DaemonSet, wait_until
from tests.support.null_server import start as start_null_server
from tests.support.pool import Pool

pytestmark = pytest.mark.e2e

ROUNDS = 6
SIZES = 13  # allocations per round (driver_placed_allocs.cu: 11 sizes and two pitched ones)


def _trips(handle, runs: int) -> list[int]:
    lines = wait_until(lambda: (found := re.findall(r"event=session_ended .*", handle.output(500000)))
                       and len(found) >= runs and found, 15, "sessions end")
    return [int(re.search(r"\bclient_round_trips=(\d+)", line).group(1)) for line in lines[:runs]]


def _run(exe, url, *args, **env):
    p = subprocess.run([str(exe), *map(str, args)], capture_output=True, text=True, timeout=300,
                       env={**client_env([url]), **env})
    assert p.returncode == 0 and "OK placed_allocs" in p.stdout, p.stdout + p.stderr
    return p.stdout


def test_placed_allocations_behave_as_the_workers_and_cost_no_round_trip(cuda_program, start_server):
    url, handle = start_server()
    exe = cuda_program("driver_placed_allocs")
    _run(exe, url, ROUNDS)
    _run(exe, url, ROUNDS, RGPU_PLACE="0")
    placed, chosen = _trips(handle, 2)
    print(f"round trips: {placed} placing, {chosen} with the worker choosing")
    # every allocation but the few that ask for more spare saves its round trip
    assert chosen - placed >= ROUNDS * SIZES * 3 // 4


@pytest.mark.parametrize("place", ["1", "0"])
def test_threads_allocating_at_once_get_disjoint_memory_with_their_contents(cuda_program, start_server, place):
    url, _ = start_server()
    p = subprocess.run([str(cuda_program("placed_threads")), "6", "40"], capture_output=True, text=True, timeout=300,
                       env={**client_env([url]), "RGPU_PLACE": place})
    assert p.returncode == 0 and "OK placed_threads 6 x 40" in p.stdout, p.stdout + p.stderr


def test_placed_allocations_on_the_cuda_backend_without_a_gpu(cuda_program):
    """The worker's arena places them (arena.c's rgpu_arena_place in the half the client lays out)."""
    with DaemonSet() as daemons:
        url, handle = start_null_server(daemons)
        for env in ({}, {"RGPU_PLACE": "0"}):
            p = run_cli("run", "--server", url, "--", str(cuda_program("driver_placed_allocs")), str(ROUNDS), "0", "16",
                        "copy", env={**os.environ, **env})
            assert p.returncode == 0 and "OK placed_allocs" in p.stdout, p.stdout + p.stderr
        placed, chosen = _trips(handle, 2)
        assert chosen - placed >= ROUNDS * SIZES * 3 // 4


@pytest.fixture
def pool(daemons, tmp_path):
    p = Pool(daemons, tmp_path)
    url = p.add_server("2GiB")
    wait_until(lambda: p.states() == {url: "up"}, 20, "server up")
    yield p
    for h in p.servers.values():
        h.stop()


@pytest.mark.parametrize("chunk", [16, 5])
def test_the_quota_holds_exactly_with_placed_allocations(pool, cuda_program, chunk):
    p = pool.run("--mem", "256MiB", "--", str(cuda_program("driver_placed_allocs")), "2", "256", str(chunk))
    assert p.returncode == 0 and "OK placed_allocs" in p.stdout, p.stdout + p.stderr
    got = int(re.search(r"allocated (\d+) error cudaErrorMemoryAllocation", p.stdout).group(1))
    assert 256 - chunk < got <= 256
    # all freed: the program sees its whole quota free again (the spare it holds is its own)
    assert "free after 256" in p.stdout
    print(p.stdout)


@pytest.fixture(params=["test", "null"], ids=["test-backend", "cuda-null-driver"])
def two_servers(request, start_server, daemons):
    """(url, url, copy mode): two servers of the test backend, or two cuda servers on the null driver."""
    if request.param == "null":
        return start_null_server(daemons)[0], start_null_server(daemons)[0], "copy"
    return start_server(memory="256MiB")[0], start_server(memory="256MiB")[0], "kernel"


def test_placed_allocations_move_with_their_session_and_placing_goes_on(two_servers, cuda_program):
    """Moved mid-run: the allocations it placed are at their addresses on the target with their
    contents (each round reads every live one back), their frees there and the new ones placed after
    the move (the client asks the target where it places) are right, and nothing is left charged."""
    a, b, mode = two_servers
    proc = subprocess.Popen([str(cuda_program("driver_placed_allocs")), "8", "0", "16", mode, "400"],
                            env={**client_env([a]), "RGPU_TIMEOUT": "60"}, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)
    try:
        for r in range(3):
            assert proc.stdout.readline().startswith(f"ROUND {r}")
        migrate_and_wait(a, b)  # (it asserts the move is done)
        out, err = proc.communicate(timeout=120)
    finally:
        proc.kill()
    assert proc.returncode == 0 and "OK placed_allocs" in out, out + err
    wait_until(lambda: server_client.stats(b)["gpus"][0]["memory_used"] == 0, 15, "the target's memory back")
