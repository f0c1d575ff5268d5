// Kernels the software GPU's compiled path (server/backends/sim/jit) is checked against the
// interpreter with (tests/unit/sim/test_jit_differential.py), and its benchmark runs.
#include <cstdint>
#include <cstdio>

extern "C" __global__ void vadd(const float *a, const float *b, float *c, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) c[i] = a[i] + b[i];
}

#define TILE 16
extern "C" __global__ void tiled_matmul(const float *A, const float *B, float *C, int M, int N, int K) {
    __shared__ float As[TILE][TILE];
    __shared__ float Bs[TILE][TILE];
    int row = blockIdx.y * TILE + threadIdx.y, col = blockIdx.x * TILE + threadIdx.x;
    float acc = 0.0f;
    for (int t = 0; t < (K + TILE - 1) / TILE; ++t) {
        int ac = t * TILE + threadIdx.x, br = t * TILE + threadIdx.y;
        As[threadIdx.y][threadIdx.x] = (row < M && ac < K) ? A[row * K + ac] : 0.0f;
        Bs[threadIdx.y][threadIdx.x] = (br < K && col < N) ? B[br * N + col] : 0.0f;
        __syncthreads();
        for (int k = 0; k < TILE; ++k) acc += As[threadIdx.y][k] * Bs[k][threadIdx.x];
        __syncthreads();
    }
    if (row < M && col < N) C[row * N + col] = acc;
}

// A grid-stride sum, then a warp's lanes summed by shuffles; lane 0 of each warp writes its
// warp's sum and how many lanes saw a negative value (a ballot).
extern "C" __global__ void warp_sums(const int *in, int *sums, unsigned *negatives, int n) {
    int v = 0, neg = 0;
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) {
        v += in[i];
        neg |= in[i] < 0;
    }
    for (int o = 16; o > 0; o >>= 1) v += __shfl_down_sync(0xffffffffu, v, o);
    unsigned ballot = __ballot_sync(0xffffffffu, neg);
    int w = (blockIdx.x * blockDim.x + threadIdx.x) / 32;
    if ((threadIdx.x & 31) == 0) {
        sums[w] = v;
        negatives[w] = __popc(ballot);
    }
}

// Bins in shared memory with shared atomics, merged into global bins; the global extremes and
// a first-claim table exercise min, max, exch and cas (in ways whose result does not depend on
// which thread comes first: blocks run in any order, on a GPU as on several cores).
extern "C" __global__ void shared_histogram(const unsigned char *data, unsigned *bins, int *extremes,
                                            int *claims, int n) {
    __shared__ unsigned h[64];
    for (int i = threadIdx.x; i < 64; i += blockDim.x) h[i] = 0;
    __syncthreads();
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) {
        int d = data[i];
        atomicAdd(&h[d & 63], 1u);
        atomicMin(&extremes[0], d - 128);
        atomicMax(&extremes[1], d - 128);
        if (atomicCAS(&claims[d & 15], -1, d & 15) == -1) atomicAdd(&claims[16], 1);
    }
    __syncthreads();
    for (int i = threadIdx.x; i < 64; i += blockDim.x) atomicAdd(&bins[i], h[i]);
    if (threadIdx.x == 0) atomicExch(&extremes[2], (int)gridDim.x + 1000);
}

__device__ int collatz_steps(long long x) {
    int s = 0;
    while (x != 1 && s < 200) {
        x = (x & 1) ? 3 * x + 1 : x >> 1;
        s++;
    }
    return s;
}

