// CUDA arrays, texture and surface objects through the Driver API: cuArrayCreate / cuArray3DCreate
// (layered, cubemap, surface flags) and their descriptors, cuMemcpy2D / cuMemcpy3D with
// CU_MEMORYTYPE_ARRAY on either side (sync and async), the linear forms (HtoA, AtoH, DtoA, AtoD, AtoA),
// mipmapped arrays and their levels, cuTexObjectCreate / cuSurfObjectCreate and their Get*Desc, a
// kernel sampling the texture object by value, and the Driver's error codes for bad input.
//   driver_arrays [copy]   copy: no kernel samples the texture (a driver that runs none: the null driver)
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <vector>
#include <cuda.h>

#include "driver_check.h"

__global__ void read_tex(CUtexObject t, float *out, int W, int H) {
    int x = threadIdx.x, y = blockIdx.x;
    if (x < W && y < H) out[y * W + x] = tex2D<float>(t, x + 0.5f, y + 0.5f) + 0.5f;
}

#define EXPECT_RC(call, want)                                                                      \
    do {                                                                                           \
        CUresult r_ = (call);                                                                      \
        if (r_ != (want)) { printf("FAIL %s:%d %s -> %d, wanted %d\n", __FILE__, __LINE__, #call, \
                                   (int)r_, (int)(want)); return 1; }                              \
    } while (0)

