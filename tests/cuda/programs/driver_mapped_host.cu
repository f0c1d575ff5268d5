// Mapped ("zero-copy") host memory through both faces (libhook/src/memory/hostmem.c): kernels read
// and write the program's own pages through the device pointer the driver gives, with no copy.
//   driver_mapped_host local    the server is on this host: canMapHostMemory is 1, and every form maps
//   driver_mapped_host remote   no shared memory (another host, RGPU_SHM=0): canMapHostMemory is 0,
//                               a mapped registration is refused, a mapped allocation still runs kernels
//   ... copy                    device copies and memsets at the device pointers instead of kernels (a
//                               driver that runs no kernel: tests/e2e/test_null_driver.py)
#include <cstdlib>
#include <cstring>
#include <cuda.h>
#include <cuda_runtime.h>
#include "driver_check.h"
#define CHECK(call)                                                                              \
    do {                                                                                         \
        cudaError_t e_ = (call);                                                                 \
        if (e_ != cudaSuccess) {                                                                 \
            printf("FAIL %s:%d %s -> %d %s\n", __FILE__, __LINE__, #call, (int)e_, cudaGetErrorName(e_)); \
            return 1;                                                                            \
        }                                                                                        \
    } while (0)

// p[i] = 2 * p[i] + k: reads what the host wrote, writes what the host reads
__global__ void twice_plus(int *p, int n, int k) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) p[i] = 2 * p[i] + k;
}

static bool kernels = true;

// in copy mode, what the kernel computes is made on the host and moved in by a device-to-device copy
static int run(int *dev, int n, int k) {
    if (!kernels) {
        int *want = (int *)malloc(n * sizeof(int)), *tmp = nullptr;
        CHECK(cudaMemcpy(want, dev, n * sizeof(int), cudaMemcpyDeviceToHost));  // reads the mapped pages
        for (int i = 0; i < n; i++) want[i] = 2 * want[i] + k;
        CHECK(cudaMalloc(&tmp, n * sizeof(int)));
        CHECK(cudaMemcpy(tmp, want, n * sizeof(int), cudaMemcpyHostToDevice));
        CHECK(cudaMemcpy(dev, tmp, n * sizeof(int), cudaMemcpyDeviceToDevice));  // writes them
        CHECK(cudaFree(tmp));
        free(want);
        return 0;
    }
    twice_plus<<<(n + 127) / 128, 128>>>(dev, n, k);
    CHECK(cudaGetLastError());
    CHECK(cudaDeviceSynchronize());
    return 0;
}

// the host writes, a kernel doubles through the device pointer, the host sees it; twice, so that a
// host write between launches reaches the second
static int round_trip(int *host, int *dev, int n, const char *what) {
    for (int round = 0; round < 2; round++) {
        for (int i = 0; i < n; i++) host[i] = i + round;
        if (run(dev, n, round)) return 1;
        for (int i = 0; i < n; i++)
            if (host[i] != 2 * (i + round) + round) {
                printf("FAIL %s round %d at %d: %d\n", what, round, i, host[i]);
                return 1;
            }
    }
    return 0;
}

