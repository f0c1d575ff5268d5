// Thread-block clusters for the interpreter's tests (tests/unit/sim/test_clusters.py): the cluster
// special registers, distributed shared memory through 32-bit shared::cluster addresses (mapa), the
// cluster barrier, and a kernel whose cluster dimensions are compiled in.
#include <cstdint>

__device__ __forceinline__ unsigned special(int which) {
    unsigned v = 0;
    switch (which) {
    case 0: asm("mov.u32 %0, %%cluster_ctarank;" : "=r"(v)); break;
    case 1: asm("mov.u32 %0, %%cluster_nctarank;" : "=r"(v)); break;
    case 2: asm("mov.u32 %0, %%clusterid.x;" : "=r"(v)); break;
    case 3: asm("mov.u32 %0, %%clusterid.y;" : "=r"(v)); break;
    case 4: asm("mov.u32 %0, %%cluster_ctaid.x;" : "=r"(v)); break;
    case 5: asm("mov.u32 %0, %%cluster_ctaid.y;" : "=r"(v)); break;
    case 6: asm("mov.u32 %0, %%nclusterid.x;" : "=r"(v)); break;
    case 7: asm("mov.u32 %0, %%cluster_nctaid.y;" : "=r"(v)); break;
    default: asm("{\n .reg .pred p;\n mov.pred p, %%is_explicit_cluster;\n selp.u32 %0, 1, 0, p;\n}" : "=r"(v)); break;
    }
    return v;
}

// out[block][0..10]: ctaid.x, ctaid.y, then the specials above
extern "C" __global__ void ids(unsigned *out) {
    if (threadIdx.x) return;
    unsigned *o = out + (blockIdx.y * gridDim.x + blockIdx.x) * 11;
    o[0] = blockIdx.x;
    o[1] = blockIdx.y;
    for (int k = 0; k < 9; k++) o[2 + k] = special(k);
}

__device__ __forceinline__ void cluster_sync() {
    asm volatile("barrier.cluster.arrive;\n barrier.cluster.wait;" ::: "memory");
}

// Each block's shared word holds 100 * rank + (threads that added to it); every thread of the next
// block of the ring adds 1 to it through its shared::cluster address, then each block reports its own.
extern "C" __global__ void ring(unsigned *out) {
    __shared__ unsigned word;
    unsigned rank = special(0), n = special(1);
    if (threadIdx.x == 0) word = 100 * rank;
    cluster_sync();
    unsigned mine = (unsigned)__cvta_generic_to_shared(&word), theirs;
    asm volatile("mapa.shared::cluster.u32 %0, %1, %2;" : "=r"(theirs) : "r"(mine), "r"((rank + 1) % n));
    asm volatile("red.shared::cluster.add.u32 [%0], 1;" ::"r"(theirs) : "memory");
    cluster_sync();
    if (threadIdx.x == 0) out[blockIdx.y * gridDim.x + blockIdx.x] = word;
}

// Cluster dimensions compiled in: launched without any, it still runs in clusters of two.
extern "C" __global__ void __cluster_dims__(2, 1, 1) compiled(unsigned *out) {
    if (threadIdx.x == 0) out[blockIdx.x] = special(0) + 10 * special(1);
}

// Reads the shared word of block `rank` of its cluster (which may not exist).
extern "C" __global__ void stray(unsigned rank, unsigned *out) {
    __shared__ unsigned word;
    word = 7;
    unsigned mine = (unsigned)__cvta_generic_to_shared(&word), theirs, v;
    asm volatile("mapa.shared::cluster.u32 %0, %1, %2;" : "=r"(theirs) : "r"(mine), "r"(rank));
    asm volatile("ld.shared::cluster.u32 %0, [%1];" : "=r"(v) : "r"(theirs) : "memory");
    out[blockIdx.x] = v;
}
