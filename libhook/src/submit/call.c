/* The call API the generated stubs use: one put/out routine per wire kind, routing by device
 * ordinal or handle, sync and async sends, and the not-supported answer. The hooks of the floors
 * above (managed memory's coherence) run around a call by its record's flags, registered here
 * (rgpu_call_hooks_add): this file calls none of them by name. */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <zmq.h>

#include "registry.h"
#include "rgpu_call.h"
#include "session.h"

void rgpu_begin(rgpu_call *c, uint32_t id, const char *name, int face, unsigned flags) {
    c->id = id;
    c->name = name;
    c->face = face;
    c->flags = flags;
    c->dev = rgpu_current_device();
    if (face == RGPU_RUNTIME) rgpu_bind_runtime_context(c->dev, 0); /* a thread-local look when one is current */
    c->err = 0;
    c->nargs = 0;
    c->device_reads = 0;
    c->nbulk = 0;
    c->reply = NULL;
    c->nout_bulk = 0;
    c->nouts = 0;
    c->shm = 0;
    c->shm_dst = NULL;
    c->shm_cap = c->shm_got = 0;
    c->pin = NULL;
    c->pin_used = 0;
    c->piece = NULL;
    c->then = NULL;
    c->nthen = 0;
    c->then_rc = -1;
    c->pull_ahead = 0;
    c->late_dst = NULL;
    c->late_len = 0;
    /* args start in the inline buffer; mp_raw moves them to the heap only if they outgrow it */
    mp_init_inline(&c->args, c->args_inline, sizeof c->args_inline);
    rgpu_log(RGPU_LOG_DEBUG, "call %s", name);
}

void rgpu_put_i(rgpu_call *c, int64_t v) { mp_int(&c->args, v); c->nargs++; }
void rgpu_put_u(rgpu_call *c, uint64_t v) { mp_uint(&c->args, v); c->nargs++; }
void rgpu_put_f(rgpu_call *c, double v) { mp_double(&c->args, v); c->nargs++; }
void rgpu_put_s(rgpu_call *c, const char *s) { mp_str(&c->args, s); c->nargs++; }
void rgpu_put_nil(rgpu_call *c) { mp_nil(&c->args); c->nargs++; }

void rgpu_put_b(rgpu_call *c, const void *p, size_t n) {
    if (p) mp_bin(&c->args, p, n);
    else mp_nil(&c->args);
    c->nargs++;
}

void rgpu_put_h(rgpu_call *c, const void *h) {
    int dev = -1;
    uint64_t v = rgpu_untag_handle(h, &dev);
    rgpu_kernel *k = dev < 0 && v >= 0x100 ? rgpu_find_kernel(h) : NULL;
    if (k) {
        /* a library's CUkernel where a CUfunction is expected (NVIDIA's runtime asks the occupancy
         * calls with one, as CUDA allows): its function on the call's device */
        void *fn = NULL;
        if (rgpu_kernel_on(c->face, k, c->dev, &fn)) c->err = RGPU_INVALID_HANDLE;
        v = rgpu_untag_handle(fn, &dev);
    }
    /* A handle belongs to the device that made it: the call goes to that session. */
    if (dev >= 0) c->dev = dev;
    mp_uint(&c->args, v);
    c->nargs++;
}

void rgpu_put_ha(rgpu_call *c, void *const *h, size_t n) {
    mp_array(&c->args, (uint32_t)n);
    for (size_t i = 0; i < n; i++) {
        int dev = -1;
        uint64_t v = rgpu_untag_handle(h[i], &dev);
        if (i == 0 && dev >= 0) c->dev = dev;
        mp_uint(&c->args, v);
    }
    c->nargs++;
}

void rgpu_put_d(rgpu_call *c, int dev) {
    if (dev < 0 || dev >= rgpu_device_count()) c->err = RGPU_INVALID_DEVICE;
    else c->dev = dev;
    /* The session is bound to one GPU of its server; the server sees ordinal 0. */
    mp_int(&c->args, 0);
    c->nargs++;
}

