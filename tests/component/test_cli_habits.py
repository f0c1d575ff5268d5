"""The habits users bring (issue 17, item 1 and 2): --version everywhere, documented completion,
URLs as HOST:PORT, clean errors (no traceback) from the CLI and the daemons' bad options (a busy
port, a bad size), JSON errors under --json, the waiting line, daemons' log formats."""
from __future__ import annotations

import io
import json
import os
import re
import socket
import subprocess
import sys
import time

import pytest

from rgpu import logs
from rgpu.client import exits
from rgpu.client.params import WaitLine
from rgpu.units import SizeError, parse_size
from tests.conftest import run_cli, server_argv
from tests.support.controller import ControllerProc
from tests.support.daemons import free_port, free_url, wait_until
from tests.support.pool import ping


def daemon(module: str, *args: str, env=None, timeout: float = 60) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", module, *args], capture_output=True, text=True, timeout=timeout,
                          env=env)


@pytest.mark.parametrize("module", ["rgpu.client.cli", "rgpu.server.cli", "rgpu.controller.daemon"])
def test_version_everywhere(module):
    p = daemon(module, "--version")
    assert p.returncode == 0 and "version 0.1.0" in p.stdout


def test_completion_is_printed_and_completes_commands():
    p = run_cli("completion", "bash")
    assert p.returncode == 0 and "_RGPU_COMPLETE=bash_complete" in p.stdout
    env = {**os.environ, "_RGPU_COMPLETE": "bash_complete", "COMP_WORDS": "rgpu re", "COMP_CWORD": "1"}
    done = subprocess.run([sys.executable, "-m", "rgpu.client.cli"], capture_output=True, text=True, env=env)
    assert {"plain,reserve", "plain,release", "plain,renew"} <= set(done.stdout.split())


def test_sizes_one_grammar():
    assert parse_size("512") == 512 << 20 and parse_size("8GiB") == 8 << 30 and parse_size("16G") == 16 << 30
    assert parse_size("1048576B") == 1 << 20 and parse_size("2Gi") == 2 << 30 and parse_size("12GB") == 12 << 30
    assert parse_size("512M") == parse_size("512MB") == parse_size("512") == 512 << 20   # one unit rule: binary
    for bad in ("4G1", "lots", "-1", "1.2.3", "5 parsecs"):
        with pytest.raises(SizeError, match="16GiB"):
            parse_size(bad)


def test_a_url_may_be_host_port_and_a_bad_one_is_a_usage_error(daemons, tmp_path):
    ctl = ControllerProc(daemons, tmp_path).start()
    host_port = ctl.url.removeprefix("tcp://")
    p = run_cli("ls", "--controller", host_port, "--json", env=ctl.env)
    assert p.returncode == 0 and json.loads(p.stdout)["servers"] == []
    bad = run_cli("ls", "--controller", "127.0.0.1:notaport", env=ctl.env)
    assert bad.returncode == 2 and "is not a URL" in bad.stderr and "Traceback" not in bad.stderr
    as_json = run_cli("ls", "--controller", "http://x:1", "--json", env=ctl.env)
    assert as_json.returncode == 2 and json.loads(as_json.stdout)["error"] == "usage"
    # the daemons read URLs the same way: a server listening on HOST:PORT joins RGPU_CONTROLLER=HOST:PORT
    port = free_port()
    daemons.start(server_argv(f"127.0.0.1:{port}"), ready=lambda: ping(f"tcp://127.0.0.1:{port}"), deadline_s=30,
                  env={**ctl.env, "RGPU_CONTROLLER": host_port}, log_path=tmp_path / "server.log")
    joined = lambda: [s["state"] for s in json.loads(run_cli("ls", "--json", "--controller", host_port,
                                                             env=ctl.env).stdout)["servers"]] == ["up"]
    wait_until(joined, 30, "the server joined through RGPU_CONTROLLER=HOST:PORT")
    srv = daemon("rgpu.server.cli", "--device", "sim", "--listen", free_url(), "--controller", "127.0.0.1:x", env=ctl.env)
    assert srv.returncode == 2 and "is not a URL" in srv.stderr and "Traceback" not in srv.stderr


