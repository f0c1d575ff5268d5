"""The call contract: one record per CUDA function, read from protocol/contract/calls/<family>.toml.

A record says what the header cannot: which side serves the call, where its hand-written client code
lives, how each pointer parameter travels, its bulk data, its semantic flags and which backends serve
it. This module reads and checks the records' own shape; protocol/codegen/classify.py places them
against the parsed headers (and refuses a record that does not fit the function it names).

    [cuMemcpyHtoD_v2]                # the function's name, exactly as the header declares it (or, with
                                     # prototype = "CUresult cuX(...)", an entry point the headers do not)
    side = "bulk"                    # client | forward | bulk | unsupported
    client = "memory/memcpy.c"       # hand-written client code (libhook/src/...): the policy
    params = { srcHost = "host" }    # pointer parameters: how each travels (see SPECS)
    bulk_in = "ByteCount"            # raw data frames (or shared-memory regions) sent with the call
    shm = true                       # the same-host path may carry them
    flags = ["device_work", "sync"]  # see FLAGS

    [cudaMallocPitch]                # the client's table of allocations (libhook/src/state/addresses.c):
    allocates = { at = "devPtr", bytes = "pitch * height" }   # the out-value that is the address, and
                                     # its size (out parameters read as the value the call wrote)
    [cudaFreeAsync]
    frees = "devPtr"                 # the allocation at this address goes (or "all": the device's)
"""
from __future__ import annotations

import re
import tomllib
from dataclasses import dataclass, field
from pathlib import Path

CONTRACT = Path(__file__).resolve().parent.parent / "contract"

SIDES = {
    "client": "answered in the client library (hand-written, `client`); `via` names the wire calls it makes",
    "forward": "crosses the wire under its own call id",
    "bulk": "crosses the wire under its own call id, with raw data frames (bulk_in / bulk_out)",
    "unsupported": "answered not-supported by the client without a round trip (`why` says why)",
}

FLAGS = {
    "async": "sent without waiting for a reply; an error is sticky and returned at the next synchronising call",
    "device_work": "makes the device read or write memory: managed memory the host wrote is pushed first",
    "sync": "returns once the device's (or the stream's) work is done: managed memory is pulled after it",
    "deferred": "reports the errors of earlier asynchronous calls (the Synchronize calls; implied by sync + device_work)",
}

# How a parameter travels; a pointer parameter must have one, the generator never guesses from `const`.
#   in            the pointee is read by the callee: a scalar, handle or plain struct, sent by value
#   out           the pointee is written by the callee: sent back by the server
#   inout         both (documented; no generated stub marshals it)
#   in[LEN] out[LEN]  an array of LEN elements (LEN: a parameter or a number)
#   string        a NUL-terminated const char *;  out:string: a const char ** the server fills
#   devptr        the pointer's value is a device (unified) address: sent as an integer
#   out:devptr    a void ** the server fills with a device address
#   device        an integer that is a device ordinal (routes the call; the server sees its GPU as 0)
#   host          a host address that never travels (hand-written code moves its data as bulk frames)
#   callback      a host function pointer (never travels)
# Suffixes: ":raw" ships a struct whose pointers are device addresses as its bytes; "?" may be NULL.
SPEC = re.compile(r"^(?P<dir>in|out|inout|string|out:string|devptr|out:devptr|device|host|callback)"
                  r"(?:\[(?P<len>[A-Za-z_][A-Za-z0-9_]*|[0-9]+)\])?(?P<raw>:raw)?(?P<null>\?)?$")

# An explicit wire argument of a hand-written call: "name:kind" or "name:h:handle-kind".
WIRE_ARG = re.compile(r"^(?P<name>[A-Za-z_][A-Za-z0-9_]*):(?P<kind>[a-z]+)(?::(?P<hkind>[a-z_]+))?$")

# A length expression of bulk data: parameters and numbers multiplied.
LENGTH = re.compile(r"^[A-Za-z_0-9]+(\s*\*\s*[A-Za-z_0-9]+)*$")

KEYS = {"side", "why", "client", "via", "params", "wire", "outs", "bulk_in", "bulk_out", "shm", "flags",
        "capture", "drops", "same_as", "sim", "cuda", "since", "until", "prototype", "allocates", "frees"}
