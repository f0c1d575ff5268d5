// CUDA graphs and stream capture: each mode (argv[1]) checks one behaviour and prints "OK graphs MODE".
#include <cstdlib>
#include <cstring>
#include <thread>
#include <vector>
#include <cuda_runtime.h>
#include "check.h"

__global__ void fill(int *x, int v, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) x[i] = v;
}
__global__ void add_to(int *x, const int *y, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) x[i] += y[i];
}
__global__ void scale(int *x, int k, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) x[i] *= k;
}
__global__ void add_const(int *x, int k, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) x[i] += k;
}
__global__ void sum_halves(int *y, const int *x, int half) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < half) y[i] = x[i] + x[i + half];
}
__global__ void bump(int *counter, int by) {
    if (threadIdx.x == 0 && blockIdx.x == 0) *counter += by;
}

static const int N = 256, T = 128, B = (N + T - 1) / T;
__device__ int table[N];

static cudaKernelNodeParams kparams(const void *fn, void **args, int blocks = B) {
    cudaKernelNodeParams p = {};
    p.func = (void *)fn;
    p.gridDim = dim3(blocks);
    p.blockDim = dim3(T);
    p.kernelParams = args;
    return p;
}

// A captured memset + H2D copy + two kernels + D2H copy, replayed with new host input each time: the
// copies read and write host memory when the graph runs, not when it was captured.
static int captured_sequence() {
    int *a, *b;
    std::vector<int> in(N), out(N, -1);
    CHECK(cudaMalloc(&a, N * sizeof(int)));
    CHECK(cudaMalloc(&b, N * sizeof(int)));
    cudaStream_t s;
    CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    cudaStreamCaptureStatus st;
    CHECK(cudaStreamIsCapturing(s, &st));
    EXPECT(st == cudaStreamCaptureStatusNone);
    CHECK(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal));
    CHECK(cudaStreamIsCapturing(s, &st));
    EXPECT(st == cudaStreamCaptureStatusActive);
    CHECK(cudaMemsetAsync(a, 0, N * sizeof(int), s));
    CHECK(cudaMemcpyAsync(b, in.data(), N * sizeof(int), cudaMemcpyHostToDevice, s));
    add_to<<<B, T, 0, s>>>(a, b, N);
    scale<<<B, T, 0, s>>>(a, 3, N);
    CHECK(cudaMemcpyAsync(out.data(), a, N * sizeof(int), cudaMemcpyDeviceToHost, s));
    unsigned long long id = 0;
    size_t ndeps = 0;
    cudaGraph_t during = nullptr;
    const cudaGraphNode_t *deps = nullptr;
    CHECK(cudaStreamGetCaptureInfo(s, &st, &id, &during, &deps, nullptr, &ndeps));
    EXPECT(st == cudaStreamCaptureStatusActive && id != 0 && during != nullptr && ndeps == 1);
    cudaGraph_t g;
    CHECK(cudaStreamEndCapture(s, &g));
    CHECK(cudaStreamIsCapturing(s, &st));
    EXPECT(st == cudaStreamCaptureStatusNone);
    CHECK(cudaDeviceSynchronize());
    EXPECT(out[0] == -1 && out[N - 1] == -1); // captured, not run
    size_t nn = 0, ne = 0;
    CHECK(cudaGraphGetNodes(g, nullptr, &nn));
    CHECK(cudaGraphGetEdges(g, nullptr, nullptr, nullptr, &ne));
    EXPECT(nn == 5 && ne == 4);
    std::vector<cudaGraphNode_t> nodes(nn);
    CHECK(cudaGraphGetNodes(g, nodes.data(), &nn));
    cudaGraphNodeType want[5] = {cudaGraphNodeTypeMemset, cudaGraphNodeTypeMemcpy, cudaGraphNodeTypeKernel,
                                 cudaGraphNodeTypeKernel, cudaGraphNodeTypeMemcpy};
    for (int i = 0; i < 5; i++) {
        cudaGraphNodeType t;
        CHECK(cudaGraphNodeGetType(nodes[i], &t));
        EXPECT(t == want[i]);
    }
    cudaGraphExec_t ge;
    CHECK(cudaGraphInstantiate(&ge, g, 0));
    const int R = 5;
    for (int r = 1; r <= R; r++) {
        for (int i = 0; i < N; i++) in[i] = i * r + 1;
        CHECK(cudaGraphLaunch(ge, s));
        CHECK(cudaStreamSynchronize(s));
        for (int i = 0; i < N; i++) EXPECT(out[i] == 3 * (i * r + 1));
    }
    printf("replays %d checked %d\n", R, R * N);
    CHECK(cudaGraphExecDestroy(ge));
    CHECK(cudaGraphDestroy(g));
    CHECK(cudaStreamDestroy(s));
    return 0;
}

static int host_calls;
static void CUDART_CB count_call(void *p) { host_calls += *(int *)p; }

