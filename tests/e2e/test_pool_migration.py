"""End to end, live migration ordered through the pool: a CUDA program runs under `rgpu run` on a
lease of a controller with two software-GPU servers; `rgpu migrate` and `rgpu drain` move its vGPU
between the servers in the middle of its run (the lease's vGPU entry moves with it, in the
controller's SQLite store too) and it ends bit-exact; a move to a server without room is refused
before anything stops and the program runs on. Each also on two cuda servers on the null driver.
`rgpu defrag` empties the least used GPU; a move an admin names may cross GPU models (two software
GPUs of different architectures), and fails at the target when a module has no code for it."""
from __future__ import annotations

import json
import sqlite3
import subprocess
import sys

import pytest

from benchmarks.native import run as native
from tests.conftest import PROGRAMS
from tests.e2e.test_migration import movable, progress_to
from tests.support import cudabuild
from tests.support.daemons import wait_until
from tests.support.pool import Pool, stats

pytestmark = pytest.mark.e2e
MiB = 1 << 20


def host_gpus() -> int:
    """How many GPUs the cuda backend sees on this host (asked in a child: this process keeps no CUDA)."""
    p = subprocess.run([sys.executable, "-c", "from rgpu.server.backends import probe; print(len(probe('cuda')))"],
                       capture_output=True, text=True, timeout=120)
    return int(p.stdout) if p.returncode == 0 else 0


# Two null-driver GPUs: each server's null driver reports the UUID it is given (RGPU_NULL_UUID); a
# third for the pools of three servers
NULL_UUIDS = ("4e554c4c-0000-4000-8000-00000000000a", "4e554c4c-0000-4000-8000-00000000000b")
THIRD_NULL_UUID = "4e554c4c-0000-4000-8000-00000000000c"


def servers_pool(daemons, tmp_path, device_kind: str, null: bool, count: int = 2):
    """A controller and `count` servers with a GPU each, all up: software GPUs of 512 MiB, or the
    host's GPUs, one per cuda server (CUDA_VISIBLE_DEVICES), and, whatever the test backend, cuda
    servers on the null driver (benchmarks/native/nulldriver.c), each its own GPU by RGPU_NULL_UUID.
    Two cuda servers that both saw all of the host's GPUs would register the same UUIDs, and the
    controller refuses a GPU that another server registered (gpu_taken): the second would never join.
    A host with fewer GPUs than servers gives each server a part of its first GPU instead
    (`--gpu-part I/N`: its own identity in the pool, 1/N of the memory), as an admin does to move or
    fail sessions over between the two halves of one GPU.
    ``kind``: the backend the servers run; ``null``: whether on the null driver. Skips (naming it)
    where the cuda backend on real GPUs finds none."""
    real = not null and device_kind == "cuda"
    gpus = host_gpus() if real else 0
    if real and gpus == 0:
        pytest.skip("cuda servers on real GPUs need a GPU; the cuda backend sees none on this host")
    uuids = (*NULL_UUIDS, THIRD_NULL_UUID)
    p = Pool(daemons, tmp_path)
    p.kind = "cuda" if null else device_kind
    p.null = null  # the null driver runs no kernel code
    urls = []
    for i in range(count):
        env = p.controller.env
        parts = ("--gpu-part", f"{i + 1}/{count}") if real and gpus < count else ()
        if real:
            p.controller.env = {**env, "CUDA_VISIBLE_DEVICES": "0" if parts else str(i)}
        try:
            urls.append(p.add_server("512MiB", "--device", "cuda", env={
                "RGPU_LIBCUDA": str(native.null_driver()), "RGPU_NULL_UUID": uuids[i]}) if null
                else p.add_server("512MiB", *parts))
        finally:
            p.controller.env = env
    # a polling deadline, not a speed limit: a cuda server's first context, with many starting at once
    wait_until(lambda: p.states() == dict.fromkeys(urls, "up"), 60, f"all {count} servers up in `rgpu ls`")
    return p


