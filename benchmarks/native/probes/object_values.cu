// The values a GPU's driver gives texture and surface objects, in fresh contexts. Kernels receive an
// object by value, so a session moved to another GPU keeps working only if its objects can be made
// again at the values it holds (issue 43). This makes the same sequence of objects — textures over
// an array and over linear memory, surfaces, one destroyed and made again — in the primary context
// and in a second context, and prints each value; run twice (two processes), the lines say whether
// the values are a function of the sequence alone.
//
//   nvcc -O2 -o object_values object_values.cu -lcuda && ./object_values
#include <cuda.h>
#include <stdio.h>
#include <string.h>

#define CK(x) do { CUresult r_ = (x); if (r_) { const char *n_; cuGetErrorName(r_, &n_); \
    printf("error %s: %s\n", #x, n_); return 1; } } while (0)

static int sequence(const char *label) {
    CUarray arr;
    CUDA_ARRAY3D_DESCRIPTOR ad;
    memset(&ad, 0, sizeof ad);
    ad.Width = 64, ad.Height = 64, ad.Format = CU_AD_FORMAT_FLOAT, ad.NumChannels = 1;
    ad.Flags = CUDA_ARRAY3D_SURFACE_LDST;
    CK(cuArray3DCreate(&arr, &ad));
    CUdeviceptr lin;
    CK(cuMemAlloc(&lin, 1 << 20));
    CUDA_RESOURCE_DESC ra, rl;
    memset(&ra, 0, sizeof ra), memset(&rl, 0, sizeof rl);
    ra.resType = CU_RESOURCE_TYPE_ARRAY, ra.res.array.hArray = arr;
    rl.resType = CU_RESOURCE_TYPE_LINEAR, rl.res.linear.devPtr = lin, rl.res.linear.format = CU_AD_FORMAT_FLOAT;
    rl.res.linear.numChannels = 1, rl.res.linear.sizeInBytes = 1 << 20;
    CUDA_TEXTURE_DESC td;
    memset(&td, 0, sizeof td);
    CUtexObject t[8];
    CUsurfObject s[4];
    CK(cuTexObjectCreate(&t[0], &ra, &td, NULL));
    CK(cuTexObjectCreate(&t[1], &rl, &td, NULL));
    CK(cuSurfObjectCreate(&s[0], &ra));
    CK(cuTexObjectCreate(&t[2], &ra, &td, NULL));
    CK(cuSurfObjectCreate(&s[1], &ra));
    printf("%s: tex %#llx %#llx surf %#llx tex %#llx surf %#llx\n", label, t[0], t[1], s[0], t[2], s[1]);
    CK(cuTexObjectDestroy(t[1]));
    CK(cuSurfObjectDestroy(s[0]));
    CK(cuTexObjectCreate(&t[3], &ra, &td, NULL));
    CK(cuSurfObjectCreate(&s[2], &ra));
    CK(cuTexObjectCreate(&t[4], &rl, &td, NULL));
    printf("%s: after destroying tex %#llx and surf %#llx: tex %#llx surf %#llx tex %#llx\n", label, t[1], s[0],
           t[3], s[2], t[4]);
    for (int i = 5; i < 8; i++) CK(cuTexObjectCreate(&t[i], &ra, &td, NULL));
    printf("%s: three more tex %#llx %#llx %#llx\n", label, t[5], t[6], t[7]);
    int keep[] = {0, 2, 3, 4, 5, 6, 7};
    for (int i : keep) CK(cuTexObjectDestroy(t[i]));
    CK(cuSurfObjectDestroy(s[1]));
    CK(cuSurfObjectDestroy(s[2]));
    CK(cuTexObjectCreate(&t[0], &ra, &td, NULL));
    printf("%s: all destroyed, then tex %#llx\n", label, t[0]);
    CK(cuTexObjectDestroy(t[0]));
    CK(cuArrayDestroy(arr));
    CK(cuMemFree(lin));
    return 0;
}

int main() {
    CUdevice d;
    CUcontext primary, other;
    CK(cuInit(0));
    CK(cuDeviceGet(&d, 0));
    CK(cuDevicePrimaryCtxRetain(&primary, d));
    CK(cuCtxSetCurrent(primary));
    if (sequence("primary")) return 1;
    CK(cuCtxCreate(&other, NULL, 0, d));
    if (sequence("second context")) return 1;
    CK(cuCtxDestroy(other));
    CK(cuCtxSetCurrent(primary));
    if (sequence("primary again")) return 1;
    return 0;
}
