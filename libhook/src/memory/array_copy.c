/* Copies to and from CUDA arrays. Every 2D and 3D one is a box (bytes x rows x slices, as
 * CUDA_MEMCPY3D says it) sent as cuMemcpy3D(Async)_v2's wire call: each side is an array (its
 * handle), device memory (address, pitch, rows per slice) or host data, which travels packed -- the
 * client gathers the host rows into frames, or scatters the frames it gets back into them. The linear
 * forms (cuMemcpyHtoA and its kin, the Runtime's deprecated cudaMemcpyToArray family) name bytes of
 * the array in row-major order; the server cuts them into rows. The server checks the extents. */
#include <stdlib.h>
#include <string.h>

#include "graph.h"
#include "rgpu_call.h"
#include "texture.h"

#define H2H cudaMemcpyHostToHost
#define H2D cudaMemcpyHostToDevice
#define D2H cudaMemcpyDeviceToHost
#define D2D cudaMemcpyDeviceToDevice
#define DEFAULT cudaMemcpyDefault

enum { HOST = 1, DEVICE = 2, ARRAY = 3 };

typedef struct {
    int type;
    char *host;          /* HOST: the (x, y, z) = (0, 0, 0) byte of the region */
    uint64_t device;
    const void *array;
    size_t pitch, height, x, y, z;
} side;

static int side_of(CUmemorytype t, const void *host, CUdeviceptr dev, CUarray array, size_t pitch, size_t height,
                   size_t x, size_t y, size_t z, side *s) {
    *s = (side){0, NULL, 0, NULL, pitch, height, x, y, z};
    if (t == CU_MEMORYTYPE_UNIFIED) {  /* a unified address: device memory or host memory */
        if (!dev) return -1;
        int kind = rgpu_resolve_kind(DEFAULT, (void *)(uintptr_t)dev, (const void *)(uintptr_t)dev);
        t = kind == D2D ? CU_MEMORYTYPE_DEVICE : CU_MEMORYTYPE_HOST;
        host = (const void *)(uintptr_t)dev;
    }
    if (t == CU_MEMORYTYPE_HOST && host && rgpu_managed_side(host) == 1) { /* its device copy is the one to use */
        t = CU_MEMORYTYPE_DEVICE;
        dev = (CUdeviceptr)(uintptr_t)host;
    }
    if (t == CU_MEMORYTYPE_HOST && host) s->type = HOST, s->host = (char *)host;
    else if (t == CU_MEMORYTYPE_DEVICE && dev) s->type = DEVICE, s->device = dev;
    else if (t == CU_MEMORYTYPE_ARRAY && array) s->type = ARRAY, s->array = array;
    else return -1;
    return 0;
}

/* Host row (y, z) of a box on a host side. */
static char *host_row(const side *s, size_t y, size_t z) {
    return s->host + ((s->z + z) * s->height + s->y + y) * s->pitch + s->x;
}

static int put_side(const side *s, uint64_t v[7], const void **array) {
    *array = s->type == ARRAY ? s->array : NULL;
    if (s->type == HOST) { memset(v, 0, 7 * sizeof *v); return 0; }
    v[0] = s->type == DEVICE ? s->device : 0;
    v[1] = s->pitch, v[2] = s->height, v[3] = s->x, v[4] = s->y, v[5] = s->z;
    return 0;
}

