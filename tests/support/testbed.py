"""A test bed of hosts on one machine: network namespaces joined by veth pairs, so that rgpu's client,
servers and controller talk TCP across real interfaces (MTU 1500) as they do between machines.

    cpu 10.231.1.2 ──veth── wan (the relay) ──veth── lan bridge ── head  10.231.2.2  (controller)
                            10.231.1.1                           ├─ gpu1 10.231.2.11 (server)
                            fronts: .10 head, .11 gpu1, .12 gpu2 └─ gpu2 10.231.2.12 (server)
                            10.231.2.1

The CPU host reaches the others only through the relay in `wan` (tests/support/delay_relay.py),
which listens on a front address per host and adds the round trip it is told (this kernel has no
netem). Every host, the GPU hosts too, names the others by their front address (`Testbed.front`),
so every link between hosts crosses the relay, where a test can delay, observe or cut it;
`routed(True)` opens the plain routed path to the hosts' own addresses too (a benchmark's path of
veth pairs alone). Bandwidth caps are tbf qdiscs on both ends of the CPU host's veth pair.

Each process of a host runs through `ip netns exec` with the host's own host name (a UTS namespace),
and its own /dev/shm and boot id bound over the machine's: the same-host shared-memory paths then
find what they would find on another machine (another boot, none of the client's segments), not
this machine's.

Names carry the pid of the process that made the bed (`rgbed-p<PID>-<host>`), so parallel test
workers never meet, and a bed whose maker died is swept by the next one. Only addresses inside these
namespaces are used; nothing reaches any other network.

    python -m tests.support.testbed up|down|status [--name NAME]     (scripts/testbed.sh)"""
from __future__ import annotations

import argparse
import contextlib
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import uuid
from pathlib import Path

from tests.support.delay_relay import ask

PREFIX = "rgbed-"
HOSTS = ("head", "gpu1", "gpu2", "cpu")
LAN = {"head": "10.231.2.2", "gpu1": "10.231.2.11", "gpu2": "10.231.2.12"}
FRONT = {"head": "10.231.1.10", "gpu1": "10.231.1.11", "gpu2": "10.231.1.12"}
CPU, WAN_CPU_SIDE, WAN_LAN_SIDE = "10.231.1.2", "10.231.1.1", "10.231.2.1"
# Ports the relay carries: daemons' listening ports, and the GPU hosts' ephemeral range, from which
# session workers bind (their ports are the system's choice) — kept small so the relay can listen on
# each of them.
SERVICE_PORTS = (7400, 7419)
WORKER_PORTS = (42000, 42149)
CONTROLLER_PORT = 7400
# Every route's TCP congestion control (Testbed._congestion), set rather than taken from the machine (a
# namespace starts with the one its maker had): Linux's own default, cubic, unless RGPU_BED_CC names
# another. With BBR (this project's VM's default) a link that has carried a bulk transfer (a --failover session's
# checkpoint image) stalled a later step's 131 KB reply for 16-20 ms at a time, half of it delivered at
# once and the rest that much later with every process idle: at the relay's 0.05 ms the mean step of
# such a program was 1.2-2x the other's, 1.00-1.01x with cubic (benchmarks/results/failover-log-deltas-2026-12-02.md).
CONGESTION = os.environ.get("RGPU_BED_CC", "cubic")
_OWNED = re.compile(rf"^{PREFIX}p(\d+)-")


class Missing(RuntimeError):
    """What this machine lacks for a bed (the reason a test skips)."""


