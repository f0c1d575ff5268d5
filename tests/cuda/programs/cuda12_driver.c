/* A Driver API program as CUDA 12 builds it: against the 12.x cuda.h, where cuCtxCreate is
 * cuCtxCreate_v2 (13.0 made it _v4) and cuEventElapsedTime, cuMemAdvise are the first versions.
 * Runs a kernel from PTX (argv[1]) and prints key=value lines for the test. */
#include <stdio.h>
#include <string.h>

#include <cuda.h>

#define CHECK(x) do { CUresult rc_ = (x); if (rc_ != CUDA_SUCCESS) { const char *n_ = "?"; \
    cuGetErrorName(rc_, &n_); printf("FAIL %s: %s\n", #x, n_); return 1; } } while (0)

static const char *name_of(CUresult rc) {
    const char *n = "?";
    cuGetErrorName(rc, &n);
    return n;
}

int main(int argc, char **argv) {
    enum { N = 777 };
    CUdevice dev;
    CUcontext ctx;
    CUmodule mod;
    CUfunction scale;
    if (argc < 2) { printf("FAIL usage: cuda12_driver PTX\n"); return 2; }
    CHECK(cuInit(0));
    CHECK(cuDeviceGet(&dev, 0));
    CHECK(cuCtxCreate(&ctx, 0, dev)); /* cuCtxCreate_v2 */
    CHECK(cuModuleLoad(&mod, argv[1]));
    CHECK(cuModuleGetFunction(&scale, mod, "scale"));

    float host[N], back[N], a = -2.5f;
    int n = N;
    for (int i = 0; i < N; i++) host[i] = (float)i;
    CUdeviceptr d;
    CUevent e0, e1;
    CHECK(cuMemAlloc(&d, sizeof host));
    CHECK(cuMemcpyHtoD(d, host, sizeof host));
    CHECK(cuEventCreate(&e0, 0));
    CHECK(cuEventCreate(&e1, 0));
    CHECK(cuEventRecord(e0, NULL));
    void *params[] = {&d, &a, &n};
    CHECK(cuLaunchKernel(scale, (N + 63) / 64, 1, 1, 64, 1, 1, 0, NULL, params, NULL));
    CHECK(cuEventRecord(e1, NULL));
    CHECK(cuCtxSynchronize());
    CHECK(cuMemcpyDtoH(back, d, sizeof back));
    int bad = 0;
    for (int i = 0; i < N; i++) bad += back[i] != a * i;
    printf("kernelMismatches=%d\n", bad);
    float ms = -1;
    printf("eventElapsedTime=%s\n", name_of(cuEventElapsedTime(&ms, e0, e1))); /* the first version */
    printf("elapsedNonNegative=%d\n", ms >= 0);
    CUuuid uuid;
    memset(&uuid, 0, sizeof uuid);
    printf("deviceGetUuid=%s\n", name_of(cuDeviceGetUuid(&uuid, dev)));
    int nonzero = 0;
    for (int i = 0; i < 16; i++) nonzero |= uuid.bytes[i];
    printf("uuidNonZero=%d\n", nonzero != 0);
    printf("memAdvise12=%s\n", name_of(cuMemAdvise(d, sizeof host, CU_MEM_ADVISE_SET_READ_MOSTLY, dev)));

    /* cuGetProcAddress answers the newest version of a name not newer than the one asked for:
     * cuCtxCreate as CUDA 3.2 defined it is cuCtxCreate_v2, as 12.5 and later define it cuCtxCreate_v4 */
    void *fn = NULL;
    CUdriverProcAddressQueryResult st;
    CHECK(cuGetProcAddress("cuCtxCreate", &fn, 3020, 0, &st));
    printf("proc12_cuCtxCreate_is_v2=%d\n", fn == (void *)cuCtxCreate_v2);
    CHECK(cuGetProcAddress("cuCtxCreate", &fn, 12090, 0, &st));
    printf("proc13_cuCtxCreate_is_v4=%d\n", fn == (void *)cuCtxCreate_v4);
    CHECK(cuGetProcAddress("cuCtxCreate", &fn, 3020, 0, &st));
    CUcontext ctx2;
    printf("proc12_cuCtxCreate_call=%s\n", name_of(((CUresult (*)(CUcontext *, unsigned, CUdevice))fn)(&ctx2, 0, dev)));
    CHECK(cuCtxDestroy(ctx2));
    CHECK(cuCtxSetCurrent(ctx));
    CHECK(cuGetProcAddress("cuDeviceGetDevResource", &fn, 12090, 0, &st));
    CUdevResource res;
    printf("proc12_devResource=%s\n",
           name_of(((CUresult (*)(CUdevice, CUdevResource *, CUdevResourceType))fn)(dev, &res, CU_DEV_RESOURCE_TYPE_SM)));

    CHECK(cuMemFree(d));
    CHECK(cuModuleUnload(mod));
    CHECK(cuCtxDestroy(ctx));
    printf("OK cuda12_driver\n");
    return 0;
}
