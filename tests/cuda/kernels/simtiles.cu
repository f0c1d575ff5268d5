// Cooperative groups' tiles: collectives of 8 or 16 lanes run side by side in one warp, each
// lane naming its own tile's member mask (redux, vote, match and shfl with per-lane masks).
#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>
namespace cg = cooperative_groups;

extern "C" __global__ void tile_ops(const int *in, int *sum8, int *sum16, unsigned *ballot16, int *any16,
                                    int *all16, int *shfl16, unsigned *match16, int *max8) {
    auto block = cg::this_thread_block();
    auto t16 = cg::tiled_partition<16>(block);
    auto t8 = cg::tiled_partition<8>(block);
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int v = in[i];
    sum16[i] = cg::reduce(t16, v, cg::plus<int>());
    sum8[i] = cg::reduce(t8, v, cg::plus<int>());
    max8[i] = cg::reduce(t8, v, cg::greater<int>());
    ballot16[i] = t16.ballot(v & 1);
    any16[i] = t16.any(v > 90);
    all16[i] = t16.all(v >= 3);
    shfl16[i] = t16.shfl_down(v, 3);
    match16[i] = t16.match_any(v % 4);
}
