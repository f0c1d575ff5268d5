/* What the program said about its managed memory, for cudaMemRangeGetAttribute(s): the advice
 * (cudaMemAdvise: read-mostly, a preferred location, the processors that access it) and the last
 * prefetch location, per host page of each managed allocation, as CUDA keeps them. None of it changes
 * where rgpu's managed memory is (managed.c: coherence at synchronisations); programs that read their
 * own advice back see what they set. A page's locations: a device ordinal, cudaCpuDeviceId (-1) for the
 * host, cudaInvalidDeviceId (-2) for none. An allocation's state is made at its first advice or
 * prefetch and goes with its free. */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "rgpu_call.h"

#define PAGE 4096
#define NONE cudaInvalidDeviceId
#define CPU cudaCpuDeviceId
#define CPU_BIT (1u << 31) /* in `accessed`: the host; bit d: device d */

typedef struct state {
    uint64_t base;
    size_t pages;
    uint8_t *read_mostly;
    int32_t *preferred, *prefetched;
    uint32_t *accessed;
    struct state *next;
} state;

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static state *states;

static state *find(uint64_t base) {
    for (state *s = states; s; s = s->next)
        if (s->base == base) return s;
    return NULL;
}

static void release(state *s) {
    free(s->read_mostly), free(s->preferred), free(s->prefetched), free(s->accessed), free(s);
}

/* The state of the allocation [base, base+size), made at first use (NULL: no memory for it). */
static state *of(uint64_t base, size_t size) {
    state *s = find(base);
    if (s) return s;
    s = calloc(1, sizeof *s);
    size_t pages = (size + PAGE - 1) / PAGE;
    if (!s || !(s->read_mostly = calloc(pages, 1)) || !(s->preferred = malloc(pages * 4)) ||
        !(s->prefetched = malloc(pages * 4)) || !(s->accessed = calloc(pages, 4))) {
        if (s) release(s);
        return NULL;
    }
    for (size_t i = 0; i < pages; i++) s->preferred[i] = s->prefetched[i] = NONE;
    s->base = base, s->pages = pages, s->next = states;
    states = s;
    return s;
}

static void pages_of(const state *s, uint64_t p, size_t n, size_t *first, size_t *end) {
    *first = (p - s->base) / PAGE;
    *end = (p - s->base + n + PAGE - 1) / PAGE;
    if (*end > s->pages) *end = s->pages;
}

void rgpu_advice_note(uint64_t base, size_t size, uint64_t p, size_t n, int advice, int where) {
    pthread_mutex_lock(&mu);
    state *s = of(base, size);
    size_t a, b;
    if (s) pages_of(s, p, n, &a, &b);
    for (size_t i = a; s && i < b; i++) {
        uint32_t bit = where == CPU ? CPU_BIT : where >= 0 && where < 31 ? 1u << where : 0;
        switch (advice) {
        case cudaMemAdviseSetReadMostly: s->read_mostly[i] = 1; break;
        case cudaMemAdviseUnsetReadMostly: s->read_mostly[i] = 0; break;
        case cudaMemAdviseSetPreferredLocation: s->preferred[i] = where; break;
        case cudaMemAdviseUnsetPreferredLocation: s->preferred[i] = NONE; break;
        case cudaMemAdviseSetAccessedBy: s->accessed[i] |= bit; break;
        case cudaMemAdviseUnsetAccessedBy: s->accessed[i] &= ~bit; break;
        }
    }
    pthread_mutex_unlock(&mu);
}

void rgpu_advice_prefetched(uint64_t base, size_t size, uint64_t p, size_t n, int where) {
    pthread_mutex_lock(&mu);
    state *s = of(base, size);
    size_t a, b;
    if (s) pages_of(s, p, n, &a, &b);
    for (size_t i = a; s && i < b; i++) s->prefetched[i] = where;
    pthread_mutex_unlock(&mu);
}

void rgpu_advice_forget(uint64_t base) {
    pthread_mutex_lock(&mu);
    for (state **link = &states; *link; link = &(*link)->next)
        if ((*link)->base == base) {
            state *s = *link;
            *link = s->next;
            release(s);
            break;
        }
    pthread_mutex_unlock(&mu);
}

/* The one location every page of [a, b) has, or NONE */
static int32_t common(const int32_t *v, size_t a, size_t b) {
    for (size_t i = a + 1; i < b; i++)
        if (v[i] != v[a]) return NONE;
    return a < b ? v[a] : NONE;
}

