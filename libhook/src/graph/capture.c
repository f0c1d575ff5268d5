/* Stream capture: while a stream captures, the stream-ordered calls made on it (launches, async copies,
 * memsets, host functions, event records and waits) become nodes of a graph instead of being sent; the
 * graph is handed to the program by cudaStreamEndCapture. Each capturing stream keeps the set of nodes
 * the next one depends on; an event recorded on a capturing stream remembers that set, so a wait on it
 * from another stream forks that stream into the capture (or joins it back). Calls CUDA forbids during
 * a capture (synchronous copies, allocations, synchronising a capturing stream) answer
 * cudaErrorStreamCaptureUnsupported and invalidate the capture, as CUDA does; the generated stubs ask
 * rgpu_capture_guard or their rgpu_capture_NAME hook (the capture rule of their records, protocol/contract/calls/). */
#include <stdlib.h>
#include <string.h>

#include "graph.h"
#include "rgpu_call.h"

enum { MODE_GLOBAL = cudaStreamCaptureModeGlobal, MODE_THREAD_LOCAL = cudaStreamCaptureModeThreadLocal,
       MODE_RELAXED = cudaStreamCaptureModeRelaxed };
enum { STATUS_NONE = cudaStreamCaptureStatusNone, STATUS_ACTIVE = cudaStreamCaptureStatusActive,
       STATUS_INVALIDATED = cudaStreamCaptureStatusInvalidated };

typedef struct { rgpu_gnode **v; int n, cap; } nodeset;

typedef struct {
    int used, mode, invalid;
    int borrowed;                 /* the graph is the program's (cudaStreamBeginCaptureToGraph) */
    pthread_t owner;
    unsigned long long id;
    const void *origin;
    rgpu_graph *graph;
} capture;

#define MAX_CAPTURES 64
#define MAX_STREAMS 256
#define MAX_EVENTS 1024

static capture caps[MAX_CAPTURES];
/* blocking: created without cudaStreamNonBlocking, so the legacy stream would wait on it */
static struct { const void *stream; capture *cap; nodeset deps; int blocking; } streams[MAX_STREAMS];
static struct { const void *event; capture *cap; nodeset deps; } events[MAX_EVENTS];
static int nstreams;              /* streams capturing now: the fast path reads it without the lock */
static unsigned long long next_id = 1;
static __thread int thread_mode = MODE_GLOBAL;

#define LOCK() pthread_mutex_lock(&rgpu_graph_mu)
#define UNLOCK() pthread_mutex_unlock(&rgpu_graph_mu)

/* cudaStreamLegacy (0x1) is the NULL stream; cudaStreamPerThread (0x2) is captured like a stream. */
int rgpu_legacy_stream(const void *s) { return s == NULL || s == (const void *)1; }

static int set_add(nodeset *s, rgpu_gnode *n) {
    for (int i = 0; i < s->n; i++)
        if (s->v[i] == n) return 0;
    if (s->n == s->cap) {
        int cap = s->cap ? 2 * s->cap : 4;
        rgpu_gnode **v = realloc(s->v, cap * sizeof *v);
        if (!v) return RGPU_OUT_OF_MEMORY;
        s->v = v;
        s->cap = cap;
    }
    s->v[s->n++] = n;
    return 0;
}

static int set_copy(nodeset *dst, const nodeset *src) {
    dst->n = 0;
    for (int i = 0; i < src->n; i++)
        if (set_add(dst, src->v[i])) return RGPU_OUT_OF_MEMORY;
    return 0;
}

static int find_stream(const void *stream) {
    for (int i = 0; i < MAX_STREAMS; i++)
        if (streams[i].cap && streams[i].stream == stream) return i;
    return -1;
}

static int find_event(const void *event) {
    for (int i = 0; i < MAX_EVENTS; i++)
        if (events[i].cap && events[i].event == event) return i;
    return -1;
}


