// Real cuBLAS and cuBLASLt on small sizes: SGEMM, DGEMM, strided batched SGEMM, a cuBLASLt matmul.
#include <cublasLt.h>
#include <cublas_v2.h>
#include <cuda_runtime.h>
#include <vector>

#include "report.h"

template <typename T>
static T *upload(const std::vector<T> &h) {
    T *d = nullptr;
    cudaMalloc(&d, h.size() * sizeof(T));
    cudaMemcpy(d, h.data(), h.size() * sizeof(T), cudaMemcpyHostToDevice);
    return d;
}

template <typename T>
static std::vector<T> download(const T *d, size_t n) {
    std::vector<T> h(n);
    cudaMemcpy(h.data(), d, n * sizeof(T), cudaMemcpyDeviceToHost);
    return h;
}

template <typename T>
static std::vector<T> inputs(size_t n, int salt) {
    std::vector<T> v(n);
    for (size_t i = 0; i < n; i++) v[i] = (T)input((int)i, salt);
    return v;
}

int main() {
    const int m = 12, n = 10, k = 9, batch = 3;
    cublasHandle_t h;
    int st = cublasCreate(&h);
    printf("create %d\n", st);
    if (st) return 1;
    {  // C = 1.5 A B - 0.5 C, column-major, A m x k, B k x n
        auto a = inputs<float>(m * k, 1), b = inputs<float>(k * n, 2), c = inputs<float>(m * n, 3);
        float *da = upload(a), *db = upload(b), *dc = upload(c);
        float alpha = 1.5f, beta = -0.5f;
        st = cublasSgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, m, n, k, &alpha, da, m, db, k, &beta, dc, m);
        report("sgemm", st, download(dc, m * n).data(), m * n);
    }
    {  // C = A^T B in double, A k x m
        auto a = inputs<double>(k * m, 4), b = inputs<double>(k * n, 5), c = inputs<double>(m * n, 6);
        double *da = upload(a), *db = upload(b), *dc = upload(c);
        double alpha = 1.0, beta = 0.0;
        st = cublasDgemm(h, CUBLAS_OP_T, CUBLAS_OP_N, m, n, k, &alpha, da, k, db, k, &beta, dc, m);
        report("dgemm", st, download(dc, m * n).data(), m * n);
    }
    {  // batch of C_i = A_i B_i
        auto a = inputs<float>(m * k * batch, 7), b = inputs<float>(k * n * batch, 8), c = inputs<float>(m * n * batch, 9);
        float *da = upload(a), *db = upload(b), *dc = upload(c);
        float alpha = 1.0f, beta = 0.0f;
        st = cublasSgemmStridedBatched(h, CUBLAS_OP_N, CUBLAS_OP_N, m, n, k, &alpha, da, m, (long long)m * k, db, k,
                                       (long long)k * n, &beta, dc, m, (long long)m * n, batch);
        report("sgemm_batched", st, download(dc, m * n * batch).data(), m * n * batch);
    }
    {  // cuBLASLt: D = A B with the first algorithm the heuristic offers
        auto a = inputs<float>(m * k, 10), b = inputs<float>(k * n, 11);
        float *da = upload(a), *db = upload(b), *dd = upload(std::vector<float>(m * n, 0.0f));
        cublasLtHandle_t lt;
        cublasLtMatmulDesc_t op;
        cublasLtMatrixLayout_t la, lb, ld;
        st = cublasLtCreate(&lt);
        if (!st) st = cublasLtMatmulDescCreate(&op, CUBLAS_COMPUTE_32F, CUDA_R_32F);
        if (!st) st = cublasLtMatrixLayoutCreate(&la, CUDA_R_32F, m, k, m);
        if (!st) st = cublasLtMatrixLayoutCreate(&lb, CUDA_R_32F, k, n, k);
        if (!st) st = cublasLtMatrixLayoutCreate(&ld, CUDA_R_32F, m, n, m);
        cublasLtMatmulPreference_t pref;
        cublasLtMatmulHeuristicResult_t heur = {};
        int found = 0;
        size_t ws = 1 << 20;
        void *dws = nullptr;
        cudaMalloc(&dws, ws);
        if (!st) st = cublasLtMatmulPreferenceCreate(&pref);
        if (!st) st = cublasLtMatmulPreferenceSetAttribute(pref, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, &ws, sizeof ws);
        if (!st) st = cublasLtMatmulAlgoGetHeuristic(lt, op, la, lb, ld, ld, pref, 1, &heur, &found);
        if (!st && !found) st = CUBLAS_STATUS_NOT_SUPPORTED;
        float alpha = 1.0f, beta = 0.0f;
        if (!st) st = cublasLtMatmul(lt, op, &alpha, da, la, db, lb, &beta, dd, ld, dd, ld, &heur.algo, dws, ws, 0);
        cudaDeviceSynchronize();
        report("lt_matmul", st, download(dd, m * n).data(), m * n);
    }
    cublasDestroy(h);
    return 0;
}
