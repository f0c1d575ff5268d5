// The generic graph node calls (CUDA 12.2+): cudaGraphAddNode of every kind rgpu's graphs hold (a
// memset, a copy, a host function, a kernel, a child graph moved in, an empty node, an event record, a
// graph allocation and its free), cudaGraphNodeSetParams and cudaGraphExecNodeSetParams, the Driver's
// cuGraphAddNode_v2 / cuGraphExecNodeSetParams; a kind changed or not held is refused. And
// cuFuncGetModule names the module a function came from; a kernel node's launch attributes, kept, copied,
// and a cluster of two launched.
//   driver_graph_nodes [copy]   copy: no kernel node (the null driver runs none)
#include <cstdio>
#include <cstring>
#include <cuda.h>
#include <cuda_runtime.h>
#include "check.h"

__global__ void add_one(int *x, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) x[i] += 1;
}

static int ran;
static void host_fn(void *) { ran++; }

static const int N = 1024;

static int first_of(const int *d) {
    int v = 0;
    return cudaMemcpy(&v, d, sizeof v, cudaMemcpyDeviceToHost) == cudaSuccess ? v : -1;
}

int main(int argc, char **argv) {
    bool kernels = !(argc > 1 && !strcmp(argv[1], "copy"));
    int *a, *b, *c;
    CHECK(cudaMalloc(&a, N * 4));
    CHECK(cudaMalloc(&b, N * 4));
    CHECK(cudaMalloc(&c, N * 4));
    cudaStream_t s;
    CHECK(cudaStreamCreate(&s));
    cudaEvent_t ev;
    CHECK(cudaEventCreate(&ev));

    cudaGraph_t g;
    CHECK(cudaGraphCreate(&g, 0));
    cudaGraphNodeParams p = {};
    memset(&p, 0, sizeof p);
    p.type = cudaGraphNodeTypeMemset;
    p.memset.dst = a, p.memset.value = 3, p.memset.elementSize = 4, p.memset.width = N, p.memset.height = 1;
    cudaGraphNode_t set, copy, host, kern = nullptr, child, empty, record;
    CHECK(cudaGraphAddNode(&set, g, nullptr, nullptr, 0, &p));
    memset(&p, 0, sizeof p);
    p.type = cudaGraphNodeTypeMemcpy;
    p.memcpy.copyParams.srcPtr = make_cudaPitchedPtr(a, N * 4, N * 4, 1);
    p.memcpy.copyParams.dstPtr = make_cudaPitchedPtr(b, N * 4, N * 4, 1);
    p.memcpy.copyParams.extent = make_cudaExtent(N * 4, 1, 1);
    p.memcpy.copyParams.kind = cudaMemcpyDeviceToDevice;
    CHECK(cudaGraphAddNode(&copy, g, &set, nullptr, 1, &p));
    memset(&p, 0, sizeof p);
    p.type = cudaGraphNodeTypeHost;
    p.host.fn = host_fn;
    CHECK(cudaGraphAddNode(&host, g, &copy, nullptr, 1, &p));
    cudaGraphNode_t last = host;
    int n = N;
    void *args[2] = {&b, &n};
    if (kernels) {
        memset(&p, 0, sizeof p);
        p.type = cudaGraphNodeTypeKernel;
        p.kernel.func = (void *)add_one, p.kernel.gridDim = dim3(N / 256), p.kernel.blockDim = dim3(256);
        p.kernel.kernelParams = args;
        CHECK(cudaGraphAddNode(&kern, g, &host, nullptr, 1, &p));
        last = kern;
        // launch attributes of the kernel node: kept and read back; a cluster of two is launched so
        cudaLaunchAttributeValue v = {}, got = {};
        CHECK(cudaGraphKernelNodeGetAttribute(kern, cudaLaunchAttributeCooperative, &got));
        EXPECT(got.cooperative == 0);
        CHECK(cudaGraphKernelNodeGetAttribute(kern, cudaLaunchAttributeMemSyncDomainMap, &got));
        EXPECT(got.memSyncDomainMap.default_ == 0 && got.memSyncDomainMap.remote == 1);
        v.priority = -2;
        CHECK(cudaGraphKernelNodeSetAttribute(kern, cudaLaunchAttributePriority, &v));
        v = {};
        v.accessPolicyWindow.base_ptr = b, v.accessPolicyWindow.num_bytes = N * 4;
        v.accessPolicyWindow.hitRatio = 0.6f, v.accessPolicyWindow.hitProp = cudaAccessPropertyPersisting;
        CHECK(cudaGraphKernelNodeSetAttribute(kern, cudaLaunchAttributeAccessPolicyWindow, &v));
        v.accessPolicyWindow.hitRatio = 2.0f;
        EXPECT(cudaGraphKernelNodeSetAttribute(kern, cudaLaunchAttributeAccessPolicyWindow, &v) == cudaErrorInvalidValue);
        EXPECT(cudaGraphKernelNodeGetAttribute(kern, cudaLaunchAttributeSynchronizationPolicy, &got) ==
               cudaErrorInvalidValue);  // a stream's, not a kernel node's
        EXPECT(cudaGraphKernelNodeGetAttribute(set, cudaLaunchAttributePriority, &got) == cudaErrorInvalidValue);
        cudaGetLastError();
        v = {};
        v.clusterDim.x = 2, v.clusterDim.y = v.clusterDim.z = 1;
        CHECK(cudaGraphKernelNodeSetAttribute(kern, cudaLaunchAttributeClusterDimension, &v));
        CHECK(cudaGraphKernelNodeGetAttribute(kern, cudaLaunchAttributeAccessPolicyWindow, &got));
        EXPECT(got.accessPolicyWindow.base_ptr == b && got.accessPolicyWindow.hitRatio == 0.6f);
        // copied to another kernel node
        cudaGraph_t other;
        cudaGraphNode_t twin;
        CHECK(cudaGraphCreate(&other, 0));
        CHECK(cudaGraphAddNode(&twin, other, nullptr, nullptr, 0, &p));
        CHECK(cudaGraphKernelNodeCopyAttributes(twin, kern));
        CHECK(cudaGraphKernelNodeGetAttribute(twin, cudaLaunchAttributePriority, &got));
        EXPECT(got.priority == -2);
        CHECK(cudaGraphKernelNodeGetAttribute(twin, cudaLaunchAttributeClusterDimension, &got));
        EXPECT(got.clusterDim.x == 2 && got.clusterDim.y == 1);
        CHECK(cudaGraphDestroy(other));
    }
    // a child graph moved into its node: the node holds that very graph
    cudaGraph_t sub;
    CHECK(cudaGraphCreate(&sub, 0));
    cudaGraphNode_t sub_set;
    cudaMemsetParams sm = {};
    sm.dst = c, sm.value = 0x01010101, sm.elementSize = 4, sm.width = N, sm.height = 1;
    CHECK(cudaGraphAddMemsetNode(&sub_set, sub, nullptr, 0, &sm));
    memset(&p, 0, sizeof p);
    p.type = cudaGraphNodeTypeGraph, p.graph.graph = sub, p.graph.ownership = cudaGraphChildGraphOwnershipMove;
    CHECK(cudaGraphAddNode(&child, g, nullptr, nullptr, 0, &p));
    cudaGraph_t held;
    CHECK(cudaGraphChildGraphNodeGetGraph(child, &held));
    EXPECT(held == sub);
    memset(&p, 0, sizeof p);
    p.type = cudaGraphNodeTypeEmpty;
    cudaGraphNode_t both[2] = {last, child};
    CHECK(cudaGraphAddNode(&empty, g, both, nullptr, 2, &p));
    memset(&p, 0, sizeof p);
    p.type = cudaGraphNodeTypeEventRecord, p.eventRecord.event = ev;
    CHECK(cudaGraphAddNode(&record, g, &empty, nullptr, 1, &p));
    // a graph allocation, set, and freed in the graph
    memset(&p, 0, sizeof p);
    p.type = cudaGraphNodeTypeMemAlloc;
    p.alloc.poolProps.allocType = cudaMemAllocationTypePinned;
    p.alloc.poolProps.location.type = cudaMemLocationTypeDevice;
    p.alloc.bytesize = 1 << 16;
    cudaGraphNode_t alloc, tmpset, freed;
    CHECK(cudaGraphAddNode(&alloc, g, nullptr, nullptr, 0, &p));
    void *tmp = p.alloc.dptr;
    EXPECT(tmp != nullptr);  // written back, as CUDA writes it
    memset(&p, 0, sizeof p);
    p.type = cudaGraphNodeTypeMemset;
    p.memset.dst = tmp, p.memset.value = 1, p.memset.elementSize = 1, p.memset.width = 1 << 16, p.memset.height = 1;
    CHECK(cudaGraphAddNode(&tmpset, g, &alloc, nullptr, 1, &p));
    memset(&p, 0, sizeof p);
    p.type = cudaGraphNodeTypeMemFree, p.free.dptr = tmp;
    CHECK(cudaGraphAddNode(&freed, g, &tmpset, nullptr, 1, &p));

    cudaGraphExec_t e;
    CHECK(cudaGraphInstantiate(&e, g, 0));
    CHECK(cudaGraphLaunch(e, s));
    CHECK(cudaStreamSynchronize(s));
    int k = kernels ? 1 : 0;
    EXPECT(first_of(b) == 3 + k && ran == 1 && first_of(c) == 0x01010101);
    EXPECT(cudaEventQuery(ev) == cudaSuccess);

    // the graph's memset changed (a new instantiation sees it), then the executable graph's alone
    memset(&p, 0, sizeof p);
    p.type = cudaGraphNodeTypeMemset;
    p.memset.dst = a, p.memset.value = 5, p.memset.elementSize = 4, p.memset.width = N, p.memset.height = 1;
    CHECK(cudaGraphNodeSetParams(set, &p));
    cudaGraphExec_t e2;
    CHECK(cudaGraphInstantiate(&e2, g, 0));
    CHECK(cudaGraphLaunch(e2, s));
    CHECK(cudaStreamSynchronize(s));
    EXPECT(first_of(b) == 5 + k);
    p.memset.value = 9;
    CHECK(cudaGraphExecNodeSetParams(e2, set, &p));
    CHECK(cudaGraphLaunch(e2, s));
    CHECK(cudaStreamSynchronize(s));
    EXPECT(first_of(b) == 9 + k && ran == 3);

    // a node keeps its kind; kinds rgpu's graphs do not hold are refused
    p.type = cudaGraphNodeTypeEmpty;
    EXPECT(cudaGraphNodeSetParams(set, &p) == cudaErrorInvalidValue);
    memset(&p, 0, sizeof p);
    p.type = cudaGraphNodeTypeConditional;
    cudaGraphNode_t none;
    EXPECT(cudaGraphAddNode(&none, g, nullptr, nullptr, 0, &p) == cudaErrorNotSupported);
    cudaGetLastError();

    // a function's module is the one it came from: asked twice, and of a function looked up in it
    CUfunction fn0, fn1;
    CUmodule m0 = nullptr, m1 = nullptr;
    CHECK(cudaGetFuncBySymbol((cudaFunction_t *)&fn0, (const void *)add_one));
    CHECK((cudaError_t)cuFuncGetModule(&m0, fn0));
    CHECK((cudaError_t)cuModuleGetFunction(&fn1, m0, "_Z7add_onePii"));
    CHECK((cudaError_t)cuFuncGetModule(&m1, fn1));
    EXPECT(m0 && m1 == m0);

    // the Driver's forms: a memset and (with kernels) a kernel by its CUfunction, then a new value
    CUgraph dg;
    CHECK((cudaError_t)cuGraphCreate(&dg, 0));
    CUgraphNodeParams dp;
    memset(&dp, 0, sizeof dp);
    dp.type = CU_GRAPH_NODE_TYPE_MEMSET;
    dp.memset.dst = (CUdeviceptr)c, dp.memset.value = 7, dp.memset.elementSize = 4, dp.memset.width = N;
    dp.memset.height = 1;
    CUgraphNode_st *dset, *dkern;
    CHECK((cudaError_t)cuGraphAddNode_v2(&dset, dg, nullptr, nullptr, 0, &dp));
    if (kernels) {
        CUfunction fn;
        CHECK(cudaGetFuncBySymbol((cudaFunction_t *)&fn, (const void *)add_one));
        CUgraphNodeParams kp;
        memset(&kp, 0, sizeof kp);
        kp.type = CU_GRAPH_NODE_TYPE_KERNEL;
        kp.kernel.func = fn, kp.kernel.gridDimX = N / 256, kp.kernel.gridDimY = kp.kernel.gridDimZ = 1;
        kp.kernel.blockDimX = 256, kp.kernel.blockDimY = kp.kernel.blockDimZ = 1;
        void *cargs[2] = {&c, &n};
        kp.kernel.kernelParams = cargs;
        CHECK((cudaError_t)cuGraphAddNode_v2(&dkern, dg, &dset, nullptr, 1, &kp));
    }
    CUgraphExec de;
    CHECK((cudaError_t)cuGraphInstantiateWithFlags(&de, dg, 0));
    dp.memset.value = 11;
    CHECK((cudaError_t)cuGraphExecNodeSetParams(de, dset, &dp));
    CHECK((cudaError_t)cuGraphLaunch(de, (CUstream)s));
    CHECK(cudaStreamSynchronize(s));
    EXPECT(first_of(c) == 11 + k);
    printf("OK driver_graph_nodes\n");
    return 0;
}
