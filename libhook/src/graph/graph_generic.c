/* The generic node calls (CUDA 12.2+): cudaGraphAddNode, cudaGraphNodeSetParams and
 * cudaGraphExecNodeSetParams, and the Driver's cuGraphAddNode_v2, cuGraphNodeSetParams and
 * cuGraphExecNodeSetParams, which name a node's kind and parameters in one tagged union. Each is the
 * call of its kind (graph_api.c, graph_driver.c, graph_exec.c, graph_edit.c); the union's members are
 * those calls' parameter structs (checked below). Edge data is taken as graph_api.c takes it: every
 * edge a full dependency. Kinds rgpu's graphs do not hold (external semaphores, batched memory
 * operations, conditional nodes) are not supported. */
#include <stdint.h>

#include "graph.h"
#include "rgpu_call.h"

#define SAME(a, b) _Static_assert(sizeof(a) == sizeof(b), #a " is laid out as " #b)
SAME(struct cudaKernelNodeParamsV2, struct cudaKernelNodeParams);
SAME(struct cudaMemsetParamsV2, struct cudaMemsetParams);
SAME(struct cudaHostNodeParamsV2, struct cudaHostNodeParams);
SAME(struct cudaMemAllocNodeParamsV2, struct cudaMemAllocNodeParams);
SAME(CUDA_MEM_ALLOC_NODE_PARAMS_v2, CUDA_MEM_ALLOC_NODE_PARAMS_v1);
SAME(CUDA_HOST_NODE_PARAMS_v2, CUDA_HOST_NODE_PARAMS);

static int unsupported(int face, int type) {
    return rgpu_unsupported(face, type == cudaGraphNodeTypeConditional ? "a conditional graph node"
                                  : type == cudaGraphNodeTypeExtSemaphoreSignal || type == cudaGraphNodeTypeExtSemaphoreWait
                                      ? "an external semaphore graph node" : "a graph node of this kind");
}

/* A child graph moved into its node (cudaGraphChildGraphOwnershipMove): the node holds the graph
 * itself rather than a clone, as CUDA's does. */
static void move_child(rgpu_gnode *n, rgpu_graph *child) {
    pthread_mutex_lock(&rgpu_graph_mu);
    rgpu_graph_free(n->u.child);
    n->u.child = child;
    pthread_mutex_unlock(&rgpu_graph_mu);
}

/* ---- Runtime ------------------------------------------------------------------------------------ */

cudaError_t cudaGraphAddNode(cudaGraphNode_t *out, cudaGraph_t g, const cudaGraphNode_t *deps,
                             const cudaGraphEdgeData *edges, size_t n, struct cudaGraphNodeParams *p) {
    (void)edges;
    if (!p) return rgpu_invalid_value(RGPU_RUNTIME);
    int rc;
    switch (p->type) {
    case cudaGraphNodeTypeKernel:
        return cudaGraphAddKernelNode(out, g, deps, n, (const struct cudaKernelNodeParams *)&p->kernel);
    case cudaGraphNodeTypeMemcpy: return cudaGraphAddMemcpyNode(out, g, deps, n, &p->memcpy.copyParams);
    case cudaGraphNodeTypeMemset:
        return cudaGraphAddMemsetNode(out, g, deps, n, (const struct cudaMemsetParams *)&p->memset);
    case cudaGraphNodeTypeHost: return cudaGraphAddHostNode(out, g, deps, n, (const struct cudaHostNodeParams *)&p->host);
    case cudaGraphNodeTypeGraph:
        if (p->graph.ownership != cudaGraphChildGraphOwnershipClone && p->graph.ownership != cudaGraphChildGraphOwnershipMove)
            return rgpu_invalid_value(RGPU_RUNTIME);
        rc = cudaGraphAddChildGraphNode(out, g, deps, n, p->graph.graph);
        if (rc == 0 && p->graph.ownership == cudaGraphChildGraphOwnershipMove) move_child(*out, p->graph.graph);
        return rc;
    case cudaGraphNodeTypeEmpty: return cudaGraphAddEmptyNode(out, g, deps, n);
    case cudaGraphNodeTypeWaitEvent: return cudaGraphAddEventWaitNode(out, g, deps, n, p->eventWait.event);
    case cudaGraphNodeTypeEventRecord: return cudaGraphAddEventRecordNode(out, g, deps, n, p->eventRecord.event);
    case cudaGraphNodeTypeMemAlloc:
        return cudaGraphAddMemAllocNode(out, g, deps, n, (struct cudaMemAllocNodeParams *)&p->alloc);
    case cudaGraphNodeTypeMemFree: return cudaGraphAddMemFreeNode(out, g, deps, n, p->free.dptr);
    default: return unsupported(RGPU_RUNTIME, p->type);
    }
}

