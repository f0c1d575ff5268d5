"""rgpu-server as a daemon: hellos, version mismatch, malformed and truncated messages, unknown
calls — each answered with an error while the server keeps serving."""
from __future__ import annotations

import hashlib

import msgpack
import pytest
import zmq

from rgpu.client.server_client import ping, request, stats
from rgpu.protocol import wire
from rgpu.protocol.generated.calltable import BY_NAME
from rgpu.protocol.generated.envelope import CALL_REGIONS
from tests.support.session import Session


def _dealer(url):
    s = zmq.Context.instance().socket(zmq.DEALER)
    s.setsockopt(zmq.LINGER, 0)
    s.connect(url)
    return s


def _recv(sock, timeout_ms=10000):
    assert sock.poll(timeout_ms), "no reply"
    return sock.recv_multipart()


def _session(url):
    r = request(url, {"op": "hello", "proto": wire.PROTOCOL_VERSION, "client": "test", "cuda": 13000,
                      "lease": "", "gpu": 0})
    assert r["ok"], r
    endpoint = r["endpoint"].replace("tcp://*:", "tcp://127.0.0.1:")
    sock = _dealer(endpoint)
    sock.send(wire.encode_requests([(1, wire.ATTACH, 1, [r["session"], r["key"]], 0)]))
    assert wire.unpack(_recv(sock)[0])[1] == 0
    return sock


def test_wrong_protocol_version_gets_a_clear_error(sim_server):
    # 99, and the version before this envelope's (a client built before its records: its copies untagged)
    for proto in (99, wire.PROTOCOL_VERSION - 1):
        r = request(sim_server, {"op": "hello", "proto": proto, "client": "t", "cuda": 13000, "lease": "", "gpu": 0})
        assert not r["ok"] and r["error"] == "protocol" and "use matching rgpu versions" in r["message"], r
    assert ping(sim_server)


def test_hello_for_a_missing_gpu_is_refused(sim_server):
    r = request(sim_server, {"op": "hello", "proto": wire.PROTOCOL_VERSION, "gpu": 5})
    assert not r["ok"] and "gpu 5" in r["message"]


@pytest.mark.sim_only("the software GPU's address windows; a real driver places its own memory")
def test_hello_names_the_address_window_of_the_sessions_memory(sim_server):
    """Memory lies in the window the hello names (the client names one per device of the program),
    the same for two sessions of one server that name it; a bad window is refused at hello."""
    from rgpu.server.backends.sim.memory import BASE_ADDRESS, GPU_WINDOW
    for window in (3, 3, 200):
        s = Session(sim_server, window=window)
        try:
            rc, outs, _, _ = s.call("cudaMalloc", 1 << 20)
            assert rc == 0 and (outs[0] - BASE_ADDRESS) // GPU_WINDOW == window
        finally:
            s.close()
    for bad in (-1, "3", 1.5):
        r = request(sim_server, {"op": "hello", "proto": wire.PROTOCOL_VERSION, "client": "t", "gpu": 0,
                                 "window": bad})
        assert not r["ok"] and r["error"] == "bad_request" and "window" in r["message"]
    assert ping(sim_server)


def test_garbage_to_the_supervisor_gets_an_error_reply(sim_server):
    s = _dealer(sim_server)
    for junk in ([b"\xc1\xc1\xc1"], [msgpack.packb([1, 2, 3])], [b"a", b"b"], [msgpack.packb({"op": "nope"})]):
        s.send_multipart(junk)
        reply = wire.unpack(_recv(s)[0])
        assert reply["ok"] is False and reply["message"]
    assert ping(sim_server)


