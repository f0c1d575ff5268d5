"""End to end across hosts, on the test bed (tests/support/testbed.py): the controller on the head host,
a pool server on each GPU host, programs on the CPU host, every link between hosts through the relay
(which records what it carries, and can cut a connection as a failing link does, or silence it as a host that froze does). The programs: the
project's CUDA programs, CuPy and numba on the software GPU (results checked here), and PyTorch, CuPy,
numba and NVIDIA's libraries on the null driver (dispatch, and PyTorch's round trips a step)."""
from __future__ import annotations

import json
import re
import signal
import subprocess
import sys

import pytest

from rgpu.controller import users
from rgpu.protocol import curve
from tests.support.bedpool import ROOT
from tests.support.controller import CONTROLLER_KEY, SECRET
from tests.support.daemons import wait_until
from tests.support import testbed
from tests.support.testbed import CONTROLLER_PORT, WORKER_PORTS

pytestmark = [pytest.mark.e2e, pytest.mark.sim_only("the bed's GPU hosts serve software GPUs")]
MiB = 1 << 20


def session_ended(log: str) -> list[dict]:
    """The key=value fields of each session_ended line of a server's log."""
    return [dict(re.findall(r"(\w+)=(\S+)", line)) for line in log.splitlines() if "event=session_ended" in line]


def test_programs_on_the_cpu_host_run_on_both_gpu_hosts_through_the_pool(bed_pool, cuda_program):
    query = str(cuda_program("device_query"))
    p = bed_pool.cli("run", "--controller", bed_pool.url, "-n", "2", "--policy", "spread", "--mem", "256MiB", "--",
                     "sh", "-c", 'echo "servers $RGPU_SERVER"; exec "$0"', query)
    assert p.returncode == 0 and "devices 2" in p.stdout, p.stdout + p.stderr
    # placed on both GPU hosts, reached at their front addresses (across the relay), each with its key
    servers = re.search(r"servers (\S+)", p.stdout).group(1).split(",")
    assert sorted(s.split("@")[0] for s in servers) == sorted(bed_pool.servers), servers
    assert all(re.fullmatch(r"tcp://[\d.]+:\d+@[0-9a-f]{64}#0", s) for s in servers), servers
    assert len(re.findall(r"device \d: .* mem 268435456 ", p.stdout)) == 2, p.stdout
    # kernels on both vGPUs and data between them, checked by the program itself
    multi = bed_pool.cli("run", "--controller", bed_pool.url, "-n", "2", "--policy", "spread", "--mem", "256MiB",
                         "--", str(cuda_program("multi_vgpu")))
    assert multi.returncode == 0 and "OK multi_vgpu 2" in multi.stdout, multi.stdout + multi.stderr
    # copies both ways, every size path (frames, pieces), and a kernel over the data
    for name, args, ok in [("copy_roundtrip", ["16"], "OK copy_roundtrip 16 MiB"),
                           ("kernels_basic", [], "OK kernels_basic")]:
        r = bed_pool.cli("run", "--controller", bed_pool.url, "--mem", "256MiB", "--", str(cuda_program(name)), *args)
        assert r.returncode == 0 and ok in r.stdout, r.stdout + r.stderr
    assert bed_pool.cli_json("leases")["leases"] == [], "rgpu run releases its lease at exit"


def test_a_run_direct_to_a_server_on_another_host(bed_pool, cuda_program):
    url = bed_pool.add_server("gpu2", 7402, pool=False)
    try:
        p = bed_pool.cli("run", "--server", url, "--", str(cuda_program("copy_roundtrip")), "8")
        assert p.returncode == 0 and "OK copy_roundtrip 8 MiB" in p.stdout, p.stdout + p.stderr
        # the session's bytes crossed the wire (no shared segment, no pinned mapping): the server's log says so
        [ended] = session_ended(bed_pool.log(url))
        assert int(ended["bytes_in"]) >= 8 * MiB and int(ended["bytes_out"]) >= 8 * MiB, ended
        assert ended["shm_bytes_in"] == ended["shm_bytes_out"] == "0", ended
    finally:
        bed_pool.servers.pop(url).stop()


