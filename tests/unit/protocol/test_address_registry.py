"""The client's address registry (libhook/src/state/addresses.c), compiled alone beside a stand-in for
the state functions it asks: one lookup tells managed, pinned and device memory apart, with the range,
device and segment offset a copy needs (memory/memcpy.c asks it once per side)."""
from __future__ import annotations

import ctypes

import pytest

from rgpu.protocol.codegen import __main__ as codegen
from tests.support import clib
from tests.unit.protocol.test_alloc_table import STATE

LIBHOOK = codegen.ROOT / "libhook"
UNKNOWN, MANAGED, PINNED, DEVICE = range(4)
SHM_DATA = 4096  # RGPU_SHM_DATA (generated/rgpu_wire.h): where a segment's data starts
ALREADY_REGISTERED = 712  # cudaErrorHostMemoryAlreadyRegistered


class HostRange(ctypes.Structure):
    _fields_ = [("p", ctypes.c_size_t), ("n", ctypes.c_size_t), ("flags", ctypes.c_uint),
                ("registered", ctypes.c_int), ("seg", ctypes.c_void_p), ("lead", ctypes.c_size_t)]


class Addr(ctypes.Structure):
    _fields_ = [("kind", ctypes.c_int), ("dev", ctypes.c_int), ("base", ctypes.c_uint64), ("size", ctypes.c_size_t),
                ("within", ctypes.c_int), ("host_side", ctypes.c_int), ("pinned", HostRange),
                ("seg_off", ctypes.c_size_t)]


@pytest.fixture
def t(tmp_path):
    (tmp_path / "state.c").write_text(STATE)
    return clib.build(tmp_path / "libaddresses.so", LIBHOOK / "src" / "state" / "addresses.c", tmp_path / "state.c",
                      includes=(LIBHOOK / "src" / "state", codegen.C_OUT))


@pytest.fixture
def seg():
    """A stand-in rgpu_pinseg, zeroed (not adopted): the registry only keeps and returns it."""
    return ctypes.create_string_buffer(512)


def addr_of(t, p: int, n: int = 1) -> Addr:
    a = Addr()
    t.rgpu_addr_of(ctypes.c_void_p(p), ctypes.c_size_t(n), ctypes.byref(a))
    return a


def pin(t, p: int, n: int, seg=None, lead: int = 0, registered: int = 0) -> int:
    e = HostRange(p, n, 0, registered, ctypes.cast(seg, ctypes.c_void_p) if seg is not None else None, lead)
    return t.rgpu_pinned_add(ctypes.byref(e))


def test_one_lookup_tells_managed_pinned_and_device_memory_apart(t, seg):
    t.rgpu_allocs_note(1, ctypes.c_uint64(0x10000), ctypes.c_size_t(0x1000))
    assert pin(t, 0x20000, 0x100, seg) == 0
    t.rgpu_managed_note(ctypes.c_uint64(0x30000), ctypes.c_size_t(0x2000), 2, 0)
    d, p, m, none = addr_of(t, 0x10010), addr_of(t, 0x20010), addr_of(t, 0x31000), addr_of(t, 0x40000)
    assert (d.kind, d.dev, d.base) == (DEVICE, 1, 0x10000)
    assert (p.kind, p.dev, p.base, p.size, p.pinned.seg) == (PINNED, -1, 0x20000, 0x100, ctypes.addressof(seg))
    assert (m.kind, m.dev, m.base, m.size, m.host_side) == (MANAGED, 2, 0x30000, 0x2000, 0)
    assert (none.kind, none.dev) == (UNKNOWN, -1)


def test_a_copy_within_one_pinned_segment_is_named_by_its_offset_there(t, seg):
    assert pin(t, 0x20000, 0x100, seg, lead=0x10) == 0  # a registered range moved into a segment mid-page
    a = addr_of(t, 0x20020, 0x40)
    assert a.within and a.seg_off == SHM_DATA + 0x10 + 0x20
    assert not addr_of(t, 0x20020, 0x100).within  # runs past the range: the data is staged instead
    assert (a.pinned.seg, a.seg_off) == (ctypes.addressof(seg), SHM_DATA + 0x30)
    assert t.rgpu_pinned_whole(ctypes.c_void_p(0x200FF), ctypes.c_size_t(1))
    assert not t.rgpu_pinned_whole(ctypes.c_void_p(0x200FF), ctypes.c_size_t(2))


def test_managed_memory_is_answered_first_and_follows_its_attachment(t):
    t.rgpu_allocs_note(0, ctypes.c_uint64(0x50000), ctypes.c_size_t(0x1000))
    t.rgpu_managed_note(ctypes.c_uint64(0x50000), ctypes.c_size_t(0x1000), 0, 0)
    assert addr_of(t, 0x50010).kind == MANAGED and t.rgpu_managed_side(ctypes.c_void_p(0x50010)) == 1
    t.rgpu_managed_attached(ctypes.c_uint64(0x50000), 1)  # cudaMemAttachHost: the host copy is it
    assert addr_of(t, 0x50010).host_side == 1 and t.rgpu_managed_side(ctypes.c_void_p(0x50010)) == 2
    t.rgpu_managed_forget(ctypes.c_uint64(0x50000))
    assert addr_of(t, 0x50010).kind == DEVICE and t.rgpu_managed_side(ctypes.c_void_p(0x50010)) == 0


def test_pinned_ranges_refuse_overlaps_and_go_only_the_way_they_were_pinned(t):
    assert pin(t, 0x60000, 0x100, registered=1) == 0
    assert pin(t, 0x600FF, 0x10) == ALREADY_REGISTERED and pin(t, 0x5FFF0, 0x11) == ALREADY_REGISTERED
    assert pin(t, 0x60100, 0x10) == 0  # adjacent is fine
    out = HostRange()
    assert not t.rgpu_pinned_take(ctypes.c_size_t(0x60000), 0, ctypes.byref(out))  # registered, not allocated
    assert t.rgpu_pinned_take(ctypes.c_size_t(0x60000), 1, ctypes.byref(out)) and (out.p, out.n) == (0x60000, 0x100)
    assert addr_of(t, 0x60010).kind == UNKNOWN and addr_of(t, 0x60100).kind == PINNED
