// A fork after the program has used its device: in the child every call that needs the device fails
// with CUDA_ERROR_NOT_INITIALIZED (the Runtime's cudaErrorInitializationError), cuInit included, as the
// driver answers there (numba reads it as "CUDA initialized before forking"); the child's ordinary exit
// (its exit handlers run) leaves the parent's session alone, and the parent reads back what it wrote
// before the fork.
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>
#include <sys/wait.h>
#include <unistd.h>
#include <cuda_runtime.h>
#include "driver_check.h"

int main() {
    const size_t n = 1 << 18, bytes = n * sizeof(unsigned);
    CK(cuInit(0));
    CUdevice dev;
    CK(cuDeviceGet(&dev, 0));
    CUcontext ctx;
    CK(cuDevicePrimaryCtxRetain(&ctx, dev));
    CK(cuCtxSetCurrent(ctx));
    CUdeviceptr p;
    CK(cuMemAlloc(&p, bytes));
    std::vector<unsigned> host(n), back(n, 0);
    for (size_t i = 0; i < n; i++) host[i] = (unsigned)(i * 2654435761u);
    CK(cuMemcpyHtoD(p, host.data(), bytes));
    CK(cuCtxSynchronize());
    fflush(stdout);
    pid_t child = fork();
    if (child < 0) {
        printf("FAIL fork\n");
        return 1;
    }
    if (child == 0) {
        alarm(60); // a child left waiting on the parent's connection would wait for ever
        CUdeviceptr q = 0;
        CUresult alloc = cuMemAlloc(&q, 4096);
        CUresult init = cuInit(0);
        void *r = nullptr;
        cudaError_t rt = cudaMalloc(&r, 4096);
        int ok = alloc == CUDA_ERROR_NOT_INITIALIZED && init == CUDA_ERROR_NOT_INITIALIZED &&
                 rt == cudaErrorInitializationError;
        printf("%s child cuMemAlloc %d cuInit %d cudaMalloc %d\n", ok ? "OK" : "FAIL", (int)alloc, (int)init, (int)rt);
        fflush(stdout);
        exit(ok ? 0 : 1); // not _exit: the library's exit handlers run in the child
    }
    int status = 0;
    EXPECT(waitpid(child, &status, 0) == child);
    EXPECT(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    CK(cuMemcpyDtoH(back.data(), p, bytes));
    EXPECT(memcmp(back.data(), host.data(), bytes) == 0);
    CUdeviceptr p2;
    CK(cuMemAlloc(&p2, bytes));
    CK(cuMemcpyDtoD(p2, p, bytes));
    std::fill(back.begin(), back.end(), 0u);
    CK(cuMemcpyDtoH(back.data(), p2, bytes));
    EXPECT(memcmp(back.data(), host.data(), bytes) == 0);
    CK(cuMemFree(p2));
    CK(cuMemFree(p));
    CK(cuDevicePrimaryCtxRelease(dev));
    printf("OK driver_fork_after_use\n");
    return 0;
}
