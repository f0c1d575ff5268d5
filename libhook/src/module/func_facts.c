/* What a function is, kept in the client: its attributes and its occupancy, asked once each.
 *
 * A function's attributes change only through cuFuncSetAttribute, which this program's calls all go
 * through (the session is the program's alone), and occupancy is a function of the function, its
 * block size, its dynamic shared memory, the flags and those attributes. So an answer stays right
 * until the program sets an attribute to a new value; that drops every kept answer (a new value is
 * rare: a repeat of the same value, which CUTLASS's kernels and PyTorch's flash attention make before
 * every launch, drops nothing and goes asynchronously, ahead of the launch that follows). CUDA's own
 * cudaOccupancyMaxPotentialBlockSize asks cudaFuncGetAttributes (ten attributes) and the occupancy of
 * up to 32 block sizes: a round trip each, every time it was called, before this.
 *
 * A new value is still a sync call, whose error (a size past the device's limit) the program gets at
 * once. Failures are not kept. A repeat's failure, if any (its function's module unloaded since),
 * comes at the next synchronising call, as an async call's does. The dynamic shared memory size and
 * the shared memory carveout are checked against limits that never change (the function's static
 * shared memory, the device's opt-in maximum; 0..100): a value the function accepted once it accepts
 * again, so going back to it is asynchronous too. cuDNN sets its kernels' dynamic shared memory to one
 * size for the forward pass and another for the backward, in every training step: a round trip each,
 * four per step of a small CNN, before this. */
#include <pthread.h>
#include <stdint.h>

#include "registry.h"
#include "rgpu_call.h"

enum { ATTRIBUTE = 1, OCCUPANCY = 2, SET = 3, ACCEPTED = 4, LIMIT = 5 };
#define SLOTS 4096
#define PROBES 8

typedef struct {
    const void *fn;
    int kind, a;
    uint64_t b, c;
    unsigned epoch; /* of the answers kept (SET: always current) */
    int value;
} entry;

static entry table[SLOTS];
static unsigned epoch = 1; /* a new value set on any function starts a new one */
static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;

static int same(const entry *e, const void *fn, int kind, int a, uint64_t b, uint64_t c) {
    return e->fn == fn && e->kind == kind && e->a == a && e->b == b && e->c == c;
}

static int live(const entry *e) {
    return e->fn && (e->kind == SET || e->kind == ACCEPTED || e->kind == LIMIT || e->epoch == epoch);
}

/* splitmix64's finaliser: every bit of the key moves the slot (occupancy keys differ in one field). */
static uint64_t mix(uint64_t x) {
    x ^= x >> 30;
    x *= 0xBF58476D1CE4E5B9ull;
    x ^= x >> 27;
    x *= 0x94D049BB133111EBull;
    return x ^ (x >> 31);
}

/* The slot of the key, or of where it would go; -1 when its probes are all taken by other live keys. */
static int slot(const void *fn, int kind, int a, uint64_t b, uint64_t c) {
    uint64_t h = mix(mix(mix((uintptr_t)fn ^ ((uint64_t)kind << 32 | (uint32_t)a)) ^ b) ^ c);
    int free_at = -1;
    for (int i = 0; i < PROBES; i++) {
        int j = (int)((h + (uint64_t)i) % SLOTS);
        if (same(&table[j], fn, kind, a, b, c)) return j;
        if (free_at < 0 && !live(&table[j])) free_at = j;
    }
    return free_at;
}

/* 1 and the kept answer, or 0. */
static int kept(const void *fn, int kind, int a, uint64_t b, uint64_t c, int *value) {
    pthread_mutex_lock(&mu);
    int j = slot(fn, kind, a, b, c), hit = j >= 0 && live(&table[j]) && same(&table[j], fn, kind, a, b, c);
    if (hit) *value = table[j].value;
    pthread_mutex_unlock(&mu);
    return hit;
}

static void keep(const void *fn, int kind, int a, uint64_t b, uint64_t c, int value) {
    pthread_mutex_lock(&mu);
    int j = slot(fn, kind, a, b, c);
    if (j >= 0) table[j] = (entry){fn, kind, a, b, c, epoch, value};
    pthread_mutex_unlock(&mu);
}

CUresult cuFuncGetAttribute(int *pi, CUfunction_attribute attrib, CUfunction hfunc) {
    if (!pi) return rgpu_invalid_value(RGPU_DRIVER);
    if (hfunc && kept(hfunc, ATTRIBUTE, attrib, 0, 0, pi)) return RGPU_SUCCESS;
    rgpu_call c;
    rgpu_wire_cuFuncGetAttribute(&c, attrib, hfunc);
    int rc = rgpu_sync(&c);
    int64_t v = 0;
    if (rc == 0) rgpu_wire_out_cuFuncGetAttribute(&c, &v);
    rgpu_end(&c);
    if (rc) return rc;
    *pi = (int)v;
    if (hfunc) keep(hfunc, ATTRIBUTE, attrib, 0, 0, *pi);
    return RGPU_SUCCESS;
}

