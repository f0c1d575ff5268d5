// Dynamic parallelism on the software GPU (tests/unit/sim/test_cdp.py), built with -rdc=true: the
// unit's PTX calls the device runtime, which the software GPU provides (no libcudadevrt linked here).
#include <cuda_runtime.h>

// Appends tag * 10 + *flag to the log: *flag tells whether the parent grid had finished.
extern "C" __global__ void record(int *log, int *n, int tag, const int *flag) {
    log[atomicAdd(n, 1)] = tag * 10 + *flag;
}

// Thread 0 asks for a tail launch first; every thread then launches one child; each thread's last
// store marks the parent done.
extern "C" __global__ void parent(int *log, int *n, int *flag) {
    if (threadIdx.x == 0) record<<<1, 1, 0, cudaStreamTailLaunch>>>(log, n, 100, flag);
    record<<<1, 1>>>(log, n, threadIdx.x, flag);
    *flag = 1;
}

// Each grid launches the next until the device runtime refuses: errs[depth] is what it said.
extern "C" __global__ void deep(int *errs, int depth) {
    deep<<<1, 1>>>(errs, depth + 1);
    errs[depth] = cudaGetLastError();
}

// The device runtime's PTX-level calls with what they must refuse: a function that is no kernel,
// and a launch of a buffer they never handed out.
extern "C" __global__ void refused(unsigned long long *buf, int *errs) {
    *buf = (unsigned long long)cudaGetParameterBufferV2((void *)0x1234, dim3(1), dim3(1), 0);
    errs[0] = cudaGetLastError();
    errs[1] = cudaLaunchDeviceV2((void *)16, 0);
}

extern "C" __global__ void poke(int *p) { *p = 1; }

extern "C" __global__ void faulting_parent() { poke<<<1, 1>>>((int *)16); }

// Device code's memory calls: a heap block from cudaMalloc copied out and a memset, both queued
// behind the grid; an attribute; events; the refusals. *keep: the block, for release().
extern "C" __global__ void memory_ops(int *out, int *errs, int *attr, unsigned long long *keep) {
    int *p = nullptr;
    errs[0] = cudaMalloc((void **)&p, 16 * sizeof(int));
    for (int i = 0; i < 16; i++) p[i] = 100 + i;
    errs[1] = cudaMemcpyAsync(out, p, 16 * sizeof(int), cudaMemcpyDeviceToDevice, 0);
    errs[2] = cudaMemsetAsync(out + 16, 7, 4 * sizeof(int), 0);
    errs[3] = cudaMemcpyAsync(out, p, 4, cudaMemcpyHostToDevice, 0);  // device code copies device memory only
    errs[4] = cudaDeviceGetAttribute(attr, cudaDevAttrMultiProcessorCount, 0);
    cudaEvent_t e;
    cudaStream_t s;
    errs[5] = cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking);
    errs[6] = cudaEventCreateWithFlags(&e, cudaEventDisableTiming);
    errs[7] = cudaEventRecord(e, s) | cudaStreamWaitEvent(s, e, 0) | cudaEventDestroy(e) | cudaStreamDestroy(s);
    errs[8] = cudaGetLastError();  // the refused copy's
    *keep = (unsigned long long)p;
}

extern "C" __global__ void release(unsigned long long p, int *errs) {
    errs[0] = cudaFree((void *)p);
    errs[1] = cudaFree((void *)p);  // twice: not the heap's any more
}
