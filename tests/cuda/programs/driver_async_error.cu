// An asynchronous call that fails (a memset of memory that is no allocation) is reported no later
// than the synchronous copy after it, as CUDA documents for cuMemcpy* ("may also return error codes
// from previous, asynchronous launches"): a GPU's driver refuses the memset itself, rgpu's client
// sends it without waiting and hands the server's answer to the copy. Either way the program never
// takes the copy's data as good without hearing of the failure, even when a query came between
// (whose reply carried the error to the client); the error is reported once, and the context works on.
#include <cstdio>
#include <cuda.h>
#include "driver_check.h"

int main() {
    CK(cuInit(0));
    CUdevice dev;
    CK(cuDeviceGet(&dev, 0));
    CUcontext ctx;
    CK(cuDevicePrimaryCtxRetain(&ctx, dev));
    CK(cuCtxSetCurrent(ctx));
    CUdeviceptr d;
    CK(cuMemAlloc(&d, 4096));
    CK(cuMemsetD32(d, 7, 1024));
    CUresult memset_rc = cuMemsetD32Async((CUdeviceptr)0xdead0000000ull, 1, 1024, 0);
    unsigned host[1024] = {0};
    CUresult copy_rc = cuMemcpyDtoH(host, d, sizeof host);
    printf("memset %d copy %d\n", (int)memset_rc, (int)copy_rc);
    EXPECT(memset_rc != CUDA_SUCCESS || copy_rc != CUDA_SUCCESS);
    EXPECT((memset_rc == CUDA_SUCCESS) != (copy_rc == CUDA_SUCCESS));  // once, by one of them
    CK(cuCtxSynchronize());  // not sticky: reported already, and the context goes on
    // again with a query between: the error must not be lost to a call that does not report it
    memset_rc = cuMemsetD32Async((CUdeviceptr)0xdead0000000ull, 1, 1024, 0);
    CUresult query_rc = cuStreamQuery(0);
    copy_rc = cuMemcpyDtoH(host, d, sizeof host);
    printf("memset %d query %d copy %d\n", (int)memset_rc, (int)query_rc, (int)copy_rc);
    EXPECT(query_rc == CUDA_SUCCESS || query_rc == CUDA_ERROR_NOT_READY);
    EXPECT((memset_rc == CUDA_SUCCESS) != (copy_rc == CUDA_SUCCESS));
    CK(cuCtxSynchronize());
    CK(cuMemcpyDtoH(host, d, sizeof host));
    for (int i = 0; i < 1024; i++) EXPECT(host[i] == 7);
    CK(cuMemFree(d));
    printf("OK driver_async_error\n");
    return 0;
}