def missing() -> str | None:
    """Why no bed can be made here, or None."""
    if os.geteuid() != 0:
        return "the test bed needs root (network namespaces)"
    for tool, package in (("ip", "iproute2"), ("tc", "iproute2"), ("mount", "mount"), ("unshare", "util-linux"),
                          ("hostname", "hostname")):
        if shutil.which(tool) is None:
            return f"the test bed needs `{tool}` ({package})"
    # root in a container without CAP_SYS_ADMIN and CAP_NET_ADMIN (docker without --privileged) is
    # still root, but cannot make namespaces: try one
    probe = f"{PREFIX}p{os.getpid()}-probe"
    made = _sh("ip", "netns", "add", probe, check=False)
    _sh("ip", "netns", "del", probe, check=False)
    if made.returncode != 0:
        return f"cannot make network namespaces here ({made.stderr.strip()}): a privileged container or a host is needed"
    return None


def _sh(*argv: str, check: bool = True, timeout: float = 30) -> subprocess.CompletedProcess:
    p = subprocess.run(argv, capture_output=True, text=True, timeout=timeout)
    if check and p.returncode != 0:
        raise RuntimeError(f"{' '.join(argv)} failed ({p.returncode}): {p.stderr.strip()}")
    return p


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def namespaces() -> list[str]:
    out = _sh("ip", "netns", "list", check=False).stdout
    return [line.split()[0] for line in out.splitlines() if line.startswith(PREFIX)]


def _remove(names: list[str]) -> None:
    """Delete namespaces, ending first what still runs in them (processes a bed started)."""
    for ns in names:
        pids = _sh("ip", "netns", "pids", ns, check=False).stdout.split()
        for pid in pids:
            try:
                os.kill(int(pid), signal.SIGKILL)
            except (ProcessLookupError, ValueError):
                pass
        _sh("ip", "netns", "del", ns, check=False)


def sweep() -> list[str]:
    """Remove the beds of processes that are gone (a run killed before its teardown)."""
    stale = [ns for ns in namespaces() if (m := _OWNED.match(ns)) and not _alive(int(m.group(1)))]
    _remove(stale)
    for d in Path(tempfile.gettempdir()).glob(f"{PREFIX}p*"):
        m = _OWNED.match(d.name + "-")
        if m and not _alive(int(m.group(1))):
            shutil.rmtree(d, ignore_errors=True)
    return stale


