"""rgpu-server's side of failover (server/failover.py): a session of a `--failover` lease answers
CHECKPOINT with its checkpoint image, and a fresh session of the lease restores one with RESTORE (the
memory back at its address); a session of any other lease refuses both, so nothing is captured unless
the lease asked; a session restores at most once, and only when fresh."""
from __future__ import annotations

import os
import time

import pytest

from rgpu.client.server_client import ping, stats
from rgpu.protocol import curve, tokens, wire
from tests.conftest import server_argv
from tests.support.daemons import free_url
from tests.support.pool import keyed
from tests.support.session import Session

SECRET = "component-secret-0123456789abcdef"
CLUSTER = curve.server_role_keys(SECRET.encode())
NOT_PERMITTED, ILLEGAL_STATE = 800, 401


@pytest.fixture
def gated(daemons, tmp_path):
    plain = free_url()
    url = keyed(plain, SECRET)
    env = {**os.environ, "RGPU_CLUSTER_SECRET": SECRET, "RGPU_CONFIG_DIR": str(tmp_path)}
    env.pop("RGPU_CONTROLLER", None)
    daemons.start(server_argv(plain, "--sim-memory", "1GiB"), ready=lambda: ping(url), deadline_s=30, env=env)
    uuid = stats(url, keys=CLUSTER)["gpus"][0]["uuid"]

    def token(failover: bool) -> str:
        claims = {"lease": "l-failover" if failover else "l-plain", "exp": time.time() + 120,
                  "vgpus": [{"server": plain, "uuid": uuid, "index": 0, "memory": 256 << 20, "compute": 0,
                             "limit": 100}]}
        return tokens.sign({**claims, **({"failover": True} if failover else {})}, SECRET.encode())
    return url, token


def test_a_lease_without_failover_gets_no_checkpoint(gated):
    url, token = gated
    s = Session(url, lease=token(False))
    try:
        rc, _, bulk, message = s.raw_call(wire.CHECKPOINT, [])
        assert rc == NOT_PERMITTED and not bulk and "--failover" in message
        rc, _, _, message = s.raw_call(wire.RESTORE, [], bulk=[b"x"])
        assert rc == NOT_PERMITTED and "--failover" in message
    finally:
        s.close()


def test_a_checkpoint_restores_into_a_fresh_session_of_the_lease(gated):
    url, token = gated
    data = os.urandom(3 << 20)
    first = Session(url, lease=token(True), window=0)
    try:
        rc, (p,), _, _ = first.call("cudaMalloc", len(data))
        assert rc == 0
        assert first.call("cudaMemcpy", p, 0, len(data), 1, bulk=[data])[0] == 0
        rc, outs, bulk, _ = first.raw_call(wire.CHECKPOINT, [])
        assert rc == 0 and len(bulk) == 1 and outs[0] == len(bulk[0]) and outs[1] >= len(data)
        image = bytes(bulk[0])
    finally:
        first.close()
    second = Session(url, lease=token(True), window=0)
    try:
        rc, outs, _, message = second.raw_call(wire.RESTORE, [], bulk=[image])
        assert rc == 0, message
        rc, _, back, _ = second.call("cudaMemcpy", 0, p, len(data), 2)
        assert rc == 0 and b"".join(bytes(f) for f in back) == data, "the memory is back at its address"
        rc, _, _, message = second.raw_call(wire.RESTORE, [], bulk=[image])
        assert rc == ILLEGAL_STATE and "fresh" in message
        corrupt = image[:-1] + bytes([image[-1] ^ 1])
    finally:
        second.close()
    third = Session(url, lease=token(True), window=0)
    try:
        rc, _, _, message = third.raw_call(wire.RESTORE, [], bulk=[corrupt])
        assert rc == ILLEGAL_STATE and "corrupt" in message
    finally:
        third.close()


