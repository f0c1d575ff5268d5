// Driver API: modules from files (PTX text; a fatbin), functions, globals, launches with
// kernelParams and with a packed parameter buffer (CU_LAUNCH_PARAM_BUFFER_POINTER).
#include <cstddef>
#include <cstdio>
#include <cstring>
#include <vector>
#include <cuda.h>

#include "driver_check.h"

static int run(const char *path) {
    CUmodule mod;
    CK(cuModuleLoad(&mod, path));
    CUfunction saxpy;
    CK(cuModuleGetFunction(&saxpy, mod, "saxpy"));
    CUmodule owner = nullptr;
    CK(cuFuncGetModule(&owner, saxpy));
    EXPECT(owner == mod);  // the module it was loaded from, not another handle of it
    CUdeviceptr bias;
    size_t bias_size = 0;
    CK(cuModuleGetGlobal(&bias, &bias_size, mod, "bias"));
    EXPECT(bias_size == sizeof(float));
    float b = 0.5f;
    CK(cuMemcpyHtoD(bias, &b, sizeof b));
    const int n = 4096;
    std::vector<float> x(n), y(n), out(n);
    for (int i = 0; i < n; i++) { x[i] = (float)i; y[i] = 1.0f; }
    CUdeviceptr dx, dy;
    CK(cuMemAlloc(&dx, n * sizeof(float)));
    CK(cuMemAlloc(&dy, n * sizeof(float)));
    CK(cuMemcpyHtoD(dx, x.data(), n * sizeof(float)));
    CK(cuMemcpyHtoD(dy, y.data(), n * sizeof(float)));
    float a = 3.0f;
    int nn = n;
    void *args[] = {&a, &dx, &dy, &nn};
    CK(cuLaunchKernel(saxpy, n / 128, 1, 1, 128, 1, 1, 0, 0, args, nullptr));
    CK(cuMemcpyDtoH(out.data(), dy, n * sizeof(float)));
    for (int i = 0; i < n; i++) EXPECT(out[i] == 3.0f * x[i] + 1.0f + 0.5f);
    // the same launch with the parameters packed by hand, as the extra argument allows
    struct { float a; int pad; CUdeviceptr x, y; int n; } packed = {1.0f, 0, dx, dy, n};
    // the parameters' own size (28), not the struct's (32, padded): the driver refuses a buffer
    // larger than the kernel's parameters with CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES
    size_t size = sizeof packed;
    void *extra[] = {CU_LAUNCH_PARAM_BUFFER_POINTER, &packed, CU_LAUNCH_PARAM_BUFFER_SIZE, &size, CU_LAUNCH_PARAM_END};
    CK(cuLaunchKernel(saxpy, n / 128, 1, 1, 128, 1, 1, 0, 0, nullptr, extra));
    EXPECT(cuCtxSynchronize() == CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES);
    size = offsetof(decltype(packed), n) + sizeof(int);
    CK(cuLaunchKernel(saxpy, n / 128, 1, 1, 128, 1, 1, 0, 0, nullptr, extra));
    CK(cuCtxSynchronize());
    CK(cuMemcpyDtoH(out.data(), dy, n * sizeof(float)));
    for (int i = 0; i < n; i++) EXPECT(out[i] == 4.0f * x[i] + 2.0f);
    int threads = 0;
    CK(cuFuncGetAttribute(&threads, CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK, saxpy));
    EXPECT(threads >= 128);
    size_t off = 0, psize = 0;
    CK(cuFuncGetParamInfo(saxpy, 1, &off, &psize));
    EXPECT(off == 8 && psize == 8);
    CUfunction none;
    EXPECT(cuModuleGetFunction(&none, mod, "no_such_kernel") == CUDA_ERROR_NOT_FOUND);
    CK(cuMemFree(dx));
    CK(cuMemFree(dy));
    CK(cuModuleUnload(mod));
    printf("ran %s\n", path);
    return 0;
}

int main(int argc, char **argv) {
    CK(cuInit(0));
    CUdevice dev;
    CUcontext ctx;
    CK(cuDeviceGet(&dev, 0));
    CK(cuCtxCreate(&ctx, nullptr, 0, dev));
    for (int i = 1; i < argc; i++)
        if (run(argv[i])) return 1;
    CK(cuCtxDestroy(ctx));
    printf("OK driver_kernels\n");
    return 0;
}
