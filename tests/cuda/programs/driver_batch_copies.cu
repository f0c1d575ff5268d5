// Batched copies (CUDA 12.8+): cudaMemcpyBatchAsync with copies of every direction under two
// attribute runs, a source read before the call returns (DURING_API_CALL: its pinned buffer is
// overwritten right after), the refusals (legacy stream, bad attribute runs, an invalid access order,
// no copies, a capturing stream); cudaMemcpy3DBatchAsync between pitched memory, host memory and a
// CUDA array; and the Driver's forms. No kernel: the null driver runs it too.
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <vector>
#include <cuda.h>
#include <cuda_runtime.h>
#include "check.h"

static uint8_t v(size_t i, int k) { return (uint8_t)(i * 13 + k * 59 + 1); }

static std::vector<uint8_t> filled(size_t n, int k) {
    std::vector<uint8_t> out(n);
    for (size_t i = 0; i < n; i++) out[i] = v(i, k);
    return out;
}

int main() {
    const size_t N = (1 << 20) + 77;
    cudaStream_t s;
    CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    uint8_t *a, *b, *c, *d, *e, *pinned;
    for (uint8_t **p : {&a, &b, &c, &d, &e}) CHECK(cudaMalloc((void **)p, N));
    CHECK(cudaMallocHost((void **)&pinned, N));
    std::vector<uint8_t> ha = filled(N, 1), hd = filled(N, 4), he = filled(N, 5), out(N, 0);
    memcpy(pinned, filled(N, 2).data(), N);
    CHECK(cudaMemcpy(d, hd.data(), N, cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(e, he.data(), N, cudaMemcpyHostToDevice));

    // host to device (pageable and pinned), device to device, device to host, in two attribute runs
    void *dsts[4] = {a, b, c, out.data()};
    const void *srcs[4] = {ha.data(), pinned, d, e};
    size_t sizes[4] = {N, N, N, N};
    cudaMemcpyAttributes attrs[2] = {};
    attrs[0].srcAccessOrder = cudaMemcpySrcAccessOrderStream;
    attrs[1].srcAccessOrder = cudaMemcpySrcAccessOrderAny;
    size_t idxs[2] = {0, 2};
    CHECK(cudaMemcpyBatchAsync(dsts, srcs, sizes, 4, attrs, idxs, 2, s));
    CHECK(cudaStreamSynchronize(s));
    std::vector<uint8_t> back(N);
    CHECK(cudaMemcpy(back.data(), a, N, cudaMemcpyDeviceToHost));
    EXPECT(back == ha);
    CHECK(cudaMemcpy(back.data(), b, N, cudaMemcpyDeviceToHost));
    EXPECT(back == filled(N, 2));
    CHECK(cudaMemcpy(back.data(), c, N, cudaMemcpyDeviceToHost));
    EXPECT(back == hd);
    EXPECT(out == he);

    // read during the call: the pinned source may change as soon as it returns
    cudaMemcpyAttributes now = {};
    now.srcAccessOrder = cudaMemcpySrcAccessOrderDuringApiCall;
    size_t zero = 0;
    memcpy(pinned, filled(N, 7).data(), N);
    void *d1[1] = {a};
    const void *s1[1] = {pinned};
    CHECK(cudaMemcpyBatchAsync(d1, s1, sizes, 1, &now, &zero, 1, s));
    memset(pinned, 0, N);
    CHECK(cudaStreamSynchronize(s));
    CHECK(cudaMemcpy(back.data(), a, N, cudaMemcpyDeviceToHost));
    EXPECT(back == filled(N, 7));

    // refusals
    size_t bad_idx[2] = {1, 2}, flat[2] = {0, 0};
    cudaMemcpyAttributes invalid = {};  // srcAccessOrder 0: invalid
    EXPECT(cudaMemcpyBatchAsync(dsts, srcs, sizes, 4, attrs, idxs, 2, 0) == cudaErrorInvalidValue);
    EXPECT(cudaMemcpyBatchAsync(dsts, srcs, sizes, 4, attrs, bad_idx, 2, s) == cudaErrorInvalidValue);
    EXPECT(cudaMemcpyBatchAsync(dsts, srcs, sizes, 4, attrs, flat, 2, s) == cudaErrorInvalidValue);
    EXPECT(cudaMemcpyBatchAsync(dsts, srcs, sizes, 4, &invalid, &zero, 1, s) == cudaErrorInvalidValue);
    EXPECT(cudaMemcpyBatchAsync(dsts, srcs, sizes, 0, attrs, idxs, 2, s) == cudaErrorInvalidValue);
    cudaGetLastError();
    CHECK(cudaStreamBeginCapture(s, cudaStreamCaptureModeRelaxed));
    EXPECT(cudaMemcpyBatchAsync(dsts, srcs, sizes, 4, attrs, idxs, 2, s) != cudaSuccess);
    cudaGraph_t g = nullptr;
    EXPECT(cudaStreamEndCapture(s, &g) != cudaSuccess);  // the capture is invalidated
    cudaGetLastError();

    // 3D: tight host rows into pitched device memory, that into a CUDA array of floats, the array out
    const size_t W = 24, H = 5, D = 3;  // W floats
    std::vector<uint8_t> vol = filled(W * 4 * H * D, 9), got(W * 4 * H * D, 0);
    cudaPitchedPtr pp;
    CHECK(cudaMalloc3D(&pp, make_cudaExtent(W * 4, H + 2, D)));
    cudaChannelFormatDesc f = cudaCreateChannelDesc<float>();
    cudaArray_t arr;
    CHECK(cudaMalloc3DArray(&arr, &f, make_cudaExtent(W, H, D)));
    cudaMemcpy3DBatchOp ops[1] = {};
    ops[0].src.type = cudaMemcpyOperandTypePointer, ops[0].src.op.ptr.ptr = vol.data();  // tight: lengths 0
    ops[0].dst.type = cudaMemcpyOperandTypePointer, ops[0].dst.op.ptr.ptr = pp.ptr;
    ops[0].dst.op.ptr.rowLength = pp.pitch, ops[0].dst.op.ptr.layerHeight = H + 2;
    ops[0].extent = make_cudaExtent(W * 4, H, D);  // bytes: pointer to pointer
    ops[0].srcAccessOrder = cudaMemcpySrcAccessOrderStream;
    CHECK(cudaMemcpy3DBatchAsync(1, ops, 0, s));
    cudaMemcpy3DBatchOp two[2] = {};
    two[0].src = ops[0].dst;
    two[0].src.op.ptr.rowLength = pp.pitch / 4;  // in elements: the array's, floats
    two[0].dst.type = cudaMemcpyOperandTypeArray, two[0].dst.op.array.array = arr;
    two[0].extent = make_cudaExtent(W, H, D);  // elements: an array side
    two[0].srcAccessOrder = cudaMemcpySrcAccessOrderStream;
    CHECK(cudaMemcpy3DBatchAsync(1, two, 0, s));
    two[1].src.type = cudaMemcpyOperandTypeArray, two[1].src.op.array.array = arr;
    two[1].src.op.array.offset = {2, 1, 1};
    two[1].dst.type = cudaMemcpyOperandTypePointer, two[1].dst.op.ptr.ptr = got.data();
    two[1].extent = make_cudaExtent(W - 2, H - 1, D - 1);
    two[1].srcAccessOrder = cudaMemcpySrcAccessOrderStream;
    CHECK(cudaMemcpy3DBatchAsync(1, two + 1, 0, s));
    CHECK(cudaStreamSynchronize(s));
    for (size_t z = 0; z < D - 1; z++)
        for (size_t y = 0; y < H - 1; y++)
            for (size_t x = 0; x < (W - 2) * 4; x++) {
                uint8_t want = vol[((z + 1) * H + y + 1) * W * 4 + x + 8];
                if (got[(z * (H - 1) + y) * (W - 2) * 4 + x] != want) {
                    printf("FAIL 3D at %zu,%zu,%zu\n", x, y, z);
                    return 1;
                }
            }
    two[0].extent = make_cudaExtent(0, H, D);
    EXPECT(cudaMemcpy3DBatchAsync(1, two, 0, s) == cudaErrorInvalidValue);
    EXPECT(cudaMemcpy3DBatchAsync(1, ops, 0, 0) == cudaErrorInvalidValue);
    cudaGetLastError();

    // the Driver's forms
    CUdeviceptr dd[1] = {(CUdeviceptr)c}, ss[1] = {(CUdeviceptr)(uintptr_t)ha.data()};
    CUmemcpyAttributes da = {};
    da.srcAccessOrder = CU_MEMCPY_SRC_ACCESS_ORDER_STREAM;
    CHECK((cudaError_t)cuMemcpyBatchAsync_v2(dd, ss, sizes, 1, &da, &zero, 1, (CUstream)s));
    CUDA_MEMCPY3D_BATCH_OP dop = {};
    dop.src.type = CU_MEMCPY_OPERAND_TYPE_POINTER, dop.src.op.ptr.ptr = (CUdeviceptr)c;
    dop.dst.type = CU_MEMCPY_OPERAND_TYPE_POINTER, dop.dst.op.ptr.ptr = (CUdeviceptr)(uintptr_t)back.data();
    dop.extent = {N, 1, 1};
    dop.srcAccessOrder = CU_MEMCPY_SRC_ACCESS_ORDER_STREAM;
    memset(back.data(), 0, N);
    CHECK((cudaError_t)cuMemcpy3DBatchAsync_v2(1, &dop, 0, (CUstream)s));
    CHECK(cudaStreamSynchronize(s));
    EXPECT(back == ha);
    printf("OK driver_batch_copies\n");
    return 0;
}
