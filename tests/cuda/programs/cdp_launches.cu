// Dynamic parallelism (CUDA's device runtime, CDP2; built with -rdc=true and libcudadevrt): kernels
// that launch kernels. A child grid per block with its own arguments, a tail launch that sees every
// child's work, recursion eight grids deep, a stream device code makes and fire-and-forget launches,
// a launch the device runtime refuses (device-side cudaGetLastError), device code's cudaMalloc,
// cudaMemcpyAsync, cudaMemsetAsync and cudaDeviceGetAttribute, and a child's fault, which is the
// parent's launch's error. nvlink links the units into SASS alone; the software GPU runs their PTX.
#include <cstdio>
#include <cuda_runtime.h>
#include "check.h"

enum { BLOCKS = 6, PER = 40, DEPTH = 8 };

__global__ void fill(int *out, int base, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[base + i] = base + i * 2;
}

__global__ void total(const int *out, int n, long long *sum) {
    long long s = 0;
    for (int i = 0; i < n; i++) s += out[i];
    *sum = s;
}

__global__ void parent(int *out, long long *sum, int *errs) {
    if (threadIdx.x != 0) return;
    fill<<<(PER + 31) / 32, 32>>>(out, blockIdx.x * PER, PER);
    errs[blockIdx.x] = cudaGetLastError();
    // after the whole grid and everything it launched: every block's children have filled out
    if (blockIdx.x == 0) total<<<1, 1, 0, cudaStreamTailLaunch>>>(out, BLOCKS * PER, sum);
}

__global__ void nest(int *levels, int depth) {
    levels[depth] = depth * 10 + 1;
    if (depth + 1 < DEPTH) nest<<<1, 1>>>(levels, depth + 1);
}

__global__ void streams(int *out, int *errs) {
    cudaStream_t s;
    errs[0] = cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking);
    fill<<<1, 32, 0, s>>>(out, 0, 32);
    fill<<<1, 32, 0, cudaStreamFireAndForget>>>(out, 32, 32);
    errs[1] = cudaStreamDestroy(s);
    fill<<<1, 2048>>>(out, 64, 32);  // more threads than a block may have: refused, nothing runs
    errs[2] = cudaPeekAtLastError();
    errs[3] = cudaGetLastError();
    errs[4] = cudaGetLastError();  // cleared by the one before
}

// device code's memory calls: a block of the device heap, copied out behind the grid, and a memset
// (CUDA 13's device runtime sets zeros whatever the value: it never reads it)
__global__ void memory_ops(int *out, int *errs) {
    int *p = nullptr;
    errs[0] = cudaMalloc((void **)&p, 16 * sizeof(int));
    if (!p) return;
    for (int i = 0; i < 16; i++) p[i] = 100 + i;
    errs[1] = cudaMemcpyAsync(out, p, 16 * sizeof(int), cudaMemcpyDeviceToDevice, 0);
    errs[2] = cudaMemsetAsync(out + 16, 7, 4 * sizeof(int), 0);
    int sms = 0;
    errs[3] = cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0);
    errs[4] = sms;
}

__global__ void bad(int *p) { p[threadIdx.x] = 1; }

__global__ void faulting_parent() { bad<<<1, 1>>>((int *)16); }

int main() {
    int *out, *errs, *levels;
    long long *sum;
    CHECK(cudaMalloc(&out, BLOCKS * PER * sizeof(int)));
    CHECK(cudaMalloc(&errs, 16 * sizeof(int)));
    CHECK(cudaMalloc(&levels, DEPTH * sizeof(int)));
    CHECK(cudaMalloc(&sum, sizeof *sum));
    CHECK(cudaMemset(out, 0, BLOCKS * PER * sizeof(int)));
    CHECK(cudaMemset(errs, 0xff, 16 * sizeof(int)));
    CHECK(cudaMemset(sum, 0, sizeof *sum));

    parent<<<BLOCKS, 64>>>(out, sum, errs);
    CHECK(cudaGetLastError());
    CHECK(cudaDeviceSynchronize());
    int h[BLOCKS * PER], e[16];
    long long s = 0, want = 0;
    CHECK(cudaMemcpy(h, out, sizeof h, cudaMemcpyDeviceToHost));
    CHECK(cudaMemcpy(e, errs, sizeof e, cudaMemcpyDeviceToHost));
    CHECK(cudaMemcpy(&s, sum, sizeof s, cudaMemcpyDeviceToHost));
    for (int i = 0; i < BLOCKS * PER; i++) {
        int expect = (i / PER) * PER + (i % PER) * 2;
        EXPECT(h[i] == expect);
        want += expect;
    }
    for (int b = 0; b < BLOCKS; b++) EXPECT(e[b] == cudaSuccess);
    EXPECT(s == want);

    CHECK(cudaMemset(levels, 0, DEPTH * sizeof(int)));
    nest<<<1, 1>>>(levels, 0);
    CHECK(cudaDeviceSynchronize());
    int lv[DEPTH];
    CHECK(cudaMemcpy(lv, levels, sizeof lv, cudaMemcpyDeviceToHost));
    for (int d = 0; d < DEPTH; d++) EXPECT(lv[d] == d * 10 + 1);

    CHECK(cudaMemset(out, 0, BLOCKS * PER * sizeof(int)));
    streams<<<1, 1>>>(out, errs);
    CHECK(cudaDeviceSynchronize());
    CHECK(cudaMemcpy(h, out, sizeof h, cudaMemcpyDeviceToHost));
    CHECK(cudaMemcpy(e, errs, sizeof e, cudaMemcpyDeviceToHost));
    for (int i = 0; i < 64; i++) EXPECT(h[i] == (i / 32) * 32 + (i % 32) * 2);
    for (int i = 64; i < 96; i++) EXPECT(h[i] == 0);
    EXPECT(e[0] == cudaSuccess && e[1] == cudaSuccess);
    EXPECT(e[2] != cudaSuccess && e[3] == e[2] && e[4] == cudaSuccess);
    cudaError_t refused = (cudaError_t)e[2];

    CHECK(cudaMemset(out, 0x55, BLOCKS * PER * sizeof(int)));
    memory_ops<<<1, 1>>>(out, errs);
    CHECK(cudaDeviceSynchronize());
    CHECK(cudaMemcpy(h, out, sizeof h, cudaMemcpyDeviceToHost));
    CHECK(cudaMemcpy(e, errs, sizeof e, cudaMemcpyDeviceToHost));
    int sms = 0;
    CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
    EXPECT(e[0] == cudaSuccess && e[1] == cudaSuccess && e[2] == cudaSuccess && e[3] == cudaSuccess);
    EXPECT(e[4] == sms);  // device code sees the device the host sees
    for (int i = 0; i < 16; i++) EXPECT(h[i] == 100 + i);
    if (h[16] != 0 || h[20] != 0x55555555) printf("device memset: %#x %#x\n", h[16], h[20]);
    for (int i = 16; i < 20; i++) EXPECT(h[i] == 0);  // set, to zeros
    EXPECT(h[20] == 0x55555555);                        // past the memset: untouched

    faulting_parent<<<1, 1>>>();
    cudaError_t fault = cudaDeviceSynchronize();
    EXPECT(fault == cudaErrorIllegalAddress);
    printf("OK cdp_launches (refused launch: %s)\n", cudaGetErrorName(refused));
    return 0;
}
