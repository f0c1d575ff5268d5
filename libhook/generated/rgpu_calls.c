/* generated from CUDA 13.0 and protocol/contract by protocol/codegen — do not edit */
#include "rgpu_call.h"

void rgpu_wire_cuDeviceGetName(rgpu_call *c, int64_t len, int dev)
{
    rgpu_begin(c, RGPU_ID_cuDeviceGetName, "cuDeviceGetName", RGPU_DRIVER, RGPU_FLAGS_cuDeviceGetName);
    rgpu_put_i(c, len);
    rgpu_put_d(c, dev);
}

void rgpu_wire_out_cuDeviceGetName(rgpu_call *c, void *name, size_t name_size)
{
    rgpu_out_b(c, name, name_size);
}

void rgpu_wire_cuDeviceGetUuid_v2(rgpu_call *c, int dev)
{
    rgpu_begin(c, RGPU_ID_cuDeviceGetUuid_v2, "cuDeviceGetUuid_v2", RGPU_DRIVER, RGPU_FLAGS_cuDeviceGetUuid_v2);
    rgpu_put_d(c, dev);
}

void rgpu_wire_out_cuDeviceGetUuid_v2(rgpu_call *c, void *uuid, size_t uuid_size)
{
    rgpu_out_b(c, uuid, uuid_size);
}

void rgpu_wire_cuDeviceTotalMem_v2(rgpu_call *c, int dev)
{
    rgpu_begin(c, RGPU_ID_cuDeviceTotalMem_v2, "cuDeviceTotalMem_v2", RGPU_DRIVER, RGPU_FLAGS_cuDeviceTotalMem_v2);
    rgpu_put_d(c, dev);
}

void rgpu_wire_out_cuDeviceTotalMem_v2(rgpu_call *c, uint64_t *bytes)
{
    *bytes = rgpu_out_u(c);
}

void rgpu_wire_cuDeviceGetAttribute(rgpu_call *c, int64_t attrib, int dev)
{
    rgpu_begin(c, RGPU_ID_cuDeviceGetAttribute, "cuDeviceGetAttribute", RGPU_DRIVER, RGPU_FLAGS_cuDeviceGetAttribute);
    rgpu_put_i(c, attrib);
    rgpu_put_d(c, dev);
}

void rgpu_wire_out_cuDeviceGetAttribute(rgpu_call *c, int64_t *pi)
{
    *pi = rgpu_out_i(c);
}

void rgpu_wire_cuDeviceComputeCapability(rgpu_call *c, int dev)
{
    rgpu_begin(c, RGPU_ID_cuDeviceComputeCapability, "cuDeviceComputeCapability", RGPU_DRIVER, RGPU_FLAGS_cuDeviceComputeCapability);
    rgpu_put_d(c, dev);
}

void rgpu_wire_out_cuDeviceComputeCapability(rgpu_call *c, int64_t *major, int64_t *minor)
{
    *major = rgpu_out_i(c);
    *minor = rgpu_out_i(c);
}

void rgpu_wire_cuCtxGetLimit(rgpu_call *c, int64_t limit)
{
    rgpu_begin(c, RGPU_ID_cuCtxGetLimit, "cuCtxGetLimit", RGPU_DRIVER, RGPU_FLAGS_cuCtxGetLimit);
    rgpu_put_i(c, limit);
}

void rgpu_wire_out_cuCtxGetLimit(rgpu_call *c, uint64_t *pvalue)
{
    *pvalue = rgpu_out_u(c);
}

void rgpu_wire_cuCtxRecordEvent(rgpu_call *c, const void *hEvent)
{
    rgpu_begin(c, RGPU_ID_cuCtxRecordEvent, "cuCtxRecordEvent", RGPU_DRIVER, RGPU_FLAGS_cuCtxRecordEvent);
    rgpu_put_h(c, hEvent);
}

void rgpu_wire_cuCtxWaitEvent(rgpu_call *c, const void *hEvent)
{
    rgpu_begin(c, RGPU_ID_cuCtxWaitEvent, "cuCtxWaitEvent", RGPU_DRIVER, RGPU_FLAGS_cuCtxWaitEvent);
    rgpu_put_h(c, hEvent);
}

void rgpu_wire_cuModuleLoadData(rgpu_call *c, const char *digest, uint64_t size, const char *companion, uint64_t companion_size, uint64_t sent, uint64_t frames)
{
    rgpu_begin(c, RGPU_ID_cuModuleLoadData, "cuModuleLoadData", RGPU_DRIVER, RGPU_FLAGS_cuModuleLoadData);
    rgpu_put_s(c, digest);
    rgpu_put_u(c, size);
    rgpu_put_s(c, companion);
    rgpu_put_u(c, companion_size);
    rgpu_put_u(c, sent);
    rgpu_put_u(c, frames);
}

void rgpu_wire_out_cuModuleLoadData(rgpu_call *c, void **module)
{
    *module = rgpu_out_h(c);
}

void rgpu_wire_cuMemAlloc_v2(rgpu_call *c, uint64_t bytesize)
{
    rgpu_begin(c, RGPU_ID_cuMemAlloc_v2, "cuMemAlloc_v2", RGPU_DRIVER, RGPU_FLAGS_cuMemAlloc_v2);
    rgpu_put_u(c, bytesize);
}

void rgpu_wire_out_cuMemAlloc_v2(rgpu_call *c, uint64_t *dptr)
{
    *dptr = rgpu_out_u(c);
}

void rgpu_wire_cuMemAllocPitch_v2(rgpu_call *c, uint64_t WidthInBytes, uint64_t Height, uint64_t ElementSizeBytes)
{
    rgpu_begin(c, RGPU_ID_cuMemAllocPitch_v2, "cuMemAllocPitch_v2", RGPU_DRIVER, RGPU_FLAGS_cuMemAllocPitch_v2);
    rgpu_put_u(c, WidthInBytes);
    rgpu_put_u(c, Height);
    rgpu_put_u(c, ElementSizeBytes);
}

void rgpu_wire_out_cuMemAllocPitch_v2(rgpu_call *c, uint64_t *dptr, uint64_t *pPitch)
{
    *dptr = rgpu_out_u(c);
    *pPitch = rgpu_out_u(c);
}

void rgpu_wire_cuMemFree_v2(rgpu_call *c, uint64_t dptr)
{
    rgpu_begin(c, RGPU_ID_cuMemFree_v2, "cuMemFree_v2", RGPU_DRIVER, RGPU_FLAGS_cuMemFree_v2);
    rgpu_put_u(c, dptr);
}

void rgpu_wire_cuMemAllocManaged(rgpu_call *c, uint64_t bytesize, uint64_t flags)
{
    rgpu_begin(c, RGPU_ID_cuMemAllocManaged, "cuMemAllocManaged", RGPU_DRIVER, RGPU_FLAGS_cuMemAllocManaged);
    rgpu_put_u(c, bytesize);
    rgpu_put_u(c, flags);
}

