/* CUDA arrays: creation and destruction through the Driver's calls (the Runtime's converted to
 * them: a channel descriptor is a format and a channel count), and what the client keeps of each
 * array -- its descriptor, by handle -- because the Runtime counts array copies in elements while the
 * wire counts bytes (memory/array_copy.c). The server keeps the arrays and checks everything. */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "rgpu_call.h"
#include "texture.h"

/* ---- the descriptors of the arrays this process made ----------------------------------------- */

typedef struct known {
    const void *handle;
    CUDA_ARRAY3D_DESCRIPTOR desc;
    const void *mipmap;      /* the mipmapped array a level array belongs to (and the mipmap's own entry: itself) */
    struct known *next;
} known;

#define BUCKETS 256
static known *table[BUCKETS];
static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;

static unsigned bucket(const void *h) {
    uintptr_t v = (uintptr_t)h;
    return (unsigned)((v >> 3) ^ (v >> 13) ^ (v >> 56)) % BUCKETS;
}

static void remember(const void *h, const CUDA_ARRAY3D_DESCRIPTOR *d, const void *mipmap) {
    known *k = calloc(1, sizeof *k);
    if (!k) return; /* the copies that need it answer invalid-handle; nothing else does */
    k->handle = h, k->desc = *d, k->mipmap = mipmap;
    pthread_mutex_lock(&mu);
    unsigned b = bucket(h);
    k->next = table[b];
    table[b] = k;
    pthread_mutex_unlock(&mu);
}

/* Forgets h, and with a mipmapped array every level of it. */
static void forget(const void *h, int levels_too) {
    pthread_mutex_lock(&mu);
    for (unsigned b = 0; b < BUCKETS; b++) {
        if (!levels_too && b != bucket(h)) continue;
        for (known **p = &table[b]; *p;) {
            if ((*p)->handle == h || (levels_too && (*p)->mipmap == h)) {
                known *dead = *p;
                *p = dead->next;
                free(dead);
            } else {
                p = &(*p)->next;
            }
        }
    }
    pthread_mutex_unlock(&mu);
}

int rgpu_array_desc(const void *h, CUDA_ARRAY3D_DESCRIPTOR *out) {
    int rc = RGPU_INVALID_HANDLE;
    pthread_mutex_lock(&mu);
    for (known *k = table[bucket(h)]; k; k = k->next)
        if (k->handle == h) { *out = k->desc; rc = 0; break; }
    pthread_mutex_unlock(&mu);
    return rc;
}

size_t rgpu_array_elem(const CUDA_ARRAY3D_DESCRIPTOR *d) {
    size_t bytes;
    switch (d->Format) {
    case CU_AD_FORMAT_UNSIGNED_INT8: case CU_AD_FORMAT_SIGNED_INT8: bytes = 1; break;
    case CU_AD_FORMAT_UNSIGNED_INT16: case CU_AD_FORMAT_SIGNED_INT16: case CU_AD_FORMAT_HALF: bytes = 2; break;
    case CU_AD_FORMAT_UNSIGNED_INT32: case CU_AD_FORMAT_SIGNED_INT32: case CU_AD_FORMAT_FLOAT: bytes = 4; break;
    default: return 0;
    }
    return bytes * d->NumChannels;
}

/* ---- the Runtime's channel descriptors ---------------------------------------------------------- */