def test_every_link_between_hosts_is_curve(bed_pool, bed, cuda_program):
    before = set(bed.recorded())
    lease = bed_pool.cli_json("reserve", "--mem", "128MiB")
    try:
        p = bed_pool.cli("run", "--controller", bed_pool.url, "--lease", lease["lease"], "--",
                         str(cuda_program("copy_roundtrip")), "4")
        assert p.returncode == 0 and "OK copy_roundtrip 4 MiB" in p.stdout, p.stdout + p.stderr
    finally:
        assert bed_pool.cli("release", lease["lease"], "--controller", bed_pool.url).returncode == 0
    seen = bed.recorded()
    ports = {int(name.split(".")[-2].rsplit("-", 1)[1]) for name in seen if name not in before}
    lo, hi = WORKER_PORTS
    # this run's links: to the controller, to a server's supervisor and to its session worker; and
    # the servers' own links to the controller, made when they joined
    assert CONTROLLER_PORT in ports and 7401 in ports and any(lo <= q <= hi for q in ports), sorted(ports)
    assert any(name.endswith(f"-{CONTROLLER_PORT}.up") for name in before), "servers -> controller"
    secrets = [lease["token"].encode(), lease["lease"].encode(), b"hello", b"copy_roundtrip"]
    # this run's links and the servers' links to the controller (a direct-mode server's are plain by design)
    pool_links = {name: data for name, data in seen.items()
                  if name not in before or name.endswith((f"-{CONTROLLER_PORT}.up", f"-{CONTROLLER_PORT}.down"))}
    # the copy's data went on the session's bulk channel, sealed: no link carries it in the clear
    bulk = testbed.sealed_links(pool_links, [*secrets, testbed.copy_roundtrip_bytes()])
    assert sum(len(d) for n, d in pool_links.items() if n.rsplit(".", 1)[0] in bulk) > 7 << 20, sorted(bulk)


def test_a_stranger_on_the_cpu_host_is_refused(bed_pool, tmp_path, cuda_program):
    stranger = {k: v for k, v in bed_pool.env.items() if not k.startswith("RGPU_")}
    stranger.update(RGPU_CONFIG_DIR=str(tmp_path / "stranger"), PYTHONPATH=str(ROOT))
    query = str(cuda_program("device_query"))
    p = bed_pool.cli("run", "--controller", bed_pool.url, "--", query, env=stranger)
    assert p.returncode != 0 and "OK device_query" not in p.stdout, p.stdout + p.stderr
    assert "no rgpu credential" in p.stderr, p.stdout + p.stderr
    # a credential of its own making, which names the right controller key: the controller does not know it
    forged = users.issue(tmp_path / "not-the-pools-users", "mallory", "user", tmp_path / "mallory.credential",
                         CONTROLLER_KEY)
    f = bed_pool.cli("run", "--controller", bed_pool.url, "--", query, env={**stranger, "RGPU_CREDENTIAL": str(forged)})
    assert f.returncode != 0 and "OK device_query" not in f.stdout, f.stdout + f.stderr
    assert "does not know the credential of mallory" in f.stderr and "[unauthenticated]" in f.stderr, f.stderr
    # straight to a pool server: without its key, refused by the client (its wire is CURVE, and a key
    # taken from the wire itself would be an attacker's to give); with it (a server's key is public),
    # refused by the server for want of a lease, and told why
    url = next(iter(bed_pool.servers))
    d = bed_pool.cli("run", "--server", url, "--", query, env=stranger)
    assert d.returncode != 0 and "key is not known here" in d.stderr, d.stdout + d.stderr
    keyed = f"{url}@{curve.key_hex(curve.server_data_keys(SECRET.encode(), url).public)}"
    d = bed_pool.cli("run", "--server", keyed, "--", query, env=stranger)
    assert d.returncode != 0 and "opens sessions only for lease holders" in d.stderr, d.stdout + d.stderr
    assert bed_pool.cli_json("leases")["leases"] == []


