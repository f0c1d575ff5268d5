// The module driver_kernels.cu loads from a file (built to PTX and to a fatbin by the tests).
__device__ float bias;
extern "C" __global__ void saxpy(float a, const float *x, float *y, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = a * x[i] + y[i] + bias;
}