int rgpu_channel_format(const struct cudaChannelFormatDesc *c, CUarray_format *format, unsigned *channels) {
    if (!c) return cudaErrorInvalidValue;
    int bits[4] = {c->x, c->y, c->z, c->w}, n = 0;
    while (n < 4 && bits[n]) n++;
    for (int i = 0; i < 4; i++)
        if ((i < n && bits[i] != bits[0]) || (i >= n && bits[i])) return cudaErrorInvalidChannelDescriptor;
    if (n != 1 && n != 2 && n != 4) return cudaErrorInvalidChannelDescriptor;
    int f = -1;
    switch (c->f) {
    case cudaChannelFormatKindSigned:
        f = bits[0] == 8 ? CU_AD_FORMAT_SIGNED_INT8 : bits[0] == 16 ? CU_AD_FORMAT_SIGNED_INT16
          : bits[0] == 32 ? CU_AD_FORMAT_SIGNED_INT32 : -1;
        break;
    case cudaChannelFormatKindUnsigned:
        f = bits[0] == 8 ? CU_AD_FORMAT_UNSIGNED_INT8 : bits[0] == 16 ? CU_AD_FORMAT_UNSIGNED_INT16
          : bits[0] == 32 ? CU_AD_FORMAT_UNSIGNED_INT32 : -1;
        break;
    case cudaChannelFormatKindFloat:
        f = bits[0] == 16 ? CU_AD_FORMAT_HALF : bits[0] == 32 ? CU_AD_FORMAT_FLOAT : -1;
        break;
    default:
        break;
    }
    if (f < 0) return cudaErrorInvalidChannelDescriptor;
    *format = (CUarray_format)f, *channels = (unsigned)n;
    return 0;
}

void rgpu_format_channel(CUarray_format format, unsigned channels, struct cudaChannelFormatDesc *c) {
    CUDA_ARRAY3D_DESCRIPTOR d = {.Format = format, .NumChannels = 1};
    int bits = (int)rgpu_array_elem(&d) * 8;
    enum cudaChannelFormatKind kind = format == CU_AD_FORMAT_HALF || format == CU_AD_FORMAT_FLOAT ? cudaChannelFormatKindFloat
        : format == CU_AD_FORMAT_SIGNED_INT8 || format == CU_AD_FORMAT_SIGNED_INT16 || format == CU_AD_FORMAT_SIGNED_INT32
        ? cudaChannelFormatKindSigned : cudaChannelFormatKindUnsigned;
    *c = (struct cudaChannelFormatDesc){channels > 0 ? bits : 0, channels > 1 ? bits : 0, channels > 2 ? bits : 0,
                                        channels > 3 ? bits : 0, kind};
}

/* ---- Driver API ------------------------------------------------------------------------------- */

static int create_3d(int face, CUarray *out, const CUDA_ARRAY3D_DESCRIPTOR *d) {
    if (!out || !d) return rgpu_invalid_value(face);
    int rc = RGPU_GUARD_cuArray3DCreate_v2();
    if (rc) return rc;
    rgpu_call c;
    rgpu_wire_cuArray3DCreate_v2(&c, d, sizeof *d);
    c.face = face;
    rc = rgpu_sync(&c);
    if (rc == 0) {
        void *h = NULL;
        rgpu_wire_out_cuArray3DCreate_v2(&c, &h);
        *out = (CUarray)h;
        remember(h, d, NULL);
    }
    rgpu_end(&c);
    return rc;
}

CUresult cuArray3DCreate_v2(CUarray *out, const CUDA_ARRAY3D_DESCRIPTOR *d) { return create_3d(RGPU_DRIVER, out, d); }

CUresult cuArrayCreate_v2(CUarray *out, const CUDA_ARRAY_DESCRIPTOR *d) {
    if (!out || !d) return rgpu_invalid_value(RGPU_DRIVER);
    int rc = RGPU_GUARD_cuArrayCreate_v2();
    if (rc) return rc;
    rgpu_call c;
    rgpu_wire_cuArrayCreate_v2(&c, d, sizeof *d);
    rc = rgpu_sync(&c);
    if (rc == 0) {
        void *h = NULL;
        rgpu_wire_out_cuArrayCreate_v2(&c, &h);
        *out = (CUarray)h;
        CUDA_ARRAY3D_DESCRIPTOR d3 = {d->Width, d->Height, 0, d->Format, d->NumChannels, 0};
        remember(h, &d3, NULL);
    }
    rgpu_end(&c);
    return rc;
}