def test_malformed_truncated_and_unknown_calls_on_a_session(sim_server):
    sock = _session(sim_server)
    sock.send(b"\x93\x01")  # truncated msgpack
    seq, rc, outs, deferred, msg, _ = wire.unpack(_recv(sock)[0])
    assert rc != 0 and "malformed" in msg
    sock.send_multipart([wire.encode_requests([(2, BY_NAME["cudaMemcpy"], 1, [0x1000, 0, 4, 1], 1)])])  # bulk missing
    assert "malformed" in wire.unpack(_recv(sock)[0])[4]
    sock.send(wire.encode_requests([(3, 0x7ABCDEF, 1, [], 0)]))
    seq, rc, outs, deferred, msg, _ = wire.unpack(_recv(sock)[0])
    assert seq == 3 and rc == 801 and "unknown call id" in msg
    # envelopes the records refuse, whole, naming the field: an unknown copy tag (a malloc before it in
    # the same message does not run), a copy in the untagged shape of protocol 7, too many regions
    malloc = BY_NAME["cudaMalloc"]
    for copy, why in (([9, [], 0], "call.copy: expected a known tag"),
                      ([[[4096, 16]], 0], "call.copy: expected a tagged array"),
                      ([1, [[4096, 1]] * (CALL_REGIONS + 1), 0], "call.copy.regions")):
        used = stats(sim_server)["gpus"][0]["memory_used"]
        memcpy = [11, BY_NAME["cudaMemcpy"], 1, [0x1000, 0, 4, 1], 0, copy]
        sock.send(wire.pack([[10, malloc, 0, [1 << 20], 0], memcpy]))
        seq, rc, outs, deferred, msg, _ = wire.unpack(_recv(sock)[0])
        assert rc != 0 and f"malformed message: {why}" in msg, msg
        assert stats(sim_server)["gpus"][0]["memory_used"] == used  # nothing of the message ran
    # and the session still works
    sock.send(wire.encode_requests([(4, BY_NAME["cudaMalloc"], 1, [4096], 0)]))
    seq, rc, outs, deferred, msg, _ = wire.unpack(_recv(sock)[0])
    assert (seq, rc) == (4, 0) and outs[0] > 0
    assert stats(sim_server)["gpus"][0]["memory_used"] >= 4096
    sock.close(0)


def test_async_errors_are_deferred_to_the_next_sync_reply(sim_server):
    sock = _session(sim_server)
    bad_memset = (5, BY_NAME["cudaMemsetAsync"], 0, [0x1000, 0, 16, 0], 0)
    sync = (6, BY_NAME["cudaDeviceSynchronize"], 1, [], 0)
    sock.send(wire.encode_requests([bad_memset, sync]))
    seq, rc, outs, deferred, msg, _ = wire.unpack(_recv(sock)[0])
    assert (seq, rc, deferred) == (6, 0, 1) and "outside any allocation" in msg
    sock.close(0)


def test_a_stranger_cannot_attach_to_a_session(sim_server):
    r = request(sim_server, {"op": "hello", "proto": wire.PROTOCOL_VERSION, "client": "t", "gpu": 0})
    sock = _dealer(r["endpoint"].replace("tcp://*:", "tcp://127.0.0.1:"))
    sock.send(wire.encode_requests([(1, wire.ATTACH, 1, [r["session"], "wrong key"], 0)]))
    assert wire.unpack(_recv(sock)[0])[1] != 0
    sock.close(0)


