"""Live migration between two software-GPU servers at the protocol level: a session opened from
Python moves while it holds memory and objects, the next call follows it, and everything is where
it was — addresses, handles, contents. And the moves that must not happen: to a GPU that cannot
hold the session (refused while the session runs on), to a target that dies during the restore."""
from __future__ import annotations

import os

import pytest

from rgpu.client import server_client
from rgpu.protocol.generated import enums
from tests.support.daemons import free_url, wait_until
from tests.support.session import Session

MiB = 1 << 20


def migrate(url: str, session: str, to: str) -> dict:
    r = server_client.request(url, {"op": "migrate", "session": session, "to": to})
    assert r["ok"], r
    return r["migration"]


def migration(url: str, mid: str) -> dict:
    return next(m for m in server_client.stats(url)["migrations"] if m["id"] == mid)


def settled(url: str, mid: str) -> dict:
    return wait_until(lambda: (m := migration(url, mid))["state"] != "running" and m, 30, f"migration {mid}")


def ok(r):
    assert r[0] == 0, r
    return r[1]


@pytest.fixture
def two(start_server):
    a, _ = start_server(memory="256MiB")
    b, hb = start_server(memory="256MiB")
    return a, b, hb


def test_a_session_moves_with_its_memory_and_handles_and_carries_on(two):
    a, b, _ = two
    s = Session(a)
    try:
        (p,) = ok(s.call("cudaMalloc", 3 * MiB))
        data = os.urandom(3 * MiB)
        ok(s.call("cudaMemcpy", p, 0, len(data), 1, bulk=[data]))
        (stream,) = ok(s.call("cudaStreamCreateWithPriority", 1, -2))
        (event,) = ok(s.call("cudaEventCreate"))
        ok(s.call("cudaEventRecord", event, stream))
        before = server_client.stats(b)["gpus"][0]["memory_used"]
        m = settled(a, migrate(a, s.session, f"{b}#0")["id"])
        assert m["state"] == "done", m
        outcome = m["sessions"][s.session]
        assert outcome["memory_bytes"] >= 3 * MiB and outcome["pause_s"] > 0
        # the source gave its memory back at once; the target holds it
        assert server_client.stats(a)["gpus"][0]["memory_used"] == 0
        assert server_client.stats(b)["gpus"][0]["memory_used"] >= before + 3 * MiB
        rc, outs, bulk, _ = s.call("cudaMemcpy", 0, p, len(data), 2)
        assert rc == 0 and b"".join(bytes(f) for f in bulk) == data
        assert s.moves == 1 and [x["restored"] for x in server_client.stats(b)["sessions"]] == [True]
        assert ok(s.call("cudaStreamGetPriority", stream)) == [-2]
        assert ok(s.call("cudaEventQuery", event)) == []
        # and back again, with a change made on the way
        ok(s.call("cudaMemset", p, 7, 1000))
        assert settled(b, migrate(b, s.session, f"{a}#0")["id"])["state"] == "done"
        rc, _, bulk, _ = s.call("cudaMemcpy", 0, p, 2000, 2)
        assert bytes(bulk[0]) == b"\x07" * 1000 + data[1000:2000] and s.moves == 2
        # the redirecting worker on b ends once the client has followed
        wait_until(lambda: not server_client.stats(b)["sessions"], 15, "b's moved session gone")
    finally:
        s.close()


def test_a_target_that_cannot_hold_the_session_is_refused_before_anything_stops(start_server):
    a, _ = start_server(memory="256MiB")
    small, _ = start_server(memory="64MiB")
    s = Session(a)
    try:
        (p,) = ok(s.call("cudaMalloc", 100 * MiB))
        ok(s.call("cudaMemset", p, 3, 100 * MiB))
        m = settled(a, migrate(a, s.session, f"{small}#0")["id"])
        assert m["state"] == "failed" and "OUT_OF_MEMORY" in m["message"], m
        rc, _, bulk, _ = s.call("cudaMemcpy", 0, p + 50 * MiB, 16, 2)
        assert rc == 0 and bytes(bulk[0]) == b"\x03" * 16 and s.moves == 0
        wait_until(lambda: server_client.stats(small)["gpus"][0]["memory_used"] == 0
                   and not server_client.stats(small)["sessions"], 20, "nothing left on the small server")
    finally:
        s.close()


