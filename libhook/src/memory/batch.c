/* Batched copies (CUDA 12.8+): cudaMemcpyBatchAsync / cuMemcpyBatchAsync_v2 (1D, pointer to
 * pointer) and cudaMemcpy3DBatchAsync / cuMemcpy3DBatchAsync_v2 (3D, pointers or CUDA arrays). The
 * batch is its copies, each sent as the stream-ordered copy of its kind (memcpy.c, memcpy3d.c): in
 * stream order, which every source access order allows. A source CUDA must have read before the call
 * returns (CU_MEMCPY_SRC_ACCESS_ORDER_DURING_API_CALL) is, by a wait for the stream at the end: a
 * pinned source is read by the server's DMA later. Locations are hints, and ignored. As CUDA: the
 * legacy stream is refused, and so is a capturing one (no graph node holds a batch). */
#include <stdint.h>
#include <stdlib.h>

#include "rgpu_call.h"
#include "texture.h"

#define ORDER_STREAM CU_MEMCPY_SRC_ACCESS_ORDER_STREAM
#define ORDER_DURING_CALL CU_MEMCPY_SRC_ACCESS_ORDER_DURING_API_CALL
#define ORDER_ANY CU_MEMCPY_SRC_ACCESS_ORDER_ANY
#define FLAGS_KNOWN CU_MEMCPY_FLAG_PREFER_OVERLAP_WITH_COMPUTE

_Static_assert(sizeof(struct cudaMemcpyAttributes) == sizeof(CUmemcpyAttributes), "one layout");
_Static_assert(sizeof(struct cudaMemcpy3DBatchOp) == sizeof(CUDA_MEMCPY3D_BATCH_OP), "one layout");


static int valid_order(int order, unsigned flags) {
    return order >= ORDER_STREAM && order <= ORDER_ANY && !(flags & ~FLAGS_KNOWN);
}

static int finish(int face, const void *stream, int rc, int during_call) {
    if (rc == 0 && during_call)
        rc = face == RGPU_DRIVER ? cuStreamSynchronize((CUstream)stream) : cudaStreamSynchronize((cudaStream_t)stream);
    return rc;
}

/* ---- 1D -------------------------------------------------------------------------------------- */

static int batch_1d(int face, void *const *dsts, const void *const *srcs, const size_t *sizes, size_t count,
                    const CUmemcpyAttributes *attrs, const size_t *idxs, size_t nattrs, void *stream) {
    if (!count || !dsts || !srcs || !sizes || !attrs || !idxs || !nattrs || nattrs > count || idxs[0] != 0 ||
        rgpu_legacy_stream(stream))
        return rgpu_invalid_value(face);
    int during_call = 0;
    for (size_t a = 0; a < nattrs; a++) {
        if ((a && idxs[a] <= idxs[a - 1]) || idxs[a] >= count || !valid_order(attrs[a].srcAccessOrder, attrs[a].flags))
            return rgpu_invalid_value(face);
        during_call |= attrs[a].srcAccessOrder == ORDER_DURING_CALL;
    }
    int rc = 0;
    for (size_t i = 0; i < count && !rc; i++) {
        if (!sizes[i]) continue;
        rc = face == RGPU_DRIVER ? cuMemcpyAsync((CUdeviceptr)(uintptr_t)dsts[i], (CUdeviceptr)(uintptr_t)srcs[i], sizes[i],
                                                 (CUstream)stream)
                                 : cudaMemcpyAsync(dsts[i], srcs[i], sizes[i], cudaMemcpyDefault, (cudaStream_t)stream);
    }
    return finish(face, stream, rc, during_call);
}

cudaError_t cudaMemcpyBatchAsync(void *const *dsts, const void *const *srcs, const size_t *sizes, size_t count,
                                 struct cudaMemcpyAttributes *attrs, size_t *attrsIdxs, size_t numAttrs,
                                 cudaStream_t stream) {
    int rc = RGPU_GUARD_cudaMemcpyBatchAsync(stream);
    if (rc) return rc;
    return batch_1d(RGPU_RUNTIME, dsts, srcs, sizes, count, (const CUmemcpyAttributes *)attrs, attrsIdxs, numAttrs,
                    stream);
}

CUresult cuMemcpyBatchAsync_v2(CUdeviceptr *dsts, CUdeviceptr *srcs, size_t *sizes, size_t count,
                               CUmemcpyAttributes *attrs, size_t *attrsIdxs, size_t numAttrs, CUstream hStream) {
    int rc = RGPU_GUARD_cuMemcpyBatchAsync_v2(hStream);
    if (rc) return rc;
    _Static_assert(sizeof(CUdeviceptr) == sizeof(void *), "addresses are pointers");
    return batch_1d(RGPU_DRIVER, (void *const *)dsts, (const void *const *)srcs, sizes, count, attrs, attrsIdxs,
                    numAttrs, hStream);
}

/* ---- 3D -------------------------------------------------------------------------------------- */