def test_the_same_host_paths_do_not_apply_across_hosts(bed_pool, cuda_program):
    for name, args, ok in [("copy_roundtrip", ["16"], "OK copy_roundtrip 16 MiB"),
                           ("pinned_copies", ["8"], "OK pinned_copies 1 device(s) 8 MiB")]:
        p = bed_pool.cli("run", "--controller", bed_pool.url, "--mem", "256MiB", "--", str(cuda_program(name)), *args,
                         env={**bed_pool.env, "RGPU_LOG": "info"})
        assert p.returncode == 0 and ok in p.stdout, p.stdout + p.stderr
        assert "moves through shared memory" not in p.stderr, p.stderr
    logs = "".join(bed_pool.log(u) for u in bed_pool.servers)
    # each offer of a segment was declined: the worker runs on another boot of another host
    assert "event=shm_declined" in logs and "event=shm_attached" not in logs
    assert set(re.findall(r"event=shm_declined .*?reason=\"?([\w ]+)", logs)) == {"another host"}, logs[-3000:]
    ended = session_ended(logs)
    assert ended and all(e["shm_bytes_in"] == e["shm_bytes_out"] == e["pinned_bytes_in"] == e["pinned_bytes_out"]
                         == e["pinned_segments"] == "0" for e in ended), ended
    # and the data did cross: at least one session moved 16 MiB each way on the wire
    assert any(int(e["bytes_in"]) >= 16 * MiB and int(e["bytes_out"]) >= 16 * MiB for e in ended), ended


def holder(bed_pool, lease: str | list, *args: str, timeout_s: int = 10) -> subprocess.Popen:
    """hold_memory under `rgpu run --lease LEASE` on the CPU host (or `rgpu run` with the options
    `lease` lists), once it holds its memory (printed READY)."""
    env = {**bed_pool.env, "RGPU_TIMEOUT": str(timeout_s)}
    way = ["--lease", lease] if isinstance(lease, str) else lease
    proc = bed_pool.bed.popen("cpu", [sys.executable, "-m", "rgpu.client.cli", "run", "--controller", bed_pool.url,
                                      *way, "--", *args],
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env, cwd=ROOT)
    line = proc.stdout.readline()
    if not line.startswith("READY"):
        proc.kill()
        pytest.fail(f"holder did not start: {line}{proc.communicate(timeout=10)}")
    return proc


def carries_on(bed_pool, tenant: subprocess.Popen, way: list, cuda_program) -> None:
    """The other tenant of the server is still running, a new program of its (`way`: the `rgpu run`
    options it ran with) runs right, and then the tenant is stopped."""
    assert tenant.poll() is None, "the other tenant runs on"
    again = bed_pool.cli("run", "--controller", bed_pool.url, *way, "--", str(cuda_program("copy_roundtrip")), "8")
    assert again.returncode == 0 and "OK copy_roundtrip 8 MiB" in again.stdout, again.stdout + again.stderr
    tenant.send_signal(signal.SIGTERM)
    tenant.communicate(timeout=30)


def stop_all(*procs) -> None:
    for proc in procs:
        if proc is not None and proc.poll() is None:
            proc.kill()
            proc.communicate(timeout=10)


def test_a_link_cut_mid_copy_ends_that_program_and_the_other_tenant_carries_on(bed_pool, bed, cuda_program):
    hold = str(cuda_program("hold_memory"))
    calm = bed_pool.cli_json("reserve", "--mem", "128MiB")
    busy = bed_pool.cli_json("reserve", "--mem", "256MiB")
    server = calm["vgpus"][0]["server"]
    assert busy["vgpus"][0]["server"] == server, "binpack places the second lease beside the first"
    lo, hi = WORKER_PORTS
    b = a = None
    try:
        b = holder(bed_pool, calm["lease"], hold, "16")
        known = {link["id"] for link in bed.links()}
        # 64 MiB device to host, over and over; a call may wait 10 minutes (RGPU_TIMEOUT), so an end
        # well before that is the client seeing its link go, not a call timing out
        a = holder(bed_pool, busy["lease"], hold, "64", "copies", timeout_s=600)
        # cut the busy program's session link while its copies flow (the relay is passing its bytes)
        wait_until(lambda: [x for x in bed.links() if x["id"] not in known and lo <= x["port"] <= hi
                            and x["down"] > 64 * MiB], 30, "the busy program's copies on the wire")
        victims = [x["id"] for x in bed.links() if x["id"] not in known and lo <= x["port"] <= hi]
        assert bed.cut(victims) == victims
        out, err = a.communicate(timeout=120)
        assert a.returncode == 3 and "ERROR 46 cudaErrorDevicesUnavailable" in out, out + err
        # the server ends the session whose client is gone and frees its memory; the other tenant's stays
        wait_until(lambda: [s["lease"] for s in bed_pool.stats(server)["sessions"]] == [calm["lease"]], 30,
                   "the cut session ended on the server")
        assert wait_until(lambda: bed_pool.stats(server)["gpus"][0]["memory_used"] < 64 * MiB, 30, "memory freed")
        carries_on(bed_pool, b, ["--lease", calm["lease"]], cuda_program)
    finally:
        stop_all(a, b)
        for lease in (calm, busy):
            bed_pool.cli("release", lease["lease"], "--controller", bed_pool.url)
    assert [e.get("reason") for e in session_ended(bed_pool.log(server))].count("client_gone") >= 1


