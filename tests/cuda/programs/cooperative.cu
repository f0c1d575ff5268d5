// Cooperative launches: blocks that wait for one another with cooperative groups' grid.sync().
//   cooperative            grid-wide phases (cudaLaunchCooperativeKernel and cudaLaunchKernelExC with the
//                          cooperative attribute), the grid sized by the occupancy calculator, and a grid
//                          too large to be resident at once
//   cooperative plain      the same kernel launched without cooperation: grid.sync() traps, as on a GPU
#include <cstring>
#include <vector>
#include <cooperative_groups.h>
#include <cuda_runtime.h>
#include "check.h"
namespace cg = cooperative_groups;

// Each round: every thread adds its value into its block's partial sum; after a grid-wide sync
// every thread reads every block's partial (written by other blocks) to form the total, then
// the next round starts from that total. Without a real grid-wide barrier the totals differ.
__global__ void rounds(const int *in, int *partial, long long *totals, int n, int nrounds) {
    cg::grid_group grid = cg::this_grid();
    __shared__ int acc;
    long long carry = 0;
    for (int r = 0; r < nrounds; r++) {
        if (threadIdx.x == 0) acc = 0;
        __syncthreads();
        for (int i = grid.thread_rank(); i < n; i += grid.size()) atomicAdd(&acc, in[i] * (r + 1) + (int)(carry % 7));
        __syncthreads();
        if (threadIdx.x == 0) partial[blockIdx.x] = acc;
        grid.sync();
        long long total = 0;
        for (int b = 0; b < gridDim.x; b++) total += partial[b];
        carry = total;
        if (grid.thread_rank() == 0) totals[r] = total;
        grid.sync();  // nobody overwrites a partial before everyone has read it
    }
}

static long long expected_total(const std::vector<int> &in, int r, long long carry, long long threads) {
    long long t = 0;
    for (int v : in) t += (long long)v * (r + 1);
    // every element adds carry % 7 once
    (void)threads;
    return t + (long long)in.size() * (carry % 7);
}

int main(int argc, char **argv) {
    bool plain = argc > 1 && !strcmp(argv[1], "plain");
    int dev = 0, coop = 0, sms = 0, per_sm = 0;
    CHECK(cudaDeviceGetAttribute(&coop, cudaDevAttrCooperativeLaunch, dev));
    CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev));
    EXPECT(coop == 1);
    const int threads = 128, n = 50000, nrounds = 4;
    CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, rounds, threads, 0));
    EXPECT(per_sm > 0);
    int blocks = 24;  // fewer than per_sm * sms, and more than one batch's worth is not required
    std::vector<int> in(n);
    for (int i = 0; i < n; i++) in[i] = (i * 37) % 101 - 50;
    int *d_in, *d_partial;
    long long *d_totals;
    CHECK(cudaMalloc(&d_in, n * sizeof(int)));
    CHECK(cudaMalloc(&d_partial, per_sm * sms * sizeof(int)));
    CHECK(cudaMalloc(&d_totals, nrounds * sizeof(long long)));
    CHECK(cudaMemcpy(d_in, in.data(), n * sizeof(int), cudaMemcpyHostToDevice));
    int nn = n, nr = nrounds;
    void *args[] = {&d_in, &d_partial, &d_totals, &nn, &nr};

    if (plain) {
        rounds<<<blocks, threads>>>(d_in, d_partial, d_totals, n, nrounds);
        cudaError_t e = cudaDeviceSynchronize();
        printf("plain launch: %d %s\n", (int)e, cudaGetErrorName(e));
        return e == cudaSuccess ? 1 : 0;
    }

    auto check_totals = [&](const char *how) -> int {
        std::vector<long long> got(nrounds);
        CHECK(cudaMemcpy(got.data(), d_totals, nrounds * sizeof(long long), cudaMemcpyDeviceToHost));
        long long carry = 0;
        for (int r = 0; r < nrounds; r++) {
            long long want = expected_total(in, r, carry, 0);
            if (got[r] != want) {
                printf("FAIL %s round %d: got %lld want %lld\n", how, r, got[r], want);
                return 1;
            }
            carry = want;
        }
        printf("%s: %d blocks, %d rounds, last total %lld\n", how, blocks, nrounds, got[nrounds - 1]);
        return 0;
    };

    CHECK(cudaLaunchCooperativeKernel((void *)rounds, blocks, threads, args, 0, 0));
    CHECK(cudaDeviceSynchronize());
    if (check_totals("cudaLaunchCooperativeKernel")) return 1;

    // The whole device: as many blocks as the occupancy calculator says can be resident.
    blocks = per_sm * sms;
    CHECK(cudaMemset(d_totals, 0, nrounds * sizeof(long long)));
    CHECK(cudaLaunchCooperativeKernel((void *)rounds, blocks, threads, args, 0, 0));
    CHECK(cudaDeviceSynchronize());
    if (check_totals("full device")) return 1;

    blocks = 16;
    CHECK(cudaMemset(d_totals, 0, nrounds * sizeof(long long)));
    cudaLaunchAttribute attr;
    memset(&attr, 0, sizeof attr);
    attr.id = cudaLaunchAttributeCooperative;
    attr.val.cooperative = 1;
    cudaLaunchConfig_t cfg;
    memset(&cfg, 0, sizeof cfg);
    cfg.gridDim = dim3(blocks);
    cfg.blockDim = dim3(threads);
    cfg.attrs = &attr;
    cfg.numAttrs = 1;
    CHECK(cudaLaunchKernelExC(&cfg, (void *)rounds, args));
    CHECK(cudaDeviceSynchronize());
    if (check_totals("cudaLaunchKernelExC cooperative")) return 1;

    // Captured into a graph, a cooperative launch stays cooperative when the graph replays it.
    blocks = 12;
    cudaStream_t s;
    CHECK(cudaStreamCreate(&s));
    cudaGraph_t graph;
    cudaGraphExec_t exec;
    CHECK(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal));
    CHECK(cudaLaunchCooperativeKernel((void *)rounds, blocks, threads, args, 0, s));
    CHECK(cudaStreamEndCapture(s, &graph));
    CHECK(cudaGraphInstantiate(&exec, graph, 0));
    for (int rep = 0; rep < 2; rep++) {
        CHECK(cudaMemset(d_totals, 0, nrounds * sizeof(long long)));
        CHECK(cudaGraphLaunch(exec, s));
        CHECK(cudaStreamSynchronize(s));
        if (check_totals("graph replay")) return 1;
    }

    // One block more than can be resident: refused before it runs, and the context stays usable.
    cudaError_t e = cudaLaunchCooperativeKernel((void *)rounds, per_sm * sms + 1, threads, args, 0, 0);
    if (e == cudaSuccess) e = cudaDeviceSynchronize();
    printf("too large: %d %s\n", (int)e, cudaGetErrorName(e));
    EXPECT(e == cudaErrorCooperativeLaunchTooLarge);
    cudaGetLastError();
    CHECK(cudaDeviceSynchronize());
    printf("OK cooperative\n");
    return 0;
}
