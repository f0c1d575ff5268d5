"""ControllerClient's sockets against a controller that keeps stalling, as on a loaded machine: every
client closed leaves nothing behind in libzmq, and the process's connections keep moving.

Readiness checks (tests/support/controller.answers) close a client whose short timeout ran out,
often just as the controller's side of the CURVE handshake arrives. When the client closed its
handshake monitor's PAIR before stopping the monitor, that late event stuck libzmq's I/O thread
(see curve.Handshake): here within 50 to 450 clients. In full test runs, a loaded worker's readiness
checks did it; every socket that worker closed afterwards stayed in libzmq (one per ping, three per
ControllerClient) until its context held ~1,020 that no Python object owned and every ping failed
with "Too many open files"."""
import random
import signal
import threading

import pytest
import zmq

from rgpu.client.controller_client import ControllerClient, ControllerError
from tests.support.controller import server_credential
from tests.support.zmq_health import LivePeer, eventfds, eventfds_back_to

CLIENTS = 800          # the unfixed client hung libzmq within 50 to 450 of them (5 runs of 5)
PROBE_EVERY = 50


@pytest.fixture
def own_context(monkeypatch):
    """The clients' context, instead of the process's shared one: if the I/O thread hangs, only this
    test's context is lost and the worker's other tests keep theirs."""
    ctx = zmq.Context()
    monkeypatch.setattr(zmq.Context, "instance", lambda *a, **kw: ctx)
    return ctx


@pytest.fixture
def stalling(controller):
    """The controller stopped and resumed (SIGSTOP, SIGCONT) every few milliseconds while the test
    runs; resumed for good at the end."""
    done, rng = threading.Event(), random.Random(0)

    def toggle():
        while not done.is_set():
            controller.handle.signal(signal.SIGSTOP)
            done.wait(rng.uniform(0.0, 0.02))       # the stall itself: its length is the test's input
            controller.handle.signal(signal.SIGCONT)
            done.wait(rng.uniform(0.0, 0.02))

    thread = threading.Thread(target=toggle, name="stall-controller", daemon=True)
    thread.start()
    yield controller
    done.set()
    thread.join()
    controller.handle.signal(signal.SIGCONT)


def test_clients_closed_mid_handshake_leave_no_socket_behind(own_context, stalling):
    peer = LivePeer()
    assert peer.reached_from(own_context)          # the context's threads are up before counting
    baseline = eventfds()
    rng, hung_after = random.Random(1), None
    for i in range(1, CLIENTS + 1):
        try:
            with ControllerClient(stalling.url, timeout=rng.uniform(0.001, 0.03),
                                  credential=server_credential()) as client:
                client.ping()
        except ControllerError:
            pass                                    # timed out: the point of the exercise
        if i % PROBE_EVERY == 0 and not peer.reached_from(own_context):
            hung_after = i
            break
    left = eventfds_back_to(baseline, 5.0)
    peer.close()
    if hung_after is None:
        own_context.term()                          # would never return with its I/O thread stuck
    assert hung_after is None, f"libzmq's I/O thread stuck after {hung_after} clients"
    assert left <= baseline + 2, f"closed sockets still alive in libzmq: eventfds {baseline} -> {left}"
