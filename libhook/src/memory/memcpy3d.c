/* 3D copies and memsets of linear (pitched) memory: cudaMalloc3D, cudaMemcpy3D(Async) and
 * cudaMemset3D(Async). A 3D region is depth slices of height rows; when every row of each slice is
 * copied the rows are evenly spaced through the volume and the whole region is one pitched 2D copy,
 * otherwise one 2D copy per slice. CUDA arrays (srcArray/dstArray) are not supported yet. */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "copy3d.h"
#include "rgpu_call.h"

extern int cudaMemcpy2D(void *dst, size_t dpitch, const void *src, size_t spitch, size_t w, size_t h, int kind);
extern int cudaMemcpy2DAsync(void *dst, size_t dpitch, const void *src, size_t spitch, size_t w, size_t h, int kind,
                             void *stream);
extern int cudaMallocPitch(void **ptr, size_t *pitch, size_t width, size_t height);
extern int cudaMemset2D(void *dst, size_t pitch, int value, size_t width, size_t height);
extern int cudaMemset2DAsync(void *dst, size_t pitch, int value, size_t width, size_t height, void *stream);

#define INVALID_PITCH 12 /* cudaErrorInvalidPitchValue */

/* Where (x, y, z) of a pitched volume is: x in bytes, slices ysize rows apart. */
static char *at(const pitched_ptr *p, const triple *o, size_t y, size_t z) {
    return (char *)p->ptr + ((o->z + z) * p->ysize + o->y + y) * p->pitch + o->x;
}

static int copy_3d(const copy3d_params *p, void *stream, int async) {
    if (!p) return rgpu_invalid_value(RGPU_RUNTIME);
    if (p->srcArray || p->dstArray) return rgpu_unsupported(RGPU_RUNTIME, "cudaMemcpy3D with CUDA arrays");
    const extent3 *e = &p->extent;
    if (!e->width || !e->height || !e->depth) return RGPU_SUCCESS;
    if (!p->srcPtr.ptr || !p->dstPtr.ptr) return rgpu_invalid_value(RGPU_RUNTIME);
    const pitched_ptr *s = &p->srcPtr, *d = &p->dstPtr;
    if (s->pitch < p->srcPos.x + e->width || d->pitch < p->dstPos.x + e->width)
        return rgpu_record(RGPU_RUNTIME, INVALID_PITCH);
    /* A volume of depth > 1 needs its slice height; one of a single slice does not. */
    if (e->depth > 1 && (s->ysize < p->srcPos.y + e->height || d->ysize < p->dstPos.y + e->height))
        return rgpu_invalid_value(RGPU_RUNTIME);
    if (e->depth == 1 || (e->height == s->ysize && e->height == d->ysize)) {
        size_t rows = e->height * e->depth;
        const void *src = at(s, &p->srcPos, 0, 0);
        void *dst = at(d, &p->dstPos, 0, 0);
        return async ? cudaMemcpy2DAsync(dst, d->pitch, src, s->pitch, e->width, rows, p->kind, stream)
                     : cudaMemcpy2D(dst, d->pitch, src, s->pitch, e->width, rows, p->kind);
    }
    for (size_t z = 0; z < e->depth; z++) {
        const void *src = at(s, &p->srcPos, 0, z);
        void *dst = at(d, &p->dstPos, 0, z);
        int rc = async ? cudaMemcpy2DAsync(dst, d->pitch, src, s->pitch, e->width, e->height, p->kind, stream)
                       : cudaMemcpy2D(dst, d->pitch, src, s->pitch, e->width, e->height, p->kind);
        if (rc) return rc;
    }
    return RGPU_SUCCESS;
}

int cudaMemcpy3D(const copy3d_params *p) { return copy_3d(p, NULL, 0); }
int cudaMemcpy3DAsync(const copy3d_params *p, void *stream) { return copy_3d(p, stream, 1); }

int cudaMalloc3D(pitched_ptr *out, extent3 e) {
    if (!out) return rgpu_invalid_value(RGPU_RUNTIME);
    void *ptr = NULL;
    size_t pitch = 0;
    int rc = cudaMallocPitch(&ptr, &pitch, e.width, e.height * (e.depth ? e.depth : 1));
    if (rc) return rc;
    *out = (pitched_ptr){ptr, pitch, e.width, e.height};
    return RGPU_SUCCESS;
}

static int memset_3d(pitched_ptr p, int value, extent3 e, void *stream, int async) {
    if (!e.width || !e.height || !e.depth) return RGPU_SUCCESS;
    if (!p.ptr) return rgpu_invalid_value(RGPU_RUNTIME);
    if (e.depth > 1 && p.ysize < e.height) return rgpu_invalid_value(RGPU_RUNTIME);
    size_t rows = e.depth == 1 || e.height == p.ysize ? e.height * e.depth : e.height;
    size_t slices = rows == e.height ? e.depth : 1;
    for (size_t z = 0; z < slices; z++) {
        void *base = (char *)p.ptr + z * p.ysize * p.pitch;
        int rc = async ? cudaMemset2DAsync(base, p.pitch, value, e.width, rows, stream)
                       : cudaMemset2D(base, p.pitch, value, e.width, rows);
        if (rc) return rc;
    }
    return RGPU_SUCCESS;
}

int cudaMemset3D(pitched_ptr p, int value, extent3 e) { return memset_3d(p, value, e, NULL, 0); }
int cudaMemset3DAsync(pitched_ptr p, int value, extent3 e, void *stream) { return memset_3d(p, value, e, stream, 1); }

