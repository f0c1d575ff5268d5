// Graph user objects: a resource whose destructor runs once the program's references and those of
// every graph holding it (clones and executable graphs included) are gone, on a thread of CUDA's;
// references moved into a graph, taken from a capture's graph, released from a graph; the refusals.
// No kernel (a memset node): the null driver runs it too.
#include <atomic>
#include <cstdio>
#include <unistd.h>
#include <cuda.h>
#include <cuda_runtime.h>
#include "check.h"

static std::atomic<int> destroyed[4];

static void destroy(void *p) { destroyed[(long)p]++; }

// Whether object k's destructor ran (it runs on another thread: waited for, up to two seconds).
static bool gone(int k) {
    for (int i = 0; i < 200 && !destroyed[k]; i++) usleep(10000);
    return destroyed[k] == 1;
}

int main() {
    int *d;
    CHECK(cudaMalloc(&d, 4096));
    cudaStream_t s;
    CHECK(cudaStreamCreate(&s));

    // held by the program, a graph and its executable graph: destroyed with the last of them
    cudaUserObject_t a;
    CHECK(cudaUserObjectCreate(&a, (void *)0, destroy, 1, cudaUserObjectNoDestructorSync));
    cudaGraph_t g;
    CHECK(cudaGraphCreate(&g, 0));
    cudaMemsetParams mp = {};
    mp.dst = d, mp.value = 7, mp.elementSize = 4, mp.width = 1024, mp.height = 1;
    cudaGraphNode_t node;
    CHECK(cudaGraphAddMemsetNode(&node, g, nullptr, 0, &mp));
    CHECK(cudaGraphRetainUserObject(g, a, 1, 0));
    CHECK(cudaUserObjectRelease(a, 1));
    cudaGraphExec_t e;
    CHECK(cudaGraphInstantiate(&e, g, 0));
    CHECK(cudaGraphDestroy(g));
    CHECK(cudaGraphLaunch(e, s));
    CHECK(cudaStreamSynchronize(s));
    int back[1024];
    CHECK(cudaMemcpy(back, d, sizeof back, cudaMemcpyDeviceToHost));
    EXPECT(back[0] == 7 && back[1023] == 7);
    usleep(50000);
    EXPECT(destroyed[0] == 0);  // the executable graph still holds it
    CHECK(cudaGraphExecDestroy(e));
    EXPECT(gone(0));

    // moved into a graph, held again by its clone, released from the first
    cudaUserObject_t b;
    CHECK(cudaUserObjectCreate(&b, (void *)1, destroy, 2, cudaUserObjectNoDestructorSync));
    cudaGraph_t g2, g3;
    CHECK(cudaGraphCreate(&g2, 0));
    CHECK(cudaGraphRetainUserObject(g2, b, 2, cudaGraphUserObjectMove));  // the program's two references
    CHECK(cudaGraphClone(&g3, g2));
    EXPECT(cudaGraphReleaseUserObject(g2, b, 3) == cudaErrorInvalidValue);  // it holds two
    cudaGetLastError();
    CHECK(cudaGraphReleaseUserObject(g2, b, 2));
    CHECK(cudaGraphDestroy(g2));
    usleep(50000);
    EXPECT(destroyed[1] == 0);  // the clone holds two
    CHECK(cudaGraphDestroy(g3));
    EXPECT(gone(1));

    // retained into the graph a capture is building
    cudaUserObject_t c;
    CHECK(cudaUserObjectCreate(&c, (void *)2, destroy, 1, cudaUserObjectNoDestructorSync));
    CHECK(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal));
    CHECK(cudaMemsetAsync(d, 1, 4096, s));
    cudaStreamCaptureStatus st;
    cudaGraph_t building = nullptr;
    CHECK(cudaStreamGetCaptureInfo(s, &st, nullptr, &building, nullptr, nullptr, nullptr));
    EXPECT(st == cudaStreamCaptureStatusActive && building);
    CHECK(cudaGraphRetainUserObject(building, c, 1, cudaGraphUserObjectMove));
    cudaGraph_t captured;
    CHECK(cudaStreamEndCapture(s, &captured));
    EXPECT(captured == building);
    CHECK(cudaGraphDestroy(captured));
    EXPECT(gone(2));

    // refusals
    cudaUserObject_t x;
    EXPECT(cudaUserObjectCreate(&x, nullptr, destroy, 1, 0) == cudaErrorInvalidValue);  // must be NoDestructorSync
    EXPECT(cudaUserObjectCreate(&x, nullptr, destroy, 0, cudaUserObjectNoDestructorSync) == cudaErrorInvalidValue);
    EXPECT(cudaUserObjectCreate(&x, nullptr, nullptr, 1, cudaUserObjectNoDestructorSync) == cudaErrorInvalidValue);
    cudaGetLastError();

    // the Driver's forms
    CUuserObject o;
    CHECK((cudaError_t)cuUserObjectCreate(&o, (void *)3, destroy, 1, CU_USER_OBJECT_NO_DESTRUCTOR_SYNC));
    CHECK((cudaError_t)cuUserObjectRetain(o, 2));
    CUgraph dg;
    CHECK((cudaError_t)cuGraphCreate(&dg, 0));
    CHECK((cudaError_t)cuGraphRetainUserObject(dg, o, 3, CU_GRAPH_USER_OBJECT_MOVE));
    CHECK((cudaError_t)cuGraphReleaseUserObject(dg, o, 1));
    CHECK((cudaError_t)cuGraphDestroy(dg));
    EXPECT(gone(3));
    for (int k = 0; k < 4; k++) EXPECT(destroyed[k] == 1);  // once each
    printf("OK driver_user_objects\n");
    return 0;
}
