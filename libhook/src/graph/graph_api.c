/* The Runtime's cudaGraph* functions for building and inspecting graphs (and the Driver's that take
 * the same arguments). Parameter structs are read by their layout in driver_types.h. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "graph.h"
#include "memcpy3d.h"
#include "texture.h"
#include "rgpu_call.h"


/* ---- node parameters ------------------------------------------------------------------------ */

int rgpu_kernel_node_set(int face, rgpu_kernel_node *k, const void *func, const unsigned g[3], const unsigned b[3],
                         unsigned shmem, void **args, void **extra, void *stream) {
    void *fn = NULL;
    const rgpu_layout *l = NULL;
    int rc = rgpu_launch_target(face, func, stream, &fn, &l);
    if (rc) return rc;
    if (extra) { /* CU_LAUNCH_PARAM_BUFFER_POINTER (1) / _SIZE (2) pairs, ended by 0 */
        const void *buf = NULL;
        size_t size = 0;
        for (int i = 0; extra[i]; i += 2) {
            if (extra[i] == (void *)1) buf = extra[i + 1];
            else if (extra[i] == (void *)2) size = *(size_t *)extra[i + 1];
            else return rgpu_invalid_value(face);
        }
        if (args || (size && !buf)) return rgpu_invalid_value(face);
        return rgpu_record(face, rgpu_kernel_node_fill(k, face, func, fn, NULL, g, b, shmem, buf, size));
    }
    uint8_t *buf = malloc(l->total ? l->total : 1);
    if (!buf) return rgpu_record(face, RGPU_OUT_OF_MEMORY);
    rc = rgpu_pack_args(l, args, buf) ? RGPU_INVALID_VALUE
                                       : rgpu_kernel_node_fill(k, face, func, fn, l, g, b, shmem, buf, l->total);
    free(buf);
    return rgpu_record(face, rc);
}

static int kernel_from(int face, rgpu_gnode *n, const struct cudaKernelNodeParams *p) {
    if (!p) return rgpu_invalid_value(face);
    unsigned g[3] = {p->gridDim.x, p->gridDim.y, p->gridDim.z}, b[3] = {p->blockDim.x, p->blockDim.y, p->blockDim.z};
    rgpu_gnode tmp = {.type = NODE_KERNEL};
    int rc = rgpu_kernel_node_set(face, &tmp.u.k, p->func, g, b, p->sharedMemBytes, p->kernelParams, p->extra, NULL);
    if (!rc) rc = rgpu_node_copy_params(n, &tmp);
    rgpu_node_clear(&tmp);
    return rgpu_record(face, rc);
}

static int memset_from(int face, rgpu_gnode *n, const struct cudaMemsetParams *p) {
    if (!p || !p->dst || (p->elementSize != 1 && p->elementSize != 2 && p->elementSize != 4) || !p->height ||
        (p->height > 1 && p->pitch < p->width * p->elementSize))
        return rgpu_invalid_value(face);
    rgpu_gnode tmp = {.type = NODE_MEMSET};
    tmp.u.s = (rgpu_memset_node){p->dst, p->pitch, p->width, p->height, p->value, p->elementSize};
    return rgpu_node_copy_params(n, &tmp);
}

/* A copy of linear memory of depth 1 is a 2D copy; one with CUDA arrays or more slices is a box
 * (memory/array_copy.c), kept in bytes for the launches and as given for the queries. */
static int copy_from(int face, rgpu_gnode *n, const struct cudaMemcpy3DParms *p) {
    if (!p || p->kind < 0 || p->kind > 4) return rgpu_invalid_value(face);
    if (p->srcArray || p->dstArray || p->extent.depth > 1) {
        rgpu_gnode tmp = {.type = NODE_MEMCPY};
        tmp.u.m.box = 1;
        tmp.u.m.r = *p;
        int rc = 0;
        if (p->srcArray || p->dstArray) rc = rgpu_memcpy3d_parms_to_box(p, &tmp.u.m.b);
        else rc = rgpu_memcpy3d_from_runtime(p, &tmp.u.m.b);
        return rc ? rc : rgpu_node_copy_params(n, &tmp);
    }
    if (!p->srcPtr.ptr || !p->dstPtr.ptr || !p->extent.width || !p->extent.height) return rgpu_invalid_value(face);
    const struct cudaPitchedPtr *s = &p->srcPtr, *d = &p->dstPtr;
    size_t sp = s->pitch ? s->pitch : p->extent.width, dp = d->pitch ? d->pitch : p->extent.width;
    rgpu_gnode tmp = {.type = NODE_MEMCPY};
    tmp.u.m = (rgpu_copy_node){(char *)d->ptr + p->dstPos.z * dp * d->ysize + p->dstPos.y * dp + p->dstPos.x,
                               (const char *)s->ptr + p->srcPos.z * sp * s->ysize + p->srcPos.y * sp + p->srcPos.x,
                               dp, sp, p->extent.width, p->extent.height, p->kind};
    return rgpu_node_copy_params(n, &tmp);
}

