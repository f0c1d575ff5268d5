// Breadth of PTX arithmetic: rounding modes, saturation, unordered compares, f16/bf16, 64-bit bits.
#include <cuda_fp16.h>
#include <cuda_bf16.h>

extern "C" __global__ void fops(const float *x, const float *y, float *of, int *oi) {
    int i = threadIdx.x;
    float a = x[i], b = y[i];
    float *f = of + i * 12;
    int *k = oi + i * 10;
    f[0] = __fadd_rz(a, b); f[1] = __fmul_ru(a, b); f[2] = __fdiv_rd(a, b); f[3] = __saturatef(a);
    f[4] = __fmaf_rn(a, b, -a); f[5] = fminf(a, b); f[6] = fmaxf(a, b); f[7] = copysignf(a, b);
    f[8] = __half2float(__float2half_rn(a) + __float2half_rn(b));
    f[9] = __bfloat162float(__float2bfloat16_rn(a) * __float2bfloat16_rn(b));
    f[10] = __int2float_rz(__float_as_int(a) >> 3); f[11] = truncf(a) + floorf(b) + ceilf(a) + rintf(b);
    k[0] = __float2int_rd(a); k[1] = __float2int_ru(a); k[2] = __float2int_rn(a); k[3] = __float2int_rz(a);
    k[4] = (int)__float2uint_rn(a); k[5] = isnan(a) + 2 * isinf(b) + 4 * (a < b) + 8 * !(a >= b);
    k[6] = __float2ll_rz(a * 1e10f) >> 20; k[7] = (int)(unsigned char)a; k[8] = __signbitf(a); k[9] = __finitef(b);
}

extern "C" __global__ void bits64(const unsigned long long *x, unsigned long long *o) {
    int i = threadIdx.x;
    unsigned long long v = x[i];
    unsigned long long *r = o + i * 8;
    r[0] = __popcll(v); r[1] = __clzll(v); r[2] = __brevll(v); r[3] = __ffsll((long long)v);
    r[4] = __umul64hi(v, 0x9E3779B97F4A7C15ull); r[5] = (unsigned long long)__mul64hi((long long)v, -12345678901ll);
    r[6] = v / 1000003ull + v % 97ull; r[7] = (unsigned long long)((long long)v / -77ll);
}

extern "C" __global__ void inline_asm(const unsigned *x, unsigned *o) {
    int i = threadIdx.x;
    unsigned a = x[i], b = x[(i + 1) & 31], c = x[(i + 2) & 31], r;
    unsigned *p = o + i * 8;
    asm("lop3.b32 %0, %1, %2, %3, 0xE8;" : "=r"(r) : "r"(a), "r"(b), "r"(c)); p[0] = r;       // majority
    asm("bfe.u32 %0, %1, %2, %3;" : "=r"(r) : "r"(a), "r"(i & 31), "r"(9u)); p[1] = r;
    asm("bfe.s32 %0, %1, %2, %3;" : "=r"(r) : "r"(a), "r"(i & 31), "r"(7u)); p[2] = r;
    asm("bfi.b32 %0, %1, %2, %3, %4;" : "=r"(r) : "r"(b), "r"(a), "r"(i & 31), "r"(5u)); p[3] = r;
    asm("prmt.b32 %0, %1, %2, %3;" : "=r"(r) : "r"(a), "r"(b), "r"(c)); p[4] = r;
    asm("shf.r.clamp.b32 %0, %1, %2, %3;" : "=r"(r) : "r"(a), "r"(b), "r"(i + 20)); p[5] = r;
    asm("{ .reg .pred q; testp.finite.f32 q, %1; selp.u32 %0, 1, 0, q; }" : "=r"(r) : "f"(__uint_as_float(a))); p[6] = r;
    asm("{ .reg .pred q; setp.gtu.f32 q, %1, %2; selp.u32 %0, 1, 0, q; }" : "=r"(r) : "f"(__uint_as_float(a)), "f"(__uint_as_float(b))); p[7] = r;
}

extern "C" __global__ void approx(const float *x, float *o) {
    int i = threadIdx.x;
    float v = x[i];
    float *r = o + i * 8;
    r[0] = __sinf(v); r[1] = __cosf(v); r[2] = __expf(v); r[3] = __log2f(fabsf(v) + 1.0f);
    r[4] = rsqrtf(fabsf(v) + 0.5f); r[5] = __frcp_rn(v); r[6] = sqrtf(fabsf(v)); r[7] = tanhf(v);
}
