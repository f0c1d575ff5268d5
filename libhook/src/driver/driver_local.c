/* Driver API functions the client answers itself: init, devices, versions, contexts, host memory,
 * and cuGetProcAddress. A context is a client object naming a device (that device's session);
 * making it current makes its device current for the Runtime face too, as in CUDA. */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "export_tables.h"
#include "rgpu_call.h"
#include "rgpu_cuda12.h"
#include "session.h"


#define CTX_MAGIC 0x52475055u /* "RGPU" */
#define INVALID_CONTEXT CUDA_ERROR_INVALID_CONTEXT

/* Context-local storage: what NVIDIA's runtimes keep per context (export_tables.c). */
typedef struct { void *key, *value; rgpu_cls_dtor dtor; } cls_entry;

/* A context is the struct CUcontext points to (rgpu defines what CUDA leaves opaque). */
typedef struct CUctx_st {
    unsigned magic;
    int dev;
    unsigned flags;
    int primary;
    unsigned long long id;
    cls_entry *cls;
    int ncls, capcls;
} rgpu_ctx;

static pthread_mutex_t cls_mu = PTHREAD_MUTEX_INITIALIZER;

static rgpu_ctx primaries[RGPU_MAX_DEVICES];
static int primary_refs[RGPU_MAX_DEVICES];
static __thread rgpu_ctx *stack[16];
static __thread int depth;
static unsigned long long next_ctx_id = 1;

static rgpu_ctx *valid(void *c) {
    rgpu_ctx *x = c;
    return x && x->magic == CTX_MAGIC ? x : NULL;
}

static void make_current(rgpu_ctx *c) {
    if (depth == 0) depth = 1;
    stack[depth - 1] = c;
    if (c) rgpu_set_current_device(c->dev);
}

CUresult cuInit(unsigned int flags) {
    if (flags != 0) return rgpu_invalid_value(RGPU_DRIVER);
    return rgpu_record(RGPU_DRIVER, rgpu_ensure_init());
}

CUresult cuDriverGetVersion(int *v) {
    if (!v) return rgpu_invalid_value(RGPU_DRIVER);
    *v = RGPU_CUDA_VERSION;
    return RGPU_SUCCESS;
}

CUresult cuDeviceGetCount(int *count) {
    if (!count) return rgpu_invalid_value(RGPU_DRIVER);
    *count = rgpu_device_count();
    return RGPU_SUCCESS;
}

CUresult cuDeviceGet(CUdevice *device, int ordinal) {
    if (!device) return rgpu_invalid_value(RGPU_DRIVER);
    if (ordinal < 0 || ordinal >= rgpu_device_count()) return rgpu_record(RGPU_DRIVER, RGPU_INVALID_DEVICE);
    *device = ordinal;
    return RGPU_SUCCESS;
}

const char *rgpu_cu_name(int e) { return rgpu_error_name(RGPU_DRIVER, e); }
CUresult cuGetErrorName(CUresult e, const char **s) {
    if (!s) return RGPU_INVALID_VALUE;
    *s = rgpu_error_name(RGPU_DRIVER, e);
    return *s ? RGPU_SUCCESS : RGPU_INVALID_VALUE;
}
CUresult cuGetErrorString(CUresult e, const char **s) {
    if (!s) return RGPU_INVALID_VALUE;
    *s = rgpu_error_name(RGPU_DRIVER, e) ? rgpu_error_string(e) : NULL;
    return *s ? RGPU_SUCCESS : RGPU_INVALID_VALUE;
}

static int new_ctx(CUcontext *out, unsigned flags, int dev) {
    if (!out) return rgpu_invalid_value(RGPU_DRIVER);
    if (dev < 0 || dev >= rgpu_device_count()) return rgpu_record(RGPU_DRIVER, RGPU_INVALID_DEVICE);
    rgpu_ctx *c = calloc(1, sizeof *c);
    c->magic = CTX_MAGIC;
    c->dev = dev;
    c->flags = flags;
    c->id = __atomic_fetch_add(&next_ctx_id, 1, __ATOMIC_RELAXED);
    /* cuCtxCreate pushes the new context onto the thread's stack */
    if (depth < 16) stack[depth++] = c;
    rgpu_set_current_device(dev);
    *out = c;
    return RGPU_SUCCESS;
}

