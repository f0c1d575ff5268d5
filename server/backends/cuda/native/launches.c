/* The cuda backend's compiled launch loop: a run of async kernel launches of one message, decoded and
 * handed to the driver without a Python frame per launch, and the stream waits that need no waiting,
 * answered without one (server/backends/cuda/launches.py manages it).
 *
 * Python keeps the policy. It has already checked the whole message (protocol/wire.py decode_calls)
 * before this runs any of it; it tells the launcher which handles name which driver objects (as the
 * session issues and drops them) and which kernel clock times the session's kernels (clock.c); it
 * runs launches here only while the session holds the GPU (server/session.py), and a wait only once
 * it has settled the session's accounting for the client's wait. The launcher serves calls from a
 * given index for as long as each is one it can run exactly as the Python path would: an async
 * cuLaunchKernel, cudaLaunchKernel or cuLaunchKernelEx (a cluster the driver takes), no bulk frames, no shared-memory entry, a function and stream
 * it knows, parameters that fit its buffer.
 *
 * A launch on a stream without an open timing window opens one first, in the clock, as Python's
 * launch path does: a message holding one launch and a synchronize (the common launch-then-wait
 * step) is then the loop's too, though every window closes when the client waits. At the first call
 * that is not one of those it stops, before running it, and Python serves that call and the rest. A
 * launch the driver refuses is not counted: Python runs that call again on its own path, which
 * reports the error as every other call's are reported (a launch the driver refused did nothing, so
 * running it again changes nothing but who reports it). A wait is answered here only when its
 * stream's work is done (rgpu_launcher_wait); any other is Python's, which waits without going deaf
 * (server/backends/cuda/waits.py).
 *
 * Two shapes of message are served before Python decodes them, each checked whole first: a wait
 * alone (rgpu_launcher_wait_alone: a synchronize round trip) and launches then one wait
 * (rgpu_launcher_step_checked: the launch-and-wait step of most programs), which Python lets the loop serve
 * only while nobody else wants the GPU (server/worker.py). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "clock.h"
#include "launcher.h"
#include "mpack.h"
#include "rgpu_envelope.h"
#include "rgpu_cuda.h"

typedef CUresult (*launch_fn)(CUfunction, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned,
                              CUstream, void **, void **);
typedef CUresult (*stream_fn)(CUstream);
typedef CUresult (*object_fn)(void *); /* a CUstream's or a CUevent's query or synchronize */
typedef CUresult (*context_fn)(void);
typedef CUresult (*graph_fn)(void *, CUstream); /* cuGraphLaunch */
typedef CUresult (*launch_ex_fn)(const CUlaunchConfig *, CUfunction, void **, void **); /* cuLaunchKernelEx */

enum { KIND_FUNCTION = 1, KIND_STREAM = 2, KIND_EVENT = 3, KIND_GRAPH = 4 };
/* The waits, by wait_ids index: each a driver's (even) and a runtime's (odd) call. */
enum { STREAM_QUERY = 0, STREAM_SYNC = 2, EVENT_QUERY = 4, EVENT_SYNC = 6, CTX_SYNC = 8, WAIT_KINDS = 10 };
#define EMPTY 0u       /* handles start at 0x1000 (server/session.py): 0 and 1 are never one */
#define REMOVED 1u
/* CUDA's largest kernel parameters (32,764 bytes since 12.1, on Volta and later): PyTorch's foreach
 * kernels (AdamW's multi_tensor_apply, a CNN's every training step) pass 24-27 KB of tensor lists; a
 * driver that takes only 4 KiB refuses the rest, and Python's path then reports it */
#define PARAM_BYTES 32768
#define WIRE_ARGS 10   /* cuLaunchKernel's record: function, grid x y z, block x y z, shared, stream, params */
#define EX_ARGS 14     /* cuLaunchKernelEx's: those, the cluster x y z and its scheduling policy before params */
#define GRAPH_ARGS 2   /* rgpuGraphLaunch's record: the worker's executable graph, stream */
#define WAIT_POLL_NS 200000 /* a wait's poll here until rgpu_launcher_poll says otherwise (below) */

/* The function attributes a step may set (rgpu_launcher_attributes): cuDNN sets its kernels' dynamic
 * shared memory to the forward pass's size and back to the backward pass's in every training step, a
 * value the function took before, which the client sends asynchronously (its func_facts.c). */
#define ATTRS 2
typedef CUresult (*attribute_fn)(void *, int, int); /* cuFuncSetAttribute */

typedef struct {
    uint64_t handle;
    void *object;
    int kind;
} entry;

/* What was set of a driver's function's served attributes, by whichever path set it (the loop here,
 * Python through rgpu_launcher_attribute): what a checkpoint or a move takes of the function
 * (placement.py function_state). Open addressing by the function's pointer; never emptied, as
 * Python's own record of the other attributes. */
typedef struct {
    void *object;
    int32_t value[ATTRS];
    uint8_t known[ATTRS];
} fattr;

struct rgpu_launcher {
    launch_fn launch;
    rgpu_clock *clock;          /* the session's kernel clock (Python's: it outlives no launcher) */
    uint64_t ids[2];            /* the call ids served: cuLaunchKernel, cudaLaunchKernel */
    /* Graph launches (rgpu_launcher_graphs): cuGraphLaunch and rgpuGraphLaunch's id (none while NULL) */
    graph_fn graph_launch;
    uint64_t graph_id;
    /* Launches in thread-block clusters (rgpu_launcher_clusters): cuLaunchKernelEx and its id (none
     * while NULL). cuBLASLt launches its kernels so: a mixed-precision training step's matmuls. */
    launch_ex_fn launch_ex;
    uint64_t ex_id;
    /* cuFuncSetAttribute (none while NULL), its call id and the attributes the loop sets */
    attribute_fn set_attribute;
    uint64_t attr_id;
    int64_t attr_ids[ATTRS];
    fattr *fattrs;
    size_t fcap, fused;
    long poll_ns;               /* how long a wait polls here before it is Python's */
    /* Waits (rgpu_launcher_wait): cuStreamQuery and cuStreamSynchronize, and the call ids of the stream
     * queries (driver's, runtime's) and synchronizes (driver's, runtime's); no waits while NULL. */
    stream_fn query, synchronize;
    /* Event waits and the device's synchronize (rgpu_launcher_more_waits): cuEventQuery,
     * cuEventSynchronize, cuCtxSynchronize; their ids at wait_ids[4..9] (0: none). */
    object_fn event_query, event_synchronize;
    context_fn ctx_synchronize;
    uint64_t wait_ids[WAIT_KINDS];
    int printf_fd;              /* the device printf pipe's read end (printf.c), or -1 */
    entry *table;               /* open addressing, linear probing, power-of-two capacity */
    size_t cap, used;           /* used: live entries and REMOVED marks */
    /* Where the last run stopped (message `token`, call `index` at byte `offset`): the next run over
     * the same message starts there instead of skipping every call before it again. */
    uint64_t token;
    uint32_t index;
    size_t offset;
    /* Moved module variables' old addresses the program holds, and where each variable is now
     * (rgpu_launcher_aliases, server/backends/cuda/aliases.py): [held, size, here] by held, ascending */
    uint64_t *aliases;
    size_t naliases;
    _Alignas(16) unsigned char params[PARAM_BYTES];
};