void rgpu_wire_out_cuMemAllocManaged(rgpu_call *c, uint64_t *dptr, uint64_t *mapped)
{
    *dptr = rgpu_out_u(c);
    *mapped = rgpu_out_u(c);
}

void rgpu_wire_cuMemcpyHtoD_v2(rgpu_call *c, uint64_t dstDevice, uint64_t ByteCount)
{
    rgpu_begin(c, RGPU_ID_cuMemcpyHtoD_v2, "cuMemcpyHtoD_v2", RGPU_DRIVER, RGPU_FLAGS_cuMemcpyHtoD_v2);
    rgpu_put_u(c, dstDevice);
    rgpu_put_u(c, ByteCount);
}

void rgpu_wire_cuMemcpyDtoH_v2(rgpu_call *c, uint64_t srcDevice, uint64_t ByteCount)
{
    rgpu_begin(c, RGPU_ID_cuMemcpyDtoH_v2, "cuMemcpyDtoH_v2", RGPU_DRIVER, RGPU_FLAGS_cuMemcpyDtoH_v2);
    rgpu_put_u(c, srcDevice);
    rgpu_put_u(c, ByteCount);
}

void rgpu_wire_cuMemcpyHtoA_v2(rgpu_call *c, const void *dstArray, uint64_t dstOffset, uint64_t ByteCount)
{
    rgpu_begin(c, RGPU_ID_cuMemcpyHtoA_v2, "cuMemcpyHtoA_v2", RGPU_DRIVER, RGPU_FLAGS_cuMemcpyHtoA_v2);
    rgpu_put_h(c, dstArray);
    rgpu_put_u(c, dstOffset);
    rgpu_put_u(c, ByteCount);
}

void rgpu_wire_cuMemcpyAtoH_v2(rgpu_call *c, const void *srcArray, uint64_t srcOffset, uint64_t ByteCount)
{
    rgpu_begin(c, RGPU_ID_cuMemcpyAtoH_v2, "cuMemcpyAtoH_v2", RGPU_DRIVER, RGPU_FLAGS_cuMemcpyAtoH_v2);
    rgpu_put_h(c, srcArray);
    rgpu_put_u(c, srcOffset);
    rgpu_put_u(c, ByteCount);
}

void rgpu_wire_cuMemcpy3D_v2(rgpu_call *c, const void *srcArray, uint64_t srcDevice, uint64_t srcPitch, uint64_t srcHeight, uint64_t srcXInBytes, uint64_t srcY, uint64_t srcZ, const void *dstArray, uint64_t dstDevice, uint64_t dstPitch, uint64_t dstHeight, uint64_t dstXInBytes, uint64_t dstY, uint64_t dstZ, uint64_t WidthInBytes, uint64_t Height, uint64_t Depth)
{
    rgpu_begin(c, RGPU_ID_cuMemcpy3D_v2, "cuMemcpy3D_v2", RGPU_DRIVER, RGPU_FLAGS_cuMemcpy3D_v2);
    rgpu_put_h(c, srcArray);
    rgpu_put_u(c, srcDevice);
    rgpu_put_u(c, srcPitch);
    rgpu_put_u(c, srcHeight);
    rgpu_put_u(c, srcXInBytes);
    rgpu_put_u(c, srcY);
    rgpu_put_u(c, srcZ);
    rgpu_put_h(c, dstArray);
    rgpu_put_u(c, dstDevice);
    rgpu_put_u(c, dstPitch);
    rgpu_put_u(c, dstHeight);
    rgpu_put_u(c, dstXInBytes);
    rgpu_put_u(c, dstY);
    rgpu_put_u(c, dstZ);
    rgpu_put_u(c, WidthInBytes);
    rgpu_put_u(c, Height);
    rgpu_put_u(c, Depth);
}

void rgpu_wire_cuMemcpyHtoDAsync_v2(rgpu_call *c, uint64_t dstDevice, uint64_t ByteCount, const void *hStream)
{
    rgpu_begin(c, RGPU_ID_cuMemcpyHtoDAsync_v2, "cuMemcpyHtoDAsync_v2", RGPU_DRIVER, RGPU_FLAGS_cuMemcpyHtoDAsync_v2);
    rgpu_put_u(c, dstDevice);
    rgpu_put_u(c, ByteCount);
    rgpu_put_h(c, hStream);
}

void rgpu_wire_cuMemcpyDtoHAsync_v2(rgpu_call *c, uint64_t srcDevice, uint64_t ByteCount, const void *hStream)
{
    rgpu_begin(c, RGPU_ID_cuMemcpyDtoHAsync_v2, "cuMemcpyDtoHAsync_v2", RGPU_DRIVER, RGPU_FLAGS_cuMemcpyDtoHAsync_v2);
    rgpu_put_u(c, srcDevice);
    rgpu_put_u(c, ByteCount);
    rgpu_put_h(c, hStream);
}

void rgpu_wire_cuMemcpyHtoAAsync_v2(rgpu_call *c, const void *dstArray, uint64_t dstOffset, uint64_t ByteCount, const void *hStream)
{
    rgpu_begin(c, RGPU_ID_cuMemcpyHtoAAsync_v2, "cuMemcpyHtoAAsync_v2", RGPU_DRIVER, RGPU_FLAGS_cuMemcpyHtoAAsync_v2);
    rgpu_put_h(c, dstArray);
    rgpu_put_u(c, dstOffset);
    rgpu_put_u(c, ByteCount);
    rgpu_put_h(c, hStream);
}

void rgpu_wire_cuMemcpyAtoHAsync_v2(rgpu_call *c, const void *srcArray, uint64_t srcOffset, uint64_t ByteCount, const void *hStream)
{
    rgpu_begin(c, RGPU_ID_cuMemcpyAtoHAsync_v2, "cuMemcpyAtoHAsync_v2", RGPU_DRIVER, RGPU_FLAGS_cuMemcpyAtoHAsync_v2);
    rgpu_put_h(c, srcArray);
    rgpu_put_u(c, srcOffset);
    rgpu_put_u(c, ByteCount);
    rgpu_put_h(c, hStream);
}