// Divergence of every kind: per-thread loop counts, nested branches, an early return, a switch,
// and integer and float arithmetic whose PTX rules (signed division, shifts, conversions) differ
// from C's where C leaves them undefined.
extern "C" __global__ void divergent(const int *in, const float *x, int *iout, float *fout, double *dout, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    int v = in[i];
    int r = collatz_steps(v > 0 ? v : 1 - v);
    if (v % 3 == 0) {
        r += v / 7;
        if (v & 4) r ^= v << 3;
        else r -= (unsigned)v >> 5;
    } else if (v % 3 == 1) {
        switch (v & 3) {
            case 0: r *= 3; break;
            case 1: r = r / (v | 1); break;
            case 2: r = __clz(v) + __popc(v); break;
            default: r = __brev(v) ^ r;
        }
    } else {
        for (int k = 0; k < (v & 7); k++) r = r * 31 + (v % (k + 2));
    }
    iout[i] = r;
    float f = x[i];
    float g = f > 0.0f ? sqrtf(f) : fmaf(f, 1.5f, -2.0f);
    g = fminf(g, 3.0f) + fmaxf(f / 3.0f, -1.0f);
    fout[2 * i] = g;
    fout[2 * i + 1] = (float)__float2int_rn(f * 100.0f) + (float)(unsigned)(f * 1e9f) * 1e-9f;
    double d = (double)f * 1.000001 + (double)v;
    dout[i] = d / 3.0 + sqrt(fabs(d)) - (double)(long long)(d * 1e10) * 1e-10;
}

// Thread i stores at p[i + off]: off past the allocation faults.
extern "C" __global__ void oob_store(int *p, int off) {
    p[threadIdx.x + off] = threadIdx.x;
}

// A shared-memory index from the caller: past the 64 ints it faults.
extern "C" __global__ void oob_shared(int *out, int idx) {
    __shared__ int s[64];
    s[threadIdx.x & 63] = threadIdx.x;
    __syncthreads();
    out[threadIdx.x] = s[(threadIdx.x + idx) & 0xffff];
}

// 16-byte accesses at byte offsets from the caller, thread 0 at off0 (caching its allocation in
// the compiled code's slot) and shared offset 0, thread 1 at off1 and shared offset s1: the edges
// of an allocation and of the shared window, inside, one past, before, and misaligned.
extern "C" __global__ void edge_access(const char *p, long long off0, long long off1, int s1, float *out) {
    __shared__ float4 s[4];
    long long off = threadIdx.x ? off1 : off0;
    if (threadIdx.x < 4) s[threadIdx.x] = make_float4(1.0f, 2.0f, 3.0f, (float)threadIdx.x);
    __syncthreads();
    float4 v = *(const float4 *)(p + off);
    float4 w = *(const float4 *)((const char *)s + (threadIdx.x ? s1 : 0));
    out[threadIdx.x] = v.x + v.y + v.z + v.w + w.x + w.w;
}

// Every integer atomic on shared memory (the compiler writes them as plain read-modify-writes: a
// block's shared memory belongs to the one worker thread running it). Final values do not depend
// on the order of the threads; the values inc, cas and exch return follow thread order, which is
// also the interpreter's (one instruction's lanes on one address serialised in lane order).
extern "C" __global__ void shared_atomics(const int *x, unsigned *out, unsigned *olds) {
    __shared__ unsigned s[10];
    __shared__ int m[2];
    int t = threadIdx.x;
    if (t < 10) s[t] = t == 3 ? 0xFFFFFFFFu : t == 6 ? 5u : 0u;
    if (t < 2) m[t] = 0;
    __syncthreads();
    int g = blockIdx.x * blockDim.x + t;
    unsigned v = (unsigned)x[g];
    atomicAdd(&s[0], v);
    atomicOr(&s[1], v);
    atomicXor(&s[2], v);
    atomicAnd(&s[3], v | 0x80000000u);
    atomicMax(&s[4], v);
    atomicMin(&m[0], x[g]);
    atomicMax(&m[1], x[g]);
    unsigned a = atomicInc(&s[5], 100u);
    unsigned b = atomicDec(&s[6], 7u);
    unsigned c = atomicCAS(&s[7], 0u, (unsigned)t + 1);
    unsigned d = atomicExch(&s[8], (unsigned)t);
    atomicSub(&s[9], v);
    olds[g] = a ^ (b << 8) ^ (c << 16) ^ (d << 24);
    __syncthreads();
    if (t < 10) out[blockIdx.x * 12 + t] = s[t];
    if (t < 2) out[blockIdx.x * 12 + 10 + t] = (unsigned)m[t];
}

