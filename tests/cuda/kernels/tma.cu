// Hopper's bulk copies and mbarriers as TMA kernels write them (inline PTX, as CUTLASS's and cuda::ptx's
// wrappers emit it), for the interpreter's tests (tests/unit/sim/test_tma.py). The tensor maps are
// the software GPU's own encoding, made by the test and passed as __grid_constant__ parameters.
#include <cuda.h>
#include <cstdint>

__device__ __forceinline__ uint32_t smem(const void *p) { return (uint32_t)__cvta_generic_to_shared(p); }

__device__ __forceinline__ void init(uint64_t *bar, unsigned count) {
    asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;" ::"r"(smem(bar)), "r"(count));
    asm volatile("fence.proxy.async.shared::cta;");
}

__device__ __forceinline__ void expect(uint64_t *bar, unsigned bytes) {
    asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(smem(bar)), "r"(bytes) : "memory");
}

__device__ __forceinline__ uint64_t arrive(uint64_t *bar) {
    uint64_t state;
    asm volatile("mbarrier.arrive.shared::cta.b64 %0, [%1];" : "=l"(state) : "r"(smem(bar)) : "memory");
    return state;
}

__device__ __forceinline__ bool over(uint64_t *bar, unsigned parity) {
    uint32_t ok;
    asm volatile("{\n .reg .pred p;\n mbarrier.test_wait.parity.shared::cta.b64 p, [%1], %2;\n selp.u32 %0, 1, 0, p;\n}"
                 : "=r"(ok) : "r"(smem(bar)), "r"(parity) : "memory");
    return ok;
}

__device__ __forceinline__ void wait(uint64_t *bar, unsigned parity) {
    uint32_t ok = 0;
    while (!ok)
        asm volatile("{\n .reg .pred p;\n mbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2;\n selp.u32 %0, 1, 0, p;\n}"
                     : "=r"(ok) : "r"(smem(bar)), "r"(parity) : "memory");
}

// The box at (x, y) of a 2-d map, loaded into 1024-byte aligned shared memory; its bytes copied out
// as they lie there (swizzled or not).
extern "C" __global__ void box2d(const __grid_constant__ CUtensorMap map, int x, int y, int nbytes, unsigned char *out) {
    __shared__ alignas(1024) unsigned char buf[4096];
    __shared__ alignas(8) uint64_t bar;
    if (threadIdx.x == 0) init(&bar, 1);
    __syncthreads();
    if (threadIdx.x == 0) {
        expect(&bar, nbytes);
        asm volatile("cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1, {%2, %3}], [%4];"
                     ::"r"(smem(buf)), "l"(&map), "r"(x), "r"(y), "r"(smem(&bar)) : "memory");
    }
    wait(&bar, 0);
    for (int i = threadIdx.x; i < nbytes; i += blockDim.x) out[i] = buf[i];
}

// The same for a 3-d map, then a second load into the same barrier's next phase.
extern "C" __global__ void box3d(const __grid_constant__ CUtensorMap map, int x, int y, int z, int nbytes,
                                 unsigned char *out) {
    __shared__ alignas(1024) unsigned char buf[4096];
    __shared__ alignas(8) uint64_t bar;
    if (threadIdx.x == 0) init(&bar, 1);
    __syncthreads();
    for (int phase = 0; phase < 2; phase++) {
        if (threadIdx.x == 0) {
            expect(&bar, nbytes);
            asm volatile("cp.async.bulk.tensor.3d.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1, {%2, %3, %4}], [%5];"
                         ::"r"(smem(buf)), "l"(&map), "r"(x), "r"(y), "r"(z + phase), "r"(smem(&bar)) : "memory");
        }
        wait(&bar, phase);
        for (int i = threadIdx.x; i < nbytes; i += blockDim.x) out[phase * nbytes + i] = buf[i];
        __syncthreads();
    }
}

// Shared memory filled from `src`, then stored through a 2-d map at (x, y): elements outside the
// tensor are not written.
extern "C" __global__ void store2d(const __grid_constant__ CUtensorMap map, int x, int y, int nbytes,
                                   const unsigned char *src) {
    __shared__ alignas(1024) unsigned char buf[4096];
    for (int i = threadIdx.x; i < nbytes; i += blockDim.x) buf[i] = src[i];
    asm volatile("fence.proxy.async.shared::cta;");
    __syncthreads();
    if (threadIdx.x == 0) {
        asm volatile("cp.async.bulk.tensor.2d.global.shared::cta.bulk_group [%0, {%1, %2}], [%3];"
                     ::"l"(&map), "r"(x), "r"(y), "r"(smem(buf)) : "memory");
        asm volatile("cp.async.bulk.commit_group;");
        asm volatile("cp.async.bulk.wait_group.read 0;" ::: "memory");
    }
}

// A plain bulk copy of `nbytes` (a multiple of 16) into shared memory, completing on an mbarrier.
extern "C" __global__ void bulk(const unsigned char *src, int nbytes, unsigned char *out) {
    __shared__ alignas(128) unsigned char buf[4096];
    __shared__ alignas(8) uint64_t bar;
    if (threadIdx.x == 0) init(&bar, 1);
    __syncthreads();
    if (threadIdx.x == 0) {
        expect(&bar, nbytes);
        asm volatile("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], %2, [%3];"
                     ::"r"(smem(buf)), "l"(src), "r"(nbytes), "r"(smem(&bar)) : "memory");
    }
    wait(&bar, 0);
    for (int i = threadIdx.x; i < nbytes; i += blockDim.x) out[i] = buf[i];
}

// An mbarrier's phases: a count of two arrivals, the phase parity waits, the pending count of the
// state an arrival returns, and a phase that completes only once announced bytes arrive.
extern "C" __global__ void phases(unsigned long long *out) {
    __shared__ alignas(8) uint64_t bar;
    __shared__ uint64_t first;
    if (threadIdx.x == 0) init(&bar, 2);
    __syncthreads();
    if (threadIdx.x == 0) {
        out[0] = over(&bar, 0);  // 0: nobody arrived
        first = arrive(&bar);
        uint32_t pending;
        asm volatile("mbarrier.pending_count.b64 %0, %1;" : "=r"(pending) : "l"(first));
        out[1] = pending;        // 2: the count before that arrival
        out[2] = over(&bar, 0);  // 0: one arrival of two
    }
    __syncthreads();
    if (threadIdx.x == 1) arrive(&bar);
    __syncthreads();
    if (threadIdx.x == 0) {
        out[3] = over(&bar, 0);  // 1: phase 0 is over
        out[4] = over(&bar, 1);  // 0: phase 1 has begun
        uint32_t ok;
        asm volatile("{\n .reg .pred p;\n mbarrier.test_wait.shared::cta.b64 p, [%1], %2;\n selp.u32 %0, 1, 0, p;\n}"
                     : "=r"(ok) : "r"(smem(&bar)), "l"(first) : "memory");
        out[5] = ok;             // 1: the phase `first` was taken in is over
        asm volatile("mbarrier.expect_tx.shared::cta.b64 [%0], 64;" ::"r"(smem(&bar)) : "memory");
        arrive(&bar);
        arrive(&bar);
        out[6] = over(&bar, 1);  // 0: both arrived, 64 bytes still to come
        asm volatile("mbarrier.complete_tx.shared::cta.b64 [%0], 64;" ::"r"(smem(&bar)) : "memory");
        out[7] = over(&bar, 1);  // 1: they came
    }
}