void rgpu_wire_cuMemcpy3DAsync_v2(rgpu_call *c, const void *srcArray, uint64_t srcDevice, uint64_t srcPitch, uint64_t srcHeight, uint64_t srcXInBytes, uint64_t srcY, uint64_t srcZ, const void *dstArray, uint64_t dstDevice, uint64_t dstPitch, uint64_t dstHeight, uint64_t dstXInBytes, uint64_t dstY, uint64_t dstZ, uint64_t WidthInBytes, uint64_t Height, uint64_t Depth, const void *hStream)
{
    rgpu_begin(c, RGPU_ID_cuMemcpy3DAsync_v2, "cuMemcpy3DAsync_v2", RGPU_DRIVER, RGPU_FLAGS_cuMemcpy3DAsync_v2);
    rgpu_put_h(c, srcArray);
    rgpu_put_u(c, srcDevice);
    rgpu_put_u(c, srcPitch);
    rgpu_put_u(c, srcHeight);
    rgpu_put_u(c, srcXInBytes);
    rgpu_put_u(c, srcY);
    rgpu_put_u(c, srcZ);
    rgpu_put_h(c, dstArray);
    rgpu_put_u(c, dstDevice);
    rgpu_put_u(c, dstPitch);
    rgpu_put_u(c, dstHeight);
    rgpu_put_u(c, dstXInBytes);
    rgpu_put_u(c, dstY);
    rgpu_put_u(c, dstZ);
    rgpu_put_u(c, WidthInBytes);
    rgpu_put_u(c, Height);
    rgpu_put_u(c, Depth);
    rgpu_put_h(c, hStream);
}

void rgpu_wire_cuArrayCreate_v2(rgpu_call *c, const void *pAllocateArray, size_t pAllocateArray_size)
{
    rgpu_begin(c, RGPU_ID_cuArrayCreate_v2, "cuArrayCreate_v2", RGPU_DRIVER, RGPU_FLAGS_cuArrayCreate_v2);
    rgpu_put_b(c, pAllocateArray, pAllocateArray_size);
}

void rgpu_wire_out_cuArrayCreate_v2(rgpu_call *c, void **pHandle)
{
    *pHandle = rgpu_out_h(c);
}

void rgpu_wire_cuArrayDestroy(rgpu_call *c, const void *hArray)
{
    rgpu_begin(c, RGPU_ID_cuArrayDestroy, "cuArrayDestroy", RGPU_DRIVER, RGPU_FLAGS_cuArrayDestroy);
    rgpu_put_h(c, hArray);
}

void rgpu_wire_cuArray3DCreate_v2(rgpu_call *c, const void *pAllocateArray, size_t pAllocateArray_size)
{
    rgpu_begin(c, RGPU_ID_cuArray3DCreate_v2, "cuArray3DCreate_v2", RGPU_DRIVER, RGPU_FLAGS_cuArray3DCreate_v2);
    rgpu_put_b(c, pAllocateArray, pAllocateArray_size);
}

void rgpu_wire_out_cuArray3DCreate_v2(rgpu_call *c, void **pHandle)
{
    *pHandle = rgpu_out_h(c);
}

void rgpu_wire_cuMipmappedArrayCreate(rgpu_call *c, const void *pMipmappedArrayDesc, size_t pMipmappedArrayDesc_size, uint64_t numMipmapLevels)
{
    rgpu_begin(c, RGPU_ID_cuMipmappedArrayCreate, "cuMipmappedArrayCreate", RGPU_DRIVER, RGPU_FLAGS_cuMipmappedArrayCreate);
    rgpu_put_b(c, pMipmappedArrayDesc, pMipmappedArrayDesc_size);
    rgpu_put_u(c, numMipmapLevels);
}

void rgpu_wire_out_cuMipmappedArrayCreate(rgpu_call *c, void **pHandle)
{
    *pHandle = rgpu_out_h(c);
}

void rgpu_wire_cuMipmappedArrayGetLevel(rgpu_call *c, const void *hMipmappedArray, uint64_t level)
{
    rgpu_begin(c, RGPU_ID_cuMipmappedArrayGetLevel, "cuMipmappedArrayGetLevel", RGPU_DRIVER, RGPU_FLAGS_cuMipmappedArrayGetLevel);
    rgpu_put_h(c, hMipmappedArray);
    rgpu_put_u(c, level);
}

void rgpu_wire_out_cuMipmappedArrayGetLevel(rgpu_call *c, void **pLevelArray)
{
    *pLevelArray = rgpu_out_h(c);
}

void rgpu_wire_cuMipmappedArrayDestroy(rgpu_call *c, const void *hMipmappedArray)
{
    rgpu_begin(c, RGPU_ID_cuMipmappedArrayDestroy, "cuMipmappedArrayDestroy", RGPU_DRIVER, RGPU_FLAGS_cuMipmappedArrayDestroy);
    rgpu_put_h(c, hMipmappedArray);
}

void rgpu_wire_cuMemPoolSetAttribute(rgpu_call *c, const void *pool, int64_t attr, uint64_t value)
{
    rgpu_begin(c, RGPU_ID_cuMemPoolSetAttribute, "cuMemPoolSetAttribute", RGPU_DRIVER, RGPU_FLAGS_cuMemPoolSetAttribute);
    rgpu_put_h(c, pool);
    rgpu_put_i(c, attr);
    rgpu_put_u(c, value);
}

void rgpu_wire_cuMemPoolGetAttribute(rgpu_call *c, const void *pool, int64_t attr)
{
    rgpu_begin(c, RGPU_ID_cuMemPoolGetAttribute, "cuMemPoolGetAttribute", RGPU_DRIVER, RGPU_FLAGS_cuMemPoolGetAttribute);
    rgpu_put_h(c, pool);
    rgpu_put_i(c, attr);
}

void rgpu_wire_out_cuMemPoolGetAttribute(rgpu_call *c, uint64_t *value)
{
    *value = rgpu_out_u(c);
}

void rgpu_wire_cuStreamAttachMemAsync(rgpu_call *c, const void *hStream, uint64_t dptr, uint64_t length, uint64_t flags)
{
    rgpu_begin(c, RGPU_ID_cuStreamAttachMemAsync, "cuStreamAttachMemAsync", RGPU_DRIVER, RGPU_FLAGS_cuStreamAttachMemAsync);
    rgpu_put_h(c, hStream);
    rgpu_put_u(c, dptr);
    rgpu_put_u(c, length);
    rgpu_put_u(c, flags);
}

void rgpu_wire_cuFuncGetAttribute(rgpu_call *c, int64_t attrib, const void *hfunc)
{
    rgpu_begin(c, RGPU_ID_cuFuncGetAttribute, "cuFuncGetAttribute", RGPU_DRIVER, RGPU_FLAGS_cuFuncGetAttribute);
    rgpu_put_i(c, attrib);
    rgpu_put_h(c, hfunc);
}

void rgpu_wire_out_cuFuncGetAttribute(rgpu_call *c, int64_t *pi)
{
    *pi = rgpu_out_i(c);
}

void rgpu_wire_cuFuncSetAttribute(rgpu_call *c, const void *hfunc, int64_t attrib, int64_t value)
{
    rgpu_begin(c, RGPU_ID_cuFuncSetAttribute, "cuFuncSetAttribute", RGPU_DRIVER, RGPU_FLAGS_cuFuncSetAttribute);
    rgpu_put_h(c, hfunc);
    rgpu_put_i(c, attrib);
    rgpu_put_i(c, value);
}

