"""The test bed's wide-area link (tests/support/testbed.py): a TCP relay that holds every chunk it
passes for half the round trip in each direction, because this kernel has no netem qdisc to delay
packets. It runs inside the bed's `wan` namespace, listens on a front address per host behind it
(the address the CPU host reaches that host by) and on a list of ports, and forwards each connection
to the same port of the host's own address. Order is kept (one queue per direction) and so is the
bandwidth: reading goes on while earlier chunks wait, so a stream is delayed, not throttled.

    python -m tests.support.delay_relay --control SOCK --rtt-ms 10 \\
        --front 10.231.1.11=10.231.2.11 --ports 7400-7409,42000-42199 [--record DIR]

The control socket (a Unix socket path, reachable from any namespace) takes one line, answers one
JSON line:
    ping                    -> {"ok": true}
    rtt MS                  -> the round trip added from now on (0 adds none)
    links                   -> [{"id", "client", "front", "port", "up", "down"}], live connections
    cut ID...               -> resets those connections at both ends (RST), as a link that fails
    silence ID...           -> those connections stop passing anything, both ways, with no RST and no
                               FIN, and nothing of them is acknowledged any more, as with a host that
                               froze, lost its power or was cut off: their packets are dropped at this
                               relay's host (iptables, in its namespace) and the relay reads nothing
                               more from them. A cut lifts the drop first, so its RSTs arrive
--record DIR writes the first bytes of each connection, each way, to DIR/ID-FRONT-PORT.up and .down
(what an observer on the path sees)."""
from __future__ import annotations

import argparse
import collections
import ctypes
import json
import os
import selectors
import shutil
import socket
import struct
import subprocess
import threading
import time

CHUNK = 256 << 10
RECORD_LIMIT = 4 << 20
SHORT_HOLD_S = 100e-6


def _fine_timers() -> None:
    """Sleeps of tens of microseconds: the default timer slack (50 us) would add to every hold."""
    try:
        ctypes.CDLL(None, use_errno=True).prctl(29, 1, 0, 0, 0)  # PR_SET_TIMERSLACK, 1 ns
    except (OSError, AttributeError):
        pass


def _drop_rules(sock: socket.socket) -> list[list[str]]:
    """iptables rules (chain and match) that drop every packet of `sock`'s connection, in and out,
    at this host: its kernel then acknowledges nothing, as a host that lost its power."""
    (here, here_port), (there, there_port) = sock.getsockname(), sock.getpeername()
    tcp = ["-p", "tcp"]
    return [["INPUT", *tcp, "-s", there, "--sport", str(there_port), "-d", here, "--dport", str(here_port)],
            ["OUTPUT", *tcp, "-s", here, "--sport", str(here_port), "-d", there, "--dport", str(there_port)]]


def _iptables(verb: str, rule: list[str]) -> None:
    tool = shutil.which("iptables") or "/usr/sbin/iptables"
    if not os.path.exists(tool):
        raise RuntimeError("`silence` needs iptables (scripts/setup.sh installs it)")
    got = subprocess.run([tool, "-w", verb, *rule, "-j", "DROP"], capture_output=True, text=True, timeout=30)
    if got.returncode:
        raise RuntimeError(f"iptables {verb} {' '.join(rule)}: {got.stderr.strip()}")


def _reset(sock: socket.socket) -> None:
    """Close with an RST (SO_LINGER 0), as a link that fails does. The shutdown of the reading side
    first wakes this relay's reader blocked on the socket (which holds it open: a bare close would
    neither wake it nor send the RST) and sends nothing; a shutdown of the writing side would send a
    FIN, an orderly end, before the RST."""
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
        sock.shutdown(socket.SHUT_RD)
    except OSError:
        pass
    sock.close()


