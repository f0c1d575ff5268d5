/* What nvcc's host code calls at load time: __cudaRegisterFatBinary and friends. Modules are kept
 * here (wrapper pointer, kernels by host stub, variables by host shadow) for the launch path, which
 * uploads each module to a session lazily; registration itself never talks to a server. */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "rgpu_call.h"

#define FATBIN_MAGIC 0x466243b1u

typedef struct { int magic; int version; const void *data; void *filename_or_fatbins; } fatbin_wrapper;

typedef struct rgpu_kernel { const void *host_fn; const char *name; void **module; } rgpu_kernel;
typedef struct rgpu_var { const void *host_var; const char *name; size_t size; int constant; void **module; } rgpu_var;

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static rgpu_kernel *kernels;
static size_t nkernels, capk;
static rgpu_var *vars;
static size_t nvars, capv;

void **__cudaRegisterFatBinary(void *fatCubin) {
    fatbin_wrapper *w = fatCubin;
    void **handle = calloc(2, sizeof(void *));
    handle[0] = fatCubin;
    if (!w || (unsigned)w->magic != FATBIN_MAGIC)
        rgpu_log(RGPU_LOG_WARN, "__cudaRegisterFatBinary: not an nvcc fatbin wrapper (magic 0x%x)", w ? (unsigned)w->magic : 0u);
    return handle;
}

void __cudaRegisterFatBinaryEnd(void **handle) { (void)handle; }

void __cudaUnregisterFatBinary(void **handle) {
    pthread_mutex_lock(&mu);
    for (size_t i = 0; i < nkernels; i++)
        if (kernels[i].module == handle) kernels[i].module = NULL;
    for (size_t i = 0; i < nvars; i++)
        if (vars[i].module == handle) vars[i].module = NULL;
    pthread_mutex_unlock(&mu);
    free(handle);
}

void __cudaRegisterFunction(void **handle, const char *hostFun, char *deviceFun, const char *deviceName,
                            int thread_limit, void *tid, void *bid, void *bDim, void *gDim, int *wSize) {
    (void)deviceFun; (void)thread_limit; (void)tid; (void)bid; (void)bDim; (void)gDim; (void)wSize;
    pthread_mutex_lock(&mu);
    if (nkernels == capk) {
        capk = capk ? capk * 2 : 32;
        kernels = realloc(kernels, capk * sizeof *kernels);
    }
    kernels[nkernels++] = (rgpu_kernel){hostFun, deviceName, handle};
    pthread_mutex_unlock(&mu);
}

void __cudaRegisterVar(void **handle, char *hostVar, char *deviceAddress, const char *deviceName,
                       int ext, size_t size, int constant, int global) {
    (void)deviceAddress; (void)ext; (void)global;
    pthread_mutex_lock(&mu);
    if (nvars == capv) {
        capv = capv ? capv * 2 : 32;
        vars = realloc(vars, capv * sizeof *vars);
    }
    vars[nvars++] = (rgpu_var){hostVar, deviceName, size, constant, handle};
    pthread_mutex_unlock(&mu);
}

void __cudaRegisterManagedVar(void **handle, void **hostVarPtrAddress, char *deviceAddress,
                              const char *deviceName, int ext, size_t size, int constant, int global) {
    (void)handle; (void)hostVarPtrAddress; (void)deviceAddress; (void)ext; (void)size; (void)constant; (void)global;
    rgpu_log(RGPU_LOG_WARN, "managed variable %s: managed memory is not supported by rgpu", deviceName);
}

char __cudaInitModule(void **handle) { (void)handle; return 0; }

/* Kernel launches arrive with the launch path (issue 4); until then they fail cleanly. */
static __thread struct { unsigned g[3], b[3]; size_t shmem; void *stream; int valid; } cfg;

unsigned __cudaPushCallConfiguration(unsigned gx, unsigned gy, unsigned gz, unsigned bx, unsigned by,
                                     unsigned bz, size_t shmem, void *stream) {
    /* dim3 by value arrives as two registers each on x86-64; nvcc declares the dims as dim3 */
    cfg.g[0] = gx; cfg.g[1] = gy; cfg.g[2] = gz;
    cfg.b[0] = bx; cfg.b[1] = by; cfg.b[2] = bz;
    cfg.shmem = shmem;
    cfg.stream = stream;
    cfg.valid = 1;
    return 0;
}

int __cudaPopCallConfiguration(void *grid, void *block, size_t *shmem, void **stream) {
    if (grid) memcpy(grid, cfg.g, sizeof cfg.g);
    if (block) memcpy(block, cfg.b, sizeof cfg.b);
    if (shmem) *shmem = cfg.shmem;
    if (stream) *stream = cfg.stream;
    cfg.valid = 0;
    return 0;
}

int __cudaGetKernel(void **kernel, const void *hostFun) {
    if (kernel) *kernel = (void *)hostFun;
    return 0;
}

int __cudaLaunchKernel(const void *kernel, ...) {
    (void)kernel;
    return rgpu_unsupported(RGPU_RUNTIME, "__cudaLaunchKernel");
}

int __cudaLaunchKernel_ptsz(const void *kernel, ...) {
    (void)kernel;
    return rgpu_unsupported(RGPU_RUNTIME, "__cudaLaunchKernel_ptsz");
}
