/* What the program waited for: every blocking round trip (a sync call sent and its reply waited for)
 * counted by the call's name, every asynchronous call and every message sent without a wait, per
 * process and per session. Across a network each round trip costs the network's round trip, so
 * these counts, not the calls, decide a program's speed there (issue 37).
 *
 * Counting is always on and costs an atomic add or two per call: a table indexed by the call's id
 * (a CRC, so its low bits spread well), probed linearly, entries claimed once with a compare-and-swap.
 * RGPU_STATS=1 prints the counts at exit on stderr, and also says where each round trip came from:
 * the first library outside librgpu that called (and, when that is NVIDIA's runtime, the one that
 * called the runtime), found by walking the stack, which costs microseconds and is done only then.
 * rgpu_stats_text gives the same lines to the program (the workloads of tests/e2e/torch_workloads.py
 * read them before and after their steps); the goodbye carries a session's totals to its worker,
 * whose session_ended log line shows them. */
#define _GNU_SOURCE /* dladdr */
#include <dlfcn.h>
#include <execinfo.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rgpu_call.h"
#include "session.h"
#include "stats.h"

#define SLOTS 1024 /* a power of two, well above the calls one program makes (CUDA 13 has ~600) */
#define FROM_MAX 4 /* callers kept per call */

typedef struct {
    const char *lib, *via; /* the library that called and, when lib is the runtime, who called it */
    uint64_t n;
} caller;

typedef struct {
    uint64_t key;          /* the call's id << 1 | 1; 0: free (ids are CRCs, and 0..4 the transport's own) */
    const char *name;
    uint64_t waits, asyncs;
    caller from[FROM_MAX]; /* under from_mu */
} entry;

static entry table[SLOTS];
static uint64_t sess[RGPU_MAX_DEVICES][4]; /* round trips, async calls, async messages, of those on the ring */
static pthread_mutex_t from_mu = PTHREAD_MUTEX_INITIALIZER;

static int enabled(void) {
    static int on = -1;
    if (on < 0) {
        const char *e = getenv("RGPU_STATS");
        on = e && *e && strcmp(e, "0") != 0;
    }
    return on;
}

static entry *slot(uint32_t id, const char *name) {
    uint64_t key = (uint64_t)id << 1 | 1;
    for (uint32_t i = id & (SLOTS - 1), k = 0; k < SLOTS; i = (i + 1) & (SLOTS - 1), k++) {
        entry *e = &table[i];
        uint64_t have = __atomic_load_n(&e->key, __ATOMIC_ACQUIRE);
        if (have == key) return e;
        if (have == 0) {
            uint64_t expect = 0;
            if (__atomic_compare_exchange_n(&e->key, &expect, key, 0, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE)) {
                __atomic_store_n(&e->name, name, __ATOMIC_RELEASE); /* the winner's: read only at exit */
                return e;
            }
            if (expect == key) return e;
        }
    }
    return NULL;
}

static const char *base_name(const char *path) {
    const char *slash = path ? strrchr(path, '/') : NULL;
    return slash ? slash + 1 : path ? path : "?";
}

/* The library that called into librgpu (and who called it, when it is NVIDIA's runtime). */
static void who_called(const char **lib, const char **via) {
    void *frames[48];
    int n = backtrace(frames, 48);
    Dl_info self, info;
    *lib = *via = NULL;
    if (!dladdr((void *)who_called, &self)) return;
    for (int i = 1; i < n; i++) {
        if (!dladdr(frames[i], &info) || info.dli_fbase == self.dli_fbase) continue;
        const char *name = base_name(info.dli_fname);
        if (!*lib) {
            *lib = name;
            if (strncmp(name, "libcudart", 9) != 0) return;
        } else if (name != *lib && strcmp(name, *lib) != 0) {
            *via = name;
            return;
        }
    }
}

static void note_caller(entry *e) {
    const char *lib, *via;
    who_called(&lib, &via);
    if (!lib) return;
    pthread_mutex_lock(&from_mu);
    for (int i = 0; i < FROM_MAX; i++) {
        caller *c = &e->from[i];
        if (!c->lib) c->lib = lib, c->via = via;
        if (c->lib == lib && c->via == via) {
            c->n++;
            break;
        }
    }
    pthread_mutex_unlock(&from_mu);
}

