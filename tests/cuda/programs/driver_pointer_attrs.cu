// The Driver's pointer attributes, several at once as NVIDIA's cudart asks them for
// cudaPointerGetAttributes (CuPy's DLPack export asks so): what the memory lacks (device memory's
// host address) reads as NULL there, while the single query refuses it; memory CUDA does not know
// reads as zeros, with no error; pinned host memory has both addresses (the device's is the one
// cuMemHostGetDevicePointer gives).
#include <cstdint>
#include <cstdlib>
#include <cuda.h>
#include "driver_check.h"

enum { N = 8 };
static CUpointer_attribute which[N] = {
    CU_POINTER_ATTRIBUTE_MEMORY_TYPE,   CU_POINTER_ATTRIBUTE_HOST_POINTER,    CU_POINTER_ATTRIBUTE_DEVICE_POINTER,
    CU_POINTER_ATTRIBUTE_IS_MANAGED,    CU_POINTER_ATTRIBUTE_ACCESS_FLAGS,    CU_POINTER_ATTRIBUTE_MEMORY_BLOCK_ID,
    CU_POINTER_ATTRIBUTE_RANGE_START_ADDR, CU_POINTER_ATTRIBUTE_IS_GPU_DIRECT_RDMA_CAPABLE};

struct Got {
    unsigned mtype, managed, access, rdma;
    void *host;
    CUdeviceptr dev, start;
    unsigned long long block;
};

static CUresult ask(CUdeviceptr p, Got *g) {
    g->mtype = g->managed = g->access = g->rdma = 77;
    g->host = (void *)1;
    g->dev = g->start = 1;
    g->block = 1;
    void *data[N] = {&g->mtype, &g->host, &g->dev, &g->managed, &g->access, &g->block, &g->start, &g->rdma};
    return cuPointerGetAttributes(N, which, data, p);
}

int main() {
    CK(cuInit(0));
    CUdevice dev;
    CUcontext ctx;
    CK(cuDeviceGet(&dev, 0));
    CK(cuDevicePrimaryCtxRetain(&ctx, dev));
    CK(cuCtxSetCurrent(ctx));

    CUdeviceptr d, d2;
    CK(cuMemAlloc(&d, 1 << 16));
    CK(cuMemAlloc(&d2, 4096));
    Got g;
    CK(ask(d + 100, &g));
    EXPECT(g.mtype == CU_MEMORYTYPE_DEVICE && g.host == NULL && g.dev == d + 100 && g.managed == 0);
    EXPECT(g.access == CU_POINTER_ATTRIBUTE_ACCESS_FLAG_READWRITE && g.start == d && g.rdma == 0);
    unsigned long long block = g.block;
    CK(ask(d2, &g));
    EXPECT(block != 0 && g.block != 0 && g.block != block);  // one id per allocation
    void *host = (void *)1;
    EXPECT(cuPointerGetAttribute(&host, CU_POINTER_ATTRIBUTE_HOST_POINTER, d) == CUDA_ERROR_INVALID_VALUE);

    void *plain = malloc(4096);
    CK(ask((CUdeviceptr)(uintptr_t)plain, &g));
    EXPECT(g.mtype == 0 && g.host == NULL && g.dev == 0 && g.block == 0 && g.start == 0);

    void *pinned;
    CK(cuMemHostAlloc(&pinned, 8192, 0));
    CUdeviceptr pp = (CUdeviceptr)(uintptr_t)pinned;
    // its device address is where the device maps it (through rgpu, the worker's address), else its own
    CUdeviceptr mapped = 0;
    if (cuMemHostGetDevicePointer(&mapped, pinned, 0) != CUDA_SUCCESS) mapped = pp;
    CK(ask(pp + 8, &g));
    EXPECT(g.mtype == CU_MEMORYTYPE_HOST && g.host == (char *)pinned + 8 && g.dev == mapped + 8 && g.start == pp);

    CK(cuMemFreeHost(pinned));
    CK(cuMemFree(d));
    CK(cuMemFree(d2));
    free(plain);
    CK(cuDevicePrimaryCtxRelease(dev));
    printf("OK driver_pointer_attrs\n");
    return 0;
}