// The interpreter's float atomics sum one instruction's lanes as a tree, so this one falls back.
extern "C" __global__ void float_atomic_sum(const float *x, float *out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) atomicAdd(out, x[i]);
}

// Float atomics whose sums round (the order of the additions shows in the result): every thread of
// a block into three words of the block's own and, twice, into a fourth (a thread adding again
// before the others added once would round otherwise); the old value each returned; shared-memory
// sums; an f64 sum per block. Each block has its own words: blocks on other worker threads add in
// no fixed order, on a GPU as here.
extern "C" __global__ void float_atomics(const float *x, float *sums, double *dsums, float *olds, float *shared_out) {
    __shared__ float s[4];
    int t = threadIdx.x, b = blockIdx.x, i = b * blockDim.x + t;
    if (t < 4) s[t] = 0.0f;
    __syncthreads();
    float v = x[i] * 1000.0f;
    float *mine = sums + 4 * b;
    olds[i] = atomicAdd(&mine[t % 3], v);
    for (int k = 0; k < 2 + (x[i] > 3.0f); k++) atomicAdd(&mine[3], k ? -0.5f * v : v);
    atomicAdd(&s[t & 3], v);
    atomicAdd(&dsums[b], (double)v * 1.0e-3);
    __syncthreads();
    if (t < 4) shared_out[4 * b + t] = s[t];
}

// What atom.add.f32 does beside rounding: in global memory a subnormal result and a subnormal
// input are flushed to zero; in shared memory they are kept; a NaN comes out as 0x7fffffff.
extern "C" __global__ void float_atomic_edges(float *p, float *out) {
    __shared__ float s[2];
    s[0] = 1.5f * 1.17549435e-38f;
    s[1] = 0.0f;
    atomicAdd(&p[0], -1.17549435e-38f);
    atomicAdd(&p[1], p[5]);
    atomicAdd(&p[2], 1.0f);
    p[3] = atomicAdd(&p[4], 2.0f);
    atomicAdd(&s[0], -1.17549435e-38f);
    atomicAdd(&s[1], p[5]);
    out[0] = s[0];
    out[1] = s[1];
}

// 16-bit float atomic adds (atom/red.add.noftz on f16, bf16, f16x2, bf16x2; CuPy's and numba's
// atomicAdd on half): every thread of a block into two f16 and two bf16 words of the block's own,
// into an f16x2 and a bf16x2 word, and into two f16 words of shared memory; the old value of each
// f16 add. The sums round at every add, so the lanes' order shows in them.
extern "C" __global__ void half_atomics(const unsigned short *x, unsigned short *h, unsigned *pairs,
                                        unsigned short *olds, unsigned short *shared_out) {
    __shared__ unsigned short s[2];
    int t = threadIdx.x, b = blockIdx.x, i = b * blockDim.x + t;
    if (t < 2) s[t] = 0;
    __syncthreads();
    unsigned short v = x[i], old;
    unsigned pv = v | (unsigned)x[(i * 7 + 3) % (gridDim.x * blockDim.x)] << 16;
    asm volatile("atom.global.add.noftz.f16 %0, [%1], %2;" : "=h"(old) : "l"(h + 4 * b + t % 2), "h"(v) : "memory");
    olds[i] = old;
    asm volatile("red.global.add.noftz.bf16 [%0], %1;" ::"l"(h + 4 * b + 2 + t % 2), "h"(v) : "memory");
    asm volatile("red.global.add.noftz.f16x2 [%0], %1;" ::"l"(pairs + 2 * b), "r"(pv) : "memory");
    asm volatile("red.global.add.noftz.bf16x2 [%0], %1;" ::"l"(pairs + 2 * b + 1), "r"(pv) : "memory");
    asm volatile("red.shared.add.noftz.f16 [%0], %1;" ::"l"(__cvta_generic_to_shared(s + (t & 1))), "h"(v) : "memory");
    __syncthreads();
    if (t < 2) shared_out[2 * b + t] = s[t];
}

