"""Real etcd for tests: one member or a three-member cluster on free ports, its data in a tmp dir
(on /dev/shm when there is one: etcd fsyncs every commit, and a tmpfs makes that free), health
polled with a deadline, every member always stopped.

    with EtcdCluster(tmp_path, members=3) as etcd:
        url = etcd.store_url("/rgpu-test")      # etcd://127.0.0.1:P1,127.0.0.1:P2,.../rgpu-test
        etcd.kill(0); etcd.restart(0)
"""
from __future__ import annotations

import json
import shutil
import ssl
import tempfile
import urllib.request
from pathlib import Path

from tests.support.daemons import DaemonSet, free_port

ETCD = shutil.which("etcd") or "/usr/bin/etcd"


def healthy(endpoint: str, pki=None) -> bool:
    """``pki``: the member serves TLS and checks clients (EtcdCluster(tls=...))."""
    scheme, ctx = "http", None
    if pki is not None:
        scheme, ctx = "https", ssl.create_default_context(cafile=str(pki.ca))
        ctx.load_cert_chain(str(pki.client_cert), str(pki.client_key))
    try:
        with urllib.request.urlopen(f"{scheme}://{endpoint}/health", timeout=0.5, context=ctx) as r:
            return json.loads(r.read()).get("health") == "true"
    except (OSError, ValueError):
        return False


class EtcdCluster:
    def __init__(self, tmp_path: Path, members: int = 1, deadline_s: float = 30.0, tmpfs: bool = True,
                 tls=None):
        """``tmpfs=False`` keeps the data on tmp_path's disk (benchmarks: what fsync costs);
        ``tls``: a tests.support.pki.Pki: the client port serves HTTPS with its server certificate
        and asks for a client certificate signed by its CA (--client-cert-auth)."""
        self.members, self.deadline_s, self.tls = members, deadline_s, tls
        shm = Path("/dev/shm")
        self.data = Path(tempfile.mkdtemp(prefix="rgpu-etcd-", dir=shm if tmpfs and shm.is_dir() else tmp_path))
        self.logs = tmp_path
        self.client_ports = [free_port() for _ in range(members)]
        self.peer_ports = [free_port() for _ in range(members)]
        self.names = [f"m{i}" for i in range(members)]
        self.daemons = DaemonSet()
        self.handles: list = [None] * members

    @property
    def endpoints(self) -> list[str]:
        return [f"127.0.0.1:{p}" for p in self.client_ports]

    def store_url(self, prefix: str = "/rgpu") -> str:
        return ("etcds://" if self.tls else "etcd://") + ",".join(self.endpoints) + prefix

    def client_tls(self):
        """The TlsFiles a client of this cluster needs (None: plain HTTP)."""
        from rgpu.controller.etcd import TlsFiles
        return TlsFiles(str(self.tls.ca), str(self.tls.client_cert), str(self.tls.client_key)) if self.tls else None

    def healthy(self, i: int) -> bool:
        return healthy(self.endpoints[i], self.tls)

    def argv(self, i: int) -> list[str]:
        cluster = ",".join(f"{n}=http://127.0.0.1:{p}" for n, p in zip(self.names, self.peer_ports))
        scheme = "https" if self.tls else "http"
        tls = [] if not self.tls else ["--cert-file", str(self.tls.server_cert), "--key-file", str(self.tls.server_key),
                                       "--trusted-ca-file", str(self.tls.ca), "--client-cert-auth"]
        return [ETCD, "--name", self.names[i], "--data-dir", str(self.data / self.names[i]), *tls,
                "--listen-client-urls", f"{scheme}://127.0.0.1:{self.client_ports[i]}",
                "--advertise-client-urls", f"{scheme}://127.0.0.1:{self.client_ports[i]}",
                "--listen-peer-urls", f"http://127.0.0.1:{self.peer_ports[i]}",
                "--initial-advertise-peer-urls", f"http://127.0.0.1:{self.peer_ports[i]}",
                "--initial-cluster", cluster, "--initial-cluster-state", "new",
                "--initial-cluster-token", self.data.name,
                # a 2-core machine shared with the rest of the suite: a slower heartbeat keeps a
                # loaded member from starting needless elections
                "--heartbeat-interval", "100", "--election-timeout", "1000",
                "--log-level", "warn", "--logger", "zap"]

    def _spawn(self, i: int, wait: bool) -> None:
        from tests.support.daemons import start_daemon
        # Members of a new cluster are healthy only once a quorum runs: start them all, then poll.
        ready = (lambda: self.healthy(i)) if wait else (lambda: True)
        handle = start_daemon(self.argv(i), ready, self.deadline_s, log_path=self.logs / f"etcd-{self.names[i]}.log")
        self.daemons.handles.append(handle)
        self.handles[i] = handle

    def start(self) -> "EtcdCluster":
        try:
            for i in range(self.members):
                self._spawn(i, wait=False)
            self.wait_healthy()
        except BaseException:
            self.stop()
            raise
        return self

    def wait_healthy(self, members=None) -> None:
        from tests.support.daemons import wait_until
        for i in (range(self.members) if members is None else members):
            wait_until(lambda: self.healthy(i), self.deadline_s,
                       f"etcd member {self.names[i]} healthy ({self.handles[i].output(800) if self.handles[i] else ''})")

    def kill(self, i: int) -> None:
        """SIGKILL member ``i`` (a crash: nothing flushed beyond what etcd already fsynced)."""
        self.handles[i].kill()

    def restart(self, i: int) -> None:
        """Start member ``i`` again on its data dir and ports (it rejoins the cluster)."""
        argv = self.argv(i)
        argv[argv.index("--initial-cluster-state") + 1] = "existing"
        from tests.support.daemons import start_daemon
        handle = start_daemon(argv, lambda: self.healthy(i), self.deadline_s,
                              log_path=self.logs / f"etcd-{self.names[i]}.log")
        self.daemons.handles.append(handle)
        self.handles[i] = handle

    def stop(self) -> None:
        self.daemons.stop_all()
        shutil.rmtree(self.data, ignore_errors=True)

    def __enter__(self):
        return self.start()

    def __exit__(self, *exc):
        self.stop()


_SHARED: EtcdCluster | None = None


def shared_member() -> EtcdCluster:
    """One etcd member for the whole test process (RGPU_TEST_STORE=etcd runs every controller the
    tests start on it, each under a prefix of its own), stopped when the process exits."""
    global _SHARED
    if _SHARED is None:
        import atexit
        logs = Path(tempfile.mkdtemp(prefix="rgpu-etcd-logs-"))
        _SHARED = EtcdCluster(logs, members=1).start()
        atexit.register(_SHARED.stop)
    return _SHARED