CUresult cuCtxCreate_v4(CUcontext *pctx, CUctxCreateParams *params, unsigned int flags, CUdevice dev) { (void)params; return new_ctx(pctx, flags, dev); }

/* A context's end tells each runtime that kept state in it (their destructors free it). */
static void cls_clear(rgpu_ctx *c) {
    pthread_mutex_lock(&cls_mu);
    cls_entry *e = c->cls;
    int n = c->ncls;
    c->cls = NULL;
    c->ncls = c->capcls = 0;
    pthread_mutex_unlock(&cls_mu);
    for (int i = 0; i < n; i++)
        if (e[i].dtor) e[i].dtor(c, e[i].key, e[i].value);
    free(e);
}

CUresult cuCtxDestroy_v2(CUcontext ctx) {
    rgpu_ctx *c = valid(ctx);
    if (!c || c->primary) return rgpu_record(RGPU_DRIVER, INVALID_CONTEXT);
    for (int i = 0; i < depth; i++)
        if (stack[i] == c) stack[i] = NULL;
    cls_clear(c);
    c->magic = 0;
    free(c);
    return RGPU_SUCCESS;
}

CUresult cuCtxPushCurrent_v2(CUcontext ctx) {
    rgpu_ctx *c = valid(ctx);
    if (!c || depth >= 16) return rgpu_record(RGPU_DRIVER, INVALID_CONTEXT);
    stack[depth++] = c;
    rgpu_set_current_device(c->dev);
    return RGPU_SUCCESS;
}

CUresult cuCtxPopCurrent_v2(CUcontext *pctx) {
    if (depth == 0 || !stack[depth - 1]) return rgpu_record(RGPU_DRIVER, INVALID_CONTEXT);
    if (pctx) *pctx = stack[depth - 1];
    depth--;
    if (depth && stack[depth - 1]) rgpu_set_current_device(stack[depth - 1]->dev);
    return RGPU_SUCCESS;
}

CUresult cuCtxSetCurrent(CUcontext ctx) {
    if (ctx && !valid(ctx)) return rgpu_record(RGPU_DRIVER, INVALID_CONTEXT);
    if (!ctx) { if (depth) depth--; return RGPU_SUCCESS; }
    make_current(ctx);
    return RGPU_SUCCESS;
}

CUresult cuCtxGetCurrent(CUcontext *pctx) {
    if (!pctx) return rgpu_invalid_value(RGPU_DRIVER);
    *pctx = depth ? stack[depth - 1] : NULL;
    return RGPU_SUCCESS;
}

static rgpu_ctx *current(void) { return depth ? stack[depth - 1] : NULL; }

CUresult cuCtxGetDevice(CUdevice *dev) {
    if (!dev) return rgpu_invalid_value(RGPU_DRIVER);
    if (!current()) return rgpu_record(RGPU_DRIVER, INVALID_CONTEXT);
    *dev = current()->dev;
    return RGPU_SUCCESS;
}
CUresult cuCtxGetDevice_v2(CUdevice *dev, CUcontext ctx) {
    if (!ctx) return cuCtxGetDevice(dev);
    if (!dev || !valid(ctx)) return rgpu_record(RGPU_DRIVER, !dev ? RGPU_INVALID_VALUE : INVALID_CONTEXT);
    *dev = ((rgpu_ctx *)ctx)->dev;
    return RGPU_SUCCESS;
}
CUresult cuCtxGetFlags(unsigned int *flags) {
    if (!flags) return rgpu_invalid_value(RGPU_DRIVER);
    if (!current()) return rgpu_record(RGPU_DRIVER, INVALID_CONTEXT);
    *flags = current()->flags;
    return RGPU_SUCCESS;
}
CUresult cuCtxSetFlags(unsigned int flags) {
    if (!current()) return rgpu_record(RGPU_DRIVER, INVALID_CONTEXT);
    current()->flags = flags;
    return RGPU_SUCCESS;
}
CUresult cuCtxGetApiVersion(CUcontext ctx, unsigned int *version) {
    if (!version) return rgpu_invalid_value(RGPU_DRIVER);
    if (ctx && !valid(ctx)) return rgpu_record(RGPU_DRIVER, INVALID_CONTEXT);
    *version = 3020; /* every context created by a CUDA >= 3.2 driver reports this */
    return RGPU_SUCCESS;
}
CUresult cuCtxGetId(CUcontext ctx, unsigned long long *id) {
    rgpu_ctx *c = ctx ? valid(ctx) : current();
    if (!id) return rgpu_invalid_value(RGPU_DRIVER);
    if (!c) return rgpu_record(RGPU_DRIVER, INVALID_CONTEXT);
    *id = c->id;
    return RGPU_SUCCESS;
}
CUresult cuCtxSynchronize_v2(CUcontext ctx) {
    rgpu_ctx *c = ctx ? valid(ctx) : current();
    if (!c) return rgpu_record(RGPU_DRIVER, INVALID_CONTEXT);
    int saved = rgpu_current_device();
    rgpu_set_current_device(c->dev);
    int rc = cuCtxSynchronize();
    rgpu_set_current_device(saved);
    return rc;
}

