// Float arithmetic and conversions at the edges of IEEE 754 (signed zeros, infinities, NaN
// payloads, subnormals, ties, extremes), one instruction form per output slot, for the compiled
// path against the interpreter (tests/unit/sim/test_jit_ieee.py). Each form is written as inline
// PTX so that the instruction, its modifiers and its operand order are exactly the ones named.
#include <cstdint>
#include <cuda_fp16.h>

#define F1(ptx) ({ float r_; asm(ptx " %0, %1;" : "=f"(r_) : "f"(x)); r_; })
#define F2(ptx, p, q) ({ float r_; asm(ptx " %0, %1, %2;" : "=f"(r_) : "f"(p), "f"(q)); r_; })
#define F3(ptx) ({ float r_; asm(ptx " %0, %1, %2, %3;" : "=f"(r_) : "f"(x), "f"(y), "f"(z)); r_; })
#define D1(ptx) ({ double r_; asm(ptx " %0, %1;" : "=d"(r_) : "d"(x)); r_; })
#define D2(ptx, p, q) ({ double r_; asm(ptx " %0, %1, %2;" : "=d"(r_) : "d"(p), "d"(q)); r_; })
#define D3(ptx) ({ double r_; asm(ptx " %0, %1, %2, %3;" : "=d"(r_) : "d"(x), "d"(y), "d"(z)); r_; })

// testp as 1.0 or 0.0 (of x)
#define TP(ptx) ({ float r_; asm("{ .reg .pred p_; " ptx " p_, %1; selp.f32 %0, 1.0, 0.0, p_; }" : "=f"(r_) : "f"(x)); r_; })

// out[slot * n + i]: every f32 form on lane i's operands (x, y, z).
extern "C" __global__ void ieee_f32(const float *a, const float *b, const float *c, float *out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float x = a[i], y = b[i], z = c[i];
    float *o = out + i;
    int k = 0;
    o[n * k++] = F2("add.rn.f32", x, y);
    o[n * k++] = F2("add.f32", x, y);
    o[n * k++] = F2("add.rn.ftz.f32", x, y);
    o[n * k++] = F2("add.rn.sat.f32", x, y);
    o[n * k++] = F2("add.rn.ftz.sat.f32", x, y);
    o[n * k++] = F2("sub.rn.f32", x, y);
    o[n * k++] = F2("sub.rn.ftz.f32", x, y);
    o[n * k++] = F2("sub.rn.sat.f32", x, y);
    o[n * k++] = F2("mul.rn.f32", x, y);
    o[n * k++] = F2("mul.rn.ftz.f32", x, y);
    o[n * k++] = F2("mul.rn.sat.f32", x, y);
    o[n * k++] = F2("div.rn.f32", x, y);
    o[n * k++] = F2("div.rn.ftz.f32", x, y);
    o[n * k++] = F2("div.approx.f32", x, y);
    o[n * k++] = F2("div.full.f32", x, y);
    o[n * k++] = F2("div.approx.ftz.f32", x, y);
    o[n * k++] = F3("fma.rn.f32");
    o[n * k++] = F3("fma.rn.ftz.f32");
    o[n * k++] = F3("fma.rn.sat.f32");
    o[n * k++] = F3("fma.rn.ftz.sat.f32");
    o[n * k++] = F3("mad.rn.f32");
    o[n * k++] = F1("sqrt.rn.f32");
    o[n * k++] = F1("sqrt.rn.ftz.f32");
    o[n * k++] = F1("sqrt.approx.f32");
    o[n * k++] = F1("rcp.rn.f32");
    o[n * k++] = F1("rcp.rn.ftz.f32");
    o[n * k++] = F1("rcp.approx.f32");
    o[n * k++] = F1("rcp.approx.ftz.f32");
    o[n * k++] = F1("rsqrt.approx.f32");
    o[n * k++] = F1("rsqrt.approx.ftz.f32");
    o[n * k++] = F2("min.f32", x, y);
    o[n * k++] = F2("min.f32", y, x);
    o[n * k++] = F2("max.f32", x, y);
    o[n * k++] = F2("max.f32", y, x);
    o[n * k++] = F2("min.ftz.f32", x, y);
    o[n * k++] = F2("max.ftz.f32", y, x);
    o[n * k++] = F2("min.NaN.f32", x, y);
    o[n * k++] = F2("max.NaN.f32", y, x);
    o[n * k++] = F2("min.ftz.NaN.f32", x, y);
    o[n * k++] = F1("abs.f32");
    o[n * k++] = F1("neg.f32");
    o[n * k++] = F1("abs.ftz.f32");
    o[n * k++] = F1("neg.ftz.f32");
    o[n * k++] = F1("cvt.sat.f32.f32");
    o[n * k++] = F1("cvt.ftz.sat.f32.f32");
    o[n * k++] = F1("cvt.rni.f32.f32");
    o[n * k++] = F1("cvt.rzi.f32.f32");
    o[n * k++] = F1("cvt.rmi.f32.f32");
    o[n * k++] = F1("cvt.rpi.f32.f32");
    o[n * k++] = F1("cvt.rni.ftz.f32.f32");
    o[n * k++] = F1("cvt.rzi.sat.f32.f32");
    // the .approx transcendentals (ptx/approx.py's definition on both paths)
    o[n * k++] = F1("ex2.approx.f32");
    o[n * k++] = F1("ex2.approx.ftz.f32");
    o[n * k++] = F1("lg2.approx.f32");
    o[n * k++] = F1("lg2.approx.ftz.f32");
    o[n * k++] = F1("sin.approx.f32");
    o[n * k++] = F1("sin.approx.ftz.f32");
    o[n * k++] = F1("cos.approx.f32");
    o[n * k++] = F1("cos.approx.ftz.f32");
    o[n * k++] = F1("tanh.approx.f32");
    o[n * k++] = TP("testp.finite.f32");
    o[n * k++] = TP("testp.infinite.f32");
    o[n * k++] = TP("testp.number.f32");
    o[n * k++] = TP("testp.notanumber.f32");
    o[n * k++] = TP("testp.normal.f32");
    o[n * k++] = TP("testp.subnormal.f32");
}