/* Asked when a stream enters a capture, before the lock is taken (it is a round trip). */
static int is_blocking(const void *stream) {
    unsigned flags = 0;
    int saved = rgpu_get_last_error(RGPU_RUNTIME, 0);
    int rc = cudaStreamGetFlags((void *)stream, &flags);
    rgpu_set_last_error(RGPU_RUNTIME, saved);
    return rc || !(flags & CU_STREAM_NON_BLOCKING);
}

/* The legacy stream waits on every blocking stream: using it while one of them captures would make it
 * depend on work that is not running. CUDA refuses (cudaErrorStreamCaptureImplicit) and invalidates
 * those captures. Called under the lock; 1 when there was such a capture. */
static int legacy_conflict(int invalidate) {
    int found = 0;
    for (int i = 0; i < MAX_STREAMS; i++)
        if (streams[i].cap && streams[i].blocking) {
            found = 1;
            if (invalidate) streams[i].cap->invalid = 1;
        }
    return found;
}

static int add_stream(const void *stream, capture *cap, int blocking) {
    for (int i = 0; i < MAX_STREAMS; i++)
        if (!streams[i].cap) {
            streams[i].stream = stream;
            streams[i].blocking = blocking;
            streams[i].cap = cap;
            streams[i].deps.n = 0;
            __atomic_add_fetch(&nstreams, 1, __ATOMIC_SEQ_CST);
            return i;
        }
    return -1;
}

static void end_capture(capture *cap) {
    for (int i = 0; i < MAX_STREAMS; i++)
        if (streams[i].cap == cap) {
            streams[i].cap = NULL;
            __atomic_sub_fetch(&nstreams, 1, __ATOMIC_SEQ_CST);
        }
    for (int i = 0; i < MAX_EVENTS; i++)
        if (events[i].cap == cap) events[i].cap = NULL;
    cap->used = 0;
}

int rgpu_capturing(const void *stream) {
    if (!__atomic_load_n(&nstreams, __ATOMIC_SEQ_CST)) return 0;
    LOCK();
    int found = rgpu_legacy_stream(stream) ? legacy_conflict(0) : find_stream(stream) >= 0;
    UNLOCK();
    return found;
}

int rgpu_capturing_on(int dev) {
    if (!__atomic_load_n(&nstreams, __ATOMIC_SEQ_CST)) return 0;
    LOCK();
    int found = 0;
    for (int i = 0; i < MAX_STREAMS && !found; i++)
        found = streams[i].cap && (rgpu_legacy_stream(streams[i].stream) || rgpu_handle_device(streams[i].stream) == dev);
    UNLOCK();
    return found;
}

int rgpu_capture_append(const void *stream, const rgpu_gnode *proto, int *rc) {
    if (!__atomic_load_n(&nstreams, __ATOMIC_SEQ_CST)) return 0;
    LOCK();
    if (rgpu_legacy_stream(stream)) {
        int conflict = legacy_conflict(1);
        UNLOCK();
        if (conflict) *rc = ERR_CAPTURE_IMPLICIT;
        return conflict;
    }
    int i = find_stream(stream);
    if (i < 0) { UNLOCK(); return 0; }
    capture *cap = streams[i].cap;
    if (cap->invalid) {
        *rc = ERR_CAPTURE_INVALIDATED;
    } else {
        rgpu_gnode *n = rgpu_graph_add(cap->graph, NODE_EMPTY, streams[i].deps.v, streams[i].deps.n, rc);
        if (n && !(*rc = rgpu_node_copy_params(n, proto))) {
            streams[i].deps.n = 0;
            *rc = set_add(&streams[i].deps, n);
        }
    }
    UNLOCK();
    return 1;
}

/* A call CUDA calls "potentially unsafe" during capture: forbidden to a thread whose own capture is not
 * relaxed and, in the global mode, to any thread while another thread captures in the global mode. */
