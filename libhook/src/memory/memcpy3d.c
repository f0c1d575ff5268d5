/* 3D copies and memsets: cudaMalloc3D, cudaMemcpy3D(Async), cudaMemset3D(Async) and the Driver's
 * cuMemcpy3D(Async). Of linear (pitched) memory, a 3D region is depth slices of height rows; when every
 * row of each slice is copied the rows are evenly spaced through the volume and the whole region is
 * one pitched 2D copy, otherwise one 2D copy per slice. A copy with a CUDA array on either side is a
 * box of memory/array_copy.c. */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "memcpy3d.h"
#include "rgpu_call.h"
#include "texture.h"


/* Where (x, y, z) of a pitched volume is: x in bytes, slices ysize rows apart. */
static char *at(const struct cudaPitchedPtr *p, const struct cudaPos *o, size_t y, size_t z) {
    return (char *)p->ptr + ((o->z + z) * p->ysize + o->y + y) * p->pitch + o->x;
}

static int copy_3d(const struct cudaMemcpy3DParms *p, void *stream, int async) {
    if (!p) return rgpu_invalid_value(RGPU_RUNTIME);
    if (p->srcArray || p->dstArray) {
        CUDA_MEMCPY3D b;
        int rc = rgpu_memcpy3d_parms_to_box(p, &b);
        return rc ? rgpu_record(RGPU_RUNTIME, rc) : rgpu_box_copy(RGPU_RUNTIME, &b, stream, async);
    }
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
cudaError_t cudaMemset3DAsync(struct cudaPitchedPtr p, int value, struct cudaExtent e, cudaStream_t stream) {
    return memset_3d(p, value, e, stream, 1);
}

/* ---- Driver API: cuMemcpy3D(_v2, Async) on CUDA_MEMCPY3D of linear memory ------------------- */

/* One side as the Runtime's pitched pointer: host, device, or a unified address (then the kind comes
 * from the pointers, as cudaMemcpyDefault does). -1 for arrays, a missing pointer or another type. */
static int side3(CUmemorytype type, const void *host, CUdeviceptr device, size_t pitch, size_t height,
                 struct cudaPitchedPtr *out) {
    void *at = type == CU_MEMORYTYPE_HOST ? (void *)host : (void *)(uintptr_t)device;
    if (!at || (type != CU_MEMORYTYPE_HOST && type != CU_MEMORYTYPE_DEVICE && type != CU_MEMORYTYPE_UNIFIED)) return -1;
    *out = (struct cudaPitchedPtr){at, pitch, 0, height};
    return type == CU_MEMORYTYPE_UNIFIED ? 2 : type == CU_MEMORYTYPE_DEVICE;
}

/* The element size of an array side of a Driver copy (1 for a pointer side; 0 for an unknown array). */
static size_t side_elem(CUmemorytype type, CUarray a) {
    if (type != CU_MEMORYTYPE_ARRAY) return 1;
    CUDA_ARRAY3D_DESCRIPTOR d;
    return a && rgpu_array_desc(a, &d) == 0 ? rgpu_array_elem(&d) : 0;
}

/* A CUDA_MEMCPY3D as the Runtime's cudaMemcpy3DParms (copies and graph copy nodes): with an array on a
 * side, its x and the extent's width count the array's elements, as the Runtime's do. */
int rgpu_memcpy3d_from_driver(const CUDA_MEMCPY3D *p, struct cudaMemcpy3DParms *r) {
    if (!p) return CUDA_ERROR_INVALID_VALUE;
    if (p->srcLOD || p->dstLOD || p->reserved0 || p->reserved1) return CUDA_ERROR_INVALID_VALUE;
    *r = (struct cudaMemcpy3DParms){0};
    int sa = p->srcMemoryType == CU_MEMORYTYPE_ARRAY, da = p->dstMemoryType == CU_MEMORYTYPE_ARRAY;
    size_t se = side_elem(p->srcMemoryType, p->srcArray), de = side_elem(p->dstMemoryType, p->dstArray);
    size_t we = sa ? se : de;
    if (!se || !de) return CUDA_ERROR_INVALID_HANDLE;
    if (p->srcXInBytes % se || p->dstXInBytes % de || p->WidthInBytes % we) return CUDA_ERROR_INVALID_VALUE;
    int s = sa ? 1 : side3(p->srcMemoryType, p->srcHost, p->srcDevice, p->srcPitch, p->srcHeight, &r->srcPtr);
    int d = da ? 1 : side3(p->dstMemoryType, p->dstHost, p->dstDevice, p->dstPitch, p->dstHeight, &r->dstPtr);
    if (s < 0 || d < 0) return CUDA_ERROR_INVALID_VALUE;
    if (sa) r->srcArray = (cudaArray_t)p->srcArray;
    if (da) r->dstArray = (cudaArray_t)p->dstArray;
    r->srcPos = (struct cudaPos){p->srcXInBytes / se, p->srcY, p->srcZ};
    r->dstPos = (struct cudaPos){p->dstXInBytes / de, p->dstY, p->dstZ};
    r->extent = (struct cudaExtent){p->WidthInBytes / we, p->Height, p->Depth};
    r->kind = s == 2 || d == 2 ? cudaMemcpyDefault
            : s ? (d ? cudaMemcpyDeviceToDevice : cudaMemcpyDeviceToHost)
                : (d ? cudaMemcpyHostToDevice : cudaMemcpyHostToHost);
    return CUDA_SUCCESS;
}

/* ...and back, for cuGraphMemcpyNodeGetParams: host sides as host memory, device sides as device memory. */
void rgpu_memcpy3d_to_driver(const struct cudaMemcpy3DParms *r, CUDA_MEMCPY3D *p) {
    if (r->srcArray || r->dstArray) { /* in bytes, as array_copy.c converts it */
        if (rgpu_memcpy3d_parms_to_box(r, p)) *p = (CUDA_MEMCPY3D){0};
        return;
    }
    *p = (CUDA_MEMCPY3D){0};
    int unified = r->kind == cudaMemcpyDefault;
    int src_dev = r->kind == cudaMemcpyDeviceToHost || r->kind == cudaMemcpyDeviceToDevice;
    int dst_dev = r->kind == cudaMemcpyHostToDevice || r->kind == cudaMemcpyDeviceToDevice;
    p->srcXInBytes = r->srcPos.x, p->srcY = r->srcPos.y, p->srcZ = r->srcPos.z;
    p->srcMemoryType = unified ? CU_MEMORYTYPE_UNIFIED : src_dev ? CU_MEMORYTYPE_DEVICE : CU_MEMORYTYPE_HOST;
    if (p->srcMemoryType == CU_MEMORYTYPE_HOST) p->srcHost = r->srcPtr.ptr;
    else p->srcDevice = (CUdeviceptr)(uintptr_t)r->srcPtr.ptr;
    p->srcPitch = r->srcPtr.pitch, p->srcHeight = r->srcPtr.ysize;
    p->dstXInBytes = r->dstPos.x, p->dstY = r->dstPos.y, p->dstZ = r->dstPos.z;
    p->dstMemoryType = unified ? CU_MEMORYTYPE_UNIFIED : dst_dev ? CU_MEMORYTYPE_DEVICE : CU_MEMORYTYPE_HOST;
    if (p->dstMemoryType == CU_MEMORYTYPE_HOST) p->dstHost = r->dstPtr.ptr;
    else p->dstDevice = (CUdeviceptr)(uintptr_t)r->dstPtr.ptr;
    p->dstPitch = r->dstPtr.pitch, p->dstHeight = r->dstPtr.ysize;
    p->WidthInBytes = r->extent.width, p->Height = r->extent.height, p->Depth = r->extent.depth;
}

/* A Runtime copy of linear memory (no arrays) as CUDA_MEMCPY3D, for graph nodes of depth > 1. */
int rgpu_memcpy3d_from_runtime(const struct cudaMemcpy3DParms *r, CUDA_MEMCPY3D *p) {
    rgpu_memcpy3d_to_driver(r, p);
    return r->srcPtr.ptr && r->dstPtr.ptr ? 0 : RGPU_INVALID_VALUE;
}

static CUresult driver_copy_3d(const CUDA_MEMCPY3D *p, CUstream stream, int async) {
    if (p && (p->srcMemoryType == CU_MEMORYTYPE_ARRAY || p->dstMemoryType == CU_MEMORYTYPE_ARRAY))
        return rgpu_box_copy(RGPU_DRIVER, p, stream, async);
    struct cudaMemcpy3DParms r;
    int rc = rgpu_memcpy3d_from_driver(p, &r);
    if (rc) return rgpu_record(RGPU_DRIVER, rc);
    rc = copy_3d(&r, stream, async);
    return rc == cudaErrorInvalidPitchValue ? rgpu_invalid_value(RGPU_DRIVER) : rc;
}

CUresult cuMemcpy3D_v2(const CUDA_MEMCPY3D *p) { return driver_copy_3d(p, NULL, 0); }
CUresult cuMemcpy3DAsync_v2(const CUDA_MEMCPY3D *p, CUstream stream) { return driver_copy_3d(p, stream, 1); }
