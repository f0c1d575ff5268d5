// mma.sync and ldmatrix written the way CUTLASS-style kernels write them: fragments loaded from
// shared memory with ldmatrix (x4 for A, x2.trans for a row-major B), one m16n8k16 product per
// warp; and fragments filled by hand at the ISA's documented positions for the other shapes.
#include <cuda_fp16.h>
#include <cstdint>

__device__ unsigned smem(const void *p) { return (unsigned)__cvta_generic_to_shared(p); }

// D(16x8, f32) = A(16x16 f16, row-major) * B(16x8 f16, row-major) + C, through shared memory.
extern "C" __global__ void ldmatrix_mma(const half *a, const half *b, const float *c, float *d) {
    __shared__ alignas(16) half As[16 * 16];
    __shared__ alignas(16) half Bs[16 * 8];
    int lane = threadIdx.x;
    for (int i = lane; i < 256; i += 32) As[i] = a[i];
    for (int i = lane; i < 128; i += 32) Bs[i] = b[i];
    __syncwarp();
    uint32_t ra[4], rb[2];
    asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0,%1,%2,%3}, [%4];"
                 : "=r"(ra[0]), "=r"(ra[1]), "=r"(ra[2]), "=r"(ra[3])
                 : "r"(smem(&As[(lane % 16) * 16 + (lane / 16) * 8])));
    asm volatile("ldmatrix.sync.aligned.m8n8.x2.trans.shared.b16 {%0,%1}, [%2];"
                 : "=r"(rb[0]), "=r"(rb[1]) : "r"(smem(&Bs[(lane % 16) * 8])));
    int g = lane >> 2, t = lane & 3;
    float acc[4] = {c[g * 8 + 2 * t], c[g * 8 + 2 * t + 1], c[(g + 8) * 8 + 2 * t], c[(g + 8) * 8 + 2 * t + 1]};
    asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};"
                 : "+f"(acc[0]), "+f"(acc[1]), "+f"(acc[2]), "+f"(acc[3])
                 : "r"(ra[0]), "r"(ra[1]), "r"(ra[2]), "r"(ra[3]), "r"(rb[0]), "r"(rb[1]));
    d[g * 8 + 2 * t] = acc[0];
    d[g * 8 + 2 * t + 1] = acc[1];
    d[(g + 8) * 8 + 2 * t] = acc[2];
    d[(g + 8) * 8 + 2 * t + 1] = acc[3];
}

// m16n8k8 tf32: A 16x8 and B 8x8 (row-major) placed by the ISA's tf32 table.
extern "C" __global__ void mma_tf32(const float *a, const float *b, float *d) {
    int lane = threadIdx.x, g = lane >> 2, t = lane & 3;
    uint32_t ra[4], rb[2];
    for (int i = 0; i < 4; i++) {
        float v = a[(g + 8 * (i & 1)) * 8 + t + 4 * (i >> 1)];
        asm("cvt.rna.tf32.f32 %0, %1;" : "=r"(ra[i]) : "f"(v));
    }
    for (int i = 0; i < 2; i++) {
        float v = b[(t + 4 * i) * 8 + g];
        asm("cvt.rna.tf32.f32 %0, %1;" : "=r"(rb[i]) : "f"(v));
    }
    float acc[4] = {0, 0, 0, 0};
    asm volatile("mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};"
                 : "+f"(acc[0]), "+f"(acc[1]), "+f"(acc[2]), "+f"(acc[3])
                 : "r"(ra[0]), "r"(ra[1]), "r"(ra[2]), "r"(ra[3]), "r"(rb[0]), "r"(rb[1]));
    for (int i = 0; i < 4; i++) d[(g + 8 * (i >> 1)) * 8 + 2 * t + (i & 1)] = acc[i];
}

// m16n8k32 s8 -> s32: four int8 a register, placed by the ISA's integer table.
extern "C" __global__ void mma_s8(const int8_t *a, const int8_t *b, int *d) {
    int lane = threadIdx.x, g = lane >> 2, t = lane & 3;
    uint32_t ra[4] = {0, 0, 0, 0}, rb[2] = {0, 0};
    for (int i = 0; i < 16; i++) {
        int row = g + 8 * ((i >> 2) & 1), col = 4 * t + (i & 3) + 16 * (i >> 3);
        ra[i / 4] |= (uint32_t)(uint8_t)a[row * 32 + col] << (8 * (i % 4));
    }
    for (int i = 0; i < 8; i++) {
        int row = 4 * t + (i & 3) + 16 * (i >> 2);
        rb[i / 4] |= (uint32_t)(uint8_t)b[row * 8 + g] << (8 * (i % 4));
    }
    int acc[4] = {0, 0, 0, 0};
    asm volatile("mma.sync.aligned.m16n8k32.row.col.s32.s8.s8.s32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};"
                 : "+r"(acc[0]), "+r"(acc[1]), "+r"(acc[2]), "+r"(acc[3])
                 : "r"(ra[0]), "r"(ra[1]), "r"(ra[2]), "r"(ra[3]), "r"(rb[0]), "r"(rb[1]));
    for (int i = 0; i < 4; i++) d[(g + 8 * (i >> 1)) * 8 + 2 * t + (i & 1)] = acc[i];
}

// m8n8k4 f64.
extern "C" __global__ void mma_f64(const double *a, const double *b, double *d) {
    int lane = threadIdx.x, g = lane >> 2, t = lane & 3;
    double ra = a[g * 4 + t], rb = b[t * 8 + g], acc[2] = {0, 0};
    asm volatile("mma.sync.aligned.m8n8k4.row.col.f64.f64.f64.f64 {%0,%1}, {%2}, {%3}, {%0,%1};"
                 : "+d"(acc[0]), "+d"(acc[1]) : "d"(ra), "d"(rb));
    d[g * 8 + 2 * t] = acc[0];
    d[g * 8 + 2 * t + 1] = acc[1];
}
