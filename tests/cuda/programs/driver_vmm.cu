// A growable buffer the way PyTorch's expandable segments build one: address space reserved once,
// physical memory created and mapped onto its end as the buffer grows, the runtime's kernels and
// copies on it across mappings, then shrunk and given back. Mixes the Driver API's VMM calls with
// the Runtime (launches, copies, cudaMemGetInfo) in one process, as frameworks do.
//   driver_vmm [copy]   copy: the values go in by one host-to-device copy across the mappings
//                       instead of a kernel (for a driver that runs no kernel: the null driver)
#include <algorithm>
#include <cstdio>
#include <cstring>
#include <vector>
#include <cuda.h>
#include <cuda_runtime.h>
#include "driver_check.h"

__global__ void fill(unsigned *p, size_t n) {
    size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    if (i < n) p[i] = (unsigned)(i * 2654435761u);
}

int main(int argc, char **argv) {
    const bool by_copy = argc > 1 && !strcmp(argv[1], "copy");
    EXPECT(cudaFree(0) == cudaSuccess);
    int vmm = 0;
    CK(cuDeviceGetAttribute(&vmm, CU_DEVICE_ATTRIBUTE_VIRTUAL_MEMORY_MANAGEMENT_SUPPORTED, 0));
    EXPECT(vmm == 1);  // frameworks ask before they use the VMM calls
    CUmemAllocationProp prop = {};
    prop.type = CU_MEM_ALLOCATION_TYPE_PINNED;
    prop.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
    prop.location.id = 0;
    size_t g = 0;
    CK(cuMemGetAllocationGranularity(&g, &prop, CU_MEM_ALLOC_GRANULARITY_MINIMUM));
    EXPECT(g > 0);
    size_t free0 = 0, total = 0, free1 = 0, free2 = 0;
    EXPECT(cudaMemGetInfo(&free0, &total) == cudaSuccess);

    CUdeviceptr va = 0;
    CK(cuMemAddressReserve(&va, 8 * g, 0, 0, 0));
    CUmemGenericAllocationHandle h[3];
    CUmemAccessDesc access = {};
    access.location = prop.location;
    access.flags = CU_MEM_ACCESS_FLAGS_PROT_READWRITE;
    for (int i = 0; i < 3; i++) {  // grow by one granule at a time
        CK(cuMemCreate(&h[i], g, &prop, 0));
        CK(cuMemMap(va + i * g, g, 0, h[i], 0));
        CK(cuMemSetAccess(va + i * g, g, &access, 1));
    }
    EXPECT(cudaMemGetInfo(&free1, &total) == cudaSuccess);
    EXPECT(free1 + 3 * g == free0);  // physical memory counts; the reservation does not

    // one kernel (or one copy) over all three mappings, then one copy of all of it back
    size_t n = 3 * g / sizeof(unsigned);
    std::vector<unsigned> host(n);
    if (by_copy) {
        for (size_t i = 0; i < n; i++) host[i] = (unsigned)(i * 2654435761u);
        EXPECT(cudaMemcpy((void *)va, host.data(), 3 * g, cudaMemcpyHostToDevice) == cudaSuccess);
        std::fill(host.begin(), host.end(), 0u);
    } else {
        fill<<<(unsigned)((n + 255) / 256), 256>>>((unsigned *)va, n);
        EXPECT(cudaDeviceSynchronize() == cudaSuccess);
    }
    EXPECT(cudaMemcpy(host.data(), (void *)va, 3 * g, cudaMemcpyDeviceToHost) == cudaSuccess);
    for (size_t i = 0; i < n; i++)
        if (host[i] != (unsigned)(i * 2654435761u)) { printf("FAIL element %zu = %u\n", i, host[i]); return 1; }

    unsigned long long flags = 0;
    CK(cuMemGetAccess(&flags, &prop.location, va + g + 4));
    EXPECT(flags == CU_MEM_ACCESS_FLAGS_PROT_READWRITE);
    CUmemGenericAllocationHandle again = 0;
    CK(cuMemRetainAllocationHandle(&again, (void *)(va + g + 17)));
    EXPECT(again == h[1]);
    CK(cuMemRelease(again));
    CUmemAllocationProp got = {};
    CK(cuMemGetAllocationPropertiesFromHandle(&got, h[2]));
    EXPECT(got.type == CU_MEM_ALLOCATION_TYPE_PINNED && got.location.type == CU_MEM_LOCATION_TYPE_DEVICE);

    // CUDA's refusals: a range freed while mapped, a mapping over a mapping
    EXPECT(cuMemAddressFree(va, 8 * g) != CUDA_SUCCESS);
    EXPECT(cuMemMap(va, g, 0, h[2], 0) != CUDA_SUCCESS);

    // shrink: everything unmapped in one call, released, the range freed; the memory comes back
    CK(cuMemUnmap(va, 3 * g));
    for (int i = 0; i < 3; i++) CK(cuMemRelease(h[i]));
    CK(cuMemAddressFree(va, 8 * g));
    EXPECT(cudaMemGetInfo(&free2, &total) == cudaSuccess);
    EXPECT(free2 == free0);
    printf("OK driver_vmm granularity %zu\n", g);
    return 0;
}