// match.any/all.sync (CUB's radix sort ranks keys with them): 32- and 64-bit values, half-warp tiles
// whose lanes name different member masks, and lanes of one branch only. Five words per thread.
extern "C" __global__ void warp_match(const int *in, unsigned *out) {
    int i = blockIdx.x * blockDim.x + threadIdx.x, lane = threadIdx.x & 31;
    int v = in[i] & 7;
    unsigned *o = out + 5 * i;
    o[0] = __match_any_sync(0xffffffffu, v);
    o[1] = __match_any_sync(0xffffffffu, (unsigned long long)(v & 3) << 33 | 1u);
    int pred = 0;
    unsigned tile = lane < 16 ? 0x0000ffffu : 0xffff0000u;
    o[2] = __match_all_sync(tile, v >> 2, &pred);
    o[3] = pred;
    o[4] = 0xdeadu;
    if (v & 1) o[4] = __match_any_sync(__activemask(), v);
}

// A barrier with a thread count (bar.sync 1, 64): outside the compiler's subset, so the kernel runs
// interpreted (jit/check.py)
extern "C" __global__ void counted_barrier(const int *in, int *out) {
    __shared__ int s[64];
    int t = threadIdx.x;
    s[t] = in[blockIdx.x * 64 + t];
    asm volatile("bar.sync 1, 64;" ::: "memory");
    out[blockIdx.x * 64 + t] = s[63 - t];
}

// Carry chains (add.cc/addc/sub.cc/subc, mad.lo/hi.cc/madc as libdevice's sin/cos argument
// reduction writes them), 32- and 64-bit, signed and unsigned, and copysign: 12 words per thread.
extern "C" __global__ void carries(const int *in, unsigned *out, float *fout, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    unsigned a = in[i], b = in[(i * 7 + 3) % n] * 2654435761u, c = in[(i * 13 + 5) % n] ^ 0xffff0000u;
    unsigned long long A = (unsigned long long)a * 0x9e3779b97f4a7c15ull + b, B = (unsigned long long)c * 0x100000001ull;
    unsigned *o = out + 12 * i;
    unsigned r0, r1, r2, r3;
    asm("add.cc.u32 %0, %4, %5;\n\taddc.cc.u32 %1, %5, %6;\n\taddc.u32 %2, %6, %4;\n\tsub.cc.u32 %3, %4, %6;"
        : "=r"(r0), "=r"(r1), "=r"(r2), "=r"(r3) : "r"(a), "r"(b), "r"(c));
    o[0] = r0; o[1] = r1; o[2] = r2; o[3] = r3;
    asm("subc.cc.s32 %0, %4, %5;\n\tsubc.s32 %1, %5, %6;\n\tmad.lo.cc.u32 %2, %4, %5, %6;\n\tmadc.hi.cc.u32 %3, %4, %5, %6;"
        : "=r"(r0), "=r"(r1), "=r"(r2), "=r"(r3) : "r"(a), "r"(b), "r"(c));
    o[4] = r0; o[5] = r1; o[6] = r2; o[7] = r3;
    asm("mad.hi.cc.s32 %0, %4, %5, %6;\n\tmadc.lo.cc.s32 %1, %5, %6, %4;\n\tmadc.hi.u32 %2, %6, %4, %5;\n\taddc.u32 %3, 0, 0;"
        : "=r"(r0), "=r"(r1), "=r"(r2), "=r"(r3) : "r"(a), "r"(b), "r"(c));
    o[8] = r0; o[9] = r1; o[10] = r2; o[11] = r3;
    unsigned long long q0, q1;
    asm("add.cc.u64 %0, %2, %3;\n\taddc.u64 %1, %3, %2;" : "=l"(q0), "=l"(q1) : "l"(A), "l"(B));
    o[0] ^= (unsigned)q0; o[1] ^= (unsigned)(q1 >> 7);
    asm("sub.cc.s64 %0, %2, %3;\n\tmadc.hi.u64 %1, %2, %3, %2;" : "=l"(q0), "=l"(q1) : "l"(A), "l"(B));
    o[2] ^= (unsigned)(q0 >> 3); o[3] ^= (unsigned)(q1 >> 11);
    float x = __int_as_float(a), y = __int_as_float(b), z;
    asm("copysign.f32 %0, %1, %2;" : "=f"(z) : "f"(x), "f"(y));
    fout[2 * i] = z;
    double dz;
    asm("copysign.f64 %0, %1, %2;" : "=d"(dz) : "d"((double)y), "d"((double)x));
    fout[2 * i + 1] = (float)dz;
}