void rgpu_wire_cuFuncGetName(rgpu_call *c, const void *hfunc)
{
    rgpu_begin(c, RGPU_ID_cuFuncGetName, "cuFuncGetName", RGPU_DRIVER, RGPU_FLAGS_cuFuncGetName);
    rgpu_put_h(c, hfunc);
}

void rgpu_wire_out_cuFuncGetName(rgpu_call *c, char *name, size_t name_size)
{
    rgpu_out_b(c, name, name_size);
}

void rgpu_wire_cuLaunchKernel(rgpu_call *c, const void *f, uint64_t gridDimX, uint64_t gridDimY, uint64_t gridDimZ, uint64_t blockDimX, uint64_t blockDimY, uint64_t blockDimZ, uint64_t sharedMemBytes, const void *hStream, const void *params, size_t params_size)
{
    rgpu_begin(c, RGPU_ID_cuLaunchKernel, "cuLaunchKernel", RGPU_DRIVER, RGPU_FLAGS_cuLaunchKernel);
    rgpu_put_h(c, f);
    rgpu_put_u(c, gridDimX);
    rgpu_put_u(c, gridDimY);
    rgpu_put_u(c, gridDimZ);
    rgpu_put_u(c, blockDimX);
    rgpu_put_u(c, blockDimY);
    rgpu_put_u(c, blockDimZ);
    rgpu_put_u(c, sharedMemBytes);
    rgpu_put_h(c, hStream);
    rgpu_put_b(c, params, params_size);
}

void rgpu_wire_cuLaunchKernelEx(rgpu_call *c, const void *f, uint64_t gridDimX, uint64_t gridDimY, uint64_t gridDimZ, uint64_t blockDimX, uint64_t blockDimY, uint64_t blockDimZ, uint64_t sharedMemBytes, const void *hStream, uint64_t clusterDimX, uint64_t clusterDimY, uint64_t clusterDimZ, uint64_t policy, const void *params, size_t params_size)
{
    rgpu_begin(c, RGPU_ID_cuLaunchKernelEx, "cuLaunchKernelEx", RGPU_DRIVER, RGPU_FLAGS_cuLaunchKernelEx);
    rgpu_put_h(c, f);
    rgpu_put_u(c, gridDimX);
    rgpu_put_u(c, gridDimY);
    rgpu_put_u(c, gridDimZ);
    rgpu_put_u(c, blockDimX);
    rgpu_put_u(c, blockDimY);
    rgpu_put_u(c, blockDimZ);
    rgpu_put_u(c, sharedMemBytes);
    rgpu_put_h(c, hStream);
    rgpu_put_u(c, clusterDimX);
    rgpu_put_u(c, clusterDimY);
    rgpu_put_u(c, clusterDimZ);
    rgpu_put_u(c, policy);
    rgpu_put_b(c, params, params_size);
}

void rgpu_wire_cuLaunchCooperativeKernel(rgpu_call *c, const void *f, uint64_t gridDimX, uint64_t gridDimY, uint64_t gridDimZ, uint64_t blockDimX, uint64_t blockDimY, uint64_t blockDimZ, uint64_t sharedMemBytes, const void *hStream, const void *params, size_t params_size)
{
    rgpu_begin(c, RGPU_ID_cuLaunchCooperativeKernel, "cuLaunchCooperativeKernel", RGPU_DRIVER, RGPU_FLAGS_cuLaunchCooperativeKernel);
    rgpu_put_h(c, f);
    rgpu_put_u(c, gridDimX);
    rgpu_put_u(c, gridDimY);
    rgpu_put_u(c, gridDimZ);
    rgpu_put_u(c, blockDimX);
    rgpu_put_u(c, blockDimY);
    rgpu_put_u(c, blockDimZ);
    rgpu_put_u(c, sharedMemBytes);
    rgpu_put_h(c, hStream);
    rgpu_put_b(c, params, params_size);
}

void rgpu_wire_cuOccupancyMaxActiveBlocksPerMultiprocessor(rgpu_call *c, const void *func, int64_t blockSize, uint64_t dynamicSMemSize)
{
    rgpu_begin(c, RGPU_ID_cuOccupancyMaxActiveBlocksPerMultiprocessor, "cuOccupancyMaxActiveBlocksPerMultiprocessor", RGPU_DRIVER, RGPU_FLAGS_cuOccupancyMaxActiveBlocksPerMultiprocessor);
    rgpu_put_h(c, func);
    rgpu_put_i(c, blockSize);
    rgpu_put_u(c, dynamicSMemSize);
}

void rgpu_wire_out_cuOccupancyMaxActiveBlocksPerMultiprocessor(rgpu_call *c, int64_t *numBlocks)
{
    *numBlocks = rgpu_out_i(c);
}

void rgpu_wire_cuOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(rgpu_call *c, const void *func, int64_t blockSize, uint64_t dynamicSMemSize, uint64_t flags)
{
    rgpu_begin(c, RGPU_ID_cuOccupancyMaxActiveBlocksPerMultiprocessorWithFlags, "cuOccupancyMaxActiveBlocksPerMultiprocessorWithFlags", RGPU_DRIVER, RGPU_FLAGS_cuOccupancyMaxActiveBlocksPerMultiprocessorWithFlags);
    rgpu_put_h(c, func);
    rgpu_put_i(c, blockSize);
    rgpu_put_u(c, dynamicSMemSize);
    rgpu_put_u(c, flags);
}

void rgpu_wire_out_cuOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(rgpu_call *c, int64_t *numBlocks)
{
    *numBlocks = rgpu_out_i(c);
}

void rgpu_wire_cuOccupancyMaxPotentialClusterSize(rgpu_call *c, const void *f, uint64_t gridDimX, uint64_t gridDimY, uint64_t gridDimZ, uint64_t blockDimX, uint64_t blockDimY, uint64_t blockDimZ, uint64_t sharedMemBytes, uint64_t clusterDimX, uint64_t clusterDimY, uint64_t clusterDimZ, uint64_t policy)
{
    rgpu_begin(c, RGPU_ID_cuOccupancyMaxPotentialClusterSize, "cuOccupancyMaxPotentialClusterSize", RGPU_DRIVER, RGPU_FLAGS_cuOccupancyMaxPotentialClusterSize);
    rgpu_put_h(c, f);
    rgpu_put_u(c, gridDimX);
    rgpu_put_u(c, gridDimY);
    rgpu_put_u(c, gridDimZ);
    rgpu_put_u(c, blockDimX);
    rgpu_put_u(c, blockDimY);
    rgpu_put_u(c, blockDimZ);
    rgpu_put_u(c, sharedMemBytes);
    rgpu_put_u(c, clusterDimX);
    rgpu_put_u(c, clusterDimY);
    rgpu_put_u(c, clusterDimZ);
    rgpu_put_u(c, policy);
}