@pytest.mark.parametrize("wire, way", [("pool", "d2h"), ("pool", "h2d"), ("plain", "d2h"), ("plain", "h2d")])
def test_a_link_gone_silent_mid_copy_ends_that_program_within_seconds(bed_pool, bed, cuda_program, wire, way):
    """A GPU host that freezes, loses its power or is cut off sends no RST: its links just stop
    passing anything, and nothing sent on them is acknowledged (the relay's `silence`). A program
    copying 64 MiB at a time across such a link is told its device is gone within seconds
    (RGPU_TIMEOUT's promise), not after the 10 minutes a call may wait here; the worker ends the
    session on its side; the server's other tenant carries on.
    - pool (CURVE): the copies' frames go on the session's bulk channel, so the session socket's
      heartbeats find the silence in the program, and its keepalives in the worker.
    - plain wire, D2H: the worker is the one stuck mid-message: its kernel's resends of the reply go
      unanswered, and the worker ends the session (server/liveness.py ClientHost; before it, the
      session and its memory stayed).
    - plain wire, H2D: the program is the one stuck mid-message, where ZeroMQ sends no heartbeat: the
      library sees that the worker's host has acknowledged nothing of it for 10 s (TCP_INFO,
      connection.c; before it, the program waited out RGPU_TIMEOUT)."""
    hold = str(cuda_program("hold_memory"))
    lo, hi = WORKER_PORTS
    leases, direct, b, a, known = [], None, None, None, set()
    try:
        if wire == "pool":
            calm = bed_pool.cli_json("reserve", "--mem", "128MiB")
            busy = bed_pool.cli_json("reserve", "--mem", "256MiB")
            leases = [calm["lease"], busy["lease"]]
            server = calm["vgpus"][0]["server"]
            assert busy["vgpus"][0]["server"] == server, "binpack places the second lease beside the first"
            calm_way, busy_way = ["--lease", calm["lease"]], ["--lease", busy["lease"]]
        else:
            server = direct = bed_pool.add_server("gpu2", 7403, "--wire", "plain", pool=False)
            calm_way = busy_way = ["--server", server]
        b = holder(bed_pool, calm_way, hold, "16")
        known = {link["id"] for link in bed.links()}
        a = holder(bed_pool, busy_way, hold, "64", "copies" if way == "d2h" else "uploads", timeout_s=600)
        moved = "down" if way == "d2h" else "up"
        wait_until(lambda: [x for x in bed.links() if x["id"] not in known and lo <= x["port"] <= hi
                            and x[moved] > 64 * MiB], 30, "the busy program's copies on the wire")
        victims = [x["id"] for x in bed.links() if x["id"] not in known and lo <= x["port"] <= hi]
        ended_before = len(session_ended(bed_pool.log(server)))
        assert bed.silence(victims) == victims
        out, err = a.communicate(timeout=60)
        assert a.returncode == 3 and "ERROR 46 cudaErrorDevicesUnavailable" in out, out + err
        assert "unavailable" in err and "connection lost" in err, err
        # the worker ends the session once the client is silent on its side too (no FIN ever comes:
        # the relay reads nothing from the program's end, which has exited)
        wait_until(lambda: [e for e in session_ended(bed_pool.log(server))[ended_before:]
                            if e.get("reason") == "client_gone"
                            and int(e["bytes_in" if way == "h2d" else "bytes_out"]) >= 64 * MiB], 60,
                   "the silent session ended on the server")
        carries_on(bed_pool, b, calm_way, cuda_program)
    finally:
        stop_all(a, b)
        bed.cut([x["id"] for x in bed.links() if x["id"] not in known])  # the silent ones too
        for lease in leases:
            bed_pool.cli("release", lease, "--controller", bed_pool.url)
        if direct is not None:
            bed_pool.servers.pop(direct).stop()