/* The device's primary context, which exists whether or not it was retained. */
static rgpu_ctx *primary_of(int dev) {
    rgpu_ctx *c = &primaries[dev];
    c->magic = CTX_MAGIC;
    c->dev = dev;
    c->primary = 1;
    if (!c->id) c->id = __atomic_fetch_add(&next_ctx_id, 1, __ATOMIC_RELAXED);
    return c;
}

CUresult cuDevicePrimaryCtxRetain(CUcontext *pctx, CUdevice dev) {
    if (!pctx) return rgpu_invalid_value(RGPU_DRIVER);
    if (dev < 0 || dev >= rgpu_device_count()) return rgpu_record(RGPU_DRIVER, RGPU_INVALID_DEVICE);
    rgpu_ctx *c = primary_of(dev);
    __atomic_add_fetch(&primary_refs[dev], 1, __ATOMIC_RELAXED);
    *pctx = c;
    return RGPU_SUCCESS;
}
CUresult cuDevicePrimaryCtxRelease_v2(CUdevice dev) {
    if (dev < 0 || dev >= rgpu_device_count()) return rgpu_record(RGPU_DRIVER, RGPU_INVALID_DEVICE);
    if (primary_refs[dev] > 0) __atomic_sub_fetch(&primary_refs[dev], 1, __ATOMIC_RELAXED);
    return RGPU_SUCCESS;
}
CUresult cuDevicePrimaryCtxReset_v2(CUdevice dev) {
    if (dev < 0 || dev >= rgpu_device_count()) return rgpu_record(RGPU_DRIVER, RGPU_INVALID_DEVICE);
    if (primaries[dev].magic == CTX_MAGIC) cls_clear(&primaries[dev]);
    return cuDevicePrimaryCtxRelease_v2(dev);
}

/* ---- what the export tables need of contexts and devices ---- */

int rgpu_primary_ctx_get(void **pctx, int dev) { return cuDevicePrimaryCtxRetain((CUcontext *)pctx, dev); }

void *rgpu_context_of(int dev) {
    rgpu_ctx *c = current();
    return c && c->dev == dev ? c : primary_of(dev);
}

/* The Runtime's context, as CUDA's runtime binds it: cudaSetDevice (`replace`) makes the device's
 * primary context current in the calling thread unless a context of that device already is (one the
 * program made current itself, which the runtime then uses); any other Runtime call that reaches a
 * device makes it current where the thread has none (its lazy initialisation). Code that mixes the
 * faces reads it back with cuCtxGetCurrent: PyTorch does in autograd's thread before making a cuBLAS
 * handle, and warns ("no current CUDA context") when there is none, which it never does natively. */
void rgpu_bind_runtime_context(int dev, int replace) {
    rgpu_ctx *c = current();
    if ((!c || (replace && c->dev != dev)) && dev >= 0 && dev < rgpu_device_count()) make_current(primary_of(dev));
}

/* How the calling thread waits for a reply (the transport's RGPU_WAIT_*), as the CUDA driver waits for
 * the GPU, by the scheduling flags (CU_CTX_SCHED_*, cudaSetDeviceFlags) of the thread's context, else of
 * its device's primary context (the one the Runtime would bind): SPIN spins, BLOCKING_SYNC blocks, and
 * YIELD and AUTO spin yielding the CPU (CUDA's AUTO spins unless the process has more contexts than
 * CPUs, and a yield costs nothing where no other thread wants the CPU). */
