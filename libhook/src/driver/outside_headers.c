/* Driver and runtime names declared outside cuda.h and cuda_runtime_api.h (cudaProfiler.h,
 * cuda_profiler_api.h, cudaGL.h, cudaEGL.h, cudaVDPAU.h), which the generator does not read. NVIDIA's
 * runtime looks every one of them up at start; a name that resolves keeps a runtime from holding a
 * null pointer. Profiler control succeeds as it does with no profiler attached (the program is
 * profiled, if at all, on the server); graphics interop needs a display on the GPU's host and answers
 * not-supported. */
#include <stdlib.h>
#include <string.h>

#include "rgpu_call.h"

int cuProfilerInitialize(const char *config, const char *output, int mode) {
    (void)config; (void)output; (void)mode;
    return RGPU_SUCCESS;
}
int cuProfilerStart(void) { return RGPU_SUCCESS; }
int cuProfilerStop(void) { return RGPU_SUCCESS; }
int cudaProfilerStart(void) { return RGPU_SUCCESS; }
int cudaProfilerStop(void) { return RGPU_SUCCESS; }

#define INTEROP(X)                                                                                         \
    X(cuGLCtxCreate) X(cuGLCtxCreate_v2) X(cuGLInit) X(cuGLGetDevices) X(cuGLGetDevices_v2)               \
    X(cuGLRegisterBufferObject) X(cuGLMapBufferObject) X(cuGLMapBufferObject_v2) X(cuGLMapBufferObjectAsync) \
    X(cuGLMapBufferObjectAsync_v2) X(cuGLUnmapBufferObject) X(cuGLUnmapBufferObjectAsync)                \
    X(cuGLUnregisterBufferObject) X(cuGLSetBufferObjectMapFlags) X(cuGraphicsGLRegisterImage)            \
    X(cuGraphicsGLRegisterBuffer) X(cuGraphicsEGLRegisterImage) X(cuGraphicsResourceGetMappedEglFrame)   \
    X(cuEGLStreamConsumerConnect) X(cuEGLStreamConsumerConnectWithFlags) X(cuEGLStreamConsumerDisconnect) \
    X(cuEGLStreamConsumerAcquireFrame) X(cuEGLStreamConsumerReleaseFrame) X(cuEGLStreamProducerConnect)   \
    X(cuEGLStreamProducerDisconnect) X(cuEGLStreamProducerPresentFrame) X(cuEGLStreamProducerReturnFrame) \
    X(cuEventCreateFromEGLSync) X(cuVDPAUGetDevice) X(cuVDPAUCtxCreate) X(cuVDPAUCtxCreate_v2)            \
    X(cuGraphicsVDPAURegisterVideoSurface) X(cuGraphicsVDPAURegisterOutputSurface)

#define DEFINE(name) int name(void) { return rgpu_unsupported(RGPU_DRIVER, #name); }
INTEROP(DEFINE)

#define ENTRY(name) {#name, (void *)name},
static const rgpu_proc extra[] = {
    INTEROP(ENTRY)
    {"cuProfilerInitialize", (void *)cuProfilerInitialize},
    {"cuProfilerStart", (void *)cuProfilerStart},
    {"cuProfilerStop", (void *)cuProfilerStop},
};

void *rgpu_outside_headers_proc(const char *name) {
    for (size_t i = 0; i < sizeof extra / sizeof *extra; i++)
        if (!strcmp(extra[i].name, name)) return extra[i].fn;
    return NULL;
}
