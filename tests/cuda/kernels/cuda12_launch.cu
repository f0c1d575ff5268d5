// Device code for tests/cuda/programs/cuda12_kernels.c, which registers and launches it with the
// host-side calls CUDA 12's nvcc writes (C linkage keeps the device names plain).
extern "C" __global__ void scale(float *x, float a, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) x[i] *= a;
}

extern "C" __global__ void add2d(const float *a, const float *b, float *c, int w, int h) {
    int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x < w && y < h) c[y * w + x] = a[y * w + x] + b[y * w + x];
}

// Per-block sums through dynamic shared memory: the launch's shmem size must arrive intact.
extern "C" __global__ void block_sum(const float *x, float *out, int n) {
    extern __shared__ float buf[];
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    buf[threadIdx.x] = i < n ? x[i] : 0.0f;
    __syncthreads();
    for (int s = blockDim.x / 2; s > 0; s >>= 1) {
        if (threadIdx.x < s) buf[threadIdx.x] += buf[threadIdx.x + s];
        __syncthreads();
    }
    if (threadIdx.x == 0) out[blockIdx.x] = buf[0];
}
