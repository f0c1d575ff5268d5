"""End to end, live migration on the cuda backend, on the null driver (benchmarks/native/nulldriver.c)
whatever the test backend: device memory placed again at the program's addresses through the VMM
calls (cuMemAddressReserve at the source's address), its contents copied before and at the stop,
streams, events, modules and functions made again behind the program's handles
(server/backends/cuda/placement.py). The null driver runs no kernel, so the program moved
(migrate_copies) checks what copies and memsets made; a module variable whose address the program
was given cannot move, and that move is refused before anything stops."""
from __future__ import annotations

import json
import subprocess
import sys

import pytest

from benchmarks.native import run as native
from rgpu.client import server_client
from rgpu.paths import client_env
from tests.e2e.test_migration import migrate_and_wait, migration
from tests.support.daemons import wait_until
from tests.support.null_server import start as start_null_server
from tests.support.pool import Pool, stats

pytestmark = pytest.mark.e2e
MiB = 1 << 20
UUIDS = ("4e554c4c-0000-4000-8000-00000000000a", "4e554c4c-0000-4000-8000-00000000000b")


def run_to_end(url: str, exe, iters: str) -> str:
    p = subprocess.run([str(exe), iters, "0"], env={**client_env([url]), "RGPU_TIMEOUT": "60"},
                       capture_output=True, text=True, timeout=300)
    assert p.returncode == 0 and " OK" in p.stdout, p.stdout + p.stderr
    return p.stdout.strip().splitlines()[-1]


def progress_to(proc: subprocess.Popen, at: int) -> None:
    while True:
        line = proc.stdout.readline()
        assert line, proc.stderr.read()
        if line.startswith("PROGRESS") and int(line.split()[1]) >= at:
            return


def test_a_cuda_backend_program_moved_twice_mid_run_ends_bit_exact(daemons, cuda_program):
    a, _ = start_null_server(daemons)
    b, _ = start_null_server(daemons)
    exe = cuda_program("migrate_copies")
    expected = run_to_end(a, exe, "40")
    proc = subprocess.Popen([str(exe), "40", "150"], env={**client_env([a]), "RGPU_TIMEOUT": "60", "RGPU_LOG": "info"},
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        assert proc.stdout.readline().startswith("READY")
        outcomes = []
        for src, dst, at in [(a, b, 4), (b, a, 24)]:  # the second after the layout changed (iteration 20)
            progress_to(proc, at)
            outcomes.append(migrate_and_wait(src, dst))
        out, err = proc.communicate(timeout=300)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == 0, out + err
    assert out.strip().splitlines()[-1] == expected, (out, expected)
    assert err.count("moved to") == 2, err
    for o in outcomes:
        # the 24 MiB written once travels before the stop, not during it
        assert o["precopy_bytes"] >= 24 * MiB and o["final_bytes"] < 24 * MiB, o
    print("pauses", [round(o.get("pause_s", 0), 4) for o in outcomes])
    wait_until(lambda: not server_client.stats(a)["sessions"] and not server_client.stats(b)["sessions"], 20,
               "both servers free")


def test_a_session_holding_a_module_variables_address_is_refused_before_anything_stops(daemons, cuda_program):
    a, _ = start_null_server(daemons)
    b, _ = start_null_server(daemons)
    exe = cuda_program("migrate_copies")
    proc = subprocess.Popen([str(exe), "10", "100", "symbol"],
                            env={**client_env([a]), "RGPU_TIMEOUT": "60", "RGPU_LOG": "info"},
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        assert proc.stdout.readline().startswith("READY")
        progress_to(proc, 2)
        _, m = migration(a, b)
        out, err = proc.communicate(timeout=300)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert m["state"] == "failed" and "module variable 'tally'" in m["message"], m
    assert proc.returncode == 0 and " OK" in out, out + err
    assert "moved to" not in err
    assert not server_client.stats(b)["sessions"]


@pytest.fixture
def null_pool(daemons, tmp_path):
    """A controller and two cuda servers on the null driver, one GPU each: two GPUs to the pool
    because each null driver reports the UUID of RGPU_NULL_UUID (the same UUID twice: the controller
    refuses the second server's GPU, gpu_taken)."""
    p = Pool(daemons, tmp_path)
    urls = [p.add_server("512MiB", "--device", "cuda",
                         env={"RGPU_LIBCUDA": str(native.null_driver()), "RGPU_NULL_UUID": u}) for u in UUIDS]
    wait_until(lambda: p.states() == {u: "up" for u in urls}, 60, "both null-driver servers up in `rgpu ls`")
    yield p
    for handle in p.servers.values():
        handle.stop()


def test_two_null_driver_servers_are_two_gpus_of_one_pool(null_pool):
    uuids = sorted(g["uuid"] for s in null_pool.cli_json("ls")["servers"] for g in s["gpus"])
    assert len(uuids) == 2 and uuids[0] != uuids[1], uuids
    assert [u.lower().removeprefix("gpu-") for u in uuids] == list(UUIDS), uuids


def test_rgpu_migrate_and_drain_move_a_cuda_backend_program_and_its_lease(null_pool, cuda_program):
    pool = null_pool
    exe = cuda_program("migrate_copies")
    p = pool.run("--mem", "128MiB", "--", str(exe), "40", "0")
    assert p.returncode == 0 and " OK" in p.stdout, p.stdout + p.stderr
    expected = p.stdout.strip().splitlines()[-1]
    proc = subprocess.Popen([sys.executable, "-m", "rgpu.client.cli", "run", "--controller", pool.url, "--mem", "128MiB",
                             "--", str(exe), "40", "200"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            env=dict(pool.env, RGPU_TIMEOUT="60", RGPU_LOG="info"))
    try:
        assert proc.stdout.readline().startswith("READY")
        [(lease, entry)] = pool.leases().items()
        a = entry["vgpus"][0]["server"]
        [b] = [u for u in pool.servers if u != a]
        progress_to(proc, 4)
        p = pool.cli("migrate", lease, "--to", f"{b}#0", "--json")
        assert p.returncode == 0, p.stdout + p.stderr
        [m] = json.loads(p.stdout)["migrations"]
        assert m["state"] == "done" and m["to"] == f"{b}#0" and m["sessions"] == 1, m
        assert m["memory_bytes"] >= 24 * MiB and m["pause_s"] > 0, m
        assert pool.leases()[lease]["vgpus"][0]["server"] == b
        assert [s["lease"] for s in stats(b)["sessions"] if s["state"] == "live"] == [lease]
        progress_to(proc, 24)
        p = pool.cli("drain", b, "--json")
        assert p.returncode == 0, p.stdout + p.stderr
        [m2] = json.loads(p.stdout)["migrations"]
        assert m2["state"] == "done" and m2["to"] == f"{a}#0" and m2["reason"] == "drain", m2
        assert pool.leases()[lease]["vgpus"][0]["server"] == a
        out, err = proc.communicate(timeout=300)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == 0, out + err
    assert out.strip().splitlines()[-1] == expected, (out, expected)
    assert err.count("moved to") == 2, err
    print("pauses", m["pause_s"], m2["pause_s"])
