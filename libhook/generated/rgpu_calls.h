/* generated from CUDA 13.0 and protocol/contract by protocol/codegen — do not edit */
#ifndef RGPU_CALLS_H
#define RGPU_CALLS_H

struct rgpu_call;

/* Hand-written calls: rgpu_wire_NAME begins the call and puts its arguments, rgpu_wire_out_NAME reads its out-values. */
/* cuDeviceGetName (state/devfacts.c): len:i, dev:d; outs name:oa */
void rgpu_wire_cuDeviceGetName(struct rgpu_call *c, int64_t len, int dev);
void rgpu_wire_out_cuDeviceGetName(struct rgpu_call *c, void *name, size_t name_size);
/* cuDeviceGetUuid_v2 (state/devfacts.c): dev:d; outs uuid:ob */
void rgpu_wire_cuDeviceGetUuid_v2(struct rgpu_call *c, int dev);
void rgpu_wire_out_cuDeviceGetUuid_v2(struct rgpu_call *c, void *uuid, size_t uuid_size);
/* cuDeviceTotalMem_v2 (state/devfacts.c): dev:d; outs bytes:ou */
void rgpu_wire_cuDeviceTotalMem_v2(struct rgpu_call *c, int dev);
void rgpu_wire_out_cuDeviceTotalMem_v2(struct rgpu_call *c, uint64_t *bytes);
/* cuDeviceGetAttribute (state/devfacts.c): attrib:i, dev:d; outs pi:oi */
void rgpu_wire_cuDeviceGetAttribute(struct rgpu_call *c, int64_t attrib, int dev);
void rgpu_wire_out_cuDeviceGetAttribute(struct rgpu_call *c, int64_t *pi);
/* cuDeviceComputeCapability (state/devfacts.c): dev:d; outs major:oi, minor:oi */
void rgpu_wire_cuDeviceComputeCapability(struct rgpu_call *c, int dev);
void rgpu_wire_out_cuDeviceComputeCapability(struct rgpu_call *c, int64_t *major, int64_t *minor);
/* cuCtxGetLimit (driver/limits.c): limit:i; outs pvalue:ou */
void rgpu_wire_cuCtxGetLimit(struct rgpu_call *c, int64_t limit);
void rgpu_wire_out_cuCtxGetLimit(struct rgpu_call *c, uint64_t *pvalue);
/* cuCtxRecordEvent (stream/streams.c): hEvent:h */
void rgpu_wire_cuCtxRecordEvent(struct rgpu_call *c, const void *hEvent);
/* cuCtxWaitEvent (stream/streams.c): hEvent:h */
void rgpu_wire_cuCtxWaitEvent(struct rgpu_call *c, const void *hEvent);
/* cuModuleLoadData (module/launch.c): digest:s, size:u, companion:s, companion_size:u, sent:u, frames:u; outs module:oh; bulk in frames */
void rgpu_wire_cuModuleLoadData(struct rgpu_call *c, const char *digest, uint64_t size, const char *companion, uint64_t companion_size, uint64_t sent, uint64_t frames);
void rgpu_wire_out_cuModuleLoadData(struct rgpu_call *c, void **module);
/* cuMemAlloc_v2 (memory/placed.c): bytesize:u; outs dptr:ou */
void rgpu_wire_cuMemAlloc_v2(struct rgpu_call *c, uint64_t bytesize);
void rgpu_wire_out_cuMemAlloc_v2(struct rgpu_call *c, uint64_t *dptr);
/* cuMemAllocPitch_v2 (memory/placed.c): WidthInBytes:u, Height:u, ElementSizeBytes:u; outs dptr:ou, pPitch:ou */
void rgpu_wire_cuMemAllocPitch_v2(struct rgpu_call *c, uint64_t WidthInBytes, uint64_t Height, uint64_t ElementSizeBytes);
void rgpu_wire_out_cuMemAllocPitch_v2(struct rgpu_call *c, uint64_t *dptr, uint64_t *pPitch);
/* cuMemFree_v2 (managed/managed.c): dptr:u */
void rgpu_wire_cuMemFree_v2(struct rgpu_call *c, uint64_t dptr);
/* cuMemAllocManaged (managed/managed.c): bytesize:u, flags:u; outs dptr:ou, mapped:ou */
void rgpu_wire_cuMemAllocManaged(struct rgpu_call *c, uint64_t bytesize, uint64_t flags);
void rgpu_wire_out_cuMemAllocManaged(struct rgpu_call *c, uint64_t *dptr, uint64_t *mapped);
/* cuMemcpyHtoD_v2 (memory/memcpy.c): dstDevice:u, ByteCount:u; bulk in ByteCount */
void rgpu_wire_cuMemcpyHtoD_v2(struct rgpu_call *c, uint64_t dstDevice, uint64_t ByteCount);
/* cuMemcpyDtoH_v2 (memory/memcpy.c): srcDevice:u, ByteCount:u; bulk out ByteCount */
void rgpu_wire_cuMemcpyDtoH_v2(struct rgpu_call *c, uint64_t srcDevice, uint64_t ByteCount);
/* cuMemcpyHtoA_v2 (memory/array_copy.c): dstArray:h, dstOffset:u, ByteCount:u; bulk in ByteCount */
void rgpu_wire_cuMemcpyHtoA_v2(struct rgpu_call *c, const void *dstArray, uint64_t dstOffset, uint64_t ByteCount);
/* cuMemcpyAtoH_v2 (memory/array_copy.c): srcArray:h, srcOffset:u, ByteCount:u; bulk out ByteCount */
void rgpu_wire_cuMemcpyAtoH_v2(struct rgpu_call *c, const void *srcArray, uint64_t srcOffset, uint64_t ByteCount);
/* cuMemcpy3D_v2 (memory/memcpy3d.c): srcArray:h, srcDevice:u, srcPitch:u, srcHeight:u, srcXInBytes:u, srcY:u, srcZ:u, dstArray:h, dstDevice:u, dstPitch:u, dstHeight:u, dstXInBytes:u, dstY:u, dstZ:u, WidthInBytes:u, Height:u, Depth:u; bulk in WidthInBytes * Height * Depth; bulk out WidthInBytes * Height * Depth */
void rgpu_wire_cuMemcpy3D_v2(struct rgpu_call *c, const void *srcArray, uint64_t srcDevice, uint64_t srcPitch, uint64_t srcHeight, uint64_t srcXInBytes, uint64_t srcY, uint64_t srcZ, const void *dstArray, uint64_t dstDevice, uint64_t dstPitch, uint64_t dstHeight, uint64_t dstXInBytes, uint64_t dstY, uint64_t dstZ, uint64_t WidthInBytes, uint64_t Height, uint64_t Depth);
/* cuMemcpyHtoDAsync_v2 (memory/memcpy.c): dstDevice:u, ByteCount:u, hStream:h; bulk in ByteCount */
void rgpu_wire_cuMemcpyHtoDAsync_v2(struct rgpu_call *c, uint64_t dstDevice, uint64_t ByteCount, const void *hStream);
/* cuMemcpyDtoHAsync_v2 (memory/memcpy.c): srcDevice:u, ByteCount:u, hStream:h; bulk out ByteCount */
void rgpu_wire_cuMemcpyDtoHAsync_v2(struct rgpu_call *c, uint64_t srcDevice, uint64_t ByteCount, const void *hStream);
/* cuMemcpyHtoAAsync_v2 (memory/array_copy.c): dstArray:h, dstOffset:u, ByteCount:u, hStream:h; bulk in ByteCount */
void rgpu_wire_cuMemcpyHtoAAsync_v2(struct rgpu_call *c, const void *dstArray, uint64_t dstOffset, uint64_t ByteCount, const void *hStream);
/* cuMemcpyAtoHAsync_v2 (memory/array_copy.c): srcArray:h, srcOffset:u, ByteCount:u, hStream:h; bulk out ByteCount */
void rgpu_wire_cuMemcpyAtoHAsync_v2(struct rgpu_call *c, const void *srcArray, uint64_t srcOffset, uint64_t ByteCount, const void *hStream);
/* cuMemcpy3DAsync_v2 (memory/memcpy3d.c): srcArray:h, srcDevice:u, srcPitch:u, srcHeight:u, srcXInBytes:u, srcY:u, srcZ:u, dstArray:h, dstDevice:u, dstPitch:u, dstHeight:u, dstXInBytes:u, dstY:u, dstZ:u, WidthInBytes:u, Height:u, Depth:u, hStream:h; bulk in WidthInBytes * Height * Depth; bulk out WidthInBytes * Height * Depth */
void rgpu_wire_cuMemcpy3DAsync_v2(struct rgpu_call *c, const void *srcArray, uint64_t srcDevice, uint64_t srcPitch, uint64_t srcHeight, uint64_t srcXInBytes, uint64_t srcY, uint64_t srcZ, const void *dstArray, uint64_t dstDevice, uint64_t dstPitch, uint64_t dstHeight, uint64_t dstXInBytes, uint64_t dstY, uint64_t dstZ, uint64_t WidthInBytes, uint64_t Height, uint64_t Depth, const void *hStream);
/* cuArrayCreate_v2 (texture/arrays.c): pAllocateArray:b; outs pHandle:oh */
void rgpu_wire_cuArrayCreate_v2(struct rgpu_call *c, const void *pAllocateArray, size_t pAllocateArray_size);
void rgpu_wire_out_cuArrayCreate_v2(struct rgpu_call *c, void **pHandle);
/* cuArrayDestroy (texture/arrays.c): hArray:h */
void rgpu_wire_cuArrayDestroy(struct rgpu_call *c, const void *hArray);
/* cuArray3DCreate_v2 (texture/arrays.c): pAllocateArray:b; outs pHandle:oh */
void rgpu_wire_cuArray3DCreate_v2(struct rgpu_call *c, const void *pAllocateArray, size_t pAllocateArray_size);
void rgpu_wire_out_cuArray3DCreate_v2(struct rgpu_call *c, void **pHandle);
/* cuMipmappedArrayCreate (texture/arrays.c): pMipmappedArrayDesc:b, numMipmapLevels:u; outs pHandle:oh */
void rgpu_wire_cuMipmappedArrayCreate(struct rgpu_call *c, const void *pMipmappedArrayDesc, size_t pMipmappedArrayDesc_size, uint64_t numMipmapLevels);
void rgpu_wire_out_cuMipmappedArrayCreate(struct rgpu_call *c, void **pHandle);
/* cuMipmappedArrayGetLevel (texture/arrays.c): hMipmappedArray:h, level:u; outs pLevelArray:oh */
void rgpu_wire_cuMipmappedArrayGetLevel(struct rgpu_call *c, const void *hMipmappedArray, uint64_t level);
void rgpu_wire_out_cuMipmappedArrayGetLevel(struct rgpu_call *c, void **pLevelArray);
/* cuMipmappedArrayDestroy (texture/arrays.c): hMipmappedArray:h */
void rgpu_wire_cuMipmappedArrayDestroy(struct rgpu_call *c, const void *hMipmappedArray);
/* cuMemPoolSetAttribute (memory/pools.c): pool:h, attr:i, value:u */
void rgpu_wire_cuMemPoolSetAttribute(struct rgpu_call *c, const void *pool, int64_t attr, uint64_t value);
/* cuMemPoolGetAttribute (memory/pools.c): pool:h, attr:i; outs value:ou */
void rgpu_wire_cuMemPoolGetAttribute(struct rgpu_call *c, const void *pool, int64_t attr);
void rgpu_wire_out_cuMemPoolGetAttribute(struct rgpu_call *c, uint64_t *value);
/* cuStreamAttachMemAsync (managed/managed.c): hStream:h, dptr:u, length:u, flags:u */
void rgpu_wire_cuStreamAttachMemAsync(struct rgpu_call *c, const void *hStream, uint64_t dptr, uint64_t length, uint64_t flags);
/* cuFuncGetAttribute (module/func_facts.c): attrib:i, hfunc:h; outs pi:oi */
void rgpu_wire_cuFuncGetAttribute(struct rgpu_call *c, int64_t attrib, const void *hfunc);
void rgpu_wire_out_cuFuncGetAttribute(struct rgpu_call *c, int64_t *pi);
/* cuFuncSetAttribute (module/func_facts.c): hfunc:h, attrib:i, value:i */
void rgpu_wire_cuFuncSetAttribute(struct rgpu_call *c, const void *hfunc, int64_t attrib, int64_t value);
/* cuFuncGetName (module/library.c): hfunc:h; outs name:os */
void rgpu_wire_cuFuncGetName(struct rgpu_call *c, const void *hfunc);
void rgpu_wire_out_cuFuncGetName(struct rgpu_call *c, char *name, size_t name_size);
/* cuLaunchKernel (module/launch.c): f:h, gridDimX:u, gridDimY:u, gridDimZ:u, blockDimX:u, blockDimY:u, blockDimZ:u, sharedMemBytes:u, hStream:h, params:b */
void rgpu_wire_cuLaunchKernel(struct rgpu_call *c, const void *f, uint64_t gridDimX, uint64_t gridDimY, uint64_t gridDimZ, uint64_t blockDimX, uint64_t blockDimY, uint64_t blockDimZ, uint64_t sharedMemBytes, const void *hStream, const void *params, size_t params_size);
/* cuLaunchKernelEx (module/library.c): f:h, gridDimX:u, gridDimY:u, gridDimZ:u, blockDimX:u, blockDimY:u, blockDimZ:u, sharedMemBytes:u, hStream:h, clusterDimX:u, clusterDimY:u, clusterDimZ:u, policy:u, params:b */
void rgpu_wire_cuLaunchKernelEx(struct rgpu_call *c, const void *f, uint64_t gridDimX, uint64_t gridDimY, uint64_t gridDimZ, uint64_t blockDimX, uint64_t blockDimY, uint64_t blockDimZ, uint64_t sharedMemBytes, const void *hStream, uint64_t clusterDimX, uint64_t clusterDimY, uint64_t clusterDimZ, uint64_t policy, const void *params, size_t params_size);
/* cuLaunchCooperativeKernel (module/launch.c): f:h, gridDimX:u, gridDimY:u, gridDimZ:u, blockDimX:u, blockDimY:u, blockDimZ:u, sharedMemBytes:u, hStream:h, params:b */
void rgpu_wire_cuLaunchCooperativeKernel(struct rgpu_call *c, const void *f, uint64_t gridDimX, uint64_t gridDimY, uint64_t gridDimZ, uint64_t blockDimX, uint64_t blockDimY, uint64_t blockDimZ, uint64_t sharedMemBytes, const void *hStream, const void *params, size_t params_size);
/* cuOccupancyMaxActiveBlocksPerMultiprocessor (module/func_facts.c): func:h, blockSize:i, dynamicSMemSize:u; outs numBlocks:oi */
void rgpu_wire_cuOccupancyMaxActiveBlocksPerMultiprocessor(struct rgpu_call *c, const void *func, int64_t blockSize, uint64_t dynamicSMemSize);
void rgpu_wire_out_cuOccupancyMaxActiveBlocksPerMultiprocessor(struct rgpu_call *c, int64_t *numBlocks);
/* cuOccupancyMaxActiveBlocksPerMultiprocessorWithFlags (module/func_facts.c): func:h, blockSize:i, dynamicSMemSize:u, flags:u; outs numBlocks:oi */
void rgpu_wire_cuOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(struct rgpu_call *c, const void *func, int64_t blockSize, uint64_t dynamicSMemSize, uint64_t flags);
void rgpu_wire_out_cuOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(struct rgpu_call *c, int64_t *numBlocks);
/* cuOccupancyMaxPotentialClusterSize (module/func_facts.c): f:h, gridDimX:u, gridDimY:u, gridDimZ:u, blockDimX:u, blockDimY:u, blockDimZ:u, sharedMemBytes:u, clusterDimX:u, clusterDimY:u, clusterDimZ:u, policy:u; outs clusterSize:oi */
void rgpu_wire_cuOccupancyMaxPotentialClusterSize(struct rgpu_call *c, const void *f, uint64_t gridDimX, uint64_t gridDimY, uint64_t gridDimZ, uint64_t blockDimX, uint64_t blockDimY, uint64_t blockDimZ, uint64_t sharedMemBytes, uint64_t clusterDimX, uint64_t clusterDimY, uint64_t clusterDimZ, uint64_t policy);
void rgpu_wire_out_cuOccupancyMaxPotentialClusterSize(struct rgpu_call *c, int64_t *clusterSize);
/* cuOccupancyMaxActiveClusters (module/func_facts.c): f:h, gridDimX:u, gridDimY:u, gridDimZ:u, blockDimX:u, blockDimY:u, blockDimZ:u, sharedMemBytes:u, clusterDimX:u, clusterDimY:u, clusterDimZ:u, policy:u; outs numClusters:oi */
void rgpu_wire_cuOccupancyMaxActiveClusters(struct rgpu_call *c, const void *f, uint64_t gridDimX, uint64_t gridDimY, uint64_t gridDimZ, uint64_t blockDimX, uint64_t blockDimY, uint64_t blockDimZ, uint64_t sharedMemBytes, uint64_t clusterDimX, uint64_t clusterDimY, uint64_t clusterDimZ, uint64_t policy);
void rgpu_wire_out_cuOccupancyMaxActiveClusters(struct rgpu_call *c, int64_t *numClusters);
/* cuTexObjectCreate (texture/texobj.c): pResDesc:b, pTexDesc:b, pResViewDesc:b; outs pTexObject:ou */
void rgpu_wire_cuTexObjectCreate(struct rgpu_call *c, const void *pResDesc, size_t pResDesc_size, const void *pTexDesc, size_t pTexDesc_size, const void *pResViewDesc, size_t pResViewDesc_size);
void rgpu_wire_out_cuTexObjectCreate(struct rgpu_call *c, uint64_t *pTexObject);
/* cuTexObjectGetResourceDesc (texture/texobj.c): texObject:u; outs pResDesc:ob */
void rgpu_wire_cuTexObjectGetResourceDesc(struct rgpu_call *c, uint64_t texObject);
void rgpu_wire_out_cuTexObjectGetResourceDesc(struct rgpu_call *c, void *pResDesc, size_t pResDesc_size);
/* cuSurfObjectCreate (texture/texobj.c): pResDesc:b; outs pSurfObject:ou */
void rgpu_wire_cuSurfObjectCreate(struct rgpu_call *c, const void *pResDesc, size_t pResDesc_size);
void rgpu_wire_out_cuSurfObjectCreate(struct rgpu_call *c, uint64_t *pSurfObject);
/* cuSurfObjectGetResourceDesc (texture/texobj.c): surfObject:u; outs pResDesc:ob */
void rgpu_wire_cuSurfObjectGetResourceDesc(struct rgpu_call *c, uint64_t surfObject);
void rgpu_wire_out_cuSurfObjectGetResourceDesc(struct rgpu_call *c, void *pResDesc, size_t pResDesc_size);
/* cuTensorMapEncodeTiled (texture/tensormap.c): tensorDataType:u, tensorRank:u, globalAddress:u, globalDim:b, globalStrides:b, boxDim:b, elementStrides:b, interleave:u, swizzle:u, l2Promotion:u, oobFill:u; outs tensorMap:ob */
void rgpu_wire_cuTensorMapEncodeTiled(struct rgpu_call *c, uint64_t tensorDataType, uint64_t tensorRank, uint64_t globalAddress, const void *globalDim, size_t globalDim_size, const void *globalStrides, size_t globalStrides_size, const void *boxDim, size_t boxDim_size, const void *elementStrides, size_t elementStrides_size, uint64_t interleave, uint64_t swizzle, uint64_t l2Promotion, uint64_t oobFill);
void rgpu_wire_out_cuTensorMapEncodeTiled(struct rgpu_call *c, void *tensorMap, size_t tensorMap_size);
/* cuTensorMapEncodeIm2col (texture/tensormap.c): tensorDataType:u, tensorRank:u, globalAddress:u, globalDim:b, globalStrides:b, pixelBoxLowerCorner:b, pixelBoxUpperCorner:b, channelsPerPixel:u, pixelsPerColumn:u, elementStrides:b, interleave:u, swizzle:u, l2Promotion:u, oobFill:u; outs tensorMap:ob */
void rgpu_wire_cuTensorMapEncodeIm2col(struct rgpu_call *c, uint64_t tensorDataType, uint64_t tensorRank, uint64_t globalAddress, const void *globalDim, size_t globalDim_size, const void *globalStrides, size_t globalStrides_size, const void *pixelBoxLowerCorner, size_t pixelBoxLowerCorner_size, const void *pixelBoxUpperCorner, size_t pixelBoxUpperCorner_size, uint64_t channelsPerPixel, uint64_t pixelsPerColumn, const void *elementStrides, size_t elementStrides_size, uint64_t interleave, uint64_t swizzle, uint64_t l2Promotion, uint64_t oobFill);
void rgpu_wire_out_cuTensorMapEncodeIm2col(struct rgpu_call *c, void *tensorMap, size_t tensorMap_size);
/* cuTensorMapEncodeIm2colWide (texture/tensormap.c): tensorDataType:u, tensorRank:u, globalAddress:u, globalDim:b, globalStrides:b, pixelBoxLowerCornerWidth:i, pixelBoxUpperCornerWidth:i, channelsPerPixel:u, pixelsPerColumn:u, elementStrides:b, interleave:u, mode:u, swizzle:u, l2Promotion:u, oobFill:u; outs tensorMap:ob */
void rgpu_wire_cuTensorMapEncodeIm2colWide(struct rgpu_call *c, uint64_t tensorDataType, uint64_t tensorRank, uint64_t globalAddress, const void *globalDim, size_t globalDim_size, const void *globalStrides, size_t globalStrides_size, int64_t pixelBoxLowerCornerWidth, int64_t pixelBoxUpperCornerWidth, uint64_t channelsPerPixel, uint64_t pixelsPerColumn, const void *elementStrides, size_t elementStrides_size, uint64_t interleave, uint64_t mode, uint64_t swizzle, uint64_t l2Promotion, uint64_t oobFill);
void rgpu_wire_out_cuTensorMapEncodeIm2colWide(struct rgpu_call *c, void *tensorMap, size_t tensorMap_size);
/* cuTensorMapReplaceAddress (texture/tensormap.c): tensorMap:b, globalAddress:u; outs tensorMap:ob */
void rgpu_wire_cuTensorMapReplaceAddress(struct rgpu_call *c, const void *tensorMap, size_t tensorMap_size, uint64_t globalAddress);
void rgpu_wire_out_cuTensorMapReplaceAddress(struct rgpu_call *c, void *tensorMap, size_t tensorMap_size);
/* cudaGetDeviceProperties (state/devfacts.c): device:d; outs prop:ob */
void rgpu_wire_cudaGetDeviceProperties(struct rgpu_call *c, int device);
void rgpu_wire_out_cudaGetDeviceProperties(struct rgpu_call *c, void *prop, size_t prop_size);
/* cudaDeviceGetAttribute (state/devfacts.c): attr:i, device:d; outs value:oi */
void rgpu_wire_cudaDeviceGetAttribute(struct rgpu_call *c, int64_t attr, int device);
void rgpu_wire_out_cudaDeviceGetAttribute(struct rgpu_call *c, int64_t *value);
/* cudaStreamAttachMemAsync (managed/managed.c): stream:h, devPtr:u, length:u, flags:u */
void rgpu_wire_cudaStreamAttachMemAsync(struct rgpu_call *c, const void *stream, uint64_t devPtr, uint64_t length, uint64_t flags);
/* cudaLaunchKernel (module/launch.c): f:h, gridDimX:u, gridDimY:u, gridDimZ:u, blockDimX:u, blockDimY:u, blockDimZ:u, sharedMemBytes:u, hStream:h, params:b */
void rgpu_wire_cudaLaunchKernel(struct rgpu_call *c, const void *f, uint64_t gridDimX, uint64_t gridDimY, uint64_t gridDimZ, uint64_t blockDimX, uint64_t blockDimY, uint64_t blockDimZ, uint64_t sharedMemBytes, const void *hStream, const void *params, size_t params_size);
/* cudaLaunchCooperativeKernel (module/launch.c): f:h, gridDimX:u, gridDimY:u, gridDimZ:u, blockDimX:u, blockDimY:u, blockDimZ:u, sharedMemBytes:u, hStream:h, params:b */
void rgpu_wire_cudaLaunchCooperativeKernel(struct rgpu_call *c, const void *f, uint64_t gridDimX, uint64_t gridDimY, uint64_t gridDimZ, uint64_t blockDimX, uint64_t blockDimY, uint64_t blockDimZ, uint64_t sharedMemBytes, const void *hStream, const void *params, size_t params_size);
/* cudaMallocManaged (managed/managed.c): size:u, flags:u; outs devPtr:ou, mapped:ou */
void rgpu_wire_cudaMallocManaged(struct rgpu_call *c, uint64_t size, uint64_t flags);
void rgpu_wire_out_cudaMallocManaged(struct rgpu_call *c, uint64_t *devPtr, uint64_t *mapped);
/* cudaMalloc (memory/placed.c): size:u; outs devPtr:ou */
void rgpu_wire_cudaMalloc(struct rgpu_call *c, uint64_t size);
void rgpu_wire_out_cudaMalloc(struct rgpu_call *c, uint64_t *devPtr);
/* cudaMallocPitch (memory/placed.c): width:u, height:u; outs devPtr:ou, pitch:ou */
void rgpu_wire_cudaMallocPitch(struct rgpu_call *c, uint64_t width, uint64_t height);
void rgpu_wire_out_cudaMallocPitch(struct rgpu_call *c, uint64_t *devPtr, uint64_t *pitch);
/* cudaFree (managed/managed.c): devPtr:u */
void rgpu_wire_cudaFree(struct rgpu_call *c, uint64_t devPtr);
/* cudaMemcpy (memory/memcpy.c): dst:u, src:u, count:u, kind:i; bulk in count; bulk out count */
void rgpu_wire_cudaMemcpy(struct rgpu_call *c, uint64_t dst, uint64_t src, uint64_t count, int64_t kind);
/* cudaMemcpy2D (memory/memcpy2d.c): dst:u, dpitch:u, src:u, spitch:u, width:u, height:u, kind:i; bulk in width * height; bulk out width * height */
void rgpu_wire_cudaMemcpy2D(struct rgpu_call *c, uint64_t dst, uint64_t dpitch, uint64_t src, uint64_t spitch, uint64_t width, uint64_t height, int64_t kind);
/* cudaMemcpyAsync (memory/memcpy.c): dst:u, src:u, count:u, kind:i, stream:h; bulk in count; bulk out count */
void rgpu_wire_cudaMemcpyAsync(struct rgpu_call *c, uint64_t dst, uint64_t src, uint64_t count, int64_t kind, const void *stream);
/* cudaMemcpy2DAsync (memory/memcpy2d.c): dst:u, dpitch:u, src:u, spitch:u, width:u, height:u, kind:i, stream:h; bulk in width * height; bulk out width * height */
void rgpu_wire_cudaMemcpy2DAsync(struct rgpu_call *c, uint64_t dst, uint64_t dpitch, uint64_t src, uint64_t spitch, uint64_t width, uint64_t height, int64_t kind, const void *stream);
/* cudaMemPoolSetAttribute (memory/pools.c): memPool:h, attr:i, value:u */
void rgpu_wire_cudaMemPoolSetAttribute(struct rgpu_call *c, const void *memPool, int64_t attr, uint64_t value);
/* cudaMemPoolGetAttribute (memory/pools.c): memPool:h, attr:i; outs value:ou */
void rgpu_wire_cudaMemPoolGetAttribute(struct rgpu_call *c, const void *memPool, int64_t attr);
void rgpu_wire_out_cudaMemPoolGetAttribute(struct rgpu_call *c, uint64_t *value);
/* cudaPointerGetAttributes (memory/pointer.c): ptr:u; outs attributes:ob */
void rgpu_wire_cudaPointerGetAttributes(struct rgpu_call *c, uint64_t ptr);
void rgpu_wire_out_cudaPointerGetAttributes(struct rgpu_call *c, void *attributes, size_t attributes_size);
/* rgpuGraphBuild (graph/graph_server.c): hStream:h, nodes:b; outs graph:oh */
void rgpu_wire_rgpuGraphBuild(struct rgpu_call *c, const void *hStream, const void *nodes, size_t nodes_size);
void rgpu_wire_out_rgpuGraphBuild(struct rgpu_call *c, void **graph);
/* rgpuGraphLaunch (graph/graph_server.c): hGraph:h, hStream:h */
void rgpu_wire_rgpuGraphLaunch(struct rgpu_call *c, const void *hGraph, const void *hStream);
/* rgpuGraphDestroy (graph/graph_server.c): hGraph:h */
void rgpu_wire_rgpuGraphDestroy(struct rgpu_call *c, const void *hGraph);
/* rgpuManagedPull (managed/managed.c): addr:u, count:u, known:b; outs digest:ob; bulk out count */
void rgpu_wire_rgpuManagedPull(struct rgpu_call *c, uint64_t addr, uint64_t count, const void *known, size_t known_size);
void rgpu_wire_out_rgpuManagedPull(struct rgpu_call *c, void *digest, size_t digest_size);
/* rgpuMemPlacement (memory/placed.c): no arguments; outs base:ou, span:ou, granule:ou, guard:ou, charge_unit:ou, spare_cap:ou, spare:ou, pitch_align:ou */
void rgpu_wire_rgpuMemPlacement(struct rgpu_call *c);
void rgpu_wire_out_rgpuMemPlacement(struct rgpu_call *c, uint64_t *base, uint64_t *span, uint64_t *granule, uint64_t *guard, uint64_t *charge_unit, uint64_t *spare_cap, uint64_t *spare, uint64_t *pitch_align);
/* rgpuMemPlace (memory/placed.c): addr:u, size:u, span:u */
void rgpu_wire_rgpuMemPlace(struct rgpu_call *c, uint64_t addr, uint64_t size, uint64_t span);
/* rgpuMemPlaceGrant (memory/placed.c): addr:u, size:u, span:u, want:u; outs spare:ou */
void rgpu_wire_rgpuMemPlaceGrant(struct rgpu_call *c, uint64_t addr, uint64_t size, uint64_t span, uint64_t want);
void rgpu_wire_out_rgpuMemPlaceGrant(struct rgpu_call *c, uint64_t *spare);
/* rgpuMemcpyToSymbol (module/launch.c): module:h, name:s, offset:u, count:u; bulk in count */
void rgpu_wire_rgpuMemcpyToSymbol(struct rgpu_call *c, const void *module, const char *name, uint64_t offset, uint64_t count);
/* rgpuMemcpyToSymbolAsync (module/launch.c): module:h, name:s, offset:u, count:u, stream:h; bulk in count */
void rgpu_wire_rgpuMemcpyToSymbolAsync(struct rgpu_call *c, const void *module, const char *name, uint64_t offset, uint64_t count, const void *stream);
/* rgpuMemcpyFromSymbol (module/launch.c): module:h, name:s, offset:u, count:u, stream:h; bulk out count */
void rgpu_wire_rgpuMemcpyFromSymbol(struct rgpu_call *c, const void *module, const char *name, uint64_t offset, uint64_t count, const void *stream);
/* rgpuModuleGlobalSize (module/launch.c): module:h, name:s; outs bytes:ou */
void rgpu_wire_rgpuModuleGlobalSize(struct rgpu_call *c, const void *module, const char *name);
void rgpu_wire_out_rgpuModuleGlobalSize(struct rgpu_call *c, uint64_t *bytes);
/* rgpuPointerFacts (memory/pointer.c): ptr:u; outs pool:oh, legacy_ipc:ou, mapping_base:ou, mapping_size:ou */
void rgpu_wire_rgpuPointerFacts(struct rgpu_call *c, uint64_t ptr);
void rgpu_wire_out_rgpuPointerFacts(struct rgpu_call *c, void **pool, uint64_t *legacy_ipc, uint64_t *mapping_base, uint64_t *mapping_size);

