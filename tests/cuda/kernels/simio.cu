// printf, assert and faults on the software GPU.
#include <cstdio>
#include <cassert>

extern "C" __global__ void say(int base, double d, const char *label) {
    int t = threadIdx.x;
    printf("block %d thread %d: base=%d d=%.3f hex=%x ll=%lld c=%c s=%s\n",
           blockIdx.x, t, base, d * t, base + t, (long long)base << 32, 'A' + t, "lit");
    if (t == 0) printf("%5.2f|%-4d|%u|%e|%g|%%\n", 3.14159f, 7, 4000000000u, 12345.678, 0.0001);
}

extern "C" __global__ void check(const int *v) {
    int i = threadIdx.x;
    assert(v[i] >= 0);
}

extern "C" __global__ void oob(int *p, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    p[i + n] = i;
}

extern "C" __global__ void trapper(int x) {
    if (x == 3) __trap();
}