// An explicit graph with a diamond A -> {B, C} -> D, a memset root, and a copy added first whose
// dependency is added last: launch order follows the edges, not the order nodes were made.
static int diamond() {
    int *x, *y;
    std::vector<int> out(N / 2, -1);
    CHECK(cudaMalloc(&x, N * sizeof(int)));
    CHECK(cudaMalloc(&y, N / 2 * sizeof(int)));
    cudaGraph_t g;
    CHECK(cudaGraphCreate(&g, 0));
    cudaGraphNode_t copy, a, b, c, m, d;
    CHECK(cudaGraphAddMemcpyNode1D(&copy, g, nullptr, 0, out.data(), y, N / 2 * sizeof(int), cudaMemcpyDeviceToHost));
    int one = 1, ten = 10, three = 3, half = N / 2, n = N;
    int *xb = x + N / 2;
    void *fa[] = {&x, &one, &n}, *fb[] = {&x, &ten, &half}, *fc[] = {&xb, &three, &half}, *fd[] = {&y, &x, &half};
    cudaKernelNodeParams pa = kparams((void *)fill, fa), pb = kparams((void *)add_const, fb),
                         pc = kparams((void *)scale, fc), pd = kparams((void *)sum_halves, fd);
    CHECK(cudaGraphAddKernelNode(&a, g, nullptr, 0, &pa));
    one = 999; // the node took a copy of the arguments
    CHECK(cudaGraphAddKernelNode(&b, g, &a, 1, &pb));
    CHECK(cudaGraphAddKernelNode(&c, g, &a, 1, &pc));
    cudaMemsetParams mp = {};
    mp.dst = y;
    mp.value = 0x7f;
    mp.elementSize = 4;
    mp.width = N / 2;
    mp.height = 1;
    CHECK(cudaGraphAddMemsetNode(&m, g, nullptr, 0, &mp));
    cudaGraphNode_t dd[] = {b, c, m};
    CHECK(cudaGraphAddKernelNode(&d, g, dd, 3, &pd));
    CHECK(cudaGraphAddDependencies(g, &d, &copy, nullptr, 1));
    size_t roots = 0, edges = 0;
    CHECK(cudaGraphGetRootNodes(g, nullptr, &roots));
    CHECK(cudaGraphGetEdges(g, nullptr, nullptr, nullptr, &edges));
    EXPECT(roots == 2 && edges == 6);
    std::vector<cudaGraphNode_t> from(edges), to(edges);
    CHECK(cudaGraphGetEdges(g, from.data(), to.data(), nullptr, &edges));
    int into_d = 0;
    for (size_t i = 0; i < edges; i++) into_d += to[i] == d;
    EXPECT(into_d == 3);
    cudaGraphExec_t ge;
    CHECK(cudaGraphInstantiate(&ge, g, 0));
    CHECK(cudaGraphLaunch(ge, 0));
    CHECK(cudaDeviceSynchronize());
    for (int i = 0; i < N / 2; i++) EXPECT(out[i] == (1 + 10) + 1 * 3);
    // the same graph as a child of another, followed by a host node; and a clone of the parent
    cudaGraph_t parent, copy_of_parent;
    cudaGraphNode_t child, host;
    CHECK(cudaGraphCreate(&parent, 0));
    CHECK(cudaGraphAddChildGraphNode(&child, parent, nullptr, 0, g));
    int by = 5;
    cudaHostNodeParams hp = {count_call, &by};
    CHECK(cudaGraphAddHostNode(&host, parent, &child, 1, &hp));
    CHECK(cudaGraphClone(&copy_of_parent, parent));
    cudaGraphExec_t pe;
    CHECK(cudaGraphInstantiate(&pe, copy_of_parent, 0));
    std::fill(out.begin(), out.end(), -1);
    CHECK(cudaGraphLaunch(pe, 0));
    CHECK(cudaDeviceSynchronize());
    EXPECT(host_calls == 5);
    for (int i = 0; i < N / 2; i++) EXPECT(out[i] == 14);
    CHECK(cudaGraphExecDestroy(pe));
    CHECK(cudaGraphExecDestroy(ge));
    CHECK(cudaGraphDestroy(copy_of_parent));
    CHECK(cudaGraphDestroy(parent));
    CHECK(cudaGraphDestroy(g));
    return 0;
}

// Changing a kernel argument of an instantiated graph between launches, directly and by update.
static int set_params() {
    int *x;
    std::vector<int> out(N, -1);
    CHECK(cudaMalloc(&x, N * sizeof(int)));
    cudaGraph_t g;
    CHECK(cudaGraphCreate(&g, 0));
    int v = 1, n = N;
    void *args[] = {&x, &v, &n};
    cudaKernelNodeParams p = kparams((void *)fill, args);
    cudaGraphNode_t k, cp;
    CHECK(cudaGraphAddKernelNode(&k, g, nullptr, 0, &p));
    CHECK(cudaGraphAddMemcpyNode1D(&cp, g, &k, 1, out.data(), x, N * sizeof(int), cudaMemcpyDeviceToHost));
    cudaGraphExec_t ge;
    CHECK(cudaGraphInstantiate(&ge, g, 0));
    CHECK(cudaGraphLaunch(ge, 0));
    CHECK(cudaDeviceSynchronize());
    EXPECT(out[0] == 1 && out[N - 1] == 1);
    v = 7;
    CHECK(cudaGraphExecKernelNodeSetParams(ge, k, &p));
    CHECK(cudaGraphLaunch(ge, 0));
    CHECK(cudaDeviceSynchronize());
    EXPECT(out[0] == 7 && out[N - 1] == 7);
    cudaKernelNodeParams got;
    CHECK(cudaGraphKernelNodeGetParams(k, &got));
    EXPECT(*(int *)got.kernelParams[1] == 1); // the graph's own node kept its value
    v = 9;
    CHECK(cudaGraphKernelNodeSetParams(k, &p));
    cudaGraphExecUpdateResultInfo info;
    CHECK(cudaGraphExecUpdate(ge, g, &info));
    EXPECT(info.result == cudaGraphExecUpdateSuccess);
    CHECK(cudaGraphLaunch(ge, 0));
    CHECK(cudaDeviceSynchronize());
    EXPECT(out[0] == 9 && out[N - 1] == 9);
    cudaGraphNode_t extra;
    CHECK(cudaGraphAddEmptyNode(&extra, g, nullptr, 0));
    EXPECT(cudaGraphExecUpdate(ge, g, &info) == cudaErrorGraphExecUpdateFailure);
    EXPECT(info.result == cudaGraphExecUpdateErrorTopologyChanged);
    CHECK(cudaGetLastError() == cudaErrorGraphExecUpdateFailure ? cudaSuccess : cudaErrorUnknown);
    CHECK(cudaGraphLaunch(ge, 0)); // unchanged by the failed update
    CHECK(cudaDeviceSynchronize());
    EXPECT(out[0] == 9);
    CHECK(cudaGraphExecDestroy(ge));
    CHECK(cudaGraphDestroy(g));
    return 0;
}