static int wait_mode(void) {
    rgpu_ctx *c = current();
    int dev = rgpu_current_device();
    unsigned flags = c ? c->flags : dev >= 0 && dev < RGPU_MAX_DEVICES ? primaries[dev].flags : 0;
    switch (flags & CU_CTX_SCHED_MASK) {
    case CU_CTX_SCHED_SPIN: return RGPU_WAIT_SPIN;
    case CU_CTX_SCHED_BLOCKING_SYNC: return RGPU_WAIT_BLOCK;
    default: return RGPU_WAIT_YIELD;
    }
}

__attribute__((constructor)) static void register_wait_mode(void) { rgpu_set_wait_policy(wait_mode); }

static rgpu_ctx *ctx_or_current(void *ctx) { return ctx ? valid(ctx) : (depth ? stack[depth - 1] : NULL); }

int rgpu_ctx_cls_put(void *ctx, void *key, void *value, rgpu_cls_dtor dtor) {
    rgpu_ctx *c = ctx_or_current(ctx);
    if (!c) return INVALID_CONTEXT;
    pthread_mutex_lock(&cls_mu);
    int i = 0;
    while (i < c->ncls && c->cls[i].key != key) i++;
    if (i == c->ncls) {
        if (c->ncls == c->capcls) {
            c->capcls = c->capcls ? 2 * c->capcls : 8;
            c->cls = realloc(c->cls, (size_t)c->capcls * sizeof *c->cls);
        }
        c->ncls++;
    }
    c->cls[i] = (cls_entry){key, value, dtor};
    pthread_mutex_unlock(&cls_mu);
    return RGPU_SUCCESS;
}

int rgpu_ctx_cls_get(void *ctx, void *key, void **value) {
    rgpu_ctx *c = ctx_or_current(ctx);
    if (!value) return RGPU_INVALID_VALUE;
    if (!c) return INVALID_CONTEXT;
    int rc = RGPU_INVALID_HANDLE; /* no such key in this context */
    pthread_mutex_lock(&cls_mu);
    for (int i = 0; i < c->ncls; i++)
        if (c->cls[i].key == key) {
            *value = c->cls[i].value;
            rc = RGPU_SUCCESS;
            break;
        }
    pthread_mutex_unlock(&cls_mu);
    return rc;
}

int rgpu_ctx_cls_delete(void *ctx, void *key) {
    rgpu_ctx *c = ctx_or_current(ctx);
    if (!c) return INVALID_CONTEXT;
    pthread_mutex_lock(&cls_mu);
    for (int i = 0; i < c->ncls; i++)
        if (c->cls[i].key == key) {
            c->cls[i] = c->cls[--c->ncls];
            break;
        }
    pthread_mutex_unlock(&cls_mu);
    return RGPU_SUCCESS;
}

int rgpu_ctx_current(void **ctx) {
    *ctx = depth ? stack[depth - 1] : NULL;
    return RGPU_SUCCESS;
}

int rgpu_ctx_id(void *ctx, unsigned long long *id) {
    rgpu_ctx *c = ctx_or_current(ctx);
    if (!id) return RGPU_INVALID_VALUE;
    if (!c) return INVALID_CONTEXT;
    *id = c->id;
    return RGPU_SUCCESS;
}

int rgpu_device_identity(int dev, uint8_t uuid[16], int32_t *pci_domain, int32_t *pci_bus, int32_t *pci_device) {
    int rc = cuDeviceGetUuid_v2((CUuuid *)uuid, dev);
    if (!rc) rc = cuDeviceGetAttribute(pci_domain, CU_DEVICE_ATTRIBUTE_PCI_DOMAIN_ID, dev);
    if (!rc) rc = cuDeviceGetAttribute(pci_bus, CU_DEVICE_ATTRIBUTE_PCI_BUS_ID, dev);
    if (!rc) rc = cuDeviceGetAttribute(pci_device, CU_DEVICE_ATTRIBUTE_PCI_DEVICE_ID, dev);
    return rc;
}
CUresult cuDevicePrimaryCtxGetState(CUdevice dev, unsigned int *flags, int *active) {
    if (!flags || !active) return rgpu_invalid_value(RGPU_DRIVER);
    if (dev < 0 || dev >= rgpu_device_count()) return rgpu_record(RGPU_DRIVER, RGPU_INVALID_DEVICE);
    *flags = primaries[dev].flags;
    *active = primary_refs[dev] > 0;
    return RGPU_SUCCESS;
}
CUresult cuDevicePrimaryCtxSetFlags_v2(CUdevice dev, unsigned int flags) {
    if (dev < 0 || dev >= rgpu_device_count()) return rgpu_record(RGPU_DRIVER, RGPU_INVALID_DEVICE);
    primaries[dev].flags = flags;
    return RGPU_SUCCESS;
}

