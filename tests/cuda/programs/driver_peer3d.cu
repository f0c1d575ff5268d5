// 3D copies between two devices (cudaMemcpy3DPeer(Async), cuMemcpy3DPeer): a box of a pitched volume
// on device 0 into another volume on device 1 at another place, the bytes around it untouched; into a
// CUDA array on device 1; a volume larger than the client's staging slab (several slabs); both sides
// on one device; the Driver's form with the two devices' contexts; an invalid device refused.
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <vector>
#include <cuda.h>
#include <cuda_runtime.h>
#include "check.h"

static uint8_t pattern(size_t x, size_t y, size_t z) { return (uint8_t)(x * 7 + y * 31 + z * 101 + 3); }

// A host image of a W x H x D volume (tight rows) filled with the pattern.
static std::vector<uint8_t> volume(size_t w, size_t h, size_t d) {
    std::vector<uint8_t> v(w * h * d);
    for (size_t z = 0; z < d; z++)
        for (size_t y = 0; y < h; y++)
            for (size_t x = 0; x < w; x++) v[(z * h + y) * w + x] = pattern(x, y, z);
    return v;
}

static cudaError_t upload(cudaPitchedPtr dst, const std::vector<uint8_t> &src, size_t w, size_t h, size_t d) {
    cudaMemcpy3DParms p = {};
    p.srcPtr = make_cudaPitchedPtr((void *)src.data(), w, w, h);
    p.dstPtr = dst;
    p.extent = make_cudaExtent(w, h, d);
    p.kind = cudaMemcpyHostToDevice;
    return cudaMemcpy3D(&p);
}

static cudaError_t download(std::vector<uint8_t> &dst, cudaPitchedPtr src, size_t w, size_t h, size_t d) {
    dst.assign(w * h * d, 0);
    cudaMemcpy3DParms p = {};
    p.srcPtr = src;
    p.dstPtr = make_cudaPitchedPtr(dst.data(), w, w, h);
    p.extent = make_cudaExtent(w, h, d);
    p.kind = cudaMemcpyDeviceToHost;
    return cudaMemcpy3D(&p);
}

