"""The search of copied device memory for module variables' addresses (server/checkpoint/escapes.py)
and the Copier that runs it on every chunk it reads (server/checkpoint/memory.py)."""
from __future__ import annotations

import struct

import pytest

from rgpu.server.checkpoint.escapes import Escapes
from rgpu.server.checkpoint.image import CheckpointError
from rgpu.server.checkpoint.memory import Copier

TALLY, MARKS = 0x7F3A_0020_0000, 0x7F3A_0020_0100  # [TALLY, +16) and [MARKS, +256)
RANGES = [(MARKS, MARKS + 256, "marks"), (TALLY, TALLY + 16, "tally")]


def test_a_word_inside_a_variable_is_found_with_its_place_and_name():
    data = struct.pack("<4Q", 7, 0x3F800000_3F800000, MARKS + 200, TALLY + 8)
    assert Escapes(RANGES).find(0x10000, data) == (0x10000 + 16, MARKS + 200, "marks")
    assert Escapes(RANGES).find(0x10000, data[24:]) == (0x10000, TALLY + 8, "tally")


def test_the_ends_of_a_range_and_the_gaps_between_ranges_are_not_inside():
    outside = [TALLY - 8, TALLY + 16, MARKS - 1, MARKS + 256, 0, 2 ** 64 - 1]
    assert Escapes(RANGES).find(0, struct.pack(f"<{len(outside)}Q", *outside)) is None
    assert Escapes(RANGES).find(0, struct.pack("<2Q", TALLY, MARKS + 255)) == (0, TALLY, "tally")


def test_words_are_aligned_in_the_devices_address_space_not_the_chunks():
    # a chunk starting 4 bytes past an 8-byte boundary: its first word starts at offset 4
    data = b"\0" * 4 + struct.pack("<Q", TALLY) + b"\0" * 3
    assert Escapes(RANGES).find(0x1004, data) == (0x1008, TALLY, "tally")
    assert Escapes(RANGES).find(0x1000, data) is None  # the same bytes, read as other words
    assert Escapes(RANGES).find(0x1000, b"\1\2\3") is None


class FakeDevice:
    """Memory of one allocation, and the ranges of its variables."""

    def __init__(self, data: bytes, ranges):
        self.data, self.ranges = bytearray(data), ranges

    def escape_ranges(self):
        return self.ranges

    def written_ranges(self, addr, size):
        return [(addr, size)]

    def read_memory(self, addr, size):
        return bytes(self.data[addr - 0x40000:addr - 0x40000 + size])


def test_the_copier_refuses_a_chunk_holding_an_address_naming_the_variable():
    dev = FakeDevice(bytes(300 << 10), RANGES)
    layout = [[0x40000, 300 << 10, 300 << 10]]
    copier = Copier(dev)
    assert len(list(copier.changed(copier.pieces(layout)))) == 2  # clean: both chunks go
    dev.data[(256 << 10) + 40:(256 << 10) + 48] = struct.pack("<Q", MARKS + 8)  # stored since
    with pytest.raises(CheckpointError) as e:
        list(copier.changed(copier.pieces(layout)))
    assert "module variable 'marks'" in str(e.value) and f"0x{0x40000 + (256 << 10) + 40:x}" in str(e.value)
    dev.ranges = []  # a backend that places variables again where they were: nothing to refuse
    fresh = Copier(dev)
    assert len(list(fresh.changed(fresh.pieces(layout)))) == 2