def test_a_running_program_moves_between_the_gpu_hosts(bed_pool, cuda_program):
    """Live migration from one GPU host to the other: the servers talk across the relay as the program
    does, and the program ends with the results of a run that never moved."""
    exe = str(cuda_program("migrate_streams"))
    run = ["run", "--controller", bed_pool.url, "--mem", "128MiB", "--", exe]
    still = bed_pool.cli(*run, "20", "0")
    assert still.returncode == 0 and " OK" in still.stdout, still.stdout + still.stderr
    env = {**bed_pool.env, "RGPU_TIMEOUT": "60", "RGPU_LOG": "info"}
    proc = bed_pool.bed.popen("cpu", [sys.executable, "-m", "rgpu.client.cli", *run, "20", "300"], env=env, cwd=ROOT,
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        assert proc.stdout.readline().startswith("READY")
        [lease] = bed_pool.cli_json("leases")["leases"]
        a = lease["vgpus"][0]["server"]
        [b] = [u for u in bed_pool.servers if u != a]
        line = proc.stdout.readline()
        assert line.startswith("PROGRESS"), line + proc.stderr.read()
        p = bed_pool.cli("migrate", lease["id"], "--to", f"{b}#0", "--controller", bed_pool.url, "--json")
        assert p.returncode == 0, p.stdout + p.stderr
        [m] = json.loads(p.stdout)["migrations"]
        assert m["state"] == "done" and (m["from"], m["to"]) == (f"{a}#0", f"{b}#0") and m["sessions"] == 1, m
        out, err = proc.communicate(timeout=300)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.communicate(timeout=10)
    assert proc.returncode == 0, out + err
    assert out.strip().splitlines()[-1] == still.stdout.strip().splitlines()[-1], (out, still.stdout)
    assert err.count("moved to") == 1, err


FRAMEWORK_SCRIPTS = ROOT / "tests" / "frameworks"


def test_cupy_on_the_cpu_host_computes_on_a_gpu_hosts_software_gpu(bed_pool, tmp_path):
    """CuPy from its wheel on the CPU host, placed by the pool on a GPU host's software GPU across the relay:
    NVRTC's kernels (compiled on the CPU host, their modules sent across) and cuBLAS's GEMMs, each result
    checked against numpy here."""
    import numpy as np
    from tests.support import frameworks
    python = str(frameworks.python())
    env = frameworks.cupy_env({**bed_pool.env, "CUPY_CACHE_DIR": str(tmp_path / "cupy-kernels")})
    for op in ("elementwise", "matmul"):
        out = tmp_path / f"{op}.npz"
        p = bed_pool.cli("run", "--controller", bed_pool.url, "--mem", "256MiB", "--", python,
                         str(FRAMEWORK_SCRIPTS / "cupy_ops.py"), op, str(out), env=env, timeout=300)
        assert p.returncode == 0 and f"{op} ok" in p.stdout, p.stdout + p.stderr[-4000:]
        r = np.load(out)
        if op == "elementwise":
            x, y = r["x"], r["y"]
            assert np.allclose(r["ufunc"], np.sin(x * 2 + y), atol=1e-5)
            assert np.allclose(r["kernel"], x * x - 2.5 * y, atol=1e-6)
            assert np.array_equal(r["dlpack"], r["kernel"])
        else:
            a, b = r["a"], r["b"]
            assert np.allclose(r["s"], a @ b, atol=1e-5)
            assert np.allclose(r["d"], a.astype(np.float64) @ b.astype(np.float64))
    assert bed_pool.cli_json("leases")["leases"] == []


def test_numba_on_the_cpu_host_computes_on_a_gpu_hosts_software_gpu(bed_pool, tmp_path):
    """numba-cuda's @cuda.jit kernels on the CPU host, linked through rgpu's cuLink* and run by a GPU host's
    software GPU across the relay (a direct server of an architecture numba's NVVM targets: see
    tests/e2e/test_frameworks.py), each result checked against numpy here."""
    import numpy as np
    from tests.e2e.test_frameworks import BLOCK, NUMBA_SIM_ARCH
    from tests.support import frameworks
    url = bed_pool.add_server("gpu2", 7406, "--sim-arch", NUMBA_SIM_ARCH, pool=False)
    try:
        out = tmp_path / "numba.npz"
        p = bed_pool.cli("run", "--server", url, "--", str(frameworks.python()),
                         str(FRAMEWORK_SCRIPTS / "numba_kernels.py"), str(out), env=frameworks.numba_env(bed_pool.env),
                         timeout=300)
        assert p.returncode == 0 and "numba ok" in p.stdout, p.stdout + p.stderr[-4000:]
        r = np.load(out)
        x, y, keys = r["x"], r["y"], r["keys"]
        assert np.array_equal(r["axpy"], 2 * x + y)
        assert np.allclose(r["block_sums"], np.add.reduceat(x, np.arange(0, x.size, 128)), atol=1e-5)
        assert np.array_equal(r["histogram"], np.bincount(keys % 10, minlength=10))
        assert np.array_equal(r["half_squares"], r["halves"] * r["halves"])
        assert r["reduced"].tolist() == [float(sum(range(k))) for k in (40, 64, 300)]
        assert r["rotated"].tolist() == [(i + BLOCK) % (4 * BLOCK) * 3 for i in range(4 * BLOCK)]
        [ended] = wait_until(lambda: session_ended(bed_pool.log(url)), 30, "the session's end logged")
        assert ended["shm_bytes_in"] == ended["shm_bytes_out"] == "0", ended
    finally:
        bed_pool.servers.pop(url).stop()


@pytest.fixture(scope="module")
def null_url(bed_pool):
    """A direct `--device cuda` server on the null driver (benchmarks/native/nulldriver.c: no GPU work) on
    gpu2, reached across the relay."""
    from benchmarks.native import run as native
    env = {k: v for k, v in bed_pool.env.items() if k not in ("RGPU_CONTROLLER", "RGPU_CLUSTER_SECRET")}
    url = bed_pool.add_server("gpu2", 7405, pool=False, device="cuda",
                              env={**env, "RGPU_LIBCUDA": str(native.null_driver())})
    yield url
    bed_pool.servers.pop(url).stop()


def test_pytorch_cupy_numba_and_cublas_on_the_cpu_host_dispatch_on_a_gpu_host(bed_pool, null_url):
    """PyTorch, CuPy and numba-cuda from their CUDA wheels, and a cuBLAS/cuBLASLt program, on the CPU host,
    their calls served across the relay by a `--device cuda` server on the null driver
    (benchmarks/native/nulldriver.c: no GPU work) on a GPU host: each initialises, loads its own kernels
    and dispatches its work (PyTorch: a training step, cuDNN, a CUDA graph) without an error. What the
    kernels compute is the GPU's to check (tests/e2e on a GPU host)."""
    from tests.e2e.test_null_driver import FRAMEWORKS_STEP, LIBS, TORCH_STEP, _zstd
    from tests.support import cudabuild, frameworks, nvlibs, torchenv
    url = null_url
    p = bed_pool.cli("run", "--server", url, "--", str(torchenv.python()), "-c", TORCH_STEP, timeout=600)
    assert p.returncode == 0 and "OK rgpu null driver (no GPU work) (9, 0)" in p.stdout, p.stdout + p.stderr[-4000:]
    f = bed_pool.cli("run", "--server", url, "--", str(frameworks.python()), "-c", FRAMEWORKS_STEP,
                     env=frameworks.numba_env(bed_pool.env), timeout=600)
    assert f.returncode == 0 and "OK cupy" in f.stdout and "OK numba" in f.stdout, f.stdout + f.stderr[-4000:]
    if _zstd():  # the null driver reads cuBLAS's zstd-compressed modules with libzstd
        exe = cudabuild.build(LIBS / "blas.cu", "exe", [f"-I{LIBS}", *nvlibs.link_flags("cublas", "cublasLt")],
                              arch_flags=["-arch=sm_80"])
        b = bed_pool.cli("run", "--server", url, "--", str(exe), timeout=600)
        got = {line.split()[0]: line.split()[1] for line in b.stdout.splitlines() if len(line.split()) >= 2}
        assert b.returncode == 0 and all(got.get(n) == "0" for n in ("create", "sgemm", "dgemm", "lt_matmul")), \
            b.stdout[-2000:] + b.stderr[-2000:]
    ended = session_ended(bed_pool.log(url))
    assert len(ended) >= 2 and all(e["shm_bytes_in"] == e["pinned_bytes_in"] == "0" for e in ended), ended


def test_pytorch_training_steps_and_decode_loops_across_hosts_wait_only_for_their_own_syncs(bed_pool, null_url):
    """PyTorch's training steps (a CNN, a transformer: forward, backward, AdamW, one `loss.item()`) and its
    decode loop (token by token, with and without a CUDA graph; one `token.item()`) on the CPU host, on the
    null driver of a GPU host across the relay: each runs, and after its warm-up a step waits for no more
    than the program's own synchronisations + 1 blocking round trips (librgpu's counters, by call: every
    other one costs the network's round trip, issue 37), with no shared segment or pinned mapping."""
    from tests.support import torchenv
    workloads = ["cnn", "transformer", "decode", "decode_graph"]
    before = len(session_ended(bed_pool.log(null_url)))
    p = bed_pool.cli("run", "--server", null_url, "--", str(torchenv.python()),
                     str(ROOT / "tests" / "e2e" / "torch_workloads.py"), *workloads, "--warmup", "2", "--steps", "3",
                     timeout=600)
    assert p.returncode == 0, p.stdout[-4000:] + p.stderr[-4000:]
    got = {r["workload"]: r for r in map(json.loads, (x for x in p.stdout.splitlines() if x.startswith("{")))}
    assert sorted(got) == sorted(workloads), p.stdout
    over = {n: r["by_call"] for n, r in got.items() if r["round_trips"] > r["syncs_per_step"] + 1}
    assert not over, json.dumps(over, indent=1)
    for r in got.values():
        assert r["device"] == "rgpu null driver (no GPU work)", r
        assert r["syncs_per_step"] <= r["round_trips"], r  # the program's own synchronisations are counted
        assert r["async_calls"] > 0, r  # the step's launches went without a wait
    ended = wait_until(lambda: session_ended(bed_pool.log(null_url))[before:], 30, "the session's end logged")
    assert len(ended) == 1 and ended[0]["shm_bytes_in"] == ended[0]["pinned_bytes_in"] == "0", ended


def test_a_failover_program_beside_its_server_resumes_on_the_other_gpu_host_when_that_host_s_server_dies(bed_pool, cuda_program):
    """A --failover program run on the GPU host its lease placed it on, beside its server: its session
    has that host's shared segment and call ring. The server is killed mid-run; the program resumes
    on the other GPU host's server, across the relay, where the same-host paths do not apply (its
    messages since the checkpoint were logged as they would have gone in frames), and ends with the
    results of a run that was not killed. The killed server is started again for the tests after."""
    from tests.e2e.test_failover import kill_server
    from tests.e2e.test_migration import progress_to
    exe = str(cuda_program("migrate_streams"))
    still = bed_pool.cli("run", "--controller", bed_pool.url, "--mem", "128MiB", "--", exe, "30", "0")
    assert still.returncode == 0 and " OK" in still.stdout, still.stdout + still.stderr
    r = bed_pool.cli("reserve", "--controller", bed_pool.url, "--mem", "128MiB", "--failover", "--json")
    assert r.returncode == 0, r.stdout + r.stderr
    lease = json.loads(r.stdout)
    lease_id = lease.get("lease") or lease.get("id")
    a, killed, proc = lease["vgpus"][0]["server"], False, None
    try:
        [host] = [h for h in ("gpu1", "gpu2") if bed_pool.bed.url(h, 7401) == a]
        # the other GPU host's pool server (other tests of the module may have added direct-mode ones)
        [b] = [bed_pool.bed.url(h, 7401) for h in ("gpu1", "gpu2") if h != host]
        env = {**bed_pool.env, "RGPU_TIMEOUT": "60", "RGPU_LOG": "info", "RGPU_FAILOVER_INTERVAL": "0.3"}
        proc = bed_pool.bed.popen(host, [sys.executable, "-m", "rgpu.client.cli", "run", "--controller", bed_pool.url,
                                         "--lease", lease_id, "--", exe, "30", "150"], env=env, cwd=ROOT,
                                  stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        assert proc.stdout.readline().startswith("READY"), proc.stderr.read()
        progress_to(proc, 8)
        kill_server(bed_pool, a)
        killed = True
        out, err = proc.communicate(timeout=300)
    finally:
        if proc is not None and proc.poll() is None:
            proc.kill()
            proc.communicate(timeout=10)
        bed_pool.cli("release", lease_id, "--controller", bed_pool.url)
        if killed:
            bed_pool.servers.pop(a).stop()
            bed_pool.add_server(host, 7401)
            wait_until(lambda: bed_pool.states().get(a) == "up", 60, "the killed server back up")
    assert proc.returncode == 0, out + err
    assert out.strip().splitlines()[-1] == still.stdout.strip().splitlines()[-1], (out, still.stdout)
    assert err.count("bulk data to") == 1, err  # the segment beside its first server, none across the relay
    assert f"resumed on {b}" in err and "from its checkpoint" in err, err