// Two streams in one capture: s2 joins through an event recorded on s1 and rejoins through one of its own.
static int fork_join() {
    int *a, *b, *c;
    std::vector<int> out(N, -1);
    CHECK(cudaMalloc(&a, N * sizeof(int)));
    CHECK(cudaMalloc(&b, N * sizeof(int)));
    CHECK(cudaMalloc(&c, N * sizeof(int)));
    cudaStream_t s1, s2;
    cudaEvent_t forked, joined;
    CHECK(cudaStreamCreate(&s1));
    CHECK(cudaStreamCreate(&s2));
    CHECK(cudaEventCreateWithFlags(&forked, cudaEventDisableTiming));
    CHECK(cudaEventCreateWithFlags(&joined, cudaEventDisableTiming));
    CHECK(cudaStreamBeginCapture(s1, cudaStreamCaptureModeGlobal));
    fill<<<B, T, 0, s1>>>(a, 2, N);
    CHECK(cudaEventRecord(forked, s1));
    CHECK(cudaStreamWaitEvent(s2, forked, 0));
    cudaStreamCaptureStatus st;
    CHECK(cudaStreamIsCapturing(s2, &st));
    EXPECT(st == cudaStreamCaptureStatusActive);
    CHECK(cudaMemcpyAsync(b, a, N * sizeof(int), cudaMemcpyDeviceToDevice, s2));
    scale<<<B, T, 0, s2>>>(b, 10, N);              // b = 20
    CHECK(cudaMemcpyAsync(c, a, N * sizeof(int), cudaMemcpyDeviceToDevice, s1));
    add_const<<<B, T, 0, s1>>>(c, 5, N);           // c = 7
    CHECK(cudaEventRecord(joined, s2));
    CHECK(cudaStreamWaitEvent(s1, joined, 0));
    add_to<<<B, T, 0, s1>>>(c, b, N);              // c = 27
    CHECK(cudaMemcpyAsync(out.data(), c, N * sizeof(int), cudaMemcpyDeviceToHost, s1));
    cudaGraph_t g;
    CHECK(cudaStreamEndCapture(s1, &g));
    CHECK(cudaStreamIsCapturing(s2, &st));
    EXPECT(st == cudaStreamCaptureStatusNone);
    size_t nn = 0, ne = 0, roots = 0;
    CHECK(cudaGraphGetNodes(g, nullptr, &nn));
    CHECK(cudaGraphGetEdges(g, nullptr, nullptr, nullptr, &ne));
    CHECK(cudaGraphGetRootNodes(g, nullptr, &roots));
    printf("fork_join nodes %zu edges %zu roots %zu\n", nn, ne, roots);
    EXPECT(nn == 7 && ne == 7 && roots == 1);
    cudaGraphExec_t ge;
    CHECK(cudaGraphInstantiate(&ge, g, 0));
    CHECK(cudaGraphLaunch(ge, s2));
    CHECK(cudaStreamSynchronize(s2));
    for (int i = 0; i < N; i++) EXPECT(out[i] == 27);
    // an event recorded in a capture is a place in the graph: the host cannot wait on it
    CHECK(cudaStreamBeginCapture(s1, cudaStreamCaptureModeGlobal));
    CHECK(cudaEventRecord(forked, s1));
    EXPECT(cudaEventQuery(forked) == cudaErrorStreamCaptureUnsupported);
    cudaGraph_t dropped;
    EXPECT(cudaStreamEndCapture(s1, &dropped) == cudaErrorStreamCaptureInvalidated);
    cudaGetLastError();
    // a fork that is never joined back cannot end the capture
    CHECK(cudaStreamBeginCapture(s1, cudaStreamCaptureModeGlobal));
    CHECK(cudaEventRecord(forked, s1));
    CHECK(cudaStreamWaitEvent(s2, forked, 0));
    fill<<<B, T, 0, s2>>>(a, 3, N);
    cudaGraph_t bad = (cudaGraph_t)0x1;
    EXPECT(cudaStreamEndCapture(s1, &bad) == cudaErrorStreamCaptureUnjoined);
    EXPECT(bad == nullptr);
    CHECK(cudaStreamIsCapturing(s2, &st));
    EXPECT(st == cudaStreamCaptureStatusNone);
    cudaGetLastError();
    CHECK(cudaGraphExecDestroy(ge));
    CHECK(cudaGraphDestroy(g));
    return 0;
}

