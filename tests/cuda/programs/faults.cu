// The errors a real GPU gives for bad frees, copies outside an allocation and impossible
// allocations; the program carries on after each.
#include <cuda_runtime.h>
#include "check.h"

int main() {
    char *d = nullptr;
    char host[256] = {0};
    CHECK(cudaMalloc((void **)&d, 1024));
    EXPECT(cudaFree((void *)0xdeadbeef000) == cudaErrorInvalidValue);
    EXPECT(cudaGetLastError() == cudaErrorInvalidValue);
    EXPECT(cudaMemcpy(d + 1000, host, 256, cudaMemcpyHostToDevice) == cudaErrorInvalidValue);
    EXPECT(cudaMemcpy(host, d + 2048, 16, cudaMemcpyDeviceToHost) == cudaErrorInvalidValue);
    EXPECT(cudaMemset(d + 1020, 0, 8) == cudaErrorInvalidValue);
    size_t free_b, total_b;
    CHECK(cudaMemGetInfo(&free_b, &total_b));
    void *huge = nullptr;
    EXPECT(cudaMalloc(&huge, total_b + (1ull << 30)) == cudaErrorMemoryAllocation);
    EXPECT(cudaGetLastError() == cudaErrorMemoryAllocation);
    EXPECT(cudaStreamSynchronize((cudaStream_t)0x1234567) == cudaErrorInvalidResourceHandle);
    // still usable after all of that
    CHECK(cudaMemcpy(d, host, 256, cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(host, d, 256, cudaMemcpyDeviceToHost));
    CHECK(cudaFree(d));
    EXPECT(cudaFree(d) == cudaErrorInvalidValue);  // double free
    printf("OK faults\n");
    return 0;
}
