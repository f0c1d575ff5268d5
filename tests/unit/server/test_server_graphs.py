"""The executable graphs the worker builds from the client's (server/api/graphs.py), on the software
GPU in one process: built, launched as one call, checked when built, destroyed; and kept by a
checkpoint, so a restored session launches the same graph under the same handle with the same
effects."""
from __future__ import annotations

import msgpack
import pytest

from rgpu.protocol.generated.calltable import BY_NAME
from rgpu.server.checkpoint import session as cksession
from tests.unit.server.test_checkpoint import (call, dispatcher, i32, private_module_cache, program, read,  # noqa: F401
                                               restored, u64)


def nodes(*n) -> bytes:
    return msgpack.packb(list(n))


def kernel(fn, grid, block, *params):
    return [0, fn, grid, 1, 1, block, 1, 1, 0, b"".join(params)]


def test_a_graph_of_a_memset_a_kernel_and_a_copy_runs_in_order_and_survives_a_checkpoint(dispatcher, program):
    d = dispatcher
    a, n = program
    scratch = call(d, a, "cudaMalloc", 4096).outs[0]
    g = call(d, a, "rgpuGraphBuild", n["stream"], nodes(
        [1, n["y"], 0, 0x5a, 1, 4096, 1],                                      # y cleared to 0x5a bytes
        kernel(n["globals"], 4, 256, u64(n["x"]), u64(n["y"]), i32(1024)),    # y computed again
        [2, scratch, n["y"], 4096])).outs[0]                                   # and copied
    call(d, a, "rgpuGraphLaunch", g, n["stream"])
    call(d, a, "cudaStreamSynchronize", n["stream"])
    once = read(d, a, n["y"], 4096)
    assert once != bytes([0x5a]) * 4096 and read(d, a, scratch, 4096) == once
    b = restored(cksession.capture(a, "sim"))
    try:
        assert {h: k for h, (k, _) in b.handles().items()}[g] == "graph"
        for s in (a, b):
            call(d, s, "cudaMemset", scratch, 0, 4096)
            call(d, s, "rgpuGraphLaunch", g, n["stream"])
            call(d, s, "cudaStreamSynchronize", n["stream"])
        assert read(d, b, scratch, 4096) == read(d, a, scratch, 4096) == read(d, a, n["y"], 4096)
        addr, _ = call(d, a, "cuModuleGetGlobal_v2", n["core"], "counter").outs
        assert read(d, b, addr, 4) == read(d, a, addr, 4)  # the kernel ran as many times in both
        call(d, b, "rgpuGraphDestroy", g)
        r = d.run(b, BY_NAME["rgpuGraphLaunch"], [g, n["stream"]], [])
        assert r.rc != 0 and "not a graph" in r.message, r
    finally:
        b.close()


@pytest.mark.parametrize("blob, message", [
    (b"\xc1", "not msgpack"),
    (msgpack.packb([]), "a list of 1 to"),
    (msgpack.packb([[0, 1]]), "node 0 of the graph is none of"),
    (msgpack.packb([[1, 0, 0, 0, 3, 1, 1]]), "node 0"),                    # a memset of 3-byte elements
    (msgpack.packb([[0, 8, 1, 1, 1, 1, 1, 1, 0, b"\0" * 40000]]), "node 0"),  # parameters past CUDA's limit
    (msgpack.packb([[2, 0x10, 0x20, -1]]), "node 0"),                      # a negative size
])
def test_malformed_nodes_are_refused_with_the_reason_and_nothing_is_made(dispatcher, program, blob, message):
    d = dispatcher
    a, n = program
    before = dict(a.handles())
    r = d.run(a, BY_NAME["rgpuGraphBuild"], [n["stream"], blob], [])
    assert r.rc != 0 and message in r.message, (r.rc, r.message)
    assert a.handles() == before


def test_a_node_outside_the_sessions_memory_or_functions_is_refused_when_the_graph_is_built(dispatcher, program):
    d = dispatcher
    a, n = program
    bad = [nodes([1, n["y"], 0, 0, 4, 2048, 1]),                         # 8 KiB into a 4 KiB allocation
           nodes([2, n["x"], 0x1000, 16]),                                # a copy from no allocation
           nodes(kernel(n["stream"], 1, 1))]                              # a stream is no function
    for blob in bad:
        r = d.run(a, BY_NAME["rgpuGraphBuild"], [n["stream"], blob], [])
        assert r.rc != 0, r
    assert "graph" not in {k for k, _ in a.handles().values()}
