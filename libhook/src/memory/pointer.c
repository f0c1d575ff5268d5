/* Pointer attributes. cudaPointerGetAttributes answers pinned host memory and the program's own
 * device allocations itself, from the address registry (addresses.c), and asks the servers about the
 * rest — the current device's first, then the others', since with unified addressing a pointer names
 * its device whatever device is current — and reports the device as the program numbers it. The
 * Driver's cuPointerGetAttribute/s are answered from it, plus cuMemGetAddressRange for the range
 * attributes, rgpuPointerFacts for what only the server knows (the pool, IPC, the mapping), and the
 * registry for what the program set or was told (SYNC_MEMOPS, BUFFER_ID). */
#include <stdint.h>
#include <string.h>

#include "rgpu_call.h"

extern int rgpu_pinned(const void *p, unsigned *flags);
extern int rgpu_pinned_range(const void *p, CUdeviceptr *base, size_t *size);
extern int rgpu_pinned_device_address(const void *p, uint64_t *out);

#define MEM_UNREGISTERED cudaMemoryTypeUnregistered
#define MEM_HOST cudaMemoryTypeHost
#define MEM_DEVICE cudaMemoryTypeDevice
#define MEM_MANAGED cudaMemoryTypeManaged
#define ATTR_CONTEXT CU_POINTER_ATTRIBUTE_CONTEXT
#define ATTR_MEMORY_TYPE CU_POINTER_ATTRIBUTE_MEMORY_TYPE
#define ATTR_DEVICE_POINTER CU_POINTER_ATTRIBUTE_DEVICE_POINTER
#define ATTR_HOST_POINTER CU_POINTER_ATTRIBUTE_HOST_POINTER
#define ATTR_SYNC_MEMOPS CU_POINTER_ATTRIBUTE_SYNC_MEMOPS
#define ATTR_BUFFER_ID CU_POINTER_ATTRIBUTE_BUFFER_ID
#define ATTR_IS_MANAGED CU_POINTER_ATTRIBUTE_IS_MANAGED
#define ATTR_DEVICE_ORDINAL CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL
#define ATTR_RANGE_START_ADDR CU_POINTER_ATTRIBUTE_RANGE_START_ADDR
#define ATTR_RANGE_SIZE CU_POINTER_ATTRIBUTE_RANGE_SIZE
#define ATTR_MAPPED CU_POINTER_ATTRIBUTE_MAPPED
#define ATTR_ACCESS_FLAGS CU_POINTER_ATTRIBUTE_ACCESS_FLAGS
#define ATTR_RDMA CU_POINTER_ATTRIBUTE_IS_GPU_DIRECT_RDMA_CAPABLE
#define ATTR_BLOCK_ID CU_POINTER_ATTRIBUTE_MEMORY_BLOCK_ID
#define ATTR_P2P_TOKENS CU_POINTER_ATTRIBUTE_P2P_TOKENS
#define ATTR_LEGACY_IPC CU_POINTER_ATTRIBUTE_IS_LEGACY_CUDA_IPC_CAPABLE
#define ATTR_HANDLE_TYPES CU_POINTER_ATTRIBUTE_ALLOWED_HANDLE_TYPES
#define ATTR_MEMPOOL CU_POINTER_ATTRIBUTE_MEMPOOL_HANDLE
#define ATTR_MAPPING_SIZE CU_POINTER_ATTRIBUTE_MAPPING_SIZE
#define ATTR_MAPPING_BASE CU_POINTER_ATTRIBUTE_MAPPING_BASE_ADDR
#define ATTR_DECOMPRESS CU_POINTER_ATTRIBUTE_IS_HW_DECOMPRESS_CAPABLE

typedef struct cudaPointerAttributes ptr_attrs;

/* What the server of device dev says of ptr. */
static int ask(int dev, const void *ptr, ptr_attrs *a) {
    rgpu_call c;
    rgpu_wire_cudaPointerGetAttributes(&c, (uint64_t)(uintptr_t)ptr);
    c.dev = dev;
    int rc = rgpu_sync(&c);
    if (rc == 0) rgpu_wire_out_cudaPointerGetAttributes(&c, a, sizeof *a);
    rgpu_end(&c);
    return rc;
}

