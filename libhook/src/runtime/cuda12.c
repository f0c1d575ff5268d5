/* The CUDA 12 entry points that cannot jump straight to the 13.0 function (protocol/contract/cuda12.toml,
 * [handwritten]): their structs have the 12.x layout, or their 12.x name means another call.
 * The Runtime ones are reached only through name@libcudart.so.12 (generated/rgpu_v12.c), so a
 * CUDA 13 program never sees them; the layouts and converters are generated from the 12.x headers. */
#include <string.h>

#include "rgpu_call.h"
#include "rgpu_cuda12.h"

void *rgpu_proc_lookup(const char *symbol, int cuda_version);
int rgpu_proc_address(const char *symbol, void **pfn, int version, unsigned long long flags, int *status);

/* 12.x headers #define cudaGetDeviceProperties to this one; both fill the 12.x cudaDeviceProp. */
int rgpu12impl_cudaGetDeviceProperties_v2(void *prop12, int device)
{
    struct cudaDeviceProp prop13;
    if (prop12 == NULL) return rgpu_invalid_value(RGPU_RUNTIME);
    int rc = cudaGetDeviceProperties(&prop13, device);
    if (rc != 0) return rc;
    rgpu12_from13_cudaDeviceProp(prop12, &prop13);
    /* clockRate and the other fields 13.0 dropped: their device attributes, so a 12 program that
     * prints or divides by them gets the device's values, not zeros */
    return rgpu12_fill_cudaDeviceProp(prop12, device);
}

int rgpu12impl_cudaGetDeviceProperties(void *prop12, int device)
{
    return rgpu12impl_cudaGetDeviceProperties_v2(prop12, device);
}

/* 12.x's cudaPointerAttributes is 24 bytes; 13.0 writes 88. */
int rgpu12impl_cudaPointerGetAttributes(void *attributes12, const void *ptr)
{
    struct cudaPointerAttributes attr13;
    if (attributes12 == NULL) return rgpu_invalid_value(RGPU_RUNTIME);
    int rc = cudaPointerGetAttributes(&attr13, ptr);
    if (rc == 0) rgpu12_from13_cudaPointerAttributes(attributes12, &attr13);
    return rc;
}

/* A CUDA 12 program linked libcudart.so.12 and may check that it got at least its own version. */
int rgpu12impl_cudaRuntimeGetVersion(int *v)
{
    if (v == NULL) return rgpu_invalid_value(RGPU_RUNTIME);
    *v = RGPU12_CUDA_VERSION;
    return RGPU_SUCCESS;
}

/* The 12.x runtime resolves Driver names at its own version: cuCtxCreate is cuCtxCreate_v2 there. */
int rgpu12impl_cudaGetDriverEntryPoint(const char *symbol, void **fn, unsigned long long flags, int *status)
{
    if (symbol == NULL || fn == NULL) return rgpu_invalid_value(RGPU_RUNTIME);
    int rc = rgpu_proc_address(symbol, fn, RGPU12_CUDA_VERSION, flags | (1ull << 62) /* as 12.x headers mean it */, status);
    return rc ? rgpu_record(RGPU_RUNTIME, cudaErrorSymbolNotFound) : RGPU_SUCCESS;
}

/* What 12.x headers call cuCtxCreate: no creation parameters. */
int cuCtxCreate_v2(CUcontext *pctx, unsigned int flags, CUdevice dev)
{
    return cuCtxCreate_v4(pctx, NULL, flags, dev);
}

/* cuCtxCreate_v3 adds execution-affinity parameters (SM counts), which a vGPU does not partition by. */
int cuCtxCreate_v3(CUcontext *pctx, void *params, int nparams, unsigned int flags, CUdevice dev)
{
    if (nparams > 0) return rgpu_unsupported(RGPU_DRIVER, "cuCtxCreate_v3 with execution affinity");
    return cuCtxCreate_v4(pctx, NULL, flags, dev);
}
