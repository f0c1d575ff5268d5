"""Executable graphs the worker builds from the client's (libhook/src/graph/graph_server.c): the
client sends a graph of kernels, memsets and device-to-device copies once, in the order it would
issue them, and each launch after is one call, which the backend serves with its own graph launch
(cuda/graphs.py) or by issuing the nodes in order (the software GPU). The graph is a handle of the
session like any object: a checkpoint keeps its nodes, kernels by their function handles
(checkpoint/objects.py), so a moved, reclaimed or failed-over session has it again under the handle
the client holds."""
from __future__ import annotations

from rgpu.protocol import limits
from rgpu.protocol.wire import MalformedMessage

from . import handles
from .memory import check_range
from ..backends.base import GRAPH_COPY as COPY, GRAPH_KERNEL as KERNEL, GRAPH_MEMSET as MEMSET
from ..errors import CudaError

# A node's fields after its kind: kernel [function, grid x y z, block x y z, shared bytes, parameters]
# (cuLaunchKernel's record less its stream); memset [dst, pitch, value, element size, width in
# elements, height]; copy [dst, src, bytes] (device to device)
FIELDS = {KERNEL: 9, MEMSET: 6, COPY: 3}
MAX_NODES = 1 << 16
MAX_PARAMS = 32764  # the most parameter bytes a kernel takes (CUDA 12.1+)


class ServerGraph:
    """A handle's object: the nodes as the client described them (function handles, what a
    checkpoint keeps) and the backend's executable graph made of them."""
    __slots__ = ("nodes", "native")

    def __init__(self, nodes: list, native):
        self.nodes, self.native = nodes, native


def _node_ok(n) -> bool:
    if not (isinstance(n, list) and n and n[0] in FIELDS and len(n) == 1 + FIELDS[n[0]]):
        return False
    if n[0] == KERNEL:
        return all(type(v) is int and 0 <= v < 1 << 32 for v in n[2:9]) and type(n[1]) is int \
            and isinstance(n[9], bytes) and len(n[9]) <= MAX_PARAMS
    if n[0] == MEMSET and n[4] not in (1, 2, 4):
        return False
    return all(type(v) is int and 0 <= v < 1 << 64 for v in n[1:])


def _nodes(blob) -> list:
    """The client's nodes, checked: a bad one is CUDA_ERROR_INVALID_VALUE naming what is wrong."""
    if not isinstance(blob, (bytes, bytearray, memoryview)):
        raise CudaError("CUDA_ERROR_INVALID_VALUE", "a graph's nodes are msgpack bytes")
    try:
        nodes = limits.unpack(bytes(blob), limit=3)
    except MalformedMessage as e:
        raise CudaError("CUDA_ERROR_INVALID_VALUE", f"a graph's nodes: {e}") from None
    if not isinstance(nodes, list) or not 0 < len(nodes) <= MAX_NODES:
        raise CudaError("CUDA_ERROR_INVALID_VALUE", f"a graph is a list of 1 to {MAX_NODES} nodes")
    for i, n in enumerate(nodes):
        if not _node_ok(n):
            raise CudaError("CUDA_ERROR_INVALID_VALUE", f"node {i} of the graph is none of [0, function, grid x y z, "
                            f"block x y z, shared bytes, parameters of at most {MAX_PARAMS} bytes], [1, dst, pitch, "
                            f"value, element size 1 2 or 4, width, height], [2, dst, src, bytes]")
    return nodes


def check_memory(s, nodes: list) -> None:
    """Every memset and copy within allocations of the session when the graph is made (as the driver
    checks a memset or copy node when it is added); a kernel's pointers are its own business, as on a GPU."""
    for n in nodes:
        if n[0] == MEMSET:
            _, dst, pitch, _, elsize, width, height = n
            if height > 1 and pitch < width * elsize:
                raise CudaError("CUDA_ERROR_INVALID_VALUE", f"a memset node's pitch {pitch} is less than its row")
            if width and height:
                check_range(s, dst, pitch * (height - 1) + width * elsize)
        elif n[0] == COPY and n[3]:
            check_range(s, n[1], n[3])
            check_range(s, n[2], n[3])


def build(device, nodes: list, function_of) -> ServerGraph:
    """`device`'s graph of the described nodes, their functions found by `function_of(handle)`:
    (kind, fields...) with a kernel's function, grid and block resolved."""
    resolved = [(KERNEL, function_of(n[1]), tuple(n[2:5]), tuple(n[5:8]), n[8], n[9]) if n[0] == KERNEL
                else (MEMSET, n[1], n[2], n[3] & (1 << 8 * n[4]) - 1, n[4], n[5], n[6]) if n[0] == MEMSET
                else tuple(n) for n in nodes]
    return ServerGraph(nodes, device.graph_build(resolved))


@handles("rgpuGraphBuild")
def graph_build(s, stream, nodes):
    """[stream, nodes] -> graph: the stream routes the call (the graph runs on the device of the
    streams it is launched on)."""
    s.get("stream", stream)
    described = _nodes(nodes)
    check_memory(s, described)
    return (s.new_handle("graph", build(s.device, described, lambda h: s.get("function", h))),)


@handles("rgpuGraphLaunch")
def graph_launch(s, graph, stream):
    g, st = s.get("graph", graph), s.get("stream", stream)
    s.run_kernel(lambda: s.device.graph_launch(g.native, st))
    return ()


@handles("rgpuGraphDestroy")
def graph_destroy(s, graph):
    s.device.graph_destroy(s.drop("graph", graph).native)
    return ()