int rgpu_capture_guard(int face, const void *stream, int has_stream) {
    if (!__atomic_load_n(&nstreams, __ATOMIC_SEQ_CST)) return 0;
    int rc = 0;
    LOCK();
    int i = has_stream && !rgpu_legacy_stream(stream) ? find_stream(stream) : -1;
    if (has_stream && rgpu_legacy_stream(stream) && legacy_conflict(1)) {
        rc = ERR_CAPTURE_IMPLICIT;
    } else if (i >= 0) {
        streams[i].cap->invalid = 1; /* synchronising or querying a capturing stream */
        rc = ERR_CAPTURE_UNSUPPORTED;
    } else if ((!has_stream || rgpu_legacy_stream(stream)) && thread_mode != MODE_RELAXED) {
        pthread_t self = pthread_self();
        for (int c = 0; c < MAX_CAPTURES; c++) {
            capture *cap = &caps[c];
            if (!cap->used || cap->mode == MODE_RELAXED) continue;
            int mine = pthread_equal(cap->owner, self);
            if (mine || (thread_mode == MODE_GLOBAL && cap->mode == MODE_GLOBAL)) {
                cap->invalid = 1;
                rc = ERR_CAPTURE_UNSUPPORTED;
            }
        }
    }
    UNLOCK();
    if (rc) rgpu_log(RGPU_LOG_INFO, "a call not permitted during stream capture invalidated the capture");
    return rc ? rgpu_record(face, rc) : 0;
}

/* ---- begin / end / query ----------------------------------------------------------------- */

/* Into a new graph, or into the program's `into` after its nodes `deps`. */
static int begin_capture(int face, void *stream, int mode, rgpu_graph *into, rgpu_gnode *const *deps, size_t ndeps) {
    if (mode < MODE_GLOBAL || mode > MODE_RELAXED || (ndeps && !deps)) return rgpu_invalid_value(face);
    for (size_t i = 0; i < ndeps; i++)
        if (!deps[i] || deps[i]->graph != into) return rgpu_invalid_value(face);
    if (rgpu_legacy_stream(stream)) return rgpu_record(face, ERR_CAPTURE_UNSUPPORTED); /* the NULL stream cannot capture */
    int blocking = is_blocking(stream);
    int rc = 0;
    LOCK();
    capture *cap = NULL;
    for (int c = 0; c < MAX_CAPTURES && !cap; c++)
        if (!caps[c].used) cap = &caps[c];
    if (find_stream(stream) >= 0) rc = ERR_ILLEGAL_STATE;
    else if (!cap || !(cap->graph = into ? into : rgpu_graph_new())) rc = RGPU_OUT_OF_MEMORY;
    else {
        cap->borrowed = into != NULL;
        cap->used = 1;
        cap->mode = mode;
        cap->invalid = 0;
        cap->owner = pthread_self();
        cap->id = next_id++;
        cap->origin = stream;
        int s = add_stream(stream, cap, blocking);
        for (size_t i = 0; s >= 0 && !rc && i < ndeps; i++) rc = set_add(&streams[s].deps, deps[i]);
        if (s < 0 || rc) {
            if (!cap->borrowed) rgpu_graph_free(cap->graph);
            if (s >= 0) end_capture(cap);
            cap->used = 0;
            rc = RGPU_OUT_OF_MEMORY;
        }
    }
    UNLOCK();
    return rgpu_record(face, rc);
}

/* Every stream forked into the capture must have been joined back: whatever it would depend on next
 * must be something the origin stream already depends on (itself or an ancestor). Nodes the program
 * left aside (cudaStreamUpdateCaptureDependencies, a graph of its own) are not forks. */
static int joined(const capture *cap, const nodeset *origin) {
    int n = cap->graph->n;
    char *seen = calloc(n ? n : 1, 1);
    rgpu_gnode **todo = malloc((n ? n : 1) * sizeof *todo); /* each node is pushed once, when first seen */
    if (!seen || !todo) { free(seen); free(todo); return 0; }
    int top = 0;
    for (int i = 0; i < origin->n; i++)
        if (!seen[origin->v[i]->index]) { seen[origin->v[i]->index] = 1; todo[top++] = origin->v[i]; }
    while (top) {
        rgpu_gnode *m = todo[--top];
        for (int d = 0; d < m->ndeps; d++)
            if (!seen[m->deps[d]->index]) { seen[m->deps[d]->index] = 1; todo[top++] = m->deps[d]; }
    }
    free(todo);
    int ok = 1;
    for (int s = 0; s < MAX_STREAMS && ok; s++)
        if (streams[s].cap == cap)
            for (int i = 0; i < streams[s].deps.n && ok; i++) ok = seen[streams[s].deps.v[i]->index];
    free(seen);
    return ok;
}

