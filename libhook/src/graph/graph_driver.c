/* The Driver's cuGraph* and capture functions that take what the Runtime's take (the node types,
 * result codes and most parameter structs have the same numbers and layouts): each runs the Runtime's
 * implementation and reports a failure as the Driver's last error, leaving the Runtime's as it was. */
#include <stddef.h>
#include <stdint.h>

#include "memcpy3d.h"
#include "graph.h"
#include "rgpu_call.h"

#define AS_DRIVER(call)                                               \
    do {                                                              \
        int saved_ = rgpu_get_last_error(RGPU_RUNTIME, 0);            \
        int rc_ = (call);                                             \
        rgpu_set_last_error(RGPU_RUNTIME, saved_);                    \
        return rgpu_record(RGPU_DRIVER, rc_);                         \
    } while (0)

/* The Driver's parameter structs that are the Runtime's under another name: the compiler checks that
 * their sizes agree, and the calls below pass one for the other. */
#define SAME_LAYOUT(drv, rt) _Static_assert(sizeof(drv) == sizeof(rt), #drv " is laid out as " #rt)
SAME_LAYOUT(CUDA_MEMSET_NODE_PARAMS, struct cudaMemsetParams);
SAME_LAYOUT(CUDA_HOST_NODE_PARAMS, struct cudaHostNodeParams);
SAME_LAYOUT(CUgraphExecUpdateResultInfo, cudaGraphExecUpdateResultInfo);
SAME_LAYOUT(CUDA_GRAPH_INSTANTIATE_PARAMS, cudaGraphInstantiateParams);
SAME_LAYOUT(CUgraphEdgeData, cudaGraphEdgeData);
SAME_LAYOUT(CUDA_MEM_ALLOC_NODE_PARAMS, struct cudaMemAllocNodeParams);
SAME_LAYOUT(CUstreamCaptureStatus, enum cudaStreamCaptureStatus);

/* CUDA_KERNEL_NODE_PARAMS (v2): a CUfunction, or a CUkernel (which is its function in rgpu) */
static int kernel_from(rgpu_gnode *n, const CUDA_KERNEL_NODE_PARAMS *p) {
    if (!p) return RGPU_INVALID_VALUE;
    const void *fn = p->func ? (const void *)p->func : (const void *)p->kern;
    unsigned g[3] = {p->gridDimX, p->gridDimY, p->gridDimZ}, b[3] = {p->blockDimX, p->blockDimY, p->blockDimZ};
    rgpu_gnode tmp = {.type = NODE_KERNEL};
    int rc = rgpu_kernel_node_set(RGPU_DRIVER, &tmp.u.k, fn, g, b, p->sharedMemBytes, p->kernelParams, p->extra, NULL);
    if (!rc) rc = rgpu_node_copy_params(n, &tmp);
    rgpu_node_clear(&tmp);
    return rc;
}

CUresult cuGraphAddKernelNode_v2(CUgraphNode *out, CUgraph g, const CUgraphNode *deps, size_t ndeps, const CUDA_KERNEL_NODE_PARAMS *p) {
    if (!out) return rgpu_invalid_value(RGPU_DRIVER);
    int rc;
    rgpu_gnode *n = rgpu_graph_add(g, NODE_EMPTY, deps, ndeps, &rc);
    if (!n) return rgpu_record(RGPU_DRIVER, rc);
    if ((rc = kernel_from(n, p))) {
        rgpu_graph_remove(n);
        return rgpu_record(RGPU_DRIVER, rc);
    }
    *out = n;
    return 0;
}

CUresult cuGraphKernelNodeGetParams_v2(CUgraphNode n, CUDA_KERNEL_NODE_PARAMS *p) {
    if (!n || n->type != NODE_KERNEL || !p) return rgpu_invalid_value(RGPU_DRIVER);
    const rgpu_kernel_node *k = &n->u.k;
    *p = (CUDA_KERNEL_NODE_PARAMS){(CUfunction)k->func, k->g[0], k->g[1], k->g[2], k->b[0], k->b[1], k->b[2],
                                   k->shmem, k->args, NULL, NULL, NULL};
    return 0;
}