static int copy1d_from(int face, rgpu_gnode *n, void *dst, const void *src, size_t count, int kind) {
    if (!dst || !src || !count || kind < 0 || kind > 4) return rgpu_invalid_value(face);
    rgpu_gnode tmp = {.type = NODE_MEMCPY};
    tmp.u.m = (rgpu_copy_node){dst, src, count, count, count, 1, kind};
    return rgpu_node_copy_params(n, &tmp);
}

/* ---- adding nodes --------------------------------------------------------------------------- */

static rgpu_gnode *add(int face, rgpu_gnode **out, rgpu_graph *g, rgpu_gnode *const *deps, size_t ndeps, int *rc) {
    if (!out) { *rc = rgpu_invalid_value(face); return NULL; }
    rgpu_gnode *n = rgpu_graph_add(g, NODE_EMPTY, deps, ndeps, rc);
    if (!n) rgpu_record(face, *rc);
    return n;
}

/* A node whose parameters were refused is taken back out (it is the graph's last). */
static int finish(int face, rgpu_gnode **out, rgpu_gnode *n, int rc) {
    if (rc) {
        rgpu_graph *g = n->graph;
        g->n--;
        rgpu_node_clear(n);
        free(n->deps);
        free(n);
        return rgpu_record(face, rc);
    }
    *out = n;
    return 0;
}

#define ADD(face, out, g, deps, ndeps)                       \
    int rc;                                                  \
    rgpu_gnode *n = add(face, out, g, deps, ndeps, &rc);     \
    if (!n) return rc

cudaError_t cudaGraphCreate(cudaGraph_t *out, unsigned int flags) {
    if (!out || flags) return rgpu_invalid_value(RGPU_RUNTIME);
    return (*out = rgpu_graph_new()) ? 0 : rgpu_record(RGPU_RUNTIME, RGPU_OUT_OF_MEMORY);
}
CUresult cuGraphCreate(CUgraph *out, unsigned int flags) {
    if (!out || flags) return rgpu_invalid_value(RGPU_DRIVER);
    return (*out = rgpu_graph_new()) ? 0 : rgpu_record(RGPU_DRIVER, RGPU_OUT_OF_MEMORY);
}

cudaError_t cudaGraphDestroy(cudaGraph_t g) {
    if (!g) return rgpu_invalid_value(RGPU_RUNTIME);
    rgpu_graph_free(g);
    return 0;
}
CUresult cuGraphDestroy(CUgraph g) {
    if (!g) return rgpu_invalid_value(RGPU_DRIVER);
    rgpu_graph_free(g);
    return 0;
}

cudaError_t cudaGraphAddKernelNode(cudaGraphNode_t *out, cudaGraph_t g, const cudaGraphNode_t *deps, size_t ndeps, const struct cudaKernelNodeParams *p) {
    ADD(RGPU_RUNTIME, out, g, deps, ndeps);
    return finish(RGPU_RUNTIME, out, n, kernel_from(RGPU_RUNTIME, n, p));
}

cudaError_t cudaGraphAddMemsetNode(cudaGraphNode_t *out, cudaGraph_t g, const cudaGraphNode_t *deps, size_t ndeps, const struct cudaMemsetParams *p) {
    ADD(RGPU_RUNTIME, out, g, deps, ndeps);
    return finish(RGPU_RUNTIME, out, n, memset_from(RGPU_RUNTIME, n, p));
}