@pytest.fixture(params=["test", "null"], ids=["test-backend", "cuda-null-driver"])
def pool(request, daemons, tmp_path, device_kind):
    """A controller and two servers with a GPU each (servers_pool)."""
    p = servers_pool(daemons, tmp_path, device_kind, request.param == "null")
    yield p
    for handle in p.servers.values():
        handle.stop()


def start(pool: Pool, exe, *args: str, opts: tuple[str, ...] = ()) -> subprocess.Popen:
    env = dict(pool.env, RGPU_TIMEOUT="60", RGPU_LOG="info")
    return subprocess.Popen([sys.executable, "-m", "rgpu.client.cli", "run", "--controller", pool.url,
                             "--mem", "128MiB", *opts, "--", str(exe), *args],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)


def stored_gpu(pool: Pool, lease: str) -> str:
    """The GPU the controller's database holds the lease's vGPU 0 on (read beside the running
    controller: SQLite allows it; etcd, with RGPU_TEST_STORE=etcd, too)."""
    if pool.controller.store:
        from rgpu.controller.store_etcd import EtcdStore
        store = EtcdStore(pool.controller.store)
        try:
            return next(row["allocations"][0]["gpu"] for row in store.load_leases() if row["id"] == lease)
        finally:
            store.close()
    db = sqlite3.connect(f"file:{pool.controller.db}?mode=ro", uri=True)
    try:
        return db.execute("SELECT gpu_uuid FROM allocations WHERE lease_id=? AND seq=0", (lease,)).fetchone()[0]
    finally:
        db.close()


def gpu_uuid(pool: Pool, server: str) -> str:
    return next(s for s in pool.cli_json("ls")["servers"] if s["url"] == server)["gpus"][0]["uuid"]


def baseline(pool: Pool, exe, iters: str) -> str:
    p = pool.run("--mem", "128MiB", "--", str(exe), iters, "0")
    assert p.returncode == 0 and " OK" in p.stdout, p.stdout + p.stderr
    return p.stdout.strip().splitlines()[-1]


def test_rgpu_migrate_and_drain_move_a_running_program_and_its_lease(pool, cuda_program):
    exe = cuda_program(movable(pool.kind))
    expected = baseline(pool, exe, "40")
    proc = start(pool, exe, "40", "300")
    try:
        assert proc.stdout.readline().startswith("READY")
        [(lease, entry)] = pool.leases().items()
        a = entry["vgpus"][0]["server"]
        [b] = [u for u in pool.servers if u != a]
        progress_to(proc, 4)
        p = pool.cli("migrate", lease, "--to", f"{b}#0", "--json")
        assert p.returncode == 0, p.stdout + p.stderr
        [m] = json.loads(p.stdout)["migrations"]
        assert m["state"] == "done" and m["to"] == f"{b}#0" and m["from"] == f"{a}#0", m
        assert m["sessions"] == 1 and m["memory_bytes"] >= 24 * MiB and m["pause_s"] > 0, m
        # the lease's vGPU is on b now: in the controller, its database, and on the servers
        assert pool.leases()[lease]["vgpus"][0]["server"] == b
        assert stored_gpu(pool, lease) == gpu_uuid(pool, b)
        assert [s["lease"] for s in stats(b)["sessions"] if s["state"] == "live"] == [lease]
        progress_to(proc, 12)
        # draining b moves it back to a (the only other server) and places nothing new on b
        # (as a person runs it: a progress line on stderr while it waits, the table on stdout)
        p = pool.cli("drain", b)
        assert p.returncode == 0, p.stdout + p.stderr
        assert "rgpu: migrating 1 vGPU, " in p.stderr and "1 moved, 0 failed, 0 pending" in p.stderr, p.stderr
        [row] = [r.split() for r in p.stdout.splitlines() if r.startswith("m-")]
        assert row[1] == lease and row[3:6] == [f"{b}#0", f"{a}#0", "done"], p.stdout
        assert pool.leases()[lease]["vgpus"][0]["server"] == a and stored_gpu(pool, lease) == gpu_uuid(pool, a)
        assert next(s for s in pool.cli_json("ls")["servers"] if s["url"] == b)["draining"] is True
        other = pool.cli_json("reserve", "--mem", "64MiB", "--policy", "spread")
        assert other["vgpus"][0]["server"] == a, "a draining server takes no new vGPUs"
        out, err = proc.communicate(timeout=300)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == 0, out + err
    assert out.strip().splitlines()[-1] == expected, (out, expected)
    assert err.count("moved to") == 2, err