// The same for f64 (out[slot * n + i]).
extern "C" __global__ void ieee_f64(const double *a, const double *b, const double *c, double *out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    double x = a[i], y = b[i], z = c[i];
    double *o = out + i;
    int k = 0;
    o[n * k++] = D2("add.rn.f64", x, y);
    o[n * k++] = D2("sub.rn.f64", x, y);
    o[n * k++] = D2("mul.rn.f64", x, y);
    o[n * k++] = D2("div.rn.f64", x, y);
    o[n * k++] = D3("fma.rn.f64");
    o[n * k++] = D3("mad.rn.f64");
    o[n * k++] = D1("sqrt.rn.f64");
    o[n * k++] = D1("rcp.rn.f64");
    o[n * k++] = D1("rcp.approx.ftz.f64");
    o[n * k++] = D1("rsqrt.approx.f64");
    o[n * k++] = D2("min.f64", x, y);
    o[n * k++] = D2("min.f64", y, x);
    o[n * k++] = D2("max.f64", x, y);
    o[n * k++] = D2("max.f64", y, x);
    o[n * k++] = D1("abs.f64");
    o[n * k++] = D1("neg.f64");
    o[n * k++] = D1("cvt.rni.f64.f64");
    o[n * k++] = D1("cvt.rzi.f64.f64");
    o[n * k++] = D1("cvt.rmi.f64.f64");
    o[n * k++] = D1("cvt.rpi.f64.f64");
}

#define CVT(ptx, dc, dty, sc, sv) ({ dty r_; asm(ptx " %0, %1;" : dc(r_) : sc(sv)); r_; })

