// Real cuSPARSE (CSR SpMV), cuSOLVER (getrf + getrs) and cuRAND (host API, device generator against
// the same generator run on the host) on small sizes.
#include <cuda_runtime.h>
#include <curand.h>
#include <cusolverDn.h>
#include <cusparse.h>
#include <cstring>
#include <vector>

#include "report.h"

static void spmv() {
    // 6x6 CSR matrix: a_ij = input(6i+j) where (i + 2j) % 3 == 0, else 0
    const int rows = 6, cols = 6;
    std::vector<int> rp{0}, ci;
    std::vector<float> val, x(cols), y(rows, 0.0f);
    for (int i = 0; i < rows; i++) {
        for (int j = 0; j < cols; j++)
            if ((i + 2 * j) % 3 == 0) ci.push_back(j), val.push_back((float)input(6 * i + j, 1));
        rp.push_back((int)ci.size());
    }
    for (int j = 0; j < cols; j++) x[j] = (float)input(j, 2);
    int *drp, *dci;
    float *dval, *dx, *dy;
    cudaMalloc(&drp, rp.size() * 4), cudaMalloc(&dci, ci.size() * 4), cudaMalloc(&dval, val.size() * 4);
    cudaMalloc(&dx, cols * 4), cudaMalloc(&dy, rows * 4);
    cudaMemcpy(drp, rp.data(), rp.size() * 4, cudaMemcpyHostToDevice);
    cudaMemcpy(dci, ci.data(), ci.size() * 4, cudaMemcpyHostToDevice);
    cudaMemcpy(dval, val.data(), val.size() * 4, cudaMemcpyHostToDevice);
    cudaMemcpy(dx, x.data(), cols * 4, cudaMemcpyHostToDevice);
    cudaMemcpy(dy, y.data(), rows * 4, cudaMemcpyHostToDevice);
    cusparseHandle_t h;
    cusparseSpMatDescr_t a;
    cusparseDnVecDescr_t vx, vy;
    int st = cusparseCreate(&h);
    if (!st) st = cusparseCreateCsr(&a, rows, cols, (int)val.size(), drp, dci, dval, CUSPARSE_INDEX_32I,
                                    CUSPARSE_INDEX_32I, CUSPARSE_INDEX_BASE_ZERO, CUDA_R_32F);
    if (!st) st = cusparseCreateDnVec(&vx, cols, dx, CUDA_R_32F);
    if (!st) st = cusparseCreateDnVec(&vy, rows, dy, CUDA_R_32F);
    float alpha = 2.0f, beta = 0.0f;
    size_t bytes = 0;
    void *buf = nullptr;
    if (!st) st = cusparseSpMV_bufferSize(h, CUSPARSE_OPERATION_NON_TRANSPOSE, &alpha, a, vx, &beta, vy, CUDA_R_32F,
                                          CUSPARSE_SPMV_ALG_DEFAULT, &bytes);
    cudaMalloc(&buf, bytes ? bytes : 1);
    if (!st) st = cusparseSpMV(h, CUSPARSE_OPERATION_NON_TRANSPOSE, &alpha, a, vx, &beta, vy, CUDA_R_32F,
                               CUSPARSE_SPMV_ALG_DEFAULT, buf);
    cudaMemcpy(y.data(), dy, rows * 4, cudaMemcpyDeviceToHost);
    report("spmv", st, y.data(), rows);
}

static void lu_solve() {
    // A x = b with A = input(i) + 8 on the diagonal (well conditioned), column-major
    const int n = 5;
    std::vector<double> a(n * n), b(n);
    for (int i = 0; i < n * n; i++) a[i] = input(i, 3) + (i % (n + 1) == 0 ? 8.0 : 0.0);
    for (int i = 0; i < n; i++) b[i] = input(i, 4);
    double *da, *db, *work;
    int *piv, *info, lwork = 0, hinfo = -1;
    cudaMalloc(&da, n * n * 8), cudaMalloc(&db, n * 8), cudaMalloc(&piv, n * 4), cudaMalloc(&info, 4);
    cudaMemcpy(da, a.data(), n * n * 8, cudaMemcpyHostToDevice);
    cudaMemcpy(db, b.data(), n * 8, cudaMemcpyHostToDevice);
    cusolverDnHandle_t h;
    int st = cusolverDnCreate(&h);
    if (!st) st = cusolverDnDgetrf_bufferSize(h, n, n, da, n, &lwork);
    cudaMalloc(&work, 8 * (lwork ? lwork : 1));
    if (!st) st = cusolverDnDgetrf(h, n, n, da, n, work, piv, info);
    if (!st) st = cusolverDnDgetrs(h, CUBLAS_OP_N, n, 1, da, n, piv, db, n, info);
    cudaMemcpy(&hinfo, info, 4, cudaMemcpyDeviceToHost);
    cudaMemcpy(b.data(), db, n * 8, cudaMemcpyDeviceToHost);
    report("getrs", st ? st : hinfo, b.data(), n);
}

static void random_numbers() {
    // The device generator and cuRAND's host implementation of it give the same sequence.
    const int n = 256;
    std::vector<float> dev(n), host(n);
    curandGenerator_t g, gh;
    float *d;
    cudaMalloc(&d, n * 4);
    int st = curandCreateGenerator(&g, CURAND_RNG_PSEUDO_XORWOW);
    if (!st) st = curandSetPseudoRandomGeneratorSeed(g, 2024ULL);
    if (!st) st = curandGenerateUniform(g, d, n);
    cudaMemcpy(dev.data(), d, n * 4, cudaMemcpyDeviceToHost);
    int sth = curandCreateGeneratorHost(&gh, CURAND_RNG_PSEUDO_XORWOW);
    if (!sth) sth = curandSetPseudoRandomGeneratorSeed(gh, 2024ULL);
    if (!sth) sth = curandGenerateUniform(gh, host.data(), n);
    report("curand_device", st, dev.data(), n);
    report("curand_host", sth, host.data(), n);
}

int main(int argc, char **argv) {
    const char *only = argc > 1 ? argv[1] : "";
    if (!*only || !strcmp(only, "spmv")) spmv();
    if (!*only || !strcmp(only, "getrs")) lu_solve();
    if (!*only || !strcmp(only, "curand")) random_numbers();
    return 0;
}
