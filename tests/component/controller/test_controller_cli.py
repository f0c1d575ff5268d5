"""The pool commands (`rgpu ls/reserve/release/leases`, tables and --json) and `rgpu run` on a
lease: env, renew, release at exit, crash, signals, --lease."""
import json
import os
import signal
import subprocess
import sys

import pytest
from click.testing import CliRunner

from rgpu.client import pool_commands
from rgpu.client.leased_run import run_with_lease
from rgpu.protocol import curve, tokens
from tests.component.controller.controller_fixtures import GiB, SECRET, fake_gpus
from tests.support import procs
from tests.support.daemons import wait_until

import click


@pytest.fixture
def cli():
    group = click.Group("rgpu")
    pool_commands.register(group)
    return group


@pytest.fixture(autouse=True)
def as_admin(monkeypatch, controller):
    """The CLI and `rgpu run`, run in this process, find the controller's admin credential."""
    monkeypatch.setenv("RGPU_CONFIG_DIR", str(controller.config))
    for name in ("RGPU_CREDENTIAL", "RGPU_CONTROLLER_KEY"):
        monkeypatch.delenv(name, raising=False)


@pytest.fixture
def pool(client, fleet):
    fleet.register("tcp://gpu1:7000", "b1", "sim", fake_gpus(2, "A"))
    fleet.register("tcp://gpu2:7000", "b2", "sim", fake_gpus(2, "B"))
    return client


def invoke(cli, controller, *args):
    result = CliRunner().invoke(cli, [*args, "--controller", controller.url])
    return result


def test_ls_json_and_table(cli, controller, pool):
    with controller.client(credential=controller.user("ann")) as ann:
        ann.reserve(memory=4 * GiB, compute=25)
    out = invoke(cli, controller, "ls", "--json")
    assert out.exit_code == 0, out.output
    data = json.loads(out.output)
    assert [s["url"] for s in data["servers"]] == ["tcp://gpu1:7000", "tcp://gpu2:7000"]
    gpus = [g for s in data["servers"] for g in s["gpus"]]
    assert {"uuid", "name", "memory_total", "memory_free", "compute_free"} <= set(gpus[0])
    assert sorted(g["compute_free"] for g in gpus) == [75, 100, 100, 100]
    table = invoke(cli, controller, "ls").output
    assert "tcp://gpu2:7000" in table and "ann:" in table and "12.0 GiB/16.0 GiB" in table


def test_reserve_json_leases_release(cli, controller, pool):
    out = invoke(cli, controller, "reserve", "--mem", "2GiB", "--compute", "30", "-n", "2",
                 "--policy", "spread", "--json")
    assert out.exit_code == 0, out.output
    r = json.loads(out.output)
    assert {"lease", "token", "expires", "vgpus"} <= set(r)
    assert [(v["memory"], v["compute"], v["limit"]) for v in r["vgpus"]] == [(2 * GiB, 30, 100)] * 2
    assert {v["server"] for v in r["vgpus"]} == {"tcp://gpu1:7000", "tcp://gpu2:7000"}
    assert {"server", "gpu"} <= set(r["vgpus"][0])
    assert tokens.verify(r["token"], SECRET.encode())["lease"] == r["lease"]
    leases = json.loads(invoke(cli, controller, "leases", "--json").output)["leases"]
    assert [(x["id"], len(x["vgpus"])) for x in leases] == [(r["lease"], 2)] and "expires" in leases[0]
    assert json.loads(invoke(cli, controller, "release", r["lease"], "--json").output) == \
        {"ok": True, "released": [r["lease"]], "failed": []}
    again = invoke(cli, controller, "release", r["lease"], "--json")
    assert again.exit_code == 1 and json.loads(again.output)["failed"][0]["error"] == "lease_ended"
    assert "no live leases" in invoke(cli, controller, "leases").output


