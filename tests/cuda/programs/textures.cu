// CUDA arrays, texture and surface objects through the Runtime, as image codes use them. The test
// (tests/e2e/test_textures.py) writes the texels and the coordinates to IN and compares what the
// kernels fetched, written to OUT, with references of its own:
//   textures sample KIND IN OUT   KIND: array2d, pitch2d, layered, cubemap, tex3d -- every address
//                                 mode x filter mode x coordinate kind (unnormalised, normalised), in
//                                 that order (a cubemap: every address mode, point, normalised)
//   textures linear IN OUT        tex1Dfetch over linear memory (out of range: zeros)
//   textures mipmap IN OUT        tex2DLod over a mipmapped array, point then linear mipmap filtering
//   textures surface IN OUT       surf2Dwrite of 2*t+1 for every texel t, surf2Dread of the border modes
//   textures uchar4 IN OUT        a uchar4 array (texels: 4 values 0..255 each) read as normalised floats
//                                 (point, linear, sRGB) and as its elements: float4 per sample, in that order
// and, checking themselves against the host data:
//   textures copies               every copy to and from arrays (2D, 3D, linear forms, async, device)
//   textures graph                an array copy node (host -> array) and a kernel node reading it
//   textures errors               impossible formats, copies past an extent, unknown handles
//   textures stale                a kernel reading a destroyed texture object (a fault on the sim;
//                                 undefined on a GPU, where an H200 returned cudaSuccess)
// IN: int32 W, H, D, n; float texels[W*H*max(D,1)] (mipmap: every level's, level after level);
// float x[n], y[n], z[n].
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>
#include <cuda_runtime.h>
#include "check.h"

struct Input {
    int W = 0, H = 0, D = 0, n = 0;
    std::vector<float> texels, x, y, z;
};

static bool read_input(const char *path, Input &in, size_t texels) {
    FILE *f = fopen(path, "rb");
    if (!f) return false;
    int hdr[4];
    bool ok = fread(hdr, sizeof hdr, 1, f) == 1;
    if (ok) {
        in.W = hdr[0], in.H = hdr[1], in.D = hdr[2], in.n = hdr[3];
        if (!texels) texels = (size_t)in.W * (in.H ? in.H : 1) * (in.D ? in.D : 1);
        in.texels.resize(texels), in.x.resize(in.n), in.y.resize(in.n), in.z.resize(in.n);
        ok = fread(in.texels.data(), 4, texels, f) == texels && fread(in.x.data(), 4, in.n, f) == (size_t)in.n &&
             fread(in.y.data(), 4, in.n, f) == (size_t)in.n && fread(in.z.data(), 4, in.n, f) == (size_t)in.n;
    }
    fclose(f);
    return ok;
}

static bool write_output(const char *path, const std::vector<float> &v) {
    FILE *f = fopen(path, "wb");
    if (!f) return false;
    bool ok = fwrite(v.data(), 4, v.size(), f) == v.size();
    return fclose(f) == 0 && ok;
}

enum Kind { ARRAY2D, PITCH2D, LAYERED, CUBEMAP, TEX3D };

// Coordinates are given normalised; (sx, sy, sz) scale them to texels for unnormalised sampling.
__global__ void fetch(cudaTextureObject_t t, int kind, const float *x, const float *y, const float *z, float sx,
                      float sy, float sz, float *out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float v, u = x[i] * sx, w = y[i] * sy;
    switch (kind) {
    case LAYERED: v = tex2DLayered<float>(t, u, w, (int)z[i]); break;
    case CUBEMAP: v = texCubemap<float>(t, x[i], y[i], z[i]); break;
    case TEX3D: v = tex3D<float>(t, u, w, z[i] * sz); break;
    default: v = tex2D<float>(t, u, w);
    }
    out[i] = v;
}

__global__ void fetch_linear(cudaTextureObject_t t, const float *x, float *out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = tex1Dfetch<float>(t, (int)x[i]);
}

__global__ void fetch_lod(cudaTextureObject_t t, const float *x, const float *y, const float *lod, float *out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = tex2DLod<float>(t, x[i], y[i], lod[i]);
}

__global__ void surface_write(cudaSurfaceObject_t s, cudaTextureObject_t src, int W, int H) {
    int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y;
    if (x < W && y < H) surf2Dwrite(2.0f * tex2D<float>(src, x + 0.5f, y + 0.5f) + 1.0f, s, x * 4, y);
}

// Reads at (x, y) in elements, one lane with zero boundary mode and one with clamp
__global__ void surface_read(cudaSurfaceObject_t s, const float *x, const float *y, float *out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    out[2 * i] = surf2Dread<float>(s, (int)x[i] * 4, (int)y[i], cudaBoundaryModeZero);
    out[2 * i + 1] = surf2Dread<float>(s, (int)x[i] * 4, (int)y[i], cudaBoundaryModeClamp);
}

