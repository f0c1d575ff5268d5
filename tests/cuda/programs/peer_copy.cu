// Two devices (two vGPUs, possibly on two servers): data made by a kernel on device 0 moves to
// device 1 with cudaMemcpyPeer, is transformed there, and comes back checked. Peer access itself
// is reported unsupported, as for GPUs without P2P.
#include <vector>
#include <cuda_runtime.h>
#include "check.h"

__global__ void iota(int *x, int n) { int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) x[i] = i; }
__global__ void square(int *x, int n) { int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) x[i] *= x[i]; }

int main() {
    int n = 0;
    CHECK(cudaGetDeviceCount(&n));
    EXPECT(n >= 2);
    int can = -1;
    CHECK(cudaDeviceCanAccessPeer(&can, 0, 1));
    EXPECT(can == 0);
    int attr = -1;
    CHECK(cudaDeviceGetP2PAttribute(&attr, cudaDevP2PAttrAccessSupported, 0, 1));
    EXPECT(attr == 0);
    CHECK(cudaDeviceGetP2PAttribute(&attr, cudaDevP2PAttrPerformanceRank, 1, 0));
    EXPECT(attr == 0);
    EXPECT(cudaDeviceGetP2PAttribute(&attr, cudaDevP2PAttrAccessSupported, 0, 0) == cudaErrorInvalidDevice);
    cudaGetLastError();
    CHECK(cudaSetDevice(0));
    EXPECT(cudaDeviceEnablePeerAccess(1, 0) == cudaErrorPeerAccessUnsupported);
    EXPECT(cudaGetLastError() == cudaErrorPeerAccessUnsupported);
    const int N = 3 << 20;  // 12 MiB of ints: more than one chunk of the copy through the client
    int *a, *b;
    CHECK(cudaMalloc(&a, N * sizeof(int)));
    iota<<<(N + 255) / 256, 256>>>(a, N);
    CHECK(cudaSetDevice(1));
    CHECK(cudaMalloc(&b, N * sizeof(int)));
    CHECK(cudaMemcpyPeer(b, 1, a, 0, N * sizeof(int)));
    square<<<(N + 255) / 256, 256>>>(b, N);
    CHECK(cudaMemcpyPeerAsync(a, 0, b, 1, N * sizeof(int), 0));
    std::vector<int> h(N);
    CHECK(cudaSetDevice(0));
    CHECK(cudaMemcpy(h.data(), a, N * sizeof(int), cudaMemcpyDeviceToHost));
    for (int i = 0; i < N; i++) EXPECT(h[i] == (int)((unsigned)i * (unsigned)i));
    printf("OK peer_copy\n");
    return 0;
}
