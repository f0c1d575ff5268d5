// Managed memory beyond the tutorial: host writes and kernels alternating, copies with
// cudaMemcpyDefault, memsets, prefetch/advise/attach, pointer attributes, read(2) into managed
// memory, and the errors CUDA gives for bad arguments.
#include <cstring>
#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>
#include "check.h"

__global__ void scale_add(int n, int *a, int k, int c) {
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) a[i] = a[i] * k + c;
}

__global__ void sum_into(int n, const int *a, int *out) {
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) atomicAdd(out, a[i]);
}

int main() {
    const int n = 100000;  // not a multiple of a page: the last page is partly used
    int *a, *total;
    CHECK(cudaMallocManaged(&a, n * sizeof(int)));
    CHECK(cudaMallocManaged(&total, sizeof(int)));

    // 1. alternate host writes and kernels: each round the host changes a few scattered elements
    //    (a page here and there, the last element) and the kernel must see exactly those changes
    for (int i = 0; i < n; i++) a[i] = i;
    long long expect_sum = 0;
    for (int round = 0; round < 5; round++) {
        a[round * 7919] = -round;          // one element in some page
        a[n - 1] = round;                  // the very last element
        scale_add<<<64, 128>>>(n, a, 2, round);
        CHECK(cudaDeviceSynchronize());
        EXPECT(a[n - 1] == round * 2 + round);
        EXPECT(a[round * 7919] == -round * 2 + round);
    }
    // the host's view after the rounds equals a host recomputation
    {
        static int ref[n];
        for (int i = 0; i < n; i++) ref[i] = i;
        for (int round = 0; round < 5; round++) {
            ref[round * 7919] = -round;
            ref[n - 1] = round;
            for (int i = 0; i < n; i++) ref[i] = ref[i] * 2 + round;
        }
        EXPECT(memcmp(ref, a, sizeof ref) == 0);
        for (int i = 0; i < n; i++) expect_sum += ref[i];
    }

    // 2. a kernel reading managed memory into another managed allocation (atomics), read on the host
    *total = 0;
    int small = 1000;
    sum_into<<<8, 128>>>(small, a, total);
    CHECK(cudaStreamSynchronize(0));
    long long s = 0;
    for (int i = 0; i < small; i++) s += a[i];
    EXPECT(*total == (int)s);
    (void)expect_sum;

    // 3. cudaMemcpyDefault between managed, device and host memory
    int *dev, host[256];
    CHECK(cudaMalloc(&dev, 256 * sizeof(int)));
    for (int i = 0; i < 256; i++) a[i] = 1000 + i;                       // host write, then D2D
    CHECK(cudaMemcpy(dev, a, 256 * sizeof(int), cudaMemcpyDefault));
    CHECK(cudaMemcpy(host, dev, 256 * sizeof(int), cudaMemcpyDefault));
    EXPECT(host[0] == 1000 && host[255] == 1255);
    for (int i = 0; i < 256; i++) host[i] = -i;
    CHECK(cudaMemcpy(a + 512, host, 256 * sizeof(int), cudaMemcpyDefault));  // into managed: host sees it
    EXPECT(a[512] == 0 && a[767] == -255);
    CHECK(cudaMemcpy(host, a + 100, 256 * sizeof(int), cudaMemcpyDefault));  // out of managed
    EXPECT(host[0] == a[100] && host[255] == a[355]);
    CHECK(cudaMemcpy(a + 2000, dev, 256 * sizeof(int), cudaMemcpyDeviceToDevice));
    EXPECT(a[2000] == 1000 && a[2255] == 1255);
    // managed memory named as host memory: the copy is ordered after the kernel, with no
    // synchronisation in between, and must see what the kernel wrote
    scale_add<<<4, 64>>>(256, a, 1, 1);                                    // a[i] = 1001 + i
    CHECK(cudaMemcpy(dev, a, 256 * sizeof(int), cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(host, dev, 256 * sizeof(int), cudaMemcpyDeviceToHost));
    EXPECT(host[0] == 1001 && host[255] == 1256);
    CHECK(cudaMemcpy(a + 3000, dev, 256 * sizeof(int), cudaMemcpyDeviceToHost));
    EXPECT(a[3000] == 1001 && a[3255] == 1256);

    // 4. memset of managed memory, seen on the host after a synchronisation
    CHECK(cudaMemsetAsync(a, 0, 4096 * sizeof(int)));
    CHECK(cudaDeviceSynchronize());
    EXPECT(a[0] == 0 && a[4095] == 0 && a[4096] != 0);
    CHECK(cudaMemset(a, 0xff, 16 * sizeof(int)));  // a blocking memset, read at once
    EXPECT(a[0] == -1 && a[15] == -1 && a[16] == 0);

    // 5. prefetch, advise, attach: accepted for managed memory, refused for anything else
    cudaMemLocation gpu = {cudaMemLocationTypeDevice, 0}, cpu = {cudaMemLocationTypeHost, 0};
    for (int i = 0; i < n; i++) a[i] = 3;
    CHECK(cudaMemAdvise(a, n * sizeof(int), cudaMemAdviseSetPreferredLocation, gpu));
    CHECK(cudaMemAdvise(a, n * sizeof(int), cudaMemAdviseSetReadMostly, gpu));
    CHECK(cudaMemPrefetchAsync(a, n * sizeof(int), gpu, 0, 0));
    scale_add<<<64, 128>>>(n, a, 3, 1);
    CHECK(cudaMemPrefetchAsync(a, n * sizeof(int), cpu, 0, 0));
    CHECK(cudaStreamSynchronize(0));
    EXPECT(a[0] == 10 && a[n - 1] == 10);
    cudaStream_t st;
    CHECK(cudaStreamCreate(&st));
    CHECK(cudaStreamAttachMemAsync(st, a, n * sizeof(int), cudaMemAttachSingle));
    scale_add<<<64, 128, 0, st>>>(n, a, 1, 5);
    CHECK(cudaStreamSynchronize(st));
    EXPECT(a[12345] == 15);
    CHECK(cudaStreamDestroy(st));
    EXPECT(cudaMemPrefetchAsync(dev, 16, gpu, 0, 0) == cudaErrorInvalidValue);
    EXPECT(cudaMemAdvise(host, 16, cudaMemAdviseSetReadMostly, gpu) == cudaErrorInvalidValue);
    EXPECT(cudaMemPrefetchAsync(a, (n + 100000) * sizeof(int), gpu, 0, 0) == cudaErrorInvalidValue);
    EXPECT(cudaStreamAttachMemAsync(0, dev, 0, cudaMemAttachGlobal) == cudaErrorInvalidValue);
    cudaGetLastError();

    // 5b. attached to the host, managed memory is the host's while kernels run: a synchronisation
    //     does not overwrite it; attached to the device again, kernels see what the host wrote
    int *h;
    CHECK(cudaMallocManaged(&h, 4096 * sizeof(int), cudaMemAttachHost));
    scale_add<<<64, 128>>>(n, a, 1, 0);
    for (int i = 0; i < 4096; i++) h[i] = 5;             // legal: h is attached to the host
    CHECK(cudaDeviceSynchronize());
    EXPECT(h[0] == 5 && h[4095] == 5);
    CHECK(cudaStreamAttachMemAsync(0, h, 0, cudaMemAttachGlobal));
    scale_add<<<8, 128>>>(4096, h, 2, 0);
    CHECK(cudaDeviceSynchronize());
    EXPECT(h[0] == 10 && h[4095] == 10);
    scale_add<<<8, 128>>>(4096, h, 1, 1);                 // 11 on the device ...
    CHECK(cudaStreamAttachMemAsync(0, h, 0, cudaMemAttachHost));
    EXPECT(h[0] == 11 && h[4095] == 11);                 // ... brought back when it leaves it
    h[7] = 70;
    CHECK(cudaMemcpy(host, h, 16 * sizeof(int), cudaMemcpyDefault));  // host memory now
    EXPECT(host[7] == 70 && host[0] == 11);
    CHECK(cudaFree(h));

    // 6. pointer attributes
    cudaPointerAttributes pa;
    CHECK(cudaPointerGetAttributes(&pa, a + 10));
    EXPECT(pa.type == cudaMemoryTypeManaged && pa.devicePointer == a + 10 && pa.hostPointer == a + 10);
    CHECK(cudaPointerGetAttributes(&pa, dev));
    EXPECT(pa.type == cudaMemoryTypeDevice);
    CHECK(cudaPointerGetAttributes(&pa, host));
    EXPECT(pa.type == cudaMemoryTypeUnregistered);

    // 7. the kernel writes managed memory on the program's behalf: read(2) from a pipe into it
    int fds[2];
    EXPECT(pipe(fds) == 0);
    int msg[4] = {7, 8, 9, 10};
    EXPECT(write(fds[1], msg, sizeof msg) == (ssize_t)sizeof msg);
    EXPECT(read(fds[0], a + 50000, sizeof msg) == (ssize_t)sizeof msg);
    close(fds[0]);
    close(fds[1]);
    scale_add<<<1, 32>>>(4, a + 50000, 10, 0);
    CHECK(cudaDeviceSynchronize());
    EXPECT(a[50000] == 70 && a[50003] == 100);

    // 8. bad arguments
    void *p = nullptr;
    EXPECT(cudaMallocManaged(&p, 0) == cudaErrorInvalidValue);
    EXPECT(cudaMallocManaged(&p, 64, 7) == cudaErrorInvalidValue);
    cudaGetLastError();

    // 9. the address of a freed managed allocation is taken by the host (a server's driver chooses
    //    addresses in its own address space: on an H200 it gave one this process was using): the next
    //    allocation that would land there lands elsewhere and works, the host's page stays the
    //    host's, and the refused address is given back on the device
    int *q;
    CHECK(cudaMallocManaged(&q, 1 << 16));
    void *where = q;
    CHECK(cudaFree(q));
    void *taken = mmap(where, 1 << 16, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0);
    EXPECT(taken == where);
    *(volatile int *)taken = 42;
    size_t free_before, free_after, total_mem;
    CHECK(cudaMemGetInfo(&free_before, &total_mem));
    cudaError_t e = cudaMallocManaged(&q, 1 << 16);
    printf("taken range: %s, %s\n", cudaGetErrorName(e), (void *)q == where ? "same address" : "elsewhere");
    EXPECT(e == cudaSuccess && (void *)q != where);
    scale_add<<<1, 256>>>(256, q, 1, 5);  // a new allocation starts zeroed
    CHECK(cudaDeviceSynchronize());
    for (int i = 0; i < 256; i++) EXPECT(q[i] == 5);
    EXPECT(*(volatile int *)taken == 42);
    CHECK(cudaFree(q));
    CHECK(cudaMemGetInfo(&free_after, &total_mem));
    EXPECT(free_after == free_before);
    munmap(taken, 1 << 16);

    CHECK(cudaFree(dev));
    CHECK(cudaFree(a));
    CHECK(cudaFree(total));

    // 10. cudaDeviceReset frees managed memory too: the host range is given back with it
    int *r;
    CHECK(cudaMallocManaged(&r, 1 << 16));
    r[0] = 1;
    CHECK(cudaDeviceReset());
    CHECK(cudaPointerGetAttributes(&pa, r));
    EXPECT(pa.type == cudaMemoryTypeUnregistered);
    void *again = mmap(r, 1 << 16, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0);
    EXPECT(again == (void *)r);
    munmap(again, 1 << 16);

    // 11. the last managed allocation freed while device work on it is outstanding: the next one
    //     starts clean, and the host's writes to it reach the device
    int *x, *y;
    CHECK(cudaMallocManaged(&x, 4096 * sizeof(int)));
    scale_add<<<4, 128>>>(4096, x, 1, 1);
    CHECK(cudaFree(x));
    CHECK(cudaMallocManaged(&y, 4096 * sizeof(int)));
    for (int i = 0; i < 4096; i++) y[i] = i;
    scale_add<<<4, 128>>>(4096, y, 3, 0);
    CHECK(cudaDeviceSynchronize());
    EXPECT(y[1] == 3 && y[4095] == 3 * 4095);
    CHECK(cudaFree(y));
    printf("OK managed_coherence\n");
    return 0;
}
