// Tensor maps (TMA descriptors, compute capability 9.0 on), as cuBLASLt's Hopper GEMMs, CUTLASS,
// Triton and FlashAttention use them: the host asks the driver to encode a tiling of a device array
// (cuTensorMapEncodeTiled, found as PyTorch finds it, through cudaGetDriverEntryPointByVersion), and
// a kernel receives the 128-byte map as a __grid_constant__ parameter and has the tensor memory
// accelerator copy a box of it into shared memory (cp.async.bulk.tensor, completing on an mbarrier).
// The boxes: one inside the array, one that runs past its edge (read as zeros), and one after
// cuTensorMapReplaceAddress points the map at another array. Malformed calls are refused on the host
// first. A device that encodes no tensor maps would answer CUDA_ERROR_NOT_SUPPORTED, which the program
// reports before it stops.
#include <cuda.h>
#include <cuda_runtime.h>
#include <cstdint>
#include "check.h"

constexpr int W = 64, H = 32, BW = 16, BH = 8;

typedef CUresult (*encode_fn)(CUtensorMap *, CUtensorMapDataType, cuuint32_t, void *, const cuuint64_t *,
                              const cuuint64_t *, const cuuint32_t *, const cuuint32_t *, CUtensorMapInterleave,
                              CUtensorMapSwizzle, CUtensorMapL2promotion, CUtensorMapFloatOOBfill);
typedef CUresult (*replace_fn)(CUtensorMap *, void *);

__device__ bool arrived(uint32_t bar, uint32_t phase) {
    uint32_t done;
    asm volatile("{\n .reg .pred p;\n mbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2;\n selp.u32 %0, 1, 0, p;\n}"
                 : "=r"(done) : "r"(bar), "r"(phase) : "memory");
    return done;
}

__global__ void load_box(const __grid_constant__ CUtensorMap map, int x, int y, float *out) {
    __shared__ alignas(128) float box[BH][BW];
    __shared__ alignas(8) uint64_t bar;
    uint32_t b = (uint32_t)__cvta_generic_to_shared(&bar), dst = (uint32_t)__cvta_generic_to_shared(box);
    if (threadIdx.x == 0) {
        asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" ::"r"(b));
        asm volatile("fence.proxy.async.shared::cta;");  // the barrier, as the copy engine sees it
    }
    __syncthreads();
    if (threadIdx.x == 0) {
        asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(b), "r"((unsigned)sizeof box)
                     : "memory");
        asm volatile(
            "cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1, {%2, %3}], [%4];"
            ::"r"(dst), "l"(&map), "r"(x), "r"(y), "r"(b) : "memory");
    }
    while (!arrived(b, 0)) {
    }
    for (int i = threadIdx.x; i < BW * BH; i += blockDim.x) out[i] = box[i / BW][i % BW];
}

// The box at (x, y) of an array whose element (c, r) is base + r * W + c; zeros past the edges.
static int check_box(const float *got, int x, int y, float base, const char *what) {
    for (int r = 0; r < BH; r++)
        for (int c = 0; c < BW; c++) {
            int gr = y + r, gc = x + c;
            float want = gr < H && gc < W ? base + gr * W + gc : 0.0f;
            if (got[r * BW + c] != want) {
                printf("FAIL %s: (%d, %d) is %g, expected %g\n", what, gc, gr, got[r * BW + c], want);
                return 1;
            }
        }
    return 0;
}

int main() {
    encode_fn encode = nullptr;
    replace_fn replace = nullptr;
    cudaDriverEntryPointQueryResult found;
    CHECK(cudaGetDriverEntryPointByVersion("cuTensorMapEncodeTiled", (void **)&encode, 12000, cudaEnableDefault,
                                           &found));
    EXPECT(found == cudaDriverEntryPointSuccess && encode);
    CHECK(cudaGetDriverEntryPointByVersion("cuTensorMapReplaceAddress", (void **)&replace, 12000, cudaEnableDefault,
                                           &found));
    EXPECT(found == cudaDriverEntryPointSuccess && replace);

    float h[W * H], *a, *b, *out;
    CHECK(cudaMalloc(&a, sizeof h));
    CHECK(cudaMalloc(&b, sizeof h));
    CHECK(cudaMalloc(&out, BW * BH * sizeof(float)));
    for (int i = 0; i < W * H; i++) h[i] = (float)i;
    CHECK(cudaMemcpy(a, h, sizeof h, cudaMemcpyHostToDevice));
    for (int i = 0; i < W * H; i++) h[i] = 10000.0f + (float)i;
    CHECK(cudaMemcpy(b, h, sizeof h, cudaMemcpyHostToDevice));

    alignas(64) CUtensorMap map;
    cuuint64_t dims[2] = {W, H}, strides[1] = {W * sizeof(float)};
    cuuint32_t box[2] = {BW, BH}, elems[2] = {1, 1};
    // refused before anything is encoded: no rank, and a map that is not 64-byte aligned
    EXPECT(encode(&map, CU_TENSOR_MAP_DATA_TYPE_FLOAT32, 0, a, dims, strides, box, elems, CU_TENSOR_MAP_INTERLEAVE_NONE,
                  CU_TENSOR_MAP_SWIZZLE_NONE, CU_TENSOR_MAP_L2_PROMOTION_NONE,
                  CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE) == CUDA_ERROR_INVALID_VALUE);
    alignas(64) unsigned char room[sizeof(CUtensorMap) + 64];
    EXPECT(encode((CUtensorMap *)(room + 8), CU_TENSOR_MAP_DATA_TYPE_FLOAT32, 2, a, dims, strides, box, elems,
                  CU_TENSOR_MAP_INTERLEAVE_NONE, CU_TENSOR_MAP_SWIZZLE_NONE, CU_TENSOR_MAP_L2_PROMOTION_NONE,
                  CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE) == CUDA_ERROR_INVALID_VALUE);

    CUresult rc = encode(&map, CU_TENSOR_MAP_DATA_TYPE_FLOAT32, 2, a, dims, strides, box, elems,
                         CU_TENSOR_MAP_INTERLEAVE_NONE, CU_TENSOR_MAP_SWIZZLE_NONE, CU_TENSOR_MAP_L2_PROMOTION_NONE,
                         CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
    if (rc == CUDA_ERROR_NOT_SUPPORTED) {
        printf("tensor map: %d not supported\n", (int)rc);
        printf("OK tensor maps (none on this device)\n");
        return 0;
    }
    EXPECT(rc == CUDA_SUCCESS);
    float got[BW * BH];
    const int at[2][2] = {{16, 8}, {56, 28}};  // inside; past the right and bottom edges
    for (auto &p : at) {
        CHECK(cudaMemset(out, 0xff, sizeof got));
        load_box<<<1, 128>>>(map, p[0], p[1], out);
        CHECK(cudaGetLastError());
        CHECK(cudaMemcpy(got, out, sizeof got, cudaMemcpyDeviceToHost));
        if (check_box(got, p[0], p[1], 0.0f, "array a")) return 1;
    }
    EXPECT(replace(&map, b) == CUDA_SUCCESS);
    load_box<<<1, 128>>>(map, 16, 8, out);
    CHECK(cudaGetLastError());
    CHECK(cudaMemcpy(got, out, sizeof got, cudaMemcpyDeviceToHost));
    if (check_box(got, 16, 8, 10000.0f, "array b")) return 1;
    printf("OK tensor maps (3 boxes)\n");
    return 0;
}
