// A kernel whose run time is set by its argument: for the software GPU's time slices.
extern "C" __global__ void spin(unsigned *out, int iters) {
    unsigned v = threadIdx.x;
    for (int k = 0; k < iters; k++) v = v * 1664525u + 1013904223u;
    out[blockIdx.x * blockDim.x + threadIdx.x] = v;
}
