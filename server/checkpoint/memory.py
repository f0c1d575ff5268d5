"""Device memory in chunks, for checkpoints and pre-copy.

Memory moves in chunks of at most CHUNK bytes: the CHUNK-aligned windows of each allocation that
hold something the program (or a kernel) wrote. What was never written is not read at all: the
backend says which pages were ever written (the software GPU asks the kernel's page tables, see
sim/memory.py ``written``; a real GPU cannot tell, and gives every allocation whole).

Pre-copy sends chunks while the program runs, remembering a digest of each one sent; a later round
(or the final stop-and-copy) reads them again and sends only those whose digest changed — which
catches every way memory can change (copies, memsets, any kernel instruction) without the
interpreter having to report its stores. A pass after the first asks a device that can digest its
own memory (the cuda backend's kernel) for the digests first and reads only the chunks whose digest
changed: on a GPU a --failover checkpoint's or a stop-and-copy's pause, and each pre-copy round, is
then a read of its memory at its own bandwidth, not across PCIe. A chunk sent before whose window is
no longer written (its
allocation freed and made again) is read again too: it reads as zeros now, and so must the target.
Each chunk read is also searched for module variables' addresses the target could not honour
(escapes.py): finding one refuses the checkpoint.
"""
from __future__ import annotations

import bisect

from . import digest as chunk_digest
from .escapes import Escapes
from .image import compress_chunk, compressor

CHUNK = 256 << 10


def plan(device, allocations) -> list[tuple[int, int]]:
    """(address, length) of every chunk of ``allocations`` ([addr, size, span]) holding written data."""
    out = []
    for addr, size, _span in allocations:
        end = addr + size
        windows = set()
        for start, n in device.written_ranges(addr, size):
            first, last = start // CHUNK, (start + n - 1) // CHUNK
            windows.update(range(first, last + 1))
        for w in sorted(windows):
            lo, hi = max(addr, w * CHUNK), min(end, (w + 1) * CHUNK)
            if hi > lo:
                out.append((lo, hi - lo))
    return out


def inside(allocations, pieces) -> list[tuple[int, int]]:
    """The pieces that still lie wholly inside one of ``allocations``."""
    spans = sorted((a, a + s) for a, s, _ in allocations)
    out = []
    starts = [s for s, _ in spans]
    for addr, n in pieces:
        i = bisect.bisect_right(starts, addr) - 1
        if i >= 0 and addr + n <= spans[i][1]:
            out.append((addr, n))
    return out


class Copier:
    """Reads chunks, remembers what it sent, compresses what changed (one per thread)."""

    def __init__(self, device, once: bool = False):
        """`once`: a single pass (a checkpoint image): nothing is compared with a later read, so no
        digest is taken (digest.py)."""
        self.device, self.once = device, once
        # a device that digests its own memory (the cuda backend's kernel, cuda/digests.py) takes the
        # digests of every pass after the first; only when this host's digest is the same function (digest.native)
        self.on_device = None if once or not chunk_digest.native() else getattr(device, "digest_ranges", None)
        self.sent: dict[tuple[int, int], bytes] = {}  # (addr, length) -> digest of what was sent
        self.cctx = compressor()
        self.raw_bytes = 0     # read and sent, before compression
        self.wire_bytes = 0    # after compression
        self.escapes: Escapes | None = None  # the variables' ranges when pieces() last looked

    def pieces(self, allocations) -> list[tuple[int, int]]:
        """The chunks to look at now: the written ones and those sent before that are still allocated."""
        self.escapes = Escapes.of(self.device)  # modules come and go while pre-copy runs
        written = plan(self.device, allocations)
        seen = set(written)
        return written + [p for p in inside(allocations, list(self.sent)) if p not in seen]

    def changed(self, pieces, pending: dict | None = None):
        """Yields (addr, length, zstd frame) of each piece whose contents differ from what was sent.
        `pending`: the digests of what is yielded go there, not into `sent`, for the caller to commit
        once what it sends has gone (a failover delta refused part way leaves `sent` as the client's
        images have it). A device that digests its own memory is asked for every piece's digest
        first, and only the pieces whose digest differs from what was sent are read. While the
        program runs too (a move's pre-copy): the device takes the digests with no piece freed under
        the kernel (placement.py's _no_frees), and a piece the program writes after its digest was
        taken is read by a later pass, the stop-and-copy's at the latest, as a host read's would be.
        What is stored is always the digest of the bytes read and sent, taken here (the same
        function as the kernel's)."""
        into = self.sent if pending is None else pending
        taken = None
        if self.on_device is not None:
            if self.sent:
                taken = self.on_device(pieces)
            else:  # nothing sent yet to compare with: every piece is read; the kernel readied for the next
                self.prepare(len(pieces))
        for i, (addr, n) in enumerate(pieces):
            if taken is not None and (taken[i] is None or self.sent.get((addr, n)) == taken[i]):
                continue  # freed since the layout was read (the next pass sees it), or unchanged
            try:
                data = self.device.read_memory(addr, n)
            except Exception:  # freed while pre-copy looked away: the next round sees the new layout
                continue
            if not self.once:
                digest = chunk_digest.chunk(data)
                if self.sent.get((addr, n)) == digest:
                    continue
            if self.escapes is not None:
                self.escapes.check(addr, data)  # raises CheckpointError
            if not self.once:
                into[(addr, n)] = digest
            frame = compress_chunk(self.cctx, data)
            self.raw_bytes += n
            self.wire_bytes += len(frame)
            yield addr, n, frame

    def prepare(self, pieces: int) -> None:
        """A device that digests its own memory readied for a pass of `pieces` chunks (its kernel
        loaded, compiled by the driver, and launched once), so that the pass's pause holds only the
        digests' own time."""
        ready = getattr(self.device, "prepare_digests", None) if self.on_device is not None else None
        if ready is not None:
            ready(pieces)

    def forget_outside(self, allocations) -> None:
        keep = set(inside(allocations, list(self.sent)))
        self.sent = {k: v for k, v in self.sent.items() if k in keep}