class Pipe:
    """One direction of a connection: a reader that stamps each chunk with the time it is due, and a
    writer that sends it then, in order."""

    def __init__(self, link: Link, src: socket.socket, dst: socket.socket, way: str):
        self.link, self.src, self.dst, self.way = link, src, dst, way
        self.queue: collections.deque = collections.deque()
        self.ready = threading.Condition()
        self.bytes = 0
        self.sending = False  # the writer holds a chunk it has not sent yet
        self.record = None
        if link.relay.record_dir:
            self.record = open(os.path.join(link.relay.record_dir, f"{link.id}-{link.front}-{link.port}.{way}"), "wb")

    def start(self) -> None:
        threading.Thread(target=self._read, daemon=True).start()
        threading.Thread(target=self._write, daemon=True).start()

    def end(self) -> None:
        """The link ended: a writer waiting for data ends too."""
        with self.ready:
            self.queue.append((0.0, None))
            self.ready.notify()
        if self.record is not None:
            self.record.close()

    def _read(self) -> None:
        while True:
            try:
                data = self.src.recv(CHUNK)
            except OSError:
                data = None
            # silent: this chunk is held here and nothing more is read, so the sender's window closes
            self.link.wait_unless_silent()
            if self.link.closed:  # woken by a cut, not an orderly end: pass no FIN on
                data = None
            hold = self.link.relay.rtt_s / 2
            due = time.monotonic() + hold
            with self.ready:
                # a short hold with nothing ahead: wait it out here and send, sparing the hand-over to
                # the writer thread, which costs more than the hold itself
                direct = data and hold <= SHORT_HOLD_S and not self.queue and not self.sending
                if direct:
                    while time.monotonic() < due:
                        pass
                    try:
                        self.dst.sendall(data)
                    except OSError:
                        direct = False
                        data = None
                if not direct:
                    self.queue.append((due, data))
                    self.ready.notify()
            if not data:
                return
            self.bytes += len(data)
            try:
                if self.record is not None and self.record.tell() < RECORD_LIMIT:
                    self.record.write(data[:RECORD_LIMIT - self.record.tell()])
                    self.record.flush()
            except ValueError:  # closed with the link meanwhile
                pass

    def _write(self) -> None:
        while True:
            with self.ready:
                self.sending = False
                while not self.queue:
                    self.ready.wait()
                due, data = self.queue.popleft()
                self.sending = True
            wait = due - time.monotonic()
            if wait > 0:
                time.sleep(wait)
            if data is not None:
                self.link.wait_unless_silent()
            if data is None:  # the reader failed (reset or cut): the link is gone both ways
                self.link.close()
                return
            try:
                if data:
                    self.dst.sendall(data)
                else:  # an orderly end: pass the FIN on, the other way may still flow
                    self.dst.shutdown(socket.SHUT_WR)
                    self.link.half_closed()
                    return
            except OSError:
                self.link.close()
                return


class Link:
    def __init__(self, relay: Relay, lid: int, client: socket.socket, upstream: socket.socket,
                 peer: tuple, front: str, port: int):
        self.relay, self.id, self.client, self.upstream = relay, lid, client, upstream
        self.peer, self.front, self.port = peer, front, port
        self.closed, self.ends = False, 0
        self.silent = False  # `silence`: nothing passes any more, and nothing tells either end
        self.dropped: list[list[str]] = []  # the iptables rules that silence it, lifted at its end
        self.lock = threading.Lock()
        self.up = Pipe(self, client, upstream, "up")
        self.down = Pipe(self, upstream, client, "down")
        self.up.start()
        self.down.start()

    def describe(self) -> dict:
        return {"id": self.id, "client": f"{self.peer[0]}:{self.peer[1]}", "front": self.front,
                "port": self.port, "up": self.up.bytes, "down": self.down.bytes}

    def silence(self) -> None:
        rules = [r for s in (self.client, self.upstream) for r in _drop_rules(s)]
        for rule in rules:
            _iptables("-I", rule)
            self.dropped.append(rule)
        self.silent = True

    def lift_drop(self) -> None:
        while self.dropped:
            _iptables("-D", self.dropped.pop())

    def wait_unless_silent(self) -> None:
        """Holds the calling reader or writer while the link is silent (until it is cut or closed):
        what a frozen host's link does, where nothing is read, delivered or refused."""
        while self.silent and not self.closed:
            time.sleep(0.05)

    def half_closed(self) -> None:
        with self.lock:
            self.ends += 1
            done = self.ends == 2
        if done:
            self.close(orderly=True)

    def close(self, orderly: bool = False) -> None:
        """End the link: after both ways ended in order, a plain close (the data still in flight is
        delivered); otherwise (a cut, a reset, an error) an RST to both ends."""
        with self.lock:
            if self.closed:
                return
            self.closed = True
        try:
            self.lift_drop()  # a cut's RSTs, like any end of a silent link, reach both ends
        except RuntimeError as e:
            print(f"link {self.id}: {e}", flush=True)  # relay.log
        for s in (self.client, self.upstream):
            if orderly:
                s.close()
            else:
                _reset(s)
        for pipe in (self.up, self.down):
            # in a thread of its own: a reader that was in the middle of a direct send when the link
            # went silent holds the pipe's lock until that send fails (a retransmission meets the RST),
            # and the command that cut the link must answer now
            threading.Thread(target=pipe.end, daemon=True).start()
        self.relay.forget(self)