// Calls CUDA forbids during a capture, and what the capture is afterwards.
static int capture_errors() {
    int *a;
    std::vector<int> h(N, 5);
    CHECK(cudaMalloc(&a, N * sizeof(int)));
    CHECK(cudaMemcpy(a, h.data(), N * sizeof(int), cudaMemcpyHostToDevice));
    cudaStream_t s;
    CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    EXPECT(cudaStreamBeginCapture(0, cudaStreamCaptureModeGlobal) == cudaErrorStreamCaptureUnsupported);
    cudaGraph_t g = nullptr;
    EXPECT(cudaStreamEndCapture(s, &g) == cudaErrorIllegalState);
    cudaGetLastError();

    CHECK(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal));
    EXPECT(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal) == cudaErrorIllegalState);
    EXPECT(cudaGetLastError() == cudaErrorIllegalState);
    fill<<<B, T, 0, s>>>(a, 1, N);
    CHECK(cudaGetLastError());
    EXPECT(cudaMemcpy(h.data(), a, N * sizeof(int), cudaMemcpyDeviceToHost) == cudaErrorStreamCaptureUnsupported);
    cudaStreamCaptureStatus st;
    CHECK(cudaStreamIsCapturing(s, &st));
    EXPECT(st == cudaStreamCaptureStatusInvalidated);
    fill<<<B, T, 0, s>>>(a, 2, N);
    EXPECT(cudaGetLastError() == cudaErrorStreamCaptureInvalidated);
    EXPECT(cudaStreamEndCapture(s, &g) == cudaErrorStreamCaptureInvalidated);
    EXPECT(g == nullptr);
    CHECK(cudaStreamIsCapturing(s, &st));
    EXPECT(st == cudaStreamCaptureStatusNone);
    cudaGetLastError();

    // synchronising the capturing stream, and allocating in the global mode, are refused too
    CHECK(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal));
    EXPECT(cudaStreamSynchronize(s) == cudaErrorStreamCaptureUnsupported);
    EXPECT(cudaStreamEndCapture(s, &g) == cudaErrorStreamCaptureInvalidated);
    CHECK(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal));
    int *b = nullptr;
    EXPECT(cudaMalloc(&b, 64) == cudaErrorStreamCaptureUnsupported);
    EXPECT(cudaStreamEndCapture(s, &g) == cudaErrorStreamCaptureInvalidated);
    cudaGetLastError();

    // ... unless this thread says relaxed (cudaThreadExchangeStreamCaptureMode), or the capture is relaxed
    CHECK(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal));
    cudaStreamCaptureMode mode = cudaStreamCaptureModeRelaxed;
    CHECK(cudaThreadExchangeStreamCaptureMode(&mode));
    EXPECT(mode == cudaStreamCaptureModeGlobal);
    CHECK(cudaMalloc(&b, 64));
    CHECK(cudaThreadExchangeStreamCaptureMode(&mode));
    EXPECT(mode == cudaStreamCaptureModeRelaxed);
    fill<<<B, T, 0, s>>>(a, 3, N);
    CHECK(cudaStreamEndCapture(s, &g));
    CHECK(cudaGraphDestroy(g));
    CHECK(cudaStreamBeginCapture(s, cudaStreamCaptureModeRelaxed));
    CHECK(cudaFree(b));
    CHECK(cudaStreamEndCapture(s, &g));
    CHECK(cudaGraphDestroy(g));

    // the legacy stream waits on blocking streams: using it while one captures is refused
    cudaStream_t blocking;
    CHECK(cudaStreamCreate(&blocking));
    CHECK(cudaStreamBeginCapture(blocking, cudaStreamCaptureModeRelaxed));
    EXPECT(cudaStreamIsCapturing(0, &st) == cudaErrorStreamCaptureImplicit);
    CHECK(cudaStreamIsCapturing(blocking, &st));
    EXPECT(st == cudaStreamCaptureStatusActive); // asking did not invalidate it
    cudaGetLastError();
    fill<<<B, T>>>(a, 9, N);
    EXPECT(cudaGetLastError() == cudaErrorStreamCaptureImplicit);
    CHECK(cudaStreamIsCapturing(blocking, &st));
    EXPECT(st == cudaStreamCaptureStatusInvalidated);
    EXPECT(cudaStreamEndCapture(blocking, &g) == cudaErrorStreamCaptureInvalidated);
    CHECK(cudaStreamBeginCapture(blocking, cudaStreamCaptureModeRelaxed));
    EXPECT(cudaMemcpy(h.data(), a, N * sizeof(int), cudaMemcpyDeviceToHost) == cudaErrorStreamCaptureImplicit);
    EXPECT(cudaStreamEndCapture(blocking, &g) == cudaErrorStreamCaptureInvalidated);
    cudaGetLastError();
    // ... but not while only a non-blocking stream captures: the legacy stream's work runs at once
    CHECK(cudaStreamBeginCapture(s, cudaStreamCaptureModeRelaxed));
    cudaStreamCaptureStatus legacy;
    CHECK(cudaStreamIsCapturing(0, &legacy));
    EXPECT(legacy == cudaStreamCaptureStatusNone);
    fill<<<B, T>>>(a, 5, N);
    CHECK(cudaGetLastError());
    CHECK(cudaMemcpy(h.data(), a, N * sizeof(int), cudaMemcpyDeviceToHost));
    CHECK(cudaStreamEndCapture(s, &g));
    CHECK(cudaGraphDestroy(g));

    // nothing captured ran, and the device is still healthy
    CHECK(cudaMemcpy(h.data(), a, N * sizeof(int), cudaMemcpyDeviceToHost));
    for (int i = 0; i < N; i++) EXPECT(h[i] == 5);
    fill<<<B, T, 0, s>>>(a, 4, N);
    CHECK(cudaStreamSynchronize(s));
    CHECK(cudaMemcpy(h.data(), a, N * sizeof(int), cudaMemcpyDeviceToHost));
    EXPECT(h[0] == 4 && h[N - 1] == 4);
    return 0;
}

// One graph launched many times: every launch runs every node once.
static int many_launches(int count) {
    int *c;
    CHECK(cudaMalloc(&c, 2 * sizeof(int)));
    CHECK(cudaMemset(c, 0, 2 * sizeof(int)));
    cudaStream_t s;
    CHECK(cudaStreamCreate(&s));
    CHECK(cudaStreamBeginCapture(s, cudaStreamCaptureModeThreadLocal));
    bump<<<1, 32, 0, s>>>(c, 1);
    bump<<<1, 32, 0, s>>>(c + 1, 2);
    cudaGraph_t g;
    CHECK(cudaStreamEndCapture(s, &g));
    cudaGraphExec_t ge;
    CHECK(cudaGraphInstantiateWithFlags(&ge, g, 0));
    for (int i = 0; i < count; i++) CHECK(cudaGraphLaunch(ge, s));
    CHECK(cudaStreamSynchronize(s));
    int h[2];
    CHECK(cudaMemcpy(h, c, sizeof h, cudaMemcpyDeviceToHost));
    printf("launches %d count %d %d\n", count, h[0], h[1]);
    EXPECT(h[0] == count && h[1] == 2 * count);
    CHECK(cudaGraphExecDestroy(ge));
    CHECK(cudaGraphDestroy(g));
    return 0;
}

