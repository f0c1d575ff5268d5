"""Allocations the client places (server/api/placed.py) at the dispatcher, on the software GPU: the
range it is lent is one no allocation the server chooses takes; a lease's quota is charged exactly
(a grant charges what the allocation needs and the spare asked for, a place the spare covers charges
nothing more, a free gives the charge to the spare and the spare past its cap to the quota); a place
that cannot be honoured is refused, nothing changed (with a wait: that call's error; without: the
worker reports it at the next call that waits); and cudaMemGetInfo counts the spare as the session's own."""
from __future__ import annotations

import pytest

from rgpu.protocol.generated import enums
from tests.unit.server.test_vmm import call, d, ok, quota_session  # noqa: F401  (d: the dispatcher fixture)

DRV = enums.cudaError_enum
MiB = 1 << 20
UNIT = 512


@pytest.fixture
def s(monkeypatch):
    monkeypatch.setenv("RGPU_PLACE_SPARE", str(2 * MiB))
    session = quota_session(8 * MiB)
    yield session
    session.close()


def test_the_range_lent_is_one_no_allocation_the_server_chooses_takes(d, s):
    base, span, granule, guard, unit, cap, spare, pitch_align = ok(call(d, s, "rgpuMemPlacement"))
    assert span >= granule == 2 * MiB and base % granule == 0 and guard > 0 and unit == UNIT
    assert cap == 2 * MiB and spare == 0
    # the pitch the client rounds a pitched allocation's rows to is the one cudaMallocPitch here uses
    assert pitch_align == 512 and ok(call(d, s, "cudaMallocPitch", 1000, 3))[1] == 2 * pitch_align
    chosen = [ok(call(d, s, "cudaMalloc", n)) for n in (100, MiB, 3 * MiB)]
    reserved = ok(call(d, s, "cuMemAddressReserve", 64 * MiB, 0, 0, 0))
    for a, n in [*zip(chosen, (100, MiB, 3 * MiB)), (reserved, 64 * MiB)]:
        assert a + n <= base or a >= base + span
    # asked again, the same range
    assert list(ok(call(d, s, "rgpuMemPlacement"))[:2]) == [base, span]


def test_the_quota_is_charged_exactly_and_the_spare_covers_async_places(d, s):
    base = ok(call(d, s, "rgpuMemPlacement"))[0]
    assert ok(call(d, s, "rgpuMemPlaceGrant", base, 1000, 1536, 0)) == 0  # no spare asked: exact
    assert s.quota["used"] == 1024
    assert ok(call(d, s, "rgpuMemPlaceGrant", base + 2048, 4096, 4608, MiB)) == MiB
    assert s.quota["used"] == 1024 + 4096 + MiB
    free, total = ok(call(d, s, "cudaMemGetInfo"))
    assert free == total - 1024 - 4096  # the spare is the session's to allocate
    ok(call(d, s, "rgpuMemPlace", base + 8192, 100, 1024))
    assert s.quota["used"] == 1024 + 4096 + MiB and s.device.spare == MiB - UNIT
    # the placed memory is the program's: copies in and out of it, up to the bytes asked for
    ok(call(d, s, "cuMemcpyHtoD_v2", base + 8192, 100, bulk=[b"x" * 100]))
    assert call(d, s, "cuMemcpyHtoD_v2", base + 8192, 101, bulk=[b"x" * 101]).rc == DRV["CUDA_ERROR_INVALID_VALUE"]
    # a free gives its charge to the spare; past the cap the spare goes back to the quota
    ok(call(d, s, "cudaFree", base + 2048))
    assert s.device.spare == MiB - UNIT + 4096 and s.quota["used"] == 1024 + MiB + 4096 - UNIT + UNIT
    big = base + 2 * MiB
    ok(call(d, s, "rgpuMemPlaceGrant", big, 3 * MiB, 4 * MiB, 0))
    assert s.device.spare == 0 and s.quota["used"] == 1024 + UNIT + 3 * MiB
    ok(call(d, s, "cudaFree", big))
    assert s.device.spare == 2 * MiB and s.quota["used"] == 1024 + UNIT + 2 * MiB