__global__ void fetch4(cudaTextureObject_t t, int as_elements, const float *x, const float *y, float4 *out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    if (as_elements) {
        uchar4 v = tex2D<uchar4>(t, x[i], y[i]);
        out[i] = make_float4(v.x, v.y, v.z, v.w);
    } else {
        out[i] = tex2D<float4>(t, x[i], y[i]);
    }
}

struct Device {
    float *x = nullptr, *y = nullptr, *z = nullptr, *out = nullptr;
    int n = 0;
    int put(const Input &in, int outs = 1) {
        n = in.n;
        size_t b = (size_t)n * 4;
        CHECK(cudaMalloc(&x, b));
        CHECK(cudaMalloc(&y, b));
        CHECK(cudaMalloc(&z, b));
        CHECK(cudaMalloc(&out, b * outs));
        CHECK(cudaMemcpy(x, in.x.data(), b, cudaMemcpyHostToDevice));
        CHECK(cudaMemcpy(y, in.y.data(), b, cudaMemcpyHostToDevice));
        CHECK(cudaMemcpy(z, in.z.data(), b, cudaMemcpyHostToDevice));
        return 0;
    }
};

static int sample(const char *kind_name, const Input &in, std::vector<float> &results) {
    std::string k = kind_name;
    Kind kind = k == "pitch2d" ? PITCH2D : k == "layered" ? LAYERED : k == "cubemap" ? CUBEMAP
              : k == "tex3d" ? TEX3D : ARRAY2D;
    const int W = in.W, H = in.H, D = in.D;
    cudaChannelFormatDesc ch = cudaCreateChannelDesc<float>();
    cudaResourceDesc res = {};
    cudaArray_t arr = nullptr;
    void *pitched = nullptr;
    if (kind == PITCH2D) {
        size_t pitch;
        CHECK(cudaMallocPitch(&pitched, &pitch, W * 4, H));
        CHECK(cudaMemcpy2D(pitched, pitch, in.texels.data(), W * 4, W * 4, H, cudaMemcpyHostToDevice));
        res.resType = cudaResourceTypePitch2D;
        res.res.pitch2D.devPtr = pitched;
        res.res.pitch2D.desc = ch;
        res.res.pitch2D.width = W, res.res.pitch2D.height = H, res.res.pitch2D.pitchInBytes = pitch;
    } else if (kind == ARRAY2D) {
        CHECK(cudaMallocArray(&arr, &ch, W, H));
        CHECK(cudaMemcpy2DToArray(arr, 0, 0, in.texels.data(), W * 4, W * 4, H, cudaMemcpyHostToDevice));
        cudaChannelFormatDesc got;
        cudaExtent ext;
        unsigned flags;
        CHECK(cudaArrayGetInfo(&got, &ext, &flags, arr));
        EXPECT(got.x == 32 && got.y == 0 && got.f == cudaChannelFormatKindFloat);
        EXPECT(ext.width == (size_t)W && ext.height == (size_t)H && ext.depth == 0 && flags == 0);
        res.resType = cudaResourceTypeArray;
        res.res.array.array = arr;
    } else {
        unsigned flags = kind == LAYERED ? cudaArrayLayered : kind == CUBEMAP ? cudaArrayCubemap : 0;
        cudaExtent ext = make_cudaExtent(W, H, D);
        CHECK(cudaMalloc3DArray(&arr, &ch, ext, flags));
        cudaChannelFormatDesc got;
        cudaExtent back;
        unsigned back_flags;
        CHECK(cudaArrayGetInfo(&got, &back, &back_flags, arr));
        EXPECT(back.width == (size_t)W && back.height == (size_t)H && back.depth == (size_t)D && back_flags == flags);
        cudaMemcpy3DParms p = {};
        p.srcPtr = make_cudaPitchedPtr((void *)in.texels.data(), W * 4, W, H);
        p.dstArray = arr;
        p.extent = ext;
        p.kind = cudaMemcpyHostToDevice;
        CHECK(cudaMemcpy3D(&p));
        res.resType = cudaResourceTypeArray;
        res.res.array.array = arr;
    }
    Device d;
    if (d.put(in)) return 1;
    std::vector<float> got(in.n);
    const int modes[] = {cudaAddressModeWrap, cudaAddressModeClamp, cudaAddressModeMirror, cudaAddressModeBorder};
    // a cubemap takes directions, and its texels are compared under point sampling only
    const int filters = kind == CUBEMAP ? 1 : 2, norms = kind == CUBEMAP ? 1 : 2;
    for (int mode : modes)
        for (int filter = 0; filter < filters; filter++)
            for (int norm = 0; norm < norms; norm++) {
                cudaTextureDesc td = {};
                for (int a = 0; a < 3; a++) td.addressMode[a] = (cudaTextureAddressMode)mode;
                td.filterMode = filter ? cudaFilterModeLinear : cudaFilterModePoint;
                td.readMode = cudaReadModeElementType;
                td.normalizedCoords = norm || kind == CUBEMAP;
                td.borderColor[0] = 0.25f;
                cudaTextureObject_t t;
                CHECK(cudaCreateTextureObject(&t, &res, &td, nullptr));
                cudaTextureDesc td_back;
                CHECK(cudaGetTextureObjectTextureDesc(&td_back, t));
                EXPECT(td_back.addressMode[0] == mode && td_back.filterMode == td.filterMode &&
                       td_back.normalizedCoords == td.normalizedCoords && td_back.borderColor[0] == 0.25f);
                cudaResourceDesc res_back;
                CHECK(cudaGetTextureObjectResourceDesc(&res_back, t));
                EXPECT(res_back.resType == res.resType);
                if (kind == PITCH2D)
                    EXPECT(res_back.res.pitch2D.devPtr == pitched && res_back.res.pitch2D.width == (size_t)W &&
                           res_back.res.pitch2D.desc.x == 32);
                else
                    EXPECT(res_back.res.array.array == arr);
                bool scale = !td.normalizedCoords;
                fetch<<<(in.n + 63) / 64, 64>>>(t, kind, d.x, d.y, d.z, scale ? W : 1.0f, scale ? H : 1.0f,
                                                scale ? D : 1.0f, d.out, in.n);
                CHECK(cudaGetLastError());
                CHECK(cudaMemcpy(got.data(), d.out, in.n * 4, cudaMemcpyDeviceToHost));
                CHECK(cudaDestroyTextureObject(t));
                results.insert(results.end(), got.begin(), got.end());
            }
    if (arr) CHECK(cudaFreeArray(arr));
    if (pitched) CHECK(cudaFree(pitched));
    return 0;
}