// A graph the server can run whole (kernels, a memset, a device-to-device copy, a child graph of a kernel:
// graph_server.c),
// launched `count` times on one stream and then on another, its kernel's parameters changed, a node
// switched off: each launch's effects are the nodes' in order, whoever runs them.
static int server_graph(int count) {
    int *c;
    CHECK(cudaMalloc(&c, 5 * sizeof(int)));
    CHECK(cudaMemset(c, 0, 5 * sizeof(int)));
    cudaGraph_t g, child;
    CHECK(cudaGraphCreate(&g, 0));
    CHECK(cudaGraphCreate(&child, 0));
    int three = 3, *c4 = c + 4;
    void *a3[] = {&c4, &three};
    cudaKernelNodeParams p3 = kparams((void *)bump, a3, 1);
    cudaGraphNode_t k3, sub;
    CHECK(cudaGraphAddKernelNode(&k3, child, nullptr, 0, &p3));
    int one = 1, two = 2;
    void *a1[] = {&c, &one};
    int *c1 = c + 1;
    void *a2[] = {&c1, &two};
    cudaKernelNodeParams p1 = kparams((void *)bump, a1, 1), p2 = kparams((void *)bump, a2, 1);
    cudaMemsetParams ms = {};
    ms.dst = c + 3, ms.value = 7, ms.elementSize = 1, ms.width = sizeof(int), ms.height = 1;
    cudaGraphNode_t set, k1, cp, k2;
    CHECK(cudaGraphAddMemsetNode(&set, g, nullptr, 0, &ms));
    CHECK(cudaGraphAddKernelNode(&k1, g, &set, 1, &p1));
    CHECK(cudaGraphAddMemcpyNode1D(&cp, g, &k1, 1, c + 2, c, sizeof(int), cudaMemcpyDeviceToDevice));
    CHECK(cudaGraphAddKernelNode(&k2, g, &cp, 1, &p2));
    CHECK(cudaGraphAddChildGraphNode(&sub, g, &k2, 1, child));
    cudaGraphExec_t ge;
    CHECK(cudaGraphInstantiate(&ge, g, 0));
    cudaStream_t s, s2;
    CHECK(cudaStreamCreate(&s));
    CHECK(cudaStreamCreate(&s2));
    CHECK(cudaGraphUpload(ge, s));  // the server's build made here, not at the first launch
    for (int i = 0; i < count; i++) CHECK(cudaGraphLaunch(ge, s));
    CHECK(cudaStreamSynchronize(s));
    int h[5];
    CHECK(cudaMemcpy(h, c, sizeof h, cudaMemcpyDeviceToHost));
    printf("server launches %d got %d %d %d %08x %d\n", count, h[0], h[1], h[2], h[3], h[4]);
    EXPECT(h[0] == count && h[1] == 2 * count && h[2] == count && h[3] == 0x07070707 && h[4] == 3 * count);
    // new parameters for the executable graph's first kernel: the next launch runs with them
    int ten = 10;
    a1[1] = &ten;
    p1 = kparams((void *)bump, a1, 1);
    CHECK(cudaGraphExecKernelNodeSetParams(ge, k1, &p1));
    CHECK(cudaGraphLaunch(ge, s2));
    CHECK(cudaStreamSynchronize(s2));
    CHECK(cudaMemcpy(h, c, sizeof h, cudaMemcpyDeviceToHost));
    EXPECT(h[0] == count + 10 && h[1] == 2 * count + 2 && h[2] == count + 10);
    // the second kernel switched off
    CHECK(cudaGraphNodeSetEnabled(ge, k2, 0));
    CHECK(cudaGraphLaunch(ge, s));
    CHECK(cudaStreamSynchronize(s));
    CHECK(cudaMemcpy(h, c, sizeof h, cudaMemcpyDeviceToHost));
    printf("server changed got %d %d %d %d\n", h[0], h[1], h[2], h[4]);
    EXPECT(h[0] == count + 20 && h[1] == 2 * count + 2 && h[2] == count + 20 && h[4] == 3 * count + 6);
    CHECK(cudaGraphExecDestroy(ge));
    CHECK(cudaGraphDestroy(g));
    CHECK(cudaGraphDestroy(child));
    CHECK(cudaFree(c));
    return 0;
}

// A graph the server runs whose kernel writes where no memory is: the launch returns success, and the
// fault is the next synchronizing call's error, as a kernel launched on its own reports it.
static int server_fault() {
    cudaGraph_t g;
    CHECK(cudaGraphCreate(&g, 0));
    int *nowhere = (int *)0x10, one = 1;
    void *args[] = {&nowhere, &one};
    cudaKernelNodeParams p = kparams((void *)bump, args, 1);
    cudaGraphNode_t k;
    CHECK(cudaGraphAddKernelNode(&k, g, nullptr, 0, &p));
    cudaGraphExec_t ge;
    CHECK(cudaGraphInstantiate(&ge, g, 0));
    CHECK(cudaGraphLaunch(ge, 0));
    cudaError_t e = cudaDeviceSynchronize();
    printf("server fault %s\n", cudaGetErrorName(e));
    EXPECT(e == cudaErrorIllegalAddress);
    return 0;
}