static int end_capture_call(int face, void *stream, rgpu_graph **out) {
    if (!out) return rgpu_invalid_value(face);
    *out = NULL;
    int rc = 0;
    rgpu_graph *discard = NULL;
    LOCK();
    int i = find_stream(stream);
    capture *cap = i >= 0 ? streams[i].cap : NULL;
    if (!cap) rc = ERR_ILLEGAL_STATE;
    else if (cap->origin != stream) rc = ERR_CAPTURE_UNMATCHED;
    else if (cap->mode != MODE_RELAXED && !pthread_equal(cap->owner, pthread_self())) rc = ERR_CAPTURE_WRONG_THREAD;
    else {
        if (cap->invalid) rc = ERR_CAPTURE_INVALIDATED;
        else if (!joined(cap, &streams[i].deps)) rc = ERR_CAPTURE_UNJOINED;
        if (!rc) *out = cap->graph;
        else if (!cap->borrowed) discard = cap->graph; /* a borrowed graph stays the program's */
        cap->graph = NULL;
        end_capture(cap);
    }
    UNLOCK();
    rgpu_graph_free(discard); /* outside the lock: freeing graph memory takes it, and is a round trip */
    return rgpu_record(face, rc);
}

/* CUstreamCaptureStatus and cudaStreamCaptureStatus, CUstreamCaptureMode and cudaStreamCaptureMode: one
 * enum each under two names (same values and size); the Driver's calls pass theirs as the Runtime's. */
_Static_assert(sizeof(CUstreamCaptureStatus) == sizeof(enum cudaStreamCaptureStatus), "capture status");
_Static_assert(sizeof(CUstreamCaptureMode) == sizeof(enum cudaStreamCaptureMode), "capture mode");

static int capture_status(const void *stream, enum cudaStreamCaptureStatus *status, unsigned long long *id,
                          rgpu_graph **graph, const cudaGraphNode_t **deps, size_t *ndeps) {
    LOCK();
    if (rgpu_legacy_stream(stream) && legacy_conflict(0)) { /* asked, not used: nothing is invalidated */
        UNLOCK();
        return ERR_CAPTURE_IMPLICIT;
    }
    int i = rgpu_legacy_stream(stream) ? -1 : find_stream(stream);
    capture *cap = i >= 0 ? streams[i].cap : NULL;
    *status = !cap ? STATUS_NONE : cap->invalid ? STATUS_INVALIDATED : STATUS_ACTIVE;
    if (cap && id) *id = cap->id;
    if (graph) *graph = cap ? cap->graph : NULL;
    if (deps) *deps = cap ? (const cudaGraphNode_t *)streams[i].deps.v : NULL;
    if (ndeps) *ndeps = cap ? (size_t)streams[i].deps.n : 0;
    UNLOCK();
    return 0;
}

cudaError_t cudaStreamBeginCapture(cudaStream_t stream, enum cudaStreamCaptureMode mode) { return begin_capture(RGPU_RUNTIME, stream, mode, NULL, NULL, 0); }
CUresult cuStreamBeginCapture_v2(CUstream stream, CUstreamCaptureMode mode) { return begin_capture(RGPU_DRIVER, stream, mode, NULL, NULL, 0); }

/* Edge data other than plain edges (ports, programmatic launches) has no meaning in rgpu's graphs. */
static int plain_edges(const uint8_t *edge_data, size_t n) {
    for (size_t i = 0; edge_data && i < 8 * n; i++)
        if (edge_data[i]) return 0;
    return 1;
}

