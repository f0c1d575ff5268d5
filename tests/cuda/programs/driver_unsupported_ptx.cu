// A kernel whose code the device cannot run fails at its launch, with the cause on stderr (no
// RGPU_LOG needed), as a GPU's driver fails a kernel its JIT cannot compile: on the software GPU,
// elect.sync (an instruction its interpreter lacks) makes cuLaunchKernel itself return
// CUDA_ERROR_NOT_SUPPORTED; nothing is left pending for the next synchronising call, and the
// module's other kernel runs. On a GPU that runs it, both kernels run.
#include <cstdio>
#include <cuda.h>

#include "driver_check.h"

static const char ptx[] = R"(
.version 8.0
.target sm_90
.address_size 64
.visible .entry uses_elect(.param .u64 out)
{
    .reg .b32 %r<2>;
    .reg .pred %p<2>;
    .reg .b64 %rd<3>;
    ld.param.u64 %rd1, [out];
    cvta.to.global.u64 %rd2, %rd1;
    elect.sync %r1|%p1, -1;
    st.global.u32 [%rd2], 9;
    ret;
}
.visible .entry plain(.param .u64 out)
{
    .reg .b64 %rd<3>;
    ld.param.u64 %rd1, [out];
    cvta.to.global.u64 %rd2, %rd1;
    st.global.u32 [%rd2+4], 7;
    ret;
}
)";

int main() {
    CK(cuInit(0));
    CUdevice dev;
    CK(cuDeviceGet(&dev, 0));
    CUcontext ctx;
    CK(cuDevicePrimaryCtxRetain(&ctx, dev));
    CK(cuCtxSetCurrent(ctx));
    CUmodule mod;
    CK(cuModuleLoadData(&mod, ptx));
    CUfunction elect, plain;
    CK(cuModuleGetFunction(&elect, mod, "uses_elect"));
    CK(cuModuleGetFunction(&plain, mod, "plain"));
    CUdeviceptr d;
    CK(cuMemAlloc(&d, 8));
    CK(cuMemsetD32(d, 0, 2));
    void *args[] = {&d};
    CUresult rc = cuLaunchKernel(elect, 1, 1, 1, 32, 1, 1, 0, 0, args, nullptr);
    printf("launch %d\n", (int)rc);
    EXPECT(rc == CUDA_SUCCESS || rc == CUDA_ERROR_NOT_SUPPORTED);
    CK(cuCtxSynchronize());  // nothing left pending: refused at the launch, or ran
    CK(cuLaunchKernel(plain, 1, 1, 1, 1, 1, 1, 0, 0, args, nullptr));
    unsigned host[2];
    CK(cuMemcpyDtoH(host, d, sizeof host));
    EXPECT(host[1] == 7);
    EXPECT(host[0] == (rc == CUDA_SUCCESS ? 9u : 0u));
    printf(rc == CUDA_SUCCESS ? "ran\n" : "refused at the launch\n");
    printf("OK driver_unsupported_ptx\n");
    return 0;
}
