/* The kernels of benchmarks/test_sim_jit.py written in C, one function per kernel, each doing the
 * same arithmetic in the same order as the CUDA kernel's threads (tests/cuda/kernels/simjit.cu,
 * simcore.cu). Built with gcc -O2 by the benchmark: the CPU's limit the compiled PTX is held to. */
#include <stdint.h>
#include <string.h>

void vadd(const float *a, const float *b, float *c, int n) {
    for (int i = 0; i < n; i++) c[i] = a[i] + b[i];
}

/* One thread's dot product per output, tiles and k in the kernel's order (so the same rounding). */
void tiled_matmul(const float *A, const float *B, float *C, int M, int N, int K) {
    for (int row = 0; row < M; row++)
        for (int col = 0; col < N; col++) {
            float acc = 0.0f;
            for (int k = 0; k < K; k++) acc += A[row * K + k] * B[k * N + col];
            C[row * N + col] = acc;
        }
}

/* warp_sums: each thread's grid-stride sum, then each warp's lanes added, and a count of its
 * lanes that saw a negative value. */
void warp_sums(const int *in, int *sums, unsigned *negatives, int n, int threads) {
    for (int w = 0; w < threads / 32; w++) {
        int total = 0;
        unsigned count = 0;
        for (int lane = 0; lane < 32; lane++) {
            int v = 0, neg = 0;
            for (int i = w * 32 + lane; i < n; i += threads) {
                v += in[i];
                neg |= in[i] < 0;
            }
            total += v;
            count += neg;
        }
        sums[w] = total;
        negatives[w] = count;
    }
}

/* histogram: per block, bins of its grid-stride share in "shared" memory, added to the global bins. */
void histogram(const unsigned char *data, unsigned *bins, int n, int blocks, int threads) {
    for (int b = 0; b < blocks; b++) {
        unsigned h[64];
        memset(h, 0, sizeof h);
        for (int t = 0; t < threads; t++)
            for (int i = b * threads + t; i < n; i += blocks * threads) h[data[i] & 63]++;
        for (int i = 0; i < 64; i++) bins[i] += h[i];
    }
}

/* cuBLAS's gemm_kernel1x1_core<float>: C = alpha * A @ B + beta * C, column-major with leading
 * dimensions, one output element at a time, its k products summed in order. */
void sgemm_colmajor(const float *A, const float *B, float *C, int m, int n, int k, int lda, int ldb, int ldc,
                    float alpha, float beta) {
    for (int j = 0; j < n; j++)
        for (int i = 0; i < m; i++) {
            float acc = 0.0f;
            for (int p = 0; p < k; p++) acc += A[i + p * lda] * B[p + j * ldb];
            C[i + j * ldc] = alpha * acc + beta * C[i + j * ldc];
        }
}

/* lockstep_volatile (tests/cuda/kernels/simjit.cu): per block of 128 threads, its sum, and each
 * warp's inclusive prefix sums of its inputs. */
void lockstep_volatile(const int *in, int *sums, unsigned *scans, int blocks) {
    for (int b = 0; b < blocks; b++) {
        const int *x = in + 128 * b;
        int s = 0;
        for (int t = 0; t < 128; t++) s += x[t];
        sums[b] = s;
        for (int w = 0; w < 4; w++) {
            unsigned acc = 0;
            for (int l = 0; l < 32; l++) {
                acc += (unsigned)x[32 * w + l];
                scans[128 * b + 32 * w + l] = acc;
            }
        }
    }
}

/* float_atomics (tests/cuda/kernels/simjit.cu): per block of 160 threads, each thread's value into
 * one of three words of the block's own (the old value kept), twice or three times into a fourth,
 * into four shared words and into the block's f64 sum, in the order a GPU's lanes may take. */
void float_atomics(const float *x, float *sums, double *dsums, float *olds, float *shared_out, int blocks) {
    for (int b = 0; b < blocks; b++) {
        float *mine = sums + 4 * b, s[4] = {0, 0, 0, 0};
        for (int t = 0; t < 160; t++) {
            int i = 160 * b + t;
            float v = x[i] * 1000.0f;
            olds[i] = mine[t % 3];
            mine[t % 3] += v;
        }
        for (int k = 0; k < 3; k++)
            for (int t = 0; t < 160; t++) {
                float xi = x[160 * b + t], v = xi * 1000.0f;
                if (k < 2 || xi > 3.0f) mine[3] += k ? -0.5f * v : v;
            }
        for (int t = 0; t < 160; t++) {
            float v = x[160 * b + t] * 1000.0f;
            s[t & 3] += v;
            dsums[b] += (double)v * 1.0e-3;
        }
        for (int t = 0; t < 4; t++) shared_out[4 * b + t] = s[t];
    }
}

/* saxpy_say without its one line of output (the benchmark counts the PTX's instructions). The
 * kernel's fma rounds once, this multiply and add twice (gcc -O2 targets no FMA unit): a limit of
 * speed, not a result the benchmark compares. */
void saxpy(float a, const float *x, float *y, int n) {
    for (int i = 0; i < n; i++) y[i] = a * x[i] + y[i];
}