// Conversions between the float widths, and between floats and integers: 32-bit (and narrower)
// results in w[slot * n + i], 64-bit integer ones in q[slot * n + i], f64 ones in d[slot * n + i].
extern "C" __global__ void ieee_cvt(const float *fa, const double *da, const long long *ia, unsigned *w,
                                    unsigned long long *q, double *d, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float f = fa[i];
    double g = da[i];
    long long s = ia[i];
    int s32 = (int)s;
    unsigned u32 = (unsigned)s;  // the same bits read unsigned: -1 is the largest value
    unsigned long long u64 = (unsigned long long)s;
    unsigned *W = w + i;
    unsigned long long *Q = q + i;
    double *D = d + i;
    int k = 0;
    // float -> float
    W[n * k++] = __float_as_uint(CVT("cvt.rn.f32.f64", "=f", float, "d", g));
    W[n * k++] = __float_as_uint(CVT("cvt.rn.ftz.f32.f64", "=f", float, "d", g));
    W[n * k++] = __float_as_uint(CVT("cvt.rn.sat.f32.f64", "=f", float, "d", g));
    W[n * k++] = __float_as_uint(CVT("cvt.rn.ftz.sat.f32.f64", "=f", float, "d", g));
    W[n * k++] = __float_as_uint(CVT("cvt.rni.f32.f64", "=f", float, "d", g));
    // float -> integer
    W[n * k++] = CVT("cvt.rni.s32.f32", "=r", int, "f", f);
    W[n * k++] = CVT("cvt.rzi.s32.f32", "=r", int, "f", f);
    W[n * k++] = CVT("cvt.rmi.s32.f32", "=r", int, "f", f);
    W[n * k++] = CVT("cvt.rpi.s32.f32", "=r", int, "f", f);
    W[n * k++] = CVT("cvt.rni.ftz.s32.f32", "=r", int, "f", f);
    W[n * k++] = CVT("cvt.rni.u32.f32", "=r", unsigned, "f", f);
    W[n * k++] = CVT("cvt.rzi.u32.f32", "=r", unsigned, "f", f);
    W[n * k++] = (unsigned short)CVT("cvt.rzi.s16.f32", "=h", short, "f", f);
    W[n * k++] = (unsigned short)CVT("cvt.rni.u16.f32", "=h", unsigned short, "f", f);
    W[n * k++] = CVT("cvt.rni.s32.f64", "=r", int, "d", g);
    W[n * k++] = CVT("cvt.rzi.s32.f64", "=r", int, "d", g);
    W[n * k++] = CVT("cvt.rzi.u32.f64", "=r", unsigned, "d", g);
    W[n * k++] = CVT("cvt.rpi.u32.f64", "=r", unsigned, "d", g);
    // integer -> f32
    W[n * k++] = __float_as_uint(CVT("cvt.rn.f32.s32", "=f", float, "r", s32));
    W[n * k++] = __float_as_uint(CVT("cvt.rn.f32.u32", "=f", float, "r", u32));
    W[n * k++] = __float_as_uint(CVT("cvt.rn.f32.s64", "=f", float, "l", s));
    W[n * k++] = __float_as_uint(CVT("cvt.rn.f32.u64", "=f", float, "l", u64));
    W[n * k++] = __float_as_uint(CVT("cvt.rn.sat.f32.s32", "=f", float, "r", s32));
    k = 0;
    Q[n * k++] = CVT("cvt.rni.s64.f32", "=l", long long, "f", f);
    Q[n * k++] = CVT("cvt.rzi.u64.f32", "=l", unsigned long long, "f", f);
    Q[n * k++] = CVT("cvt.rni.s64.f64", "=l", long long, "d", g);
    Q[n * k++] = CVT("cvt.rzi.s64.f64", "=l", long long, "d", g);
    Q[n * k++] = CVT("cvt.rmi.u64.f64", "=l", unsigned long long, "d", g);
    Q[n * k++] = CVT("cvt.rpi.u64.f64", "=l", unsigned long long, "d", g);
    k = 0;
    D[n * k++] = CVT("cvt.f64.f32", "=d", double, "f", f);
    D[n * k++] = CVT("cvt.ftz.f64.f32", "=d", double, "f", f);
    D[n * k++] = CVT("cvt.rn.f64.s64", "=d", double, "l", s);
    D[n * k++] = CVT("cvt.rn.f64.u64", "=d", double, "l", u64);
    D[n * k++] = CVT("cvt.rn.f64.s32", "=d", double, "r", s32);
    D[n * k++] = CVT("cvt.rn.f64.u32", "=d", double, "r", u32);
}

