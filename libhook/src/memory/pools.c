/* Memory pool attributes: the value's type depends on the attribute (int for the reuse policies,
 * cuuint64_t for the threshold and the byte counters), which the generated stubs cannot say. The
 * value crosses the wire as one integer either way; the pool, its accounting and the checks are the
 * server's (server/api/pools.py). */
#include <stdint.h>

#include "rgpu_call.h"

/* CU_MEMPOOL_ATTR_* (cudaMemPoolAttr has the same numbers): 1-3 are int, 4-8 cuuint64_t. */
static int attr_width(int attr) { return attr >= 1 && attr <= 3 ? 4 : attr >= 4 && attr <= 8 ? 8 : 0; }

static int set_attribute(int face, const void *pool, int attr, const void *value) {
    int w = attr_width(attr);
    if (!value || !w) return rgpu_invalid_value(face);
    uint64_t v = w == 4 ? (uint64_t)(int64_t) * (const int *)value : *(const uint64_t *)value;
    rgpu_call c;
    if (face == RGPU_RUNTIME) rgpu_wire_cudaMemPoolSetAttribute(&c, pool, attr, v);
    else rgpu_wire_cuMemPoolSetAttribute(&c, pool, attr, v);
    int rc = rgpu_sync(&c);
    rgpu_end(&c);
    return rc;
}

static int get_attribute(int face, const void *pool, int attr, void *value) {
    int w = attr_width(attr);
    if (!value || !w) return rgpu_invalid_value(face);
    rgpu_call c;
    if (face == RGPU_RUNTIME) rgpu_wire_cudaMemPoolGetAttribute(&c, pool, attr);
    else rgpu_wire_cuMemPoolGetAttribute(&c, pool, attr);
    int rc = rgpu_sync(&c);
    uint64_t v = 0;
    if (rc == 0) {
        if (face == RGPU_RUNTIME) rgpu_wire_out_cudaMemPoolGetAttribute(&c, &v);
        else rgpu_wire_out_cuMemPoolGetAttribute(&c, &v);
        if (w == 4) *(int *)value = (int)v;
        else *(uint64_t *)value = v;
    }
    rgpu_end(&c);
    return rc;
}

CUresult cuMemPoolSetAttribute(CUmemoryPool pool, CUmemPool_attribute attr, void *value) {
    return set_attribute(RGPU_DRIVER, pool, attr, value);
}
CUresult cuMemPoolGetAttribute(CUmemoryPool pool, CUmemPool_attribute attr, void *value) {
    return get_attribute(RGPU_DRIVER, pool, attr, value);
}
cudaError_t cudaMemPoolSetAttribute(cudaMemPool_t pool, enum cudaMemPoolAttr attr, void *value) {
    return set_attribute(RGPU_RUNTIME, pool, attr, value);
}
cudaError_t cudaMemPoolGetAttribute(cudaMemPool_t pool, enum cudaMemPoolAttr attr, void *value) {
    return get_attribute(RGPU_RUNTIME, pool, attr, value);
}