static int linear(const Input &in, std::vector<float> &results) {
    float *buf;
    CHECK(cudaMalloc(&buf, in.W * 4));
    CHECK(cudaMemcpy(buf, in.texels.data(), in.W * 4, cudaMemcpyHostToDevice));
    cudaResourceDesc res = {};
    res.resType = cudaResourceTypeLinear;
    res.res.linear.devPtr = buf;
    res.res.linear.desc = cudaCreateChannelDesc<float>();
    res.res.linear.sizeInBytes = in.W * 4;
    cudaTextureDesc td = {};
    td.readMode = cudaReadModeElementType;
    cudaTextureObject_t t;
    CHECK(cudaCreateTextureObject(&t, &res, &td, nullptr));
    cudaResourceDesc back;
    CHECK(cudaGetTextureObjectResourceDesc(&back, t));
    EXPECT(back.resType == cudaResourceTypeLinear && back.res.linear.devPtr == buf &&
           back.res.linear.sizeInBytes == (size_t)in.W * 4);
    Device d;
    if (d.put(in)) return 1;
    fetch_linear<<<(in.n + 63) / 64, 64>>>(t, d.x, d.out, in.n);
    CHECK(cudaGetLastError());
    results.resize(in.n);
    CHECK(cudaMemcpy(results.data(), d.out, in.n * 4, cudaMemcpyDeviceToHost));
    CHECK(cudaDestroyTextureObject(t));
    CHECK(cudaFree(buf));
    return 0;
}

static int mipmap(const Input &in, std::vector<float> &results) {
    cudaChannelFormatDesc ch = cudaCreateChannelDesc<float>();
    cudaMipmappedArray_t mip;
    const int levels = in.D;
    CHECK(cudaMallocMipmappedArray(&mip, &ch, make_cudaExtent(in.W, in.H, 0), levels));
    size_t at = 0;
    for (int l = 0; l < levels; l++) {
        cudaArray_t level;
        CHECK(cudaGetMipmappedArrayLevel(&level, mip, l));
        cudaChannelFormatDesc got;
        cudaExtent ext;
        unsigned flags;
        CHECK(cudaArrayGetInfo(&got, &ext, &flags, level));
        size_t w = ext.width, h = ext.height ? ext.height : 1;
        EXPECT(w == (size_t)std::max(in.W >> l, 1) && h == (size_t)std::max(in.H >> l, 1));
        CHECK(cudaMemcpy2DToArray(level, 0, 0, in.texels.data() + at, w * 4, w * 4, h, cudaMemcpyHostToDevice));
        at += w * h;
    }
    Device d;
    if (d.put(in)) return 1;
    std::vector<float> got(in.n);
    for (int mf = 0; mf < 2; mf++) {
        cudaResourceDesc res = {};
        res.resType = cudaResourceTypeMipmappedArray;
        res.res.mipmap.mipmap = mip;
        cudaTextureDesc td = {};
        td.addressMode[0] = td.addressMode[1] = cudaAddressModeClamp;
        td.filterMode = cudaFilterModePoint;
        td.mipmapFilterMode = mf ? cudaFilterModeLinear : cudaFilterModePoint;
        td.normalizedCoords = 1;
        td.maxMipmapLevelClamp = (float)(levels - 1);
        cudaTextureObject_t t;
        CHECK(cudaCreateTextureObject(&t, &res, &td, nullptr));
        fetch_lod<<<(in.n + 63) / 64, 64>>>(t, d.x, d.y, d.z, d.out, in.n);
        CHECK(cudaGetLastError());
        CHECK(cudaMemcpy(got.data(), d.out, in.n * 4, cudaMemcpyDeviceToHost));
        CHECK(cudaDestroyTextureObject(t));
        results.insert(results.end(), got.begin(), got.end());
    }
    CHECK(cudaFreeMipmappedArray(mip));
    return 0;
}

