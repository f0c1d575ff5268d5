/* cuGetExportTable: the driver's hidden function tables, which NVIDIA's runtimes (the static cudart in
 * every default nvcc binary, libcudart.so, and the private runtimes inside cuBLAS, cuFFT, cuDNN, ...)
 * ask for before their first call. rgpu answers them in the client: what only the runtime's own
 * bookkeeping needs (context-local storage, tools hooks, the integrity check) is answered here, and
 * what touches the device (modules from fatbins, primary contexts) maps onto rgpu's forwarded driver
 * calls. Slot meanings are facts from public reverse engineering (ZLUDA's dark-API notes) and from
 * tracing CUDA 13.0's runtimes against this file; a slot nobody has needed yet is a trap that logs its
 * table, index and arguments once and answers CUDA_ERROR_NOT_SUPPORTED, so a new runtime that calls
 * one says so instead of jumping through a null pointer. */
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "export_tables.h"
#include "md2.h"
#include "rgpu_call.h"
#include "rgpu_ids.h"


/* ---- traps for slots without a known meaning ------------------------------------------------ */

typedef uint64_t (*slot_fn)(uint64_t, uint64_t, uint64_t, uint64_t, uint64_t, uint64_t);

static uint64_t trap(const char *table, int slot, uint64_t a, uint64_t b, uint64_t c, uint64_t d, uint64_t e,
                     uint64_t f) {
    static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
    static struct { const char *table; int slot; } seen[64];
    static int nseen;
    int known = 0;
    pthread_mutex_lock(&mu);
    for (int i = 0; i < nseen; i++) known |= seen[i].table == table && seen[i].slot == slot;
    if (!known && nseen < 64) seen[nseen].table = table, seen[nseen++].slot = slot;
    pthread_mutex_unlock(&mu);
    if (!known)
        rgpu_log(RGPU_LOG_WARN,
                 "export table %s slot %d is not implemented by rgpu (args %#lx %#lx %#lx %#lx %#lx %#lx): "
                 "answering CUDA_ERROR_NOT_SUPPORTED",
                 table, slot, (unsigned long)a, (unsigned long)b, (unsigned long)c, (unsigned long)d,
                 (unsigned long)e, (unsigned long)f);
    return RGPU_NOT_SUPPORTED;
}

#define TRAP(T, N) __attribute__((unused))                                                                    \
    static uint64_t trap_##T##_##N(uint64_t a, uint64_t b, uint64_t c, uint64_t d, uint64_t e, uint64_t f) {  \
        return trap(#T, N, a, b, c, d, e, f);                                                                 \
    }
