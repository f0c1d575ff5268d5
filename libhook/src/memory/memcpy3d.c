/* 3D copies and memsets of linear (pitched) memory: cudaMalloc3D, cudaMemcpy3D(Async) and
 * cudaMemset3D(Async). A 3D region is depth slices of height rows; when every row of each slice is
 * copied the rows are evenly spaced through the volume and the whole region is one pitched 2D copy,
 * otherwise one 2D copy per slice. CUDA arrays (srcArray/dstArray) are not supported yet. */
#include <stddef.h>
#include <stdint.h>

#include "rgpu_call.h"


/* Where (x, y, z) of a pitched volume is: x in bytes, slices ysize rows apart. */
static char *at(const struct cudaPitchedPtr *p, const struct cudaPos *o, size_t y, size_t z) {
    return (char *)p->ptr + ((o->z + z) * p->ysize + o->y + y) * p->pitch + o->x;
}

static int copy_3d(const struct cudaMemcpy3DParms *p, void *stream, int async) {
    if (!p) return rgpu_invalid_value(RGPU_RUNTIME);
    if (p->srcArray || p->dstArray) return rgpu_unsupported(RGPU_RUNTIME, "cudaMemcpy3D with CUDA arrays");
    const struct cudaExtent *e = &p->extent;
    if (!e->width || !e->height || !e->depth) return RGPU_SUCCESS;
    if (!p->srcPtr.ptr || !p->dstPtr.ptr) return rgpu_invalid_value(RGPU_RUNTIME);
    const struct cudaPitchedPtr *s = &p->srcPtr, *d = &p->dstPtr;
    if (s->pitch < p->srcPos.x + e->width || d->pitch < p->dstPos.x + e->width)
        return rgpu_record(RGPU_RUNTIME, cudaErrorInvalidPitchValue);
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

cudaError_t cudaMemcpy3D(const struct cudaMemcpy3DParms *p) { return copy_3d(p, NULL, 0); }
cudaError_t cudaMemcpy3DAsync(const struct cudaMemcpy3DParms *p, cudaStream_t stream) { return copy_3d(p, stream, 1); }

cudaError_t cudaMalloc3D(struct cudaPitchedPtr *out, struct cudaExtent e) {
    if (!out) return rgpu_invalid_value(RGPU_RUNTIME);
    void *ptr = NULL;
    size_t pitch = 0;
    int rc = cudaMallocPitch(&ptr, &pitch, e.width, e.height * (e.depth ? e.depth : 1));
    if (rc) return rc;
    *out = (struct cudaPitchedPtr){ptr, pitch, e.width, e.height};
    return RGPU_SUCCESS;
}

static int memset_3d(struct cudaPitchedPtr p, int value, struct cudaExtent e, void *stream, int async) {
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

cudaError_t cudaMemset3D(struct cudaPitchedPtr p, int value, struct cudaExtent e) { return memset_3d(p, value, e, NULL, 0); }
cudaError_t cudaMemset3DAsync(struct cudaPitchedPtr p, int value, struct cudaExtent e, cudaStream_t stream) { return memset_3d(p, value, e, stream, 1); }