def test_a_target_that_dies_during_the_restore_leaves_the_session_where_it_was(two, monkeypatch):
    a, b, hb = two
    s = Session(a)
    try:
        (p,) = ok(s.call("cudaMalloc", 192 * MiB))
        data = os.urandom(192 * MiB)  # incompressible: a second or more to send
        for off in range(0, len(data), 32 * MiB):
            ok(s.call("cudaMemcpy", p + off, 0, 32 * MiB, 1, bulk=[data[off:off + 32 * MiB]]))
        mid = migrate(a, s.session, f"{b}#0")["id"]
        wait_until(lambda: server_client.stats(b)["sessions"], 10, "the target's restoring session")
        hb.kill()  # while it receives the session
        m = settled(a, mid)
        assert m["state"] == "failed" and "target went away" in m["message"], m
        rc, _, bulk, _ = s.call("cudaMemcpy", 0, p, len(data), 2)
        assert rc == 0 and b"".join(bytes(f) for f in bulk) == data and s.moves == 0
    finally:
        s.close()


def test_migrate_is_refused_for_what_it_cannot_name(two):
    a, b, _ = two
    r = server_client.request(a, {"op": "migrate", "session": "nosuch", "to": f"{b}#0"})
    assert not r["ok"] and r["error"] == "no_such_session"
    r = server_client.request(a, {"op": "migrate", "to": f"{b}#0"})
    assert not r["ok"] and r["error"] == "bad_request"
    r = server_client.request(a, {"op": "migrate", "session": "x", "to": "http://nope"})
    assert not r["ok"] and r["error"] == "bad_request"
    s = Session(a)
    try:
        m = settled(a, migrate(a, s.session, f"{b}#3")["id"])
        assert m["state"] == "failed" and "gpu 3 does not exist" in m["message"]
        assert ok(s.call("cudaMemGetInfo"))[1] == 256 * MiB
        assert enums  # the session still answers after a refused move
    finally:
        s.close()


def test_a_move_whose_session_ends_first_is_reported_failed_not_left_running(start_server):
    """The program says goodbye while its move is still finding the target (a port nobody listens
    on: the move gives up after 5 s): the move settles as failed, saying why, for whoever waits on it
    (`rgpu migrate`, a drain, the controller), instead of staying "running" for ever."""
    a, _ = start_server(memory="256MiB")
    s = Session(a)
    ok(s.call("cudaMalloc", MiB))
    mid = migrate(a, s.session, f"{free_url()}#0")["id"]
    s.close()
    m = settled(a, mid)
    assert m["state"] == "failed" and "session ended" in m["message"], m
    wait_until(lambda: not server_client.stats(a)["sessions"], 30, "the session gone")


def test_a_client_that_dies_during_the_migration_leaves_nothing_on_either_server(two):
    a, b, _ = two
    s = Session(a)
    (p,) = ok(s.call("cudaMalloc", 192 * MiB))
    data = os.urandom(32 * MiB)  # incompressible: the pre-copy takes a while
    for off in range(0, 192 * MiB, 32 * MiB):
        ok(s.call("cudaMemcpy", p + off, 0, 32 * MiB, 1, bulk=[data]))
    mid = migrate(a, s.session, f"{b}#0")["id"]
    wait_until(lambda: server_client.stats(b)["sessions"], 10, "the target's restoring session")
    s.sock.close(0)  # the program dies: no goodbye
    wait_until(lambda: not server_client.stats(a)["sessions"] and not server_client.stats(b)["sessions"], 30,
               "both sessions gone")
    assert server_client.stats(a)["gpus"][0]["memory_used"] == server_client.stats(b)["gpus"][0]["memory_used"] == 0
    assert migration(a, mid)["state"] in ("failed", "done")