cudaError_t cudaGraphAddMemcpyNode(cudaGraphNode_t *out, cudaGraph_t g, const cudaGraphNode_t *deps, size_t ndeps, const struct cudaMemcpy3DParms *p) {
    ADD(RGPU_RUNTIME, out, g, deps, ndeps);
    return finish(RGPU_RUNTIME, out, n, copy_from(RGPU_RUNTIME, n, p));
}

cudaError_t cudaGraphAddMemcpyNode1D(cudaGraphNode_t *out, cudaGraph_t g, const cudaGraphNode_t *deps, size_t ndeps, void *dst, const void *src, size_t count, enum cudaMemcpyKind kind) {
    ADD(RGPU_RUNTIME, out, g, deps, ndeps);
    return finish(RGPU_RUNTIME, out, n, copy1d_from(RGPU_RUNTIME, n, dst, src, count, kind));
}

cudaError_t cudaGraphAddMemcpyNodeToSymbol(cudaGraphNode_t *out, cudaGraph_t g, const cudaGraphNode_t *deps, size_t ndeps, const void *symbol, const void *src, size_t count, size_t offset, enum cudaMemcpyKind kind) {
    void *addr = NULL;
    int rc0 = cudaGetSymbolAddress(&addr, symbol);
    if (rc0) return rc0;
    if (kind == 4) kind = 1; /* cudaMemcpyDefault: the other side is the program's pointer */
    ADD(RGPU_RUNTIME, out, g, deps, ndeps);
    return finish(RGPU_RUNTIME, out, n, copy1d_from(RGPU_RUNTIME, n, (char *)addr + offset, src, count, kind));
}

cudaError_t cudaGraphAddMemcpyNodeFromSymbol(cudaGraphNode_t *out, cudaGraph_t g, const cudaGraphNode_t *deps, size_t ndeps, void *dst, const void *symbol, size_t count, size_t offset, enum cudaMemcpyKind kind) {
    void *addr = NULL;
    int rc0 = cudaGetSymbolAddress(&addr, symbol);
    if (rc0) return rc0;
    if (kind == 4) kind = 2;
    ADD(RGPU_RUNTIME, out, g, deps, ndeps);
    return finish(RGPU_RUNTIME, out, n, copy1d_from(RGPU_RUNTIME, n, dst, (char *)addr + offset, count, kind));
}

cudaError_t cudaGraphAddHostNode(cudaGraphNode_t *out, cudaGraph_t g, const cudaGraphNode_t *deps, size_t ndeps, const struct cudaHostNodeParams *p) {
    if (!p || !p->fn) return rgpu_invalid_value(RGPU_RUNTIME);
    ADD(RGPU_RUNTIME, out, g, deps, ndeps);
    n->type = NODE_HOST;
    n->u.h.fn = p->fn;
    n->u.h.data = p->userData;
    return finish(RGPU_RUNTIME, out, n, 0);
}

cudaError_t cudaGraphAddChildGraphNode(cudaGraphNode_t *out, cudaGraph_t g, const cudaGraphNode_t *deps, size_t ndeps, cudaGraph_t child) {
    if (!child || child == g) return rgpu_invalid_value(RGPU_RUNTIME);
    ADD(RGPU_RUNTIME, out, g, deps, ndeps);
    n->type = NODE_GRAPH;
    n->u.child = rgpu_graph_clone(child); /* CUDA clones the child into the node */
    return finish(RGPU_RUNTIME, out, n, n->u.child ? 0 : RGPU_OUT_OF_MEMORY);
}

static int add_empty(int face, rgpu_gnode **out, rgpu_graph *g, rgpu_gnode *const *deps, size_t ndeps) {
    ADD(face, out, g, deps, ndeps);
    return finish(face, out, n, 0);
}
cudaError_t cudaGraphAddEmptyNode(cudaGraphNode_t *out, cudaGraph_t g, const cudaGraphNode_t *deps, size_t ndeps) {
    return add_empty(RGPU_RUNTIME, out, g, deps, ndeps);
}
CUresult cuGraphAddEmptyNode(CUgraphNode *out, CUgraph g, const CUgraphNode *deps, size_t ndeps) {
    return add_empty(RGPU_DRIVER, out, g, deps, ndeps);
}