// redux.sync of every operation, over the whole warp, over half-warp tiles (each lane naming its
// own half, as cooperative groups do), and over the lanes of a divergent branch: 8 words a thread.
#define REDUX(op, v, m) ({ unsigned r_; asm volatile("redux.sync." op " %0, %1, %2;" : "=r"(r_) : "r"(v), "r"(m)); r_; })
extern "C" __global__ void warp_redux(const int *in, unsigned *out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    unsigned v = in[i % n], lane = threadIdx.x % 32;
    unsigned tile = lane < 16 ? 0x0000ffffu : 0xffff0000u;
    unsigned *o = out + 8 * i;
    o[0] = REDUX("add.s32", v, 0xffffffffu);
    o[1] = REDUX("min.s32", v, 0xffffffffu);
    o[2] = REDUX("max.u32", v, tile);
    o[3] = REDUX("min.u32", v, tile);
    o[4] = REDUX("and.b32", v | 0x10u, tile);
    o[5] = REDUX("xor.b32", v, 0xffffffffu);
    if (v & 1) {  // the odd values' lanes only
        o[6] = REDUX("or.b32", v, __activemask());
        o[7] = REDUX("max.s32", v, __activemask());
    } else {
        o[6] = REDUX("add.u32", v, __activemask());
    }
}

// Warp-synchronous code over volatile shared memory, as CUDA's older samples and many programs
// still write it (no __syncwarp: the lanes of a warp are trusted to run in lockstep). A block's
// sum, its last warp finished by lockstep steps; then each warp's inclusive prefix sums by the
// classic lockstep scan (a zeroed half below each lane's slot).
extern "C" __global__ void lockstep_volatile(const int *in, int *sums, unsigned *scans) {
    __shared__ int s[128];
    __shared__ unsigned sc[4][64];
    unsigned tid = threadIdx.x, lane = tid & 31, w = tid >> 5;
    int x = in[blockIdx.x * 128 + tid];
    s[tid] = x;
    __syncthreads();
    if (tid < 64) s[tid] += s[tid + 64];
    __syncthreads();
    if (tid < 32) {
        volatile int *v = s;
        v[tid] += v[tid + 32];
        v[tid] += v[tid + 16];
        v[tid] += v[tid + 8];
        v[tid] += v[tid + 4];
        v[tid] += v[tid + 2];
        v[tid] += v[tid + 1];
    }
    if (tid == 0) sums[blockIdx.x] = s[0];
    volatile unsigned *d = sc[w];
    unsigned pos = 2 * lane - (lane & 31);
    d[pos] = 0;
    pos += 32;
    d[pos] = (unsigned)x;
    for (unsigned off = 1; off < 32; off <<= 1) d[pos] += d[pos - off];
    scans[blockIdx.x * 128 + tid] = d[pos];
}