/* The launch limits (registry.h) are kept apart from the epoch of the other answers: a function's
 * thread limit is its own (registers, launch bounds), no attribute set on it or on another function
 * changes it; and its dynamic shared memory limit is what was last set on it, or else its own
 * default. So a program that sets an attribute before every launch (cuDNN does, each step) asks for
 * each limit once per function, where the epoch would make every launch ask again. */
int rgpu_func_launch_limit(void *fn, int attrib, int *value) {
    if (kept(fn, SET, attrib, 0, 0, value) || kept(fn, LIMIT, attrib, 0, 0, value)) return RGPU_SUCCESS;
    int rc = cuFuncGetAttribute(value, (CUfunction_attribute)attrib, (CUfunction)fn);
    if (rc == RGPU_SUCCESS && fn) keep(fn, LIMIT, attrib, 0, 0, *value);
    return rc;
}

/* Attributes whose valid values depend on nothing that changes (see the top). */
static int fixed_limits(int attrib) {
    return attrib == CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES ||
           attrib == CU_FUNC_ATTRIBUTE_PREFERRED_SHARED_MEMORY_CARVEOUT;
}

/* A new value on hfunc: what was kept may have changed with it (attributes, occupancy). */
static void changed(CUfunction hfunc, int attrib, int value) {
    pthread_mutex_lock(&mu);
    epoch++;
    pthread_mutex_unlock(&mu);
    keep(hfunc, SET, attrib, 0, 0, value);
}

CUresult cuFuncSetAttribute(CUfunction hfunc, CUfunction_attribute attrib, int value) {
    int last, ok, known = hfunc && kept(hfunc, SET, attrib, 0, 0, &last);
    int repeat = known && last == value;
    int accepted = hfunc && fixed_limits(attrib) && kept(hfunc, ACCEPTED, attrib, (uint64_t)(unsigned)value, 0, &ok);
    /* The value it has already (cuBLAS and cuDNN set theirs before every launch): nothing changes, in
     * the driver or in what the server keeps of the function for a move, so nothing is sent. A call
     * in the message of a step would leave the whole step to the worker's Python (launches.c). */
    if (repeat) return RGPU_SUCCESS;
    rgpu_call c;
    rgpu_wire_cuFuncSetAttribute(&c, hfunc, attrib, value);
    if (accepted) {
        changed(hfunc, attrib, value);
        return rgpu_async(&c);
    }
    int rc = rgpu_sync(&c);
    rgpu_end(&c);
    if (rc == 0 && hfunc) {
        changed(hfunc, attrib, value);
        if (fixed_limits(attrib)) keep(hfunc, ACCEPTED, attrib, (uint64_t)(unsigned)value, 0, 1);
    }
    return rc;
}

static CUresult occupancy(int *numBlocks, CUfunction func, int blockSize, size_t dynamicSMemSize, unsigned flags,
                          int with_flags) {
    if (!numBlocks) return rgpu_invalid_value(RGPU_DRIVER);
    uint64_t key = (uint64_t)(unsigned)blockSize << 32 | (uint64_t)flags << 1 | (unsigned)with_flags;
    if (func && kept(func, OCCUPANCY, 0, key, dynamicSMemSize, numBlocks)) return RGPU_SUCCESS;
    rgpu_call c;
    if (with_flags) rgpu_wire_cuOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(&c, func, blockSize, dynamicSMemSize, flags);
    else rgpu_wire_cuOccupancyMaxActiveBlocksPerMultiprocessor(&c, func, blockSize, dynamicSMemSize);
    int rc = rgpu_sync(&c);
    int64_t v = 0;
    if (rc == 0 && with_flags) rgpu_wire_out_cuOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(&c, &v);
    else if (rc == 0) rgpu_wire_out_cuOccupancyMaxActiveBlocksPerMultiprocessor(&c, &v);
    rgpu_end(&c);
    if (rc) return rc;
    *numBlocks = (int)v;
    if (func) keep(func, OCCUPANCY, 0, key, dynamicSMemSize, *numBlocks);
    return RGPU_SUCCESS;
}

/* Thread-block cluster occupancy: the configuration's dimensions and cluster attributes as scalars.
 * Not kept: libraries ask it once per kernel configuration they choose among. */
