// Device-side malloc() and free(): per-thread buffers within a kernel, a block kept across launches
// and freed by a later kernel, and NULL once the heap is exhausted.
#include <cstdio>

extern "C" __global__ void scratch(int *out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int len = 1 + i % 7;
    int *buf = (int *)malloc(len * sizeof(int));
    if (!buf) { out[i] = -1; return; }
    for (int k = 0; k < len; k++) buf[k] = i * 10 + k;
    int s = 0;
    for (int k = 0; k < len; k++) s += buf[k];
    out[i] = s;
    free(buf);
}

__device__ int *kept;

extern "C" __global__ void keep(int v) {
    kept = (int *)malloc(64 * sizeof(int));
    for (int k = 0; k < 64; k++) kept[k] = v + k;
}

extern "C" __global__ void use_and_free(int *out) {
    int s = 0;
    for (int k = 0; k < 64; k++) s += kept[k];
    *out = s;
    free(kept);
}

extern "C" __global__ void exhaust(unsigned long long bytes, int *got) {
    void *p = malloc(bytes);
    got[threadIdx.x] = p != nullptr;
}

extern "C" __global__ void bad_free(int *p) { free(p); }