/* ---- Driver API: cuMemcpy3D(_v2, Async) on CUDA_MEMCPY3D of linear memory ------------------- */

enum { MT_HOST = 1, MT_DEVICE = 2, MT_ARRAY = 3, MT_UNIFIED = 4 };

typedef struct {
    size_t srcXInBytes, srcY, srcZ, srcLOD;
    int srcMemoryType; const void *srcHost; uint64_t srcDevice; void *srcArray; void *reserved0;
    size_t srcPitch, srcHeight;
    size_t dstXInBytes, dstY, dstZ, dstLOD;
    int dstMemoryType; void *dstHost; uint64_t dstDevice; void *dstArray; void *reserved1;
    size_t dstPitch, dstHeight;
    size_t WidthInBytes, Height, Depth;
} memcpy3d_params; /* CUDA_MEMCPY3D */

/* One side as the Runtime's pitched pointer: host, device, or a unified address (then the kind comes
 * from the pointers, as cudaMemcpyDefault does). */
static int side3(int type, const void *host, uint64_t device, size_t pitch, size_t height, pitched_ptr *out,
                 int *is_dev) {
    if (type == MT_HOST && host) *out = (pitched_ptr){(void *)host, pitch, 0, height}, *is_dev = 0;
    else if (type == MT_DEVICE && device) *out = (pitched_ptr){(void *)(uintptr_t)device, pitch, 0, height}, *is_dev = 1;
    else if (type == MT_UNIFIED && device) *out = (pitched_ptr){(void *)(uintptr_t)device, pitch, 0, height}, *is_dev = -1;
    else return -1;
    return 0;
}

enum { H2H = 0, H2D = 1, D2H = 2, D2D = 3, DEFAULT = 4 };

/* A CUDA_MEMCPY3D of linear memory as the Runtime's cudaMemcpy3DParms (copies and graph copy nodes). */
int rgpu_memcpy3d_from_driver(const void *params, copy3d_params *r) {
    const memcpy3d_params *p = params;
    if (!p) return RGPU_INVALID_VALUE;
    if (p->srcMemoryType == MT_ARRAY || p->dstMemoryType == MT_ARRAY)
        return rgpu_unsupported(RGPU_DRIVER, "CUDA_MEMCPY3D with CUDA arrays");
    if (p->srcLOD || p->dstLOD || p->reserved0 || p->reserved1) return RGPU_INVALID_VALUE;
    *r = (copy3d_params){0};
    int sdev, ddev;
    if (side3(p->srcMemoryType, p->srcHost, p->srcDevice, p->srcPitch, p->srcHeight, &r->srcPtr, &sdev) ||
        side3(p->dstMemoryType, p->dstHost, p->dstDevice, p->dstPitch, p->dstHeight, &r->dstPtr, &ddev))
        return RGPU_INVALID_VALUE;
    r->srcPos = (triple){p->srcXInBytes, p->srcY, p->srcZ};
    r->dstPos = (triple){p->dstXInBytes, p->dstY, p->dstZ};
    r->extent = (extent3){p->WidthInBytes, p->Height, p->Depth};
    r->kind = sdev < 0 || ddev < 0 ? DEFAULT : sdev ? (ddev ? D2D : D2H) : (ddev ? H2D : H2H);
    return RGPU_SUCCESS;
}

/* ...and back, for cuGraphMemcpyNodeGetParams: host sides as host memory, device sides as device memory. */
void rgpu_memcpy3d_to_driver(const copy3d_params *r, void *params) {
    memcpy3d_params *p = params;
    memset(p, 0, sizeof *p);
    int src_dev = r->kind == D2H || r->kind == D2D, dst_dev = r->kind == H2D || r->kind == D2D;
    p->srcXInBytes = r->srcPos.x, p->srcY = r->srcPos.y, p->srcZ = r->srcPos.z;
    p->srcMemoryType = r->kind == DEFAULT ? MT_UNIFIED : src_dev ? MT_DEVICE : MT_HOST;
    if (p->srcMemoryType == MT_HOST) p->srcHost = r->srcPtr.ptr;
    else p->srcDevice = (uint64_t)(uintptr_t)r->srcPtr.ptr;
    p->srcPitch = r->srcPtr.pitch, p->srcHeight = r->srcPtr.ysize;
    p->dstXInBytes = r->dstPos.x, p->dstY = r->dstPos.y, p->dstZ = r->dstPos.z;
    p->dstMemoryType = r->kind == DEFAULT ? MT_UNIFIED : dst_dev ? MT_DEVICE : MT_HOST;
    if (p->dstMemoryType == MT_HOST) p->dstHost = r->dstPtr.ptr;
    else p->dstDevice = (uint64_t)(uintptr_t)r->dstPtr.ptr;
    p->dstPitch = r->dstPtr.pitch, p->dstHeight = r->dstPtr.ysize;
    p->WidthInBytes = r->extent.width, p->Height = r->extent.height, p->Depth = r->extent.depth;
}

static int driver_copy_3d(const memcpy3d_params *p, void *stream, int async) {
    copy3d_params r;
    int rc = rgpu_memcpy3d_from_driver(p, &r);
    if (rc) return rgpu_record(RGPU_DRIVER, rc);
    rc = copy_3d(&r, stream, async);
    return rc == INVALID_PITCH ? rgpu_invalid_value(RGPU_DRIVER) : rc;
}

int cuMemcpy3D_v2(const memcpy3d_params *p) { return driver_copy_3d(p, NULL, 0); }
int cuMemcpy3DAsync_v2(const memcpy3d_params *p, void *stream) { return driver_copy_3d(p, stream, 1); }