// Capturing into a graph the program made, after one of its nodes, and rewriting what the next
// captured node depends on.
static int capture_to_graph() {
    int *x;
    std::vector<int> out(N, -1);
    CHECK(cudaMalloc(&x, N * sizeof(int)));
    cudaGraph_t g;
    cudaGraphNode_t first;
    CHECK(cudaGraphCreate(&g, 0));
    int four = 4, n = N;
    void *args[] = {&x, &four, &n};
    cudaKernelNodeParams p = kparams((void *)fill, args);
    CHECK(cudaGraphAddKernelNode(&first, g, nullptr, 0, &p));
    int *y;
    CHECK(cudaMalloc(&y, N * sizeof(int)));
    cudaStream_t s;
    CHECK(cudaStreamCreate(&s));
    CHECK(cudaStreamBeginCaptureToGraph(s, g, &first, nullptr, 1, cudaStreamCaptureModeGlobal));
    add_const<<<B, T, 0, s>>>(x, 6, N);                     // depends on first
    CHECK(cudaStreamUpdateCaptureDependencies(s, &first, nullptr, 1, cudaStreamSetCaptureDependencies));
    CHECK(cudaMemsetAsync(y, 0, N * sizeof(int), s));     // depends on first only, not on add_const
    cudaGraph_t same;
    CHECK(cudaStreamEndCapture(s, &same));
    EXPECT(same == g);
    size_t nodes = 0, edges = 0;
    CHECK(cudaGraphGetNodes(g, nullptr, &nodes));
    CHECK(cudaGraphGetEdges(g, nullptr, nullptr, nullptr, &edges));
    EXPECT(nodes == 3 && edges == 2);
    cudaGraphNode_t all[3], deps[2];
    size_t count = 3, ndeps = 2;
    CHECK(cudaGraphGetNodes(g, all, &count));
    CHECK(cudaGraphNodeGetDependencies(all[2], deps, nullptr, &ndeps));
    EXPECT(ndeps == 1 && deps[0] == first);
    cudaGraphNode_t down;
    CHECK(cudaGraphAddMemcpyNode1D(&down, g, &all[1], 1, out.data(), x, N * sizeof(int), cudaMemcpyDeviceToHost));
    cudaGraphExec_t ge;
    CHECK(cudaGraphInstantiate(&ge, g, 0));
    CHECK(cudaGraphLaunch(ge, s));
    CHECK(cudaStreamSynchronize(s));
    for (int i = 0; i < N; i++) EXPECT(out[i] == 10);
    CHECK(cudaGraphExecDestroy(ge));
    CHECK(cudaGraphDestroy(g));
    return 0;
}

// Graph memory: stream-ordered allocation captured into a graph, and explicit allocation and free nodes.
static int graph_memory() {
    std::vector<int> out(N, -1);
    cudaStream_t s;
    CHECK(cudaStreamCreate(&s));
    int *d = nullptr;
    CHECK(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal));
    CHECK(cudaMallocAsync((void **)&d, N * sizeof(int), s));
    EXPECT(d != nullptr);
    fill<<<B, T, 0, s>>>(d, 5, N);
    add_const<<<B, T, 0, s>>>(d, 1, N);
    CHECK(cudaMemcpyAsync(out.data(), d, N * sizeof(int), cudaMemcpyDeviceToHost, s));
    CHECK(cudaFreeAsync(d, s));
    cudaGraph_t g;
    CHECK(cudaStreamEndCapture(s, &g));
    cudaGraphNode_t nodes[5];
    size_t count = 5;
    CHECK(cudaGraphGetNodes(g, nodes, &count));
    EXPECT(count == 5);
    cudaGraphNodeType first, last;
    CHECK(cudaGraphNodeGetType(nodes[0], &first));
    CHECK(cudaGraphNodeGetType(nodes[4], &last));
    EXPECT(first == cudaGraphNodeTypeMemAlloc && last == cudaGraphNodeTypeMemFree);
    cudaMemAllocNodeParams got = {};
    CHECK(cudaGraphMemAllocNodeGetParams(nodes[0], &got));
    EXPECT(got.dptr == d && got.bytesize == N * sizeof(int));
    cudaGraphExec_t ge;
    CHECK(cudaGraphInstantiate(&ge, g, 0));
    for (int r = 0; r < 3; r++) { // freed within each launch, so it can launch again
        std::fill(out.begin(), out.end(), -1);
        CHECK(cudaGraphLaunch(ge, s));
        CHECK(cudaStreamSynchronize(s));
        for (int i = 0; i < N; i++) EXPECT(out[i] == 6);
    }
    CHECK(cudaGraphExecDestroy(ge));
    CHECK(cudaGraphDestroy(g));

    // an allocation node without a free node: the memory outlives the launch until the program frees it
    cudaGraph_t g2;
    CHECK(cudaGraphCreate(&g2, 0));
    cudaMemAllocNodeParams ap = {};
    ap.poolProps.allocType = cudaMemAllocationTypePinned;
    ap.poolProps.location.type = cudaMemLocationTypeDevice;
    ap.poolProps.location.id = 0;
    ap.bytesize = N * sizeof(int);
    cudaGraphNode_t alloc, k;
    CHECK(cudaGraphAddMemAllocNode(&alloc, g2, nullptr, 0, &ap));
    int *m = (int *)ap.dptr, seven = 7, n = N;
    EXPECT(m != nullptr);
    void *args[] = {&m, &seven, &n};
    cudaKernelNodeParams kp = kparams((void *)fill, args);
    CHECK(cudaGraphAddKernelNode(&k, g2, &alloc, 1, &kp));
    cudaGraphExec_t ge2;
    CHECK(cudaGraphInstantiate(&ge2, g2, 0));
    CHECK(cudaGraphLaunch(ge2, s));
    CHECK(cudaStreamSynchronize(s));
    size_t used = 0, reserved = 0;
    CHECK(cudaDeviceGetGraphMemAttribute(0, cudaGraphMemAttrUsedMemCurrent, &used));
    CHECK(cudaDeviceGetGraphMemAttribute(0, cudaGraphMemAttrReservedMemCurrent, &reserved));
    EXPECT(used == N * sizeof(int) && reserved == N * sizeof(int));
    CHECK(cudaMemcpy(out.data(), m, N * sizeof(int), cudaMemcpyDeviceToHost));
    for (int i = 0; i < N; i++) EXPECT(out[i] == 7);
    EXPECT(cudaGraphLaunch(ge2, s) == cudaErrorInvalidValue); // its allocation is still live
    EXPECT(cudaGetLastError() == cudaErrorInvalidValue);
    cudaGraphExec_t autofree;
    CHECK(cudaGraphInstantiate(&autofree, g2, cudaGraphInstantiateFlagAutoFreeOnLaunch));
    CHECK(cudaGraphLaunch(autofree, s));
    CHECK(cudaGraphLaunch(autofree, s));
    CHECK(cudaStreamSynchronize(s));
    CHECK(cudaGraphExecDestroy(autofree));
    CHECK(cudaFreeAsync(m, s)); // the program frees it; the next launch allocates it again
    CHECK(cudaStreamSynchronize(s));
    CHECK(cudaDeviceGetGraphMemAttribute(0, cudaGraphMemAttrUsedMemCurrent, &used));
    EXPECT(used == 0);
    CHECK(cudaGraphLaunch(ge2, s));
    CHECK(cudaStreamSynchronize(s));
    CHECK(cudaGraphExecDestroy(ge2));
    CHECK(cudaGraphDestroy(g2));
    // still the program's after the graph is gone, until it frees it
    std::fill(out.begin(), out.end(), -1);
    CHECK(cudaMemcpy(out.data(), m, N * sizeof(int), cudaMemcpyDeviceToHost));
    EXPECT(out[0] == 7 && out[N - 1] == 7);
    CHECK(cudaDeviceGetGraphMemAttribute(0, cudaGraphMemAttrReservedMemCurrent, &reserved));
    EXPECT(reserved == 0);
    CHECK(cudaFree(m));
    // an invalidated capture gives back what its allocation nodes held
    CHECK(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal));
    CHECK(cudaMallocAsync((void **)&d, N * sizeof(int), s));
    EXPECT(cudaMalloc((void **)&m, 64) == cudaErrorStreamCaptureUnsupported);
    EXPECT(cudaStreamEndCapture(s, &g) == cudaErrorStreamCaptureInvalidated);
    CHECK(cudaDeviceGetGraphMemAttribute(0, cudaGraphMemAttrReservedMemCurrent, &reserved));
    EXPECT(reserved == 0);
    cudaGetLastError();
    CHECK(cudaDeviceGraphMemTrim(0));
    return 0;
}

