// Context settings and helpers programs and libraries call in passing: limits, cache and shared
// memory preferences, PCI bus id, stream-capture status, pitched allocations with 2D memsets, and
// the occupancy helper templates of cuda_runtime.h (which call the occupancy and attribute APIs), and
// profiler control (cuda_profiler_api.h: samples bracket their timed part with it).
#include <cstring>
#include <vector>
#include <cuda_profiler_api.h>
#include <cuda_runtime.h>
#include "check.h"

__global__ void touch(float *x, int n) { int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) x[i] += 1.0f; }

int main() {
    CHECK(cudaProfilerStart());
    size_t v = 0;
    CHECK(cudaDeviceGetLimit(&v, cudaLimitStackSize));
    EXPECT(v == 1024);
    CHECK(cudaDeviceSetLimit(cudaLimitPrintfFifoSize, 4 << 20));
    CHECK(cudaDeviceGetLimit(&v, cudaLimitPrintfFifoSize));
    EXPECT(v == (4 << 20));
    cudaFuncCache cache;
    CHECK(cudaDeviceSetCacheConfig(cudaFuncCachePreferShared));
    CHECK(cudaDeviceGetCacheConfig(&cache));
    EXPECT(cache == cudaFuncCachePreferShared);
    char bus[32] = {0};
    CHECK(cudaDeviceGetPCIBusId(bus, sizeof bus, 0));
    unsigned dom, b, d, f;
    EXPECT(sscanf(bus, "%x:%x:%x.%x", &dom, &b, &d, &f) == 4);
    cudaStream_t s;
    CHECK(cudaStreamCreate(&s));
    cudaStreamCaptureStatus status = cudaStreamCaptureStatusActive;
    CHECK(cudaStreamIsCapturing(s, &status));
    EXPECT(status == cudaStreamCaptureStatusNone);
    unsigned long long id0 = 0, id1 = 0;
    CHECK(cudaStreamGetId(s, &id0));
    CHECK(cudaStreamGetId(s, &id1));
    EXPECT(id0 == id1);
    // pitched memory: rows padded to the pitch; a 2D memset touches only each row's width
    size_t pitch = 0;
    const int w = 100, h = 8;
    unsigned char *p;
    CHECK(cudaMallocPitch((void **)&p, &pitch, w, h));
    EXPECT(pitch >= w);
    CHECK(cudaMemset(p, 0, pitch * h));
    CHECK(cudaMemset2D(p, pitch, 0x7f, w, h));
    std::vector<unsigned char> host(pitch * h);
    CHECK(cudaMemcpy(host.data(), p, pitch * h, cudaMemcpyDeviceToHost));
    for (int r = 0; r < h; r++)
        for (size_t c = 0; c < pitch; c++) EXPECT(host[r * pitch + c] == (c < (size_t)w ? 0x7f : 0));
    EXPECT(cudaMemset2D(p, w / 2, 0, w, h) == cudaErrorInvalidValue);  // pitch smaller than a row
    // 2D copies: a host image with its own pitch into the pitched buffer, across it, and back
    const size_t hpitch = 130;
    std::vector<unsigned char> img(hpitch * h), back(hpitch * h, 0);
    for (size_t i = 0; i < img.size(); i++) img[i] = (unsigned char)(i * 7 + 3);
    CHECK(cudaMemcpy2D(p, pitch, img.data(), hpitch, w, h, cudaMemcpyHostToDevice));
    unsigned char *q;
    size_t qpitch = 0;
    CHECK(cudaMallocPitch((void **)&q, &qpitch, w, h));
    CHECK(cudaMemcpy2DAsync(q, qpitch, p, pitch, w, h, cudaMemcpyDeviceToDevice, s));
    CHECK(cudaMemcpy2D(back.data(), hpitch, q, qpitch, w, h, cudaMemcpyDeviceToHost));
    for (int r = 0; r < h; r++)
        for (size_t c = 0; c < hpitch; c++) EXPECT(back[r * hpitch + c] == (c < (size_t)w ? img[r * hpitch + c] : 0));
    EXPECT(cudaMemcpy2D(p, w - 1, img.data(), hpitch, w, h, cudaMemcpyHostToDevice) == cudaErrorInvalidPitchValue);
    // occupancy helpers
    int min_grid = 0, block = 0, blocks = 0;
    CHECK(cudaOccupancyMaxPotentialBlockSize(&min_grid, &block, touch, 0, 0));
    EXPECT(block > 0 && block <= 1024 && block % 32 == 0 && min_grid > 0);
    CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, touch, block, 0));
    EXPECT(blocks > 0);
    CHECK(cudaProfilerStop());
    printf("bus %s pitch %zu block %d min grid %d blocks/SM %d\n", bus, pitch, block, min_grid, blocks);
    printf("OK context_misc\n");
    return 0;
}
