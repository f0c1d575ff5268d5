// Texture and surface kernels the software GPU's unit tests run (tests/unit/sim/test_textures.py):
// each thread fetches at its own coordinates and writes all four components, so the test sees
// exactly what the PTX instruction returned.
#include <cuda_runtime.h>

extern "C" __global__ void t1d(cudaTextureObject_t t, const float *x, float4 *out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = tex1D<float4>(t, x[i]);
}

extern "C" __global__ void t1d_fetch(cudaTextureObject_t t, const int *x, float4 *out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = tex1Dfetch<float4>(t, x[i]);
}

extern "C" __global__ void t1d_fetch_int(cudaTextureObject_t t, const int *x, int4 *out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = tex1Dfetch<int4>(t, x[i]);
}

extern "C" __global__ void t2d(cudaTextureObject_t t, const float *x, const float *y, float4 *out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = tex2D<float4>(t, x[i], y[i]);
}

extern "C" __global__ void t2d_int(cudaTextureObject_t t, const float *x, const float *y, int4 *out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = tex2D<int4>(t, x[i], y[i]);
}

extern "C" __global__ void t2d_uint(cudaTextureObject_t t, const float *x, const float *y, uint4 *out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = tex2D<uint4>(t, x[i], y[i]);
}

extern "C" __global__ void t3d(cudaTextureObject_t t, const float *x, const float *y, const float *z, float4 *out,
                               int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = tex3D<float4>(t, x[i], y[i], z[i]);
}

extern "C" __global__ void t1d_layered(cudaTextureObject_t t, const float *x, const int *layer, float4 *out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = tex1DLayered<float4>(t, x[i], layer[i]);
}

extern "C" __global__ void t2d_layered(cudaTextureObject_t t, const float *x, const float *y, const int *layer,
                                       float4 *out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = tex2DLayered<float4>(t, x[i], y[i], layer[i]);
}

extern "C" __global__ void tcube(cudaTextureObject_t t, const float *x, const float *y, const float *z, float4 *out,
                                 int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = texCubemap<float4>(t, x[i], y[i], z[i]);
}

extern "C" __global__ void tcube_layered(cudaTextureObject_t t, const float *x, const float *y, const float *z,
                                         const int *layer, float4 *out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = texCubemapLayered<float4>(t, x[i], y[i], z[i], layer[i]);
}

extern "C" __global__ void t2d_lod(cudaTextureObject_t t, const float *x, const float *y, const float *lod,
                                   float4 *out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = tex2DLod<float4>(t, x[i], y[i], lod[i]);
}

extern "C" __global__ void t2d_grad(cudaTextureObject_t t, const float *x, const float *y, const float *g,
                                    float4 *out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = tex2DGrad<float4>(t, x[i], y[i], make_float2(g[4 * i], g[4 * i + 1]),
                                          make_float2(g[4 * i + 2], g[4 * i + 3]));
}

extern "C" __global__ void t2d_gather(cudaTextureObject_t t, const float *x, const float *y, int comp, float4 *out,
                                      int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = tex2Dgather<float4>(t, x[i], y[i], comp);
}

// Two texture objects chosen per thread: even threads read a, odd ones b.
extern "C" __global__ void t1d_two(cudaTextureObject_t a, cudaTextureObject_t b, const float *x, float4 *out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = tex1D<float4>(i % 2 ? b : a, x[i]);
}

extern "C" __global__ void txq_sizes(cudaTextureObject_t t, cudaSurfaceObject_t s, int *out) {
    int w, h, d, levels, sw, sh;
    asm("txq.width.b32 %0, [%1];" : "=r"(w) : "l"(t));
    asm("txq.height.b32 %0, [%1];" : "=r"(h) : "l"(t));
    asm("txq.depth.b32 %0, [%1];" : "=r"(d) : "l"(t));
    asm("txq.num_mipmap_levels.b32 %0, [%1];" : "=r"(levels) : "l"(t));
    asm("suq.width.b32 %0, [%1];" : "=r"(sw) : "l"(s));
    asm("suq.height.b32 %0, [%1];" : "=r"(sh) : "l"(s));
    out[0] = w, out[1] = h, out[2] = d, out[3] = levels, out[4] = sw, out[5] = sh;
}

// Surfaces: out(x, y) = in(x, y) * 2 + 1 through surf2Dread/surf2Dwrite (x in bytes).
extern "C" __global__ void s2d_float(cudaSurfaceObject_t in, cudaSurfaceObject_t out, int w, int h) {
    int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y;
    if (x < w && y < h) surf2Dwrite(surf2Dread<float>(in, x * 4, y) * 2.0f + 1.0f, out, x * 4, y);
}

extern "C" __global__ void s2d_uchar4(cudaSurfaceObject_t s, int w, int h) {
    int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y;
    if (x < w && y < h) {
        uchar4 c = surf2Dread<uchar4>(s, x * 4, y);
        surf2Dwrite(make_uchar4(c.w, c.z, c.y, c.x), s, x * 4, y);
    }
}

// Reads at x (bytes) with the given boundary mode: 0 trap, 1 clamp, 2 zero.
extern "C" __global__ void s1d_modes(cudaSurfaceObject_t s, const int *x, int mode, int *out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    if (mode == 0) out[i] = surf1Dread<int>(s, x[i], cudaBoundaryModeTrap);
    else if (mode == 1) out[i] = surf1Dread<int>(s, x[i], cudaBoundaryModeClamp);
    else out[i] = surf1Dread<int>(s, x[i], cudaBoundaryModeZero);
}

extern "C" __global__ void s1d_write_zero(cudaSurfaceObject_t s, const int *x, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) surf1Dwrite<int>(1000 + i, s, x[i], cudaBoundaryModeZero);
}

extern "C" __global__ void s3d_layered(cudaSurfaceObject_t vol, cudaSurfaceObject_t lay, int w, int h, int d) {
    int x = threadIdx.x, y = threadIdx.y, z = blockIdx.x;
    if (x < w && y < h && z < d) {
        short2 v = surf3Dread<short2>(vol, x * 4, y, z);
        surf2DLayeredwrite(make_short2(v.y, v.x), lay, x * 4, y, z);
    }
}

extern "C" __global__ void s_cubemap(cudaSurfaceObject_t s, int w) {
    int x = threadIdx.x, y = threadIdx.y, face = blockIdx.x;
    if (x < w && y < w) surfCubemapwrite<float>(surfCubemapread<float>(s, x * 4, y, face) + 100.0f * face, s, x * 4, y, face);
}
