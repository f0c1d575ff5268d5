"""The envelope's generated codecs (protocol/contract/envelope.toml -> protocol/generated/envelope.py and
libhook/generated/rgpu_envelope.h): every record round-trips through both languages, each reading the
other's bytes, and a malformed envelope (torn, a wrong or unknown tag, past a bound, nested too deep)
is refused with the record and field named, by both."""
from __future__ import annotations

import subprocess
from pathlib import Path

import cffi
import msgpack
import pytest

from rgpu.protocol import limits, wire
from rgpu.protocol.codegen import envelope as spec
from rgpu.protocol.generated import envelope as env

ROOT = Path(__file__).resolve().parents[3]
ENV = spec.load()
RECORDS = list(ENV.records.values())


def _sample(kind_field: spec.Field, big: bool = False):
    f = kind_field
    if f.kind == "uint":
        return 2**63 + 5 if big else 7
    if f.kind == "int":
        return -(2**40) if big else 3
    if f.kind == "enum":
        return f.params[0]
    if f.kind == "str":
        return "é" * (f.params[0] // 2) if big else "text"
    if f.kind == "bin":
        return bytes(range(f.params[0]))
    if f.kind == "args":
        return [1, -2, 2.5, None, True, "s", b"b", [1, [2]], {"k": [3]}]
    if f.kind == "list":
        rec = ENV.records[f.params[0]]
        return [_value(rec, big) for _ in range(f.params[1] if big else 2)]
    raise AssertionError(f.kind)


def _value(rec: spec.Record, big: bool = False, variant: int = 0, optional: bool = True):
    """A value of `rec` with every field set (optional ones too unless `optional` is false)."""
    cls = getattr(env, rec.cls)
    vals = []
    for f in rec.fields:
        if f.optional and not optional:
            break
        if f.kind == "one_of":
            vals.append(_value(ENV.records[f.params[variant % len(f.params)]], big))
        else:
            vals.append(_sample(f, big))
    return cls(*vals)


def _cases():
    for rec in RECORDS:
        variants = max((len(f.params) for f in rec.fields if f.kind == "one_of"), default=1)
        for v in range(variants):
            for big in (False, True):
                yield pytest.param(rec, _value(rec, big, v), id=f"{rec.name}-{v}-{'big' if big else 'small'}")
        if any(f.optional for f in rec.fields):
            yield pytest.param(rec, _value(rec, optional=False), id=f"{rec.name}-without-optional")


def _bytes(rec, value) -> bytes:
    return msgpack.packb(getattr(env, f"write_{rec.name}")(value), use_bin_type=True)


def _c_bytes(rec, value) -> bytes:
    """The bytes C writes for `value`: Python's, but for a uint(wide) field (a call's seq), which C writes 4
    bytes wide at least (msgpack uint32, or uint64 past it) where Python takes the fewest bytes."""
    items = getattr(env, f"write_{rec.name}")(value)
    packer = msgpack.Packer(use_bin_type=True)
    out = packer.pack_array_header(len(items))
    fields = [None] * (rec.tag is not None) + list(rec.fields)  # a tagged record's array starts with its tag
    for f, item in zip(fields, items):  # items: as many as fields, or fewer (optional ones left out)
        if f is not None and f.kind == "uint" and f.params == ("wide",):
            out += b"\xce" + item.to_bytes(4, "big") if item <= 0xFFFFFFFF else b"\xcf" + item.to_bytes(8, "big")
        else:
            out += packer.pack(item)
    return out


def _read(rec, data: bytes):
    return getattr(env, f"read_{rec.name}")(msgpack.unpackb(data, raw=False, strict_map_key=False))


@pytest.mark.parametrize("rec, value", list(_cases()))
def test_every_record_round_trips_in_python(rec, value):
    back = _read(rec, _bytes(rec, value))
    assert back == value and type(back) is type(value)


# ---- C: the generated header, built here into a small library that reads a record and writes it back

_C = r"""
#include <string.h>
#include "rgpu_envelope.h"
/* reads one `which` record from [in, in + n) and writes it back: 0 and the bytes, or -1 and why */
int env_echo(int which, const void *in, size_t n, void *out, size_t cap, size_t *outn, const char **why) {
    mp_reader r;
    mp_writer w;
    int rc = -1;
    *why = "";
    mp_rinit(&r, in, n);
    mp_init(&w, 64);
    switch (which) {
CASES
    }
    if (rc == 0 && r.p != (const uint8_t *)in + n) { *why = "trailing bytes"; rc = -1; }
    if (rc == 0 && w.len <= cap) { memcpy(out, w.buf, w.len); *outn = w.len; }
    mp_free(&w);
    return rc;
}
"""


@pytest.fixture(scope="module")
def clib(tmp_path_factory):
    d = tmp_path_factory.mktemp("envelope_c")
    cases = "\n".join(f"    case {i}: {{ rgpu_env_{r.name} v; memset(&v, 0, sizeof v); "
                      f"rc = rgpu_env_read_{r.name}(&r, &v, why); "
                      f"if (!rc) rgpu_env_write_{r.name}(&w, &v); break; }}" for i, r in enumerate(RECORDS))
    (d / "echo.c").write_text(_C.replace("CASES", cases))
    so = d / "libecho.so"
    p = subprocess.run(["gcc", "-O1", "-Wall", "-Werror", "-Wno-unused-function", "-shared", "-fPIC",
                        f"-I{ROOT / 'libhook' / 'generated'}", f"-I{ROOT / 'libhook' / 'src' / 'transport'}",
                        str(d / "echo.c"), str(ROOT / "libhook" / "src" / "transport" / "mpack.c"), "-o", str(so)],
                       capture_output=True, text=True)
    assert p.returncode == 0, p.stderr[-3000:]
    ffi = cffi.FFI()
    ffi.cdef("int env_echo(int which, const void *in, size_t n, void *out, size_t cap, size_t *outn, "
             "const char **why);")
    lib = ffi.dlopen(str(so))

    def echo(rec, data: bytes):
        out = ffi.new("char[]", len(data) + 64)
        outn, why = ffi.new("size_t *"), ffi.new("const char **")
        rc = lib.env_echo(RECORDS.index(rec), data, len(data), out, len(data) + 64, outn, why)
        return (bytes(ffi.buffer(out, outn[0])) if rc == 0 else None), ffi.string(why[0]).decode()
    return echo


@pytest.mark.parametrize("rec, value", list(_cases()))
def test_every_record_round_trips_through_c(clib, rec, value):
    data = _bytes(rec, value)
    back, why = clib(rec, data)
    assert back == _c_bytes(rec, value), why  # C read Python's bytes and wrote them back (a seq wide)
    assert _read(rec, back) == value


def _malformed():
    """(record, bytes, what Python's error says, what C's error starts with)."""
    call = ENV.records["call"]
    good = _bytes(call, _value(call))
    yield pytest.param("call", good[:len(good) // 2], "not msgpack", "call", id="torn")
    yield pytest.param("call", msgpack.packb([1, 2, 0, [], 0, [9, [], 0]]), "call.copy: expected a known tag",
                       "call.copy: unknown tag", id="unknown-tag")
    yield pytest.param("call", msgpack.packb([1, 2, 0, [], 0, [2, [], 0]]), "call.copy: expected an array of 4",
                       "staged: expected an array of 4", id="tag-without-its-fields")
    yield pytest.param("call", msgpack.packb([1, 2, 0, [], 0, [[], 0]]), "call.copy: expected a tagged array",
                       "call.copy: expected a tagged array", id="old-untagged-shape")
    yield pytest.param("shm", msgpack.packb([3, [], 0]), "starting with tag 1", "shm: expected tag 1",
                       id="another-records-tag")
    yield pytest.param("call", msgpack.packb([1, 2, env.SYNC_MAX + 1, [], 0]), "call.sync", "call.sync",
                       id="sync-past-its-kinds")
    yield pytest.param("call", msgpack.packb([-1, 2, 0, [], 0]), "call.seq", "call.seq", id="negative-seq")
    yield pytest.param("shm", msgpack.packb([1, [[4096, 1]] * (env.CALL_REGIONS + 1), 0]), "shm.regions",
                       "shm.regions", id="too-many-regions")
    yield pytest.param("pinned", msgpack.packb([3, "n" * (env.PIN_NAME + 1), bytes(16), 1, 2, 3], use_bin_type=True),
                       "pinned.name", "pinned.name", id="oversized-name")
    yield pytest.param("pinned", msgpack.packb([3, "n", bytes(15), 1, 2, 3], use_bin_type=True),
                       "pinned.nonce", "pinned.nonce", id="short-nonce")
    deep: list = []
    for _ in range(limits.MAX_DEPTH + 2):
        deep = [deep]
    yield pytest.param("call", msgpack.packb([1, 2, 0, [deep], 0]), "call.args: value nested deeper",
                       "call.args", id="nested-too-deep")
    yield pytest.param("reply", msgpack.packb([1, 0, [], 0, "", "", [[1, 2, 3]]]), "reply.regions: expected an array of 2",
                       "region: expected an array of 2", id="bad-region")


def _python_refusal(rec, data: bytes) -> str:
    try:
        value = msgpack.unpackb(data, raw=False, strict_map_key=False)
    except Exception:
        return "not msgpack"
    with pytest.raises(wire.MalformedMessage) as e:
        getattr(env, f"read_{rec.name}")(value)
    return str(e.value)


@pytest.mark.parametrize("name, data, py_says, c_says", list(_malformed()))
def test_malformed_envelopes_are_refused_by_both_with_the_field_named(clib, name, data, py_says, c_says):
    rec = ENV.records[name]
    assert py_says in _python_refusal(rec, data)
    back, why = clib(rec, data)
    assert back is None and why.startswith(c_says), why


def test_a_malformed_request_is_refused_whole():
    good = [1, 2, 0, [], 0]
    with pytest.raises(wire.MalformedMessage, match="call.copy"):
        wire.decode_calls([msgpack.packb([good, [2, 2, 1, [], 0, [7]]])])


def test_torn_at_every_byte_python_refuses():
    call = ENV.records["call"]
    data = msgpack.packb(env.write_call(_value(call, big=True, variant=2)), use_bin_type=True)
    for cut in range(len(data)):
        with pytest.raises(wire.MalformedMessage):
            wire.decode_calls([b"\x91" + data[:cut]])


def test_torn_at_every_byte_c_refuses(clib):
    call = ENV.records["call"]
    data = msgpack.packb(env.write_call(_value(call, big=True, variant=1)), use_bin_type=True)
    for cut in range(len(data)):
        back, why = clib(call, data[:cut])
        assert back is None and why.startswith(("call", "shm", "staged", "pinned", "region")), (cut, why)


def test_a_request_claims_its_frames_in_order_with_copies():
    head = wire.encode_calls([(1, 10, 1, [1], 1, wire.Shm([[4096, 8]], 0)), (2, 11, 0, [], 2)])
    calls = wire.decode_calls([head, b"a", b"b", b"c"])
    assert [(c[0], list(c[4]), c[5]) for c in calls] == [(1, [b"a"], wire.Shm([(4096, 8)], 0)), (2, [b"b", b"c"], None)]


def test_the_reply_common_case_is_the_records_bytes():
    # the encoder's fast path (no msgpack for a plain success) writes exactly the record's bytes
    for seq in (1, 300, 2**40):
        assert wire.encode_reply(seq, 0) == msgpack.packb(env.write_reply(wire.Reply(seq, 0, [], 0, "", "")))
        assert wire.decode_reply(wire.encode_reply(seq, 0)) == wire.Reply(seq, 0, [], 0, "", "")