static int surface(const Input &in, std::vector<float> &results) {
    const int W = in.W, H = in.H;
    cudaChannelFormatDesc ch = cudaCreateChannelDesc<float>();
    cudaArray_t src, dst;
    CHECK(cudaMallocArray(&src, &ch, W, H));
    CHECK(cudaMallocArray(&dst, &ch, W, H, cudaArraySurfaceLoadStore));
    CHECK(cudaMemcpy2DToArray(src, 0, 0, in.texels.data(), W * 4, W * 4, H, cudaMemcpyHostToDevice));
    cudaResourceDesc res = {};
    res.resType = cudaResourceTypeArray;
    res.res.array.array = src;
    cudaTextureDesc td = {};
    cudaTextureObject_t t;
    CHECK(cudaCreateTextureObject(&t, &res, &td, nullptr));
    // a surface needs an array made for surfaces
    cudaSurfaceObject_t s;
    EXPECT(cudaCreateSurfaceObject(&s, &res) != cudaSuccess);
    cudaGetLastError();
    res.res.array.array = dst;
    CHECK(cudaCreateSurfaceObject(&s, &res));
    cudaResourceDesc back;
    CHECK(cudaGetSurfaceObjectResourceDesc(&back, s));
    EXPECT(back.resType == cudaResourceTypeArray && back.res.array.array == dst);
    surface_write<<<dim3((W + 31) / 32, H), 32>>>(s, t, W, H);
    CHECK(cudaGetLastError());
    std::vector<float> img(W * H);
    CHECK(cudaMemcpy2DFromArray(img.data(), W * 4, dst, 0, 0, W * 4, H, cudaMemcpyDeviceToHost));
    Device d;
    if (d.put(in, 2)) return 1;
    surface_read<<<(in.n + 63) / 64, 64>>>(s, d.x, d.y, d.out, in.n);
    CHECK(cudaGetLastError());
    std::vector<float> reads(2 * in.n);
    CHECK(cudaMemcpy(reads.data(), d.out, reads.size() * 4, cudaMemcpyDeviceToHost));
    results = img;
    results.insert(results.end(), reads.begin(), reads.end());
    CHECK(cudaDestroySurfaceObject(s));
    CHECK(cudaDestroyTextureObject(t));
    CHECK(cudaFreeArray(src));
    CHECK(cudaFreeArray(dst));
    return 0;
}

static int uchar4_formats(const Input &in, std::vector<float> &results) {
    const int W = in.W, H = in.H;
    std::vector<uchar4> texels(W * H);
    for (int i = 0; i < W * H; i++)
        texels[i] = make_uchar4(in.texels[4 * i], in.texels[4 * i + 1], in.texels[4 * i + 2], in.texels[4 * i + 3]);
    cudaChannelFormatDesc ch = cudaCreateChannelDesc<uchar4>();
    cudaArray_t arr;
    CHECK(cudaMallocArray(&arr, &ch, W, H));
    CHECK(cudaMemcpy2DToArray(arr, 0, 0, texels.data(), W * 4, W * 4, H, cudaMemcpyHostToDevice));
    cudaChannelFormatDesc got;
    cudaExtent ext;
    unsigned flags;
    CHECK(cudaArrayGetInfo(&got, &ext, &flags, arr));
    EXPECT(got.x == 8 && got.y == 8 && got.z == 8 && got.w == 8 && got.f == cudaChannelFormatKindUnsigned);
    cudaResourceDesc res = {};
    res.resType = cudaResourceTypeArray;
    res.res.array.array = arr;
    Device d;
    if (d.put(in)) return 1;
    float4 *out;
    CHECK(cudaMalloc(&out, in.n * sizeof(float4)));
    std::vector<float> got4(4 * in.n);
    for (int variant = 0; variant < 4; variant++) {  // normalised point, normalised linear, sRGB, elements
        cudaTextureDesc td = {};
        td.addressMode[0] = td.addressMode[1] = cudaAddressModeClamp;
        td.filterMode = variant == 1 ? cudaFilterModeLinear : cudaFilterModePoint;
        td.readMode = variant == 3 ? cudaReadModeElementType : cudaReadModeNormalizedFloat;
        td.sRGB = variant == 2;
        cudaTextureObject_t t;
        CHECK(cudaCreateTextureObject(&t, &res, &td, nullptr));
        cudaTextureDesc back;
        CHECK(cudaGetTextureObjectTextureDesc(&back, t));
        EXPECT(back.readMode == td.readMode && back.sRGB == td.sRGB);
        fetch4<<<(in.n + 63) / 64, 64>>>(t, variant == 3, d.x, d.y, out, in.n);
        CHECK(cudaGetLastError());
        CHECK(cudaMemcpy(got4.data(), out, got4.size() * 4, cudaMemcpyDeviceToHost));
        CHECK(cudaDestroyTextureObject(t));
        results.insert(results.end(), got4.begin(), got4.end());
    }
    CHECK(cudaFree(out));
    CHECK(cudaFreeArray(arr));
    return 0;
}