int rgpu_printf_pending(int fd); /* printf.c */

static size_t slot_of(uint64_t h, size_t cap) {
    h ^= h >> 33;
    h *= 0xff51afd7ed558ccdull;
    h ^= h >> 33;
    return (size_t)h & (cap - 1);
}

static entry *find(rgpu_launcher *l, uint64_t h) {
    for (size_t i = slot_of(h, l->cap), k = 0; k < l->cap; i = (i + 1) & (l->cap - 1), k++) {
        if (l->table[i].handle == h) return &l->table[i];
        if (l->table[i].handle == EMPTY) return NULL;
    }
    return NULL;
}

static int put(entry *table, size_t cap, const entry *e) {
    for (size_t i = slot_of(e->handle, cap), k = 0; k < cap; i = (i + 1) & (cap - 1), k++) {
        if (table[i].handle == EMPTY || table[i].handle == REMOVED) {
            table[i] = *e;
            return 0;
        }
    }
    return -1;
}

rgpu_launcher *rgpu_launcher_new(void *launch, rgpu_clock *clock, uint64_t driver_id, uint64_t runtime_id) {
    rgpu_launcher *l = calloc(1, sizeof *l);
    if (!l) return NULL;
    l->launch = (launch_fn)launch;
    l->clock = clock;
    l->ids[0] = driver_id, l->ids[1] = runtime_id;
    l->printf_fd = -1;
    l->poll_ns = WAIT_POLL_NS;
    l->cap = 64;
    l->table = calloc(l->cap, sizeof(entry));
    if (!l->table) {
        free(l);
        return NULL;
    }
    return l;
}

void rgpu_launcher_free(rgpu_launcher *l) {
    if (!l) return;
    free(l->aliases);
    free(l->table);
    free(l->fattrs);
    free(l);
}

/* The waits the launcher may answer (rgpu_launcher_wait): `query` and `synchronize` are the driver's
 * cuStreamQuery and cuStreamSynchronize; ids: cuStreamQuery's, cudaStreamQuery's, cuStreamSynchronize's
 * and cudaStreamSynchronize's call ids. */
void rgpu_launcher_waits(rgpu_launcher *l, void *query, void *synchronize, const uint64_t ids[4]) {
    l->query = (stream_fn)query, l->synchronize = (stream_fn)synchronize;
    memcpy(l->wait_ids, ids, 4 * sizeof *ids);
}

/* The event waits and the device's synchronize the launcher may answer too: the driver's cuEventQuery,
 * cuEventSynchronize and cuCtxSynchronize; ids: cuEventQuery's, cudaEventQuery's, cuEventSynchronize's,
 * cudaEventSynchronize's, cuCtxSynchronize's and cudaDeviceSynchronize's call ids. */
void rgpu_launcher_more_waits(rgpu_launcher *l, void *event_query, void *event_synchronize, void *ctx_synchronize,
                              const uint64_t ids[6]) {
    l->event_query = (object_fn)event_query, l->event_synchronize = (object_fn)event_synchronize;
    l->ctx_synchronize = (context_fn)ctx_synchronize;
    memcpy(l->wait_ids + 4, ids, 6 * sizeof *ids);
}

/* How long a wait polls here before it is Python's (nanoseconds). */
void rgpu_launcher_poll(rgpu_launcher *l, long ns) { l->poll_ns = ns > 0 ? ns : 0; }

/* The aliases a launch's parameters are rewritten by: n triples [held, size, here], held ascending
 * (aliases.py says why and what). 0 on success, -1 out of memory (the old table is kept). */
int rgpu_launcher_aliases(rgpu_launcher *l, const uint64_t *triples, size_t n) {
    uint64_t *copy = n ? malloc(n * 3 * sizeof *copy) : NULL;
    if (n && !copy) return -1;
    if (n) memcpy(copy, triples, n * 3 * sizeof *copy);
    free(l->aliases);
    l->aliases = copy, l->naliases = n;
    return 0;
}

/* Each 8-byte word of the parameters inside an alias's old range, moved to where its variable is. */
static void fix_params(const rgpu_launcher *l, unsigned char *p, size_t size) {
    for (size_t off = 0; off + 8 <= size; off += 8) {
        uint64_t v;
        memcpy(&v, p + off, 8);
        size_t lo = 0, hi = l->naliases; /* the last alias whose old address is <= v */
        while (lo < hi) {
            size_t mid = (lo + hi) / 2;
            if (l->aliases[3 * mid] <= v) lo = mid + 1;
            else hi = mid;
        }
        if (!lo) continue;
        const uint64_t *a = &l->aliases[3 * (lo - 1)];
        if (v - a[0] < a[1]) {
            v = a[2] + (v - a[0]);
            memcpy(p + off, &v, 8);
        }
    }
}

/* The executable graphs the session's client has the worker build (server/api/graphs.py) are launched
 * here too: `graph_launch` is the driver's cuGraphLaunch, `id` rgpuGraphLaunch's call id. */
void rgpu_launcher_graphs(rgpu_launcher *l, void *graph_launch, uint64_t id) {
    l->graph_launch = (graph_fn)graph_launch, l->graph_id = id;
}

/* cuLaunchKernelEx, and its call id, for launches in thread-block clusters (none until this is said). */
void rgpu_launcher_clusters(rgpu_launcher *l, void *launch_ex, uint64_t id) {
    l->launch_ex = (launch_ex_fn)launch_ex;
    l->ex_id = id;
}

