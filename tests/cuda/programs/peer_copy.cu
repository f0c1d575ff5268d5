// Two devices (two vGPUs, possibly on two servers): data made by a kernel on device 0 moves to
// device 1 with cudaMemcpyPeer, is transformed there, and comes back checked. Peer access itself
// is reported unsupported, as for GPUs without P2P. Device-to-device copies between the two devices'
// memory (cudaMemcpy(Async) with DeviceToDevice or Default, as frameworks copy tensors) work too, and
// a context-independent library loaded once runs its kernel on each device.
#include <vector>
#include <cuda_runtime.h>
#include "check.h"

__global__ void iota(int *x, int n) { int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) x[i] = i; }
__global__ void square(int *x, int n) { int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) x[i] *= x[i]; }

// inc(x, n): x[i] += 1, as PTX text a library is loaded from
static const char *INC_PTX = R"(
.version 8.0
.target sm_80
.address_size 64
.visible .entry inc(.param .u64 x, .param .u32 n)
{
    .reg .pred %p;
    .reg .b32 %r<7>;
    .reg .b64 %rd<5>;
    ld.param.u64 %rd1, [x];
    ld.param.u32 %r1, [n];
    mov.u32 %r2, %ctaid.x;
    mov.u32 %r3, %ntid.x;
    mov.u32 %r4, %tid.x;
    mad.lo.s32 %r5, %r2, %r3, %r4;
    setp.ge.s32 %p, %r5, %r1;
    @%p bra DONE;
    cvta.to.global.u64 %rd2, %rd1;
    mul.wide.s32 %rd3, %r5, 4;
    add.s64 %rd4, %rd2, %rd3;
    ld.global.u32 %r6, [%rd4];
    add.s32 %r6, %r6, 1;
    st.global.u32 [%rd4], %r6;
DONE:
    ret;
}
)";

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

    // device 0's a -> device 1's b with a plain device-to-device copy, and back with Default on a stream
    const int M = 1 << 16;
    CHECK(cudaSetDevice(0));
    iota<<<(M + 255) / 256, 256>>>(a, M);
    CHECK(cudaSetDevice(1));
    CHECK(cudaMemset(b, 0, M * sizeof(int)));
    CHECK(cudaMemcpy(b, a, M * sizeof(int), cudaMemcpyDeviceToDevice));
    square<<<(M + 255) / 256, 256>>>(b, M);
    cudaStream_t s1;
    CHECK(cudaStreamCreateWithFlags(&s1, cudaStreamNonBlocking));
    CHECK(cudaMemcpyAsync(a, b, M * sizeof(int), cudaMemcpyDefault, s1));
    CHECK(cudaStreamSynchronize(s1));
    CHECK(cudaSetDevice(0));
    CHECK(cudaMemcpy(h.data(), a, M * sizeof(int), cudaMemcpyDeviceToHost));
    for (int i = 0; i < M; i++) EXPECT(h[i] == i * i);

    // one library, loaded on device 0, launched on device 0 and then on device 1
    cudaLibrary_t lib;
    cudaKernel_t inc;
    CHECK(cudaLibraryLoadData(&lib, INC_PTX, nullptr, nullptr, 0, nullptr, nullptr, 0));
    CHECK(cudaLibraryGetKernel(&inc, lib, "inc"));
    int m = M;
    for (int dev = 0; dev < 2; dev++) {
        CHECK(cudaSetDevice(dev));
        int *x = dev == 0 ? a : b;
        CHECK(cudaMemset(x, 0, M * sizeof(int)));
        void *args[] = {&x, &m};
        CHECK(cudaLaunchKernel((const void *)inc, dim3((M + 255) / 256), dim3(256), args, 0, 0));
        CHECK(cudaLaunchKernel((const void *)inc, dim3((M + 255) / 256), dim3(256), args, 0, 0));
        CHECK(cudaMemcpy(h.data(), x, M * sizeof(int), cudaMemcpyDeviceToHost));
        for (int i = 0; i < M; i++) EXPECT(h[i] == 2);
    }
    CHECK(cudaLibraryUnload(lib));
    printf("OK peer_copy\n");
    return 0;
}
