"""A released lease's token is refused by its servers on their own (issue 39, attack 7): tokens live
24 h (liveness comes from heartbeats), so the controller pushes the leases of a server that ended,
with their tokens' expiry, and the server keeps them — across its restarts — until then. Before: a
server restarted while the controller was down opened a 2 GiB session for a released lease's token."""
from __future__ import annotations

import os

from tests.conftest import server_argv
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
