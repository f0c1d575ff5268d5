"""`rgpu-k8s ensure-secret` (the controller's init container) against a fake API server: it
creates the cluster secret once, keeps an existing one, and says clearly what is wrong."""
from __future__ import annotations

import base64
import subprocess
import sys

from tests.support.kubeapi import FakeKubeApi


def ensure(kube: FakeKubeApi, token_file, *extra: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "rgpu.k8s.cli", "ensure-secret", "--kube-api", kube.url,
                           "--kube-token-file", str(token_file), "--namespace", "rgpu", *extra],
                          capture_output=True, text=True, timeout=60)


def test_the_secret_is_created_once_and_then_kept(tmp_path):
    token = tmp_path / "token"
    token.write_text("t0k3n")
    with FakeKubeApi(token="t0k3n") as kube:
        first = ensure(kube, token)
        assert first.returncode == 0 and "created" in first.stdout, first.stderr
        secret = kube.secrets[("rgpu", "rgpu-cluster-secret")]
        value = base64.b64decode(secret["data"]["cluster-secret"]).decode()
        assert len(value) == 64 and int(value, 16) >= 0   # 32 random bytes, hex: what rgpu-controller writes
        again = ensure(kube, token)
        assert again.returncode == 0 and "kept" in again.stdout
        assert base64.b64decode(kube.secrets[("rgpu", "rgpu-cluster-secret")]["data"]["cluster-secret"]).decode() == value
        # a Secret of that name without the key is not silently replaced
        wrong = ensure(kube, token, "--key", "other")
        assert wrong.returncode == 1 and "without key 'other'" in wrong.stderr
        # a refused token is the API server's message, not a traceback
        token.write_text("wrong")
        refused = ensure(kube, token)
        assert refused.returncode == 1 and "Unauthorized (HTTP 401)" in refused.stderr
        assert "Traceback" not in refused.stderr


def test_an_unreachable_api_server_is_a_clear_error(tmp_path):
    token = tmp_path / "token"
    token.write_text("x")
    kube = FakeKubeApi()
    kube.close()
    p = ensure(kube, token)
    assert p.returncode == 1 and "not reached" in p.stderr and "Traceback" not in p.stderr
