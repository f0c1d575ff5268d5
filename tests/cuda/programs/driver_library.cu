// Driver API: PTX linking (cuLink* of two PTX files), a library from a file (cuLibrary*/cuKernel*),
// cuLaunchKernelEx; Runtime API: cudaLaunchKernelExC and cudaFuncGetParamInfo.
// Usage: driver_library LINK_A.ptx LINK_B.ptx SAXPY.ptx
#include <cstdio>
#include <vector>
#include <cuda.h>
#include <cuda_runtime.h>

#include "driver_check.h"
#define CR(call) do { cudaError_t e_ = (call); if (e_ != cudaSuccess) { \
    printf("FAIL %s:%d %s -> %s\n", __FILE__, __LINE__, #call, cudaGetErrorName(e_)); return 1; } } while (0)

__global__ void add_one(int *x, int n) { int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) x[i] += 1; }

int main(int argc, char **argv) {
    if (argc < 4) return 2;
    CK(cuInit(0));
    CUdevice dev;
    CUcontext ctx;
    CK(cuDeviceGet(&dev, 0));
    CK(cuDevicePrimaryCtxRetain(&ctx, dev));
    CK(cuCtxSetCurrent(ctx));
    const int n = 1000;
    std::vector<float> h(n);
    for (int i = 0; i < n; i++) h[i] = (float)i;
    CUdeviceptr x;
    CK(cuMemAlloc(&x, n * sizeof(float)));
    CK(cuMemcpyHtoD(x, h.data(), n * sizeof(float)));

    // link two PTX units: the kernel of one calls a function of the other
    CUlinkState link;
    CK(cuLinkCreate(0, nullptr, nullptr, &link));
    CK(cuLinkAddFile(link, CU_JIT_INPUT_PTX, argv[1], 0, nullptr, nullptr));
    CK(cuLinkAddFile(link, CU_JIT_INPUT_PTX, argv[2], 0, nullptr, nullptr));
    void *image = nullptr;
    size_t size = 0;
    CK(cuLinkComplete(link, &image, &size));
    // what programs that keep the linker's output do (cuda.core, so numba): load a copy of it after
    // the link state is gone; the image itself must say how far it goes
    std::vector<char> kept((char *)image, (char *)image + size);
    CUmodule linked;
    CK(cuLinkDestroy(link));
    CK(cuModuleLoadData(&linked, kept.data()));
    CUfunction scaled;
    CK(cuModuleGetFunction(&scaled, linked, "scaled"));
    int nn = n;
    void *args[] = {&x, &nn};
    CK(cuLaunchKernel(scaled, (n + 127) / 128, 1, 1, 128, 1, 1, 0, 0, args, nullptr));
    std::vector<float> out(n);
    CK(cuMemcpyDtoH(out.data(), x, n * sizeof(float)));
    for (int i = 0; i < n; i++) EXPECT(out[i] == 2.0f * i + 1.0f);

    // a library from a file; its kernel launched with cuLaunchKernelEx
    CUlibrary lib;
    CK(cuLibraryLoadFromFile(&lib, argv[3], nullptr, nullptr, 0, nullptr, nullptr, 0));
    CUkernel k;
    CK(cuLibraryGetKernel(&k, lib, "saxpy"));
    CUlibrary from = nullptr;  // the library a kernel came from
    CK(cuKernelGetLibrary(&from, k));
    EXPECT(from == lib);
    EXPECT(cuKernelGetLibrary(&from, nullptr) == CUDA_ERROR_INVALID_HANDLE);
    EXPECT(cuKernelGetLibrary(nullptr, k) == CUDA_ERROR_INVALID_VALUE);
    CUfunction f;
    CK(cuKernelGetFunction(&f, k));
    CUdeviceptr bias, y;
    size_t bias_size;
    CK(cuLibraryGetGlobal(&bias, &bias_size, lib, "bias"));
    float zero = 0.0f;
    CK(cuMemcpyHtoD(bias, &zero, sizeof zero));
    CK(cuMemAlloc(&y, n * sizeof(float)));
    CK(cuMemsetD32(y, 0, n));
    float a = 0.5f;
    void *sargs[] = {&a, &x, &y, &nn};
    CUlaunchConfig cfg = {};
    cfg.gridDimX = (n + 63) / 64; cfg.gridDimY = 1; cfg.gridDimZ = 1;
    cfg.blockDimX = 64; cfg.blockDimY = 1; cfg.blockDimZ = 1;
    CK(cuLaunchKernelEx(&cfg, f, sargs, nullptr));
    CK(cuMemcpyDtoH(out.data(), y, n * sizeof(float)));
    for (int i = 0; i < n; i++) EXPECT(out[i] == 0.5f * (2.0f * i + 1.0f));
    CK(cuLibraryUnload(lib));

    // Runtime API: an extended launch of a kernel of this program
    int *d;
    CR(cudaMalloc(&d, n * sizeof(int)));
    CR(cudaMemset(d, 0, n * sizeof(int)));
    cudaLaunchConfig_t rc = {};
    rc.gridDim = dim3((n + 255) / 256);
    rc.blockDim = dim3(256);
    void *rargs[] = {&d, &nn};
    CR(cudaLaunchKernelExC(&rc, (const void *)add_one, rargs));
    size_t off = 9, psize = 9;
    CR(cudaFuncGetParamInfo((const void *)add_one, 1, &off, &psize));
    EXPECT(off == 8 && psize == 4);
    std::vector<int> hi(n);
    CR(cudaMemcpy(hi.data(), d, n * sizeof(int), cudaMemcpyDeviceToHost));
    for (int i = 0; i < n; i++) EXPECT(hi[i] == 1);
    printf("OK driver_library\n");
    return 0;
}
