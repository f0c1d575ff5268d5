// Stream memory operations in stream order: cuStreamWriteValue32/64 land after the stream's earlier
// work and before its later work, cuStreamWaitValue32/64 pass on a word that satisfies their
// condition (GEQ, cyclic; EQ; AND; NOR), and cuStreamBatchMemOp does the same in one call; the device
// says it has the 64-bit and NOR forms; CU_STREAM_WRITE_VALUE_NO_MEMORY_BARRIER is invalid-value. CU_STREAM_WAIT_VALUE_FLUSH and the batch's flush of remote
// writes work where CU_DEVICE_ATTRIBUTE_CAN_FLUSH_REMOTE_WRITES says so and are refused with
// CUDA_ERROR_NOT_SUPPORTED, nothing done, where it does not (an H200 refuses them).
#include <cstdio>
#include <cstring>
#include <cuda.h>

#include "driver_check.h"

int main() {
    CK(cuInit(0));
    CUdevice dev;
    CK(cuDeviceGet(&dev, 0));
    CUcontext ctx;
    CK(cuDevicePrimaryCtxRetain(&ctx, dev));
    CK(cuCtxSetCurrent(ctx));
    int has64 = 0, nor = 0;
    CK(cuDeviceGetAttribute(&has64, CU_DEVICE_ATTRIBUTE_CAN_USE_64_BIT_STREAM_MEM_OPS, dev));
    CK(cuDeviceGetAttribute(&nor, CU_DEVICE_ATTRIBUTE_CAN_USE_STREAM_WAIT_VALUE_NOR, dev));
    EXPECT(has64 == 1 && nor == 1);
    int flush = -1;
    CK(cuDeviceGetAttribute(&flush, CU_DEVICE_ATTRIBUTE_CAN_FLUSH_REMOTE_WRITES, dev));
    printf("can flush remote writes: %d\n", flush);
    EXPECT(flush == 0 || flush == 1);
    const CUresult flushed = flush ? CUDA_SUCCESS : CUDA_ERROR_NOT_SUPPORTED;
    CUstream s;
    CK(cuStreamCreate(&s, CU_STREAM_NON_BLOCKING));
    CUdeviceptr d;
    CK(cuMemAlloc(&d, 64));
    CK(cuMemsetD32Async(d, 0, 16, s));
    CK(cuStreamWriteValue32(s, d, 5, 0));
    CK(cuStreamWaitValue32(s, d, 5, CU_STREAM_WAIT_VALUE_EQ));
    CK(cuStreamWaitValue32(s, d, 3, CU_STREAM_WAIT_VALUE_GEQ));
    CK(cuStreamWaitValue32(s, d, 0xFFFFFFF0u, CU_STREAM_WAIT_VALUE_GEQ));  // cyclic: 5 is "after" it
    CK(cuStreamWaitValue32(s, d, 4, CU_STREAM_WAIT_VALUE_AND));
    EXPECT(cuStreamWaitValue32(s, d, 4, CU_STREAM_WAIT_VALUE_AND | CU_STREAM_WAIT_VALUE_FLUSH) == flushed);
    CK(cuStreamWaitValue32(s, d, 0, CU_STREAM_WAIT_VALUE_NOR));
    CK(cuStreamWriteValue64(s, d + 8, 0x123456789ull, 0));
    // not in the _v2 API, which cuda.h maps these names to: refused, nothing written
    EXPECT(cuStreamWriteValue32(s, d + 16, 77, CU_STREAM_WRITE_VALUE_NO_MEMORY_BARRIER) == CUDA_ERROR_INVALID_VALUE);
    CK(cuStreamWaitValue64(s, d + 8, 0x123456780ull, CU_STREAM_WAIT_VALUE_GEQ));
    unsigned host[16] = {0};
    CK(cuMemcpyDtoHAsync(host, d, sizeof host, s));
    CK(cuMemsetD32Async(d, 9, 1, s));  // after the copy: not in it
    CK(cuStreamSynchronize(s));
    printf("words %u %u %u %u\n", host[0], host[2], host[3], host[4]);
    EXPECT(host[0] == 5 && host[2] == 0x23456789u && host[3] == 1 && host[4] == 0);
    // one batch: a write, a wait on it, a 64-bit write, a barrier
    CUstreamBatchMemOpParams ops[4];
    memset(ops, 0, sizeof ops);
    ops[0].writeValue.operation = CU_STREAM_MEM_OP_WRITE_VALUE_32;
    ops[0].writeValue.address = d + 16;
    ops[0].writeValue.value = 11;
    ops[1].waitValue.operation = CU_STREAM_MEM_OP_WAIT_VALUE_32;
    ops[1].waitValue.address = d + 16;
    ops[1].waitValue.value = 11;
    ops[1].waitValue.flags = CU_STREAM_WAIT_VALUE_EQ;
    ops[2].writeValue.operation = CU_STREAM_MEM_OP_WRITE_VALUE_64;
    ops[2].writeValue.address = d + 24;
    ops[2].writeValue.value64 = 0xAABBCCDD00112233ull;
    ops[3].memoryBarrier.operation = CU_STREAM_MEM_OP_BARRIER;
    ops[3].memoryBarrier.flags = CU_STREAM_MEMORY_BARRIER_TYPE_GPU;
    CK(cuStreamBatchMemOp(s, 4, ops, 0));
    CK(cuMemcpyDtoHAsync(host, d, sizeof host, s));
    CK(cuStreamSynchronize(s));
    printf("batch %u %x %x\n", host[4], host[7], host[6]);
    EXPECT(host[0] == 9 && host[4] == 11 && host[6] == 0x00112233u && host[7] == 0xAABBCCDDu);
    // a write and a flush of remote writes: both done, or (where the device cannot flush) neither
    memset(ops, 0, sizeof ops);
    ops[0].writeValue.operation = CU_STREAM_MEM_OP_WRITE_VALUE_32;
    ops[0].writeValue.address = d + 32;
    ops[0].writeValue.value = 7;
    ops[1].flushRemoteWrites.operation = CU_STREAM_MEM_OP_FLUSH_REMOTE_WRITES;
    EXPECT(cuStreamBatchMemOp(s, 2, ops, 0) == flushed);
    CK(cuMemcpyDtoHAsync(host, d, sizeof host, s));
    CK(cuStreamSynchronize(s));
    printf("flush batch %u\n", host[8]);
    EXPECT(host[8] == (flush ? 7u : 0u));
    CK(cuMemFree(d));
    CK(cuStreamDestroy(s));
    printf("OK driver_stream_memops\n");
    return 0;
}