void rgpu_stats_wait(int dev, uint32_t id, const char *name) {
    entry *e = slot(id, name);
    if (e) __atomic_add_fetch(&e->waits, 1, __ATOMIC_RELAXED);
    if (dev >= 0 && dev < RGPU_MAX_DEVICES) __atomic_add_fetch(&sess[dev][0], 1, __ATOMIC_RELAXED);
    if (e && enabled()) note_caller(e);
}

void rgpu_stats_async(int dev, uint32_t id, const char *name) {
    entry *e = slot(id, name);
    if (e) __atomic_add_fetch(&e->asyncs, 1, __ATOMIC_RELAXED);
    if (dev >= 0 && dev < RGPU_MAX_DEVICES) __atomic_add_fetch(&sess[dev][1], 1, __ATOMIC_RELAXED);
}

void rgpu_stats_message(int dev, int on_ring) {
    if (dev < 0 || dev >= RGPU_MAX_DEVICES) return;
    __atomic_add_fetch(&sess[dev][2], 1, __ATOMIC_RELAXED);
    if (on_ring) __atomic_add_fetch(&sess[dev][3], 1, __ATOMIC_RELAXED);
}

void rgpu_stats_session(int dev, uint64_t out[3]) {
    for (int i = 0; i < 3; i++)
        out[i] = dev >= 0 && dev < RGPU_MAX_DEVICES ? __atomic_load_n(&sess[dev][i], __ATOMIC_RELAXED) : 0;
}

/* Appends to buf as snprintf does: returns the length the whole text needs. */
__attribute__((format(printf, 4, 5))) static size_t put(char *buf, size_t cap, size_t at, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(at < cap ? buf + at : NULL, at < cap ? cap - at : 0, fmt, ap);
    va_end(ap);
    return at + (n > 0 ? (size_t)n : 0);
}

/* The counts as lines: "total round_trips=N async_calls=N async_messages=N async_on_ring=N", then one
 * line per call
 * "call NAME round_trips=N async=N[ from=LIB[<VIA]:N,...]", most round trips first. Exported (the
 * version script's rgpu_stats_text): a program, or a test's workload, reads them through ctypes. */
size_t rgpu_stats_text(char *buf, size_t cap) {
    uint64_t tot[4] = {0, 0, 0, 0};
    for (int d = 0; d < RGPU_MAX_DEVICES; d++)
        for (int i = 0; i < 4; i++) tot[i] += __atomic_load_n(&sess[d][i], __ATOMIC_RELAXED);
    if (cap) buf[0] = 0;
    size_t at = put(buf, cap, 0, "total round_trips=%llu async_calls=%llu async_messages=%llu async_on_ring=%llu\n",
                    (unsigned long long)tot[0], (unsigned long long)tot[1], (unsigned long long)tot[2],
                    (unsigned long long)tot[3]);
    static entry *order[SLOTS];
    int n = 0;
    for (int i = 0; i < SLOTS; i++)
        if (__atomic_load_n(&table[i].key, __ATOMIC_ACQUIRE)) order[n++] = &table[i];
    for (int i = 1; i < n; i++) /* insertion sort, most round trips first: at exit, a few hundred at most */
        for (int j = i; j > 0 && order[j]->waits > order[j - 1]->waits; j--) {
            entry *t = order[j];
            order[j] = order[j - 1], order[j - 1] = t;
        }
    pthread_mutex_lock(&from_mu);
    for (int i = 0; i < n; i++) {
        entry *e = order[i];
        at = put(buf, cap, at, "call %s round_trips=%llu async=%llu", e->name ? e->name : "?", (unsigned long long)e->waits,
                 (unsigned long long)e->asyncs);
        for (int k = 0; k < FROM_MAX && e->from[k].lib; k++)
            at = put(buf, cap, at, "%s%s%s%s:%llu", k ? "," : " from=", e->from[k].lib, e->from[k].via ? "<" : "",
                     e->from[k].via ? e->from[k].via : "", (unsigned long long)e->from[k].n);
        at = put(buf, cap, at, "\n");
    }
    pthread_mutex_unlock(&from_mu);
    return at;
}

void rgpu_stats_print(void) {
    if (!enabled()) return;
    size_t need = rgpu_stats_text(NULL, 0) + 1;
    char *text = malloc(need);
    if (!text) return;
    rgpu_stats_text(text, need);
    for (char *line = text, *end; *line; line = end + 1) {
        end = strchr(line, '\n');
        if (!end) break;
        fprintf(stderr, "rgpu stats: %.*s\n", (int)(end - line), line);
    }
    free(text);
}