static int begin_to_graph(int face, void *stream, rgpu_graph *g, rgpu_gnode *const *deps, const void *edge_data,
                          size_t ndeps, int mode) {
    if (!g) return rgpu_invalid_value(face);
    if (!plain_edges(edge_data, ndeps)) return rgpu_unsupported(face, "cudaStreamBeginCaptureToGraph (edge data)");
    return begin_capture(face, stream, mode, g, deps, ndeps);
}
cudaError_t cudaStreamBeginCaptureToGraph(cudaStream_t stream, cudaGraph_t g, const cudaGraphNode_t *deps, const cudaGraphEdgeData *edge_data, size_t ndeps, enum cudaStreamCaptureMode mode) {
    return begin_to_graph(RGPU_RUNTIME, stream, g, deps, edge_data, ndeps, mode);
}
CUresult cuStreamBeginCaptureToGraph(CUstream stream, CUgraph g, const CUgraphNode *deps, const CUgraphEdgeData *edge_data, size_t ndeps, CUstreamCaptureMode mode) {
    return begin_to_graph(RGPU_DRIVER, stream, g, deps, edge_data, ndeps, mode);
}

/* flags: cudaStreamAddCaptureDependencies (0) adds to the set the next node depends on, ...Set (1)
 * replaces it. The nodes must be of the capture's graph. */
static int update_deps(int face, void *stream, rgpu_gnode *const *deps, const void *edge_data, size_t n,
                       unsigned flags) {
    if ((n && !deps) || flags > 1) return rgpu_invalid_value(face);
    if (!plain_edges(edge_data, n)) return rgpu_unsupported(face, "cudaStreamUpdateCaptureDependencies (edge data)");
    int rc = 0;
    LOCK();
    int s = find_stream(stream);
    if (s < 0) rc = ERR_ILLEGAL_STATE;
    else if (streams[s].cap->invalid) rc = ERR_CAPTURE_INVALIDATED;
    for (size_t i = 0; !rc && i < n; i++)
        if (!deps[i] || deps[i]->graph != streams[s].cap->graph) rc = RGPU_INVALID_VALUE;
    if (!rc && flags == 1) streams[s].deps.n = 0;
    for (size_t i = 0; !rc && i < n; i++) rc = set_add(&streams[s].deps, deps[i]);
    UNLOCK();
    return rgpu_record(face, rc);
}
cudaError_t cudaStreamUpdateCaptureDependencies(cudaStream_t stream, cudaGraphNode_t *deps, const cudaGraphEdgeData *edge_data, size_t n, unsigned int flags) {
    return update_deps(RGPU_RUNTIME, stream, deps, edge_data, n, flags);
}
CUresult cuStreamUpdateCaptureDependencies_v2(CUstream stream, CUgraphNode *deps, const CUgraphEdgeData *edge_data, size_t n, unsigned int flags) {
    return update_deps(RGPU_DRIVER, stream, deps, edge_data, n, flags);
}
cudaError_t cudaStreamEndCapture(cudaStream_t stream, cudaGraph_t *graph) { return end_capture_call(RGPU_RUNTIME, stream, graph); }
CUresult cuStreamEndCapture(CUstream stream, CUgraph *graph) { return end_capture_call(RGPU_DRIVER, stream, graph); }

cudaError_t cudaStreamIsCapturing(cudaStream_t stream, enum cudaStreamCaptureStatus *status) {
    if (!status) return rgpu_invalid_value(RGPU_RUNTIME);
    return rgpu_record(RGPU_RUNTIME, capture_status(stream, status, NULL, NULL, NULL, NULL));
}
CUresult cuStreamIsCapturing(CUstream stream, CUstreamCaptureStatus *status) {
    if (!status) return rgpu_invalid_value(RGPU_DRIVER);
    return rgpu_record(RGPU_DRIVER, capture_status(stream, (enum cudaStreamCaptureStatus *)status, NULL, NULL, NULL, NULL));
}