static CUresult cluster_question(int potential, int *out, CUfunction func, const CUlaunchConfig *config) {
    if (!out || !config) return rgpu_invalid_value(RGPU_DRIVER);
    unsigned cl[4];
    rgpu_cluster_attrs(config->attrs, config->numAttrs, cl);
    rgpu_call c;
    (potential ? rgpu_wire_cuOccupancyMaxPotentialClusterSize : rgpu_wire_cuOccupancyMaxActiveClusters)(
        &c, func, config->gridDimX, config->gridDimY, config->gridDimZ, config->blockDimX, config->blockDimY,
        config->blockDimZ, config->sharedMemBytes, cl[0], cl[1], cl[2], cl[3]);
    int rc = rgpu_sync(&c);
    int64_t v = 0;
    if (rc == 0) (potential ? rgpu_wire_out_cuOccupancyMaxPotentialClusterSize : rgpu_wire_out_cuOccupancyMaxActiveClusters)(&c, &v);
    rgpu_end(&c);
    if (rc == 0) *out = (int)v;
    return rc;
}

CUresult cuOccupancyMaxActiveClusters(int *numClusters, CUfunction func, const CUlaunchConfig *config) {
    return cluster_question(0, numClusters, func, config);
}

CUresult cuOccupancyMaxPotentialClusterSize(int *clusterSize, CUfunction func, const CUlaunchConfig *config) {
    return cluster_question(1, clusterSize, func, config);
}

CUresult cuOccupancyMaxActiveBlocksPerMultiprocessor(int *numBlocks, CUfunction func, int blockSize,
                                                     size_t dynamicSMemSize) {
    return occupancy(numBlocks, func, blockSize, dynamicSMemSize, 0, 0);
}

CUresult cuOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(int *numBlocks, CUfunction func, int blockSize,
                                                              size_t dynamicSMemSize, unsigned int flags) {
    return occupancy(numBlocks, func, blockSize, dynamicSMemSize, flags, 1);
}

/* The block size that keeps the most threads resident on a multiprocessor, and the smallest grid that
 * fills the device at that size, as CUDA's occupancy calculator finds them: every block size from the
 * limit down, one warp apart, its dynamic shared memory from the program's callback (a host function:
 * it runs here) or the fixed amount, its occupancy asked (and kept, above). The limit is the smallest
 * of the caller's, the device's and the function's maximum block size. */
static CUresult potential(int *minGridSize, int *blockSize, CUfunction func, CUoccupancyB2DSize b2d, size_t dyn,
                          int limit, unsigned flags) {
    if (!minGridSize || !blockSize || !func) return rgpu_invalid_value(RGPU_DRIVER);
    CUdevice dev;
    int sm_threads, warp, dev_max, sms, fn_max;
    int rc = cuCtxGetDevice(&dev);
    if (!rc) rc = cuDeviceGetAttribute(&sm_threads, CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_MULTIPROCESSOR, dev);
    if (!rc) rc = cuDeviceGetAttribute(&warp, CU_DEVICE_ATTRIBUTE_WARP_SIZE, dev);
    if (!rc) rc = cuDeviceGetAttribute(&dev_max, CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK, dev);
    if (!rc) rc = cuDeviceGetAttribute(&sms, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, dev);
    if (!rc) rc = cuFuncGetAttribute(&fn_max, CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK, func);
    if (rc) return rc;
    if (limit <= 0 || limit > dev_max) limit = dev_max;
    if (limit > fn_max) limit = fn_max;
    int best = 0, best_blocks = 0, best_threads = 0;
    for (int aligned = (limit + warp - 1) / warp * warp; aligned > 0 && best_threads < sm_threads; aligned -= warp) {
        int size = aligned < limit ? aligned : limit, blocks = 0;
        if ((rc = occupancy(&blocks, func, size, b2d ? b2d(size) : dyn, flags, 1))) return rc;
        if (size * blocks > best_threads) best = size, best_blocks = blocks, best_threads = size * blocks;
    }
    *minGridSize = best_blocks * sms;
    *blockSize = best;
    return RGPU_SUCCESS;
}

CUresult cuOccupancyMaxPotentialBlockSize(int *minGridSize, int *blockSize, CUfunction func,
                                          CUoccupancyB2DSize blockSizeToDynamicSMemSize, size_t dynamicSMemSize,
                                          int blockSizeLimit) {
    return potential(minGridSize, blockSize, func, blockSizeToDynamicSMemSize, dynamicSMemSize, blockSizeLimit, 0);
}

CUresult cuOccupancyMaxPotentialBlockSizeWithFlags(int *minGridSize, int *blockSize, CUfunction func,
                                                   CUoccupancyB2DSize blockSizeToDynamicSMemSize,
                                                   size_t dynamicSMemSize, int blockSizeLimit, unsigned int flags) {
    return potential(minGridSize, blockSize, func, blockSizeToDynamicSMemSize, dynamicSMemSize, blockSizeLimit, flags);
}