// The capture modes across threads: a global capture forbids other threads' unsafe calls unless they
// are relaxed; a thread-local one forbids only its own thread's; only the capturing thread may end it.
static int modes_across_threads() {
    cudaStream_t s;
    CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    cudaGraph_t g;
    int other = -1, relaxed_other = -1, ended = -1;
    void *p = nullptr;
    CHECK(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal));
    std::thread([&] {
        void *q = nullptr;
        other = cudaMalloc(&q, 64);
        cudaGetLastError();
    }).join();
    EXPECT(other == cudaErrorStreamCaptureUnsupported);
    EXPECT(cudaStreamEndCapture(s, &g) == cudaErrorStreamCaptureInvalidated);
    cudaGetLastError();

    CHECK(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal));
    std::thread([&] {
        cudaStreamCaptureMode mode = cudaStreamCaptureModeRelaxed;
        cudaThreadExchangeStreamCaptureMode(&mode);
        relaxed_other = cudaMalloc(&p, 64);
        ended = cudaStreamEndCapture(s, &g); // not the capturing thread
        cudaGetLastError();
    }).join();
    EXPECT(relaxed_other == cudaSuccess && p != nullptr);
    EXPECT(ended == cudaErrorStreamCaptureWrongThread);
    CHECK(cudaStreamEndCapture(s, &g));
    CHECK(cudaGraphDestroy(g));

    CHECK(cudaStreamBeginCapture(s, cudaStreamCaptureModeThreadLocal));
    std::thread([&] { other = cudaFree(p); }).join();
    EXPECT(other == cudaSuccess);
    EXPECT(cudaMalloc(&p, 64) == cudaErrorStreamCaptureUnsupported); // its own thread still may not
    EXPECT(cudaStreamEndCapture(s, &g) == cudaErrorStreamCaptureInvalidated);
    cudaGetLastError();

    CHECK(cudaStreamBeginCapture(s, cudaStreamCaptureModeRelaxed));
    std::thread([&] { ended = cudaStreamEndCapture(s, &g); }).join(); // relaxed: any thread may end it
    EXPECT(ended == cudaSuccess);
    CHECK(cudaGraphDestroy(g));
    return 0;
}

static int host_runs;
static void CUDART_CB count_run(void *) { host_runs++; }