def test_handwritten_calls_with_wrong_shapes_get_an_error_reply(sim_server):
    """The wire shapes of hand-written calls are their records' too: the server checks them before any
    handler runs, and the session keeps working."""
    sock = _session(sim_server)
    sock.send(wire.encode_requests([(1, BY_NAME["cudaMalloc"], 1, [4096], 0)]))
    addr = wire.unpack(_recv(sock)[0])[2][0]
    bad = [
        ([(2, BY_NAME["cudaMemcpy"], 1, [addr, 0, 4], 0)], "arguments do not match"),  # kind missing
        ([(3, BY_NAME["cuLaunchKernel"], 1, [0x1000, "one", 1, 1, 1, 1, 1, 0, 0, b""], 0)], "arguments do not match"),
        ([(4, BY_NAME["cuMemcpyHtoD_v2"], 1, [addr, 8], 1)], "hold 4 bytes, not the 8"),  # 4 bytes sent
        ([(5, BY_NAME["cuModuleLoadData"], 1, ["0" * 64, 10, "", 0, 1, 10], 1)], "hold 4 bytes, not the 10"),
        ([(6, BY_NAME["cudaFree"], 1, [addr], 1)], "carries no data frames"),
    ]
    for calls, why in bad:
        sock.send_multipart([wire.encode_requests(calls), b"abcd"] if calls[0][4] else [wire.encode_requests(calls)])
        seq, rc, outs, deferred, msg, _ = wire.unpack(_recv(sock)[0])
        assert (seq, rc) == (calls[0][0], 1) and why in msg, msg
    # a call naming shared-memory regions its record does not allow: refused, not run
    sock.send(wire.encode_requests([(7, BY_NAME["cudaMalloc"], 1, [16], 0, wire.Shm([[4096, 16]], 0))]))
    seq, rc, outs, deferred, msg, _ = wire.unpack(_recv(sock)[0])
    assert rc != 0 and "does not move its data through shared memory" in msg
    sock.send_multipart([wire.encode_requests([(8, BY_NAME["cuMemcpyHtoD_v2"], 1, [addr, 4], 1)]), b"abcd"])
    assert wire.unpack(_recv(sock)[0])[:2] == [8, 0]
    sock.close(0)


PARAMS_PTX = b"""
.version 8.0
.target sm_80
.address_size 64
.visible .entry four(.param .u64 a, .param .u32 b, .param .align 8 .b8 c[12], .param .f64 d) { ret; }
.visible .entry none() { ret; }
""" + b"\0"


def _call(sock, seq, name_or_id, args, bulk=()):
    call_id = BY_NAME[name_or_id] if isinstance(name_or_id, str) else name_or_id
    sock.send_multipart([wire.encode_requests([(seq, call_id, 1, args, len(bulk))]), *bulk])
    got_seq, rc, outs, deferred, msg, _ = wire.unpack(_recv(sock)[0])
    assert got_seq == seq
    return rc, outs, msg


def test_params_answers_a_functions_whole_layout_in_one_reply(sim_server):
    """PARAMS [function] (the client's first launch of a kernel): every parameter's [offset, size], the
    same as cuFuncGetParamInfo index by index; a function without parameters has none; a bad handle
    or a malformed call gets an error reply, and the session goes on."""
    sock = _session(sim_server)
    digest = hashlib.sha256(PARAMS_PTX).hexdigest()
    rc, (module,), _ = _call(sock, 1, "cuModuleLoadData", [digest, len(PARAMS_PTX), "", 0, 1, len(PARAMS_PTX)],
                             [PARAMS_PTX])
    assert rc == 0
    four = _call(sock, 2, "cuModuleGetFunction", [module, "four"])[1][0]
    none = _call(sock, 3, "cuModuleGetFunction", [module, "none"])[1][0]
    rc, layout, _ = _call(sock, 4, wire.PARAMS, [four])
    assert rc == 0 and layout == [0, 8, 8, 4, 16, 12, 32, 8]
    one_by_one = []
    for i in range(4):
        rc, outs, _ = _call(sock, 10 + i, "cuFuncGetParamInfo", [four, i])
        assert rc == 0
        one_by_one += outs
    assert one_by_one == layout
    assert _call(sock, 20, wire.PARAMS, [none])[:2] == (0, [])
    rc, outs, msg = _call(sock, 21, wire.PARAMS, [0xBAD0])
    assert rc != 0 and outs == [] and msg
    rc, outs, msg = _call(sock, 22, wire.PARAMS, ["four"])
    assert rc == 1 and "PARAMS takes" in msg
    assert _call(sock, 23, wire.PARAMS, [four])[:2] == (0, layout)
    sock.close(0)