int main(int argc, char **argv) {
    const bool copies_only = argc > 1 && !strcmp(argv[1], "copy");
    CK(cuInit(0));
    CUdevice dev;
    CUcontext ctx;
    CK(cuDeviceGet(&dev, 0));
    CK(cuCtxCreate(&ctx, nullptr, 0, dev));
    const size_t W = 11, H = 6, D = 4;
    std::vector<float> host(W * H * D), back(W * H * D);
    for (size_t i = 0; i < host.size(); i++) host[i] = (float)i + 0.25f;

    // a 2D array and its descriptor
    CUDA_ARRAY_DESCRIPTOR ad = {};
    ad.Width = W, ad.Height = H, ad.Format = CU_AD_FORMAT_FLOAT, ad.NumChannels = 1;
    CUarray a2;
    CK(cuArrayCreate(&a2, &ad));
    CUDA_ARRAY_DESCRIPTOR ad_back;
    CK(cuArrayGetDescriptor(&ad_back, a2));
    EXPECT(ad_back.Width == W && ad_back.Height == H && ad_back.Format == CU_AD_FORMAT_FLOAT &&
           ad_back.NumChannels == 1);

    // host -> array with cuMemcpy2D, array -> device -> host
    CUDA_MEMCPY2D c = {};
    c.srcMemoryType = CU_MEMORYTYPE_HOST, c.srcHost = host.data(), c.srcPitch = W * 4;
    c.dstMemoryType = CU_MEMORYTYPE_ARRAY, c.dstArray = a2;
    c.WidthInBytes = W * 4, c.Height = H;
    CK(cuMemcpy2D(&c));
    CUdeviceptr d;
    size_t pitch;
    CK(cuMemAllocPitch(&d, &pitch, W * 4, H, 4));
    c = {};
    c.srcMemoryType = CU_MEMORYTYPE_ARRAY, c.srcArray = a2, c.srcXInBytes = 4, c.srcY = 1;
    c.dstMemoryType = CU_MEMORYTYPE_DEVICE, c.dstDevice = d, c.dstPitch = pitch;
    c.WidthInBytes = (W - 1) * 4, c.Height = H - 1;
    CK(cuMemcpy2D(&c));
    c = {};
    c.srcMemoryType = CU_MEMORYTYPE_DEVICE, c.srcDevice = d, c.srcPitch = pitch;
    c.dstMemoryType = CU_MEMORYTYPE_HOST, c.dstHost = back.data(), c.dstPitch = W * 4;
    c.WidthInBytes = (W - 1) * 4, c.Height = H - 1;
    CK(cuMemcpy2D(&c));
    for (size_t y = 0; y + 1 < H; y++)
        for (size_t x = 0; x + 1 < W; x++) EXPECT(back[y * W + x] == host[(y + 1) * W + x + 1]);

    // the linear forms: bytes of the array in row-major order
    std::fill(back.begin(), back.end(), -1.0f);
    CK(cuMemcpyAtoH(back.data(), a2, 3 * 4, (W + 2) * 4));
    for (size_t i = 0; i < W + 2; i++) EXPECT(back[i] == host[3 + i]);
    CK(cuMemcpyHtoA(a2, W * 4, host.data() + 200, W * 4));  // row 1 from host[200...]
    CUarray b2;
    CK(cuArrayCreate(&b2, &ad));
    CK(cuMemcpyAtoA(b2, 0, a2, 0, W * H * 4));
    CUdeviceptr lin;
    CK(cuMemAlloc(&lin, W * H * 4));
    CK(cuMemcpyAtoD(lin, b2, 0, W * H * 4));
    CK(cuMemcpyDtoA(a2, 0, lin + W * 4, W * 4));  // row 0 := row 1
    std::fill(back.begin(), back.end(), -1.0f);
    CK(cuMemcpyAtoH(back.data(), a2, 0, W * H * 4));
    for (size_t i = 0; i < W * H; i++) {
        size_t y = i / W, x = i % W;
        float want = y <= 1 ? host[200 + x] : host[i];
        EXPECT(back[i] == want);
    }

    // a texture object over it, sampled by a kernel that receives the object by value
    CUDA_RESOURCE_DESC rd = {};
    rd.resType = CU_RESOURCE_TYPE_ARRAY;
    rd.res.array.hArray = a2;
    CUDA_TEXTURE_DESC td = {};
    td.addressMode[0] = td.addressMode[1] = CU_TR_ADDRESS_MODE_CLAMP;
    td.filterMode = CU_TR_FILTER_MODE_POINT;
    CUtexObject tex;
    CK(cuTexObjectCreate(&tex, &rd, &td, nullptr));
    CUDA_RESOURCE_DESC rd_back;
    CK(cuTexObjectGetResourceDesc(&rd_back, tex));
    EXPECT(rd_back.resType == CU_RESOURCE_TYPE_ARRAY && rd_back.res.array.hArray == a2);
    CUDA_TEXTURE_DESC td_back;
    CK(cuTexObjectGetTextureDesc(&td_back, tex));
    EXPECT(td_back.addressMode[1] == CU_TR_ADDRESS_MODE_CLAMP && td_back.filterMode == CU_TR_FILTER_MODE_POINT);
    if (!copies_only) {
        read_tex<<<H, 32>>>(tex, (float *)lin, W, H);
        CK(cuCtxSynchronize());
        std::vector<float> img(W * H);
        CK(cuMemcpyDtoH(img.data(), lin, W * H * 4));
        for (size_t i = 0; i < W * H; i++) EXPECT(img[i] == back[i] + 0.5f);
    }
    CK(cuTexObjectDestroy(tex));

    // 3D arrays: layered, cubemap, surface; cuMemcpy3D both ways, async
    CUDA_ARRAY3D_DESCRIPTOR a3d = {};
    a3d.Width = W, a3d.Height = H, a3d.Depth = D, a3d.Format = CU_AD_FORMAT_FLOAT, a3d.NumChannels = 1;
    a3d.Flags = CUDA_ARRAY3D_LAYERED | CUDA_ARRAY3D_SURFACE_LDST;
    CUarray a3;
    CK(cuArray3DCreate(&a3, &a3d));
    CUDA_ARRAY3D_DESCRIPTOR a3d_back;
    CK(cuArray3DGetDescriptor(&a3d_back, a3));
    EXPECT(a3d_back.Depth == D && a3d_back.Flags == a3d.Flags);
    EXPECT_RC(cuArrayGetDescriptor(&ad_back, a3), CUDA_ERROR_INVALID_VALUE);  // a layered array has no 2D one
    CUDA_MEMCPY3D m = {};
    m.srcMemoryType = CU_MEMORYTYPE_HOST, m.srcHost = host.data(), m.srcPitch = W * 4, m.srcHeight = H;
    m.dstMemoryType = CU_MEMORYTYPE_ARRAY, m.dstArray = a3;
    m.WidthInBytes = W * 4, m.Height = H, m.Depth = D;
    CK(cuMemcpy3D(&m));
    CUstream st;
    CK(cuStreamCreate(&st, 0));
    m = {};
    m.srcMemoryType = CU_MEMORYTYPE_ARRAY, m.srcArray = a3, m.srcXInBytes = 8, m.srcY = 2, m.srcZ = 1;
    m.dstMemoryType = CU_MEMORYTYPE_HOST, m.dstHost = back.data(), m.dstPitch = W * 4, m.dstHeight = H;
    m.WidthInBytes = (W - 2) * 4, m.Height = H - 2, m.Depth = D - 1;
    std::fill(back.begin(), back.end(), -1.0f);
    CK(cuMemcpy3DAsync(&m, st));
    CK(cuStreamSynchronize(st));
    for (size_t z = 0; z + 1 < D; z++)
        for (size_t y = 0; y + 2 < H; y++)
            for (size_t x = 0; x + 2 < W; x++)
                EXPECT(back[(z * H + y) * W + x] == host[((z + 1) * H + y + 2) * W + x + 2]);
    CUsurfObject surf;
    rd.res.array.hArray = a3;
    CK(cuSurfObjectCreate(&surf, &rd));
    CK(cuSurfObjectGetResourceDesc(&rd_back, surf));
    EXPECT(rd_back.res.array.hArray == a3);
    CK(cuSurfObjectDestroy(surf));

    CUDA_ARRAY3D_DESCRIPTOR cube = {};
    cube.Width = cube.Height = 8, cube.Depth = 6, cube.Format = CU_AD_FORMAT_UNSIGNED_INT8, cube.NumChannels = 4;
    cube.Flags = CUDA_ARRAY3D_CUBEMAP;
    CUarray ac;
    CK(cuArray3DCreate(&ac, &cube));
    CK(cuArrayDestroy(ac));

    // mipmapped arrays: levels halve, the same handle for a level each time
    CUmipmappedArray mip;
    a3d = {};
    a3d.Width = 16, a3d.Height = 4, a3d.Format = CU_AD_FORMAT_HALF, a3d.NumChannels = 2;
    CK(cuMipmappedArrayCreate(&mip, &a3d, 5));
    CUarray lv, lv_again;
    CK(cuMipmappedArrayGetLevel(&lv, mip, 3));
    CK(cuMipmappedArrayGetLevel(&lv_again, mip, 3));
    EXPECT(lv == lv_again);
    CK(cuArray3DGetDescriptor(&a3d_back, lv));
    EXPECT(a3d_back.Width == 2 && a3d_back.Height == 1 && a3d_back.Format == CU_AD_FORMAT_HALF);
    EXPECT_RC(cuMipmappedArrayGetLevel(&lv, mip, 5), CUDA_ERROR_INVALID_VALUE);
    CK(cuMipmappedArrayDestroy(mip));

    // bad input: an impossible format, a copy past the extent, an unknown handle, a surface without the flag
    ad.Format = (CUarray_format)0x77;
    CUarray bad;
    EXPECT_RC(cuArrayCreate(&bad, &ad), CUDA_ERROR_INVALID_VALUE);
    ad.Format = CU_AD_FORMAT_FLOAT, ad.NumChannels = 3;
    EXPECT_RC(cuArrayCreate(&bad, &ad), CUDA_ERROR_INVALID_VALUE);
    EXPECT_RC(cuMemcpyHtoA(a2, W * 4, host.data(), W * H * 4), CUDA_ERROR_INVALID_VALUE);
    c = {};
    c.srcMemoryType = CU_MEMORYTYPE_HOST, c.srcHost = host.data(), c.srcPitch = W * 4;
    c.dstMemoryType = CU_MEMORYTYPE_ARRAY, c.dstArray = a2, c.dstY = 1;
    c.WidthInBytes = W * 4, c.Height = H;
    EXPECT_RC(cuMemcpy2D(&c), CUDA_ERROR_INVALID_VALUE);
    c.dstArray = (CUarray)(uintptr_t)0xbad0000;
    c.dstY = 0;
    EXPECT_RC(cuMemcpy2D(&c), CUDA_ERROR_INVALID_HANDLE);
    rd.res.array.hArray = a2;
    EXPECT_RC(cuSurfObjectCreate(&surf, &rd), CUDA_ERROR_INVALID_VALUE);
    EXPECT_RC(cuTexObjectDestroy(tex), CUDA_ERROR_INVALID_VALUE);

    CK(cuArrayDestroy(a2));
    CK(cuArrayDestroy(b2));
    CK(cuArrayDestroy(a3));
    EXPECT_RC(cuArrayDestroy(a3), CUDA_ERROR_INVALID_HANDLE);
    CK(cuMemFree(d));
    CK(cuMemFree(lin));
    CK(cuStreamDestroy(st));
    CK(cuCtxDestroy(ctx));
    printf("OK driver_arrays\n");
    return 0;
}
