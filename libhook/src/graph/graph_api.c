/* The Runtime's cudaGraph* functions for building and inspecting graphs (and the Driver's that take
 * the same arguments). Parameter structs are read by their layout in driver_types.h. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "copy3d.h"
#include "graph.h"
#include "rgpu_call.h"

typedef struct { unsigned x, y, z; } dim3_t;
typedef struct { void *func; dim3_t grid, block; unsigned shmem; void **kernelParams; void **extra; } kernel_params;
typedef struct { void *dst; size_t pitch; unsigned value, elementSize; size_t width, height; } memset_params;
typedef struct { void (*fn)(void *); void *data; } host_params;

extern int cudaGetSymbolAddress(void **dev, const void *symbol);

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

static int kernel_from(int face, rgpu_gnode *n, const kernel_params *p) {
    if (!p) return rgpu_invalid_value(face);
    unsigned g[3] = {p->grid.x, p->grid.y, p->grid.z}, b[3] = {p->block.x, p->block.y, p->block.z};
    rgpu_gnode tmp = {.type = NODE_KERNEL};
    int rc = rgpu_kernel_node_set(face, &tmp.u.k, p->func, g, b, p->shmem, p->kernelParams, p->extra, NULL);
    if (!rc) rc = rgpu_node_copy_params(n, &tmp);
    rgpu_node_clear(&tmp);
    return rgpu_record(face, rc);
}

static int memset_from(int face, rgpu_gnode *n, const memset_params *p) {
    if (!p || !p->dst || (p->elementSize != 1 && p->elementSize != 2 && p->elementSize != 4) || !p->height ||
        (p->height > 1 && p->pitch < p->width * p->elementSize))
        return rgpu_invalid_value(face);
    rgpu_gnode tmp = {.type = NODE_MEMSET};
    tmp.u.s = (rgpu_memset_node){p->dst, p->pitch, p->width, p->height, p->value, p->elementSize};
    return rgpu_node_copy_params(n, &tmp);
}

/* Linear memory only: CUDA arrays are not forwarded, and a copy of depth > 1 would need a 3D path. */
static int copy_from(int face, rgpu_gnode *n, const copy3d_params *p) {
    if (!p || p->kind < 0 || p->kind > 4) return rgpu_invalid_value(face);
    if (p->srcArray || p->dstArray || p->extent.depth > 1)
        return rgpu_unsupported(face, "cudaGraphAddMemcpyNode (arrays or 3D)");
    if (!p->srcPtr.ptr || !p->dstPtr.ptr || !p->extent.width || !p->extent.height) return rgpu_invalid_value(face);
    const pitched_ptr *s = &p->srcPtr, *d = &p->dstPtr;
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

int cudaGraphCreate(rgpu_graph **out, unsigned flags) {
    if (!out || flags) return rgpu_invalid_value(RGPU_RUNTIME);
    return (*out = rgpu_graph_new()) ? 0 : rgpu_record(RGPU_RUNTIME, RGPU_OUT_OF_MEMORY);
}
int cuGraphCreate(rgpu_graph **out, unsigned flags) {
    if (!out || flags) return rgpu_invalid_value(RGPU_DRIVER);
    return (*out = rgpu_graph_new()) ? 0 : rgpu_record(RGPU_DRIVER, RGPU_OUT_OF_MEMORY);
}

int cudaGraphDestroy(rgpu_graph *g) {
    if (!g) return rgpu_invalid_value(RGPU_RUNTIME);
    rgpu_graph_free(g);
    return 0;
}
int cuGraphDestroy(rgpu_graph *g) {
    if (!g) return rgpu_invalid_value(RGPU_DRIVER);
    rgpu_graph_free(g);
    return 0;
}

int cudaGraphAddKernelNode(rgpu_gnode **out, rgpu_graph *g, rgpu_gnode *const *deps, size_t ndeps,
                           const kernel_params *p) {
    ADD(RGPU_RUNTIME, out, g, deps, ndeps);
    return finish(RGPU_RUNTIME, out, n, kernel_from(RGPU_RUNTIME, n, p));
}

int cudaGraphAddMemsetNode(rgpu_gnode **out, rgpu_graph *g, rgpu_gnode *const *deps, size_t ndeps,
                           const memset_params *p) {
    ADD(RGPU_RUNTIME, out, g, deps, ndeps);
    return finish(RGPU_RUNTIME, out, n, memset_from(RGPU_RUNTIME, n, p));
}

int cudaGraphAddMemcpyNode(rgpu_gnode **out, rgpu_graph *g, rgpu_gnode *const *deps, size_t ndeps,
                           const copy3d_params *p) {
    ADD(RGPU_RUNTIME, out, g, deps, ndeps);
    return finish(RGPU_RUNTIME, out, n, copy_from(RGPU_RUNTIME, n, p));
}

int cudaGraphAddMemcpyNode1D(rgpu_gnode **out, rgpu_graph *g, rgpu_gnode *const *deps, size_t ndeps, void *dst,
                             const void *src, size_t count, int kind) {
    ADD(RGPU_RUNTIME, out, g, deps, ndeps);
    return finish(RGPU_RUNTIME, out, n, copy1d_from(RGPU_RUNTIME, n, dst, src, count, kind));
}

int cudaGraphAddMemcpyNodeToSymbol(rgpu_gnode **out, rgpu_graph *g, rgpu_gnode *const *deps, size_t ndeps,
                                   const void *symbol, const void *src, size_t count, size_t offset, int kind) {
    void *addr = NULL;
    int rc0 = cudaGetSymbolAddress(&addr, symbol);
    if (rc0) return rc0;
    if (kind == 4) kind = 1; /* cudaMemcpyDefault: the other side is the program's pointer */
    ADD(RGPU_RUNTIME, out, g, deps, ndeps);
    return finish(RGPU_RUNTIME, out, n, copy1d_from(RGPU_RUNTIME, n, (char *)addr + offset, src, count, kind));
}

int cudaGraphAddMemcpyNodeFromSymbol(rgpu_gnode **out, rgpu_graph *g, rgpu_gnode *const *deps, size_t ndeps,
                                     void *dst, const void *symbol, size_t count, size_t offset, int kind) {
    void *addr = NULL;
    int rc0 = cudaGetSymbolAddress(&addr, symbol);
    if (rc0) return rc0;
    if (kind == 4) kind = 2;
    ADD(RGPU_RUNTIME, out, g, deps, ndeps);
    return finish(RGPU_RUNTIME, out, n, copy1d_from(RGPU_RUNTIME, n, dst, (char *)addr + offset, count, kind));
}

int cudaGraphAddHostNode(rgpu_gnode **out, rgpu_graph *g, rgpu_gnode *const *deps, size_t ndeps,
                         const host_params *p) {
    if (!p || !p->fn) return rgpu_invalid_value(RGPU_RUNTIME);
    ADD(RGPU_RUNTIME, out, g, deps, ndeps);
    n->type = NODE_HOST;
    n->u.h.fn = p->fn;
    n->u.h.data = p->data;
    return finish(RGPU_RUNTIME, out, n, 0);
}

int cudaGraphAddChildGraphNode(rgpu_gnode **out, rgpu_graph *g, rgpu_gnode *const *deps, size_t ndeps,
                               rgpu_graph *child) {
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
int cudaGraphAddEmptyNode(rgpu_gnode **out, rgpu_graph *g, rgpu_gnode *const *deps, size_t ndeps) {
    return add_empty(RGPU_RUNTIME, out, g, deps, ndeps);
}
int cuGraphAddEmptyNode(rgpu_gnode **out, rgpu_graph *g, rgpu_gnode *const *deps, size_t ndeps) {
    return add_empty(RGPU_DRIVER, out, g, deps, ndeps);
}

static int add_event(rgpu_gnode **out, rgpu_graph *g, rgpu_gnode *const *deps, size_t ndeps, void *event, int type) {
    if (!event) return rgpu_invalid_value(RGPU_RUNTIME);
    ADD(RGPU_RUNTIME, out, g, deps, ndeps);
    n->type = type;
    n->u.event = event;
    return finish(RGPU_RUNTIME, out, n, 0);
}
int cudaGraphAddEventRecordNode(rgpu_gnode **out, rgpu_graph *g, rgpu_gnode *const *deps, size_t ndeps, void *event) {
    return add_event(out, g, deps, ndeps, event, NODE_EVENT_RECORD);
}
int cudaGraphAddEventWaitNode(rgpu_gnode **out, rgpu_graph *g, rgpu_gnode *const *deps, size_t ndeps, void *event) {
    return add_event(out, g, deps, ndeps, event, NODE_WAIT_EVENT);
}

/* ---- reading and changing node parameters ------------------------------------------------------ */

static int is(int face, const rgpu_gnode *n, int type) {
    return n && n->type == type ? 0 : rgpu_invalid_value(face);
}

int cudaGraphKernelNodeGetParams(rgpu_gnode *n, kernel_params *p) {
    int rc = is(RGPU_RUNTIME, n, NODE_KERNEL);
    if (rc || !p) return rc ? rc : rgpu_invalid_value(RGPU_RUNTIME);
    const rgpu_kernel_node *k = &n->u.k;
    p->func = (void *)k->func;
    p->grid = (dim3_t){k->g[0], k->g[1], k->g[2]};
    p->block = (dim3_t){k->b[0], k->b[1], k->b[2]};
    p->shmem = k->shmem;
    p->kernelParams = k->args; /* point into the node's own copy, as CUDA's do */
    p->extra = NULL;
    return 0;
}

int cudaGraphKernelNodeSetParams(rgpu_gnode *n, const kernel_params *p) {
    int rc = is(RGPU_RUNTIME, n, NODE_KERNEL);
    return rc ? rc : kernel_from(RGPU_RUNTIME, n, p);
}

int cudaGraphMemsetNodeGetParams(rgpu_gnode *n, memset_params *p) {
    int rc = is(RGPU_RUNTIME, n, NODE_MEMSET);
    if (rc || !p) return rc ? rc : rgpu_invalid_value(RGPU_RUNTIME);
    const rgpu_memset_node *s = &n->u.s;
    *p = (memset_params){s->dst, s->pitch, s->value, s->elsize, s->width, s->height};
    return 0;
}

int cudaGraphMemsetNodeSetParams(rgpu_gnode *n, const memset_params *p) {
    int rc = is(RGPU_RUNTIME, n, NODE_MEMSET);
    return rc ? rc : rgpu_record(RGPU_RUNTIME, memset_from(RGPU_RUNTIME, n, p));
}

int cudaGraphMemcpyNodeGetParams(rgpu_gnode *n, copy3d_params *p) {
    int rc = is(RGPU_RUNTIME, n, NODE_MEMCPY);
    if (rc || !p) return rc ? rc : rgpu_invalid_value(RGPU_RUNTIME);
    const rgpu_copy_node *m = &n->u.m;
    memset(p, 0, sizeof *p);
    p->srcPtr = (pitched_ptr){(void *)m->src, m->spitch, m->width, m->height};
    p->dstPtr = (pitched_ptr){m->dst, m->dpitch, m->width, m->height};
    p->extent = (extent3){m->width, m->height, 1};
    p->kind = m->kind;
    return 0;
}

int cudaGraphMemcpyNodeSetParams(rgpu_gnode *n, const copy3d_params *p) {
    int rc = is(RGPU_RUNTIME, n, NODE_MEMCPY);
    return rc ? rc : rgpu_record(RGPU_RUNTIME, copy_from(RGPU_RUNTIME, n, p));
}

int cudaGraphMemcpyNodeSetParams1D(rgpu_gnode *n, void *dst, const void *src, size_t count, int kind) {
    int rc = is(RGPU_RUNTIME, n, NODE_MEMCPY);
    return rc ? rc : rgpu_record(RGPU_RUNTIME, copy1d_from(RGPU_RUNTIME, n, dst, src, count, kind));
}

int cudaGraphHostNodeGetParams(rgpu_gnode *n, host_params *p) {
    int rc = is(RGPU_RUNTIME, n, NODE_HOST);
    if (rc || !p) return rc ? rc : rgpu_invalid_value(RGPU_RUNTIME);
    p->fn = n->u.h.fn;
    p->data = n->u.h.data;
    return 0;
}

int cudaGraphHostNodeSetParams(rgpu_gnode *n, const host_params *p) {
    int rc = is(RGPU_RUNTIME, n, NODE_HOST);
    if (rc || !p || !p->fn) return rc ? rc : rgpu_invalid_value(RGPU_RUNTIME);
    n->u.h.fn = p->fn;
    n->u.h.data = p->data;
    return 0;
}

int cudaGraphChildGraphNodeGetGraph(rgpu_gnode *n, rgpu_graph **out) {
    int rc = is(RGPU_RUNTIME, n, NODE_GRAPH);
    if (rc || !out) return rc ? rc : rgpu_invalid_value(RGPU_RUNTIME);
    *out = n->u.child;
    return 0;
}

int cudaGraphEventRecordNodeGetEvent(rgpu_gnode *n, void **out) {
    int rc = is(RGPU_RUNTIME, n, NODE_EVENT_RECORD);
    if (rc || !out) return rc ? rc : rgpu_invalid_value(RGPU_RUNTIME);
    *out = n->u.event;
    return 0;
}

int cudaGraphEventWaitNodeGetEvent(rgpu_gnode *n, void **out) {
    int rc = is(RGPU_RUNTIME, n, NODE_WAIT_EVENT);
    if (rc || !out) return rc ? rc : rgpu_invalid_value(RGPU_RUNTIME);
    *out = n->u.event;
    return 0;
}

static int node_type(int face, rgpu_gnode *n, int *type) {
    if (!n || !type) return rgpu_invalid_value(face);
    *type = n->type;
    return 0;
}
int cudaGraphNodeGetType(rgpu_gnode *n, int *type) { return node_type(RGPU_RUNTIME, n, type); }
int cuGraphNodeGetType(rgpu_gnode *n, int *type) { return node_type(RGPU_DRIVER, n, type); }

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
int cudaGraphAddDependencies(rgpu_graph *g, rgpu_gnode *const *from, rgpu_gnode *const *to, const void *edge_data,
                             size_t n) {
    return add_deps(RGPU_RUNTIME, g, from, to, n);
}
int cuGraphAddDependencies_v2(rgpu_graph *g, rgpu_gnode *const *from, rgpu_gnode *const *to, const void *edge_data,
                              size_t n) {
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
int cudaGraphGetNodes(rgpu_graph *g, rgpu_gnode **out, size_t *count) {
    return list_nodes(RGPU_RUNTIME, g, out, count, 0);
}
int cuGraphGetNodes(rgpu_graph *g, rgpu_gnode **out, size_t *count) {
    return list_nodes(RGPU_DRIVER, g, out, count, 0);
}
int cudaGraphGetRootNodes(rgpu_graph *g, rgpu_gnode **out, size_t *count) {
    return list_nodes(RGPU_RUNTIME, g, out, count, 1);
}
int cuGraphGetRootNodes(rgpu_graph *g, rgpu_gnode **out, size_t *count) {
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
int cudaGraphGetEdges(rgpu_graph *g, rgpu_gnode **from, rgpu_gnode **to, void *edge_data, size_t *count) {
    return list_edges(RGPU_RUNTIME, g, from, to, edge_data, count);
}
int cuGraphGetEdges_v2(rgpu_graph *g, rgpu_gnode **from, rgpu_gnode **to, void *edge_data, size_t *count) {
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
int cudaGraphNodeGetDependencies(rgpu_gnode *n, rgpu_gnode **out, void *edge_data, size_t *count) {
    return neighbours(n, out, edge_data, count, 0);
}
int cudaGraphNodeGetDependentNodes(rgpu_gnode *n, rgpu_gnode **out, void *edge_data, size_t *count) {
    return neighbours(n, out, edge_data, count, 1);
}

/* ---- clones and printing ------------------------------------------------------------------------ */

static int clone(int face, rgpu_graph **out, rgpu_graph *g) {
    if (!out || !g) return rgpu_invalid_value(face);
    return (*out = rgpu_graph_clone(g)) ? 0 : rgpu_record(face, RGPU_OUT_OF_MEMORY);
}
int cudaGraphClone(rgpu_graph **out, rgpu_graph *g) { return clone(RGPU_RUNTIME, out, g); }
int cuGraphClone(rgpu_graph **out, rgpu_graph *g) { return clone(RGPU_DRIVER, out, g); }

/* A clone keeps the nodes' positions, so the clone of a node is the clone's node at its index. */
int cudaGraphNodeFindInClone(rgpu_gnode **out, rgpu_gnode *orig, rgpu_graph *cloned) {
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
int cudaGraphDebugDotPrint(rgpu_graph *g, const char *path, unsigned flags) { return dot_print(RGPU_RUNTIME, g, path); }
int cuGraphDebugDotPrint(rgpu_graph *g, const char *path, unsigned flags) { return dot_print(RGPU_DRIVER, g, path); }
