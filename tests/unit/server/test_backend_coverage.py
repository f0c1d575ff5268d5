"""Every call that crosses the wire is served by each backend or declared unsupported there by its
record (the client then answers it without a round trip), and each handler takes the arguments its
record sends."""
from __future__ import annotations

import inspect

import pytest

from rgpu.protocol.generated.calltable import BY_NAME, CALLS
from rgpu.server.backends import KINDS, handlers_for
from rgpu.server.backends.cuda import tensormaps


@pytest.mark.parametrize("backend", KINDS)
def test_every_wire_call_is_served_or_declared_unsupported(backend):
    served = handlers_for(backend)
    missing = sorted(c.name for c in CALLS.values() if c.name not in served and backend not in c.unsupported_on)
    assert not missing, f"no {backend} handler and no `{backend} = \"why\"` in their records: {missing}"
    stale = sorted(c.name for c in CALLS.values() if c.name in served and backend in c.unsupported_on)
    assert not stale, f"served on {backend} but their records say it does not: {stale}"


@pytest.mark.parametrize("backend", KINDS)
def test_handlers_take_the_arguments_their_records_send(backend):
    served = handlers_for(backend)
    wrong = []
    for c in CALLS.values():
        fn = served.get(c.name)
        if fn is None:
            continue
        ins = [p for p in c.params if not p[1].startswith("o")]
        try:
            sig = inspect.signature(fn)
            extra = {"bulk": ()} if "bulk" in sig.parameters else {}
            sig.bind(None, *[0] * len(ins), **extra)
        except TypeError as e:
            wrong.append(f"{c.name}: {len(ins)} arguments: {e}")
    assert not wrong


def test_the_generic_path_covers_the_forwarded_driver_face():
    """On cuda, every driver call that crosses the wire is served (by a handler or generically); the
    sim declares the rest unsupported."""
    cuda = handlers_for("cuda")
    driver = [c for c in CALLS.values() if c.face == "driver"]
    assert all(c.name in cuda for c in driver if "cuda" not in c.unsupported_on)
    own = tensormaps.handlers()  # the cuda backend's own handlers: encoded by the driver, no generic record
    generic_only = [c.name for c in driver
                    if c.name in cuda and c.name not in handlers_for("sim") and c.name not in own]
    assert "cuDeviceGetLuid" in generic_only and "cuCtxGetExecAffinity" in generic_only
    assert all(CALLS[BY_NAME[n]].generic == n for n in generic_only)
    assert all(cuda[n].__name__.startswith("tensor_map_") for n in own)
