/* The one interface between the generated code and the hand-written core of librgpu.so: begin a
 * call, put its arguments (one routine per wire kind), send it synchronously or async, read its
 * out-values. Wire kinds are defined in protocol/codegen/classify.py; what each call sends is its
 * record's (protocol/contract/calls/). Every file that includes this sees CUDA's own types and the
 * prototype of every CUDA function (rgpu_cuda.h), so a hook whose signature differs from CUDA's does
 * not compile. */
#ifndef RGPU_CALL_H
#define RGPU_CALL_H
#include <stddef.h>
#include <stdint.h>

#include "mpack.h"
#include "rgpu_cuda.h"
#include "rgpu_ids.h"
#include "rgpu_wire.h"
#include "rgpu_calls.h"
#include "addresses.h" /* the address registry: what a range is (state/addresses.c) */

enum { RGPU_RUNTIME = 0, RGPU_DRIVER = 1 };

/* Result codes with the same number in both faces (CUresult / cudaError_t), by the Driver's names. */
enum {
    RGPU_SUCCESS = CUDA_SUCCESS,
    RGPU_INVALID_VALUE = CUDA_ERROR_INVALID_VALUE,
    RGPU_OUT_OF_MEMORY = CUDA_ERROR_OUT_OF_MEMORY,
    RGPU_NOT_INITIALIZED = CUDA_ERROR_NOT_INITIALIZED,
    RGPU_DEVICE_UNAVAILABLE = CUDA_ERROR_DEVICE_UNAVAILABLE,
    RGPU_NO_DEVICE = CUDA_ERROR_NO_DEVICE,
    RGPU_INVALID_DEVICE = CUDA_ERROR_INVALID_DEVICE,
    RGPU_INVALID_HANDLE = CUDA_ERROR_INVALID_HANDLE,
    RGPU_NOT_SUPPORTED = CUDA_ERROR_NOT_SUPPORTED,
};
_Static_assert((int)RGPU_INVALID_HANDLE == (int)cudaErrorInvalidResourceHandle &&
               (int)RGPU_NOT_SUPPORTED == (int)cudaErrorNotSupported &&
               (int)RGPU_DEVICE_UNAVAILABLE == (int)cudaErrorDevicesUnavailable, "both faces number these alike");

#define RGPU_MAX_BULK RGPU_MAX_FRAMES /* a large copy travels as up to RGPU_MAX_CHUNKS chunk frames */
#define RGPU_MAX_OUT_BULK RGPU_MAX_FRAMES

typedef struct rgpu_call {
    uint32_t id;
    const char *name;
    int face;
    unsigned flags; /* RGPU_F_* of the call's record (rgpu_ids.h): what the transport and managed.c do around it */
    int dev;        /* session the call goes to */
    int err;        /* set by a put that failed validation */
    int nargs;
    int device_reads; /* set by a copy out of device memory: device work that writes nothing (managed.c) */
    mp_writer args; /* the argument array's elements */
    uint8_t args_inline[128]; /* where they are written unless they outgrow it: no malloc per call */
    /* bulk input frames (not owned unless copy) */
    const void *bulk[RGPU_MAX_BULK];
    size_t bulk_len[RGPU_MAX_BULK];
    int nbulk;
    /* reply */
    void *reply;    /* zmq_msg_t* of the header frame */
    mp_reader outs;
    uint32_t nouts;
    void *out_bulk[RGPU_MAX_OUT_BULK]; /* zmq_msg_t* */
    int nout_bulk;
    /* same-host shared memory (shm.c): a sync copy may move its data through the session's
     * segment instead of frames; set by the copy, used by the session if it has a segment */
    int shm;             /* 1: bulk input through shm; 2: reply bulk into shm */
    void *shm_dst;       /* reply bulk lands here (capacity shm_cap) */
    size_t shm_cap, shm_got;
    int shm_piped;       /* set by the session: the worker writes the reply's data into the segment piece by
                          * piece, and shm_early bytes of it were copied out before the reply came */
    size_t shm_early;
    /* a copy whose host side is pinned memory in a shared segment (hostmem.c): the session names
     * [segment, offset, length] instead of moving data when its worker is on this host */
    struct rgpu_pinseg *pin;
    size_t pin_off, pin_len;
    int pin_used;        /* set by the session when it did */
    /* an H2D copy, which the session sends in pieces where frames carry its data (copy_pieces.c,
     * sync_pieces, async_pieces): `piece` makes the call for bytes [off, off + len) of it (memcpy.c) */
    void (*piece)(struct rgpu_call *part, const struct rgpu_call *whole, size_t off, size_t len);
    uint64_t piece_dst;
    const void *piece_host, *piece_stream;
    size_t piece_len;
    int piece_async;
    /* sync calls that go in the same message right after this one, their replies awaited in the same
     * round trip (reply_wait.c, take_followers): the pulls of managed memory after a synchronisation
     * (managed.c). A follower's then_rc is its result, or -1 when it did not run (the session moved,
     * or the call went in pieces): the caller then does without it. */
    struct rgpu_call *then;
    int nthen;
    int then_rc;
    /* a sync call whose managed memory's pull went ahead of it in its message, as async copies the
     * worker finishes before its reply (managed.c, pull_ahead) */
    int pull_ahead;
    /* the hooks whose `before` ran for this call (a bit each): only their `after` runs (submit/call.c) */
    unsigned hooks_ran;
    /* an async D2H copy into pinned memory the worker does not map: its data comes later, to late_dst
     * (copy_late.c, RGPU_OUT_LATER) */
    void *late_dst;
    size_t late_len;
} rgpu_call;

