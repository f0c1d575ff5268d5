// 3D copies and memsets of pitched device memory: cudaMalloc3D, cudaMemcpy3D(Async) between host
// and device and device to device, sub-boxes at offsets (srcPos/dstPos), cudaMemset3D(Async).
#include <cstring>
#include <vector>
#include <cuda_runtime.h>
#include "check.h"

int main() {
    const size_t W = 37, H = 5, D = 4;  // floats x rows x slices
    cudaExtent ext = make_cudaExtent(W * sizeof(float), H, D);
    cudaPitchedPtr vol, vol2;
    CHECK(cudaMalloc3D(&vol, ext));
    CHECK(cudaMalloc3D(&vol2, ext));
    EXPECT(vol.pitch >= W * sizeof(float) && vol.xsize == W * sizeof(float) && vol.ysize == H);

    std::vector<float> host(W * H * D), back(W * H * D);
    for (size_t i = 0; i < host.size(); i++) host[i] = (float)i;
    cudaMemcpy3DParms p = {};
    p.srcPtr = make_cudaPitchedPtr(host.data(), W * sizeof(float), W, H);
    p.dstPtr = vol;
    p.extent = ext;
    p.kind = cudaMemcpyHostToDevice;
    CHECK(cudaMemcpy3D(&p));

    // Device to device: a 10x3x2 box from (5,1,1) of vol into (0,0,0) of vol2 (per-slice path).
    CHECK(cudaMemset3D(vol2, 0, ext));
    cudaMemcpy3DParms q = {};
    q.srcPtr = vol;
    q.srcPos = make_cudaPos(5 * sizeof(float), 1, 1);
    q.dstPtr = vol2;
    q.extent = make_cudaExtent(10 * sizeof(float), 3, 2);
    q.kind = cudaMemcpyDeviceToDevice;
    CHECK(cudaMemcpy3D(&q));

    cudaStream_t s;
    CHECK(cudaStreamCreate(&s));
    cudaMemcpy3DParms r = {};
    r.srcPtr = vol2;
    r.dstPtr = make_cudaPitchedPtr(back.data(), W * sizeof(float), W, H);
    r.extent = ext;
    r.kind = cudaMemcpyDeviceToHost;
    CHECK(cudaMemcpy3DAsync(&r, s));
    CHECK(cudaStreamSynchronize(s));
    for (size_t z = 0; z < D; z++)
        for (size_t y = 0; y < H; y++)
            for (size_t x = 0; x < W; x++) {
                bool in = x < 10 && y < 3 && z < 2;
                float want = in ? host[((z + 1) * H + y + 1) * W + x + 5] : 0.0f;
                if (back[(z * H + y) * W + x] != want) {
                    printf("FAIL box at %zu,%zu,%zu: %f != %f\n", x, y, z, back[(z * H + y) * W + x], want);
                    return 1;
                }
            }

    // The whole volume back, and a memset of all of it (0x3f bytes) on a stream.
    r.srcPtr = vol;
    CHECK(cudaMemcpy3D(&r));
    EXPECT(memcmp(back.data(), host.data(), host.size() * sizeof(float)) == 0);
    CHECK(cudaMemset3DAsync(vol, 0x3f, ext, s));
    CHECK(cudaMemcpy3DAsync(&r, s));
    CHECK(cudaStreamSynchronize(s));
    unsigned bits;
    memcpy(&bits, &back[W * H * D - 1], 4);
    EXPECT(bits == 0x3f3f3f3fu);
    CHECK(cudaFree(vol.ptr));
    CHECK(cudaFree(vol2.ptr));
    printf("OK memcpy3d\n");
    return 0;
}