@pytest.mark.parametrize("damage", ["texture value", "array description", "objects entry"])
def test_a_well_formed_checkpoint_whose_state_is_not_a_captures_is_refused_and_the_server_serves_on(gated, damage):
    """The image is the client's to send back, so a tenant can hand-make one: its state with a
    texture object's value of the wrong type, an array without its description, an object entry cut
    short. RESTORE refuses it with a clear error, and the server goes on serving a new session."""
    from rgpu.server.checkpoint.image import Image
    url, token = gated
    first = Session(url, lease=token(True), window=0)
    try:
        rc, _, bulk, _ = first.raw_call(wire.CHECKPOINT, [])
        assert rc == 0
        image = Image.from_bytes(bytes(bulk[0]))
    finally:
        first.close()
    if damage == "texture value":
        image.state["textures"] = [["texture", "not a value", b"", b"", None]]
    elif damage == "array description":
        image.state["objects"] = [[0x1000, "array", {"device": {}}]]
    else:
        image.state["objects"] = [[0x1000, "stream"]]
    second = Session(url, lease=token(True), window=0)
    try:
        rc, _, _, message = second.raw_call(wire.RESTORE, [], bulk=[image.to_bytes()])
        assert rc == ILLEGAL_STATE and ("malformed" in message or "cannot be restored" in message), message
    finally:
        second.close()
    third = Session(url, lease=token(True), window=0)
    try:
        rc, (p,), _, _ = third.call("cudaMalloc", 4096)
        assert rc == 0 and p
    finally:
        third.close()


def test_checkpoints_after_the_first_are_deltas_and_a_chain_restores_as_its_last_image(gated):
    """The first checkpoint of a session is whole; asked for one, the next are deltas holding only the
    memory that changed (one 256 KiB chunk for a 4 KiB write into 3 MiB, nothing for a free). A fresh
    session restores the whole image and the deltas after it as the last one's session; a chain cut
    short, out of order or starting with a delta is refused, and the session stays fresh for a right one."""
    url, token = gated
    data = bytearray(os.urandom(3 << 20))
    patch, extra = os.urandom(4096), os.urandom(1 << 20)
    first = Session(url, lease=token(True), window=0)
    try:
        rc, (p,), _, _ = first.call("cudaMalloc", len(data))
        assert rc == 0 and first.call("cudaMemcpy", p, 0, len(data), 1, bulk=[bytes(data)])[0] == 0
        rc, outs, bulk, _ = first.raw_call(wire.CHECKPOINT, [1])  # no chain yet: whole, whatever was asked
        assert rc == 0 and outs[2] == 0 and outs[1] >= len(data)
        whole = bytes(bulk[0])
        assert first.call("cudaMemcpy", p + (1 << 20), 0, len(patch), 1, bulk=[patch])[0] == 0
        data[1 << 20:(1 << 20) + len(patch)] = patch
        rc, (q,), _, _ = first.call("cudaMalloc", len(extra))
        assert rc == 0 and first.call("cudaMemcpy", q, 0, len(extra), 1, bulk=[extra])[0] == 0
        rc, outs, bulk, _ = first.raw_call(wire.CHECKPOINT, [1])
        assert rc == 0 and outs[2] == 1 and outs[1] == (256 << 10) + len(extra), outs
        delta1 = bytes(bulk[0])
        assert len(delta1) < len(whole) // 2
        assert first.call("cudaFree", q)[0] == 0
        rc, outs, bulk, _ = first.raw_call(wire.CHECKPOINT, [1])
        assert rc == 0 and outs[2] == 1 and outs[1] == 0, outs
        delta2 = bytes(bulk[0])
        rc, outs, _, _ = first.raw_call(wire.CHECKPOINT, [0])  # the client holds no chain: whole again
        assert rc == 0 and outs[2] == 0
    finally:
        first.close()

    def restored(images) -> tuple[Session, int, str]:
        s = Session(url, lease=token(True), window=0)
        rc, _, _, message = s.raw_call(wire.RESTORE, [], bulk=images)
        return s, rc, message

    s, rc, message = restored([whole, delta1, delta2])
    try:
        assert rc == 0, message
        rc, _, back, _ = s.call("cudaMemcpy", 0, p, len(data), 2)
        assert rc == 0 and b"".join(bytes(f) for f in back) == bytes(data)
        assert s.call("cudaMemcpy", 0, q, 16, 2)[0] != 0, "freed before the last delta: not allocated again"
    finally:
        s.close()
    for images, why in (([delta1], "delta"), ([whole, delta2], "not the delta that follows"),
                        ([whole, delta2, delta1], "not the delta that follows")):
        s, rc, message = restored(images)
        try:
            assert rc == ILLEGAL_STATE and why in message, message
            rc, _, _, message = s.raw_call(wire.RESTORE, [], bulk=[whole, delta1])  # still fresh
            assert rc == 0, message
            rc, _, back, _ = s.call("cudaMemcpy", 0, q, len(extra), 2)
            assert rc == 0 and b"".join(bytes(f) for f in back) == extra
        finally:
            s.close()
