"""The test bed itself (tests/support/testbed.py, delay_relay.py): hosts that are apart as machines are,
a relay that passes every byte in order under a delay and cuts or silences a connection when told,
caps set and lifted, and beds of dead runs swept."""
from __future__ import annotations

import json
import subprocess
import sys

import pytest

from tests.support import testbed
from tests.support.bedpool import ROOT
from tests.support.daemons import wait_until

# a host's side of a byte-for-byte check through the relay: an echo server, and a client that sends
# random bytes and compares what comes back
ECHO = """
import socket, sys
s = socket.socket(); s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind(("0.0.0.0", int(sys.argv[1]))); s.listen(4); print("ready", flush=True)
while True:
    c, _ = s.accept()
    while (d := c.recv(1 << 16)):
        c.sendall(d)
    c.close()
"""
CLIENT = """
import hashlib, os, socket, sys, threading
data = os.urandom(int(sys.argv[3]))
s = socket.create_connection((sys.argv[1], int(sys.argv[2])))
t = threading.Thread(target=lambda: (s.sendall(data), s.shutdown(socket.SHUT_WR)))
t.start()
got = bytearray()
while (d := s.recv(1 << 16)):
    got += d
t.join()
print(hashlib.sha256(data).hexdigest() == hashlib.sha256(got).hexdigest(), len(got))
"""


@pytest.fixture(scope="module")
def bed():
    with testbed.for_test() as b:
        yield b


def on(bed, host, *argv, **kw):
    return bed.exec(host, [sys.executable, *argv], **kw)


def test_hosts_are_apart(bed):
    facts = {h: on(bed, h, "-c", "import socket; print(socket.gethostname(), open('/proc/sys/kernel/random/boot_id')"
                                 ".read().strip(), open('/sys/class/net/eth0/mtu').read().strip())").stdout.split()
             for h in testbed.HOSTS}
    assert {h: f[0] for h, f in facts.items()} == {h: f"bed-{h}" for h in testbed.HOSTS}
    assert len({f[1] for f in facts.values()}) == len(testbed.HOSTS), "each host its own boot id"
    assert {f[2] for f in facts.values()} == {"1500"}
    # a shared-memory segment made on one host is not on another
    made = on(bed, "cpu", "-c", "import os; open('/dev/shm/rgpu-bed-probe', 'w').write('x'); "
                                "print(os.path.exists('/dev/shm/rgpu-bed-probe'))")
    assert made.stdout.strip() == "True", made.stderr
    assert on(bed, "gpu1", "-c", "import os; print(os.path.exists('/dev/shm/rgpu-bed-probe'))").stdout.strip() == "False"
    # the CPU host reaches the others only through the relay's fronts: their own addresses are not routed
    direct = on(bed, "cpu", "-c", f"import socket; socket.create_connection(('{testbed.LAN['gpu1']}', 7400), timeout=3)")
    assert direct.returncode != 0 and "unreachable" in direct.stderr, direct.stderr