void rgpu_wire_out_cuOccupancyMaxPotentialClusterSize(rgpu_call *c, int64_t *clusterSize)
{
    *clusterSize = rgpu_out_i(c);
}

void rgpu_wire_cuOccupancyMaxActiveClusters(rgpu_call *c, const void *f, uint64_t gridDimX, uint64_t gridDimY, uint64_t gridDimZ, uint64_t blockDimX, uint64_t blockDimY, uint64_t blockDimZ, uint64_t sharedMemBytes, uint64_t clusterDimX, uint64_t clusterDimY, uint64_t clusterDimZ, uint64_t policy)
{
    rgpu_begin(c, RGPU_ID_cuOccupancyMaxActiveClusters, "cuOccupancyMaxActiveClusters", RGPU_DRIVER, RGPU_FLAGS_cuOccupancyMaxActiveClusters);
    rgpu_put_h(c, f);
    rgpu_put_u(c, gridDimX);
    rgpu_put_u(c, gridDimY);
    rgpu_put_u(c, gridDimZ);
    rgpu_put_u(c, blockDimX);
    rgpu_put_u(c, blockDimY);
    rgpu_put_u(c, blockDimZ);
    rgpu_put_u(c, sharedMemBytes);
    rgpu_put_u(c, clusterDimX);
    rgpu_put_u(c, clusterDimY);
    rgpu_put_u(c, clusterDimZ);
    rgpu_put_u(c, policy);
}

void rgpu_wire_out_cuOccupancyMaxActiveClusters(rgpu_call *c, int64_t *numClusters)
{
    *numClusters = rgpu_out_i(c);
}

void rgpu_wire_cuTexObjectCreate(rgpu_call *c, const void *pResDesc, size_t pResDesc_size, const void *pTexDesc, size_t pTexDesc_size, const void *pResViewDesc, size_t pResViewDesc_size)
{
    rgpu_begin(c, RGPU_ID_cuTexObjectCreate, "cuTexObjectCreate", RGPU_DRIVER, RGPU_FLAGS_cuTexObjectCreate);
    rgpu_put_b(c, pResDesc, pResDesc_size);
    rgpu_put_b(c, pTexDesc, pTexDesc_size);
    rgpu_put_b(c, pResViewDesc, pResViewDesc_size);
}

void rgpu_wire_out_cuTexObjectCreate(rgpu_call *c, uint64_t *pTexObject)
{
    *pTexObject = rgpu_out_u(c);
}

void rgpu_wire_cuTexObjectGetResourceDesc(rgpu_call *c, uint64_t texObject)
{
    rgpu_begin(c, RGPU_ID_cuTexObjectGetResourceDesc, "cuTexObjectGetResourceDesc", RGPU_DRIVER, RGPU_FLAGS_cuTexObjectGetResourceDesc);
    rgpu_put_u(c, texObject);
}

void rgpu_wire_out_cuTexObjectGetResourceDesc(rgpu_call *c, void *pResDesc, size_t pResDesc_size)
{
    rgpu_out_b(c, pResDesc, pResDesc_size);
}

void rgpu_wire_cuSurfObjectCreate(rgpu_call *c, const void *pResDesc, size_t pResDesc_size)
{
    rgpu_begin(c, RGPU_ID_cuSurfObjectCreate, "cuSurfObjectCreate", RGPU_DRIVER, RGPU_FLAGS_cuSurfObjectCreate);
    rgpu_put_b(c, pResDesc, pResDesc_size);
}

void rgpu_wire_out_cuSurfObjectCreate(rgpu_call *c, uint64_t *pSurfObject)
{
    *pSurfObject = rgpu_out_u(c);
}

void rgpu_wire_cuSurfObjectGetResourceDesc(rgpu_call *c, uint64_t surfObject)
{
    rgpu_begin(c, RGPU_ID_cuSurfObjectGetResourceDesc, "cuSurfObjectGetResourceDesc", RGPU_DRIVER, RGPU_FLAGS_cuSurfObjectGetResourceDesc);
    rgpu_put_u(c, surfObject);
}

void rgpu_wire_out_cuSurfObjectGetResourceDesc(rgpu_call *c, void *pResDesc, size_t pResDesc_size)
{
    rgpu_out_b(c, pResDesc, pResDesc_size);
}

void rgpu_wire_cuTensorMapEncodeTiled(rgpu_call *c, uint64_t tensorDataType, uint64_t tensorRank, uint64_t globalAddress, const void *globalDim, size_t globalDim_size, const void *globalStrides, size_t globalStrides_size, const void *boxDim, size_t boxDim_size, const void *elementStrides, size_t elementStrides_size, uint64_t interleave, uint64_t swizzle, uint64_t l2Promotion, uint64_t oobFill)
{
    rgpu_begin(c, RGPU_ID_cuTensorMapEncodeTiled, "cuTensorMapEncodeTiled", RGPU_DRIVER, RGPU_FLAGS_cuTensorMapEncodeTiled);
    rgpu_put_u(c, tensorDataType);
    rgpu_put_u(c, tensorRank);
    rgpu_put_u(c, globalAddress);
    rgpu_put_b(c, globalDim, globalDim_size);
    rgpu_put_b(c, globalStrides, globalStrides_size);
    rgpu_put_b(c, boxDim, boxDim_size);
    rgpu_put_b(c, elementStrides, elementStrides_size);
    rgpu_put_u(c, interleave);
    rgpu_put_u(c, swizzle);
    rgpu_put_u(c, l2Promotion);
    rgpu_put_u(c, oobFill);
}

void rgpu_wire_out_cuTensorMapEncodeTiled(rgpu_call *c, void *tensorMap, size_t tensorMap_size)
{
    rgpu_out_b(c, tensorMap, tensorMap_size);
}

void rgpu_wire_cuTensorMapEncodeIm2col(rgpu_call *c, uint64_t tensorDataType, uint64_t tensorRank, uint64_t globalAddress, const void *globalDim, size_t globalDim_size, const void *globalStrides, size_t globalStrides_size, const void *pixelBoxLowerCorner, size_t pixelBoxLowerCorner_size, const void *pixelBoxUpperCorner, size_t pixelBoxUpperCorner_size, uint64_t channelsPerPixel, uint64_t pixelsPerColumn, const void *elementStrides, size_t elementStrides_size, uint64_t interleave, uint64_t swizzle, uint64_t l2Promotion, uint64_t oobFill)
{
    rgpu_begin(c, RGPU_ID_cuTensorMapEncodeIm2col, "cuTensorMapEncodeIm2col", RGPU_DRIVER, RGPU_FLAGS_cuTensorMapEncodeIm2col);
    rgpu_put_u(c, tensorDataType);
    rgpu_put_u(c, tensorRank);
    rgpu_put_u(c, globalAddress);
    rgpu_put_b(c, globalDim, globalDim_size);
    rgpu_put_b(c, globalStrides, globalStrides_size);
    rgpu_put_b(c, pixelBoxLowerCorner, pixelBoxLowerCorner_size);
    rgpu_put_b(c, pixelBoxUpperCorner, pixelBoxUpperCorner_size);
    rgpu_put_u(c, channelsPerPixel);
    rgpu_put_u(c, pixelsPerColumn);
    rgpu_put_b(c, elementStrides, elementStrides_size);
    rgpu_put_u(c, interleave);
    rgpu_put_u(c, swizzle);
    rgpu_put_u(c, l2Promotion);
    rgpu_put_u(c, oobFill);
}