// The other node kinds and edits: symbol and pitched copies, a captured host function, event nodes,
// a disabled node, removed nodes and edges, and the DOT description.
static int other_nodes(const char *dot_path) {
    std::vector<int> in(N), back(N, -1);
    for (int i = 0; i < N; i++) in[i] = 3 * i + 1;
    int *x;
    CHECK(cudaMalloc(&x, N * sizeof(int)));
    cudaGraph_t g;
    CHECK(cudaGraphCreate(&g, 0));
    cudaGraphNode_t to_sym, from_sym, k, rec;
    CHECK(cudaGraphAddMemcpyNodeToSymbol(&to_sym, g, nullptr, 0, table, in.data(), N * sizeof(int), 0,
                                         cudaMemcpyHostToDevice));
    int two = 2, n = N;
    int *tab;
    CHECK(cudaGetSymbolAddress((void **)&tab, table));
    void *args[] = {&tab, &two, &n};
    cudaKernelNodeParams p = kparams((void *)scale, args);
    CHECK(cudaGraphAddKernelNode(&k, g, &to_sym, 1, &p));
    CHECK(cudaGraphAddMemcpyNodeFromSymbol(&from_sym, g, &k, 1, back.data(), table, N * sizeof(int), 0,
                                           cudaMemcpyDeviceToHost));
    cudaEvent_t ev;
    CHECK(cudaEventCreate(&ev));
    CHECK(cudaGraphAddEventRecordNode(&rec, g, &from_sym, 1, ev));
    cudaGraphExec_t ge;
    CHECK(cudaGraphInstantiate(&ge, g, 0));
    CHECK(cudaGraphLaunch(ge, 0));
    CHECK(cudaEventSynchronize(ev));
    for (int i = 0; i < N; i++) EXPECT(back[i] == 2 * (3 * i + 1));
    // switched off, the kernel does not run: the table comes back as it went in
    CHECK(cudaGraphNodeSetEnabled(ge, k, 0));
    unsigned on = 1;
    CHECK(cudaGraphNodeGetEnabled(ge, k, &on));
    EXPECT(on == 0);
    CHECK(cudaGraphLaunch(ge, 0));
    CHECK(cudaDeviceSynchronize());
    for (int i = 0; i < N; i++) EXPECT(back[i] == 3 * i + 1);
    CHECK(cudaGraphDebugDotPrint(g, dot_path, 0));
    FILE *f = fopen(dot_path, "r");
    EXPECT(f != nullptr);
    char text[4096] = {0};
    size_t got = fread(text, 1, sizeof text - 1, f);
    fclose(f);
    EXPECT(got > 0 && strstr(text, "digraph") && strstr(text, "kernel") && strstr(text, "->"));
    // removing the kernel node takes its edges with it
    size_t edges = 0, nodes = 0;
    CHECK(cudaGraphRemoveDependencies(g, &from_sym, &rec, nullptr, 1));
    CHECK(cudaGraphDestroyNode(k));
    CHECK(cudaGraphGetEdges(g, nullptr, nullptr, nullptr, &edges));
    CHECK(cudaGraphGetNodes(g, nullptr, &nodes));
    EXPECT(edges == 0 && nodes == 3);

    // a pitched 2D copy node (cudaMemcpy3DParms, depth 1) and a 2D memset node
    size_t pitch;
    int *pm;
    const int W = 16, H = 8;
    CHECK(cudaMallocPitch((void **)&pm, &pitch, W * sizeof(int), H));
    std::vector<int> rows(W * H), rows_back(W * H, -1);
    for (int i = 0; i < W * H; i++) rows[i] = i * 7;
    cudaGraph_t g2;
    cudaGraphNode_t up, down, ms;
    CHECK(cudaGraphCreate(&g2, 0));
    cudaMemcpy3DParms cp = {};
    cp.srcPtr = make_cudaPitchedPtr(rows.data(), W * sizeof(int), W, H);
    cp.dstPtr = make_cudaPitchedPtr(pm, pitch, W, H);
    cp.extent = make_cudaExtent(W * sizeof(int), H, 1);
    cp.kind = cudaMemcpyHostToDevice;
    CHECK(cudaGraphAddMemcpyNode(&up, g2, nullptr, 0, &cp));
    cudaMemsetParams mp = {};
    mp.dst = pm;
    mp.pitch = pitch;
    mp.value = 9;
    mp.elementSize = 4;
    mp.width = 2;
    mp.height = H;
    CHECK(cudaGraphAddMemsetNode(&ms, g2, &up, 1, &mp));
    cudaMemcpy3DParms dp = {};
    dp.srcPtr = make_cudaPitchedPtr(pm, pitch, W, H);
    dp.dstPtr = make_cudaPitchedPtr(rows_back.data(), W * sizeof(int), W, H);
    dp.extent = make_cudaExtent(W * sizeof(int), H, 1);
    dp.kind = cudaMemcpyDeviceToHost;
    CHECK(cudaGraphAddMemcpyNode(&down, g2, &ms, 1, &dp));
    cudaGraphExec_t ge2;
    CHECK(cudaGraphInstantiate(&ge2, g2, 0));
    CHECK(cudaGraphLaunch(ge2, 0));
    CHECK(cudaDeviceSynchronize());
    for (int r = 0; r < H; r++)
        for (int c = 0; c < W; c++) EXPECT(rows_back[r * W + c] == (c < 2 ? 9 : (r * W + c) * 7));

    // a host function captured into a graph runs once per launch, not at capture
    cudaStream_t s;
    CHECK(cudaStreamCreate(&s));
    CHECK(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal));
    CHECK(cudaLaunchHostFunc(s, count_run, nullptr));
    cudaGraph_t g3;
    CHECK(cudaStreamEndCapture(s, &g3));
    EXPECT(host_runs == 0);
    cudaGraphExec_t ge3;
    CHECK(cudaGraphInstantiate(&ge3, g3, 0));
    for (int i = 0; i < 3; i++) CHECK(cudaGraphLaunch(ge3, s));
    CHECK(cudaStreamSynchronize(s));
    EXPECT(host_runs == 3);
    CHECK(cudaGraphExecDestroy(ge3));
    CHECK(cudaGraphExecDestroy(ge2));
    CHECK(cudaGraphExecDestroy(ge));
    CHECK(cudaGraphDestroy(g3));
    CHECK(cudaGraphDestroy(g2));
    CHECK(cudaGraphDestroy(g));
    return 0;
}

int main(int argc, char **argv) {
    const char *mode = argc > 1 ? argv[1] : "";
    int rc = 1;
    if (!strcmp(mode, "capture")) rc = captured_sequence();
    else if (!strcmp(mode, "diamond")) rc = diamond();
    else if (!strcmp(mode, "set_params")) rc = set_params();
    else if (!strcmp(mode, "fork_join")) rc = fork_join();
    else if (!strcmp(mode, "capture_errors")) rc = capture_errors();
    else if (!strcmp(mode, "launch1000")) rc = many_launches(1000);
    else if (!strcmp(mode, "server") && argc > 2) rc = server_graph(atoi(argv[2]));
    else if (!strcmp(mode, "server_fault")) rc = server_fault();
    else if (!strcmp(mode, "capture_to_graph")) rc = capture_to_graph();
    else if (!strcmp(mode, "graph_memory")) rc = graph_memory();
    else if (!strcmp(mode, "modes")) rc = modes_across_threads();
    else if (!strcmp(mode, "other_nodes") && argc > 2) rc = other_nodes(argv[2]);
    else printf("unknown mode %s\n", mode);
    if (rc == 0) printf("OK graphs %s\n", mode);
    return rc;
}
