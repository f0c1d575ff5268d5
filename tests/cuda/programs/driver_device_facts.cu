// Device attributes and properties asked many times, through both APIs: every answer agrees with
// the first cudaGetDeviceProperties, unknown attributes and devices still fail as CUDA says.
// Usage: driver_device_facts [N]  (N rounds of queries; the test compares the round trips of N = 0
// and a large N: the facts come with the session, so the queries add none).
#include <cstring>
#include <cuda.h>
#include <cuda_runtime.h>
#include "check.h"

int main(int argc, char **argv) {
    int n = argc > 1 ? atoi(argv[1]) : 1000;
    cudaDeviceProp p, q;
    CHECK(cudaGetDeviceProperties(&p, 0));
    CUdevice dev;
    EXPECT(cuInit(0) == CUDA_SUCCESS && cuDeviceGet(&dev, 0) == CUDA_SUCCESS);
    // Every attribute once through each API: the same result and value.
    int answered = 0;
    for (int a = 1; a < CU_DEVICE_ATTRIBUTE_MAX; a++) {
        int rv = -7, dv = -7;
        cudaError_t re = cudaDeviceGetAttribute(&rv, (cudaDeviceAttr)a, 0);
        CUresult de = cuDeviceGetAttribute(&dv, (CUdevice_attribute)a, dev);
        EXPECT((int)re == (int)de);
        if (re == cudaSuccess) { EXPECT(rv == dv); answered++; }
        else cudaGetLastError();
    }
    EXPECT(answered > 100);
    for (int i = 0; i < n; i++) {
        int v;
        CHECK(cudaDeviceGetAttribute(&v, cudaDevAttrMultiProcessorCount, 0));
        EXPECT(v == p.multiProcessorCount);
        EXPECT(cuDeviceGetAttribute(&v, CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK, dev) == CUDA_SUCCESS);
        EXPECT(v == p.maxThreadsPerBlock);
        CHECK(cudaDeviceGetAttribute(&v, cudaDevAttrComputeCapabilityMajor, 0));
        EXPECT(v == p.major);
        char name[256];
        EXPECT(cuDeviceGetName(name, sizeof name, dev) == CUDA_SUCCESS && strcmp(name, p.name) == 0);
        EXPECT(cuDeviceGetName(name, 5, dev) == CUDA_SUCCESS && strncmp(name, p.name, 4) == 0 && name[4] == 0);
        int ma, mi;
        EXPECT(cuDeviceComputeCapability(&ma, &mi, dev) == CUDA_SUCCESS && ma == p.major && mi == p.minor);
        size_t total;
        EXPECT(cuDeviceTotalMem(&total, dev) == CUDA_SUCCESS && total == p.totalGlobalMem);
        CUuuid u;
        EXPECT(cuDeviceGetUuid(&u, dev) == CUDA_SUCCESS && memcmp(&u, &p.uuid, sizeof u) == 0);
        if (i % 10 == 0) {
            CHECK(cudaGetDeviceProperties(&q, 0));
            EXPECT(memcmp(&p, &q, sizeof p) == 0);
        }
    }
    int v = 0;
    EXPECT(cudaDeviceGetAttribute(&v, (cudaDeviceAttr)100000, 0) == cudaErrorInvalidValue);
    EXPECT(cudaGetLastError() == cudaErrorInvalidValue);
    EXPECT(cudaDeviceGetAttribute(&v, cudaDevAttrMultiProcessorCount, 7) == cudaErrorInvalidDevice);
    EXPECT(cudaDeviceGetAttribute(nullptr, cudaDevAttrMultiProcessorCount, 0) == cudaErrorInvalidValue);
    EXPECT(cudaGetDeviceProperties(&q, 7) == cudaErrorInvalidDevice);
    EXPECT(cuDeviceGetAttribute(&v, (CUdevice_attribute)100000, dev) == CUDA_ERROR_INVALID_VALUE);
    char name[8];
    EXPECT(cuDeviceGetName(name, sizeof name, 7) == CUDA_ERROR_INVALID_DEVICE);
    EXPECT(cuDeviceGetName(nullptr, 8, dev) == CUDA_ERROR_INVALID_VALUE);
    cudaGetLastError();
    printf("OK device_facts %d SMs\n", p.multiProcessorCount);
    return 0;
}