static int cmp_proc(const void *k, const void *e) { return strcmp(k, ((const rgpu_proc *)e)->name); }

/* rgpu's own entry point for `symbol` as a program built with CUDA `cuda_version` means it: below
 * 13.0 the 12.x headers' names first (cuCtxCreate is cuCtxCreate_v2 there; generated/rgpu_v12.c),
 * then the name or its newest _vN, as the 13.0 headers #define it. */
void *rgpu_proc_lookup(const char *symbol, int cuda_version) {
    const rgpu_proc *p = NULL;
    if (cuda_version > 0 && cuda_version < 13000)
        p = bsearch(symbol, rgpu_procs12, rgpu_nprocs12, sizeof *p, cmp_proc);
    if (p == NULL) p = bsearch(symbol, rgpu_procs, rgpu_nprocs, sizeof *p, cmp_proc);
    return p ? p->fn : NULL;
}

/* What `name` means to a caller built with CUDA `version`, from cudaTypedefs.h's versions
 * (generated/rgpu_proc_versions.c): the newest version not above the caller's, its per-thread form if
 * asked for and there is one. NULL with *status 1 if the table does not know the name, 2 if it knows
 * only newer versions. */
static const char *versioned_symbol(const char *name, int version, int per_thread, int *status) {
    size_t lo = 0, hi = rgpu_nproc_versions;
    while (lo < hi) { /* the first entry of `name` */
        size_t mid = (lo + hi) / 2;
        if (strcmp(rgpu_proc_versions[mid].name, name) < 0) lo = mid + 1;
        else hi = mid;
    }
    const rgpu_proc_version *plain = NULL, *pt = NULL;
    int known = 0;
    for (size_t i = lo; i < rgpu_nproc_versions && !strcmp(rgpu_proc_versions[i].name, name); i++) {
        const rgpu_proc_version *e = &rgpu_proc_versions[i];
        known = 1;
        if (e->version > version) continue;
        if (e->per_thread) pt = e; /* sorted by version: the last one that fits is the newest */
        else plain = e;
    }
    *status = known ? 2 : 1;
    if (per_thread && pt) return pt->symbol;
    return plain ? plain->symbol : NULL;
}

static void *symbol_fn(const char *symbol) {
    const rgpu_proc *p = bsearch(symbol, rgpu_procs_legacy, rgpu_nprocs_legacy, sizeof *p, cmp_proc);
    if (!p) p = bsearch(symbol, rgpu_procs, rgpu_nprocs, sizeof *p, cmp_proc);
    if (!p) p = bsearch(symbol, rgpu_procs12, rgpu_nprocs12, sizeof *p, cmp_proc);
    return p ? p->fn : NULL;
}

void *rgpu_outside_headers_proc(const char *name); /* outside_headers.c */

/* cuGetProcAddress's flags and cudaGetDriverEntryPoint's: per-thread default stream; and rgpu's own
 * flag (above any CUDA defines) for its CUDA 12 runtime face */
#define PER_THREAD_DEFAULT_STREAM 2ull
#define RGPU_PROC_AS_12X_HEADERS (1ull << 62)