// Conversions in the directed rounding modes and to and from f16 and bf16 (in .b16 registers): 32-bit
// results in w[slot * n + i], f64 ones in d[slot * n + i]; h holds lane i's f16 bits.
extern "C" __global__ void ieee_cvt_more(const float *fa, const double *da, const long long *ia,
                                         const unsigned short *ha, unsigned *w, double *d, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float f = fa[i];
    double g = da[i];
    int s32 = (int)ia[i];
    unsigned u32 = (unsigned)ia[i];
    unsigned short h = ha[i];
    unsigned *W = w + i;
    double *D = d + i;
    int k = 0;
    W[n * k++] = __float_as_uint(CVT("cvt.rz.f32.f64", "=f", float, "d", g));
    W[n * k++] = __float_as_uint(CVT("cvt.rm.f32.f64", "=f", float, "d", g));
    W[n * k++] = __float_as_uint(CVT("cvt.rp.f32.f64", "=f", float, "d", g));
    W[n * k++] = __float_as_uint(CVT("cvt.rz.ftz.f32.f64", "=f", float, "d", g));
    W[n * k++] = __float_as_uint(CVT("cvt.rm.sat.f32.f64", "=f", float, "d", g));
    W[n * k++] = __float_as_uint(CVT("cvt.rz.f32.s32", "=f", float, "r", s32));
    W[n * k++] = __float_as_uint(CVT("cvt.rm.f32.s32", "=f", float, "r", s32));
    W[n * k++] = __float_as_uint(CVT("cvt.rp.f32.u32", "=f", float, "r", u32));
    W[n * k++] = CVT("cvt.rn.f16.f32", "=h", unsigned short, "f", f);
    W[n * k++] = CVT("cvt.rz.f16.f32", "=h", unsigned short, "f", f);
    W[n * k++] = CVT("cvt.rm.f16.f32", "=h", unsigned short, "f", f);
    W[n * k++] = CVT("cvt.rp.f16.f32", "=h", unsigned short, "f", f);
    W[n * k++] = CVT("cvt.rn.ftz.f16.f32", "=h", unsigned short, "f", f);
    W[n * k++] = CVT("cvt.rn.f16.f64", "=h", unsigned short, "d", g);
    W[n * k++] = CVT("cvt.rz.f16.f64", "=h", unsigned short, "d", g);
    W[n * k++] = CVT("cvt.rp.f16.f64", "=h", unsigned short, "d", g);
    W[n * k++] = CVT("cvt.rn.f16.s32", "=h", unsigned short, "r", s32);
    W[n * k++] = CVT("cvt.rm.f16.u32", "=h", unsigned short, "r", u32);
    W[n * k++] = __float_as_uint(CVT("cvt.f32.f16", "=f", float, "h", h));
    W[n * k++] = __float_as_uint(CVT("cvt.rni.f32.f16", "=f", float, "h", h));
    W[n * k++] = CVT("cvt.rni.s32.f16", "=r", int, "h", h);
    W[n * k++] = CVT("cvt.rzi.u32.f16", "=r", unsigned, "h", h);
    W[n * k++] = CVT("cvt.rn.bf16.f32", "=h", unsigned short, "f", f);
    W[n * k++] = CVT("cvt.rz.bf16.f32", "=h", unsigned short, "f", f);
    W[n * k++] = CVT("cvt.rn.bf16.f64", "=h", unsigned short, "d", g);
    W[n * k++] = CVT("cvt.rn.bf16.s32", "=h", unsigned short, "r", s32);
    W[n * k++] = CVT("cvt.rn.bf16.u32", "=h", unsigned short, "r", u32);
    W[n * k++] = __float_as_uint(CVT("cvt.f32.bf16", "=f", float, "h", h));
    W[n * k++] = __float_as_uint(CVT("cvt.rni.f32.bf16", "=f", float, "h", h));
    W[n * k++] = CVT("cvt.rzi.s32.bf16", "=r", int, "h", h);
    k = 0;
    D[n * k++] = CVT("cvt.f64.f16", "=d", double, "h", h);
    D[n * k++] = CVT("cvt.rz.f64.s32", "=d", double, "r", s32);
    D[n * k++] = CVT("cvt.f64.bf16", "=d", double, "h", h);
}

// cuda_fp16's own conversions as a kernel meets them: half2 unpacked into .f16 registers and
// converted to f32, f32 pairs packed to f16x2 (cvt.rn.f16x2.f32), halves moved between registers.
// out: 2 f32 per lane; back: 3 f16x2 words per lane (n lanes apart).
extern "C" __global__ void ieee_half2(const __half2 *x, const float *fa, float *out, __half2 *back, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float2 f = __half22float2(x[i]);
    out[2 * i] = f.x;
    out[2 * i + 1] = f.y;
    back[i] = __floats2half2_rn(fa[i], f.x);
    back[n + i] = __halves2half2(__low2half(x[i]), __float2half_rz(fa[i]));
    back[2 * n + i] = __floats2half2_rn(f.y * 3.0f, fa[i] * 0.5f);
}