static int destroy(int face, CUarray a) {
    int rc = RGPU_GUARD_cuArrayDestroy();
    if (rc) return rc;
    rgpu_call c;
    rgpu_wire_cuArrayDestroy(&c, a);
    c.face = face;
    rc = rgpu_sync(&c);
    rgpu_end(&c);
    if (rc == 0) forget(a, 0);
    return rc;
}

CUresult cuArrayDestroy(CUarray a) { return destroy(RGPU_DRIVER, a); }

static int mipmap_create(int face, CUmipmappedArray *out, const CUDA_ARRAY3D_DESCRIPTOR *d, unsigned levels) {
    if (!out || !d) return rgpu_invalid_value(face);
    int rc = RGPU_GUARD_cuMipmappedArrayCreate();
    if (rc) return rc;
    rgpu_call c;
    rgpu_wire_cuMipmappedArrayCreate(&c, d, sizeof *d, levels);
    c.face = face;
    rc = rgpu_sync(&c);
    if (rc == 0) {
        void *h = NULL;
        rgpu_wire_out_cuMipmappedArrayCreate(&c, &h);
        *out = (CUmipmappedArray)h;
        remember(h, d, h);
    }
    rgpu_end(&c);
    return rc;
}

CUresult cuMipmappedArrayCreate(CUmipmappedArray *out, const CUDA_ARRAY3D_DESCRIPTOR *d, unsigned int levels) {
    return mipmap_create(RGPU_DRIVER, out, d, levels);
}

/* Level n of a mipmapped array: each dimension halved n times (never below 1); layers stay. */
static CUDA_ARRAY3D_DESCRIPTOR level_desc(CUDA_ARRAY3D_DESCRIPTOR d, unsigned n) {
    size_t *dims[3] = {&d.Width, &d.Height, &d.Depth};
    int layered = (d.Flags & (CUDA_ARRAY3D_LAYERED | CUDA_ARRAY3D_CUBEMAP)) != 0;
    for (int i = 0; i < 3; i++) {
        if (i == 2 && layered) break;
        if (*dims[i]) *dims[i] = *dims[i] >> n ? *dims[i] >> n : 1;
    }
    return d;
}

static int mipmap_level(int face, CUarray *out, CUmipmappedArray m, unsigned level) {
    if (!out) return rgpu_invalid_value(face);
    rgpu_call c;
    rgpu_wire_cuMipmappedArrayGetLevel(&c, m, level);
    c.face = face;
    int rc = rgpu_sync(&c);
    if (rc == 0) {
        void *h = NULL;
        rgpu_wire_out_cuMipmappedArrayGetLevel(&c, &h);
        *out = (CUarray)h;
        CUDA_ARRAY3D_DESCRIPTOR d, probe;
        if (rgpu_array_desc(m, &d) == 0 && rgpu_array_desc(h, &probe) != 0) {
            d = level_desc(d, level);
            remember(h, &d, m);
        }
    }
    rgpu_end(&c);
    return rc;
}

CUresult cuMipmappedArrayGetLevel(CUarray *out, CUmipmappedArray m, unsigned int level) {
    return mipmap_level(RGPU_DRIVER, out, m, level);
}

static int mipmap_destroy(int face, CUmipmappedArray m) {
    int rc = RGPU_GUARD_cuMipmappedArrayDestroy();
    if (rc) return rc;
    rgpu_call c;
    rgpu_wire_cuMipmappedArrayDestroy(&c, m);
    c.face = face;
    rc = rgpu_sync(&c);
    rgpu_end(&c);
    if (rc == 0) forget(m, 1);
    return rc;
}

CUresult cuMipmappedArrayDestroy(CUmipmappedArray m) { return mipmap_destroy(RGPU_DRIVER, m); }

/* ---- Runtime API ------------------------------------------------------------------------------ */

static int runtime_desc(const struct cudaChannelFormatDesc *c, size_t w, size_t h, size_t d, unsigned flags,
                        CUDA_ARRAY3D_DESCRIPTOR *out) {
    CUarray_format f;
    unsigned n;
    int rc = rgpu_channel_format(c, &f, &n);
    if (rc) return rgpu_record(RGPU_RUNTIME, rc);
    *out = (CUDA_ARRAY3D_DESCRIPTOR){w, h, d, f, n, flags};
    return 0;
}

