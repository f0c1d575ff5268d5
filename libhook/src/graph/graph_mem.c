/* Graph memory nodes: cudaMallocAsync / cudaFreeAsync captured into a graph, cudaGraphAddMemAllocNode /
 * cudaGraphAddMemFreeNode. CUDA gives an allocation node one virtual address for every launch; here the
 * memory is allocated (an ordinary allocation of the session) when the node is made and kept while any
 * graph, clone or executable graph holds the node, so the address is fixed and the server needs nothing
 * new. A launch marks it live; a free node (or the program's cudaFree/cudaFreeAsync) marks it free
 * again without giving it back, so the next launch finds it at the same address. When the last graph
 * holding it goes, memory still live stays the program's (it frees it as any allocation); the rest is
 * freed. */
#include <stdlib.h>
#include <string.h>

#include "graph.h"
#include "rgpu_call.h"


static rgpu_graph_mem *owned;          /* every graph allocation, under rgpu_graph_mu */
static uint64_t reserved_high, used_high;

/* The program may be capturing: graph memory is the library's doing, not a call the capture forbids. */
static int relaxed_malloc(uint64_t *dptr, size_t size) {
    enum cudaStreamCaptureMode mode = cudaStreamCaptureModeRelaxed;
    int rc;
    cudaThreadExchangeStreamCaptureMode(&mode);
    void *p = NULL;
    rc = cudaMalloc(&p, size);
    cudaThreadExchangeStreamCaptureMode(&mode);
    *dptr = (uint64_t)(uintptr_t)p;
    return rc;
}

static void relaxed_free(uint64_t dptr) {
    enum cudaStreamCaptureMode mode = cudaStreamCaptureModeRelaxed;
    cudaThreadExchangeStreamCaptureMode(&mode);
    cudaFree((void *)(uintptr_t)dptr);
    cudaThreadExchangeStreamCaptureMode(&mode);
}

static void sums(uint64_t *used, uint64_t *reserved) {
    *used = *reserved = 0;
    for (rgpu_graph_mem *m = owned; m; m = m->next) {
        *reserved += m->size;
        if (m->live) *used += m->size;
    }
}

static void note_highs(void) {
    uint64_t used, reserved;
    sums(&used, &reserved);
    if (used > used_high) used_high = used;
    if (reserved > reserved_high) reserved_high = reserved;
}

rgpu_graph_mem *rgpu_gmem_new(int face, size_t size, int *rc) {
    if (!size) { *rc = rgpu_invalid_value(face); return NULL; }
    rgpu_graph_mem *m = calloc(1, sizeof *m);
    if (!m) { *rc = rgpu_record(face, RGPU_OUT_OF_MEMORY); return NULL; }
    if ((*rc = relaxed_malloc(&m->dptr, size))) { free(m); return NULL; }
    m->size = size;
    pthread_mutex_lock(&rgpu_graph_mu);
    m->next = owned;
    owned = m;
    note_highs();
    pthread_mutex_unlock(&rgpu_graph_mu);
    return m;
}

void rgpu_gmem_ref(rgpu_graph_mem *m) { __atomic_add_fetch(&m->refs, 1, __ATOMIC_SEQ_CST); }

void rgpu_gmem_unref(rgpu_graph_mem *m) {
    if (__atomic_sub_fetch(&m->refs, 1, __ATOMIC_SEQ_CST) > 0) return;
    pthread_mutex_lock(&rgpu_graph_mu);
    for (rgpu_graph_mem **p = &owned; *p; p = &(*p)->next)
        if (*p == m) { *p = m->next; break; }
    int live = m->live;
    pthread_mutex_unlock(&rgpu_graph_mu);
    if (!live) relaxed_free(m->dptr); /* live memory is the program's from now on */
    free(m);
}

/* A graph cannot be launched again while what its last launch allocated has not been freed, unless it
 * was instantiated to free it on launch (cudaGraphInstantiateFlagAutoFreeOnLaunch). */
