// Device queries through the Runtime API, as deviceQuery-style tools do.
#include <cstring>
#include <cuda_runtime.h>
#include "check.h"

int main() {
    int n = 0, rt = 0, drv = 0, dev = -1;
    CHECK(cudaGetDeviceCount(&n));
    CHECK(cudaRuntimeGetVersion(&rt));
    CHECK(cudaDriverGetVersion(&drv));
    printf("devices %d runtime %d driver %d\n", n, rt, drv);
    for (int i = 0; i < n; i++) {
        cudaDeviceProp p;
        CHECK(cudaSetDevice(i));
        CHECK(cudaGetDevice(&dev));
        EXPECT(dev == i);
        CHECK(cudaGetDeviceProperties(&p, i));
        int sms = 0, warp = 0, major = 0;
        CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, i));
        CHECK(cudaDeviceGetAttribute(&warp, cudaDevAttrWarpSize, i));
        CHECK(cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, i));
        EXPECT(sms == p.multiProcessorCount && warp == p.warpSize && major == p.major);
        size_t free_b = 0, total_b = 0;
        CHECK(cudaMemGetInfo(&free_b, &total_b));
        EXPECT(total_b == p.totalGlobalMem && free_b <= total_b);
        // its PCI location: one per device, the same in the attributes, the properties and the bus id,
        // and the bus id finds the device
        char bus[32] = {0};
        int by_bus = -1, pci_bus = -1;
        CHECK(cudaDeviceGetPCIBusId(bus, sizeof bus, i));
        CHECK(cudaDeviceGetByPCIBusId(&by_bus, bus));
        CHECK(cudaDeviceGetAttribute(&pci_bus, cudaDevAttrPciBusId, i));
        unsigned dom_v, bus_v, dev_v, fn_v;
        EXPECT(sscanf(bus, "%x:%x:%x.%x", &dom_v, &bus_v, &dev_v, &fn_v) == 4);
        EXPECT(by_bus == i && (int)bus_v == pci_bus && pci_bus == p.pciBusID && (int)dom_v == p.pciDomainID);
        for (int j = 0; j < i; j++) {
            char other[32] = {0};
            CHECK(cudaDeviceGetPCIBusId(other, sizeof other, j));
            EXPECT(strcmp(other, bus) != 0);
        }
        printf("device %d: %s sm_%d%d sms %d warp %d maxThreads %d mem %zu free %zu\n", i, p.name, p.major, p.minor,
               p.multiProcessorCount, p.warpSize, p.maxThreadsPerBlock, (size_t)p.totalGlobalMem, free_b);
    }
    // cudaChooseDevice: the closest compute capability at or above the one asked, else the highest
    int low = 0, high = 0, chosen = -1;
    for (int i = 1; i < n; i++) {
        cudaDeviceProp a, l, h;
        CHECK(cudaGetDeviceProperties(&a, i));
        CHECK(cudaGetDeviceProperties(&l, low));
        CHECK(cudaGetDeviceProperties(&h, high));
        if (a.major * 1000 + a.minor < l.major * 1000 + l.minor) low = i;
        if (a.major * 1000 + a.minor > h.major * 1000 + h.minor) high = i;
    }
    cudaDeviceProp want;
    memset(&want, 0, sizeof want);
    want.major = 1;
    CHECK(cudaChooseDevice(&chosen, &want));
    EXPECT(chosen == low);
    want.major = 99;
    CHECK(cudaChooseDevice(&chosen, &want));
    EXPECT(chosen == high);
    EXPECT(cudaChooseDevice(&chosen, nullptr) == cudaErrorInvalidValue);
    cudaGetLastError();
    printf("chose %d %d\n", low, high);
    int none = -1;
    EXPECT(cudaDeviceGetByPCIBusId(&none, "0000:7f:00.0") == cudaErrorInvalidDevice);
    EXPECT(cudaDeviceGetByPCIBusId(&none, "not a bus id") == cudaErrorInvalidValue);
    cudaGetLastError();
    EXPECT(cudaSetDevice(n) == cudaErrorInvalidDevice);
    EXPECT(cudaGetLastError() == cudaErrorInvalidDevice);
    EXPECT(cudaGetLastError() == cudaSuccess);
    int least = 0, greatest = 0;
    CHECK(cudaSetDevice(0));
    CHECK(cudaDeviceGetStreamPriorityRange(&least, &greatest));
    EXPECT(greatest < least);
    CHECK(cudaDeviceSynchronize());
    CHECK(cudaDeviceReset());
    printf("OK device_query\n");
    return 0;
}
