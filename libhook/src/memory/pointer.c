/* Pointer attributes. cudaPointerGetAttributes answers pinned host memory itself (hostmem.c) and
 * asks the servers about the rest — the current device's first, then the others', since with
 * unified addressing a pointer names its device whatever device is current — and reports the
 * device as the program numbers it. The Driver's cuPointerGetAttribute/s are answered from it, plus
 * cuMemGetAddressRange for the range attributes. */
#include <stdint.h>
#include <string.h>

#include "rgpu_call.h"
#include "rgpu_ids.h"

extern int rgpu_pinned(const void *p, unsigned *flags);
extern int cuMemGetAddressRange_v2(uint64_t *pbase, size_t *psize, uint64_t dptr);
extern int cuCtxGetCurrent(void **pctx);

enum { MEM_UNREGISTERED = 0, MEM_HOST = 1, MEM_DEVICE = 2, MEM_MANAGED = 3 };
enum { CU_MEMORYTYPE_HOST = 1, CU_MEMORYTYPE_DEVICE = 2 };
enum {
    ATTR_CONTEXT = 1, ATTR_MEMORY_TYPE = 2, ATTR_DEVICE_POINTER = 3, ATTR_HOST_POINTER = 4, ATTR_SYNC_MEMOPS = 6,
    ATTR_BUFFER_ID = 7, ATTR_IS_MANAGED = 8, ATTR_DEVICE_ORDINAL = 9, ATTR_RANGE_START_ADDR = 11,
    ATTR_RANGE_SIZE = 12, ATTR_MAPPED = 13,
};

/* struct cudaPointerAttributes: type, device, devicePointer, hostPointer (then reserved words) */
typedef struct {
    int type, device;
    uint64_t device_pointer, host_pointer;
    uint8_t rest[RGPU_SIZEOF_cudaPointerAttributes - 24];
} ptr_attrs;

/* What the server of device dev says of ptr. */
static int ask(int dev, const void *ptr, ptr_attrs *a) {
    rgpu_call c;
    rgpu_begin(&c, RGPU_ID_cudaPointerGetAttributes, "cudaPointerGetAttributes", RGPU_RUNTIME);
    c.dev = dev;
    rgpu_put_u(&c, (uint64_t)(uintptr_t)ptr);
    int rc = rgpu_sync(&c);
    if (rc == 0) rgpu_out_b(&c, a, sizeof *a);
    rgpu_end(&c);
    return rc;
}

int cudaPointerGetAttributes(void *attributes, const void *ptr) {
    if (!attributes) return rgpu_invalid_value(RGPU_RUNTIME);
    int rc = rgpu_ensure_init();
    if (rc) return rgpu_record(RGPU_RUNTIME, rc);
    ptr_attrs a;
    memset(&a, 0, sizeof a);
    int cur = rgpu_current_device(), n = rgpu_device_count();
    if (rgpu_pinned(ptr, NULL)) {
        a.type = MEM_HOST;
        a.device = cur;
        a.device_pointer = a.host_pointer = (uint64_t)(uintptr_t)ptr; /* one address under UVA */
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
    return a->type == MEM_DEVICE || a->type == MEM_MANAGED ? RGPU_SUCCESS : RGPU_INVALID_VALUE;
}

/* One attribute of a pointer known to be CUDA memory; the driver's sizes for each. */
static int one(void *data, int attribute, uint64_t ptr, const ptr_attrs *a) {
    uint64_t base = 0;
    size_t size = 0;
    switch (attribute) {
    case ATTR_CONTEXT: return cuCtxGetCurrent((void **)data);
    case ATTR_MEMORY_TYPE: *(unsigned *)data = CU_MEMORYTYPE_DEVICE; return 0; /* managed reads as device */
    case ATTR_DEVICE_POINTER: *(uint64_t *)data = ptr; return 0;
    case ATTR_HOST_POINTER:
        if (a->type != MEM_MANAGED) return RGPU_INVALID_VALUE; /* device memory has no host address */
        *(uint64_t *)data = ptr;
        return 0;
    case ATTR_SYNC_MEMOPS: *(unsigned *)data = 1; return 0; /* copies to it are synchronous */
    case ATTR_IS_MANAGED: *(unsigned *)data = a->type == MEM_MANAGED; return 0;
    case ATTR_DEVICE_ORDINAL: *(int *)data = rgpu_current_device(); return 0;
    case ATTR_MAPPED: *(unsigned *)data = 1; return 0;
    case ATTR_BUFFER_ID: case ATTR_RANGE_START_ADDR: case ATTR_RANGE_SIZE: {
        int rc = cuMemGetAddressRange_v2(&base, &size, ptr);
        if (rc) return rc;
        if (attribute == ATTR_RANGE_SIZE) *(size_t *)data = size;
        else *(uint64_t *)data = base; /* an allocation's start is unique while it lives */
        return 0;
    }
    default: return RGPU_NOT_SUPPORTED;
    }
}

int cuPointerGetAttribute(void *data, int attribute, uint64_t ptr) {
    if (!data) return rgpu_invalid_value(RGPU_DRIVER);
    ptr_attrs a;
    int rc = query(ptr, &a);
    if (rc == 0) rc = one(data, attribute, ptr, &a);
    return rc ? rgpu_record(RGPU_DRIVER, rc) : RGPU_SUCCESS;
}

/* Unlike the single query, memory CUDA does not know is no error: its attributes read as zero. */
static size_t size_of(int attribute) {
    switch (attribute) {
    case ATTR_CONTEXT: case ATTR_DEVICE_POINTER: case ATTR_HOST_POINTER: case ATTR_BUFFER_ID:
    case ATTR_RANGE_START_ADDR: case ATTR_RANGE_SIZE: return 8;
    default: return 4;
    }
}

int cuPointerGetAttributes(unsigned n, int *attributes, void **data, uint64_t ptr) {
    if (!attributes || !data) return rgpu_invalid_value(RGPU_DRIVER);
    ptr_attrs a;
    int rc = query(ptr, &a);
    if (rc && rc != RGPU_INVALID_VALUE) return rgpu_record(RGPU_DRIVER, rc);
    for (unsigned i = 0; i < n; i++) {
        if (!data[i]) continue;
        if (rc == RGPU_INVALID_VALUE) {
            memset(data[i], 0, size_of(attributes[i]));
            if (attributes[i] == ATTR_DEVICE_ORDINAL) *(int *)data[i] = -2; /* no device */
            continue;
        }
        int r = one(data[i], attributes[i], ptr, &a);
        if (r) return rgpu_record(RGPU_DRIVER, r);
    }
    return RGPU_SUCCESS;
}
