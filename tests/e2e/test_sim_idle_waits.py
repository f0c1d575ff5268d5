"""The software GPU's waits answered by the compiled serving loop while its device is idle
(server/backends/sim/idle_waits.py): on the call ring (same host) and at the socket's door (another
host, RGPU_SHM=0), a synchronize or query costs the worker no Python, and answers as Python's path does.
While kernels are queued or running, a kernel's error is kept or printf output is due, every message is
Python's: the queries still say NOT_READY while a kernel runs, the fault is still reported at the
synchronize that follows it, the output still comes with the reply."""
from __future__ import annotations

import os
import re

import pytest

from tests.component.server.test_serve_loop import _ended
from tests.component.server.test_serve_socket import WAITS, _door_on_and_off
from tests.conftest import run_cli
from tests.support.session import Session

pytestmark = [pytest.mark.e2e, pytest.mark.sim_only("the software GPU's idle waits")]

# RGPU_FAST_LAUNCH=0: every wait through Python (the comparison)
LOOPS = {"compiled": {}, "python": {"RGPU_FAST_LAUNCH": "0"}}


def test_waits_from_another_host_are_the_doors_with_pythons_replies(start_server):
    """A client without a segment: an event made and recorded, 20 rounds of the ten waits (stream,
    event and device; the driver's and the runtime's faces), then an allocation, a memset, a wait on a
    stream the session never made and a free. The waits and the memset are the door's, byte for byte
    Python's replies; the rest Python's, the bad wait refused with its message."""
    (malloc, memset, bad, free), counts_on, counts_off = _door_on_and_off(
        lambda loop: start_server(env=LOOPS["compiled" if loop else "python"]))
    assert malloc[1] == 0 and memset[1] == 0 and free[1] == 0
    assert bad[1] != 0 and "not a stream of this session" in bad[4], bad
    assert counts_on["socket_compiled"] == WAITS + 1 and counts_on["waits_compiled"] == WAITS, counts_on
    assert counts_on["copies_compiled"] == 1, counts_on  # the memset (sim/idle_waits.py: its copier)
    # the event's making and recording, the allocation, the bad wait, the free, the goodbye
    assert counts_on["socket_to_python"] == 6, counts_on
    assert counts_off["socket_compiled"] == 0 and counts_off["waits_compiled"] == 0, counts_off


@pytest.mark.parametrize("shm", ["1", "0"], ids=["ring", "socket"])
def test_programs_waits_are_the_loops_only_while_the_device_is_idle(cuda_program, start_server, shm):
    """Programs whose waits find work running or an error kept, on the ring and through the door:
    a stream and an event queried while a kernel runs (NOT_READY), async faults reported at the next
    synchronize, and streams and events of every kind; the same output as with every wait Python's,
    and waits the loop answered in each session."""
    out = {}
    for name, env in LOOPS.items():
        url, handle = start_server(env=env)
        runs = [("query_while_running", ["0.5"]), ("faults", []), ("driver_async_error", []),
                ("streams_events", [])]
        for nth, (program, args) in enumerate(runs, 1):
            # through the door, the pieces on the session socket: a plain wire's path without its data
            # stream (server/data_stream.py, whose frames Python takes)
            p = run_cli("run", "--server", url, "--", str(cuda_program(program)), *args,
                        env={**os.environ, "RGPU_SHM": shm, "RGPU_DATA_STREAM": "0"})
            assert p.returncode == 0 and f"OK {program}" in p.stdout, (name, program, p.stdout + p.stderr)
            counts = _ended(handle, nth)
            out[name, program] = p.stdout, counts
    p, _ = out["compiled", "query_while_running"]
    assert "stream query: cudaErrorNotReady, event query: cudaErrorNotReady" in p and "\nrunning\n" in p, p
    for program in ("faults", "driver_async_error", "streams_events"):
        same = [re.sub(r"elapsed [\d.]+ ms", "elapsed", out[name, program][0]) for name in LOOPS]  # (a timing)
        assert same[0] == same[1], program
    for program in ("query_while_running", "streams_events"):
        assert out["compiled", program][1]["waits_compiled"] > 0, (program, out["compiled", program][1])
        assert out["python", program][1]["waits_compiled"] == 0, program