CUresult cuGraphKernelNodeSetParams_v2(CUgraphNode n, const CUDA_KERNEL_NODE_PARAMS *p) {
    if (!n || n->type != NODE_KERNEL) return rgpu_invalid_value(RGPU_DRIVER);
    return rgpu_record(RGPU_DRIVER, kernel_from(n, p));
}

CUresult cuGraphExecKernelNodeSetParams_v2(CUgraphExec e, CUgraphNode n, const CUDA_KERNEL_NODE_PARAMS *p) {
    rgpu_gnode *m = rgpu_exec_node(e, n, NODE_KERNEL);
    return m ? rgpu_record(RGPU_DRIVER, kernel_from(m, p)) : rgpu_invalid_value(RGPU_DRIVER);
}

/* CUDA_MEMSET_NODE_PARAMS and CUDA_HOST_NODE_PARAMS have the Runtime's layouts; the context names the
 * device, which the destination address already does. */
CUresult cuGraphAddMemsetNode(CUgraphNode *out, CUgraph g, const CUgraphNode *deps, size_t ndeps, const CUDA_MEMSET_NODE_PARAMS *p, CUcontext ctx) {
    AS_DRIVER(cudaGraphAddMemsetNode(out, g, deps, ndeps, (const struct cudaMemsetParams *)p));
}
CUresult cuGraphMemsetNodeGetParams(CUgraphNode n, CUDA_MEMSET_NODE_PARAMS *p) { AS_DRIVER(cudaGraphMemsetNodeGetParams(n, (struct cudaMemsetParams *)p)); }
CUresult cuGraphMemsetNodeSetParams(CUgraphNode n, const CUDA_MEMSET_NODE_PARAMS *p) { AS_DRIVER(cudaGraphMemsetNodeSetParams(n, (const struct cudaMemsetParams *)p)); }
CUresult cuGraphExecMemsetNodeSetParams(CUgraphExec e, CUgraphNode n, const CUDA_MEMSET_NODE_PARAMS *p, CUcontext ctx) {
    AS_DRIVER(cudaGraphExecMemsetNodeSetParams(e, n, (const struct cudaMemsetParams *)p));
}
/* Copy nodes of the Driver API: CUDA_MEMCPY3D of linear memory, kept as the Runtime's copy node. */
CUresult cuGraphAddMemcpyNode(CUgraphNode *out, CUgraph g, const CUgraphNode *deps, size_t ndeps,
                              const CUDA_MEMCPY3D *p, CUcontext ctx) {
    struct cudaMemcpy3DParms r;
    int rc = rgpu_memcpy3d_from_driver(p, &r);
    if (rc) return rgpu_record(RGPU_DRIVER, rc);
    AS_DRIVER(cudaGraphAddMemcpyNode(out, g, deps, ndeps, &r));
}
CUresult cuGraphMemcpyNodeGetParams(CUgraphNode n, CUDA_MEMCPY3D *p) {
    struct cudaMemcpy3DParms r;
    if (!p) return rgpu_invalid_value(RGPU_DRIVER);
    int saved = rgpu_get_last_error(RGPU_RUNTIME, 0);
    int rc = cudaGraphMemcpyNodeGetParams(n, &r);
    rgpu_set_last_error(RGPU_RUNTIME, saved);
    if (rc == 0) rgpu_memcpy3d_to_driver(&r, p);
    return rgpu_record(RGPU_DRIVER, rc);
}
CUresult cuGraphMemcpyNodeSetParams(CUgraphNode n, const CUDA_MEMCPY3D *p) {
    struct cudaMemcpy3DParms r;
    int rc = rgpu_memcpy3d_from_driver(p, &r);
    if (rc) return rgpu_record(RGPU_DRIVER, rc);
    AS_DRIVER(cudaGraphMemcpyNodeSetParams(n, &r));
}
CUresult cuGraphExecMemcpyNodeSetParams(CUgraphExec e, CUgraphNode n, const CUDA_MEMCPY3D *p, CUcontext ctx) {
    struct cudaMemcpy3DParms r;
    int rc = rgpu_memcpy3d_from_driver(p, &r);
    if (rc) return rgpu_record(RGPU_DRIVER, rc);
    AS_DRIVER(cudaGraphExecMemcpyNodeSetParams(e, n, &r));
}

