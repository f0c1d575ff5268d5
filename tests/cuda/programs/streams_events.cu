// Async copies on several streams, ordered with events; elapsed time between events.
#include <cstring>
#include <vector>
#include <cuda_runtime.h>
#include "check.h"

struct Check { const std::vector<float> *a, *b; int ok; int calls; };

// Host work in stream order: it runs after the copies queued before it, so the data is there.
static void CUDART_CB verify(void *p) {
    Check *c = (Check *)p;
    c->ok = memcmp(c->a->data(), c->b->data(), c->a->size() * sizeof(float)) == 0;
    c->calls++;
}

static void CUDART_CB after(cudaStream_t, cudaError_t status, void *p) {
    ((Check *)p)->calls += status == cudaSuccess ? 10 : 100;
}

int main() {
    const int S = 4;
    const size_t n = 1 << 20;
    cudaStream_t st[S];
    cudaEvent_t done[S], start, stop;
    float *d[S];
    std::vector<float> h(n * S), back(n * S, -1.f);
    for (size_t i = 0; i < h.size(); i++) h[i] = (float)i * 0.25f;
    CHECK(cudaEventCreate(&start));
    CHECK(cudaEventCreateWithFlags(&stop, cudaEventBlockingSync));
    CHECK(cudaEventRecord(start, 0));
    for (int s = 0; s < S; s++) {
        CHECK(cudaStreamCreateWithPriority(&st[s], cudaStreamNonBlocking, -s));
        CHECK(cudaEventCreateWithFlags(&done[s], cudaEventDisableTiming));
        CHECK(cudaMalloc((void **)&d[s], n * sizeof(float)));
        CHECK(cudaMemcpyAsync(d[s], h.data() + s * n, n * sizeof(float), cudaMemcpyHostToDevice, st[s]));
        CHECK(cudaEventRecord(done[s], st[s]));
    }
    // stream 0 copies everything back after waiting for all the uploads
    for (int s = 0; s < S; s++) CHECK(cudaStreamWaitEvent(st[0], done[s], 0));
    for (int s = 0; s < S; s++)
        CHECK(cudaMemcpyAsync(back.data() + s * n, d[s], n * sizeof(float), cudaMemcpyDeviceToHost, st[0]));
    Check check = {&h, &back, 0, 0};
    CHECK(cudaLaunchHostFunc(st[0], verify, &check));
    CHECK(cudaStreamAddCallback(st[0], after, &check, 0));
    CHECK(cudaEventRecord(stop, st[0]));
    CHECK(cudaEventSynchronize(stop));
    EXPECT(check.ok == 1 && check.calls == 11);
    EXPECT(cudaEventQuery(stop) == cudaSuccess);
    for (int s = 0; s < S; s++) CHECK(cudaStreamSynchronize(st[s]));
    for (int s = 0; s < S; s++) EXPECT(cudaStreamQuery(st[s]) == cudaSuccess);
    EXPECT(memcmp(h.data(), back.data(), h.size() * sizeof(float)) == 0);
    float ms = -1;
    CHECK(cudaEventElapsedTime(&ms, start, stop));
    EXPECT(ms >= 0.0f);
    EXPECT(cudaEventElapsedTime(&ms, start, done[0]) == cudaErrorInvalidResourceHandle);
    int prio = 1;
    unsigned flags = 0;
    CHECK(cudaStreamGetPriority(st[2], &prio));
    CHECK(cudaStreamGetFlags(st[2], &flags));
    EXPECT(prio == -2 && flags == cudaStreamNonBlocking);
    for (int s = 0; s < S; s++) {
        CHECK(cudaStreamDestroy(st[s]));
        CHECK(cudaEventDestroy(done[s]));
        CHECK(cudaFree(d[s]));
    }
    EXPECT(cudaStreamSynchronize(st[1]) == cudaErrorInvalidResourceHandle);
    printf("elapsed %.3f ms\n", ms);
    printf("OK streams_events\n");
    return 0;
}