void rgpu_put_bulk(rgpu_call *c, const void *p, size_t n) {
    if (c->nbulk >= RGPU_MAX_BULK) { c->err = RGPU_INVALID_VALUE; return; }
    c->bulk[c->nbulk] = p;
    c->bulk_len[c->nbulk++] = n;
}

/* A call its record says this device's backend does not serve (RGPU_F_NOT_SIM / _NOT_CUDA) is answered
 * here, without a round trip; the session says which backend it has once it is open. */
static int served(rgpu_call *c, rgpu_session *s) {
    unsigned not_on = c->flags & (RGPU_F_NOT_SIM | RGPU_F_NOT_CUDA);
    if (!not_on) return 1;
    int backend = rgpu_session_backend(s, c->dev);
    return !((backend == RGPU_BACKEND_SIM && (not_on & RGPU_F_NOT_SIM)) ||
             (backend == RGPU_BACKEND_CUDA && (not_on & RGPU_F_NOT_CUDA)));
}

static int precheck(rgpu_call *c, rgpu_session **s) {
    int rc = rgpu_ensure_init();
    if (rc) return rc;
    if (c->err) return c->err;
    *s = rgpu_session_get(c->dev);
    if (!*s) return RGPU_INVALID_DEVICE;
    if (!served(c, *s)) return -1;
    return RGPU_SUCCESS;
}

/* Whether `name` is refused for the first time: a refusal is logged once per name, so that a program
 * polling a call that is not served does not flood stderr. */
static int first_refusal(const char *name) {
    static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
    static const char *seen[64];
    static int nseen;
    int known = 0;
    pthread_mutex_lock(&mu);
    for (int i = 0; i < nseen; i++) known |= seen[i] == name;
    if (!known && nseen < 64) seen[nseen++] = name;
    pthread_mutex_unlock(&mu);
    return !known;
}

/* A call this device's backend does not serve, by its record: said with which backend. */
static int not_served(rgpu_call *c, rgpu_session *s) {
    if (first_refusal(c->name))
        rgpu_log(RGPU_LOG_WARN, "%s is not served by %s (its record in protocol/contract/calls says why)", c->name,
                 rgpu_session_backend(s, c->dev) == RGPU_BACKEND_SIM ? "the software GPU" : "the cuda backend");
    return rgpu_record(c->face, RGPU_NOT_SUPPORTED);
}

/* The hooks registered by the floors above, run in order before a call and in reverse after it. */
#define HOOKS_MAX 4
static const rgpu_call_hooks *hooks[HOOKS_MAX];
static int nhooks;

void rgpu_call_hooks_add(const rgpu_call_hooks *h) {
    if (nhooks < HOOKS_MAX) hooks[nhooks++] = h;
    else rgpu_log(RGPU_LOG_ERROR, "more than %d call hooks: one is left out", HOOKS_MAX);
}

static int wants(const rgpu_call_hooks *h, const rgpu_call *c) {
    return (!h->live || __atomic_load_n(h->live, __ATOMIC_ACQUIRE)) && (!h->flags || (c->flags & h->flags));
}

static int hooks_before(rgpu_call *c, int waits) {
    int rc = RGPU_SUCCESS;
    for (int i = 0; i < nhooks && rc == RGPU_SUCCESS; i++)
        if (wants(hooks[i], c)) {
            c->hooks_ran |= 1u << i;
            if (hooks[i]->before) rc = hooks[i]->before(c, waits);
        }
    return rc;
}

/* Only the hooks whose before ran: one made live during the call (the program's first managed
 * allocation, on another thread) has nothing of this call's to finish, and one whose before took a lock
 * for its after is never skipped. */
static void hooks_after(rgpu_call *c, int rc) {
    for (int i = nhooks - 1; i >= 0; i--)
        if (hooks[i]->after && (c->hooks_ran & (1u << i))) hooks[i]->after(c, rc);
}