def test_usage_errors_are_json_under_json():
    p = run_cli("reserve", "--mem", "4G1", "--json")
    assert p.returncode == 2 and "Traceback" not in p.stderr
    err = json.loads(p.stdout)
    assert err["ok"] is False and err["error"] == "usage" and "--mem" in err["message"] and "4G1" in err["message"]
    p = run_cli("reserve", "--mem", "1.5")          # 1.5 MiB: below the minimum quota, said so
    assert p.returncode == 2 and "at least 16.0 MiB" in p.stderr and "bare number is MiB" in p.stderr


def test_each_class_of_failure_has_its_exit_code_and_one_error_style(daemons, tmp_path):
    """client/exits.py's table: scripts branch on $? instead of parsing messages."""
    ctl = ControllerProc(daemons, tmp_path).start()
    env = ctl.env

    def code(*args, env=env):
        p = run_cli(*args, env=env)
        assert p.stderr.startswith("rgpu: error: ") and "Traceback" not in p.stderr and "Error:" not in p.stderr, p
        return p.returncode

    assert code("reserve", "--mem", "4G1") == exits.USAGE == 2
    assert code("reserve", "--bogus") == 2
    assert code("reserve", "--mem", "1G") == exits.REFUSED == 3          # a pool with no GPU holds nothing
    assert code("renew", "l-0123456789") == exits.NOT_FOUND == 4
    assert code("ls", env={**env, "RGPU_CREDENTIAL": str(tmp_path / "nobody.credential")}) == exits.AUTH == 5
    assert code("ls", "--controller", f"127.0.0.1:{free_port()}") == exits.UNREACHABLE == 6
    # a program that is not there or cannot run: as the shell says it (127, 126), in both modes
    script = tmp_path / "not-executable"
    script.write_text("#!/bin/sh\n")
    for mode in (["--server", free_url()], ["--lease", "l-0123456789"]):
        if mode[0] == "--lease":   # on a lease, the lease is looked up first: not found
            assert code("run", *mode, "--", str(tmp_path / "nowhere")) == 4
            continue
        assert code("run", *mode, "--", str(tmp_path / "nowhere")) == exits.NOT_FOUND_PROGRAM == 127
        assert code("run", *mode, "--", str(script)) == exits.NOT_EXECUTABLE == 126
    # the daemons' errors read the same way
    srv = daemon("rgpu.server.cli", "--device", "sim", "--sim-memory", "4G1")
    assert srv.returncode == 2 and srv.stderr.startswith("rgpu-server: error: ") and "Error:" not in srv.stderr
    k8s = daemon("rgpu.k8s.cli", "device-plugin", "--slots", "0")
    assert k8s.returncode == 2 and k8s.stderr.startswith("rgpu-k8s: error: ") and "Error:" not in k8s.stderr
    assert "(rgpu-k8s device-plugin --help)" in k8s.stderr, k8s.stderr


def test_daemons_refuse_a_busy_port_and_a_bad_size_cleanly(tmp_path):
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        s.listen()
        busy = f"tcp://127.0.0.1:{s.getsockname()[1]}"
        srv = subprocess.run(server_argv(busy, "--sim-memory", "256"), capture_output=True, text=True, timeout=120)
        assert srv.returncode == 1 and "cannot listen on" in srv.stderr and "another process" in srv.stderr, srv.stderr
        assert "Traceback" not in srv.stderr
        env = {**os.environ, "RGPU_CLUSTER_SECRET": "x" * 32, "RGPU_CONFIG_DIR": str(tmp_path / "cfg")}
        ctl = daemon("rgpu.controller.daemon", "--listen", busy, "--db", str(tmp_path / "c.db"), env=env)
        assert ctl.returncode == 1 and "cannot listen on" in ctl.stderr and "Traceback" not in ctl.stderr
    bad = subprocess.run(server_argv(free_url(), "--sim-memory", "4G1"), capture_output=True, text=True, timeout=60)
    assert bad.returncode == 2 and "--sim-memory" in bad.stderr and "Traceback" not in bad.stderr
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        s.listen()
        taken = f"127.0.0.1:{s.getsockname()[1]}"
        m = subprocess.run(server_argv(free_url(), "--metrics-listen", taken), capture_output=True, text=True,
                           timeout=60)
        assert m.returncode == 2 and "--metrics-listen" in m.stderr and "Traceback" not in m.stderr


