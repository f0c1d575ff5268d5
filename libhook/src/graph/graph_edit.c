/* Editing graphs after their nodes were made: removing nodes and edges, switching an executable
 * graph's nodes off, and the node setters that are not about kernels, copies or memsets. */
#include <stdlib.h>

#include "graph.h"
#include "rgpu_call.h"

extern int cudaGetSymbolAddress(void **dev, const void *symbol);
extern int cudaGraphMemcpyNodeSetParams1D(rgpu_gnode *n, void *dst, const void *src, size_t count, int kind);

int cudaGraphDestroyNode(rgpu_gnode *n) {
    if (!n) return rgpu_invalid_value(RGPU_RUNTIME);
    rgpu_graph_remove(n);
    return 0;
}

int cudaGraphRemoveDependencies(rgpu_graph *g, rgpu_gnode *const *from, rgpu_gnode *const *to,
                                const void *edge_data, size_t n) {
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
int cudaGraphNodeSetEnabled(rgpu_graph_exec *e, rgpu_gnode *n, unsigned enabled) {
    rgpu_gnode *m = rgpu_exec_node(e, n, -1);
    if (!m || (m->type != NODE_KERNEL && m->type != NODE_MEMCPY && m->type != NODE_MEMSET))
        return rgpu_invalid_value(RGPU_RUNTIME);
    m->disabled = !enabled;
    return 0;
}

int cudaGraphNodeGetEnabled(rgpu_graph_exec *e, rgpu_gnode *n, unsigned *enabled) {
    rgpu_gnode *m = rgpu_exec_node(e, n, -1);
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
int cudaGraphEventRecordNodeSetEvent(rgpu_gnode *n, void *event) { return set_event(n, NODE_EVENT_RECORD, event); }
int cudaGraphEventWaitNodeSetEvent(rgpu_gnode *n, void *event) { return set_event(n, NODE_WAIT_EVENT, event); }
int cudaGraphExecEventRecordNodeSetEvent(rgpu_graph_exec *e, rgpu_gnode *n, void *event) {
    return set_event(rgpu_exec_node(e, n, NODE_EVENT_RECORD), NODE_EVENT_RECORD, event);
}
int cudaGraphExecEventWaitNodeSetEvent(rgpu_graph_exec *e, rgpu_gnode *n, void *event) {
    return set_event(rgpu_exec_node(e, n, NODE_WAIT_EVENT), NODE_WAIT_EVENT, event);
}

/* The child graph of an executable graph's node may change its parameters, not its shape. */
int cudaGraphExecChildGraphNodeSetParams(rgpu_graph_exec *e, rgpu_gnode *n, rgpu_graph *child) {
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
int cudaGraphMemcpyNodeSetParamsToSymbol(rgpu_gnode *n, const void *symbol, const void *src, size_t count,
                                         size_t offset, int kind) {
    return symbol_copy(n, 1, (void *)src, symbol, count, offset, kind);
}
int cudaGraphMemcpyNodeSetParamsFromSymbol(rgpu_gnode *n, void *dst, const void *symbol, size_t count, size_t offset,
                                           int kind) {
    return symbol_copy(n, 0, dst, symbol, count, offset, kind);
}
int cudaGraphExecMemcpyNodeSetParamsToSymbol(rgpu_graph_exec *e, rgpu_gnode *n, const void *symbol, const void *src,
                                             size_t count, size_t offset, int kind) {
    rgpu_gnode *m = rgpu_exec_node(e, n, NODE_MEMCPY);
    return m ? symbol_copy(m, 1, (void *)src, symbol, count, offset, kind) : rgpu_invalid_value(RGPU_RUNTIME);
}
int cudaGraphExecMemcpyNodeSetParamsFromSymbol(rgpu_graph_exec *e, rgpu_gnode *n, void *dst, const void *symbol,
                                               size_t count, size_t offset, int kind) {
    rgpu_gnode *m = rgpu_exec_node(e, n, NODE_MEMCPY);
    return m ? symbol_copy(m, 0, dst, symbol, count, offset, kind) : rgpu_invalid_value(RGPU_RUNTIME);
}
