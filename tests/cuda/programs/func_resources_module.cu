// A kernel that wants many registers and reads a 1200-byte __constant__ table: the module whose
// CU_FUNC_ATTRIBUTE_NUM_REGS and CONST_SIZE_BYTES driver_func_resources.cu asks (built apart, as PTX
// and as a fatbin with SASS, by tests/e2e/test_kernels.py).
__constant__ float table[300];

extern "C" __global__ void heavy(float *out, const float *in) {
    float a[48];
#pragma unroll
    for (int i = 0; i < 48; i++) a[i] = in[threadIdx.x + i * 32] * table[i];
#pragma unroll
    for (int k = 1; k < 9; k++) {
#pragma unroll
        for (int i = 0; i < 48; i++) a[i] = a[i] * a[(i + k) % 48] + table[i + k * 7];
    }
    float s = 0;
#pragma unroll
    for (int i = 0; i < 48; i++) s += a[i];
    out[threadIdx.x] = s;
}