/* The read end of the pipe the device's printf output goes to (server/backends/cuda/printf.py). */
void rgpu_launcher_printf(rgpu_launcher *l, int fd) { l->printf_fd = fd; }

/* Handle `h` names `object` (a CUfunction or CUstream). 0, or -1 out of memory. */
int rgpu_launcher_learn(rgpu_launcher *l, uint64_t h, void *object, int kind) {
    if (h <= REMOVED) return -1;
    entry *e = find(l, h);
    if (e) {
        e->object = object, e->kind = kind;
        return 0;
    }
    if (2 * (l->used + 1) > l->cap) { /* rehash, dropping REMOVED marks; grow if half is live */
        size_t live = 0;
        for (size_t i = 0; i < l->cap; i++) live += l->table[i].handle > REMOVED;
        size_t cap = l->cap;
        while (4 * (live + 1) > cap) cap *= 2;
        entry *t = calloc(cap, sizeof(entry));
        if (!t) return -1;
        for (size_t i = 0; i < l->cap; i++)
            if (l->table[i].handle > REMOVED) put(t, cap, &l->table[i]); /* with what it knew */
        free(l->table);
        l->table = t, l->cap = cap, l->used = live;
    }
    put(l->table, l->cap, &(entry){.handle = h, .object = object, .kind = kind});
    l->used++;
    return 0;
}

void rgpu_launcher_forget(rgpu_launcher *l, uint64_t h) {
    entry *e = find(l, h);
    if (e) *e = (entry){.handle = REMOVED};
}

void rgpu_launcher_clear(rgpu_launcher *l) {
    memset(l->table, 0, l->cap * sizeof(entry));
    l->used = 0;
}

/* The served attributes' record of function `object`; with `create`, made if missing (NULL: out of
 * memory). */
static fattr *fattr_of(rgpu_launcher *l, void *object, int create) {
    if (create && 2 * (l->fused + 1) > l->fcap) {
        size_t cap = l->fcap ? l->fcap * 2 : 64;
        fattr *t = calloc(cap, sizeof *t);
        if (!t) return NULL;
        for (size_t i = 0; i < l->fcap; i++)
            if (l->fattrs[i].object)
                for (size_t j = slot_of((uintptr_t)l->fattrs[i].object, cap);; j = (j + 1) & (cap - 1))
                    if (!t[j].object) {
                        t[j] = l->fattrs[i];
                        break;
                    }
        free(l->fattrs);
        l->fattrs = t, l->fcap = cap;
    }
    for (size_t i = l->fcap ? slot_of((uintptr_t)object, l->fcap) : 0, k = 0; k < l->fcap; i = (i + 1) & (l->fcap - 1), k++) {
        if (l->fattrs[i].object == object) return &l->fattrs[i];
        if (!l->fattrs[i].object) {
            if (!create) return NULL;
            l->fattrs[i].object = object;
            l->fused++;
            return &l->fattrs[i];
        }
    }
    return NULL;
}

static int attr_index(const rgpu_launcher *l, int64_t attr) {
    for (int i = 0; i < ATTRS; i++)
        if (l->attr_ids[i] == attr) return i;
    return -1;
}

/* The driver's cuFuncSetAttribute (`set`), its call id (`id`) and the attributes (`attrs`, ATTRS of
 * them; CUfunction_attribute numbers, the wire's and the driver's) an async cuFuncSetAttribute of a
 * step may set here. */
void rgpu_launcher_attributes(rgpu_launcher *l, void *set, uint64_t id, const int64_t attrs[ATTRS]) {
    l->set_attribute = (attribute_fn)set, l->attr_id = id;
    memcpy(l->attr_ids, attrs, sizeof l->attr_ids);
}

/* Python set attribute `attr` of the driver's function `object` to `value` (the driver took it). 0, or
 * -1 out of memory (the loop then leaves that function's sets to Python: it cannot record them). */
int rgpu_launcher_attribute(rgpu_launcher *l, void *object, int64_t attr, int32_t value) {
    int i = attr_index(l, attr);
    if (i < 0) return 0;
    fattr *f = fattr_of(l, object, 1);
    if (!f) return -1;
    f->value[i] = value, f->known[i] = 1;
    return 0;
}

/* 1 and *value: what was last set of attribute `attr` of function `object` here or by Python; else 0. */
int rgpu_launcher_attribute_of(rgpu_launcher *l, void *object, int64_t attr, int32_t *value) {
    int i = attr_index(l, attr);
    fattr *f = i < 0 ? NULL : fattr_of(l, object, 0);
    if (!f || !f->known[i]) return 0;
    *value = f->value[i];
    return 1;
}

static int read_uint(mp_reader *r, uint64_t *v) {
    mp_obj o;
    if (mp_next(r, &o)) return -1;
    if (o.type == MP_UINT) *v = o.v.u;
    else if (o.type == MP_INT && o.v.i >= 0) *v = (uint64_t)o.v.i;
    else return -1;
    return 0;
}

static int read_u32(mp_reader *r, unsigned *v) {
    uint64_t u;
    if (read_uint(r, &u) || u > 0xffffffffull) return -1;
    *v = (unsigned)u;
    return 0;
}

/* Reads the call record at `r` (the generated reader: every field checked, args bounded) if it is a
 * plain one: no bulk frames, no copy record. Its args are then read from `args`. 1, or 0. */
static int read_plain_call(mp_reader *r, rgpu_env_call *c, mp_reader *args) {
    const char *why;
    if (rgpu_env_read_call(r, c, &why) || c->nbulk != 0 || c->copy.tag != 0) return 0;
    mp_rinit(args, c->args.p, c->args.len);
    return 1;
}

/* The stream handle `h` names: 0, or -1 if it names none the session issued. */
static int stream_of(rgpu_launcher *l, uint64_t h, void **stream) {
    *stream = NULL; /* handles 0, 1 and 2: the default streams (server/session.py DEFAULT_STREAMS) */
    if (h <= 2) return 0;
    entry *s = find(l, h);
    if (!s || s->kind != KIND_STREAM) return -1;
    *stream = s->object;
    return 0;
}

/* The event handle `h` names: 0, or -1 if it names none the session issued. */
static int event_of(rgpu_launcher *l, uint64_t h, void **event) {
    entry *e = find(l, h);
    if (!e || e->kind != KIND_EVENT) return -1;
    *event = e->object;
    return 0;
}

