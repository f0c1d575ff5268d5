"""A pool server's wire (issue 16, "High" 3): encrypted and mutually authenticated, so a passive
observer learns neither lease tokens, session keys nor copy data, and a session key replayed from
another connection is refused while its session carries on; strangers get nothing."""
from __future__ import annotations

import os
import subprocess
import time

import pytest

from rgpu.paths import client_env
from rgpu.protocol import curve, tokens, wire
from tests.conftest import run_cli
from tests.security.conftest import CLUSTER
from tests.support.controller import SECRET
from tests.support.relay import Relay
from tests.support.session import Refused, Session, connect, exchange

MiB = 1 << 20
MARKER = b"copy-data-an-observer-must-not-see!" * 64


def _token(plain_url: str, uuid: str, memory: int = 256 * MiB, lease: str = "l-wire") -> str:
    return tokens.sign({"lease": lease, "exp": time.time() + 600,
                        "vgpus": [{"server": plain_url, "uuid": uuid, "index": 0, "memory": memory,
                                   "compute": 0, "limit": 100}]}, SECRET.encode())


def _uuid(keyed_url: str) -> str:
    from rgpu.client.server_client import stats
    return stats(keyed_url, keys=CLUSTER)["gpus"][0]["uuid"]


def _port(url: str) -> int:
    return int(url.split("#")[0].split("@")[0].rsplit(":", 1)[1])


def _observed_session(url: str, token: str, key: bytes | None) -> tuple[bytes, Session]:
    """Hello, attach and a copy there and back, all through relays; what the relays saw."""
    hello_relay = Relay(("127.0.0.1", _port(url)))
    relays = [hello_relay]

    def via_relay(endpoint):
        relays.append(Relay(("127.0.0.1", _port(endpoint))))
        return relays[-1].url
    target = hello_relay.url + (f"@{curve.key_hex(key)}" if key else "")
    s = Session(target, lease=token, route=via_relay)
    rc, (ptr,), _, _ = s.call("cudaMalloc", len(MARKER))
    assert rc == 0
    assert s.call("cudaMemcpy", ptr, 0, len(MARKER), 1, bulk=[MARKER])[0] == 0
    rc, _, back, _ = s.call("cudaMemcpy", 0, ptr, len(MARKER), 2)
    assert rc == 0 and b"".join(back) == MARKER
    seen = b"".join(r.seen() for r in relays)
    for r in relays:
        r.close()
    return seen, s


def test_a_passive_observer_sees_no_token_session_key_or_data(secret_server, sim_server):
    plain_url, url, _ = secret_server()
    token = _token(plain_url, _uuid(url))
    seen, s = _observed_session(plain_url, token, curve.split_server_url(url)[1])
    assert len(seen) > 2 * len(MARKER)                    # it all went through the observer...
    for secret in (token.encode(), s.session.encode(), s.key.encode(), MARKER[:64]):
        assert secret not in seen                          # ...and none of it could be read
    s.close()
    # the same observer on a plain wire (direct mode: what every wire was before) reads them all
    seen, s = _observed_session(sim_server, "", None)
    assert s.key.encode() in seen and MARKER[:64] in seen
    s.close()


def test_the_client_library_speaks_curve_to_a_pool_server(secret_server, cuda_program, tmp_path):
    plain_url, url, _ = secret_server()
    token = _token(plain_url, _uuid(url))
    relay = Relay(("127.0.0.1", _port(plain_url)))
    try:
        key = curve.split_server_url(url)[1]
        env = {"RGPU_LEASE": token, "RGPU_SERVER": f"{relay.url}@{curve.key_hex(key)}#0"}
        p = run_cli("run", "--server", env["RGPU_SERVER"], "--", str(cuda_program("device_query")),
                    env={**os.environ, **env})
        assert p.returncode == 0 and "mem 268435456 " in p.stdout, p.stdout + p.stderr
        assert relay.seen() and token.encode() not in relay.seen()
        # a wrong server key (an impostor, or a stale one): `rgpu run` refuses it before the program
        # starts, and a program given it directly is told so by the client library
        wrong = curve.key_hex(curve.new_keypair().public)
        p = run_cli("run", "--server", f"{plain_url}@{wrong}#0", "--", str(cuda_program("device_query")),
                    env={**os.environ, "RGPU_LEASE": token})
        assert p.returncode == 5 and "does not hold the key" in p.stderr, p.stdout + p.stderr
        p = subprocess.run([str(cuda_program("device_query"))], capture_output=True, text=True, timeout=120,
                           env=client_env([f"{plain_url}@{wrong}#0"], token))
        assert p.returncode != 0 and "cudaErrorDevicesUnavailable" in p.stdout, p.stdout + p.stderr
        assert "not the server whose key" in p.stderr
    finally:
        relay.close()


def test_a_replayed_session_key_is_refused_and_the_victim_carries_on(secret_server):
    plain_url, url, _ = secret_server()
    victim = Session(url, lease=_token(plain_url, _uuid(url)))
    rc, (ptr,), _, _ = victim.call("cudaMalloc", 4096)
    assert rc == 0
    # the attacker knows the session key (as if sniffed) and connects with a key of its own:
    # before, this attached, read the victim's memory and broke its session
    thief = connect(victim.endpoint, curve.new_keypair(), victim.server_key)
    got = exchange(thief, [wire.encode_requests([(1, wire.ATTACH, 1, [victim.session, victim.key], 0)])], 3)
    thief.close(0)
    assert got is None                                     # refused in the handshake: nothing reaches it
    assert victim.call("cudaMemcpy", ptr, 0, 4, 1, bulk=[b"live"])[0] == 0
    rc, _, back, _ = victim.call("cudaMemcpy", 0, ptr, 4, 2)
    assert (rc, b"".join(back)) == (0, b"live")
    victim.close()


def test_on_a_plain_wire_a_second_connection_cannot_take_a_session_over(sim_server):
    victim = Session(sim_server)
    thief = connect(victim.endpoint)
    got = exchange(thief, [wire.encode_requests([(1, wire.ATTACH, 1, [victim.session, victim.key], 0)])], 5)
    thief.close(0)
    assert got is not None and wire.unpack(got[0])[1] != 0 and b"already attached" in got[0]
    assert victim.call("cudaMalloc", 4096)[0] == 0
    victim.close()


def test_strangers_get_nothing_from_a_pool_server(secret_server):
    plain_url, url, _ = secret_server()
    plain = connect(plain_url)                             # no CURVE: no handshake, no answer
    assert exchange(plain, [wire.pack({"op": "ping"})], 2) is None
    plain.close(0)
    with pytest.raises(Refused) as info:                   # CURVE but no lease: refused, and why
        Session(url)
    assert info.value.reply["reason"] == "no_token"
    stranger = connect(url)
    reply = wire.unpack(exchange(stranger, [wire.pack({"op": "stats"})])[0])
    stranger.close(0)
    assert reply["error"] == "forbidden"                   # tenants' sessions are not listed to anyone
