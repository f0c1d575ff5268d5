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
