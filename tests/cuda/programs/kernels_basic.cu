// <<<>>> launches of several kernels (templates, structs by value, constant and device
// variables through symbols, printf, dynamic shared memory) on several streams with events.
#include <cstring>
#include <vector>
#include <cuda_runtime.h>
#include "check.h"

__constant__ float scale[4];
__device__ int counter;

struct Affine { float a, b; int n; };

template <typename T>
__global__ void axpb(const T *x, T *y, Affine f) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < f.n) y[i] = (T)f.a * x[i] + (T)f.b + (T)scale[i % 4];
}

__global__ void count_and_say(int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) atomicAdd(&counter, 1);
    if (i == 0) printf("hello from block %d thread %d, n=%d\n", blockIdx.x, threadIdx.x, n);
}

__global__ void block_sum(const int *x, int *out, int n) {
    extern __shared__ int part[];
    int t = threadIdx.x, i = blockIdx.x * blockDim.x + t;
    part[t] = i < n ? x[i] : 0;
    __syncthreads();
    for (int s = blockDim.x / 2; s > 0; s >>= 1) {
        if (t < s) part[t] += part[t + s];
        __syncthreads();
    }
    if (t == 0) out[blockIdx.x] = part[0];
}

int main() {
    const int n = 10000;
    std::vector<float> hx(n), hy(n);
    std::vector<double> dx(n), dy(n);
    for (int i = 0; i < n; i++) { hx[i] = i * 0.5f; dx[i] = i * 0.25; }
    float hs[4] = {0.f, 1.f, 2.f, 3.f};
    // an error of the program's own: what rgpu does behind the scenes (uploading the module,
    // learning each kernel's parameter layout) must leave it for cudaGetLastError to report
    EXPECT(cudaSetDevice(1 << 20) == cudaErrorInvalidDevice);
    CHECK(cudaMemcpyToSymbol(scale, hs, sizeof hs));
    int zero = 0;
    CHECK(cudaMemcpyToSymbol(counter, &zero, sizeof zero));
    float *x, *y;
    double *xd, *yd;
    CHECK(cudaMalloc(&x, n * sizeof(float)));
    CHECK(cudaMalloc(&y, n * sizeof(float)));
    CHECK(cudaMalloc(&xd, n * sizeof(double)));
    CHECK(cudaMalloc(&yd, n * sizeof(double)));
    cudaStream_t s1, s2;
    CHECK(cudaStreamCreate(&s1));
    CHECK(cudaStreamCreate(&s2));
    cudaEvent_t e0, e1;
    CHECK(cudaEventCreate(&e0));
    CHECK(cudaEventCreate(&e1));
    CHECK(cudaMemcpyAsync(x, hx.data(), n * sizeof(float), cudaMemcpyHostToDevice, s1));
    CHECK(cudaMemcpyAsync(xd, dx.data(), n * sizeof(double), cudaMemcpyHostToDevice, s2));
    CHECK(cudaEventRecord(e0, s1));
    Affine f = {2.0f, 1.0f, n};
    axpb<float><<<(n + 255) / 256, 256, 0, s1>>>(x, y, f);
    axpb<double><<<(n + 127) / 128, 128, 0, s2>>>(xd, yd, f);
    EXPECT(cudaGetLastError() == cudaErrorInvalidDevice);
    CHECK(cudaGetLastError());
    CHECK(cudaEventRecord(e1, s1));
    CHECK(cudaMemcpyAsync(hy.data(), y, n * sizeof(float), cudaMemcpyDeviceToHost, s1));
    CHECK(cudaMemcpyAsync(dy.data(), yd, n * sizeof(double), cudaMemcpyDeviceToHost, s2));
    CHECK(cudaStreamSynchronize(s1));
    CHECK(cudaStreamSynchronize(s2));
    for (int i = 0; i < n; i++) {
        EXPECT(hy[i] == 2.0f * hx[i] + 1.0f + hs[i % 4]);
        EXPECT(dy[i] == 2.0 * dx[i] + 1.0 + (double)hs[i % 4]);
    }
    float ms;
    CHECK(cudaEventElapsedTime(&ms, e0, e1));
    count_and_say<<<40, 256>>>(n);
    CHECK(cudaDeviceSynchronize());
    int got = 0;
    CHECK(cudaMemcpyFromSymbol(&got, counter, sizeof got));
    EXPECT(got == n);
    int *xi, *partial;
    std::vector<int> hi(n), hp((n + 255) / 256);
    for (int i = 0; i < n; i++) hi[i] = i % 7;
    CHECK(cudaMalloc(&xi, n * sizeof(int)));
    CHECK(cudaMalloc(&partial, hp.size() * sizeof(int)));
    CHECK(cudaMemcpy(xi, hi.data(), n * sizeof(int), cudaMemcpyHostToDevice));
    block_sum<<<hp.size(), 256, 256 * sizeof(int)>>>(xi, partial, n);
    CHECK(cudaMemcpy(hp.data(), partial, hp.size() * sizeof(int), cudaMemcpyDeviceToHost));
    long total = 0, want = 0;
    for (int v : hp) total += v;
    for (int v : hi) want += v;
    EXPECT(total == want);
    void *addr = nullptr;
    size_t size = 0;
    CHECK(cudaGetSymbolAddress(&addr, scale));
    CHECK(cudaGetSymbolSize(&size, scale));
    EXPECT(addr != nullptr && size == sizeof hs);
    cudaFuncAttributes attr;
    CHECK(cudaFuncGetAttributes(&attr, block_sum));
    EXPECT(attr.maxThreadsPerBlock >= 256);
    int blocks = 0;
    CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, block_sum, 256, 256 * sizeof(int)));
    EXPECT(blocks > 0);
    printf("kernel time %.3f ms, occupancy %d blocks/SM, sum %ld\n", ms, blocks, total);
    printf("OK kernels_basic\n");
    return 0;
}