/* CUDA 13's signature; edge data is never used by rgpu's graphs, so it is reported as absent (NULL). */
cudaError_t cudaStreamGetCaptureInfo(cudaStream_t stream, enum cudaStreamCaptureStatus *status, unsigned long long *id, cudaGraph_t *graph, const cudaGraphNode_t **deps, const cudaGraphEdgeData **edge_data, size_t *ndeps) {
    if (!status) return rgpu_invalid_value(RGPU_RUNTIME);
    if (edge_data) *edge_data = NULL;
    return rgpu_record(RGPU_RUNTIME, capture_status(stream, status, id, graph, deps, ndeps));
}

static int exchange_mode(int face, enum cudaStreamCaptureMode *mode) {
    if (!mode || (int)*mode < MODE_GLOBAL || (int)*mode > MODE_RELAXED) return rgpu_invalid_value(face);
    int old = thread_mode;
    thread_mode = *mode;
    *mode = old;
    return 0;
}
cudaError_t cudaThreadExchangeStreamCaptureMode(enum cudaStreamCaptureMode *mode) { return exchange_mode(RGPU_RUNTIME, mode); }
CUresult cuThreadExchangeStreamCaptureMode(CUstreamCaptureMode *mode) { return exchange_mode(RGPU_DRIVER, (enum cudaStreamCaptureMode *)mode); }

/* ---- hooks of the generated stubs: events --------------------------------------------------- */

/* Recording an event on a capturing stream records no event: the event remembers where the capture
 * stands, for a stream that waits on it. With external set (cudaEventRecordExternal) it becomes a node. */
static int event_record(int face, int *rc, void *event, void *stream, int external) {
    if (!__atomic_load_n(&nstreams, __ATOMIC_SEQ_CST)) return 0;
    if (external) {
        rgpu_gnode proto = {.type = NODE_EVENT_RECORD, .u.event = event};
        return rgpu_capture_append(stream, &proto, rc) ? (*rc = rgpu_record(face, *rc), 1) : 0;
    }
    LOCK();
    if (rgpu_legacy_stream(stream) && legacy_conflict(1)) {
        UNLOCK();
        *rc = rgpu_record(face, ERR_CAPTURE_IMPLICIT);
        return 1;
    }
    int s = find_stream(stream), e = find_event(event);
    if (s < 0) {
        if (e >= 0) events[e].cap = NULL; /* recorded for real now */
        UNLOCK();
        return 0;
    }
    *rc = 0;
    if (streams[s].cap->invalid) *rc = ERR_CAPTURE_INVALIDATED;
    else {
        for (int i = 0; i < MAX_EVENTS && e < 0; i++)
            if (!events[i].cap) e = i;
        if (e < 0) *rc = RGPU_OUT_OF_MEMORY;
        else {
            events[e].event = event;
            events[e].cap = streams[s].cap;
            *rc = set_copy(&events[e].deps, &streams[s].deps);
        }
    }
    UNLOCK();
    *rc = rgpu_record(face, *rc);
    return 1;
}

/* Waiting on an event recorded in a capture forks the waiting stream into that capture, or joins
 * the event's branch into it. A capturing stream waiting on an event from outside any capture would
 * wait on work the graph cannot contain: CUDA calls that isolation, unless the wait is external. */