def test_reserve_table_prints_export_lines(cli, controller, pool):
    out = CliRunner().invoke(cli, ["reserve", "--mem", "50%", "--compute", "50",
                                  "--controller", controller.url])
    assert out.exit_code == 0, out.output
    assert all(x.startswith("export ") for x in out.stdout.splitlines()), out.stdout   # shell only: eval works
    assert "reserved lease" in out.stderr and "rgpu release" in out.stderr
    lines = out.stdout.splitlines()
    lease_line = next(x for x in lines if x.startswith("export RGPU_LEASE="))
    assert tokens.verify(lease_line.split("=", 1)[1], SECRET.encode())["vgpus"][0]["memory"] == 8 * GiB
    assert any(x.startswith("export RGPU_SERVER='tcp://gpu") and "#" in x for x in lines)


def test_impossible_reserve_is_a_clear_error(cli, controller, pool):
    out = invoke(cli, controller, "reserve", "--mem", "64GiB")
    assert out.exit_code == 3 and "cannot place" in out.output and "the largest: 16.0 GiB" in out.output  # refused
    bad = invoke(cli, controller, "reserve", "--mem", "lots")
    assert bad.exit_code == 2 and "--mem" in bad.output


def test_reserve_wait_shows_progress_then_places(cli, controller, pool):
    hog = pool.reserve(count=4, policy="spread")["lease"]
    proc = subprocess.Popen([sys.executable, "-m", "rgpu.client.cli", "reserve", "--wait", "30", "--json",
                             "--controller", controller.url], env=controller.env,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    wait_until(lambda: pool.ls()["queued"] == 1, 15, "request queued")
    pool.release(hog)
    out, err = proc.communicate(timeout=30)
    assert proc.returncode == 0, err
    assert "rgpu: waiting 0s, position 1 in queue" in err and json.loads(out)["vgpus"][0]["compute"] == 100
    assert len(err.splitlines()) == 1, err      # not a tty: one line per change, and nothing changed


def _program(tmp_path, body):
    script = tmp_path / "prog.py"
    script.write_text("import os, sys, signal, time, json\n" + body)
    return [sys.executable, str(script)]


def test_run_exports_lease_passes_exit_code_and_releases(controller, pool, tmp_path):
    argv = _program(tmp_path, "json.dump({k: os.environ[k] for k in ('RGPU_LEASE', 'RGPU_SERVER')}, "
                              "open(sys.argv[1], 'w'))\nsys.exit(3)\n")
    code = run_with_lease(controller.url, {"memory": "1GiB", "compute": 10, "count": 2, "policy": "spread"},
                          None, argv + [str(tmp_path / "env.json")], dict(os.environ))
    assert code == 3
    seen = json.load(open(tmp_path / "env.json"))
    claims = tokens.verify(seen["RGPU_LEASE"], SECRET.encode())
    keys = {v["server"]: curve.key_hex(curve.server_data_keys(SECRET.encode(), v["server"]).public)
            for v in claims["vgpus"]}
    assert seen["RGPU_SERVER"] == ",".join(f"{v['server']}@{keys[v['server']]}#{v['index']}" for v in claims["vgpus"])
    assert pool.leases() == []


def test_run_releases_when_program_crashes(controller, pool, tmp_path):
    argv = _program(tmp_path, "os.kill(os.getpid(), signal.SIGKILL)\n")
    assert run_with_lease(controller.url, {}, None, argv, dict(os.environ)) == 128 + signal.SIGKILL
    assert pool.leases() == []


def test_run_forwards_sigterm_and_releases(controller, pool, tmp_path):
    marker = tmp_path / "started"
    argv = _program(tmp_path, f"signal.signal(signal.SIGTERM, lambda *a: sys.exit(42))\n"
                              f"open({str(marker)!r}, 'w').close()\nwhile True: time.sleep(0.05)\n")
    runner = tmp_path / "runner.py"
    runner.write_text("import os, sys\nfrom rgpu.client.leased_run import run_with_lease\n"
                      f"sys.exit(run_with_lease({controller.url!r}, {{'compute': 20}}, None, {argv!r}, dict(os.environ)))\n")
    proc = subprocess.Popen([sys.executable, str(runner)], env=controller.env)
    try:
        wait_until(marker.exists, 20, "program started")
        assert len(pool.leases()) == 1
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(20) == 42
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert pool.leases() == []


def _leased_runner(controller, tmp_path, argv, ttl):
    """`rgpu run` on a new lease of ``ttl`` seconds, as a job of its own (its own process group, as
    a shell with job control starts it), running ``argv``."""
    runner = tmp_path / "runner.py"
    runner.write_text("import os, sys\nfrom rgpu.client.leased_run import run_with_lease\n"
                      f"sys.exit(run_with_lease({controller.url!r}, {{'compute': 20, 'ttl': {ttl}}}, None, "
                      f"{argv!r}, dict(os.environ)))\n")
    return subprocess.Popen([sys.executable, str(runner)], env=controller.env, start_new_session=True)


def _keepers(parent: int) -> list[int]:
    """The lease keepers `rgpu run` (pid ``parent``) started."""
    return [c for c, p in procs.parents().items() if p == parent and b"rgpu.client.lease_keeper" in procs.cmdline(c)]


def test_a_program_stopped_longer_than_its_lease_ttl_keeps_its_lease(controller, live_pool, tmp_path):
    """Ctrl-Z stops the whole job, `rgpu run` with its program: the lease is still renewed (by the
    keeper, out of the job), so the program comes back to its GPU as it would to a local one."""
    pool, ttl = live_pool, 2
    started, go = tmp_path / "started", tmp_path / "go"
    argv = _program(tmp_path, f"open({str(started)!r}, 'w').close()\n"
                              f"while not os.path.exists({str(go)!r}): time.sleep(0.05)\n")
    proc = _leased_runner(controller, tmp_path, argv, ttl)
    try:
        wait_until(started.exists, 20, "program started")
        [lease] = pool.leases()
        [keeper] = _keepers(proc.pid)
        # Ctrl-Z's SIGTSTP, sent from outside a terminal to a job with no parent in its session (an
        # orphaned process group), is discarded by the kernel; SIGSTOP stops the job as Ctrl-Z does
        os.killpg(proc.pid, signal.SIGSTOP)
        wait_until(lambda: procs.state(proc.pid) == "T", 10, "rgpu run stopped")
        assert procs.state(keeper) not in ("T", "")
        # renewed while the job is stopped: three TTLs past the expiry it had when the job stopped
        wait_until(lambda: [l["expires"] for l in pool.leases()] > [lease["expires"] + 3 * ttl], 20,
                   "the lease renewed while its job was stopped")
        assert procs.state(proc.pid) == "T"
        os.killpg(proc.pid, signal.SIGCONT)
        go.touch()
        assert proc.wait(20) == 0
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
    assert pool.leases() == []
    wait_until(lambda: procs.state(keeper) == "", 10, "the keeper ended with rgpu run")


def test_the_lease_keeper_ends_when_rgpu_run_is_killed(controller, live_pool, tmp_path):
    """`rgpu run` killed by SIGKILL cannot release its lease; its keeper must not keep it alive
    either (it ends with `rgpu run`), so the lease expires after its TTL."""
    pool, ttl = live_pool, 2
    started = tmp_path / "started"
    argv = _program(tmp_path, f"open({str(started)!r}, 'w').write(str(os.getpid()))\ntime.sleep(60)\n")
    proc = _leased_runner(controller, tmp_path, argv, ttl)
    try:
        wait_until(lambda: started.exists() and started.read_text(), 20, "program started")
        [keeper] = _keepers(proc.pid)
        proc.kill()
        proc.wait()
        wait_until(lambda: procs.state(keeper) in ("", "Z"), 10, "the keeper ended with rgpu run")
        wait_until(lambda: pool.leases() == [], 6 * ttl, "the unrenewed lease expired")
    finally:
        try:
            os.killpg(proc.pid, signal.SIGKILL)     # the orphaned program
        except ProcessLookupError:
            pass


def test_run_on_existing_lease_renews_and_leaves_it(controller, pool, tmp_path):
    lease = pool.reserve(memory=GiB, compute=10, ttl=2)
    argv = _program(tmp_path, "time.sleep(float(sys.argv[1]))\n")
    # runs longer than the lease's TTL: only the renewals keep it alive
    assert run_with_lease(controller.url, None, lease["lease"], argv + ["3"], dict(os.environ)) == 0
    [kept] = pool.leases()
    assert kept["id"] == lease["lease"] and kept["expires"] > lease["expires"]


@pytest.fixture
def live_pool(controller, pool):
    """``pool`` whose two servers heartbeat (every 0.3 s) while the test runs: the CLI runs as
    subprocesses here, slower than the controller's 1.5 s heartbeat timeout."""
    import threading

    from rgpu.client.controller_client import ControllerError
    stop = threading.Event()

    def beat():
        with controller.fleet() as c:
            while True:
                for url, boot in (("tcp://gpu1:7000", "b1"), ("tcp://gpu2:7000", "b2")):
                    try:
                        c.heartbeat(url, boot, {})
                    except ControllerError:
                        pass
                if stop.wait(0.3):
                    return
    t = threading.Thread(target=beat, daemon=True)
    t.start()
    yield pool
    stop.set()
    t.join(10)


def _cli(controller, *args, env=None, timeout=60):
    return subprocess.run([sys.executable, "-m", "rgpu.client.cli", *args], capture_output=True, text=True,
                          env={**controller.env, **(env or {})}, timeout=timeout)


def test_run_inside_a_reserved_shell_uses_its_lease(controller, live_pool, tmp_path):
    pool = live_pool
    """As srun inside salloc: `rgpu run` in a shell of `rgpu reserve` (RGPU_LEASE_ID) reserves nothing new."""
    lease = pool.reserve(memory=GiB, compute=10, ttl=60)["lease"]
    argv = _program(tmp_path, "print(os.environ['RGPU_LEASE'])\n")
    p = _cli(controller, "run", "--controller", controller.url, "--", *argv, env={"RGPU_LEASE_ID": lease})
    assert p.returncode == 0, p.stderr
    assert tokens.verify(p.stdout.strip(), SECRET.encode())["lease"] == lease
    assert [x["id"] for x in pool.leases()] == [lease]          # used, and left in place
    # a request option asks for a lease of its own (released at the program's exit)
    p = _cli(controller, "run", "--controller", controller.url, "--mem", "1G", "--", *argv,
             env={"RGPU_LEASE_ID": lease})
    assert p.returncode == 0 and tokens.verify(p.stdout.strip(), SECRET.encode())["lease"] != lease, p.stderr
    assert [x["id"] for x in pool.leases()] == [lease]


def test_reserve_shell_renews_its_lease_while_it_runs_and_releases_it(controller, live_pool, tmp_path):
    pool = live_pool
    # the "shell" outlives the lease's TTL (2 s): only the renewals keep the lease alive
    shell = tmp_path / "shell.sh"
    shell.write_text(f"#!/bin/sh\nsleep 3.5\n{sys.executable} -m rgpu.client.cli leases --json "
                     f"--controller {controller.url} > {tmp_path}/leases.json\necho $RGPU_LEASE_ID > {tmp_path}/id\n"
                     "exit 7\n")
    shell.chmod(0o755)
    p = _cli(controller, "reserve", "--mem", "1G", "--ttl", "2", "--shell", "--controller", controller.url,
             env={"SHELL": str(shell)})
    assert p.returncode == 7, p.stderr                             # the shell's exit code
    lease = (tmp_path / "id").read_text().strip()
    seen = json.loads((tmp_path / "leases.json").read_text())["leases"]
    assert [x["id"] for x in seen] == [lease], seen      # alive past its TTL
    assert pool.leases() == [] and f"released lease {lease}" in p.stderr


def test_no_mem_is_a_whole_gpu_and_says_so(controller, live_pool):
    p = _cli(controller, "reserve", "--controller", controller.url)
    assert p.returncode == 0 and "takes a whole GPU's memory" in p.stderr and "16.0 GiB" in p.stderr, p.stderr
    p = _cli(controller, "reserve", "--json", "--controller", controller.url)   # tools get no note
    assert p.returncode == 0 and p.stderr == "" and json.loads(p.stdout)["vgpus"][0]["memory"] == 16 * GiB
    half = _cli(controller, "reserve", "--json", "--mem-fraction", "0.5", "--controller", controller.url)
    assert half.returncode == 0 and "whole GPU" not in half.stderr and json.loads(half.stdout)["vgpus"][0]["memory"] == 8 * GiB
    assert _cli(controller, "reserve", "--mem", "0.5", "--controller", controller.url).returncode == 2
