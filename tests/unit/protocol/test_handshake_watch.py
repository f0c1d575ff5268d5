"""curve.Handshake, the monitor that ControllerClient keeps on its socket: closing it must leave
libzmq's I/O thread free, and a new one must not trip over one libzmq is still tearing down.

A monitor's events are sent by the I/O thread, blocking, into an inproc PAIR. Once the PAIR that
reads them is closed while the monitored socket still emits (its peer goes away, a handshake ends),
that send never returns: the context's I/O thread is stuck for good, no connection of the context
moves any more, and every socket closed after that stays alive inside libzmq, holding its eventfd.
That is how a pytest worker reached ~1,020 sockets no Python object owned."""
import time

import zmq

from rgpu.protocol import curve
from tests.support.zmq_health import LivePeer, eventfds, eventfds_back_to


def test_closing_the_watch_then_losing_the_peer_leaves_the_io_thread_working():
    # A context of its own: were its I/O thread to hang, the worker's shared context stays usable.
    ctx = zmq.Context()
    first, second = LivePeer(), LivePeer()
    sock = ctx.socket(zmq.DEALER)
    sock.setsockopt(zmq.LINGER, 0)
    watch = curve.Handshake(sock)
    sock.connect(first.url)
    sock.send(b"hello")
    assert first.sock.poll(5000), "the peer never heard from the watched socket"
    assert watch.update().connected

    watch.close()                     # what ControllerClient does first when it drops its socket
    first.close()                     # the peer goes: the watched socket's I/O thread sees DISCONNECTED
    baseline = eventfds()
    hung = False
    deadline = time.monotonic() + 1.0  # the disconnect reaches the I/O thread within milliseconds
    while not hung and time.monotonic() < deadline:
        hung = not second.reached_from(ctx)
    sock.close(0)
    left = eventfds_back_to(baseline - 1, 5.0)  # the watched socket gone as well
    second.close()
    if not hung:
        ctx.term()                    # a context whose I/O thread hangs would never finish term()
    assert not hung, "libzmq's I/O thread is stuck sending a monitor event to a closed PAIR"
    assert left <= baseline - 1, f"closed sockets still alive in libzmq: eventfds {baseline} -> {left}"


def test_a_new_watch_does_not_collide_with_a_monitor_still_being_torn_down():
    # pyzmq names a monitor inproc://monitor.s-<fd of the socket>. libzmq closes a socket's fd before
    # its monitor unbinds that name, so a new socket given the same fd found the name taken
    # ("Address already in use", about 1 in 4 of back-to-back clients in a tight loop). Here the
    # old monitor is a PAIR bound at that name.
    ctx = zmq.Context()
    sock = ctx.socket(zmq.DEALER)
    sock.setsockopt(zmq.LINGER, 0)
    stale = ctx.socket(zmq.PAIR)
    stale.setsockopt(zmq.LINGER, 0)
    stale.bind(f"inproc://monitor.s-{sock.FD}")
    try:
        curve.Handshake(sock).close()
    finally:
        sock.close(0)
        stale.close(0)
        ctx.term()
