"""Executable graphs on a real GPU: the CudaDevice's part of the Device interface for them. The client
sends an executable graph of kernels, memsets and device-to-device copies once (server/api/graphs.py);
this makes it the driver's own graph — the nodes as a chain, in the order the client would have issued
them — and instantiates it, so a launch is one cuGraphLaunch, where the same nodes sent as calls cost
the worker a driver call each. The template graph is destroyed once instantiated: an executable graph
does not need it."""
from __future__ import annotations

from ..base import GRAPH_KERNEL, GRAPH_MEMSET

_MEMORYTYPE_DEVICE = 2  # CU_MEMORYTYPE_DEVICE


class CudaGraphs:
    """Mixed into CudaDevice: needs the module's driver, ``self.ctx``, ``self.clock`` and the set
    ``self._graphs`` (every executable graph not destroyed yet, destroyed with the session)."""

    def graph_build(self, nodes):
        from . import device
        ffi, lib, check = device.ffi(), device.lib(), device.check
        graph = ffi.new("CUgraph *")
        check(lib.cuGraphCreate(graph, 0))
        try:
            prev, node = ffi.new("CUgraphNode[1]"), ffi.new("CUgraphNode *")
            for i, n in enumerate(nodes):
                deps, ndeps = (prev, 1) if i else (ffi.NULL, 0)
                # a moved module variable's old address, where the variable is now (aliases.py)
                if n[0] == GRAPH_KERNEL:
                    self._kernel_node(node, graph[0], deps, ndeps, *n[1:-1], self.fix_params(n[-1]))
                elif n[0] == GRAPH_MEMSET:
                    p = ffi.new("CUDA_MEMSET_NODE_PARAMS *")
                    p.dst, p.pitch, p.value, p.elementSize, p.width, p.height = n[1:]
                    p.dst = self.alias(n[1], n[2] * max(n[6] - 1, 0) + n[4] * n[5])
                    check(lib.cuGraphAddMemsetNode(node, graph[0], deps, ndeps, p, self.ctx))
                else:
                    p = ffi.new("CUDA_MEMCPY3D *")  # zeroed: offsets 0, depth 1 below
                    p.srcMemoryType = p.dstMemoryType = _MEMORYTYPE_DEVICE
                    p.dstDevice, p.srcDevice, p.WidthInBytes = self.alias(n[1], n[3]), self.alias(n[2], n[3]), n[3]
                    p.Height = p.Depth = 1
                    check(lib.cuGraphAddMemcpyNode(node, graph[0], deps, ndeps, p, self.ctx))
                prev[0] = node[0]
            exe = ffi.new("CUgraphExec *")
            check(lib.cuGraphInstantiateWithFlags(exe, graph[0], 0))
        finally:
            lib.cuGraphDestroy(graph[0])
        self._graphs.add(exe[0])
        return exe[0]

    @staticmethod
    def _kernel_node(node, graph, deps, ndeps, function, grid, block, shared, params) -> None:
        from . import device
        ffi, lib, check = device.ffi(), device.lib(), device.check
        # the driver copies the parameters into the node: the buffer may go after the call
        buf, size = ffi.new("char[]", bytes(params) or b"\0"), ffi.new("size_t *", len(params))
        extra = device.param_extra(buf, size)
        p = ffi.new("CUDA_KERNEL_NODE_PARAMS *")
        p.func = function
        p.gridDimX, p.gridDimY, p.gridDimZ = grid
        p.blockDimX, p.blockDimY, p.blockDimZ = block
        p.sharedMemBytes, p.kernelParams, p.extra = shared, ffi.NULL, extra
        check(lib.cuGraphAddKernelNode_v2(node, graph, deps, ndeps, p))

    def graph_launch(self, graph, stream) -> None:
        from . import device
        s = stream or device.ffi().NULL
        self.clock.before_launch(s)
        device.check(device.lib().cuGraphLaunch(graph, s))

    def graph_destroy(self, graph) -> None:
        from . import device
        self._graphs.discard(graph)
        device.check(device.lib().cuGraphExecDestroy(graph))

    def _graphs_close(self) -> None:
        from . import device
        for g in list(self._graphs):
            device.lib().cuGraphExecDestroy(g)
        self._graphs.clear()
