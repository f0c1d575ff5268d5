// Managed memory attached to the host (CU_MEM_ATTACH_HOST at allocation, or cuStreamAttachMemAsync
// with it) stays coherent on a device without concurrent managed access: a device memset of it is seen
// on the host after the synchronisation (numba's test_managed_alloc_driver_host_attach), what the host
// wrote before reaches the device, and host writes made while device work was outstanding survive it.
#include <cstdio>
#include <cstring>
#include <cuda.h>

#include "driver_check.h"

static int all(const unsigned char *p, size_t n, unsigned char v) {
    for (size_t i = 0; i < n; i++)
        if (p[i] != v) { printf("byte %zu is %d, want %d\n", i, p[i], v); return 0; }
    return 1;
}

int main() {
    CK(cuInit(0));
    CUdevice dev;
    CK(cuDeviceGet(&dev, 0));
    CUcontext ctx;
    CK(cuDevicePrimaryCtxRetain(&ctx, dev));
    CK(cuCtxSetCurrent(ctx));
    const size_t n = 3 << 20;
    // attached to the host when allocated
    CUdeviceptr d;
    CK(cuMemAllocManaged(&d, n, CU_MEM_ATTACH_HOST));
    unsigned char *h = (unsigned char *)(uintptr_t)d;
    memset(h, 123, n);
    EXPECT(all(h, n, 123));
    CK(cuMemsetD8(d, 0, n));
    CK(cuCtxSynchronize());
    EXPECT(all(h, n, 0));
    // the host's writes reach the device: a device-to-device copy of them comes back
    memset(h, 7, n / 2);
    CUdeviceptr other;
    CK(cuMemAlloc(&other, n));
    CK(cuMemcpyDtoD(other, d, n));
    unsigned char *back = new unsigned char[n];
    CK(cuMemcpyDtoH(back, other, n));
    EXPECT(all(back, n / 2, 7) && all(back + n / 2, n - n / 2, 0));
    // while device work is outstanding the host's writes to it are its own, and survive the pull
    CUstream s;
    CK(cuStreamCreate(&s, CU_STREAM_NON_BLOCKING));
    CK(cuMemsetD8Async(d + n / 2, 9, n / 4, s));
    h[0] = 42;
    CK(cuStreamSynchronize(s));
    EXPECT(h[0] == 42 && all(h + 1, n / 2 - 1, 7) && all(h + n / 2, n / 4, 9) && all(h + 3 * n / 4, n / 4, 0));
    // attached to the host later, by a stream
    CUdeviceptr g;
    CK(cuMemAllocManaged(&g, n, CU_MEM_ATTACH_GLOBAL));
    unsigned char *hg = (unsigned char *)(uintptr_t)g;
    memset(hg, 5, n);
    CK(cuStreamAttachMemAsync(s, g, 0, CU_MEM_ATTACH_HOST));
    CK(cuStreamSynchronize(s));
    CK(cuMemsetD8(g, 1, n / 3));
    CK(cuCtxSynchronize());
    EXPECT(all(hg, n / 3, 1) && all(hg + n / 3, n - n / 3, 5));
    delete[] back;
    CK(cuMemFree(g));
    CK(cuMemFree(other));
    CK(cuMemFree(d));
    printf("OK driver_managed_host_attach\n");
    return 0;
}
