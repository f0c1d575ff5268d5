// Thread-block clusters (compute capability 9.0 on), as CUTLASS's and cuBLAS's Hopper kernels use
// them: a launch with cudaLaunchAttributeClusterDimension (cudaLaunchKernelEx), the cluster
// occupancy questions, and the same launch captured in a graph. In a cluster the blocks share their
// shared memory: each block reads its neighbour's. A device without clusters (the software GPU,
// whose cudaDevAttrClusterLaunch is 0) refuses both with cudaErrorNotSupported.
#include <cooperative_groups.h>
#include <cuda_runtime.h>
#include "check.h"
namespace cg = cooperative_groups;

constexpr int BLOCKS = 8, CLUSTER = 2;

__global__ void neighbours(int *out) {
    cg::cluster_group cluster = cg::this_cluster();
    __shared__ int mine;
    if (threadIdx.x == 0) mine = 10 * (int)blockIdx.x;
    cluster.sync();
    unsigned peer = (cluster.block_rank() + 1) % cluster.num_blocks();
    int theirs = *cluster.map_shared_rank(&mine, peer);
    if (threadIdx.x == 0) out[blockIdx.x] = 1000 * (int)cluster.block_rank() + theirs;
    cluster.sync();  // no block leaves while its neighbour may still read its shared memory
}

static int check_results(const int *d) {
    int h[BLOCKS];
    CHECK(cudaMemcpy(h, d, sizeof h, cudaMemcpyDeviceToHost));
    for (int b = 0; b < BLOCKS; b++) {
        int rank = b % CLUSTER, peer = b - rank + (rank + 1) % CLUSTER;
        if (h[b] != 1000 * rank + 10 * peer) {
            printf("FAIL block %d: %d, expected %d\n", b, h[b], 1000 * rank + 10 * peer);
            return 1;
        }
    }
    return 0;
}

int main() {
    int clusters = 0;
    CHECK(cudaDeviceGetAttribute(&clusters, cudaDevAttrClusterLaunch, 0));
    int *d;
    CHECK(cudaMalloc(&d, BLOCKS * sizeof(int)));
    CHECK(cudaMemset(d, 0xff, BLOCKS * sizeof(int)));
    cudaLaunchAttribute attr[1];
    attr[0].id = cudaLaunchAttributeClusterDimension;
    attr[0].val.clusterDim.x = CLUSTER;
    attr[0].val.clusterDim.y = 1;
    attr[0].val.clusterDim.z = 1;
    cudaLaunchConfig_t cfg = {};
    cfg.gridDim = dim3(BLOCKS);
    cfg.blockDim = dim3(32);
    cfg.attrs = attr;
    cfg.numAttrs = 1;
    int active = -1, size = -1;
    cudaError_t qa = cudaOccupancyMaxActiveClusters(&active, neighbours, &cfg);
    cudaError_t qs = cudaOccupancyMaxPotentialClusterSize(&size, neighbours, &cfg);
    if (!clusters) {
        EXPECT(qa == cudaErrorNotSupported && qs == cudaErrorNotSupported);
        cudaError_t e = cudaLaunchKernelEx(&cfg, neighbours, d);
        if (e == cudaSuccess) e = cudaDeviceSynchronize();  // a launch's error may come at the next sync
        printf("cluster launch: %d %s\n", (int)e, cudaGetErrorName(e));
        EXPECT(e == cudaErrorNotSupported);
        CHECK(cudaDeviceSynchronize());  // refused, not a fault: the context goes on
        CHECK(cudaFree(d));
        printf("OK clusters (none on this device)\n");
        return 0;
    }
    CHECK(qa);
    CHECK(qs);
    printf("active clusters %d, potential cluster size %d\n", active, size);
    EXPECT(active >= 1 && size >= CLUSTER);
    CHECK(cudaLaunchKernelEx(&cfg, neighbours, d));
    CHECK(cudaDeviceSynchronize());
    if (check_results(d)) return 1;

    // captured in a graph, the launch keeps its cluster
    cudaStream_t s;
    CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    CHECK(cudaMemsetAsync(d, 0xff, BLOCKS * sizeof(int), s));
    cudaGraph_t g;
    cudaGraphExec_t x;
    cfg.stream = s;
    CHECK(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal));
    CHECK(cudaLaunchKernelEx(&cfg, neighbours, d));
    CHECK(cudaStreamEndCapture(s, &g));
    CHECK(cudaGraphInstantiate(&x, g, 0));
    CHECK(cudaGraphLaunch(x, s));
    CHECK(cudaStreamSynchronize(s));
    if (check_results(d)) return 1;

    // a cluster that does not divide the grid is refused
    attr[0].val.clusterDim.x = 3;
    cfg.stream = 0;
    cudaError_t e = cudaLaunchKernelEx(&cfg, neighbours, d);
    if (e == cudaSuccess) e = cudaDeviceSynchronize();
    printf("cluster 3 over 8 blocks: %d %s\n", (int)e, cudaGetErrorName(e));
    EXPECT(e != cudaSuccess);
    CHECK(cudaGraphExecDestroy(x));
    CHECK(cudaGraphDestroy(g));
    CHECK(cudaStreamDestroy(s));
    printf("OK clusters\n");
    return 0;
}
