// Half and bfloat16 arithmetic through cuda_fp16.h / cuda_bf16.h, whose intrinsics are inline asm
// blocks that declare their own registers ('.reg.b32 f;', '.reg .f16 low,high;') scope by scope.
#include <cuda_fp16.h>
#include <cuda_bf16.h>

extern "C" __global__ void half_ops(const __half *a, const __half *b, __half *fma_out, float *f_out,
                                    __nv_bfloat16 *bf_out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    fma_out[i] = __hfma(a[i], b[i], __float2half(1.0f));
    __half2 p = __halves2half2(a[i], b[i]);
    __half2 q = __hmul2(p, p);
    float f = __half2float(__low2half(q)) + __half2float(__high2half(q)) + __half2float(hsqrt(__habs(a[i])));
    f_out[i] = f;
    bf_out[i] = __float2bfloat16(__bfloat162float(__float2bfloat16(f)) * 2.0f);
}

extern "C" __global__ void half2_axpy(const __half2 *x, __half2 *y, float alpha, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = __hfma2(__float2half2_rn(alpha), x[i], y[i]);
}

// Half-precision atomics: many lanes on few addresses (values small integers, so sums are exact).
extern "C" __global__ void half_atomics(__half *h, __half2 *h2, __nv_bfloat16 *b, __nv_bfloat162 *b2, __half *olds) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    float v = (float)(i % 5);
    olds[i] = atomicAdd(&h[i % 4], __float2half(v));
    atomicAdd(&h2[i % 2], __floats2half2_rn(v, 2.0f * v));
    atomicAdd(&b[i % 3], __float2bfloat16(v));
    if (i < 64) atomicAdd(&b2[0], __floats2bfloat162_rn(1.0f, v));  // bf16 sums stay below 256: exact
}