static int add_event(rgpu_gnode **out, rgpu_graph *g, rgpu_gnode *const *deps, size_t ndeps, void *event, int type) {
    if (!event) return rgpu_invalid_value(RGPU_RUNTIME);
    ADD(RGPU_RUNTIME, out, g, deps, ndeps);
    n->type = type;
    n->u.event = event;
    return finish(RGPU_RUNTIME, out, n, 0);
}
cudaError_t cudaGraphAddEventRecordNode(cudaGraphNode_t *out, cudaGraph_t g, const cudaGraphNode_t *deps, size_t ndeps, cudaEvent_t event) {
    return add_event(out, g, deps, ndeps, event, NODE_EVENT_RECORD);
}
cudaError_t cudaGraphAddEventWaitNode(cudaGraphNode_t *out, cudaGraph_t g, const cudaGraphNode_t *deps, size_t ndeps, cudaEvent_t event) {
    return add_event(out, g, deps, ndeps, event, NODE_WAIT_EVENT);
}

/* ---- reading and changing node parameters ------------------------------------------------------ */

static int is(int face, const rgpu_gnode *n, int type) {
    return n && n->type == type ? 0 : rgpu_invalid_value(face);
}

cudaError_t cudaGraphKernelNodeGetParams(cudaGraphNode_t n, struct cudaKernelNodeParams *p) {
    int rc = is(RGPU_RUNTIME, n, NODE_KERNEL);
    if (rc || !p) return rc ? rc : rgpu_invalid_value(RGPU_RUNTIME);
    const rgpu_kernel_node *k = &n->u.k;
    p->func = (void *)k->func;
    p->gridDim = (dim3){k->g[0], k->g[1], k->g[2]};
    p->blockDim = (dim3){k->b[0], k->b[1], k->b[2]};
    p->sharedMemBytes = k->shmem;
    p->kernelParams = k->args; /* point into the node's own copy, as CUDA's do */
    p->extra = NULL;
    return 0;
}

cudaError_t cudaGraphKernelNodeSetParams(cudaGraphNode_t n, const struct cudaKernelNodeParams *p) {
    int rc = is(RGPU_RUNTIME, n, NODE_KERNEL);
    return rc ? rc : kernel_from(RGPU_RUNTIME, n, p);
}

cudaError_t cudaGraphMemsetNodeGetParams(cudaGraphNode_t n, struct cudaMemsetParams *p) {
    int rc = is(RGPU_RUNTIME, n, NODE_MEMSET);
    if (rc || !p) return rc ? rc : rgpu_invalid_value(RGPU_RUNTIME);
    const rgpu_memset_node *s = &n->u.s;
    *p = (struct cudaMemsetParams){s->dst, s->pitch, s->value, s->elsize, s->width, s->height};
    return 0;
}

cudaError_t cudaGraphMemsetNodeSetParams(cudaGraphNode_t n, const struct cudaMemsetParams *p) {
    int rc = is(RGPU_RUNTIME, n, NODE_MEMSET);
    return rc ? rc : rgpu_record(RGPU_RUNTIME, memset_from(RGPU_RUNTIME, n, p));
}

cudaError_t cudaGraphMemcpyNodeGetParams(cudaGraphNode_t n, struct cudaMemcpy3DParms *p) {
    int rc = is(RGPU_RUNTIME, n, NODE_MEMCPY);
    if (rc || !p) return rc ? rc : rgpu_invalid_value(RGPU_RUNTIME);
    const rgpu_copy_node *m = &n->u.m;
    if (m->box) { *p = m->r; return 0; }
    memset(p, 0, sizeof *p);
    p->srcPtr = (struct cudaPitchedPtr){(void *)m->src, m->spitch, m->width, m->height};
    p->dstPtr = (struct cudaPitchedPtr){m->dst, m->dpitch, m->width, m->height};
    p->extent = (struct cudaExtent){m->width, m->height, 1};
    p->kind = m->kind;
    return 0;
}

cudaError_t cudaGraphMemcpyNodeSetParams(cudaGraphNode_t n, const struct cudaMemcpy3DParms *p) {
    int rc = is(RGPU_RUNTIME, n, NODE_MEMCPY);
    return rc ? rc : rgpu_record(RGPU_RUNTIME, copy_from(RGPU_RUNTIME, n, p));
}

