"""End to end, the cuda backend's part of live migration on the null driver
(benchmarks/native/nulldriver.c), whatever the test backend: two null-driver servers are two GPUs of
one pool (RGPU_NULL_UUID), and a session the cuda backend cannot move (a module variable whose
address the program was given: server/backends/cuda/placement.py) is refused before anything stops,
with the reason given to `rgpu migrate` and in the log, and one whose program reaches its module
variables by name only (cudaMemcpyToSymbol and kin: server/api/symbols.py) moves, twice. The moves themselves run on the null driver
in test_migration.py and test_pool_migration.py (their cuda-null-driver cases)."""
from __future__ import annotations

import json
import subprocess
import sys

import pytest

from benchmarks.native import run as native
from tests.e2e.test_pool_migration import NULL_UUIDS as UUIDS
from tests.support.daemons import wait_until
from tests.support.pool import Pool, stats

pytestmark = pytest.mark.e2e
MiB = 1 << 20


def progress_to(proc: subprocess.Popen, at: int) -> None:
    while True:
        line = proc.stdout.readline()
        assert line, proc.stderr.read()
        if line.startswith("PROGRESS") and int(line.split()[1]) >= at:
            return


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


def test_a_move_the_cuda_backend_cannot_make_is_refused_before_anything_stops(null_pool, cuda_program):
    """migrate_copies `address` was given the address of its module variable `tally`: `rgpu migrate`
    fails with that reason (and the source server's log gives it), the program runs on where it was
    and ends right, and the target holds nothing of it."""
    pool = null_pool
    proc = subprocess.Popen([sys.executable, "-m", "rgpu.client.cli", "run", "--controller", pool.url, "--mem", "128MiB",
                             "--", str(cuda_program("migrate_copies")), "60", "150", "address"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            env=dict(pool.env, RGPU_TIMEOUT="60", RGPU_LOG="info"))
    try:
        assert proc.stdout.readline().startswith("READY")
        [(lease, entry)] = pool.leases().items()
        a = entry["vgpus"][0]["server"]
        [b] = [u for u in pool.servers if u != a]
        progress_to(proc, 2)
        p = pool.cli("migrate", lease, "--to", f"{b}#0", "--json")
        assert p.returncode == 1, p.stdout + p.stderr
        [m] = json.loads(p.stdout)["migrations"]
        assert m["state"] == "failed" and "module variable 'tally'" in m["message"], m
        assert "cuda backend cannot move this session" in m["message"], m
        assert pool.leases()[lease]["vgpus"][0]["server"] == a
        assert not [s for s in stats(b)["sessions"] if s["state"] == "live"]
        out, err = proc.communicate(timeout=300)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == 0 and " OK" in out, out + err
    assert "moved to" not in err
    log = pool.servers[a].log_path.read_text()
    assert "migration_refused" in log and "module variable 'tally'" in log, log[-3000:]


def test_module_variables_reached_by_name_move_with_the_session(null_pool, cuda_program):
    """migrate_copies `symbol` writes and reads a module variable each iteration with
    cudaMemcpyToSymbol(Async) and cudaMemcpyFromSymbol(Async), never holding its address: moved there
    and back mid-run, it ends with the variable and every buffer as it wrote them, the same result as
    a run that never moved, and the copies took no lookup round trip."""
    pool = null_pool
    exe = str(cuda_program("migrate_copies"))
    run = [sys.executable, "-m", "rgpu.client.cli", "run", "--controller", pool.url, "--mem", "128MiB", "--", exe]
    still = subprocess.run(run + ["40", "0", "symbol"], capture_output=True, text=True, timeout=300,
                           env=dict(pool.env, RGPU_TIMEOUT="60", RGPU_STATS="1"))
    assert still.returncode == 0 and " OK" in still.stdout, still.stdout + still.stderr
    expected = still.stdout.strip().splitlines()[-1]
    # the runtime's symbol copies go by name: the address is never asked (RGPU_STATS=1 counts by call)
    assert "rgpuMemcpyFromSymbol" in still.stderr and "cuModuleGetGlobal" not in still.stderr, still.stderr
    proc = subprocess.Popen(run + ["40", "150", "symbol"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            env=dict(pool.env, RGPU_TIMEOUT="60", RGPU_LOG="info"))
    try:
        assert proc.stdout.readline().startswith("READY")
        [(lease, entry)] = pool.leases().items()
        a = entry["vgpus"][0]["server"]
        [b] = [u for u in pool.servers if u != a]
        for at, to in ((3, b), (15, a)):
            progress_to(proc, at)
            p = pool.cli("migrate", lease, "--to", f"{to}#0", "--json")
            assert p.returncode == 0, p.stdout + p.stderr
            [m] = json.loads(p.stdout)["migrations"]
            assert m["state"] == "done", m
        out, err = proc.communicate(timeout=300)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == 0 and out.strip().splitlines()[-1] == expected, out + err
    assert err.count("moved to") == 2, err
