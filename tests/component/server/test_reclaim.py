"""Idle reclaim on a software-GPU server: a session nobody calls for a while is checkpointed and its
GPU memory given back, the session lives on, and its next call restores it with the same
addresses, handles and contents; a restore that cannot fit ends the session with a clear error."""
from __future__ import annotations

import os

from rgpu.client import server_client
from tests.support.daemons import wait_until
from tests.support.session import Session

MiB = 1 << 20


def ok(r):
    assert r[0] == 0, r
    return r[1]


def only(url: str) -> dict:
    [s] = server_client.stats(url)["sessions"]
    return s


def test_an_idle_session_is_reclaimed_and_its_next_call_restores_it(start_server, tmp_path):
    url, _ = start_server("--reclaim-after", "1", "--checkpoint-dir", str(tmp_path / "ckpt"), memory="256MiB")
    s = Session(url)
    try:
        (p,) = ok(s.call("cudaMalloc", 8 * MiB))
        data = os.urandom(4 * MiB)
        ok(s.call("cudaMemcpy", p + 2 * MiB, 0, len(data), 1, bulk=[data]))
        (stream,) = ok(s.call("cudaStreamCreateWithPriority", 1, -2))
        wait_until(lambda: only(url)["state"] == "reclaimed", 20, "the idle session reclaimed")
        assert server_client.stats(url)["gpus"][0]["memory_used"] == 0, "its memory went back to the GPU"
        [ckpt] = list((tmp_path / "ckpt").iterdir())
        assert 4 * MiB < ckpt.stat().st_size < 5 * MiB, "written memory only (compressed), not the 8 MiB"
        rc, _, bulk, _ = s.call("cudaMemcpy", 0, p, 8 * MiB, 2)
        got = b"".join(bytes(f) for f in bulk)
        assert rc == 0 and got[2 * MiB:6 * MiB] == data and got[:2 * MiB] == bytes(2 * MiB)
        assert ok(s.call("cudaStreamGetPriority", stream)) == [-2]
        state = only(url)
        assert state["state"] == "live" and state["reclaim"]["restores"] == 1 and state["memory_used"] >= 8 * MiB
        assert not list((tmp_path / "ckpt").iterdir()), "the checkpoint goes once restored"
        # and again: reclaimed a second time, restored by the next call
        wait_until(lambda: only(url)["state"] == "reclaimed", 20, "reclaimed again")
        rc, _, bulk, _ = s.call("cudaMemcpy", 0, p + 2 * MiB, 16, 2)
        assert rc == 0 and bytes(bulk[0]) == data[:16]
    finally:
        s.close()
    wait_until(lambda: not server_client.stats(url)["sessions"], 20, "the session ended")
    assert not list((tmp_path / "ckpt").iterdir())


def test_a_session_that_cannot_be_restored_ends_with_a_clear_error(start_server, tmp_path, monkeypatch):
    url, _ = start_server("--reclaim-after", "1", "--checkpoint-dir", str(tmp_path / "ckpt"), memory="64MiB")
    s = Session(url)
    try:
        (p,) = ok(s.call("cudaMalloc", 48 * MiB))
        ok(s.call("cudaMemset", p, 5, 48 * MiB))
        wait_until(lambda: only(url)["state"] == "reclaimed", 20, "the idle session reclaimed")
        [ckpt] = list((tmp_path / "ckpt").iterdir())
        raw = bytearray(ckpt.read_bytes())
        raw[-1] ^= 0x01  # a flipped bit (a flip, not a zero: the digest's last byte may already be 0)
        ckpt.write_bytes(bytes(raw))  # refused, never half-restored
        rc, _, _, msg = s.call("cudaMemcpy", 0, p, 16, 2)
        assert rc != 0 and "corrupt" in str(msg), (rc, msg)
    finally:
        s.close()
    wait_until(lambda: not server_client.stats(url)["sessions"], 20, "the session ended")
    assert server_client.stats(url)["gpus"][0]["memory_used"] == 0
