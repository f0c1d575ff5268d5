/* Device time of a session's kernels on a real GPU, without an event pair per kernel: the cuda
 * backend's kernel clock (server/backends/cuda/timing.py manages it; that file's doc says what it
 * counts and why). Compiled because it runs at every launch and every synchronize of the hot path,
 * where its Python form cost about as much as the rest of the worker's step together.
 *
 * A window is a timing event recorded on a stream before the first kernel of a run of launches; the
 * session's settle closes every open window with an end event, as one group; a group whose ends the
 * GPU has reached is counted as the union of its windows on the GPU's timeline, cut at the end of
 * what was counted before (the cursor). The events are the clock's own, made on demand and reused.
 * One mutex guards everything: the worker's watch thread asks for the running time meanwhile. */
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "clock.h"

typedef CUresult (*event_create_fn)(CUevent *, unsigned);
typedef CUresult (*event_record_fn)(CUevent, CUstream);
typedef CUresult (*event_query_fn)(CUevent);
typedef CUresult (*event_elapsed_fn)(float *, CUevent, CUevent);
typedef CUresult (*event_destroy_fn)(CUevent);

typedef struct {
    void *stream;
    void *start, *end;
    uint64_t group;
    double seen; /* when the GPU was first seen past its start (rgpu_clock_running); 0: not yet */
} window;

typedef struct {
    window *w;
    size_t head, n, cap; /* the live entries are w[head .. head+n) */
} windows;

struct rgpu_clock {
    event_create_fn create;
    event_record_fn record;
    event_query_fn query;
    event_elapsed_fn elapsed;
    event_destroy_fn destroy;
    pthread_mutex_t lock;
    windows open;     /* open windows, one per stream (head stays 0) */
    windows closed;   /* closed windows, their groups in the order they closed */
    uint64_t groups;  /* groups closed so far: the next one's number */
    void **spare;     /* events no window uses */
    size_t nspare, spare_cap;
    void *cursor;     /* the end event of the latest time counted, or NULL */
    double done;      /* seconds counted */
    uint64_t opened;  /* windows opened (tests, logs) */
};

static int push(windows *ws, window w) {
    if (ws->head + ws->n == ws->cap) {
        if (ws->head > 0) { /* room at the front: move down instead of growing */
            memmove(ws->w, ws->w + ws->head, ws->n * sizeof(window));
            ws->head = 0;
        } else {
            size_t cap = ws->cap ? 2 * ws->cap : 16;
            window *p = realloc(ws->w, cap * sizeof(window));
            if (!p) return -1;
            ws->w = p, ws->cap = cap;
        }
    }
    ws->w[ws->head + ws->n++] = w;
    return 0;
}

static int give_back(rgpu_clock *c, void *event) {
    if (c->nspare == c->spare_cap) {
        size_t cap = c->spare_cap ? 2 * c->spare_cap : 16;
        void **p = realloc(c->spare, cap * sizeof(void *));
        if (!p) return -1;
        c->spare = p, c->spare_cap = cap;
    }
    c->spare[c->nspare++] = event;
    return 0;
}

static CUresult take(rgpu_clock *c, void **event) {
    if (c->nspare) {
        *event = c->spare[--c->nspare];
        return CUDA_SUCCESS;
    }
    if (!c->create) return CUDA_ERROR_NOT_SUPPORTED;
    CUevent e;
    CUresult rc = c->create(&e, 0); /* timing enabled */
    *event = e;
    return rc;
}

rgpu_clock *rgpu_clock_new(void *create, void *record, void *query, void *elapsed, void *destroy) {
    rgpu_clock *c = calloc(1, sizeof *c);
    if (!c) return NULL;
    c->create = (event_create_fn)create;
    c->record = (event_record_fn)record;
    c->query = (event_query_fn)query;
    c->elapsed = (event_elapsed_fn)elapsed;
    c->destroy = (event_destroy_fn)destroy;
    pthread_mutex_init(&c->lock, NULL);
    return c;
}

static window *open_of(rgpu_clock *c, void *stream) {
    for (size_t i = 0; i < c->open.n; i++)
        if (c->open.w[i].stream == stream) return &c->open.w[i];
    return NULL;
}