/* hostmem.c: pinned memory in a shared segment of its own; `told` has a bit per device whose worker
 * was named it (cudaFreeHost asks those to unmap it) */
typedef struct rgpu_pinseg {
    char name[48];
    uint8_t nonce[16];
    size_t size;         /* the segment's: the nonce page and the program's memory */
    void *base;
    int owner;           /* the process that made it (a forked child never unlinks it) */
    unsigned told;
    /* mapped host memory: the device address of the first data byte on each device whose worker
     * mapped it into the device's address space (MAP_HOST), 0 where none did yet */
    uint64_t devptr[16];
    /* a registered range moved into the segment (cuMemHostRegister DEVICEMAP): the program's pages
     * [adopted, +adopted_len) are the segment's data now, and become private memory again at unregister */
    void *adopted;
    size_t adopted_len;
} rgpu_pinseg;
void rgpu_pinned_close(void);
/* hostmem.c: pinned memory for the library's own buffers, in a segment a worker on this host maps
 * when a copy names it; NULL where there is none. Freed as cudaFreeHost frees. */
void *rgpu_pinned_own(size_t n);
void rgpu_pinned_own_free(void *p);
/* memory/peer.c: a device-to-device copy whose two sides are different devices' memory (dst of
 * device dd, src of sd), staged through the client; 1: it was one (*rc says how it went), 0: the
 * caller sends it as usual */
int rgpu_cross_device_copy(int face, void *dst, int dd, const void *src, int sd, size_t n, const void *stream,
                           int async, int *rc);
/* memory/peer.c: the device whose memory p is (the table's answer, else the servers'), -1: none */
int rgpu_device_of(const void *p);

typedef struct { const char *name; void *fn; } rgpu_proc;
extern const rgpu_proc rgpu_procs[];
extern const size_t rgpu_nprocs;
/* generated/rgpu_proc_versions.c: what cuGetProcAddress(name, version, per-thread) means, sorted by
 * name, then per-thread, then version; and the driver names rgpu defines only for it */
typedef struct { const char *name; int version; int per_thread; const char *symbol; } rgpu_proc_version;
extern const rgpu_proc_version rgpu_proc_versions[];
extern const size_t rgpu_nproc_versions;
extern const rgpu_proc rgpu_procs_legacy[];
extern const size_t rgpu_nprocs_legacy;

void rgpu_begin(rgpu_call *c, uint32_t id, const char *name, int face, unsigned flags);
void rgpu_put_i(rgpu_call *c, int64_t v);
void rgpu_put_u(rgpu_call *c, uint64_t v);
void rgpu_put_f(rgpu_call *c, double v);
void rgpu_put_h(rgpu_call *c, const void *h);
void rgpu_put_d(rgpu_call *c, int dev);
void rgpu_put_s(rgpu_call *c, const char *s);
void rgpu_put_b(rgpu_call *c, const void *p, size_t n);
void rgpu_put_nil(rgpu_call *c);
/* An array of handles (the server's values, untagged); the call goes to the first one's device. */
void rgpu_put_ha(rgpu_call *c, void *const *h, size_t n);
/* A raw bulk frame (host data); copied only for async calls, which return before it is sent. */
void rgpu_put_bulk(rgpu_call *c, const void *p, size_t n);

int rgpu_sync(rgpu_call *c);   /* send (with any queued async calls), wait for the reply */
int rgpu_async(rgpu_call *c);  /* queue; returns the session's sticky error or success */
void rgpu_end(rgpu_call *c);   /* release the reply */
/* The server's message for the last call of this thread that failed with one ("" if none). */
const char *rgpu_last_server_message(void);

int64_t rgpu_out_i(rgpu_call *c);
uint64_t rgpu_out_u(rgpu_call *c);
double rgpu_out_f(rgpu_call *c);
void *rgpu_out_h(rgpu_call *c);
void rgpu_out_b(rgpu_call *c, void *dst, size_t n);
void rgpu_out_ha(rgpu_call *c, void **dst, size_t n);
/* The reply's bulk frames, one after another, into dst: 0 when they hold exactly n bytes, else -1
 * (what fitted is copied). D2H data that came in frames, not through the copy segment. */
int rgpu_out_bulk_into(rgpu_call *c, void *dst, size_t n);

int rgpu_invalid_value(int face);
int rgpu_unsupported(int face, const char *name);