BACKENDS = ("sim", "cuda")


class RecordError(Exception):
    pass


@dataclass
class Spec:
    dir: str
    length: str = ""  # array length (a parameter name or a number)
    raw: bool = False
    nullable: bool = False


@dataclass
class Record:
    name: str
    family: str  # the file it is in: protocol/contract/calls/<family>.toml
    side: str
    why: str = ""
    client: str = ""
    via: list[str] = field(default_factory=list)
    params: dict[str, Spec] = field(default_factory=dict)
    wire: list[tuple[str, str, str]] | None = None  # (name, kind, handle kind)
    outs: list[tuple[str, str, str]] | None = None
    bulk_in: str = ""
    bulk_out: str = ""
    shm: bool = False
    flags: frozenset = frozenset()
    capture: str = ""
    drops: str = ""
    same_as: str = ""
    unsupported_on: dict[str, str] = field(default_factory=dict)  # backend -> why it does not serve it
    since: str = ""
    until: str = ""
    # For an entry point the headers do not declare (a legacy name programs find with dlsym, whose
    # header #defines it to a newer _vN): its C prototype, in the headers' types.
    prototype: str = ""
    # The client's table of device allocations (libhook/src/state/addresses.c): the out parameter that
    # is a new allocation's address and the expression of its size; the parameter whose allocation
    # a call frees, or "all" for every one of the call's device.
    allocates: tuple[str, str] | None = None
    frees: str = ""

    @property
    def on_wire(self) -> bool:
        """Whether the call crosses the wire under its own id."""
        return self.side in ("forward", "bulk")

    def exists_in(self, version: int) -> bool:
        """Whether CUDA `version` (13000 for 13.0) has the function, by the record's range."""
        v = (version // 1000, version % 1000 // 10)
        return (not self.since or v >= _version(self.since)) and (not self.until or v <= _version(self.until))


def _version(text: str) -> tuple[int, int]:
    major, _, minor = text.partition(".")
    return int(major), int(minor or 0)


def parse_spec(text: str) -> Spec:
    m = SPEC.match(text)
    if not m:
        raise RecordError(f"parameter spec {text!r}: one of in, out, inout, in[LEN], out[LEN], string, out:string, "
                          f"devptr, out:devptr, device, host, callback (+ :raw, ?)")
    return Spec(m["dir"], m["len"] or "", bool(m["raw"]), bool(m["null"]))


def _wire_list(items, what: str) -> list[tuple[str, str, str]]:
    out = []
    for item in items:
        m = WIRE_ARG.match(item) if isinstance(item, str) else None
        if not m:
            raise RecordError(f"{what} entry {item!r}: \"name:kind\" or \"name:h:handle-kind\"")
        out.append((m["name"], m["kind"], m["hkind"] or ""))
    return out


def parse_record(name: str, family: str, body: dict) -> Record:
    if not isinstance(body, dict):
        raise RecordError(f"{name}: a record is a table")
    unknown = set(body) - KEYS
    if unknown:
        raise RecordError(f"{name}: unknown keys {sorted(unknown)} (known: {sorted(KEYS)})")
    side = body.get("side")
    if side not in SIDES:
        raise RecordError(f"{name}: side {side!r} is not one of {', '.join(SIDES)}")
    flags = body.get("flags", [])
    if not isinstance(flags, list) or set(flags) - set(FLAGS):
        raise RecordError(f"{name}: flags {flags!r}: known flags are {', '.join(FLAGS)}")
    flags = set(flags)
    if {"sync", "device_work"} <= flags:
        # a synchronous copy or memset waits for the work before it, so it reports that work's
        # errors, as CUDA documents for cudaMemcpy ("may also return error codes from previous,
        # asynchronous launches"): the data a failed kernel never wrote must not come back as a success
        flags.add("deferred")
    r = Record(name, family, side, why=body.get("why", ""), client=body.get("client", ""),
               via=list(body.get("via", [])), flags=frozenset(flags), capture=body.get("capture", ""),
               drops=body.get("drops", ""), same_as=body.get("same_as", ""), shm=bool(body.get("shm", False)),
               bulk_in=body.get("bulk_in", ""), bulk_out=body.get("bulk_out", ""),
               since=body.get("since", ""), until=body.get("until", ""), prototype=body.get("prototype", ""),
               frees=body.get("frees", ""))
    try:
        r.params = {k: parse_spec(v) for k, v in body.get("params", {}).items()}
        if "wire" in body:
            r.wire = _wire_list(body["wire"], "wire")
        if "outs" in body:
            r.outs = _wire_list(body["outs"], "outs")
    except RecordError as e:
        raise RecordError(f"{name}: {e}") from None
    for b in BACKENDS:
        if b in body:
            r.unsupported_on[b] = body[b]
    for v in (r.since, r.until):
        if v and not re.match(r"^\d+\.\d+$", v):
            raise RecordError(f"{name}: version {v!r} is not MAJOR.MINOR")
    # what each side may say
    if side in ("client", "unsupported") and not r.why:
        raise RecordError(f"{name}: a {side} record says why (`why`)")
    if side == "client" and not r.client:
        raise RecordError(f"{name}: a client record names its hand-written file (`client`)")
    if side == "unsupported" and (r.client or r.via or r.wire or r.bulk_in or r.bulk_out or r.unsupported_on):
        raise RecordError(f"{name}: an unsupported record holds only why (and params, flags)")
    if side != "client" and r.via:
        raise RecordError(f"{name}: `via` belongs to client records (a wire call is its own path)")
    if not r.on_wire and (r.bulk_in or r.bulk_out or r.shm or r.unsupported_on or r.same_as or r.wire or r.outs):
        raise RecordError(f"{name}: wire shape and backends belong to forward and bulk records")
    if side == "bulk" and not (r.bulk_in or r.bulk_out):
        raise RecordError(f"{name}: a bulk record names its data (bulk_in and/or bulk_out)")
    if side == "forward" and (r.bulk_in or r.bulk_out):
        raise RecordError(f"{name}: bulk data makes it side = \"bulk\"")
    for expr in (r.bulk_in, r.bulk_out):
        if expr and not LENGTH.match(expr):
            raise RecordError(f"{name}: bulk length {expr!r} is parameters and numbers joined by *")
    if "allocates" in body:
        a = body["allocates"]
        if not isinstance(a, dict) or set(a) != {"at", "bytes"} or not LENGTH.match(str(a["bytes"])):
            raise RecordError(f"{name}: allocates is {{ at = OUT_PARAM, bytes = SIZE }} (parameters and numbers "
                              f"joined by *)")
        r.allocates = (a["at"], a["bytes"])
    if (r.allocates or r.frees) and (side != "forward" or r.client):
        raise RecordError(f"{name}: allocates and frees belong to generated forward stubs (hand-written code "
                          f"keeps the table itself)")
    if r.outs is not None and r.wire is None:
        raise RecordError(f"{name}: `outs` comes with `wire`")
    if r.wire is not None and r.outs is None:
        r.outs = []
    if r.wire is not None and not r.client:
        raise RecordError(f"{name}: an explicit `wire` belongs to hand-written calls (`client`)")
    if "async" in r.flags and (r.outs or r.bulk_out):
        raise RecordError(f"{name}: an async call has no replies to carry out-values")
    return r


@dataclass
class Contract:
    records: dict[str, Record]
    types: dict
    constants: dict
    cuda12: dict


def load(root: Path = CONTRACT) -> Contract:
    records: dict[str, Record] = {}
    errors = []
    for path in sorted((root / "calls").glob("*.toml")):
        with open(path, "rb") as f:
            data = tomllib.load(f)
        for name, body in data.items():
            if name in records:
                errors.append(f"{name}: recorded in {records[name].family}.toml and {path.stem}.toml")
                continue
            try:
                records[name] = parse_record(name, path.stem, body)
            except RecordError as e:
                errors.append(f"{path.stem}.toml: {e}")
    if errors:
        raise RecordError("\n  ".join(["bad records in protocol/contract/calls:", *errors]))

    def table(name):
        p = root / f"{name}.toml"
        if not p.exists():
            return {}
        with open(p, "rb") as f:
            return tomllib.load(f)
    return Contract(records, table("types"), table("constants"), table("cuda12"))
