/* Texture and surface objects. The Driver's descriptors travel by value, with the session's value
 * of an array handle in place of the program's (tagged) one, and come back from the Get*Desc calls
 * with the session's value, which is tagged again here. The Runtime's descriptors are converted to
 * the Driver's and back: a channel descriptor is a format and a channel count, the read mode, sRGB,
 * normalised coordinates and the cubemap and trilinear options are flags. An object's value is the
 * server's (what kernels read), returned as it is. */
#include <string.h>

#include "rgpu_call.h"
#include "texture.h"

/* The resource descriptor as it travels: array handles as the session's values; the call goes to
 * the array's device. */
static void wire_resource(const CUDA_RESOURCE_DESC *r, CUDA_RESOURCE_DESC *w, int *dev) {
    *w = *r;
    if (r->resType == CU_RESOURCE_TYPE_ARRAY)
        w->res.array.hArray = (CUarray)(uintptr_t)rgpu_untag_handle(r->res.array.hArray, dev);
    else if (r->resType == CU_RESOURCE_TYPE_MIPMAPPED_ARRAY)
        w->res.mipmap.hMipmappedArray = (CUmipmappedArray)(uintptr_t)rgpu_untag_handle(r->res.mipmap.hMipmappedArray, dev);
}

static void tag_resource(CUDA_RESOURCE_DESC *r, int dev) {
    if (r->resType == CU_RESOURCE_TYPE_ARRAY)
        r->res.array.hArray = (CUarray)rgpu_tag_handle(dev, (uint64_t)(uintptr_t)r->res.array.hArray);
    else if (r->resType == CU_RESOURCE_TYPE_MIPMAPPED_ARRAY)
        r->res.mipmap.hMipmappedArray = (CUmipmappedArray)rgpu_tag_handle(dev, (uint64_t)(uintptr_t)r->res.mipmap.hMipmappedArray);
}

static int tex_create(int face, CUtexObject *out, const CUDA_RESOURCE_DESC *r, const CUDA_TEXTURE_DESC *t,
                      const CUDA_RESOURCE_VIEW_DESC *v) {
    if (!out || !r || !t) return rgpu_invalid_value(face);
    CUDA_RESOURCE_DESC w;
    int dev = -1;
    wire_resource(r, &w, &dev);
    rgpu_call c;
    rgpu_wire_cuTexObjectCreate(&c, &w, sizeof w, t, sizeof *t, v, v ? sizeof *v : 0);
    c.face = face;
    if (dev >= 0) c.dev = dev;
    int rc = rgpu_sync(&c);
    if (rc == 0) {
        uint64_t value = 0;
        rgpu_wire_out_cuTexObjectCreate(&c, &value);
        *out = value;
    }
    rgpu_end(&c);
    return rc;
}

CUresult cuTexObjectCreate(CUtexObject *out, const CUDA_RESOURCE_DESC *r, const CUDA_TEXTURE_DESC *t,
                           const CUDA_RESOURCE_VIEW_DESC *v) {
    return tex_create(RGPU_DRIVER, out, r, t, v);
}

static int tex_resource(int face, CUDA_RESOURCE_DESC *out, CUtexObject t, int surface) {
    if (!out) return rgpu_invalid_value(face);
    rgpu_call c;
    if (surface) rgpu_wire_cuSurfObjectGetResourceDesc(&c, t);
    else rgpu_wire_cuTexObjectGetResourceDesc(&c, t);
    c.face = face;
    int rc = rgpu_sync(&c);
    if (rc == 0) {
        memset(out, 0, sizeof *out);
        if (surface) rgpu_wire_out_cuSurfObjectGetResourceDesc(&c, out, sizeof *out);
        else rgpu_wire_out_cuTexObjectGetResourceDesc(&c, out, sizeof *out);
        tag_resource(out, c.dev);
    }
    rgpu_end(&c);
    return rc;
}

