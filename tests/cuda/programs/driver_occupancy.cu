// Occupancy and function attributes asked again and again, as programs ask them before each launch:
// `driver_occupancy N` calls CUDA's own cudaOccupancyMaxPotentialBlockSize (cudaFuncGetAttributes, then the
// occupancy of each block size) and cudaFuncGetAttributes N times, checks that every answer is the
// first one, then sets an attribute to a new value and checks that the answers follow it. The test
// compares how many messages N = 1 and N = 20 cost. The Driver's cuOccupancyMaxPotentialBlockSize, whose
// callback is a host function, must find what the header's search finds.
#include <cstdlib>
#include <cuda.h>
#include <cuda_runtime.h>
#include "check.h"

__global__ void scale(float *x, int n, float a) {
    __shared__ float tile[256];
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    tile[threadIdx.x % 256] = i < n ? x[i] : 0.0f;
    __syncthreads();
    if (i < n) x[i] = a * tile[threadIdx.x % 256];
}

static size_t smem_for(int block_size) { return (size_t)block_size * 8; }

static bool same(const cudaFuncAttributes &a, const cudaFuncAttributes &b) {
    return a.maxThreadsPerBlock == b.maxThreadsPerBlock && a.sharedSizeBytes == b.sharedSizeBytes &&
           a.numRegs == b.numRegs && a.maxDynamicSharedSizeBytes == b.maxDynamicSharedSizeBytes &&
           a.preferredShmemCarveout == b.preferredShmemCarveout && a.ptxVersion == b.ptxVersion;
}

int main(int argc, char **argv) {
    int n = argc > 1 ? atoi(argv[1]) : 1;
    int grid0 = 0, block0 = 0, blocks0 = 0;
    cudaFuncAttributes first;
    CHECK(cudaFuncGetAttributes(&first, scale));
    EXPECT(first.sharedSizeBytes == 256 * sizeof(float) && first.maxThreadsPerBlock > 0);
    CHECK(cudaOccupancyMaxPotentialBlockSize(&grid0, &block0, scale, 0, 0));
    CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks0, scale, 256, 1024));
    EXPECT(grid0 > 0 && block0 > 0 && blocks0 > 0);
    for (int r = 0; r < n; r++) {
        int grid = 0, block = 0, blocks = 0;
        cudaFuncAttributes a;
        CHECK(cudaOccupancyMaxPotentialBlockSize(&grid, &block, scale, 0, 0));
        CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, scale, 256, 1024));
        CHECK(cudaFuncGetAttributes(&a, scale));
        EXPECT(grid == grid0 && block == block0 && blocks == blocks0 && same(a, first));
    }
    // the Driver's search, with the dynamic shared memory a block size needs from a host callback,
    // fixed, and with flags, finds what CUDA's own header search finds
    CUfunction fn;
    CHECK(cudaGetFuncBySymbol((cudaFunction_t *)&fn, (const void *)scale));
    int dgrid = 0, dblock = 0, rgrid = 0, rblock = 0;
    CHECK((cudaError_t)cuOccupancyMaxPotentialBlockSize(&dgrid, &dblock, fn, smem_for, 0, 0));
    CHECK(cudaOccupancyMaxPotentialBlockSizeVariableSMem(&rgrid, &rblock, scale, smem_for, 0));
    EXPECT(dgrid == rgrid && dblock == rblock && dblock > 0);
    CHECK((cudaError_t)cuOccupancyMaxPotentialBlockSize(&dgrid, &dblock, fn, nullptr, 0, 0));
    EXPECT(dgrid == grid0 && dblock == block0);
    CHECK((cudaError_t)cuOccupancyMaxPotentialBlockSizeWithFlags(&dgrid, &dblock, fn, nullptr, 2048, 96,
                                                                 CU_OCCUPANCY_DISABLE_CACHING_OVERRIDE));
    CHECK(cudaOccupancyMaxPotentialBlockSizeWithFlags(&rgrid, &rblock, scale, 2048, 96,
                                                      cudaOccupancyDisableCachingOverride));
    EXPECT(dgrid == rgrid && dblock == rblock && dblock <= 96);
    EXPECT(cuOccupancyMaxPotentialBlockSize(nullptr, &dblock, fn, nullptr, 0, 0) == CUDA_ERROR_INVALID_VALUE);
    cudaGetLastError();
    // a new value: what was kept follows it
    int more = first.maxDynamicSharedSizeBytes + 4096;
    CHECK(cudaFuncSetAttribute(scale, cudaFuncAttributeMaxDynamicSharedMemorySize, more));
    cudaFuncAttributes after;
    CHECK(cudaFuncGetAttributes(&after, scale));
    EXPECT(after.maxDynamicSharedSizeBytes == more && after.sharedSizeBytes == first.sharedSizeBytes);
    // an invalid function is still the server's to refuse, and not kept
    int blocks = 0;
    for (int k = 0; k < 2; k++)
        EXPECT(cuOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, (CUfunction)0x1000, 256, 0) != CUDA_SUCCESS);
    cudaGetLastError();
    float *x;
    CHECK(cudaMalloc(&x, 1024 * sizeof(float)));
    CHECK(cudaMemset(x, 0, 1024 * sizeof(float)));
    scale<<<(1024 + block0 - 1) / block0, block0>>>(x, 1024, 2.0f);
    CHECK(cudaDeviceSynchronize());
    printf("OK occupancy %d block %d\n", n, block0);
    return 0;
}