cudaError_t cudaMallocArray(cudaArray_t *array, const struct cudaChannelFormatDesc *desc, size_t width, size_t height, unsigned int flags) {
    CUDA_ARRAY3D_DESCRIPTOR d;
    int rc = runtime_desc(desc, width, height, 0, flags, &d);
    return rc ? rc : create_3d(RGPU_RUNTIME, (CUarray *)array, &d);
}

cudaError_t cudaMalloc3DArray(cudaArray_t *array, const struct cudaChannelFormatDesc *desc, struct cudaExtent e, unsigned int flags) {
    CUDA_ARRAY3D_DESCRIPTOR d;
    int rc = runtime_desc(desc, e.width, e.height, e.depth, flags, &d);
    return rc ? rc : create_3d(RGPU_RUNTIME, (CUarray *)array, &d);
}

cudaError_t cudaMallocMipmappedArray(cudaMipmappedArray_t *m, const struct cudaChannelFormatDesc *desc, struct cudaExtent e,
                                     unsigned int levels, unsigned int flags) {
    CUDA_ARRAY3D_DESCRIPTOR d;
    int rc = runtime_desc(desc, e.width, e.height, e.depth, flags, &d);
    return rc ? rc : mipmap_create(RGPU_RUNTIME, (CUmipmappedArray *)m, &d, levels);
}

cudaError_t cudaFreeArray(cudaArray_t a) {
    if (!a) return 0; /* as cudaFree(NULL) */
    return destroy(RGPU_RUNTIME, (CUarray)a);
}

cudaError_t cudaFreeMipmappedArray(cudaMipmappedArray_t m) {
    if (!m) return 0;
    return mipmap_destroy(RGPU_RUNTIME, (CUmipmappedArray)m);
}

cudaError_t cudaGetMipmappedArrayLevel(cudaArray_t *out, cudaMipmappedArray_const_t m, unsigned int level) {
    return mipmap_level(RGPU_RUNTIME, (CUarray *)out, (CUmipmappedArray)m, level);
}

/* The server's descriptor of an array, by the Driver's call, as the call of `face`. */
static int descriptor(int face, const void *array, CUDA_ARRAY3D_DESCRIPTOR *d) {
    int rc = cuArray3DGetDescriptor_v2(d, (CUarray)array);
    return rc ? rgpu_record(face, rc) : 0;
}

cudaError_t cudaArrayGetInfo(struct cudaChannelFormatDesc *desc, struct cudaExtent *extent, unsigned int *flags, cudaArray_t array) {
    CUDA_ARRAY3D_DESCRIPTOR d;
    int rc = descriptor(RGPU_RUNTIME, array, &d);
    if (rc) return rc;
    if (desc) rgpu_format_channel(d.Format, d.NumChannels, desc);
    if (extent) *extent = (struct cudaExtent){d.Width, d.Height, d.Depth};
    if (flags) *flags = d.Flags;
    return 0;
}

cudaError_t cudaGetChannelDesc(struct cudaChannelFormatDesc *desc, cudaArray_const_t array) {
    if (!desc) return rgpu_invalid_value(RGPU_RUNTIME);
    CUDA_ARRAY3D_DESCRIPTOR d;
    int rc = descriptor(RGPU_RUNTIME, array, &d);
    if (rc == 0) rgpu_format_channel(d.Format, d.NumChannels, desc);
    return rc;
}

cudaError_t cudaDeviceGetTexture1DLinearMaxWidth(size_t *out, const struct cudaChannelFormatDesc *desc, int device) {
    CUarray_format f;
    unsigned n;
    int rc = rgpu_channel_format(desc, &f, &n);
    if (rc) return rgpu_record(RGPU_RUNTIME, rc);
    rc = cuDeviceGetTexture1DLinearMaxWidth(out, f, n, device);
    return rc ? rgpu_record(RGPU_RUNTIME, rc) : 0;
}
