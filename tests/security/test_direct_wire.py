"""Direct mode (rgpu-server without a controller) is encrypted by default (issue 39, attack 7):
wherever its wire can leave the host the server speaks CURVE with a key pair it keeps (0600) across
restarts and prints as a URL to paste (`tcp://HOST:PORT@KEY`); `rgpu run --server` pins that key
and refuses a server that later holds another; `--wire plain` is there on request, with a warning at
the server's start and at the client. Before: a plain wire by default (session keys and data
readable on the path), a warning at the client only, and a key new at each start for --wire curve.
Loopback and ipc:// listens stay plain by default: their bytes never leave the host."""
from __future__ import annotations

import os
import re

import pytest

from rgpu.client import server_client
from rgpu.client.known_servers import plaintext_warning
from rgpu.protocol import curve
from rgpu.server import wire_keys
from tests.conftest import run_cli, server_argv
from tests.support import testbed
from tests.support.bedpool import BedPool
from tests.support.daemons import DaemonSet, free_port, wait_until

KEY = "ab" * 32
# what a plain wire shows of a hello (msgpack strings: "op": "hello", "proto", "client", "lease")
HELLO_FIELDS = (b"\xa5hello", b"\xa5proto", b"\xa6client", b"\xa5lease")
PASTE = re.compile(r"clients reach this server at (tcp://\S+@([0-9a-f]{64}))")


@pytest.mark.parametrize("url", ["tcp://gpuhost:7450", "tcp://10.1.2.3:7450#1", "tcp://[fd00::1]:7450"])
def test_a_plain_wire_off_this_host_is_warned_of(url):
    said = plaintext_warning(url)
    assert said is not None and "unencrypted" in said and "URL@KEY" in said


@pytest.mark.parametrize("url", ["tcp://127.0.0.1:7450", "tcp://localhost:7450", "tcp://[::1]:7450#0",
                                 "ipc:///tmp/rgpu.sock", f"tcp://gpuhost:7450@{KEY}", f"tcp://gpuhost:7450@{KEY}#1"])
def test_loopback_ipc_and_keyed_servers_are_not(url):
    assert plaintext_warning(url) is None


@pytest.mark.parametrize("listen,secret,wire", [
    ("tcp://0.0.0.0:7450", False, "curve"), ("tcp://*:7450", False, "curve"), ("tcp://gpuhost:7450", False, "curve"),
    ("tcp://10.1.2.3:7450", False, "curve"), ("tcp://127.0.0.1:7450", False, "plain"),
    ("tcp://localhost:7450", False, "plain"), ("ipc:///tmp/rgpu.sock", False, "plain"),
    ("tcp://127.0.0.1:7450", True, "curve")])
def test_a_direct_wire_that_can_leave_the_host_is_curve_by_default(listen, secret, wire):
    assert wire_keys.default_wire(secret, listen) == wire


def test_rgpu_run_says_nothing_on_loopback(sim_server):
    p = run_cli("run", "--server", sim_server, "--", "true")
    assert p.returncode == 0 and "warning" not in p.stderr, p.stderr


def _start_keyed(daemons, url: str, key_file, keys: curve.Keypair):
    return daemons.start(server_argv(url, "--sim-memory", "256MiB", "--wire", "curve", "--key-file", str(key_file)),
                         deadline_s=30, ready=lambda: server_client.ping(f"{url}@{curve.key_hex(keys.public)}"))


def _pasted(handle) -> tuple[str, str]:
    m = PASTE.search(handle.output(1 << 16))
    assert m, handle.output()
    return m.group(1), m.group(2)


def _start_printing(daemons, url: str, env: dict):
    """A server whose readiness is its URL@KEY line (the probe cannot ping a key it does not know)."""
    handle = daemons.start(server_argv(url, "--sim-memory", "256MiB", "--wire", "curve"), deadline_s=30, env=env,
                           ready=lambda: True)
    wait_until(lambda: PASTE.search(handle.output(1 << 16)), 30, "the server's URL@KEY line")
    return handle


def test_the_key_is_kept_0600_across_restarts_and_printed_to_paste(daemons, tmp_path):
    env = {**os.environ, "XDG_CACHE_HOME": str(tmp_path / "cache")}
    env.pop("RGPU_SERVER_KEY_FILE", None)
    url = f"tcp://127.0.0.1:{free_port()}"
    first = _start_printing(daemons, url, env)
    pasted, key = _pasted(first)
    assert pasted == f"{url}@{key}"
    [kept] = list((tmp_path / "cache" / "rgpu").rglob(wire_keys.KEY_FILE))
    assert (os.stat(kept).st_mode & 0o777) == 0o600
    assert curve.key_hex(curve.read_cert(kept, secret=True)[0].public) == key
    wait_until(lambda: server_client.ping(pasted), 30, "the server answering over CURVE")
    assert run_cli("run", "--server", pasted, "--", "true").returncode == 0
    first.stop()
    again = _start_printing(daemons, url, env)
    assert _pasted(again)[1] == key                        # before: a new key at every start


