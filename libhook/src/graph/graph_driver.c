/* The Driver's cuGraph* and capture functions that take what the Runtime's take (the node types,
 * result codes and most parameter structs have the same numbers and layouts): each runs the Runtime's
 * implementation and reports a failure as the Driver's last error, leaving the Runtime's as it was. */
#include <stddef.h>
#include <stdint.h>

#include "copy3d.h"
#include "graph.h"
#include "rgpu_call.h"

#define AS_DRIVER(call)                                               \
    do {                                                              \
        int saved_ = rgpu_get_last_error(RGPU_RUNTIME, 0);            \
        int rc_ = (call);                                             \
        rgpu_set_last_error(RGPU_RUNTIME, saved_);                    \
        return rgpu_record(RGPU_DRIVER, rc_);                         \
    } while (0)

typedef rgpu_gnode *node;
typedef rgpu_graph *graph;
typedef rgpu_graph_exec *exec;

extern int cudaGraphAddMemsetNode(node *, graph, node const *, size_t, const void *);
extern int cudaGraphMemsetNodeGetParams(node, void *);
extern int cudaGraphMemsetNodeSetParams(node, const void *);
extern int cudaGraphExecMemsetNodeSetParams(exec, node, const void *);
extern int cudaGraphAddMemcpyNode(node *, graph, node const *, size_t, const copy3d_params *);
extern int cudaGraphMemcpyNodeGetParams(node, copy3d_params *);
extern int cudaGraphMemcpyNodeSetParams(node, const copy3d_params *);
extern int cudaGraphExecMemcpyNodeSetParams(exec, node, const void *);
extern int cudaGraphAddHostNode(node *, graph, node const *, size_t, const void *);
extern int cudaGraphHostNodeGetParams(node, void *);
extern int cudaGraphHostNodeSetParams(node, const void *);
extern int cudaGraphExecHostNodeSetParams(exec, node, const void *);
extern int cudaGraphAddChildGraphNode(node *, graph, node const *, size_t, graph);
extern int cudaGraphChildGraphNodeGetGraph(node, graph *);
extern int cudaGraphAddEventRecordNode(node *, graph, node const *, size_t, void *);
extern int cudaGraphAddEventWaitNode(node *, graph, node const *, size_t, void *);
extern int cudaGraphEventRecordNodeGetEvent(node, void **);
extern int cudaGraphEventWaitNodeGetEvent(node, void **);
extern int cudaGraphEventRecordNodeSetEvent(node, void *);
extern int cudaGraphEventWaitNodeSetEvent(node, void *);
extern int cudaGraphExecEventRecordNodeSetEvent(exec, node, void *);
extern int cudaGraphExecEventWaitNodeSetEvent(exec, node, void *);
extern int cudaGraphExecChildGraphNodeSetParams(exec, node, graph);
extern int cudaGraphExecUpdate(exec, graph, void *);
extern int cudaGraphInstantiateWithParams(exec *, graph, void *);
extern int cudaGraphUpload(exec, void *);
extern int cudaGraphNodeGetDependencies(node, node *, void *, size_t *);
extern int cudaGraphNodeGetDependentNodes(node, node *, void *, size_t *);
extern int cudaGraphNodeFindInClone(node *, node, graph);
extern int cudaGraphDestroyNode(node);
extern int cudaGraphRemoveDependencies(graph, node const *, node const *, const void *, size_t);
extern int cudaGraphNodeSetEnabled(exec, node, unsigned);
extern int cudaGraphNodeGetEnabled(exec, node, unsigned *);
extern int cudaGraphExecGetFlags(exec, unsigned long long *);
extern int cudaStreamGetCaptureInfo(void *, int *, unsigned long long *, graph *, const rgpu_gnode ***, const void **,
                                    size_t *);

