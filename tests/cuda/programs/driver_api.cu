// The same operations through the Driver API, plus cuGetProcAddress returning rgpu's functions.
#include <cstring>
#include <thread>
#include <vector>
#include <cuda.h>
#include <cuda_runtime.h>
#include <cstdio>

#include "driver_check.h"

int main() {
    CK(cuInit(0));
    int n = 0, ver = 0;
    CK(cuDeviceGetCount(&n));
    CK(cuDriverGetVersion(&ver));
    EXPECT(n >= 1);
    CUdevice dev;
    CK(cuDeviceGet(&dev, 0));
    char name[128];
    CK(cuDeviceGetName(name, sizeof name, dev));
    size_t total = 0;
    CK(cuDeviceTotalMem(&total, dev));
    int major = 0, minor = 0;
    CK(cuDeviceGetAttribute(&major, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, dev));
    CK(cuDeviceGetAttribute(&minor, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, dev));
    printf("driver %d device %s sm_%d%d mem %zu\n", ver, name, major, minor, total);
    CUcontext ctx, cur = nullptr;
    CK(cuDevicePrimaryCtxRetain(&ctx, dev));
    CK(cuCtxSetCurrent(ctx));
    CK(cuCtxGetCurrent(&cur));
    EXPECT(cur == ctx);
    const size_t N = 1 << 20;
    std::vector<int> h(N), back(N, 0);
    for (size_t i = 0; i < N; i++) h[i] = (int)(i * 7);
    CUdeviceptr a, b;
    CK(cuMemAlloc(&a, N * sizeof(int)));
    CK(cuMemAlloc(&b, N * sizeof(int)));
    CUstream s;
    CUevent e0, e1;
    CK(cuStreamCreate(&s, CU_STREAM_NON_BLOCKING));
    CK(cuEventCreate(&e0, CU_EVENT_DEFAULT));
    CK(cuEventCreate(&e1, CU_EVENT_DEFAULT));
    CK(cuEventRecord(e0, s));
    CK(cuMemcpyHtoDAsync(a, h.data(), N * sizeof(int), s));
    CK(cuMemcpyDtoDAsync(b, a, N * sizeof(int), s));
    CK(cuMemcpyDtoHAsync(back.data(), b, N * sizeof(int), s));
    CK(cuEventRecord(e1, s));
    CK(cuStreamSynchronize(s));
    float ms = -1;
    CK(cuEventElapsedTime(&ms, e0, e1));
    EXPECT(ms >= 0);
    EXPECT(memcmp(h.data(), back.data(), N * sizeof(int)) == 0);
    CK(cuMemsetD32(a, 0xabcdef01u, N));
    CK(cuMemcpyDtoH(back.data(), a, 16));
    EXPECT((unsigned)back[3] == 0xabcdef01u);
    size_t fr = 0, tot = 0;
    CK(cuMemGetInfo(&fr, &tot));
    EXPECT(tot == total && fr < tot);
    // cuGetProcAddress hands back rgpu's own entry points, by the header's un-suffixed names
    void *fn = nullptr;
    CUdriverProcAddressQueryResult q;
    CK(cuGetProcAddress("cuMemAlloc", &fn, 12000, CU_GET_PROC_ADDRESS_DEFAULT, &q));
    EXPECT(fn != nullptr && q == CU_GET_PROC_ADDRESS_SUCCESS);
    CUdeviceptr c;
    CK(((CUresult(*)(CUdeviceptr *, size_t))fn)(&c, 4096));
    CK(cuMemFree(c));
    EXPECT(cuGetProcAddress("cuNoSuchFunction", &fn, 12000, CU_GET_PROC_ADDRESS_DEFAULT, &q) == CUDA_ERROR_NOT_FOUND);
    EXPECT(cuMemFree((CUdeviceptr)0x1000) == CUDA_ERROR_INVALID_VALUE);
    CK(cuEventDestroy(e0));
    CK(cuEventDestroy(e1));
    CK(cuStreamDestroy(s));
    CK(cuMemFree(a));
    CK(cuMemFree(b));
    // cudaSetDevice makes the device's primary context current in the calling thread (CUDA 12 on): a
    // thread that only called the Runtime finds it through the Driver API, as PyTorch's autograd
    // thread does before making its cuBLAS handle; a context of that device already current stays.
    // Any other Runtime call that reaches the device binds it where the thread has none (lazily).
    CUcontext in_thread = nullptr, kept = nullptr, mine = nullptr, lazily = nullptr;
    std::thread([&] {
        if (cudaSetDevice(0) == cudaSuccess) cuCtxGetCurrent(&in_thread);
        if (cuCtxCreate(&mine, nullptr, 0, dev) == CUDA_SUCCESS && cudaSetDevice(0) == cudaSuccess) cuCtxGetCurrent(&kept);
        if (mine) cuCtxDestroy(mine);
    }).join();
    std::thread([&] {
        void *p = nullptr;
        if (cudaMalloc(&p, 256) == cudaSuccess) cuCtxGetCurrent(&lazily);
        cudaFree(p);
    }).join();
    EXPECT(in_thread == ctx);
    EXPECT(kept == mine && mine != nullptr);
    EXPECT(lazily == ctx);
    CK(cuDevicePrimaryCtxRelease(dev));
    printf("OK driver_api\n");
    return 0;
}
