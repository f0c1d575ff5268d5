/* Graph objects: nodes, edges, deep copies of node parameters, clones, topological order and replay.
 * See graph.h for why graphs live in the client. */
#include <stdlib.h>
#include <string.h>

#include "graph.h"
#include "texture.h"
#include "rgpu_call.h"

pthread_mutex_t rgpu_graph_mu = PTHREAD_MUTEX_INITIALIZER;


rgpu_graph *rgpu_graph_new(void) { return calloc(1, sizeof(rgpu_graph)); }

void rgpu_node_clear(rgpu_gnode *n) {
    if (n->type == NODE_KERNEL) {
        rgpu_kattrs_free(&n->u.k);
        free(n->u.k.buf);
        free(n->u.k.args);
        n->u.k.buf = NULL;
        n->u.k.args = NULL;
    } else if (n->type == NODE_GRAPH) {
        rgpu_graph_free(n->u.child);
        n->u.child = NULL;
    } else if (n->type == NODE_MEM_ALLOC && n->u.mem) {
        rgpu_gmem_unref(n->u.mem);
        n->u.mem = NULL;
    }
}

void rgpu_graph_free(rgpu_graph *g) {
    if (!g) return;
    rgpu_urefs_release(g);
    for (int i = 0; i < g->n; i++) {
        rgpu_node_clear(g->nodes[i]);
        free(g->nodes[i]->deps);
        free(g->nodes[i]);
    }
    free(g->nodes);
    free(g);
}

int rgpu_node_add_dep(rgpu_gnode *n, rgpu_gnode *dep) {
    for (int i = 0; i < n->ndeps; i++)
        if (n->deps[i] == dep) return 0; /* an edge is there once */
    if (n->ndeps == n->capdeps) {
        int cap = n->capdeps ? 2 * n->capdeps : 4;
        rgpu_gnode **d = realloc(n->deps, cap * sizeof *d);
        if (!d) return RGPU_OUT_OF_MEMORY;
        n->deps = d;
        n->capdeps = cap;
    }
    n->deps[n->ndeps++] = dep;
    return 0;
}

rgpu_gnode *rgpu_graph_add(rgpu_graph *g, int type, rgpu_gnode *const *deps, size_t ndeps, int *rc) {
    *rc = RGPU_INVALID_VALUE;
    if (!g || (ndeps && !deps)) return NULL;
    for (size_t i = 0; i < ndeps; i++)
        if (!deps[i] || deps[i]->graph != g) return NULL;
    if (g->n == g->cap) {
        int cap = g->cap ? 2 * g->cap : 16;
        rgpu_gnode **nodes = realloc(g->nodes, cap * sizeof *nodes);
        if (!nodes) { *rc = RGPU_OUT_OF_MEMORY; return NULL; }
        g->nodes = nodes;
        g->cap = cap;
    }
    rgpu_gnode *n = calloc(1, sizeof *n);
    if (!n) { *rc = RGPU_OUT_OF_MEMORY; return NULL; }
    n->graph = g;
    n->index = g->n;
    n->type = type;
    for (size_t i = 0; i < ndeps; i++)
        if ((*rc = rgpu_node_add_dep(n, deps[i]))) { free(n->deps); free(n); return NULL; }
    g->nodes[g->n++] = n;
    *rc = 0;
    return n;
}

int rgpu_kernel_node_fill(rgpu_kernel_node *k, int face, const void *func, void *fn, const rgpu_layout *l,
                          const unsigned g[3], const unsigned b[3], unsigned shmem, const void *buf, size_t n) {
    uint8_t *copy = malloc(n ? n : 1);
    void **args = l ? calloc(l->nparams + 1, sizeof *args) : NULL;
    if (!copy || (l && !args)) { free(copy); free(args); return RGPU_OUT_OF_MEMORY; }
    if (n) memcpy(copy, buf, n);
    for (int i = 0; l && i < l->nparams; i++) args[i] = copy + l->offset[i];
    free(k->buf);
    free(k->args);
    k->face = face;
    k->func = func;
    k->fn = fn;
    k->layout = l;
    memcpy(k->g, g, sizeof k->g);
    memcpy(k->b, b, sizeof k->b);
    k->shmem = shmem;
    k->buf = copy;
    k->nbytes = n;
    k->args = args;
    return 0;
}