cudaError_t cudaPointerGetAttributes(struct cudaPointerAttributes *attributes, const void *ptr) {
    if (!attributes) return rgpu_invalid_value(RGPU_RUNTIME);
    int rc = rgpu_ensure_init();
    if (rc) return rgpu_record(RGPU_RUNTIME, rc);
    ptr_attrs a;
    memset(&a, 0, sizeof a);
    int cur = rgpu_current_device(), n = rgpu_device_count();
    rgpu_addr r; /* the registry's answer (addresses.c); managed memory is its server's to describe */
    rgpu_addr_of(ptr, 1, &r);
    if (r.kind == RGPU_ADDR_PINNED) {
        a.type = MEM_HOST;
        a.device = cur;
        /* where the device maps it (hostmem.c; the worker's address, not ours), else its own address */
        uint64_t d;
        a.hostPointer = (void *)ptr;
        a.devicePointer = rgpu_pinned_device_address(ptr, &d) == 0 ? (void *)(uintptr_t)d : (void *)ptr;
    } else if (r.kind == RGPU_ADDR_DEVICE) {
        /* the program's own device memory: what its server says of it */
        a.type = MEM_DEVICE;
        a.device = r.dev;
        a.devicePointer = (void *)ptr;
    } else {
        for (int k = 0; k < n; k++) {
            int dev = k == 0 ? cur : (k <= cur ? k - 1 : k);
            ptr_attrs got;
            memset(&got, 0, sizeof got);
            if ((rc = ask(dev, ptr, &got))) return rc;
            if (k == 0) a = got; /* unregistered host memory, unless another device knows it */
            if (got.type == MEM_DEVICE || got.type == MEM_MANAGED) {
                a = got;
                a.device = dev;
                break;
            }
        }
    }
    memcpy(attributes, &a, sizeof a);
    return RGPU_SUCCESS;
}

static int query(uint64_t ptr, ptr_attrs *a) {
    memset(a, 0, sizeof *a);
    int rc = cudaPointerGetAttributes(a, (const void *)(uintptr_t)ptr);
    if (rc) return rc;
    return a->type == MEM_DEVICE || a->type == MEM_MANAGED || a->type == MEM_HOST ? RGPU_SUCCESS : RGPU_INVALID_VALUE;
}

/* The start and size of the allocation (or pinned range) holding ptr, known to be CUDA memory. */
static int range_of(uint64_t ptr, const ptr_attrs *a, CUdeviceptr *base, size_t *size) {
    if (a->type == MEM_HOST) return rgpu_pinned_range((const void *)(uintptr_t)ptr, base, size);
    rgpu_addr r; /* the registry knows the program's own allocations and managed memory: no round trip */
    rgpu_addr_of((const void *)(uintptr_t)ptr, 1, &r);
    if (r.kind == RGPU_ADDR_DEVICE || r.kind == RGPU_ADDR_MANAGED) {
        *base = r.base, *size = r.size;
        return 0;
    }
    return cuMemGetAddressRange_v2(base, size, ptr);
}

/* What only the server of device dev knows of ptr (the contract's record, memory.toml). */
CUresult rgpuPointerFacts(int dev, CUdeviceptr ptr, CUmemoryPool *pool, cuuint64_t *legacy_ipc,
                          cuuint64_t *mapping_base, cuuint64_t *mapping_size) {
    rgpu_call c;
    rgpu_wire_rgpuPointerFacts(&c, ptr);
    c.dev = dev;
    int rc = rgpu_sync(&c);
    if (rc == 0) rgpu_wire_out_rgpuPointerFacts(&c, (void **)pool, legacy_ipc, mapping_base, mapping_size);
    rgpu_end(&c);
    return rc;
}

/* ptr's pool, whether the legacy IPC export takes it, its mapping: the server's answer for device
 * and managed memory; host memory has no pool, is not exported by cudaIpcGetMemHandle, and is its
 * own mapping. */