/* Stream capture hooks (libhook/src/graph/capture.c): 1 when the call became a graph node (its result in *rc). */
int rgpu_capture_cuMemFree_v2(int *rc, CUdeviceptr dptr);
int rgpu_capture_cuMemcpyDtoDAsync_v2(int *rc, CUdeviceptr dstDevice, CUdeviceptr srcDevice, size_t ByteCount, CUstream hStream);
int rgpu_capture_cuMemsetD8Async(int *rc, CUdeviceptr dstDevice, unsigned char uc, size_t N, CUstream hStream);
int rgpu_capture_cuMemsetD16Async(int *rc, CUdeviceptr dstDevice, unsigned short us, size_t N, CUstream hStream);
int rgpu_capture_cuMemsetD32Async(int *rc, CUdeviceptr dstDevice, unsigned int ui, size_t N, CUstream hStream);
int rgpu_capture_cuMemsetD2D8Async(int *rc, CUdeviceptr dstDevice, size_t dstPitch, unsigned char uc, size_t Width, size_t Height, CUstream hStream);
int rgpu_capture_cuMemsetD2D16Async(int *rc, CUdeviceptr dstDevice, size_t dstPitch, unsigned short us, size_t Width, size_t Height, CUstream hStream);
int rgpu_capture_cuMemsetD2D32Async(int *rc, CUdeviceptr dstDevice, size_t dstPitch, unsigned int ui, size_t Width, size_t Height, CUstream hStream);
int rgpu_capture_cuMemFreeAsync(int *rc, CUdeviceptr dptr, CUstream hStream);
int rgpu_capture_cuMemAllocAsync(int *rc, CUdeviceptr *dptr, size_t bytesize, CUstream hStream);
int rgpu_capture_cuStreamWaitEvent(int *rc, CUstream hStream, CUevent hEvent, unsigned int Flags);
int rgpu_capture_cuEventRecord(int *rc, CUevent hEvent, CUstream hStream);
int rgpu_capture_cuEventRecordWithFlags(int *rc, CUevent hEvent, CUstream hStream, unsigned int flags);
int rgpu_capture_cuEventQuery(int *rc, CUevent hEvent);
int rgpu_capture_cuEventSynchronize(int *rc, CUevent hEvent);
int rgpu_capture_cudaStreamWaitEvent(int *rc, cudaStream_t stream, cudaEvent_t event, unsigned int flags);
int rgpu_capture_cudaEventRecord(int *rc, cudaEvent_t event, cudaStream_t stream);
int rgpu_capture_cudaEventRecordWithFlags(int *rc, cudaEvent_t event, cudaStream_t stream, unsigned int flags);
int rgpu_capture_cudaEventQuery(int *rc, cudaEvent_t event);
int rgpu_capture_cudaEventSynchronize(int *rc, cudaEvent_t event);
int rgpu_capture_cudaFree(int *rc, void *devPtr);
int rgpu_capture_cudaMemsetAsync(int *rc, void *devPtr, int value, size_t count, cudaStream_t stream);
int rgpu_capture_cudaMemset2DAsync(int *rc, void *devPtr, size_t pitch, int value, size_t width, size_t height, cudaStream_t stream);
int rgpu_capture_cudaMallocAsync(int *rc, void **devPtr, size_t size, cudaStream_t hStream);
int rgpu_capture_cudaFreeAsync(int *rc, void *devPtr, cudaStream_t hStream);