/* The parameters of src into dst (same type); what dst owned is released, what src owns is copied. */
int rgpu_node_copy_params(rgpu_gnode *dst, const rgpu_gnode *src) {
    if (src->type == NODE_KERNEL) {
        const rgpu_kernel_node *k = &src->u.k;
        if (dst->type != NODE_KERNEL) memset(&dst->u.k, 0, sizeof dst->u.k);
        dst->type = NODE_KERNEL;
        int rc = rgpu_kernel_node_fill(&dst->u.k, k->face, k->func, k->fn, k->layout, k->g, k->b, k->shmem, k->buf,
                                       k->nbytes);
        dst->u.k.cooperative = k->cooperative;
        memcpy(dst->u.k.cluster, k->cluster, sizeof k->cluster);
        return rc ? rc : rgpu_kattrs_copy(&dst->u.k, k);
    }
    if (src->type == NODE_GRAPH) {
        rgpu_graph *child = rgpu_graph_clone(src->u.child);
        if (!child) return RGPU_OUT_OF_MEMORY;
        if (dst->type == NODE_GRAPH) rgpu_graph_free(dst->u.child);
        dst->type = NODE_GRAPH;
        dst->u.child = child;
        return 0;
    }
    if (dst->type == NODE_KERNEL || dst->type == NODE_GRAPH || dst->type == NODE_MEM_ALLOC) rgpu_node_clear(dst);
    dst->type = src->type;
    dst->u = src->u;
    if (dst->type == NODE_MEM_ALLOC) rgpu_gmem_ref(dst->u.mem);
    return 0;
}

rgpu_graph *rgpu_graph_clone(const rgpu_graph *g) {
    rgpu_graph *c = rgpu_graph_new();
    if (!c) return NULL;
    for (int i = 0; i < g->n; i++) {
        const rgpu_gnode *from = g->nodes[i];
        int rc;
        rgpu_gnode *n = rgpu_graph_add(c, NODE_EMPTY, NULL, 0, &rc);
        if (!n || rgpu_node_copy_params(n, from)) { rgpu_graph_free(c); return NULL; }
    }
    /* edges may point to later nodes (cudaGraphAddDependencies): link by index once all exist */
    for (int i = 0; i < g->n; i++)
        for (int d = 0; d < g->nodes[i]->ndeps; d++)
            if (rgpu_node_add_dep(c->nodes[i], c->nodes[g->nodes[i]->deps[d]->index])) {
                rgpu_graph_free(c);
                return NULL;
            }
    if (rgpu_urefs_copy(c, g)) {
        rgpu_graph_free(c);
        return NULL;
    }
    return c;
}

void rgpu_graph_remove(rgpu_gnode *n) {
    rgpu_graph *g = n->graph;
    for (int i = 0; i < g->n; i++) {
        rgpu_gnode *m = g->nodes[i];
        int k = 0;
        for (int d = 0; d < m->ndeps; d++)
            if (m->deps[d] != n) m->deps[k++] = m->deps[d];
        m->ndeps = k;
    }
    for (int i = n->index + 1; i < g->n; i++) {
        g->nodes[i - 1] = g->nodes[i];
        g->nodes[i - 1]->index = i - 1;
    }
    g->n--;
    rgpu_node_clear(n);
    free(n->deps);
    free(n);
}