/* A launch as the loop runs it, read from the message (params: into the message's frame). */
typedef struct {
    uint64_t seq;
    int runtime;
    void *function, *stream;
    void *graph;                /* a graph launch's executable graph (then no function) */
    unsigned g[3], b[3], shared;
    int ex;                     /* cuLaunchKernelEx: in clusters of cluster[0..2] (0: the function's own), */
    unsigned cluster[4];        /* its scheduling policy cluster[3] (0: the default) */
    const void *params;
    size_t size;
} launch_call;

/* Whether the plain call `c` (its args at `args`) is a launch this launcher serves (nothing runs): 1, or 0. */
static int launch_of(rgpu_launcher *l, const rgpu_env_call *c, mp_reader args, launch_call *a) {
    uint64_t fh, sh;
    uint64_t id = c->call_id;
    if (c->sync != 0) return 0; /* a sync launch wants its reply: Python's */
    a->seq = c->seq;
    a->graph = NULL;
    if (l->graph_launch && id == l->graph_id) {
        uint64_t gh;
        if (c->args.n != GRAPH_ARGS || read_uint(&args, &gh) || read_uint(&args, &sh)) return 0;
        entry *g = find(l, gh);
        if (!g || g->kind != KIND_GRAPH || stream_of(l, sh, &a->stream)) return 0;
        a->graph = g->object;
        a->runtime = 0;
        return 1;
    }
    a->ex = l->launch_ex && id == l->ex_id;
    if (id != l->ids[0] && id != l->ids[1] && !a->ex) return 0;
    if (c->args.n != (a->ex ? EX_ARGS : WIRE_ARGS) || read_uint(&args, &fh)) return 0;
    for (int i = 0; i < 3; i++)
        if (read_u32(&args, &a->g[i])) return 0;
    for (int i = 0; i < 3; i++)
        if (read_u32(&args, &a->b[i])) return 0;
    if (read_u32(&args, &a->shared) || read_uint(&args, &sh)) return 0;
    if (a->ex) {
        for (int i = 0; i < 4; i++)
            if (read_u32(&args, &a->cluster[i])) return 0;
        /* a cluster the driver would refuse is Python's, which says why (api/module.py _cluster): each
         * dimension at least 1 and dividing the grid's, or none named; a policy CUDA knows */
        const unsigned *k = a->cluster;
        if (k[0] ? (!k[1] || !k[2] || a->g[0] % k[0] || a->g[1] % k[1] || a->g[2] % k[2]) : (k[1] || k[2]))
            return 0;
        if (k[3] > 2) return 0;
    }
    mp_obj params;
    if (mp_next(&args, &params) || params.type != MP_BIN || params.n > PARAM_BYTES) return 0;
    entry *f = find(l, fh);
    if (!f || f->kind != KIND_FUNCTION) return 0;
    if (stream_of(l, sh, &a->stream)) return 0;
    a->function = f->object;
    a->runtime = id == l->ids[1];
    a->params = params.p, a->size = params.n;
    return 1;
}

/* Reads the call at `r` if it is one this launcher serves (nothing runs): 1, or 0. */
static int read_launch(rgpu_launcher *l, mp_reader *r, launch_call *a) {
    rgpu_env_call c;
    mp_reader args;
    return read_plain_call(r, &c, &args) && launch_of(l, &c, args, a);
}

/* Runs a launch read by read_launch: 1 launched (out: its seq and face), 0 not (nothing ran). */
static int run_launch(rgpu_launcher *l, const launch_call *a, rgpu_launch_run *out) {
    if (rgpu_clock_open(l->clock, a->stream) != CUDA_SUCCESS) return 0; /* Python's path reports why */
    if (a->graph) {
        if (l->graph_launch(a->graph, (CUstream)a->stream) != CUDA_SUCCESS) return 0;
        out->last_seq = a->seq;
        out->runtime = 0;
        return 1;
    }
    /* The parameters are copied out of the message: the driver is not promised an aligned buffer
     * otherwise, and the message's frame is Python's. */
    size_t size = a->size;
    memcpy(l->params, a->params, size);
    if (l->naliases) fix_params(l, l->params, size);
    void *extra[5] = {(void *)CU_LAUNCH_PARAM_BUFFER_POINTER_AS_INT, l->params,
                      (void *)CU_LAUNCH_PARAM_BUFFER_SIZE_AS_INT, &size, (void *)CU_LAUNCH_PARAM_END_AS_INT};
    if (a->ex) { /* the attributes device.py _launch_config gives the driver, in the same order */
        CUlaunchAttribute attrs[2];
        unsigned n = 0;
        memset(attrs, 0, sizeof attrs);
        if (a->cluster[0]) {
            attrs[n].id = CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION;
            attrs[n].value.clusterDim.x = a->cluster[0], attrs[n].value.clusterDim.y = a->cluster[1];
            attrs[n].value.clusterDim.z = a->cluster[2];
            n++;
        }
        if (a->cluster[3]) {
            attrs[n].id = CU_LAUNCH_ATTRIBUTE_CLUSTER_SCHEDULING_POLICY_PREFERENCE;
            attrs[n].value.clusterSchedulingPolicyPreference = (CUclusterSchedulingPolicy)a->cluster[3];
            n++;
        }
        CUlaunchConfig config = {.gridDimX = a->g[0], .gridDimY = a->g[1], .gridDimZ = a->g[2],
                                 .blockDimX = a->b[0], .blockDimY = a->b[1], .blockDimZ = a->b[2],
                                 .sharedMemBytes = a->shared, .hStream = (CUstream)a->stream,
                                 .attrs = attrs, .numAttrs = n};
        if (l->launch_ex(&config, (CUfunction)a->function, NULL, extra) != CUDA_SUCCESS) return 0;
        out->last_seq = a->seq;
        out->runtime = 0;
        return 1;
    }
    if (l->launch((CUfunction)a->function, a->g[0], a->g[1], a->g[2], a->b[0], a->b[1], a->b[2], a->shared,
                  (CUstream)a->stream, NULL, extra) != CUDA_SUCCESS)
        return 0;
    out->last_seq = a->seq;
    out->runtime = a->runtime;
    return 1;
}

/* Runs call `c` of the message if it is one this launcher serves; 1 launched, 0 not (nothing ran). */
static int launch_one(rgpu_launcher *l, mp_reader *r, rgpu_launch_run *out) {
    launch_call a;
    return read_launch(l, r, &a) && run_launch(l, &a, out);
}