/* memcpy.c: a cudaMemcpyKind, with cudaMemcpyDefault (4) resolved from the pointers */
int rgpu_resolve_kind(int kind, void *dst, const void *src);
/* memcpy.c: one copy (kind 1 H2D, 2 D2H, 3 D2D) to device dev (-1: the current one), as the call of
 * `face` that moves it: cudaMemcpy(Async) or cuMemcpy{HtoD,DtoH,DtoD}(Async)_v2 */
int rgpu_copy_call(int face, int kind, uint64_t dst, uint64_t src, size_t n, void *host, const void *stream,
                   int async, int dev);

/* submit/call.c: what a floor above the door does around every call whose record has one of `flags` (0:
 * around every call): before (waits: the call is sync) may fail the call; after sees its result, if its
 * before ran. It runs only for calls that reached a session, and only while *live (when set) is not 0:
 * managed memory's hooks while the program has some, so the calls of a program without any never
 * enter managed.c. Registered once, at load (managed.c). */
typedef struct {
    const int *live;
    unsigned flags;
    int (*before)(rgpu_call *c, int waits);
    void (*after)(rgpu_call *c, int rc);
} rgpu_call_hooks;
void rgpu_call_hooks_add(const rgpu_call_hooks *h);

/* A module's managed variable (__managed__) at [addr, addr+size) of device dev, mapped here at its
 * address and kept coherent as managed allocations are: 0, or an error of the face's calls */
int rgpu_managed_adopt(int dev, uint64_t addr, size_t size);
/* managed.c: the managed allocation holding [p, p+n): 0 and its base and size, or -1 */
int rgpu_managed_bounds(uint64_t p, size_t n, uint64_t *base, size_t *size);
/* advice.c: what the program advised and prefetched, per page of a managed allocation [base, base+size)
 * (where: a device ordinal or cudaCpuDeviceId), read back by cudaMemRangeGetAttribute(s) */
void rgpu_advice_note(uint64_t base, size_t size, uint64_t p, size_t n, int advice, int where);
void rgpu_advice_prefetched(uint64_t base, size_t size, uint64_t p, size_t n, int where);
void rgpu_advice_forget(uint64_t base);

/* state.c */
int rgpu_device_count(void);
int rgpu_current_device(void);
void rgpu_set_current_device(int dev);
int rgpu_ensure_init(void);              /* 0, or RGPU_NO_DEVICE / RGPU_NOT_INITIALIZED */
void rgpu_set_last_error(int face, int rc);
int rgpu_get_last_error(int face, int reset);
int rgpu_record(int face, int rc);      /* remembers a failure as the thread's last error; returns rc */
void *rgpu_tag_handle(int dev, uint64_t server_handle);
uint64_t rgpu_untag_handle(const void *h, int *dev);
/* The device a handle belongs to: its tag's, or the calling thread's current one for an untagged
 * handle (the default streams, NULL) */
int rgpu_handle_device(const void *h);

/* driver_local.c: the context a stream of device `dev` belongs to (the current one when it is of
 * that device, else the device's primary context) */
void *rgpu_context_of(int dev);
/* driver_local.c: the Runtime makes `dev`'s primary context current in the calling thread: where
 * none is (replace 0, any Runtime call), or unless one of `dev` is (replace 1, cudaSetDevice) */
void rgpu_bind_runtime_context(int dev, int replace);
/* How a thread waits for its reply before it blocks: spinning, spinning and yielding the CPU, or not
 * at all. The transport knows no contexts: the floor that does (driver_local.c, by the context's
 * CU_CTX_SCHED_* flags) registers the policy; until then, and without one, threads yield. */
enum { RGPU_WAIT_YIELD = 0, RGPU_WAIT_SPIN, RGPU_WAIT_BLOCK };
void rgpu_set_wait_policy(int (*mode)(void));

/* capture.c: 0, or the error a call must return because a stream capture forbids it (the capture is
 * invalidated, as CUDA does). With has_stream, a capturing `stream` forbids it whatever the mode, and
 * the legacy stream (NULL) while a blocking stream captures. */
int rgpu_capture_guard(int face, const void *stream, int has_stream);
/* capture.c: 1 for the legacy stream (NULL or cudaStreamLegacy), which per-thread streams are not */
int rgpu_legacy_stream(const void *stream);

/* errors.c and the generated rgpu_errors.c: the enumerator's name and a description of a result code */
const char *rgpu_error_name(int face, int code);
const char *rgpu_error_string(int code);

/* log.c */
enum { RGPU_LOG_ERROR = 0, RGPU_LOG_WARN = 1, RGPU_LOG_INFO = 2, RGPU_LOG_DEBUG = 3 };
/* The level is looked at where the line is asked for, so that a line not wanted (every call's "call NAME"
 * at debug) costs a load and a compare, not a call into log.c; rgpu_log_level is above every level
 * until log.c has read RGPU_LOG, at the first line asked for. */
extern int rgpu_log_level;
void rgpu_log_line(int level, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
#define rgpu_log(level, ...) \
    ((level) <= __atomic_load_n(&rgpu_log_level, __ATOMIC_RELAXED) ? rgpu_log_line((level), __VA_ARGS__) : (void)0)
#endif
