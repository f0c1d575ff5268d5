"""The server's lease gate: which hellos open a session, with which quota, and when a lease is
gone; and the GPU identity the server registers (the uuid its software GPU reports)."""
import time

import pytest

from rgpu.protocol import tokens
from rgpu.server.gpus import sim_gpu_uuid, uuid_text
from rgpu.server.lease_gate import DIRECT, LeaseGate, LeaseRefused
from rgpu.server.backends.sim.device import SimDevice

SECRET = b"unit-test-secret-0123456789abcdef"
UUID = "GPU-00000000-0000-0000-0000-000000000001"
MiB = 1 << 20


def token(lease="l-1", uuid=UUID, memory=256 * MiB, secret=SECRET, **claims):
    return tokens.sign({"lease": lease, "exp": time.time() + 600,
                        "vgpus": [{"server": "tcp://h:1", "uuid": uuid, "index": 0, "memory": memory,
                                   "compute": 20, "limit": 50}], **claims}, secret)


def refusal(gate, tok, uuid=UUID):
    with pytest.raises(LeaseRefused) as info:
        gate.admit(tok, uuid, 0)
    return info.value.reason


def test_the_registered_uuid_is_the_one_the_software_gpu_reports():
    raw = sim_gpu_uuid("host:tcp://127.0.0.1:7450", 1)
    assert raw == SimDevice(MiB, 1, "host:tcp://127.0.0.1:7450").uuid
    assert raw != sim_gpu_uuid("host:tcp://127.0.0.1:7451", 1)
    assert uuid_text(bytes(range(16))) == "GPU-00010203-0405-0607-0809-0a0b0c0d0e0f"


def test_direct_mode_admits_everyone_on_the_whole_gpu():
    assert LeaseGate(None).admit("", UUID, 0) is DIRECT
    assert LeaseGate(None).admit("anything", UUID, 0) is DIRECT


def test_a_valid_token_grants_its_vgpu_quotas():
    grant = LeaseGate(SECRET).admit(token(), UUID, 0)
    assert (grant.lease, grant.memory, grant.compute, grant.limit) == ("l-1", 256 * MiB, 20, 50)


def test_bad_tokens_are_refused_with_their_reason():
    gate = LeaseGate(SECRET, "tcp://head:7440")
    assert refusal(gate, "") == "no_token"
    assert refusal(gate, None) == "no_token"
    assert refusal(gate, "rgpu1.x") == "token_malformed"
    assert refusal(gate, token(secret=b"another-secret-0123456789abcdef")) == "token_forged"
    assert refusal(gate, tokens.sign({"lease": "l-1", "exp": time.time() - 1, "vgpus": []}, SECRET)) == "token_expired"
    assert refusal(gate, token(), uuid="GPU-someone-else") == "token_wrong_gpu"


def test_a_lease_is_gone_only_when_the_view_is_newer_than_its_token():
    gate = LeaseGate(SECRET)
    old = token(iat=100.0)
    assert gate.admit(old, UUID, 0).lease == "l-1"        # no view yet: trust the token
    gate.see({"l-2"}, at=200.0)
    assert refusal(gate, old) == "lease_ended"
    assert gate.gone("l-1", 100.0) and not gate.gone("l-2", 100.0)
    assert not gate.gone("l-1", 300.0)                   # issued after the view: may be new
    assert gate.admit(token(iat=300.0), UUID, 0).lease == "l-1"
    assert not gate.gone("", 0.0)                        # direct sessions never end by lease
