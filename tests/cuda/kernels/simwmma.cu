// Tensor-core matrix multiply through nvcuda::wmma: one warp computes D = A*B + C for one tile,
// for each fragment shape and element type sm_80 offers, A/B/C read from global or shared memory
// in row- or column-major layout.
#include <mma.h>
#include <cuda_fp16.h>
#include <cuda_bf16.h>
using namespace nvcuda;

template <int M, int N, int K, typename T, typename Acc, typename LA, typename LB>
__device__ void tile(const T *a, const T *b, const Acc *c, Acc *d, int lda, int ldb, int ldc, bool c_col) {
    wmma::fragment<wmma::matrix_a, M, N, K, T, LA> fa;
    wmma::fragment<wmma::matrix_b, M, N, K, T, LB> fb;
    wmma::fragment<wmma::accumulator, M, N, K, Acc> fc;
    wmma::load_matrix_sync(fa, a, lda);
    wmma::load_matrix_sync(fb, b, ldb);
    wmma::load_matrix_sync(fc, c, ldc, c_col ? wmma::mem_col_major : wmma::mem_row_major);
    wmma::mma_sync(fc, fa, fb, fc);
    wmma::store_matrix_sync(d, fc, ldc, wmma::mem_row_major);
}

// f16 in, f32 accumulate; the layouts of A and B chosen by `which` (0: row/col, 1: col/row).
extern "C" __global__ void mm_f16(const half *a, const half *b, const float *c, float *d, int which, int m, int n, int k) {
    if (which == 0 && m == 16) tile<16, 16, 16, half, float, wmma::row_major, wmma::col_major>(a, b, c, d, 16, 16, 16, false);
    if (which == 1 && m == 16) tile<16, 16, 16, half, float, wmma::col_major, wmma::row_major>(a, b, c, d, 16, 16, 16, true);
    if (m == 32) tile<32, 8, 16, half, float, wmma::row_major, wmma::row_major>(a, b, c, d, 16, 8, 8, false);
    if (m == 8) tile<8, 32, 16, half, float, wmma::row_major, wmma::row_major>(a, b, c, d, 16, 32, 32, false);
}

// f16 accumulators, with the tile staged through shared memory first.
extern "C" __global__ void mm_f16_acc_shared(const half *a, const half *b, const half *c, half *d) {
    __shared__ half sa[256], sb[256], sc[256];
    for (int i = threadIdx.x; i < 256; i += 32) { sa[i] = a[i]; sb[i] = b[i]; sc[i] = c[i]; }
    __syncwarp();
    tile<16, 16, 16, half, half, wmma::row_major, wmma::row_major>(sa, sb, sc, d, 16, 16, 16, false);
}

extern "C" __global__ void mm_bf16(const __nv_bfloat16 *a, const __nv_bfloat16 *b, const float *c, float *d) {
    tile<16, 16, 16, __nv_bfloat16, float, wmma::row_major, wmma::row_major>(a, b, c, d, 16, 16, 16, false);
}

extern "C" __global__ void mm_tf32(const float *a, const float *b, const float *c, float *d) {
    wmma::fragment<wmma::matrix_a, 16, 16, 8, wmma::precision::tf32, wmma::row_major> fa;
    wmma::fragment<wmma::matrix_b, 16, 16, 8, wmma::precision::tf32, wmma::row_major> fb;
    wmma::fragment<wmma::accumulator, 16, 16, 8, float> fc;
    wmma::load_matrix_sync(fa, a, 8);
    wmma::load_matrix_sync(fb, b, 16);
    for (int i = 0; i < fa.num_elements; i++) fa.x[i] = wmma::__float_to_tf32(fa.x[i]);
    for (int i = 0; i < fb.num_elements; i++) fb.x[i] = wmma::__float_to_tf32(fb.x[i]);
    wmma::load_matrix_sync(fc, c, 16, wmma::mem_row_major);
    wmma::mma_sync(fc, fa, fb, fc);
    // Element-wise work on a fragment is layout-free: every element is scaled alike.
    for (int i = 0; i < fc.num_elements; i++) fc.x[i] = fc.x[i] * 0.5f;
    wmma::store_matrix_sync(d, fc, 16, wmma::mem_row_major);
}

extern "C" __global__ void mm_s8(const signed char *a, const signed char *b, const int *c, int *d) {
    tile<16, 16, 16, signed char, int, wmma::row_major, wmma::col_major>(a, b, c, d, 16, 16, 16, false);
}

extern "C" __global__ void mm_f64(const double *a, const double *b, const double *c, double *d) {
    tile<8, 8, 4, double, double, wmma::row_major, wmma::row_major>(a, b, c, d, 4, 8, 8, false);
}