def test_rgpu_defrag_moves_a_running_program_onto_the_fuller_gpu(pool, cuda_program):
    """`rgpu defrag` as an admin runs it: the least used GPU (the program's 128 MiB, placed apart by
    spread) is emptied onto the fuller one (another tenant's 256 MiB) while the program runs; it
    waits for the move and shows it as migrate and drain do, and the program ends as if never moved."""
    exe = cuda_program(movable(pool.kind))
    expected = baseline(pool, exe, "30")
    filler = pool.cli_json("reserve", "--mem", "256MiB")
    full = filler["vgpus"][0]["server"]
    proc = start(pool, exe, "30", "300", opts=("--policy", "spread"))
    try:
        assert proc.stdout.readline().startswith("READY")
        [lease] = [lid for lid in pool.leases() if lid != filler["lease"]]
        light = pool.leases()[lease]["vgpus"][0]["server"]
        assert light != full, "spread put the program on the other GPU"
        progress_to(proc, 4)
        plan = pool.cli_json("defrag", "--dry-run")["moves"]
        assert plan == [{"lease": lease, "vgpu": 0, "from": f"{light}#0", "to": f"{full}#0"}], plan
        p = pool.cli("defrag")
        assert p.returncode == 0, p.stdout + p.stderr
        assert "1 moved, 0 failed, 0 pending" in p.stderr, p.stderr
        [row] = [r.split() for r in p.stdout.splitlines() if r.startswith("m-")]
        assert row[1] == lease and row[3:6] == [f"{light}#0", f"{full}#0", "done"], p.stdout
        assert pool.leases()[lease]["vgpus"][0]["server"] == full and stored_gpu(pool, lease) == gpu_uuid(pool, full)
        assert pool.cli_json("defrag", "--dry-run")["moves"] == [], "nothing left to move: one GPU holds both"
        out, err = proc.communicate(timeout=300)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == 0, out + err
    assert out.strip().splitlines()[-1] == expected, (out, expected)
    assert err.count("moved to") == 1, err


def test_a_move_to_a_server_without_room_is_refused_and_the_program_runs_on(pool, cuda_program):
    exe = cuda_program(movable(pool.kind))
    expected = baseline(pool, exe, "30")
    proc = start(pool, exe, "30", "300")
    try:
        assert proc.stdout.readline().startswith("READY")
        [(lease, entry)] = pool.leases().items()
        a = entry["vgpus"][0]["server"]
        [b] = [u for u in pool.servers if u != a]
        # another tenant takes most of b: 128 MiB no longer fit there
        total = next(s for s in pool.cli_json("ls")["servers"] if s["url"] == b)["gpus"][0]["memory_total"]
        filler = pool.cli_json("reserve", "--mem", f"{(total - 64 * MiB) // MiB}MiB")
        assert filler["vgpus"][0]["server"] == b
        progress_to(proc, 2)
        p = pool.cli("migrate", lease, "--to", f"{b}#0", "--json")
        assert p.returncode == 3, p.stdout + p.stderr
        refusal = json.loads(p.stdout)
        assert refusal["error"] == "no_capacity" and "cannot take" in refusal["message"], refusal
        # and with no target named, nothing in the pool fits either
        p = pool.cli("migrate", lease)
        assert p.returncode == 3 and "no GPU of the pool can take" in p.stderr, p.stdout + p.stderr
        assert pool.leases()[lease]["vgpus"][0]["server"] == a and stored_gpu(pool, lease) == gpu_uuid(pool, a)
        out, err = proc.communicate(timeout=300)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == 0, out + err
    assert out.strip().splitlines()[-1] == expected and "moved to" not in err, (out, err)