/* Capture guards of hand-written calls, as their records say: 0, or the error the call returns. */
#define RGPU_GUARD_cuMemAlloc_v2() rgpu_capture_guard(RGPU_DRIVER, NULL, 0)
#define RGPU_GUARD_cuMemAllocPitch_v2() rgpu_capture_guard(RGPU_DRIVER, NULL, 0)
#define RGPU_GUARD_cuMemcpyPeer() rgpu_capture_guard(RGPU_DRIVER, NULL, 1)
#define RGPU_GUARD_cuMemcpyHtoA_v2() rgpu_capture_guard(RGPU_DRIVER, NULL, 1)
#define RGPU_GUARD_cuMemcpyAtoH_v2() rgpu_capture_guard(RGPU_DRIVER, NULL, 1)
#define RGPU_GUARD_cuMemcpy3DPeer() rgpu_capture_guard(RGPU_DRIVER, NULL, 1)
#define RGPU_GUARD_cuMemcpyPeerAsync(hStream) rgpu_capture_guard(RGPU_DRIVER, (hStream), 1)
#define RGPU_GUARD_cuMemcpyHtoAAsync_v2(hStream) rgpu_capture_guard(RGPU_DRIVER, (hStream), 1)
#define RGPU_GUARD_cuMemcpyAtoHAsync_v2(hStream) rgpu_capture_guard(RGPU_DRIVER, (hStream), 1)
#define RGPU_GUARD_cuMemcpy3DPeerAsync(hStream) rgpu_capture_guard(RGPU_DRIVER, (hStream), 1)
#define RGPU_GUARD_cuMemcpyBatchAsync_v2(hStream) rgpu_capture_guard(RGPU_DRIVER, (hStream), 1)
#define RGPU_GUARD_cuMemcpy3DBatchAsync_v2(hStream) rgpu_capture_guard(RGPU_DRIVER, (hStream), 1)
#define RGPU_GUARD_cuArrayCreate_v2() rgpu_capture_guard(RGPU_DRIVER, NULL, 0)
#define RGPU_GUARD_cuArrayDestroy() rgpu_capture_guard(RGPU_DRIVER, NULL, 0)
#define RGPU_GUARD_cuArray3DCreate_v2() rgpu_capture_guard(RGPU_DRIVER, NULL, 0)
#define RGPU_GUARD_cuMipmappedArrayCreate() rgpu_capture_guard(RGPU_DRIVER, NULL, 0)
#define RGPU_GUARD_cuMipmappedArrayDestroy() rgpu_capture_guard(RGPU_DRIVER, NULL, 0)
#define RGPU_GUARD_cuMemPrefetchAsync_v2(hStream) rgpu_capture_guard(RGPU_DRIVER, (hStream), 1)
#define RGPU_GUARD_cuMemPrefetchBatchAsync(hStream) rgpu_capture_guard(RGPU_DRIVER, (hStream), 1)
#define RGPU_GUARD_cuMemDiscardBatchAsync(hStream) rgpu_capture_guard(RGPU_DRIVER, (hStream), 1)
#define RGPU_GUARD_cuMemDiscardAndPrefetchBatchAsync(hStream) rgpu_capture_guard(RGPU_DRIVER, (hStream), 1)
#define RGPU_GUARD_cuStreamAddCallback(hStream) rgpu_capture_guard(RGPU_DRIVER, (hStream), 1)
#define RGPU_GUARD_cuStreamAttachMemAsync(hStream) rgpu_capture_guard(RGPU_DRIVER, (hStream), 1)
#define RGPU_GUARD_cudaStreamAddCallback(stream) rgpu_capture_guard(RGPU_RUNTIME, (stream), 1)
#define RGPU_GUARD_cudaStreamAttachMemAsync(stream) rgpu_capture_guard(RGPU_RUNTIME, (stream), 1)
#define RGPU_GUARD_cudaMalloc() rgpu_capture_guard(RGPU_RUNTIME, NULL, 0)
#define RGPU_GUARD_cudaMallocPitch() rgpu_capture_guard(RGPU_RUNTIME, NULL, 0)
#define RGPU_GUARD_cudaMemcpy3DPeer() rgpu_capture_guard(RGPU_RUNTIME, NULL, 1)
#define RGPU_GUARD_cudaMemcpy3DPeerAsync(stream) rgpu_capture_guard(RGPU_RUNTIME, (stream), 1)
#define RGPU_GUARD_cudaMemcpyPeer() rgpu_capture_guard(RGPU_RUNTIME, NULL, 1)
#define RGPU_GUARD_cudaMemcpyPeerAsync(stream) rgpu_capture_guard(RGPU_RUNTIME, (stream), 1)
#define RGPU_GUARD_cudaMemcpyBatchAsync(stream) rgpu_capture_guard(RGPU_RUNTIME, (stream), 1)
#define RGPU_GUARD_cudaMemcpy3DBatchAsync(stream) rgpu_capture_guard(RGPU_RUNTIME, (stream), 1)
#define RGPU_GUARD_cudaMemPrefetchAsync(stream) rgpu_capture_guard(RGPU_RUNTIME, (stream), 1)
#define RGPU_GUARD_cudaMemPrefetchBatchAsync(stream) rgpu_capture_guard(RGPU_RUNTIME, (stream), 1)
#define RGPU_GUARD_cudaMemDiscardBatchAsync(stream) rgpu_capture_guard(RGPU_RUNTIME, (stream), 1)
#define RGPU_GUARD_cudaMemDiscardAndPrefetchBatchAsync(stream) rgpu_capture_guard(RGPU_RUNTIME, (stream), 1)

#endif
