"""Copies through the session segment on the socket, with no call ring (a same-host client with
RGPU_RING=0): the worker's compiled door serves them (server/sock_loop.py gives it the segment), so
the regions a client names are read by C first (copies.c, as on the ring). A region outside the
segment's data, one that wraps around, one whose size is not the copy's: the door does not serve it
(Python's checks answer it), the call fails with a clear error and writes nothing; the session's
memory, the session and a bystander carry on, and the good copies around them were the door's."""
from __future__ import annotations

import pytest

from rgpu.protocol import wire
from rgpu.protocol.generated.calltable import BY_NAME
from rgpu.protocol.generated.constants import SHM_DATA
from tests.component.server.test_serve_loop import _ended
from tests.component.server.test_serve_socket import needs_door
from tests.support import null_server, segments
from tests.support.session import Session

pytestmark = [pytest.mark.e2e, needs_door]

SIZE = SHM_DATA + (1 << 20)


class SegmentClient:
    """A client at the protocol level with a genuine session segment and no call ring: every message
    on the socket, its copies' data in the segment."""

    def __init__(self, url: str):
        self.mm, self.sock = segments.attached_session(url, SIZE)
        self.seq = 1

    def _send(self, calls) -> list:
        self.sock.send(wire.encode_requests(calls))
        assert self.sock.poll(10000), "a reply"
        return wire.unpack(self.sock.recv_multipart()[0])

    def call(self, name: str, args: list, copy=None) -> list:
        """One sync call, its copy record `copy`: the reply [seq, result, outs, deferred, message, output,
        regions]."""
        self.seq += 1
        return self._send([wire.Call(self.seq, BY_NAME[name], 1, args, 0, copy)])

    def close(self) -> None:
        self.sock.send(wire.encode_requests([(self.seq + 1, wire.GOODBYE, 0, [], 0)]))
        self.sock.close(0)
        self.mm.close()


def test_regions_outside_the_segment_fail_their_copy_alone_at_the_door(daemons):
    url, handle = null_server.start(daemons)
    c, bystander = SegmentClient(url), Session(url)
    data = bytes(range(256)) * 16
    try:
        rep = c.call("cuMemAlloc_v2", [1 << 16])
        assert rep[1] == 0, rep
        dev = rep[2][0]
        c.mm[SHM_DATA:SHM_DATA + 4096] = data
        rep = c.call("cuMemcpyHtoD_v2", [dev, 4096], wire.Shm([wire.Region(SHM_DATA, 4096)], 0))
        assert rep[1] == 0, rep
        bad = [(0, 4096),                         # the segment's header (its nonce), not its data
               (SIZE - 100, 4096),                # past its end
               (SHM_DATA, 1 << 62),               # far past it
               ((1 << 64) - 16, 4096),            # offset + length wraps around
               (SHM_DATA, 4095)]                  # not the copy's size
        for off, n in bad:
            rep = c.call("cuMemcpyHtoD_v2", [dev + 4096, 4096], wire.Shm([wire.Region(off, n)], 0))
            assert rep[1] != 0 and rep[4], (off, n, rep)
        # a read back whose room is not there, and one whose room is: the data as written, nothing of
        # the refused copies landed beside it
        rep = c.call("cuMemcpyDtoH_v2", [dev, 8192], wire.Shm([], 1 << 30))
        assert rep[1] != 0 or rep[6] is None or all(o + n <= SIZE for o, n in rep[6]), rep
        rep = c.call("cuMemcpyDtoH_v2", [dev, 8192], wire.Shm([], 8192))
        assert rep[1] == 0 and rep[6], rep
        got = b"".join(bytes(c.mm[o:o + n]) for o, n in rep[6])
        assert got[:4096] == data and got[4096:] == bytes(4096), got[4096:4200]
        assert bystander.call("cudaMalloc", 4096)[0] == 0
    finally:
        c.close()
        bystander.close()
    counts = max(_ended(handle), _ended(handle, 2), key=lambda k: k["messages"])  # not the bystander's
    assert counts["ring_calls"] == 0 and counts["socket_compiled"] >= 3, counts
    assert counts["copies_compiled"] >= 3, counts  # the allocation, the good copy in, the read backs
    assert handle.alive()