// NaNs through chains of f32 arithmetic, then read by what can see their bits: a store, a sign
// flip, an integer operation, a shuffle (the compiler leaves the NaNs of such chains as the host
// makes them and makes them canonical where they are read). n is a multiple of the block size.
extern "C" __global__ void ieee_chain(const float *a, const float *b, const float *c, unsigned *out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    float x = a[i], y = b[i], z = c[i];
    float r = x;
    for (int j = 0; j < 4; ++j) r = fmaf(r, y, z);
    float q = r * x + y;
    unsigned *o = out + i;
    o[0] = __float_as_uint(r);
    o[n] = __float_as_uint(-r);
    o[2 * n] = __float_as_uint(fabsf(q));
    o[3 * n] = __float_as_uint(q) ^ 1u;
    o[4 * n] = __float_as_uint(fminf(q, y));
    o[5 * n] = __float_as_uint(__shfl_down_sync(0xffffffffu, q, 1));
    o[6 * n] = __float_as_uint(q < y ? q : -y);
}

// f32 arithmetic in the directed rounding modes (the compiler follows the interpreter's
// algorithm: rounding.py's round to odd and round_to).
extern "C" __global__ void ieee_directed(const float *a, const float *b, const float *c, float *out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float x = a[i], y = b[i], z = c[i];
    float *o = out + i;
    int k = 0;
    o[n * k++] = F2("add.rz.f32", x, y);
    o[n * k++] = F2("sub.rz.f32", x, y);
    o[n * k++] = F2("mul.rz.f32", x, y);
    o[n * k++] = F2("div.rz.f32", x, y);
    o[n * k++] = F3("fma.rz.f32");
    o[n * k++] = F1("sqrt.rz.f32");
    o[n * k++] = F1("rcp.rz.f32");
    o[n * k++] = F2("add.rm.f32", x, y);
    o[n * k++] = F2("sub.rm.f32", x, y);
    o[n * k++] = F2("mul.rm.f32", x, y);
    o[n * k++] = F2("div.rm.f32", x, y);
    o[n * k++] = F3("fma.rm.f32");
    o[n * k++] = F1("sqrt.rm.f32");
    o[n * k++] = F1("rcp.rm.f32");
    o[n * k++] = F2("add.rp.f32", x, y);
    o[n * k++] = F2("sub.rp.f32", x, y);
    o[n * k++] = F2("mul.rp.f32", x, y);
    o[n * k++] = F2("div.rp.f32", x, y);
    o[n * k++] = F3("fma.rp.f32");
    o[n * k++] = F1("sqrt.rp.f32");
    o[n * k++] = F1("rcp.rp.f32");
    o[n * k++] = F2("add.rm.ftz.f32", x, y);
    o[n * k++] = F2("mul.rp.ftz.sat.f32", x, y);
    o[n * k++] = F3("fma.rz.ftz.f32");
    o[n * k++] = F3("fma.rm.sat.f32");
    o[n * k++] = F1("sqrt.rp.ftz.f32");
    o[n * k++] = F2("div.rz.ftz.f32", x, y);
}

// f64 arithmetic in a directed mode, which the compiler leaves to the interpreter (jit/check.py:
// the interpreter computes it over exact rationals): the kernel must run interpreted.
extern "C" __global__ void ieee_directed_f64(const double *a, const double *b, const double *c, double *out,
                                             int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    double x = a[i], y = b[i], z = c[i];
    double *o = out + i;
    int k = 0;
    o[n * k++] = D2("add.rz.f64", x, y);
    o[n * k++] = D2("add.rm.f64", x, y);
    o[n * k++] = D2("add.rp.f64", x, y);
    o[n * k++] = D2("sub.rz.f64", x, y);
    o[n * k++] = D2("sub.rm.f64", x, y);
    o[n * k++] = D2("sub.rp.f64", x, y);
    o[n * k++] = D2("mul.rz.f64", x, y);
    o[n * k++] = D2("mul.rm.f64", x, y);
    o[n * k++] = D2("mul.rp.f64", x, y);
    o[n * k++] = D2("div.rz.f64", x, y);
    o[n * k++] = D2("div.rm.f64", x, y);
    o[n * k++] = D2("div.rp.f64", x, y);
    o[n * k++] = D3("fma.rz.f64");
    o[n * k++] = D3("fma.rm.f64");
    o[n * k++] = D3("fma.rp.f64");
    o[n * k++] = D1("sqrt.rz.f64");
    o[n * k++] = D1("sqrt.rm.f64");
    o[n * k++] = D1("sqrt.rp.f64");
    o[n * k++] = D1("rcp.rz.f64");
    o[n * k++] = D1("rcp.rm.f64");
    o[n * k++] = D1("rcp.rp.f64");
}