CUresult cuTexObjectGetResourceDesc(CUDA_RESOURCE_DESC *out, CUtexObject t) { return tex_resource(RGPU_DRIVER, out, t, 0); }
CUresult cuSurfObjectGetResourceDesc(CUDA_RESOURCE_DESC *out, CUsurfObject s) { return tex_resource(RGPU_DRIVER, out, s, 1); }

static int surf_create(int face, CUsurfObject *out, const CUDA_RESOURCE_DESC *r) {
    if (!out || !r) return rgpu_invalid_value(face);
    CUDA_RESOURCE_DESC w;
    int dev = -1;
    wire_resource(r, &w, &dev);
    rgpu_call c;
    rgpu_wire_cuSurfObjectCreate(&c, &w, sizeof w);
    c.face = face;
    if (dev >= 0) c.dev = dev;
    int rc = rgpu_sync(&c);
    if (rc == 0) {
        uint64_t value = 0;
        rgpu_wire_out_cuSurfObjectCreate(&c, &value);
        *out = value;
    }
    rgpu_end(&c);
    return rc;
}

CUresult cuSurfObjectCreate(CUsurfObject *out, const CUDA_RESOURCE_DESC *r) { return surf_create(RGPU_DRIVER, out, r); }

/* ---- the Runtime's descriptors ------------------------------------------------------------------ */

static int from_runtime_resource(const struct cudaResourceDesc *r, CUDA_RESOURCE_DESC *d) {
    memset(d, 0, sizeof *d);
    d->resType = (CUresourcetype)r->resType;
    d->flags = r->flags;
    CUarray_format f;
    unsigned n;
    int rc;
    switch (r->resType) {
    case cudaResourceTypeArray:
        d->res.array.hArray = (CUarray)r->res.array.array;
        return 0;
    case cudaResourceTypeMipmappedArray:
        d->res.mipmap.hMipmappedArray = (CUmipmappedArray)r->res.mipmap.mipmap;
        return 0;
    case cudaResourceTypeLinear:
        if ((rc = rgpu_channel_format(&r->res.linear.desc, &f, &n))) return rc;
        d->res.linear.devPtr = (CUdeviceptr)(uintptr_t)r->res.linear.devPtr;
        d->res.linear.format = f, d->res.linear.numChannels = n;
        d->res.linear.sizeInBytes = r->res.linear.sizeInBytes;
        return 0;
    case cudaResourceTypePitch2D:
        if ((rc = rgpu_channel_format(&r->res.pitch2D.desc, &f, &n))) return rc;
        d->res.pitch2D.devPtr = (CUdeviceptr)(uintptr_t)r->res.pitch2D.devPtr;
        d->res.pitch2D.format = f, d->res.pitch2D.numChannels = n;
        d->res.pitch2D.width = r->res.pitch2D.width, d->res.pitch2D.height = r->res.pitch2D.height;
        d->res.pitch2D.pitchInBytes = r->res.pitch2D.pitchInBytes;
        return 0;
    default:
        return cudaErrorInvalidValue;
    }
}

static void to_runtime_resource(const CUDA_RESOURCE_DESC *d, struct cudaResourceDesc *r) {
    memset(r, 0, sizeof *r);
    r->resType = (enum cudaResourceType)d->resType;
    r->flags = d->flags;
    switch (d->resType) {
    case CU_RESOURCE_TYPE_ARRAY: r->res.array.array = (cudaArray_t)d->res.array.hArray; break;
    case CU_RESOURCE_TYPE_MIPMAPPED_ARRAY: r->res.mipmap.mipmap = (cudaMipmappedArray_t)d->res.mipmap.hMipmappedArray; break;
    case CU_RESOURCE_TYPE_LINEAR:
        r->res.linear.devPtr = (void *)(uintptr_t)d->res.linear.devPtr;
        rgpu_format_channel(d->res.linear.format, d->res.linear.numChannels, &r->res.linear.desc);
        r->res.linear.sizeInBytes = d->res.linear.sizeInBytes;
        break;
    case CU_RESOURCE_TYPE_PITCH2D:
        r->res.pitch2D.devPtr = (void *)(uintptr_t)d->res.pitch2D.devPtr;
        rgpu_format_channel(d->res.pitch2D.format, d->res.pitch2D.numChannels, &r->res.pitch2D.desc);
        r->res.pitch2D.width = d->res.pitch2D.width, r->res.pitch2D.height = d->res.pitch2D.height;
        r->res.pitch2D.pitchInBytes = d->res.pitch2D.pitchInBytes;
        break;
    default: break;
    }
}

