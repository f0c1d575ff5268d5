/* Executable graphs the worker runs. An executable graph made only of what the server can run as it is
 * (kernel nodes, neither cooperative nor in clusters; memsets; 1D device-to-device copies; empty nodes;
 * child graphs of those; all on one device) is sent to that device's server once, at its upload or
 * first launch (rgpuGraphBuild: its nodes in the order the client would replay them in), and every
 * launch after is one async call (rgpuGraphLaunch) that the worker serves with one graph launch of the
 * driver (cuGraphLaunch), where a replay from here costs the worker a driver call per node. The order
 * is the one the replay keeps: one stream, node after node (graph.c), so the two ways give the same
 * results.
 *
 * Anything else — copies with the host or arrays, host or event nodes, memory nodes, a launch on
 * another device's stream, a launch into a capture — is replayed as before; so is every graph the
 * server will not build (an older server, a node the driver refuses in a graph), which then leaves the
 * program's last error as it was. A change to the executable graph (Exec*SetParams, ExecUpdate,
 * SetEnabled) drops the server's copy; the next launch sends it again. The server's graph is a handle
 * of the session like any object, so a moved or restored session keeps it (server/api/graphs.py).
 * RGPU_SERVER_GRAPHS=0 keeps every graph in the client, for comparisons. */
#include <stdlib.h>
#include <string.h>

#include "graph.h"
#include "mpack.h"
#include "rgpu_call.h"

CUresult rgpuGraphBuild(struct rgpuGraph_st **out, CUstream stream, const void *nodes, size_t size) {
    rgpu_call c;
    rgpu_wire_rgpuGraphBuild(&c, stream, nodes, size);
    int rc = rgpu_sync(&c);
    if (rc == 0) rgpu_wire_out_rgpuGraphBuild(&c, (void **)out);
    rgpu_end(&c);
    return rc;
}

CUresult rgpuGraphLaunch(struct rgpuGraph_st *g, CUstream stream) {
    rgpu_call c;
    rgpu_wire_rgpuGraphLaunch(&c, g, stream);
    return rgpu_async(&c);
}

CUresult rgpuGraphDestroy(struct rgpuGraph_st *g) {
    rgpu_call c;
    rgpu_wire_rgpuGraphDestroy(&c, g);
    return rgpu_async(&c);
}

static int enabled(void) {
    static int on = -1;
    if (on < 0) {
        const char *e = getenv("RGPU_SERVER_GRAPHS");
        on = !(e && e[0] == '0');
    }
    return on;
}

/* Node kinds as the server takes them (server/api/graphs.py) */
enum { SERVER_KERNEL = 0, SERVER_MEMSET = 1, SERVER_COPY = 2 };

/* Whether the server runs node n as it is: a kernel (neither cooperative nor in clusters) of `dev`, a
 * memset, a 1D device-to-device copy; empty and disabled nodes need nothing. 1 to send, 0 to skip, -1
 * when the graph must stay in the client. */
static int server_runs(const rgpu_gnode *n, int dev) {
    if (n->disabled || n->type == NODE_EMPTY) return 0;
    if (n->type == NODE_KERNEL) {
        const rgpu_kernel_node *k = &n->u.k;
        return k->cooperative || k->cluster[0] || k->cluster[3] || rgpu_handle_device(k->fn) != dev ? -1 : 1;
    }
    if (n->type == NODE_MEMSET) return 1;
    if (n->type == NODE_MEMCPY)
        return !n->u.m.box && n->u.m.height <= 1 && n->u.m.kind == cudaMemcpyDeviceToDevice ? 1 : -1;
    return -1;
}

static void put_node(mp_writer *w, const rgpu_gnode *n) {
    if (n->type == NODE_KERNEL) {
        const rgpu_kernel_node *k = &n->u.k;
        int ignored;
        mp_array(w, 10);
        mp_uint(w, SERVER_KERNEL);
        mp_uint(w, rgpu_untag_handle(k->fn, &ignored));
        for (int d = 0; d < 3; d++) mp_uint(w, k->g[d]);
        for (int d = 0; d < 3; d++) mp_uint(w, k->b[d]);
        mp_uint(w, k->shmem);
        mp_bin(w, k->buf ? (const void *)k->buf : "", k->nbytes);
    } else if (n->type == NODE_MEMSET) {
        const rgpu_memset_node *m = &n->u.s;
        mp_array(w, 7);
        mp_uint(w, SERVER_MEMSET);
        mp_uint(w, (uint64_t)(uintptr_t)m->dst);
        mp_uint(w, m->height > 1 ? m->pitch : (uint64_t)m->width * m->elsize);
        mp_uint(w, m->value);
        mp_uint(w, m->elsize);
        mp_uint(w, m->width);
        mp_uint(w, m->height ? m->height : 1);
    } else {
        const rgpu_copy_node *m = &n->u.m;
        mp_array(w, 4);
        mp_uint(w, SERVER_COPY);
        mp_uint(w, (uint64_t)(uintptr_t)m->dst);
        mp_uint(w, (uint64_t)(uintptr_t)m->src);
        mp_uint(w, m->width);
    }
}

