/* Graph user objects (cudaUserObjectCreate, cudaGraphRetainUserObject, ...): a host resource whose
 * destructor runs once nothing references it — the program's references, and those of the graphs
 * that hold it, which the graphs' clones and executable graphs (clones too: graph_exec.c) hold again
 * and give back when they go. Graphs live in the client, so these do too; as CUDA says, the
 * destructor runs on a thread of the library's, not the caller's, and must not call CUDA. */
#include <pthread.h>
#include <stdlib.h>

#include "graph.h"
#include "rgpu_call.h"

struct CUuserObject_st {
    void (*destroy)(void *);
    void *ptr;
    unsigned refs; /* atomic */
};

static void *run_destructor(void *arg) {
    struct CUuserObject_st *o = arg;
    o->destroy(o->ptr);
    free(o);
    return NULL;
}

/* Drop `count` references; the last one hands the object to its destructor's thread. */
static int drop(struct CUuserObject_st *o, unsigned count) {
    unsigned now = __atomic_load_n(&o->refs, __ATOMIC_ACQUIRE);
    do {
        if (count > now) return RGPU_INVALID_VALUE; /* more than are held: nothing changes */
    } while (!__atomic_compare_exchange_n(&o->refs, &now, now - count, 0, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE));
    if (now == count) {
        pthread_t t;
        pthread_attr_t a;
        pthread_attr_init(&a);
        pthread_attr_setdetachstate(&a, PTHREAD_CREATE_DETACHED);
        if (pthread_create(&t, &a, run_destructor, o)) run_destructor(o); /* no thread to be had: here */
        pthread_attr_destroy(&a);
    }
    return 0;
}

static int create(int face, struct CUuserObject_st **out, void *ptr, void (*destroy)(void *), unsigned refs,
                  unsigned flags) {
    /* CUDA accepts only NoDestructorSync: it does not wait for destructors at synchronisations either */
    if (!out || !destroy || !refs || flags != cudaUserObjectNoDestructorSync) return rgpu_invalid_value(face);
    struct CUuserObject_st *o = malloc(sizeof *o);
    if (!o) return rgpu_record(face, RGPU_OUT_OF_MEMORY);
    *o = (struct CUuserObject_st){destroy, ptr, refs};
    *out = o;
    return 0;
}

static int retain(int face, struct CUuserObject_st *o, unsigned count) {
    if (!o || !count) return rgpu_invalid_value(face);
    __atomic_add_fetch(&o->refs, count, __ATOMIC_ACQ_REL);
    return 0;
}

static int release(int face, struct CUuserObject_st *o, unsigned count) {
    if (!o || !count) return rgpu_invalid_value(face);
    int rc = drop(o, count);
    return rc ? rgpu_record(face, rc) : 0;
}

/* ---- what graphs hold (graph.c calls these as graphs are cloned and freed) --------------------- */

static rgpu_uref *held(rgpu_graph *g, struct CUuserObject_st *o) {
    for (int i = 0; i < g->nurefs; i++)
        if (g->urefs[i].obj == o) return &g->urefs[i];
    return NULL;
}

static int hold(rgpu_graph *g, struct CUuserObject_st *o, unsigned count) {
    rgpu_uref *r = held(g, o);
    if (r) {
        r->count += count;
        return 0;
    }
    if (g->nurefs == g->capurefs) {
        int cap = g->capurefs ? 2 * g->capurefs : 4;
        rgpu_uref *u = realloc(g->urefs, cap * sizeof *u);
        if (!u) return RGPU_OUT_OF_MEMORY;
        g->urefs = u, g->capurefs = cap;
    }
    g->urefs[g->nurefs++] = (rgpu_uref){o, count};
    return 0;
}

int rgpu_urefs_copy(rgpu_graph *to, const rgpu_graph *from) {
    for (int i = 0; i < from->nurefs; i++) {
        int rc = hold(to, from->urefs[i].obj, from->urefs[i].count);
        if (rc) return rc;
        __atomic_add_fetch(&from->urefs[i].obj->refs, from->urefs[i].count, __ATOMIC_ACQ_REL);
    }
    return 0;
}

void rgpu_urefs_release(rgpu_graph *g) {
    for (int i = 0; i < g->nurefs; i++) drop(g->urefs[i].obj, g->urefs[i].count);
    free(g->urefs);
    g->urefs = NULL, g->nurefs = g->capurefs = 0;
}

/* flags: 0 (the graph takes new references) or cudaGraphUserObjectMove (it takes the caller's) */
static int graph_retain(int face, rgpu_graph *g, struct CUuserObject_st *o, unsigned count, unsigned flags) {
    if (!g || !o || !count || (flags & ~(unsigned)cudaGraphUserObjectMove)) return rgpu_invalid_value(face);
    pthread_mutex_lock(&rgpu_graph_mu);
    int rc = hold(g, o, count);
    pthread_mutex_unlock(&rgpu_graph_mu);
    if (rc) return rgpu_record(face, rc);
    if (!(flags & cudaGraphUserObjectMove)) __atomic_add_fetch(&o->refs, count, __ATOMIC_ACQ_REL);
    return 0;
}

static int graph_release(int face, rgpu_graph *g, struct CUuserObject_st *o, unsigned count) {
    if (!g || !o || !count) return rgpu_invalid_value(face);
    pthread_mutex_lock(&rgpu_graph_mu);
    rgpu_uref *r = held(g, o);
    int ok = r && r->count >= count;
    if (ok && (r->count -= count) == 0) *r = g->urefs[--g->nurefs];
    pthread_mutex_unlock(&rgpu_graph_mu);
    if (!ok) return rgpu_invalid_value(face); /* the graph holds fewer than that */
    drop(o, count);
    return 0;
}

cudaError_t cudaUserObjectCreate(cudaUserObject_t *out, void *ptr, cudaHostFn_t destroy, unsigned int initialRefcount,
                                 unsigned int flags) {
    return create(RGPU_RUNTIME, out, ptr, destroy, initialRefcount, flags);
}
cudaError_t cudaUserObjectRetain(cudaUserObject_t o, unsigned int count) { return retain(RGPU_RUNTIME, o, count); }
cudaError_t cudaUserObjectRelease(cudaUserObject_t o, unsigned int count) { return release(RGPU_RUNTIME, o, count); }
cudaError_t cudaGraphRetainUserObject(cudaGraph_t g, cudaUserObject_t o, unsigned int count, unsigned int flags) {
    return graph_retain(RGPU_RUNTIME, g, o, count, flags);
}
cudaError_t cudaGraphReleaseUserObject(cudaGraph_t g, cudaUserObject_t o, unsigned int count) {
    return graph_release(RGPU_RUNTIME, g, o, count);
}

CUresult cuUserObjectCreate(CUuserObject *out, void *ptr, CUhostFn destroy, unsigned int initialRefcount,
                            unsigned int flags) {
    return create(RGPU_DRIVER, out, ptr, destroy, initialRefcount, flags);
}
CUresult cuUserObjectRetain(CUuserObject o, unsigned int count) { return retain(RGPU_DRIVER, o, count); }
CUresult cuUserObjectRelease(CUuserObject o, unsigned int count) { return release(RGPU_DRIVER, o, count); }
CUresult cuGraphRetainUserObject(CUgraph g, CUuserObject o, unsigned int count, unsigned int flags) {
    return graph_retain(RGPU_DRIVER, g, o, count, flags);
}
CUresult cuGraphReleaseUserObject(CUgraph g, CUuserObject o, unsigned int count) {
    return graph_release(RGPU_DRIVER, g, o, count);
}