int rgpu_box_copy(int face, const CUDA_MEMCPY3D *p, void *stream, int async) {
    if (!p) return rgpu_invalid_value(face);
    if (p->srcLOD || p->dstLOD || p->reserved0 || p->reserved1) return rgpu_invalid_value(face);
    size_t W = p->WidthInBytes, H = p->Height, D = p->Depth;
    if (!W || !H || !D) return RGPU_SUCCESS;
    side s, d;
    if (side_of(p->srcMemoryType, p->srcHost, p->srcDevice, p->srcArray, p->srcPitch, p->srcHeight, p->srcXInBytes,
                p->srcY, p->srcZ, &s) ||
        side_of(p->dstMemoryType, p->dstHost, p->dstDevice, p->dstArray, p->dstPitch, p->dstHeight, p->dstXInBytes,
                p->dstY, p->dstZ, &d))
        return rgpu_invalid_value(face);
    /* host rows are walked here: their pitch must hold them (and their slices the rows) */
    for (const side *h = &s; h; h = h == &s ? &d : NULL) {
        if (h->type != HOST) continue;
        if ((H > 1 || D > 1) && h->pitch < h->x + W) return rgpu_invalid_value(face);
        if (D > 1 && h->height < h->y + H) return rgpu_invalid_value(face);
    }
    if (async && rgpu_capturing(stream)) { /* a copy node; host rows are read when the graph runs */
        rgpu_gnode proto = {.type = NODE_MEMCPY};
        proto.u.m.box = 1;
        proto.u.m.b = *p;
        int rc;
        if (rgpu_capture_append(stream, &proto, &rc)) return rgpu_record(face, rc);
    }
    if (!async) {
        int rc = rgpu_capture_guard(face, NULL, 1); /* on the legacy stream */
        if (rc) return rc;
    }
    if (s.type == HOST && d.type == HOST) {
        for (size_t z = 0; z < D; z++)
            for (size_t y = 0; y < H; y++) memmove(host_row(&d, y, z), host_row(&s, y, z), W);
        return RGPU_SUCCESS;
    }
    int sdev = -1, ddev = -1;
    if (s.type == ARRAY) rgpu_untag_handle(s.array, &sdev);
    if (d.type == ARRAY) rgpu_untag_handle(d.array, &ddev);
    if (sdev >= 0 && ddev >= 0 && sdev != ddev) /* arrays of two vGPUs: no device copies between them */
        return rgpu_unsupported(face, "copies between CUDA arrays of two devices");
    size_t packed = W * H * D;
    char *rows = NULL;
    if (s.type == HOST || d.type == HOST) {
        rows = malloc(packed);
        if (!rows) return rgpu_record(face, RGPU_OUT_OF_MEMORY);
    }
    if (s.type == HOST)
        for (size_t z = 0; z < D; z++)
            for (size_t y = 0; y < H; y++) memcpy(rows + (z * H + y) * W, host_row(&s, y, z), W);
    uint64_t sv[7], dv[7];
    const void *sa, *da;
    put_side(&s, sv, &sa);
    put_side(&d, dv, &da);
    rgpu_call c;
    if (async)
        rgpu_wire_cuMemcpy3DAsync_v2(&c, sa, sv[0], sv[1], sv[2], sv[3], sv[4], sv[5], da, dv[0], dv[1], dv[2], dv[3],
                                     dv[4], dv[5], W, H, D, stream);
    else
        rgpu_wire_cuMemcpy3D_v2(&c, sa, sv[0], sv[1], sv[2], sv[3], sv[4], sv[5], da, dv[0], dv[1], dv[2], dv[3],
                                dv[4], dv[5], W, H, D);
    c.face = face;
    c.device_reads = d.type == HOST;
    if (s.type == HOST) {
        size_t chunk = packed / RGPU_MAX_CHUNKS + 1 > RGPU_H2D_CHUNK ? packed / RGPU_MAX_CHUNKS + 1 : RGPU_H2D_CHUNK;
        for (size_t off = 0; off < packed; off += chunk)
            rgpu_put_bulk(&c, rows + off, packed - off < chunk ? packed - off : chunk);
    }
    int rc;
    if (async && d.type != HOST) {
        rc = rgpu_async(&c); /* the rows were copied into the message */
    } else {
        rc = rgpu_sync(&c);
        if (rc == 0 && d.type == HOST) {
            if (rgpu_out_bulk_into(&c, rows, packed) != 0) rc = rgpu_record(face, RGPU_INVALID_VALUE);
            else
                for (size_t z = 0; z < D; z++)
                    for (size_t y = 0; y < H; y++) memcpy(host_row(&d, y, z), rows + (z * H + y) * W, W);
        }
        rgpu_end(&c);
    }
    free(rows);
    return rc;
}

/* ---- the Runtime's cudaMemcpy3DParms with arrays: positions and extent in the array's elements -- */

