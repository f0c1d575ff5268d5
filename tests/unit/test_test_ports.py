"""The test suite's own port picker (tests/support/daemons.free_port): two pytest-xdist workers never
pick the same port, and one process never hands out a port twice, so a daemon stopped for a restart
keeps its port (a CI run lost a controller's start to "Address already in use")."""
from __future__ import annotations

import socket

from tests.support import daemons


def _slices(monkeypatch, count):
    out = []
    for i in range(count):
        monkeypatch.setenv("PYTEST_XDIST_WORKER", f"gw{i}")
        monkeypatch.setenv("PYTEST_XDIST_WORKER_COUNT", str(count))
        out.append(daemons._worker_slice(10000, 32768))
    return out


def test_workers_pick_from_disjoint_slices_below_the_ephemeral_range(monkeypatch):
    for count in (2, 3, 12):
        slices = _slices(monkeypatch, count)
        assert all(lo < hi for lo, hi in slices)
        assert all(a[1] <= b[0] for a, b in zip(slices, slices[1:]))   # ordered, no overlap
        assert slices[0][0] == 10000 and slices[-1][1] <= 32768
    monkeypatch.delenv("PYTEST_XDIST_WORKER")
    monkeypatch.delenv("PYTEST_XDIST_WORKER_COUNT")
    assert daemons._worker_slice(10000, 32768) == (10000, 32768)       # not under xdist: all of it


def test_a_port_is_handed_out_once_and_from_this_workers_slice(monkeypatch):
    monkeypatch.setenv("PYTEST_XDIST_WORKER", "gw1")
    monkeypatch.setenv("PYTEST_XDIST_WORKER_COUNT", "2")
    monkeypatch.setattr(daemons, "_given", set())
    floor = daemons._ephemeral_floor()
    lo, hi = daemons._worker_slice(max(1024, floor - 22000), floor)
    ports = [daemons.free_port() for _ in range(200)]
    assert len(set(ports)) == 200
    assert all(lo <= p < hi for p in ports)
    with socket.socket() as held:                  # a port in use is not handed out
        held.bind(("127.0.0.1", ports[0]))
        daemons._given.clear()
        assert ports[0] not in {daemons.free_port() for _ in range(200)}