void rgpu_wire_out_cuTensorMapEncodeIm2col(rgpu_call *c, void *tensorMap, size_t tensorMap_size)
{
    rgpu_out_b(c, tensorMap, tensorMap_size);
}

void rgpu_wire_cuTensorMapEncodeIm2colWide(rgpu_call *c, uint64_t tensorDataType, uint64_t tensorRank, uint64_t globalAddress, const void *globalDim, size_t globalDim_size, const void *globalStrides, size_t globalStrides_size, int64_t pixelBoxLowerCornerWidth, int64_t pixelBoxUpperCornerWidth, uint64_t channelsPerPixel, uint64_t pixelsPerColumn, const void *elementStrides, size_t elementStrides_size, uint64_t interleave, uint64_t mode, uint64_t swizzle, uint64_t l2Promotion, uint64_t oobFill)
{
    rgpu_begin(c, RGPU_ID_cuTensorMapEncodeIm2colWide, "cuTensorMapEncodeIm2colWide", RGPU_DRIVER, RGPU_FLAGS_cuTensorMapEncodeIm2colWide);
    rgpu_put_u(c, tensorDataType);
    rgpu_put_u(c, tensorRank);
    rgpu_put_u(c, globalAddress);
    rgpu_put_b(c, globalDim, globalDim_size);
    rgpu_put_b(c, globalStrides, globalStrides_size);
    rgpu_put_i(c, pixelBoxLowerCornerWidth);
    rgpu_put_i(c, pixelBoxUpperCornerWidth);
    rgpu_put_u(c, channelsPerPixel);
    rgpu_put_u(c, pixelsPerColumn);
    rgpu_put_b(c, elementStrides, elementStrides_size);
    rgpu_put_u(c, interleave);
    rgpu_put_u(c, mode);
    rgpu_put_u(c, swizzle);
    rgpu_put_u(c, l2Promotion);
    rgpu_put_u(c, oobFill);
}

void rgpu_wire_out_cuTensorMapEncodeIm2colWide(rgpu_call *c, void *tensorMap, size_t tensorMap_size)
{
    rgpu_out_b(c, tensorMap, tensorMap_size);
}

void rgpu_wire_cuTensorMapReplaceAddress(rgpu_call *c, const void *tensorMap, size_t tensorMap_size, uint64_t globalAddress)
{
    rgpu_begin(c, RGPU_ID_cuTensorMapReplaceAddress, "cuTensorMapReplaceAddress", RGPU_DRIVER, RGPU_FLAGS_cuTensorMapReplaceAddress);
    rgpu_put_b(c, tensorMap, tensorMap_size);
    rgpu_put_u(c, globalAddress);
}

void rgpu_wire_out_cuTensorMapReplaceAddress(rgpu_call *c, void *tensorMap, size_t tensorMap_size)
{
    rgpu_out_b(c, tensorMap, tensorMap_size);
}

void rgpu_wire_cudaGetDeviceProperties(rgpu_call *c, int device)
{
    rgpu_begin(c, RGPU_ID_cudaGetDeviceProperties, "cudaGetDeviceProperties", RGPU_RUNTIME, RGPU_FLAGS_cudaGetDeviceProperties);
    rgpu_put_d(c, device);
}

void rgpu_wire_out_cudaGetDeviceProperties(rgpu_call *c, void *prop, size_t prop_size)
{
    rgpu_out_b(c, prop, prop_size);
}

void rgpu_wire_cudaDeviceGetAttribute(rgpu_call *c, int64_t attr, int device)
{
    rgpu_begin(c, RGPU_ID_cudaDeviceGetAttribute, "cudaDeviceGetAttribute", RGPU_RUNTIME, RGPU_FLAGS_cudaDeviceGetAttribute);
    rgpu_put_i(c, attr);
    rgpu_put_d(c, device);
}

void rgpu_wire_out_cudaDeviceGetAttribute(rgpu_call *c, int64_t *value)
{
    *value = rgpu_out_i(c);
}

void rgpu_wire_cudaStreamAttachMemAsync(rgpu_call *c, const void *stream, uint64_t devPtr, uint64_t length, uint64_t flags)
{
    rgpu_begin(c, RGPU_ID_cudaStreamAttachMemAsync, "cudaStreamAttachMemAsync", RGPU_RUNTIME, RGPU_FLAGS_cudaStreamAttachMemAsync);
    rgpu_put_h(c, stream);
    rgpu_put_u(c, devPtr);
    rgpu_put_u(c, length);
    rgpu_put_u(c, flags);
}

void rgpu_wire_cudaLaunchKernel(rgpu_call *c, const void *f, uint64_t gridDimX, uint64_t gridDimY, uint64_t gridDimZ, uint64_t blockDimX, uint64_t blockDimY, uint64_t blockDimZ, uint64_t sharedMemBytes, const void *hStream, const void *params, size_t params_size)
{
    rgpu_begin(c, RGPU_ID_cudaLaunchKernel, "cudaLaunchKernel", RGPU_RUNTIME, RGPU_FLAGS_cudaLaunchKernel);
    rgpu_put_h(c, f);
    rgpu_put_u(c, gridDimX);
    rgpu_put_u(c, gridDimY);
    rgpu_put_u(c, gridDimZ);
    rgpu_put_u(c, blockDimX);
    rgpu_put_u(c, blockDimY);
    rgpu_put_u(c, blockDimZ);
    rgpu_put_u(c, sharedMemBytes);
    rgpu_put_h(c, hStream);
    rgpu_put_b(c, params, params_size);
}

void rgpu_wire_cudaLaunchCooperativeKernel(rgpu_call *c, const void *f, uint64_t gridDimX, uint64_t gridDimY, uint64_t gridDimZ, uint64_t blockDimX, uint64_t blockDimY, uint64_t blockDimZ, uint64_t sharedMemBytes, const void *hStream, const void *params, size_t params_size)
{
    rgpu_begin(c, RGPU_ID_cudaLaunchCooperativeKernel, "cudaLaunchCooperativeKernel", RGPU_RUNTIME, RGPU_FLAGS_cudaLaunchCooperativeKernel);
    rgpu_put_h(c, f);
    rgpu_put_u(c, gridDimX);
    rgpu_put_u(c, gridDimY);
    rgpu_put_u(c, gridDimZ);
    rgpu_put_u(c, blockDimX);
    rgpu_put_u(c, blockDimY);
    rgpu_put_u(c, blockDimZ);
    rgpu_put_u(c, sharedMemBytes);
    rgpu_put_h(c, hStream);
    rgpu_put_b(c, params, params_size);
}

