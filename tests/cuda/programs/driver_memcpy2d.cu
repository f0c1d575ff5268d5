// Driver API pitched copies (cuMemcpy2D, cuMemcpy2DAsync on CUDA_MEMCPY2D): host to pitched device
// memory, a sub-rectangle device to device at offsets, back to the host, and unified addresses.
#include <cstdio>
#include <cstring>
#include <vector>
#include <cuda.h>

#include "driver_check.h"

int main() {
    CK(cuInit(0));
    CUdevice dev;
    CUcontext ctx;
    CK(cuDeviceGet(&dev, 0));
    CK(cuCtxCreate(&ctx, nullptr, 0, dev));
    const size_t W = 40, H = 12;  // bytes x rows
    std::vector<unsigned char> host(W * H), back(W * H, 0xEE);
    for (size_t i = 0; i < host.size(); i++) host[i] = (unsigned char)(i * 7 + 3);
    CUdeviceptr a, b;
    size_t pa, pb;
    CK(cuMemAllocPitch(&a, &pa, W, H, 4));
    CK(cuMemAllocPitch(&b, &pb, W, H, 4));
    EXPECT(pa >= W && pb >= W);

    CUDA_MEMCPY2D c;
    memset(&c, 0, sizeof c);
    c.srcMemoryType = CU_MEMORYTYPE_HOST; c.srcHost = host.data(); c.srcPitch = W;
    c.dstMemoryType = CU_MEMORYTYPE_DEVICE; c.dstDevice = a; c.dstPitch = pa;
    c.WidthInBytes = W; c.Height = H;
    CK(cuMemcpy2D(&c));

    // Device to device: a 10x5 rectangle from (3, 2) of a into (0, 0) of b (b zeroed first).
    CK(cuMemsetD2D8(b, pb, 0, W, H));
    memset(&c, 0, sizeof c);
    c.srcMemoryType = CU_MEMORYTYPE_DEVICE; c.srcDevice = a; c.srcPitch = pa; c.srcXInBytes = 3; c.srcY = 2;
    c.dstMemoryType = CU_MEMORYTYPE_UNIFIED; c.dstDevice = b; c.dstPitch = pb;
    c.WidthInBytes = 10; c.Height = 5;
    CK(cuMemcpy2D(&c));

    CUstream s;
    CK(cuStreamCreate(&s, 0));
    memset(&c, 0, sizeof c);
    c.srcMemoryType = CU_MEMORYTYPE_DEVICE; c.srcDevice = b; c.srcPitch = pb;
    c.dstMemoryType = CU_MEMORYTYPE_HOST; c.dstHost = back.data(); c.dstPitch = W;
    c.WidthInBytes = W; c.Height = H;
    CK(cuMemcpy2DAsync(&c, s));
    CK(cuStreamSynchronize(s));
    for (size_t y = 0; y < H; y++)
        for (size_t x = 0; x < W; x++) {
            unsigned char want = (x < 10 && y < 5) ? host[(y + 2) * W + x + 3] : 0;
            if (back[y * W + x] != want) { printf("FAIL at %zu,%zu: %d != %d\n", x, y, back[y * W + x], want); return 1; }
        }
    c.dstArray = nullptr;
    c.srcMemoryType = CU_MEMORYTYPE_ARRAY;
    CUresult null_array = cuMemcpy2D(&c);  // arrays are served (driver_arrays.cu); a null one is no array
    EXPECT(null_array == CUDA_ERROR_INVALID_HANDLE || null_array == CUDA_ERROR_INVALID_VALUE);
    printf("OK driver_memcpy2d\n");
    return 0;
}