def test_a_changed_key_is_refused(daemons, tmp_path):
    env = {**os.environ, "RGPU_KNOWN_SERVERS": str(tmp_path / "known-servers")}
    url = f"tcp://127.0.0.1:{free_port()}"
    a, b = wire_keys.direct_keys(str(tmp_path / "a.key")), wire_keys.direct_keys(str(tmp_path / "b.key"))
    server = _start_keyed(daemons, url, tmp_path / "a.key", a)
    first = run_cli("run", "--server", f"{url}@{curve.key_hex(a.public)}", "--", "true", env=env)
    assert first.returncode == 0 and "pinned" in first.stderr, first.stderr
    assert f"{url} {curve.key_hex(a.public)}" in (tmp_path / "known-servers").read_text()
    again = run_cli("run", "--server", f"{url}@{curve.key_hex(a.public)}", "--", "true", env=env)
    assert again.returncode == 0 and "pinned" not in again.stderr, again.stderr      # said once
    bare = run_cli("run", "--server", url, "--", "sh", "-c", "echo $RGPU_SERVER", env=env)
    assert bare.returncode == 0 and bare.stdout.strip() == f"{url}@{curve.key_hex(a.public)}", bare.stdout + bare.stderr
    # another server (or the same one with a new key) answers there now
    server.stop()
    _start_keyed(daemons, url, tmp_path / "b.key", b)
    p = run_cli("run", "--server", url, "--", "true", env=env)
    assert p.returncode == 5 and "does not hold the key pinned for it" in p.stderr, p.stderr
    p = run_cli("run", "--server", f"{url}@{curve.key_hex(b.public)}", "--", "true", env=env)
    assert p.returncode == 5 and "is pinned as" in p.stderr and "delete that line" in p.stderr, p.stderr
    p = run_cli("env", "--server", url, env=env)
    assert p.returncode == 5 and "does not hold the key pinned for it" in p.stderr, p.stderr


# ---- across hosts: a stranger on the path between the CPU host and a direct-mode GPU host ----------
@pytest.fixture(scope="module")
def direct_bed(tmp_path_factory):
    with testbed.for_test(record=True) as bed, DaemonSet() as daemons:
        yield bed, BedPool(bed, daemons, tmp_path_factory.mktemp("direct"), controller=False)


def _links_of(bed, before: set, port: int) -> dict[str, bytes]:
    """What the relay carried since ``before`` to the server's ``port`` and to its session workers."""
    lo, hi = testbed.WORKER_PORTS
    out = {}
    for name, data in bed.recorded().items():
        m = re.search(r"-([0-9]+)\.(up|down)$", name)
        if name not in before and m and (int(m.group(1)) == port or lo <= int(m.group(1)) <= hi):
            out[name] = data
    return out


@pytest.mark.e2e
@pytest.mark.sim_only("the bed's GPU hosts serve software GPUs")
def test_a_stranger_sniffing_the_direct_wire_sees_no_plaintext(direct_bed, cuda_program):
    bed, pool = direct_bed
    url = pool.add_server("gpu1", 7403, pool=False)                  # no option: the default wire
    assert "@" in url and PASTE.search(pool.log(url)), pool.log(url)
    before = set(bed.recorded())
    p = pool.cli("run", "--server", url, "--", str(cuda_program("copy_roundtrip")), "4")
    assert p.returncode == 0 and "OK copy_roundtrip 4 MiB" in p.stdout, p.stdout + p.stderr
    seen = _links_of(bed, before, 7403)
    assert seen and any(name.endswith("-7403.up") for name in seen), sorted(seen)
    assert sum(map(len, seen.values())) > 8 << 20        # the copy's bytes crossed what was watched
    # The copy's data went on the session's bulk channel (server/bulk.py): a ZeroMQ connection of the
    # PLAIN mechanism whose frames are sealed with AEGIS-256 under a key told over CURVE. Every other
    # connection is CURVE; none carries the program's bytes in the clear.
    # (HELLO_FIELDS are a few bytes long each: the ciphertext of 8 MiB holds any 3 bytes)
    bulk = testbed.sealed_links(seen, [*HELLO_FIELDS, testbed.copy_roundtrip_bytes()])
    # the 4 MiB each way went there
    bulk_bytes = sum(len(data) for name, data in seen.items() if name.rsplit(".", 1)[0] in bulk)
    assert bulk_bytes > 7 << 20, sorted((n, len(d)) for n, d in seen.items())


@pytest.mark.e2e
@pytest.mark.sim_only("the bed's GPU hosts serve software GPUs")
def test_a_plain_wire_is_there_on_request_with_a_warning_at_both_ends(direct_bed, cuda_program):
    bed, pool = direct_bed
    url = pool.add_server("gpu2", 7404, "--wire", "plain", pool=False)
    assert "@" not in url and "warning: --wire plain" in pool.log(url), pool.log(url)
    before = set(bed.recorded())
    p = pool.cli("run", "--server", url, "--", str(cuda_program("copy_roundtrip")), "4")
    assert p.returncode == 0 and "OK copy_roundtrip 4 MiB" in p.stdout, p.stdout + p.stderr
    assert "is a plain wire" in p.stderr, p.stderr
    # the same observer reads this one: what the default wire hides
    seen = b"".join(_links_of(bed, before, 7404).values())
    assert all(field in seen for field in HELLO_FIELDS)
    assert testbed.copy_roundtrip_bytes() in seen         # and the program's data


def test_an_encrypted_server_given_without_its_key_is_refused_saying_what_to_give(direct_bed):
    bed, pool = direct_bed
    url = pool.add_server("gpu2", 7405, pool=False)
    bare = url.split("@", 1)[0]
    p = pool.cli("run", "--server", bare, "--", "true")
    assert p.returncode == 5 and "speaks an encrypted wire" in p.stderr and "@KEY" in p.stderr, p.stderr
