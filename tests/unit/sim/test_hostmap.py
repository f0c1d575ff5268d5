"""Mapped host memory on the software GPU (server/backends/sim/hostmap.py through server/pinned.py):
a pinned segment mapped into the session's arena is the program's pages themselves at a device
address — what the host writes is what a kernel's loads read, a kernel's stores land in the host's
pages — and it charges no device memory; UNPIN takes it out of the address space again."""
from __future__ import annotations

import os

import numpy as np
import pytest

from rgpu.server.backends.sim.device import SimDevice
from rgpu.server.backends.sim.errors import SimFault
from rgpu.server.errors import CudaError
from rgpu.server.pinned import PinnedHost
from rgpu.server.shm import DATA
from tests.support import segments


class _Session:
    def __init__(self, device):
        self.device = device


@pytest.fixture
def segment():
    name = f"/rgpu-{os.getpid()}-h{os.urandom(8).hex()}"
    size = DATA + 3 * 4096
    nonce = segments.make(name, size)
    yield name, nonce, size
    try:
        segments.unlink(name)
    except FileNotFoundError:
        pass


def test_the_devices_loads_and_stores_are_the_segments_bytes(segment):
    name, nonce, size = segment
    dev = SimDevice(64 << 20)
    pinned = PinnedHost(_Session(dev))
    host, _addr = pinned.region([name, nonce, size, DATA, size - DATA])
    d = pinned.device_map(name, nonce, size)
    assert pinned.device_map(name, nonce, size) == d  # once per segment
    assert dev.memory.used == 0  # the host's pages: no device memory charged
    words = np.frombuffer(host, np.int32)
    words[:] = np.arange(words.size)
    lanes = np.uint64(d) + np.arange(0, 64, 4, dtype=np.uint64)
    np.testing.assert_array_equal(dev.memory.gather(lanes, np.int32), np.arange(16))  # a kernel's loads
    dev.memory.scatter(lanes, np.full(16, -7, np.int32), np.int32)  # a kernel's stores
    assert list(words[:17]) == [-7] * 16 + [16]
    dev.memset(d + 100, 0xAB, 1, 4, None)  # device work through the API, too
    assert bytes(host[100:104]) == b"\xab" * 4
    with pytest.raises(SimFault):  # its bounds are the segment's
        dev.memory.gather(np.array([d + size - DATA], np.uint64), np.int32)
    assert pinned.drop(name)
    with pytest.raises(SimFault):  # unmapped: no longer an address of the device
        dev.memory.gather(np.array([d], np.uint64), np.int32)
    words[0] = 5  # and the host's memory is its own again, untouched by the unmapping
    assert words[0] == 5


def test_a_segment_replaced_under_its_name_is_not_mapped(segment):
    name, nonce, size = segment
    dev = SimDevice(64 << 20)
    pinned = PinnedHost(_Session(dev))
    pinned.region([name, nonce, size, DATA, 0])
    segments.unlink(name)
    segments.make(name, size)  # another file of the same name and size
    with pytest.raises(CudaError):
        pinned.device_map(name, nonce, size)
    pinned.close()