int rgpu_memcpy3d_parms_to_box(const struct cudaMemcpy3DParms *p, CUDA_MEMCPY3D *b) {
    if (!p || p->kind < H2H || p->kind > DEFAULT) return RGPU_INVALID_VALUE;
    CUDA_ARRAY3D_DESCRIPTOR ad;
    const void *array = p->srcArray ? (const void *)p->srcArray : (const void *)p->dstArray;
    if (!array) return RGPU_INVALID_VALUE;
    if (rgpu_array_desc(array, &ad)) return RGPU_INVALID_HANDLE;
    size_t elem = rgpu_array_elem(&ad);
    size_t delem = elem;
    if (p->srcArray && p->dstArray) {
        CUDA_ARRAY3D_DESCRIPTOR dd;
        if (rgpu_array_desc(p->dstArray, &dd)) return RGPU_INVALID_HANDLE;
        delem = rgpu_array_elem(&dd);
    }
    memset(b, 0, sizeof *b);
    /* a pointer side is host or device memory by the kind (cudaMemcpyDefault: by the pointer) */
    int kind = p->kind;
    if (kind == DEFAULT) {
        const void *ptr = p->srcArray ? p->dstPtr.ptr : p->srcPtr.ptr;
        int k = rgpu_resolve_kind(DEFAULT, (void *)ptr, ptr);
        kind = k == D2D ? D2D : (p->srcArray ? D2H : H2D);
        if (p->srcArray && p->dstArray) kind = D2D;
    }
    int src_host = kind == H2D || kind == H2H, dst_host = kind == D2H || kind == H2H;
    if (p->srcArray) {
        b->srcMemoryType = CU_MEMORYTYPE_ARRAY, b->srcArray = (CUarray)p->srcArray;
        b->srcXInBytes = p->srcPos.x * elem;
    } else {
        b->srcMemoryType = src_host ? CU_MEMORYTYPE_HOST : CU_MEMORYTYPE_DEVICE;
        if (src_host) b->srcHost = p->srcPtr.ptr;
        else b->srcDevice = (CUdeviceptr)(uintptr_t)p->srcPtr.ptr;
        b->srcPitch = p->srcPtr.pitch, b->srcHeight = p->srcPtr.ysize, b->srcXInBytes = p->srcPos.x;
    }
    b->srcY = p->srcPos.y, b->srcZ = p->srcPos.z;
    if (p->dstArray) {
        b->dstMemoryType = CU_MEMORYTYPE_ARRAY, b->dstArray = (CUarray)p->dstArray;
        b->dstXInBytes = p->dstPos.x * delem;
    } else {
        b->dstMemoryType = dst_host ? CU_MEMORYTYPE_HOST : CU_MEMORYTYPE_DEVICE;
        if (dst_host) b->dstHost = p->dstPtr.ptr;
        else b->dstDevice = (CUdeviceptr)(uintptr_t)p->dstPtr.ptr;
        b->dstPitch = p->dstPtr.pitch, b->dstHeight = p->dstPtr.ysize, b->dstXInBytes = p->dstPos.x;
    }
    b->dstY = p->dstPos.y, b->dstZ = p->dstPos.z;
    b->WidthInBytes = p->extent.width * elem;
    b->Height = p->extent.height ? p->extent.height : 1;
    b->Depth = p->extent.depth ? p->extent.depth : 1;
    return 0;
}

/* ---- the Runtime's 2D array copies (wOffset and width in bytes, as the Runtime documents) ------- */

static int runtime_2d(CUDA_MEMCPY3D *b, int kind, int src_is_array, int dst_is_array, const void *ptr,
                      void *stream, int async) {
    if (kind == DEFAULT) {
        if (src_is_array && dst_is_array) kind = D2D;
        else {
            int k = rgpu_resolve_kind(DEFAULT, (void *)ptr, ptr);
            kind = k == D2D ? D2D : src_is_array ? D2H : H2D;
        }
    }
    int ok = src_is_array && dst_is_array ? kind == D2D
           : src_is_array ? (kind == D2H || kind == D2D) : (kind == H2D || kind == D2D);
    if (!ok) return rgpu_record(RGPU_RUNTIME, cudaErrorInvalidMemcpyDirection);
    if (!src_is_array) b->srcMemoryType = kind == H2D ? CU_MEMORYTYPE_HOST : CU_MEMORYTYPE_DEVICE;
    if (!dst_is_array) b->dstMemoryType = kind == D2H ? CU_MEMORYTYPE_HOST : CU_MEMORYTYPE_DEVICE;
    if (b->srcMemoryType == CU_MEMORYTYPE_DEVICE) b->srcDevice = (CUdeviceptr)(uintptr_t)ptr;
    if (b->srcMemoryType == CU_MEMORYTYPE_HOST) b->srcHost = ptr;
    if (b->dstMemoryType == CU_MEMORYTYPE_DEVICE) b->dstDevice = (CUdeviceptr)(uintptr_t)ptr;
    if (b->dstMemoryType == CU_MEMORYTYPE_HOST) b->dstHost = (void *)ptr;
    return rgpu_box_copy(RGPU_RUNTIME, b, stream, async);
}

