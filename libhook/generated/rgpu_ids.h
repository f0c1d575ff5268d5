/* generated from CUDA 13.0 and protocol/contract by protocol/codegen — do not edit */
/* Call ids (CRC of the name) and per-call flags of every call that crosses the wire. */
#ifndef RGPU_IDS_H
#define RGPU_IDS_H

#define RGPU_F_ASYNC 0x1u /* sent without waiting for a reply; an error is sticky and returned at the next synchronising call */
#define RGPU_F_DEVICE_WORK 0x2u /* makes the device read or write memory: managed memory the host wrote is pushed first */
#define RGPU_F_SYNC 0x4u /* returns once the device's (or the stream's) work is done: managed memory is pulled after it */
#define RGPU_F_DEFERRED 0x8u /* reports the errors of earlier asynchronous calls (the Synchronize calls; implied by sync + device_work) */
#define RGPU_F_SHM 0x100u /* its bulk data may move through the session's shared-memory segment */
#define RGPU_F_NOT_SIM 0x200u /* the software GPU does not serve it: answered not-supported in the client */
#define RGPU_F_NOT_CUDA 0x400u /* the cuda backend does not serve it: answered not-supported in the client */

#define RGPU_ID_cuDeviceGetName 0x6b8b28f1u
#define RGPU_FLAGS_cuDeviceGetName (0)
#define RGPU_ID_cuDeviceGetUuid_v2 0x0a809b7du
#define RGPU_FLAGS_cuDeviceGetUuid_v2 (0)
#define RGPU_ID_cuDeviceGetLuid 0x49c61e44u
#define RGPU_FLAGS_cuDeviceGetLuid (RGPU_F_NOT_SIM)
#define RGPU_ID_cuDeviceTotalMem_v2 0x3f6a2c5au
#define RGPU_FLAGS_cuDeviceTotalMem_v2 (0)
#define RGPU_ID_cuDeviceGetTexture1DLinearMaxWidth 0x65f6a53du
#define RGPU_FLAGS_cuDeviceGetTexture1DLinearMaxWidth (0)
#define RGPU_ID_cuDeviceGetAttribute 0x20d165edu
#define RGPU_FLAGS_cuDeviceGetAttribute (0)
#define RGPU_ID_cuDeviceSetMemPool 0x4a539390u
#define RGPU_FLAGS_cuDeviceSetMemPool (0)
#define RGPU_ID_cuDeviceGetMemPool 0x6416b202u
#define RGPU_FLAGS_cuDeviceGetMemPool (0)
#define RGPU_ID_cuDeviceGetDefaultMemPool 0x4993e084u
#define RGPU_FLAGS_cuDeviceGetDefaultMemPool (0)
#define RGPU_ID_cuDeviceGetExecAffinitySupport 0x109be0b6u
#define RGPU_FLAGS_cuDeviceGetExecAffinitySupport (RGPU_F_NOT_SIM)
#define RGPU_ID_cuFlushGPUDirectRDMAWrites 0x19e4f2dfu
#define RGPU_FLAGS_cuFlushGPUDirectRDMAWrites (0)
#define RGPU_ID_cuDeviceGetProperties 0x734d2f1cu
#define RGPU_FLAGS_cuDeviceGetProperties (RGPU_F_NOT_SIM)
#define RGPU_ID_cuDeviceComputeCapability 0x2054524bu
#define RGPU_FLAGS_cuDeviceComputeCapability (0)
#define RGPU_ID_cuCtxSynchronize 0x1cd9f7ccu
#define RGPU_FLAGS_cuCtxSynchronize (RGPU_F_SYNC | RGPU_F_DEFERRED)
#define RGPU_ID_cuCtxSetLimit 0x1136d5feu
#define RGPU_FLAGS_cuCtxSetLimit (0)
#define RGPU_ID_cuCtxGetLimit 0x69c7ea2fu
#define RGPU_FLAGS_cuCtxGetLimit (0)
#define RGPU_ID_cuCtxGetCacheConfig 0x4fff8703u
#define RGPU_FLAGS_cuCtxGetCacheConfig (0)
#define RGPU_ID_cuCtxSetCacheConfig 0x30e13474u
#define RGPU_FLAGS_cuCtxSetCacheConfig (0)
#define RGPU_ID_cuCtxGetStreamPriorityRange 0x6a3ebc22u
#define RGPU_FLAGS_cuCtxGetStreamPriorityRange (0)
#define RGPU_ID_cuCtxResetPersistingL2Cache 0x432f0e9au
#define RGPU_FLAGS_cuCtxResetPersistingL2Cache (0)
#define RGPU_ID_cuCtxGetExecAffinity 0x069da72eu
#define RGPU_FLAGS_cuCtxGetExecAffinity (RGPU_F_NOT_SIM)
#define RGPU_ID_cuCtxRecordEvent 0x03dcdf62u
#define RGPU_FLAGS_cuCtxRecordEvent (RGPU_F_ASYNC)
#define RGPU_ID_cuCtxWaitEvent 0x52e6857au
#define RGPU_FLAGS_cuCtxWaitEvent (RGPU_F_ASYNC)
#define RGPU_ID_cuCtxGetSharedMemConfig 0x766d885bu
#define RGPU_FLAGS_cuCtxGetSharedMemConfig (0)
#define RGPU_ID_cuCtxSetSharedMemConfig 0x53660345u
#define RGPU_FLAGS_cuCtxSetSharedMemConfig (0)
#define RGPU_ID_cuModuleLoadData 0x6f747288u
#define RGPU_FLAGS_cuModuleLoadData (0)
#define RGPU_ID_cuModuleUnload 0x29cd570du
#define RGPU_FLAGS_cuModuleUnload (0)
#define RGPU_ID_cuModuleGetFunction 0x762d7398u
#define RGPU_FLAGS_cuModuleGetFunction (0)
#define RGPU_ID_cuModuleGetFunctionCount 0x15140306u
#define RGPU_FLAGS_cuModuleGetFunctionCount (0)
#define RGPU_ID_cuModuleEnumerateFunctions 0x2c18e076u
#define RGPU_FLAGS_cuModuleEnumerateFunctions (0)
#define RGPU_ID_cuModuleGetGlobal_v2 0x447dfb53u
#define RGPU_FLAGS_cuModuleGetGlobal_v2 (0)
#define RGPU_ID_cuMemGetInfo_v2 0x39cc5abau
#define RGPU_FLAGS_cuMemGetInfo_v2 (0)
#define RGPU_ID_cuMemAlloc_v2 0x352e8e16u
#define RGPU_FLAGS_cuMemAlloc_v2 (0)
#define RGPU_ID_cuMemAllocPitch_v2 0x688046d6u
#define RGPU_FLAGS_cuMemAllocPitch_v2 (0)
#define RGPU_ID_cuMemFree_v2 0x777b8e4fu
#define RGPU_FLAGS_cuMemFree_v2 (RGPU_F_SYNC)
#define RGPU_ID_cuMemGetAddressRange_v2 0x1c7eb0cbu
#define RGPU_FLAGS_cuMemGetAddressRange_v2 (0)
#define RGPU_ID_cuMemAllocManaged 0x00b74594u
#define RGPU_FLAGS_cuMemAllocManaged (0)
#define RGPU_ID_cuIpcGetEventHandle 0x2f65956cu
#define RGPU_FLAGS_cuIpcGetEventHandle (0)
#define RGPU_ID_cuIpcOpenEventHandle 0x69380ec7u
#define RGPU_FLAGS_cuIpcOpenEventHandle (0)
#define RGPU_ID_cuIpcGetMemHandle 0x49f358feu
#define RGPU_FLAGS_cuIpcGetMemHandle (0)
#define RGPU_ID_cuIpcOpenMemHandle_v2 0x015d32fdu
#define RGPU_FLAGS_cuIpcOpenMemHandle_v2 (0)
#define RGPU_ID_cuIpcCloseMemHandle 0x56950729u
#define RGPU_FLAGS_cuIpcCloseMemHandle (0)
#define RGPU_ID_cuMemcpyHtoD_v2 0x7c318bf8u
#define RGPU_FLAGS_cuMemcpyHtoD_v2 (RGPU_F_DEVICE_WORK | RGPU_F_SYNC | RGPU_F_DEFERRED | RGPU_F_SHM)
#define RGPU_ID_cuMemcpyDtoH_v2 0x71475e34u
#define RGPU_FLAGS_cuMemcpyDtoH_v2 (RGPU_F_DEVICE_WORK | RGPU_F_SYNC | RGPU_F_DEFERRED | RGPU_F_SHM)
#define RGPU_ID_cuMemcpyDtoD_v2 0x3b91e18cu
#define RGPU_FLAGS_cuMemcpyDtoD_v2 (RGPU_F_DEVICE_WORK | RGPU_F_SYNC | RGPU_F_DEFERRED)
#define RGPU_ID_cuMemcpyDtoA_v2 0x0c4f11beu
#define RGPU_FLAGS_cuMemcpyDtoA_v2 (RGPU_F_DEVICE_WORK | RGPU_F_SYNC | RGPU_F_DEFERRED)
#define RGPU_ID_cuMemcpyAtoD_v2 0x69a9ce2bu
#define RGPU_FLAGS_cuMemcpyAtoD_v2 (RGPU_F_DEVICE_WORK | RGPU_F_SYNC | RGPU_F_DEFERRED)
#define RGPU_ID_cuMemcpyHtoA_v2 0x4bef7bcau
#define RGPU_FLAGS_cuMemcpyHtoA_v2 (RGPU_F_DEVICE_WORK | RGPU_F_SYNC | RGPU_F_DEFERRED)
#define RGPU_ID_cuMemcpyAtoH_v2 0x237f7193u
#define RGPU_FLAGS_cuMemcpyAtoH_v2 (RGPU_F_DEVICE_WORK | RGPU_F_SYNC | RGPU_F_DEFERRED)
#define RGPU_ID_cuMemcpyAtoA_v2 0x5e773e19u
#define RGPU_FLAGS_cuMemcpyAtoA_v2 (RGPU_F_DEVICE_WORK | RGPU_F_SYNC | RGPU_F_DEFERRED)
#define RGPU_ID_cuMemcpy3D_v2 0x3d1e3be2u
#define RGPU_FLAGS_cuMemcpy3D_v2 (RGPU_F_DEVICE_WORK | RGPU_F_SYNC | RGPU_F_DEFERRED)
#define RGPU_ID_cuMemcpyHtoDAsync_v2 0x2548e54bu
#define RGPU_FLAGS_cuMemcpyHtoDAsync_v2 (RGPU_F_DEVICE_WORK | RGPU_F_SHM)
#define RGPU_ID_cuMemcpyDtoHAsync_v2 0x46765bdeu
#define RGPU_FLAGS_cuMemcpyDtoHAsync_v2 (RGPU_F_DEVICE_WORK | RGPU_F_SHM)
#define RGPU_ID_cuMemcpyDtoDAsync_v2 0x2042a8cau
#define RGPU_FLAGS_cuMemcpyDtoDAsync_v2 (RGPU_F_ASYNC | RGPU_F_DEVICE_WORK)
#define RGPU_ID_cuMemcpyHtoAAsync_v2 0x6fdfa004u
#define RGPU_FLAGS_cuMemcpyHtoAAsync_v2 (RGPU_F_DEVICE_WORK)
#define RGPU_ID_cuMemcpyAtoHAsync_v2 0x5ed52cceu
#define RGPU_FLAGS_cuMemcpyAtoHAsync_v2 (RGPU_F_DEVICE_WORK)
#define RGPU_ID_cuMemcpy3DAsync_v2 0x48195b6bu
#define RGPU_FLAGS_cuMemcpy3DAsync_v2 (RGPU_F_DEVICE_WORK)
#define RGPU_ID_cuMemsetD8_v2 0x22c68985u
#define RGPU_FLAGS_cuMemsetD8_v2 (RGPU_F_DEVICE_WORK | RGPU_F_SYNC | RGPU_F_DEFERRED)
#define RGPU_ID_cuMemsetD16_v2 0x6f1222bdu
#define RGPU_FLAGS_cuMemsetD16_v2 (RGPU_F_DEVICE_WORK | RGPU_F_SYNC | RGPU_F_DEFERRED)
#define RGPU_ID_cuMemsetD32_v2 0x1ab0e68au
#define RGPU_FLAGS_cuMemsetD32_v2 (RGPU_F_DEVICE_WORK | RGPU_F_SYNC | RGPU_F_DEFERRED)
#define RGPU_ID_cuMemsetD2D8_v2 0x2f949acbu
#define RGPU_FLAGS_cuMemsetD2D8_v2 (RGPU_F_DEVICE_WORK | RGPU_F_SYNC | RGPU_F_DEFERRED)
#define RGPU_ID_cuMemsetD2D16_v2 0x7e7b1c39u
#define RGPU_FLAGS_cuMemsetD2D16_v2 (RGPU_F_DEVICE_WORK | RGPU_F_SYNC | RGPU_F_DEFERRED)
#define RGPU_ID_cuMemsetD2D32_v2 0x0bd9d80eu
#define RGPU_FLAGS_cuMemsetD2D32_v2 (RGPU_F_DEVICE_WORK | RGPU_F_SYNC | RGPU_F_DEFERRED)
#define RGPU_ID_cuMemsetD8Async 0x284d2a88u
#define RGPU_FLAGS_cuMemsetD8Async (RGPU_F_ASYNC | RGPU_F_DEVICE_WORK)
#define RGPU_ID_cuMemsetD16Async 0x7ed621c7u
#define RGPU_FLAGS_cuMemsetD16Async (RGPU_F_ASYNC | RGPU_F_DEVICE_WORK)
#define RGPU_ID_cuMemsetD32Async 0x72d872f8u
#define RGPU_FLAGS_cuMemsetD32Async (RGPU_F_ASYNC | RGPU_F_DEVICE_WORK)
#define RGPU_ID_cuMemsetD2D8Async 0x4209048fu
#define RGPU_FLAGS_cuMemsetD2D8Async (RGPU_F_ASYNC | RGPU_F_DEVICE_WORK)
#define RGPU_ID_cuMemsetD2D16Async 0x6058f04au
#define RGPU_FLAGS_cuMemsetD2D16Async (RGPU_F_ASYNC | RGPU_F_DEVICE_WORK)
#define RGPU_ID_cuMemsetD2D32Async 0x6c56a375u
#define RGPU_FLAGS_cuMemsetD2D32Async (RGPU_F_ASYNC | RGPU_F_DEVICE_WORK)
#define RGPU_ID_cuArrayCreate_v2 0x5934805fu
#define RGPU_FLAGS_cuArrayCreate_v2 (0)
#define RGPU_ID_cuArrayGetDescriptor_v2 0x6c177783u
#define RGPU_FLAGS_cuArrayGetDescriptor_v2 (0)
#define RGPU_ID_cuArrayDestroy 0x2f74266fu
#define RGPU_FLAGS_cuArrayDestroy (0)
#define RGPU_ID_cuArray3DCreate_v2 0x566a0096u
#define RGPU_FLAGS_cuArray3DCreate_v2 (0)
#define RGPU_ID_cuArray3DGetDescriptor_v2 0x7462d8ffu
#define RGPU_FLAGS_cuArray3DGetDescriptor_v2 (0)
#define RGPU_ID_cuMipmappedArrayCreate 0x4c8fd3e5u
#define RGPU_FLAGS_cuMipmappedArrayCreate (0)
#define RGPU_ID_cuMipmappedArrayGetLevel 0x00a953c4u
#define RGPU_FLAGS_cuMipmappedArrayGetLevel (0)
#define RGPU_ID_cuMipmappedArrayDestroy 0x0606e22bu
#define RGPU_FLAGS_cuMipmappedArrayDestroy (0)
#define RGPU_ID_cuMemAddressReserve 0x03783150u
#define RGPU_FLAGS_cuMemAddressReserve (0)
#define RGPU_ID_cuMemAddressFree 0x1ca986beu
#define RGPU_FLAGS_cuMemAddressFree (0)
#define RGPU_ID_cuMemCreate 0x56de2ccdu
#define RGPU_FLAGS_cuMemCreate (0)
#define RGPU_ID_cuMemRelease 0x51a49e48u
#define RGPU_FLAGS_cuMemRelease (0)
#define RGPU_ID_cuMemMap 0x7aef7ca5u
#define RGPU_FLAGS_cuMemMap (0)
#define RGPU_ID_cuMemUnmap 0x7bf44a47u
#define RGPU_FLAGS_cuMemUnmap (0)
#define RGPU_ID_cuMemSetAccess 0x567eb793u
#define RGPU_FLAGS_cuMemSetAccess (0)
#define RGPU_ID_cuMemGetAccess 0x2752a4eeu
#define RGPU_FLAGS_cuMemGetAccess (0)
#define RGPU_ID_cuMemGetAllocationGranularity 0x1b3a4a58u
#define RGPU_FLAGS_cuMemGetAllocationGranularity (0)
#define RGPU_ID_cuMemGetAllocationPropertiesFromHandle 0x6d37dc33u
#define RGPU_FLAGS_cuMemGetAllocationPropertiesFromHandle (0)
#define RGPU_ID_cuMemRetainAllocationHandle 0x7175ea7eu
#define RGPU_FLAGS_cuMemRetainAllocationHandle (0)
#define RGPU_ID_cuMemFreeAsync 0x073c5552u
#define RGPU_FLAGS_cuMemFreeAsync (RGPU_F_ASYNC)
#define RGPU_ID_cuMemAllocAsync 0x6c45711au
#define RGPU_FLAGS_cuMemAllocAsync (0)
#define RGPU_ID_cuMemPoolTrimTo 0x55a96131u
#define RGPU_FLAGS_cuMemPoolTrimTo (0)
#define RGPU_ID_cuMemPoolSetAttribute 0x3e9b7d28u
#define RGPU_FLAGS_cuMemPoolSetAttribute (0)
#define RGPU_ID_cuMemPoolGetAttribute 0x3185ababu
#define RGPU_FLAGS_cuMemPoolGetAttribute (0)
#define RGPU_ID_cuMemPoolSetAccess 0x37a9a2a4u
#define RGPU_FLAGS_cuMemPoolSetAccess (0)
#define RGPU_ID_cuMemPoolGetAccess 0x4685b1d9u
#define RGPU_FLAGS_cuMemPoolGetAccess (0)
#define RGPU_ID_cuMemPoolCreate 0x7de7d872u
#define RGPU_FLAGS_cuMemPoolCreate (0)
#define RGPU_ID_cuMemPoolDestroy 0x68dc8cc7u
#define RGPU_FLAGS_cuMemPoolDestroy (0)
#define RGPU_ID_cuMemGetDefaultMemPool 0x2b3cc29au
#define RGPU_FLAGS_cuMemGetDefaultMemPool (0)
#define RGPU_ID_cuMemGetMemPool 0x4b6467f7u
#define RGPU_FLAGS_cuMemGetMemPool (0)
#define RGPU_ID_cuMemSetMemPool 0x65214665u
#define RGPU_FLAGS_cuMemSetMemPool (0)
#define RGPU_ID_cuMemAllocFromPoolAsync 0x4f16811au
#define RGPU_FLAGS_cuMemAllocFromPoolAsync (0)
#define RGPU_ID_cuMulticastGetGranularity 0x570e604au
#define RGPU_FLAGS_cuMulticastGetGranularity (RGPU_F_NOT_SIM)
#define RGPU_ID_cuStreamCreate 0x2812ed0fu
#define RGPU_FLAGS_cuStreamCreate (0)
#define RGPU_ID_cuStreamCreateWithPriority 0x1c56bae7u
#define RGPU_FLAGS_cuStreamCreateWithPriority (0)
#define RGPU_ID_cuStreamGetPriority 0x75a6ac1bu
#define RGPU_FLAGS_cuStreamGetPriority (0)
#define RGPU_ID_cuStreamGetFlags 0x74b6bc3du
#define RGPU_FLAGS_cuStreamGetFlags (0)
#define RGPU_ID_cuStreamGetId 0x1f189481u
#define RGPU_FLAGS_cuStreamGetId (0)
#define RGPU_ID_cuStreamWaitEvent 0x47302d07u
#define RGPU_FLAGS_cuStreamWaitEvent (RGPU_F_ASYNC)
#define RGPU_ID_cuStreamAttachMemAsync 0x05b74995u
#define RGPU_FLAGS_cuStreamAttachMemAsync (0)
#define RGPU_ID_cuStreamQuery 0x62f1eb9au
#define RGPU_FLAGS_cuStreamQuery (RGPU_F_SYNC)
#define RGPU_ID_cuStreamSynchronize 0x5e454e7bu
#define RGPU_FLAGS_cuStreamSynchronize (RGPU_F_SYNC | RGPU_F_DEFERRED)
#define RGPU_ID_cuStreamDestroy_v2 0x01279a63u
#define RGPU_FLAGS_cuStreamDestroy_v2 (0)
#define RGPU_ID_cuStreamCopyAttributes 0x578310ccu
#define RGPU_FLAGS_cuStreamCopyAttributes (0)
#define RGPU_ID_cuStreamGetAttribute 0x5502930cu
#define RGPU_FLAGS_cuStreamGetAttribute (0)
#define RGPU_ID_cuStreamSetAttribute 0x5a1c458fu
#define RGPU_FLAGS_cuStreamSetAttribute (0)
#define RGPU_ID_cuEventCreate 0x2ee680b0u
#define RGPU_FLAGS_cuEventCreate (0)
#define RGPU_ID_cuEventRecord 0x3a04ffdau
#define RGPU_FLAGS_cuEventRecord (RGPU_F_ASYNC)
#define RGPU_ID_cuEventRecordWithFlags 0x2784ba6cu
#define RGPU_FLAGS_cuEventRecordWithFlags (RGPU_F_ASYNC)
#define RGPU_ID_cuEventQuery 0x20294bdfu
#define RGPU_FLAGS_cuEventQuery (RGPU_F_SYNC)
#define RGPU_ID_cuEventSynchronize 0x610982eau
#define RGPU_FLAGS_cuEventSynchronize (RGPU_F_SYNC | RGPU_F_DEFERRED)
#define RGPU_ID_cuEventDestroy_v2 0x1d8a1d50u
#define RGPU_FLAGS_cuEventDestroy_v2 (0)
#define RGPU_ID_cuEventElapsedTime_v2 0x1b818f42u
#define RGPU_FLAGS_cuEventElapsedTime_v2 (0)
#define RGPU_ID_cuStreamWaitValue32_v2 0x61dc63cfu
#define RGPU_FLAGS_cuStreamWaitValue32_v2 (0)
#define RGPU_ID_cuStreamWaitValue64_v2 0x0c57b363u
#define RGPU_FLAGS_cuStreamWaitValue64_v2 (0)
#define RGPU_ID_cuStreamWriteValue32_v2 0x480c5bd7u
#define RGPU_FLAGS_cuStreamWriteValue32_v2 (0)
#define RGPU_ID_cuStreamWriteValue64_v2 0x25878b7bu
#define RGPU_FLAGS_cuStreamWriteValue64_v2 (0)
#define RGPU_ID_cuStreamBatchMemOp_v2 0x74d14145u
#define RGPU_FLAGS_cuStreamBatchMemOp_v2 (0)
#define RGPU_ID_cuFuncGetAttribute 0x425f5791u
#define RGPU_FLAGS_cuFuncGetAttribute (0)
#define RGPU_ID_cuFuncSetAttribute 0x4d418112u
#define RGPU_FLAGS_cuFuncSetAttribute (0)
#define RGPU_ID_cuFuncSetCacheConfig 0x64a8739eu
#define RGPU_FLAGS_cuFuncSetCacheConfig (0)
#define RGPU_ID_cuFuncGetModule 0x733afd1eu
#define RGPU_FLAGS_cuFuncGetModule (0)
#define RGPU_ID_cuFuncGetName 0x6e6efbddu
#define RGPU_FLAGS_cuFuncGetName (0)
#define RGPU_ID_cuFuncGetParamInfo 0x21cc2040u
#define RGPU_FLAGS_cuFuncGetParamInfo (0)
#define RGPU_ID_cuFuncIsLoaded 0x6a8c8963u
#define RGPU_FLAGS_cuFuncIsLoaded (0)
#define RGPU_ID_cuFuncLoad 0x7ad092f1u
#define RGPU_FLAGS_cuFuncLoad (0)
#define RGPU_ID_cuLaunchKernel 0x2baf2025u
#define RGPU_FLAGS_cuLaunchKernel (RGPU_F_ASYNC | RGPU_F_DEVICE_WORK)
#define RGPU_ID_cuLaunchKernelEx 0x41940b31u
#define RGPU_FLAGS_cuLaunchKernelEx (RGPU_F_ASYNC | RGPU_F_DEVICE_WORK)
#define RGPU_ID_cuLaunchCooperativeKernel 0x3bd1f63fu
#define RGPU_FLAGS_cuLaunchCooperativeKernel (RGPU_F_ASYNC | RGPU_F_DEVICE_WORK)
#define RGPU_ID_cuFuncSetSharedMemConfig 0x52cc58fdu
#define RGPU_FLAGS_cuFuncSetSharedMemConfig (0)
#define RGPU_ID_cuOccupancyMaxActiveBlocksPerMultiprocessor 0x38941355u
#define RGPU_FLAGS_cuOccupancyMaxActiveBlocksPerMultiprocessor (0)
#define RGPU_ID_cuOccupancyMaxActiveBlocksPerMultiprocessorWithFlags 0x681792ebu
#define RGPU_FLAGS_cuOccupancyMaxActiveBlocksPerMultiprocessorWithFlags (0)
#define RGPU_ID_cuOccupancyAvailableDynamicSMemPerBlock 0x686c9a0du
#define RGPU_FLAGS_cuOccupancyAvailableDynamicSMemPerBlock (0)
#define RGPU_ID_cuOccupancyMaxPotentialClusterSize 0x23c64ba4u
#define RGPU_FLAGS_cuOccupancyMaxPotentialClusterSize (0)
#define RGPU_ID_cuOccupancyMaxActiveClusters 0x4b9d013du
#define RGPU_FLAGS_cuOccupancyMaxActiveClusters (0)
#define RGPU_ID_cuTexObjectCreate 0x45461ce0u
#define RGPU_FLAGS_cuTexObjectCreate (0)
#define RGPU_ID_cuTexObjectDestroy 0x76e5df6bu
#define RGPU_FLAGS_cuTexObjectDestroy (0)
#define RGPU_ID_cuTexObjectGetResourceDesc 0x0064a141u
#define RGPU_FLAGS_cuTexObjectGetResourceDesc (0)
#define RGPU_ID_cuTexObjectGetTextureDesc 0x0f94fc39u
#define RGPU_FLAGS_cuTexObjectGetTextureDesc (0)
#define RGPU_ID_cuTexObjectGetResourceViewDesc 0x68d52920u
#define RGPU_FLAGS_cuTexObjectGetResourceViewDesc (0)
#define RGPU_ID_cuSurfObjectCreate 0x6e94d27eu
#define RGPU_FLAGS_cuSurfObjectCreate (0)
#define RGPU_ID_cuSurfObjectDestroy 0x6179b3e6u
#define RGPU_FLAGS_cuSurfObjectDestroy (0)
#define RGPU_ID_cuSurfObjectGetResourceDesc 0x3c288a71u
#define RGPU_FLAGS_cuSurfObjectGetResourceDesc (0)
#define RGPU_ID_cuTensorMapEncodeTiled 0x529fcde1u
#define RGPU_FLAGS_cuTensorMapEncodeTiled (0)
#define RGPU_ID_cuTensorMapEncodeIm2col 0x47bae5b0u
#define RGPU_FLAGS_cuTensorMapEncodeIm2col (RGPU_F_NOT_SIM)
#define RGPU_ID_cuTensorMapEncodeIm2colWide 0x25a06e2cu
#define RGPU_FLAGS_cuTensorMapEncodeIm2colWide (RGPU_F_NOT_SIM)
#define RGPU_ID_cuTensorMapReplaceAddress 0x481202b3u
#define RGPU_FLAGS_cuTensorMapReplaceAddress (0)
#define RGPU_ID_cudaDeviceReset 0x3fba6aa9u
#define RGPU_FLAGS_cudaDeviceReset (0)
#define RGPU_ID_cudaDeviceSynchronize 0x6f565ee5u
#define RGPU_FLAGS_cudaDeviceSynchronize (RGPU_F_SYNC | RGPU_F_DEFERRED)
#define RGPU_ID_cudaDeviceSetLimit 0x011ba9d4u
#define RGPU_FLAGS_cudaDeviceSetLimit (0)
#define RGPU_ID_cudaDeviceGetLimit 0x79ea9605u
#define RGPU_FLAGS_cudaDeviceGetLimit (0)
#define RGPU_ID_cudaDeviceGetCacheConfig 0x7aa1638eu
#define RGPU_FLAGS_cudaDeviceGetCacheConfig (0)
#define RGPU_ID_cudaDeviceGetStreamPriorityRange 0x0aaaf05cu
#define RGPU_FLAGS_cudaDeviceGetStreamPriorityRange (0)
#define RGPU_ID_cudaDeviceSetCacheConfig 0x05bfd0f9u
#define RGPU_FLAGS_cudaDeviceSetCacheConfig (0)
#define RGPU_ID_cudaIpcGetEventHandle 0x2723f830u
#define RGPU_FLAGS_cudaIpcGetEventHandle (0)
#define RGPU_ID_cudaIpcOpenEventHandle 0x0bed5575u
#define RGPU_FLAGS_cudaIpcOpenEventHandle (0)
#define RGPU_ID_cudaIpcGetMemHandle 0x2dd88744u
#define RGPU_FLAGS_cudaIpcGetMemHandle (0)
#define RGPU_ID_cudaIpcOpenMemHandle 0x7eba2982u
#define RGPU_FLAGS_cudaIpcOpenMemHandle (0)
#define RGPU_ID_cudaIpcCloseMemHandle 0x5ed36a75u
#define RGPU_FLAGS_cudaIpcCloseMemHandle (0)
#define RGPU_ID_cudaDeviceFlushGPUDirectRDMAWrites 0x20b52affu
#define RGPU_FLAGS_cudaDeviceFlushGPUDirectRDMAWrites (0)
#define RGPU_ID_cudaDeviceGetSharedMemConfig 0x353e2a38u
#define RGPU_FLAGS_cudaDeviceGetSharedMemConfig (0)
#define RGPU_ID_cudaDeviceSetSharedMemConfig 0x1035a126u
#define RGPU_FLAGS_cudaDeviceSetSharedMemConfig (0)
#define RGPU_ID_cudaGetDeviceProperties 0x4eab3346u
#define RGPU_FLAGS_cudaGetDeviceProperties (0)
#define RGPU_ID_cudaDeviceGetAttribute 0x42043e5fu
#define RGPU_FLAGS_cudaDeviceGetAttribute (0)
#define RGPU_ID_cudaDeviceGetDefaultMemPool 0x6311cdadu
#define RGPU_FLAGS_cudaDeviceGetDefaultMemPool (0)
#define RGPU_ID_cudaDeviceSetMemPool 0x6103e2ddu
#define RGPU_FLAGS_cudaDeviceSetMemPool (0)
#define RGPU_ID_cudaDeviceGetMemPool 0x4f46c34fu
#define RGPU_FLAGS_cudaDeviceGetMemPool (0)
#define RGPU_ID_cudaStreamCreate 0x2133e443u
#define RGPU_FLAGS_cudaStreamCreate (0)
#define RGPU_ID_cudaStreamCreateWithFlags 0x64b60af0u
#define RGPU_FLAGS_cudaStreamCreateWithFlags (0)
#define RGPU_ID_cudaStreamCreateWithPriority 0x5e4ea0a6u
#define RGPU_FLAGS_cudaStreamCreateWithPriority (0)
#define RGPU_ID_cudaStreamGetPriority 0x7de0c147u
#define RGPU_FLAGS_cudaStreamGetPriority (0)
#define RGPU_ID_cudaStreamGetFlags 0x51a60db1u
#define RGPU_FLAGS_cudaStreamGetFlags (0)
#define RGPU_ID_cudaStreamGetId 0x085df38du
#define RGPU_FLAGS_cudaStreamGetId (0)
#define RGPU_ID_cudaCtxResetPersistingL2Cache 0x42b66786u
#define RGPU_FLAGS_cudaCtxResetPersistingL2Cache (0)
#define RGPU_ID_cudaStreamCopyAttributes 0x7dc9365fu
#define RGPU_FLAGS_cudaStreamCopyAttributes (0)
#define RGPU_ID_cudaStreamGetAttribute 0x37d7c8beu
#define RGPU_FLAGS_cudaStreamGetAttribute (0)
#define RGPU_ID_cudaStreamSetAttribute 0x38c91e3du
#define RGPU_FLAGS_cudaStreamSetAttribute (0)
#define RGPU_ID_cudaStreamDestroy 0x39de58c1u
#define RGPU_FLAGS_cudaStreamDestroy (0)
#define RGPU_ID_cudaStreamWaitEvent 0x231bf2bdu
#define RGPU_FLAGS_cudaStreamWaitEvent (RGPU_F_ASYNC)
#define RGPU_ID_cudaStreamSynchronize 0x56032327u
#define RGPU_FLAGS_cudaStreamSynchronize (RGPU_F_SYNC | RGPU_F_DEFERRED)
#define RGPU_ID_cudaStreamQuery 0x75b48c96u
#define RGPU_FLAGS_cudaStreamQuery (RGPU_F_SYNC)
#define RGPU_ID_cudaStreamAttachMemAsync 0x2ffd6f06u
#define RGPU_FLAGS_cudaStreamAttachMemAsync (0)
#define RGPU_ID_cudaEventCreate 0x39a3e7bcu
#define RGPU_FLAGS_cudaEventCreate (0)
#define RGPU_ID_cudaEventCreateWithFlags 0x3d8be34au
#define RGPU_FLAGS_cudaEventCreateWithFlags (0)
#define RGPU_ID_cudaEventRecord 0x2d4198d6u
#define RGPU_FLAGS_cudaEventRecord (RGPU_F_ASYNC)
#define RGPU_ID_cudaEventRecordWithFlags 0x0dce9cffu
#define RGPU_FLAGS_cudaEventRecordWithFlags (RGPU_F_ASYNC)
#define RGPU_ID_cudaEventQuery 0x3797cfd4u
#define RGPU_FLAGS_cudaEventQuery (RGPU_F_SYNC)
#define RGPU_ID_cudaEventSynchronize 0x4a59f3a7u
#define RGPU_FLAGS_cudaEventSynchronize (RGPU_F_SYNC | RGPU_F_DEFERRED)
#define RGPU_ID_cudaEventDestroy 0x1444274fu
#define RGPU_FLAGS_cudaEventDestroy (0)
#define RGPU_ID_cudaEventElapsedTime 0x76df19cfu
#define RGPU_FLAGS_cudaEventElapsedTime (0)
#define RGPU_ID_cudaLaunchKernel 0x228e2969u
#define RGPU_FLAGS_cudaLaunchKernel (RGPU_F_ASYNC | RGPU_F_DEVICE_WORK)
#define RGPU_ID_cudaLaunchCooperativeKernel 0x1153db16u
#define RGPU_FLAGS_cudaLaunchCooperativeKernel (RGPU_F_ASYNC | RGPU_F_DEVICE_WORK)
#define RGPU_ID_cudaMallocManaged 0x4ce37373u
#define RGPU_FLAGS_cudaMallocManaged (0)
#define RGPU_ID_cudaMalloc 0x0b79c2b5u
#define RGPU_FLAGS_cudaMalloc (0)
#define RGPU_ID_cudaMallocPitch 0x5ae9ba20u
#define RGPU_FLAGS_cudaMallocPitch (0)
#define RGPU_ID_cudaFree 0x7e7925e6u
#define RGPU_FLAGS_cudaFree (RGPU_F_SYNC)
#define RGPU_ID_cudaMemGetInfo 0x15b42dd8u
#define RGPU_FLAGS_cudaMemGetInfo (0)
#define RGPU_ID_cudaMemcpy 0x7d21b3c9u
#define RGPU_FLAGS_cudaMemcpy (RGPU_F_DEVICE_WORK | RGPU_F_SYNC | RGPU_F_DEFERRED | RGPU_F_SHM)
#define RGPU_ID_cudaMemcpy2D 0x15483017u
#define RGPU_FLAGS_cudaMemcpy2D (RGPU_F_DEVICE_WORK | RGPU_F_SYNC | RGPU_F_DEFERRED)
#define RGPU_ID_cudaMemcpyAsync 0x6602ec30u
#define RGPU_FLAGS_cudaMemcpyAsync (RGPU_F_DEVICE_WORK | RGPU_F_SHM)
#define RGPU_ID_cudaMemcpy2DAsync 0x7e8abd96u
#define RGPU_FLAGS_cudaMemcpy2DAsync (RGPU_F_DEVICE_WORK)
#define RGPU_ID_cudaMemset 0x28038a10u
#define RGPU_FLAGS_cudaMemset (RGPU_F_DEVICE_WORK | RGPU_F_SYNC | RGPU_F_DEFERRED)
#define RGPU_ID_cudaMemset2D 0x1ab7936bu
#define RGPU_FLAGS_cudaMemset2D (RGPU_F_DEVICE_WORK | RGPU_F_SYNC | RGPU_F_DEFERRED)
#define RGPU_ID_cudaMemsetAsync 0x13c17dacu
#define RGPU_FLAGS_cudaMemsetAsync (RGPU_F_ASYNC | RGPU_F_DEVICE_WORK)
#define RGPU_ID_cudaMemset2DAsync 0x24762e91u
#define RGPU_FLAGS_cudaMemset2DAsync (RGPU_F_ASYNC | RGPU_F_DEVICE_WORK)
#define RGPU_ID_cudaMallocAsync 0x1269877fu
#define RGPU_FLAGS_cudaMallocAsync (0)
#define RGPU_ID_cudaFreeAsync 0x743ac656u
#define RGPU_FLAGS_cudaFreeAsync (RGPU_F_ASYNC)
#define RGPU_ID_cudaMemPoolTrimTo 0x2aca4d83u
#define RGPU_FLAGS_cudaMemPoolTrimTo (0)
#define RGPU_ID_cudaMemPoolSetAttribute 0x1b967ad3u
#define RGPU_FLAGS_cudaMemPoolSetAttribute (0)
#define RGPU_ID_cudaMemPoolGetAttribute 0x1488ac50u
#define RGPU_FLAGS_cudaMemPoolGetAttribute (0)
#define RGPU_ID_cudaMemPoolSetAccess 0x1cf9d3e9u
#define RGPU_FLAGS_cudaMemPoolSetAccess (0)
#define RGPU_ID_cudaMemPoolGetAccess 0x6dd5c094u
#define RGPU_FLAGS_cudaMemPoolGetAccess (0)
#define RGPU_ID_cudaMemPoolCreate 0x0284f4c0u
#define RGPU_FLAGS_cudaMemPoolCreate (0)
#define RGPU_ID_cudaMemPoolDestroy 0x4dcc3d4bu
#define RGPU_FLAGS_cudaMemPoolDestroy (0)
#define RGPU_ID_cudaMemGetDefaultMemPool 0x0176e409u
#define RGPU_FLAGS_cudaMemGetDefaultMemPool (0)
#define RGPU_ID_cudaMemGetMemPool 0x34074b45u
#define RGPU_FLAGS_cudaMemGetMemPool (0)
#define RGPU_ID_cudaMemSetMemPool 0x1a426ad7u
#define RGPU_FLAGS_cudaMemSetMemPool (0)
#define RGPU_ID_cudaMallocFromPoolAsync 0x57d90b57u
#define RGPU_FLAGS_cudaMallocFromPoolAsync (0)
#define RGPU_ID_cudaPointerGetAttributes 0x5e572561u
#define RGPU_FLAGS_cudaPointerGetAttributes (0)
#define RGPU_ID_rgpuGraphBuild 0x0efb8d1du
#define RGPU_FLAGS_rgpuGraphBuild (0)
#define RGPU_ID_rgpuGraphLaunch 0x0b036b0fu
#define RGPU_FLAGS_rgpuGraphLaunch (RGPU_F_ASYNC | RGPU_F_DEVICE_WORK)
#define RGPU_ID_rgpuGraphDestroy 0x21502945u
#define RGPU_FLAGS_rgpuGraphDestroy (RGPU_F_ASYNC)
#define RGPU_ID_rgpuManagedPull 0x53fc9728u
#define RGPU_FLAGS_rgpuManagedPull (RGPU_F_DEVICE_WORK | RGPU_F_SYNC | RGPU_F_DEFERRED)
#define RGPU_ID_rgpuMemPlacement 0x27830ba3u
#define RGPU_FLAGS_rgpuMemPlacement (0)
#define RGPU_ID_rgpuMemPlace 0x2ab47a93u
#define RGPU_FLAGS_rgpuMemPlace (RGPU_F_ASYNC)
#define RGPU_ID_rgpuMemPlaceGrant 0x37dcce94u
#define RGPU_FLAGS_rgpuMemPlaceGrant (0)
#define RGPU_ID_rgpuMemcpyToSymbol 0x54441c8fu
#define RGPU_FLAGS_rgpuMemcpyToSymbol (RGPU_F_DEVICE_WORK | RGPU_F_SYNC | RGPU_F_DEFERRED | RGPU_F_SHM)
#define RGPU_ID_rgpuMemcpyToSymbolAsync 0x156046e1u
#define RGPU_FLAGS_rgpuMemcpyToSymbolAsync (RGPU_F_DEVICE_WORK)
#define RGPU_ID_rgpuMemcpyFromSymbol 0x79526bb8u
#define RGPU_FLAGS_rgpuMemcpyFromSymbol (RGPU_F_DEVICE_WORK | RGPU_F_SYNC | RGPU_F_DEFERRED | RGPU_F_SHM)
#define RGPU_ID_rgpuModuleGlobalSize 0x47e5643bu
#define RGPU_FLAGS_rgpuModuleGlobalSize (0)
#define RGPU_ID_rgpuPointerFacts 0x4d6b221au
#define RGPU_FLAGS_rgpuPointerFacts (0)

#define RGPU_CUDA_VERSION 13000
#endif