CUresult cuGraphAddHostNode(CUgraphNode *out, CUgraph g, const CUgraphNode *deps, size_t ndeps, const CUDA_HOST_NODE_PARAMS *p) {
    AS_DRIVER(cudaGraphAddHostNode(out, g, deps, ndeps, (const struct cudaHostNodeParams *)p));
}
CUresult cuGraphHostNodeGetParams(CUgraphNode n, CUDA_HOST_NODE_PARAMS *p) { AS_DRIVER(cudaGraphHostNodeGetParams(n, (struct cudaHostNodeParams *)p)); }
CUresult cuGraphHostNodeSetParams(CUgraphNode n, const CUDA_HOST_NODE_PARAMS *p) { AS_DRIVER(cudaGraphHostNodeSetParams(n, (const struct cudaHostNodeParams *)p)); }
CUresult cuGraphExecHostNodeSetParams(CUgraphExec e, CUgraphNode n, const CUDA_HOST_NODE_PARAMS *p) { AS_DRIVER(cudaGraphExecHostNodeSetParams(e, n, (const struct cudaHostNodeParams *)p)); }
CUresult cuGraphAddChildGraphNode(CUgraphNode *out, CUgraph g, const CUgraphNode *deps, size_t ndeps, CUgraph child) {
    AS_DRIVER(cudaGraphAddChildGraphNode(out, g, deps, ndeps, child));
}
CUresult cuGraphChildGraphNodeGetGraph(CUgraphNode n, CUgraph *out) { AS_DRIVER(cudaGraphChildGraphNodeGetGraph(n, out)); }
CUresult cuGraphAddEventRecordNode(CUgraphNode *out, CUgraph g, const CUgraphNode *deps, size_t ndeps, CUevent event) {
    AS_DRIVER(cudaGraphAddEventRecordNode(out, g, deps, ndeps, event));
}
CUresult cuGraphAddEventWaitNode(CUgraphNode *out, CUgraph g, const CUgraphNode *deps, size_t ndeps, CUevent event) {
    AS_DRIVER(cudaGraphAddEventWaitNode(out, g, deps, ndeps, event));
}
CUresult cuGraphEventRecordNodeGetEvent(CUgraphNode n, CUevent *out) { AS_DRIVER(cudaGraphEventRecordNodeGetEvent(n, out)); }
CUresult cuGraphEventWaitNodeGetEvent(CUgraphNode n, CUevent *out) { AS_DRIVER(cudaGraphEventWaitNodeGetEvent(n, out)); }
CUresult cuGraphEventRecordNodeSetEvent(CUgraphNode n, CUevent event) { AS_DRIVER(cudaGraphEventRecordNodeSetEvent(n, event)); }
CUresult cuGraphEventWaitNodeSetEvent(CUgraphNode n, CUevent event) { AS_DRIVER(cudaGraphEventWaitNodeSetEvent(n, event)); }
CUresult cuGraphExecEventRecordNodeSetEvent(CUgraphExec e, CUgraphNode n, CUevent event) {
    AS_DRIVER(cudaGraphExecEventRecordNodeSetEvent(e, n, event));
}
CUresult cuGraphExecEventWaitNodeSetEvent(CUgraphExec e, CUgraphNode n, CUevent event) {
    AS_DRIVER(cudaGraphExecEventWaitNodeSetEvent(e, n, event));
}
CUresult cuGraphExecChildGraphNodeSetParams(CUgraphExec e, CUgraphNode n, CUgraph child) {
    AS_DRIVER(cudaGraphExecChildGraphNodeSetParams(e, n, child));
}
CUresult cuGraphExecUpdate_v2(CUgraphExec e, CUgraph g, CUgraphExecUpdateResultInfo *info) { AS_DRIVER(cudaGraphExecUpdate(e, g, (cudaGraphExecUpdateResultInfo *)info)); }
CUresult cuGraphInstantiateWithParams(CUgraphExec *out, CUgraph g, CUDA_GRAPH_INSTANTIATE_PARAMS *p) { AS_DRIVER(cudaGraphInstantiateWithParams(out, g, (cudaGraphInstantiateParams *)p)); }
CUresult cuGraphUpload(CUgraphExec e, CUstream stream) { AS_DRIVER(cudaGraphUpload(e, stream)); }
CUresult cuGraphNodeGetDependencies_v2(CUgraphNode n, CUgraphNode *out, CUgraphEdgeData *edge_data, size_t *count) {
    AS_DRIVER(cudaGraphNodeGetDependencies(n, out, (cudaGraphEdgeData *)edge_data, count));
}
CUresult cuGraphNodeGetDependentNodes_v2(CUgraphNode n, CUgraphNode *out, CUgraphEdgeData *edge_data, size_t *count) {
    AS_DRIVER(cudaGraphNodeGetDependentNodes(n, out, (cudaGraphEdgeData *)edge_data, count));
}
CUresult cuGraphNodeFindInClone(CUgraphNode *out, CUgraphNode orig, CUgraph cloned) {
    AS_DRIVER(cudaGraphNodeFindInClone(out, orig, cloned));
}
CUresult cuGraphDestroyNode(CUgraphNode n) { AS_DRIVER(cudaGraphDestroyNode(n)); }
CUresult cuGraphRemoveDependencies_v2(CUgraph g, const CUgraphNode *from, const CUgraphNode *to, const CUgraphEdgeData *edge_data, size_t n) {
    AS_DRIVER(cudaGraphRemoveDependencies(g, from, to, (const cudaGraphEdgeData *)edge_data, n));
}
CUresult cuGraphNodeSetEnabled(CUgraphExec e, CUgraphNode n, unsigned int enabled) { AS_DRIVER(cudaGraphNodeSetEnabled(e, n, enabled)); }
CUresult cuGraphNodeGetEnabled(CUgraphExec e, CUgraphNode n, unsigned int *enabled) { AS_DRIVER(cudaGraphNodeGetEnabled(e, n, enabled)); }
CUresult cuGraphExecGetFlags(CUgraphExec e, cuuint64_t *flags) { AS_DRIVER(cudaGraphExecGetFlags(e, (unsigned long long *)flags)); }
CUresult cuStreamGetCaptureInfo_v3(CUstream stream, CUstreamCaptureStatus *status, cuuint64_t *id, CUgraph *g, const CUgraphNode **deps, const CUgraphEdgeData **edge_data, size_t *ndeps) {
    AS_DRIVER(cudaStreamGetCaptureInfo(stream, (enum cudaStreamCaptureStatus *)status, (unsigned long long *)id, g, deps,
                                       (const cudaGraphEdgeData **)edge_data, ndeps));
}