static int facts(uint64_t ptr, const ptr_attrs *a, CUmemoryPool *pool, cuuint64_t *legacy, cuuint64_t *mbase,
                 cuuint64_t *msize) {
    if (a->type != MEM_HOST) return rgpuPointerFacts(a->device, ptr, pool, legacy, mbase, msize);
    CUdeviceptr b = 0;
    size_t n = 0;
    int rc = rgpu_pinned_range((const void *)(uintptr_t)ptr, &b, &n);
    *pool = NULL, *legacy = 0, *mbase = b, *msize = n;
    return rc;
}

/* One attribute of a pointer known to be CUDA memory; the driver's sizes for each. `many`: asked
 * by cuPointerGetAttributes, where an attribute the memory lacks (device memory's host address)
 * reads as NULL instead of failing the call, as the driver answers it: NVIDIA's cudart asks for the
 * host address of every pointer given to cudaPointerGetAttributes. */
static int one(void *data, int attribute, uint64_t ptr, const ptr_attrs *a, int many) {
    CUdeviceptr base = 0;
    size_t size = 0;
    int rc;
    switch ((int)attribute) {
    case ATTR_CONTEXT: return cuCtxGetCurrent((CUcontext *)data);
    case ATTR_MEMORY_TYPE: /* managed reads as device; pinned host memory (NVIDIA's cudart asks so) as host */
        *(unsigned *)data = a->type == MEM_HOST ? CU_MEMORYTYPE_HOST : CU_MEMORYTYPE_DEVICE;
        return 0;
    case ATTR_DEVICE_POINTER: *(uint64_t *)data = a->type == MEM_HOST ? (uint64_t)(uintptr_t)a->devicePointer : ptr; return 0;
    case ATTR_HOST_POINTER:
        if (a->type == MEM_DEVICE && !many) return RGPU_INVALID_VALUE; /* device memory has no host address */
        *(uint64_t *)data = a->type == MEM_DEVICE ? 0 : ptr;
        return 0;
    case ATTR_SYNC_MEMOPS: /* what the program set (cuPointerSetAttribute), else 1 */
        if ((rc = range_of(ptr, a, &base, &size))) return rc;
        *(unsigned *)data = (unsigned)rgpu_addr_sync_memops(base);
        return 0;
    case ATTR_IS_MANAGED: *(unsigned *)data = a->type == MEM_MANAGED; return 0;
    case ATTR_DEVICE_ORDINAL: *(int *)data = a->device; return 0; /* the allocation's, whichever is current */
    case ATTR_MAPPED: *(unsigned *)data = 1; return 0;
    case ATTR_ACCESS_FLAGS: *(unsigned *)data = CU_POINTER_ATTRIBUTE_ACCESS_FLAG_READWRITE; return 0;
    case ATTR_RDMA: *(unsigned *)data = 0; return 0; /* the GPU is not on this host's PCIe */
    case ATTR_DECOMPRESS: *(unsigned *)data = 0; return 0; /* the decompression engine is not served */
    /* no shareable OS handle crosses to another host: cuMemExportToShareableHandle is not served */
    case ATTR_HANDLE_TYPES: *(unsigned *)data = CU_MEM_HANDLE_TYPE_NONE; return 0;
    case ATTR_P2P_TOKENS: /* tokens for a kernel driver on the GPU's own host (nv-p2p.h): none here */
        if (!many) return RGPU_NOT_SUPPORTED;
        memset(data, 0, sizeof(CUDA_POINTER_ATTRIBUTE_P2P_TOKENS));
        return 0;
    case ATTR_BUFFER_ID: case ATTR_BLOCK_ID: /* unique for the process's life, not reused with the address */
        if ((rc = range_of(ptr, a, &base, &size))) return rc;
        *(unsigned long long *)data = rgpu_addr_buffer_id(base, a->type == MEM_HOST ? -1 : a->device);
        return *(unsigned long long *)data ? 0 : RGPU_OUT_OF_MEMORY;
    case ATTR_RANGE_START_ADDR: case ATTR_RANGE_SIZE:
        if ((rc = range_of(ptr, a, &base, &size))) return rc;
        if (attribute == ATTR_RANGE_SIZE) *(size_t *)data = size;
        else *(uint64_t *)data = base;
        return 0;
    case ATTR_LEGACY_IPC: case ATTR_MEMPOOL: case ATTR_MAPPING_BASE: case ATTR_MAPPING_SIZE: {
        CUmemoryPool pool = NULL;
        cuuint64_t legacy = 0, mbase = 0, msize = 0;
        if ((rc = facts(ptr, a, &pool, &legacy, &mbase, &msize))) return rc;
        if (attribute == ATTR_LEGACY_IPC) *(unsigned *)data = legacy != 0;
        else if (attribute == ATTR_MEMPOOL) *(CUmemoryPool *)data = pool;
        else if (attribute == ATTR_MAPPING_BASE) *(uint64_t *)data = mbase;
        else *(size_t *)data = msize;
        return 0;
    }
    default: return RGPU_INVALID_VALUE; /* no such attribute, as the driver answers */
    }
}