// Every copy with arrays, each checked against the host data it started from.
static int copies() {
    const int W = 13, H = 7, D = 3;
    std::vector<float> host(W * H * D), back(W * H * D, -1.0f);
    for (size_t i = 0; i < host.size(); i++) host[i] = (float)i * 0.5f;
    cudaChannelFormatDesc ch = cudaCreateChannelDesc<float>();
    cudaArray_t a2, b2, a3;
    CHECK(cudaMallocArray(&a2, &ch, W, H));
    CHECK(cudaMallocArray(&b2, &ch, W, H));
    CHECK(cudaMalloc3DArray(&a3, &ch, make_cudaExtent(W, H, D)));

    // 2D host -> array, a sub-rectangle array -> host
    CHECK(cudaMemcpy2DToArray(a2, 0, 0, host.data(), W * 4, W * 4, H, cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy2DFromArray(back.data(), 5 * 4, a2, 2 * 4, 3, 5 * 4, 4, cudaMemcpyDeviceToHost));
    for (int y = 0; y < 4; y++)
        for (int x = 0; x < 5; x++) EXPECT(back[y * 5 + x] == host[(y + 3) * W + x + 2]);

    // array -> array (2D), then the linear forms: bytes from (wOffset, hOffset) on
    CHECK(cudaMemcpy2DArrayToArray(b2, 0, 0, a2, 0, 0, W * 4, H, cudaMemcpyDeviceToDevice));
    std::fill(back.begin(), back.end(), -1.0f);
    CHECK(cudaMemcpy2DFromArray(back.data(), W * 4, b2, 0, 0, W * 4, H, cudaMemcpyDeviceToHost));
    EXPECT(memcmp(back.data(), host.data(), W * H * 4) == 0);
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
    std::fill(back.begin(), back.end(), -1.0f);
    CHECK(cudaMemcpyFromArray(back.data(), a2, 3 * 4, 1, (2 * W + 4) * 4, cudaMemcpyDeviceToHost));
    for (int i = 0; i < 2 * W + 4; i++) EXPECT(back[i] == host[W + 3 + i]);
    CHECK(cudaMemcpyToArray(b2, 0, 2, host.data() + 100, W * 4, cudaMemcpyHostToDevice));
#pragma GCC diagnostic pop
    std::fill(back.begin(), back.end(), -1.0f);
    CHECK(cudaMemcpy2DFromArray(back.data(), W * 4, b2, 0, 0, W * 4, H, cudaMemcpyDeviceToHost));
    for (int i = 0; i < W * H; i++) EXPECT(back[i] == (i / W == 2 ? host[100 + i % W] : host[i]));

    // device <-> array, async on a stream
    cudaStream_t st;
    CHECK(cudaStreamCreate(&st));
    float *dev;
    size_t pitch;
    CHECK(cudaMallocPitch((void **)&dev, &pitch, W * 4, H));
    CHECK(cudaMemcpy2DFromArrayAsync(dev, pitch, a2, 0, 0, W * 4, H, cudaMemcpyDeviceToDevice, st));
    CHECK(cudaMemcpy2DToArrayAsync(b2, 4, 0, dev, pitch, (W - 1) * 4, H, cudaMemcpyDeviceToDevice, st));
    std::fill(back.begin(), back.end(), -1.0f);
    CHECK(cudaMemcpy2DFromArrayAsync(back.data(), W * 4, b2, 0, 0, W * 4, H, cudaMemcpyDeviceToHost, st));
    CHECK(cudaStreamSynchronize(st));
    for (int y = 0; y < H; y++) {
        EXPECT(back[y * W] == (y == 2 ? host[100] : host[y * W]));  // column 0 as cudaMemcpyToArray left it
        for (int x = 1; x < W; x++) EXPECT(back[y * W + x] == host[y * W + x - 1]);
    }

    // 3D: host -> a box of the 3D array, the whole volume back through pitched device memory
    cudaMemcpy3DParms p = {};
    p.srcPtr = make_cudaPitchedPtr(host.data(), W * 4, W, H);
    p.dstArray = a3;
    p.extent = make_cudaExtent(W, H, D);
    p.kind = cudaMemcpyHostToDevice;
    CHECK(cudaMemcpy3D(&p));
    cudaPitchedPtr vol;
    CHECK(cudaMalloc3D(&vol, make_cudaExtent(W * 4, H, D)));
    cudaMemcpy3DParms q = {};
    q.srcArray = a3;
    q.srcPos = make_cudaPos(1, 2, 1);
    q.dstPtr = vol;
    q.extent = make_cudaExtent(W - 1, H - 2, D - 1);
    q.kind = cudaMemcpyDeviceToDevice;
    CHECK(cudaMemcpy3DAsync(&q, st));
    cudaMemcpy3DParms r = {};
    r.srcPtr = vol;
    r.dstPtr = make_cudaPitchedPtr(back.data(), W * 4, W, H);
    r.extent = make_cudaExtent(W * 4, H, D);
    r.kind = cudaMemcpyDeviceToHost;
    std::fill(back.begin(), back.end(), -1.0f);
    CHECK(cudaMemcpy3DAsync(&r, st));
    CHECK(cudaStreamSynchronize(st));
    for (int z = 0; z < D - 1; z++)
        for (int y = 0; y < H - 2; y++)
            for (int x = 0; x < W - 1; x++)
                EXPECT(back[(z * H + y) * W + x] == host[((z + 1) * H + y + 2) * W + x + 1]);
    CHECK(cudaFree(vol.ptr));
    CHECK(cudaFree(dev));
    CHECK(cudaStreamDestroy(st));
    CHECK(cudaFreeArray(a2));
    CHECK(cudaFreeArray(b2));
    CHECK(cudaFreeArray(a3));
    return 0;
}

static int graph() {
    const int W = 16, H = 4;
    std::vector<float> host(W * H), back(W * H);
    for (int i = 0; i < W * H; i++) host[i] = 3.0f * i;
    cudaChannelFormatDesc ch = cudaCreateChannelDesc<float>();
    cudaArray_t arr;
    CHECK(cudaMallocArray(&arr, &ch, W, H));
    cudaGraph_t g;
    CHECK(cudaGraphCreate(&g, 0));
    cudaMemcpy3DParms p = {};
    p.srcPtr = make_cudaPitchedPtr(host.data(), W * 4, W, H);
    p.dstArray = arr;
    p.extent = make_cudaExtent(W, H, 1);
    p.kind = cudaMemcpyHostToDevice;
    cudaGraphNode_t to_array, from_array;
    CHECK(cudaGraphAddMemcpyNode(&to_array, g, nullptr, 0, &p));
    cudaMemcpy3DParms back_p = {};
    CHECK(cudaGraphMemcpyNodeGetParams(to_array, &back_p));
    EXPECT(back_p.dstArray == arr && back_p.extent.width == (size_t)W && back_p.srcPtr.ptr == host.data());
    cudaMemcpy3DParms q = {};
    q.srcArray = arr;
    q.dstPtr = make_cudaPitchedPtr(back.data(), W * 4, W, H);
    q.extent = make_cudaExtent(W, H, 1);
    q.kind = cudaMemcpyDeviceToHost;
    CHECK(cudaGraphAddMemcpyNode(&from_array, g, &to_array, 1, &q));
    cudaGraphExec_t ex;
    CHECK(cudaGraphInstantiate(&ex, g, 0));
    for (int round = 0; round < 3; round++) {
        for (int i = 0; i < W * H; i++) host[i] = 3.0f * i + round;  // fresh host data every launch
        std::fill(back.begin(), back.end(), -1.0f);
        CHECK(cudaGraphLaunch(ex, 0));
        CHECK(cudaStreamSynchronize(0));
        EXPECT(memcmp(back.data(), host.data(), W * H * 4) == 0);
    }
    // a captured copy to an array becomes a node too
    cudaStream_t s;
    CHECK(cudaStreamCreate(&s));
    cudaGraph_t captured;
    CHECK(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal));
    CHECK(cudaMemcpy2DToArrayAsync(arr, 0, 0, host.data(), W * 4, W * 4, H, cudaMemcpyHostToDevice, s));
    CHECK(cudaStreamEndCapture(s, &captured));
    size_t nodes = 0;
    CHECK(cudaGraphGetNodes(captured, nullptr, &nodes));
    EXPECT(nodes == 1);
    for (int i = 0; i < W * H; i++) host[i] = -7.0f * i;
    cudaGraphExec_t ex2;
    CHECK(cudaGraphInstantiate(&ex2, captured, 0));
    CHECK(cudaGraphLaunch(ex2, s));
    CHECK(cudaStreamSynchronize(s));
    CHECK(cudaMemcpy2DFromArray(back.data(), W * 4, arr, 0, 0, W * 4, H, cudaMemcpyDeviceToHost));
    EXPECT(memcmp(back.data(), host.data(), W * H * 4) == 0);
    CHECK(cudaGraphExecDestroy(ex));
    CHECK(cudaGraphExecDestroy(ex2));
    CHECK(cudaGraphDestroy(g));
    CHECK(cudaGraphDestroy(captured));
    CHECK(cudaFreeArray(arr));
    printf("graph nodes replayed\n");
    return 0;
}

