"""End to end, the cuda backend's part of live migration on the null driver
(benchmarks/native/nulldriver.c), whatever the test backend: two null-driver servers are two GPUs of
one pool (RGPU_NULL_UUID), and a session the cuda backend cannot move (a module variable's address
stored in device memory: server/checkpoint/escapes.py) is refused before anything stops,
with the reason given to `rgpu migrate` and in the log; and programs that write and read a module
variable every iteration, by name (cudaMemcpyToSymbol and kin: server/api/symbols.py) or through
the address they hold (an alias on the target: server/backends/cuda/aliases.py), move, twice. The moves themselves run on the null driver
in test_migration.py and test_pool_migration.py (their cuda-null-driver cases)."""
from __future__ import annotations

import json
import subprocess
import sys

import pytest

from benchmarks.native import run as native
from rgpu.paths import client_env
from tests.conftest import PROGRAMS
from tests.e2e import test_failover as failover
from tests.e2e.test_migration import migration, progress_to
from tests.e2e.test_pool_migration import NULL_UUIDS as UUIDS
from tests.support.daemons import wait_until
from tests.support import cudabuild, torchenv
from tests.support.pool import Pool, stats

pytestmark = pytest.mark.e2e
MiB = 1 << 20


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


@pytest.mark.parametrize("how, why, event", [
    ("escape", "stored the address of module variable 'marks'", "migration_failed"),
])
def test_a_move_the_cuda_backend_cannot_make_is_refused_before_anything_stops(null_pool, cuda_program, how, why,
                                                                              event):
    """migrate_copies `escape` stored a module variable's address in its device memory, where the
    target's driver would not put the variable (found by the pre-copy, while the program runs:
    server/checkpoint/escapes.py). `rgpu migrate` fails with that reason (and the source server's
    log gives it), the program runs on where it was and ends right, and the target holds nothing of
    it."""
    pool = null_pool
    proc = subprocess.Popen([sys.executable, "-m", "rgpu.client.cli", "run", "--controller", pool.url, "--mem", "128MiB",
                             "--", str(cuda_program("migrate_copies")), "60", "150", how],
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
        assert m["state"] == "failed" and why in m["message"], m
        assert "keeps its GPU" in m["message"], m
        assert pool.leases()[lease]["vgpus"][0]["server"] == a
        assert not [s for s in stats(b)["sessions"] if s["state"] == "live"]
        out, err = proc.communicate(timeout=300)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == 0 and " OK" in out, out + err
    assert "moved to" not in err
    log = pool.servers[a].log_path.read_text()
    assert event in log and why in log, log[-3000:]


@pytest.mark.parametrize("how", ["symbol", "address", "pool", "managed"])
def test_a_program_using_module_variables_moves_there_and_back_bit_exact(null_pool, cuda_program, how):
    """migrate_copies writes and reads a module variable every iteration: `symbol` by name
    (cudaMemcpyToSymbol(Async), cudaMemcpyFromSymbol(Async)), never holding its address; `address`
    through the address cudaGetSymbolAddress gave it (copies, a memset, a kernel's parameter), which
    names the variable on the other server too though its driver placed it elsewhere (an alias:
    server/backends/cuda/aliases.py). `pool`: allocations from the default memory pool, whose release
    threshold the program set (the pools and their counters go with the session: api/pools.py).
    `managed`: managed memory written by the host and by the device every iteration, read by both;
    on the server it is device memory of the arena (the client keeps its host copy coherent), so it
    moves as any allocation does.
    Moved there and back mid-run, it ends with the variable and every buffer as it wrote them: the
    result of a run that never moved."""
    pool = null_pool
    exe = str(cuda_program("migrate_copies"))
    run = [sys.executable, "-m", "rgpu.client.cli", "run", "--controller", pool.url, "--mem", "128MiB", "--", exe]
    # 80 iterations of 150 ms: the second move is ordered (a CLI process started, the controller, the
    # pre-copy) well before the program ends, on a loaded machine too
    still = subprocess.run(run + ["80", "0", how], capture_output=True, text=True, timeout=300,
                           env=dict(pool.env, RGPU_TIMEOUT="60", RGPU_STATS="1"))
    assert still.returncode == 0 and " OK" in still.stdout, still.stdout + still.stderr
    expected = still.stdout.strip().splitlines()[-1]
    if how == "symbol":  # by name: the address is never asked (RGPU_STATS=1 counts by call)
        assert "rgpuMemcpyFromSymbol" in still.stderr and "cuModuleGetGlobal" not in still.stderr, still.stderr
    proc = subprocess.Popen(run + ["80", "150", how], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            env=dict(pool.env, RGPU_TIMEOUT="60", RGPU_LOG="info"))
    try:
        assert proc.stdout.readline().startswith("READY")
        [(lease, entry)] = pool.leases().items()
        a = entry["vgpus"][0]["server"]
        [b] = [u for u in pool.servers if u != a]
        for at, to in ((3, b), (15, a)):
            progress_to(proc, at)
            p = pool.cli("migrate", lease, "--to", f"{to}#0", "--json")
            if p.returncode != 0:  # what the program said, and the servers, tell why
                proc.kill()
                out, err = proc.communicate(timeout=30)
                logs = "\n".join(h.log_path.read_text()[-3000:] for h in pool.servers.values())
                raise AssertionError(f"{p.stdout}{p.stderr}\nprogram: {out[-2000:]}{err[-3000:]}\nservers: {logs}")
            [m] = json.loads(p.stdout)["migrations"]
            assert m["state"] == "done", m
        out, err = proc.communicate(timeout=300)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == 0 and out.strip().splitlines()[-1] == expected, out + err
    assert err.count("moved to") == 2, err
    if how == "address":  # b's driver placed the variable elsewhere: the held address was an alias
        log = pool.servers[b].log_path.read_text()  # (back on a, a's driver put it where it was)
        assert "variable_alias" in log and "marks" in log, log[-3000:]


def test_a_program_moves_between_two_gpu_models_and_one_without_code_for_the_target_stays(daemons, tmp_path,
                                                                                          cuda_program):
    """Two null-driver servers of two models (RGPU_NULL_CC 12.0 and 9.0: each driver loads only the
    images a GPU of its compute capability runs, nullmodule.c). migrate_copies built for sm_120 alone
    (its SASS and compute_120 PTX), moved by an admin to the 9.0 GPU: the target's driver finds no
    code for it, the move fails naming what the image carries, and the program runs on where it
    was. The default build (compute_80 PTX) moves from one model to the other and back, each
    target's driver compiling its modules again, and ends bit-exact with a run that never moved."""
    p = Pool(daemons, tmp_path)

    def server(uuid: str, cc: str) -> str:
        return p.add_server("512MiB", "--device", "cuda", env={"RGPU_LIBCUDA": str(native.null_driver()),
                                                               "RGPU_NULL_UUID": uuid, "RGPU_NULL_CC": cc})

    new = server(UUIDS[0], "12.0")
    wait_until(lambda: p.states() == {new: "up"}, 60, "the 12.0 server up in `rgpu ls`")
    only120 = cudabuild.build(PROGRAMS / "migrate_copies.cu", "exe", [f"-I{PROGRAMS}"],
                              arch_flags=["-cudart", "shared", "-arch=sm_120"])
    env = dict(p.env, RGPU_TIMEOUT="60", RGPU_LOG="info")
    run = [sys.executable, "-m", "rgpu.client.cli", "run", "--controller", p.url, "--mem", "128MiB", "--"]
    proc = subprocess.Popen(run + [str(only120), "300", "100"], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True, env=env)
    try:
        assert proc.stdout.readline().startswith("READY")
        [(lease, _)] = p.leases().items()
        old = server(UUIDS[1], "9.0")
        wait_until(lambda: p.states() == {new: "up", old: "up"}, 60, "the 9.0 server up in `rgpu ls`")
        gpus = {s["url"]: s["gpus"][0] for s in p.cli_json("ls")["servers"]}
        assert gpus[new]["name"] != gpus[old]["name"], gpus
        progress_to(proc, 3)
        r = p.cli("migrate", lease)  # placement never crosses models by itself
        assert r.returncode == 3 and "no GPU of the pool can take" in r.stderr, r.stdout + r.stderr
        [m] = p.cli_json_fail("migrate", lease, "--to", f"{old}#0")["migrations"]
        assert m["state"] == "failed" and "CUDA_ERROR_NO_BINARY_FOR_GPU" in m["message"], m
        assert "no code this GPU (sm_90) runs" in m["message"] and "sm_120 SASS" in m["message"], m
        assert p.leases()[lease]["vgpus"][0]["server"] == new
        out, err = proc.communicate(timeout=300)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == 0 and " OK" in out and "moved to" not in err, out + err

    exe = str(cuda_program("migrate_copies"))
    still = subprocess.run(run + [exe, "80", "0", "address"], capture_output=True, text=True, timeout=300, env=env)
    assert still.returncode == 0 and " OK" in still.stdout, still.stdout + still.stderr
    proc = subprocess.Popen(run + [exe, "80", "150", "address"], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True, env=env)
    try:
        assert proc.stdout.readline().startswith("READY")
        [(lease, entry)] = p.leases().items()
        a = entry["vgpus"][0]["server"]
        [b] = [u for u in (new, old) if u != a]
        for at, to in ((3, b), (25, a)):  # room to spare for a loaded machine
            progress_to(proc, at)
            r = p.cli("migrate", lease, "--to", f"{to}#0", "--json")
            assert r.returncode == 0, (r.stdout, proc.poll() is not None and proc.communicate())
        out, err = proc.communicate(timeout=300)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == 0 and out.strip().splitlines()[-1] == still.stdout.strip().splitlines()[-1], out + err
    assert err.count("moved to") == 2, err
    log = p.servers[b].log_path.read_text()
    assert "migration_across_models" in log, log[-3000:]


TORCH_LOOP = """
import sys, time, torch
torch.manual_seed(0)
m = torch.nn.Sequential(torch.nn.Linear(64, 128), torch.nn.ReLU(), torch.nn.Linear(128, 8)).cuda()
opt = torch.optim.AdamW(m.parameters(), lr=1e-3)
x, y = torch.randn(32, 64).cuda(), torch.randn(32, 8).cuda()
losses = []
print("READY", flush=True)
for step in range(int(sys.argv[1])):
    loss = torch.nn.functional.mse_loss(m(x), y)
    opt.zero_grad()
    loss.backward()
    opt.step()
    losses.append(loss.item())
    print("PROGRESS", step, flush=True)
    time.sleep(float(sys.argv[2]))
w = torch.cat([p.detach().flatten() for p in m.parameters()]).cpu()
print("RESULT", [round(v, 6) for v in losses[-3:]], round(float(w.double().sum()), 6), flush=True)
"""


def test_a_pytorch_training_loop_moves_between_cuda_servers(null_pool):
    """PyTorch from its CUDA wheels (its own SASS kernels, cuBLAS and cuBLASLt under the Linear
    layers, AdamW) training on the cuda backend, moved to the other server mid-run and back: cuBLASLt
    was handed the address of its deviceConstants (server/backends/cuda/aliases.py keeps it on the
    target), every module, stream, event and allocation is rebuilt, and the loop ends as a run that
    never moved (on the null driver the kernels compute nothing; what they compute after a move is
    the GPU's to check: scripts/gpu_check.sh --steps migrate)."""
    pool = null_pool
    run = [sys.executable, "-m", "rgpu.client.cli", "run", "--controller", pool.url, "--mem", "256MiB", "--",
           str(torchenv.python()), "-c", TORCH_LOOP]
    still = subprocess.run(run + ["24", "0"], capture_output=True, text=True, timeout=600,
                           env=dict(pool.env, RGPU_TIMEOUT="120"))
    assert still.returncode == 0 and "RESULT" in still.stdout, still.stdout + still.stderr[-4000:]
    expected = still.stdout.strip().splitlines()[-1]
    proc = subprocess.Popen(run + ["24", "1"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            env=dict(pool.env, RGPU_TIMEOUT="120", RGPU_LOG="info"))
    try:
        assert proc.stdout.readline().startswith("READY"), proc.stderr.read()[-4000:]
        [(lease, entry)] = pool.leases().items()
        a = entry["vgpus"][0]["server"]
        [b] = [u for u in pool.servers if u != a]
        for at, to in ((2, b), (10, a)):
            progress_to(proc, at)
            p = pool.cli("migrate", lease, "--to", f"{to}#0", "--json")
            assert p.returncode == 0, p.stdout + p.stderr
            [m] = json.loads(p.stdout)["migrations"]
            assert m["state"] == "done", m
        out, err = proc.communicate(timeout=600)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == 0 and out.strip().splitlines()[-1] == expected, out + err[-4000:]
    assert err.count("moved to") == 2, err[-4000:]
    log = pool.servers[b].log_path.read_text()
    assert "variable_alias" in log and "deviceConstants" in log, log[-3000:]


def test_a_pytorch_training_loop_whose_cuda_server_is_killed_finishes_on_the_other(null_pool):
    """The same loop under a --failover lease: its server is killed with SIGKILL mid-run, and the
    program resumes on the other server from its last checkpoint and its log, and ends as the run
    that was never killed. The checkpoints were refused while cuBLASLt's held deviceConstants
    address could not be kept (docs/failover.md); now they are taken."""
    pool = null_pool
    run = [sys.executable, "-m", "rgpu.client.cli", "run", "--controller", pool.url, "--mem", "256MiB"]
    loop = ["--", str(torchenv.python()), "-c", TORCH_LOOP, "16"]
    still = subprocess.run(run + loop + ["0"], capture_output=True, text=True, timeout=600,
                           env=dict(pool.env, RGPU_TIMEOUT="120"))
    assert still.returncode == 0 and "RESULT" in still.stdout, still.stdout + still.stderr[-4000:]
    proc = subprocess.Popen(run + ["--failover"] + loop + ["0.5"], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True, env=dict(pool.env, RGPU_TIMEOUT="120", RGPU_LOG="info",
                                                RGPU_FAILOVER_INTERVAL="0.3"))
    out, err = failover.kill_its_server_at(pool, proc, 6)
    assert proc.returncode == 0, out + err[-4000:]
    assert out.strip().splitlines()[-1] == still.stdout.strip().splitlines()[-1], out
    assert "from its checkpoint" in err and "keeps no checkpoint" not in err, err[-4000:]


@pytest.mark.gpu_only("a real GPU computes what the loop's kernels give; the null driver's moves of the same "
                      "loop are the test above, and the software GPU cannot run PyTorch's SASS-only kernels")
def test_a_pytorch_training_loop_moved_between_two_servers_of_one_gpu_ends_as_an_unmoved_run(start_server):
    """Issue 43's check on a GPU: two cuda servers share the one GPU (its two halves), the loop is
    moved from the first to the second mid-run and back, and its last losses and weights are those of
    a run on the first server that never moved, to the printed digit (the kernels, cuBLAS and AdamW
    ran on both sides of each move)."""
    a, _ = start_server()
    b, _ = start_server()
    run = [str(torchenv.python()), "-c", TORCH_LOOP]
    env = {**client_env([a]), "RGPU_TIMEOUT": "120"}
    still = subprocess.run(run + ["24", "0"], capture_output=True, text=True, timeout=600, env=env)
    assert still.returncode == 0 and "RESULT" in still.stdout, still.stdout + still.stderr[-4000:]
    expected = still.stdout.strip().splitlines()[-1]
    proc = subprocess.Popen(run + ["24", "0.3"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            env={**env, "RGPU_LOG": "info"})
    moves = []
    try:
        assert proc.stdout.readline().startswith("READY"), proc.stderr.read()[-4000:]
        for at, src, dst in ((2, a, b), (10, b, a)):
            progress_to(proc, at)
            moves.append(migration(src, dst)[1])
        out, err = proc.communicate(timeout=600)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert all(m["state"] == "done" for m in moves), moves
    assert proc.returncode == 0 and out.strip().splitlines()[-1] == expected, (expected, out, err[-4000:])
    assert err.count("moved to") == 2, err[-4000:]
    print("pauses (ms):", [round(next(iter(m["sessions"].values()))["pause_s"] * 1000, 1) for m in moves])


def test_two_parts_of_one_gpu_are_two_gpus_of_a_pool_and_a_program_fails_over_between_them(daemons, tmp_path,
                                                                                           cuda_program):
    """`rgpu-server --gpu-part I/N` (server/gpus.py): two cuda servers on the one GPU (both null
    drivers report the same UUID, which the controller would take once: gpu_taken) each serve half of
    it and are two GPUs of one pool, half the memory each. A program under a --failover lease whose
    part's server is killed mid-run finishes on the other part with the results of an unkilled run,
    and another tenant on the surviving part runs on. On a GPU host the pool fixtures of the failover
    and pool-migration tests use parts the same way (test_pool_migration.servers_pool)."""
    p = Pool(daemons, tmp_path)
    env = {"RGPU_LIBCUDA": str(native.null_driver()), "RGPU_NULL_UUID": UUIDS[0]}
    urls = [p.add_server("512MiB", "--device", "cuda", "--gpu-part", f"{i}/2", env=env) for i in (1, 2)]
    wait_until(lambda: p.states() == dict.fromkeys(urls, "up"), 60, "both parts of the GPU up in `rgpu ls`")
    gpus = sorted((g["uuid"].lower(), g["memory_total"]) for s in p.cli_json("ls")["servers"] for g in s["gpus"])
    assert gpus == [(f"gpu-{UUIDS[0]}/part-{i}-of-2", 40 << 30) for i in (1, 2)], gpus  # the null GPU: 80 GiB

    exe = cuda_program("migrate_copies")
    base = p.run("--mem", "128MiB", "--", str(exe), "30", "0")
    assert base.returncode == 0 and " OK" in base.stdout, base.stdout + base.stderr
    proc = failover.start(p, exe, "30", "150")
    out, err = failover.kill_its_server_at(p, proc, 8)
    assert proc.returncode == 0, out + err[-4000:]
    assert out.strip().splitlines()[-1] == base.stdout.strip().splitlines()[-1], out
    assert "from its checkpoint" in err, err[-4000:]
