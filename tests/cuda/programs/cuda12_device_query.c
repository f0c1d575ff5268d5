/* A device query as CUDA 12 builds it: compiled against the 12.x cuda_runtime_api.h (where
 * cudaGetDeviceProperties is cudaGetDeviceProperties_v2 and cudaDeviceProp is 1032 bytes) and linked
 * to libcudart.so.12. Prints what it got as key=value lines for the test to check; guard bytes after
 * each struct catch a library that writes a bigger (13.0) layout. */
#include <stdio.h>
#include <string.h>

#include <cuda_runtime_api.h>

#define GUARD 64
#define CHECK(x) do { cudaError_t rc_ = (x); if (rc_ != cudaSuccess) { \
    printf("FAIL %s: %s\n", #x, cudaGetErrorName(rc_)); return 1; } } while (0)

static int guard_intact(const unsigned char *p, size_t n) {
    for (size_t i = 0; i < GUARD; i++)
        if (p[n + i] != 0xA5) return 0;
    return 1;
}

int main(void) {
    static unsigned char buf[sizeof(struct cudaDeviceProp) + GUARD];
    struct cudaDeviceProp *prop = (struct cudaDeviceProp *)buf;
    int version = 0;
    memset(buf, 0xA5, sizeof buf);
    CHECK(cudaRuntimeGetVersion(&version));
    CHECK(cudaGetDeviceProperties(prop, 0)); /* cudaGetDeviceProperties_v2@libcudart.so.12 */
    printf("runtimeVersion=%d\n", version);
    printf("sizeof=%zu\n", sizeof(struct cudaDeviceProp));
    printf("guard=%d\n", guard_intact(buf, sizeof(struct cudaDeviceProp)));
    printf("name=%s\n", prop->name);
    printf("totalGlobalMem=%zu\n", prop->totalGlobalMem);
    printf("major=%d\nminor=%d\n", prop->major, prop->minor);
    printf("multiProcessorCount=%d\n", prop->multiProcessorCount);
    printf("maxThreadsPerBlock=%d\nwarpSize=%d\n", prop->maxThreadsPerBlock, prop->warpSize);
    printf("sharedMemPerBlock=%zu\n", prop->sharedMemPerBlock);
    printf("maxGridSize=%d,%d,%d\n", prop->maxGridSize[0], prop->maxGridSize[1], prop->maxGridSize[2]);
    printf("l2CacheSize=%d\n", prop->l2CacheSize);
    printf("maxBlocksPerMultiProcessor=%d\n", prop->maxBlocksPerMultiProcessor);
    printf("reservedSharedMemPerBlock=%zu\n", prop->reservedSharedMemPerBlock);
    /* fields CUDA 13 dropped from cudaDeviceProp */
    printf("clockRate=%d\nmemoryClockRate=%d\n", prop->clockRate, prop->memoryClockRate);
    printf("deviceOverlap=%d\nkernelExecTimeoutEnabled=%d\n", prop->deviceOverlap, prop->kernelExecTimeoutEnabled);
    printf("computeMode=%d\n", prop->computeMode);
    printf("singleToDoublePrecisionPerfRatio=%d\n", prop->singleToDoublePrecisionPerfRatio);
    printf("cooperativeMultiDeviceLaunch=%d\n", prop->cooperativeMultiDeviceLaunch);

    size_t free_b = 0, total_b = 0;
    CHECK(cudaMemGetInfo(&free_b, &total_b));
    printf("memGetInfoTotal=%zu\n", total_b);

    /* cudaPointerAttributes is 24 bytes in 12.x, 88 in 13.0 */
    static unsigned char abuf[sizeof(struct cudaPointerAttributes) + GUARD];
    struct cudaPointerAttributes *attr = (struct cudaPointerAttributes *)abuf;
    void *d = NULL;
    memset(abuf, 0xA5, sizeof abuf);
    CHECK(cudaMalloc(&d, 4096));
    CHECK(cudaPointerGetAttributes(attr, d));
    printf("ptrType=%d\nptrDevice=%d\nptrDevicePointerMatches=%d\nptrGuard=%d\n", (int)attr->type, attr->device,
           attr->devicePointer == d, guard_intact(abuf, sizeof(struct cudaPointerAttributes)));

    /* names 13.0 removed, and a 12.x form 13.0 changed */
    printf("threadSynchronize=%s\n", cudaGetErrorName(cudaThreadSynchronize()));
    size_t stack = 0;
    printf("threadGetLimit=%s\n", cudaGetErrorName(cudaThreadGetLimit(&stack, cudaLimitStackSize)));
    printf("threadStackLimit=%zu\n", stack);
    printf("memAdvise12=%s\n", cudaGetErrorName(cudaMemAdvise(d, 4096, cudaMemAdviseSetReadMostly, 0)));
    printf("lastErrorAfterUnsupported=%s\n", cudaGetErrorName(cudaGetLastError()));

    /* the 12.x runtime resolves Driver names at 12.x: cuCtxCreate takes (ctx, flags, dev) there */
    void *fn = NULL;
    enum cudaDriverEntryPointQueryResult q;
    CHECK(cudaGetDriverEntryPoint("cuCtxCreate", &fn, cudaEnableDefault, &q));
    void *ctx = NULL;
    int create_rc = ((int (*)(void **, unsigned, int))fn)(&ctx, 0, 0);
    printf("entryPointCtxCreate=%d\nentryPointCtx=%d\n", create_rc, ctx != NULL);
    CHECK(cudaGetDriverEntryPoint("cuCtxDestroy", &fn, cudaEnableDefault, &q));
    printf("entryPointCtxDestroy=%d\n", ((int (*)(void *))fn)(ctx));

    CHECK(cudaFree(d));
    printf("OK cuda12_device_query\n");
    return 0;
}
