/* Executable graphs: a snapshot of a graph and its topological order, launched by replaying the nodes
 * onto the launch stream (graph.c), updated in place by cudaGraphExecUpdate and Exec*NodeSetParams. */
#include <stdlib.h>
#include <string.h>

#include "graph.h"
#include "rgpu_call.h"


static void exec_free(rgpu_graph_exec *e) {
    if (!e) return;
    rgpu_graph_server_drop(e);
    rgpu_graph_free(e->graph);
    free(e->order);
    free(e);
}

/* cudaGraphInstantiateFlagAutoFreeOnLaunch (1), ...Upload (2) and ...UseNodePriority (8) are honoured or
 * need nothing here; ...DeviceLaunch (4) would launch from kernels, which replaying from the client cannot. */
static int instantiate(int face, rgpu_graph_exec **out, rgpu_graph *g, unsigned long long flags) {
    if (!out || !g || (flags & ~15ull)) return rgpu_invalid_value(face);
    if (flags & 4) return rgpu_unsupported(face, "cudaGraphInstantiate (cudaGraphInstantiateFlagDeviceLaunch)");
    *out = NULL;
    rgpu_graph_exec *e = calloc(1, sizeof *e);
    int rc = RGPU_OUT_OF_MEMORY;
    if (e && (e->graph = rgpu_graph_clone(g)) && (e->order = rgpu_graph_order(e->graph, &rc))) {
        e->source = g;
        e->flags = flags;
        *out = e;
        return 0;
    }
    exec_free(e);
    return rgpu_record(face, rc);
}

cudaError_t cudaGraphInstantiate(cudaGraphExec_t *out, cudaGraph_t g, unsigned long long flags) {
    return instantiate(RGPU_RUNTIME, out, g, flags);
}
cudaError_t cudaGraphInstantiateWithFlags(cudaGraphExec_t *out, cudaGraph_t g, unsigned long long flags) {
    return instantiate(RGPU_RUNTIME, out, g, flags);
}
CUresult cuGraphInstantiateWithFlags(CUgraphExec *out, CUgraph g, unsigned long long flags) {
    return instantiate(RGPU_DRIVER, out, g, flags);
}


cudaError_t cudaGraphInstantiateWithParams(cudaGraphExec_t *out, cudaGraph_t g, cudaGraphInstantiateParams *p) {
    if (!p) return rgpu_invalid_value(RGPU_RUNTIME);
    int rc = instantiate(RGPU_RUNTIME, out, g, p->flags);
    p->errNode_out = NULL;
    p->result_out = rc ? cudaGraphInstantiateError : cudaGraphInstantiateSuccess;
    return rc;
}

static int exec_destroy(int face, rgpu_graph_exec *e) {
    if (!e) return rgpu_invalid_value(face);
    exec_free(e);
    return 0;
}
cudaError_t cudaGraphExecDestroy(cudaGraphExec_t e) { return exec_destroy(RGPU_RUNTIME, e); }

cudaError_t cudaGraphExecGetFlags(cudaGraphExec_t e, unsigned long long *flags) {
    if (!e || !flags) return rgpu_invalid_value(RGPU_RUNTIME);
    *flags = e->flags;
    return 0;
}
CUresult cuGraphExecDestroy(CUgraphExec e) { return exec_destroy(RGPU_DRIVER, e); }

static int launch(int face, rgpu_graph_exec *e, void *stream) {
    if (!e) return rgpu_invalid_value(face);
    int rc = rgpu_ensure_init();
    if (rc) return rgpu_record(face, rc);
    if (rgpu_graph_server_launch(face, e, stream, &rc)) return rc;
    return rgpu_graph_replay(face, e->order, e->graph->n, stream, e->flags);
}
cudaError_t cudaGraphLaunch(cudaGraphExec_t e, cudaStream_t stream) { return launch(RGPU_RUNTIME, e, stream); }
CUresult cuGraphLaunch(CUgraphExec e, CUstream stream) { return launch(RGPU_DRIVER, e, stream); }

/* A graph the server runs is sent to it now rather than at its first launch (graph_server.c); any
 * other has nothing to upload: its nodes travel at each launch. */
cudaError_t cudaGraphUpload(cudaGraphExec_t e, cudaStream_t stream) {
    if (!e) return rgpu_invalid_value(RGPU_RUNTIME);
    if (rgpu_ensure_init() == 0) rgpu_graph_server_upload(e, stream);
    return 0;
}

/* ---- updates ------------------------------------------------------------------------------------- */

/* The executable graph's copy of a node of the graph it was instantiated from, to read (peek) or to
 * change (exec_node: the worker's build of the graph is then stale, graph_server.c). */
const rgpu_gnode *rgpu_exec_node_peek(const rgpu_graph_exec *e, const rgpu_gnode *n, int type) {
    if (!e || !n || n->graph != e->source || n->index >= e->graph->n) return NULL;
    const rgpu_gnode *m = e->graph->nodes[n->index];
    return m->type == n->type && (type < 0 || m->type == type) ? m : NULL;
}