/* Opens `stream`'s window unless it is open (lock held). */
static CUresult open_locked(rgpu_clock *c, void *stream) {
    if (open_of(c, stream)) return CUDA_SUCCESS;
    if (!c->record) return CUDA_ERROR_NOT_SUPPORTED;
    void *start;
    CUresult rc = take(c, &start);
    if (rc != CUDA_SUCCESS) return rc;
    rc = c->record((CUevent)start, (CUstream)stream);
    if (rc == CUDA_SUCCESS && push(&c->open, (window){stream, start, NULL, 0, 0.0}) != 0)
        rc = CUDA_ERROR_OUT_OF_MEMORY;
    if (rc != CUDA_SUCCESS) {
        give_back(c, start);
        return rc;
    }
    c->opened++;
    return CUDA_SUCCESS;
}

CUresult rgpu_clock_open(rgpu_clock *c, void *stream) {
    pthread_mutex_lock(&c->lock);
    CUresult rc = open_locked(c, stream);
    pthread_mutex_unlock(&c->lock);
    return rc;
}

/* Ends every open window at this point of its stream, as one group. On an error every window stays
 * open (nothing was closed) and its end events go back. */
CUresult rgpu_clock_close(rgpu_clock *c) {
    pthread_mutex_lock(&c->lock);
    CUresult rc = CUDA_SUCCESS;
    size_t i = 0;
    for (; i < c->open.n; i++) {
        void *end;
        if ((rc = take(c, &end)) != CUDA_SUCCESS) break;
        if ((rc = c->record((CUevent)end, (CUstream)c->open.w[i].stream)) != CUDA_SUCCESS) {
            give_back(c, end);
            break;
        }
        c->open.w[i].end = end;
    }
    if (rc == CUDA_SUCCESS && c->open.n) {
        uint64_t g = c->groups++;
        for (size_t k = 0; k < c->open.n; k++) {
            window w = c->open.w[k];
            w.group = g;
            if (push(&c->closed, w) != 0) { /* out of memory: its time is lost, its events are not */
                give_back(c, w.start), give_back(c, w.end);
            }
        }
        c->open.n = 0;
    } else {
        for (size_t k = 0; k < i; k++) {
            give_back(c, c->open.w[k].end);
            c->open.w[k].end = NULL;
        }
    }
    pthread_mutex_unlock(&c->lock);
    return rc;
}

static CUresult ms_between(rgpu_clock *c, void *a, void *b, double *ms) {
    float v = 0;
    CUresult rc = c->elapsed(&v, (CUevent)a, (CUevent)b);
    *ms = v;
    return rc;
}

typedef struct {
    double a, b;
    void *end;
} span;

static int by_start(const void *x, const void *y) {
    const span *p = x, *q = y;
    if (p->a != q->a) return p->a < q->a ? -1 : 1;
    return p->b < q->b ? -1 : p->b > q->b;
}

/* Counts the group at the front of `closed` (its ends all reached); -1 with *rc set if the driver
 * refused an elapsed time (the group stays, to be counted at a later call). */
static int count_group(rgpu_clock *c, size_t n, CUresult *rc) {
    window *g = &c->closed.w[c->closed.head];
    span one, *spans = n == 1 ? &one : malloc(n * sizeof(span));
    if (!spans) {
        *rc = CUDA_ERROR_OUT_OF_MEMORY;
        return -1;
    }
    void *ref = g[0].start; /* placed relative to the first start: one driver call fewer */
    double floor = -1e300;
    *rc = CUDA_SUCCESS;
    for (size_t k = 0; k < n && *rc == CUDA_SUCCESS; k++) {
        spans[k].a = 0.0;
        if (k) *rc = ms_between(c, ref, g[k].start, &spans[k].a);
        if (*rc == CUDA_SUCCESS) *rc = ms_between(c, ref, g[k].end, &spans[k].b);
        spans[k].end = g[k].end;
    }
    if (*rc == CUDA_SUCCESS && c->cursor) *rc = ms_between(c, ref, c->cursor, &floor);
    if (*rc != CUDA_SUCCESS) {
        if (spans != &one) free(spans);
        return -1;
    }
    if (n > 1) qsort(spans, n, sizeof(span), by_start);
    void *last = NULL;
    for (size_t k = 0; k < n; k++) {
        if (spans[k].b > floor) {
            c->done += (spans[k].b - (spans[k].a > floor ? spans[k].a : floor)) / 1000.0;
            floor = spans[k].b, last = spans[k].end;
        }
    }
    if (spans != &one) free(spans);
    for (size_t k = 0; k < n; k++) {
        give_back(c, g[k].start);
        if (g[k].end != last) give_back(c, g[k].end);
    }
    if (last) {
        if (c->cursor) give_back(c, c->cursor);
        c->cursor = last;
    }
    c->closed.head += n, c->closed.n -= n;
    if (!c->closed.n) c->closed.head = 0;
    return 0;
}

