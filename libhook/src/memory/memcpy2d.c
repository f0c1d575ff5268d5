/* Pitched 2D copies (cudaMemcpy2D, cudaMemcpy2DAsync). Only the rows travel: host rows are packed
 * into one frame for H2D and unpacked from one for D2H; the server walks the device pitch. The
 * Driver's cuMemcpy2D with a CUDA array on a side is a box of memory/array_copy.c. */
#include <stdlib.h>
#include <string.h>

#include "graph.h"
#include "rgpu_call.h"
#include "rgpu_ids.h"
#include "texture.h"

#define H2H cudaMemcpyHostToHost
#define H2D cudaMemcpyHostToDevice
#define D2H cudaMemcpyDeviceToHost
#define D2D cudaMemcpyDeviceToDevice

static int copy_2d(void *dst, size_t dpitch, const void *src, size_t spitch, size_t width, size_t height, int kind,
                   void *stream, int async) {
    if (width == 0 || height == 0) return RGPU_SUCCESS;
    if (!dst || !src || kind < 0 || kind > 4) return rgpu_invalid_value(RGPU_RUNTIME);
    if (dpitch < width || spitch < width) return rgpu_record(RGPU_RUNTIME, cudaErrorInvalidPitchValue);
    kind = rgpu_resolve_kind(kind, dst, src);
    if (async && rgpu_capturing(stream)) { /* a copy node: the host rows are read when the graph runs */
        rgpu_gnode proto = {.type = NODE_MEMCPY};
        proto.u.m = (rgpu_copy_node){dst, src, dpitch, spitch, width, height, kind};
        int rc;
        if (rgpu_capture_append(stream, &proto, &rc)) return rgpu_record(RGPU_RUNTIME, rc);
    }
    if (!async) {
        int rc = rgpu_capture_guard(RGPU_RUNTIME, NULL, 1); /* on the legacy stream */
        if (rc) return rc;
    }
    if (kind == H2H) {
        for (size_t r = 0; r < height; r++)
            memmove((char *)dst + r * dpitch, (const char *)src + r * spitch, width);
        return RGPU_SUCCESS;
    }
    size_t packed = width * height;
    char *rows = NULL;
    if (kind != D2D) {
        rows = malloc(packed);
        if (!rows) return rgpu_record(RGPU_RUNTIME, RGPU_OUT_OF_MEMORY);
    }
    if (kind == H2D)
        for (size_t r = 0; r < height; r++) memcpy(rows + r * width, (const char *)src + r * spitch, width);
    rgpu_call c;
    uint64_t ddev = kind == D2H ? 0 : (uint64_t)(uintptr_t)dst, sdev = kind == H2D ? 0 : (uint64_t)(uintptr_t)src;
    if (async) rgpu_wire_cudaMemcpy2DAsync(&c, ddev, dpitch, sdev, spitch, width, height, kind, stream);
    else rgpu_wire_cudaMemcpy2D(&c, ddev, dpitch, sdev, spitch, width, height, kind);
    if (kind == H2D) rgpu_put_bulk(&c, rows, packed);
    int rc;
    if (async && kind != D2H) {
        rc = rgpu_async(&c); /* the rows were copied into the message */
    } else {
        rc = rgpu_sync(&c);
        if (rc == 0 && kind == D2H) {
            if (rgpu_out_bulk_into(&c, rows, packed) != 0) /* the packed rows, possibly in several frames */
                rc = rgpu_record(RGPU_RUNTIME, RGPU_INVALID_VALUE);
            else
                for (size_t r = 0; r < height; r++) memcpy((char *)dst + r * dpitch, rows + r * width, width);
        }
        rgpu_end(&c);
    }
    free(rows);
    return rc;
}

cudaError_t cudaMemcpy2D(void *dst, size_t dpitch, const void *src, size_t spitch, size_t width, size_t height, enum cudaMemcpyKind kind) {
    return copy_2d(dst, dpitch, src, spitch, width, height, kind, NULL, 0);
}