// Integer dot products (dp4a, dp2a.lo/.hi, every signedness of a and b): W[slot * n + i].
#define DP(ptx) ({ unsigned r_; asm(ptx " %0, %1, %2, %3;" : "=r"(r_) : "r"(x), "r"(y), "r"(z)); r_; })
extern "C" __global__ void int_dot(const unsigned *a, const unsigned *b, const unsigned *c, unsigned *W, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    unsigned x = a[i], y = b[i], z = c[i];
    W += i;
    int k = 0;
    W[n * k++] = DP("dp4a.u32.u32");
    W[n * k++] = DP("dp4a.s32.s32");
    W[n * k++] = DP("dp4a.s32.u32");
    W[n * k++] = DP("dp4a.u32.s32");
    W[n * k++] = DP("dp2a.lo.u32.u32");
    W[n * k++] = DP("dp2a.hi.s32.s32");
    W[n * k++] = DP("dp2a.lo.s32.u32");
    W[n * k++] = DP("dp2a.hi.u32.s32");
}

// A form the compiler leaves to the interpreter (f16 tanh): the whole kernel runs there.
extern "C" __global__ void ieee_uncovered(const unsigned short *a, const unsigned short *b, unsigned short *out,
                                          int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    unsigned short r;
    asm("tanh.approx.f16 %0, %1;" : "=h"(r) : "h"((unsigned short)(a[i] ^ b[i])));
    out[i] = r;
}

// f16 and f16x2 add/sub/mul (H: one f16 per slot; P: one f16x2 word per slot), lane i's halves
// x, y and the pairs (x, y), (y, x) packed low-high.
#define H2(ptx) ({ unsigned short r_; asm(ptx " %0, %1, %2;" : "=h"(r_) : "h"(x), "h"(y)); r_; })
#define SETP(ptx) ({ unsigned short r_; asm("{ .reg .pred p_; " ptx " p_, %1, %2; selp.u16 %0, 1, 0, p_; }" : "=h"(r_) : "h"(x), "h"(y)); r_; })
#define H1(ptx) ({ unsigned short r_; asm(ptx " %0, %1;" : "=h"(r_) : "h"(x)); r_; })
#define P1(ptx) ({ unsigned r_; asm(ptx " %0, %1;" : "=r"(r_) : "r"(px)); r_; })
#define SET32(ptx) ({ unsigned r_; asm(ptx " %0, %1, %2;" : "=r"(r_) : "h"(x), "h"(y)); r_; })
#define SET32B(ptx) ({ unsigned r_; asm("{ .reg .pred q_; setp.ne.u16 q_, %1, 0; " ptx " %0, %1, %2" \
    ", q_; }" : "=r"(r_) : "h"(x), "h"(y)); r_; })
