"""The client's table of device allocations (in the address registry, libhook/src/state/addresses.c),
compiled alone beside a stand-in for the two state functions it asks (current device, device count),
and the records that feed it: `allocates` and `frees` in the call contract, and what the generator makes of them."""
from __future__ import annotations

import ctypes

import pytest

from rgpu.protocol.codegen import __main__ as codegen
from rgpu.protocol.codegen import emit_c, records
from tests.support import clib
from tests.unit.protocol.test_contract_misclassified import _place, real  # noqa: F401  (the fixture)

LIBHOOK = codegen.ROOT / "libhook"

STATE = r"""
#include <stdarg.h>
#include <stdio.h>
int cur, ndev = 4, nlogged;
char logged[512];
int rgpu_current_device(void) { return cur; }
int rgpu_device_count(void) { return ndev; }
int rgpu_log_level = 99; /* every line asked for reaches rgpu_log_line (rgpu_call.h's rgpu_log) */
void rgpu_log_line(int level, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(logged, sizeof logged, fmt, ap);
    va_end(ap);
    nlogged++;
}
"""


@pytest.fixture
def t(tmp_path):
    """A fresh library per test: the table, and its once-only warning, start empty."""
    (tmp_path / "state.c").write_text(STATE)
    return clib.build(tmp_path / "liballocs.so", LIBHOOK / "src" / "state" / "addresses.c", tmp_path / "state.c",
                      includes=(LIBHOOK / "src" / "state", codegen.C_OUT))


def find(t, p: int):
    dev, base = ctypes.c_int(-1), ctypes.c_uint64(0)
    hit = t.rgpu_allocs_find(ctypes.c_uint64(p), ctypes.byref(dev), ctypes.byref(base))
    return (dev.value, base.value) if hit else None


def _logged(t) -> bytes:
    return ctypes.string_at(ctypes.addressof(ctypes.c_char.in_dll(t, "logged")))


def note(t, dev: int, base: int, size: int) -> None:
    t.rgpu_allocs_note(dev, ctypes.c_uint64(base), ctypes.c_size_t(size))


def test_an_allocation_is_found_from_its_start_to_its_last_byte_only(t):
    note(t, 1, 0x1000, 0x100)
    note(t, 1, 0x3000, 0x10)
    assert find(t, 0x1000) == (1, 0x1000) and find(t, 0x10FF) == (1, 0x1000)
    assert find(t, 0x1100) is None and find(t, 0xFFF) is None
    assert find(t, 0x300F) == (1, 0x3000) and find(t, 0x3010) is None


def test_the_current_device_is_looked_at_first_as_the_servers_are_asked(t):
    # the same address on two servers (their address spaces are their own): the current one's wins,
    # and the program is told, once, that its devices' memory cannot be told apart
    note(t, 0, 0x5000, 0x100)
    assert ctypes.c_int.in_dll(t, "nlogged").value == 0
    note(t, 2, 0x5000, 0x100)
    assert ctypes.c_int.in_dll(t, "nlogged").value == 1
    assert b"devices 0 and 2 gave out the same addresses (0x5000)" in _logged(t)
    note(t, 2, 0x5400, 0x100)
    note(t, 1, 0x5400, 0x100)
    assert ctypes.c_int.in_dll(t, "nlogged").value == 1
    assert find(t, 0x5010)[0] == 0
    ctypes.c_int.in_dll(t, "cur").value = 2
    assert find(t, 0x5010)[0] == 2
    ctypes.c_int.in_dll(t, "cur").value = 3
    assert find(t, 0x5010)[0] == 0  # then the others in order, as rgpu_device_of asks them


def test_a_free_forgets_only_the_allocation_it_names(t):
    note(t, 0, 0x1000, 0x100)
    note(t, 1, 0x1000, 0x100)
    t.rgpu_allocs_forget(0, ctypes.c_uint64(0x1010))  # not a start: nothing goes
    assert find(t, 0x1000) == (0, 0x1000)
    t.rgpu_allocs_forget(0, ctypes.c_uint64(0x1000))
    assert find(t, 0x1000) == (1, 0x1000)
    t.rgpu_allocs_forget(-1, ctypes.c_uint64(0x1000))  # -1: whichever device has it
    assert find(t, 0x1000) is None


def test_an_allocation_over_entries_freed_unseen_replaces_them(t):
    for base in (0x1000, 0x2000, 0x3000, 0x9000):
        note(t, 0, base, 0x800)
    note(t, 0, 0x1800, 0x2000)  # overlaps 0x2000 and 0x3000 only: they were freed some way unseen
    assert find(t, 0x1000) == (0, 0x1000)
    assert find(t, 0x2000) == (0, 0x1800) and find(t, 0x37FF) == (0, 0x1800)
    assert find(t, 0x3800) is None and find(t, 0x9000) == (0, 0x9000)