cudaError_t cudaGraphMemcpyNodeSetParams1D(cudaGraphNode_t n, void *dst, const void *src, size_t count, enum cudaMemcpyKind kind) {
    int rc = is(RGPU_RUNTIME, n, NODE_MEMCPY);
    return rc ? rc : rgpu_record(RGPU_RUNTIME, copy1d_from(RGPU_RUNTIME, n, dst, src, count, kind));
}

cudaError_t cudaGraphHostNodeGetParams(cudaGraphNode_t n, struct cudaHostNodeParams *p) {
    int rc = is(RGPU_RUNTIME, n, NODE_HOST);
    if (rc || !p) return rc ? rc : rgpu_invalid_value(RGPU_RUNTIME);
    p->fn = n->u.h.fn;
    p->userData = n->u.h.data;
    return 0;
}

cudaError_t cudaGraphHostNodeSetParams(cudaGraphNode_t n, const struct cudaHostNodeParams *p) {
    int rc = is(RGPU_RUNTIME, n, NODE_HOST);
    if (rc || !p || !p->fn) return rc ? rc : rgpu_invalid_value(RGPU_RUNTIME);
    n->u.h.fn = p->fn;
    n->u.h.data = p->userData;
    return 0;
}

cudaError_t cudaGraphChildGraphNodeGetGraph(cudaGraphNode_t n, cudaGraph_t *out) {
    int rc = is(RGPU_RUNTIME, n, NODE_GRAPH);
    if (rc || !out) return rc ? rc : rgpu_invalid_value(RGPU_RUNTIME);
    *out = n->u.child;
    return 0;
}

cudaError_t cudaGraphEventRecordNodeGetEvent(cudaGraphNode_t n, cudaEvent_t *out) {
    int rc = is(RGPU_RUNTIME, n, NODE_EVENT_RECORD);
    if (rc || !out) return rc ? rc : rgpu_invalid_value(RGPU_RUNTIME);
    *out = n->u.event;
    return 0;
}

cudaError_t cudaGraphEventWaitNodeGetEvent(cudaGraphNode_t n, cudaEvent_t *out) {
    int rc = is(RGPU_RUNTIME, n, NODE_WAIT_EVENT);
    if (rc || !out) return rc ? rc : rgpu_invalid_value(RGPU_RUNTIME);
    *out = n->u.event;
    return 0;
}

_Static_assert(sizeof(CUgraphNodeType) == sizeof(enum cudaGraphNodeType), "node types are one enum");
static int node_type(int face, rgpu_gnode *n, enum cudaGraphNodeType *type) {
    if (!n || !type) return rgpu_invalid_value(face);
    *type = n->type;
    return 0;
}
cudaError_t cudaGraphNodeGetType(cudaGraphNode_t n, enum cudaGraphNodeType *type) { return node_type(RGPU_RUNTIME, n, type); }
CUresult cuGraphNodeGetType(CUgraphNode n, CUgraphNodeType *type) {
    return node_type(RGPU_DRIVER, n, (enum cudaGraphNodeType *)type);
}

/* ---- topology ---------------------------------------------------------------------------------- */

static int add_deps(int face, rgpu_graph *g, rgpu_gnode *const *from, rgpu_gnode *const *to, size_t n) {
    if (!g || (n && (!from || !to))) return rgpu_invalid_value(face);
    for (size_t i = 0; i < n; i++)
        if (!from[i] || !to[i] || from[i]->graph != g || to[i]->graph != g || from[i] == to[i])
            return rgpu_invalid_value(face);
    for (size_t i = 0; i < n; i++) {
        int rc = rgpu_node_add_dep(to[i], from[i]);
        if (rc) return rgpu_record(face, rc);
    }
    return 0;
}
cudaError_t cudaGraphAddDependencies(cudaGraph_t g, const cudaGraphNode_t *from, const cudaGraphNode_t *to, const cudaGraphEdgeData *edge_data, size_t n) {
    return add_deps(RGPU_RUNTIME, g, from, to, n);
}
CUresult cuGraphAddDependencies_v2(CUgraph g, const CUgraphNode *from, const CUgraphNode *to, const CUgraphEdgeData *edge_data, size_t n) {
    return add_deps(RGPU_DRIVER, g, from, to, n);
}