/* Places `r` at call `index` of the message (header: its first frame; token: differs from one
 * message to the next), starting from where the last call stopped when it can; the number of calls,
 * or 0 when there is no call `index`. */
static uint32_t seek(rgpu_launcher *l, mp_reader *r, const void *header, size_t len, uint64_t token, uint32_t index) {
    mp_obj calls;
    mp_rinit(r, header, len);
    if (mp_next(r, &calls) || calls.type != MP_ARRAY || index >= calls.n) return 0;
    uint32_t i = 0;
    if (token == l->token && index >= l->index && l->offset < len) {
        i = l->index;
        r->p = (const uint8_t *)header + l->offset;
    }
    for (; i < index; i++)
        if (mp_skip(r)) return 0;
    return calls.n;
}

/* Serves the message's calls from index `start` (header: the message's first frame, already checked
 * whole by decode_calls; token: a number that differs from one message to the next) until one it does
 * not serve; out->served says how many ran. */
void rgpu_launcher_run(rgpu_launcher *l, const void *header, size_t len, uint64_t token, uint32_t start,
                       rgpu_launch_run *out) {
    out->served = 0, out->kernels = 0;
    mp_reader r;
    uint32_t n = seek(l, &r, header, len, token, start);
    for (uint32_t i = start; n;) {
        l->token = token, l->index = i, l->offset = (size_t)(r.p - (const uint8_t *)header);
        if (i >= n || !launch_one(l, &r, out)) return;
        out->served++, out->kernels++;
        i++;
    }
}

/* The stream's query, polled while it answers NOT_READY for up to poll_ns (rgpu_launcher_poll: the
 * Python path's own poll, server/backends/cuda/waits.py SPIN_S, 200 µs unless RGPU_GPU_SPIN_US says
 * otherwise): a wait right after a short kernel's launch (launch + synchronize, the common step) finds
 * the kernel done within a few µs on a GPU, and a CUDA graph's replay of a decode step within tens of
 * µs; either is then answered here instead of by the Python path, which would poll it the same way
 * before it sleeps, and costs a step more than ten µs on a GPU host when it takes over. A longer wait
 * is Python's, which sleeps while it keeps the worker's checks running. */
#define NOT_READY 600
/* The device's streams all done: the default stream's query, then every stream the session made, as
 * the Python path's (device.py, _query_all: the streams it made are those the session has handles for). */
static CUresult query_all(rgpu_launcher *l, void *unused) {
    CUresult rc = l->query(NULL);
    for (size_t i = 0; rc == CUDA_SUCCESS && i < l->cap; i++)
        if (l->table[i].handle > REMOVED && l->table[i].kind == KIND_STREAM) rc = l->query(l->table[i].object);
    return rc;
}

typedef CUresult (*poll_fn)(rgpu_launcher *, void *);
static CUresult query_stream(rgpu_launcher *l, void *s) { return l->query(s); }
static CUresult query_event(rgpu_launcher *l, void *e) { return l->event_query(e); }

static CUresult poll_for(rgpu_launcher *l, poll_fn query, void *object, long ns) {
    CUresult rc = query(l, object);
    if (rc != NOT_READY) return rc;
    struct timespec t0, t;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    do {
        rc = query(l, object);
        if (rc != NOT_READY) return rc;
        clock_gettime(CLOCK_MONOTONIC, &t);
    } while ((t.tv_sec - t0.tv_sec) * 1000000000L + (t.tv_nsec - t0.tv_nsec) < ns);
    return rc;
}

static CUresult poll(rgpu_launcher *l, poll_fn query, void *object) { return poll_for(l, query, object, l->poll_ns); }

/* A wait as the loop answers it: which of the wait ids (STREAM_QUERY..CTX_SYNC, + 1: the runtime's),
 * and the stream or event it waits for. */
typedef struct {
    uint64_t seq;
    int which;
    void *object;
} wait_call;

/* Reads the call at `r` if it is a sync stream or event query or synchronize of a stream or event it
 * knows, or a device synchronize (no bulk frames, no shared-memory entry; nothing runs): 1, or 0. */
static int read_wait(rgpu_launcher *l, mp_reader *r, wait_call *w) {
    rgpu_env_call c;
    mp_reader args;
    uint64_t h = 0;
    if (!l->query || !read_plain_call(r, &c, &args)) return 0;
    w->seq = c.seq;
    w->which = -1;
    for (int k = 0; k < WAIT_KINDS; k++)
        if (c.call_id == l->wait_ids[k]) w->which = k;
    if (w->which < 0 || c.sync != 1) return 0; /* sync, and no other kind of reply (protocol/wire.py) */
    int kind = w->which & ~1;
    if (c.args.n != (kind == CTX_SYNC ? 0u : 1u)) return 0;
    if (kind != CTX_SYNC && read_uint(&args, &h)) return 0;
    w->object = NULL;
    if (kind == EVENT_QUERY || kind == EVENT_SYNC) return !event_of(l, h, &w->object);
    return kind == CTX_SYNC || !stream_of(l, h, &w->object);
}

/* Answers a wait read by read_wait if its stream's work is done: the answer is success, as the
 * Python path would give it (a synchronize is still made, returning at once, for what the driver does
 * at one: it prints the kernels' printf output). 1 answered (out: its seq and face), 0 not: nothing
 * it did changes what the Python path then finds (work still running, or an error to report). */
static int answer_wait(rgpu_launcher *l, const wait_call *w, rgpu_launch_run *out) {
    /* a query answers at once, as the driver's does; a synchronize may poll a moment (waits.py's
     * order: the query until it is done, then the blocking call, which returns at once) */
    void *o = w->object;
    CUresult rc;
    switch (w->which & ~1) {
    case STREAM_QUERY: rc = l->query(o); break;
    case STREAM_SYNC: rc = poll(l, query_stream, o) ?: l->synchronize(o); break;
    case EVENT_QUERY: rc = l->event_query(o); break;
    case EVENT_SYNC: rc = poll(l, query_event, o) ?: l->event_synchronize(o); break;
    default: rc = poll(l, query_all, NULL) ?: l->ctx_synchronize(); break;
    }
    if (rc != CUDA_SUCCESS) return 0;
    out->served = 1, out->kernels = 0;
    out->last_seq = w->seq;
    out->runtime = w->which & 1;
    return 1;
}

