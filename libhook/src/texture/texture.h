/* CUDA arrays, texture and surface objects in the client (texture/arrays.c, texobj.c) and the copies
 * to and from arrays (memory/array_copy.c). The server keeps the arrays; the client keeps what it
 * needs to marshal calls: each array's descriptor (the Runtime counts copies of arrays in elements,
 * the wire in bytes) and the conversions between the Runtime's descriptors and the Driver's. */
#ifndef RGPU_TEXTURE_H
#define RGPU_TEXTURE_H
#include "rgpu_call.h"

/* The descriptor of an array this process made (a level of a mipmapped array too): 0, or
 * RGPU_INVALID_HANDLE for a handle that is no array of ours. */
int rgpu_array_desc(const void *array, CUDA_ARRAY3D_DESCRIPTOR *out);
/* Bytes of one element (all channels) of a descriptor's format; 0 for a format not served. */
size_t rgpu_array_elem(const CUDA_ARRAY3D_DESCRIPTOR *d);
/* A channel descriptor as the Driver's format and channel count: 0 or cudaErrorInvalidChannelDescriptor. */
int rgpu_channel_format(const struct cudaChannelFormatDesc *c, CUarray_format *format, unsigned *channels);
void rgpu_format_channel(CUarray_format format, unsigned channels, struct cudaChannelFormatDesc *c);

/* memory/array_copy.c: one box (CUDA_MEMCPY3D in bytes) between host, device and array memory, as the
 * call of `face`; a capturing stream gets a copy node instead. */
int rgpu_box_copy(int face, const CUDA_MEMCPY3D *p, void *stream, int async);
/* The Runtime's cudaMemcpy3DParms with an array on a side, as CUDA_MEMCPY3D in bytes. */
int rgpu_memcpy3d_parms_to_box(const struct cudaMemcpy3DParms *p, CUDA_MEMCPY3D *out);
#endif
