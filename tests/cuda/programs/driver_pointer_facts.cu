// The pointer attributes communication libraries lean on (UCX, Open MPI, libfabric, cuda-python's own
// tests): SYNC_MEMOPS set and read back per allocation; BUFFER_ID unique for the process's life, so
// an allocation made at a freed one's address is told apart; the pool an allocation came from;
// whether cudaIpcGetMemHandle takes it; the cuMemMap mapping that holds a pointer. Bad requests
// (another attribute to set, no value, host memory CUDA does not know, an attribute that does not
// exist) are refused with invalid-value and the session carries on.
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <cuda.h>
#include "driver_check.h"

static unsigned u32(CUpointer_attribute a, CUdeviceptr p, CUresult *rc) {
    unsigned v = 77;
    *rc = cuPointerGetAttribute(&v, a, p);
    return v;
}

#define ATTR32(a, p, want)                                                                         \
    do {                                                                                           \
        CUresult rc_;                                                                              \
        unsigned got_ = u32(a, p, &rc_);                                                           \
        CK(rc_);                                                                                   \
        if (got_ != (unsigned)(want)) {                                                            \
            printf("FAIL %s:%d %s reads %u, not %u\n", __FILE__, __LINE__, #a, got_, (unsigned)(want)); \
            return 1;                                                                              \
        }                                                                                          \
    } while (0)

static unsigned long long buffer_id(CUdeviceptr p) {
    unsigned long long id = 0;
    if (cuPointerGetAttribute(&id, CU_POINTER_ATTRIBUTE_BUFFER_ID, p) != CUDA_SUCCESS) return 0;
    return id;
}

static CUresult set_sync(CUdeviceptr p, unsigned v) {
    return cuPointerSetAttribute(&v, CU_POINTER_ATTRIBUTE_SYNC_MEMOPS, p);
}

int main() {
    CK(cuInit(0));
    CUdevice dev;
    CUcontext ctx;
    CK(cuDeviceGet(&dev, 0));
    CK(cuDevicePrimaryCtxRetain(&ctx, dev));
    CK(cuCtxSetCurrent(ctx));
    CUstream s;
    CK(cuStreamCreate(&s, CU_STREAM_NON_BLOCKING));

    // SYNC_MEMOPS: set on the allocation, read through any pointer into it, per allocation
    CUdeviceptr d, other;
    CK(cuMemAlloc(&d, 1 << 16));
    CK(cuMemAlloc(&other, 4096));
    ATTR32(CU_POINTER_ATTRIBUTE_SYNC_MEMOPS, d, 1);  // rgpu's synchronous copies always synchronize
    CK(set_sync(d + 64, 0));
    ATTR32(CU_POINTER_ATTRIBUTE_SYNC_MEMOPS, d, 0);
    ATTR32(CU_POINTER_ATTRIBUTE_SYNC_MEMOPS, d + 4000, 0);
    ATTR32(CU_POINTER_ATTRIBUTE_SYNC_MEMOPS, other, 1);
    CK(set_sync(d, 7));  // any non-zero value sets it
    ATTR32(CU_POINTER_ATTRIBUTE_SYNC_MEMOPS, d, 1);
    CK(set_sync(d, 0));

    // the refusals, each leaving the session as it was
    unsigned one = 1;
    void *plain = malloc(4096);
    EXPECT(cuPointerSetAttribute(&one, CU_POINTER_ATTRIBUTE_MEMORY_TYPE, d) == CUDA_ERROR_INVALID_VALUE);
    EXPECT(cuPointerSetAttribute(nullptr, CU_POINTER_ATTRIBUTE_SYNC_MEMOPS, d) == CUDA_ERROR_INVALID_VALUE);
    EXPECT(cuPointerSetAttribute(&one, CU_POINTER_ATTRIBUTE_SYNC_MEMOPS, (CUdeviceptr)(uintptr_t)plain) ==
           CUDA_ERROR_INVALID_VALUE);
    unsigned junk = 0;
    EXPECT(cuPointerGetAttribute(&junk, (CUpointer_attribute)9999, d) == CUDA_ERROR_INVALID_VALUE);
    CUpointer_attribute bad = (CUpointer_attribute)9999;
    void *bad_data[1] = {&junk};
    EXPECT(cuPointerGetAttributes(1, &bad, bad_data, d) == CUDA_ERROR_INVALID_VALUE);
    ATTR32(CU_POINTER_ATTRIBUTE_SYNC_MEMOPS, d, 0);
    unsigned word = 0x5eed5eed, back = 0;
    CK(cuMemcpyHtoD(d + 8, &word, 4));
    CK(cuMemcpyDtoH(&back, d + 8, 4));
    EXPECT(back == word);

    // BUFFER_ID: stable while the allocation lives, one per allocation, never given again
    unsigned long long id = buffer_id(d), id_other = buffer_id(other);
    EXPECT(id != 0 && id_other != 0 && id != id_other && buffer_id(d + 100) == id);
    CUdeviceptr was = d;
    CK(cuMemFree(d));
    int same_address = 0;
    for (int i = 0; i < 8; i++) {  // an allocation of the same size at the same address, if the allocator gives one
        CK(cuMemAlloc(&d, 1 << 16));
        if (d == was) { same_address = 1; break; }
        CK(cuMemFree(d));
    }
    if (same_address) {
        EXPECT(buffer_id(d) != id && buffer_id(d) != id_other);  // a new allocation: a new id
        ATTR32(CU_POINTER_ATTRIBUTE_SYNC_MEMOPS, d, 1);         // and none of the freed one's flags
    }
    printf("same address again: %d\n", same_address);

    // plain device memory: no pool, exported by the legacy IPC call, its own mapping
    CUmemoryPool pool = (CUmemoryPool)1;
    CK(cuPointerGetAttribute(&pool, CU_POINTER_ATTRIBUTE_MEMPOOL_HANDLE, d));
    EXPECT(pool == nullptr);
    ATTR32(CU_POINTER_ATTRIBUTE_IS_LEGACY_CUDA_IPC_CAPABLE, d, 1);
    CUipcMemHandle ipc;
    CK(cuIpcGetMemHandle(&ipc, d));
    CUdeviceptr range_base = 0, map_base = 0;
    size_t range_size = 0, map_size = 0;
    CK(cuMemGetAddressRange(&range_base, &range_size, d + 10));
    CK(cuPointerGetAttribute(&map_base, CU_POINTER_ATTRIBUTE_MAPPING_BASE_ADDR, d + 10));
    CK(cuPointerGetAttribute(&map_size, CU_POINTER_ATTRIBUTE_MAPPING_SIZE, d + 10));
    EXPECT(map_base == range_base && map_size == range_size && range_base == d);
    size_t attr_size = 0;
    CK(cuPointerGetAttribute(&attr_size, CU_POINTER_ATTRIBUTE_RANGE_SIZE, d + 10));
    EXPECT(attr_size == range_size);
    ATTR32(CU_POINTER_ATTRIBUTE_ALLOWED_HANDLE_TYPES, d, CU_MEM_HANDLE_TYPE_NONE);
    ATTR32(CU_POINTER_ATTRIBUTE_IS_HW_DECOMPRESS_CAPABLE, d, 0);
    ATTR32(CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL, d, 0);

    // pool memory: its pool, the default one or the program's own; not a legacy IPC export
    CUmemoryPool def, mine;
    CK(cuDeviceGetDefaultMemPool(&def, dev));
    CUmemPoolProps props;
    memset(&props, 0, sizeof props);
    props.allocType = CU_MEM_ALLOCATION_TYPE_PINNED;
    props.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
    props.location.id = 0;
    CK(cuMemPoolCreate(&mine, &props));
    CUdeviceptr a, b;
    CK(cuMemAllocAsync(&a, 4096, s));
    CK(cuMemAllocFromPoolAsync(&b, 4096, mine, s));
    CK(cuStreamSynchronize(s));
    CK(cuPointerGetAttribute(&pool, CU_POINTER_ATTRIBUTE_MEMPOOL_HANDLE, a + 1));
    EXPECT(pool == def);
    CK(cuPointerGetAttribute(&pool, CU_POINTER_ATTRIBUTE_MEMPOOL_HANDLE, b));
    EXPECT(pool == mine && mine != def);
    ATTR32(CU_POINTER_ATTRIBUTE_IS_LEGACY_CUDA_IPC_CAPABLE, a, 0);
    EXPECT(cuIpcGetMemHandle(&ipc, a) == CUDA_ERROR_INVALID_VALUE);  // as the attribute said
    unsigned long long id_a = buffer_id(a);
    CK(cuMemFreeAsync(a, s));
    CK(cuMemFreeAsync(b, s));
    CK(cuStreamSynchronize(s));
    CK(cuMemAllocAsync(&a, 4096, s));
    CK(cuStreamSynchronize(s));
    EXPECT(buffer_id(a) != id_a);  // a pool's new allocation, wherever it lands
    CK(cuMemFreeAsync(a, s));
    CK(cuStreamSynchronize(s));
    CK(cuMemPoolDestroy(mine));

    // managed memory: its own flags, no pool, no legacy export
    CUdeviceptr m;
    CK(cuMemAllocManaged(&m, 8192, CU_MEM_ATTACH_GLOBAL));
    for (unsigned v = 0; v < 2; v++) {  // cuda-python's test sets False, then True, and reads each back
        CK(set_sync(m, v));
        ATTR32(CU_POINTER_ATTRIBUTE_SYNC_MEMOPS, m, v);
    }
    ATTR32(CU_POINTER_ATTRIBUTE_IS_LEGACY_CUDA_IPC_CAPABLE, m, 0);
    CK(cuPointerGetAttribute(&pool, CU_POINTER_ATTRIBUTE_MEMPOOL_HANDLE, m));
    EXPECT(pool == nullptr);

    // pinned host memory: settable too, its own mapping
    void *pinned;
    CK(cuMemHostAlloc(&pinned, 8192, 0));
    CUdeviceptr hp = (CUdeviceptr)(uintptr_t)pinned;
    CK(set_sync(hp + 16, 0));
    ATTR32(CU_POINTER_ATTRIBUTE_SYNC_MEMOPS, hp, 0);
    ATTR32(CU_POINTER_ATTRIBUTE_IS_LEGACY_CUDA_IPC_CAPABLE, hp, 0);
    CK(cuPointerGetAttribute(&map_base, CU_POINTER_ATTRIBUTE_MAPPING_BASE_ADDR, hp + 16));
    EXPECT(map_base == hp);

    // a cuMemMap mapping: the one holding the pointer, not the reservation
    CUmemAllocationProp vp;
    memset(&vp, 0, sizeof vp);
    vp.type = CU_MEM_ALLOCATION_TYPE_PINNED;
    vp.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
    vp.location.id = 0;
    size_t gran = 0;
    CK(cuMemGetAllocationGranularity(&gran, &vp, CU_MEM_ALLOC_GRANULARITY_MINIMUM));
    CUdeviceptr va;
    CK(cuMemAddressReserve(&va, 2 * gran, 0, 0, 0));
    CUmemGenericAllocationHandle h1, h2;
    CK(cuMemCreate(&h1, gran, &vp, 0));
    CK(cuMemCreate(&h2, gran, &vp, 0));
    CK(cuMemMap(va, gran, 0, h1, 0));
    CK(cuMemMap(va + gran, gran, 0, h2, 0));
    CUmemAccessDesc acc;
    memset(&acc, 0, sizeof acc);
    acc.location = vp.location;
    acc.flags = CU_MEM_ACCESS_FLAGS_PROT_READWRITE;
    CK(cuMemSetAccess(va, 2 * gran, &acc, 1));
    CK(cuPointerGetAttribute(&map_base, CU_POINTER_ATTRIBUTE_MAPPING_BASE_ADDR, va + gran + 5));
    CK(cuPointerGetAttribute(&map_size, CU_POINTER_ATTRIBUTE_MAPPING_SIZE, va + gran + 5));
    EXPECT(map_base == va + gran && map_size == gran);
    ATTR32(CU_POINTER_ATTRIBUTE_IS_LEGACY_CUDA_IPC_CAPABLE, va, 0);
    CK(cuMemUnmap(va, 2 * gran));
    CK(cuMemRelease(h1));
    CK(cuMemRelease(h2));
    CK(cuMemAddressFree(va, 2 * gran));

    // the list form gives what the single one does
    CUpointer_attribute which[6] = {CU_POINTER_ATTRIBUTE_SYNC_MEMOPS, CU_POINTER_ATTRIBUTE_BUFFER_ID,
                                    CU_POINTER_ATTRIBUTE_IS_LEGACY_CUDA_IPC_CAPABLE,
                                    CU_POINTER_ATTRIBUTE_MEMPOOL_HANDLE, CU_POINTER_ATTRIBUTE_MAPPING_SIZE,
                                    CU_POINTER_ATTRIBUTE_ALLOWED_HANDLE_TYPES};
    unsigned sync = 9, legacy = 9, types = 9;
    unsigned long long lid = 0;
    size_t msize = 0;
    pool = (CUmemoryPool)1;
    void *data[6] = {&sync, &lid, &legacy, &pool, &msize, &types};
    CK(cuPointerGetAttributes(6, which, data, other));
    EXPECT(sync == 1 && lid == id_other && legacy == 1 && pool == nullptr && msize >= 4096 && types == 0);

    CK(cuMemFree(m));
    CK(cuMemFreeHost(pinned));
    CK(cuMemFree(d));
    CK(cuMemFree(other));
    CK(cuStreamDestroy(s));
    free(plain);
    CK(cuDevicePrimaryCtxRelease(dev));
    printf("OK driver_pointer_facts\n");
    return 0;
}