int rgpu_gmem_launch_alloc(int face, rgpu_graph_mem *m, int autofree) {
    pthread_mutex_lock(&rgpu_graph_mu);
    int rc = m->live && !autofree ? RGPU_INVALID_VALUE : 0;
    m->live = 1;
    note_highs();
    pthread_mutex_unlock(&rgpu_graph_mu);
    return rgpu_record(face, rc);
}

static rgpu_graph_mem *find(uint64_t dptr) {
    for (rgpu_graph_mem *m = owned; m; m = m->next)
        if (m->dptr == dptr) return m;
    return NULL;
}

/* 1 when dptr is graph memory (now marked free), 0 when it is an ordinary allocation. */
static int release(uint64_t dptr) {
    pthread_mutex_lock(&rgpu_graph_mu);
    rgpu_graph_mem *m = find(dptr);
    if (m) m->live = 0;
    pthread_mutex_unlock(&rgpu_graph_mu);
    return m != NULL;
}

int rgpu_gmem_launch_free(int face, uint64_t dptr, void *stream) {
    if (release(dptr)) return 0;
    return cudaFreeAsync((void *)(uintptr_t)dptr, stream); /* an allocation the graph did not make */
}

/* ---- capture hooks ------------------------------------------------------------------------ */

static int alloc_node(int face, int *rc, CUdeviceptr *ptr, uint64_t size, void *stream) {
    if (!rgpu_capturing(stream)) return 0;
    rgpu_graph_mem *m = rgpu_gmem_new(face, size, rc);
    if (!m) return 1;
    rgpu_gnode proto = {.type = NODE_MEM_ALLOC, .u.mem = m};
    m->refs = 1; /* the prototype's, dropped below: the captured node takes its own */
    if (!rgpu_capture_append(stream, &proto, rc)) *rc = RGPU_INVALID_VALUE; /* capture ended meanwhile */
    if (!*rc) *ptr = m->dptr;
    rgpu_gmem_unref(m);
    *rc = rgpu_record(face, *rc);
    return 1;
}

static int free_node(int face, int *rc, uint64_t dptr, void *stream) {
    if (rgpu_capturing(stream)) {
        rgpu_gnode proto = {.type = NODE_MEM_FREE, .u.dptr = dptr};
        if (rgpu_capture_append(stream, &proto, rc)) { *rc = rgpu_record(face, *rc); return 1; }
    }
    *rc = 0;
    return release(dptr);
}

int rgpu_capture_cudaMallocAsync(int *rc, void **ptr, size_t size, cudaStream_t stream) {
    CUdeviceptr d = 0;
    int handled = alloc_node(RGPU_RUNTIME, rc, &d, size, stream);
    if (handled && !*rc) *ptr = (void *)(uintptr_t)d;
    return handled;
}
int rgpu_capture_cuMemAllocAsync(int *rc, CUdeviceptr *ptr, size_t size, CUstream stream) {
    return alloc_node(RGPU_DRIVER, rc, ptr, size, stream);
}
int rgpu_capture_cudaFreeAsync(int *rc, void *ptr, cudaStream_t stream) {
    return free_node(RGPU_RUNTIME, rc, (uint64_t)(uintptr_t)ptr, stream);
}
int rgpu_capture_cuMemFreeAsync(int *rc, CUdeviceptr ptr, CUstream stream) { return free_node(RGPU_DRIVER, rc, ptr, stream); }
int rgpu_capture_cuMemFree_v2(int *rc, CUdeviceptr ptr) {
    if ((*rc = rgpu_capture_guard(RGPU_DRIVER, NULL, 0))) return 1;
    return release(ptr);
}

int rgpu_capture_cudaFree(int *rc, void *ptr) {
    if ((*rc = rgpu_capture_guard(RGPU_RUNTIME, NULL, 0))) return 1;
    return release((uint64_t)(uintptr_t)ptr);
}

/* ---- explicit nodes and attributes ----------------------------------------------------------- */