int rgpu_sync(rgpu_call *c) {
    rgpu_session *s = NULL;
    c->hooks_ran = 0;
    int rc = precheck(c, &s);
    if (rc == -1) {
        if (c->args.buf) mp_free(&c->args);
        return not_served(c, s);
    }
    if (rc == RGPU_SUCCESS) rc = hooks_before(c, 1);
    if (rc == RGPU_SUCCESS) rc = rgpu_session_sync(s, c);
    if (c->args.buf) mp_free(&c->args);
    if (s) hooks_after(c, rc);
    return rgpu_record(c->face, rc);
}

int rgpu_async(rgpu_call *c) {
    rgpu_session *s = NULL;
    c->hooks_ran = 0;
    int rc = precheck(c, &s);
    if (rc == -1) {
        mp_free(&c->args);
        return not_served(c, s);
    }
    if (rc == RGPU_SUCCESS) rc = hooks_before(c, 0);
    if (rc == RGPU_SUCCESS) rc = rgpu_session_async(s, c);
    mp_free(&c->args);
    return rgpu_record(c->face, rc);
}

void rgpu_end(rgpu_call *c) {
    if (c->reply) {
        zmq_msg_close(c->reply);
        free(c->reply);
        c->reply = NULL;
    }
    for (int i = 0; i < c->nout_bulk; i++) {
        zmq_msg_close(c->out_bulk[i]);
        free(c->out_bulk[i]);
    }
    c->nout_bulk = 0;
}

static int next_out(rgpu_call *c, mp_obj *o) {
    if (c->nouts == 0 || mp_next(&c->outs, o)) { o->type = MP_NIL; return -1; }
    c->nouts--;
    return 0;
}

int64_t rgpu_out_i(rgpu_call *c) { mp_obj o; next_out(c, &o); return mp_as_int(&o); }
uint64_t rgpu_out_u(rgpu_call *c) { mp_obj o; next_out(c, &o); return mp_as_uint(&o); }
double rgpu_out_f(rgpu_call *c) { mp_obj o; next_out(c, &o); return mp_as_double(&o); }
void *rgpu_out_h(rgpu_call *c) { mp_obj o; next_out(c, &o); return rgpu_tag_handle(c->dev, mp_as_uint(&o)); }

void rgpu_out_b(rgpu_call *c, void *dst, size_t n) {
    mp_obj o;
    next_out(c, &o);
    if ((o.type == MP_BIN || o.type == MP_STR) && dst) {
        size_t k = o.n < n ? o.n : n;
        memcpy(dst, o.p, k);
        /* a string out-buffer (device name) is NUL-terminated like the driver's */
        if (o.type == MP_STR && k < n) ((char *)dst)[k] = 0;
    }
}

void rgpu_out_ha(rgpu_call *c, void **dst, size_t n) {
    mp_obj o, e;
    next_out(c, &o);
    if (o.type != MP_ARRAY) return;
    for (uint32_t i = 0; i < o.n; i++) {
        if (mp_next(&c->outs, &e)) return;
        if (i < n && dst) dst[i] = rgpu_tag_handle(c->dev, mp_as_uint(&e));
    }
}

int rgpu_out_bulk_into(rgpu_call *c, void *dst, size_t n) {
    size_t got = 0;
    for (int i = 0; i < c->nout_bulk; i++) {
        size_t len = zmq_msg_size(c->out_bulk[i]);
        if (len > n - got) return -1; /* more than the program's buffer holds */
        memcpy((char *)dst + got, zmq_msg_data(c->out_bulk[i]), len);
        got += len;
    }
    return got == n ? 0 : -1;
}

int rgpu_invalid_value(int face) { return rgpu_record(face, RGPU_INVALID_VALUE); }

int rgpu_unsupported(int face, const char *name) {
    if (first_refusal(name)) rgpu_log(RGPU_LOG_WARN, "%s is not supported by rgpu yet", name);
    return rgpu_record(face, RGPU_NOT_SUPPORTED);
}