# RGPU_FAST_COPY=0: every copy and memset through Python, the waits still the loop's (the comparison)
COPIES = {"compiled": {}, "python": {"RGPU_FAST_COPY": "0"}}
# the client's way to the worker: the call ring, the socket with the session segment, the socket alone
WAYS = {"1": {"RGPU_SHM": "1"}, "segment": {"RGPU_SHM": "1", "RGPU_RING": "0"}, "0": {"RGPU_SHM": "0"}}


@pytest.mark.parametrize("shm", ["1", "segment", "0"], ids=["ring", "segment", "socket"])
def test_programs_copies_are_the_loops_on_an_idle_device(cuda_program, start_server, shm, tmp_path):
    """Programs of copies and memsets, on the ring and through the door (from another host, and on the
    same host with the ring off: RGPU_RING=0, the data through the session segment): large copies in
    pieces at odd sizes and a copy past its allocation refused (driver_copy_pieces), a batch of async
    copies to and from pageable and pinned memory on a stream (driver_batch_copies), 64 MiB both ways
    (copy_roundtrip), buffers on several streams ordered by events with memsets and kernels between
    (migrate_copies), pinned copies beside kernels (pinned_copies: the loop's on the ring too, the
    segments told to the software GPU's copier). The same output with every copy Python's, and copies
    the loop served in each compiled session. (Reads too large for a reply's
    frame buffer stay Python's on the software GPU: copies.c rgpu_copier_d2h_alone.)"""
    out = {}
    runs = [("driver_copy_pieces", ["20"]), ("driver_batch_copies", []), ("copy_roundtrip", ["64"]),
            ("migrate_copies", ["30", "0"]), ("pinned_copies", ["4"])]
    for name, env in COPIES.items():
        # a module cache of its own, empty: each server is sent the programs' modules alike
        url, handle = start_server(env={**env, "RGPU_MODULE_CACHE": str(tmp_path / name)})
        for nth, (program, args) in enumerate(runs, 1):
            # through the door, the pieces on the session socket: a plain wire's path without its data
            # stream (server/data_stream.py, whose frames Python takes)
            p = run_cli("run", "--server", url, "--", str(cuda_program(program)), *args,
                        env={**os.environ, **WAYS[shm], "RGPU_DATA_STREAM": "0"})
            assert p.returncode == 0, (name, program, p.stdout + p.stderr)
            out[name, program] = p.stdout, _ended(handle, nth)
    for program, _ in runs:
        assert out["compiled", program][0] == out["python", program][0], program
        assert out["python", program][1]["copies_compiled"] == 0, out["python", program][1]
    # counted alike whoever served them (not `calls`: a large copy through the segment is staged in as
    # many parts as the client's copying threads make, which varies from run to run either way)
    for program, _ in runs:
        for key in ("messages", "bytes_in", "bytes_out", "shm_bytes_in", "shm_bytes_out", "memory_peak",
                    "pieces_in", "pieces_out", "pinned_bytes_in", "pinned_bytes_out"):
            assert out["compiled", program][1][key] == out["python", program][1][key], (program, key)
    # copies and memsets alone, large copies' pieces, a step's async copies with their data in frames
    served = {program: sum(out["compiled", program][1][k] for k in ("copies_compiled", "pieces_compiled",
                                                                  "frame_bytes_compiled")) for program, _ in runs}
    # on the ring, copies of 1 MiB and more through the segment (registered first) stay Python's, as the
    # cuda backend's do (copies.c REGISTER_MIN): all of driver_batch_copies'
    python_on_ring = ("driver_batch_copies",)
    assert all(n for program, n in served.items() if shm == "0" or program not in python_on_ring), served
    if shm == "segment":  # every message on the socket, the copies through the segment the door's
        for program, _ in runs:
            c = out["compiled", program][1]
            assert c["ring_calls"] == 0 and c["socket_compiled"] > 0, (program, c)
            # (pinned_copies' data is in the program's pinned memory, not the segment)
            assert program == "pinned_copies" or c["shm_bytes_in"] > 0, (program, c)
        # migrate_copies' small copies through the segment, served whole by the door while the device
        # is idle (none were when the door had no segment: every one Python's)
        assert out["compiled", "migrate_copies"][1]["copies_compiled"] >= 1, out["compiled", "migrate_copies"][1]
    if shm == "0":  # the large copies' data crossed in frames the door copied
        frames = {p: out["compiled", p][1]["frame_bytes_compiled"] for p in ("driver_copy_pieces", "copy_roundtrip")}
        assert all(n >= 32 << 20 for n in frames.values()), frames


