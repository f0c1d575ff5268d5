// Unit B of a -rdc=true program.
__device__ int scale_add(int x, int k) { return x * k + 1; }
