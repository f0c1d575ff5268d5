/* Driver API functions the client answers itself: init, devices, versions, contexts, host memory,
 * and cuGetProcAddress. A context is a client object naming a device (that device's session);
 * making it current makes its device current for the Runtime face too, as in CUDA. */
#include <stdlib.h>
#include <string.h>

#include "rgpu_call.h"
#include "rgpu_cuda12.h"
#include "session.h"


#define CTX_MAGIC 0x52475055u /* "RGPU" */
#define INVALID_CONTEXT CUDA_ERROR_INVALID_CONTEXT

/* A context is the struct CUcontext points to (rgpu defines what CUDA leaves opaque). */
typedef struct CUctx_st {
    unsigned magic;
    int dev;
    unsigned flags;
    int primary;
    unsigned long long id;
} rgpu_ctx;

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

CUresult cuCtxDestroy_v2(CUcontext ctx) {
    rgpu_ctx *c = valid(ctx);
    if (!c || c->primary) return rgpu_record(RGPU_DRIVER, INVALID_CONTEXT);
    for (int i = 0; i < depth; i++)
        if (stack[i] == c) stack[i] = NULL;
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

CUresult cuDevicePrimaryCtxRetain(CUcontext *pctx, CUdevice dev) {
    if (!pctx) return rgpu_invalid_value(RGPU_DRIVER);
    if (dev < 0 || dev >= rgpu_device_count()) return rgpu_record(RGPU_DRIVER, RGPU_INVALID_DEVICE);
    rgpu_ctx *c = &primaries[dev];
    c->magic = CTX_MAGIC;
    c->dev = dev;
    c->primary = 1;
    if (!c->id) c->id = __atomic_fetch_add(&next_ctx_id, 1, __ATOMIC_RELAXED);
    __atomic_add_fetch(&primary_refs[dev], 1, __ATOMIC_RELAXED);
    *pctx = c;
    return RGPU_SUCCESS;
}
CUresult cuDevicePrimaryCtxRelease_v2(CUdevice dev) {
    if (dev < 0 || dev >= rgpu_device_count()) return rgpu_record(RGPU_DRIVER, RGPU_INVALID_DEVICE);
    if (primary_refs[dev] > 0) __atomic_sub_fetch(&primary_refs[dev], 1, __ATOMIC_RELAXED);
    return RGPU_SUCCESS;
}
CUresult cuDevicePrimaryCtxReset_v2(CUdevice dev) { return cuDevicePrimaryCtxRelease_v2(dev); }
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

CUresult cuGetProcAddress_v2(const char *symbol, void **pfn, int cudaVersion, cuuint64_t flags, CUdriverProcAddressQueryResult *status) {
    (void)flags;
    if (!symbol || !pfn) return rgpu_invalid_value(RGPU_DRIVER);
    *pfn = rgpu_proc_lookup(symbol, cudaVersion);
    if (status) *status = *pfn ? CU_GET_PROC_ADDRESS_SUCCESS : CU_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND;
    return *pfn ? RGPU_SUCCESS : rgpu_record(RGPU_DRIVER, CUDA_ERROR_NOT_FOUND);
}

static int entry_point(const char *symbol, void **fn, int cuda_version, enum cudaDriverEntryPointQueryResult *status) {
    if (!symbol || !fn) return rgpu_invalid_value(RGPU_RUNTIME);
    *fn = rgpu_proc_lookup(symbol, cuda_version);
    if (status) *status = *fn ? cudaDriverEntryPointSuccess : cudaDriverEntryPointSymbolNotFound;
    return *fn ? RGPU_SUCCESS : rgpu_record(RGPU_RUNTIME, cudaErrorSymbolNotFound);
}

/* A CUDA 13 caller (12 callers reach rgpu12impl_cudaGetDriverEntryPoint in cuda12.c). */
cudaError_t cudaGetDriverEntryPoint(const char *symbol, void **fn, unsigned long long flags, enum cudaDriverEntryPointQueryResult *status) {
    (void)flags;
    return entry_point(symbol, fn, RGPU_CUDA_VERSION, status);
}

cudaError_t cudaGetDriverEntryPointByVersion(const char *symbol, void **fn, unsigned int v, unsigned long long flags, enum cudaDriverEntryPointQueryResult *status) {
    (void)flags;
    return entry_point(symbol, fn, (int)v, status);
}