class Testbed:
    """One bed: `up()` makes it (or `with Testbed() as bed:`), `down()` removes it and what runs in it."""
    __test__ = False  # a helper, not a test class, wherever a test module imports it

    def __init__(self, name: str | None = None):
        self.name = name or f"p{os.getpid()}"
        self.prefix = f"{PREFIX}{self.name}"
        self.dir = Path(tempfile.gettempdir()) / self.prefix
        self.relay_proc: subprocess.Popen | None = None
        self.capped: str | None = None

    # names and addresses
    def ns(self, host: str) -> str:
        return f"{self.prefix}-{host}"

    @staticmethod
    def front(host: str) -> str:
        """The address every other host reaches `host` by (through the relay)."""
        return FRONT[host]

    @staticmethod
    def url(host: str, port: int) -> str:
        return f"tcp://{FRONT[host]}:{port}"

    @property
    def controller_url(self) -> str:
        return self.url("head", CONTROLLER_PORT)

    @property
    def control(self) -> str:
        return str(self.dir / "relay.sock")

    # making and removing
    def up(self, rtt_ms: float = 0.0, record: bool = False) -> Testbed:
        why = missing()
        if why:
            raise Missing(why)
        sweep()
        if any(ns.startswith(self.prefix + "-") for ns in namespaces()):
            raise RuntimeError(f"a bed named {self.name} exists: `scripts/testbed.sh down` first")
        try:
            self._make(rtt_ms, record)
        except BaseException:
            self.down()
            raise
        return self

    def _make(self, rtt_ms: float, record: bool) -> None:
        self.dir.mkdir(parents=True, exist_ok=True)
        for host in (*HOSTS, "wan", "lan"):
            _sh("ip", "netns", "add", self.ns(host))
            self._ip(host, "link", "set", "lo", "up")
            (self.dir / host / "shm").mkdir(parents=True, exist_ok=True)
            (self.dir / host / "boot_id").write_text(str(uuid.uuid4()) + "\n")
        self._ip("lan", "link", "add", "name", "br0", "type", "bridge")
        self._ip("lan", "link", "set", "br0", "up")
        # cpu <-> wan: one veth pair, the link that is capped
        self._veth("cpu", "eth0", "wan", "cpu")
        self._addr("cpu", "eth0", f"{CPU}/24")
        self._addr("wan", "cpu", f"{WAN_CPU_SIDE}/24", *(f"{a}/24" for a in FRONT.values()))
        # no default route: the CPU host reaches the others at their fronts (its own subnet), nothing else
        # wan and the lan hosts on one bridge
        for host, addr in [("wan", WAN_LAN_SIDE), *LAN.items()]:
            inner = "lan" if host == "wan" else "eth0"
            self._veth(host, inner, "lan", host)
            self._ip("lan", "link", "set", host, "master", "br0")
            self._addr(host, inner, f"{addr}/24")
            if host != "wan":
                self._ip(host, "route", "add", "10.231.1.0/24", "via", WAN_LAN_SIDE)
        if not re.fullmatch(r"[a-z0-9_]+", CONGESTION):
            raise RuntimeError(f"RGPU_BED_CC={CONGESTION!r} is not the name of a TCP congestion control")
        for host in (*HOSTS, "wan"):
            self._congestion(host)
        lo, hi = WORKER_PORTS
        for host in ("gpu1", "gpu2"):
            self.exec(host, ["sh", "-c", f"echo '{lo} {hi}' > /proc/sys/net/ipv4/ip_local_port_range"])
        self.start_relay(rtt_ms, record)

    def _ip(self, host: str, *args: str) -> None:
        _sh("ip", "-n", self.ns(host), *args)

    def _congestion(self, host: str) -> None:
        """Every route of `host` names CONGESTION (`congctl`), so each TCP connection across the bed uses
        it whichever side opens it. Per route, not the namespace's default
        (net.ipv4.tcp_congestion_control): outside the first namespace that default may only be one of
        the machine's tcp_allowed_congestion_control, which on some kernels lists bbr and reno alone.
        Run once, on the routes the bed's addresses made (routed() names it on the route it adds)."""
        for route in _sh("ip", "-n", self.ns(host), "-o", "route", "show").stdout.splitlines():
            words = [w for w in route.split() if w not in ("linkdown", "dead", "onlink")]
            got = _sh("ip", "-n", self.ns(host), "route", "change", *words, "congctl", CONGESTION, check=False)
            if got.returncode:
                raise RuntimeError(f"RGPU_BED_CC={CONGESTION}: the routes of {host} cannot use this TCP "
                                   f"congestion control ({got.stderr.strip()})")

    def _veth(self, a: str, a_name: str, b: str, b_name: str) -> None:
        _sh("ip", "link", "add", "name", a_name, "netns", self.ns(a), "mtu", "1500", "type", "veth",
            "peer", "name", b_name, "netns", self.ns(b), "mtu", "1500")
        self._ip(a, "link", "set", a_name, "up")
        self._ip(b, "link", "set", b_name, "up")

    def _addr(self, host: str, dev: str, *addrs: str) -> None:
        for addr in addrs:
            self._ip(host, "addr", "add", addr, "dev", dev)

    def down(self) -> None:
        self.stop_relay()
        _remove([ns for ns in namespaces() if ns.startswith(self.prefix + "-")])
        shutil.rmtree(self.dir, ignore_errors=True)

    def status(self) -> str:
        names = [ns for ns in namespaces() if ns.startswith(self.prefix + "-")]
        if not names:
            return f"bed {self.name}: down"
        lines = [f"bed {self.name}: {len(names)} namespaces"]
        for host in HOSTS:
            addr = FRONT.get(host, CPU)
            lines.append(f"  {host:5} {self.ns(host)}  reached at {addr}")
        try:
            lines.append(f"  relay: {len(ask(self.control, 'links'))} live links")
        except OSError:
            lines.append("  relay: not running")
        return "\n".join(lines)

    # running things on hosts
    def argv(self, host: str, argv: list[str]) -> list[str]:
        """`argv` run on `host`: in its namespace, with its own /dev/shm and boot id."""
        d = self.dir / host
        script = ('hostname "$1" && mount --bind "$2" /dev/shm && mount --bind "$3" /proc/sys/kernel/random/boot_id '
                  '&& shift 3 && exec "$@"')
        return ["ip", "netns", "exec", self.ns(host), "unshare", "--uts", "sh", "-c", script, "sh", f"bed-{host}",
                str(d / "shm"), str(d / "boot_id"), *map(str, argv)]

    def exec(self, host: str, argv: list[str], **kw) -> subprocess.CompletedProcess:
        kw.setdefault("capture_output", True)
        kw.setdefault("text", True)
        kw.setdefault("timeout", 120)
        return subprocess.run(self.argv(host, argv), **kw)

    def popen(self, host: str, argv: list[str], **kw) -> subprocess.Popen:
        return subprocess.Popen(self.argv(host, argv), **kw)

    # the relay
    def start_relay(self, rtt_ms: float = 0.0, record: bool = False) -> None:
        self.stop_relay()
        ports = f"{SERVICE_PORTS[0]}-{SERVICE_PORTS[1]},{WORKER_PORTS[0]}-{WORKER_PORTS[1]}"
        argv = [sys.executable, "-m", "tests.support.delay_relay", "--control", self.control,
                "--rtt-ms", str(rtt_ms), "--ports", ports,
                *(f"--front={FRONT[h]}={LAN[h]}" for h in FRONT)]
        if record:
            (self.dir / "record").mkdir(exist_ok=True)
            argv += ["--record", str(self.dir / "record")]
        root = Path(__file__).resolve().parents[2]
        log = open(self.dir / "relay.log", "ab")
        self.relay_proc = subprocess.Popen(["ip", "netns", "exec", self.ns("wan"), *argv], cwd=root,
                                           stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                                           env={**os.environ, "PYTHONPATH": str(root)})
        log.close()
        deadline = time.monotonic() + 20
        while True:
            try:
                if ask(self.control, "ping")["ok"]:
                    return
            except OSError:
                pass
            if self.relay_proc.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError(f"the relay did not start: {(self.dir / 'relay.log').read_text()[-2000:]}")
            time.sleep(0.05)

    def stop_relay(self) -> None:
        if self.relay_proc is not None and self.relay_proc.poll() is None:
            self.relay_proc.kill()
            self.relay_proc.wait(10)
        self.relay_proc = None

    def rtt(self, ms: float) -> None:
        """The round trip the relay adds from now on, between the CPU host and the others."""
        assert ask(self.control, f"rtt {ms}")["ok"]

    def links(self) -> list[dict]:
        return ask(self.control, "links")

    def cut(self, ids) -> list[int]:
        return ask(self.control, "cut " + " ".join(map(str, ids)))["cut"]

    def silence(self, ids) -> list[int]:
        """Those links pass nothing more, both ways, nothing of them is acknowledged, and neither end is
        told (no RST, no FIN): a host that lost its power. `cut` ends them with RSTs."""
        return ask(self.control, "silence " + " ".join(map(str, ids)))["silenced"]

    def recorded(self) -> dict[str, bytes]:
        """What the relay saw of each connection so far (`up`: from the connecting side)."""
        d = self.dir / "record"
        return {p.name: p.read_bytes() for p in sorted(d.iterdir())} if d.is_dir() else {}

    def routed(self, on: bool) -> None:
        """Let the CPU host reach the others' own addresses (`LAN`) through `wan`'s kernel routing, beside
        the relay's fronts: a path of veth pairs alone, with no relay in it (benchmarks/network.py's
        baseline path). Off (the default), the relay is the only way across."""
        self.exec("wan", ["sh", "-c", f"echo {int(on)} > /proc/sys/net/ipv4/ip_forward"], check=True)
        verb = "replace" if on else "del"
        _sh("ip", "-n", self.ns("cpu"), "route", verb, "10.231.2.0/24", "via", WAN_CPU_SIDE,
            *(["congctl", CONGESTION] if on else []), check=on)

    def cap(self, rate: str | None) -> None:
        """Cap the CPU host's link at `rate` (tc syntax: 10gbit) both ways, or lift the cap (None)."""
        for host, dev in (("cpu", "eth0"), ("wan", "cpu")):
            _sh("ip", "netns", "exec", self.ns(host), "tc", "qdisc", "del", "dev", dev, "root", check=False)
            if rate:
                # a bucket of ~1 ms at the rate: bursts a TCP window's worth without exceeding it
                _sh("ip", "netns", "exec", self.ns(host), "tc", "qdisc", "add", "dev", dev, "root", "tbf",
                    "rate", rate, "burst", "2mb", "latency", "50ms")
        self.capped = rate

    def __enter__(self):
        return self.up()

    def __exit__(self, *exc):
        self.down()