static void from_runtime_texture(const struct cudaTextureDesc *t, CUDA_TEXTURE_DESC *d) {
    memset(d, 0, sizeof *d);
    for (int i = 0; i < 3; i++) d->addressMode[i] = (CUaddress_mode)t->addressMode[i];
    d->filterMode = (CUfilter_mode)t->filterMode;
    d->flags = (t->readMode == cudaReadModeElementType ? CU_TRSF_READ_AS_INTEGER : 0) |
               (t->normalizedCoords ? CU_TRSF_NORMALIZED_COORDINATES : 0) | (t->sRGB ? CU_TRSF_SRGB : 0) |
               (t->disableTrilinearOptimization ? CU_TRSF_DISABLE_TRILINEAR_OPTIMIZATION : 0) |
               (t->seamlessCubemap ? CU_TRSF_SEAMLESS_CUBEMAP : 0);
    d->maxAnisotropy = t->maxAnisotropy;
    d->mipmapFilterMode = (CUfilter_mode)t->mipmapFilterMode;
    d->mipmapLevelBias = t->mipmapLevelBias;
    d->minMipmapLevelClamp = t->minMipmapLevelClamp, d->maxMipmapLevelClamp = t->maxMipmapLevelClamp;
    memcpy(d->borderColor, t->borderColor, sizeof d->borderColor);
}

static void to_runtime_texture(const CUDA_TEXTURE_DESC *d, struct cudaTextureDesc *t) {
    memset(t, 0, sizeof *t);
    for (int i = 0; i < 3; i++) t->addressMode[i] = (enum cudaTextureAddressMode)d->addressMode[i];
    t->filterMode = (enum cudaTextureFilterMode)d->filterMode;
    t->readMode = d->flags & CU_TRSF_READ_AS_INTEGER ? cudaReadModeElementType : cudaReadModeNormalizedFloat;
    t->sRGB = (d->flags & CU_TRSF_SRGB) != 0;
    t->normalizedCoords = (d->flags & CU_TRSF_NORMALIZED_COORDINATES) != 0;
    t->disableTrilinearOptimization = (d->flags & CU_TRSF_DISABLE_TRILINEAR_OPTIMIZATION) != 0;
    t->seamlessCubemap = (d->flags & CU_TRSF_SEAMLESS_CUBEMAP) != 0;
    t->maxAnisotropy = d->maxAnisotropy;
    t->mipmapFilterMode = (enum cudaTextureFilterMode)d->mipmapFilterMode;
    t->mipmapLevelBias = d->mipmapLevelBias;
    t->minMipmapLevelClamp = d->minMipmapLevelClamp, t->maxMipmapLevelClamp = d->maxMipmapLevelClamp;
    memcpy(t->borderColor, d->borderColor, sizeof t->borderColor);
}

/* The two view descriptors have the same fields (the formats' enumerators have the same numbers). */
static void from_runtime_view(const struct cudaResourceViewDesc *v, CUDA_RESOURCE_VIEW_DESC *d) {
    memset(d, 0, sizeof *d);
    d->format = (CUresourceViewFormat)v->format;
    d->width = v->width, d->height = v->height, d->depth = v->depth;
    d->firstMipmapLevel = v->firstMipmapLevel, d->lastMipmapLevel = v->lastMipmapLevel;
    d->firstLayer = v->firstLayer, d->lastLayer = v->lastLayer;
}

