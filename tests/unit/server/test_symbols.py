"""Copies to and from a module variable by its name (server/api/symbols.py: cudaMemcpyToSymbol and
kin), on the software GPU in one process: the data lands where cuModuleGetGlobal says the variable
is, at the offset asked, in the sync and stream-ordered forms; a copy past the variable's end or to
a name the module lacks fails and writes nothing."""
from __future__ import annotations

import struct

from rgpu.protocol.generated.calltable import BY_NAME
from tests.unit.server.test_checkpoint import call, dispatcher, private_module_cache, program, read  # noqa: F401


def coeffs(d, s, n):
    return struct.unpack("<4f", read(d, s, call(d, s, "cuModuleGetGlobal_v2", n["core"], "coeffs").outs[0], 16))


def test_copies_by_name_land_in_the_variable_at_their_offset(dispatcher, program):
    d = dispatcher
    s, n = program
    assert coeffs(d, s, n) == (1.0, 0.5, 0.25, 0.125)  # the module's initial values
    call(d, s, "rgpuMemcpyToSymbol", n["core"], "coeffs", 4, 8, bulk=[struct.pack("<2f", 3.0, 4.0)])
    assert coeffs(d, s, n) == (1.0, 3.0, 4.0, 0.125)
    call(d, s, "rgpuMemcpyToSymbolAsync", n["core"], "coeffs", 12, 4, n["stream"], bulk=[struct.pack("<f", 9.5)])
    got = call(d, s, "rgpuMemcpyFromSymbol", n["core"], "coeffs", 8, 8, n["stream"])
    assert struct.unpack("<2f", b"".join(bytes(b) for b in got.bulk)) == (4.0, 9.5)
    whole = call(d, s, "rgpuMemcpyFromSymbol", n["core"], "coeffs", 0, 16, 0)
    assert struct.unpack("<4f", b"".join(bytes(b) for b in whole.bulk)) == coeffs(d, s, n) == (1.0, 3.0, 4.0, 9.5)
    assert call(d, s, "rgpuModuleGlobalSize", n["core"], "coeffs").outs == [16]  # cudaGetSymbolSize
    r = d.run(s, BY_NAME["rgpuModuleGlobalSize"], [n["core"], "no_such_variable"], [])
    assert r.rc != 0 and "no_such_variable" in r.message, r


def test_a_copy_past_the_variable_or_to_a_missing_name_fails_and_writes_nothing(dispatcher, program):
    d = dispatcher
    s, n = program
    before = coeffs(d, s, n)
    r = d.run(s, BY_NAME["rgpuMemcpyToSymbol"], [n["core"], "coeffs", 12, 8], [b"\xff" * 8])
    assert r.rc != 0 and "module variable 'coeffs', which is 16 bytes" in r.message, r
    r = d.run(s, BY_NAME["rgpuMemcpyFromSymbol"], [n["core"], "coeffs", 16, 1, 0], [])
    assert r.rc != 0 and "which is 16 bytes" in r.message, r
    r = d.run(s, BY_NAME["rgpuMemcpyToSymbol"], [n["core"], "no_such_variable", 0, 4], [b"\0" * 4])
    assert r.rc != 0 and "no_such_variable" in r.message, r
    # the data frames must hold what the call says
    r = d.run(s, BY_NAME["rgpuMemcpyToSymbol"], [n["core"], "coeffs", 0, 8], [b"\0" * 4])
    assert r.rc != 0 and "not the 8" in r.message, r
    assert coeffs(d, s, n) == before
