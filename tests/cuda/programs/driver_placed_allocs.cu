// cudaMalloc and cuMemAlloc as a program sees them, whoever chooses the addresses (rgpu's client places
// them itself: libhook/src/memory/placed.c): ROUNDS rounds of allocations of many sizes (under and over
// half a 2 MiB granule, odd ones, both APIs), each written by a kernel and read back whole while the
// others live, checked to be 256-byte aligned and disjoint; half freed each round; frees of addresses
// no allocation starts at refused; cudaMalloc(0) a null pointer. With QUOTA (MiB, the lease's memory)
// Each round also makes a pitched allocation with each API (rows rounded to a pitch of at least the
// width, a multiple of 256), checked as the others. With QUOTA (MiB, the lease's memory)
// it then allocates CHUNK MiB at a time until the device refuses, and checks that the refusal is
// cudaMalloc's own (cudaErrorMemoryAllocation, then the last error, then success), that no more than
// the quota was given, and that after freeing one chunk the same allocation succeeds. `copy`: the
// contents are written by copies instead of kernels (a driver that runs none: the null driver). PAUSE
// (ms): after each round it prints "ROUND r" and sleeps that long (a test moves the session meanwhile).
//   driver_placed_allocs ROUNDS [QUOTA MiB] [CHUNK MiB] [copy|kernel] [PAUSE ms]
#include <cstdint>
#include <cstdlib>
#include <string>
#include <vector>
#include <unistd.h>
#include <cuda.h>
#include <cuda_runtime.h>
#include "check.h"
#define CK(call)                                                                                 \
    do {                                                                                         \
        CUresult r_ = (call);                                                                    \
        if (r_ != CUDA_SUCCESS) { printf("FAIL %s:%d %s -> %d\n", __FILE__, __LINE__, #call, (int)r_); return 1; } \
    } while (0)

__global__ void fill(unsigned *p, size_t n, unsigned seed) {
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x)
        p[i] = seed * 2654435761u + (unsigned)i;
}

struct Block { uintptr_t at; size_t size; bool driver; unsigned seed; };

static bool by_copy;

static int write_block(const Block &b, std::vector<unsigned> &host) {
    size_t n = b.size / 4;
    if (!n) return 0;
    if (!by_copy) {
        fill<<<64, 128>>>((unsigned *)b.at, n, b.seed);
        CHECK(cudaGetLastError());
        return 0;
    }
    host.resize(n);
    for (size_t i = 0; i < n; i++) host[i] = b.seed * 2654435761u + (unsigned)i;
    CHECK(cudaMemcpy((void *)b.at, host.data(), n * 4, cudaMemcpyHostToDevice));
    return 0;
}

static int check_block(const Block &b, std::vector<unsigned> &host) {
    size_t n = b.size / 4;
    if (!n) return 0;
    host.assign(n, 0);
    CHECK(cudaMemcpy(host.data(), (void *)b.at, n * 4, cudaMemcpyDeviceToHost));
    for (size_t i = 0; i < n; i++)
        if (host[i] != b.seed * 2654435761u + (unsigned)i) {
            printf("FAIL block 0x%zx (+%zu) word %zu: %u\n", (size_t)b.at, b.size, i, host[i]);
            return 1;
        }
    return 0;
}

int main(int argc, char **argv) {
    int rounds = argc > 1 ? atoi(argv[1]) : 4;
    size_t quota = argc > 2 ? (size_t)atoi(argv[2]) << 20 : 0;
    size_t chunk = (size_t)(argc > 3 ? atoi(argv[3]) : 16) << 20;
    by_copy = argc > 4 && std::string(argv[4]) == "copy";
    int pause_ms = argc > 5 ? atoi(argv[5]) : 0;
    const size_t sizes[] = {1, 100, 256, 511, 513, 4096, 65536 + 4, 1u << 20, (1u << 20) + 1, 3u << 20, (5u << 20) + 7};
    const int nsizes = sizeof sizes / sizeof *sizes;
    CHECK(cudaFree(0));
    std::vector<Block> live;
    std::vector<unsigned> host;
    unsigned seed = 1;
    for (int r = 0; r < rounds; r++) {
        for (int k = 0; k < nsizes; k++) {
            Block b{0, sizes[(k + r) % nsizes], (k + r) % 3 == 0, seed++};
            if (b.driver) {
                CUdeviceptr d = 0;
                CK(cuMemAlloc(&d, b.size));
                b.at = (uintptr_t)d;
            } else {
                void *d = nullptr;
                CHECK(cudaMalloc(&d, b.size));
                b.at = (uintptr_t)d;
            }
            EXPECT(b.at && b.at % 256 == 0);
            for (const Block &o : live)
                if (b.at < o.at + o.size && o.at < b.at + b.size) {
                    printf("FAIL 0x%zx (+%zu) overlaps 0x%zx (+%zu)\n", (size_t)b.at, b.size, (size_t)o.at, o.size);
                    return 1;
                }
            if (write_block(b, host)) return 1;
            live.push_back(b);
        }
        for (int api = 0; api < 2; api++) { // pitched: a 2D buffer of rows, as an image library makes them
            size_t width = 100 + 37 * (size_t)r + 700 * api, height = 3 + (size_t)r, pitch = 0;
            Block b{0, 0, api == 1, seed++};
            if (api == 1) {
                CUdeviceptr d = 0;
                CK(cuMemAllocPitch(&d, &pitch, width, height, 4));
                b.at = (uintptr_t)d;
            } else {
                void *d = nullptr;
                CHECK(cudaMallocPitch(&d, &pitch, width, height));
                b.at = (uintptr_t)d;
            }
            EXPECT(b.at && b.at % 256 == 0 && pitch >= width && pitch % 256 == 0);
            b.size = pitch * height;
            for (const Block &o : live)
                EXPECT(!(b.at < o.at + o.size && o.at < b.at + b.size));
            if (write_block(b, host)) return 1;
            live.push_back(b);
        }
        CHECK(cudaDeviceSynchronize());
        for (const Block &b : live)
            if (check_block(b, host)) return 1;
        // half of them go: every other one, oldest first
        std::vector<Block> kept;
        for (size_t i = 0; i < live.size(); i++) {
            if (i % 2) {
                kept.push_back(live[i]);
            } else if (live[i].driver) {
                CK(cuMemFree((CUdeviceptr)live[i].at));
            } else {
                CHECK(cudaFree((void *)live[i].at));
            }
        }
        live.swap(kept);
        if (pause_ms) {
            printf("ROUND %d\n", r);
            fflush(stdout);
            usleep((useconds_t)pause_ms * 1000);
        }
    }
    // what is not an allocation's start is refused, and nothing is lost by the refusal
    EXPECT(!live.empty());
    const Block &one = live.back();
    EXPECT(cudaFree((void *)(one.at + 256)) == cudaErrorInvalidValue);
    EXPECT(cudaGetLastError() == cudaErrorInvalidValue);
    EXPECT(check_block(one, host) == 0);
    void *null = (void *)1;
    CHECK(cudaMalloc(&null, 0));
    EXPECT(null == nullptr);
    for (const Block &b : live) CHECK(cudaFree((void *)b.at));
    EXPECT(cudaFree((void *)one.at) == cudaErrorInvalidValue);
    cudaGetLastError();
    printf("rounds %d ok\n", rounds);

    if (quota) {
        std::vector<void *> held;
        size_t got = 0;
        cudaError_t e = cudaSuccess;
        while (got <= quota) {
            void *d = nullptr;
            e = cudaMalloc(&d, chunk);
            if (e != cudaSuccess) break;
            held.push_back(d);
            got += chunk;
        }
        printf("quota %zu chunk %zu allocated %zu error %s\n", quota >> 20, chunk >> 20, got >> 20, cudaGetErrorName(e));
        EXPECT(e == cudaErrorMemoryAllocation && got <= quota && got + chunk > quota);
        EXPECT(cudaGetLastError() == cudaErrorMemoryAllocation);
        EXPECT(cudaGetLastError() == cudaSuccess);
        // the device is still usable, and the memory a free gives back can be had again
        CHECK(cudaFree(held.back()));
        held.pop_back();
        void *again = nullptr;
        CHECK(cudaMalloc(&again, chunk));
        held.push_back(again);
        if (write_block(Block{(uintptr_t)again, chunk, false, 7}, host)) return 1;
        CHECK(cudaDeviceSynchronize());
        for (void *d : held) CHECK(cudaFree(d));
        size_t free1 = 0, total = 0;
        CHECK(cudaMemGetInfo(&free1, &total));
        printf("free after %zu\n", free1 >> 20);
    }
    printf("OK placed_allocs\n");
    return 0;
}