static int to_array_2d(cudaArray_t dst, size_t wOffset, size_t hOffset, const void *src, size_t spitch, size_t width,
                       size_t height, int kind, void *stream, int async) {
    if (!width || !height) return RGPU_SUCCESS;
    if (!dst || !src) return rgpu_invalid_value(RGPU_RUNTIME);
    if (spitch < width) return rgpu_record(RGPU_RUNTIME, cudaErrorInvalidPitchValue);
    CUDA_MEMCPY3D b = {0};
    b.srcPitch = spitch;
    b.dstMemoryType = CU_MEMORYTYPE_ARRAY, b.dstArray = (CUarray)dst, b.dstXInBytes = wOffset, b.dstY = hOffset;
    b.WidthInBytes = width, b.Height = height, b.Depth = 1;
    return runtime_2d(&b, kind, 0, 1, src, stream, async);
}

static int from_array_2d(void *dst, size_t dpitch, cudaArray_const_t src, size_t wOffset, size_t hOffset, size_t width,
                         size_t height, int kind, void *stream, int async) {
    if (!width || !height) return RGPU_SUCCESS;
    if (!dst || !src) return rgpu_invalid_value(RGPU_RUNTIME);
    if (dpitch < width) return rgpu_record(RGPU_RUNTIME, cudaErrorInvalidPitchValue);
    CUDA_MEMCPY3D b = {0};
    b.dstPitch = dpitch;
    b.srcMemoryType = CU_MEMORYTYPE_ARRAY, b.srcArray = (CUarray)src, b.srcXInBytes = wOffset, b.srcY = hOffset;
    b.WidthInBytes = width, b.Height = height, b.Depth = 1;
    return runtime_2d(&b, kind, 1, 0, dst, stream, async);
}

cudaError_t cudaMemcpy2DToArray(cudaArray_t dst, size_t wOffset, size_t hOffset, const void *src, size_t spitch, size_t width,
                                size_t height, enum cudaMemcpyKind kind) {
    return to_array_2d(dst, wOffset, hOffset, src, spitch, width, height, kind, NULL, 0);
}
cudaError_t cudaMemcpy2DToArrayAsync(cudaArray_t dst, size_t wOffset, size_t hOffset, const void *src, size_t spitch,
                                     size_t width, size_t height, enum cudaMemcpyKind kind, cudaStream_t stream) {
    return to_array_2d(dst, wOffset, hOffset, src, spitch, width, height, kind, stream, 1);
}
cudaError_t cudaMemcpy2DFromArray(void *dst, size_t dpitch, cudaArray_const_t src, size_t wOffset, size_t hOffset, size_t width,
                                  size_t height, enum cudaMemcpyKind kind) {
    return from_array_2d(dst, dpitch, src, wOffset, hOffset, width, height, kind, NULL, 0);
}
cudaError_t cudaMemcpy2DFromArrayAsync(void *dst, size_t dpitch, cudaArray_const_t src, size_t wOffset, size_t hOffset,
                                       size_t width, size_t height, enum cudaMemcpyKind kind, cudaStream_t stream) {
    return from_array_2d(dst, dpitch, src, wOffset, hOffset, width, height, kind, stream, 1);
}
cudaError_t cudaMemcpy2DArrayToArray(cudaArray_t dst, size_t wOffsetDst, size_t hOffsetDst, cudaArray_const_t src,
                                     size_t wOffsetSrc, size_t hOffsetSrc, size_t width, size_t height, enum cudaMemcpyKind kind) {
    if (!width || !height) return RGPU_SUCCESS;
    if (!dst || !src) return rgpu_invalid_value(RGPU_RUNTIME);
    CUDA_MEMCPY3D b = {0};
    b.srcMemoryType = CU_MEMORYTYPE_ARRAY, b.srcArray = (CUarray)src, b.srcXInBytes = wOffsetSrc, b.srcY = hOffsetSrc;
    b.dstMemoryType = CU_MEMORYTYPE_ARRAY, b.dstArray = (CUarray)dst, b.dstXInBytes = wOffsetDst, b.dstY = hOffsetDst;
    b.WidthInBytes = width, b.Height = height, b.Depth = 1;
    return runtime_2d(&b, kind, 1, 1, NULL, NULL, 0);
}