static void as_type_id(int32_t where, int *type, int *id) {
    *type = where == NONE ? cudaMemLocationTypeInvalid : where == CPU ? cudaMemLocationTypeHost
                                                                       : cudaMemLocationTypeDevice;
    *id = where >= 0 ? where : 0;
}

/* Attribute `attr` of [p, p+n) of the allocation at base into data (len bytes). */
static int query(uint64_t base, uint64_t p, size_t n, int attr, void *data, size_t len) {
    if (!data || !len || len % 4 || (attr != cudaMemRangeAttributeAccessedBy && len != 4)) return RGPU_INVALID_VALUE;
    int32_t *out = data;
    pthread_mutex_lock(&mu);
    state *s = find(base);
    size_t a = 0, b = 0;
    if (s) pages_of(s, p, n, &a, &b);
    int32_t pref = s ? common(s->preferred, a, b) : NONE, last = s ? common(s->prefetched, a, b) : NONE;
    int rc = 0, type, id;
    switch (attr) {
    case cudaMemRangeAttributeReadMostly: {
        int all = s != NULL && a < b;
        for (size_t i = a; all && i < b; i++) all = s->read_mostly[i];
        *out = all;
        break;
    }
    case cudaMemRangeAttributePreferredLocation: *out = pref; break;
    case cudaMemRangeAttributeLastPrefetchLocation: *out = last; break;
    case cudaMemRangeAttributePreferredLocationType: as_type_id(pref, &type, &id), *out = type; break;
    case cudaMemRangeAttributePreferredLocationId: as_type_id(pref, &type, &id), *out = id; break;
    case cudaMemRangeAttributeLastPrefetchLocationType: as_type_id(last, &type, &id), *out = type; break;
    case cudaMemRangeAttributeLastPrefetchLocationId: as_type_id(last, &type, &id), *out = id; break;
    case cudaMemRangeAttributeAccessedBy: {
        uint32_t all = s && a < b ? ~0u : 0;
        for (size_t i = a; s && i < b; i++) all &= s->accessed[i];
        size_t k = 0, cap = len / 4;
        for (int d = 0; d < rgpu_device_count() && d < 31; d++)
            if (all >> d & 1 && k < cap) out[k++] = d;
        if (all & CPU_BIT && k < cap) out[k++] = CPU;
        while (k < cap) out[k++] = NONE;
        break;
    }
    default: rc = RGPU_INVALID_VALUE;
    }
    pthread_mutex_unlock(&mu);
    return rc;
}

static int range_attrs(int face, void **data, size_t *lens, const int *attrs, size_t nattrs, uint64_t p, size_t n) {
    int rc = rgpu_ensure_init();
    if (rc) return rgpu_record(face, rc);
    uint64_t base;
    size_t size;
    if (!data || !lens || !attrs || !nattrs || rgpu_managed_bounds(p, n, &base, &size)) return rgpu_invalid_value(face);
    for (size_t i = 0; i < nattrs; i++)
        if ((rc = query(base, p, n, attrs[i], data[i], lens[i]))) return rgpu_record(face, rc);
    return RGPU_SUCCESS;
}

cudaError_t cudaMemRangeGetAttribute(void *data, size_t dataSize, enum cudaMemRangeAttribute attribute,
                                     const void *devPtr, size_t count) {
    int attr = attribute;
    return range_attrs(RGPU_RUNTIME, &data, &dataSize, &attr, 1, (uint64_t)(uintptr_t)devPtr, count);
}
cudaError_t cudaMemRangeGetAttributes(void **data, size_t *dataSizes, enum cudaMemRangeAttribute *attributes,
                                      size_t numAttributes, const void *devPtr, size_t count) {
    _Static_assert(sizeof(enum cudaMemRangeAttribute) == sizeof(int), "attributes are ints");
    return range_attrs(RGPU_RUNTIME, data, dataSizes, (const int *)attributes, numAttributes,
                       (uint64_t)(uintptr_t)devPtr, count);
}
CUresult cuMemRangeGetAttribute(void *data, size_t dataSize, CUmem_range_attribute attribute, CUdeviceptr devPtr,
                                size_t count) {
    int attr = attribute;
    return range_attrs(RGPU_DRIVER, &data, &dataSize, &attr, 1, devPtr, count);
}
CUresult cuMemRangeGetAttributes(void **data, size_t *dataSizes, CUmem_range_attribute *attributes,
                                 size_t numAttributes, CUdeviceptr devPtr, size_t count) {
    _Static_assert(sizeof(CUmem_range_attribute) == sizeof(int), "attributes are ints");
    return range_attrs(RGPU_DRIVER, data, dataSizes, (const int *)attributes, numAttributes, devPtr, count);
}