@contextlib.contextmanager
def for_test(record: bool = False):
    """A bed up for a test's or a benchmark's fixture, and always down after it; where none can be
    made (not root, no `ip`), the test is skipped with what is missing."""
    why = missing()
    if why:
        import pytest
        pytest.skip(why)
    bed = Testbed()
    bed.up(record=record)
    try:
        yield bed
    finally:
        bed.down()


def copy_roundtrip_bytes(at: int = 1 << 20, n: int = 64) -> bytes:
    """`n` bytes of what tests/cuda/programs/copy_roundtrip.cu copies to the device (its src[i], from
    `at` on): a plaintext that a recording of its wire holds only if the wire is not encrypted."""
    return bytes((i * 2654435761 >> 13) & 0xFF for i in range(at, at + n))


def sealed_links(links: dict[str, bytes], secrets: list[bytes]) -> set[str]:
    """Asserts what an observer of recorded links sees: each connection's greeting (its first 64 bytes
    up) names CURVE, or PLAIN for a session's bulk channel, whose frames are sealed with AEGIS-256
    under a key told over CURVE (server/bulk.py); and no link holds any of `secrets`. Returns the
    bulk channel's connections (link names without .up/.down)."""
    bulk = set()
    for name, data in links.items():
        if name.endswith(".up") and data:
            assert b"CURVE" in data[:64] or b"PLAIN" in data[:64], (name, data[:64])
            if b"PLAIN" in data[:64]:
                bulk.add(name[:-len(".up")])
        for secret in secrets:
            assert secret not in data, (name, secret)
    return bulk


def main() -> None:
    ap = argparse.ArgumentParser(description="The rgpu test bed of hosts on one machine (network namespaces).")
    ap.add_argument("action", choices=("up", "down", "status", "sweep"))
    ap.add_argument("--name", default="bed", help="the bed's name (default: bed)")
    ap.add_argument("--rtt-ms", type=float, default=0.0, help="round trip the relay adds (up)")
    a = ap.parse_args()
    bed = Testbed(a.name)
    # a TERM while making the bed unwinds through up()'s clean-up, as an interrupt does
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    if a.action == "up":
        try:
            bed.up(a.rtt_ms)
        except (Missing, RuntimeError) as e:
            sys.exit(f"testbed: {e}")
        # the relay outlives this command; `down` ends it with the namespaces
        bed.relay_proc = None
        print(bed.status())
    elif a.action == "down":
        bed.down()
        print(f"bed {a.name}: down")
    elif a.action == "status":
        print(bed.status())
    else:
        print("swept:", " ".join(sweep()) or "nothing")


if __name__ == "__main__":
    main()
