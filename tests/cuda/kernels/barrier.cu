// cuda::barrier and cuda::memcpy_async as libcu++ writes them (the CUDA samples' double-buffered
// pipeline): the barrier is an mbarrier, the copies cp.async that arrive on it (cp.async.mbarrier.arrive),
// for the interpreter's tests (tests/unit/sim/test_tma.py).
#include <cuda/barrier>
#include <cooperative_groups.h>
namespace cg = cooperative_groups;
using barrier = cuda::barrier<cuda::thread_scope_block>;

// out[t] = the sum over chunks c of in[c * 256 + t], each chunk staged through shared memory while
// the next one is on its way
extern "C" __global__ void staged_sum(const float *in, float *out, int chunks) {
    __shared__ alignas(16) float tile[2][256];
#pragma nv_diag_suppress static_var_with_dynamic_init
    __shared__ barrier bar[2];
    auto block = cg::this_thread_block();
    if (block.thread_rank() == 0) {
        init(&bar[0], block.size());
        init(&bar[1], block.size());
    }
    block.sync();
    float acc = 0;
    cuda::memcpy_async(block, tile[0], in, sizeof(float) * 256, bar[0]);
    for (int c = 0; c < chunks; c++) {
        if (c + 1 < chunks)
            cuda::memcpy_async(block, tile[(c + 1) & 1], in + (c + 1) * 256, sizeof(float) * 256, bar[(c + 1) & 1]);
        bar[c & 1].arrive_and_wait();
        acc += tile[c & 1][threadIdx.x];
        block.sync();
    }
    out[threadIdx.x] = acc;
}