int main(int argc, char **argv) {
    bool local = argc > 1 && !strcmp(argv[1], "local");
    kernels = !(argc > 2 && !strcmp(argv[2], "copy"));
    const int n = 5000;  // not a whole number of pages
    int can = -1;
    CHECK(cudaDeviceGetAttribute(&can, cudaDevAttrCanMapHostMemory, 0));
    cudaDeviceProp prop;
    CHECK(cudaGetDeviceProperties(&prop, 0));
    CUdevice cudev;
    CK(cuDeviceGet(&cudev, 0));
    int drv = -1;
    CK(cuDeviceGetAttribute(&drv, CU_DEVICE_ATTRIBUTE_CAN_MAP_HOST_MEMORY, cudev));
    EXPECT(prop.canMapHostMemory == can && drv == can && can == (local ? 1 : 0));

    // cudaHostAllocMapped: on this host the program's own pages, elsewhere managed memory
    int *h = nullptr, *d = nullptr;
    CHECK(cudaHostAlloc((void **)&h, n * sizeof(int), cudaHostAllocMapped));
    CHECK(cudaHostGetDevicePointer((void **)&d, h, 0));
    if (round_trip(h, d, n, "cudaHostAllocMapped")) return 1;
    int *d_mid = nullptr;  // a pointer inside the allocation maps to the same offset
    CHECK(cudaHostGetDevicePointer((void **)&d_mid, h + 1000, 0));
    EXPECT(d_mid == d + 1000);
    CHECK(cudaMemset(d, 0, 16));  // device work on the mapped pages: seen by the host after it
    CHECK(cudaDeviceSynchronize());
    EXPECT(h[0] == 0 && h[3] == 0 && h[4] == 2 * 5 + 1);
    int *dd = nullptr;
    CHECK(cudaMalloc(&dd, 4 * sizeof(int)));
    CHECK(cudaMemcpy(dd, d + 10, 4 * sizeof(int), cudaMemcpyDeviceToDevice));  // a copy from it
    int back[4];
    CHECK(cudaMemcpy(back, dd, sizeof back, cudaMemcpyDeviceToHost));
    EXPECT(back[0] == h[10] && back[3] == h[13]);
    CHECK(cudaFreeHost(h));

    // the Driver API: cuMemHostAlloc(DEVICEMAP), cuMemHostGetDevicePointer and the pointer's attribute agree
    int *g = nullptr;
    CUdeviceptr gd = 0, attr = 0;
    CK(cuMemHostAlloc((void **)&g, n * sizeof(int), CU_MEMHOSTALLOC_DEVICEMAP | CU_MEMHOSTALLOC_PORTABLE));
    CK(cuMemHostGetDevicePointer(&gd, g, 0));
    CK(cuPointerGetAttribute(&attr, CU_POINTER_ATTRIBUTE_DEVICE_POINTER, (CUdeviceptr)g));
    EXPECT(attr == gd);
    if (round_trip(g, (int *)gd, n, "cuMemHostAlloc")) return 1;
    CK(cuMemFreeHost(g));

    // the program's own memory registered mapped (numba's cuda.mapped): at an offset within a page
    char *raw = (char *)malloc(n * sizeof(int) + 8192);
    int *r = (int *)(raw + 4096 + 40);
    for (int i = 0; i < 16; i++) raw[i] = (char)i;  // a neighbour on its first page
    cudaError_t reg = cudaHostRegister(r, n * sizeof(int), cudaHostRegisterMapped);
    if (!local) {
        EXPECT(reg == cudaErrorNotSupported);
        cudaGetLastError();
        free(raw);
        printf("OK driver_mapped_host remote\n");
        return 0;
    }
    CHECK(reg);
    for (int i = 0; i < 16; i++) EXPECT(raw[i] == (char)i);  // nothing around it moved or changed
    int *rd = nullptr;
    CHECK(cudaHostGetDevicePointer((void **)&rd, r, 0));
    if (round_trip(r, rd, n, "cudaHostRegisterMapped")) return 1;
    unsigned flags = 0;
    CHECK(cudaHostGetFlags(&flags, r));
    EXPECT(flags & cudaHostRegisterMapped);
    CHECK(cudaHostUnregister(r));
    EXPECT(r[7] == 2 * (7 + 1) + 1 && raw[5] == 5);  // the kernel's results stay the program's
    r[7] = 99;  // private memory again, writable
    EXPECT(cudaHostGetDevicePointer((void **)&rd, r, 0) == cudaErrorInvalidValue);
    cudaGetLastError();
    // registered again, mapped again: the same memory, a new mapping
    CHECK(cudaHostRegister(r, n * sizeof(int), cudaHostRegisterMapped));
    CHECK(cudaHostGetDevicePointer((void **)&rd, r, 0));
    if (run(rd, 8, 0)) return 1;
    EXPECT(r[7] == 198);
    CHECK(cudaHostUnregister(r));
    free(raw);

    // under unified addressing every pinned allocation has a device address, not only mapped ones
    int *pinned = nullptr, *pd = nullptr;
    CHECK(cudaMallocHost(&pinned, 4096));
    CHECK(cudaHostGetDevicePointer((void **)&pd, pinned, 0));
    pinned[3] = 21;
    if (run(pd, 4, 0)) return 1;
    EXPECT(pinned[3] == 42);
    CHECK(cudaFreeHost(pinned));
    printf("OK driver_mapped_host local\n");
    return 0;
}