class Tty(io.StringIO):
    def isatty(self):
        return True


def test_waiting_line_updates_in_place_on_a_terminal_and_once_per_change_elsewhere():
    now = [0.0]
    tty = Tty()
    line = WaitLine(tty, clock=lambda: now[0])
    for t in (0, 1, 2):
        now[0] = t
        line({"position": 2, "message": "no room"})
    line.done()
    out = tty.getvalue()
    assert "\n" not in out and out.count("\r\033[K") == 4 and "waiting 2s, position 2 in queue: no room" in out
    plain = io.StringIO()
    line = WaitLine(plain, clock=lambda: now[0])
    for reply in ({"position": 2, "message": "no room"},) * 5 + ({"position": 1, "message": "no room"},):
        line(reply)
    assert plain.getvalue().count("\n") == 2 and "position 1" in plain.getvalue().splitlines()[1]


class _Moves:
    """The controller's view of two moves: the first ends at the second poll, the second fails at the third."""

    def __init__(self):
        self.polls = {"m-1": 0, "m-2": 0}

    def migration(self, mid):
        self.polls[mid] += 1
        ends = {"m-1": (2, "done"), "m-2": (3, "failed")}[mid]
        state = ends[1] if self.polls[mid] >= ends[0] else "pending"
        return {"id": mid, "state": state}


def test_a_migration_that_is_waited_for_shows_its_progress(monkeypatch):
    """`rgpu migrate`/`drain` waiting: a line says how many moves are done, failed and pending
    (issue 42: a migration printed nothing for seconds)."""
    from rgpu.client import migrate_commands
    monkeypatch.setattr(migrate_commands, "POLL_S", 0.0)
    moves = [{"id": "m-1", "state": "pending"}, {"id": "m-2", "state": "pending"}]
    plain = io.StringIO()
    out = migrate_commands._wait(_Moves(), moves, 30, migrate_commands.ProgressLine(plain))
    assert [m["state"] for m in out] == ["done", "failed"]
    lines = plain.getvalue().splitlines()
    assert lines[0].startswith("rgpu: migrating 2 vGPUs, 0s: 0 moved, 0 failed, 2 pending (m-1, m-2)")
    assert lines[1].endswith("1 moved, 0 failed, 1 pending (m-2)") and lines[2].endswith("1 moved, 1 failed, 0 pending")
    assert len(lines) == 3
    tty = Tty()
    migrate_commands._wait(_Moves(), moves, 30, migrate_commands.ProgressLine(tty))
    assert "\n" not in tty.getvalue() and tty.getvalue().endswith("\r\033[K")  # the line is cleared at the end


def test_one_log_configuration_logfmt_json_and_rgpu_log(capsys, monkeypatch):
    monkeypatch.setenv("RGPU_LOG", "warn")
    log = logs.configure("test", None, "json")
    log.info("hidden_event")
    log.warning("lease_renew_failed", lease="l-1")
    line = capsys.readouterr().err.strip()
    assert json.loads(line)["event"] == "lease_renew_failed" and json.loads(line)["component"] == "test"
    log = logs.configure("test", "info", "logfmt")
    log.info("session_opened", session="s1")
    assert "event=session_opened" in capsys.readouterr().err
    logs.configure_cli()
    import structlog
    structlog.get_logger().warning("lease_renew_failed", message="controller gone")
    assert capsys.readouterr().err.strip() == "rgpu: warning: lease renew failed: controller gone"


_WRITER = """
import os, sys, time
from rgpu import logs
log = logs.configure("worker", "info")
while not os.path.exists(sys.argv[1]):  # all start at once: their records meet in the file
    time.sleep(0.001)
for i in range(int(sys.argv[2])):
    log.info("session_ended", writer=sys.argv[3], n=i, counts="x" * 600)
"""