cudaError_t cudaMemcpy2DAsync(void *dst, size_t dpitch, const void *src, size_t spitch, size_t width, size_t height, enum cudaMemcpyKind kind, cudaStream_t stream) {
    return copy_2d(dst, dpitch, src, spitch, width, height, kind, stream, 1);
}

/* ---- Driver API: cuMemcpy2D(_v2, Unaligned, Async) on CUDA_MEMCPY2D --------------------------- */

#define MT_HOST CU_MEMORYTYPE_HOST
#define MT_DEVICE CU_MEMORYTYPE_DEVICE
#define MT_ARRAY CU_MEMORYTYPE_ARRAY
#define MT_UNIFIED CU_MEMORYTYPE_UNIFIED

/* The start of one side: host memory, device memory, or a unified address (which decides the kind). */
static int side(int type, const void *host, uint64_t device, size_t x, size_t y, size_t pitch, char **at, int *is_dev) {
    if (type == MT_HOST && host) *at = (char *)host, *is_dev = 0;
    else if (type == MT_DEVICE && device) *at = (char *)(uintptr_t)device, *is_dev = 1;
    else if (type == MT_UNIFIED && device) *at = (char *)(uintptr_t)device, *is_dev = -1;
    else return -1;
    *at += y * pitch + x;
    return 0;
}

static int driver_copy_2d(const CUDA_MEMCPY2D *p, void *stream, int async) {
    if (!p) return rgpu_invalid_value(RGPU_DRIVER);
    if (p->srcMemoryType == MT_ARRAY || p->dstMemoryType == MT_ARRAY) { /* a box of one slice (array_copy.c) */
        CUDA_MEMCPY3D b = {0};
        b.srcXInBytes = p->srcXInBytes, b.srcY = p->srcY, b.srcMemoryType = p->srcMemoryType;
        b.srcHost = p->srcHost, b.srcDevice = p->srcDevice, b.srcArray = p->srcArray, b.srcPitch = p->srcPitch;
        b.srcHeight = p->Height;
        b.dstXInBytes = p->dstXInBytes, b.dstY = p->dstY, b.dstMemoryType = p->dstMemoryType;
        b.dstHost = p->dstHost, b.dstDevice = p->dstDevice, b.dstArray = p->dstArray, b.dstPitch = p->dstPitch;
        b.dstHeight = p->Height;
        b.WidthInBytes = p->WidthInBytes, b.Height = p->Height, b.Depth = 1;
        return rgpu_box_copy(RGPU_DRIVER, &b, stream, async);
    }
    char *src, *dst;
    int sdev, ddev;
    if (side(p->srcMemoryType, p->srcHost, p->srcDevice, p->srcXInBytes, p->srcY, p->srcPitch, &src, &sdev) ||
        side(p->dstMemoryType, p->dstHost, p->dstDevice, p->dstXInBytes, p->dstY, p->dstPitch, &dst, &ddev))
        return rgpu_invalid_value(RGPU_DRIVER);
    int kind = sdev < 0 || ddev < 0 ? cudaMemcpyDefault : sdev ? (ddev ? D2D : D2H) : (ddev ? H2D : H2H);
    int rc = copy_2d(dst, p->dstPitch, src, p->srcPitch, p->WidthInBytes, p->Height, kind, stream, async);
    return rc == cudaErrorInvalidPitchValue ? rgpu_invalid_value(RGPU_DRIVER) : rc;
}

CUresult cuMemcpy2D_v2(const CUDA_MEMCPY2D *p) { return driver_copy_2d(p, NULL, 0); }
CUresult cuMemcpy2DUnaligned_v2(const CUDA_MEMCPY2D *p) { return driver_copy_2d(p, NULL, 0); }
CUresult cuMemcpy2DAsync_v2(const CUDA_MEMCPY2D *p, CUstream stream) { return driver_copy_2d(p, stream, 1); }
