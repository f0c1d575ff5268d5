"""rgpu-server with a cluster secret but no controller: sessions need a signed lease token, and
run with its memory quota; without a secret (direct mode) no token is needed."""
from __future__ import annotations

import os
import time

from rgpu.client.server_client import ping, request, stats
from rgpu.protocol import curve, tokens, wire
from tests.conftest import server_argv
from tests.support.daemons import free_url
from tests.support.pool import keyed

SECRET = "component-secret-0123456789abcdef"
CLUSTER = curve.server_role_keys(SECRET.encode())


def _hello(url, lease):
    return request(url, {"op": "hello", "proto": wire.PROTOCOL_VERSION, "client": "t", "cuda": 13000,
                         "lease": lease, "gpu": 0})


def test_a_configured_secret_requires_a_lease_and_applies_its_quota(daemons, tmp_path):
    plain = free_url()
    url = keyed(plain, SECRET)            # with a secret the wire is CURVE: the key derives from it
    env = {**os.environ, "RGPU_CLUSTER_SECRET": SECRET, "RGPU_CONFIG_DIR": str(tmp_path)}
    env.pop("RGPU_CONTROLLER", None)
    daemons.start(server_argv(plain, "--sim-memory", "1GiB"), ready=lambda: ping(url), deadline_s=30, env=env)
    assert not ping(plain), "a plain client gets no answer from a CURVE wire"
    refused = _hello(url, "")
    assert (refused["ok"], refused["error"], refused["reason"]) == (False, "lease", "no_token")
    assert request(url, {"op": "stats"})["error"] == "forbidden"      # stats: for the cluster credential only
    uuid = stats(url, keys=CLUSTER)["gpus"][0]["uuid"]
    token = tokens.sign({"lease": "l-local", "exp": time.time() + 60,
                         "vgpus": [{"server": plain, "uuid": uuid, "index": 0, "memory": 64 << 20,
                                    "compute": 0, "limit": 100}]}, SECRET.encode())
    assert _hello(url, token)["ok"]
    [session] = stats(url, keys=CLUSTER)["sessions"]
    assert (session["lease"], session["memory_quota"]) == ("l-local", 64 << 20)
    assert stats(url, keys=CLUSTER)["pool"] is None


def test_direct_mode_needs_no_token(sim_server):
    assert _hello(sim_server, "")["ok"]
    assert stats(sim_server)["sessions"][0]["lease"] == ""
