// The questions a program with two devices asks of its pointers, answered alike whether the client's
// table of allocations answers them or the servers do (the test runs it both ways and compares what
// it prints): device-to-device copies within a device and across devices, cudaMemcpyDefault, pointer
// attributes inside, at the end of and past every kind of allocation the table keeps (cudaMalloc,
// cudaMallocPitch, cuMemAlloc, cuMemAllocPitch), a cudaFree of one device's memory while the other
// is current, cudaFreeAsync, and cudaDeviceReset. `alloc_table ROUNDS` repeats the copies and
// queries ROUNDS times (the test counts the calls that reached the servers). `alloc_table ROUNDS uva`
// also copies to and from device 1's memory while device 0 is current, as unified addressing allows
// (the table says whose memory it is; without it those copies go to the current device).
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <cuda.h>
#include <cuda_runtime.h>
#include "check.h"

__global__ void iota(int *x, int n) { int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) x[i] = 3 * i + 1; }

static int facts(const char *what, const void *p) {
    cudaPointerAttributes a;
    CHECK(cudaPointerGetAttributes(&a, p));
    printf("%s type=%d device=%d devptr=%s hostptr=%s\n", what, (int)a.type, a.device,
           a.devicePointer == p ? "self" : a.devicePointer ? "other" : "null",
           a.hostPointer == p ? "self" : a.hostPointer ? "other" : "null");
    return 0;
}

#define FACTS(what, p) do { if (facts(what, p)) return 1; } while (0)