def test_a_grant_the_quota_cannot_hold_is_cudaMallocs_out_of_memory(d, s):
    base = ok(call(d, s, "rgpuMemPlacement"))[0]
    ok(call(d, s, "rgpuMemPlaceGrant", base, 6 * MiB, 6 * MiB + UNIT, 0))
    # more spare than the quota has is not given; what the allocation needs is
    assert ok(call(d, s, "rgpuMemPlaceGrant", base + 8 * MiB, MiB, MiB + UNIT, 4 * MiB)) == 0
    assert s.quota["used"] == 7 * MiB
    r = call(d, s, "rgpuMemPlaceGrant", base + 10 * MiB, 2 * MiB, 4 * MiB, 0)
    assert r.rc == DRV["CUDA_ERROR_OUT_OF_MEMORY"]
    assert s.quota["used"] == 7 * MiB and s.device.allocation(base + 10 * MiB) is None
    ok(call(d, s, "cudaFree", base + 8 * MiB))  # not sticky: the session goes on


@pytest.mark.parametrize("where", ["overlap", "outside", "misfit"])
def test_a_grant_at_a_bad_place_changes_nothing(d, s, where):
    base, span = ok(call(d, s, "rgpuMemPlacement"))[:2]
    ok(call(d, s, "rgpuMemPlaceGrant", base, 4096, 4608, MiB))
    used, spare = s.quota["used"], s.device.spare
    addr, size, taken = {"overlap": (base + 4096, 100, 512), "outside": (base + span, 100, 512),
                         "misfit": (base + 8192, 4096, 4096)}[where]  # misfit: no room for its guard
    assert call(d, s, "rgpuMemPlaceGrant", addr, size, taken, 0).rc == DRV["CUDA_ERROR_INVALID_VALUE"]
    assert (s.quota["used"], s.device.spare) == (used, spare)
    assert s.device.allocation(addr) is None or where == "overlap"
    ok(call(d, s, "cudaFree", base))


def test_an_async_place_that_cannot_be_honoured_changes_nothing(d, s):
    base = ok(call(d, s, "rgpuMemPlacement"))[0]
    ok(call(d, s, "rgpuMemPlaceGrant", base, 4096, 4608, MiB))
    used, spare = s.quota["used"], s.device.spare
    r = call(d, s, "rgpuMemPlace", base, 100, 512)  # over the first
    assert r.rc == DRV["CUDA_ERROR_INVALID_VALUE"]
    assert (s.quota["used"], s.device.spare) == (used, spare)
    ok(call(d, s, "cudaMalloc", 100))  # the session goes on


def test_an_async_place_past_spare_and_quota_is_out_of_memory(d, s):
    base = ok(call(d, s, "rgpuMemPlacement"))[0]
    # a session whose spare is less than the client thinks (it moved): the quota is asked
    ok(call(d, s, "rgpuMemPlace", base, MiB, MiB + UNIT))
    assert s.quota["used"] == MiB and s.device.spare == 0
    assert call(d, s, "rgpuMemPlace", base + 2 * MiB, 8 * MiB, 8 * MiB + UNIT).rc == DRV["CUDA_ERROR_OUT_OF_MEMORY"]
    assert s.quota["used"] == MiB and s.device.allocation(base + 2 * MiB) is None
    assert call(d, s, "cuMemsetD8_v2", base + 2 * MiB, 0, 1).rc == DRV["CUDA_ERROR_INVALID_VALUE"]  # nobody's


def test_device_reset_gives_placed_memory_to_the_spare_and_the_rest_back(d, s):
    base = ok(call(d, s, "rgpuMemPlacement"))[0]
    ok(call(d, s, "rgpuMemPlaceGrant", base, 3 * MiB, 4 * MiB, 0))
    ok(call(d, s, "rgpuMemPlaceGrant", base + 4 * MiB, 1000, 1536, 0))
    ok(call(d, s, "cudaDeviceReset"))
    assert s.device.spare == 2 * MiB and s.quota["used"] == 2 * MiB
    assert ok(call(d, s, "rgpuMemPlacement"))[6] == 2 * MiB  # the client asks again after a reset