/* CUDA's list convention: a NULL array asks for the count; otherwise up to *count entries are filled,
 * the rest of the array set to NULL, and *count becomes the number filled. */
static int list_nodes(int face, rgpu_graph *g, rgpu_gnode **out, size_t *count, int roots) {
    if (!g || !count) return rgpu_invalid_value(face);
    size_t total = 0, cap = *count;
    for (int i = 0; i < g->n; i++) {
        if (roots && g->nodes[i]->ndeps) continue;
        if (out && total < cap) out[total] = g->nodes[i];
        total++;
    }
    if (out) {
        for (size_t i = total; i < cap; i++) out[i] = NULL;
        *count = total < cap ? total : cap;
    } else {
        *count = total;
    }
    return 0;
}
cudaError_t cudaGraphGetNodes(cudaGraph_t g, cudaGraphNode_t *out, size_t *count) {
    return list_nodes(RGPU_RUNTIME, g, out, count, 0);
}
CUresult cuGraphGetNodes(CUgraph g, CUgraphNode *out, size_t *count) {
    return list_nodes(RGPU_DRIVER, g, out, count, 0);
}
cudaError_t cudaGraphGetRootNodes(cudaGraph_t g, cudaGraphNode_t *out, size_t *count) {
    return list_nodes(RGPU_RUNTIME, g, out, count, 1);
}
CUresult cuGraphGetRootNodes(CUgraph g, CUgraphNode *out, size_t *count) {
    return list_nodes(RGPU_DRIVER, g, out, count, 1);
}

enum { EDGE_DATA_SIZE = 8 }; /* cudaGraphEdgeData: from_port, to_port, type, reserved[5]; all 0 = a plain edge */

static int list_edges(int face, rgpu_graph *g, rgpu_gnode **from, rgpu_gnode **to, void *edge_data, size_t *count) {
    if (!g || !count || (!from != !to)) return rgpu_invalid_value(face);
    size_t total = 0, cap = *count;
    for (int i = 0; i < g->n; i++)
        for (int d = 0; d < g->nodes[i]->ndeps; d++) {
            if (from && total < cap) {
                from[total] = g->nodes[i]->deps[d];
                to[total] = g->nodes[i];
                if (edge_data) memset((char *)edge_data + total * EDGE_DATA_SIZE, 0, EDGE_DATA_SIZE);
            }
            total++;
        }
    if (from) {
        for (size_t i = total; i < cap; i++) from[i] = to[i] = NULL;
        *count = total < cap ? total : cap;
    } else {
        *count = total;
    }
    return 0;
}
cudaError_t cudaGraphGetEdges(cudaGraph_t g, cudaGraphNode_t *from, cudaGraphNode_t *to, cudaGraphEdgeData *edge_data, size_t *count) {
    return list_edges(RGPU_RUNTIME, g, from, to, edge_data, count);
}
CUresult cuGraphGetEdges_v2(CUgraph g, CUgraphNode *from, CUgraphNode *to, CUgraphEdgeData *edge_data, size_t *count) {
    return list_edges(RGPU_DRIVER, g, from, to, edge_data, count);
}

static int neighbours(rgpu_gnode *n, rgpu_gnode **out, void *edge_data, size_t *count, int dependents) {
    if (!n || !count) return rgpu_invalid_value(RGPU_RUNTIME);
    size_t total = 0, cap = *count;
    rgpu_graph *g = n->graph;
    for (int i = 0; i < (dependents ? g->n : n->ndeps); i++) {
        rgpu_gnode *m = NULL;
        if (!dependents) m = n->deps[i];
        else
            for (int d = 0; d < g->nodes[i]->ndeps && !m; d++)
                if (g->nodes[i]->deps[d] == n) m = g->nodes[i];
        if (!m) continue;
        if (out && total < cap) {
            out[total] = m;
            if (edge_data) memset((char *)edge_data + total * EDGE_DATA_SIZE, 0, EDGE_DATA_SIZE);
        }
        total++;
    }
    if (out) {
        for (size_t i = total; i < cap; i++) out[i] = NULL;
        *count = total < cap ? total : cap;
    } else {
        *count = total;
    }
    return 0;
}
cudaError_t cudaGraphNodeGetDependencies(cudaGraphNode_t n, cudaGraphNode_t *out, cudaGraphEdgeData *edge_data, size_t *count) {
    return neighbours(n, out, edge_data, count, 0);
}
cudaError_t cudaGraphNodeGetDependentNodes(cudaGraphNode_t n, cudaGraphNode_t *out, cudaGraphEdgeData *edge_data, size_t *count) {
    return neighbours(n, out, edge_data, count, 1);
}

