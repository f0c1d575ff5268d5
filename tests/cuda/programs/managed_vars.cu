// __managed__ variables: module globals that host code reads and writes directly, as nvcc compiles
// them (through a pointer its registration fills, after __cudaInitModule). An initialised scalar, a
// small array beside it (both in one page) and an array across pages; host writes seen by kernels,
// kernels' writes seen by the host after a synchronisation, the symbol calls on them, and
// cudaFree refusing one.
//   managed_vars [copy]   copy: copies to and from the symbols stand for the kernels (the null
//                         driver runs none)
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <cuda_runtime.h>
#include "check.h"

__managed__ float scale = 2.5f;
__managed__ int small[4];
__managed__ int big[3000];  // 12 KB: across host pages

__global__ void step(int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < 4) small[i] = small[i] * 10 + (int)scale;
    if (i < n) big[i] = big[i] + i;
    if (i == 0) scale *= 2;
}

static bool copies;

// What a kernel's step does, by copies through the symbol calls
static cudaError_t run_step() {
    if (!copies) {
        step<<<(3000 + 255) / 256, 256>>>(3000);
        return cudaGetLastError();
    }
    float s;
    static int b[3000];
    int t[4];
    cudaError_t err = cudaMemcpyFromSymbol(&s, scale, sizeof s);
    if (!err) err = cudaMemcpyFromSymbol(t, small, sizeof t);
    if (!err) err = cudaMemcpyFromSymbol(b, big, sizeof b);
    if (err) return err;
    for (int i = 0; i < 4; i++) t[i] = t[i] * 10 + (int)s;
    for (int i = 0; i < 3000; i++) b[i] += i;
    s *= 2;
    err = cudaMemcpyToSymbol(small, t, sizeof t);
    if (!err) err = cudaMemcpyToSymbol(big, b, sizeof b);
    if (!err) err = cudaMemcpyToSymbol(scale, &s, sizeof s);
    return err;
}

int main(int argc, char **argv) {
    copies = argc > 1 && !strcmp(argv[1], "copy");
    EXPECT(scale == 2.5f);  // the initialiser, read before any device work
    for (int i = 0; i < 4; i++) small[i] = i + 1;
    for (int i = 0; i < 3000; i++) big[i] = 7 * i;
    CHECK(run_step());
    CHECK(cudaDeviceSynchronize());
    for (int i = 0; i < 4; i++) EXPECT(small[i] == (i + 1) * 10 + 2);
    for (int i = 0; i < 3000; i++)
        if (big[i] != 8 * i) { printf("FAIL big[%d] = %d\n", i, big[i]); return 1; }
    EXPECT(scale == 5.0f);

    // a second round from what the host changed since
    small[2] = -1;
    big[2999] = 1;
    CHECK(run_step());
    CHECK(cudaDeviceSynchronize());
    EXPECT(small[2] == -10 + 5 && small[0] == 120 + 5 && big[2999] == 1 + 2999 && big[5] == 40 + 5);
    EXPECT(scale == 10.0f);

    // the symbol calls take the variable itself, and its address is the device's
    void *at = nullptr;
    size_t size = 0;
    CHECK(cudaGetSymbolAddress(&at, big));
    CHECK(cudaGetSymbolSize(&size, big));
    EXPECT(at == (void *)big && size == sizeof big);
    int four[4] = {4, 3, 2, 1};
    CHECK(cudaMemcpyToSymbol(small, four, sizeof four));
    CHECK(cudaDeviceSynchronize());
    EXPECT(small[0] == 4 && small[3] == 1);
    int *p = nullptr;
    CHECK(cudaMalloc((void **)&p, 4 * sizeof(int)));
    CHECK(cudaMemcpy(p, small, sizeof small, cudaMemcpyDefault));  // a managed variable as a copy's source
    int back[4];
    CHECK(cudaMemcpy(back, p, sizeof back, cudaMemcpyDeviceToHost));
    EXPECT(back[1] == 3);
    CHECK(cudaFree(p));
    EXPECT(cudaFree(big) != cudaSuccess);  // not an allocation of the program's
    cudaGetLastError();
    printf("OK managed_vars\n");
    return 0;
}