/* What the copies (copies.c) use of the launcher: the stream a handle names (0, or -1: none the
 * session issued); whether every stream of the session is done (1), as a device synchronize's
 * query_all finds it, so that a copy queued now is the only work its wait waits for; a stream's wait
 * as a synchronize's (the query polled a moment, then the blocking call); and a message's end, as
 * rgpu_launcher_wait_alone makes it (the clock settled, the printf pipe checked). */
int rgpu_launcher_stream(rgpu_launcher *l, uint64_t h, void **stream) { return stream_of(l, h, stream); }
int rgpu_launcher_event(rgpu_launcher *l, uint64_t h, void **event) { return event_of(l, h, event); }

int rgpu_launcher_idle(rgpu_launcher *l) { return l->query && query_all(l, NULL) == CUDA_SUCCESS; }

/* The waits of a device with nothing running, for a launcher that serves waits alone: the software
 * GPU's (server/backends/sim/idle_waits.py), whose work is Python's. Its worker lets the serving loop
 * answer only while its queue is empty, no kernel's error is kept and no printf output is due, where
 * every stream and event of it is done and each of these waits is CUDA_SUCCESS as its Python path
 * answers it. */
CUresult rgpu_launcher_done_object(void *unused) { return CUDA_SUCCESS; }
CUresult rgpu_launcher_done_device(void) { return CUDA_SUCCESS; }

/* A copy the loop queued on an idle device, waited for until it is done (copies.c): polled for as long
 * as its DMA can take (its bytes at a slow link's 8 GB/s on top of poll_ns, at most 20 ms: Python's
 * wait for a copy polls as long, server/backends/cuda/waits.py copy_spin_s), then the blocking
 * synchronize, which waits for that copy alone. 0 only for an error the synchronize reports: a copy
 * still running is never handed back, since Python would run it again. */
#define COPY_POLL_MAX_NS 20000000L
int rgpu_launcher_finish(rgpu_launcher *l, void *stream, uint64_t bytes) {
    long more = (long)(bytes / 8 < (uint64_t)COPY_POLL_MAX_NS ? bytes / 8 : (uint64_t)COPY_POLL_MAX_NS); /* ns at 8 GB/s */
    CUresult rc = poll_for(l, query_stream, stream, l->poll_ns + more);
    if (rc == CUDA_SUCCESS || rc == NOT_READY) rc = l->synchronize(stream);
    return rc == CUDA_SUCCESS;
}

void rgpu_launcher_end(rgpu_launcher *l, rgpu_launch_run *out) {
    out->settled = rgpu_clock_settle(l->clock, &out->done) == CUDA_SUCCESS;
    out->pending = l->printf_fd >= 0 ? rgpu_printf_pending(l->printf_fd) : -1;
}

/* Answers the call at `r` if it is a wait the loop answers (read_wait) on a stream that is done. */
static int wait_one(rgpu_launcher *l, mp_reader *r, rgpu_launch_run *out) {
    wait_call w;
    return read_wait(l, r, &w) && answer_wait(l, &w, out);
}

/* wait_one for call `index` of a message Python has decoded (header: its first frame). */
int rgpu_launcher_wait(rgpu_launcher *l, const void *header, size_t len, uint64_t token, uint32_t index,
                       rgpu_launch_run *out) {
    out->served = 0;
    mp_reader r;
    if (!seek(l, &r, header, len, token, index)) return 0;
    return wait_one(l, &r, out);
}

/* wait_one for a message of one frame (header) that Python has not decoded: answered only if it is a
 * well-formed message of that one call, and nothing else (the checks protocol/wire.py decode_calls
 * makes, for this shape). The common synchronize on its own costs the worker no decoding in Python. */
int rgpu_launcher_wait_alone(rgpu_launcher *l, const void *header, size_t len, rgpu_launch_run *out) {
    out->served = 0;
    mp_reader r;
    mp_obj calls;
    mp_rinit(&r, header, len);
    if (mp_next(&r, &calls) || calls.type != MP_ARRAY || calls.n != 1) return 0;
    /* the whole call is read and checked before anything runs: no trailing bytes either */
    wait_call w;
    if (!read_wait(l, &r, &w) || r.p != (const uint8_t *)header + len || !answer_wait(l, &w, out)) return 0;
    /* What Python does next at the end of such a message, made here too: the clock's settle (nothing
     * is open at a message's first call; what completed since is counted) and the printf check. */
    rgpu_launcher_end(l, out);
    return 1;
}

/* The most calls a step has: the client's largest batch (BATCH_MAX_CALLS, session.c), so that a
 * training step's message (a transformer's: about 170 launches, memsets and copies, then its wait) is
 * one. A message that is not a step is read here only up to its first call that is not a step's, and
 * then by Python, whose decoding of each call costs far more than this reading of it. */
#define STEP_CALLS 256

/* Whether the plain call `c` (its args at `args`) is an async cuFuncSetAttribute of an attribute the loop
 * serves, on a function the session issued: run (with `run`) and recorded (fattr). 1, or 0: not one, or
 * the driver refused it (Python's path sets it again and reports why), or no room to record it. */
static int attribute_call(rgpu_launcher *l, const rgpu_env_call *c, mp_reader args, int run) {
    uint64_t fh;
    mp_obj a, v;
    if (!l->set_attribute || c->call_id != l->attr_id || c->sync != 0 || c->args.n != 3 || read_uint(&args, &fh) ||
        mp_next(&args, &a) || mp_next(&args, &v) || a.type != MP_UINT || (v.type != MP_UINT && v.type != MP_INT))
        return 0;
    int64_t value = v.type == MP_UINT ? (v.v.u > INT32_MAX ? INT64_MAX : (int64_t)v.v.u) : v.v.i;
    int i = attr_index(l, (int64_t)a.v.u);
    entry *f = find(l, fh);
    if (i < 0 || value < INT32_MIN || value > INT32_MAX || !f || f->kind != KIND_FUNCTION) return 0;
    if (run) {
        fattr *rec = fattr_of(l, f->object, 1);
        if (!rec || l->set_attribute(f->object, (int)a.v.u, (int)value) != CUDA_SUCCESS) return 0;
        rec->value[i] = (int32_t)value, rec->known[i] = 1;
    }
    return 1;
}

/* The call at `r`, one a step may hold before its wait: 1 a launch, 2 an async memset, copy or event
 * record the copier serves, 3 a function attribute set (attribute_call), 0 none of these (r then
 * anywhere). run: also run it (0 when it did not run: a launch or a copy the driver refused). */