rgpu_gnode **rgpu_graph_order(const rgpu_graph *g, int *rc) {
    int n = g->n;
    rgpu_gnode **order = malloc((n ? n : 1) * sizeof *order);
    int *pending = calloc(n ? n : 1, sizeof *pending);
    char *done = calloc(n ? n : 1, 1);
    *rc = RGPU_OUT_OF_MEMORY;
    if (!order || !pending || !done) { free(order); free(pending); free(done); return NULL; }
    for (int i = 0; i < n; i++) pending[i] = g->nodes[i]->ndeps;
    /* Kahn's algorithm, always taking the earliest-made ready node: a captured sequence replays in the
     * order it was issued. O(n^2) scans; graphs are made once and launched many times. */
    int got = 0;
    while (got < n) {
        int pick = -1;
        for (int i = 0; i < n && pick < 0; i++)
            if (!done[i] && pending[i] == 0) pick = i;
        if (pick < 0) break; /* a cycle */
        done[pick] = 1;
        order[got++] = g->nodes[pick];
        for (int i = 0; i < n; i++)
            for (int d = 0; d < g->nodes[i]->ndeps; d++)
                if (g->nodes[i]->deps[d] == g->nodes[pick]) pending[i]--;
    }
    free(pending);
    free(done);
    if (got < n) { free(order); *rc = RGPU_INVALID_VALUE; return NULL; }
    *rc = 0;
    return order;
}

static int replay_node(int face, rgpu_gnode *n, void *stream, unsigned long long flags) {
    switch (n->type) {
    case NODE_KERNEL: {
        rgpu_kernel_node *k = &n->u.k;
        return rgpu_launch_packed(k->face, k->func, k->fn, k->layout, k->g, k->b, k->shmem, stream, k->buf,
                                  k->nbytes, k->cooperative, k->cluster[0] || k->cluster[3] ? k->cluster : NULL);
    }
    case NODE_MEMCPY: {
        rgpu_copy_node *m = &n->u.m;
        if (m->box) return rgpu_box_copy(face, &m->b, stream, 1);
        if (m->height <= 1) return cudaMemcpyAsync(m->dst, m->src, m->width, m->kind, stream);
        return cudaMemcpy2DAsync(m->dst, m->dpitch, m->src, m->spitch, m->width, m->height, m->kind, stream);
    }
    case NODE_MEMSET: {
        rgpu_memset_node *s = &n->u.s;
        uint64_t dst = (uint64_t)(uintptr_t)s->dst;
        if (s->height <= 1 && s->elsize == 2) return cuMemsetD16Async(dst, (uint16_t)s->value, s->width, stream);
        if (s->height <= 1 && s->elsize == 4) return cuMemsetD32Async(dst, s->value, s->width, stream);
        if (s->height <= 1) return cudaMemsetAsync(s->dst, (int)(s->value & 0xff), s->width, stream);
        if (s->elsize == 2) return cuMemsetD2D16Async(dst, s->pitch, (uint16_t)s->value, s->width, s->height, stream);
        if (s->elsize == 4) return cuMemsetD2D32Async(dst, s->pitch, s->value, s->width, s->height, stream);
        return cudaMemset2DAsync(s->dst, s->pitch, (int)(s->value & 0xff), s->width, s->height, stream);
    }
    case NODE_HOST:
        return cudaLaunchHostFunc(stream, n->u.h.fn, n->u.h.data);
    case NODE_GRAPH: {
        int rc;
        rgpu_gnode **order = rgpu_graph_order(n->u.child, &rc);
        if (!order) return rc;
        rc = rgpu_graph_replay(face, order, n->u.child->n, stream, flags);
        free(order);
        return rc;
    }
    case NODE_EVENT_RECORD:
        return cudaEventRecord(n->u.event, stream);
    case NODE_WAIT_EVENT:
        return cudaStreamWaitEvent(stream, n->u.event, 0);
    case NODE_MEM_ALLOC:
        return rgpu_gmem_launch_alloc(face, n->u.mem, (flags & 1) != 0);
    case NODE_MEM_FREE:
        return rgpu_gmem_launch_free(face, n->u.dptr, stream);
    default:
        return 0; /* an empty node orders only */
    }
}

/* One stream executes the nodes in a topological order, which honours every edge; independent
 * branches are not run concurrently (the software GPU runs one kernel at a time anyway). */
int rgpu_graph_replay(int face, rgpu_gnode **order, int n, void *stream, unsigned long long flags) {
    for (int i = 0; i < n; i++) {
        if (order[i]->disabled) continue;
        int rc = replay_node(face, order[i], stream, flags);
        if (rc) return rgpu_record(face, rc);
    }
    return 0;
}