cudaError_t cudaGraphNodeSetParams(cudaGraphNode_t node, struct cudaGraphNodeParams *p) {
    enum cudaGraphNodeType type;
    if (!p) return rgpu_invalid_value(RGPU_RUNTIME);
    int rc = cudaGraphNodeGetType(node, &type);
    if (rc) return rc;
    if (type != p->type) return rgpu_invalid_value(RGPU_RUNTIME); /* a node keeps its kind */
    switch (p->type) {
    case cudaGraphNodeTypeKernel:
        return cudaGraphKernelNodeSetParams(node, (const struct cudaKernelNodeParams *)&p->kernel);
    case cudaGraphNodeTypeMemcpy: return cudaGraphMemcpyNodeSetParams(node, &p->memcpy.copyParams);
    case cudaGraphNodeTypeMemset: return cudaGraphMemsetNodeSetParams(node, (const struct cudaMemsetParams *)&p->memset);
    case cudaGraphNodeTypeHost: return cudaGraphHostNodeSetParams(node, (const struct cudaHostNodeParams *)&p->host);
    case cudaGraphNodeTypeWaitEvent: return cudaGraphEventWaitNodeSetEvent(node, p->eventWait.event);
    case cudaGraphNodeTypeEventRecord: return cudaGraphEventRecordNodeSetEvent(node, p->eventRecord.event);
    case cudaGraphNodeTypeEmpty: return RGPU_SUCCESS;
    default: return unsupported(RGPU_RUNTIME, p->type);
    }
}

cudaError_t cudaGraphExecNodeSetParams(cudaGraphExec_t e, cudaGraphNode_t node, struct cudaGraphNodeParams *p) {
    if (!p) return rgpu_invalid_value(RGPU_RUNTIME);
    switch (p->type) {
    case cudaGraphNodeTypeKernel:
        return cudaGraphExecKernelNodeSetParams(e, node, (const struct cudaKernelNodeParams *)&p->kernel);
    case cudaGraphNodeTypeMemcpy: return cudaGraphExecMemcpyNodeSetParams(e, node, &p->memcpy.copyParams);
    case cudaGraphNodeTypeMemset:
        return cudaGraphExecMemsetNodeSetParams(e, node, (const struct cudaMemsetParams *)&p->memset);
    case cudaGraphNodeTypeHost:
        return cudaGraphExecHostNodeSetParams(e, node, (const struct cudaHostNodeParams *)&p->host);
    case cudaGraphNodeTypeGraph: return cudaGraphExecChildGraphNodeSetParams(e, node, p->graph.graph);
    case cudaGraphNodeTypeWaitEvent: return cudaGraphExecEventWaitNodeSetEvent(e, node, p->eventWait.event);
    case cudaGraphNodeTypeEventRecord: return cudaGraphExecEventRecordNodeSetEvent(e, node, p->eventRecord.event);
    default: return unsupported(RGPU_RUNTIME, p->type);
    }
}

/* ---- Driver: the same kinds by the Driver's structs --------------------------------------------- */

static CUDA_KERNEL_NODE_PARAMS kernel_v2(const CUDA_KERNEL_NODE_PARAMS_v3 *k) {
    return (CUDA_KERNEL_NODE_PARAMS){k->func, k->gridDimX, k->gridDimY, k->gridDimZ, k->blockDimX, k->blockDimY,
                                     k->blockDimZ, k->sharedMemBytes, k->kernelParams, k->extra, k->kern, k->ctx};
}

static CUDA_MEMSET_NODE_PARAMS memset_v1(const CUDA_MEMSET_NODE_PARAMS_v2 *m) {
    return (CUDA_MEMSET_NODE_PARAMS){m->dst, m->pitch, m->value, m->elementSize, m->width, m->height};
}

