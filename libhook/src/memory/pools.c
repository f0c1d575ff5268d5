/* Memory pool attributes (cuMemPoolGetAttribute / SetAttribute and the Runtime's twins). The value's
 * C type depends on the attribute: the reuse policies are ints, the release threshold and the memory
 * counters cuuint64_t. It travels as one unsigned integer whose width this file picks, so a value is
 * never read or written past what the caller's variable holds. */
#include <stdint.h>
#include <string.h>

#include "rgpu_call.h"

/* Bytes of the attribute's value, 0 for an attribute this file does not know. */
static size_t value_size(int attr) {
    switch (attr) {
    case CU_MEMPOOL_ATTR_REUSE_FOLLOW_EVENT_DEPENDENCIES:
    case CU_MEMPOOL_ATTR_REUSE_ALLOW_OPPORTUNISTIC:
    case CU_MEMPOOL_ATTR_REUSE_ALLOW_INTERNAL_DEPENDENCIES:
        return sizeof(int);
    case CU_MEMPOOL_ATTR_RELEASE_THRESHOLD:
    case CU_MEMPOOL_ATTR_RESERVED_MEM_CURRENT:
    case CU_MEMPOOL_ATTR_RESERVED_MEM_HIGH:
    case CU_MEMPOOL_ATTR_USED_MEM_CURRENT:
    case CU_MEMPOOL_ATTR_USED_MEM_HIGH:
        return sizeof(cuuint64_t);
    default:
        return 0;
    }
}

CUresult cuMemPoolGetAttribute(CUmemoryPool pool, CUmemPool_attribute attr, void *value) {
    size_t n = value_size(attr);
    if (!pool || !value || !n) return rgpu_invalid_value(RGPU_DRIVER);
    rgpu_call c;
    rgpu_wire_cuMemPoolGetAttribute(&c, pool, (uint64_t)attr);
    int rc = rgpu_sync(&c);
    uint64_t v = 0;
    if (rc == 0) rgpu_wire_out_cuMemPoolGetAttribute(&c, &v);
    rgpu_end(&c);
    if (rc == 0 && n == sizeof(int)) {
        int i = (int)v;
        memcpy(value, &i, n);
    } else if (rc == 0) {
        memcpy(value, &v, n);
    }
    return rc;
}

CUresult cuMemPoolSetAttribute(CUmemoryPool pool, CUmemPool_attribute attr, void *value) {
    size_t n = value_size(attr);
    if (!pool || !value || !n) return rgpu_invalid_value(RGPU_DRIVER);
    uint64_t v = 0;
    if (n == sizeof(int)) {
        int i;
        memcpy(&i, value, n);
        v = (uint64_t)(int64_t)i;
    } else {
        memcpy(&v, value, n);
    }
    rgpu_call c;
    rgpu_wire_cuMemPoolSetAttribute(&c, pool, (uint64_t)attr, v);
    int rc = rgpu_sync(&c);
    rgpu_end(&c);
    return rc;
}

cudaError_t cudaMemPoolGetAttribute(cudaMemPool_t pool, enum cudaMemPoolAttr attr, void *value) {
    return rgpu_record(RGPU_RUNTIME, cuMemPoolGetAttribute((CUmemoryPool)pool, (CUmemPool_attribute)attr, value));
}

cudaError_t cudaMemPoolSetAttribute(cudaMemPool_t pool, enum cudaMemPoolAttr attr, void *value) {
    return rgpu_record(RGPU_RUNTIME, cuMemPoolSetAttribute((CUmemoryPool)pool, (CUmemPool_attribute)attr, value));
}