void rgpu_wire_cudaMallocManaged(rgpu_call *c, uint64_t size, uint64_t flags)
{
    rgpu_begin(c, RGPU_ID_cudaMallocManaged, "cudaMallocManaged", RGPU_RUNTIME, RGPU_FLAGS_cudaMallocManaged);
    rgpu_put_u(c, size);
    rgpu_put_u(c, flags);
}

void rgpu_wire_out_cudaMallocManaged(rgpu_call *c, uint64_t *devPtr, uint64_t *mapped)
{
    *devPtr = rgpu_out_u(c);
    *mapped = rgpu_out_u(c);
}

void rgpu_wire_cudaMalloc(rgpu_call *c, uint64_t size)
{
    rgpu_begin(c, RGPU_ID_cudaMalloc, "cudaMalloc", RGPU_RUNTIME, RGPU_FLAGS_cudaMalloc);
    rgpu_put_u(c, size);
}

void rgpu_wire_out_cudaMalloc(rgpu_call *c, uint64_t *devPtr)
{
    *devPtr = rgpu_out_u(c);
}

void rgpu_wire_cudaMallocPitch(rgpu_call *c, uint64_t width, uint64_t height)
{
    rgpu_begin(c, RGPU_ID_cudaMallocPitch, "cudaMallocPitch", RGPU_RUNTIME, RGPU_FLAGS_cudaMallocPitch);
    rgpu_put_u(c, width);
    rgpu_put_u(c, height);
}

void rgpu_wire_out_cudaMallocPitch(rgpu_call *c, uint64_t *devPtr, uint64_t *pitch)
{
    *devPtr = rgpu_out_u(c);
    *pitch = rgpu_out_u(c);
}

void rgpu_wire_cudaFree(rgpu_call *c, uint64_t devPtr)
{
    rgpu_begin(c, RGPU_ID_cudaFree, "cudaFree", RGPU_RUNTIME, RGPU_FLAGS_cudaFree);
    rgpu_put_u(c, devPtr);
}

void rgpu_wire_cudaMemcpy(rgpu_call *c, uint64_t dst, uint64_t src, uint64_t count, int64_t kind)
{
    rgpu_begin(c, RGPU_ID_cudaMemcpy, "cudaMemcpy", RGPU_RUNTIME, RGPU_FLAGS_cudaMemcpy);
    rgpu_put_u(c, dst);
    rgpu_put_u(c, src);
    rgpu_put_u(c, count);
    rgpu_put_i(c, kind);
}

void rgpu_wire_cudaMemcpy2D(rgpu_call *c, uint64_t dst, uint64_t dpitch, uint64_t src, uint64_t spitch, uint64_t width, uint64_t height, int64_t kind)
{
    rgpu_begin(c, RGPU_ID_cudaMemcpy2D, "cudaMemcpy2D", RGPU_RUNTIME, RGPU_FLAGS_cudaMemcpy2D);
    rgpu_put_u(c, dst);
    rgpu_put_u(c, dpitch);
    rgpu_put_u(c, src);
    rgpu_put_u(c, spitch);
    rgpu_put_u(c, width);
    rgpu_put_u(c, height);
    rgpu_put_i(c, kind);
}

void rgpu_wire_cudaMemcpyAsync(rgpu_call *c, uint64_t dst, uint64_t src, uint64_t count, int64_t kind, const void *stream)
{
    rgpu_begin(c, RGPU_ID_cudaMemcpyAsync, "cudaMemcpyAsync", RGPU_RUNTIME, RGPU_FLAGS_cudaMemcpyAsync);
    rgpu_put_u(c, dst);
    rgpu_put_u(c, src);
    rgpu_put_u(c, count);
    rgpu_put_i(c, kind);
    rgpu_put_h(c, stream);
}

void rgpu_wire_cudaMemcpy2DAsync(rgpu_call *c, uint64_t dst, uint64_t dpitch, uint64_t src, uint64_t spitch, uint64_t width, uint64_t height, int64_t kind, const void *stream)
{
    rgpu_begin(c, RGPU_ID_cudaMemcpy2DAsync, "cudaMemcpy2DAsync", RGPU_RUNTIME, RGPU_FLAGS_cudaMemcpy2DAsync);
    rgpu_put_u(c, dst);
    rgpu_put_u(c, dpitch);
    rgpu_put_u(c, src);
    rgpu_put_u(c, spitch);
    rgpu_put_u(c, width);
    rgpu_put_u(c, height);
    rgpu_put_i(c, kind);
    rgpu_put_h(c, stream);
}

void rgpu_wire_cudaMemPoolSetAttribute(rgpu_call *c, const void *memPool, int64_t attr, uint64_t value)
{
    rgpu_begin(c, RGPU_ID_cudaMemPoolSetAttribute, "cudaMemPoolSetAttribute", RGPU_RUNTIME, RGPU_FLAGS_cudaMemPoolSetAttribute);
    rgpu_put_h(c, memPool);
    rgpu_put_i(c, attr);
    rgpu_put_u(c, value);
}

void rgpu_wire_cudaMemPoolGetAttribute(rgpu_call *c, const void *memPool, int64_t attr)
{
    rgpu_begin(c, RGPU_ID_cudaMemPoolGetAttribute, "cudaMemPoolGetAttribute", RGPU_RUNTIME, RGPU_FLAGS_cudaMemPoolGetAttribute);
    rgpu_put_h(c, memPool);
    rgpu_put_i(c, attr);
}

void rgpu_wire_out_cudaMemPoolGetAttribute(rgpu_call *c, uint64_t *value)
{
    *value = rgpu_out_u(c);
}

void rgpu_wire_cudaPointerGetAttributes(rgpu_call *c, uint64_t ptr)
{
    rgpu_begin(c, RGPU_ID_cudaPointerGetAttributes, "cudaPointerGetAttributes", RGPU_RUNTIME, RGPU_FLAGS_cudaPointerGetAttributes);
    rgpu_put_u(c, ptr);
}

void rgpu_wire_out_cudaPointerGetAttributes(rgpu_call *c, void *attributes, size_t attributes_size)
{
    rgpu_out_b(c, attributes, attributes_size);
}

void rgpu_wire_rgpuGraphBuild(rgpu_call *c, const void *hStream, const void *nodes, size_t nodes_size)
{
    rgpu_begin(c, RGPU_ID_rgpuGraphBuild, "rgpuGraphBuild", RGPU_DRIVER, RGPU_FLAGS_rgpuGraphBuild);
    rgpu_put_h(c, hStream);
    rgpu_put_b(c, nodes, nodes_size);
}

