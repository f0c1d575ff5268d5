/* CUDA_MEMCPY3D <-> cudaMemcpy3DParms (memcpy3d.c), for copies and graph copy nodes. */
#ifndef RGPU_MEMCPY3D_H
#define RGPU_MEMCPY3D_H
#include "rgpu_call.h"

int rgpu_memcpy3d_from_driver(const CUDA_MEMCPY3D *p, struct cudaMemcpy3DParms *out);
void rgpu_memcpy3d_to_driver(const struct cudaMemcpy3DParms *p, CUDA_MEMCPY3D *out);
int rgpu_memcpy3d_from_runtime(const struct cudaMemcpy3DParms *p, CUDA_MEMCPY3D *out); /* linear memory */
#endif