#define TRAPS10(T, D) TRAP(T, D##0) TRAP(T, D##1) TRAP(T, D##2) TRAP(T, D##3) TRAP(T, D##4) TRAP(T, D##5) \
    TRAP(T, D##6) TRAP(T, D##7) TRAP(T, D##8) TRAP(T, D##9)
#define T(T_, N) (const void *)trap_##T_##_##N
#define T10(T_, D) T(T_, D##0), T(T_, D##1), T(T_, D##2), T(T_, D##3), T(T_, D##4), T(T_, D##5), T(T_, D##6), \
    T(T_, D##7), T(T_, D##8), T(T_, D##9)
#define SIZE(n) (const void *)(uintptr_t)((n) * sizeof(void *))

/* ---- CUDART_INTERFACE: what the runtime needs of the driver to load its modules ---------------- */

typedef struct { uint32_t magic, version; const void *data; const void *filename_or_fatbins; } fatbin_wrapper;

static int cudart_module_from_wrapper(void **module, const fatbin_wrapper *w) {
    if (!module || !w) return RGPU_INVALID_VALUE;
    rgpu_log(RGPU_LOG_DEBUG, "CUDART_INTERFACE module from wrapper %p magic %#x version %u data %p", (void *)w, w->magic, w->version, w->data);
    return rgpu_module_from_fatbin(module, w->magic == RGPU_FATBIN_WRAPPER_MAGIC ? w->data : (const void *)w);
}

static int cudart_module_from_wrapper_ext(void **module, const fatbin_wrapper *w, void *a3, void *a4, unsigned a5) {
    rgpu_log(RGPU_LOG_DEBUG, "CUDART_INTERFACE slot 6: %p %p %p %u", (void *)w, a3, a4, a5);
    return cudart_module_from_wrapper(module, w);
}

static int cudart_module_from_container(const void *container, void **module, void *a3, void *a4, unsigned a5) {
    rgpu_log(RGPU_LOG_DEBUG, "CUDART_INTERFACE slot 8: %p %p %p %u", container, a3, a4, a5);
    if (!module || !container) return RGPU_INVALID_VALUE;
    return rgpu_module_from_fatbin(module, container);
}

static int cudart_primary_context(void **pctx, int dev) { return rgpu_primary_ctx_get(pctx, dev); }

static int cudart_noop(uintptr_t arg) { (void)arg; return RGPU_SUCCESS; }

TRAP(CUDART_INTERFACE, 3) TRAP(CUDART_INTERFACE, 4) TRAP(CUDART_INTERFACE, 5) TRAP(CUDART_INTERFACE, 9)
TRAP(CUDART_INTERFACE, 10) TRAP(CUDART_INTERFACE, 11) TRAP(CUDART_INTERFACE, 12)

static const void *const cudart_interface[13] = {
    SIZE(13),
    (const void *)cudart_module_from_wrapper,
    (const void *)cudart_primary_context,
    T(CUDART_INTERFACE, 3), T(CUDART_INTERFACE, 4), T(CUDART_INTERFACE, 5),
    (const void *)cudart_module_from_wrapper_ext,
    (const void *)cudart_noop,
    (const void *)cudart_module_from_container,
    T(CUDART_INTERFACE, 9), T(CUDART_INTERFACE, 10), T(CUDART_INTERFACE, 11), T(CUDART_INTERFACE, 12),
};

/* ---- TOOLS_RUNTIME_CALLBACK_HOOKS: buffers the runtime writes its tool callbacks into ---------- */

static uint64_t hooks_buffer1[1024];
static uint32_t hooks_buffer2[16];

static void hooks_get_buffer1(void **ptr, size_t *size) {
    if (ptr) *ptr = hooks_buffer1;
    if (size) *size = 1024;
}
static void hooks_get_buffer2(void **ptr, size_t *size) {
    if (ptr) *ptr = hooks_buffer2;
    if (size) *size = 14;
}

TRAP(TOOLS_RUNTIME_CALLBACK_HOOKS, 1) TRAP(TOOLS_RUNTIME_CALLBACK_HOOKS, 3) TRAP(TOOLS_RUNTIME_CALLBACK_HOOKS, 4)
TRAP(TOOLS_RUNTIME_CALLBACK_HOOKS, 5)

static const void *const tools_runtime_callback_hooks[7] = {
    SIZE(7), T(TOOLS_RUNTIME_CALLBACK_HOOKS, 1), (const void *)hooks_get_buffer1,
    T(TOOLS_RUNTIME_CALLBACK_HOOKS, 3), T(TOOLS_RUNTIME_CALLBACK_HOOKS, 4), T(TOOLS_RUNTIME_CALLBACK_HOOKS, 5),
    (const void *)hooks_get_buffer2,
};

/* ---- TOOLS_TLS: asked for, never called under 13.0 ------------------------------------------- */

/* Slot 2: the calling thread's current context (cuBLASLt keys its per-context state by the id
 * TOOLS_CONTEXT slot 4 then gives for it). */
static int tools_tls_current_context(void **ctx) {
    if (!ctx) return RGPU_INVALID_VALUE;
    return rgpu_ctx_current(ctx);
}

TRAP(TOOLS_TLS, 1)
static const void *const tools_tls[3] = {SIZE(3), T(TOOLS_TLS, 1), (const void *)tools_tls_current_context};

/* ---- CONTEXT_LOCAL_STORAGE: the runtime's per-context state, keyed by a pointer of its own ------ */

static int cls_put(void *ctx, void *key, void *value, rgpu_cls_dtor dtor) { return rgpu_ctx_cls_put(ctx, key, value, dtor); }
static int cls_delete(void *ctx, void *key) { return rgpu_ctx_cls_delete(ctx, key); }
static int cls_get(void **value, void *ctx, void *key) { return rgpu_ctx_cls_get(ctx, key, value); }

/* No size header: three functions, then the terminator. */
static const void *const context_local_storage[4] = {
    (const void *)cls_put, (const void *)cls_delete, (const void *)cls_get, NULL,
};

/* ---- CONTEXT_CHECKS: flags of a context that rgpu's contexts never set ------------------------ */

static int context_check(void *ctx, uint32_t *flags, const void **extra) {
    (void)ctx;
    if (flags) *flags = 0;
    (void)extra;
    return RGPU_SUCCESS;
}
static uint32_t context_check_global(void) { return 0; }

TRAP(CONTEXT_CHECKS, 1) TRAP(CONTEXT_CHECKS, 4) TRAP(CONTEXT_CHECKS, 5) TRAP(CONTEXT_CHECKS, 6)
TRAP(CONTEXT_CHECKS, 7) TRAP(CONTEXT_CHECKS, 8) TRAP(CONTEXT_CHECKS, 9) TRAP(CONTEXT_CHECKS, 10)
TRAP(CONTEXT_CHECKS, 11) TRAP(CONTEXT_CHECKS, 12) TRAP(CONTEXT_CHECKS, 13) TRAP(CONTEXT_CHECKS, 14)

static const void *const context_checks[15] = {
    SIZE(15), T(CONTEXT_CHECKS, 1), (const void *)context_check, (const void *)context_check_global,
    T(CONTEXT_CHECKS, 4), T(CONTEXT_CHECKS, 5), T(CONTEXT_CHECKS, 6), T(CONTEXT_CHECKS, 7), T(CONTEXT_CHECKS, 8),
    T(CONTEXT_CHECKS, 9), T(CONTEXT_CHECKS, 10), T(CONTEXT_CHECKS, 11), T(CONTEXT_CHECKS, 12), T(CONTEXT_CHECKS, 13),
    T(CONTEXT_CHECKS, 14),
};

/* ---- INTEGRITY_CHECK: the runtime's proof that it talks to a driver it knows ------------------ */

static int integrity_check(uint32_t version, uint64_t unix_seconds, uint64_t result[2]);
TRAP(INTEGRITY_CHECK, 2)
static const void *const integrity_table[3] = {SIZE(3), (const void *)integrity_check, T(INTEGRITY_CHECK, 2)};

/* The runtime checks an HMAC-MD2 under a key of NVIDIA's over who answered: the driver version, the
 * calling process and thread, where the CUDART_INTERFACE and INTEGRITY_CHECK tables and this function
 * live, the time it passed, and every device's UUID and PCI location. Computed over rgpu's own
 * tables and the devices rgpu reports, so a runtime accepts rgpu's driver as it accepts NVIDIA's.
 * Versions ending in 0 or 1 (the first two revisions of the check) expect fixed answers. */
static const uint8_t integrity_key[16] = {0x14, 0x6a, 0xdd, 0xae, 0x53, 0xa9, 0xa7, 0x52,
                                          0xaa, 0x08, 0x41, 0x36, 0x0b, 0xf5, 0x5a, 0x9f};

typedef struct {
    uint32_t driver_version, version, pid, tid;
    const void *cudart_table, *integrity_table, *check_fn;
    uint64_t unix_seconds;
} integrity_input;

typedef struct {
    uint8_t uuid[16];
    int32_t pci_domain, pci_bus, pci_device;
} integrity_device;

static int integrity_check(uint32_t version, uint64_t unix_seconds, uint64_t result[2]) {
    if (!result) return RGPU_INVALID_VALUE;
    if (version % 10 == 0) {
        result[0] = 0x3341181c03cb675cull, result[1] = 0x8ed383aa1f4cd1e8ull;
        return RGPU_SUCCESS;
    }
    if (version % 10 == 1) {
        result[0] = 0x1841181c03cb675cull, result[1] = 0x8ed383aa1f4cd1e8ull;
        return RGPU_SUCCESS;
    }
    integrity_input in = {RGPU_CUDA_VERSION, version, (uint32_t)getpid(), (uint32_t)(uintptr_t)pthread_self(),
                          cudart_interface, integrity_table, (const void *)integrity_check, unix_seconds};
    rgpu_md2 h;
    rgpu_hmac_md2_init(&h, integrity_key);
    rgpu_md2_update(&h, &in, sizeof in);
    int n = rgpu_ensure_init() == RGPU_SUCCESS ? rgpu_device_count() : 0;
    for (int dev = 0; dev < n; dev++) {
        integrity_device d;
        memset(&d, 0, sizeof d);
        int rc = rgpu_device_identity(dev, d.uuid, &d.pci_domain, &d.pci_bus, &d.pci_device);
        if (rc) return rc;
        rgpu_md2_update(&h, &d, sizeof d);
    }
    uint8_t out[16];
    rgpu_hmac_md2_final(&h, integrity_key, out);
    memcpy(result, out, 16);
    return RGPU_SUCCESS;
}

/* ---- tables of the tools interface (profilers' view of contexts and modules) ------------------ */

/* TOOLS_CONTEXT slot 4: a context's unique id (what cuCtxGetId gives). */
static int tools_context_id(void *ctx, unsigned long long *id) { return rgpu_ctx_id(ctx, id); }

/* TOOLS_CONTEXT slot 51: the driver's stream behind a runtime stream handle of context `ctx`
 * (`per_thread`: the handle is cudaStreamPerThread). cuBLAS keeps a workspace per stream and finds
 * it by this stream's id (slot 39) before every call. rgpu's stream handles are the same objects in
 * the runtime and the driver, the special ones (NULL, legacy, per-thread) included. */
static int tools_context_stream(void *ctx, CUstream stream, CUstream *out, int per_thread) {
    (void)ctx, (void)per_thread;
    if (!out) return RGPU_INVALID_VALUE;
    *out = stream;
    return RGPU_SUCCESS;
}

/* TOOLS_CONTEXT slot 39: a stream's unique id in its context. Answered without a round trip: the
 * handle itself is unique in the process for the stream's life (each device's handles carry its
 * tag), and cuBLAS asks on every call. */
static int tools_context_stream_id(void *ctx, CUstream stream, unsigned long long *id) {
    (void)ctx;
    if (!id) return RGPU_INVALID_VALUE;
    *id = (unsigned long long)(uintptr_t)stream;
    return RGPU_SUCCESS;
}

TRAP(TOOLS_CONTEXT, 1) TRAP(TOOLS_CONTEXT, 2) TRAP(TOOLS_CONTEXT, 3) TRAP(TOOLS_CONTEXT, 5) TRAP(TOOLS_CONTEXT, 6)
TRAP(TOOLS_CONTEXT, 7) TRAP(TOOLS_CONTEXT, 8) TRAP(TOOLS_CONTEXT, 9) TRAPS10(TOOLS_CONTEXT, 1) TRAPS10(TOOLS_CONTEXT, 2)
TRAPS10(TOOLS_CONTEXT, 3) TRAPS10(TOOLS_CONTEXT, 4) TRAPS10(TOOLS_CONTEXT, 5) TRAPS10(TOOLS_CONTEXT, 6) TRAPS10(TOOLS_CONTEXT, 7)
TRAPS10(TOOLS_CONTEXT, 8) TRAP(TOOLS_CONTEXT, 90) TRAP(TOOLS_CONTEXT, 91) TRAP(TOOLS_CONTEXT, 92)

static const void *const tools_context[93] = {
    SIZE(93), T(TOOLS_CONTEXT, 1), T(TOOLS_CONTEXT, 2), T(TOOLS_CONTEXT, 3), (const void *)tools_context_id,
    T(TOOLS_CONTEXT, 5), T(TOOLS_CONTEXT, 6), T(TOOLS_CONTEXT, 7), T(TOOLS_CONTEXT, 8), T(TOOLS_CONTEXT, 9),
    T10(TOOLS_CONTEXT, 1), T10(TOOLS_CONTEXT, 2),
    T(TOOLS_CONTEXT, 30), T(TOOLS_CONTEXT, 31), T(TOOLS_CONTEXT, 32), T(TOOLS_CONTEXT, 33), T(TOOLS_CONTEXT, 34),
    T(TOOLS_CONTEXT, 35), T(TOOLS_CONTEXT, 36), T(TOOLS_CONTEXT, 37), T(TOOLS_CONTEXT, 38),
    (const void *)tools_context_stream_id, T10(TOOLS_CONTEXT, 4),
    T(TOOLS_CONTEXT, 50), (const void *)tools_context_stream, T(TOOLS_CONTEXT, 52), T(TOOLS_CONTEXT, 53),
    T(TOOLS_CONTEXT, 54), T(TOOLS_CONTEXT, 55), T(TOOLS_CONTEXT, 56), T(TOOLS_CONTEXT, 57), T(TOOLS_CONTEXT, 58),
    T(TOOLS_CONTEXT, 59), T10(TOOLS_CONTEXT, 6), T10(TOOLS_CONTEXT, 7), T10(TOOLS_CONTEXT, 8), T(TOOLS_CONTEXT, 90),
    T(TOOLS_CONTEXT, 91), T(TOOLS_CONTEXT, 92),
};

/* TOOLS_MODULE slot 7: call `visit(user, function)` for every function of a module; true (1) when
 * it could. cuFFT finds the one kernel of each of its modules this way. */

static int tools_module_each_function(CUcontext ctx, CUmodule mod, void (*visit)(void *user, CUfunction function),
                                      void *user) {
    (void)ctx;
    unsigned n = 0;
    if (!visit || cuModuleGetFunctionCount(&n, mod)) return 0;
    CUfunction *fns = calloc(n ? n : 1, sizeof *fns);
    int ok = fns && !cuModuleEnumerateFunctions(fns, n, mod);
    for (unsigned i = 0; ok && i < n; i++) visit(user, fns[i]);
    free(fns);
    return ok;
}

TRAP(TOOLS_MODULE, 1) TRAP(TOOLS_MODULE, 2) TRAP(TOOLS_MODULE, 3) TRAP(TOOLS_MODULE, 4) TRAP(TOOLS_MODULE, 5)
TRAP(TOOLS_MODULE, 6) TRAP(TOOLS_MODULE, 8) TRAP(TOOLS_MODULE, 9) TRAPS10(TOOLS_MODULE, 1) TRAPS10(TOOLS_MODULE, 2) TRAPS10(TOOLS_MODULE, 3)
TRAPS10(TOOLS_MODULE, 4) TRAPS10(TOOLS_MODULE, 5) TRAPS10(TOOLS_MODULE, 6) TRAPS10(TOOLS_MODULE, 7)
TRAPS10(TOOLS_MODULE, 8) TRAPS10(TOOLS_MODULE, 9)

static const void *const tools_module[99] = {
    SIZE(99), T(TOOLS_MODULE, 1), T(TOOLS_MODULE, 2), T(TOOLS_MODULE, 3), T(TOOLS_MODULE, 4), T(TOOLS_MODULE, 5),
    T(TOOLS_MODULE, 6), (const void *)tools_module_each_function, T(TOOLS_MODULE, 8), T(TOOLS_MODULE, 9), T10(TOOLS_MODULE, 1),
    T10(TOOLS_MODULE, 2), T10(TOOLS_MODULE, 3), T10(TOOLS_MODULE, 4), T10(TOOLS_MODULE, 5), T10(TOOLS_MODULE, 6),
    T10(TOOLS_MODULE, 7), T10(TOOLS_MODULE, 8), T(TOOLS_MODULE, 90), T(TOOLS_MODULE, 91), T(TOOLS_MODULE, 92),
    T(TOOLS_MODULE, 93), T(TOOLS_MODULE, 94), T(TOOLS_MODULE, 95), T(TOOLS_MODULE, 96), T(TOOLS_MODULE, 97),
    T(TOOLS_MODULE, 98),
};

/* ---- SHARED_1734DC26: a table whose slots' meaning is not known ----------------------------------
 * Asked for by cuBLASLt, cuDNN, cuSPARSELt, NVRTC, CUPTI, nvperf and cuda-checkpoint (its id is in
 * each one's read-only data). cuBLASLt 13's half and bfloat16 heuristics (cublasLtHSHMatmulAlgoGetHeuristic,
 * under PyTorch's fp16 matmul) keep whatever cuGetExportTable gave them, NULL included, and call
 * slot 4 with two out-pointers: declined, the process died on the H200 and on the null driver alike.
 * When slot 4 fails, or leaves the first out-pointer NULL, cuBLASLt goes on without it (its code
 * branches to the same place either way). So the table is answered: slot 4 declines (quietly: every
 * fp16 GEMM asks, and cuBLASLt carries on), and every other slot is a trap, an error logged once,
 * never a guessed behaviour. */

static int shared_1734dc26_slot4(void **out, void **more) {
    (void)out; (void)more; /* both zeroed by the caller, and left so */
    rgpu_log(RGPU_LOG_DEBUG, "export table SHARED_1734DC26 slot 4: declined");
    return RGPU_NOT_SUPPORTED;
}

TRAP(SHARED_1734DC26, 1) TRAP(SHARED_1734DC26, 2) TRAP(SHARED_1734DC26, 3)
TRAP(SHARED_1734DC26, 5) TRAP(SHARED_1734DC26, 6) TRAP(SHARED_1734DC26, 7) TRAP(SHARED_1734DC26, 8)
TRAP(SHARED_1734DC26, 9) TRAPS10(SHARED_1734DC26, 1) TRAPS10(SHARED_1734DC26, 2) TRAPS10(SHARED_1734DC26, 3)

static const void *const shared_1734dc26[40] = {
    SIZE(40), T(SHARED_1734DC26, 1), T(SHARED_1734DC26, 2), T(SHARED_1734DC26, 3), (const void *)shared_1734dc26_slot4,
    T(SHARED_1734DC26, 5), T(SHARED_1734DC26, 6), T(SHARED_1734DC26, 7), T(SHARED_1734DC26, 8),
    T(SHARED_1734DC26, 9), T10(SHARED_1734DC26, 1), T10(SHARED_1734DC26, 2), T10(SHARED_1734DC26, 3),
};

/* ---- the directory -------------------------------------------------------------------------- */

typedef struct {
    const char *name;
    uint8_t uuid[16];
    const void *const *table; /* NULL: known, and declined (the runtime copes with the error) */
} export_table;

#define U(a, b, c, d) \
    {(a) >> 24, ((a) >> 16) & 0xff, ((a) >> 8) & 0xff, (a) & 0xff, (b) >> 24, ((b) >> 16) & 0xff, ((b) >> 8) & 0xff, \
     (b) & 0xff, (c) >> 24, ((c) >> 16) & 0xff, ((c) >> 8) & 0xff, (c) & 0xff, (d) >> 24, ((d) >> 16) & 0xff,        \
     ((d) >> 8) & 0xff, (d) & 0xff}

static const export_table tables[] = {
    {"CUDART_INTERFACE", U(0x6bd5fb6cu, 0x5bf4e74au, 0x8987d939u, 0x12fd9df9u), cudart_interface},
    {"TOOLS_RUNTIME_CALLBACK_HOOKS", U(0xa094798cu, 0x2e742e74u, 0x93f20800u, 0x200c0a66u), tools_runtime_callback_hooks},
    {"TOOLS_TLS", U(0x42d85a81u, 0x23f6cb47u, 0x8298f6e7u, 0x8a3aecdcu), tools_tls},
    {"CONTEXT_LOCAL_STORAGE", U(0xc693336eu, 0x1121df11u, 0xa8c368f3u, 0x55d89593u), context_local_storage},
    {"CONTEXT_CHECKS", U(0x263e8860u, 0x7cd26143u, 0x92f6bbd5u, 0x006dfa7eu), context_checks},
    {"INTEGRITY_CHECK", U(0xd4082055u, 0xbde6704bu, 0x8d34ba12u, 0x3c66e1f2u), integrity_table},
    {"TOOLS_CONTEXT", U(0x21318c60u, 0x97143248u, 0x8ca641ffu, 0x7324c8f2u), tools_context},
    {"TOOLS_MODULE", U(0x6e163fbeu, 0xb958444du, 0x835ce182u, 0xaff1991eu), tools_module},
    /* Asked first by every runtime; no slot of it is called under 13.0 and the runtime carries on
     * when it is refused. */
    {"RUNTIME_PREFLIGHT", U(0xf8cff951u, 0x21468b4eu, 0xb9e2fb46u, 0x9e7c0dd9u), NULL},
    /* NVRTC asks for it at each compile (CuPy's kernels). Answered with traps, NVRTC 13.0 calls slot 1
     * with the program's NVVM IR (LLVM bitcode, ~14 KB for a CuPy ufunc) and its options
     * ("-arch=compute_121 -ftz=1 ..."): an offer to let the driver compile it. Refused, or with no
     * driver at all (NVRTC runs on compile-only hosts), NVRTC compiles it itself — the same PTX. rgpu
     * has no compiler of its own to offer, so it declines the table (tests/e2e/test_frameworks.py
     * compiles CuPy's kernels through it). */
    {"NVRTC", U(0xda9151d3u, 0x3ae6cc41u, 0xa5c04f26u, 0xd533e328u), NULL},
    {"SHARED_1734DC26", U(0x1734dc26u, 0x800d4745u, 0x8726c0f1u, 0xe7dd8bcau), shared_1734dc26},
};

CUresult cuGetExportTable(const void **table, const CUuuid *uuid) {
    if (!table || !uuid) return rgpu_invalid_value(RGPU_DRIVER);
    for (size_t i = 0; i < sizeof tables / sizeof *tables; i++) {
        if (memcmp(tables[i].uuid, uuid, 16)) continue;
        if (!tables[i].table) {
            rgpu_log(RGPU_LOG_DEBUG, "cuGetExportTable: %s declined", tables[i].name);
            *table = NULL;
            return rgpu_record(RGPU_DRIVER, CUDA_ERROR_NOT_FOUND);
        }
        rgpu_log(RGPU_LOG_DEBUG, "cuGetExportTable: %s", tables[i].name);
        *table = tables[i].table;
        return RGPU_SUCCESS;
    }
    const uint8_t *u = (const uint8_t *)uuid;
    static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
    static uint8_t seen[16][16];
    static int nseen;
    int known = 0;
    pthread_mutex_lock(&mu);
    for (int i = 0; i < nseen; i++) known |= !memcmp(seen[i], u, 16);
    if (!known && nseen < 16) memcpy(seen[nseen++], u, 16);
    pthread_mutex_unlock(&mu);
    if (!known)
        rgpu_log(RGPU_LOG_WARN,
                 "cuGetExportTable: unknown table %02x%02x%02x%02x-%02x%02x%02x%02x-%02x%02x%02x%02x-%02x%02x%02x%02x "
                 "(answering CUDA_ERROR_NOT_FOUND)",
                 u[0], u[1], u[2], u[3], u[4], u[5], u[6], u[7], u[8], u[9], u[10], u[11], u[12], u[13], u[14], u[15]);
    *table = NULL;
    return rgpu_record(RGPU_DRIVER, CUDA_ERROR_NOT_FOUND);
}

/* The runtime face's name for the same directory. */
cudaError_t cudaGetExportTable(const void **table, const cudaUUID_t *uuid) {
    int rc = cuGetExportTable(table, (const CUuuid *)uuid);
    return rgpu_record(RGPU_RUNTIME, rc == CUDA_ERROR_NOT_FOUND ? RGPU_INVALID_VALUE : rc);
}