void rgpu_wire_out_rgpuGraphBuild(rgpu_call *c, void **graph)
{
    *graph = rgpu_out_h(c);
}

void rgpu_wire_rgpuGraphLaunch(rgpu_call *c, const void *hGraph, const void *hStream)
{
    rgpu_begin(c, RGPU_ID_rgpuGraphLaunch, "rgpuGraphLaunch", RGPU_DRIVER, RGPU_FLAGS_rgpuGraphLaunch);
    rgpu_put_h(c, hGraph);
    rgpu_put_h(c, hStream);
}

void rgpu_wire_rgpuGraphDestroy(rgpu_call *c, const void *hGraph)
{
    rgpu_begin(c, RGPU_ID_rgpuGraphDestroy, "rgpuGraphDestroy", RGPU_DRIVER, RGPU_FLAGS_rgpuGraphDestroy);
    rgpu_put_h(c, hGraph);
}

void rgpu_wire_rgpuManagedPull(rgpu_call *c, uint64_t addr, uint64_t count, const void *known, size_t known_size)
{
    rgpu_begin(c, RGPU_ID_rgpuManagedPull, "rgpuManagedPull", RGPU_DRIVER, RGPU_FLAGS_rgpuManagedPull);
    rgpu_put_u(c, addr);
    rgpu_put_u(c, count);
    rgpu_put_b(c, known, known_size);
}

void rgpu_wire_out_rgpuManagedPull(rgpu_call *c, void *digest, size_t digest_size)
{
    rgpu_out_b(c, digest, digest_size);
}

void rgpu_wire_rgpuMemPlacement(rgpu_call *c)
{
    rgpu_begin(c, RGPU_ID_rgpuMemPlacement, "rgpuMemPlacement", RGPU_DRIVER, RGPU_FLAGS_rgpuMemPlacement);
}

void rgpu_wire_out_rgpuMemPlacement(rgpu_call *c, uint64_t *base, uint64_t *span, uint64_t *granule, uint64_t *guard, uint64_t *charge_unit, uint64_t *spare_cap, uint64_t *spare, uint64_t *pitch_align)
{
    *base = rgpu_out_u(c);
    *span = rgpu_out_u(c);
    *granule = rgpu_out_u(c);
    *guard = rgpu_out_u(c);
    *charge_unit = rgpu_out_u(c);
    *spare_cap = rgpu_out_u(c);
    *spare = rgpu_out_u(c);
    *pitch_align = rgpu_out_u(c);
}

void rgpu_wire_rgpuMemPlace(rgpu_call *c, uint64_t addr, uint64_t size, uint64_t span)
{
    rgpu_begin(c, RGPU_ID_rgpuMemPlace, "rgpuMemPlace", RGPU_DRIVER, RGPU_FLAGS_rgpuMemPlace);
    rgpu_put_u(c, addr);
    rgpu_put_u(c, size);
    rgpu_put_u(c, span);
}

void rgpu_wire_rgpuMemPlaceGrant(rgpu_call *c, uint64_t addr, uint64_t size, uint64_t span, uint64_t want)
{
    rgpu_begin(c, RGPU_ID_rgpuMemPlaceGrant, "rgpuMemPlaceGrant", RGPU_DRIVER, RGPU_FLAGS_rgpuMemPlaceGrant);
    rgpu_put_u(c, addr);
    rgpu_put_u(c, size);
    rgpu_put_u(c, span);
    rgpu_put_u(c, want);
}

void rgpu_wire_out_rgpuMemPlaceGrant(rgpu_call *c, uint64_t *spare)
{
    *spare = rgpu_out_u(c);
}

void rgpu_wire_rgpuMemcpyToSymbol(rgpu_call *c, const void *module, const char *name, uint64_t offset, uint64_t count)
{
    rgpu_begin(c, RGPU_ID_rgpuMemcpyToSymbol, "rgpuMemcpyToSymbol", RGPU_DRIVER, RGPU_FLAGS_rgpuMemcpyToSymbol);
    rgpu_put_h(c, module);
    rgpu_put_s(c, name);
    rgpu_put_u(c, offset);
    rgpu_put_u(c, count);
}

void rgpu_wire_rgpuMemcpyToSymbolAsync(rgpu_call *c, const void *module, const char *name, uint64_t offset, uint64_t count, const void *stream)
{
    rgpu_begin(c, RGPU_ID_rgpuMemcpyToSymbolAsync, "rgpuMemcpyToSymbolAsync", RGPU_DRIVER, RGPU_FLAGS_rgpuMemcpyToSymbolAsync);
    rgpu_put_h(c, module);
    rgpu_put_s(c, name);
    rgpu_put_u(c, offset);
    rgpu_put_u(c, count);
    rgpu_put_h(c, stream);
}

void rgpu_wire_rgpuMemcpyFromSymbol(rgpu_call *c, const void *module, const char *name, uint64_t offset, uint64_t count, const void *stream)
{
    rgpu_begin(c, RGPU_ID_rgpuMemcpyFromSymbol, "rgpuMemcpyFromSymbol", RGPU_DRIVER, RGPU_FLAGS_rgpuMemcpyFromSymbol);
    rgpu_put_h(c, module);
    rgpu_put_s(c, name);
    rgpu_put_u(c, offset);
    rgpu_put_u(c, count);
    rgpu_put_h(c, stream);
}

void rgpu_wire_rgpuModuleGlobalSize(rgpu_call *c, const void *module, const char *name)
{
    rgpu_begin(c, RGPU_ID_rgpuModuleGlobalSize, "rgpuModuleGlobalSize", RGPU_DRIVER, RGPU_FLAGS_rgpuModuleGlobalSize);
    rgpu_put_h(c, module);
    rgpu_put_s(c, name);
}

void rgpu_wire_out_rgpuModuleGlobalSize(rgpu_call *c, uint64_t *bytes)
{
    *bytes = rgpu_out_u(c);
}

void rgpu_wire_rgpuPointerFacts(rgpu_call *c, uint64_t ptr)
{
    rgpu_begin(c, RGPU_ID_rgpuPointerFacts, "rgpuPointerFacts", RGPU_DRIVER, RGPU_FLAGS_rgpuPointerFacts);
    rgpu_put_u(c, ptr);
}

void rgpu_wire_out_rgpuPointerFacts(rgpu_call *c, void **pool, uint64_t *legacy_ipc, uint64_t *mapping_base, uint64_t *mapping_size)
{
    *pool = rgpu_out_h(c);
    *legacy_ipc = rgpu_out_u(c);
    *mapping_base = rgpu_out_u(c);
    *mapping_size = rgpu_out_u(c);
}
