"""`--metrics-listen` (old name `--health-listen`): the daemons answer GET /healthz (what container health checks and Kubernetes
probes ask), 200 while they serve and 503 when the daemon behind it does not answer."""
from __future__ import annotations

import subprocess
import sys
import urllib.error
import urllib.request

import pytest

from rgpu import health
from tests.support.controller import ControllerProc
from tests.support.daemons import free_port, wait_until


def get(url: str) -> tuple[int, str]:
    try:
        with urllib.request.urlopen(url, timeout=5) as resp:
            return resp.status, resp.read().decode()
    except urllib.error.HTTPError as exc:
        return exc.code, exc.read().decode()


def probe(url: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "rgpu.health", url], capture_output=True, text=True, timeout=30)


def test_controller_and_server_serve_healthz(daemons, tmp_path, start_server):
    port = free_port()
    ControllerProc(daemons, tmp_path, ["--health-listen", f"127.0.0.1:{port}"]).start()
    url = f"http://127.0.0.1:{port}/healthz"
    assert get(url) == (200, "ok\n")
    status, text = get(f"http://127.0.0.1:{port}/metrics")     # --health-listen is --metrics-listen's old name
    assert status == 200 and "rgpu_pool_gpus 0.0" in text
    assert get(f"http://127.0.0.1:{port}/other")[0] == 404
    assert probe(url).returncode == 0
    sport = free_port()
    start_server("--health-listen", f"127.0.0.1:{sport}")
    assert get(f"http://127.0.0.1:{sport}/healthz") == (200, "ok\n")


def test_a_daemon_that_does_not_answer_is_unhealthy():
    # the checks ask the daemon through its own socket: nobody answering there is a 503 that says so
    for check in (health.controller_check(f"tcp://0.0.0.0:{free_port()}"), health.server_check(f"tcp://127.0.0.1:{free_port()}")):
        port = free_port()
        server = health.serve(f"127.0.0.1:{port}", check)
        try:
            url = f"http://127.0.0.1:{port}/healthz"
            status, text = get(url)
            assert status == 503 and "does not answer on tcp://127.0.0.1:" in text
            failed = probe(url)
            assert failed.returncode == 1 and "HTTP 503" in failed.stderr
        finally:
            server.shutdown()
            server.server_close()


def test_nothing_listening_is_a_failed_probe_and_bad_addresses_are_refused():
    p = probe(f"http://127.0.0.1:{free_port()}/healthz")
    assert p.returncode == 1 and "refused" in p.stderr.lower()
    with pytest.raises(ValueError, match="HOST:PORT"):
        health.parse_address("9440")
    assert health.parse_address(":9440") == ("0.0.0.0", 9440)
    assert health.local_url("tcp://0.0.0.0:7440") == "tcp://127.0.0.1:7440"
    assert health.local_url("ipc:///run/rgpu.sock") == "ipc:///run/rgpu.sock"


def test_metrics_parse_with_help_type_and_bounded_labels(daemons, tmp_path, start_server):
    """Both daemons' /metrics as Prometheus reads them (prometheus_client's parser): every family
    documented and typed, utilisation as ratios, rgpu_build_info, no label whose values grow with the
    leases (lease, owner, session), and the address said in the log at start."""
    from prometheus_client.parser import text_string_to_metric_families

    from rgpu import __version__
    from tests.conftest import run_cli, server_argv
    from tests.support.pool import ping

    cport, sport = free_port(), free_port()
    ctl = ControllerProc(daemons, tmp_path, ["--metrics-listen", f"127.0.0.1:{cport}"]).start()
    surl = f"tcp://127.0.0.1:{free_port()}"
    daemons.start(server_argv(surl, "--sim-memory", "1GiB", "--controller", ctl.url, "--metrics-listen",
                              f"127.0.0.1:{sport}"), ready=lambda: ping(surl), deadline_s=30, env=ctl.env,
                  log_path=tmp_path / "server.log")
    wait_until(lambda: "up" in run_cli("ls", "--controller", ctl.url, env=ctl.env).stdout, 30, "server up")
    for _ in range(3):   # three leases: the series do not grow with them
        assert run_cli("reserve", "--mem", "64M", "--compute", "10", "--controller", ctl.url, "--json",
                       env=ctl.env).returncode == 0
    wait_until(lambda: "rgpu_vgpu_memory_quota_bytes{" in get(f"http://127.0.0.1:{cport}/metrics")[1], 15, "vGPUs")
    assert f"metrics=http://127.0.0.1:{sport}/metrics" in (tmp_path / "server.log").read_text()
    for port, daemon in ((cport, "controller"), (sport, "server")):
        status, text = get(f"http://127.0.0.1:{port}/metrics")
        assert status == 200
        fams = {f.name: f for f in text_string_to_metric_families(text)
                if f.name.startswith(("rgpu_", "DCGM_"))}
        for f in fams.values():
            assert f.documentation and f.type in ("gauge", "counter"), f
            for s in f.samples:
                assert not {"lease", "owner", "session", "vgpu", "pid"} & set(s.labels), (f.name, s.labels)
                if f.name.endswith("_ratio"):
                    assert 0 <= s.value <= 1, (f.name, s)
            if f.type == "counter":
                assert all(s.name.endswith("_total") for s in f.samples), f
        assert not [n for n in fams if n.endswith("_percent")]
        [info] = fams["rgpu_build_info"].samples
        assert info.labels == {"version": __version__, "daemon": daemon} and info.value == 1
        if daemon == "controller":   # a server has vGPUs once sessions opened on them
            assert "rgpu_vgpu_sessions" in fams and "rgpu_vgpu_device_time_seconds" in fams
    status, text = get(f"http://127.0.0.1:{cport}/metrics")
    fams = {f.name: f for f in text_string_to_metric_families(text)}
    quota = [s for s in fams["rgpu_vgpu_memory_quota_bytes"].samples]
    assert len(quota) == 1 and quota[0].value == 3 * 64 << 20           # three leases, one series: per GPU
    [guarantee] = fams["rgpu_vgpu_compute_guarantee_ratio"].samples
    assert guarantee.value == pytest.approx(0.3)
    assert fams["rgpu_pool_compute_free_ratio"].samples[0].value == pytest.approx(0.7)


def test_counters_stay_monotonic_as_vgpus_come_and_go():
    from rgpu.metrics import Monotonic
    m, gpu = Monotonic(), ("g0",)
    assert m.totals([(gpu, "a", {"calls": 5}), (gpu, "b", {"calls": 2})]) == {gpu: {"calls": 7.0}}
    assert m.totals([(gpu, "b", {"calls": 3})]) == {gpu: {"calls": 8.0}}    # a left: its 5 stay counted
    assert m.totals([(gpu, "b", {"calls": 1})]) == {gpu: {"calls": 9.0}}    # b restarted its count
    assert m.totals([]) == {gpu: {"calls": 9.0}}