/* ---- the linear forms: bytes [offset, offset + count) of the array ------------------------------ */

static int htoa(int face, CUarray dst, size_t offset, const void *src, size_t n, void *stream, int async) {
    if (n == 0) return RGPU_SUCCESS;
    if (!dst || !src) return rgpu_invalid_value(face);
    if (rgpu_managed_side(src) == 1) return cuMemcpyDtoA_v2(dst, offset, (CUdeviceptr)(uintptr_t)src, n);
    rgpu_call c;
    if (async) {
        int rc = RGPU_GUARD_cuMemcpyHtoAAsync_v2(stream);
        if (rc) return rc;
        rgpu_wire_cuMemcpyHtoAAsync_v2(&c, dst, offset, n, stream);
    } else {
        int rc = RGPU_GUARD_cuMemcpyHtoA_v2();
        if (rc) return rc;
        rgpu_wire_cuMemcpyHtoA_v2(&c, dst, offset, n);
    }
    c.face = face;
    size_t chunk = n / RGPU_MAX_CHUNKS + 1 > RGPU_H2D_CHUNK ? n / RGPU_MAX_CHUNKS + 1 : RGPU_H2D_CHUNK;
    for (size_t off = 0; off < n; off += chunk) rgpu_put_bulk(&c, (const char *)src + off, n - off < chunk ? n - off : chunk);
    if (async) return rgpu_async(&c);
    int rc = rgpu_sync(&c);
    rgpu_end(&c);
    return rc;
}

static int atoh(int face, void *dst, CUarray src, size_t offset, size_t n, void *stream, int async) {
    if (n == 0) return RGPU_SUCCESS;
    if (!dst || !src) return rgpu_invalid_value(face);
    if (rgpu_managed_side(dst) == 1) return cuMemcpyAtoD_v2((CUdeviceptr)(uintptr_t)dst, src, offset, n);
    rgpu_call c;
    if (async) {
        int rc = RGPU_GUARD_cuMemcpyAtoHAsync_v2(stream);
        if (rc) return rc;
        rgpu_wire_cuMemcpyAtoHAsync_v2(&c, src, offset, n, stream);
    } else {
        int rc = RGPU_GUARD_cuMemcpyAtoH_v2();
        if (rc) return rc;
        rgpu_wire_cuMemcpyAtoH_v2(&c, src, offset, n);
    }
    c.face = face;
    c.device_reads = 1;
    int rc = rgpu_sync(&c);
    if (rc == 0 && rgpu_out_bulk_into(&c, dst, n) != 0) rc = rgpu_record(face, RGPU_INVALID_VALUE);
    rgpu_end(&c);
    return rc;
}

CUresult cuMemcpyHtoA_v2(CUarray dst, size_t offset, const void *src, size_t n) { return htoa(RGPU_DRIVER, dst, offset, src, n, NULL, 0); }
CUresult cuMemcpyHtoAAsync_v2(CUarray dst, size_t offset, const void *src, size_t n, CUstream stream) {
    return htoa(RGPU_DRIVER, dst, offset, src, n, stream, 1);
}
CUresult cuMemcpyAtoH_v2(void *dst, CUarray src, size_t offset, size_t n) { return atoh(RGPU_DRIVER, dst, src, offset, n, NULL, 0); }
CUresult cuMemcpyAtoHAsync_v2(void *dst, CUarray src, size_t offset, size_t n, CUstream stream) {
    return atoh(RGPU_DRIVER, dst, src, offset, n, stream, 1);
}

/* The Runtime's deprecated forms start at (wOffset bytes, hOffset rows): the array's row length
 * (its descriptor, kept by texture/arrays.c) turns that into the linear offset. */