class Relay:
    def __init__(self, fronts: dict[str, str], ports: list[int], rtt_ms: float, record_dir: str | None):
        self.fronts, self.ports = fronts, ports
        self.rtt_s = rtt_ms / 1000
        self.record_dir = record_dir
        self.links: dict[int, Link] = {}
        self.lock = threading.Lock()
        self.next_id = 0
        self.sel = selectors.DefaultSelector()
        for front in fronts:
            for port in ports:
                s = socket.socket()
                s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
                s.bind((front, port))
                s.listen(64)
                s.setblocking(False)
                self.sel.register(s, selectors.EVENT_READ, (front, port))

    def serve(self) -> None:
        while True:
            for key, _ in self.sel.select():
                front, port = key.data
                try:
                    client, peer = key.fileobj.accept()
                except BlockingIOError:
                    continue
                client.setblocking(True)
                try:
                    upstream = socket.create_connection((self.fronts[front], port), timeout=5)
                except OSError:  # nothing listens behind: refuse as the host itself would
                    _reset(client)
                    continue
                upstream.settimeout(None)
                for s in (client, upstream):
                    s.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
                with self.lock:
                    self.next_id += 1
                    lid = self.next_id
                    self.links[lid] = Link(self, lid, client, upstream, peer, front, port)

    def forget(self, link: Link) -> None:
        with self.lock:
            self.links.pop(link.id, None)

    def _live(self, ids) -> list[Link]:
        """The live links of those ids (the others ended already)."""
        with self.lock:
            return [self.links[int(a)] for a in ids if int(a) in self.links]

    def command(self, line: str):
        word, *args = line.split()
        if word == "ping":
            return {"ok": True}
        if word == "rtt":
            self.rtt_s = float(args[0]) / 1000
            return {"ok": True, "rtt_ms": self.rtt_s * 1000}
        if word == "links":
            with self.lock:
                return [link.describe() for link in self.links.values()]
        if word == "cut":
            victims = self._live(args)
            for link in victims:
                link.close()
            return {"ok": True, "cut": [link.id for link in victims]}
        if word == "silence":
            victims = self._live(args)
            for link in victims:
                link.silence()
            return {"ok": True, "silenced": [link.id for link in victims]}
        return {"ok": False, "error": f"unknown command {word!r}"}

    def control(self, path: str) -> None:
        srv = socket.socket(socket.AF_UNIX)
        if os.path.exists(path):
            os.unlink(path)
        srv.bind(path)
        srv.listen(8)
        while True:
            conn, _ = srv.accept()
            with conn:
                line = conn.makefile().readline()
                try:
                    reply = self.command(line)
                except (ValueError, IndexError, RuntimeError, OSError) as e:
                    reply = {"ok": False, "error": str(e)}
                conn.sendall(json.dumps(reply).encode() + b"\n")


def ask(path: str, line: str, timeout_s: float = 5.0):
    """One command to a relay's control socket; its JSON answer."""
    with socket.socket(socket.AF_UNIX) as s:
        s.settimeout(timeout_s)
        s.connect(path)
        s.sendall(line.encode() + b"\n")
        return json.loads(s.makefile().readline())


def parse_ports(text: str) -> list[int]:
    ports = []
    for part in text.split(","):
        lo, _, hi = part.partition("-")
        ports += range(int(lo), int(hi or lo) + 1)
    return ports


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--control", required=True)
    ap.add_argument("--rtt-ms", type=float, default=0.0)
    ap.add_argument("--front", action="append", required=True, help="FRONT_ADDR=HOST_ADDR")
    ap.add_argument("--ports", required=True, help="e.g. 7400-7409,42000-42199")
    ap.add_argument("--record", default=None)
    a = ap.parse_args()
    _fine_timers()
    fronts = dict(f.split("=", 1) for f in a.front)
    relay = Relay(fronts, parse_ports(a.ports), a.rtt_ms, a.record)
    threading.Thread(target=relay.serve, daemon=True).start()
    relay.control(a.control)


if __name__ == "__main__":
    main()
