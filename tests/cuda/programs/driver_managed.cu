// Managed memory through the Driver API: cuMemAllocManaged, pointer attributes, memsets and copies
// seen on the host after a synchronisation, prefetch/advise (one range, and batched with discards as
// CUDA 13 has them) and what they set read back (cuMemRangeGetAttribute(s)), cuMemFree.
#include <cstring>
#include <cuda.h>
#include <cstdio>

#include "driver_check.h"

int main() {
    CK(cuInit(0));
    CUdevice dev;
    CK(cuDeviceGet(&dev, 0));
    CUcontext ctx;
    CK(cuDevicePrimaryCtxRetain(&ctx, dev));
    CK(cuCtxSetCurrent(ctx));
    int managed = 0, concurrent = -1;
    CK(cuDeviceGetAttribute(&managed, CU_DEVICE_ATTRIBUTE_MANAGED_MEMORY, dev));
    CK(cuDeviceGetAttribute(&concurrent, CU_DEVICE_ATTRIBUTE_CONCURRENT_MANAGED_ACCESS, dev));
    EXPECT(managed == 1 && concurrent == 0);

    const size_t n = 50000;
    CUdeviceptr m, d;
    CK(cuMemAllocManaged(&m, n * sizeof(unsigned), CU_MEM_ATTACH_GLOBAL));
    CK(cuMemAlloc(&d, n * sizeof(unsigned)));
    unsigned *h = (unsigned *)m;
    for (size_t i = 0; i < n; i++) h[i] = (unsigned)i;

    unsigned is_managed = 0, type = 0;
    CK(cuPointerGetAttribute(&is_managed, CU_POINTER_ATTRIBUTE_IS_MANAGED, m + 64));
    CK(cuPointerGetAttribute(&type, CU_POINTER_ATTRIBUTE_MEMORY_TYPE, m));
    EXPECT(is_managed == 1 && type == CU_MEMORYTYPE_DEVICE);
    CK(cuPointerGetAttribute(&is_managed, CU_POINTER_ATTRIBUTE_IS_MANAGED, d));
    EXPECT(is_managed == 0);
    void *hp = nullptr;
    CK(cuPointerGetAttribute(&hp, CU_POINTER_ATTRIBUTE_HOST_POINTER, m + 8));
    EXPECT(hp == (void *)(m + 8));
    EXPECT(cuPointerGetAttribute(&hp, CU_POINTER_ATTRIBUTE_HOST_POINTER, d) == CUDA_ERROR_INVALID_VALUE);
    CUdeviceptr start = 0;
    size_t size = 0;
    CK(cuPointerGetAttribute(&start, CU_POINTER_ATTRIBUTE_RANGE_START_ADDR, m + 100));
    CK(cuPointerGetAttribute(&size, CU_POINTER_ATTRIBUTE_RANGE_SIZE, m + 100));
    EXPECT(start == m && size >= n * sizeof(unsigned));
    unsigned local = 0;
    EXPECT(cuPointerGetAttribute(&is_managed, CU_POINTER_ATTRIBUTE_IS_MANAGED, (CUdeviceptr)&local) ==
           CUDA_ERROR_INVALID_VALUE);
    CUpointer_attribute attrs[2] = {CU_POINTER_ATTRIBUTE_IS_MANAGED, CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL};
    int ordinal = 7;
    unsigned flag = 9;
    void *data[2] = {&flag, &ordinal};
    CK(cuPointerGetAttributes(2, attrs, data, m));
    EXPECT(flag == 1 && ordinal == 0);
    CK(cuPointerGetAttributes(2, attrs, data, (CUdeviceptr)&local));
    EXPECT(flag == 0 && ordinal == -2);

    // host writes reach the device; device writes reach the host after a synchronisation
    CK(cuMemcpy(d, m, n * sizeof(unsigned)));
    unsigned back[4];
    CK(cuMemcpyDtoH(back, d + (n - 4) * sizeof(unsigned), sizeof back));
    EXPECT(back[3] == n - 1);
    CK(cuMemsetD32(m, 0xabcd, 1000));
    CK(cuCtxSynchronize());
    EXPECT(h[0] == 0xabcd && h[999] == 0xabcd && h[1000] == 1000);
    h[5] = 555;
    CK(cuMemcpyDtoH(back, m, sizeof back * 2));  // reads the host's write through the device
    EXPECT(back[0] == 0xabcd);
    unsigned eight[8];
    CK(cuMemcpyDtoH(eight, m, sizeof eight));
    EXPECT(eight[5] == 555);

    // a device-to-host copy into managed memory lands in its device copy and reads on the host at once
    CUdeviceptr m2;
    CK(cuMemAllocManaged(&m2, 4096, CU_MEM_ATTACH_GLOBAL));
    CK(cuMemsetD32(d, 0x1234, 16));
    CK(cuMemcpyDtoH((void *)m2, d, 64));
    EXPECT(((unsigned *)m2)[0] == 0x1234 && ((unsigned *)m2)[15] == 0x1234);
    ((unsigned *)m2)[1] = 42;
    CK(cuMemcpyHtoD(d, (const void *)m2, 8));
    CK(cuMemcpyDtoH(back, d, 8));
    EXPECT(back[0] == 0x1234 && back[1] == 42);
    CK(cuMemFree(m2));

    CUmemLocation gpu = {CU_MEM_LOCATION_TYPE_DEVICE, 0}, cpu = {CU_MEM_LOCATION_TYPE_HOST, 0};
    CK(cuMemAdvise(m, n * sizeof(unsigned), CU_MEM_ADVISE_SET_ACCESSED_BY, gpu));
    CK(cuMemPrefetchAsync(m, n * sizeof(unsigned), gpu, 0, 0));
    CK(cuMemsetD32Async(m + 4000, 7, 10, 0));
    CK(cuMemPrefetchAsync(m, n * sizeof(unsigned), cpu, 0, 0));
    CK(cuStreamSynchronize(0));
    EXPECT(h[1000] == 7 && h[1009] == 7 && h[1010] == 1010);
    EXPECT(cuMemPrefetchAsync(d, 16, gpu, 0, 0) == CUDA_ERROR_INVALID_VALUE);

    // batched prefetches and discards (CUDA 13): two ranges in two location runs, then discarded
    h[2000] = 2222;
    CUdeviceptr ranges[2] = {m + 8000, m};
    size_t lens[2] = {64, n * sizeof(unsigned)}, runs[2] = {0, 1}, bad_runs[2] = {1, 1};
    CUmemLocation locs[2] = {gpu, cpu};
    CK(cuMemPrefetchBatchAsync(ranges, lens, 2, locs, runs, 2, 0, 0));
    CK(cuMemsetD32Async(m + 4000, 8, 2, 0));
    CK(cuMemPrefetchBatchAsync(ranges + 1, lens + 1, 1, locs + 1, runs, 1, 0, 0));
    CK(cuStreamSynchronize(0));
    EXPECT(h[2000] == 2222 && h[1000] == 8 && h[1001] == 8 && h[1002] == 7);
    CK(cuMemDiscardBatchAsync(ranges, lens, 1, 0, 0));
    CK(cuMemDiscardAndPrefetchBatchAsync(ranges, lens, 1, locs, runs, 1, 0, 0));
    h[2000] = 3;  // discarded memory is the program's to write again
    CK(cuMemcpyDtoH(back, m + 8000, 4));
    EXPECT(back[0] == 3);
    CUdeviceptr plain[1] = {d};
    EXPECT(cuMemPrefetchBatchAsync(plain, lens, 1, locs, runs, 1, 0, 0) == CUDA_ERROR_INVALID_VALUE);
    EXPECT(cuMemPrefetchBatchAsync(ranges, lens, 2, locs, bad_runs, 2, 0, 0) == CUDA_ERROR_INVALID_VALUE);
    EXPECT(cuMemDiscardBatchAsync(ranges, lens, 1, 1, 0) == CUDA_ERROR_INVALID_VALUE);  // flags must be 0

    // what was advised and prefetched, read back per range
    int v = -9, by[3] = {0, 0, 0};
    CK(cuMemAdvise(m, 8192, CU_MEM_ADVISE_SET_READ_MOSTLY, gpu));
    CK(cuMemRangeGetAttribute(&v, 4, CU_MEM_RANGE_ATTRIBUTE_READ_MOSTLY, m, 8192));
    EXPECT(v == 1);
    CK(cuMemRangeGetAttribute(&v, 4, CU_MEM_RANGE_ATTRIBUTE_READ_MOSTLY, m, 16384));
    EXPECT(v == 0);  // half of it is not
    CK(cuMemAdvise(m, n * sizeof(unsigned), CU_MEM_ADVISE_SET_PREFERRED_LOCATION, cpu));
    CK(cuMemRangeGetAttribute(&v, 4, CU_MEM_RANGE_ATTRIBUTE_PREFERRED_LOCATION, m, 4096));
    EXPECT(v == CU_DEVICE_CPU);
    CK(cuMemRangeGetAttribute(by, sizeof by, CU_MEM_RANGE_ATTRIBUTE_ACCESSED_BY, m, 4096));
    EXPECT(by[0] == 0 && by[1] == CU_DEVICE_INVALID && by[2] == CU_DEVICE_INVALID);  // the GPU, advised above
    CK(cuMemPrefetchAsync(m + 8192, 4096, gpu, 0, 0));
    int last = -9, kind = -9;
    void *out[2] = {&last, &kind};
    size_t sizes4[2] = {4, 4};
    CUmem_range_attribute asked[2] = {CU_MEM_RANGE_ATTRIBUTE_LAST_PREFETCH_LOCATION,
                                      CU_MEM_RANGE_ATTRIBUTE_LAST_PREFETCH_LOCATION_TYPE};
    CK(cuMemRangeGetAttributes(out, sizes4, asked, 2, m + 8192, 4096));
    EXPECT(last == 0 && kind == CU_MEM_LOCATION_TYPE_DEVICE);
    CK(cuMemRangeGetAttributes(out, sizes4, asked, 2, m, 4096));
    EXPECT(last == CU_DEVICE_CPU && kind == CU_MEM_LOCATION_TYPE_HOST);  // the batch's prefetch to the host
    CK(cuMemRangeGetAttribute(&v, 4, CU_MEM_RANGE_ATTRIBUTE_LAST_PREFETCH_LOCATION, m, 16384));
    EXPECT(v == CU_DEVICE_INVALID);  // mixed
    EXPECT(cuMemRangeGetAttribute(&v, 4, CU_MEM_RANGE_ATTRIBUTE_READ_MOSTLY, d, 16) == CUDA_ERROR_INVALID_VALUE);
    EXPECT(cuMemRangeGetAttribute(&v, 3, CU_MEM_RANGE_ATTRIBUTE_READ_MOSTLY, m, 16) == CUDA_ERROR_INVALID_VALUE);

    CK(cuMemFree(m));
    CK(cuMemFree(d));
    EXPECT(cuMemFree(m) == CUDA_ERROR_INVALID_VALUE);
    printf("OK driver_managed\n");
    return 0;
}