#define H3(ptx) ({ unsigned short r_; asm(ptx " %0, %1, %2, %3;" : "=h"(r_) : "h"(x), "h"(y), "h"(z)); r_; })
#define P3(ptx) ({ unsigned r_; asm(ptx " %0, %1, %2, %3;" : "=r"(r_) : "r"(px), "r"(py), "r"(pz)); r_; })
#define P2(ptx) ({ unsigned r_; asm(ptx " %0, %1, %2;" : "=r"(r_) : "r"(px), "r"(py)); r_; })
extern "C" __global__ void ieee_f16(const unsigned short *a, const unsigned short *b, unsigned short *H,
                                    unsigned *P, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    unsigned short x = a[i], y = b[i], z = a[(i * 7 + 1) % n] ^ (b[(i * 5 + 2) % n] & 0x8000u);
    unsigned px = x | (unsigned)y << 16, py = y | (unsigned)x << 16, pz = z | (unsigned)x << 16;
    H += i;
    P += i;
    int k = 0;
    H[n * k++] = H2("add.f16");
    H[n * k++] = H2("add.rn.f16");
    H[n * k++] = H2("add.ftz.f16");
    H[n * k++] = H2("add.sat.f16");
    H[n * k++] = H2("add.rn.ftz.sat.f16");
    H[n * k++] = H2("sub.f16");
    H[n * k++] = H2("sub.ftz.f16");
    H[n * k++] = H2("mul.f16");
    H[n * k++] = H2("mul.rn.f16");
    H[n * k++] = H2("mul.ftz.f16");
    H[n * k++] = H2("mul.sat.f16");
    H[n * k++] = H2("mul.rn.ftz.sat.f16");
    k = 0;
    P[n * k++] = P2("add.f16x2");
    P[n * k++] = P2("add.ftz.sat.f16x2");
    P[n * k++] = P2("sub.rn.f16x2");
    P[n * k++] = P2("mul.f16x2");
    P[n * k++] = P2("mul.ftz.f16x2");
    P[n * k++] = P2("mul.sat.f16x2");
    k = 12;
    H[n * k++] = SETP("setp.lt.f16");
    H[n * k++] = SETP("setp.equ.f16");
    H[n * k++] = SETP("setp.ge.f16");
    H[n * k++] = SETP("setp.ne.f16");
    H[n * k++] = SETP("setp.nan.f16");
    H[n * k++] = SETP("setp.lt.bf16");
    H[n * k++] = SETP("setp.neu.bf16");
    H[n * k++] = H3("fma.rn.f16");
    H[n * k++] = H3("fma.rn.ftz.f16");
    H[n * k++] = H3("fma.rn.sat.f16");
    H[n * k++] = H3("fma.rn.ftz.sat.f16");
    H[n * k++] = H1("abs.f16");
    H[n * k++] = H1("neg.f16");
    H[n * k++] = H1("abs.ftz.f16");
    H[n * k++] = H1("neg.ftz.f16");
    H[n * k++] = H1("abs.bf16");
    H[n * k++] = H1("neg.bf16");
    H[n * k++] = H2("set.lt.f16.f16");
    H[n * k++] = H2("set.equ.bf16.bf16");
    H[n * k++] = H2("set.ge.u16.f16");
    H[n * k++] = H2("add.rn.bf16");
    H[n * k++] = H2("add.bf16");
    H[n * k++] = H2("sub.rn.bf16");
    H[n * k++] = H2("mul.rn.bf16");
    H[n * k++] = H3("fma.rn.bf16");
    H[n * k++] = H2("min.f16");
    H[n * k++] = H2("max.f16");
    H[n * k++] = H2("min.ftz.f16");
    H[n * k++] = H2("max.NaN.f16");
    H[n * k++] = H2("min.ftz.NaN.f16");
    H[n * k++] = H2("min.bf16");
    H[n * k++] = H2("max.bf16");
    H[n * k++] = H2("min.NaN.bf16");
    H[n * k++] = H2("max.NaN.bf16");
    k = 6;
    P[n * k++] = P3("fma.rn.f16x2");
    P[n * k++] = P3("fma.rn.sat.f16x2");
    P[n * k++] = P3("fma.rn.ftz.f16x2");
    P[n * k++] = P1("abs.f16x2");
    P[n * k++] = P1("neg.ftz.f16x2");
    P[n * k++] = P1("neg.bf16x2");
    P[n * k++] = SET32("set.neu.u32.f16");
    P[n * k++] = SET32("set.gt.f32.bf16");
    P[n * k++] = SET32B("set.lt.and.s32.f16");
    P[n * k++] = P2("add.rn.bf16x2");
    P[n * k++] = P2("sub.rn.bf16x2");
    P[n * k++] = P2("mul.rn.bf16x2");
    P[n * k++] = P3("fma.rn.bf16x2");
    P[n * k++] = P2("min.f16x2");
    P[n * k++] = P2("max.ftz.f16x2");
    P[n * k++] = P2("max.NaN.f16x2");
    P[n * k++] = P2("min.bf16x2");
    P[n * k++] = P2("max.NaN.bf16x2");
}
