// Calls whose records say where they are answered: in the client (a stream's device), not served by
// the software GPU (a Windows LUID: answered not-supported in the client, no round trip), not supported
// anywhere (a conditional graph node's handle) — and the session still works after them.
#include <cstring>

#include "driver_check.h"

int main() {
    CK(cuInit(0));
    CUdevice dev;
    CK(cuDeviceGet(&dev, 0));
    CUcontext ctx;
    CK(cuDevicePrimaryCtxRetain(&ctx, dev));
    CK(cuCtxSetCurrent(ctx));
    CUstream s;
    CK(cuStreamCreate(&s, 0));
    CUdevice of = -1;
    CK(cuStreamGetDevice(s, &of));
    EXPECT(of == 0);
    char luid[8];
    unsigned mask = 0;
    CUresult r = cuDeviceGetLuid(luid, &mask, dev);
    printf("cuDeviceGetLuid -> %d\n", (int)r);
    CUgraph g;
    CK(cuGraphCreate(&g, 0));
    CUgraphConditionalHandle cond;
    r = cuGraphConditionalHandleCreate(&cond, g, ctx, 0, 0);
    printf("cuGraphConditionalHandleCreate -> %d\n", (int)r);
    CK(cuGraphDestroy(g));
    CUdeviceptr d;
    CK(cuMemAlloc(&d, 4096));
    CK(cuMemsetD32(d, 7, 1024));
    unsigned host[4];
    CK(cuMemcpyDtoH(host, d, sizeof host));
    EXPECT(host[0] == 7 && host[3] == 7);
    CK(cuMemFree(d));
    CK(cuStreamDestroy(s));
    printf("OK driver_contract\n");
    return 0;
}