@pytest.mark.sim_only("two GPU models on one host: two software GPUs of different architectures")
def test_a_running_program_moves_between_gpus_of_two_architectures(daemons, tmp_path, cuda_program):
    """Between GPU models (issue 43: an H100 session onto an H200, which process checkpointing cannot
    do): a program moved live from an sm_90 software GPU to an sm_120 one and back finishes bit-exact
    with the run that never moved; its modules are loaded again from their PTX for each target."""
    p = Pool(daemons, tmp_path)
    a = p.add_server("512MiB", "--sim-arch", "sm_90")
    b = p.add_server("512MiB", "--sim-arch", "sm_120")
    wait_until(lambda: p.states() == {a: "up", b: "up"}, 60, "both servers up in `rgpu ls`")
    models = {s["url"]: s["gpus"][0]["name"] for s in p.cli_json("ls")["servers"]}
    assert models[a] != models[b], models
    exe = cuda_program(movable("sim"))
    expected = baseline(p, exe, "30")
    proc = start(p, exe, "30", "300")
    try:
        assert proc.stdout.readline().startswith("READY")
        [(lease, entry)] = p.leases().items()
        src = entry["vgpus"][0]["server"]
        [dst] = [u for u in (a, b) if u != src]
        for at, to in ((4, dst), (12, src)):
            progress_to(proc, at)
            moved = p.cli_json("migrate", lease, "--to", f"{to}#0")["migrations"]
            assert [m["state"] for m in moved] == ["done"], moved
            assert p.leases()[lease]["vgpus"][0]["server"] == to
        out, err = proc.communicate(timeout=300)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == 0, out + err
    assert out.strip().splitlines()[-1] == expected, (out, expected)
    assert err.count("moved to") == 2, err


@pytest.mark.sim_only("two GPU models on one host: two software GPUs of different architectures")
def test_a_move_to_a_model_its_kernels_cannot_run_on_fails_and_the_program_runs_on(daemons, tmp_path):
    """A program built for sm_120 alone (compute_120 PTX) cannot run on an sm_90 GPU: the move there
    fails at the target when it loads the modules, and the program carries on where it was and ends
    right; placement never offers another model by itself (`rgpu migrate` without --to: no GPU)."""
    exe = cudabuild.build(PROGRAMS / "migrate_streams.cu", "exe", [f"-I{PROGRAMS}"],
                          arch_flags=["-cudart", "shared", "-arch=sm_120"])
    p = Pool(daemons, tmp_path)
    new = p.add_server("512MiB", "--sim-arch", "sm_120")
    wait_until(lambda: p.states() == {new: "up"}, 60, "the sm_120 server up in `rgpu ls`")
    expected = baseline(p, exe, "30")
    proc = start(p, exe, "30", "300")
    try:
        assert proc.stdout.readline().startswith("READY")
        [(lease, _)] = p.leases().items()
        old = p.add_server("512MiB", "--sim-arch", "sm_90")
        wait_until(lambda: p.states() == {new: "up", old: "up"}, 60, "the sm_90 server up in `rgpu ls`")
        progress_to(proc, 4)
        r = p.cli("migrate", lease)
        assert r.returncode == 3 and "no GPU of the pool can take" in r.stderr, r.stdout + r.stderr
        [m] = p.cli_json_fail("migrate", lease, "--to", f"{old}#0")["migrations"]
        assert m["state"] == "failed" and "compute_120" in m["message"], m
        assert p.leases()[lease]["vgpus"][0]["server"] == new
        out, err = proc.communicate(timeout=300)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == 0, out + err
    assert out.strip().splitlines()[-1] == expected and "moved to" not in err, (out, err)
