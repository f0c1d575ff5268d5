// CUDA's integer and video intrinsics (funnel shifts, byte permutes, SIMD bytes and half-words,
// dp4a, high products, bit counts) and single-precision special functions, over 256 inputs: the
// results go to the file argv[1], which tests/e2e/test_kernels.py checks against references written
// from CUDA's documentation. Usage: intrinsics OUT.bin
#include <cstdio>
#include <cstdint>
#include <cmath>
#include <vector>
#include <cuda_fp16.h>
#include <cuda_bf16.h>
#define CHECK(x) do { cudaError_t e = (x); if (e != cudaSuccess) { printf("FAIL %s:%d %s %s\n", __FILE__, __LINE__, #x, cudaGetErrorName(e)); return 1; } } while (0)
#define N 256
__global__ void ints(const uint32_t *a, const uint32_t *b, uint32_t *o) {
    int i = threadIdx.x; uint32_t x = a[i], y = b[i];
    o[i * 16 + 0] = __funnelshift_l(x, y, i & 31);
    o[i * 16 + 1] = __funnelshift_r(x, y, i & 31);
    o[i * 16 + 2] = __byte_perm(x, y, 0x5140 + (i & 7));
    o[i * 16 + 3] = __vabsdiffu4(x, y);
    o[i * 16 + 4] = (uint32_t)__dp4a((int)x, (int)y, i);
    o[i * 16 + 5] = __vadd4(x, y);
    o[i * 16 + 6] = __usad(x & 0xffff, y & 0xffff, i);
    o[i * 16 + 7] = (uint32_t)__mulhi((int)x, (int)y);
    o[i * 16 + 8] = (uint32_t)(__umul64hi(((uint64_t)x << 32) | y, ((uint64_t)y << 32) | x) >> 7);
    o[i * 16 + 9] = __clzll(((uint64_t)x << (i & 31))) + __popcll(((uint64_t)y << 32) | x) * 100;
    o[i * 16 + 10] = __ffsll((long long)(((uint64_t)x << 32) | y)) + __brevll(((uint64_t)x << 32) | y) % 1000;
    o[i * 16 + 11] = __vcmpgtu4(x, y) ^ __vmaxu4(x, y);
    o[i * 16 + 12] = __sad((int)x, (int)y, 3);
    o[i * 16 + 13] = __hadd((int)x, (int)y) + __rhadd((int)(x >> 1), (int)(y >> 1));
    o[i * 16 + 14] = (x ^ y) & (x | ~y) ^ (x & 0x0f0f0f0f);  // lop3
    o[i * 16 + 15] = __vsub2(x, y) + __vavgu2(x, y);
}
__global__ void floats(const float *a, float *o) {
    int i = threadIdx.x; float x = a[i];
    o[i * 12 + 0] = __fdividef(x, 1.7f);
    o[i * 12 + 1] = rsqrtf(fabsf(x) + 0.5f);
    o[i * 12 + 2] = erfcinvf(fminf(fmaxf(x * 0.3f + 1.0f, 0.05f), 1.95f));
    o[i * 12 + 3] = lgammaf(fabsf(x) + 0.3f);
    o[i * 12 + 4] = tgammaf(fabsf(x) * 0.5f + 0.3f);
    o[i * 12 + 5] = normcdff(x);
    o[i * 12 + 6] = cbrtf(x);
    o[i * 12 + 7] = __half2float(__hmul(__float2half(x), __float2half(0.5f + x)));
    o[i * 12 + 8] = __bfloat162float(__hfma(__float2bfloat16(x), __float2bfloat16(2.0f), __float2bfloat16(1.0f)));
    o[i * 12 + 9] = fmaf(x, x, -1.0f);
    o[i * 12 + 10] = hypotf(x, 2.0f) + atan2f(x, -1.5f);
    o[i * 12 + 11] = 0.0f;
}
int main(int argc, char **argv) {
    if (argc < 2) { printf("usage: intrinsics OUT.bin\n"); return 2; }
    std::vector<uint32_t> a(N), b(N); std::vector<float> f(N);
    for (int i = 0; i < N; i++) { a[i] = 2654435761u * (i + 1); b[i] = 40503u * (i * 7 + 3) ^ 0xdeadbeef; f[i] = (i - 128) * 0.037f; }
    uint32_t *da, *db, *dout; float *df, *dfo;
    CHECK(cudaMalloc(&da, N * 4)); CHECK(cudaMalloc(&db, N * 4)); CHECK(cudaMalloc(&dout, N * 64)); CHECK(cudaMalloc(&df, N * 4)); CHECK(cudaMalloc(&dfo, N * 48));
    CHECK(cudaMemcpy(da, a.data(), N * 4, cudaMemcpyHostToDevice)); CHECK(cudaMemcpy(db, b.data(), N * 4, cudaMemcpyHostToDevice)); CHECK(cudaMemcpy(df, f.data(), N * 4, cudaMemcpyHostToDevice));
    ints<<<1, N>>>(da, db, dout); floats<<<1, N>>>(df, dfo);
    CHECK(cudaGetLastError());
    std::vector<uint32_t> o(N * 16); std::vector<float> fo(N * 12);
    CHECK(cudaMemcpy(o.data(), dout, N * 64, cudaMemcpyDeviceToHost)); CHECK(cudaMemcpy(fo.data(), dfo, N * 48, cudaMemcpyDeviceToHost));
    FILE *fp = fopen(argv[1], "wb");
    if (!fp) { printf("FAIL cannot write %s\n", argv[1]); return 1; }
    fwrite(o.data(), 4, o.size(), fp); fwrite(fo.data(), 4, fo.size(), fp); fclose(fp);
    printf("OK intrinsics\n");
    return 0;
}
