/* Peer devices. The vGPUs of a program live on different servers (or, for two GPUs of one server,
 * in different worker processes), so a kernel on one cannot dereference another's memory: peer
 * access is reported unsupported, as CUDA reports it for GPUs without P2P. Peer copies still work,
 * as they do on such GPUs in CUDA: the data goes through the client, in bounded chunks. */
#include <stdlib.h>
#include <string.h>

#include "rgpu_call.h"

#define PEER_ACCESS_UNSUPPORTED cudaErrorPeerAccessUnsupported
#define PEER_ACCESS_NOT_ENABLED cudaErrorPeerAccessNotEnabled
#define INVALID_CONTEXT CUDA_ERROR_INVALID_CONTEXT
#define CHUNK RGPU_D2H_CHUNK


static int valid(int dev) { return dev >= 0 && dev < rgpu_device_count(); }

cudaError_t cudaDeviceCanAccessPeer(int *can, int dev, int peer) {
    if (!can) return rgpu_invalid_value(RGPU_RUNTIME);
    if (!valid(dev) || !valid(peer)) return rgpu_record(RGPU_RUNTIME, RGPU_INVALID_DEVICE);
    *can = 0;
    return RGPU_SUCCESS;
}

CUresult cuDeviceCanAccessPeer(int *can, CUdevice dev, CUdevice peer) {
    if (!can) return rgpu_invalid_value(RGPU_DRIVER);
    if (!valid(dev) || !valid(peer)) return rgpu_record(RGPU_DRIVER, RGPU_INVALID_DEVICE);
    *can = 0;
    return RGPU_SUCCESS;
}

/* Every P2P attribute (performance rank, access, native atomics, array access) is 0 between vGPUs:
 * they never share a bus, even when two are slices of one GPU (each is its own process). */
static int p2p_attribute(int face, int *value, int attr, int dev, int peer) {
    if (!value || attr < 1 || attr > 5) return rgpu_invalid_value(face);
    if (!valid(dev) || !valid(peer) || dev == peer) return rgpu_record(face, RGPU_INVALID_DEVICE);
    *value = 0;
    return RGPU_SUCCESS;
}
cudaError_t cudaDeviceGetP2PAttribute(int *value, enum cudaDeviceP2PAttr attr, int dev, int peer) {
    return p2p_attribute(RGPU_RUNTIME, value, attr, dev, peer);
}
CUresult cuDeviceGetP2PAttribute(int *value, CUdevice_P2PAttribute attr, CUdevice dev, CUdevice peer) {
    return p2p_attribute(RGPU_DRIVER, value, attr, dev, peer);
}

cudaError_t cudaDeviceEnablePeerAccess(int peer, unsigned int flags) {
    if (flags) return rgpu_invalid_value(RGPU_RUNTIME);
    if (!valid(peer)) return rgpu_record(RGPU_RUNTIME, RGPU_INVALID_DEVICE);
    return rgpu_record(RGPU_RUNTIME, PEER_ACCESS_UNSUPPORTED);
}

cudaError_t cudaDeviceDisablePeerAccess(int peer) {
    if (!valid(peer)) return rgpu_record(RGPU_RUNTIME, RGPU_INVALID_DEVICE);
    return rgpu_record(RGPU_RUNTIME, PEER_ACCESS_NOT_ENABLED);
}

CUresult cuCtxEnablePeerAccess(CUcontext peer, unsigned int flags) {
    if (flags) return rgpu_invalid_value(RGPU_DRIVER);
    if (!peer) return rgpu_record(RGPU_DRIVER, INVALID_CONTEXT);
    return rgpu_record(RGPU_DRIVER, PEER_ACCESS_UNSUPPORTED);
}

CUresult cuCtxDisablePeerAccess(CUcontext peer) {
    if (!peer) return rgpu_record(RGPU_DRIVER, INVALID_CONTEXT);
    return rgpu_record(RGPU_DRIVER, PEER_ACCESS_NOT_ENABLED);
}

/* The device whose memory `p` is (-1: none of them), as cudaPointerGetAttributes finds it: the
 * program's own allocations (the address registry, addresses.c), else the servers, the current device's first. */
int rgpu_device_of(const void *p) {
    struct cudaPointerAttributes a;
    memset(&a, 0, sizeof a);
    if (cudaPointerGetAttributes(&a, p) != cudaSuccess) return -1;
    return a.type == cudaMemoryTypeDevice || a.type == cudaMemoryTypeManaged ? a.device : -1;
}

static int peer_copy(int face, void *dst, int dst_dev, const void *src, int src_dev, size_t n);