/* One side of an operation as CUDA_MEMCPY3D's fields; `elem` the bytes of an element. */
static int side(const CUmemcpy3DOperand *o, size_t elem, size_t width, size_t height, CUmemorytype *type,
                CUdeviceptr *dev, const void **host, CUarray *array, size_t *x, size_t *y, size_t *z, size_t *pitch,
                size_t *rows) {
    if (o->type == CU_MEMCPY_OPERAND_TYPE_ARRAY) {
        if (!o->op.array.array) return RGPU_INVALID_VALUE;
        *type = CU_MEMORYTYPE_ARRAY, *array = o->op.array.array;
        *x = o->op.array.offset.x * elem, *y = o->op.array.offset.y, *z = o->op.array.offset.z;
        return 0;
    }
    if (o->type != CU_MEMCPY_OPERAND_TYPE_POINTER || !o->op.ptr.ptr) return RGPU_INVALID_VALUE;
    size_t row = o->op.ptr.rowLength ? o->op.ptr.rowLength : width;
    size_t layer = o->op.ptr.layerHeight ? o->op.ptr.layerHeight : height;
    if (row < width || layer < height) return RGPU_INVALID_VALUE;
    const void *p = (const void *)(uintptr_t)o->op.ptr.ptr;
    if (rgpu_device_of(p) >= 0) *type = CU_MEMORYTYPE_DEVICE, *dev = o->op.ptr.ptr;
    else *type = CU_MEMORYTYPE_HOST, *host = p;
    *pitch = row * elem, *rows = layer;
    return 0;
}

static size_t elem_of(const CUmemcpy3DOperand *o) {
    if (o->type != CU_MEMCPY_OPERAND_TYPE_ARRAY) return 1;
    CUDA_ARRAY3D_DESCRIPTOR d;
    return o->op.array.array && rgpu_array_desc(o->op.array.array, &d) == 0 ? rgpu_array_elem(&d) : 0;
}

static int op_3d(const CUDA_MEMCPY3D_BATCH_OP *op, CUDA_MEMCPY3D *c) {
    const CUextent3D *e = &op->extent;
    if (!e->width || !e->height || !e->depth || !valid_order(op->srcAccessOrder, op->flags)) return RGPU_INVALID_VALUE;
    size_t se = elem_of(&op->src), de = elem_of(&op->dst);
    if (!se || !de) return RGPU_INVALID_HANDLE;
    int sa = op->src.type == CU_MEMCPY_OPERAND_TYPE_ARRAY, da = op->dst.type == CU_MEMCPY_OPERAND_TYPE_ARRAY;
    if (sa && da && se != de) return RGPU_INVALID_VALUE;
    size_t elem = sa ? se : de; /* pointer to pointer: bytes */
    *c = (CUDA_MEMCPY3D){0};
    int rc = side(&op->src, elem, e->width, e->height, &c->srcMemoryType, &c->srcDevice, &c->srcHost, &c->srcArray,
                  &c->srcXInBytes, &c->srcY, &c->srcZ, &c->srcPitch, &c->srcHeight);
    if (!rc) rc = side(&op->dst, elem, e->width, e->height, &c->dstMemoryType, &c->dstDevice,
                       (const void **)&c->dstHost, &c->dstArray, &c->dstXInBytes, &c->dstY, &c->dstZ, &c->dstPitch,
                       &c->dstHeight);
    c->WidthInBytes = e->width * elem, c->Height = e->height, c->Depth = e->depth;
    return rc;
}

static int batch_3d(int face, size_t n, const CUDA_MEMCPY3D_BATCH_OP *ops, unsigned long long flags, void *stream) {
    if (!n || !ops || flags || rgpu_legacy_stream(stream)) return rgpu_invalid_value(face);
    /* every operation made (and checked) before any copy goes: once, since placing a pointer may ask
     * the servers whose memory it is */
    CUDA_MEMCPY3D *c = malloc(n * sizeof *c);
    if (!c) return rgpu_record(face, RGPU_OUT_OF_MEMORY);
    int during_call = 0, rc = 0;
    for (size_t i = 0; i < n && !rc; i++) {
        rc = op_3d(&ops[i], &c[i]);
        during_call |= ops[i].srcAccessOrder == ORDER_DURING_CALL;
    }
    for (size_t i = 0; i < n && !rc; i++) rc = cuMemcpy3DAsync_v2(&c[i], (CUstream)stream);
    free(c);
    if (rc) return rgpu_record(face, rc);
    return finish(face, stream, rc, during_call);
}

cudaError_t cudaMemcpy3DBatchAsync(size_t numOps, struct cudaMemcpy3DBatchOp *opList, unsigned long long flags,
                                   cudaStream_t stream) {
    int rc = RGPU_GUARD_cudaMemcpy3DBatchAsync(stream);
    if (rc) return rc;
    return batch_3d(RGPU_RUNTIME, numOps, (const CUDA_MEMCPY3D_BATCH_OP *)opList, flags, stream);
}

CUresult cuMemcpy3DBatchAsync_v2(size_t numOps, CUDA_MEMCPY3D_BATCH_OP *opList, unsigned long long flags,
                                 CUstream hStream) {
    int rc = RGPU_GUARD_cuMemcpy3DBatchAsync_v2(hStream);
    if (rc) return rc;
    return batch_3d(RGPU_DRIVER, numOps, opList, flags, hStream);
}
