// Allocates, says so, then keeps calling the device until a call fails: for tests that kill the
// server (the failure must be device-unavailable, quickly) or the program (memory must return).
//   hold_memory [MiB [copies|uploads [N]]]   copies: the calls are copies of all of it into pageable memory;
//   uploads: copies of all of it from pageable memory; N: stop after N of them, check that every byte
//   arrived, and print "OK hold_memory N"
#include <algorithm>
#include <cstring>
#include <vector>
#include <unistd.h>
#include <cuda_runtime.h>
#include "check.h"

int main(int argc, char **argv) {
    size_t mib = argc > 1 ? atoi(argv[1]) : 64;
    bool copies = argc > 2 && !strcmp(argv[2], "copies"), uploads = argc > 2 && !strcmp(argv[2], "uploads");
    long calls = argc > 3 ? atol(argv[3]) : -1;
    std::vector<unsigned char> host(copies || uploads ? mib << 20 : 0, 2);
    void *d = nullptr;
    CHECK(cudaMalloc(&d, mib << 20));
    CHECK(cudaMemset(d, 1, mib << 20));
    CHECK(cudaDeviceSynchronize());
    printf("READY %zu\n", mib);
    fflush(stdout);
    for (long n = 0; calls < 0 || n < calls; n++) {
        cudaError_t e = copies    ? cudaMemcpy(host.data(), d, host.size(), cudaMemcpyDeviceToHost)
                         : uploads ? cudaMemcpy(d, host.data(), host.size(), cudaMemcpyHostToDevice)
                                   : cudaDeviceSynchronize();
        if (e != cudaSuccess) {
            printf("ERROR %d %s\n", (int)e, cudaGetErrorName(e));
            return 3;
        }
        if (!copies && !uploads) usleep(20000);
    }
    if (uploads) {  // what the uploads left on the device (2s), read back over pageable memory's 0s
        std::fill(host.begin(), host.end(), 0);
        CHECK(cudaMemcpy(host.data(), d, host.size(), cudaMemcpyDeviceToHost));
    }
    for (size_t i = 0; i < host.size(); i++)
        if (host[i] != (uploads ? 2 : 1)) {
            printf("MISMATCH at %zu: %d\n", i, host[i]);
            return 4;
        }
    printf("OK hold_memory %ld\n", calls);
    return 0;
}