cudaError_t cudaGraphAddMemAllocNode(cudaGraphNode_t *out, cudaGraph_t g, const cudaGraphNode_t *deps, size_t ndeps, struct cudaMemAllocNodeParams *p) {
    if (!out || !p) return rgpu_invalid_value(RGPU_RUNTIME);
    int rc;
    rgpu_graph_mem *m = rgpu_gmem_new(RGPU_RUNTIME, p->bytesize, &rc);
    if (!m) return rc;
    m->refs = 1;
    rgpu_gnode *n = rgpu_graph_add(g, NODE_MEM_ALLOC, deps, ndeps, &rc);
    if (n) {
        n->u.mem = m; /* the node takes the reference */
        p->dptr = (void *)(uintptr_t)m->dptr;
        *out = n;
        return 0;
    }
    rgpu_gmem_unref(m);
    return rgpu_record(RGPU_RUNTIME, rc);
}

cudaError_t cudaGraphMemAllocNodeGetParams(cudaGraphNode_t n, struct cudaMemAllocNodeParams *p) {
    if (!n || n->type != NODE_MEM_ALLOC || !p) return rgpu_invalid_value(RGPU_RUNTIME);
    memset(p, 0, sizeof *p);
    p->poolProps.allocType = cudaMemAllocationTypePinned;
    p->poolProps.location.type = cudaMemLocationTypeDevice;
    p->bytesize = n->u.mem->size;
    p->dptr = (void *)(uintptr_t)n->u.mem->dptr;
    return 0;
}

cudaError_t cudaGraphAddMemFreeNode(cudaGraphNode_t *out, cudaGraph_t g, const cudaGraphNode_t *deps, size_t ndeps, void *dptr) {
    if (!out || !dptr) return rgpu_invalid_value(RGPU_RUNTIME);
    int rc;
    rgpu_gnode *n = rgpu_graph_add(g, NODE_MEM_FREE, deps, ndeps, &rc);
    if (!n) return rgpu_record(RGPU_RUNTIME, rc);
    n->u.dptr = (uint64_t)(uintptr_t)dptr;
    *out = n;
    return 0;
}

cudaError_t cudaGraphMemFreeNodeGetParams(cudaGraphNode_t n, void *dptr_out) {
    if (!n || n->type != NODE_MEM_FREE || !dptr_out) return rgpu_invalid_value(RGPU_RUNTIME);
    *(void **)dptr_out = (void *)(uintptr_t)n->u.dptr;
    return 0;
}

/* cudaGraphMemAttrUsedMemCurrent (0), ...UsedMemHigh (1), ...ReservedMemCurrent (2), ...ReservedMemHigh (3):
 * counted over the graph allocations of the program (one pool for all its devices). */
cudaError_t cudaDeviceGetGraphMemAttribute(int device, enum cudaGraphMemAttributeType attr, void *value) {
    if (!value || device < 0 || device >= rgpu_device_count() || attr < 0 || attr > 3)
        return rgpu_invalid_value(RGPU_RUNTIME);
    uint64_t used, reserved;
    pthread_mutex_lock(&rgpu_graph_mu);
    sums(&used, &reserved);
    uint64_t v[4] = {used, used_high, reserved, reserved_high};
    pthread_mutex_unlock(&rgpu_graph_mu);
    *(uint64_t *)value = v[attr];
    return 0;
}

/* Only the high watermarks can be set, and only back to 0. */
cudaError_t cudaDeviceSetGraphMemAttribute(int device, enum cudaGraphMemAttributeType attr, void *value) {
    if (!value || device < 0 || device >= rgpu_device_count() || (attr != 1 && attr != 3) || *(uint64_t *)value)
        return rgpu_invalid_value(RGPU_RUNTIME);
    pthread_mutex_lock(&rgpu_graph_mu);
    if (attr == 1) used_high = 0;
    else reserved_high = 0;
    note_highs();
    pthread_mutex_unlock(&rgpu_graph_mu);
    return 0;
}

/* Graph memory is held by the graphs that can launch it again: there is nothing unused to trim. */
cudaError_t cudaDeviceGraphMemTrim(int device) {
    return device >= 0 && device < rgpu_device_count() ? 0 : rgpu_record(RGPU_RUNTIME, RGPU_INVALID_DEVICE);
}
