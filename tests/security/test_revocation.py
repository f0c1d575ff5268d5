"""A released lease's token is refused by its servers on their own (issue 39, attack 7): the
controller pushes the leases of a server that ended, with their tokens' expiry, and the server keeps
them — across its restarts — until then; and tokens live minutes past their lease's last renew (not
24 h), each renew bringing a fresh one that the lease's programs open new sessions with, so a server
that never saw the release refuses the token soon too. Before: a server restarted while the
controller was down opened a 2 GiB session for a released lease's token."""
from __future__ import annotations

import os
import time

from rgpu.protocol import tokens
from tests.conftest import server_argv
from tests.support.controller import SECRET
from tests.support.daemons import wait_until
from tests.support.pool import Pool, keyed, ping
from tests.support.session import Refused, Session

MiB = 1 << 20


def _refused(url: str, token: str) -> dict | None:
    try:
        Session(keyed(url), lease=token).close()
    except Refused as e:
        return e.reply
    return None


def test_a_released_token_is_refused_by_a_server_restarted_while_the_controller_is_down(daemons, tmp_path):
    pool = Pool(daemons, tmp_path)
    env = {**pool.controller.env, "XDG_CACHE_HOME": str(tmp_path / "cache")}   # where the server keeps its gate
    url = pool.add_server("1GiB", env=env)
    wait_until(lambda: pool.states() == {url: "up"}, 60, "the server up")
    with pool.controller.client(credential=pool.controller.user("alice")) as alice:
        lease = alice.reserve(memory=256 * MiB)
        s = Session(keyed(url), lease=lease["token"])
        assert s.call("cudaMalloc", MiB)[0] == 0
        s.close()
        alice.release(lease["lease"])
    wait_until(lambda: _refused(url, lease["token"]), 20, "the release seen by the server")
    pool.controller.stop()                                         # the controller is down ...
    pool.servers[url].stop()                                       # ... and the server restarts
    argv = server_argv(url, "--sim-memory", "1GiB", "--controller", pool.url)
    daemons.start(argv, ready=lambda: ping(url), deadline_s=30, env=env, log_path=tmp_path / "server-again.log")
    reply = _refused(url, lease["token"])                          # before: a session on the whole lease
    assert reply is not None and reply["error"] == "lease" and "ended" in reply["message"], reply
    state = tmp_path / "cache" / "rgpu"
    [kept] = [p for p in state.rglob("state.json")]
    assert (os.stat(kept).st_mode & 0o777) == 0o600 and lease["lease"] in kept.read_text()


# ---- tokens that live minutes, renewed by the lease (issue 39, attack 7, the part a revocation list
# cannot reach: a server that never saw the release) --------------------------------------------------
def _claims(token: str) -> dict:
    return tokens.verify(token, SECRET.encode())


def test_a_token_lives_minutes_past_its_lease_renewal_not_a_day(daemons, tmp_path):
    pool = Pool(daemons, tmp_path)
    url = pool.add_server("1GiB")
    wait_until(lambda: pool.states() == {url: "up"}, 60, "the server up")
    with pool.controller.client(credential=pool.controller.user("alice")) as alice:
        lease = alice.reserve(memory=64 * MiB, ttl=30)
        first = _claims(lease["token"])
        assert first["exp"] - time.time() <= 600 + 5, first        # before: 24 h
        wait_until(lambda: time.time() > first["iat"] + 1.1, 5, "a second later")
        renewed = _claims(alice.renew(lease["lease"])["token"])
        assert renewed["exp"] > first["exp"], (first, renewed)     # each renew brings a fresh token
        alice.release(lease["lease"])


def test_a_released_token_is_refused_by_a_server_that_missed_the_release_once_it_expires(daemons, tmp_path):
    pool = Pool(daemons, tmp_path, ["--token-lifetime", "3"])
    url = pool.add_server("1GiB", env={"XDG_CACHE_HOME": str(tmp_path / "cache-a")})
    wait_until(lambda: pool.states() == {url: "up"}, 60, "the server up")
    with pool.controller.client(credential=pool.controller.user("alice")) as alice:
        lease = alice.reserve(memory=256 * MiB, ttl=3)
        token = lease["token"]
        pool.servers[url].stop()                                    # down while the lease is released
        alice.release(lease["lease"])
    pool.controller.stop()
    # the server comes back with no state (another disk, or its state lost) while the controller is down
    env = {**pool.controller.env, "XDG_CACHE_HOME": str(tmp_path / "cache-b")}
    daemons.start(server_argv(url, "--sim-memory", "1GiB", "--controller", pool.url), ready=lambda: ping(url),
                  deadline_s=30, env=env, log_path=tmp_path / "server-again.log")
    wait_until(lambda: time.time() > _unsigned_exp(token) + 0.5, 15, "the token's short life over")
    reply = _refused(url, token)                                  # before: a session for a day
    assert reply is not None and reply["reason"] == "token_expired", reply


def _unsigned_exp(token: str) -> float:
    return float(_claims_unchecked(token)["exp"])


def _claims_unchecked(token: str) -> dict:
    import base64
    import json
    payload = token.split(".")[1]
    return json.loads(base64.urlsafe_b64decode(payload + "=" * (-len(payload) % 4)))


def test_a_program_opens_new_sessions_after_its_first_token_expired(daemons, tmp_path, cuda_program):
    """Tokens of 3 s on a lease of 5 s: a session held across many lifetimes keeps running, and a
    session opened later (a child process) gets a fresh token from the lease's token file."""
    pool = Pool(daemons, tmp_path, ["--token-lifetime", "3"])
    url = pool.add_server("1GiB")
    wait_until(lambda: pool.states() == {url: "up"}, 60, "the server up")
    hold, query = cuda_program("hold_memory"), cuda_program("device_query")
    env = {**pool.env, "XDG_CACHE_HOME": str(tmp_path / "cache")}
    with pool.controller.client() as admin:
        lease = admin.reserve(memory=64 * MiB, ttl=5)
        first = _claims(lease["token"])
        script = (f"{hold} 16 & h=$!; sleep 10; {query}; q=$?; "
                  f"kill -0 $h && kill $h && echo HOLDER-ALIVE; exit $q")
        p = pool.run("--lease", lease["lease"], "--", "sh", "-c", script, env=env)
        assert time.time() > first["exp"] + 3                       # well past the first token's life
        assert p.returncode == 0 and "OK device_query" in p.stdout, p.stdout + p.stderr
        assert "READY 16" in p.stdout and "HOLDER-ALIVE" in p.stdout and "ERROR" not in p.stdout, p.stdout
        kept = tmp_path / "cache" / "rgpu" / "leases" / lease["lease"]
        assert (os.stat(kept).st_mode & 0o777) == 0o600 and _claims_unchecked(kept.read_text())["exp"] > first["exp"] + 5
        admin.release(lease["lease"])
