"""The software GPU's memory: plausible addresses, exact bounds, out-of-memory, lane access."""
from __future__ import annotations

import numpy as np
import pytest

from rgpu.server.backends.sim.errors import SimError, SimFault
from rgpu.server.backends.sim.memory import DeviceMemory


@pytest.fixture
def mem():
    m = DeviceMemory(1 << 24)
    yield m
    m.close()


def test_addresses_are_64_bit_aligned_and_distinct(mem):
    a, b = mem.alloc(1000), mem.alloc(1)
    assert a >= 1 << 40 and a % 256 == 0 and b % 256 == 0 and b >= a + 1000
    assert mem.allocation(a + 999) == (a, 1000) and mem.allocation(a + 1000) is None
    assert mem.allocation(b) == (b, 1)


def test_reads_and_writes_are_bounds_checked(mem):
    a = mem.alloc(64)
    mem.write(a, b"x" * 64)
    assert mem.read(a, 64) == b"x" * 64
    with pytest.raises(SimError) as e:
        mem.read(a + 32, 64)
    assert e.value.code == "CUDA_ERROR_INVALID_VALUE" and not e.value.sticky


def test_the_bytes_just_past_an_allocation_belong_to_no_other(mem):
    """Allocations of the alignment's size, made back to back: a copy or a lane access that starts
    just past one fails, as on a GPU, instead of reading the next allocation."""
    a = mem.alloc(1024)
    b = mem.alloc(1024)
    assert b >= a + 1024 + 256 and mem.allocation(a + 1024) is None
    for start, n in [(a + 1024, 16), (a + 1020, 8)]:
        with pytest.raises(SimError):
            mem.read(start, n)
    with pytest.raises(SimFault):
        mem.gather(np.array([a + 1024], np.uint64), np.uint32)
    mem.free(a)
    mem.free(b)
    assert mem.used == 0
    c = mem.alloc(2048)  # the freed space (and its gap) is reused
    assert c == a


def test_out_of_memory_and_free_returns_it(mem):
    a = mem.alloc(1 << 23)
    with pytest.raises(SimError) as e:
        mem.alloc(1 << 24)
    assert e.value.code == "CUDA_ERROR_OUT_OF_MEMORY"
    mem.free(a)
    assert mem.used == 0
    mem.alloc(1 << 24)


def test_a_kernel_reaches_the_rest_of_the_allocations_granule_and_no_further(mem):
    """A kernel may run past the bytes asked for into the rest of the allocation's granule, as on a
    GPU (numba's test_localmem writes 10 ints into a 1-int array); the host API's copies may not, and
    past the granule a kernel's access faults."""
    from rgpu.server.backends.sim.memory import ALIGNMENT
    a = mem.alloc(4)
    inside = a + 4 * np.arange(10, dtype=np.uint64)
    mem.scatter(inside, np.arange(10, dtype=np.int32), np.int32)
    assert mem.gather(inside, np.int32).tolist() == list(range(10))
    assert mem.gather(np.array([a + ALIGNMENT - 4], np.uint64), np.int32).tolist() == [0]
    with pytest.raises(SimFault, match="ILLEGAL_ADDRESS"):
        mem.gather(np.array([a + ALIGNMENT], np.uint64), np.int32)
    with pytest.raises(SimError, match="outside any allocation"):
        mem.read(a, 8)
    b = mem.alloc(4)  # the next allocation lies past the guard: its granule is not a's
    assert b >= a + ALIGNMENT + 1


def test_double_free_is_invalid_value(mem):
    a = mem.alloc(16)
    mem.free(a)
    with pytest.raises(SimError, match="not an allocation"):
        mem.free(a)


def test_lane_gather_scatter_and_illegal_address(mem):
    a = mem.alloc(4 * 64)  # a whole granule (ALIGNMENT): its end is the granule's
    addrs = a + 4 * np.arange(64, dtype=np.uint64)
    mem.scatter(addrs, np.arange(64, dtype=np.float32) * 1.5, np.float32)
    assert np.array_equal(mem.gather(addrs, np.float32), np.arange(64, dtype=np.float32) * 1.5)
    with pytest.raises(SimFault) as e:
        mem.gather(addrs + np.uint64(4), np.float32)  # lane 63 runs off the end
    assert e.value.code == "CUDA_ERROR_ILLEGAL_ADDRESS" and e.value.sticky
    with pytest.raises(SimFault, match="MISALIGNED"):
        mem.gather(addrs[:1] + np.uint64(2), np.float32)


def test_shared_accounting_hook_refuses_beyond_the_gpu():
    budget = {"used": 0}

    def reserve(delta):
        if budget["used"] + delta > 4096:
            return False
        budget["used"] += delta
        return True
    m = DeviceMemory(1 << 20, reserve=reserve)
    a = m.alloc(4096)
    with pytest.raises(SimError, match="device is full"):
        m.alloc(256)
    m.free(a)
    assert budget["used"] == 0


def test_aligned_allocations_start_and_end_on_their_boundary(mem):
    small = mem.alloc(10)
    a = mem.alloc(5000, align=1 << 16)
    after = mem.alloc(10)
    assert a % (1 << 16) == 0 and a >= small + 256
    assert mem.used == 256 + (1 << 16) + 256
    assert after + 256 <= a or after >= a + (1 << 16)  # the whole aligned block is its own
    mem.free(small)
    b = mem.alloc(1 << 16, align=1 << 16)
    assert b % (1 << 16) == 0 and b != a
