// Less common PTX through inline asm: special registers, address-space queries, packed halves,
// 24-bit multiplies, uniform votes, match.all, fences and hints that must be harmless.
#include <cuda_fp16.h>

extern "C" __global__ void misc(const unsigned *x, unsigned *o) {
    __shared__ unsigned sh[64];
    int t = threadIdx.x;
    unsigned a = x[t], b = x[(t + 1) & 63], r;
    unsigned *p = o + t * 16;
    sh[t] = a;
    __syncthreads();
    asm("mov.u32 %0, %%lanemask_lt;" : "=r"(r)); p[0] = r;
    asm("mov.u32 %0, %%lanemask_ge;" : "=r"(r)); p[1] = r;
    unsigned long long gen = (unsigned long long)&sh[t ^ 1];
    asm("{ .reg .pred q; isspacep.shared q, %1; selp.u32 %0, 1, 0, q; }" : "=r"(r) : "l"(gen)); p[2] = r;
    asm("{ .reg .pred q; isspacep.global q, %1; selp.u32 %0, 1, 0, q; }" : "=r"(r) : "l"(x)); p[3] = r;
    p[4] = *(volatile unsigned *)gen;  // generic load from shared memory
    asm("mul24.lo.u32 %0, %1, %2;" : "=r"(r) : "r"(a), "r"(b)); p[5] = r;
    asm("sad.u32 %0, %1, %2, 7;" : "=r"(r) : "r"(a), "r"(b)); p[6] = r;
    asm("{ .reg .b16 lo, hi; mov.b32 {lo, hi}, %1; mov.b32 %0, {hi, lo}; }" : "=r"(r) : "r"(a)); p[7] = r;
    __half2 h = __halves2half2(__float2half((float)(t + 1)), __float2half(0.5f));
    __half2 hh = __hfma2(h, h, h);
    p[8] = *(unsigned *)&hh;
    asm("{ .reg .pred q; vote.sync.uni.pred q, %1, 0xffffffff; selp.u32 %0, 1, 0, q; }" : "=r"(r) : "r"(t < 100 ? 1 : 0) );
    p[9] = r;
    asm("{ .reg .pred q, u; setp.ne.u32 u, %1, 0; vote.sync.uni.pred q, u, 0xffffffff; selp.u32 %0, 1, 0, q; }"
        : "=r"(r) : "r"(t & 1));
    p[10] = r;
    asm("{ .reg .pred q; match.all.sync.b32 %0|q, %1, 0xffffffff; }" : "=r"(r) : "r"(t / 32));
    p[11] = r;
    asm volatile("membar.gl; fence.sc.cta; nanosleep.u32 100; bar.warp.sync 0xffffffff;");
    asm("slct.u32.s32 %0, %1, %2, %3;" : "=r"(r) : "r"(a), "r"(b), "r"(t - 10)); p[12] = r;
    asm("set.gt.u32.s32 %0, %1, %2;" : "=r"(r) : "r"(t), "r"(20)); p[13] = r;
    unsigned sm, nw;
    asm("mov.u32 %0, %%smid;" : "=r"(sm)); asm("mov.u32 %0, %%nwarpid;" : "=r"(nw));
    p[14] = (sm < 1000) + 2 * (nw >= 1);
    int old = atomicExch(&sh[(t + 5) & 63], t);
    __syncthreads();
    p[15] = (unsigned)old + sh[t] * 0;
}
