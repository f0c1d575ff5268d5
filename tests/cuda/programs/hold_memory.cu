// Allocates, says so, then keeps calling the device until a call fails: for tests that kill the
// server (the failure must be device-unavailable, quickly) or the program (memory must return).
//   hold_memory [MiB [copies|uploads]]   copies: the calls are copies of all of it into pageable memory;
//   uploads: copies of all of it from pageable memory
#include <cstring>
#include <vector>
#include <unistd.h>
#include <cuda_runtime.h>
#include "check.h"

int main(int argc, char **argv) {
    size_t mib = argc > 1 ? atoi(argv[1]) : 64;
    bool copies = argc > 2 && !strcmp(argv[2], "copies"), uploads = argc > 2 && !strcmp(argv[2], "uploads");
    std::vector<unsigned char> host(copies || uploads ? mib << 20 : 0, 2);
    void *d = nullptr;
    CHECK(cudaMalloc(&d, mib << 20));
    CHECK(cudaMemset(d, 1, mib << 20));
    CHECK(cudaDeviceSynchronize());
    printf("READY %zu\n", mib);
    fflush(stdout);
    for (;;) {
        cudaError_t e = copies    ? cudaMemcpy(host.data(), d, host.size(), cudaMemcpyDeviceToHost)
                         : uploads ? cudaMemcpy(d, host.data(), host.size(), cudaMemcpyHostToDevice)
                                   : cudaDeviceSynchronize();
        if (e != cudaSuccess) {
            printf("ERROR %d %s\n", (int)e, cudaGetErrorName(e));
            return 3;
        }
        if (!copies && !uploads) usleep(20000);
    }
}