CUresult cuPointerGetAttribute(void *data, CUpointer_attribute attribute, CUdeviceptr ptr) {
    if (!data) return rgpu_invalid_value(RGPU_DRIVER);
    ptr_attrs a;
    int rc = query(ptr, &a);
    if (rc == 0) rc = one(data, attribute, ptr, &a, 0);
    return rc ? rgpu_record(RGPU_DRIVER, rc) : RGPU_SUCCESS;
}

/* Unlike the single query, memory CUDA does not know is no error: its attributes read as zero. */
static size_t size_of(int attribute) {
    switch (attribute) {
    case ATTR_CONTEXT: case ATTR_DEVICE_POINTER: case ATTR_HOST_POINTER: case ATTR_BUFFER_ID:
    case ATTR_BLOCK_ID: case ATTR_RANGE_START_ADDR: case ATTR_RANGE_SIZE: case ATTR_MEMPOOL:
    case ATTR_MAPPING_BASE: case ATTR_MAPPING_SIZE: return 8;
    case ATTR_P2P_TOKENS: return sizeof(CUDA_POINTER_ATTRIBUTE_P2P_TOKENS);
    default: return 4;
    }
}

CUresult cuPointerGetAttributes(unsigned int n, CUpointer_attribute *attributes, void **data, CUdeviceptr ptr) {
    if (!attributes || !data) return rgpu_invalid_value(RGPU_DRIVER);
    ptr_attrs a;
    int rc = query(ptr, &a);
    if (rc && rc != RGPU_INVALID_VALUE) return rgpu_record(RGPU_DRIVER, rc);
    for (unsigned i = 0; i < n; i++) {
        if (!data[i]) continue;
        if (rc == RGPU_INVALID_VALUE) {
            memset(data[i], 0, size_of(attributes[i]));
            if ((int)attributes[i] == ATTR_DEVICE_ORDINAL) *(int *)data[i] = -2; /* no device */
            continue;
        }
        int r = one(data[i], attributes[i], ptr, &a, 1);
        if (r) return rgpu_record(RGPU_DRIVER, r);
    }
    return RGPU_SUCCESS;
}

/* SYNC_MEMOPS is the one attribute CUDA lets a program set. rgpu's synchronous copies complete
 * before they return whatever it says (CUDA without it may return before a pageable copy lands), so
 * the flag is kept for the program to read back (UCX, Open MPI and libfabric set it on every buffer
 * they are given) and changes nothing else. */
CUresult cuPointerSetAttribute(const void *value, CUpointer_attribute attribute, CUdeviceptr ptr) {
    if (!value || (int)attribute != ATTR_SYNC_MEMOPS) return rgpu_invalid_value(RGPU_DRIVER);
    ptr_attrs a;
    CUdeviceptr base = 0;
    size_t size = 0;
    int rc = query(ptr, &a);
    if (rc == 0) rc = range_of(ptr, &a, &base, &size);
    if (rc == 0) rc = rgpu_addr_set_sync_memops(base, a.type == MEM_HOST ? -1 : a.device, *(const unsigned *)value != 0);
    return rc ? rgpu_record(RGPU_DRIVER, rc) : RGPU_SUCCESS;
}