/* CUDA_MEM_ALLOC_NODE_PARAMS has the Runtime's layout, and the graph-memory attributes its numbers. */

CUresult cuGraphAddMemAllocNode(CUgraphNode *out, CUgraph g, const CUgraphNode *deps, size_t ndeps, CUDA_MEM_ALLOC_NODE_PARAMS *p) {
    AS_DRIVER(cudaGraphAddMemAllocNode(out, g, deps, ndeps, (struct cudaMemAllocNodeParams *)p));
}
CUresult cuGraphMemAllocNodeGetParams(CUgraphNode n, CUDA_MEM_ALLOC_NODE_PARAMS *p) { AS_DRIVER(cudaGraphMemAllocNodeGetParams(n, (struct cudaMemAllocNodeParams *)p)); }
CUresult cuGraphAddMemFreeNode(CUgraphNode *out, CUgraph g, const CUgraphNode *deps, size_t ndeps, CUdeviceptr dptr) {
    AS_DRIVER(cudaGraphAddMemFreeNode(out, g, deps, ndeps, (void *)(uintptr_t)dptr));
}
CUresult cuGraphMemFreeNodeGetParams(CUgraphNode n, CUdeviceptr *dptr) { AS_DRIVER(cudaGraphMemFreeNodeGetParams(n, (void *)dptr)); }
CUresult cuDeviceGetGraphMemAttribute(CUdevice dev, CUgraphMem_attribute attr, void *value) {
    AS_DRIVER(cudaDeviceGetGraphMemAttribute(dev, (enum cudaGraphMemAttributeType)attr, value));
}
CUresult cuDeviceSetGraphMemAttribute(CUdevice dev, CUgraphMem_attribute attr, void *value) {
    AS_DRIVER(cudaDeviceSetGraphMemAttribute(dev, (enum cudaGraphMemAttributeType)attr, value));
}
CUresult cuDeviceGraphMemTrim(CUdevice dev) { AS_DRIVER(cudaDeviceGraphMemTrim(dev)); }