static int linear_offset(const void *array, size_t wOffset, size_t hOffset, size_t *offset) {
    CUDA_ARRAY3D_DESCRIPTOR d;
    if (!array || rgpu_array_desc(array, &d)) return rgpu_record(RGPU_RUNTIME, cudaErrorInvalidResourceHandle);
    *offset = hOffset * d.Width * rgpu_array_elem(&d) + wOffset;
    return 0;
}

static int runtime_result(int rc) { return rc ? rgpu_record(RGPU_RUNTIME, rc) : 0; }

static int to_array(cudaArray_t dst, size_t wOffset, size_t hOffset, const void *src, size_t n, int kind, void *stream,
                    int async) {
    size_t offset = 0;
    int rc = linear_offset(dst, wOffset, hOffset, &offset);
    if (rc || n == 0) return rc;
    if (kind == DEFAULT) kind = rgpu_resolve_kind(DEFAULT, (void *)src, src) == D2D ? D2D : H2D;
    if (kind == H2D) return htoa(RGPU_RUNTIME, (CUarray)dst, offset, src, n, stream, async);
    if (kind == D2D) return runtime_result(cuMemcpyDtoA_v2((CUarray)dst, offset, (CUdeviceptr)(uintptr_t)src, n));
    return rgpu_record(RGPU_RUNTIME, cudaErrorInvalidMemcpyDirection);
}

static int from_array(void *dst, cudaArray_const_t src, size_t wOffset, size_t hOffset, size_t n, int kind, void *stream,
                      int async) {
    size_t offset = 0;
    int rc = linear_offset(src, wOffset, hOffset, &offset);
    if (rc || n == 0) return rc;
    if (kind == DEFAULT) kind = rgpu_resolve_kind(DEFAULT, dst, dst) == D2D ? D2D : D2H;
    if (kind == D2H) return atoh(RGPU_RUNTIME, dst, (CUarray)src, offset, n, stream, async);
    if (kind == D2D) return runtime_result(cuMemcpyAtoD_v2((CUdeviceptr)(uintptr_t)dst, (CUarray)src, offset, n));
    return rgpu_record(RGPU_RUNTIME, cudaErrorInvalidMemcpyDirection);
}

cudaError_t cudaMemcpyToArray(cudaArray_t dst, size_t wOffset, size_t hOffset, const void *src, size_t count, enum cudaMemcpyKind kind) {
    return to_array(dst, wOffset, hOffset, src, count, kind, NULL, 0);
}
cudaError_t cudaMemcpyToArrayAsync(cudaArray_t dst, size_t wOffset, size_t hOffset, const void *src, size_t count,
                                   enum cudaMemcpyKind kind, cudaStream_t stream) {
    return to_array(dst, wOffset, hOffset, src, count, kind, stream, 1);
}
cudaError_t cudaMemcpyFromArray(void *dst, cudaArray_const_t src, size_t wOffset, size_t hOffset, size_t count, enum cudaMemcpyKind kind) {
    return from_array(dst, src, wOffset, hOffset, count, kind, NULL, 0);
}
cudaError_t cudaMemcpyFromArrayAsync(void *dst, cudaArray_const_t src, size_t wOffset, size_t hOffset, size_t count,
                                     enum cudaMemcpyKind kind, cudaStream_t stream) {
    return from_array(dst, src, wOffset, hOffset, count, kind, stream, 1);
}
cudaError_t cudaMemcpyArrayToArray(cudaArray_t dst, size_t wOffsetDst, size_t hOffsetDst, cudaArray_const_t src,
                                   size_t wOffsetSrc, size_t hOffsetSrc, size_t count, enum cudaMemcpyKind kind) {
    size_t doff = 0, soff = 0;
    int rc = linear_offset(dst, wOffsetDst, hOffsetDst, &doff);
    if (!rc) rc = linear_offset(src, wOffsetSrc, hOffsetSrc, &soff);
    if (rc || count == 0) return rc;
    if (kind != D2D && kind != DEFAULT) return rgpu_record(RGPU_RUNTIME, cudaErrorInvalidMemcpyDirection);
    return runtime_result(cuMemcpyAtoA_v2((CUarray)dst, doff, (CUarray)src, soff, count));
}