static void to_runtime_view(const CUDA_RESOURCE_VIEW_DESC *d, struct cudaResourceViewDesc *v) {
    memset(v, 0, sizeof *v);
    v->format = (enum cudaResourceViewFormat)d->format;
    v->width = d->width, v->height = d->height, v->depth = d->depth;
    v->firstMipmapLevel = d->firstMipmapLevel, v->lastMipmapLevel = d->lastMipmapLevel;
    v->firstLayer = d->firstLayer, v->lastLayer = d->lastLayer;
}

cudaError_t cudaCreateTextureObject(cudaTextureObject_t *out, const struct cudaResourceDesc *r, const struct cudaTextureDesc *t,
                                    const struct cudaResourceViewDesc *v) {
    if (!out || !r || !t) return rgpu_invalid_value(RGPU_RUNTIME);
    CUDA_RESOURCE_DESC dr;
    CUDA_TEXTURE_DESC dt;
    CUDA_RESOURCE_VIEW_DESC dv;
    int rc = from_runtime_resource(r, &dr);
    if (rc) return rgpu_record(RGPU_RUNTIME, rc);
    from_runtime_texture(t, &dt);
    if (v) from_runtime_view(v, &dv);
    return tex_create(RGPU_RUNTIME, (CUtexObject *)out, &dr, &dt, v ? &dv : NULL);
}

cudaError_t cudaDestroyTextureObject(cudaTextureObject_t t) {
    int rc = cuTexObjectDestroy(t);
    return rc ? rgpu_record(RGPU_RUNTIME, rc) : 0;
}

cudaError_t cudaGetTextureObjectResourceDesc(struct cudaResourceDesc *out, cudaTextureObject_t t) {
    if (!out) return rgpu_invalid_value(RGPU_RUNTIME);
    CUDA_RESOURCE_DESC d;
    int rc = tex_resource(RGPU_RUNTIME, &d, t, 0);
    if (rc == 0) to_runtime_resource(&d, out);
    return rc;
}

cudaError_t cudaGetTextureObjectTextureDesc(struct cudaTextureDesc *out, cudaTextureObject_t t) {
    if (!out) return rgpu_invalid_value(RGPU_RUNTIME);
    CUDA_TEXTURE_DESC d;
    int rc = cuTexObjectGetTextureDesc(&d, t);
    if (rc) return rgpu_record(RGPU_RUNTIME, rc);
    to_runtime_texture(&d, out);
    return 0;
}

cudaError_t cudaGetTextureObjectResourceViewDesc(struct cudaResourceViewDesc *out, cudaTextureObject_t t) {
    if (!out) return rgpu_invalid_value(RGPU_RUNTIME);
    CUDA_RESOURCE_VIEW_DESC d;
    int rc = cuTexObjectGetResourceViewDesc(&d, t);
    if (rc) return rgpu_record(RGPU_RUNTIME, rc);
    to_runtime_view(&d, out);
    return 0;
}

cudaError_t cudaCreateSurfaceObject(cudaSurfaceObject_t *out, const struct cudaResourceDesc *r) {
    if (!out || !r) return rgpu_invalid_value(RGPU_RUNTIME);
    CUDA_RESOURCE_DESC dr;
    int rc = from_runtime_resource(r, &dr);
    if (rc) return rgpu_record(RGPU_RUNTIME, rc);
    return surf_create(RGPU_RUNTIME, (CUsurfObject *)out, &dr);
}

cudaError_t cudaDestroySurfaceObject(cudaSurfaceObject_t s) {
    int rc = cuSurfObjectDestroy(s);
    return rc ? rgpu_record(RGPU_RUNTIME, rc) : 0;
}

cudaError_t cudaGetSurfaceObjectResourceDesc(struct cudaResourceDesc *out, cudaSurfaceObject_t s) {
    if (!out) return rgpu_invalid_value(RGPU_RUNTIME);
    CUDA_RESOURCE_DESC d;
    int rc = tex_resource(RGPU_RUNTIME, &d, s, 1);
    if (rc == 0) to_runtime_resource(&d, out);
    return rc;
}