def test_the_relay_passes_every_byte_in_order_under_a_delay_and_cuts_when_told(bed):
    echo = bed.popen("gpu1", [sys.executable, "-c", ECHO, "7410"], stdout=subprocess.PIPE, text=True)
    try:
        assert echo.stdout.readline().strip() == "ready"
        bed.rtt(5)
        p = on(bed, "cpu", "-c", CLIENT, bed.front("gpu1"), "7410", str(8 << 20))
        assert p.stdout.split() == ["True", str(8 << 20)], p.stdout + p.stderr
        # a held connection, then cut: the client's next receive fails as a reset link does
        held = bed.popen("cpu", [sys.executable, "-c", f"import socket; s = socket.create_connection(('{bed.front('gpu1')}', 7410)); "
                                 "s.sendall(b'x'); s.recv(1); print('up', flush=True); s.recv(1)"],
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        assert held.stdout.readline().strip() == "up"
        [link] = wait_until(lambda: [x for x in bed.links() if x["port"] == 7410], 10, "the held link")
        assert link["front"] == bed.front("gpu1") and link["client"].startswith(testbed.CPU + ":")
        assert bed.cut([link["id"]]) == [link["id"]]
        out, err = held.communicate(timeout=30)
        assert held.returncode != 0 and "ConnectionResetError" in err, err
        assert wait_until(lambda: not [x for x in bed.links() if x["port"] == 7410], 10, "the link gone")
    finally:
        bed.rtt(0)
        echo.kill()
        echo.wait(10)


# the CPU host's side of the silence check: a round trip through the echo, then, once told (a line on
# stdin), bytes written without a reader until a write is not taken within 2 s; what it saw, as JSON
SILENT_CLIENT = """
import json, socket, sys
from rgpu.server.liveness import tcp_state
s = socket.create_connection((sys.argv[1], int(sys.argv[2])))
s.sendall(b"x"); assert s.recv(1) == b"x"
print("up", flush=True)
sys.stdin.readline()
s.settimeout(2.0)
sent, blocked = 0, False
try:
    while sent < (1 << 30):
        sent += s.send(b"y" * (1 << 16))
except TimeoutError:
    blocked = True
state = tcp_state(s.fileno())  # what the worker reads of its client's connection
unacked, last_ack_s = state.unacked, state.since_ack
s.settimeout(3.0)
try:
    got = s.recv(1 << 16)
    heard = "eof" if got == b"" else "data"
except TimeoutError:
    heard = "nothing"
except ConnectionResetError:
    heard = "reset"
print(json.dumps({"sent": sent, "blocked": blocked, "heard": heard, "unacked": unacked,
                  "last_ack_s": last_ack_s}), flush=True)
sys.stdin.readline()
try:
    s.settimeout(10.0)
    s.recv(1)
    print("after the cut: no reset", flush=True)
except ConnectionResetError:
    print("after the cut: reset", flush=True)
"""


def test_a_silenced_link_passes_nothing_and_tells_no_one_until_it_is_cut(bed):
    """`silence`, a host that froze or lost its power: nothing of the link is acknowledged any more
    (its packets are dropped at the relay's host), so the sender's writes stop being taken once its
    own buffer is full and stay unacknowledged, nothing comes back, and neither end sees an end (no
    FIN, no RST) until the link is cut."""
    echo = bed.popen("gpu1", [sys.executable, "-c", ECHO, "7411"], stdout=subprocess.PIPE, text=True)
    client = None
    try:
        assert echo.stdout.readline().strip() == "ready"
        client = bed.popen("cpu", [sys.executable, "-c", SILENT_CLIENT, bed.front("gpu1"), "7411"],
                           stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        assert client.stdout.readline().strip() == "up", client.stderr.read()
        [link] = wait_until(lambda: [x for x in bed.links() if x["port"] == 7411], 10, "the link")
        assert bed.silence([link["id"]]) == [link["id"]]
        client.stdin.write("go\n")
        client.stdin.flush()
        seen = json.loads(client.stdout.readline())
        # taken: what the sender's and the relay's socket buffers hold, far below the 1 GiB offered
        assert seen["blocked"] and seen["sent"] < (256 << 20) and seen["heard"] == "nothing", seen
        # no acknowledgement for the 2 s of blocked writes: not a window closed by a live reader's
        # host, which would still acknowledge all of it
        assert seen["unacked"] > 0 and seen["last_ack_s"] >= 1.5, seen
        [now] = [x for x in bed.links() if x["id"] == link["id"]]
        assert now["up"] - link["up"] <= 256 << 10, (link, now)  # at most the chunk being read when silenced
        assert bed.cut([link["id"]]) == [link["id"]]
        client.stdin.write("cut\n")
        client.stdin.flush()
        assert client.stdout.readline().strip() == "after the cut: reset"
    finally:
        for proc in (client, echo):
            if proc is not None:
                proc.kill()
                proc.wait(10)


# a host's side of the congestion control check: a server that says which its accepted connection uses
CC_SERVER = """
import socket, sys
s = socket.socket(); s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind(("0.0.0.0", int(sys.argv[1]))); s.listen(4); print("ready", flush=True)
held = []
while True:
    c, _ = s.accept()
    print(c.getsockopt(socket.IPPROTO_TCP, socket.TCP_CONGESTION, 16).rstrip(b"\\0").decode(), flush=True)
    held.append(c)  # open while the test looks at the relay's sockets
"""
CC_CLIENT = ("import socket, sys; s = socket.create_connection((sys.argv[1], int(sys.argv[2]))); "
             "print(s.getsockopt(socket.IPPROTO_TCP, socket.TCP_CONGESTION, 16).rstrip(b'\\0').decode(), flush=True); "
             "sys.stdin.readline()")


def test_every_connection_across_the_bed_uses_the_beds_congestion_control(bed):
    """Both ends of a connection through the relay, the relay's own two, and a connection on the routed
    path without it use RGPU_BED_CC's congestion control (cubic unless told), whatever the machine's
    default is (this VM's: bbr, whose stalls after bulk transfers made --failover's windows slow)."""
    server = bed.popen("gpu1", [sys.executable, "-c", CC_SERVER, "7411"], stdout=subprocess.PIPE, text=True)
    held = []
    try:
        assert server.stdout.readline().strip() == "ready"
        for to in (bed.front("gpu1"), testbed.LAN["gpu1"]):
            if to == testbed.LAN["gpu1"]:
                bed.routed(True)
            client = bed.popen("cpu", [sys.executable, "-c", CC_CLIENT, to, "7411"], stdin=subprocess.PIPE,
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
            held.append(client)
            assert (client.stdout.readline().strip(), server.stdout.readline().strip()) == \
                (testbed.CONGESTION, testbed.CONGESTION), client.stderr.read() if client.poll() is not None else ""
        # the relay's sockets: its side of the CPU host's connection and its own to gpu1
        relay = [line for line in bed.exec("wan", ["ss", "-tinH", "state", "established"]).stdout.splitlines()
                 if "rtt:" in line]
        assert len(relay) >= 2 and all(f" {testbed.CONGESTION} " in f" {line} " for line in relay), relay
    finally:
        bed.routed(False)
        for p in held:
            p.kill()
            p.wait(10)
        server.kill()
        server.wait(10)


def test_a_cap_is_set_on_both_ends_of_the_cpu_link_and_lifted(bed):
    def qdiscs():
        return [subprocess.run(["ip", "netns", "exec", bed.ns(h), "tc", "qdisc", "show", "dev", dev],
                               capture_output=True, text=True).stdout for h, dev in (("cpu", "eth0"), ("wan", "cpu"))]
    bed.cap("1gbit")
    try:
        assert all("tbf" in q and "rate 1Gbit" in q for q in qdiscs()), qdiscs()
    finally:
        bed.cap(None)
    assert not any("tbf" in q for q in qdiscs()), qdiscs()


def test_a_bed_whose_maker_died_is_swept_and_down_removes_everything(bed):
    # a process makes a bed and dies without removing it (a killed test run): its relay runs on in it
    maker = subprocess.run([sys.executable, "-c", "import os; from tests.support.testbed import Testbed; "
                            "b = Testbed().up(); print(b.name, flush=True); os._exit(0)"],
                           capture_output=True, text=True, timeout=120, cwd=ROOT)
    assert maker.returncode == 0, maker.stderr
    stale = testbed.Testbed(maker.stdout.strip())
    # the next sweep removes it, whichever process sweeps first (a parallel worker's bed may)
    testbed.sweep()
    assert not [ns for ns in testbed.namespaces() if ns.startswith(stale.prefix + "-")] and not stale.dir.exists()
    # this run's own bed is not touched by a sweep, and `down` leaves nothing of a bed
    assert len([ns for ns in testbed.namespaces() if ns.startswith(bed.prefix + "-")]) == 6
    assert isinstance(bed.links(), list), "this bed's relay still answers"
    other = testbed.Testbed(f"{bed.name}x")
    other.up()
    other.down()
    assert not [ns for ns in testbed.namespaces() if ns.startswith(other.prefix + "-")] and not other.dir.exists()
