// Driver API graphs: an explicit graph (memset + kernel node from CUDA_KERNEL_NODE_PARAMS) changed
// between launches, and a capture of cuMemsetD32Async + cuLaunchKernel replayed; a module from a file.
#include <cstdio>
#include <cstring>
#include <algorithm>
#include <vector>
#include <cuda.h>

#include "driver_check.h"

static unsigned bits(float f) { unsigned u; memcpy(&u, &f, 4); return u; }

int main(int argc, char **argv) {
    if (argc < 2) { printf("usage: driver_graphs saxpy.ptx\n"); return 2; }
    CK(cuInit(0));
    CUdevice dev;
    CUcontext ctx;
    CK(cuDeviceGet(&dev, 0));
    CK(cuCtxCreate(&ctx, nullptr, 0, dev));
    CUmodule mod;
    CUfunction saxpy;
    CUdeviceptr bias, dx, dy;
    size_t bias_size;
    CK(cuModuleLoad(&mod, argv[1]));
    CK(cuModuleGetFunction(&saxpy, mod, "saxpy"));
    CK(cuModuleGetGlobal(&bias, &bias_size, mod, "bias"));
    float zero = 0.f;
    CK(cuMemcpyHtoD(bias, &zero, sizeof zero));
    const int n = 256;
    std::vector<float> x(n), out(n);
    for (int i = 0; i < n; i++) x[i] = (float)i;
    CK(cuMemAlloc(&dx, n * sizeof(float)));
    CK(cuMemAlloc(&dy, n * sizeof(float)));
    CK(cuMemcpyHtoD(dx, x.data(), n * sizeof(float)));
    CUstream s;
    CK(cuStreamCreate(&s, CU_STREAM_NON_BLOCKING));

    // explicit: y = 1; y = a*x + y
    CUgraph g;
    CUgraphNode ms, k;
    CK(cuGraphCreate(&g, 0));
    CUDA_MEMSET_NODE_PARAMS mp = {};
    mp.dst = dy;
    mp.value = bits(1.f);
    mp.elementSize = 4;
    mp.width = n;
    mp.height = 1;
    CK(cuGraphAddMemsetNode(&ms, g, nullptr, 0, &mp, ctx));
    float a = 2.f;
    int nn = n;
    void *args[] = {&a, &dx, &dy, &nn};
    CUDA_KERNEL_NODE_PARAMS kp = {};
    kp.func = saxpy;
    kp.gridDimX = n / 128; kp.gridDimY = 1; kp.gridDimZ = 1;
    kp.blockDimX = 128; kp.blockDimY = 1; kp.blockDimZ = 1;
    kp.kernelParams = args;
    CK(cuGraphAddKernelNode(&k, g, &ms, 1, &kp));
    CUgraphExec ge;
    CK(cuGraphInstantiate(&ge, g, 0));
    CK(cuGraphLaunch(ge, s));
    CK(cuStreamSynchronize(s));
    CK(cuMemcpyDtoH(out.data(), dy, n * sizeof(float)));
    for (int i = 0; i < n; i++) EXPECT(out[i] == 2.f * x[i] + 1.f);
    a = 5.f;
    CK(cuGraphExecKernelNodeSetParams(ge, k, &kp));
    CK(cuGraphLaunch(ge, s));
    CK(cuStreamSynchronize(s));
    CK(cuMemcpyDtoH(out.data(), dy, n * sizeof(float)));
    for (int i = 0; i < n; i++) EXPECT(out[i] == 5.f * x[i] + 1.f);

    // capture: y = 2; y = 1*x + y
    CUgraph cg;
    CK(cuStreamBeginCapture(s, CU_STREAM_CAPTURE_MODE_GLOBAL));
    CK(cuMemsetD32Async(dy, bits(2.f), n, s));
    float one = 1.f;
    void *args1[] = {&one, &dx, &dy, &nn};
    CK(cuLaunchKernel(saxpy, n / 128, 1, 1, 128, 1, 1, 0, s, args1, nullptr));
    CUstreamCaptureStatus st;
    cuuint64_t id = 0;
    CK(cuStreamGetCaptureInfo(s, &st, &id, nullptr, nullptr, nullptr, nullptr));
    EXPECT(st == CU_STREAM_CAPTURE_STATUS_ACTIVE && id != 0);
    one = 100.f; // the captured launch keeps the value it was given
    CK(cuStreamEndCapture(s, &cg));
    size_t count = 0;
    CK(cuGraphGetNodes(cg, nullptr, &count));
    EXPECT(count == 2);
    CUgraphNode nodes[2];
    CK(cuGraphGetNodes(cg, nodes, &count));
    CUgraphNodeType t0, t1;
    CK(cuGraphNodeGetType(nodes[0], &t0));
    CK(cuGraphNodeGetType(nodes[1], &t1));
    EXPECT(t0 == CU_GRAPH_NODE_TYPE_MEMSET && t1 == CU_GRAPH_NODE_TYPE_KERNEL);
    CUgraphExec ce;
    CK(cuGraphInstantiate(&ce, cg, 0));
    for (int r = 0; r < 3; r++) CK(cuGraphLaunch(ce, s));
    CK(cuStreamSynchronize(s));
    CK(cuMemcpyDtoH(out.data(), dy, n * sizeof(float)));
    for (int i = 0; i < n; i++) EXPECT(out[i] == x[i] + 2.f);

    // graph memory: an allocation captured with its free, launched twice
    CUgraph mg;
    CUdeviceptr scratch = 0;
    std::vector<unsigned> words(n, 0);
    CK(cuStreamBeginCapture(s, CU_STREAM_CAPTURE_MODE_GLOBAL));
    CK(cuMemAllocAsync(&scratch, n * sizeof(unsigned), s));
    EXPECT(scratch != 0);
    CK(cuMemsetD32Async(scratch, 0xabcd, n, s));
    CK(cuMemcpyDtoHAsync(words.data(), scratch, n * sizeof(unsigned), s));
    CK(cuMemFreeAsync(scratch, s));
    CK(cuStreamEndCapture(s, &mg));
    CUgraphExec me;
    CK(cuGraphInstantiate(&me, mg, 0));
    for (int r = 0; r < 2; r++) {
        std::fill(words.begin(), words.end(), 0u);
        CK(cuGraphLaunch(me, s));
        CK(cuStreamSynchronize(s));
        for (int i = 0; i < n; i++) EXPECT(words[i] == 0xabcd);
    }
    cuuint64_t reserved = 0;
    CK(cuDeviceGetGraphMemAttribute(dev, CU_GRAPH_MEM_ATTR_RESERVED_MEM_CURRENT, &reserved));
    EXPECT(reserved == n * sizeof(unsigned));
    CK(cuGraphExecDestroy(me));
    CK(cuGraphDestroy(mg));
    CK(cuDeviceGetGraphMemAttribute(dev, CU_GRAPH_MEM_ATTR_RESERVED_MEM_CURRENT, &reserved));
    EXPECT(reserved == 0);

    // an allocation during a global capture is refused and invalidates it
    CK(cuStreamBeginCapture(s, CU_STREAM_CAPTURE_MODE_GLOBAL));
    CUdeviceptr extra;
    EXPECT(cuMemAlloc(&extra, 64) == CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED);
    CUgraph bad;
    EXPECT(cuStreamEndCapture(s, &bad) == CUDA_ERROR_STREAM_CAPTURE_INVALIDATED);

    CK(cuGraphExecDestroy(ce));
    CK(cuGraphExecDestroy(ge));
    CK(cuGraphDestroy(cg));
    CK(cuGraphDestroy(g));
    CK(cuCtxDestroy(ctx));
    printf("OK driver_graphs\n");
    return 0;
}
