// Context-wide events (CUDA 12.5): cuCtxRecordEvent takes in the work of every stream of the context,
// a non-blocking one's included, where a stream's own event takes in only that stream's;
// cuCtxWaitEvent makes every stream's later work wait, a stream made afterwards included. And the
// refusals: an event that is none, a context that is not one, a capture in progress.
// `driver_ctx_events MS`: a kernel that runs MS milliseconds by the GPU's global timer keeps a
// non-blocking stream busy, so that the events are seen not ready (0: no kernel is long, as on the
// null driver, where kernels do not run; only the calls, their refusals and their completion are
// checked). A timer, not a count of steps: the software GPU's compiler makes a loop of steps take
// anything from seconds to microseconds.
#include <cstdlib>
#include <cuda.h>
#include <cuda_runtime.h>
#include "driver_check.h"

__device__ unsigned long long now_ns() {
    unsigned long long t;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
    return t;
}

__global__ void spin(unsigned long long ns, unsigned *out) {
    unsigned long long t0 = now_ns();
    unsigned n = 0;
    while (now_ns() - t0 < ns) n++;
    *out = n + 1;
}

#define NOT_READY(ev) EXPECT(!timed || cuEventQuery(ev) == CUDA_ERROR_NOT_READY)

int main(int argc, char **argv) {
    unsigned long long ms = argc > 1 ? strtoull(argv[1], nullptr, 10) : 0, ns = ms * 1000000ull;
    int timed = ms > 0;
    CK(cuInit(0));
    CUdevice dev;
    CUcontext ctx;
    CK(cuDeviceGet(&dev, 0));
    CK(cuDevicePrimaryCtxRetain(&ctx, dev));
    CK(cuCtxSetCurrent(ctx));
    CUstream busy, idle;
    CK(cuStreamCreate(&busy, CU_STREAM_NON_BLOCKING));
    CK(cuStreamCreate(&idle, CU_STREAM_NON_BLOCKING));
    CUevent own, whole, marks, fresh_ev, idle_ev;
    for (CUevent *e : {&own, &whole, &marks, &fresh_ev, &idle_ev}) CK(cuEventCreate(e, CU_EVENT_DISABLE_TIMING));
    unsigned *out;
    if (cudaMalloc(&out, 4) != cudaSuccess) return printf("FAIL cudaMalloc\n"), 1;

    // cuCtxRecordEvent: the busy stream's kernel is in it; an event of the idle stream is not
    spin<<<1, 1, 0, (cudaStream_t)busy>>>(ns, out);
    CK(cuEventRecord(own, idle));
    CK(cuCtxRecordEvent(ctx, whole));
    CK(cuCtxRecordEvent(nullptr, whole));  // NULL: the current context
    NOT_READY(whole);
    CK(cuEventSynchronize(own));
    CK(cuEventSynchronize(whole));
    CK(cuStreamQuery(busy));  // all of its work was in the event
    unsigned got = 0;
    CK(cuMemcpyDtoH(&got, (CUdeviceptr)out, 4));
    EXPECT(!timed || got > 0);

    // cuCtxWaitEvent: later work of every stream waits, a stream made afterwards too
    spin<<<1, 1, 0, (cudaStream_t)busy>>>(ns, out);
    CK(cuEventRecord(marks, busy));
    CK(cuCtxWaitEvent(ctx, marks));
    CK(cuEventRecord(marks, busy));  // recorded again later: the wait stays as it was asked
    CUstream fresh;
    CK(cuStreamCreate(&fresh, CU_STREAM_NON_BLOCKING));
    CK(cuEventRecord(fresh_ev, fresh));
    CK(cuEventRecord(idle_ev, idle));
    NOT_READY(fresh_ev);
    NOT_READY(idle_ev);
    CK(cuEventSynchronize(idle_ev));
    CK(cuEventSynchronize(fresh_ev));
    CK(cuStreamQuery(busy));
    CK(cuCtxSynchronize());

    // refusals, each leaving the session as it was
    EXPECT(cuCtxRecordEvent(ctx, nullptr) == CUDA_ERROR_INVALID_HANDLE);
    int not_a_context = 7;
    EXPECT(cuCtxWaitEvent((CUcontext)&not_a_context, whole) == CUDA_ERROR_INVALID_CONTEXT);
    CK(cuStreamBeginCapture(idle, CU_STREAM_CAPTURE_MODE_RELAXED));
    EXPECT(cuCtxRecordEvent(ctx, whole) == CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED);
    CUgraph g;
    CK(cuStreamEndCapture(idle, &g));
    CK(cuGraphDestroy(g));
    CK(cuCtxRecordEvent(ctx, whole));
    CK(cuEventSynchronize(whole));

    for (CUevent e : {own, whole, marks, fresh_ev, idle_ev}) CK(cuEventDestroy(e));
    for (CUstream s : {busy, idle, fresh}) CK(cuStreamDestroy(s));
    if (cudaFree(out) != cudaSuccess) return printf("FAIL cudaFree\n"), 1;
    CK(cuDevicePrimaryCtxRelease(dev));
    printf("OK driver_ctx_events\n");
    return 0;
}