/* A device-to-device copy between two devices' memory (cudaMemcpy with DeviceToDevice or Default, as
 * PyTorch copies a tensor to another GPU): CUDA stages it through the host where the GPUs have no
 * peer access, and so does rgpu, after the stream's earlier work. dd and sd: the devices whose memory
 * dst and src are (-1: none), as the caller found them (memcpy.c: the address registry, else the
 * servers). 1: it was such a copy (*rc says how it went); 0: both sides are one device's, for the
 * caller to send. */
int rgpu_cross_device_copy(int face, void *dst, int dd, const void *src, int sd, size_t n, const void *stream,
                           int async, int *rc) {
    if (sd < 0 || dd < 0 || sd == dd) return 0;
    if ((*rc = rgpu_capture_guard(face, async ? stream : NULL, 1))) return 1;
    if (async && stream && (*rc = face == RGPU_DRIVER ? cuStreamSynchronize((CUstream)stream)
                                                      : cudaStreamSynchronize((cudaStream_t)stream)))
        return 1;
    *rc = peer_copy(face, dst, dd, src, sd, n);
    return 1;
}

/* dst on dstDev <- src on srcDev, through a host buffer. */
static int peer_copy(int face, void *dst, int dst_dev, const void *src, int src_dev, size_t n) {
    int rc = rgpu_ensure_init();
    if (rc) return rgpu_record(face, rc);
    if (!valid(dst_dev) || !valid(src_dev)) return rgpu_record(face, RGPU_INVALID_DEVICE);
    if (n == 0) return RGPU_SUCCESS;
    int saved = rgpu_current_device();
    if (dst_dev == src_dev) {
        rgpu_set_current_device(dst_dev);
        rc = cudaMemcpy(dst, src, n, cudaMemcpyDeviceToDevice);
        rgpu_set_current_device(saved);
        return rc;
    }
    size_t chunk = n < CHUNK ? n : CHUNK;
    uint8_t *buf = malloc(chunk);
    if (!buf) return rgpu_record(face, RGPU_OUT_OF_MEMORY);
    for (size_t off = 0; off < n && rc == 0; off += chunk) {
        size_t k = n - off < chunk ? n - off : chunk;
        rgpu_set_current_device(src_dev);
        rc = cudaMemcpy(buf, (const uint8_t *)src + off, k, cudaMemcpyDeviceToHost);
        if (rc == 0) {
            rgpu_set_current_device(dst_dev);
            rc = cudaMemcpy((uint8_t *)dst + off, buf, k, cudaMemcpyHostToDevice);
        }
    }
    rgpu_set_current_device(saved);
    free(buf);
    return rc;
}

/* A peer copy runs through the client at once: it cannot become a node of a capture (refused on a
 * capturing stream, as CUDA refuses what it cannot capture), and the synchronous one is a legacy-stream
 * call. */
cudaError_t cudaMemcpyPeer(void *dst, int dstDevice, const void *src, int srcDevice, size_t count) {
    int rc = RGPU_GUARD_cudaMemcpyPeer();
    if (rc) return rc;
    return peer_copy(RGPU_RUNTIME, dst, dstDevice, src, srcDevice, count);
}

cudaError_t cudaMemcpyPeerAsync(void *dst, int dstDevice, const void *src, int srcDevice, size_t count, cudaStream_t stream) {
    /* ordered after earlier work: each session's copies follow its queued calls */
    int rc = RGPU_GUARD_cudaMemcpyPeerAsync(stream);
    if (rc) return rc;
    return peer_copy(RGPU_RUNTIME, dst, dstDevice, src, srcDevice, count);
}

/* The Driver API names the devices by context. */
static int ctx_device(void *ctx, int *dev) {
    return cuCtxGetDevice_v2(dev, ctx);
}

CUresult cuMemcpyPeer(CUdeviceptr dst, CUcontext dstCtx, CUdeviceptr src, CUcontext srcCtx, size_t count) {
    int d, s, rc;
    if ((rc = RGPU_GUARD_cuMemcpyPeer())) return rc;
    if ((rc = ctx_device(dstCtx, &d)) || (rc = ctx_device(srcCtx, &s))) return rc;
    return peer_copy(RGPU_DRIVER, (void *)(uintptr_t)dst, d, (const void *)(uintptr_t)src, s, count);
}

CUresult cuMemcpyPeerAsync(CUdeviceptr dst, CUcontext dstCtx, CUdeviceptr src, CUcontext srcCtx, size_t count, CUstream stream) {
    int rc = RGPU_GUARD_cuMemcpyPeerAsync(stream);
    if (rc) return rc;
    return cuMemcpyPeer(dst, dstCtx, src, srcCtx, count);
}
