// Unit A of a -rdc=true program: calls a device function that unit B defines.
extern __device__ int scale_add(int x, int k);
extern "C" __global__ void rdc_kernel(int *v, int k) {
    int i = threadIdx.x;
    v[i] = scale_add(v[i], k);
}
