// cudaMalloc and cudaFree from THREADS threads at once, ITERS each (sizes from a byte to 3 MiB): every
// allocation is written with its own pattern by a copy, read back whole and checked, and checked not to
// overlap any other thread's live one, before it is freed; at the end cudaMemGetInfo shows as much free
// as at the start. rgpu's client places allocations under one lock per device (libhook/src/memory/placed.c).
//   placed_threads THREADS ITERS
#include <cstdint>
#include <cstdlib>
#include <map>
#include <mutex>
#include <thread>
#include <vector>
#include <cuda_runtime.h>
#include "check.h"

static std::mutex mu;
static std::map<uintptr_t, size_t> live;  // every thread's allocations, by address
static int failed;

static int one_thread(int t, int iters) {
    unsigned seed = 12345u + (unsigned)t;
    std::vector<unsigned char> host, back;
    for (int i = 0; i < iters; i++) {
        seed = seed * 1103515245u + 12345u;
        size_t size = 1 + (seed >> 8) % (3u << 20);
        if (i % 4 == 0) size = 1 + (seed >> 8) % 4096;  // small ones too, packed in shared granules
        void *d = nullptr;
        CHECK(cudaMalloc(&d, size));
        uintptr_t at = (uintptr_t)d;
        {
            std::lock_guard<std::mutex> g(mu);
            auto next = live.lower_bound(at);
            if ((next != live.end() && next->first < at + size) ||
                (next != live.begin() && std::prev(next)->first + std::prev(next)->second > at)) {
                printf("FAIL thread %d: 0x%zx (+%zu) overlaps a live allocation\n", t, (size_t)at, size);
                return 1;
            }
            live[at] = size;
        }
        host.resize(size);
        for (size_t k = 0; k < size; k++) host[k] = (unsigned char)(seed + k * 7 + t);
        CHECK(cudaMemcpy(d, host.data(), size, cudaMemcpyHostToDevice));
        back.assign(size, 0);
        CHECK(cudaMemcpy(back.data(), d, size, cudaMemcpyDeviceToHost));
        EXPECT(back == host);
        {
            std::lock_guard<std::mutex> g(mu);
            live.erase(at);
        }
        CHECK(cudaFree(d));
    }
    return 0;
}

int main(int argc, char **argv) {
    int threads = argc > 1 ? atoi(argv[1]) : 8, iters = argc > 2 ? atoi(argv[2]) : 100;
    CHECK(cudaFree(0));
    size_t free0 = 0, total = 0;
    CHECK(cudaMemGetInfo(&free0, &total));
    std::vector<std::thread> ts;
    for (int t = 0; t < threads; t++)
        ts.emplace_back([t, iters] {
            if (one_thread(t, iters)) failed = 1;
        });
    for (auto &t : ts) t.join();
    EXPECT(!failed);
    size_t free1 = 0;
    CHECK(cudaMemGetInfo(&free1, &total));
    EXPECT(free1 == free0);
    printf("OK placed_threads %d x %d\n", threads, iters);
    return 0;
}