#define MAX_DEPTH 8 /* child graphs within child graphs the server takes */

/* The `n` nodes of `order` and those of the child graphs among them, in the order a replay issues them
 * (graph.c: a child graph's nodes in its own order, where the child node stands). Without `w`: counts
 * what the server would run into *count and *kernels, and is -1 (logged) at the first node it would
 * not; with `w`: writes them. */
static int walk(rgpu_gnode *const *order, int n, int dev, mp_writer *w, uint32_t *count, uint32_t *kernels,
                int depth) {
    static const char *const kinds[] = {"kernel", "copy", "memset", "host function", "child graph", "empty",
                                        "event wait", "event record", "external semaphore signal",
                                        "external semaphore wait", "memory allocation", "memory free"};
    for (int i = 0; i < n; i++) {
        const rgpu_gnode *g = order[i];
        if (g->type == NODE_GRAPH && depth < MAX_DEPTH) {
            int rc;
            rgpu_gnode **sub = rgpu_graph_order(g->u.child, &rc);
            if (!sub) return -1;
            rc = walk(sub, g->u.child->n, dev, w, count, kernels, depth + 1);
            free(sub);
            if (rc < 0) return -1;
            continue;
        }
        int r = server_runs(g, dev);
        if (r < 0) {
            int t = g->type;
            if (!w)
                rgpu_log(RGPU_LOG_INFO, "a graph is replayed from the client at each launch: its node %d%s is a %s "
                         "the worker does not run in a graph", i, depth ? " (of a child graph)" : "",
                         t >= 0 && t < (int)(sizeof kinds / sizeof *kinds) ? kinds[t] : "node");
            return -1;
        }
        if (!r) continue;
        if (w) {
            put_node(w, g);
        } else {
            (*count)++;
            *kernels += g->type == NODE_KERNEL;
        }
    }
    return 0;
}

/* The nodes as the server takes them, in order: [0, function, grid x y z, block x y z, shared bytes,
 * parameters] (cuLaunchKernel's record less its stream), [1, dst, pitch, value, element size, width,
 * height] (a memset of width elements in each of height rows), [2, dst, src, bytes]. 0 and the
 * encoding in *w, or -1 when the graph stays in the client (or has no kernel: nothing to gain). */
static int encode(const rgpu_graph_exec *e, int dev, mp_writer *w) {
    uint32_t count = 0, kernels = 0;
    if (walk(e->order, e->graph->n, dev, NULL, &count, &kernels, 0) < 0 || !kernels) return -1;
    mp_array(w, count);
    if (walk(e->order, e->graph->n, dev, w, &count, &kernels, 0) < 0) return -1;
    return w->oom ? -1 : 0;
}

/* Sends e to the server of `dev` (its stream: `stream`): 0 built, else the server's refusal (the
 * program's last error left as it was). */
static int build(rgpu_graph_exec *e, int dev, void *stream) {
    mp_writer w;
    mp_init(&w, 1024);
    int rc = encode(e, dev, &w);
    if (rc == 0) {
        int runtime = rgpu_get_last_error(RGPU_RUNTIME, 0), driver = rgpu_get_last_error(RGPU_DRIVER, 0);
        struct rgpuGraph_st *g = NULL;
        rc = rgpuGraphBuild(&g, stream, w.buf, w.len);
        rgpu_set_last_error(RGPU_RUNTIME, runtime);
        rgpu_set_last_error(RGPU_DRIVER, driver);
        if (rc == 0) e->server = g, e->server_dev = dev;
    }
    mp_free(&w);
    return rc;
}

/* The server's build of e for a launch on `stream`: built now if it is not (or is stale), or NULL when
 * e stays in the client. */
static struct rgpuGraph_st *server_graph(rgpu_graph_exec *e, void *stream) {
    if (!enabled() || rgpu_capturing(stream)) return NULL;
    int dev = rgpu_handle_device(stream);
    pthread_mutex_lock(&rgpu_graph_mu);
    if (e->changed) {
        if (e->server) rgpuGraphDestroy(e->server);
        e->server = NULL, e->server_refused = 0, e->changed = 0;
    }
    if (!e->server && !e->server_refused && build(e, dev, stream) != 0) e->server_refused = 1;
    struct rgpuGraph_st *g = e->server && e->server_dev == dev ? e->server : NULL;
    pthread_mutex_unlock(&rgpu_graph_mu);
    return g;
}

int rgpu_graph_server_launch(int face, rgpu_graph_exec *e, void *stream, int *rc) {
    struct rgpuGraph_st *g = server_graph(e, stream);
    if (!g) return 0;
    rgpu_call c;
    rgpu_wire_rgpuGraphLaunch(&c, g, stream);
    c.face = face; /* an error it returns (a sticky one) is the program's cudaGraphLaunch's or cuGraphLaunch's */
    *rc = rgpu_async(&c);
    return 1;
}

void rgpu_graph_server_upload(rgpu_graph_exec *e, void *stream) { server_graph(e, stream); }

void rgpu_graph_server_drop(rgpu_graph_exec *e) {
    if (e->server) rgpuGraphDestroy(e->server);
    e->server = NULL;
}
