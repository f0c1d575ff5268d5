/* Context limits a program cannot set, answered in the client after the first query: CUDA says
 * CU_LIMIT_SHMEM_SIZE and CU_LIMIT_CIG_ENABLED "can only be queried, cannot be set" (a context is a
 * CIG context, or not, from its creation). cuBLASLt asks whether the context is a CIG context before
 * each of its half-precision GEMMs: eight round trips a step of a small mixed-precision transformer
 * (tests/e2e/torch_workloads.py, transformer_amp) before this. The limits a program can set, and the
 * stack size the driver grows at launches by itself, are asked every time. */
#include "rgpu_call.h"
#include "session.h"

enum { SHMEM_SIZE, CIG_ENABLED, KEPT };

static int known[RGPU_MAX_DEVICES][KEPT];
static size_t value[RGPU_MAX_DEVICES][KEPT];

static int kept_slot(CUlimit limit) {
    return limit == CU_LIMIT_SHMEM_SIZE ? SHMEM_SIZE : limit == CU_LIMIT_CIG_ENABLED ? CIG_ENABLED : -1;
}

CUresult cuCtxGetLimit(size_t *pvalue, CUlimit limit) {
    if (pvalue == NULL) return rgpu_invalid_value(RGPU_DRIVER);
    int k = kept_slot(limit), dev = rgpu_current_device();
    if (k >= 0 && dev >= 0 && dev < RGPU_MAX_DEVICES && __atomic_load_n(&known[dev][k], __ATOMIC_ACQUIRE)) {
        *pvalue = value[dev][k];
        return CUDA_SUCCESS;
    }
    rgpu_call c;
    rgpu_wire_cuCtxGetLimit(&c, limit);
    int rc = rgpu_sync(&c);
    uint64_t v = 0;
    if (rc == 0) rgpu_wire_out_cuCtxGetLimit(&c, &v);
    rgpu_end(&c);
    if (rc) return rc;
    *pvalue = (size_t)v;
    if (k >= 0 && c.dev >= 0 && c.dev < RGPU_MAX_DEVICES) {
        value[c.dev][k] = (size_t)v;
        __atomic_store_n(&known[c.dev][k], 1, __ATOMIC_RELEASE);
    }
    return CUDA_SUCCESS;
}
