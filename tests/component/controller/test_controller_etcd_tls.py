"""Replicas on an etcd that serves TLS and checks clients (etcds:// with a CA and a client
certificate, the certificates made by the test): the store works over TLS, two replicas elect one
and serve; a wrong CA, a missing client certificate, TLS files with a plain etcd:// URL, or plain
HTTP against the TLS member each stop the daemon at start with an error that names the fix, and
write nothing to etcd."""
import os
import subprocess
import sys

import pytest

from rgpu.client.controller_client import ControllerClient
from rgpu.controller.store_etcd import EtcdStore
from tests.component.controller.controller_fixtures import ControllerProc, fake_gpus, server_credential
from tests.component.controller.test_controller_replicas import leader_of
from tests.support.daemons import free_port, wait_until
from tests.support.etcd import EtcdCluster
from tests.support.pki import make_pki

GiB = 1 << 30


@pytest.fixture(scope="module")
def tls_etcd(tmp_path_factory):
    d = tmp_path_factory.mktemp("etcd-tls")
    with EtcdCluster(d, members=1, tls=make_pki(d / "pki")) as cluster:
        yield cluster


def tls_args(etcd, **override):
    files = {"--etcd-cacert": etcd.tls.ca, "--etcd-cert": etcd.tls.client_cert, "--etcd-key": etcd.tls.client_key}
    files.update({f"--etcd-{k}": v for k, v in override.items()})
    return [a for name, path in files.items() if path is not None for a in (name, str(path))]


def keys(etcd, prefix):
    store = EtcdStore(etcd.store_url("/probe"), tls=etcd.client_tls())
    try:
        return [kv.key for kv in store.etcd.range(prefix + "/", prefix=True, keys_only=True)[0]]
    finally:
        store.close()


def test_replicas_keep_their_state_in_etcd_over_tls(tls_etcd, daemons, tmp_path):
    url = tls_etcd.store_url("/ha-tls")
    assert url.startswith("etcds://")
    first = ControllerProc(daemons, tmp_path, ["--heartbeat-timeout", "30", *tls_args(tls_etcd)], store=url,
                           name="controller-0")
    # the other takes the same files from the environment (RGPU_ETCD_*)
    second = ControllerProc(daemons, tmp_path, ["--heartbeat-timeout", "30"], store=url, name="controller-1")
    second.env.update(RGPU_ETCD_CACERT=str(tls_etcd.tls.ca), RGPU_ETCD_CERT=str(tls_etcd.tls.client_cert),
                      RGPU_ETCD_KEY=str(tls_etcd.tls.client_key))
    urls = f"{first.url},{second.url}"
    for p in (first, second):
        p.env["RGPU_CONTROLLER"] = urls
        p.start()
    leader = wait_until(lambda: leader_of([first, second]), 15, "one leader")
    with ControllerClient(urls, credential=server_credential()) as fleet:
        fleet.register("tcp://s1:7000", "b1", "sim", fake_gpus(1, "G", memory=4 * GiB))
    with ControllerClient(urls, credential=leader.admin()) as c:
        lease = c.reserve(memory=GiB, ttl=60)["lease"]
        assert c.url == leader.url
    store = EtcdStore(url, tls=tls_etcd.client_tls())
    try:
        assert store.gpu_commitments()["G-0"]["allocations"] == 1
        assert [x["id"] for x in store.load_leases()] == [lease]
    finally:
        store.close()
    daemons.stop_all()


def _start(args, tmp_path):
    env = {**os.environ, "RGPU_CLUSTER_SECRET": "component-test-secret-0123456789",
           "RGPU_CONFIG_DIR": str(tmp_path / "cfg")}
    for name in ("RGPU_ETCD_CACERT", "RGPU_ETCD_CERT", "RGPU_ETCD_KEY"):
        env.pop(name, None)
    return subprocess.run([sys.executable, "-m", "rgpu.controller.daemon", "--listen",
                           f"tcp://127.0.0.1:{free_port()}", *args], env=env, capture_output=True, text=True,
                          timeout=60)


@pytest.mark.parametrize("case, expect", [
    ("wrong CA", "--etcd-cacert must name the CA"),
    ("no client certificate", "asks for a client certificate: give --etcd-cert and --etcd-key"),
    ("client certificate of another CA", "refused the client certificate"),
    ("TLS files with etcd://", "use etcds://"),
    ("plain HTTP to the TLS member", "serves TLS"),
])
def test_bad_tls_is_refused_at_start_and_nothing_is_written(tls_etcd, tmp_path, case, expect):
    pki, prefix = tls_etcd.tls, "/bad-" + case.split()[0].lower()
    url = tls_etcd.store_url(prefix)
    args = {
        "wrong CA": [url, *tls_args(tls_etcd, cacert=pki.other_ca)],
        "no client certificate": [url, *tls_args(tls_etcd, cert=None, key=None)],
        "client certificate of another CA": [url, *tls_args(tls_etcd, cert=pki.other_ca,
                                                            key=pki.other_ca.with_name("other-ca-key.pem"))],
        "TLS files with etcd://": [url.replace("etcds://", "etcd://"), *tls_args(tls_etcd)],
        "plain HTTP to the TLS member": [url.replace("etcds://", "etcd://")],
    }[case]
    out = _start(["--store", *args], tmp_path)
    assert out.returncode != 0, out.stderr
    assert expect in out.stderr, out.stderr
    assert "Traceback" not in out.stderr
    assert keys(tls_etcd, prefix) == []
