// Setting a kernel's dynamic shared memory size before every launch, as CUTLASS's kernels (and
// PyTorch's flash attention) do: `func_attributes N` launches a kernel that uses 64 KiB of dynamic
// shared memory N times, each after cudaFuncSetAttribute to the same size, and checks every result; a
// size past the device's limit is refused at once and leaves the size set before in force. The test
// compares how many messages N = 1 and N = 20 cost. The bank setting of older code is accepted.
#include <cstdlib>
#include <cuda_runtime.h>
#include "check.h"

static const int SMEM = 64 << 10, THREADS = 256, PER = SMEM / 4 / THREADS;

__global__ void through_shared(const int *in, int *out, int salt) {
    extern __shared__ int buf[];
    for (int k = 0; k < PER; k++) buf[k * THREADS + threadIdx.x] = in[k * THREADS + threadIdx.x] + salt;
    __syncthreads();
    // each thread reads another thread's words back: the whole buffer went through shared memory
    int t = THREADS - 1 - threadIdx.x, sum = 0;
    for (int k = 0; k < PER; k++) sum += buf[k * THREADS + t];
    out[threadIdx.x] = sum;
}

int main(int argc, char **argv) {
    int n = argc > 1 ? atoi(argv[1]) : 1;
    const int words = SMEM / 4;
    static int host[words], sums[THREADS];
    for (int i = 0; i < words; i++) host[i] = (i * 7) % 1000;
    int *in, *out;
    CHECK(cudaMalloc(&in, SMEM));
    CHECK(cudaMalloc(&out, THREADS * sizeof(int)));
    CHECK(cudaMemcpy(in, host, SMEM, cudaMemcpyHostToDevice));
    // past the device's limit: refused now, as CUDA refuses it
    EXPECT(cudaFuncSetAttribute(through_shared, cudaFuncAttributeMaxDynamicSharedMemorySize, 64 << 20) ==
           cudaErrorInvalidValue);
    EXPECT(cudaGetLastError() == cudaErrorInvalidValue);
    // shared memory banks, configurable on no GPU since Kepler: a valid setting is accepted and
    // ignored, as CUDA does (older libraries still set eight-byte banks)
    CHECK(cudaFuncSetSharedMemConfig(through_shared, cudaSharedMemBankSizeEightByte));
    EXPECT(cudaFuncSetSharedMemConfig(through_shared, (cudaSharedMemConfig)7) == cudaErrorInvalidValue);
    EXPECT(cudaGetLastError() == cudaErrorInvalidValue);
    for (int r = 0; r < n; r++) {
        CHECK(cudaFuncSetAttribute(through_shared, cudaFuncAttributeMaxDynamicSharedMemorySize, SMEM));
        through_shared<<<1, THREADS, SMEM>>>(in, out, r);
        CHECK(cudaGetLastError());
        if (r == n - 1 || r % 5 == 0) {
            CHECK(cudaMemcpy(sums, out, sizeof sums, cudaMemcpyDeviceToHost));
            for (int t = 0; t < THREADS; t++) {
                int want = 0;
                for (int k = 0; k < PER; k++) want += host[k * THREADS + (THREADS - 1 - t)] + r;
                EXPECT(sums[t] == want);
            }
        }
    }
    // refused again after the repeats: the size set before stays, and the next launch runs with it
    EXPECT(cudaFuncSetAttribute(through_shared, cudaFuncAttributeMaxDynamicSharedMemorySize, 64 << 20) ==
           cudaErrorInvalidValue);
    cudaGetLastError();
    cudaFuncAttributes a;
    CHECK(cudaFuncGetAttributes(&a, through_shared));
    EXPECT(a.maxDynamicSharedSizeBytes == SMEM);
    through_shared<<<1, THREADS, SMEM>>>(in, out, 0);
    CHECK(cudaDeviceSynchronize());
    // and with the size back to the default, the same launch is refused
    CHECK(cudaFuncSetAttribute(through_shared, cudaFuncAttributeMaxDynamicSharedMemorySize, 0));
    through_shared<<<1, THREADS, SMEM>>>(in, out, 0);
    EXPECT(cudaGetLastError() != cudaSuccess || cudaDeviceSynchronize() != cudaSuccess);
    printf("OK func_attributes %d\n", n);
    return 0;
}