@pytest.mark.parametrize("unbuffered", ["1", ""])
def test_processes_sharing_one_stderr_never_merge_their_records(tmp_path, unbuffered):
    """A server's workers share the daemon's stderr (a file opened for append, a pipe): four processes
    logging long records at the same instant, stderr written through (PYTHONUNBUFFERED, as container
    images set it) or not, leave every record whole on a line of its own."""
    go, writers, n = tmp_path / "go", 4, 1500
    env = {**os.environ, "PYTHONUNBUFFERED": unbuffered, "RGPU_LOG": "info"}
    with open(tmp_path / "log", "ab") as out:
        procs = [subprocess.Popen([sys.executable, "-c", _WRITER, str(go), str(n), str(w)], stdout=out,
                                  stderr=subprocess.STDOUT, env=env) for w in range(writers)]
        time.sleep(0.5)
        go.touch()
        assert all(p.wait(120) == 0 for p in procs)
    lines = (tmp_path / "log").read_text().split("\n")
    assert lines.pop() == ""
    bad = [line[:120] for line in lines if line.count("event=session_ended") != 1]
    assert not bad, f"{len(bad)} of {len(lines)} lines are not one record: {bad[:3]}"
    got = sorted(re.search(r"writer=(\d+) n=(\d+)", line).groups() for line in lines)
    assert got == sorted((str(w), str(i)) for w in range(writers) for i in range(n))


@pytest.mark.parametrize("module", ["rgpu.server.cli", "rgpu.controller.daemon"])
def test_a_missing_secret_file_is_an_error_naming_it_and_init_secret_creates_it(module, tmp_path):
    env = {k: v for k, v in os.environ.items() if not k.startswith("RGPU_CLUSTER_SECRET")}
    env["RGPU_CONFIG_DIR"] = str(tmp_path / "cfg")
    missing = tmp_path / "nonexistent" / "secret"
    args = (["--device", "sim", "--controller", f"127.0.0.1:{free_port()}"] if module == "rgpu.server.cli"
            else ["--db", str(tmp_path / "c.db")])
    p = daemon(module, "--listen", free_url(), *args, "--secret-file", str(missing), env=env)
    prog = "rgpu-server" if module == "rgpu.server.cli" else "rgpu-controller"
    assert p.returncode == 1 and f"{prog}: error: cluster secret file {missing} does not exist" in p.stderr, p.stderr
    assert "--init-secret" in p.stderr and "Traceback" not in p.stderr and "Error:" not in p.stderr
    assert not missing.exists()
    # --init-secret creates it (and a bad option after it still stops the daemon before it serves)
    p = daemon(module, "--listen", free_url(), *args, "--secret-file", str(missing), "--init-secret",
               "--metrics-listen", "127.0.0.1:notaport", env=env)
    assert p.returncode == 2 and f"{prog}: error:" in p.stderr, p.stderr
    assert missing.exists() and len(missing.read_text().strip()) == 64


def test_sigterm_to_the_servers_process_group_stops_it_without_an_error(tmp_path):
    """What systemd sends at `systemctl stop`: the supervisor, its zygote and its workers all get it."""
    import signal
    url = free_url()
    log = tmp_path / "server.log"
    with open(log, "w") as out:
        proc = subprocess.Popen(server_argv(url, "--sim-memory", "256MiB"), stdout=out, stderr=subprocess.STDOUT,
                                start_new_session=True)
    try:
        from rgpu.client import server_client
        wait_until(lambda: server_client.ping(url), 60, "server answers")

        def zygote_ignores_sigterm():   # the zygote is up and set (SigIgn in /proc: bit 15 is SIGTERM)
            children = open(f"/proc/{proc.pid}/task/{proc.pid}/children").read().split()
            for pid in children:
                status = dict(line.split(":\t", 1) for line in open(f"/proc/{pid}/status").read().splitlines()
                              if ":\t" in line)
                if int(status.get("SigIgn", "0"), 16) & (1 << (signal.SIGTERM - 1)):
                    return True
            return False
        wait_until(zygote_ignores_sigterm, 60, "the zygote started")
        os.killpg(proc.pid, signal.SIGTERM)
        assert proc.wait(30) == 0
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
    text = log.read_text()
    assert "event=server_stopped" in text and "level=error" not in text and "zygote_gone" not in text, text
