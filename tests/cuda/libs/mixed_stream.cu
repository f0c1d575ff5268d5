// Two runtimes, one handle space: the program's runtime (built -cudart shared: under `rgpu run`, rgpu's
// own runtime face) makes a stream and an event and allocates; cuBLAS's private copy of NVIDIA's cudart
// runs its GEMM on that stream through rgpu's driver; the program's runtime records the event on the
// stream after it and reads the result back.
#include <cublas_v2.h>
#include <cuda_runtime.h>
#include <vector>

#include "report.h"

int main() {
    const int n = 16;
    std::vector<float> a(n * n), b(n * n), c(n * n, 0.0f);
    for (int i = 0; i < n * n; i++) a[i] = (float)input(i, 1), b[i] = (float)input(i, 2);
    cudaStream_t stream;
    cudaEvent_t done;
    float *da, *db, *dc;
    int st = cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking);
    if (!st) st = cudaEventCreate(&done);
    if (!st) st = cudaMalloc(&da, n * n * 4) | cudaMalloc(&db, n * n * 4) | cudaMalloc(&dc, n * n * 4);
    if (!st) st = cudaMemcpyAsync(da, a.data(), n * n * 4, cudaMemcpyHostToDevice, stream);
    if (!st) st = cudaMemcpyAsync(db, b.data(), n * n * 4, cudaMemcpyHostToDevice, stream);
    cublasHandle_t h;
    if (!st) st = cublasCreate(&h);
    if (!st) st = cublasSetStream(h, stream);
    cudaStream_t back = nullptr;
    if (!st) st = cublasGetStream(h, &back);
    if (!st && back != stream) st = -1;
    float alpha = 1.0f, beta = 0.0f;
    if (!st) st = cublasSgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, n, n, n, &alpha, da, n, db, n, &beta, dc, n);
    if (!st) st = cudaEventRecord(done, stream);
    if (!st) st = cudaEventSynchronize(done);
    if (!st) st = cudaMemcpy(c.data(), dc, n * n * 4, cudaMemcpyDeviceToHost);
    report("stream_sgemm", st, c.data(), n * n);
    return st != 0;
}