static int step_call(rgpu_launcher *l, rgpu_copier *c, mp_reader *r, int run, rgpu_launch_run *out,
                     rgpu_step_late *late) {
    mp_reader at = *r, args;
    rgpu_env_call plain;
    launch_call a;
    /* after a late copy whose data the wait's answer reads (copies.c late_frame_one) only another,
     * which runs only then: its seq is not the last run's */
    if (c && rgpu_copier_late_n(c)) return rgpu_copier_step_call(c, r, run, NULL, NULL, late) ? 2 : 0;
    if (read_plain_call(r, &plain, &args)) { /* read once for both: no copy record, no bulk */
        if (launch_of(l, &plain, args, &a)) return !run || run_launch(l, &a, out) ? 1 : 0;
        if (attribute_call(l, &plain, args, run)) {
            if (run) out->last_seq = plain.seq, out->runtime = 0;
            return 3;
        }
    }
    *r = at;
    return c && rgpu_copier_step_call(c, r, run, run ? &out->last_seq : NULL, run ? &out->runtime : NULL, late) ? 2 : 0;
}

/* Whether a step's wait makes its copies' late data (rgpu_step_late) be in place before the wait's
 * reply: a device synchronize, or a synchronize of the one stream they are all on (PyTorch's
 * `.item()`: the copy, then its stream's synchronize). Else the message is Python's, whose run of such
 * a copy waits for it. */
static int wait_covers(const wait_call *w, const rgpu_step_late *late) {
    int kind = w->which & ~1;
    return !late->n || kind == CTX_SYNC || (kind == STREAM_SYNC && late->one && late->stream == w->object);
}

/* The shape of a message of one frame (header) that Python has not decoded, read once: a run of calls
 * the loop serves (step_call) and then its last call, well-formed with nothing after (the checks
 * protocol/wire.py decode_calls makes, for this shape), one of
 *   RGPU_STEP_WAIT: a wait it may answer (a step);
 *   RGPU_STEP_COPY: with the session segment `seg`, a sync copy through it or a memset (copies.c
 *     rgpu_copier_last: a kernel and its result read back, on the call ring);
 *   RGPU_STEP_FRAME: a sync device-to-host copy whose data goes back in a frame (copies.c
 *     rgpu_copier_frame_d2h, *count its bytes: the same on the socket);
 *   RGPU_STEP_ASYNC: one more of the step's calls: the message is async calls only (a batch the
 *     client sent when it was full: a training step of more calls than a batch holds), no reply.
 * The calls before the last (*kind which; RGPU_STEP_ASYNC: all of them), or 0: none of these. Nothing
 * runs. */
static uint32_t shape_of(rgpu_launcher *l, rgpu_copier *c, const void *header, size_t len, unsigned char *seg,
                         uint64_t seg_size, int *kind, uint64_t *count);

uint32_t rgpu_launcher_shape(rgpu_launcher *l, rgpu_copier *c, const void *header, size_t len, unsigned char *seg,
                             uint64_t seg_size, int *kind, uint64_t *count) {
    uint32_t n = shape_of(l, c, header, len, seg, seg_size, kind, count);
    /* every data frame of the message (rgpu_copier_frames) one of its copies takes, or it is Python's */
    return n && c && rgpu_copier_frames_left(c) ? 0 : n;
}

static uint32_t shape_of(rgpu_launcher *l, rgpu_copier *c, const void *header, size_t len, unsigned char *seg,
                         uint64_t seg_size, int *kind, uint64_t *count) {
    mp_reader r;
    mp_obj calls;
    wait_call w;
    const uint8_t *end = (const uint8_t *)header + len;
    mp_rinit(&r, header, len);
    if (!l->query || mp_next(&r, &calls) || calls.type != MP_ARRAY || calls.n < 1 || calls.n > STEP_CALLS)
        return 0;
    rgpu_step_late late = {0};
    for (uint32_t i = 0; i + 1 < calls.n; i++) {
        mp_reader at = r;
        if (step_call(l, c, &r, 0, NULL, &late)) continue;
        /* a wait with managed pulls after it (from another host, a process with managed memory:
         * copies.c rgpu_copier_pull_call), nothing else after them */
        r = at;
        if (i == 0 || !c || !read_wait(l, &r, &w)) return 0;
        for (uint32_t k = i + 1; k < calls.n; k++)
            if (!rgpu_copier_pull_call(c, &r)) return 0;
        if (r.p != end) return 0;
        *kind = RGPU_STEP_WAIT;
        return wait_covers(&w, &late) ? i : 0;
    }
    mp_reader last = r;
    rgpu_step_late last_late = late;
    if (step_call(l, c, &r, 0, NULL, &last_late) && r.p == end) {
        *kind = RGPU_STEP_ASYNC;
        return last_late.n ? 0 : calls.n; /* no wait comes: copies whose data is due are Python's */
    }
    r = last;
    if (calls.n < 2) return 0;
    if (read_wait(l, &r, &w) && r.p == end) {
        *kind = RGPU_STEP_WAIT;
        return wait_covers(&w, &late) ? calls.n - 1 : 0;
    }
    if (late.n) return 0; /* the other shapes' ends need not wait for their streams: Python's */
    r = last;
    if (c && seg && rgpu_copier_last(c, &r, end, seg, seg_size, 0, NULL, NULL)) {
        *kind = RGPU_STEP_COPY;
        return calls.n - 1;
    }
    r = last;
    if (c && rgpu_copier_frame_d2h(c, &r, end, NULL, 0, 0, count, NULL)) {
        *kind = RGPU_STEP_FRAME;
        return calls.n - 1;
    }
    return 0;
}

/* Serves a message rgpu_launcher_shape found RGPU_STEP_WAIT, `n` calls and a wait, in memory nobody
 * else writes (the serving loop's private copy of it, or Python's frame): its calls, then the timing
 * windows closed (settle_first: settled, as Python settles a session that does not hold the GPU) as
 * Python does when the client is about to wait, then the wait, then the clock settled and the printf
 * pipe checked as at a message's end (out: settled, done, pending). 1: all of it served (out: the wait's
 * seq and face, the launches among the calls). 0: stopped at call out->served (out: the last call's
 * seq and face, the launches that ran), a call the driver refused or a wait on work not done, which
 * Python serves with the rest. */