CUresult cuGraphAddNode_v2(CUgraphNode *out, CUgraph g, const CUgraphNode *deps, const CUgraphEdgeData *edges,
                           size_t n, CUgraphNodeParams *p) {
    (void)edges;
    if (!p) return rgpu_invalid_value(RGPU_DRIVER);
    CUDA_KERNEL_NODE_PARAMS k;
    CUDA_MEMSET_NODE_PARAMS m;
    int rc;
    switch (p->type) {
    case CU_GRAPH_NODE_TYPE_KERNEL: k = kernel_v2(&p->kernel); return cuGraphAddKernelNode_v2(out, g, deps, n, &k);
    case CU_GRAPH_NODE_TYPE_MEMCPY:
        return cuGraphAddMemcpyNode(out, g, deps, n, &p->memcpy.copyParams, p->memcpy.copyCtx);
    case CU_GRAPH_NODE_TYPE_MEMSET:
        m = memset_v1(&p->memset);
        return cuGraphAddMemsetNode(out, g, deps, n, &m, p->memset.ctx);
    case CU_GRAPH_NODE_TYPE_HOST:
        return cuGraphAddHostNode(out, g, deps, n, (const CUDA_HOST_NODE_PARAMS *)&p->host);
    case CU_GRAPH_NODE_TYPE_GRAPH:
        if (p->graph.ownership != CU_GRAPH_CHILD_GRAPH_OWNERSHIP_CLONE && p->graph.ownership != CU_GRAPH_CHILD_GRAPH_OWNERSHIP_MOVE)
            return rgpu_invalid_value(RGPU_DRIVER);
        rc = cuGraphAddChildGraphNode(out, g, deps, n, p->graph.graph);
        if (rc == 0 && p->graph.ownership == CU_GRAPH_CHILD_GRAPH_OWNERSHIP_MOVE) move_child(*out, p->graph.graph);
        return rc;
    case CU_GRAPH_NODE_TYPE_EMPTY: return cuGraphAddEmptyNode(out, g, deps, n);
    case CU_GRAPH_NODE_TYPE_WAIT_EVENT: return cuGraphAddEventWaitNode(out, g, deps, n, p->eventWait.event);
    case CU_GRAPH_NODE_TYPE_EVENT_RECORD: return cuGraphAddEventRecordNode(out, g, deps, n, p->eventRecord.event);
    case CU_GRAPH_NODE_TYPE_MEM_ALLOC:
        return cuGraphAddMemAllocNode(out, g, deps, n, (CUDA_MEM_ALLOC_NODE_PARAMS *)&p->alloc);
    case CU_GRAPH_NODE_TYPE_MEM_FREE: return cuGraphAddMemFreeNode(out, g, deps, n, p->free.dptr);
    default: return unsupported(RGPU_DRIVER, p->type);
    }
}

CUresult cuGraphNodeSetParams(CUgraphNode node, CUgraphNodeParams *p) {
    CUgraphNodeType type;
    if (!p) return rgpu_invalid_value(RGPU_DRIVER);
    int rc = cuGraphNodeGetType(node, &type);
    if (rc) return rc;
    if (type != p->type) return rgpu_invalid_value(RGPU_DRIVER);
    CUDA_KERNEL_NODE_PARAMS k;
    CUDA_MEMSET_NODE_PARAMS m;
    switch (p->type) {
    case CU_GRAPH_NODE_TYPE_KERNEL: k = kernel_v2(&p->kernel); return cuGraphKernelNodeSetParams_v2(node, &k);
    case CU_GRAPH_NODE_TYPE_MEMCPY: return cuGraphMemcpyNodeSetParams(node, &p->memcpy.copyParams);
    case CU_GRAPH_NODE_TYPE_MEMSET: m = memset_v1(&p->memset); return cuGraphMemsetNodeSetParams(node, &m);
    case CU_GRAPH_NODE_TYPE_HOST: return cuGraphHostNodeSetParams(node, (const CUDA_HOST_NODE_PARAMS *)&p->host);
    case CU_GRAPH_NODE_TYPE_WAIT_EVENT: return cuGraphEventWaitNodeSetEvent(node, p->eventWait.event);
    case CU_GRAPH_NODE_TYPE_EVENT_RECORD: return cuGraphEventRecordNodeSetEvent(node, p->eventRecord.event);
    case CU_GRAPH_NODE_TYPE_EMPTY: return CUDA_SUCCESS;
    default: return unsupported(RGPU_DRIVER, p->type);
    }
}

CUresult cuGraphExecNodeSetParams(CUgraphExec e, CUgraphNode node, CUgraphNodeParams *p) {
    if (!p) return rgpu_invalid_value(RGPU_DRIVER);
    CUDA_KERNEL_NODE_PARAMS k;
    CUDA_MEMSET_NODE_PARAMS m;
    switch (p->type) {
    case CU_GRAPH_NODE_TYPE_KERNEL: k = kernel_v2(&p->kernel); return cuGraphExecKernelNodeSetParams_v2(e, node, &k);
    case CU_GRAPH_NODE_TYPE_MEMCPY:
        return cuGraphExecMemcpyNodeSetParams(e, node, &p->memcpy.copyParams, p->memcpy.copyCtx);
    case CU_GRAPH_NODE_TYPE_MEMSET:
        m = memset_v1(&p->memset);
        return cuGraphExecMemsetNodeSetParams(e, node, &m, p->memset.ctx);
    case CU_GRAPH_NODE_TYPE_HOST:
        return cuGraphExecHostNodeSetParams(e, node, (const CUDA_HOST_NODE_PARAMS *)&p->host);
    case CU_GRAPH_NODE_TYPE_GRAPH: return cuGraphExecChildGraphNodeSetParams(e, node, p->graph.graph);
    case CU_GRAPH_NODE_TYPE_WAIT_EVENT: return cuGraphExecEventWaitNodeSetEvent(e, node, p->eventWait.event);
    case CU_GRAPH_NODE_TYPE_EVENT_RECORD: return cuGraphExecEventRecordNodeSetEvent(e, node, p->eventRecord.event);
    default: return unsupported(RGPU_DRIVER, p->type);
    }
}