int main() {
    int n = 0;
    CHECK(cudaGetDeviceCount(&n));
    EXPECT(n >= 2);
    const size_t W = 100, H = 7, D = 5;
    std::vector<uint8_t> host = volume(W, H, D), back;

    // device 0: the source volume; device 1: a volume of 0xEE with another pitch
    cudaPitchedPtr a, b;
    CHECK(cudaSetDevice(0));
    CHECK(cudaMalloc3D(&a, make_cudaExtent(W, H, D)));
    CHECK(upload(a, host, W, H, D));
    CHECK(cudaSetDevice(1));
    CHECK(cudaMalloc3D(&b, make_cudaExtent(W + 60, H, D)));
    CHECK(cudaMemset3D(b, 0xEE, make_cudaExtent(W + 60, H, D)));

    cudaMemcpy3DPeerParms p = {};
    p.srcPtr = a, p.srcDevice = 0, p.srcPos = make_cudaPos(3, 1, 1);
    p.dstPtr = b, p.dstDevice = 1, p.dstPos = make_cudaPos(10, 2, 0);
    p.extent = make_cudaExtent(50, 4, 3);
    CHECK(cudaSetDevice(0));  // the current device is neither side's business
    CHECK(cudaMemcpy3DPeer(&p));
    CHECK(cudaSetDevice(1));
    CHECK(download(back, b, W + 60, H, D));
    for (size_t z = 0; z < D; z++)
        for (size_t y = 0; y < H; y++)
            for (size_t x = 0; x < W + 60; x++) {
                bool in = x >= 10 && x < 60 && y >= 2 && y < 6 && z < 3;
                uint8_t want = in ? pattern(x - 10 + 3, y - 2 + 1, z + 1) : 0xEE;
                if (back[(z * H + y) * (W + 60) + x] != want) { printf("FAIL box at %zu,%zu,%zu\n", x, y, z); return 1; }
            }

    // into a CUDA array on device 1 (the extent in elements: 4-byte floats), asynchronously
    cudaChannelFormatDesc f = cudaCreateChannelDesc<float>();
    cudaArray_t arr;
    CHECK(cudaMalloc3DArray(&arr, &f, make_cudaExtent(8, 3, 2)));
    cudaStream_t s;
    CHECK(cudaSetDevice(0));
    CHECK(cudaStreamCreate(&s));
    cudaMemcpy3DPeerParms q = {};
    q.srcPtr = a, q.srcDevice = 0, q.srcPos = make_cudaPos(0, 0, 0);
    q.dstArray = arr, q.dstDevice = 1;
    q.extent = make_cudaExtent(8, 3, 2);  // 32 bytes of each row
    CHECK(cudaMemcpy3DPeerAsync(&q, s));
    CHECK(cudaStreamSynchronize(s));
    CHECK(cudaSetDevice(1));
    std::vector<uint8_t> out(32 * 3 * 2);
    cudaMemcpy3DParms r = {};
    r.srcArray = arr;
    r.dstPtr = make_cudaPitchedPtr(out.data(), 32, 8, 3);
    r.extent = make_cudaExtent(8, 3, 2);
    r.kind = cudaMemcpyDeviceToHost;
    CHECK(cudaMemcpy3D(&r));
    for (size_t z = 0; z < 2; z++)
        for (size_t y = 0; y < 3; y++)
            for (size_t x = 0; x < 32; x++) EXPECT(out[(z * 3 + y) * 32 + x] == pattern(x, y, z));

    // larger than one staging slab: 1 MiB slices, 20 of them
    const size_t BW = 1024, BH = 1024, BD = 20;
    std::vector<uint8_t> big = volume(BW, BH, BD);
    cudaPitchedPtr ba, bb;
    CHECK(cudaSetDevice(0));
    CHECK(cudaMalloc3D(&ba, make_cudaExtent(BW, BH, BD)));
    CHECK(upload(ba, big, BW, BH, BD));
    CHECK(cudaSetDevice(1));
    CHECK(cudaMalloc3D(&bb, make_cudaExtent(BW, BH, BD)));
    cudaMemcpy3DPeerParms g = {};
    g.srcPtr = ba, g.srcDevice = 0, g.dstPtr = bb, g.dstDevice = 1, g.extent = make_cudaExtent(BW, BH, BD);
    CHECK(cudaMemcpy3DPeer(&g));
    CHECK(download(back, bb, BW, BH, BD));
    EXPECT(back == big);

    // one device on both sides
    cudaPitchedPtr c;
    CHECK(cudaSetDevice(0));
    CHECK(cudaMalloc3D(&c, make_cudaExtent(W, H, D)));
    cudaMemcpy3DPeerParms same = {};
    same.srcPtr = a, same.srcDevice = 0, same.dstPtr = c, same.dstDevice = 0, same.extent = make_cudaExtent(W, H, D);
    CHECK(cudaMemcpy3DPeer(&same));
    CHECK(download(back, c, W, H, D));
    EXPECT(back == host);

    same.dstDevice = 7;
    EXPECT(cudaMemcpy3DPeer(&same) == cudaErrorInvalidDevice);
    cudaGetLastError();

    // the Driver's form: device 1's volume b back into device 0's c, by the devices' contexts
    CUcontext c0, c1;
    CHECK((cudaError_t)cuDevicePrimaryCtxRetain(&c0, 0));
    CHECK((cudaError_t)cuDevicePrimaryCtxRetain(&c1, 1));
    CHECK(cudaMemset3D(c, 0, make_cudaExtent(W, H, D)));
    CUDA_MEMCPY3D_PEER dp = {};
    dp.srcMemoryType = CU_MEMORYTYPE_DEVICE, dp.srcDevice = (CUdeviceptr)b.ptr, dp.srcPitch = b.pitch;
    dp.srcHeight = H, dp.srcContext = c1, dp.srcXInBytes = 10, dp.srcY = 2;
    dp.dstMemoryType = CU_MEMORYTYPE_DEVICE, dp.dstDevice = (CUdeviceptr)c.ptr, dp.dstPitch = c.pitch;
    dp.dstHeight = H, dp.dstContext = c0;
    dp.WidthInBytes = 50, dp.Height = 4, dp.Depth = 3;
    CHECK((cudaError_t)cuMemcpy3DPeer(&dp));
    CHECK(download(back, c, W, H, D));
    for (size_t z = 0; z < 3; z++)
        for (size_t y = 0; y < 4; y++)
            for (size_t x = 0; x < 50; x++) EXPECT(back[(z * H + y) * W + x] == pattern(x + 3, y + 1, z + 1));
    EXPECT(back[(0 * H + 0) * W + 50] == 0 && back[(3 * H + 0) * W + 0] == 0);
    printf("OK driver_peer3d\n");
    return 0;
}