static int event_wait(int face, int *rc, void *stream, void *event, unsigned flags) {
    if (!__atomic_load_n(&nstreams, __ATOMIC_SEQ_CST)) return 0;
    LOCK();
    if (rgpu_legacy_stream(stream) && legacy_conflict(1)) {
        UNLOCK();
        *rc = rgpu_record(face, ERR_CAPTURE_IMPLICIT);
        return 1;
    }
    int s = find_stream(stream), e = find_event(event);
    if (s < 0 && e < 0) { UNLOCK(); return 0; }
    int blocking = 1;
    if (s < 0 && !rgpu_legacy_stream(stream)) { /* about to join: ask the stream's flags outside the lock */
        UNLOCK();
        blocking = is_blocking(stream);
        LOCK();
        s = find_stream(stream);
        e = find_event(event);
        if (s < 0 && e < 0) { UNLOCK(); return 0; }
    }
    *rc = 0;
    if (e < 0) {
        UNLOCK();
        if (flags & CU_EVENT_WAIT_EXTERNAL) {
            rgpu_gnode proto = {.type = NODE_WAIT_EVENT, .u.event = event};
            if (!rgpu_capture_append(stream, &proto, rc)) return 0;
            *rc = rgpu_record(face, *rc);
            return 1;
        }
        LOCK();
        if (s >= 0 && (s = find_stream(stream)) >= 0) streams[s].cap->invalid = 1;
        UNLOCK();
        *rc = rgpu_record(face, ERR_CAPTURE_ISOLATION);
        return 1;
    }
    capture *cap = events[e].cap;
    if (s >= 0 && streams[s].cap != cap) *rc = cudaErrorStreamCaptureMerge;
    else if (cap->invalid) *rc = ERR_CAPTURE_INVALIDATED;
    else if (s < 0 && rgpu_legacy_stream(stream)) *rc = ERR_CAPTURE_UNSUPPORTED;
    else {
        if (s < 0 && (s = add_stream(stream, cap, blocking)) < 0) *rc = RGPU_OUT_OF_MEMORY;
        for (int i = 0; !*rc && i < events[e].deps.n; i++) *rc = set_add(&streams[s].deps, events[e].deps.v[i]);
    }
    UNLOCK();
    *rc = rgpu_record(face, *rc);
    return 1;
}

int rgpu_capture_cudaEventRecord(int *rc, cudaEvent_t event, cudaStream_t stream) {
    return event_record(RGPU_RUNTIME, rc, event, stream, 0);
}
int rgpu_capture_cudaEventRecordWithFlags(int *rc, cudaEvent_t event, cudaStream_t stream, unsigned int flags) {
    return event_record(RGPU_RUNTIME, rc, event, stream, flags & 1);
}
int rgpu_capture_cuEventRecord(int *rc, CUevent event, CUstream stream) {
    return event_record(RGPU_DRIVER, rc, event, stream, 0);
}
int rgpu_capture_cuEventRecordWithFlags(int *rc, CUevent event, CUstream stream, unsigned int flags) {
    return event_record(RGPU_DRIVER, rc, event, stream, flags & 1);
}
int rgpu_capture_cudaStreamWaitEvent(int *rc, cudaStream_t stream, cudaEvent_t event, unsigned int flags) {
    return event_wait(RGPU_RUNTIME, rc, stream, event, flags);
}
int rgpu_capture_cuStreamWaitEvent(int *rc, CUstream stream, CUevent event, unsigned int flags) {
    return event_wait(RGPU_DRIVER, rc, stream, event, flags);
}

/* An event recorded in a capture stands for a place in a graph, not for work: querying or waiting on it
 * from the host is refused (cudaErrorStreamCaptureUnsupported) and invalidates its capture. */
static int captured_event(int face, int *rc, const void *event) {
    if (!__atomic_load_n(&nstreams, __ATOMIC_SEQ_CST)) return 0;
    LOCK();
    int e = find_event(event);
    if (e >= 0) events[e].cap->invalid = 1;
    UNLOCK();
    if (e < 0) return 0;
    *rc = rgpu_record(face, ERR_CAPTURE_UNSUPPORTED);
    return 1;
}
int rgpu_capture_cudaEventQuery(int *rc, cudaEvent_t event) { return captured_event(RGPU_RUNTIME, rc, event); }
int rgpu_capture_cudaEventSynchronize(int *rc, cudaEvent_t event) { return captured_event(RGPU_RUNTIME, rc, event); }
int rgpu_capture_cuEventQuery(int *rc, CUevent event) { return captured_event(RGPU_DRIVER, rc, event); }
int rgpu_capture_cuEventSynchronize(int *rc, CUevent event) { return captured_event(RGPU_DRIVER, rc, event); }
