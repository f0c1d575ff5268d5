/* Pointer attributes. cudaPointerGetAttributes answers pinned host memory and the program's own
 * device allocations itself, from the address registry (addresses.c), and asks the servers about the
 * rest — the current device's first, then the others', since with unified addressing a pointer names
 * its device whatever device is current — and reports the device as the program numbers it. The
 * Driver's cuPointerGetAttribute/s are answered from it, plus cuMemGetAddressRange for the range
 * attributes. */
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

/* One attribute of a pointer known to be CUDA memory; the driver's sizes for each. `many`: asked
 * by cuPointerGetAttributes, where an attribute the memory lacks (device memory's host address)
 * reads as NULL instead of failing the call, as the driver answers it: NVIDIA's cudart asks for the
 * host address of every pointer given to cudaPointerGetAttributes. */
static int one(void *data, int attribute, uint64_t ptr, const ptr_attrs *a, int many) {
    CUdeviceptr base = 0;
    size_t size = 0;
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
    case ATTR_SYNC_MEMOPS: *(unsigned *)data = 1; return 0; /* copies to it are synchronous */
    case ATTR_IS_MANAGED: *(unsigned *)data = a->type == MEM_MANAGED; return 0;
    case ATTR_DEVICE_ORDINAL: *(int *)data = a->type == MEM_HOST ? a->device : rgpu_current_device(); return 0;
    case ATTR_MAPPED: *(unsigned *)data = 1; return 0;
    case ATTR_ACCESS_FLAGS: *(unsigned *)data = CU_POINTER_ATTRIBUTE_ACCESS_FLAG_READWRITE; return 0;
    case ATTR_RDMA: *(unsigned *)data = 0; return 0; /* the GPU is not on this host's PCIe */
    case ATTR_BUFFER_ID: case ATTR_BLOCK_ID: case ATTR_RANGE_START_ADDR: case ATTR_RANGE_SIZE: {
        int rc = a->type == MEM_HOST ? rgpu_pinned_range((const void *)(uintptr_t)ptr, &base, &size)
                                     : cuMemGetAddressRange_v2(&base, &size, ptr);
        if (rc) return rc;
        if (attribute == ATTR_RANGE_SIZE) *(size_t *)data = size;
        else *(uint64_t *)data = base; /* an allocation's start is unique while it lives */
        return 0;
    }
    default: return RGPU_NOT_SUPPORTED;
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
    case ATTR_BLOCK_ID: case ATTR_RANGE_START_ADDR: case ATTR_RANGE_SIZE: return 8;
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