/* Seconds counted: the union of the windows of every group the GPU has finished. */
CUresult rgpu_clock_completed(rgpu_clock *c, double *done) {
    pthread_mutex_lock(&c->lock);
    CUresult rc = CUDA_SUCCESS;
    while (c->closed.n) {
        window *w = &c->closed.w[c->closed.head];
        size_t n = 1;
        while (n < c->closed.n && w[n].group == w[0].group) n++;
        int reached = 1;
        for (size_t k = 0; k < n && reached; k++) reached = c->query((CUevent)w[k].end) == CUDA_SUCCESS;
        if (!reached || count_group(c, n, &rc) != 0) break;
    }
    *done = c->done;
    pthread_mutex_unlock(&c->lock);
    return rc;
}

CUresult rgpu_clock_settle(rgpu_clock *c, double *done) {
    CUresult rc = rgpu_clock_close(c);
    if (rc != CUDA_SUCCESS) {
        pthread_mutex_lock(&c->lock);
        *done = c->done;
        pthread_mutex_unlock(&c->lock);
        return rc;
    }
    return rgpu_clock_completed(c, done);
}

/* Seconds since the earliest window not counted yet was first seen started, at `now` (the kernels
 * running now, as far as polling at every call can tell); 0 when none is. */
double rgpu_clock_running(rgpu_clock *c, double now) {
    pthread_mutex_lock(&c->lock);
    double earliest = 0.0;
    int any = 0;
    for (int pass = 0; pass < 2; pass++) {
        windows *ws = pass ? &c->open : &c->closed;
        for (size_t k = 0; k < ws->n; k++) {
            window *w = &ws->w[ws->head + k];
            if (!pass && c->query((CUevent)w->end) != CUDA_ERROR_NOT_READY) continue; /* over */
            if (w->seen == 0.0 && c->query((CUevent)w->start) == CUDA_SUCCESS) w->seen = now;
            if (w->seen != 0.0 && (!any || w->seen < earliest)) earliest = w->seen, any = 1;
        }
    }
    pthread_mutex_unlock(&c->lock);
    return any ? now - earliest : 0.0;
}

uint64_t rgpu_clock_windows(rgpu_clock *c) {
    pthread_mutex_lock(&c->lock);
    uint64_t n = c->opened;
    pthread_mutex_unlock(&c->lock);
    return n;
}

/* Destroys every event the clock holds (the context is going); the clock counts on from nothing open. */
void rgpu_clock_destroy(rgpu_clock *c) {
    pthread_mutex_lock(&c->lock);
    if (!c->destroy) { /* a stand-in driver that makes no events: it cannot have lent any */
        pthread_mutex_unlock(&c->lock);
        return;
    }
    for (size_t k = 0; k < c->open.n; k++) c->destroy((CUevent)c->open.w[k].start);
    for (size_t k = 0; k < c->closed.n; k++) {
        window *w = &c->closed.w[c->closed.head + k];
        c->destroy((CUevent)w->start), c->destroy((CUevent)w->end);
    }
    for (size_t k = 0; k < c->nspare; k++) c->destroy((CUevent)c->spare[k]);
    if (c->cursor) c->destroy((CUevent)c->cursor);
    c->open.n = 0, c->closed.n = 0, c->closed.head = 0, c->nspare = 0, c->cursor = NULL;
    pthread_mutex_unlock(&c->lock);
}

void rgpu_clock_free(rgpu_clock *c) {
    if (!c) return;
    pthread_mutex_destroy(&c->lock);
    free(c->open.w);
    free(c->closed.w);
    free(c->spare);
    free(c);
}
