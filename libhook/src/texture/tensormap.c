/* Tensor maps (the TMA descriptors of compute capability 9.0 and later): 128 opaque bytes that only the
 * driver can encode, describing a tiling of device memory. The server's driver encodes them (its device
 * addresses are the program's) and the bytes come back into the program's CUtensorMap, which its kernels
 * receive as a parameter. The arrays travel with exactly the elements the driver reads — the rank's for
 * the dimensions, one fewer for the strides (the innermost is the element size), two fewer for the
 * im2col box corners — so the rank is checked here first: an out-of-range one must not make this read
 * past the caller's arrays. What else the driver requires (alignments, box sizes, swizzle spans) its own
 * answer says. The call goes to the device whose memory the address is, when the allocation table
 * knows it, else to the current one. */
#include <stdint.h>
#include <string.h>

#include "rgpu_call.h"

#define MAX_RANK 5

/* 0 when the map is writable where the driver wants it (64-byte aligned) and the rank is in range. */
static int check(CUtensorMap *map, uint32_t rank, uint32_t least) {
    return !map || (uintptr_t)map % 64 || rank < least || rank > MAX_RANK;
}

/* The arrays that must be there for `count` elements. */
static int present(const void *a, size_t count) { return a || !count; }

static void route(rgpu_call *c, const void *address) {
    int dev;
    uint64_t base;
    if (rgpu_allocs_find((uint64_t)(uintptr_t)address, &dev, &base)) c->dev = dev;
}

static CUresult finish(rgpu_call *c, CUtensorMap *map, void (*out)(rgpu_call *, void *, size_t)) {
    int rc = rgpu_sync(c);
    if (rc == 0) out(c, map, sizeof *map);
    rgpu_end(c);
    return (CUresult)rc;
}

CUresult cuTensorMapEncodeTiled(CUtensorMap *tensorMap, CUtensorMapDataType tensorDataType, cuuint32_t tensorRank,
                                void *globalAddress, const cuuint64_t *globalDim, const cuuint64_t *globalStrides,
                                const cuuint32_t *boxDim, const cuuint32_t *elementStrides,
                                CUtensorMapInterleave interleave, CUtensorMapSwizzle swizzle,
                                CUtensorMapL2promotion l2Promotion, CUtensorMapFloatOOBfill oobFill) {
    if (check(tensorMap, tensorRank, 1) || !present(globalDim, tensorRank) || !present(globalStrides, tensorRank - 1) ||
        !present(boxDim, tensorRank) || !present(elementStrides, tensorRank))
        return (CUresult)rgpu_invalid_value(RGPU_DRIVER);
    rgpu_call c;
    rgpu_wire_cuTensorMapEncodeTiled(&c, tensorDataType, tensorRank, (uint64_t)(uintptr_t)globalAddress,
                                     globalDim, tensorRank * sizeof *globalDim, globalStrides,
                                     (tensorRank - 1) * sizeof *globalStrides, boxDim, tensorRank * sizeof *boxDim,
                                     elementStrides, tensorRank * sizeof *elementStrides, interleave, swizzle,
                                     l2Promotion, oobFill);
    route(&c, globalAddress);
    return finish(&c, tensorMap, rgpu_wire_out_cuTensorMapEncodeTiled);
}

CUresult cuTensorMapEncodeIm2col(CUtensorMap *tensorMap, CUtensorMapDataType tensorDataType, cuuint32_t tensorRank,
                                 void *globalAddress, const cuuint64_t *globalDim, const cuuint64_t *globalStrides,
                                 const int *pixelBoxLowerCorner, const int *pixelBoxUpperCorner,
                                 cuuint32_t channelsPerPixel, cuuint32_t pixelsPerColumn,
                                 const cuuint32_t *elementStrides, CUtensorMapInterleave interleave,
                                 CUtensorMapSwizzle swizzle, CUtensorMapL2promotion l2Promotion,
                                 CUtensorMapFloatOOBfill oobFill) {
    /* im2col maps are of 3 to 5 dimensions: channels, the spatial ones, the batch */
    if (check(tensorMap, tensorRank, 3) || !present(globalDim, tensorRank) || !present(globalStrides, tensorRank - 1) ||
        !present(pixelBoxLowerCorner, tensorRank - 2) || !present(pixelBoxUpperCorner, tensorRank - 2) ||
        !present(elementStrides, tensorRank))
        return (CUresult)rgpu_invalid_value(RGPU_DRIVER);
    rgpu_call c;
    rgpu_wire_cuTensorMapEncodeIm2col(&c, tensorDataType, tensorRank, (uint64_t)(uintptr_t)globalAddress, globalDim,
                                      tensorRank * sizeof *globalDim, globalStrides,
                                      (tensorRank - 1) * sizeof *globalStrides, pixelBoxLowerCorner,
                                      (tensorRank - 2) * sizeof *pixelBoxLowerCorner, pixelBoxUpperCorner,
                                      (tensorRank - 2) * sizeof *pixelBoxUpperCorner, channelsPerPixel,
                                      pixelsPerColumn, elementStrides, tensorRank * sizeof *elementStrides,
                                      interleave, swizzle, l2Promotion, oobFill);
    route(&c, globalAddress);
    return finish(&c, tensorMap, rgpu_wire_out_cuTensorMapEncodeIm2col);
}

CUresult cuTensorMapEncodeIm2colWide(CUtensorMap *tensorMap, CUtensorMapDataType tensorDataType, cuuint32_t tensorRank,
                                     void *globalAddress, const cuuint64_t *globalDim, const cuuint64_t *globalStrides,
                                     int pixelBoxLowerCornerWidth, int pixelBoxUpperCornerWidth,
                                     cuuint32_t channelsPerPixel, cuuint32_t pixelsPerColumn,
                                     const cuuint32_t *elementStrides, CUtensorMapInterleave interleave,
                                     CUtensorMapIm2ColWideMode mode, CUtensorMapSwizzle swizzle,
                                     CUtensorMapL2promotion l2Promotion, CUtensorMapFloatOOBfill oobFill) {
    if (check(tensorMap, tensorRank, 3) || !present(globalDim, tensorRank) || !present(globalStrides, tensorRank - 1) ||
        !present(elementStrides, tensorRank))
        return (CUresult)rgpu_invalid_value(RGPU_DRIVER);
    rgpu_call c;
    rgpu_wire_cuTensorMapEncodeIm2colWide(&c, tensorDataType, tensorRank, (uint64_t)(uintptr_t)globalAddress,
                                          globalDim, tensorRank * sizeof *globalDim, globalStrides,
                                          (tensorRank - 1) * sizeof *globalStrides, pixelBoxLowerCornerWidth,
                                          pixelBoxUpperCornerWidth, channelsPerPixel, pixelsPerColumn, elementStrides,
                                          tensorRank * sizeof *elementStrides, interleave, mode, swizzle, l2Promotion,
                                          oobFill);
    route(&c, globalAddress);
    return finish(&c, tensorMap, rgpu_wire_out_cuTensorMapEncodeIm2colWide);
}

CUresult cuTensorMapReplaceAddress(CUtensorMap *tensorMap, void *globalAddress) {
    if (!tensorMap || (uintptr_t)tensorMap % 64) return (CUresult)rgpu_invalid_value(RGPU_DRIVER);
    rgpu_call c;
    rgpu_wire_cuTensorMapReplaceAddress(&c, tensorMap, sizeof *tensorMap, (uint64_t)(uintptr_t)globalAddress);
    route(&c, globalAddress);
    return finish(&c, tensorMap, rgpu_wire_out_cuTensorMapReplaceAddress);
}
