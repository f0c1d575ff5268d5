// Half of a PTX link test: the kernel calls a device function defined in link_b.cu.
extern __device__ float scale_value(float v);
extern "C" __global__ void scaled(float *x, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) x[i] = scale_value(x[i]);
}