#define EXPECT_ERR(call, want)                                                                     \
    do {                                                                                           \
        cudaError_t e_ = (call);                                                                   \
        if (e_ != (want)) {                                                                        \
            printf("FAIL %s:%d %s -> %d %s, wanted %s\n", __FILE__, __LINE__, #call, (int)e_,      \
                   cudaGetErrorName(e_), cudaGetErrorName(want));                                  \
            return 1;                                                                              \
        }                                                                                          \
        cudaGetLastError();                                                                        \
        printf("refused %s: %s\n", #call, cudaGetErrorName(e_));                                   \
    } while (0)

static int errors() {
    cudaArray_t arr;
    // impossible formats: 3 channels; 24-bit channels; a float of 16 bits is half, of 8 none
    cudaChannelFormatDesc three = cudaCreateChannelDesc(32, 32, 32, 0, cudaChannelFormatKindFloat);
    EXPECT_ERR(cudaMallocArray(&arr, &three, 8, 8), cudaErrorInvalidChannelDescriptor);
    cudaChannelFormatDesc odd = cudaCreateChannelDesc(24, 0, 0, 0, cudaChannelFormatKindUnsigned);
    EXPECT_ERR(cudaMallocArray(&arr, &odd, 8, 8), cudaErrorInvalidChannelDescriptor);
    cudaChannelFormatDesc f8 = cudaCreateChannelDesc(8, 0, 0, 0, cudaChannelFormatKindFloat);
    EXPECT_ERR(cudaMallocArray(&arr, &f8, 8, 8), cudaErrorInvalidChannelDescriptor);
    cudaChannelFormatDesc ch = cudaCreateChannelDesc<float>();
    // a cubemap is square and of 6 faces per layer; an extent past the device's
    EXPECT_ERR(cudaMalloc3DArray(&arr, &ch, make_cudaExtent(8, 4, 6), cudaArrayCubemap), cudaErrorInvalidValue);
    EXPECT_ERR(cudaMalloc3DArray(&arr, &ch, make_cudaExtent(8, 8, 5), cudaArrayCubemap), cudaErrorInvalidValue);
    EXPECT_ERR(cudaMallocArray(&arr, &ch, 1 << 30, 1 << 20), cudaErrorInvalidValue);

    const int W = 8, H = 4;
    std::vector<float> host(64 * 64);
    CHECK(cudaMallocArray(&arr, &ch, W, H));
    // copies past the extent, misaligned to elements
    EXPECT_ERR(cudaMemcpy2DToArray(arr, 0, 0, host.data(), (W + 1) * 4, (W + 1) * 4, H, cudaMemcpyHostToDevice),
               cudaErrorInvalidValue);
    EXPECT_ERR(cudaMemcpy2DToArray(arr, 4, 2, host.data(), W * 4, W * 4, 3, cudaMemcpyHostToDevice),
               cudaErrorInvalidValue);
    EXPECT_ERR(cudaMemcpy2DFromArray(host.data(), W * 4, arr, 2, 0, 4, 1, cudaMemcpyDeviceToHost),
               cudaErrorInvalidValue);
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
    EXPECT_ERR(cudaMemcpyToArray(arr, 0, H - 1, host.data(), 2 * W * 4, cudaMemcpyHostToDevice),
               cudaErrorInvalidValue);
#pragma GCC diagnostic pop
    // a handle that is no array of this process
    cudaArray_t bogus = (cudaArray_t)(uintptr_t)0x5eed0000;
    EXPECT_ERR(cudaMemcpy2DToArray(bogus, 0, 0, host.data(), 4, 4, 1, cudaMemcpyHostToDevice),
               cudaErrorInvalidResourceHandle);
    cudaChannelFormatDesc got;
    cudaExtent ext;
    unsigned flags;
    EXPECT_ERR(cudaArrayGetInfo(&got, &ext, &flags, bogus), cudaErrorInvalidResourceHandle);
    cudaResourceDesc res = {};
    res.resType = cudaResourceTypeArray;
    res.res.array.array = bogus;
    cudaTextureDesc td = {};
    cudaTextureObject_t t;
    EXPECT_ERR(cudaCreateTextureObject(&t, &res, &td, nullptr), cudaErrorInvalidResourceHandle);
    // linear filtering of an integer format read as integers; a texture of a freed array
    cudaArray_t ints;
    cudaChannelFormatDesc ich = cudaCreateChannelDesc<int>();
    CHECK(cudaMallocArray(&ints, &ich, W, H));
    res.res.array.array = ints;
    td.filterMode = cudaFilterModeLinear;
    td.readMode = cudaReadModeElementType;
    EXPECT_ERR(cudaCreateTextureObject(&t, &res, &td, nullptr), cudaErrorInvalidValue);
    // a pitched texture of a pitch that is not aligned
    float *dev;
    CHECK(cudaMalloc(&dev, 64 * 64 * 4));
    res = {};
    res.resType = cudaResourceTypePitch2D;
    res.res.pitch2D.devPtr = dev;
    res.res.pitch2D.desc = ch;
    res.res.pitch2D.width = 10, res.res.pitch2D.height = 10, res.res.pitch2D.pitchInBytes = 44;
    td = {};
    EXPECT_ERR(cudaCreateTextureObject(&t, &res, &td, nullptr), cudaErrorInvalidValue);
    CHECK(cudaFreeArray(ints));
    res = {};
    res.resType = cudaResourceTypeArray;
    res.res.array.array = ints;
    EXPECT_ERR(cudaCreateTextureObject(&t, &res, &td, nullptr), cudaErrorInvalidResourceHandle);
    // objects that were never made / already destroyed
    EXPECT_ERR(cudaDestroyTextureObject((cudaTextureObject_t)0x123456), cudaErrorInvalidValue);
    res.res.array.array = arr;
    CHECK(cudaCreateTextureObject(&t, &res, &td, nullptr));
    CHECK(cudaDestroyTextureObject(t));
    EXPECT_ERR(cudaDestroyTextureObject(t), cudaErrorInvalidValue);
    EXPECT_ERR(cudaGetTextureObjectTextureDesc(&td, t), cudaErrorInvalidValue);
    EXPECT_ERR(cudaFreeArray(bogus), cudaErrorInvalidResourceHandle);
    // the session still works
    CHECK(cudaMemcpy2DToArray(arr, 0, 0, host.data(), W * 4, W * 4, H, cudaMemcpyHostToDevice));
    CHECK(cudaFreeArray(arr));
    CHECK(cudaFree(dev));
    return 0;
}

static int stale() {
    cudaChannelFormatDesc ch = cudaCreateChannelDesc<float>();
    cudaArray_t arr;
    CHECK(cudaMallocArray(&arr, &ch, 8, 8));
    cudaResourceDesc res = {};
    res.resType = cudaResourceTypeArray;
    res.res.array.array = arr;
    cudaTextureDesc td = {};
    cudaTextureObject_t t;
    CHECK(cudaCreateTextureObject(&t, &res, &td, nullptr));
    CHECK(cudaDestroyTextureObject(t));
    float *x, *out;
    CHECK(cudaMalloc(&x, 256));
    CHECK(cudaMalloc(&out, 256));
    CHECK(cudaMemset(x, 0, 256));
    fetch<<<1, 32>>>(t, ARRAY2D, x, x, x, 1.0f, 1.0f, 1.0f, out, 32);
    cudaError_t e = cudaDeviceSynchronize();
    printf("stale texture: %s\n", cudaGetErrorName(e));
    return e == cudaSuccess;
}

int main(int argc, char **argv) {
    if (argc < 2) return 2;
    std::string mode = argv[1];
    if (mode == "copies") {
        if (copies()) return 1;
    } else if (mode == "graph") {
        if (graph()) return 1;
    } else if (mode == "errors") {
        if (errors()) return 1;
    } else if (mode == "stale") {
        if (stale()) return 1;
    } else {
        bool s = mode == "sample";
        const char *in_path = argv[s ? 3 : 2], *out_path = argv[s ? 4 : 3];
        if (argc < (s ? 5 : 4)) return 2;
        Input in;
        size_t texels = 0;
        if (mode == "uchar4") {
            FILE *f = fopen(in_path, "rb");
            int hdr[4] = {0};
            if (!f || fread(hdr, sizeof hdr, 1, f) != 1) return 2;
            fclose(f);
            texels = (size_t)hdr[0] * hdr[1] * 4;
        } else if (mode == "mipmap") {
            FILE *f = fopen(in_path, "rb");
            int hdr[4] = {0};
            if (!f || fread(hdr, sizeof hdr, 1, f) != 1) return 2;
            fclose(f);
            for (int l = 0; l < hdr[2]; l++) texels += (size_t)std::max(hdr[0] >> l, 1) * std::max(hdr[1] >> l, 1);
        }
        if (!read_input(in_path, in, texels)) {
            printf("FAIL reading %s\n", in_path);
            return 2;
        }
        std::vector<float> results;
        int rc = s ? sample(argv[2], in, results) : mode == "linear" ? linear(in, results)
               : mode == "mipmap" ? mipmap(in, results) : mode == "surface" ? surface(in, results)
               : mode == "uchar4" ? uchar4_formats(in, results) : 2;
        if (rc) return rc;
        if (!write_output(out_path, results)) return 2;
    }
    printf("OK textures %s\n", mode.c_str());
    return 0;
}