/* ---- clones and printing ------------------------------------------------------------------------ */

static int clone(int face, rgpu_graph **out, rgpu_graph *g) {
    if (!out || !g) return rgpu_invalid_value(face);
    return (*out = rgpu_graph_clone(g)) ? 0 : rgpu_record(face, RGPU_OUT_OF_MEMORY);
}
cudaError_t cudaGraphClone(cudaGraph_t *out, cudaGraph_t g) { return clone(RGPU_RUNTIME, out, g); }
CUresult cuGraphClone(CUgraph *out, CUgraph g) { return clone(RGPU_DRIVER, out, g); }

/* A clone keeps the nodes' positions, so the clone of a node is the clone's node at its index. */
cudaError_t cudaGraphNodeFindInClone(cudaGraphNode_t *out, cudaGraphNode_t orig, cudaGraph_t cloned) {
    if (!out || !orig || !cloned || orig->index >= cloned->n || cloned->nodes[orig->index]->type != orig->type)
        return rgpu_invalid_value(RGPU_RUNTIME);
    *out = cloned->nodes[orig->index];
    return 0;
}

static const char *type_name(int t) {
    static const char *names[] = {"kernel", "memcpy", "memset", "host", "graph", "empty", "wait_event",
                                  "event_record"};
    return t >= 0 && t <= NODE_EVENT_RECORD ? names[t] : "node";
}

static void dot_graph(FILE *f, const rgpu_graph *g, const char *prefix) {
    for (int i = 0; i < g->n; i++) {
        const rgpu_gnode *n = g->nodes[i];
        fprintf(f, "  \"%s%d\" [label=\"%d: %s", prefix, i, i, type_name(n->type));
        if (n->type == NODE_KERNEL)
            fprintf(f, " <<<(%u,%u,%u),(%u,%u,%u),%u>>>", n->u.k.g[0], n->u.k.g[1], n->u.k.g[2], n->u.k.b[0],
                    n->u.k.b[1], n->u.k.b[2], n->u.k.shmem);
        if (n->type == NODE_MEMCPY) fprintf(f, " %zux%zu kind %d", n->u.m.width, n->u.m.height, n->u.m.kind);
        if (n->type == NODE_MEMSET) fprintf(f, " %zux%zu value %u", n->u.s.width, n->u.s.height, n->u.s.value);
        fprintf(f, "\"];\n");
        for (int d = 0; d < n->ndeps; d++)
            fprintf(f, "  \"%s%d\" -> \"%s%d\";\n", prefix, n->deps[d]->index, prefix, i);
        if (n->type == NODE_GRAPH) {
            char sub[64];
            snprintf(sub, sizeof sub, "%s%d.", prefix, i);
            dot_graph(f, n->u.child, sub);
        }
    }
}

static int dot_print(int face, rgpu_graph *g, const char *path) {
    if (!g || !path) return rgpu_invalid_value(face);
    FILE *f = fopen(path, "w");
    if (!f) return rgpu_record(face, 999 /* cudaErrorUnknown / CUDA_ERROR_UNKNOWN */);
    fprintf(f, "digraph rgpu_graph {\n");
    dot_graph(f, g, "");
    fprintf(f, "}\n");
    fclose(f);
    return 0;
}
cudaError_t cudaGraphDebugDotPrint(cudaGraph_t g, const char *path, unsigned int flags) { return dot_print(RGPU_RUNTIME, g, path); }
CUresult cuGraphDebugDotPrint(CUgraph g, const char *path, unsigned int flags) { return dot_print(RGPU_DRIVER, g, path); }