rgpu_gnode *rgpu_exec_node(rgpu_graph_exec *e, rgpu_gnode *n, int type) {
    rgpu_gnode *m = (rgpu_gnode *)rgpu_exec_node_peek(e, n, type);
    if (m) e->changed = 1;
    return m;
}
#define exec_node rgpu_exec_node

cudaError_t cudaGraphExecKernelNodeSetParams(cudaGraphExec_t e, cudaGraphNode_t n, const struct cudaKernelNodeParams *p) {
    rgpu_gnode *m = exec_node(e, n, NODE_KERNEL);
    return m ? cudaGraphKernelNodeSetParams(m, p) : rgpu_invalid_value(RGPU_RUNTIME);
}
cudaError_t cudaGraphExecMemsetNodeSetParams(cudaGraphExec_t e, cudaGraphNode_t n, const struct cudaMemsetParams *p) {
    rgpu_gnode *m = exec_node(e, n, NODE_MEMSET);
    return m ? cudaGraphMemsetNodeSetParams(m, p) : rgpu_invalid_value(RGPU_RUNTIME);
}
cudaError_t cudaGraphExecMemcpyNodeSetParams(cudaGraphExec_t e, cudaGraphNode_t n, const struct cudaMemcpy3DParms *p) {
    rgpu_gnode *m = exec_node(e, n, NODE_MEMCPY);
    return m ? cudaGraphMemcpyNodeSetParams(m, p) : rgpu_invalid_value(RGPU_RUNTIME);
}
cudaError_t cudaGraphExecMemcpyNodeSetParams1D(cudaGraphExec_t e, cudaGraphNode_t n, void *dst, const void *src, size_t count, enum cudaMemcpyKind kind) {
    rgpu_gnode *m = exec_node(e, n, NODE_MEMCPY);
    return m ? cudaGraphMemcpyNodeSetParams1D(m, dst, src, count, kind) : rgpu_invalid_value(RGPU_RUNTIME);
}
cudaError_t cudaGraphExecHostNodeSetParams(cudaGraphExec_t e, cudaGraphNode_t n, const struct cudaHostNodeParams *p) {
    rgpu_gnode *m = exec_node(e, n, NODE_HOST);
    return m ? cudaGraphHostNodeSetParams(m, p) : rgpu_invalid_value(RGPU_RUNTIME);
}

/* cudaGraphExecUpdateResultInfo: result, errorNode, errorFromNode */

static int same_deps(const rgpu_gnode *a, const rgpu_gnode *b) {
    if (a->ndeps != b->ndeps) return 0;
    for (int i = 0; i < a->ndeps; i++) {
        int found = 0;
        for (int j = 0; j < b->ndeps && !found; j++) found = a->deps[i]->index == b->deps[j]->index;
        if (!found) return 0;
    }
    return 1;
}

/* Same nodes (by position and type) and the same edges: the graph's parameters replace the executable
 * graph's. Anything else leaves it as it was, as CUDA does. Child graphs are taken over whole. */
cudaError_t cudaGraphExecUpdate(cudaGraphExec_t e, cudaGraph_t g, cudaGraphExecUpdateResultInfo *info) {
    if (!e || !g) return rgpu_invalid_value(RGPU_RUNTIME);
    cudaGraphExecUpdateResultInfo r = {cudaGraphExecUpdateSuccess, NULL, NULL};
    if (g->n != e->graph->n) r.result = cudaGraphExecUpdateErrorTopologyChanged;
    for (int i = 0; i < g->n && !r.result; i++) {
        rgpu_gnode *n = g->nodes[i], *m = e->graph->nodes[i];
        if (n->type != m->type) { r.result = cudaGraphExecUpdateErrorNodeTypeChanged; r.errorNode = n; }
        else if (!same_deps(n, m)) { r.result = cudaGraphExecUpdateErrorTopologyChanged; r.errorNode = n; }
    }
    if (!r.result) e->changed = 1;
    for (int i = 0; i < g->n && !r.result; i++)
        if (rgpu_node_copy_params(e->graph->nodes[i], g->nodes[i])) {
            r.result = cudaGraphExecUpdateErrorNotSupported;
            r.errorNode = g->nodes[i];
        }
    if (info) *info = r;
    return r.result ? rgpu_record(RGPU_RUNTIME, ERR_GRAPH_EXEC_UPDATE) : 0;
}

/* The CUDA 10.0/11.0 form (cuGraphInstantiate / _v2 of NVIDIA's driver): an error node and a log
 * buffer instead of flags. rgpu's instantiation reports its errors as codes, so both stay empty. */
int rgpu_cuGraphInstantiate_v1(rgpu_graph_exec **out, rgpu_graph *g, void **error_node, char *log, size_t log_size) {
    if (error_node) *error_node = NULL;
    if (log && log_size) log[0] = 0;
    return cuGraphInstantiateWithFlags(out, g, 0);
}