def test_a_reset_drops_its_device_and_the_table_grows(t):
    for i in range(1000):  # past the first capacity, noted out of order
        note(t, 3, 0x100000 + ((i * 7919) % 1000) * 0x100, 0x80)
    assert all(find(t, 0x100000 + i * 0x100 + 0x7F) == (3, 0x100000 + i * 0x100) for i in range(1000))
    assert find(t, 0x100000 + 0x80) is None
    note(t, 2, 0x100000, 0x80)
    t.rgpu_allocs_drop(3)
    assert find(t, 0x100040) == (2, 0x100000) and find(t, 0x100140) is None


def test_empty_and_wrapping_ranges_and_unknown_devices_are_not_noted(t):
    note(t, 0, 0x1000, 0)
    note(t, 0, 2**64 - 0x10, 0x100)
    note(t, 99, 0x4000, 0x10)
    assert find(t, 0x1000) is None and find(t, 2**64 - 1) is None and find(t, 0x4000) is None


# ---- the records that feed it -------------------------------------------------------------------

def test_allocating_records_note_their_allocation_with_the_size_the_call_wrote(real):  # noqa: F811
    # (the pitched calls' own records are hand-written now, memory/placed.c: the record as it was generated)
    pitched = emit_c.stub(_place(real, "cudaMallocPitch", {"side": "forward", "params": {"devPtr": "out:devptr", "pitch": "out"},
                                                           "allocates": {"at": "devPtr", "bytes": "pitch * height"}}))
    read = pitched.index("*pitch = (__typeof__(*pitch))rgpu_out_u(&c);")
    noted = pitched.index("rgpu_allocs_note(c.dev, (uint64_t)(uintptr_t)*devPtr, (size_t)(*pitch) * (size_t)(height));")
    assert read < noted < pitched.index("rgpu_end(&c);") and "if (rc == 0) {" in pitched[:noted]
    generated = {"side": "forward", "params": {"dptr": "out"}, "allocates": {"at": "dptr", "bytes": "bytesize"}}
    assert "(size_t)(bytesize)" in emit_c.stub(_place(real, "cuMemAlloc_v2", generated))


def test_freeing_records_forget_before_anything_else_and_a_reset_after_its_reply(real):  # noqa: F811
    free = emit_c.stub(_place(real, "cudaFreeAsync"))
    assert free.index("rgpu_allocs_forget(-1, (uint64_t)(uintptr_t)devPtr);") < free.index("rgpu_capture_cudaFreeAsync")
    reset = emit_c.stub(_place(real, "cudaDeviceReset"))
    assert reset.index("int rc = rgpu_sync(&c);") < reset.index("rgpu_allocs_drop(c.dev);")


@pytest.mark.parametrize("body, refusal", [
    ({"side": "forward", "params": {"devPtr": "out:devptr"}, "allocates": {"at": "size", "bytes": "size"}},
     "not an out-value that is an address"),
    ({"side": "forward", "params": {"devPtr": "out:devptr"}, "allocates": {"at": "devPtr", "bytes": "width"}},
     "width is not an integer wire argument"),
])
def test_an_allocates_that_does_not_fit_the_call_is_refused(real, body, refusal):  # noqa: F811
    with pytest.raises(Exception, match=refusal):
        _place(real, "cudaMalloc", body)


@pytest.mark.parametrize("body, refusal", [
    ({"side": "forward", "params": {"devPtr": "out:devptr"}, "allocates": {"at": "devPtr"}}, "allocates is"),
    ({"side": "forward", "client": "memory/x.c", "frees": "devPtr"}, "belong to generated forward stubs"),
    ({"side": "client", "why": "w", "client": "memory/x.c", "allocates": {"at": "a", "bytes": "n"}},
     "belong to generated forward stubs"),
])
def test_records_with_a_malformed_allocates_or_frees_are_refused(body, refusal):
    with pytest.raises(records.RecordError, match=refusal):
        records.parse_record("cudaMalloc", "test", body)


def test_a_frees_all_must_wait_for_its_reply(real):  # noqa: F811
    with pytest.raises(Exception, match="frees = \"all\" on an async call"):
        _place(real, "cudaFreeAsync", {"side": "forward", "params": {"devPtr": "devptr"}, "flags": ["async"],
                                       "frees": "all"})