// The shape of NVIDIA's reduction sample (reduce7): the warps' sums summed by the first lanes
// only, with shuffles over the whole warp's width and the ballot of those lanes as the mask. The
// lanes outside it do not take part, and a GPU gives 0 for them, which the sum counts on.
// warpSize in loops is PTX's predefined WARP_SZ.
extern "C" __global__ void partial_shuffle(const int *in, int *out) {
    __shared__ int s[8];
    unsigned tid = threadIdx.x;
    int v = in[blockIdx.x * 256 + tid];
    for (int o = warpSize / 2; o > 0; o /= 2) v += __shfl_down_sync(0xffffffffu, v, o);
    if ((tid % warpSize) == 0) s[tid / warpSize] = v;
    __syncthreads();
    unsigned mask = __ballot_sync(0xffffffffu, tid < 8);
    if (tid < 8) {
        v = s[tid];
        for (int o = warpSize / 2; o > 0; o /= 2) v += __shfl_down_sync(mask, v, o);
    }
    if (tid == 0) out[blockIdx.x] = v;
}

// Blocks chained through flags in global memory, each spinning (a volatile load, a nanosleep between
// polls) until the block before it published its running total: the look-back of single-pass scans,
// simplified (CUB's sleeps the same way, and prefetches its tile to L2 as this one does).
extern "C" __global__ void chained_blocks(const int *in, int *totals, int *flags) {
    __shared__ int part[64];
    __shared__ int before;
    unsigned tid = threadIdx.x, b = blockIdx.x;
    asm volatile("prefetch.global.L2 [%0];" ::"l"(in + b * 64 + tid));
    part[tid] = in[b * 64 + tid];
    __syncthreads();
    for (unsigned o = 32; o > 0; o >>= 1) {
        if (tid < o) part[tid] += part[tid + o];
        __syncthreads();
    }
    if (tid == 0) {
        int prev = 0;
        if (b > 0) {
            while (((volatile int *)flags)[b - 1] == 0) {
                __nanosleep(20);
            }
            prev = ((volatile int *)totals)[b - 1];
        }
        before = prev;
        ((volatile int *)totals)[b] = prev + part[0];
        __threadfence();
        ((volatile int *)flags)[b] = 1;
    }
    __syncthreads();
    if (tid == 1) totals[gridDim.x + b] = before;
}

// Block-wide votes (bar.red.popc / .and / .or): each thread gets its block's count, all and any.
extern "C" __global__ void block_votes(const int *in, unsigned *out, int cut) {
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    int v = in[i];
    unsigned c = __syncthreads_count(v > 0);
    int all = __syncthreads_and(v > -cut);
    int any = __syncthreads_or(v > cut);
    out[3 * i] = c;
    out[3 * i + 1] = all;
    out[3 * i + 2] = any;
}

// printf in a loop, and from a third of the threads: what the lanes of a block print at one printf
// comes out lane by lane, each thread's lines in order, as the interpreter prints them.
extern "C" __global__ void print_rounds(const int *v, int rounds) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    for (int k = 0; k < rounds; ++k)
        printf("b%d t%d k%d v=%d %.3f\n", blockIdx.x, threadIdx.x, k, v[i] * k, 0.5 * i);
    if (threadIdx.x % 3 == 0) printf("t%d is %s\n", threadIdx.x, "a third");
}

// printf of a string at an address outside memory: the launch faults, naming the address.
extern "C" __global__ void print_bad(const char *s) {
    if (threadIdx.x == 1) printf("%s\n", s);
}

// A saxpy whose first thread says what it does: a kernel that prints once, compiled all the same.
extern "C" __global__ void saxpy_say(float a, const float *x, float *y, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = a * x[i] + y[i];
    if (i == 0) printf("saxpy of %d elements, a=%f\n", n, a);
}