def test_random_regions_at_the_door_land_exactly_where_pythons_checks_allow(daemons):
    """400 H2D copies through the segment with regions drawn at random, good ones (one region or two)
    and bad ones (the header, past the end, wrapping, short, long) at random places of a 64 KiB
    allocation, some past it: a copy succeeds exactly when its regions lie in the segment's data and
    add up to its size inside the allocation, and the allocation read back at the end is what the
    successful copies wrote, byte for byte."""
    import random
    rnd = random.Random(2611)
    url, handle = null_server.start(daemons)
    c = SegmentClient(url)
    mem = 1 << 16
    try:
        rep = c.call("cuMemAlloc_v2", [mem])
        assert rep[1] == 0, rep
        dev = rep[2][0]
        model = bytearray(rnd.randbytes(mem))
        c.mm[SHM_DATA:SHM_DATA + mem] = bytes(model)
        assert c.call("cuMemcpyHtoD_v2", [dev, mem], wire.Shm([wire.Region(SHM_DATA, mem)], 0))[1] == 0
        top = SIZE - SHM_DATA
        for i in range(400):
            count = rnd.choice((1, 7, 256, 4096, 5000))
            dst = rnd.randrange(0, mem - count + 1) if rnd.random() < 0.9 else mem - count + rnd.randint(1, 64)
            off = SHM_DATA + rnd.randrange(0, top - count + 1)
            kind = rnd.choice(("one", "two", "header", "past", "wrap", "short", "long"))
            if kind == "one":
                regions = [(off, count)]
            elif kind == "two" and count > 1:
                cut = rnd.randint(1, count - 1)
                other = SHM_DATA + rnd.randrange(0, top - (count - cut) + 1)
                regions = [(off, cut), (other, count - cut)]
            elif kind == "header":
                regions = [(rnd.randrange(0, SHM_DATA), count)]
            elif kind == "past":
                regions = [(SIZE - rnd.randint(0, count - 1) if count > 1 else SIZE, count)]
            elif kind == "wrap":
                regions = [((1 << 64) - rnd.randint(1, count), count)]
            elif kind == "short":
                regions = [(off, count - 1)] if count > 1 else [(off, 0)]
            else:
                regions = [(off, count + rnd.randint(1, 64))]
            ok_regions = all(SHM_DATA <= o and o + n <= SIZE for o, n in regions) and \
                sum(n for _, n in regions) == count
            payload = rnd.randbytes(count)
            at = 0
            for o, n in regions:
                chunk = payload[at:at + n]  # (a region longer than the copy: its tail left as it was)
                if SHM_DATA <= o and o + len(chunk) <= SIZE:
                    c.mm[o:o + len(chunk)] = chunk
                at += n
            rep = c.call("cuMemcpyHtoD_v2", [dev + dst, count],
                         wire.Shm([wire.Region(o, n) for o, n in regions], 0))
            valid = ok_regions and dst + count <= mem
            assert (rep[1] == 0) == valid, (i, kind, count, dst, regions, rep)
            assert valid or rep[4], (i, kind, rep)  # a refusal says why
            if valid:
                model[dst:dst + count] = payload
        rep = c.call("cuMemcpyDtoH_v2", [dev, mem], wire.Shm([], mem))
        assert rep[1] == 0 and rep[6], rep
        assert b"".join(bytes(c.mm[o:o + n]) for o, n in rep[6]) == bytes(model)
    finally:
        c.close()
    counts = _ended(handle)
    # the good copies of one region were the door's (59 of this seed's; two regions are Python's)
    assert counts["copies_compiled"] >= 40 and counts["socket_compiled"] >= 40, counts
    assert handle.alive()
