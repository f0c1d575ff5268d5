/* 3D copies between devices: cudaMemcpy3DPeer(Async) and cuMemcpy3DPeer(Async). As the 1D peer
 * copies (peer.c), the data goes through the client, as CUDA stages copies between GPUs without peer
 * access: the source device copies a slab of whole slices into a dense host buffer, the destination
 * device copies it out, slab after slab, each side with the 3D copy of its own kind (pitched memory
 * or a CUDA array, memcpy3d.c / array_copy.c). Both sides of one device make one 3D copy there. */
#include <stdlib.h>

#include "memcpy3d.h"
#include "rgpu_call.h"
#include "texture.h"

#define SLAB RGPU_D2H_CHUNK /* bytes of host buffer a staged copy takes at most (one slice at least) */

static int valid(int dev) { return dev >= 0 && dev < rgpu_device_count(); }

/* `c` (in bytes, as the Driver's) from src_dev's memory to dst_dev's. */
static int staged(const CUDA_MEMCPY3D *c, int src_dev, int dst_dev) {
    if (!c->WidthInBytes || !c->Height || !c->Depth) return CUDA_SUCCESS;
    int saved = rgpu_current_device(), rc;
    if (src_dev == dst_dev) {
        rgpu_set_current_device(src_dev);
        rc = cuMemcpy3D_v2(c);
        rgpu_set_current_device(saved);
        return rc;
    }
    size_t slice = c->WidthInBytes * c->Height, per = slice >= SLAB ? 1 : SLAB / slice;
    if (per > c->Depth) per = c->Depth;
    unsigned char *buf = malloc(per * slice);
    if (!buf) return CUDA_ERROR_OUT_OF_MEMORY;
    rc = CUDA_SUCCESS;
    for (size_t z = 0; z < c->Depth && rc == CUDA_SUCCESS; z += per) {
        size_t n = c->Depth - z < per ? c->Depth - z : per;
        CUDA_MEMCPY3D out = *c, in = *c;
        out.srcZ += z, out.Depth = n;
        out.dstMemoryType = CU_MEMORYTYPE_HOST, out.dstHost = buf, out.dstDevice = 0, out.dstArray = NULL;
        out.dstXInBytes = out.dstY = out.dstZ = 0, out.dstPitch = c->WidthInBytes, out.dstHeight = c->Height;
        in.dstZ += z, in.Depth = n;
        in.srcMemoryType = CU_MEMORYTYPE_HOST, in.srcHost = buf, in.srcDevice = 0, in.srcArray = NULL;
        in.srcXInBytes = in.srcY = in.srcZ = 0, in.srcPitch = c->WidthInBytes, in.srcHeight = c->Height;
        rgpu_set_current_device(src_dev);
        rc = cuMemcpy3D_v2(&out);
        if (rc == CUDA_SUCCESS) {
            rgpu_set_current_device(dst_dev);
            rc = cuMemcpy3D_v2(&in);
        }
    }
    rgpu_set_current_device(saved);
    free(buf);
    return rc;
}

/* ---- Runtime ------------------------------------------------------------------------------- */

static int runtime_peer(const struct cudaMemcpy3DPeerParms *p) {
    int rc = rgpu_ensure_init();
    if (rc) return rgpu_record(RGPU_RUNTIME, rc);
    if (!p) return rgpu_invalid_value(RGPU_RUNTIME);
    if (!valid(p->srcDevice) || !valid(p->dstDevice)) return rgpu_record(RGPU_RUNTIME, RGPU_INVALID_DEVICE);
    if (!p->extent.width || !p->extent.height || !p->extent.depth) return RGPU_SUCCESS;
    /* every side is its device's memory: a device-to-device copy, in bytes as the Driver counts */
    struct cudaMemcpy3DParms r = {p->srcArray, p->srcPos, p->srcPtr, p->dstArray, p->dstPos, p->dstPtr, p->extent,
                                  cudaMemcpyDeviceToDevice};
    CUDA_MEMCPY3D c;
    rc = r.srcArray || r.dstArray ? rgpu_memcpy3d_parms_to_box(&r, &c) : rgpu_memcpy3d_from_runtime(&r, &c);
    if (rc == 0) rc = staged(&c, p->srcDevice, p->dstDevice);
    return rc ? rgpu_record(RGPU_RUNTIME, rc) : RGPU_SUCCESS;
}

cudaError_t cudaMemcpy3DPeer(const struct cudaMemcpy3DPeerParms *p) {
    int rc = RGPU_GUARD_cudaMemcpy3DPeer();
    if (rc) return rc;
    return runtime_peer(p);
}

/* Complete on return, after the stream's earlier work, as cudaMemcpyPeerAsync. */
cudaError_t cudaMemcpy3DPeerAsync(const struct cudaMemcpy3DPeerParms *p, cudaStream_t stream) {
    int rc = RGPU_GUARD_cudaMemcpy3DPeerAsync(stream);
    if (rc) return rc;
    if (stream && (rc = cudaStreamSynchronize(stream))) return rc;
    return runtime_peer(p);
}

/* ---- Driver: the devices are named by their contexts ----------------------------------------- */

static int driver_peer(const CUDA_MEMCPY3D_PEER *p) {
    int rc = rgpu_ensure_init(), s, d;
    if (rc) return rgpu_record(RGPU_DRIVER, rc);
    if (!p || p->srcLOD || p->dstLOD) return rgpu_invalid_value(RGPU_DRIVER);
    if ((rc = cuCtxGetDevice_v2(&s, p->srcContext)) || (rc = cuCtxGetDevice_v2(&d, p->dstContext))) return rc;
    CUDA_MEMCPY3D c = {
        .srcXInBytes = p->srcXInBytes, .srcY = p->srcY, .srcZ = p->srcZ, .srcMemoryType = p->srcMemoryType,
        .srcHost = p->srcHost, .srcDevice = p->srcDevice, .srcArray = p->srcArray, .srcPitch = p->srcPitch,
        .srcHeight = p->srcHeight, .dstXInBytes = p->dstXInBytes, .dstY = p->dstY, .dstZ = p->dstZ,
        .dstMemoryType = p->dstMemoryType, .dstHost = p->dstHost, .dstDevice = p->dstDevice, .dstArray = p->dstArray,
        .dstPitch = p->dstPitch, .dstHeight = p->dstHeight, .WidthInBytes = p->WidthInBytes, .Height = p->Height,
        .Depth = p->Depth};
    rc = staged(&c, s, d);
    return rc ? rgpu_record(RGPU_DRIVER, rc) : CUDA_SUCCESS;
}

CUresult cuMemcpy3DPeer(const CUDA_MEMCPY3D_PEER *p) {
    int rc = RGPU_GUARD_cuMemcpy3DPeer();
    if (rc) return rc;
    return driver_peer(p);
}

CUresult cuMemcpy3DPeerAsync(const CUDA_MEMCPY3D_PEER *p, CUstream stream) {
    int rc = RGPU_GUARD_cuMemcpy3DPeerAsync(stream);
    if (rc) return rc;
    if (stream && (rc = cuStreamSynchronize(stream))) return rc;
    return driver_peer(p);
}
