/* Kernels launched the way CUDA 12's nvcc writes host code: the fatbin registered at load with
 * __cudaRegisterFatBinary / __cudaRegisterFunction / __cudaRegisterFatBinaryEnd, and each
 * `kernel<<<grid, block, shmem, stream>>>(args)` turned into __cudaPushCallConfiguration followed by
 * a host stub that pops the configuration and calls cudaLaunchKernel with the stub's own address.
 * CUDA 12's nvcc cannot be installed here, so this C file is that host code, written out; the device
 * code (argv[1]) is a fatbin of tests/cuda/kernels/cuda12_launch.cu. Compiled against the 12.x
 * headers and linked to libcudart.so.12. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cuda_runtime_api.h>

void **__cudaRegisterFatBinary(void *fatCubin);
void __cudaRegisterFatBinaryEnd(void **handle);
void __cudaUnregisterFatBinary(void **handle);
void __cudaRegisterFunction(void **handle, const char *hostFun, char *deviceFun, const char *deviceName,
                            int threadLimit, uint3 *tid, uint3 *bid, dim3 *bDim, dim3 *gDim, int *wSize);
unsigned __cudaPushCallConfiguration(dim3 grid, dim3 block, size_t shmem, struct CUstream_st *stream);
cudaError_t __cudaPopCallConfiguration(dim3 *grid, dim3 *block, size_t *shmem, void *stream);

#define CHECK(x) do { cudaError_t rc_ = (x); if (rc_ != cudaSuccess) { \
    printf("FAIL %s: %s\n", #x, cudaGetErrorName(rc_)); return 1; } } while (0)

static struct { int magic, version; const void *data; void *filename_or_fatbins; } wrapper;
static void **module;

/* The host stubs: one per kernel, each launching itself. */
#define POP_AND_LAUNCH(stub, ...) do { \
    void *args[] = {__VA_ARGS__}; dim3 g, b; size_t shmem; cudaStream_t s; \
    if (__cudaPopCallConfiguration(&g, &b, &shmem, &s) != cudaSuccess) return; \
    cudaLaunchKernel((const void *)stub, g, b, args, shmem, s); } while (0)
static void scale(float *x, float a, int n) { POP_AND_LAUNCH(scale, &x, &a, &n); }
static void add2d(const float *a, const float *b, float *c, int w, int h) { POP_AND_LAUNCH(add2d, &a, &b, &c, &w, &h); }
static void block_sum(const float *x, float *out, int n) { POP_AND_LAUNCH(block_sum, &x, &out, &n); }

static void *read_file(const char *path) {
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    void *p = malloc(n);
    if (fread(p, 1, n, f) != (size_t)n) { free(p); p = NULL; }
    fclose(f);
    return p;
}

/* what nvcc's static constructor does */
static void register_module(const void *fatbin) {
    wrapper.magic = 0x466243b1;
    wrapper.version = 1;
    wrapper.data = fatbin;
    module = __cudaRegisterFatBinary(&wrapper);
    __cudaRegisterFunction(module, (const char *)scale, "scale", "scale", -1, 0, 0, 0, 0, 0);
    __cudaRegisterFunction(module, (const char *)add2d, "add2d", "add2d", -1, 0, 0, 0, 0, 0);
    __cudaRegisterFunction(module, (const char *)block_sum, "block_sum", "block_sum", -1, 0, 0, 0, 0, 0);
    __cudaRegisterFatBinaryEnd(module);
}

int main(int argc, char **argv) {
    enum { N = 1000, W = 37, H = 23, B = 128 };
    const void *fatbin = argc > 1 ? read_file(argv[1]) : NULL;
    if (!fatbin) { printf("FAIL usage: cuda12_kernels FATBIN\n"); return 2; }
    register_module(fatbin);

    float host[N], back[N];
    for (int i = 0; i < N; i++) host[i] = (float)i;
    float *d = NULL;
    CHECK(cudaMalloc((void **)&d, sizeof host));
    CHECK(cudaMemcpy(d, host, sizeof host, cudaMemcpyHostToDevice));
    /* scale<<<(N + B - 1) / B, B>>>(d, 3.0f, N) */
    if (!__cudaPushCallConfiguration((dim3){(N + B - 1) / B, 1, 1}, (dim3){B, 1, 1}, 0, 0)) scale(d, 3.0f, N);
    CHECK(cudaGetLastError());
    CHECK(cudaMemcpy(back, d, sizeof back, cudaMemcpyDeviceToHost));
    for (int i = 0; i < N; i++)
        if (back[i] != 3.0f * i) { printf("FAIL scale[%d] = %g\n", i, back[i]); return 1; }
    printf("scale ok\n");

    /* add2d<<<dim3(3, 3), dim3(16, 8), 0, stream>>>(a, b, c, W, H) */
    static float a[W * H], b[W * H], c[W * H];
    for (int i = 0; i < W * H; i++) { a[i] = (float)i; b[i] = 0.5f * i; }
    float *da, *db, *dc;
    cudaStream_t stream;
    CHECK(cudaStreamCreate(&stream));
    CHECK(cudaMalloc((void **)&da, sizeof a));
    CHECK(cudaMalloc((void **)&db, sizeof b));
    CHECK(cudaMalloc((void **)&dc, sizeof c));
    CHECK(cudaMemcpyAsync(da, a, sizeof a, cudaMemcpyHostToDevice, stream));
    CHECK(cudaMemcpyAsync(db, b, sizeof b, cudaMemcpyHostToDevice, stream));
    if (!__cudaPushCallConfiguration((dim3){(W + 15) / 16, (H + 7) / 8, 1}, (dim3){16, 8, 1}, 0, stream))
        add2d(da, db, dc, W, H);
    CHECK(cudaMemcpyAsync(c, dc, sizeof c, cudaMemcpyDeviceToHost, stream));
    CHECK(cudaStreamSynchronize(stream));
    for (int i = 0; i < W * H; i++)
        if (c[i] != 1.5f * i) { printf("FAIL add2d[%d] = %g\n", i, c[i]); return 1; }
    printf("add2d ok\n");

    /* block_sum<<<blocks, B, B * sizeof(float)>>>(d, sums, N) over the scaled values */
    enum { NB = (N + B - 1) / B };
    float *dsums, sums[NB];
    CHECK(cudaMalloc((void **)&dsums, sizeof sums));
    if (!__cudaPushCallConfiguration((dim3){NB, 1, 1}, (dim3){B, 1, 1}, B * sizeof(float), 0))
        block_sum(d, dsums, N);
    CHECK(cudaDeviceSynchronize());
    CHECK(cudaMemcpy(sums, dsums, sizeof sums, cudaMemcpyDeviceToHost));
    for (int k = 0; k < NB; k++) {
        double want = 0;
        for (int i = k * B; i < (k + 1) * B && i < N; i++) want += 3.0 * i;
        if (fabs(sums[k] - want) > 1e-3 * want) { printf("FAIL block_sum[%d] = %g, want %g\n", k, sums[k], want); return 1; }
    }
    printf("block_sum ok\n");

    CHECK(cudaFree(d));
    CHECK(cudaFree(da));
    CHECK(cudaFree(db));
    CHECK(cudaFree(dc));
    CHECK(cudaFree(dsums));
    CHECK(cudaStreamDestroy(stream));
    __cudaUnregisterFatBinary(module); /* nvcc registers this at exit */
    printf("OK cuda12_kernels\n");
    return 0;
}