int main(int argc, char **argv) {
    int rounds = argc > 1 ? atoi(argv[1]) : 1, ndev = 0;
    CHECK(cudaGetDeviceCount(&ndev));
    EXPECT(ndev >= 2);
    const int N = 1 << 16;
    const size_t bytes = N * sizeof(int);
    int *a0, *b0, *a1;
    char *p1;
    size_t pitch = 0;
    CHECK(cudaSetDevice(0));
    CHECK(cudaMalloc(&a0, bytes));
    CHECK(cudaMalloc(&b0, bytes));
    CUdeviceptr d0 = 0, q0 = 0;
    size_t qpitch = 0;
    if (cuMemAlloc(&d0, 4096) != CUDA_SUCCESS || cuMemAllocPitch(&q0, &qpitch, 100, 4, 4) != CUDA_SUCCESS) {
        printf("FAIL cuMemAlloc\n");
        return 1;
    }
    CHECK(cudaSetDevice(1));
    CHECK(cudaMalloc(&a1, bytes));
    CHECK(cudaMallocPitch((void **)&p1, &pitch, 1000, 8));
    CHECK(cudaSetDevice(0));
    iota<<<N / 256, 256>>>(a0, N);
    CHECK(cudaGetLastError());

    int host = 0;
    for (int r = 0; r < rounds; r++) {
        CHECK(cudaMemcpy(a1, a0, bytes, cudaMemcpyDeviceToDevice)); // across devices, through the client
        CHECK(cudaMemcpy(b0, a0, bytes, cudaMemcpyDefault));        // within device 0, its kind from the pointers
        CHECK(cudaMemcpyAsync(b0, a0, bytes, cudaMemcpyDeviceToDevice, 0));
        cudaPointerAttributes a;
        CHECK(cudaPointerGetAttributes(&a, a1 + 7));
        EXPECT(a.type == cudaMemoryTypeDevice && a.device == 1);
        CHECK(cudaPointerGetAttributes(&a, b0 + N - 1));
        EXPECT(a.type == cudaMemoryTypeDevice && a.device == 0);
        CHECK(cudaPointerGetAttributes(&a, p1 + pitch * 8 - 1));
        EXPECT(a.type == cudaMemoryTypeDevice && a.device == 1);
    }
    CHECK(cudaDeviceSynchronize());
    static int back[1 << 16];
    CHECK(cudaSetDevice(1));
    CHECK(cudaMemcpy(back, a1, bytes, cudaMemcpyDefault));
    for (int i = 0; i < N; i++) EXPECT(back[i] == (rounds ? 3 * i + 1 : back[i]));
    CHECK(cudaSetDevice(0));
    CHECK(cudaMemcpy(back, b0, bytes, cudaMemcpyDeviceToHost));
    for (int i = 0; i < N; i++) EXPECT(back[i] == (rounds ? 3 * i + 1 : back[i]));

    // inside, at the last byte and one past the end of each kind; host memory; device 1 current too
    for (int cur = 0; cur < 2; cur++) {
        CHECK(cudaSetDevice(cur));
        printf("current %d\n", cur);
        FACTS("a0", a0);
        FACTS("a0+mid", a0 + N / 2);
        FACTS("a0 last byte", (char *)a0 + bytes - 1);
        FACTS("a1+7", a1 + 7);
        FACTS("p1 row 7", p1 + pitch * 7);
        FACTS("p1 last byte", p1 + pitch * 8 - 1);
        FACTS("d0+100", (void *)(uintptr_t)(d0 + 100));
        FACTS("q0 last byte", (void *)(uintptr_t)(q0 + qpitch * 4 - 1));
        FACTS("host", &host);
        unsigned mtype = 0;
        int ordinal = -1;
        if (cuPointerGetAttribute(&mtype, CU_POINTER_ATTRIBUTE_MEMORY_TYPE, d0 + 8) != CUDA_SUCCESS ||
            cuPointerGetAttribute(&ordinal, CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL, d0 + 8) != CUDA_SUCCESS) {
            printf("FAIL cuPointerGetAttribute\n");
            return 1;
        }
        printf("d0 memory type %u\n", mtype);
    }

    if (argc > 2 && !strcmp(argv[2], "uva")) {
        // device 1's memory written and read while device 0 is current: the Runtime's and the
        // Driver's sync copies, by address
        CHECK(cudaSetDevice(0));
        for (int i = 0; i < N; i++) back[i] = 5 * i;
        CHECK(cudaMemcpy(a1, back, bytes, cudaMemcpyHostToDevice));
        static int again[1 << 16];
        CHECK(cudaMemcpy(again, a1, bytes, cudaMemcpyDeviceToHost));
        for (int i = 0; i < N; i++) EXPECT(again[i] == 5 * i);
        int word = 77, got = 0;
        if (cuMemcpyHtoD((CUdeviceptr)(uintptr_t)(a1 + 9), &word, 4) != CUDA_SUCCESS ||
            cuMemcpyDtoH(&got, (CUdeviceptr)(uintptr_t)(a1 + 9), 4) != CUDA_SUCCESS) {
            printf("FAIL cuMemcpy by address\n");
            return 1;
        }
        EXPECT(got == 77);
        CHECK(cudaSetDevice(1));
        CHECK(cudaMemcpy(&got, a1 + 10, 4, cudaMemcpyDeviceToHost)); // device 1's own view agrees
        EXPECT(got == 50);
        printf("uva copies ok\n");
    }

    // device 1's memory freed while device 0 is current, as CUDA frees by address
    CHECK(cudaSetDevice(0));
    CHECK(cudaFree(a1));
    FACTS("a1 freed", a1);
    CHECK(cudaFreeAsync(b0, 0));
    CHECK(cudaDeviceSynchronize());
    FACTS("b0 freed", b0);
    EXPECT(cudaFree(b0) == cudaErrorInvalidValue); // already freed: the server says so
    cudaGetLastError();
    if (cuMemFree(d0) != CUDA_SUCCESS) { printf("FAIL cuMemFree\n"); return 1; }
    FACTS("d0 freed", (void *)(uintptr_t)d0);

    // a reset frees the device's memory; what is allocated after it is found again
    CHECK(cudaSetDevice(1));
    CHECK(cudaDeviceReset());
    FACTS("p1 after reset", p1);
    int *c1;
    CHECK(cudaMalloc(&c1, bytes));
    FACTS("c1", c1);
    CHECK(cudaSetDevice(0));
    FACTS("c1 from device 0", c1);
    CHECK(cudaFree(c1));
    CHECK(cudaFree(a0));
    printf("OK alloc_table %d rounds\n", rounds);
    return 0;
}