int rgpu_launcher_step_checked(rgpu_launcher *l, rgpu_copier *c, const void *header, size_t len, uint32_t n,
                               int settle_first, rgpu_launch_run *out) {
    out->served = 0, out->kernels = 0;
    mp_reader r;
    mp_obj calls;
    wait_call w;
    rgpu_launch_run wait_out;
    rgpu_step_late late = {0}; /* rgpu_launcher_shape found the wait covers them */
    const uint8_t *end = (const uint8_t *)header + len;
    mp_rinit(&r, header, len);
    mp_next(&r, &calls);
    for (uint32_t i = 0; i < n; i++) {
        int k = step_call(l, c, &r, 1, out, &late);
        if (!k) return 0;
        out->served++;
        out->kernels += k == 1;
    }
    /* the late copies the step ends with (copies.c late_frame_one) are made only once the wait is
     * answered: where it is not, Python runs them, so they do not count as served */
    uint32_t deferred = c ? rgpu_copier_late_n(c) : 0;
    read_wait(l, &r, &w);
    /* and the managed pulls after the wait (rgpu_copier_pull_call), taken again in this pass: made
     * after the late copies, or, where the loop cannot, Python's with the wait */
    while (c && r.p < end)
        if (!rgpu_copier_pull_call(c, &r)) {
            out->served -= deferred;
            return 0;
        }
    double ignored;
    if ((settle_first ? rgpu_clock_settle(l->clock, &ignored) : rgpu_clock_close(l->clock)) != CUDA_SUCCESS) {
        out->served -= deferred;
        return 0; /* Python's settle reports why */
    }
    if (!answer_wait(l, &w, &wait_out) || (deferred && !rgpu_copier_late_run(c)) || (c && !rgpu_copier_pull_run(c))) {
        out->served -= deferred;
        return 0;
    }
    out->last_seq = wait_out.last_seq, out->runtime = wait_out.runtime;
    rgpu_launcher_end(l, out); /* the clock settled, the printf pipe checked, as at a message's end */
    return 1;
}

/* The calls of a step, then the timing windows closed and every stream done within the launcher's
 * poll (and no printf output waiting for the reply): 1, the reader past them; else 0, out->served the
 * calls that ran. */
static int step_calls_done(rgpu_launcher *l, rgpu_copier *c, mp_reader *r, uint32_t n, int settle_first,
                           rgpu_launch_run *out) {
    for (uint32_t i = 0; i < n; i++) {
        int k = step_call(l, c, r, 1, out, NULL);
        if (!k) return 0;
        out->served++;
        out->kernels += k == 1;
    }
    double ignored;
    if ((settle_first ? rgpu_clock_settle(l->clock, &ignored) : rgpu_clock_close(l->clock)) != CUDA_SUCCESS)
        return 0; /* Python's settle reports why */
    if (poll(l, query_all, NULL) != CUDA_SUCCESS) return 0; /* still running, or an error: Python's wait */
    /* output the kernels printed goes in the copy's reply, which is then Python's to write */
    return !(l->printf_fd >= 0 && rgpu_printf_pending(l->printf_fd) != 0);
}

/* Serves a message rgpu_launcher_shape found RGPU_STEP_FRAME, `n` calls and a copy of `cap` bytes into
 * `buf`, as rgpu_launcher_copy_step serves its kind. */
int rgpu_launcher_frame_step(rgpu_launcher *l, rgpu_copier *c, const void *header, size_t len, uint32_t n,
                             int settle_first, void *buf, uint64_t cap, rgpu_launch_run *out) {
    out->served = 0, out->kernels = 0;
    mp_reader r;
    mp_obj calls;
    rgpu_launch_run copy_out;
    uint64_t count = 0;
    mp_rinit(&r, header, len);
    mp_next(&r, &calls);
    if (!step_calls_done(l, c, &r, n, settle_first, out)) return 0;
    if (!rgpu_copier_frame_d2h(c, &r, (const uint8_t *)header + len, buf, cap, 1, &count, &copy_out)) return 0;
    out->last_seq = copy_out.last_seq, out->runtime = copy_out.runtime;
    rgpu_launcher_end(l, out); /* the clock settled, the printf pipe checked, as at a message's end */
    return 1;
}

/* Serves a message rgpu_launcher_shape found RGPU_STEP_COPY, `n` calls and a copy (a kernel and its result
 * read back with cudaMemcpy, a plain program's step): the calls, the timing
 * windows closed as rgpu_launcher_step_checked closes them, then, once every stream is done (the
 * launcher's short poll, as a device synchronize's), the copy (done: its data's bytes), then the clock
 * settled and the printf pipe checked. 1: all served (out: the copy's seq and face, the launches). 0:
 * stopped at call out->served (work not done within the poll, printf output waiting for the copy's
 * reply, or a call the driver refused), which Python serves with the rest. */
int rgpu_launcher_copy_step(rgpu_launcher *l, rgpu_copier *c, const void *header, size_t len, uint32_t n,
                            int settle_first, unsigned char *seg, uint64_t seg_size, rgpu_launch_run *out,
                            rgpu_copy_done *done) {
    out->served = 0, out->kernels = 0;
    mp_reader r;
    mp_obj calls;
    rgpu_launch_run copy_out;
    mp_rinit(&r, header, len);
    mp_next(&r, &calls);
    if (!step_calls_done(l, c, &r, n, settle_first, out)) return 0;
    if (!rgpu_copier_last(c, &r, (const uint8_t *)header + len, seg, seg_size, 1, &copy_out, done)) return 0;
    out->last_seq = copy_out.last_seq, out->runtime = copy_out.runtime;
    rgpu_launcher_end(l, out); /* the clock settled, the printf pipe checked, as at a message's end */
    return 1;
}

/* Runs the `n` calls of a message rgpu_launcher_shape found RGPU_STEP_ASYNC, as a step runs those before
 * its wait; out->served says how many ran (fewer: the driver refused that one, which Python serves with
 * the rest, and reports). */
void rgpu_launcher_run_calls(rgpu_launcher *l, rgpu_copier *c, const void *header, size_t len, uint32_t n,
                             rgpu_launch_run *out) {
    out->served = 0, out->kernels = 0;
    mp_reader r;
    mp_obj calls;
    mp_rinit(&r, header, len);
    if (mp_next(&r, &calls)) return;
    for (uint32_t i = 0; i < n; i++) {
        int k = step_call(l, c, &r, 1, out, NULL);
        if (!k) return;
        out->served++;
        out->kernels += k == 1;
    }
}