def _memory_session(url: str) -> list:
    """From another host (frames, no segment): memsets of every width at odd addresses and counts, some
    async on a stream, an H2D copy into their middle, a device-to-device copy between overlapping
    ranges, then the whole allocation read back; a memset and a read past the allocation, refused. The
    replies' status and data."""
    s = Session(url)
    try:
        out = []
        status, (ptr,), _, _ = s.call("cuMemAlloc_v2", 1 << 16)
        assert status == 0
        status, (stream,), _, _ = s.call("cuStreamCreate", 0)
        assert status == 0
        for name, args in [("cuMemsetD8_v2", (ptr + 1, 0xA5, 999)), ("cuMemsetD16_v2", (ptr + 1001, 0xBEEF, 777)),
                           ("cuMemsetD32_v2", (ptr + 3003, 0x01234567, 1111)),
                           ("cuMemsetD32Async", (ptr + 9000, 0x89ABCDEF, 500, stream)),
                           ("cudaMemset", (ptr + 12000, 0x1FF, 333)),
                           ("cuMemsetD16Async", (ptr + 13001, 0x7F01, 10, stream))]:
            out.append((name, s.call(name, *args)[0]))
        data = bytes(range(256)) * 16
        out.append(("H2D", s.call("cuMemcpyHtoD_v2", ptr + 2049, len(data), bulk=[data])[0]))
        out.append(("D2D", s.call("cuMemcpyDtoDAsync_v2", ptr + 100, ptr + 50, 4000, stream)[0]))
        out.append(("sync", s.call("cuStreamSynchronize", stream)[0]))
        status, _, frames, _ = s.call("cuMemcpyDtoH_v2", ptr, 1 << 16)
        out.append(("D2H", status, b"".join(bytes(f) for f in frames)))
        out.append(("past", s.call("cuMemsetD32_v2", ptr + (1 << 16) - 8, 1, 3)[0]))
        out.append(("read past", s.call("cuMemcpyDtoH_v2", ptr + 8, 1 << 16)[0]))
        out.append(("write past", s.call("cuMemcpyHtoD_v2", ptr + (1 << 16) - 100, len(data), bulk=[data])[0]))
        out.append(("short frame", s.call("cuMemcpyHtoD_v2", ptr, len(data) + 1, bulk=[data])[0]))
        status, _, frames, _ = s.call("cuMemcpyDtoH_v2", ptr, 1 << 16)  # nothing written by either
        out.append(("D2H again", status, b"".join(bytes(f) for f in frames)))
        out.append(("free", s.call("cuMemFree_v2", ptr)[0]))
        return out
    finally:
        s.close()


def test_memsets_and_copies_from_another_host_are_the_doors_byte_for_byte(start_server):
    """Every width of memset, an H2D copy, an overlapping device-to-device copy and a read, through the
    door on an idle device: memory ends byte for byte as Python's path leaves it, and the copies were
    the loop's; a memset, a read and a write past the allocation and a write whose frame is shorter
    than its count are still refused (Python's, which says why), nothing written."""
    got = {}
    for name, env in COPIES.items():
        url, handle = start_server(env=env)
        got[name] = _memory_session(url), _ended(handle)
    (on, counts_on), (off, counts_off) = got["compiled"], got["python"]
    assert on == off
    by = {r[0]: r for r in on}
    refused = ("past", "read past", "write past", "short frame")
    assert all(r[1] == 0 for name, r in by.items() if name not in refused), on
    assert all(by[name][1] != 0 for name in refused), on
    assert len(by["D2H"][2]) == 1 << 16 and by["D2H again"][2] == by["D2H"][2]
    # the door's: the six memsets, the H2D copy from its frame and the two reads (copies), the synchronize
    # (a wait); Python's: the D2D copy sent as a sync call (as for the cuda backend), the refusals, the
    # allocation, the stream, the free and the goodbye
    assert counts_on["copies_compiled"] == 9 and counts_on["waits_compiled"] == 1, counts_on
    assert counts_on["socket_compiled"] == 10 and counts_off["copies_compiled"] == 0, (counts_on, counts_off)
    assert counts_on["frame_bytes_compiled"] == 4096, counts_on
    for key in ("bytes_in", "bytes_out", "calls", "messages"):
        assert counts_on[key] == counts_off[key], key
    assert counts_on["bytes_out"] == 2 << 16
