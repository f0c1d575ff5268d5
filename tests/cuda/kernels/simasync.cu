// Asynchronous global-to-shared copies (cp.async): cuda_pipeline.h primitives, cooperative groups'
// memcpy_async, and a hand-written zero-filling copy (src-size smaller than the copy).
#include <cuda_pipeline.h>
#include <cooperative_groups.h>
#include <cooperative_groups/memcpy_async.h>
namespace cg = cooperative_groups;
extern "C" __global__ void stage(const float4 *in, float4 *out, int n) {
    __shared__ float4 buf[128];
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    __pipeline_memcpy_async(&buf[threadIdx.x], &in[i], sizeof(float4));
    __pipeline_commit();
    __pipeline_wait_prior(0);
    __syncthreads();
    out[i] = buf[(threadIdx.x + 1) % blockDim.x];
}
extern "C" __global__ void cgstage(const int *in, int *out, int n) {
    __shared__ int buf[256];
    auto block = cg::this_thread_block();
    cg::memcpy_async(block, buf, in + blockIdx.x * 256, sizeof(int) * 256);
    cg::wait(block);
    out[blockIdx.x * 256 + threadIdx.x] = buf[255 - threadIdx.x] * 2;
}

extern "C" __global__ void zero_fill(const int *in, int *out, int valid_bytes) {
    __shared__ int4 buf[32];
    unsigned dst = (unsigned)__cvta_generic_to_shared(&buf[threadIdx.x]);
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;" :: "r"(dst), "l"(in + 4 * threadIdx.x), "r"(valid_bytes));
    asm volatile("cp.async.wait_all;");
    __syncthreads();
    const int *b = (const int *)buf;
    for (int k = 0; k < 4; k++) out[4 * threadIdx.x + k] = b[4 * threadIdx.x + k];
}
