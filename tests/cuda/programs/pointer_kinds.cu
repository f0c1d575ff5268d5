// What the program can observe of its pointers: pinned host memory (flags, attributes, the errors
// for double registration and for freeing or unregistering what was never pinned), device memory
// of every device whatever device is current, and cudaMemcpyDefault between them.
#include <cstdlib>
#include <cstring>
#include <cuda_runtime.h>
#include "check.h"

int main() {
    int ndev = 0;
    CHECK(cudaGetDeviceCount(&ndev));
    void *pinned, *mapped, *plain = malloc(4096);
    CHECK(cudaMallocHost(&pinned, 1 << 20));
    CHECK(cudaHostAlloc(&mapped, 4096, cudaHostAllocMapped | cudaHostAllocPortable));
    unsigned flags = 99;
    CHECK(cudaHostGetFlags(&flags, mapped));
    EXPECT(flags == (cudaHostAllocMapped | cudaHostAllocPortable));
    EXPECT(cudaHostGetFlags(&flags, plain) == cudaErrorInvalidValue);
    cudaGetLastError();

    CHECK(cudaHostRegister(plain, 4096, cudaHostRegisterDefault));
    EXPECT(cudaHostRegister(plain, 4096, cudaHostRegisterDefault) == cudaErrorHostMemoryAlreadyRegistered);
    CHECK(cudaHostUnregister(plain));
    EXPECT(cudaHostUnregister(plain) == cudaErrorHostMemoryNotRegistered);
    // a range overlapping a registered one anywhere is refused, even one that holds it whole;
    // ranges side by side are two registrations, each found by any address inside it
    CHECK(cudaHostRegister((char *)plain + 1024, 1024, cudaHostRegisterDefault));
    EXPECT(cudaHostRegister(plain, 4096, cudaHostRegisterDefault) == cudaErrorHostMemoryAlreadyRegistered);
    EXPECT(cudaHostRegister((char *)plain + 1500, 16, cudaHostRegisterDefault) == cudaErrorHostMemoryAlreadyRegistered);
    cudaGetLastError();
    CHECK(cudaHostRegister(plain, 1024, cudaHostRegisterDefault));
    CHECK(cudaHostRegister((char *)plain + 2048, 2048, cudaHostRegisterDefault));
    for (int off : {0, 1023, 1024, 2047, 2048, 4095}) {
        unsigned f = 99;
        CHECK(cudaHostGetFlags(&f, (char *)plain + off));
    }
    CHECK(cudaHostUnregister((char *)plain + 1024));
    EXPECT(cudaHostGetFlags(&flags, (char *)plain + 1500) == cudaErrorInvalidValue);
    cudaGetLastError();
    CHECK(cudaHostUnregister(plain));
    CHECK(cudaHostUnregister((char *)plain + 2048));
    // many pinned buffers, copied through in an order unlike the one they were made in
    enum { MANY = 300 };
    static int *bufs[MANY];
    int *d_many;
    CHECK(cudaMalloc(&d_many, MANY * 64 * sizeof(int)));
    for (int i = 0; i < MANY; i++) {
        CHECK(cudaMallocHost(&bufs[i], 64 * sizeof(int)));
        for (int k = 0; k < 64; k++) bufs[i][k] = i * 1000 + k;
    }
    for (int j = 0; j < MANY; j++) {
        int i = (j * 7919) % MANY;
        CHECK(cudaMemcpy(d_many + i * 64, bufs[i], 64 * sizeof(int), cudaMemcpyHostToDevice));
    }
    for (int i = 0; i < MANY; i += 2) CHECK(cudaFreeHost(bufs[i]));
    for (int i = 1; i < MANY; i += 2) {
        memset(bufs[i], 0, 64 * sizeof(int));
        CHECK(cudaMemcpy(bufs[i], d_many + (MANY - i) * 64, 64 * sizeof(int), cudaMemcpyDeviceToHost));
        for (int k = 0; k < 64; k++) EXPECT(bufs[i][k] == (MANY - i) * 1000 + k);
        CHECK(cudaFreeHost(bufs[i]));
    }
    CHECK(cudaFree(d_many));
    EXPECT(cudaFreeHost(plain) == cudaErrorInvalidValue);
    cudaGetLastError();

    cudaPointerAttributes at;
    CHECK(cudaPointerGetAttributes(&at, (char *)pinned + 100));
    EXPECT(at.type == cudaMemoryTypeHost && at.hostPointer == (char *)pinned + 100);
    CHECK(cudaPointerGetAttributes(&at, plain));
    EXPECT(at.type == cudaMemoryTypeUnregistered);

    // Memory of the last device, looked at while device 0 is current.
    int last = ndev - 1;
    int *d_last;
    CHECK(cudaSetDevice(last));
    CHECK(cudaMalloc(&d_last, 4096));
    int pattern[1024];
    for (int i = 0; i < 1024; i++) pattern[i] = i * 3 + last;
    CHECK(cudaMemcpy(d_last, pattern, sizeof pattern, cudaMemcpyHostToDevice));
    CHECK(cudaSetDevice(0));
    CHECK(cudaPointerGetAttributes(&at, d_last + 10));
    EXPECT(at.type == cudaMemoryTypeDevice && at.device == last && at.devicePointer == d_last + 10);
    EXPECT(at.hostPointer == NULL);  // device memory has no host address
    int back[1024] = {0};
    if (ndev == 1) {  // device to host by cudaMemcpyDefault
        CHECK(cudaMemcpy(back, d_last, sizeof back, cudaMemcpyDefault));
        EXPECT(memcmp(back, pattern, sizeof back) == 0);
    }
    CHECK(cudaFreeHost(pinned));
    CHECK(cudaFreeHost(mapped));
    free(plain);
    printf("OK pointer_kinds %d devices\n", ndev);
    return 0;
}
