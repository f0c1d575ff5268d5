/* Process-wide client state: configuration from the environment, the device list, the current
 * device and last error of each thread, and handle tagging (which device a handle belongs to). */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rgpu_call.h"
#include "session.h"
#include "stats.h"

static pthread_once_t once = PTHREAD_ONCE_INIT;
static int ndevices; /* the sessions the transport holds (transport/session.c), one per device */
static __thread int cur_dev;
static __thread int last_error[2];

/* Set in a child forked after this process opened a session. The child has copies of the parent's
 * sockets and session state but not the ZeroMQ threads behind them, and the server's session is the
 * parent's: a call from the child would interleave with the parent's on its session, and a goodbye at
 * the child's exit would end it. So, as the driver does in such a child, every call that needs the
 * device answers CUDA_ERROR_NOT_INITIALIZED (numba reads it as "CUDA initialized before forking"),
 * and the child's exit leaves the parent's sessions, segments and lease alone. Host-only work (a
 * host-to-host copy) still runs. */
static int forked_after_use;

static void forked_child(void) {
    for (int i = 0; i < ndevices; i++)
        if (rgpu_session_at(i)->state == 1) forked_after_use = 1;
}

static void init_once(void) {
    pthread_atfork(NULL, NULL, forked_child);
    const char *servers = getenv("RGPU_SERVER");
    static char leased[4096];
    if ((!servers || !*servers) && rgpu_env_lease(leased, sizeof leased) == 0) servers = leased;
    if (!servers || !*servers) {
        rgpu_log(RGPU_LOG_WARN, "no device: RGPU_SERVER is not set (use `rgpu run` or `rgpu env`, or set "
                 "RGPU_CONTROLLER and RGPU_MEM for a lease of this program's own)");
        return;
    }
    char *copy = strdup(servers), *save = NULL;
    for (char *tok = strtok_r(copy, ",", &save); tok && ndevices < RGPU_MAX_DEVICES; tok = strtok_r(NULL, ",", &save)) {
        while (*tok == ' ') tok++;
        if (!*tok) continue;
        char *hash = strchr(tok, '#');
        int gpu = hash ? atoi(hash + 1) : 0;
        if (hash) *hash = 0;
        rgpu_session *s = rgpu_session_add(tok, gpu);
        if (!s) break;
        ndevices++;
        rgpu_log(RGPU_LOG_INFO, "device %d is %s gpu %d", ndevices - 1, s->url, s->gpu);
    }
    free(copy);
}

int rgpu_ensure_init(void) {
    pthread_once(&once, init_once);
    if (forked_after_use) {
        static int told;
        if (!__atomic_exchange_n(&told, 1, __ATOMIC_RELAXED))
            rgpu_log(RGPU_LOG_WARN, "this process was forked after its parent opened a session: CUDA calls here "
                     "fail with CUDA_ERROR_NOT_INITIALIZED, as on a GPU (start children with spawn, or fork "
                     "before using CUDA)");
        return RGPU_NOT_INITIALIZED;
    }
    return ndevices > 0 ? RGPU_SUCCESS : RGPU_NO_DEVICE;
}

int rgpu_device_count(void) { rgpu_ensure_init(); return ndevices; }
int rgpu_current_device(void) { return cur_dev; }
void rgpu_set_current_device(int dev) { cur_dev = dev; }

rgpu_session *rgpu_session_get(int dev) {
    rgpu_ensure_init();
    return rgpu_session_at(dev);
}

void rgpu_set_last_error(int face, int rc) { last_error[face] = rc; }
int rgpu_get_last_error(int face, int reset) {
    int rc = last_error[face];
    if (reset) last_error[face] = 0;
    return rc;
}

int rgpu_record(int face, int rc) {
    if (rc != RGPU_SUCCESS) last_error[face] = rc;
    return rc;
}

/* Handles are the server's values with the device index + 1 in bits 56..62, so a handle
 * names its session; small values (NULL, cudaStreamLegacy, cudaStreamPerThread) stay as they are. */
void *rgpu_tag_handle(int dev, uint64_t h) {
    return h < 0x100 ? (void *)(uintptr_t)h : (void *)(uintptr_t)(h | ((uint64_t)(dev + 1) << 56));
}

uint64_t rgpu_untag_handle(const void *h, int *dev) {
    uint64_t v = (uint64_t)(uintptr_t)h;
    int tag = (int)((v >> 56) & 0x7f);
    if (tag && dev) *dev = tag - 1;
    return v & 0x00ffffffffffffffull;
}

int rgpu_handle_device(const void *h) {
    int dev = rgpu_current_device();
    rgpu_untag_handle(h, &dev);
    return dev;
}

__attribute__((destructor)) static void rgpu_fini(void) {
    if (forked_after_use) { /* the sessions, segments and lease are the parent's (forked_child) */
        rgpu_stats_print();
        return;
    }
    rgpu_sessions_close();
    rgpu_pinned_close(); /* after the goodbyes: the workers have what they mapped */
    rgpu_env_lease_release(); /* after the sessions' goodbyes: a lease of this program's own */
    rgpu_stats_print();       /* RGPU_STATS=1: what the program waited for */
}