/* CUDA_KERNEL_NODE_PARAMS (v2): a CUfunction, or a CUkernel (which is its function in rgpu) */
typedef struct {
    void *func;
    unsigned gx, gy, gz, bx, by, bz, shmem;
    void **kernelParams, **extra;
    void *kern, *ctx;
} drv_kernel_params;

static int kernel_from(rgpu_gnode *n, const drv_kernel_params *p) {
    if (!p) return RGPU_INVALID_VALUE;
    const void *fn = p->func ? p->func : p->kern;
    unsigned g[3] = {p->gx, p->gy, p->gz}, b[3] = {p->bx, p->by, p->bz};
    rgpu_gnode tmp = {.type = NODE_KERNEL};
    int rc = rgpu_kernel_node_set(RGPU_DRIVER, &tmp.u.k, fn, g, b, p->shmem, p->kernelParams, p->extra, NULL);
    if (!rc) rc = rgpu_node_copy_params(n, &tmp);
    rgpu_node_clear(&tmp);
    return rc;
}

int cuGraphAddKernelNode_v2(node *out, graph g, node const *deps, size_t ndeps, const drv_kernel_params *p) {
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

int cuGraphKernelNodeGetParams_v2(node n, drv_kernel_params *p) {
    if (!n || n->type != NODE_KERNEL || !p) return rgpu_invalid_value(RGPU_DRIVER);
    const rgpu_kernel_node *k = &n->u.k;
    *p = (drv_kernel_params){(void *)k->func, k->g[0], k->g[1], k->g[2], k->b[0], k->b[1], k->b[2], k->shmem,
                             k->args, NULL, NULL, NULL};
    return 0;
}

int cuGraphKernelNodeSetParams_v2(node n, const drv_kernel_params *p) {
    if (!n || n->type != NODE_KERNEL) return rgpu_invalid_value(RGPU_DRIVER);
    return rgpu_record(RGPU_DRIVER, kernel_from(n, p));
}

int cuGraphExecKernelNodeSetParams_v2(exec e, node n, const drv_kernel_params *p) {
    rgpu_gnode *m = rgpu_exec_node(e, n, NODE_KERNEL);
    return m ? rgpu_record(RGPU_DRIVER, kernel_from(m, p)) : rgpu_invalid_value(RGPU_DRIVER);
}

/* CUDA_MEMSET_NODE_PARAMS and CUDA_HOST_NODE_PARAMS have the Runtime's layouts; the context names the
 * device, which the destination address already does. */
int cuGraphAddMemsetNode(node *out, graph g, node const *deps, size_t ndeps, const void *p, void *ctx) {
    AS_DRIVER(cudaGraphAddMemsetNode(out, g, deps, ndeps, p));
}
int cuGraphMemsetNodeGetParams(node n, void *p) { AS_DRIVER(cudaGraphMemsetNodeGetParams(n, p)); }
int cuGraphMemsetNodeSetParams(node n, const void *p) { AS_DRIVER(cudaGraphMemsetNodeSetParams(n, p)); }
int cuGraphExecMemsetNodeSetParams(exec e, node n, const void *p, void *ctx) {
    AS_DRIVER(cudaGraphExecMemsetNodeSetParams(e, n, p));
}
/* Copy nodes of the Driver API: CUDA_MEMCPY3D of linear memory, kept as the Runtime's copy node. */
int cuGraphAddMemcpyNode(node *out, graph g, node const *deps, size_t ndeps, const void *p, void *ctx) {
    copy3d_params r;
    int rc = rgpu_memcpy3d_from_driver(p, &r);
    if (rc) return rgpu_record(RGPU_DRIVER, rc);
    AS_DRIVER(cudaGraphAddMemcpyNode(out, g, deps, ndeps, &r));
}
int cuGraphMemcpyNodeGetParams(node n, void *p) {
    copy3d_params r;
    if (!p) return rgpu_invalid_value(RGPU_DRIVER);
    int rc = cudaGraphMemcpyNodeGetParams(n, &r);
    if (rc == 0) rgpu_memcpy3d_to_driver(&r, p);
    return rgpu_record(RGPU_DRIVER, rc);
}
int cuGraphMemcpyNodeSetParams(node n, const void *p) {
    copy3d_params r;
    int rc = rgpu_memcpy3d_from_driver(p, &r);
    if (rc) return rgpu_record(RGPU_DRIVER, rc);
    AS_DRIVER(cudaGraphMemcpyNodeSetParams(n, &r));
}
int cuGraphExecMemcpyNodeSetParams(exec e, node n, const void *p, void *ctx) {
    copy3d_params r;
    int rc = rgpu_memcpy3d_from_driver(p, &r);
    if (rc) return rgpu_record(RGPU_DRIVER, rc);
    AS_DRIVER(cudaGraphExecMemcpyNodeSetParams(e, n, &r));
}

int cuGraphAddHostNode(node *out, graph g, node const *deps, size_t ndeps, const void *p) {
    AS_DRIVER(cudaGraphAddHostNode(out, g, deps, ndeps, p));
}
int cuGraphHostNodeGetParams(node n, void *p) { AS_DRIVER(cudaGraphHostNodeGetParams(n, p)); }
int cuGraphHostNodeSetParams(node n, const void *p) { AS_DRIVER(cudaGraphHostNodeSetParams(n, p)); }
int cuGraphExecHostNodeSetParams(exec e, node n, const void *p) { AS_DRIVER(cudaGraphExecHostNodeSetParams(e, n, p)); }
int cuGraphAddChildGraphNode(node *out, graph g, node const *deps, size_t ndeps, graph child) {
    AS_DRIVER(cudaGraphAddChildGraphNode(out, g, deps, ndeps, child));
}
int cuGraphChildGraphNodeGetGraph(node n, graph *out) { AS_DRIVER(cudaGraphChildGraphNodeGetGraph(n, out)); }
int cuGraphAddEventRecordNode(node *out, graph g, node const *deps, size_t ndeps, void *event) {
    AS_DRIVER(cudaGraphAddEventRecordNode(out, g, deps, ndeps, event));
}
int cuGraphAddEventWaitNode(node *out, graph g, node const *deps, size_t ndeps, void *event) {
    AS_DRIVER(cudaGraphAddEventWaitNode(out, g, deps, ndeps, event));
}
int cuGraphEventRecordNodeGetEvent(node n, void **out) { AS_DRIVER(cudaGraphEventRecordNodeGetEvent(n, out)); }
int cuGraphEventWaitNodeGetEvent(node n, void **out) { AS_DRIVER(cudaGraphEventWaitNodeGetEvent(n, out)); }
int cuGraphEventRecordNodeSetEvent(node n, void *event) { AS_DRIVER(cudaGraphEventRecordNodeSetEvent(n, event)); }
int cuGraphEventWaitNodeSetEvent(node n, void *event) { AS_DRIVER(cudaGraphEventWaitNodeSetEvent(n, event)); }
int cuGraphExecEventRecordNodeSetEvent(exec e, node n, void *event) {
    AS_DRIVER(cudaGraphExecEventRecordNodeSetEvent(e, n, event));
}
int cuGraphExecEventWaitNodeSetEvent(exec e, node n, void *event) {
    AS_DRIVER(cudaGraphExecEventWaitNodeSetEvent(e, n, event));
}
int cuGraphExecChildGraphNodeSetParams(exec e, node n, graph child) {
    AS_DRIVER(cudaGraphExecChildGraphNodeSetParams(e, n, child));
}
int cuGraphExecUpdate_v2(exec e, graph g, void *info) { AS_DRIVER(cudaGraphExecUpdate(e, g, info)); }
int cuGraphInstantiateWithParams(exec *out, graph g, void *p) { AS_DRIVER(cudaGraphInstantiateWithParams(out, g, p)); }
int cuGraphUpload(exec e, void *stream) { AS_DRIVER(cudaGraphUpload(e, stream)); }
int cuGraphNodeGetDependencies_v2(node n, node *out, void *edge_data, size_t *count) {
    AS_DRIVER(cudaGraphNodeGetDependencies(n, out, edge_data, count));
}
int cuGraphNodeGetDependentNodes_v2(node n, node *out, void *edge_data, size_t *count) {
    AS_DRIVER(cudaGraphNodeGetDependentNodes(n, out, edge_data, count));
}
int cuGraphNodeFindInClone(node *out, node orig, graph cloned) {
    AS_DRIVER(cudaGraphNodeFindInClone(out, orig, cloned));
}
int cuGraphDestroyNode(node n) { AS_DRIVER(cudaGraphDestroyNode(n)); }
int cuGraphRemoveDependencies_v2(graph g, node const *from, node const *to, const void *edge_data, size_t n) {
    AS_DRIVER(cudaGraphRemoveDependencies(g, from, to, edge_data, n));
}
int cuGraphNodeSetEnabled(exec e, node n, unsigned enabled) { AS_DRIVER(cudaGraphNodeSetEnabled(e, n, enabled)); }
int cuGraphNodeGetEnabled(exec e, node n, unsigned *enabled) { AS_DRIVER(cudaGraphNodeGetEnabled(e, n, enabled)); }
int cuGraphExecGetFlags(exec e, uint64_t *flags) { AS_DRIVER(cudaGraphExecGetFlags(e, (unsigned long long *)flags)); }
int cuStreamGetCaptureInfo_v3(void *stream, int *status, uint64_t *id, graph *g, const rgpu_gnode ***deps,
                              const void **edge_data, size_t *ndeps) {
    AS_DRIVER(cudaStreamGetCaptureInfo(stream, status, (unsigned long long *)id, g, deps, edge_data, ndeps));
}

/* CUDA_MEM_ALLOC_NODE_PARAMS has the Runtime's layout, and the graph-memory attributes its numbers. */
extern int cudaGraphAddMemAllocNode(node *, graph, node const *, size_t, void *);
extern int cudaGraphMemAllocNodeGetParams(node, void *);
extern int cudaGraphAddMemFreeNode(node *, graph, node const *, size_t, void *);
extern int cudaGraphMemFreeNodeGetParams(node, void *);
extern int cudaDeviceGetGraphMemAttribute(int, int, void *);
extern int cudaDeviceSetGraphMemAttribute(int, int, void *);
extern int cudaDeviceGraphMemTrim(int);

int cuGraphAddMemAllocNode(node *out, graph g, node const *deps, size_t ndeps, void *p) {
    AS_DRIVER(cudaGraphAddMemAllocNode(out, g, deps, ndeps, p));
}
int cuGraphMemAllocNodeGetParams(node n, void *p) { AS_DRIVER(cudaGraphMemAllocNodeGetParams(n, p)); }
int cuGraphAddMemFreeNode(node *out, graph g, node const *deps, size_t ndeps, uint64_t dptr) {
    AS_DRIVER(cudaGraphAddMemFreeNode(out, g, deps, ndeps, (void *)(uintptr_t)dptr));
}
int cuGraphMemFreeNodeGetParams(node n, uint64_t *dptr) { AS_DRIVER(cudaGraphMemFreeNodeGetParams(n, dptr)); }
int cuDeviceGetGraphMemAttribute(int dev, int attr, void *value) {
    AS_DRIVER(cudaDeviceGetGraphMemAttribute(dev, attr, value));
}
int cuDeviceSetGraphMemAttribute(int dev, int attr, void *value) {
    AS_DRIVER(cudaDeviceSetGraphMemAttribute(dev, attr, value));
}
int cuDeviceGraphMemTrim(int dev) { AS_DRIVER(cudaDeviceGraphMemTrim(dev)); }
