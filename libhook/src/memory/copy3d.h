/* struct cudaMemcpy3DParms and its parts, as the Runtime lays them out (memcpy3d.c, graph copy nodes). */
#ifndef RGPU_COPY3D_H
#define RGPU_COPY3D_H
#include <stddef.h>

typedef struct { void *ptr; size_t pitch, xsize, ysize; } pitched_ptr; /* cudaPitchedPtr */
typedef struct { size_t x, y, z; } triple;                            /* cudaPos */
typedef struct { size_t width, height, depth; } extent3;              /* cudaExtent */
typedef struct {
    void *srcArray; triple srcPos; pitched_ptr srcPtr;
    void *dstArray; triple dstPos; pitched_ptr dstPtr;
    extent3 extent; int kind;
} copy3d_params;

/* memcpy3d.c: CUDA_MEMCPY3D (linear memory) <-> cudaMemcpy3DParms */
int rgpu_memcpy3d_from_driver(const void *cu_params, copy3d_params *out);
void rgpu_memcpy3d_to_driver(const copy3d_params *p, void *cu_params);
#endif