int rgpu_proc_address(const char *symbol, void **pfn, int version, unsigned long long flags, int *status) {
    int why = 1;
    const char *resolved = NULL;
    void *fn = NULL;
    /* rgpu's CUDA 12 runtime face asks as the 12.x headers mean a name (cuCtxCreate is cuCtxCreate_v2
     * there, not 12.5's cuCtxCreate_v4): the CUDA 12 face's table says where that differs. NVIDIA's
     * runtimes ask with the version each API appeared in, which the versions table answers. */
    if (flags & RGPU_PROC_AS_12X_HEADERS) {
        const rgpu_proc *p = bsearch(symbol, rgpu_procs12, rgpu_nprocs12, sizeof *p, cmp_proc);
        if (p) fn = p->fn, resolved = p->name;
        flags &= ~RGPU_PROC_AS_12X_HEADERS;
    }
    if (!fn) {
        resolved = versioned_symbol(symbol, version, (flags & PER_THREAD_DEFAULT_STREAM) != 0, &why);
        /* A caller below 13.0 asking for a symbol whose 12.x form differs from 13.0's under the same
         * name (CUdevResource changed layout without a new version) gets the CUDA 12 face's. */
        const rgpu_proc *p12 = resolved && version > 0 && version < 13000
                                   ? bsearch(resolved, rgpu_procs12, rgpu_nprocs12, sizeof *p12, cmp_proc) : NULL;
        fn = p12 ? p12->fn : resolved ? symbol_fn(resolved) : NULL;
    }
    /* names cudaTypedefs.h has no versions for (the ones rgpu adds, cuGetExportTable's neighbours) */
    if (!fn && why == 1) fn = rgpu_proc_lookup(symbol, version);
    if (!fn && why == 1) fn = rgpu_outside_headers_proc(symbol);
    *pfn = fn;
    if (status) *status = fn ? 0 : why; /* CU_GET_PROC_ADDRESS_SUCCESS / _SYMBOL_NOT_FOUND / _VERSION_NOT_SUFFICIENT */
    rgpu_log(RGPU_LOG_DEBUG, "cuGetProcAddress %s (CUDA %d, flags %llu): %s", symbol, version, flags,
             fn ? (resolved ? resolved : symbol) : why == 2 ? "newer than the caller" : "not found");
    return fn ? RGPU_SUCCESS : 500 /* CUDA_ERROR_NOT_FOUND */;
}

CUresult cuGetProcAddress_v2(const char *symbol, void **pfn, int cudaVersion, cuuint64_t flags,
                             CUdriverProcAddressQueryResult *status) {
    if (!symbol || !pfn) return rgpu_invalid_value(RGPU_DRIVER);
    int rc = rgpu_proc_address(symbol, pfn, cudaVersion, flags, (int *)status);
    return rc ? rgpu_record(RGPU_DRIVER, rc) : rc;
}

/* The CUDA 11.3 form, without the status (generated/rgpu_proc_versions.c exports it as cuGetProcAddress). */
CUresult rgpu_cuGetProcAddress_v1(const char *symbol, void **pfn, int cudaVersion, cuuint64_t flags) {
    return cuGetProcAddress_v2(symbol, pfn, cudaVersion, flags, NULL);
}

static int entry_point(const char *symbol, void **fn, int cuda_version, unsigned long long flags,
                       enum cudaDriverEntryPointQueryResult *status) {
    if (!symbol || !fn) return rgpu_invalid_value(RGPU_RUNTIME);
    int rc = rgpu_proc_address(symbol, fn, cuda_version, flags, (int *)status);
    return rc ? rgpu_record(RGPU_RUNTIME, cudaErrorSymbolNotFound) : rc;
}

/* A CUDA 13 caller (12 callers reach rgpu12impl_cudaGetDriverEntryPoint in cuda12.c). */
cudaError_t cudaGetDriverEntryPoint(const char *symbol, void **fn, unsigned long long flags,
                                    enum cudaDriverEntryPointQueryResult *status) {
    return entry_point(symbol, fn, RGPU_CUDA_VERSION, flags, status);
}

cudaError_t cudaGetDriverEntryPointByVersion(const char *symbol, void **fn, unsigned int v, unsigned long long flags,
                                             enum cudaDriverEntryPointQueryResult *status) {
    return entry_point(symbol, fn, (int)v, flags, status);
}

/* rgpu loads a module's code on the server when its first kernel or variable is asked for, which is
 * what CUDA calls lazy loading (CU_MODULE_LAZY_LOADING = 2; the runtimes adapt their own loading to it). */
CUresult cuModuleGetLoadingMode(CUmoduleLoadingMode *mode) {
    if (!mode) return rgpu_invalid_value(RGPU_DRIVER);
    *mode = CU_MODULE_LAZY_LOADING;
    return RGPU_SUCCESS;
}
