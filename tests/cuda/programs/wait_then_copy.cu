// A large copy back into pageable memory queued behind seconds of kernels: how much of the host's
// CPU the program spends waiting in that copy. A client that spins on the staged copy's progress
// while the device is still busy with the kernels would burn a core for all of it.
//   wait_then_copy ITERS KERNELS MiB   -> WAIT wall=S cpu=S
#include <cstdlib>
#include <vector>
#include <sys/resource.h>
#include <sys/time.h>
#include <cuda_runtime.h>
#include "check.h"

__global__ void churn(float *x, int iters) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    float v = x[i];
    for (int k = 0; k < iters; k++) v = v * 0.999f + 0.001f;
    x[i] = v;
}

static double cpu_s() {
    struct rusage r;
    getrusage(RUSAGE_SELF, &r);
    return r.ru_utime.tv_sec + r.ru_stime.tv_sec + (r.ru_utime.tv_usec + r.ru_stime.tv_usec) * 1e-6;
}

static double wall_s() {
    struct timeval t;
    gettimeofday(&t, nullptr);
    return t.tv_sec + t.tv_usec * 1e-6;
}

int main(int argc, char **argv) {
    int iters = argc > 1 ? atoi(argv[1]) : 64, kernels = argc > 2 ? atoi(argv[2]) : 40;
    size_t n = (argc > 3 ? strtoull(argv[3], 0, 0) : 16) << 20;
    float *x;
    unsigned char *big;
    CHECK(cudaMalloc(&x, 4096 * sizeof(float)));
    CHECK(cudaMemset(x, 0, 4096 * sizeof(float)));
    CHECK(cudaMalloc(&big, n));
    CHECK(cudaMemset(big, 0x3c, n));
    std::vector<unsigned char> host(n);
    CHECK(cudaMemcpy(host.data(), big, n, cudaMemcpyDeviceToHost));  // pages touched, paths warm
    for (int k = 0; k < kernels; k++) churn<<<16, 256>>>(x, iters);
    CHECK(cudaGetLastError());
    double w0 = wall_s(), c0 = cpu_s();
    CHECK(cudaMemcpy(host.data(), big, n, cudaMemcpyDeviceToHost));
    double wall = wall_s() - w0, cpu = cpu_s() - c0;
    for (size_t i = 0; i < n; i++) EXPECT(host[i] == 0x3c);
    printf("WAIT wall=%.3f cpu=%.3f\n", wall, cpu);
    return 0;
}
