/* Graph and capture calls as a CUDA 12 program makes them: CUDA 12's signatures (no edge data) bound
 * as name@libcudart.so.12. Built by the test against a stand-in libcudart.so.12, then run on rgpu. */
#include <stdio.h>
#include <string.h>

typedef void *graph_t, *node_t, *exec_t, *stream_t;
int cudaMalloc(void **p, size_t n);
int cudaMemcpy(void *dst, const void *src, size_t n, int kind);
int cudaMemsetAsync(void *p, int v, size_t n, stream_t s);
int cudaStreamCreate(stream_t *s);
int cudaStreamSynchronize(stream_t s);
int cudaStreamBeginCapture(stream_t s, int mode);
int cudaStreamEndCapture(stream_t s, graph_t *g);
int cudaStreamGetCaptureInfo(stream_t s, int *status, unsigned long long *id, graph_t *g, const node_t **deps,
                             size_t *ndeps);
int cudaGraphCreate(graph_t *g, unsigned flags);
int cudaGraphAddEmptyNode(node_t *n, graph_t g, const node_t *deps, size_t ndeps);
int cudaGraphAddDependencies(graph_t g, const node_t *from, const node_t *to, size_t n);
int cudaGraphRemoveDependencies(graph_t g, const node_t *from, const node_t *to, size_t n);
int cudaGraphGetEdges(graph_t g, node_t *from, node_t *to, size_t *n);
int cudaGraphNodeGetDependencies(node_t n, node_t *deps, size_t *count);
int cudaGraphNodeGetDependentNodes(node_t n, node_t *deps, size_t *count);
int cudaGraphInstantiate(exec_t *e, graph_t g, unsigned long long flags);
int cudaGraphLaunch(exec_t e, stream_t s);
const char *cudaGetErrorName(int e);

#define CHECK(x) do { int rc_ = (x); if (rc_) { printf("FAIL %s -> %s\n", #x, cudaGetErrorName(rc_)); return 1; } } while (0)
#define EXPECT(c) do { if (!(c)) { printf("FAIL %s\n", #c); return 1; } } while (0)

int main(void) {
    graph_t g;
    node_t a, b, c, from[2], to[2], got[4];
    CHECK(cudaGraphCreate(&g, 0));
    CHECK(cudaGraphAddEmptyNode(&a, g, NULL, 0));
    CHECK(cudaGraphAddEmptyNode(&b, g, NULL, 0));
    CHECK(cudaGraphAddEmptyNode(&c, g, NULL, 0));
    from[0] = a; to[0] = c; from[1] = b; to[1] = c;
    CHECK(cudaGraphAddDependencies(g, from, to, 2));
    size_t n = 0;
    CHECK(cudaGraphGetEdges(g, NULL, NULL, &n));
    EXPECT(n == 2);
    n = 4;
    CHECK(cudaGraphNodeGetDependencies(c, got, &n));
    EXPECT(n == 2 && got[0] == a && got[1] == b && got[2] == NULL);
    n = 4;
    CHECK(cudaGraphNodeGetDependentNodes(a, got, &n));
    EXPECT(n == 1 && got[0] == c);
    CHECK(cudaGraphRemoveDependencies(g, &from[1], &to[1], 1));
    CHECK(cudaGraphGetEdges(g, NULL, NULL, &n));
    EXPECT(n == 1);

    stream_t s;
    unsigned char *d, h[64];
    CHECK(cudaMalloc((void **)&d, sizeof h));
    CHECK(cudaStreamCreate(&s));
    CHECK(cudaStreamBeginCapture(s, 0));
    CHECK(cudaMemsetAsync(d, 7, sizeof h, s));
    int status = -1;
    unsigned long long id = 0;
    graph_t during = NULL;
    const node_t *deps = NULL;
    size_t ndeps = 99;
    CHECK(cudaStreamGetCaptureInfo(s, &status, &id, &during, &deps, &ndeps));
    EXPECT(status == 1 && id && during && ndeps == 1 && deps && deps[0]);
    graph_t cap;
    exec_t e;
    CHECK(cudaStreamEndCapture(s, &cap));
    CHECK(cudaGraphInstantiate(&e, cap, 0));
    CHECK(cudaGraphLaunch(e, s));
    CHECK(cudaStreamSynchronize(s));
    CHECK(cudaMemcpy(h, d, sizeof h, 2));
    for (size_t i = 0; i < sizeof h; i++) EXPECT(h[i] == 7);
    printf("OK cuda12_graphs\n");
    return 0;
}
