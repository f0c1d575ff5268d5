/* Editing graphs after their nodes were made: removing nodes and edges, switching an executable
 * graph's nodes off, and the node setters that are not about kernels, copies or memsets. */
#include <stdlib.h>

#include "graph.h"
#include "rgpu_call.h"


cudaError_t cudaGraphDestroyNode(cudaGraphNode_t n) {
    if (!n) return rgpu_invalid_value(RGPU_RUNTIME);
    rgpu_graph_remove(n);
    return 0;
}

cudaError_t cudaGraphRemoveDependencies(cudaGraph_t g, const cudaGraphNode_t *from, const cudaGraphNode_t *to, const cudaGraphEdgeData *edge_data, size_t n) {
    if (!g || (n && (!from || !to))) return rgpu_invalid_value(RGPU_RUNTIME);
    for (size_t i = 0; i < n; i++) { /* every edge must exist before any is removed */
        int found = 0;
        if (!from[i] || !to[i] || to[i]->graph != g) return rgpu_invalid_value(RGPU_RUNTIME);
        for (int d = 0; d < to[i]->ndeps && !found; d++) found = to[i]->deps[d] == from[i];
        if (!found) return rgpu_invalid_value(RGPU_RUNTIME);
    }
    for (size_t i = 0; i < n; i++) {
        rgpu_gnode *t = to[i];
        int k = 0;
        for (int d = 0; d < t->ndeps; d++)
            if (t->deps[d] != from[i]) t->deps[k++] = t->deps[d];
        t->ndeps = k;
    }
    return 0;
}

/* CUDA lets kernel, copy and memset nodes be switched off; a disabled node is skipped by launches. */
cudaError_t cudaGraphNodeSetEnabled(cudaGraphExec_t e, cudaGraphNode_t n, unsigned int enabled) {
    rgpu_gnode *m = rgpu_exec_node(e, n, -1);
    if (!m || (m->type != NODE_KERNEL && m->type != NODE_MEMCPY && m->type != NODE_MEMSET))
        return rgpu_invalid_value(RGPU_RUNTIME);
    m->disabled = !enabled;
    return 0;
}

cudaError_t cudaGraphNodeGetEnabled(cudaGraphExec_t e, cudaGraphNode_t n, unsigned int *enabled) {
    const rgpu_gnode *m = rgpu_exec_node_peek(e, n, -1);
    if (!m || !enabled || (m->type != NODE_KERNEL && m->type != NODE_MEMCPY && m->type != NODE_MEMSET))
        return rgpu_invalid_value(RGPU_RUNTIME);
    *enabled = !m->disabled;
    return 0;
}

static int set_event(rgpu_gnode *n, int type, void *event) {
    if (!n || n->type != type || !event) return rgpu_invalid_value(RGPU_RUNTIME);
    n->u.event = event;
    return 0;
}
cudaError_t cudaGraphEventRecordNodeSetEvent(cudaGraphNode_t n, cudaEvent_t event) { return set_event(n, NODE_EVENT_RECORD, event); }
cudaError_t cudaGraphEventWaitNodeSetEvent(cudaGraphNode_t n, cudaEvent_t event) { return set_event(n, NODE_WAIT_EVENT, event); }
cudaError_t cudaGraphExecEventRecordNodeSetEvent(cudaGraphExec_t e, cudaGraphNode_t n, cudaEvent_t event) {
    return set_event(rgpu_exec_node(e, n, NODE_EVENT_RECORD), NODE_EVENT_RECORD, event);
}
cudaError_t cudaGraphExecEventWaitNodeSetEvent(cudaGraphExec_t e, cudaGraphNode_t n, cudaEvent_t event) {
    return set_event(rgpu_exec_node(e, n, NODE_WAIT_EVENT), NODE_WAIT_EVENT, event);
}

/* The child graph of an executable graph's node may change its parameters, not its shape. */
cudaError_t cudaGraphExecChildGraphNodeSetParams(cudaGraphExec_t e, cudaGraphNode_t n, cudaGraph_t child) {
    rgpu_gnode *m = rgpu_exec_node(e, n, NODE_GRAPH);
    if (!m || !child) return rgpu_invalid_value(RGPU_RUNTIME);
    rgpu_graph *old = m->u.child;
    if (old->n != child->n) return rgpu_record(RGPU_RUNTIME, ERR_GRAPH_EXEC_UPDATE);
    for (int i = 0; i < child->n; i++)
        if (old->nodes[i]->type != child->nodes[i]->type || old->nodes[i]->ndeps != child->nodes[i]->ndeps)
            return rgpu_record(RGPU_RUNTIME, ERR_GRAPH_EXEC_UPDATE);
    rgpu_graph *copy = rgpu_graph_clone(child);
    if (!copy) return rgpu_record(RGPU_RUNTIME, RGPU_OUT_OF_MEMORY);
    rgpu_graph_free(old);
    m->u.child = copy;
    return 0;
}

static int symbol_copy(rgpu_gnode *n, int to, void *host, const void *symbol, size_t count, size_t offset, int kind) {
    void *addr = NULL;
    int rc = cudaGetSymbolAddress(&addr, symbol);
    if (rc) return rc;
    if (kind == 4) kind = to ? 1 : 2; /* cudaMemcpyDefault: the other side is the program's pointer */
    char *dev = (char *)addr + offset;
    return to ? cudaGraphMemcpyNodeSetParams1D(n, dev, host, count, kind)
              : cudaGraphMemcpyNodeSetParams1D(n, host, dev, count, kind);
}
cudaError_t cudaGraphMemcpyNodeSetParamsToSymbol(cudaGraphNode_t n, const void *symbol, const void *src, size_t count, size_t offset, enum cudaMemcpyKind kind) {
    return symbol_copy(n, 1, (void *)src, symbol, count, offset, kind);
}
cudaError_t cudaGraphMemcpyNodeSetParamsFromSymbol(cudaGraphNode_t n, void *dst, const void *symbol, size_t count, size_t offset, enum cudaMemcpyKind kind) {
    return symbol_copy(n, 0, dst, symbol, count, offset, kind);
}
cudaError_t cudaGraphExecMemcpyNodeSetParamsToSymbol(cudaGraphExec_t e, cudaGraphNode_t n, const void *symbol, const void *src, size_t count, size_t offset, enum cudaMemcpyKind kind) {
    rgpu_gnode *m = rgpu_exec_node(e, n, NODE_MEMCPY);
    return m ? symbol_copy(m, 1, (void *)src, symbol, count, offset, kind) : rgpu_invalid_value(RGPU_RUNTIME);
}
cudaError_t cudaGraphExecMemcpyNodeSetParamsFromSymbol(cudaGraphExec_t e, cudaGraphNode_t n, void *dst, const void *symbol, size_t count, size_t offset, enum cudaMemcpyKind kind) {
    rgpu_gnode *m = rgpu_exec_node(e, n, NODE_MEMCPY);
    return m ? symbol_copy(m, 0, dst, symbol, count, offset, kind) : rgpu_invalid_value(RGPU_RUNTIME);
}
