// Kernels with many values live at once, at their launch bounds: ptxas fits a kernel's registers to
// its bounds (__launch_bounds__(threads, min blocks per SM)), so CUDA's occupancy calculator finds
// blocks resident at every size up to the kernel's maxThreadsPerBlock. Libraries size their grids by
// it (CUB's histogram launches occupancy x SMs blocks: a zero launches nothing and counts nothing,
// cuRAND divides by it), so each kernel here is asked at its maximum and run there.
#include "check.h"
#include <vector>

#define N 64

__device__ __forceinline__ double heavy(const double *in, int t) {
    double v[N];
#pragma unroll
    for (int i = 0; i < N; i++) v[i] = in[(t + i) % 4096] * (i + 1);
    double s = 0;
#pragma unroll
    for (int i = 0; i < N; i++) s += v[i] * v[N - 1 - i];
    return s;
}

__global__ void __launch_bounds__(384) bounded(const double *in, double *out) {
    int t = blockIdx.x * blockDim.x + threadIdx.x;
    out[t] = heavy(in, t);
}

__global__ void __launch_bounds__(128, 4) bounded_min_blocks(const double *in, double *out) {
    int t = blockIdx.x * blockDim.x + threadIdx.x;
    out[t] = heavy(in, t);
}

__global__ void unbounded(const double *in, double *out) {
    int t = blockIdx.x * blockDim.x + threadIdx.x;
    out[t] = heavy(in, t);
}

static double expected(const std::vector<double> &in, int t) {
    double v[N], s = 0;
    for (int i = 0; i < N; i++) v[i] = in[(t + i) % 4096] * (i + 1);
    for (int i = 0; i < N; i++) s += v[i] * v[N - 1 - i];
    return s;
}

template <typename K>
static int check(const char *name, K kernel, int bound, int min_blocks, const double *din, double *dout,
                 const std::vector<double> &in) {
    cudaFuncAttributes a;
    CHECK(cudaFuncGetAttributes(&a, kernel));
    int threads = a.maxThreadsPerBlock, per_sm = 0;
    EXPECT(threads >= 32 && threads <= bound);
    CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, threads, 0));
    EXPECT(per_sm >= 1);
    if (min_blocks > 1) {
        EXPECT(threads == bound);
        EXPECT(per_sm >= min_blocks);
    }
    // the dynamic shared memory that leaves room for n blocks per SM: never more for more blocks, and
    // (within a block's default 48 KiB) the occupancy calculator then finds those n blocks resident
    size_t room1 = 0, room = 0;
    CHECK(cudaOccupancyAvailableDynamicSMemPerBlock(&room1, kernel, 1, threads));
    int checked = 0;
    for (int n = 2, last = (int)room1; n <= 16; n *= 2) {
        if (n > per_sm) {  // more blocks than fit even without dynamic shared memory: refused (the H100's answer)
            EXPECT(cudaOccupancyAvailableDynamicSMemPerBlock(&room, kernel, n, threads) == cudaErrorInvalidValue);
            EXPECT(cudaGetLastError() == cudaErrorInvalidValue);
            break;
        }
        CHECK(cudaOccupancyAvailableDynamicSMemPerBlock(&room, kernel, n, threads));
        EXPECT((int)room <= last);
        last = (int)room;
        if (room > 0 && room <= 48 * 1024 && !checked) {
            int with = 0;
            CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&with, kernel, threads, room));
            EXPECT(with >= n);
            printf("%s: %zu bytes of dynamic shared memory leave room for %d blocks/SM (%d)\n", name, room, n, with);
            checked = 1;
        }
    }
    EXPECT(room1 > 0);
    kernel<<<2, threads>>>(din, dout);
    CHECK(cudaGetLastError());
    std::vector<double> out(2 * threads);
    CHECK(cudaMemcpy(out.data(), dout, out.size() * sizeof(double), cudaMemcpyDeviceToHost));
    for (int t = 0; t < 2 * threads; t++) EXPECT(out[t] == expected(in, t));
    printf("%s: %d registers, %d threads, %d blocks/SM\n", name, a.numRegs, threads, per_sm);
    return 0;
}

int main() {
    std::vector<double> in(4096);
    for (int i = 0; i < 4096; i++) in[i] = (i % 13) * 0.5 - 3;
    double *din, *dout;
    CHECK(cudaMalloc(&din, in.size() * sizeof(double)));
    CHECK(cudaMalloc(&dout, 2048 * sizeof(double)));
    CHECK(cudaMemcpy(din, in.data(), in.size() * sizeof(double), cudaMemcpyHostToDevice));
    if (check("bounded", bounded, 384, 1, din, dout, in)) return 1;
    if (check("bounded_min_blocks", bounded_min_blocks, 128, 4, din, dout, in)) return 1;
    if (check("unbounded", unbounded, 1024, 1, din, dout, in)) return 1;
    printf("OK occupancy_bounds\n");
    return 0;
}
