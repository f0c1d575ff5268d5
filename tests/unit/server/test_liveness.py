"""How a worker judges its client's host (server/liveness.py): by what the host's kernel acknowledges,
read from the connection's TCP_INFO."""
from __future__ import annotations

import os
import socket

from rgpu.server import liveness


def test_tcp_state_reads_a_live_connection_and_refuses_what_is_no_tcp_socket():
    with socket.create_server(("127.0.0.1", 0)) as srv:
        with socket.create_connection(srv.getsockname()) as c:
            peer, _ = srv.accept()
            with peer:
                c.sendall(b"x" * 1000)
                assert peer.recv(1000)
                # the reader's kernel acknowledged it: nothing waits, no probe is out
                state = liveness.tcp_state(c.fileno())
                assert (state.unacked, state.probes) == (0, 0) and state.since_ack < 5
                # the acknowledgement came after the data left: what was sent last was answered
                assert state.since_sent >= state.since_ack
    r, w = os.pipe()
    try:
        assert liveness.tcp_state(r) is None
    finally:
        os.close(r)
        os.close(w)


def _host(monkeypatch, states):
    """A ClientHost whose connection shows these (unacked, probes, seconds since an ack, seconds since
    data left), one per look."""
    seen = iter(liveness.TcpState(*x) for x in states)
    monkeypatch.setattr(liveness, "tcp_state", lambda fd: next(seen))
    return liveness.ClientHost()


def test_data_unacknowledged_for_the_silence_is_a_host_gone(monkeypatch):
    # sent at 99.8 and never answered: the worker's kernel resends at 100.0, 100.4, 101.2, 102.8
    host = _host(monkeypatch, [(3, 0, 0.2, 0.0), (3, 0, 1.2, 0.6), (3, 0, 4.2, 1.2), (3, 0, 5.2, 2.2)])
    assert [host.gone(7, t) for t in (100.0, 101.0, 104.0, 105.0)] == [False, False, False, True]


def test_an_old_acknowledgement_counts_only_from_the_first_look_that_saw_data_waiting(monkeypatch):
    # a connection where the worker sent nothing for a minute: its last ack is old when a reply leaves
    host = _host(monkeypatch, [(40, 0, 60.0, 0.0), (40, 0, 61.0, 1.0), (0, 0, 0.01, 0.02), (40, 0, 90.0, 0.0),
                               (40, 0, 95.0, 1.8)])
    assert host.gone(7, 200.0) is False   # the reply just left: not five seconds of waiting yet
    assert host.gone(7, 201.0) is False
    assert host.gone(7, 202.0) is False   # acknowledged: the wait starts over
    assert host.gone(7, 230.0) is False
    assert host.gone(7, 235.0) is True    # five seconds of looks with no acknowledgement


def test_a_closed_window_whose_probes_are_answered_is_a_host_alive(monkeypatch):
    # a program stopped (Ctrl-Z) with a reply on its way: its window is closed, the worker probes it,
    # and its host answers each probe; between probes nothing is outstanding (a probe carries no
    # data: the last data left before the window closed)
    looks = [(0, 1, 3.2, 4.0), (0, 0, 0.05, 7.0), (0, 0, 3.0, 10.0), (0, 1, 6.4, 13.0), (0, 0, 0.05, 16.0),
             (0, 0, 9.0, 19.0), (0, 0, 12.0, 22.0)]
    host = _host(monkeypatch, looks)
    assert not any(host.gone(7, 300.0 + 3 * i) for i in range(len(looks)))


def test_resends_a_stopped_programs_host_answers_are_a_host_alive(monkeypatch):
    """A program stopped while segments were on their way that its kernel had no room for and dropped
    (TcpExtTCPRcvQDrop): they stay unacknowledged, the worker's kernel resends them with its backoff,
    and the host answers each resend at once with a window of 0. Between resends 3.2 and 6.4 s apart
    no acknowledgement comes for more than five seconds, yet the host lives: it answered the last
    resend. A look that comes between a resend and its answer is no silence either."""
    looks = [(2, 0, 0.5, 0.5), (2, 0, 2.5, 2.5), (2, 0, 5.5, 5.5), (2, 0, 6.3, 0.0), (2, 0, 0.7, 0.7),
             (2, 0, 5.7, 5.7), (2, 0, 10.7, 10.7), (2, 0, 12.8, 12.8)]
    host = _host(monkeypatch, looks)
    assert [host.gone(7, t) for t in (400.0, 402.0, 405.0, 405.8, 406.5, 411.5, 416.5, 418.6)] == [False] * 8


def test_a_resend_unanswered_after_answered_ones_is_a_host_gone(monkeypatch):
    # the stopped program's host loses its power between two resends: the next one is not answered
    host = _host(monkeypatch, [(2, 0, 5.5, 5.5), (2, 0, 6.5, 0.2), (2, 0, 7.5, 1.2)])
    assert [host.gone(7, t) for t in (500.0, 505.0, 506.0)] == [False, False, True]


def test_probes_unanswered_for_the_silence_are_a_host_gone(monkeypatch):
    host = _host(monkeypatch, [(0, 1, 1.0, 8.0), (0, 2, 3.0, 10.0), (0, 4, 6.0, 13.0)])
    assert [host.gone(7, t) for t in (10.0, 12.0, 15.0)] == [False, False, True]
