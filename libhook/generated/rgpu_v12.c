/* generated from CUDA 12.9 and 13.0 by protocol/codegen — do not edit */
#include <string.h>

#include "rgpu_call.h"
#include "rgpu_cuda12.h"

__asm__(".text\n.globl rgpu12___cudaGetKernel\n.type rgpu12___cudaGetKernel, @function\nrgpu12___cudaGetKernel:\n    jmp __cudaGetKernel@PLT\n.symver rgpu12___cudaGetKernel, __cudaGetKernel@libcudart.so.12\n");
__asm__(".text\n.globl rgpu12___cudaInitModule\n.type rgpu12___cudaInitModule, @function\nrgpu12___cudaInitModule:\n    jmp __cudaInitModule@PLT\n.symver rgpu12___cudaInitModule, __cudaInitModule@libcudart.so.12\n");
__asm__(".text\n.globl rgpu12___cudaLaunchKernel\n.type rgpu12___cudaLaunchKernel, @function\nrgpu12___cudaLaunchKernel:\n    jmp __cudaLaunchKernel@PLT\n.symver rgpu12___cudaLaunchKernel, __cudaLaunchKernel@libcudart.so.12\n");
__asm__(".text\n.globl rgpu12___cudaLaunchKernel_ptsz\n.type rgpu12___cudaLaunchKernel_ptsz, @function\nrgpu12___cudaLaunchKernel_ptsz:\n    jmp __cudaLaunchKernel_ptsz@PLT\n.symver rgpu12___cudaLaunchKernel_ptsz, __cudaLaunchKernel_ptsz@libcudart.so.12\n");
__asm__(".text\n.globl rgpu12___cudaPopCallConfiguration\n.type rgpu12___cudaPopCallConfiguration, @function\nrgpu12___cudaPopCallConfiguration:\n    jmp __cudaPopCallConfiguration@PLT\n.symver rgpu12___cudaPopCallConfiguration, __cudaPopCallConfiguration@libcudart.so.12\n");
__asm__(".text\n.globl rgpu12___cudaPushCallConfiguration\n.type rgpu12___cudaPushCallConfiguration, @function\nrgpu12___cudaPushCallConfiguration:\n    jmp __cudaPushCallConfiguration@PLT\n.symver rgpu12___cudaPushCallConfiguration, __cudaPushCallConfiguration@libcudart.so.12\n");
__asm__(".text\n.globl rgpu12___cudaRegisterFatBinary\n.type rgpu12___cudaRegisterFatBinary, @function\nrgpu12___cudaRegisterFatBinary:\n    jmp __cudaRegisterFatBinary@PLT\n.symver rgpu12___cudaRegisterFatBinary, __cudaRegisterFatBinary@libcudart.so.12\n");
__asm__(".text\n.globl rgpu12___cudaRegisterFatBinaryEnd\n.type rgpu12___cudaRegisterFatBinaryEnd, @function\nrgpu12___cudaRegisterFatBinaryEnd:\n    jmp __cudaRegisterFatBinaryEnd@PLT\n.symver rgpu12___cudaRegisterFatBinaryEnd, __cudaRegisterFatBinaryEnd@libcudart.so.12\n");
__asm__(".text\n.globl rgpu12___cudaRegisterFunction\n.type rgpu12___cudaRegisterFunction, @function\nrgpu12___cudaRegisterFunction:\n    jmp __cudaRegisterFunction@PLT\n.symver rgpu12___cudaRegisterFunction, __cudaRegisterFunction@libcudart.so.12\n");
__asm__(".text\n.globl rgpu12___cudaRegisterManagedVar\n.type rgpu12___cudaRegisterManagedVar, @function\nrgpu12___cudaRegisterManagedVar:\n    jmp __cudaRegisterManagedVar@PLT\n.symver rgpu12___cudaRegisterManagedVar, __cudaRegisterManagedVar@libcudart.so.12\n");
__asm__(".text\n.globl rgpu12___cudaRegisterVar\n.type rgpu12___cudaRegisterVar, @function\nrgpu12___cudaRegisterVar:\n    jmp __cudaRegisterVar@PLT\n.symver rgpu12___cudaRegisterVar, __cudaRegisterVar@libcudart.so.12\n");
__asm__(".text\n.globl rgpu12___cudaUnregisterFatBinary\n.type rgpu12___cudaUnregisterFatBinary, @function\nrgpu12___cudaUnregisterFatBinary:\n    jmp __cudaUnregisterFatBinary@PLT\n.symver rgpu12___cudaUnregisterFatBinary, __cudaUnregisterFatBinary@libcudart.so.12\n");
__asm__(".text\n.globl rgpu12_cudaArrayGetInfo\n.type rgpu12_cudaArrayGetInfo, @function\nrgpu12_cudaArrayGetInfo:\n    jmp cudaArrayGetInfo@PLT\n.symver rgpu12_cudaArrayGetInfo, cudaArrayGetInfo@libcudart.so.12\n");
__asm__(".text\n.globl rgpu12_cudaArrayGetMemoryRequirements\n.type rgpu12_cudaArrayGetMemoryRequirements, @function\nrgpu12_cudaArrayGetMemoryRequirements:\n    jmp cudaArrayGetMemoryRequirements@PLT\n.symver rgpu12_cudaArrayGetMemoryRequirements, cudaArrayGetMemoryRequirements@libcudart.so.12\n");
__asm__(".text\n.globl rgpu12_cudaArrayGetPlane\n.type rgpu12_cudaArrayGetPlane, @function\nrgpu12_cudaArrayGetPlane:\n    jmp cudaArrayGetPlane@PLT\n.symver rgpu12_cudaArrayGetPlane, cudaArrayGetPlane@libcudart.so.12\n");
__asm__(".text\n.globl rgpu12_cudaArrayGetSparseProperties\n.type rgpu12_cudaArrayGetSparseProperties, @function\nrgpu12_cudaArrayGetSparseProperties:\n    jmp cudaArrayGetSparseProperties@PLT\n.symver rgpu12_cudaArrayGetSparseProperties, cudaArrayGetSparseProperties@libcudart.so.12\n");
__asm__(".text\n.globl rgpu12_cudaChooseDevice\n.type rgpu12_cudaChooseDevice, @function\nrgpu12_cudaChooseDevice:\n    jmp rgpu12impl_cudaChooseDevice@PLT\n.symver rgpu12_cudaChooseDevice, cudaChooseDevice@libcudart.so.12\n");
__asm__(".text\n.globl rgpu12_cudaCreateChannelDesc\n.type rgpu12_cudaCreateChannelDesc, @function\nrgpu12_cudaCreateChannelDesc:\n    jmp cudaCreateChannelDesc@PLT\n.symver rgpu12_cudaCreateChannelDesc, cudaCreateChannelDesc@libcudart.so.12\n");
__asm__(".text\n.globl rgpu12_cudaCreateSurfaceObject\n.type rgpu12_cudaCreateSurfaceObject, @function\nrgpu12_cudaCreateSurfaceObject:\n    jmp rgpu12impl_cudaCreateSurfaceObject@PLT\n.symver rgpu12_cudaCreateSurfaceObject, cudaCreateSurfaceObject@libcudart.so.12\n");
__asm__(".text\n.globl rgpu12_cudaCreateTextureObject\n.type rgpu12_cudaCreateTextureObject, @function\nrgpu12_cudaCreateTextureObject:\n    jmp rgpu12impl_cudaCreateTextureObject@PLT\n.symver rgpu12_cudaCreateTextureObject, cudaCreateTextureObject@libcudart.so.12\n");
__asm__(".text\n.globl rgpu12_cudaCtxResetPersistingL2Cache\n.type rgpu12_cudaCtxResetPersistingL2Cache, @function\nrgpu12_cudaCtxResetPersistingL2Cache:\n    jmp cudaCtxResetPersistingL2Cache@PLT\n.symver rgpu12_cudaCtxResetPersistingL2Cache, cudaCtxResetPersistingL2Cache@libcudart.so.12\n");
__asm__(".text\n.globl rgpu12_cudaDestroyExternalMemory\n.type rgpu12_cudaDestroyExternalMemory, @function\nrgpu12_cudaDestroyExternalMemory:\n    jmp cudaDestroyExternalMemory@PLT\n.symver rgpu12_cudaDestroyExternalMemory, cudaDestroyExternalMemory@libcudart.so.12\n");
__asm__(".text\n.globl rgpu12_cudaDestroyExternalSemaphore\n.type rgpu12_cudaDestroyExternalSemaphore, @function\nrgpu12_cudaDestroyExternalSemaphore:\n    jmp cudaDestroyExternalSemaphore@PLT\n.symver rgpu12_cudaDestroyExternalSemaphore, cudaDestroyExternalSemaphore@libcudart.so.12\n");
__asm__(".text\n.globl rgpu12_cudaDestroySurfaceObject\n.type rgpu12_cudaDestroySurfaceObject, @function\nrgpu12_cudaDestroySurfaceObject:\n    jmp cudaDestroySurfaceObject@PLT\n.symver rgpu12_cudaDestroySurfaceObject, cudaDestroySurfaceObject@libcudart.so.12\n");
__asm__(".text\n.globl rgpu12_cudaDestroyTextureObject\n.type rgpu12_cudaDestroyTextureObject, @function\nrgpu12_cudaDestroyTextureObject:\n    jmp cudaDestroyTextureObject@PLT\n.symver rgpu12_cudaDestroyTextureObject, cudaDestroyTextureObject@libcudart.so.12\n");
__asm__(".text\n.globl rgpu12_cudaDeviceCanAccessPeer\n.type rgpu12_cudaDeviceCanAccessPeer, @function\nrgpu12_cudaDeviceCanAccessPeer:\n    jmp cudaDeviceCanAccessPeer@PLT\n.symver rgpu12_cudaDeviceCanAccessPeer, cudaDeviceCanAccessPeer@libcudart.so.12\n");
__asm__(".text\n.globl rgpu12_cudaDeviceDisablePeerAccess\n.type rgpu12_cudaDeviceDisablePeerAccess, @function\nrgpu12_cudaDeviceDisablePeerAccess:\n    jmp cudaDeviceDisablePeerAccess@PLT\n.symver rgpu12_cudaDeviceDisablePeerAccess, cudaDeviceDisablePeerAccess@libcudart.so.12\n");
__asm__(".text\n.globl rgpu12_cudaDeviceEnablePeerAccess\n.type rgpu12_cudaDeviceEnablePeerAccess, @function\nrgpu12_cudaDeviceEnablePeerAccess:\n    jmp cudaDeviceEnablePeerAccess@PLT\n.symver rgpu12_cudaDeviceEnablePeerAccess, cudaDeviceEnablePeerAccess@libcudart.so.12\n");
__asm__(".text\n.globl rgpu12_cudaDeviceFlushGPUDirectRDMAWrites\n.type rgpu12_cudaDeviceFlushGPUDirectRDMAWrites, @function\nrgpu12_cudaDeviceFlushGPUDirectRDMAWrites:\n    jmp cudaDeviceFlushGPUDirectRDMAWrites@PLT\n.symver rgpu12_cudaDeviceFlushGPUDirectRDMAWrites, cudaDeviceFlushGPUDirectRDMAWrites@libcudart.so.12\n");
__asm__(".text\n.globl rgpu12_cudaDeviceGetAttribute\n.type rgpu12_cudaDeviceGetAttribute, @function\nrgpu12_cudaDeviceGetAttribute:\n    jmp cudaDeviceGetAttribute@PLT\n.symver rgpu12_cudaDeviceGetAttribute, cudaDeviceGetAttribute@libcudart.so.12\n");
__asm__(".text\n.globl rgpu12_cudaDeviceGetByPCIBusId\n.type rgpu12_cudaDeviceGetByPCIBusId, @function\nrgpu12_cudaDeviceGetByPCIBusId:\n    jmp cudaDeviceGetByPCIBusId@PLT\n.symver rgpu12_cudaDeviceGetByPCIBusId, cudaDeviceGetByPCIBusId@libcudart.so.12\n");
__asm__(".text\n.globl rgpu12_cudaDeviceGetCacheConfig\n.type rgpu12_cudaDeviceGetCacheConfig, @function\nrgpu12_cudaDeviceGetCacheConfig:\n    jmp cudaDeviceGetCacheConfig@PLT\n.symver rgpu12_cudaDeviceGetCacheConfig, cudaDeviceGetCacheConfig@libcudart.so.12\n");
__asm__(".text\n.globl rgpu12_cudaDeviceGetDefaultMemPool\n.type rgpu12_cudaDeviceGetDefaultMemPool, @function\nrgpu12_cudaDeviceGetDefaultMemPool:\n    jmp cudaDeviceGetDefaultMemPool@PLT\n.symver rgpu12_cudaDeviceGetDefaultMemPool, cudaDeviceGetDefaultMemPool@libcudart.so.12\n");
__asm__(".text\n.globl rgpu12_cudaDeviceGetGraphMemAttribute\n.type rgpu12_cudaDeviceGetGraphMemAttribute, @function\nrgpu12_cudaDeviceGetGraphMemAttribute:\n    jmp cudaDeviceGetGraphMemAttribute@PLT\n.symver rgpu12_cudaDeviceGetGraphMemAttribute, cudaDeviceGetGraphMemAttribute@libcudart.so.12\n");
__asm__(".text\n.globl rgpu12_cudaDeviceGetLimit\n.type rgpu12_cudaDeviceGetLimit, @function\nrgpu12_cudaDeviceGetLimit:\n    jmp cudaDeviceGetLimit@PLT\n.symver rgpu12_cudaDeviceGetLimit, cudaDeviceGetLimit@libcudart.so.12\n");
__asm__(".text\n.globl rgpu12_cudaDeviceGetMemPool\n.type rgpu12_cudaDeviceGetMemPool, @function\nrgpu12_cudaDeviceGetMemPool:\n    jmp cudaDeviceGetMemPool@PLT\n.symver rgpu12_cudaDeviceGetMemPool, cudaDeviceGetMemPool@libcudart.so.12\n");
__asm__(".text\n.globl rgpu12_cudaDeviceGetNvSciSyncAttributes\n.type rgpu12_cudaDeviceGetNvSciSyncAttributes, @function\nrgpu12_cudaDeviceGetNvSciSyncAttributes:\n    jmp cudaDeviceGetNvSciSyncAttributes@PLT\n.symver rgpu12_cudaDeviceGetNvSciSyncAttributes, cudaDeviceGetNvSciSyncAttributes@libcudart.so.12\n");
__asm__(".text\n.globl rgpu12_cudaDeviceGetP2PAttribute\n.type rgpu12_cudaDeviceGetP2PAttribute, @function\nrgpu12_cudaDeviceGetP2PAttribute:\n    jmp cudaDeviceGetP2PAttribute@PLT\n.symver rgpu12_cudaDeviceGetP2PAttribute, cudaDeviceGetP2PAttribute@libcudart.so.12\n");
__asm__(".text\n.globl rgpu12_cudaDeviceGetPCIBusId\n.type rgpu12_cudaDeviceGetPCIBusId, @function\nrgpu12_cudaDeviceGetPCIBusId:\n    jmp cudaDeviceGetPCIBusId@PLT\n.symver rgpu12_cudaDeviceGetPCIBusId, cudaDeviceGetPCIBusId@libcudart.so.12\n");
__asm__(".text\n.globl rgpu12_cudaDeviceGetSharedMemConfig\n.type rgpu12_cudaDeviceGetSharedMemConfig, @function\nrgpu12_cudaDeviceGetSharedMemConfig:\n    jmp cudaDeviceGetSharedMemConfig@PLT\n.symver rgpu12_cudaDeviceGetSharedMemConfig, cudaDeviceGetSharedMemConfig@libcudart.so.12\n");
__asm__(".text\n.globl rgpu12_cudaDeviceGetStreamPriorityRange\n.type rgpu12_cudaDeviceGetStreamPriorityRange, @function\nrgpu12_cudaDeviceGetStreamPriorityRange:\n    jmp cudaDeviceGetStreamPriorityRange@PLT\n.symver rgpu12_cudaDeviceGetStreamPriorityRange, cudaDeviceGetStreamPriorityRange@libcudart.so.12\n");
__asm__(".text\n.globl rgpu12_cudaDeviceGetTexture1DLinearMaxWidth\n.type rgpu12_cudaDeviceGetTexture1DLinearMaxWidth, @function\nrgpu12_cudaDeviceGetTexture1DLinearMaxWidth:\n    jmp cudaDeviceGetTexture1DLinearMaxWidth@PLT\n.symver rgpu12_cudaDeviceGetTexture1DLinearMaxWidth, cudaDeviceGetTexture1DLinearMaxWidth@libcudart.so.12\n");
__asm__(".text\n.globl rgpu12_cudaDeviceGraphMemTrim\n.type rgpu12_cudaDeviceGraphMemTrim, @function\nrgpu12_cudaDeviceGraphMemTrim:\n    jmp cudaDeviceGraphMemTrim@PLT\n.symver rgpu12_cudaDeviceGraphMemTrim, cudaDeviceGraphMemTrim@libcudart.so.12\n");
__asm__(".text\n.globl rgpu12_cudaDeviceRegisterAsyncNotification\n.type rgpu12_cudaDeviceRegisterAsyncNotification, @function\nrgpu12_cudaDeviceRegisterAsyncNotification:\n    jmp cudaDeviceRegisterAsyncNotification@PLT\n.symver rgpu12_cudaDeviceRegisterAsyncNotification, cudaDeviceRegisterAsyncNotification@libcudart.so.12\n");
__asm__(".text\n.globl rgpu12_cudaDeviceReset\n.type rgpu12_cudaDeviceReset, @function\nrgpu12_cudaDeviceReset:\n    jmp cudaDeviceReset@PLT\n.symver rgpu12_cudaDeviceReset, cudaDeviceReset@libcudart.so.12\n");
__asm__(".text\n.globl rgpu12_cudaDeviceSetCacheConfig\n.type rgpu12_cudaDeviceSetCacheConfig, @function\nrgpu12_cudaDeviceSetCacheConfig:\n    jmp cudaDeviceSetCacheConfig@PLT\n.symver rgpu12_cudaDeviceSetCacheConfig, cudaDeviceSetCacheConfig@libcudart.so.12\n");
__asm__(".text\n.globl rgpu12_cudaDeviceSetGraphMemAttribute\n.type rgpu12_cudaDeviceSetGraphMemAttribute, @function\nrgpu12_cudaDeviceSetGraphMemAttribute:\n    jmp cudaDeviceSetGraphMemAttribute@PLT\n.symver rgpu12_cudaDeviceSetGraphMemAttribute, cudaDeviceSetGraphMemAttribute@libcudart.so.12\n");
__asm__(".text\n.globl rgpu12_cudaDeviceSetLimit\n.type rgpu12_cudaDeviceSetLimit, @function\nrgpu12_cudaDeviceSetLimit:\n    jmp cudaDeviceSetLimit@PLT\n.symver rgpu12_cudaDeviceSetLimit, cudaDeviceSetLimit@libcudart.so.12\n");
__asm__(".text\n.globl rgpu12_cudaDeviceSetMemPool\n.type rgpu12_cudaDeviceSetMemPool, @function\nrgpu12_cudaDeviceSetMemPool:\n    jmp cudaDeviceSetMemPool@PLT\n.symver rgpu12_cudaDeviceSetMemPool, cudaDeviceSetMemPool@libcudart.so.12\n");
__asm__(".text\n.globl rgpu12_cudaDeviceSetSharedMemConfig\n.type rgpu12_cudaDeviceSetSharedMemConfig, @function\nrgpu12_cudaDeviceSetSharedMemConfig:\n    jmp cudaDeviceSetSharedMemConfig@PLT\n.symver rgpu12_cudaDeviceSetSharedMemConfig, cudaDeviceSetSharedMemConfig@libcudart.so.12\n");
__asm__(".text\n.globl rgpu12_cudaDeviceSynchronize\n.type rgpu12_cudaDeviceSynchronize, @function\nrgpu12_cudaDeviceSynchronize:\n    jmp cudaDeviceSynchronize@PLT\n.symver rgpu12_cudaDeviceSynchronize, cudaDeviceSynchronize@libcudart.so.12\n");
__asm__(".text\n.globl rgpu12_cudaDeviceUnregisterAsyncNotification\n.type rgpu12_cudaDeviceUnregisterAsyncNotification, @function\nrgpu12_cudaDeviceUnregisterAsyncNotification:\n    jmp cudaDeviceUnregisterAsyncNotification@PLT\n.symver rgpu12_cudaDeviceUnregisterAsyncNotification, cudaDeviceUnregisterAsyncNotification@libcudart.so.12\n");
__asm__(".text\n.globl rgpu12_cudaDriverGetVersion\n.type rgpu12_cudaDriverGetVersion, @function\nrgpu12_cudaDriverGetVersion:\n    jmp cudaDriverGetVersion@PLT\n.symver rgpu12_cudaDriverGetVersion, cudaDriverGetVersion@libcudart.so.12\n");
__asm__(".text\n.globl rgpu12_cudaEventCreate\n.type rgpu12_cudaEventCreate, @function\nrgpu12_cudaEventCreate:\n    jmp cudaEventCreate@PLT\n.symver rgpu12_cudaEventCreate, cudaEventCreate@libcudart.so.12\n");
__asm__(".text\n.globl rgpu12_cudaEventCreateWithFlags\n.type rgpu12_cudaEventCreateWithFlags, @function\nrgpu12_cudaEventCreateWithFlags:\n    jmp cudaEventCreateWithFlags@PLT\n.symver rgpu12_cudaEventCreateWithFlags, cudaEventCreateWithFlags@libcudart.so.12\n");
__asm__(".text\n.globl rgpu12_cudaEventDestroy\n.type rgpu12_cudaEventDestroy, @function\nrgpu12_cudaEventDestroy:\n    jmp cudaEventDestroy@PLT\n.symver rgpu12_cudaEventDestroy, cudaEventDestroy@libcudart.so.12\n");
__asm__(".text\n.globl rgpu12_cudaEventElapsedTime\n.type rgpu12_cudaEventElapsedTime, @function\nrgpu12_cudaEventElapsedTime:\n    jmp cudaEventElapsedTime@PLT\n.symver rgpu12_cudaEventElapsedTime, cudaEventElapsedTime@libcudart.so.12\n");
__asm__(".text\n.globl rgpu12_cudaEventElapsedTime_v2\n.type rgpu12_cudaEventElapsedTime_v2, @function\nrgpu12_cudaEventElapsedTime_v2:\n    jmp cudaEventElapsedTime@PLT\n.symver rgpu12_cudaEventElapsedTime_v2, cudaEventElapsedTime_v2@libcudart.so.12\n");
__asm__(".text\n.globl rgpu12_cudaEventQuery\n.type rgpu12_cudaEventQuery, @function\nrgpu12_cudaEventQuery:\n    jmp cudaEventQuery@PLT\n.symver rgpu12_cudaEventQuery, cudaEventQuery@libcudart.so.12\n");
__asm__(".text\n.globl rgpu12_cudaEventRecord\n.type rgpu12_cudaEventRecord, @function\nrgpu12_cudaEventRecord:\n    jmp cudaEventRecord@PLT\n.symver rgpu12_cudaEventRecord, cudaEventRecord@libcudart.so.12\n");
__asm__(".text\n.globl rgpu12_cudaEventRecordWithFlags\n.type rgpu12_cudaEventRecordWithFlags, @function\nrgpu12_cudaEventRecordWithFlags:\n    jmp cudaEventRecordWithFlags@PLT\n.symver rgpu12_cudaEventRecordWithFlags, cudaEventRecordWithFlags@libcudart.so.12\n");
__asm__(".text\n.globl rgpu12_cudaEventSynchronize\n.type rgpu12_cudaEventSynchronize, @function\nrgpu12_cudaEventSynchronize:\n    jmp cudaEventSynchronize@PLT\n.symver rgpu12_cudaEventSynchronize, cudaEventSynchronize@libcudart.so.12\n");
__asm__(".text\n.globl rgpu12_cudaExternalMemoryGetMappedBuffer\n.type rgpu12_cudaExternalMemoryGetMappedBuffer, @function\nrgpu12_cudaExternalMemoryGetMappedBuffer:\n    jmp cudaExternalMemoryGetMappedBuffer@PLT\n.symver rgpu12_cudaExternalMemoryGetMappedBuffer, cudaExternalMemoryGetMappedBuffer@libcudart.so.12\n");
__asm__(".text\n.globl rgpu12_cudaExternalMemoryGetMappedMipmappedArray\n.type rgpu12_cudaExternalMemoryGetMappedMipmappedArray, @function\nrgpu12_cudaExternalMemoryGetMappedMipmappedArray:\n    jmp cudaExternalMemoryGetMappedMipmappedArray@PLT\n.symver rgpu12_cudaExternalMemoryGetMappedMipmappedArray, cudaExternalMemoryGetMappedMipmappedArray@libcudart.so.12\n");
__asm__(".text\n.globl rgpu12_cudaFree\n.type rgpu12_cudaFree, @function\nrgpu12_cudaFree:\n    jmp cudaFree@PLT\n.symver rgpu12_cudaFree, cudaFree@libcudart.so.12\n");
__asm__(".text\n.globl rgpu12_cudaFreeArray\n.type rgpu12_cudaFreeArray, @function\nrgpu12_cudaFreeArray:\n    jmp cudaFreeArray@PLT\n.symver rgpu12_cudaFreeArray, cudaFreeArray@libcudart.so.12\n");
__asm__(".text\n.globl rgpu12_cudaFreeAsync\n.type rgpu12_cudaFreeAsync, @function\nrgpu12_cudaFreeAsync:\n    jmp cudaFreeAsync@PLT\n.symver rgpu12_cudaFreeAsync, cudaFreeAsync@libcudart.so.12\n");
__asm__(".text\n.globl rgpu12_cudaFreeHost\n.type rgpu12_cudaFreeHost, @function\nrgpu12_cudaFreeHost:\n    jmp cudaFreeHost@PLT\n.symver rgpu12_cudaFreeHost, cudaFreeHost@libcudart.so.12\n");
__asm__(".text\n.globl rgpu12_cudaFreeMipmappedArray\n.type rgpu12_cudaFreeMipmappedArray, @function\nrgpu12_cudaFreeMipmappedArray:\n    jmp cudaFreeMipmappedArray@PLT\n.symver rgpu12_cudaFreeMipmappedArray, cudaFreeMipmappedArray@libcudart.so.12\n");
__asm__(".text\n.globl rgpu12_cudaFuncGetAttributes\n.type rgpu12_cudaFuncGetAttributes, @function\nrgpu12_cudaFuncGetAttributes:\n    jmp cudaFuncGetAttributes@PLT\n.symver rgpu12_cudaFuncGetAttributes, cudaFuncGetAttributes@libcudart.so.12\n");
__asm__(".text\n.globl rgpu12_cudaFuncGetName\n.type rgpu12_cudaFuncGetName, @function\nrgpu12_cudaFuncGetName:\n    jmp cudaFuncGetName@PLT\n.symver rgpu12_cudaFuncGetName, cudaFuncGetName@libcudart.so.12\n");
__asm__(".text\n.globl rgpu12_cudaFuncGetParamInfo\n.type rgpu12_cudaFuncGetParamInfo, @function\nrgpu12_cudaFuncGetParamInfo:\n    jmp cudaFuncGetParamInfo@PLT\n.symver rgpu12_cudaFuncGetParamInfo, cudaFuncGetParamInfo@libcudart.so.12\n");
__asm__(".text\n.globl rgpu12_cudaFuncSetAttribute\n.type rgpu12_cudaFuncSetAttribute, @function\nrgpu12_cudaFuncSetAttribute:\n    jmp cudaFuncSetAttribute@PLT\n.symver rgpu12_cudaFuncSetAttribute, cudaFuncSetAttribute@libcudart.so.12\n");
__asm__(".text\n.globl rgpu12_cudaFuncSetCacheConfig\n.type rgpu12_cudaFuncSetCacheConfig, @function\nrgpu12_cudaFuncSetCacheConfig:\n    jmp cudaFuncSetCacheConfig@PLT\n.symver rgpu12_cudaFuncSetCacheConfig, cudaFuncSetCacheConfig@libcudart.so.12\n");
__asm__(".text\n.globl rgpu12_cudaFuncSetSharedMemConfig\n.type rgpu12_cudaFuncSetSharedMemConfig, @function\nrgpu12_cudaFuncSetSharedMemConfig:\n    jmp cudaFuncSetSharedMemConfig@PLT\n.symver rgpu12_cudaFuncSetSharedMemConfig, cudaFuncSetSharedMemConfig@libcudart.so.12\n");
__asm__(".text\n.globl rgpu12_cudaGetChannelDesc\n.type rgpu12_cudaGetChannelDesc, @function\nrgpu12_cudaGetChannelDesc:\n    jmp cudaGetChannelDesc@PLT\n.symver rgpu12_cudaGetChannelDesc, cudaGetChannelDesc@libcudart.so.12\n");
__asm__(".text\n.globl rgpu12_cudaGetDevice\n.type rgpu12_cudaGetDevice, @function\nrgpu12_cudaGetDevice:\n    jmp cudaGetDevice@PLT\n.symver rgpu12_cudaGetDevice, cudaGetDevice@libcudart.so.12\n");
__asm__(".text\n.globl rgpu12_cudaGetDeviceCount\n.type rgpu12_cudaGetDeviceCount, @function\nrgpu12_cudaGetDeviceCount:\n    jmp cudaGetDeviceCount@PLT\n.symver rgpu12_cudaGetDeviceCount, cudaGetDeviceCount@libcudart.so.12\n");
__asm__(".text\n.globl rgpu12_cudaGetDeviceFlags\n.type rgpu12_cudaGetDeviceFlags, @function\nrgpu12_cudaGetDeviceFlags:\n    jmp cudaGetDeviceFlags@PLT\n.symver rgpu12_cudaGetDeviceFlags, cudaGetDeviceFlags@libcudart.so.12\n");
__asm__(".text\n.globl rgpu12_cudaGetDeviceProperties\n.type rgpu12_cudaGetDeviceProperties, @function\nrgpu12_cudaGetDeviceProperties:\n    jmp rgpu12impl_cudaGetDeviceProperties@PLT\n.symver rgpu12_cudaGetDeviceProperties, cudaGetDeviceProperties@libcudart.so.12\n");
__asm__(".text\n.globl rgpu12_cudaGetDeviceProperties_v2\n.type rgpu12_cudaGetDeviceProperties_v2, @function\nrgpu12_cudaGetDeviceProperties_v2:\n    jmp rgpu12impl_cudaGetDeviceProperties_v2@PLT\n.symver rgpu12_cudaGetDeviceProperties_v2, cudaGetDeviceProperties_v2@libcudart.so.12\n");
__asm__(".text\n.globl rgpu12_cudaGetDriverEntryPoint\n.type rgpu12_cudaGetDriverEntryPoint, @function\nrgpu12_cudaGetDriverEntryPoint:\n    jmp rgpu12impl_cudaGetDriverEntryPoint@PLT\n.symver rgpu12_cudaGetDriverEntryPoint, cudaGetDriverEntryPoint@libcudart.so.12\n");
__asm__(".text\n.globl rgpu12_cudaGetDriverEntryPointByVersion\n.type rgpu12_cudaGetDriverEntryPointByVersion, @function\nrgpu12_cudaGetDriverEntryPointByVersion:\n    jmp cudaGetDriverEntryPointByVersion@PLT\n.symver rgpu12_cudaGetDriverEntryPointByVersion, cudaGetDriverEntryPointByVersion@libcudart.so.12\n");
__asm__(".text\n.globl rgpu12_cudaGetErrorName\n.type rgpu12_cudaGetErrorName, @function\nrgpu12_cudaGetErrorName:\n    jmp cudaGetErrorName@PLT\n.symver rgpu12_cudaGetErrorName, cudaGetErrorName@libcudart.so.12\n");
__asm__(".text\n.globl rgpu12_cudaGetErrorString\n.type rgpu12_cudaGetErrorString, @function\nrgpu12_cudaGetErrorString:\n    jmp cudaGetErrorString@PLT\n.symver rgpu12_cudaGetErrorString, cudaGetErrorString@libcudart.so.12\n");
__asm__(".text\n.globl rgpu12_cudaGetExportTable\n.type rgpu12_cudaGetExportTable, @function\nrgpu12_cudaGetExportTable:\n    jmp cudaGetExportTable@PLT\n.symver rgpu12_cudaGetExportTable, cudaGetExportTable@libcudart.so.12\n");
__asm__(".text\n.globl rgpu12_cudaGetFuncBySymbol\n.type rgpu12_cudaGetFuncBySymbol, @function\nrgpu12_cudaGetFuncBySymbol:\n    jmp cudaGetFuncBySymbol@PLT\n.symver rgpu12_cudaGetFuncBySymbol, cudaGetFuncBySymbol@libcudart.so.12\n");
__asm__(".text\n.globl rgpu12_cudaGetKernel\n.type rgpu12_cudaGetKernel, @function\nrgpu12_cudaGetKernel:\n    jmp cudaGetKernel@PLT\n.symver rgpu12_cudaGetKernel, cudaGetKernel@libcudart.so.12\n");
__asm__(".text\n.globl rgpu12_cudaGetLastError\n.type rgpu12_cudaGetLastError, @function\nrgpu12_cudaGetLastError:\n    jmp cudaGetLastError@PLT\n.symver rgpu12_cudaGetLastError, cudaGetLastError@libcudart.so.12\n");
__asm__(".text\n.globl rgpu12_cudaGetMipmappedArrayLevel\n.type rgpu12_cudaGetMipmappedArrayLevel, @function\nrgpu12_cudaGetMipmappedArrayLevel:\n    jmp cudaGetMipmappedArrayLevel@PLT\n.symver rgpu12_cudaGetMipmappedArrayLevel, cudaGetMipmappedArrayLevel@libcudart.so.12\n");
__asm__(".text\n.globl rgpu12_cudaGetSurfaceObjectResourceDesc\n.type rgpu12_cudaGetSurfaceObjectResourceDesc, @function\nrgpu12_cudaGetSurfaceObjectResourceDesc:\n    jmp rgpu12impl_cudaGetSurfaceObjectResourceDesc@PLT\n.symver rgpu12_cudaGetSurfaceObjectResourceDesc, cudaGetSurfaceObjectResourceDesc@libcudart.so.12\n");
__asm__(".text\n.globl rgpu12_cudaGetSymbolAddress\n.type rgpu12_cudaGetSymbolAddress, @function\nrgpu12_cudaGetSymbolAddress:\n    jmp cudaGetSymbolAddress@PLT\n.symver rgpu12_cudaGetSymbolAddress, cudaGetSymbolAddress@libcudart.so.12\n");
__asm__(".text\n.globl rgpu12_cudaGetSymbolSize\n.type rgpu12_cudaGetSymbolSize, @function\nrgpu12_cudaGetSymbolSize:\n    jmp cudaGetSymbolSize@PLT\n.symver rgpu12_cudaGetSymbolSize, cudaGetSymbolSize@libcudart.so.12\n");
__asm__(".text\n.globl rgpu12_cudaGetTextureObjectResourceDesc\n.type rgpu12_cudaGetTextureObjectResourceDesc, @function\nrgpu12_cudaGetTextureObjectResourceDesc:\n    jmp rgpu12impl_cudaGetTextureObjectResourceDesc@PLT\n.symver rgpu12_cudaGetTextureObjectResourceDesc, cudaGetTextureObjectResourceDesc@libcudart.so.12\n");
__asm__(".text\n.globl rgpu12_cudaGetTextureObjectResourceViewDesc\n.type rgpu12_cudaGetTextureObjectResourceViewDesc, @function\nrgpu12_cudaGetTextureObjectResourceViewDesc:\n    jmp rgpu12impl_cudaGetTextureObjectResourceViewDesc@PLT\n.symver rgpu12_cudaGetTextureObjectResourceViewDesc, cudaGetTextureObjectResourceViewDesc@libcudart.so.12\n");
__asm__(".text\n.globl rgpu12_cudaGetTextureObjectTextureDesc\n.type rgpu12_cudaGetTextureObjectTextureDesc, @function\nrgpu12_cudaGetTextureObjectTextureDesc:\n    jmp cudaGetTextureObjectTextureDesc@PLT\n.symver rgpu12_cudaGetTextureObjectTextureDesc, cudaGetTextureObjectTextureDesc@libcudart.so.12\n");
__asm__(".text\n.globl rgpu12_cudaGraphAddChildGraphNode\n.type rgpu12_cudaGraphAddChildGraphNode, @function\nrgpu12_cudaGraphAddChildGraphNode:\n    jmp cudaGraphAddChildGraphNode@PLT\n.symver rgpu12_cudaGraphAddChildGraphNode, cudaGraphAddChildGraphNode@libcudart.so.12\n");
__asm__(".text\n.globl rgpu12_cudaGraphAddDependencies\n.type rgpu12_cudaGraphAddDependencies, @function\nrgpu12_cudaGraphAddDependencies:\n    jmp rgpu_v12_cudaGraphAddDependencies@PLT\n.symver rgpu12_cudaGraphAddDependencies, cudaGraphAddDependencies@libcudart.so.12\n");
__asm__(".text\n.globl rgpu12_cudaGraphAddDependencies_v2\n.type rgpu12_cudaGraphAddDependencies_v2, @function\nrgpu12_cudaGraphAddDependencies_v2:\n    jmp cudaGraphAddDependencies@PLT\n.symver rgpu12_cudaGraphAddDependencies_v2, cudaGraphAddDependencies_v2@libcudart.so.12\n");
__asm__(".text\n.globl rgpu12_cudaGraphAddEmptyNode\n.type rgpu12_cudaGraphAddEmptyNode, @function\nrgpu12_cudaGraphAddEmptyNode:\n    jmp cudaGraphAddEmptyNode@PLT\n.symver rgpu12_cudaGraphAddEmptyNode, cudaGraphAddEmptyNode@libcudart.so.12\n");
__asm__(".text\n.globl rgpu12_cudaGraphAddEventRecordNode\n.type rgpu12_cudaGraphAddEventRecordNode, @function\nrgpu12_cudaGraphAddEventRecordNode:\n    jmp cudaGraphAddEventRecordNode@PLT\n.symver rgpu12_cudaGraphAddEventRecordNode, cudaGraphAddEventRecordNode@libcudart.so.12\n");
__asm__(".text\n.globl rgpu12_cudaGraphAddEventWaitNode\n.type rgpu12_cudaGraphAddEventWaitNode, @function\nrgpu12_cudaGraphAddEventWaitNode:\n    jmp cudaGraphAddEventWaitNode@PLT\n.symver rgpu12_cudaGraphAddEventWaitNode, cudaGraphAddEventWaitNode@libcudart.so.12\n");
__asm__(".text\n.globl rgpu12_cudaGraphAddExternalSemaphoresSignalNode\n.type rgpu12_cudaGraphAddExternalSemaphoresSignalNode, @function\nrgpu12_cudaGraphAddExternalSemaphoresSignalNode:\n    jmp cudaGraphAddExternalSemaphoresSignalNode@PLT\n.symver rgpu12_cudaGraphAddExternalSemaphoresSignalNode, cudaGraphAddExternalSemaphoresSignalNode@libcudart.so.12\n");
__asm__(".text\n.globl rgpu12_cudaGraphAddExternalSemaphoresWaitNode\n.type rgpu12_cudaGraphAddExternalSemaphoresWaitNode, @function\nrgpu12_cudaGraphAddExternalSemaphoresWaitNode:\n    jmp cudaGraphAddExternalSemaphoresWaitNode@PLT\n.symver rgpu12_cudaGraphAddExternalSemaphoresWaitNode, cudaGraphAddExternalSemaphoresWaitNode@libcudart.so.12\n");
__asm__(".text\n.globl rgpu12_cudaGraphAddHostNode\n.type rgpu12_cudaGraphAddHostNode, @function\nrgpu12_cudaGraphAddHostNode:\n    jmp cudaGraphAddHostNode@PLT\n.symver rgpu12_cudaGraphAddHostNode, cudaGraphAddHostNode@libcudart.so.12\n");
__asm__(".text\n.globl rgpu12_cudaGraphAddKernelNode\n.type rgpu12_cudaGraphAddKernelNode, @function\nrgpu12_cudaGraphAddKernelNode:\n    jmp cudaGraphAddKernelNode@PLT\n.symver rgpu12_cudaGraphAddKernelNode, cudaGraphAddKernelNode@libcudart.so.12\n");
__asm__(".text\n.globl rgpu12_cudaGraphAddMemAllocNode\n.type rgpu12_cudaGraphAddMemAllocNode, @function\nrgpu12_cudaGraphAddMemAllocNode:\n    jmp cudaGraphAddMemAllocNode@PLT\n.symver rgpu12_cudaGraphAddMemAllocNode, cudaGraphAddMemAllocNode@libcudart.so.12\n");
__asm__(".text\n.globl rgpu12_cudaGraphAddMemFreeNode\n.type rgpu12_cudaGraphAddMemFreeNode, @function\nrgpu12_cudaGraphAddMemFreeNode:\n    jmp cudaGraphAddMemFreeNode@PLT\n.symver rgpu12_cudaGraphAddMemFreeNode, cudaGraphAddMemFreeNode@libcudart.so.12\n");
__asm__(".text\n.globl rgpu12_cudaGraphAddMemcpyNode\n.type rgpu12_cudaGraphAddMemcpyNode, @function\nrgpu12_cudaGraphAddMemcpyNode:\n    jmp cudaGraphAddMemcpyNode@PLT\n.symver rgpu12_cudaGraphAddMemcpyNode, cudaGraphAddMemcpyNode@libcudart.so.12\n");
__asm__(".text\n.globl rgpu12_cudaGraphAddMemcpyNode1D\n.type rgpu12_cudaGraphAddMemcpyNode1D, @function\nrgpu12_cudaGraphAddMemcpyNode1D:\n    jmp cudaGraphAddMemcpyNode1D@PLT\n.symver rgpu12_cudaGraphAddMemcpyNode1D, cudaGraphAddMemcpyNode1D@libcudart.so.12\n");
__asm__(".text\n.globl rgpu12_cudaGraphAddMemcpyNodeFromSymbol\n.type rgpu12_cudaGraphAddMemcpyNodeFromSymbol, @function\nrgpu12_cudaGraphAddMemcpyNodeFromSymbol:\n    jmp cudaGraphAddMemcpyNodeFromSymbol@PLT\n.symver rgpu12_cudaGraphAddMemcpyNodeFromSymbol, cudaGraphAddMemcpyNodeFromSymbol@libcudart.so.12\n");
__asm__(".text\n.globl rgpu12_cudaGraphAddMemcpyNodeToSymbol\n.type rgpu12_cudaGraphAddMemcpyNodeToSymbol, @function\nrgpu12_cudaGraphAddMemcpyNodeToSymbol:\n    jmp cudaGraphAddMemcpyNodeToSymbol@PLT\n.symver rgpu12_cudaGraphAddMemcpyNodeToSymbol, cudaGraphAddMemcpyNodeToSymbol@libcudart.so.12\n");
__asm__(".text\n.globl rgpu12_cudaGraphAddMemsetNode\n.type rgpu12_cudaGraphAddMemsetNode, @function\nrgpu12_cudaGraphAddMemsetNode:\n    jmp cudaGraphAddMemsetNode@PLT\n.symver rgpu12_cudaGraphAddMemsetNode, cudaGraphAddMemsetNode@libcudart.so.12\n");
__asm__(".text\n.globl rgpu12_cudaGraphAddNode\n.type rgpu12_cudaGraphAddNode, @function\nrgpu12_cudaGraphAddNode:\n    jmp rgpu12impl_cudaGraphAddNode@PLT\n.symver rgpu12_cudaGraphAddNode, cudaGraphAddNode@libcudart.so.12\n");
__asm__(".text\n.globl rgpu12_cudaGraphAddNode_v2\n.type rgpu12_cudaGraphAddNode_v2, @function\nrgpu12_cudaGraphAddNode_v2:\n    jmp cudaGraphAddNode@PLT\n.symver rgpu12_cudaGraphAddNode_v2, cudaGraphAddNode_v2@libcudart.so.12\n");
__asm__(".text\n.globl rgpu12_cudaGraphChildGraphNodeGetGraph\n.type rgpu12_cudaGraphChildGraphNodeGetGraph, @function\nrgpu12_cudaGraphChildGraphNodeGetGraph:\n    jmp cudaGraphChildGraphNodeGetGraph@PLT\n.symver rgpu12_cudaGraphChildGraphNodeGetGraph, cudaGraphChildGraphNodeGetGraph@libcudart.so.12\n");
__asm__(".text\n.globl rgpu12_cudaGraphClone\n.type rgpu12_cudaGraphClone, @function\nrgpu12_cudaGraphClone:\n    jmp cudaGraphClone@PLT\n.symver rgpu12_cudaGraphClone, cudaGraphClone@libcudart.so.12\n");
__asm__(".text\n.globl rgpu12_cudaGraphConditionalHandleCreate\n.type rgpu12_cudaGraphConditionalHandleCreate, @function\nrgpu12_cudaGraphConditionalHandleCreate:\n    jmp cudaGraphConditionalHandleCreate@PLT\n.symver rgpu12_cudaGraphConditionalHandleCreate, cudaGraphConditionalHandleCreate@libcudart.so.12\n");
__asm__(".text\n.globl rgpu12_cudaGraphCreate\n.type rgpu12_cudaGraphCreate, @function\nrgpu12_cudaGraphCreate:\n    jmp cudaGraphCreate@PLT\n.symver rgpu12_cudaGraphCreate, cudaGraphCreate@libcudart.so.12\n");
__asm__(".text\n.globl rgpu12_cudaGraphDebugDotPrint\n.type rgpu12_cudaGraphDebugDotPrint, @function\nrgpu12_cudaGraphDebugDotPrint:\n    jmp cudaGraphDebugDotPrint@PLT\n.symver rgpu12_cudaGraphDebugDotPrint, cudaGraphDebugDotPrint@libcudart.so.12\n");
__asm__(".text\n.globl rgpu12_cudaGraphDestroy\n.type rgpu12_cudaGraphDestroy, @function\nrgpu12_cudaGraphDestroy:\n    jmp cudaGraphDestroy@PLT\n.symver rgpu12_cudaGraphDestroy, cudaGraphDestroy@libcudart.so.12\n");
__asm__(".text\n.globl rgpu12_cudaGraphDestroyNode\n.type rgpu12_cudaGraphDestroyNode, @function\nrgpu12_cudaGraphDestroyNode:\n    jmp cudaGraphDestroyNode@PLT\n.symver rgpu12_cudaGraphDestroyNode, cudaGraphDestroyNode@libcudart.so.12\n");
__asm__(".text\n.globl rgpu12_cudaGraphEventRecordNodeGetEvent\n.type rgpu12_cudaGraphEventRecordNodeGetEvent, @function\nrgpu12_cudaGraphEventRecordNodeGetEvent:\n    jmp cudaGraphEventRecordNodeGetEvent@PLT\n.symver rgpu12_cudaGraphEventRecordNodeGetEvent, cudaGraphEventRecordNodeGetEvent@libcudart.so.12\n");
__asm__(".text\n.globl rgpu12_cudaGraphEventRecordNodeSetEvent\n.type rgpu12_cudaGraphEventRecordNodeSetEvent, @function\nrgpu12_cudaGraphEventRecordNodeSetEvent:\n    jmp cudaGraphEventRecordNodeSetEvent@PLT\n.symver rgpu12_cudaGraphEventRecordNodeSetEvent, cudaGraphEventRecordNodeSetEvent@libcudart.so.12\n");
__asm__(".text\n.globl rgpu12_cudaGraphEventWaitNodeGetEvent\n.type rgpu12_cudaGraphEventWaitNodeGetEvent, @function\nrgpu12_cudaGraphEventWaitNodeGetEvent:\n    jmp cudaGraphEventWaitNodeGetEvent@PLT\n.symver rgpu12_cudaGraphEventWaitNodeGetEvent, cudaGraphEventWaitNodeGetEvent@libcudart.so.12\n");
__asm__(".text\n.globl rgpu12_cudaGraphEventWaitNodeSetEvent\n.type rgpu12_cudaGraphEventWaitNodeSetEvent, @function\nrgpu12_cudaGraphEventWaitNodeSetEvent:\n    jmp cudaGraphEventWaitNodeSetEvent@PLT\n.symver rgpu12_cudaGraphEventWaitNodeSetEvent, cudaGraphEventWaitNodeSetEvent@libcudart.so.12\n");
__asm__(".text\n.globl rgpu12_cudaGraphExecChildGraphNodeSetParams\n.type rgpu12_cudaGraphExecChildGraphNodeSetParams, @function\nrgpu12_cudaGraphExecChildGraphNodeSetParams:\n    jmp cudaGraphExecChildGraphNodeSetParams@PLT\n.symver rgpu12_cudaGraphExecChildGraphNodeSetParams, cudaGraphExecChildGraphNodeSetParams@libcudart.so.12\n");
__asm__(".text\n.globl rgpu12_cudaGraphExecDestroy\n.type rgpu12_cudaGraphExecDestroy, @function\nrgpu12_cudaGraphExecDestroy:\n    jmp cudaGraphExecDestroy@PLT\n.symver rgpu12_cudaGraphExecDestroy, cudaGraphExecDestroy@libcudart.so.12\n");
__asm__(".text\n.globl rgpu12_cudaGraphExecEventRecordNodeSetEvent\n.type rgpu12_cudaGraphExecEventRecordNodeSetEvent, @function\nrgpu12_cudaGraphExecEventRecordNodeSetEvent:\n    jmp cudaGraphExecEventRecordNodeSetEvent@PLT\n.symver rgpu12_cudaGraphExecEventRecordNodeSetEvent, cudaGraphExecEventRecordNodeSetEvent@libcudart.so.12\n");
__asm__(".text\n.globl rgpu12_cudaGraphExecEventWaitNodeSetEvent\n.type rgpu12_cudaGraphExecEventWaitNodeSetEvent, @function\nrgpu12_cudaGraphExecEventWaitNodeSetEvent:\n    jmp cudaGraphExecEventWaitNodeSetEvent@PLT\n.symver rgpu12_cudaGraphExecEventWaitNodeSetEvent, cudaGraphExecEventWaitNodeSetEvent@libcudart.so.12\n");
__asm__(".text\n.globl rgpu12_cudaGraphExecExternalSemaphoresSignalNodeSetParams\n.type rgpu12_cudaGraphExecExternalSemaphoresSignalNodeSetParams, @function\nrgpu12_cudaGraphExecExternalSemaphoresSignalNodeSetParams:\n    jmp cudaGraphExecExternalSemaphoresSignalNodeSetParams@PLT\n.symver rgpu12_cudaGraphExecExternalSemaphoresSignalNodeSetParams, cudaGraphExecExternalSemaphoresSignalNodeSetParams@libcudart.so.12\n");
__asm__(".text\n.globl rgpu12_cudaGraphExecExternalSemaphoresWaitNodeSetParams\n.type rgpu12_cudaGraphExecExternalSemaphoresWaitNodeSetParams, @function\nrgpu12_cudaGraphExecExternalSemaphoresWaitNodeSetParams:\n    jmp cudaGraphExecExternalSemaphoresWaitNodeSetParams@PLT\n.symver rgpu12_cudaGraphExecExternalSemaphoresWaitNodeSetParams, cudaGraphExecExternalSemaphoresWaitNodeSetParams@libcudart.so.12\n");
__asm__(".text\n.globl rgpu12_cudaGraphExecGetFlags\n.type rgpu12_cudaGraphExecGetFlags, @function\nrgpu12_cudaGraphExecGetFlags:\n    jmp cudaGraphExecGetFlags@PLT\n.symver rgpu12_cudaGraphExecGetFlags, cudaGraphExecGetFlags@libcudart.so.12\n");
__asm__(".text\n.globl rgpu12_cudaGraphExecHostNodeSetParams\n.type rgpu12_cudaGraphExecHostNodeSetParams, @function\nrgpu12_cudaGraphExecHostNodeSetParams:\n    jmp cudaGraphExecHostNodeSetParams@PLT\n.symver rgpu12_cudaGraphExecHostNodeSetParams, cudaGraphExecHostNodeSetParams@libcudart.so.12\n");
__asm__(".text\n.globl rgpu12_cudaGraphExecKernelNodeSetParams\n.type rgpu12_cudaGraphExecKernelNodeSetParams, @function\nrgpu12_cudaGraphExecKernelNodeSetParams:\n    jmp cudaGraphExecKernelNodeSetParams@PLT\n.symver rgpu12_cudaGraphExecKernelNodeSetParams, cudaGraphExecKernelNodeSetParams@libcudart.so.12\n");
__asm__(".text\n.globl rgpu12_cudaGraphExecMemcpyNodeSetParams\n.type rgpu12_cudaGraphExecMemcpyNodeSetParams, @function\nrgpu12_cudaGraphExecMemcpyNodeSetParams:\n    jmp cudaGraphExecMemcpyNodeSetParams@PLT\n.symver rgpu12_cudaGraphExecMemcpyNodeSetParams, cudaGraphExecMemcpyNodeSetParams@libcudart.so.12\n");
__asm__(".text\n.globl rgpu12_cudaGraphExecMemcpyNodeSetParams1D\n.type rgpu12_cudaGraphExecMemcpyNodeSetParams1D, @function\nrgpu12_cudaGraphExecMemcpyNodeSetParams1D:\n    jmp cudaGraphExecMemcpyNodeSetParams1D@PLT\n.symver rgpu12_cudaGraphExecMemcpyNodeSetParams1D, cudaGraphExecMemcpyNodeSetParams1D@libcudart.so.12\n");
__asm__(".text\n.globl rgpu12_cudaGraphExecMemcpyNodeSetParamsFromSymbol\n.type rgpu12_cudaGraphExecMemcpyNodeSetParamsFromSymbol, @function\nrgpu12_cudaGraphExecMemcpyNodeSetParamsFromSymbol:\n    jmp cudaGraphExecMemcpyNodeSetParamsFromSymbol@PLT\n.symver rgpu12_cudaGraphExecMemcpyNodeSetParamsFromSymbol, cudaGraphExecMemcpyNodeSetParamsFromSymbol@libcudart.so.12\n");
__asm__(".text\n.globl rgpu12_cudaGraphExecMemcpyNodeSetParamsToSymbol\n.type rgpu12_cudaGraphExecMemcpyNodeSetParamsToSymbol, @function\nrgpu12_cudaGraphExecMemcpyNodeSetParamsToSymbol:\n    jmp cudaGraphExecMemcpyNodeSetParamsToSymbol@PLT\n.symver rgpu12_cudaGraphExecMemcpyNodeSetParamsToSymbol, cudaGraphExecMemcpyNodeSetParamsToSymbol@libcudart.so.12\n");
__asm__(".text\n.globl rgpu12_cudaGraphExecMemsetNodeSetParams\n.type rgpu12_cudaGraphExecMemsetNodeSetParams, @function\nrgpu12_cudaGraphExecMemsetNodeSetParams:\n    jmp cudaGraphExecMemsetNodeSetParams@PLT\n.symver rgpu12_cudaGraphExecMemsetNodeSetParams, cudaGraphExecMemsetNodeSetParams@libcudart.so.12\n");
__asm__(".text\n.globl rgpu12_cudaGraphExecNodeSetParams\n.type rgpu12_cudaGraphExecNodeSetParams, @function\nrgpu12_cudaGraphExecNodeSetParams:\n    jmp cudaGraphExecNodeSetParams@PLT\n.symver rgpu12_cudaGraphExecNodeSetParams, cudaGraphExecNodeSetParams@libcudart.so.12\n");
__asm__(".text\n.globl rgpu12_cudaGraphExecUpdate\n.type rgpu12_cudaGraphExecUpdate, @function\nrgpu12_cudaGraphExecUpdate:\n    jmp cudaGraphExecUpdate@PLT\n.symver rgpu12_cudaGraphExecUpdate, cudaGraphExecUpdate@libcudart.so.12\n");
__asm__(".text\n.globl rgpu12_cudaGraphExternalSemaphoresSignalNodeGetParams\n.type rgpu12_cudaGraphExternalSemaphoresSignalNodeGetParams, @function\nrgpu12_cudaGraphExternalSemaphoresSignalNodeGetParams:\n    jmp cudaGraphExternalSemaphoresSignalNodeGetParams@PLT\n.symver rgpu12_cudaGraphExternalSemaphoresSignalNodeGetParams, cudaGraphExternalSemaphoresSignalNodeGetParams@libcudart.so.12\n");
__asm__(".text\n.globl rgpu12_cudaGraphExternalSemaphoresSignalNodeSetParams\n.type rgpu12_cudaGraphExternalSemaphoresSignalNodeSetParams, @function\nrgpu12_cudaGraphExternalSemaphoresSignalNodeSetParams:\n    jmp cudaGraphExternalSemaphoresSignalNodeSetParams@PLT\n.symver rgpu12_cudaGraphExternalSemaphoresSignalNodeSetParams, cudaGraphExternalSemaphoresSignalNodeSetParams@libcudart.so.12\n");
__asm__(".text\n.globl rgpu12_cudaGraphExternalSemaphoresWaitNodeGetParams\n.type rgpu12_cudaGraphExternalSemaphoresWaitNodeGetParams, @function\nrgpu12_cudaGraphExternalSemaphoresWaitNodeGetParams:\n    jmp cudaGraphExternalSemaphoresWaitNodeGetParams@PLT\n.symver rgpu12_cudaGraphExternalSemaphoresWaitNodeGetParams, cudaGraphExternalSemaphoresWaitNodeGetParams@libcudart.so.12\n");
__asm__(".text\n.globl rgpu12_cudaGraphExternalSemaphoresWaitNodeSetParams\n.type rgpu12_cudaGraphExternalSemaphoresWaitNodeSetParams, @function\nrgpu12_cudaGraphExternalSemaphoresWaitNodeSetParams:\n    jmp cudaGraphExternalSemaphoresWaitNodeSetParams@PLT\n.symver rgpu12_cudaGraphExternalSemaphoresWaitNodeSetParams, cudaGraphExternalSemaphoresWaitNodeSetParams@libcudart.so.12\n");
__asm__(".text\n.globl rgpu12_cudaGraphGetEdges\n.type rgpu12_cudaGraphGetEdges, @function\nrgpu12_cudaGraphGetEdges:\n    jmp rgpu_v12_cudaGraphGetEdges@PLT\n.symver rgpu12_cudaGraphGetEdges, cudaGraphGetEdges@libcudart.so.12\n");
__asm__(".text\n.globl rgpu12_cudaGraphGetEdges_v2\n.type rgpu12_cudaGraphGetEdges_v2, @function\nrgpu12_cudaGraphGetEdges_v2:\n    jmp cudaGraphGetEdges@PLT\n.symver rgpu12_cudaGraphGetEdges_v2, cudaGraphGetEdges_v2@libcudart.so.12\n");
__asm__(".text\n.globl rgpu12_cudaGraphGetNodes\n.type rgpu12_cudaGraphGetNodes, @function\nrgpu12_cudaGraphGetNodes:\n    jmp cudaGraphGetNodes@PLT\n.symver rgpu12_cudaGraphGetNodes, cudaGraphGetNodes@libcudart.so.12\n");
__asm__(".text\n.globl rgpu12_cudaGraphGetRootNodes\n.type rgpu12_cudaGraphGetRootNodes, @function\nrgpu12_cudaGraphGetRootNodes:\n    jmp cudaGraphGetRootNodes@PLT\n.symver rgpu12_cudaGraphGetRootNodes, cudaGraphGetRootNodes@libcudart.so.12\n");
__asm__(".text\n.globl rgpu12_cudaGraphHostNodeGetParams\n.type rgpu12_cudaGraphHostNodeGetParams, @function\nrgpu12_cudaGraphHostNodeGetParams:\n    jmp cudaGraphHostNodeGetParams@PLT\n.symver rgpu12_cudaGraphHostNodeGetParams, cudaGraphHostNodeGetParams@libcudart.so.12\n");
__asm__(".text\n.globl rgpu12_cudaGraphHostNodeSetParams\n.type rgpu12_cudaGraphHostNodeSetParams, @function\nrgpu12_cudaGraphHostNodeSetParams:\n    jmp cudaGraphHostNodeSetParams@PLT\n.symver rgpu12_cudaGraphHostNodeSetParams, cudaGraphHostNodeSetParams@libcudart.so.12\n");
__asm__(".text\n.globl rgpu12_cudaGraphInstantiate\n.type rgpu12_cudaGraphInstantiate, @function\nrgpu12_cudaGraphInstantiate:\n    jmp cudaGraphInstantiate@PLT\n.symver rgpu12_cudaGraphInstantiate, cudaGraphInstantiate@libcudart.so.12\n");
__asm__(".text\n.globl rgpu12_cudaGraphInstantiateWithFlags\n.type rgpu12_cudaGraphInstantiateWithFlags, @function\nrgpu12_cudaGraphInstantiateWithFlags:\n    jmp cudaGraphInstantiateWithFlags@PLT\n.symver rgpu12_cudaGraphInstantiateWithFlags, cudaGraphInstantiateWithFlags@libcudart.so.12\n");
__asm__(".text\n.globl rgpu12_cudaGraphInstantiateWithParams\n.type rgpu12_cudaGraphInstantiateWithParams, @function\nrgpu12_cudaGraphInstantiateWithParams:\n    jmp cudaGraphInstantiateWithParams@PLT\n.symver rgpu12_cudaGraphInstantiateWithParams, cudaGraphInstantiateWithParams@libcudart.so.12\n");
__asm__(".text\n.globl rgpu12_cudaGraphKernelNodeCopyAttributes\n.type rgpu12_cudaGraphKernelNodeCopyAttributes, @function\nrgpu12_cudaGraphKernelNodeCopyAttributes:\n    jmp cudaGraphKernelNodeCopyAttributes@PLT\n.symver rgpu12_cudaGraphKernelNodeCopyAttributes, cudaGraphKernelNodeCopyAttributes@libcudart.so.12\n");
__asm__(".text\n.globl rgpu12_cudaGraphKernelNodeGetAttribute\n.type rgpu12_cudaGraphKernelNodeGetAttribute, @function\nrgpu12_cudaGraphKernelNodeGetAttribute:\n    jmp cudaGraphKernelNodeGetAttribute@PLT\n.symver rgpu12_cudaGraphKernelNodeGetAttribute, cudaGraphKernelNodeGetAttribute@libcudart.so.12\n");
__asm__(".text\n.globl rgpu12_cudaGraphKernelNodeGetParams\n.type rgpu12_cudaGraphKernelNodeGetParams, @function\nrgpu12_cudaGraphKernelNodeGetParams:\n    jmp cudaGraphKernelNodeGetParams@PLT\n.symver rgpu12_cudaGraphKernelNodeGetParams, cudaGraphKernelNodeGetParams@libcudart.so.12\n");
__asm__(".text\n.globl rgpu12_cudaGraphKernelNodeSetAttribute\n.type rgpu12_cudaGraphKernelNodeSetAttribute, @function\nrgpu12_cudaGraphKernelNodeSetAttribute:\n    jmp cudaGraphKernelNodeSetAttribute@PLT\n.symver rgpu12_cudaGraphKernelNodeSetAttribute, cudaGraphKernelNodeSetAttribute@libcudart.so.12\n");
__asm__(".text\n.globl rgpu12_cudaGraphKernelNodeSetParams\n.type rgpu12_cudaGraphKernelNodeSetParams, @function\nrgpu12_cudaGraphKernelNodeSetParams:\n    jmp cudaGraphKernelNodeSetParams@PLT\n.symver rgpu12_cudaGraphKernelNodeSetParams, cudaGraphKernelNodeSetParams@libcudart.so.12\n");
__asm__(".text\n.globl rgpu12_cudaGraphLaunch\n.type rgpu12_cudaGraphLaunch, @function\nrgpu12_cudaGraphLaunch:\n    jmp cudaGraphLaunch@PLT\n.symver rgpu12_cudaGraphLaunch, cudaGraphLaunch@libcudart.so.12\n");
__asm__(".text\n.globl rgpu12_cudaGraphMemAllocNodeGetParams\n.type rgpu12_cudaGraphMemAllocNodeGetParams, @function\nrgpu12_cudaGraphMemAllocNodeGetParams:\n    jmp cudaGraphMemAllocNodeGetParams@PLT\n.symver rgpu12_cudaGraphMemAllocNodeGetParams, cudaGraphMemAllocNodeGetParams@libcudart.so.12\n");
__asm__(".text\n.globl rgpu12_cudaGraphMemFreeNodeGetParams\n.type rgpu12_cudaGraphMemFreeNodeGetParams, @function\nrgpu12_cudaGraphMemFreeNodeGetParams:\n    jmp cudaGraphMemFreeNodeGetParams@PLT\n.symver rgpu12_cudaGraphMemFreeNodeGetParams, cudaGraphMemFreeNodeGetParams@libcudart.so.12\n");
__asm__(".text\n.globl rgpu12_cudaGraphMemcpyNodeGetParams\n.type rgpu12_cudaGraphMemcpyNodeGetParams, @function\nrgpu12_cudaGraphMemcpyNodeGetParams:\n    jmp cudaGraphMemcpyNodeGetParams@PLT\n.symver rgpu12_cudaGraphMemcpyNodeGetParams, cudaGraphMemcpyNodeGetParams@libcudart.so.12\n");
__asm__(".text\n.globl rgpu12_cudaGraphMemcpyNodeSetParams\n.type rgpu12_cudaGraphMemcpyNodeSetParams, @function\nrgpu12_cudaGraphMemcpyNodeSetParams:\n    jmp cudaGraphMemcpyNodeSetParams@PLT\n.symver rgpu12_cudaGraphMemcpyNodeSetParams, cudaGraphMemcpyNodeSetParams@libcudart.so.12\n");
__asm__(".text\n.globl rgpu12_cudaGraphMemcpyNodeSetParams1D\n.type rgpu12_cudaGraphMemcpyNodeSetParams1D, @function\nrgpu12_cudaGraphMemcpyNodeSetParams1D:\n    jmp cudaGraphMemcpyNodeSetParams1D@PLT\n.symver rgpu12_cudaGraphMemcpyNodeSetParams1D, cudaGraphMemcpyNodeSetParams1D@libcudart.so.12\n");
__asm__(".text\n.globl rgpu12_cudaGraphMemcpyNodeSetParamsFromSymbol\n.type rgpu12_cudaGraphMemcpyNodeSetParamsFromSymbol, @function\nrgpu12_cudaGraphMemcpyNodeSetParamsFromSymbol:\n    jmp cudaGraphMemcpyNodeSetParamsFromSymbol@PLT\n.symver rgpu12_cudaGraphMemcpyNodeSetParamsFromSymbol, cudaGraphMemcpyNodeSetParamsFromSymbol@libcudart.so.12\n");
__asm__(".text\n.globl rgpu12_cudaGraphMemcpyNodeSetParamsToSymbol\n.type rgpu12_cudaGraphMemcpyNodeSetParamsToSymbol, @function\nrgpu12_cudaGraphMemcpyNodeSetParamsToSymbol:\n    jmp cudaGraphMemcpyNodeSetParamsToSymbol@PLT\n.symver rgpu12_cudaGraphMemcpyNodeSetParamsToSymbol, cudaGraphMemcpyNodeSetParamsToSymbol@libcudart.so.12\n");
__asm__(".text\n.globl rgpu12_cudaGraphMemsetNodeGetParams\n.type rgpu12_cudaGraphMemsetNodeGetParams, @function\nrgpu12_cudaGraphMemsetNodeGetParams:\n    jmp cudaGraphMemsetNodeGetParams@PLT\n.symver rgpu12_cudaGraphMemsetNodeGetParams, cudaGraphMemsetNodeGetParams@libcudart.so.12\n");
__asm__(".text\n.globl rgpu12_cudaGraphMemsetNodeSetParams\n.type rgpu12_cudaGraphMemsetNodeSetParams, @function\nrgpu12_cudaGraphMemsetNodeSetParams:\n    jmp cudaGraphMemsetNodeSetParams@PLT\n.symver rgpu12_cudaGraphMemsetNodeSetParams, cudaGraphMemsetNodeSetParams@libcudart.so.12\n");
__asm__(".text\n.globl rgpu12_cudaGraphNodeFindInClone\n.type rgpu12_cudaGraphNodeFindInClone, @function\nrgpu12_cudaGraphNodeFindInClone:\n    jmp cudaGraphNodeFindInClone@PLT\n.symver rgpu12_cudaGraphNodeFindInClone, cudaGraphNodeFindInClone@libcudart.so.12\n");
__asm__(".text\n.globl rgpu12_cudaGraphNodeGetDependencies\n.type rgpu12_cudaGraphNodeGetDependencies, @function\nrgpu12_cudaGraphNodeGetDependencies:\n    jmp rgpu_v12_cudaGraphNodeGetDependencies@PLT\n.symver rgpu12_cudaGraphNodeGetDependencies, cudaGraphNodeGetDependencies@libcudart.so.12\n");
__asm__(".text\n.globl rgpu12_cudaGraphNodeGetDependencies_v2\n.type rgpu12_cudaGraphNodeGetDependencies_v2, @function\nrgpu12_cudaGraphNodeGetDependencies_v2:\n    jmp cudaGraphNodeGetDependencies@PLT\n.symver rgpu12_cudaGraphNodeGetDependencies_v2, cudaGraphNodeGetDependencies_v2@libcudart.so.12\n");
__asm__(".text\n.globl rgpu12_cudaGraphNodeGetDependentNodes\n.type rgpu12_cudaGraphNodeGetDependentNodes, @function\nrgpu12_cudaGraphNodeGetDependentNodes:\n    jmp rgpu_v12_cudaGraphNodeGetDependentNodes@PLT\n.symver rgpu12_cudaGraphNodeGetDependentNodes, cudaGraphNodeGetDependentNodes@libcudart.so.12\n");
__asm__(".text\n.globl rgpu12_cudaGraphNodeGetDependentNodes_v2\n.type rgpu12_cudaGraphNodeGetDependentNodes_v2, @function\nrgpu12_cudaGraphNodeGetDependentNodes_v2:\n    jmp cudaGraphNodeGetDependentNodes@PLT\n.symver rgpu12_cudaGraphNodeGetDependentNodes_v2, cudaGraphNodeGetDependentNodes_v2@libcudart.so.12\n");
__asm__(".text\n.globl rgpu12_cudaGraphNodeGetEnabled\n.type rgpu12_cudaGraphNodeGetEnabled, @function\nrgpu12_cudaGraphNodeGetEnabled:\n    jmp cudaGraphNodeGetEnabled@PLT\n.symver rgpu12_cudaGraphNodeGetEnabled, cudaGraphNodeGetEnabled@libcudart.so.12\n");
__asm__(".text\n.globl rgpu12_cudaGraphNodeGetType\n.type rgpu12_cudaGraphNodeGetType, @function\nrgpu12_cudaGraphNodeGetType:\n    jmp cudaGraphNodeGetType@PLT\n.symver rgpu12_cudaGraphNodeGetType, cudaGraphNodeGetType@libcudart.so.12\n");
__asm__(".text\n.globl rgpu12_cudaGraphNodeSetEnabled\n.type rgpu12_cudaGraphNodeSetEnabled, @function\nrgpu12_cudaGraphNodeSetEnabled:\n    jmp cudaGraphNodeSetEnabled@PLT\n.symver rgpu12_cudaGraphNodeSetEnabled, cudaGraphNodeSetEnabled@libcudart.so.12\n");
__asm__(".text\n.globl rgpu12_cudaGraphNodeSetParams\n.type rgpu12_cudaGraphNodeSetParams, @function\nrgpu12_cudaGraphNodeSetParams:\n    jmp cudaGraphNodeSetParams@PLT\n.symver rgpu12_cudaGraphNodeSetParams, cudaGraphNodeSetParams@libcudart.so.12\n");
__asm__(".text\n.globl rgpu12_cudaGraphReleaseUserObject\n.type rgpu12_cudaGraphReleaseUserObject, @function\nrgpu12_cudaGraphReleaseUserObject:\n    jmp cudaGraphReleaseUserObject@PLT\n.symver rgpu12_cudaGraphReleaseUserObject, cudaGraphReleaseUserObject@libcudart.so.12\n");
__asm__(".text\n.globl rgpu12_cudaGraphRemoveDependencies\n.type rgpu12_cudaGraphRemoveDependencies, @function\nrgpu12_cudaGraphRemoveDependencies:\n    jmp rgpu_v12_cudaGraphRemoveDependencies@PLT\n.symver rgpu12_cudaGraphRemoveDependencies, cudaGraphRemoveDependencies@libcudart.so.12\n");
__asm__(".text\n.globl rgpu12_cudaGraphRemoveDependencies_v2\n.type rgpu12_cudaGraphRemoveDependencies_v2, @function\nrgpu12_cudaGraphRemoveDependencies_v2:\n    jmp cudaGraphRemoveDependencies@PLT\n.symver rgpu12_cudaGraphRemoveDependencies_v2, cudaGraphRemoveDependencies_v2@libcudart.so.12\n");
__asm__(".text\n.globl rgpu12_cudaGraphRetainUserObject\n.type rgpu12_cudaGraphRetainUserObject, @function\nrgpu12_cudaGraphRetainUserObject:\n    jmp cudaGraphRetainUserObject@PLT\n.symver rgpu12_cudaGraphRetainUserObject, cudaGraphRetainUserObject@libcudart.so.12\n");
__asm__(".text\n.globl rgpu12_cudaGraphUpload\n.type rgpu12_cudaGraphUpload, @function\nrgpu12_cudaGraphUpload:\n    jmp cudaGraphUpload@PLT\n.symver rgpu12_cudaGraphUpload, cudaGraphUpload@libcudart.so.12\n");
__asm__(".text\n.globl rgpu12_cudaGraphicsMapResources\n.type rgpu12_cudaGraphicsMapResources, @function\nrgpu12_cudaGraphicsMapResources:\n    jmp cudaGraphicsMapResources@PLT\n.symver rgpu12_cudaGraphicsMapResources, cudaGraphicsMapResources@libcudart.so.12\n");
__asm__(".text\n.globl rgpu12_cudaGraphicsResourceGetMappedMipmappedArray\n.type rgpu12_cudaGraphicsResourceGetMappedMipmappedArray, @function\nrgpu12_cudaGraphicsResourceGetMappedMipmappedArray:\n    jmp cudaGraphicsResourceGetMappedMipmappedArray@PLT\n.symver rgpu12_cudaGraphicsResourceGetMappedMipmappedArray, cudaGraphicsResourceGetMappedMipmappedArray@libcudart.so.12\n");
__asm__(".text\n.globl rgpu12_cudaGraphicsResourceGetMappedPointer\n.type rgpu12_cudaGraphicsResourceGetMappedPointer, @function\nrgpu12_cudaGraphicsResourceGetMappedPointer:\n    jmp cudaGraphicsResourceGetMappedPointer@PLT\n.symver rgpu12_cudaGraphicsResourceGetMappedPointer, cudaGraphicsResourceGetMappedPointer@libcudart.so.12\n");
__asm__(".text\n.globl rgpu12_cudaGraphicsResourceSetMapFlags\n.type rgpu12_cudaGraphicsResourceSetMapFlags, @function\nrgpu12_cudaGraphicsResourceSetMapFlags:\n    jmp cudaGraphicsResourceSetMapFlags@PLT\n.symver rgpu12_cudaGraphicsResourceSetMapFlags, cudaGraphicsResourceSetMapFlags@libcudart.so.12\n");
__asm__(".text\n.globl rgpu12_cudaGraphicsSubResourceGetMappedArray\n.type rgpu12_cudaGraphicsSubResourceGetMappedArray, @function\nrgpu12_cudaGraphicsSubResourceGetMappedArray:\n    jmp cudaGraphicsSubResourceGetMappedArray@PLT\n.symver rgpu12_cudaGraphicsSubResourceGetMappedArray, cudaGraphicsSubResourceGetMappedArray@libcudart.so.12\n");
__asm__(".text\n.globl rgpu12_cudaGraphicsUnmapResources\n.type rgpu12_cudaGraphicsUnmapResources, @function\nrgpu12_cudaGraphicsUnmapResources:\n    jmp cudaGraphicsUnmapResources@PLT\n.symver rgpu12_cudaGraphicsUnmapResources, cudaGraphicsUnmapResources@libcudart.so.12\n");
__asm__(".text\n.globl rgpu12_cudaGraphicsUnregisterResource\n.type rgpu12_cudaGraphicsUnregisterResource, @function\nrgpu12_cudaGraphicsUnregisterResource:\n    jmp cudaGraphicsUnregisterResource@PLT\n.symver rgpu12_cudaGraphicsUnregisterResource, cudaGraphicsUnregisterResource@libcudart.so.12\n");
__asm__(".text\n.globl rgpu12_cudaHostAlloc\n.type rgpu12_cudaHostAlloc, @function\nrgpu12_cudaHostAlloc:\n    jmp cudaHostAlloc@PLT\n.symver rgpu12_cudaHostAlloc, cudaHostAlloc@libcudart.so.12\n");
__asm__(".text\n.globl rgpu12_cudaHostGetDevicePointer\n.type rgpu12_cudaHostGetDevicePointer, @function\nrgpu12_cudaHostGetDevicePointer:\n    jmp cudaHostGetDevicePointer@PLT\n.symver rgpu12_cudaHostGetDevicePointer, cudaHostGetDevicePointer@libcudart.so.12\n");
__asm__(".text\n.globl rgpu12_cudaHostGetFlags\n.type rgpu12_cudaHostGetFlags, @function\nrgpu12_cudaHostGetFlags:\n    jmp cudaHostGetFlags@PLT\n.symver rgpu12_cudaHostGetFlags, cudaHostGetFlags@libcudart.so.12\n");
__asm__(".text\n.globl rgpu12_cudaHostRegister\n.type rgpu12_cudaHostRegister, @function\nrgpu12_cudaHostRegister:\n    jmp cudaHostRegister@PLT\n.symver rgpu12_cudaHostRegister, cudaHostRegister@libcudart.so.12\n");
__asm__(".text\n.globl rgpu12_cudaHostUnregister\n.type rgpu12_cudaHostUnregister, @function\nrgpu12_cudaHostUnregister:\n    jmp cudaHostUnregister@PLT\n.symver rgpu12_cudaHostUnregister, cudaHostUnregister@libcudart.so.12\n");
__asm__(".text\n.globl rgpu12_cudaImportExternalMemory\n.type rgpu12_cudaImportExternalMemory, @function\nrgpu12_cudaImportExternalMemory:\n    jmp cudaImportExternalMemory@PLT\n.symver rgpu12_cudaImportExternalMemory, cudaImportExternalMemory@libcudart.so.12\n");
__asm__(".text\n.globl rgpu12_cudaImportExternalSemaphore\n.type rgpu12_cudaImportExternalSemaphore, @function\nrgpu12_cudaImportExternalSemaphore:\n    jmp cudaImportExternalSemaphore@PLT\n.symver rgpu12_cudaImportExternalSemaphore, cudaImportExternalSemaphore@libcudart.so.12\n");
__asm__(".text\n.globl rgpu12_cudaInitDevice\n.type rgpu12_cudaInitDevice, @function\nrgpu12_cudaInitDevice:\n    jmp cudaInitDevice@PLT\n.symver rgpu12_cudaInitDevice, cudaInitDevice@libcudart.so.12\n");
__asm__(".text\n.globl rgpu12_cudaIpcCloseMemHandle\n.type rgpu12_cudaIpcCloseMemHandle, @function\nrgpu12_cudaIpcCloseMemHandle:\n    jmp cudaIpcCloseMemHandle@PLT\n.symver rgpu12_cudaIpcCloseMemHandle, cudaIpcCloseMemHandle@libcudart.so.12\n");
__asm__(".text\n.globl rgpu12_cudaIpcGetEventHandle\n.type rgpu12_cudaIpcGetEventHandle, @function\nrgpu12_cudaIpcGetEventHandle:\n    jmp cudaIpcGetEventHandle@PLT\n.symver rgpu12_cudaIpcGetEventHandle, cudaIpcGetEventHandle@libcudart.so.12\n");
__asm__(".text\n.globl rgpu12_cudaIpcGetMemHandle\n.type rgpu12_cudaIpcGetMemHandle, @function\nrgpu12_cudaIpcGetMemHandle:\n    jmp cudaIpcGetMemHandle@PLT\n.symver rgpu12_cudaIpcGetMemHandle, cudaIpcGetMemHandle@libcudart.so.12\n");
__asm__(".text\n.globl rgpu12_cudaIpcOpenEventHandle\n.type rgpu12_cudaIpcOpenEventHandle, @function\nrgpu12_cudaIpcOpenEventHandle:\n    jmp cudaIpcOpenEventHandle@PLT\n.symver rgpu12_cudaIpcOpenEventHandle, cudaIpcOpenEventHandle@libcudart.so.12\n");
__asm__(".text\n.globl rgpu12_cudaIpcOpenMemHandle\n.type rgpu12_cudaIpcOpenMemHandle, @function\nrgpu12_cudaIpcOpenMemHandle:\n    jmp cudaIpcOpenMemHandle@PLT\n.symver rgpu12_cudaIpcOpenMemHandle, cudaIpcOpenMemHandle@libcudart.so.12\n");
__asm__(".text\n.globl rgpu12_cudaKernelSetAttributeForDevice\n.type rgpu12_cudaKernelSetAttributeForDevice, @function\nrgpu12_cudaKernelSetAttributeForDevice:\n    jmp cudaKernelSetAttributeForDevice@PLT\n.symver rgpu12_cudaKernelSetAttributeForDevice, cudaKernelSetAttributeForDevice@libcudart.so.12\n");
__asm__(".text\n.globl rgpu12_cudaLaunchCooperativeKernel\n.type rgpu12_cudaLaunchCooperativeKernel, @function\nrgpu12_cudaLaunchCooperativeKernel:\n    jmp cudaLaunchCooperativeKernel@PLT\n.symver rgpu12_cudaLaunchCooperativeKernel, cudaLaunchCooperativeKernel@libcudart.so.12\n");
__asm__(".text\n.globl rgpu12_cudaLaunchCooperativeKernelMultiDevice\n.type rgpu12_cudaLaunchCooperativeKernelMultiDevice, @function\nrgpu12_cudaLaunchCooperativeKernelMultiDevice:\n    jmp rgpu12impl_cudaLaunchCooperativeKernelMultiDevice@PLT\n.symver rgpu12_cudaLaunchCooperativeKernelMultiDevice, cudaLaunchCooperativeKernelMultiDevice@libcudart.so.12\n");
__asm__(".text\n.globl rgpu12_cudaLaunchHostFunc\n.type rgpu12_cudaLaunchHostFunc, @function\nrgpu12_cudaLaunchHostFunc:\n    jmp cudaLaunchHostFunc@PLT\n.symver rgpu12_cudaLaunchHostFunc, cudaLaunchHostFunc@libcudart.so.12\n");
__asm__(".text\n.globl rgpu12_cudaLaunchKernel\n.type rgpu12_cudaLaunchKernel, @function\nrgpu12_cudaLaunchKernel:\n    jmp cudaLaunchKernel@PLT\n.symver rgpu12_cudaLaunchKernel, cudaLaunchKernel@libcudart.so.12\n");
__asm__(".text\n.globl rgpu12_cudaLaunchKernelExC\n.type rgpu12_cudaLaunchKernelExC, @function\nrgpu12_cudaLaunchKernelExC:\n    jmp cudaLaunchKernelExC@PLT\n.symver rgpu12_cudaLaunchKernelExC, cudaLaunchKernelExC@libcudart.so.12\n");
__asm__(".text\n.globl rgpu12_cudaLibraryEnumerateKernels\n.type rgpu12_cudaLibraryEnumerateKernels, @function\nrgpu12_cudaLibraryEnumerateKernels:\n    jmp cudaLibraryEnumerateKernels@PLT\n.symver rgpu12_cudaLibraryEnumerateKernels, cudaLibraryEnumerateKernels@libcudart.so.12\n");
__asm__(".text\n.globl rgpu12_cudaLibraryGetGlobal\n.type rgpu12_cudaLibraryGetGlobal, @function\nrgpu12_cudaLibraryGetGlobal:\n    jmp cudaLibraryGetGlobal@PLT\n.symver rgpu12_cudaLibraryGetGlobal, cudaLibraryGetGlobal@libcudart.so.12\n");
__asm__(".text\n.globl rgpu12_cudaLibraryGetKernel\n.type rgpu12_cudaLibraryGetKernel, @function\nrgpu12_cudaLibraryGetKernel:\n    jmp cudaLibraryGetKernel@PLT\n.symver rgpu12_cudaLibraryGetKernel, cudaLibraryGetKernel@libcudart.so.12\n");
__asm__(".text\n.globl rgpu12_cudaLibraryGetKernelCount\n.type rgpu12_cudaLibraryGetKernelCount, @function\nrgpu12_cudaLibraryGetKernelCount:\n    jmp cudaLibraryGetKernelCount@PLT\n.symver rgpu12_cudaLibraryGetKernelCount, cudaLibraryGetKernelCount@libcudart.so.12\n");
__asm__(".text\n.globl rgpu12_cudaLibraryGetManaged\n.type rgpu12_cudaLibraryGetManaged, @function\nrgpu12_cudaLibraryGetManaged:\n    jmp cudaLibraryGetManaged@PLT\n.symver rgpu12_cudaLibraryGetManaged, cudaLibraryGetManaged@libcudart.so.12\n");
__asm__(".text\n.globl rgpu12_cudaLibraryGetUnifiedFunction\n.type rgpu12_cudaLibraryGetUnifiedFunction, @function\nrgpu12_cudaLibraryGetUnifiedFunction:\n    jmp cudaLibraryGetUnifiedFunction@PLT\n.symver rgpu12_cudaLibraryGetUnifiedFunction, cudaLibraryGetUnifiedFunction@libcudart.so.12\n");
__asm__(".text\n.globl rgpu12_cudaLibraryLoadData\n.type rgpu12_cudaLibraryLoadData, @function\nrgpu12_cudaLibraryLoadData:\n    jmp cudaLibraryLoadData@PLT\n.symver rgpu12_cudaLibraryLoadData, cudaLibraryLoadData@libcudart.so.12\n");
__asm__(".text\n.globl rgpu12_cudaLibraryLoadFromFile\n.type rgpu12_cudaLibraryLoadFromFile, @function\nrgpu12_cudaLibraryLoadFromFile:\n    jmp cudaLibraryLoadFromFile@PLT\n.symver rgpu12_cudaLibraryLoadFromFile, cudaLibraryLoadFromFile@libcudart.so.12\n");
__asm__(".text\n.globl rgpu12_cudaLibraryUnload\n.type rgpu12_cudaLibraryUnload, @function\nrgpu12_cudaLibraryUnload:\n    jmp cudaLibraryUnload@PLT\n.symver rgpu12_cudaLibraryUnload, cudaLibraryUnload@libcudart.so.12\n");
__asm__(".text\n.globl rgpu12_cudaMalloc\n.type rgpu12_cudaMalloc, @function\nrgpu12_cudaMalloc:\n    jmp cudaMalloc@PLT\n.symver rgpu12_cudaMalloc, cudaMalloc@libcudart.so.12\n");
__asm__(".text\n.globl rgpu12_cudaMalloc3D\n.type rgpu12_cudaMalloc3D, @function\nrgpu12_cudaMalloc3D:\n    jmp cudaMalloc3D@PLT\n.symver rgpu12_cudaMalloc3D, cudaMalloc3D@libcudart.so.12\n");
__asm__(".text\n.globl rgpu12_cudaMalloc3DArray\n.type rgpu12_cudaMalloc3DArray, @function\nrgpu12_cudaMalloc3DArray:\n    jmp cudaMalloc3DArray@PLT\n.symver rgpu12_cudaMalloc3DArray, cudaMalloc3DArray@libcudart.so.12\n");
__asm__(".text\n.globl rgpu12_cudaMallocArray\n.type rgpu12_cudaMallocArray, @function\nrgpu12_cudaMallocArray:\n    jmp cudaMallocArray@PLT\n.symver rgpu12_cudaMallocArray, cudaMallocArray@libcudart.so.12\n");
__asm__(".text\n.globl rgpu12_cudaMallocAsync\n.type rgpu12_cudaMallocAsync, @function\nrgpu12_cudaMallocAsync:\n    jmp cudaMallocAsync@PLT\n.symver rgpu12_cudaMallocAsync, cudaMallocAsync@libcudart.so.12\n");
__asm__(".text\n.globl rgpu12_cudaMallocFromPoolAsync\n.type rgpu12_cudaMallocFromPoolAsync, @function\nrgpu12_cudaMallocFromPoolAsync:\n    jmp cudaMallocFromPoolAsync@PLT\n.symver rgpu12_cudaMallocFromPoolAsync, cudaMallocFromPoolAsync@libcudart.so.12\n");
__asm__(".text\n.globl rgpu12_cudaMallocHost\n.type rgpu12_cudaMallocHost, @function\nrgpu12_cudaMallocHost:\n    jmp cudaMallocHost@PLT\n.symver rgpu12_cudaMallocHost, cudaMallocHost@libcudart.so.12\n");
__asm__(".text\n.globl rgpu12_cudaMallocManaged\n.type rgpu12_cudaMallocManaged, @function\nrgpu12_cudaMallocManaged:\n    jmp cudaMallocManaged@PLT\n.symver rgpu12_cudaMallocManaged, cudaMallocManaged@libcudart.so.12\n");
__asm__(".text\n.globl rgpu12_cudaMallocMipmappedArray\n.type rgpu12_cudaMallocMipmappedArray, @function\nrgpu12_cudaMallocMipmappedArray:\n    jmp cudaMallocMipmappedArray@PLT\n.symver rgpu12_cudaMallocMipmappedArray, cudaMallocMipmappedArray@libcudart.so.12\n");
__asm__(".text\n.globl rgpu12_cudaMallocPitch\n.type rgpu12_cudaMallocPitch, @function\nrgpu12_cudaMallocPitch:\n    jmp cudaMallocPitch@PLT\n.symver rgpu12_cudaMallocPitch, cudaMallocPitch@libcudart.so.12\n");
__asm__(".text\n.globl rgpu12_cudaMemAdvise\n.type rgpu12_cudaMemAdvise, @function\nrgpu12_cudaMemAdvise:\n    jmp rgpu12impl_cudaMemAdvise@PLT\n.symver rgpu12_cudaMemAdvise, cudaMemAdvise@libcudart.so.12\n");
__asm__(".text\n.globl rgpu12_cudaMemAdvise_v2\n.type rgpu12_cudaMemAdvise_v2, @function\nrgpu12_cudaMemAdvise_v2:\n    jmp cudaMemAdvise@PLT\n.symver rgpu12_cudaMemAdvise_v2, cudaMemAdvise_v2@libcudart.so.12\n");
__asm__(".text\n.globl rgpu12_cudaMemGetInfo\n.type rgpu12_cudaMemGetInfo, @function\nrgpu12_cudaMemGetInfo:\n    jmp cudaMemGetInfo@PLT\n.symver rgpu12_cudaMemGetInfo, cudaMemGetInfo@libcudart.so.12\n");
__asm__(".text\n.globl rgpu12_cudaMemPoolCreate\n.type rgpu12_cudaMemPoolCreate, @function\nrgpu12_cudaMemPoolCreate:\n    jmp cudaMemPoolCreate@PLT\n.symver rgpu12_cudaMemPoolCreate, cudaMemPoolCreate@libcudart.so.12\n");
__asm__(".text\n.globl rgpu12_cudaMemPoolDestroy\n.type rgpu12_cudaMemPoolDestroy, @function\nrgpu12_cudaMemPoolDestroy:\n    jmp cudaMemPoolDestroy@PLT\n.symver rgpu12_cudaMemPoolDestroy, cudaMemPoolDestroy@libcudart.so.12\n");
__asm__(".text\n.globl rgpu12_cudaMemPoolExportPointer\n.type rgpu12_cudaMemPoolExportPointer, @function\nrgpu12_cudaMemPoolExportPointer:\n    jmp cudaMemPoolExportPointer@PLT\n.symver rgpu12_cudaMemPoolExportPointer, cudaMemPoolExportPointer@libcudart.so.12\n");
__asm__(".text\n.globl rgpu12_cudaMemPoolExportToShareableHandle\n.type rgpu12_cudaMemPoolExportToShareableHandle, @function\nrgpu12_cudaMemPoolExportToShareableHandle:\n    jmp cudaMemPoolExportToShareableHandle@PLT\n.symver rgpu12_cudaMemPoolExportToShareableHandle, cudaMemPoolExportToShareableHandle@libcudart.so.12\n");
__asm__(".text\n.globl rgpu12_cudaMemPoolGetAccess\n.type rgpu12_cudaMemPoolGetAccess, @function\nrgpu12_cudaMemPoolGetAccess:\n    jmp cudaMemPoolGetAccess@PLT\n.symver rgpu12_cudaMemPoolGetAccess, cudaMemPoolGetAccess@libcudart.so.12\n");
__asm__(".text\n.globl rgpu12_cudaMemPoolGetAttribute\n.type rgpu12_cudaMemPoolGetAttribute, @function\nrgpu12_cudaMemPoolGetAttribute:\n    jmp cudaMemPoolGetAttribute@PLT\n.symver rgpu12_cudaMemPoolGetAttribute, cudaMemPoolGetAttribute@libcudart.so.12\n");
__asm__(".text\n.globl rgpu12_cudaMemPoolImportFromShareableHandle\n.type rgpu12_cudaMemPoolImportFromShareableHandle, @function\nrgpu12_cudaMemPoolImportFromShareableHandle:\n    jmp cudaMemPoolImportFromShareableHandle@PLT\n.symver rgpu12_cudaMemPoolImportFromShareableHandle, cudaMemPoolImportFromShareableHandle@libcudart.so.12\n");
__asm__(".text\n.globl rgpu12_cudaMemPoolImportPointer\n.type rgpu12_cudaMemPoolImportPointer, @function\nrgpu12_cudaMemPoolImportPointer:\n    jmp cudaMemPoolImportPointer@PLT\n.symver rgpu12_cudaMemPoolImportPointer, cudaMemPoolImportPointer@libcudart.so.12\n");
__asm__(".text\n.globl rgpu12_cudaMemPoolSetAccess\n.type rgpu12_cudaMemPoolSetAccess, @function\nrgpu12_cudaMemPoolSetAccess:\n    jmp cudaMemPoolSetAccess@PLT\n.symver rgpu12_cudaMemPoolSetAccess, cudaMemPoolSetAccess@libcudart.so.12\n");
__asm__(".text\n.globl rgpu12_cudaMemPoolSetAttribute\n.type rgpu12_cudaMemPoolSetAttribute, @function\nrgpu12_cudaMemPoolSetAttribute:\n    jmp cudaMemPoolSetAttribute@PLT\n.symver rgpu12_cudaMemPoolSetAttribute, cudaMemPoolSetAttribute@libcudart.so.12\n");
__asm__(".text\n.globl rgpu12_cudaMemPoolTrimTo\n.type rgpu12_cudaMemPoolTrimTo, @function\nrgpu12_cudaMemPoolTrimTo:\n    jmp cudaMemPoolTrimTo@PLT\n.symver rgpu12_cudaMemPoolTrimTo, cudaMemPoolTrimTo@libcudart.so.12\n");
__asm__(".text\n.globl rgpu12_cudaMemPrefetchAsync\n.type rgpu12_cudaMemPrefetchAsync, @function\nrgpu12_cudaMemPrefetchAsync:\n    jmp rgpu12impl_cudaMemPrefetchAsync@PLT\n.symver rgpu12_cudaMemPrefetchAsync, cudaMemPrefetchAsync@libcudart.so.12\n");
__asm__(".text\n.globl rgpu12_cudaMemPrefetchAsync_v2\n.type rgpu12_cudaMemPrefetchAsync_v2, @function\nrgpu12_cudaMemPrefetchAsync_v2:\n    jmp cudaMemPrefetchAsync@PLT\n.symver rgpu12_cudaMemPrefetchAsync_v2, cudaMemPrefetchAsync_v2@libcudart.so.12\n");
__asm__(".text\n.globl rgpu12_cudaMemRangeGetAttribute\n.type rgpu12_cudaMemRangeGetAttribute, @function\nrgpu12_cudaMemRangeGetAttribute:\n    jmp cudaMemRangeGetAttribute@PLT\n.symver rgpu12_cudaMemRangeGetAttribute, cudaMemRangeGetAttribute@libcudart.so.12\n");
__asm__(".text\n.globl rgpu12_cudaMemRangeGetAttributes\n.type rgpu12_cudaMemRangeGetAttributes, @function\nrgpu12_cudaMemRangeGetAttributes:\n    jmp cudaMemRangeGetAttributes@PLT\n.symver rgpu12_cudaMemRangeGetAttributes, cudaMemRangeGetAttributes@libcudart.so.12\n");
__asm__(".text\n.globl rgpu12_cudaMemcpy\n.type rgpu12_cudaMemcpy, @function\nrgpu12_cudaMemcpy:\n    jmp cudaMemcpy@PLT\n.symver rgpu12_cudaMemcpy, cudaMemcpy@libcudart.so.12\n");
__asm__(".text\n.globl rgpu12_cudaMemcpy2D\n.type rgpu12_cudaMemcpy2D, @function\nrgpu12_cudaMemcpy2D:\n    jmp cudaMemcpy2D@PLT\n.symver rgpu12_cudaMemcpy2D, cudaMemcpy2D@libcudart.so.12\n");
__asm__(".text\n.globl rgpu12_cudaMemcpy2DArrayToArray\n.type rgpu12_cudaMemcpy2DArrayToArray, @function\nrgpu12_cudaMemcpy2DArrayToArray:\n    jmp cudaMemcpy2DArrayToArray@PLT\n.symver rgpu12_cudaMemcpy2DArrayToArray, cudaMemcpy2DArrayToArray@libcudart.so.12\n");
__asm__(".text\n.globl rgpu12_cudaMemcpy2DAsync\n.type rgpu12_cudaMemcpy2DAsync, @function\nrgpu12_cudaMemcpy2DAsync:\n    jmp cudaMemcpy2DAsync@PLT\n.symver rgpu12_cudaMemcpy2DAsync, cudaMemcpy2DAsync@libcudart.so.12\n");
__asm__(".text\n.globl rgpu12_cudaMemcpy2DFromArray\n.type rgpu12_cudaMemcpy2DFromArray, @function\nrgpu12_cudaMemcpy2DFromArray:\n    jmp cudaMemcpy2DFromArray@PLT\n.symver rgpu12_cudaMemcpy2DFromArray, cudaMemcpy2DFromArray@libcudart.so.12\n");
__asm__(".text\n.globl rgpu12_cudaMemcpy2DFromArrayAsync\n.type rgpu12_cudaMemcpy2DFromArrayAsync, @function\nrgpu12_cudaMemcpy2DFromArrayAsync:\n    jmp cudaMemcpy2DFromArrayAsync@PLT\n.symver rgpu12_cudaMemcpy2DFromArrayAsync, cudaMemcpy2DFromArrayAsync@libcudart.so.12\n");
__asm__(".text\n.globl rgpu12_cudaMemcpy2DToArray\n.type rgpu12_cudaMemcpy2DToArray, @function\nrgpu12_cudaMemcpy2DToArray:\n    jmp cudaMemcpy2DToArray@PLT\n.symver rgpu12_cudaMemcpy2DToArray, cudaMemcpy2DToArray@libcudart.so.12\n");
__asm__(".text\n.globl rgpu12_cudaMemcpy2DToArrayAsync\n.type rgpu12_cudaMemcpy2DToArrayAsync, @function\nrgpu12_cudaMemcpy2DToArrayAsync:\n    jmp cudaMemcpy2DToArrayAsync@PLT\n.symver rgpu12_cudaMemcpy2DToArrayAsync, cudaMemcpy2DToArrayAsync@libcudart.so.12\n");
__asm__(".text\n.globl rgpu12_cudaMemcpy3D\n.type rgpu12_cudaMemcpy3D, @function\nrgpu12_cudaMemcpy3D:\n    jmp cudaMemcpy3D@PLT\n.symver rgpu12_cudaMemcpy3D, cudaMemcpy3D@libcudart.so.12\n");
__asm__(".text\n.globl rgpu12_cudaMemcpy3DAsync\n.type rgpu12_cudaMemcpy3DAsync, @function\nrgpu12_cudaMemcpy3DAsync:\n    jmp cudaMemcpy3DAsync@PLT\n.symver rgpu12_cudaMemcpy3DAsync, cudaMemcpy3DAsync@libcudart.so.12\n");
__asm__(".text\n.globl rgpu12_cudaMemcpy3DBatchAsync\n.type rgpu12_cudaMemcpy3DBatchAsync, @function\nrgpu12_cudaMemcpy3DBatchAsync:\n    jmp rgpu12impl_cudaMemcpy3DBatchAsync@PLT\n.symver rgpu12_cudaMemcpy3DBatchAsync, cudaMemcpy3DBatchAsync@libcudart.so.12\n");
__asm__(".text\n.globl rgpu12_cudaMemcpy3DPeer\n.type rgpu12_cudaMemcpy3DPeer, @function\nrgpu12_cudaMemcpy3DPeer:\n    jmp cudaMemcpy3DPeer@PLT\n.symver rgpu12_cudaMemcpy3DPeer, cudaMemcpy3DPeer@libcudart.so.12\n");
__asm__(".text\n.globl rgpu12_cudaMemcpy3DPeerAsync\n.type rgpu12_cudaMemcpy3DPeerAsync, @function\nrgpu12_cudaMemcpy3DPeerAsync:\n    jmp cudaMemcpy3DPeerAsync@PLT\n.symver rgpu12_cudaMemcpy3DPeerAsync, cudaMemcpy3DPeerAsync@libcudart.so.12\n");
__asm__(".text\n.globl rgpu12_cudaMemcpyArrayToArray\n.type rgpu12_cudaMemcpyArrayToArray, @function\nrgpu12_cudaMemcpyArrayToArray:\n    jmp cudaMemcpyArrayToArray@PLT\n.symver rgpu12_cudaMemcpyArrayToArray, cudaMemcpyArrayToArray@libcudart.so.12\n");
__asm__(".text\n.globl rgpu12_cudaMemcpyAsync\n.type rgpu12_cudaMemcpyAsync, @function\nrgpu12_cudaMemcpyAsync:\n    jmp cudaMemcpyAsync@PLT\n.symver rgpu12_cudaMemcpyAsync, cudaMemcpyAsync@libcudart.so.12\n");
__asm__(".text\n.globl rgpu12_cudaMemcpyBatchAsync\n.type rgpu12_cudaMemcpyBatchAsync, @function\nrgpu12_cudaMemcpyBatchAsync:\n    jmp rgpu12impl_cudaMemcpyBatchAsync@PLT\n.symver rgpu12_cudaMemcpyBatchAsync, cudaMemcpyBatchAsync@libcudart.so.12\n");
__asm__(".text\n.globl rgpu12_cudaMemcpyFromArray\n.type rgpu12_cudaMemcpyFromArray, @function\nrgpu12_cudaMemcpyFromArray:\n    jmp cudaMemcpyFromArray@PLT\n.symver rgpu12_cudaMemcpyFromArray, cudaMemcpyFromArray@libcudart.so.12\n");
__asm__(".text\n.globl rgpu12_cudaMemcpyFromArrayAsync\n.type rgpu12_cudaMemcpyFromArrayAsync, @function\nrgpu12_cudaMemcpyFromArrayAsync:\n    jmp cudaMemcpyFromArrayAsync@PLT\n.symver rgpu12_cudaMemcpyFromArrayAsync, cudaMemcpyFromArrayAsync@libcudart.so.12\n");
__asm__(".text\n.globl rgpu12_cudaMemcpyFromSymbol\n.type rgpu12_cudaMemcpyFromSymbol, @function\nrgpu12_cudaMemcpyFromSymbol:\n    jmp cudaMemcpyFromSymbol@PLT\n.symver rgpu12_cudaMemcpyFromSymbol, cudaMemcpyFromSymbol@libcudart.so.12\n");
__asm__(".text\n.globl rgpu12_cudaMemcpyFromSymbolAsync\n.type rgpu12_cudaMemcpyFromSymbolAsync, @function\nrgpu12_cudaMemcpyFromSymbolAsync:\n    jmp cudaMemcpyFromSymbolAsync@PLT\n.symver rgpu12_cudaMemcpyFromSymbolAsync, cudaMemcpyFromSymbolAsync@libcudart.so.12\n");
__asm__(".text\n.globl rgpu12_cudaMemcpyPeer\n.type rgpu12_cudaMemcpyPeer, @function\nrgpu12_cudaMemcpyPeer:\n    jmp cudaMemcpyPeer@PLT\n.symver rgpu12_cudaMemcpyPeer, cudaMemcpyPeer@libcudart.so.12\n");
__asm__(".text\n.globl rgpu12_cudaMemcpyPeerAsync\n.type rgpu12_cudaMemcpyPeerAsync, @function\nrgpu12_cudaMemcpyPeerAsync:\n    jmp cudaMemcpyPeerAsync@PLT\n.symver rgpu12_cudaMemcpyPeerAsync, cudaMemcpyPeerAsync@libcudart.so.12\n");
__asm__(".text\n.globl rgpu12_cudaMemcpyToArray\n.type rgpu12_cudaMemcpyToArray, @function\nrgpu12_cudaMemcpyToArray:\n    jmp cudaMemcpyToArray@PLT\n.symver rgpu12_cudaMemcpyToArray, cudaMemcpyToArray@libcudart.so.12\n");
__asm__(".text\n.globl rgpu12_cudaMemcpyToArrayAsync\n.type rgpu12_cudaMemcpyToArrayAsync, @function\nrgpu12_cudaMemcpyToArrayAsync:\n    jmp cudaMemcpyToArrayAsync@PLT\n.symver rgpu12_cudaMemcpyToArrayAsync, cudaMemcpyToArrayAsync@libcudart.so.12\n");
__asm__(".text\n.globl rgpu12_cudaMemcpyToSymbol\n.type rgpu12_cudaMemcpyToSymbol, @function\nrgpu12_cudaMemcpyToSymbol:\n    jmp cudaMemcpyToSymbol@PLT\n.symver rgpu12_cudaMemcpyToSymbol, cudaMemcpyToSymbol@libcudart.so.12\n");
__asm__(".text\n.globl rgpu12_cudaMemcpyToSymbolAsync\n.type rgpu12_cudaMemcpyToSymbolAsync, @function\nrgpu12_cudaMemcpyToSymbolAsync:\n    jmp cudaMemcpyToSymbolAsync@PLT\n.symver rgpu12_cudaMemcpyToSymbolAsync, cudaMemcpyToSymbolAsync@libcudart.so.12\n");
__asm__(".text\n.globl rgpu12_cudaMemset\n.type rgpu12_cudaMemset, @function\nrgpu12_cudaMemset:\n    jmp cudaMemset@PLT\n.symver rgpu12_cudaMemset, cudaMemset@libcudart.so.12\n");
__asm__(".text\n.globl rgpu12_cudaMemset2D\n.type rgpu12_cudaMemset2D, @function\nrgpu12_cudaMemset2D:\n    jmp cudaMemset2D@PLT\n.symver rgpu12_cudaMemset2D, cudaMemset2D@libcudart.so.12\n");
__asm__(".text\n.globl rgpu12_cudaMemset2DAsync\n.type rgpu12_cudaMemset2DAsync, @function\nrgpu12_cudaMemset2DAsync:\n    jmp cudaMemset2DAsync@PLT\n.symver rgpu12_cudaMemset2DAsync, cudaMemset2DAsync@libcudart.so.12\n");
__asm__(".text\n.globl rgpu12_cudaMemset3D\n.type rgpu12_cudaMemset3D, @function\nrgpu12_cudaMemset3D:\n    jmp cudaMemset3D@PLT\n.symver rgpu12_cudaMemset3D, cudaMemset3D@libcudart.so.12\n");
__asm__(".text\n.globl rgpu12_cudaMemset3DAsync\n.type rgpu12_cudaMemset3DAsync, @function\nrgpu12_cudaMemset3DAsync:\n    jmp cudaMemset3DAsync@PLT\n.symver rgpu12_cudaMemset3DAsync, cudaMemset3DAsync@libcudart.so.12\n");
__asm__(".text\n.globl rgpu12_cudaMemsetAsync\n.type rgpu12_cudaMemsetAsync, @function\nrgpu12_cudaMemsetAsync:\n    jmp cudaMemsetAsync@PLT\n.symver rgpu12_cudaMemsetAsync, cudaMemsetAsync@libcudart.so.12\n");
__asm__(".text\n.globl rgpu12_cudaMipmappedArrayGetMemoryRequirements\n.type rgpu12_cudaMipmappedArrayGetMemoryRequirements, @function\nrgpu12_cudaMipmappedArrayGetMemoryRequirements:\n    jmp cudaMipmappedArrayGetMemoryRequirements@PLT\n.symver rgpu12_cudaMipmappedArrayGetMemoryRequirements, cudaMipmappedArrayGetMemoryRequirements@libcudart.so.12\n");
__asm__(".text\n.globl rgpu12_cudaMipmappedArrayGetSparseProperties\n.type rgpu12_cudaMipmappedArrayGetSparseProperties, @function\nrgpu12_cudaMipmappedArrayGetSparseProperties:\n    jmp cudaMipmappedArrayGetSparseProperties@PLT\n.symver rgpu12_cudaMipmappedArrayGetSparseProperties, cudaMipmappedArrayGetSparseProperties@libcudart.so.12\n");
__asm__(".text\n.globl rgpu12_cudaOccupancyAvailableDynamicSMemPerBlock\n.type rgpu12_cudaOccupancyAvailableDynamicSMemPerBlock, @function\nrgpu12_cudaOccupancyAvailableDynamicSMemPerBlock:\n    jmp cudaOccupancyAvailableDynamicSMemPerBlock@PLT\n.symver rgpu12_cudaOccupancyAvailableDynamicSMemPerBlock, cudaOccupancyAvailableDynamicSMemPerBlock@libcudart.so.12\n");
__asm__(".text\n.globl rgpu12_cudaOccupancyMaxActiveBlocksPerMultiprocessor\n.type rgpu12_cudaOccupancyMaxActiveBlocksPerMultiprocessor, @function\nrgpu12_cudaOccupancyMaxActiveBlocksPerMultiprocessor:\n    jmp cudaOccupancyMaxActiveBlocksPerMultiprocessor@PLT\n.symver rgpu12_cudaOccupancyMaxActiveBlocksPerMultiprocessor, cudaOccupancyMaxActiveBlocksPerMultiprocessor@libcudart.so.12\n");
__asm__(".text\n.globl rgpu12_cudaOccupancyMaxActiveBlocksPerMultiprocessorWithFlags\n.type rgpu12_cudaOccupancyMaxActiveBlocksPerMultiprocessorWithFlags, @function\nrgpu12_cudaOccupancyMaxActiveBlocksPerMultiprocessorWithFlags:\n    jmp cudaOccupancyMaxActiveBlocksPerMultiprocessorWithFlags@PLT\n.symver rgpu12_cudaOccupancyMaxActiveBlocksPerMultiprocessorWithFlags, cudaOccupancyMaxActiveBlocksPerMultiprocessorWithFlags@libcudart.so.12\n");
__asm__(".text\n.globl rgpu12_cudaOccupancyMaxActiveClusters\n.type rgpu12_cudaOccupancyMaxActiveClusters, @function\nrgpu12_cudaOccupancyMaxActiveClusters:\n    jmp cudaOccupancyMaxActiveClusters@PLT\n.symver rgpu12_cudaOccupancyMaxActiveClusters, cudaOccupancyMaxActiveClusters@libcudart.so.12\n");
__asm__(".text\n.globl rgpu12_cudaOccupancyMaxPotentialClusterSize\n.type rgpu12_cudaOccupancyMaxPotentialClusterSize, @function\nrgpu12_cudaOccupancyMaxPotentialClusterSize:\n    jmp cudaOccupancyMaxPotentialClusterSize@PLT\n.symver rgpu12_cudaOccupancyMaxPotentialClusterSize, cudaOccupancyMaxPotentialClusterSize@libcudart.so.12\n");
__asm__(".text\n.globl rgpu12_cudaPeekAtLastError\n.type rgpu12_cudaPeekAtLastError, @function\nrgpu12_cudaPeekAtLastError:\n    jmp cudaPeekAtLastError@PLT\n.symver rgpu12_cudaPeekAtLastError, cudaPeekAtLastError@libcudart.so.12\n");
__asm__(".text\n.globl rgpu12_cudaPointerGetAttributes\n.type rgpu12_cudaPointerGetAttributes, @function\nrgpu12_cudaPointerGetAttributes:\n    jmp rgpu12impl_cudaPointerGetAttributes@PLT\n.symver rgpu12_cudaPointerGetAttributes, cudaPointerGetAttributes@libcudart.so.12\n");
__asm__(".text\n.globl rgpu12_cudaProfilerStart\n.type rgpu12_cudaProfilerStart, @function\nrgpu12_cudaProfilerStart:\n    jmp cudaProfilerStart@PLT\n.symver rgpu12_cudaProfilerStart, cudaProfilerStart@libcudart.so.12\n");
__asm__(".text\n.globl rgpu12_cudaProfilerStop\n.type rgpu12_cudaProfilerStop, @function\nrgpu12_cudaProfilerStop:\n    jmp cudaProfilerStop@PLT\n.symver rgpu12_cudaProfilerStop, cudaProfilerStop@libcudart.so.12\n");
__asm__(".text\n.globl rgpu12_cudaRuntimeGetVersion\n.type rgpu12_cudaRuntimeGetVersion, @function\nrgpu12_cudaRuntimeGetVersion:\n    jmp rgpu12impl_cudaRuntimeGetVersion@PLT\n.symver rgpu12_cudaRuntimeGetVersion, cudaRuntimeGetVersion@libcudart.so.12\n");
__asm__(".text\n.globl rgpu12_cudaSetDevice\n.type rgpu12_cudaSetDevice, @function\nrgpu12_cudaSetDevice:\n    jmp cudaSetDevice@PLT\n.symver rgpu12_cudaSetDevice, cudaSetDevice@libcudart.so.12\n");
__asm__(".text\n.globl rgpu12_cudaSetDeviceFlags\n.type rgpu12_cudaSetDeviceFlags, @function\nrgpu12_cudaSetDeviceFlags:\n    jmp cudaSetDeviceFlags@PLT\n.symver rgpu12_cudaSetDeviceFlags, cudaSetDeviceFlags@libcudart.so.12\n");
__asm__(".text\n.globl rgpu12_cudaSetDoubleForDevice\n.type rgpu12_cudaSetDoubleForDevice, @function\nrgpu12_cudaSetDoubleForDevice:\n    jmp rgpu12impl_cudaSetDoubleForDevice@PLT\n.symver rgpu12_cudaSetDoubleForDevice, cudaSetDoubleForDevice@libcudart.so.12\n");
__asm__(".text\n.globl rgpu12_cudaSetDoubleForHost\n.type rgpu12_cudaSetDoubleForHost, @function\nrgpu12_cudaSetDoubleForHost:\n    jmp rgpu12impl_cudaSetDoubleForHost@PLT\n.symver rgpu12_cudaSetDoubleForHost, cudaSetDoubleForHost@libcudart.so.12\n");
__asm__(".text\n.globl rgpu12_cudaSetValidDevices\n.type rgpu12_cudaSetValidDevices, @function\nrgpu12_cudaSetValidDevices:\n    jmp cudaSetValidDevices@PLT\n.symver rgpu12_cudaSetValidDevices, cudaSetValidDevices@libcudart.so.12\n");
__asm__(".text\n.globl rgpu12_cudaSignalExternalSemaphoresAsync\n.type rgpu12_cudaSignalExternalSemaphoresAsync, @function\nrgpu12_cudaSignalExternalSemaphoresAsync:\n    jmp rgpu12impl_cudaSignalExternalSemaphoresAsync@PLT\n.symver rgpu12_cudaSignalExternalSemaphoresAsync, cudaSignalExternalSemaphoresAsync@libcudart.so.12\n");
__asm__(".text\n.globl rgpu12_cudaSignalExternalSemaphoresAsync_v2\n.type rgpu12_cudaSignalExternalSemaphoresAsync_v2, @function\nrgpu12_cudaSignalExternalSemaphoresAsync_v2:\n    jmp cudaSignalExternalSemaphoresAsync@PLT\n.symver rgpu12_cudaSignalExternalSemaphoresAsync_v2, cudaSignalExternalSemaphoresAsync_v2@libcudart.so.12\n");
__asm__(".text\n.globl rgpu12_cudaStreamAddCallback\n.type rgpu12_cudaStreamAddCallback, @function\nrgpu12_cudaStreamAddCallback:\n    jmp cudaStreamAddCallback@PLT\n.symver rgpu12_cudaStreamAddCallback, cudaStreamAddCallback@libcudart.so.12\n");
__asm__(".text\n.globl rgpu12_cudaStreamAttachMemAsync\n.type rgpu12_cudaStreamAttachMemAsync, @function\nrgpu12_cudaStreamAttachMemAsync:\n    jmp cudaStreamAttachMemAsync@PLT\n.symver rgpu12_cudaStreamAttachMemAsync, cudaStreamAttachMemAsync@libcudart.so.12\n");
__asm__(".text\n.globl rgpu12_cudaStreamBeginCapture\n.type rgpu12_cudaStreamBeginCapture, @function\nrgpu12_cudaStreamBeginCapture:\n    jmp cudaStreamBeginCapture@PLT\n.symver rgpu12_cudaStreamBeginCapture, cudaStreamBeginCapture@libcudart.so.12\n");
__asm__(".text\n.globl rgpu12_cudaStreamBeginCaptureToGraph\n.type rgpu12_cudaStreamBeginCaptureToGraph, @function\nrgpu12_cudaStreamBeginCaptureToGraph:\n    jmp cudaStreamBeginCaptureToGraph@PLT\n.symver rgpu12_cudaStreamBeginCaptureToGraph, cudaStreamBeginCaptureToGraph@libcudart.so.12\n");
__asm__(".text\n.globl rgpu12_cudaStreamCopyAttributes\n.type rgpu12_cudaStreamCopyAttributes, @function\nrgpu12_cudaStreamCopyAttributes:\n    jmp cudaStreamCopyAttributes@PLT\n.symver rgpu12_cudaStreamCopyAttributes, cudaStreamCopyAttributes@libcudart.so.12\n");
__asm__(".text\n.globl rgpu12_cudaStreamCreate\n.type rgpu12_cudaStreamCreate, @function\nrgpu12_cudaStreamCreate:\n    jmp cudaStreamCreate@PLT\n.symver rgpu12_cudaStreamCreate, cudaStreamCreate@libcudart.so.12\n");
__asm__(".text\n.globl rgpu12_cudaStreamCreateWithFlags\n.type rgpu12_cudaStreamCreateWithFlags, @function\nrgpu12_cudaStreamCreateWithFlags:\n    jmp cudaStreamCreateWithFlags@PLT\n.symver rgpu12_cudaStreamCreateWithFlags, cudaStreamCreateWithFlags@libcudart.so.12\n");
__asm__(".text\n.globl rgpu12_cudaStreamCreateWithPriority\n.type rgpu12_cudaStreamCreateWithPriority, @function\nrgpu12_cudaStreamCreateWithPriority:\n    jmp cudaStreamCreateWithPriority@PLT\n.symver rgpu12_cudaStreamCreateWithPriority, cudaStreamCreateWithPriority@libcudart.so.12\n");
__asm__(".text\n.globl rgpu12_cudaStreamDestroy\n.type rgpu12_cudaStreamDestroy, @function\nrgpu12_cudaStreamDestroy:\n    jmp cudaStreamDestroy@PLT\n.symver rgpu12_cudaStreamDestroy, cudaStreamDestroy@libcudart.so.12\n");
__asm__(".text\n.globl rgpu12_cudaStreamEndCapture\n.type rgpu12_cudaStreamEndCapture, @function\nrgpu12_cudaStreamEndCapture:\n    jmp cudaStreamEndCapture@PLT\n.symver rgpu12_cudaStreamEndCapture, cudaStreamEndCapture@libcudart.so.12\n");
__asm__(".text\n.globl rgpu12_cudaStreamGetAttribute\n.type rgpu12_cudaStreamGetAttribute, @function\nrgpu12_cudaStreamGetAttribute:\n    jmp cudaStreamGetAttribute@PLT\n.symver rgpu12_cudaStreamGetAttribute, cudaStreamGetAttribute@libcudart.so.12\n");
__asm__(".text\n.globl rgpu12_cudaStreamGetCaptureInfo\n.type rgpu12_cudaStreamGetCaptureInfo, @function\nrgpu12_cudaStreamGetCaptureInfo:\n    jmp rgpu_v12_cudaStreamGetCaptureInfo@PLT\n.symver rgpu12_cudaStreamGetCaptureInfo, cudaStreamGetCaptureInfo@libcudart.so.12\n");
__asm__(".text\n.globl rgpu12_cudaStreamGetCaptureInfo_v2\n.type rgpu12_cudaStreamGetCaptureInfo_v2, @function\nrgpu12_cudaStreamGetCaptureInfo_v2:\n    jmp rgpu_v12_cudaStreamGetCaptureInfo@PLT\n.symver rgpu12_cudaStreamGetCaptureInfo_v2, cudaStreamGetCaptureInfo_v2@libcudart.so.12\n");
__asm__(".text\n.globl rgpu12_cudaStreamGetCaptureInfo_v3\n.type rgpu12_cudaStreamGetCaptureInfo_v3, @function\nrgpu12_cudaStreamGetCaptureInfo_v3:\n    jmp cudaStreamGetCaptureInfo@PLT\n.symver rgpu12_cudaStreamGetCaptureInfo_v3, cudaStreamGetCaptureInfo_v3@libcudart.so.12\n");
__asm__(".text\n.globl rgpu12_cudaStreamGetDevice\n.type rgpu12_cudaStreamGetDevice, @function\nrgpu12_cudaStreamGetDevice:\n    jmp cudaStreamGetDevice@PLT\n.symver rgpu12_cudaStreamGetDevice, cudaStreamGetDevice@libcudart.so.12\n");
__asm__(".text\n.globl rgpu12_cudaStreamGetFlags\n.type rgpu12_cudaStreamGetFlags, @function\nrgpu12_cudaStreamGetFlags:\n    jmp cudaStreamGetFlags@PLT\n.symver rgpu12_cudaStreamGetFlags, cudaStreamGetFlags@libcudart.so.12\n");
__asm__(".text\n.globl rgpu12_cudaStreamGetId\n.type rgpu12_cudaStreamGetId, @function\nrgpu12_cudaStreamGetId:\n    jmp cudaStreamGetId@PLT\n.symver rgpu12_cudaStreamGetId, cudaStreamGetId@libcudart.so.12\n");
__asm__(".text\n.globl rgpu12_cudaStreamGetPriority\n.type rgpu12_cudaStreamGetPriority, @function\nrgpu12_cudaStreamGetPriority:\n    jmp cudaStreamGetPriority@PLT\n.symver rgpu12_cudaStreamGetPriority, cudaStreamGetPriority@libcudart.so.12\n");
__asm__(".text\n.globl rgpu12_cudaStreamIsCapturing\n.type rgpu12_cudaStreamIsCapturing, @function\nrgpu12_cudaStreamIsCapturing:\n    jmp cudaStreamIsCapturing@PLT\n.symver rgpu12_cudaStreamIsCapturing, cudaStreamIsCapturing@libcudart.so.12\n");
__asm__(".text\n.globl rgpu12_cudaStreamQuery\n.type rgpu12_cudaStreamQuery, @function\nrgpu12_cudaStreamQuery:\n    jmp cudaStreamQuery@PLT\n.symver rgpu12_cudaStreamQuery, cudaStreamQuery@libcudart.so.12\n");
__asm__(".text\n.globl rgpu12_cudaStreamSetAttribute\n.type rgpu12_cudaStreamSetAttribute, @function\nrgpu12_cudaStreamSetAttribute:\n    jmp cudaStreamSetAttribute@PLT\n.symver rgpu12_cudaStreamSetAttribute, cudaStreamSetAttribute@libcudart.so.12\n");
__asm__(".text\n.globl rgpu12_cudaStreamSynchronize\n.type rgpu12_cudaStreamSynchronize, @function\nrgpu12_cudaStreamSynchronize:\n    jmp cudaStreamSynchronize@PLT\n.symver rgpu12_cudaStreamSynchronize, cudaStreamSynchronize@libcudart.so.12\n");
__asm__(".text\n.globl rgpu12_cudaStreamUpdateCaptureDependencies\n.type rgpu12_cudaStreamUpdateCaptureDependencies, @function\nrgpu12_cudaStreamUpdateCaptureDependencies:\n    jmp rgpu_v12_cudaStreamUpdateCaptureDependencies@PLT\n.symver rgpu12_cudaStreamUpdateCaptureDependencies, cudaStreamUpdateCaptureDependencies@libcudart.so.12\n");
__asm__(".text\n.globl rgpu12_cudaStreamUpdateCaptureDependencies_v2\n.type rgpu12_cudaStreamUpdateCaptureDependencies_v2, @function\nrgpu12_cudaStreamUpdateCaptureDependencies_v2:\n    jmp cudaStreamUpdateCaptureDependencies@PLT\n.symver rgpu12_cudaStreamUpdateCaptureDependencies_v2, cudaStreamUpdateCaptureDependencies_v2@libcudart.so.12\n");
__asm__(".text\n.globl rgpu12_cudaStreamWaitEvent\n.type rgpu12_cudaStreamWaitEvent, @function\nrgpu12_cudaStreamWaitEvent:\n    jmp cudaStreamWaitEvent@PLT\n.symver rgpu12_cudaStreamWaitEvent, cudaStreamWaitEvent@libcudart.so.12\n");
__asm__(".text\n.globl rgpu12_cudaThreadExchangeStreamCaptureMode\n.type rgpu12_cudaThreadExchangeStreamCaptureMode, @function\nrgpu12_cudaThreadExchangeStreamCaptureMode:\n    jmp cudaThreadExchangeStreamCaptureMode@PLT\n.symver rgpu12_cudaThreadExchangeStreamCaptureMode, cudaThreadExchangeStreamCaptureMode@libcudart.so.12\n");
__asm__(".text\n.globl rgpu12_cudaThreadExit\n.type rgpu12_cudaThreadExit, @function\nrgpu12_cudaThreadExit:\n    jmp cudaDeviceReset@PLT\n.symver rgpu12_cudaThreadExit, cudaThreadExit@libcudart.so.12\n");
__asm__(".text\n.globl rgpu12_cudaThreadGetCacheConfig\n.type rgpu12_cudaThreadGetCacheConfig, @function\nrgpu12_cudaThreadGetCacheConfig:\n    jmp cudaDeviceGetCacheConfig@PLT\n.symver rgpu12_cudaThreadGetCacheConfig, cudaThreadGetCacheConfig@libcudart.so.12\n");
__asm__(".text\n.globl rgpu12_cudaThreadGetLimit\n.type rgpu12_cudaThreadGetLimit, @function\nrgpu12_cudaThreadGetLimit:\n    jmp cudaDeviceGetLimit@PLT\n.symver rgpu12_cudaThreadGetLimit, cudaThreadGetLimit@libcudart.so.12\n");
__asm__(".text\n.globl rgpu12_cudaThreadSetCacheConfig\n.type rgpu12_cudaThreadSetCacheConfig, @function\nrgpu12_cudaThreadSetCacheConfig:\n    jmp cudaDeviceSetCacheConfig@PLT\n.symver rgpu12_cudaThreadSetCacheConfig, cudaThreadSetCacheConfig@libcudart.so.12\n");
__asm__(".text\n.globl rgpu12_cudaThreadSetLimit\n.type rgpu12_cudaThreadSetLimit, @function\nrgpu12_cudaThreadSetLimit:\n    jmp cudaDeviceSetLimit@PLT\n.symver rgpu12_cudaThreadSetLimit, cudaThreadSetLimit@libcudart.so.12\n");
__asm__(".text\n.globl rgpu12_cudaThreadSynchronize\n.type rgpu12_cudaThreadSynchronize, @function\nrgpu12_cudaThreadSynchronize:\n    jmp cudaDeviceSynchronize@PLT\n.symver rgpu12_cudaThreadSynchronize, cudaThreadSynchronize@libcudart.so.12\n");
__asm__(".text\n.globl rgpu12_cudaUserObjectCreate\n.type rgpu12_cudaUserObjectCreate, @function\nrgpu12_cudaUserObjectCreate:\n    jmp cudaUserObjectCreate@PLT\n.symver rgpu12_cudaUserObjectCreate, cudaUserObjectCreate@libcudart.so.12\n");
__asm__(".text\n.globl rgpu12_cudaUserObjectRelease\n.type rgpu12_cudaUserObjectRelease, @function\nrgpu12_cudaUserObjectRelease:\n    jmp cudaUserObjectRelease@PLT\n.symver rgpu12_cudaUserObjectRelease, cudaUserObjectRelease@libcudart.so.12\n");
__asm__(".text\n.globl rgpu12_cudaUserObjectRetain\n.type rgpu12_cudaUserObjectRetain, @function\nrgpu12_cudaUserObjectRetain:\n    jmp cudaUserObjectRetain@PLT\n.symver rgpu12_cudaUserObjectRetain, cudaUserObjectRetain@libcudart.so.12\n");
__asm__(".text\n.globl rgpu12_cudaWaitExternalSemaphoresAsync\n.type rgpu12_cudaWaitExternalSemaphoresAsync, @function\nrgpu12_cudaWaitExternalSemaphoresAsync:\n    jmp rgpu12impl_cudaWaitExternalSemaphoresAsync@PLT\n.symver rgpu12_cudaWaitExternalSemaphoresAsync, cudaWaitExternalSemaphoresAsync@libcudart.so.12\n");
__asm__(".text\n.globl rgpu12_cudaWaitExternalSemaphoresAsync_v2\n.type rgpu12_cudaWaitExternalSemaphoresAsync_v2, @function\nrgpu12_cudaWaitExternalSemaphoresAsync_v2:\n    jmp cudaWaitExternalSemaphoresAsync@PLT\n.symver rgpu12_cudaWaitExternalSemaphoresAsync_v2, cudaWaitExternalSemaphoresAsync_v2@libcudart.so.12\n");

/* Driver names only 12.x has, with the prototype of a 13.0 one (the Driver face is unversioned) */
__asm__(".text\n.globl cuDeviceGetUuid\n.type cuDeviceGetUuid, @function\ncuDeviceGetUuid:\n    jmp cuDeviceGetUuid_v2@PLT\n");
__asm__(".text\n.globl cuEventElapsedTime\n.type cuEventElapsedTime, @function\ncuEventElapsedTime:\n    jmp cuEventElapsedTime_v2@PLT\n");

/* cuGraphAddDependencies (CUDA 12): not supported: the 12.x form is not translated to 13.0's (which is served) */
int cuGraphAddDependencies()
{
    return rgpu_unsupported(RGPU_DRIVER, "cuGraphAddDependencies");
}

/* cuGraphAddNode (CUDA 12): not supported: the 12.x form; the generic cuGraphAddNode is not served in either series */
int cuGraphAddNode()
{
    return rgpu_unsupported(RGPU_DRIVER, "cuGraphAddNode");
}

/* cuGraphGetEdges (CUDA 12): not supported: the 12.x form is not translated to 13.0's (which is served) */
int cuGraphGetEdges()
{
    return rgpu_unsupported(RGPU_DRIVER, "cuGraphGetEdges");
}

/* cuGraphNodeGetDependencies (CUDA 12): not supported: the 12.x form is not translated to 13.0's (which is served) */
int cuGraphNodeGetDependencies()
{
    return rgpu_unsupported(RGPU_DRIVER, "cuGraphNodeGetDependencies");
}

/* cuGraphNodeGetDependentNodes (CUDA 12): not supported: the 12.x form is not translated to 13.0's (which is served) */
int cuGraphNodeGetDependentNodes()
{
    return rgpu_unsupported(RGPU_DRIVER, "cuGraphNodeGetDependentNodes");
}

/* cuGraphRemoveDependencies (CUDA 12): not supported: the 12.x form is not translated to 13.0's (which is served) */
int cuGraphRemoveDependencies()
{
    return rgpu_unsupported(RGPU_DRIVER, "cuGraphRemoveDependencies");
}

/* cuMemAdvise (CUDA 12): not supported: the 12.x form (a device ordinal) is not translated; cuMemAdvise_v2 is served */
int cuMemAdvise()
{
    return rgpu_unsupported(RGPU_DRIVER, "cuMemAdvise");
}

/* cuMemPrefetchAsync (CUDA 12): not supported: the 12.x form (a device ordinal) is not translated; cuMemPrefetchAsync_v2 is served */
int cuMemPrefetchAsync()
{
    return rgpu_unsupported(RGPU_DRIVER, "cuMemPrefetchAsync");
}

/* cuMemcpy3DBatchAsync (CUDA 12): not supported: the 12.x form of batched copies is not translated to 13.0's */
int cuMemcpy3DBatchAsync()
{
    return rgpu_unsupported(RGPU_DRIVER, "cuMemcpy3DBatchAsync");
}

/* cuMemcpyBatchAsync (CUDA 12): not supported: the 12.x form of batched copies is not translated to 13.0's */
int cuMemcpyBatchAsync()
{
    return rgpu_unsupported(RGPU_DRIVER, "cuMemcpyBatchAsync");
}

/* cuStreamUpdateCaptureDependencies (CUDA 12): not supported: the 12.x form is not translated to 13.0's (which is served) */
int cuStreamUpdateCaptureDependencies()
{
    return rgpu_unsupported(RGPU_DRIVER, "cuStreamUpdateCaptureDependencies");
}

/* cuCheckpointProcessRestore (CUDA 12): not supported: CUcheckpointRestoreArgs changed layout in 13.0 and is not converted yet */
int rgpu12impl_cuCheckpointProcessRestore()
{
    return rgpu_unsupported(RGPU_DRIVER, "cuCheckpointProcessRestore");
}

/* cuDevResourceGenerateDesc (CUDA 12): not supported: CUdevResource changed layout in 13.0 and is not converted yet */
int rgpu12impl_cuDevResourceGenerateDesc()
{
    return rgpu_unsupported(RGPU_DRIVER, "cuDevResourceGenerateDesc");
}

/* cuDevSmResourceSplitByCount (CUDA 12): not supported: CUdevResource changed layout in 13.0 and is not converted yet */
int rgpu12impl_cuDevSmResourceSplitByCount()
{
    return rgpu_unsupported(RGPU_DRIVER, "cuDevSmResourceSplitByCount");
}

/* cuDeviceGetDevResource (CUDA 12): not supported: CUdevResource changed layout in 13.0 and is not converted yet */
int rgpu12impl_cuDeviceGetDevResource()
{
    return rgpu_unsupported(RGPU_DRIVER, "cuDeviceGetDevResource");
}

/* cudaChooseDevice (CUDA 12): not supported: takes a 12.x cudaDeviceProp, which is not converted to 13.0's yet */
int rgpu12impl_cudaChooseDevice()
{
    return rgpu_unsupported(RGPU_RUNTIME, "cudaChooseDevice");
}

/* cudaCreateSurfaceObject (CUDA 12): not supported: cudaResourceDesc changed layout in 13.0 and is not converted yet */
int rgpu12impl_cudaCreateSurfaceObject()
{
    return rgpu_unsupported(RGPU_RUNTIME, "cudaCreateSurfaceObject");
}

/* cudaCreateTextureObject (CUDA 12): not supported: cudaResourceDesc changed layout in 13.0 and is not converted yet */
int rgpu12impl_cudaCreateTextureObject()
{
    return rgpu_unsupported(RGPU_RUNTIME, "cudaCreateTextureObject");
}

/* cudaGetSurfaceObjectResourceDesc (CUDA 12): not supported: cudaResourceDesc changed layout in 13.0 and is not converted yet */
int rgpu12impl_cudaGetSurfaceObjectResourceDesc()
{
    return rgpu_unsupported(RGPU_RUNTIME, "cudaGetSurfaceObjectResourceDesc");
}

/* cudaGetTextureObjectResourceDesc (CUDA 12): not supported: cudaResourceDesc changed layout in 13.0 and is not converted yet */
int rgpu12impl_cudaGetTextureObjectResourceDesc()
{
    return rgpu_unsupported(RGPU_RUNTIME, "cudaGetTextureObjectResourceDesc");
}

/* cudaGetTextureObjectResourceViewDesc (CUDA 12): not supported: cudaResourceViewDesc changed layout in 13.0 and is not converted yet */
int rgpu12impl_cudaGetTextureObjectResourceViewDesc()
{
    return rgpu_unsupported(RGPU_RUNTIME, "cudaGetTextureObjectResourceViewDesc");
}

/* cudaGraphAddNode (CUDA 12): not supported: the 12.x form; the generic cudaGraphAddNode is not served in either series */
int rgpu12impl_cudaGraphAddNode()
{
    return rgpu_unsupported(RGPU_RUNTIME, "cudaGraphAddNode");
}

/* cudaLaunchCooperativeKernelMultiDevice (CUDA 12): not supported: removed in CUDA 13; multi-device cooperative launches are not served */
int rgpu12impl_cudaLaunchCooperativeKernelMultiDevice()
{
    return rgpu_unsupported(RGPU_RUNTIME, "cudaLaunchCooperativeKernelMultiDevice");
}

/* cudaMemAdvise (CUDA 12): not supported: the 12.x form (a device ordinal) is not translated to 13.0's cudaMemLocation */
int rgpu12impl_cudaMemAdvise()
{
    return rgpu_unsupported(RGPU_RUNTIME, "cudaMemAdvise");
}

/* cudaMemPrefetchAsync (CUDA 12): not supported: the 12.x form (a device ordinal) is not translated to 13.0's cudaMemLocation */
int rgpu12impl_cudaMemPrefetchAsync()
{
    return rgpu_unsupported(RGPU_RUNTIME, "cudaMemPrefetchAsync");
}

/* cudaMemcpy3DBatchAsync (CUDA 12): not supported: the 12.x form of batched copies is not translated to 13.0's */
int rgpu12impl_cudaMemcpy3DBatchAsync()
{
    return rgpu_unsupported(RGPU_RUNTIME, "cudaMemcpy3DBatchAsync");
}

/* cudaMemcpyBatchAsync (CUDA 12): not supported: the 12.x form of batched copies is not translated to 13.0's */
int rgpu12impl_cudaMemcpyBatchAsync()
{
    return rgpu_unsupported(RGPU_RUNTIME, "cudaMemcpyBatchAsync");
}

/* cudaSetDoubleForDevice (CUDA 12): not supported: removed in CUDA 13 */
int rgpu12impl_cudaSetDoubleForDevice()
{
    return rgpu_unsupported(RGPU_RUNTIME, "cudaSetDoubleForDevice");
}

/* cudaSetDoubleForHost (CUDA 12): not supported: removed in CUDA 13 */
int rgpu12impl_cudaSetDoubleForHost()
{
    return rgpu_unsupported(RGPU_RUNTIME, "cudaSetDoubleForHost");
}

/* cudaSignalExternalSemaphoresAsync (CUDA 12): not supported: the pre-12 form; external semaphores are not served */
int rgpu12impl_cudaSignalExternalSemaphoresAsync()
{
    return rgpu_unsupported(RGPU_RUNTIME, "cudaSignalExternalSemaphoresAsync");
}

/* cudaWaitExternalSemaphoresAsync (CUDA 12): not supported: the pre-12 form; external semaphores are not served */
int rgpu12impl_cudaWaitExternalSemaphoresAsync()
{
    return rgpu_unsupported(RGPU_RUNTIME, "cudaWaitExternalSemaphoresAsync");
}

static const struct { unsigned short off12, off13, n; } map_cudaDeviceProp[] = {
    {0, 0, 256},
    {256, 256, 16},
    {272, 272, 8},
    {280, 280, 4},
    {288, 288, 8},
    {296, 296, 8},
    {304, 304, 4},
    {308, 308, 4},
    {312, 312, 8},
    {320, 320, 4},
    {324, 324, 12},
    {336, 336, 12},
    {352, 352, 8},
    {360, 360, 4},
    {364, 364, 4},
    {368, 368, 8},
    {376, 376, 8},
    {388, 384, 4},
    {396, 388, 4},
    {400, 392, 4},
    {408, 396, 4},
    {412, 400, 4},
    {420, 404, 8},
    {428, 412, 8},
    {436, 420, 12},
    {448, 432, 8},
    {456, 440, 12},
    {468, 452, 12},
    {480, 464, 4},
    {484, 468, 8},
    {492, 476, 12},
    {504, 488, 8},
    {512, 496, 4},
    {516, 500, 8},
    {524, 508, 12},
    {536, 520, 8},
    {544, 528, 12},
    {556, 540, 4},
    {560, 544, 8},
    {568, 552, 8},
    {576, 560, 4},
    {580, 564, 4},
    {584, 568, 4},
    {588, 572, 4},
    {592, 576, 4},
    {596, 580, 4},
    {600, 584, 4},
    {604, 588, 4},
    {612, 592, 4},
    {616, 596, 4},
    {620, 600, 4},
    {624, 604, 4},
    {628, 608, 4},
    {632, 612, 4},
    {636, 616, 4},
    {640, 624, 8},
    {648, 632, 4},
    {652, 636, 4},
    {656, 640, 4},
    {660, 644, 4},
    {664, 648, 4},
    {672, 652, 4},
    {676, 656, 4},
    {680, 660, 4},
    {684, 664, 4},
    {688, 668, 4},
    {696, 672, 8},
    {704, 680, 4},
    {708, 684, 4},
    {712, 688, 4},
    {716, 692, 4},
    {720, 696, 8},
    {728, 704, 4},
    {732, 708, 4},
    {736, 712, 4},
    {740, 716, 4},
    {744, 720, 4},
    {748, 724, 4},
    {752, 728, 4},
    {756, 732, 4},
    {760, 736, 4},
    {764, 740, 4},
    {768, 744, 4},
    {772, 748, 4},
    {776, 752, 4},
    {780, 784, 224},
};
void rgpu12_from13_cudaDeviceProp(void *dst12, const void *src13)
{
    memset(dst12, 0, 1032);
    for (size_t i = 0; i < sizeof map_cudaDeviceProp / sizeof *map_cudaDeviceProp; i++)
        memcpy((char *)dst12 + map_cudaDeviceProp[i].off12, (const char *)src13 + map_cudaDeviceProp[i].off13, map_cudaDeviceProp[i].n);
}

static const struct { unsigned short off12; int attr; } fill_cudaDeviceProp[] = {
    {348, 13}, /* clockRate: cudaDevAttrClockRate */
    {384, 15}, /* deviceOverlap: cudaDevAttrGpuOverlap */
    {392, 17}, /* kernelExecTimeoutEnabled: cudaDevAttrKernelExecTimeout */
    {404, 20}, /* computeMode: cudaDevAttrComputeMode */
    {416, 69}, /* maxTexture1DLinear: cudaDevAttrMaxTexture1DLinearWidth */
    {608, 36}, /* memoryClockRate: cudaDevAttrMemoryClockRate */
    {668, 87}, /* singleToDoublePrecisionPerfRatio: cudaDevAttrSingleToDoublePrecisionPerfRatio */
    {692, 96}, /* cooperativeMultiDeviceLaunch: cudaDevAttrCooperativeMultiDeviceLaunch */
};
int rgpu12_fill_cudaDeviceProp(void *dst12, int device)
{
    for (size_t i = 0; i < sizeof fill_cudaDeviceProp / sizeof *fill_cudaDeviceProp; i++) {
        int v, rc = cudaDeviceGetAttribute(&v, fill_cudaDeviceProp[i].attr, device);
        if (rc != 0) return rc;
        memcpy((char *)dst12 + fill_cudaDeviceProp[i].off12, &v, sizeof v);
    }
    return 0;
}

static const struct { unsigned short off12, off13, n; } map_cudaPointerAttributes[] = {
    {0, 0, 4},
    {4, 4, 4},
    {8, 8, 8},
    {16, 16, 8},
};
void rgpu12_from13_cudaPointerAttributes(void *dst12, const void *src13)
{
    memset(dst12, 0, 24);
    for (size_t i = 0; i < sizeof map_cudaPointerAttributes / sizeof *map_cudaPointerAttributes; i++)
        memcpy((char *)dst12 + map_cudaPointerAttributes[i].off12, (const char *)src13 + map_cudaPointerAttributes[i].off13, map_cudaPointerAttributes[i].n);
}

extern int cuCtxCreate_v2();
extern int cuCtxCreate_v3();
extern int cuDeviceGetUuid();
extern int cuEventElapsedTime();
extern int cuGraphAddDependencies();
extern int cuGraphAddNode();
extern int cuGraphGetEdges();
extern int cuGraphNodeGetDependencies();
extern int cuGraphNodeGetDependentNodes();
extern int cuGraphRemoveDependencies();
extern int cuMemAdvise();
extern int cuMemPrefetchAsync();
extern int cuMemcpy3DBatchAsync();
extern int cuMemcpyBatchAsync();
extern int cuStreamGetCaptureInfo_v2();
extern int cuStreamUpdateCaptureDependencies();
extern int rgpu12impl_cuCheckpointProcessRestore();
extern int rgpu12impl_cuDevResourceGenerateDesc();
extern int rgpu12impl_cuDevSmResourceSplitByCount();
extern int rgpu12impl_cuDeviceGetDevResource();

const rgpu_proc rgpu_procs12[] = {
    {"cuCheckpointProcessRestore", (void *)rgpu12impl_cuCheckpointProcessRestore},
    {"cuCtxCreate", (void *)cuCtxCreate_v2},
    {"cuCtxCreate_v2", (void *)cuCtxCreate_v2},
    {"cuCtxCreate_v3", (void *)cuCtxCreate_v3},
    {"cuCtxCreate_v4", (void *)cuCtxCreate_v4},
    {"cuDevResourceGenerateDesc", (void *)rgpu12impl_cuDevResourceGenerateDesc},
    {"cuDevSmResourceSplitByCount", (void *)rgpu12impl_cuDevSmResourceSplitByCount},
    {"cuDeviceGetDevResource", (void *)rgpu12impl_cuDeviceGetDevResource},
    {"cuDeviceGetUuid", (void *)cuDeviceGetUuid},
    {"cuDeviceGetUuid_v2", (void *)cuDeviceGetUuid_v2},
    {"cuEventElapsedTime", (void *)cuEventElapsedTime},
    {"cuGraphAddDependencies", (void *)cuGraphAddDependencies},
    {"cuGraphAddNode", (void *)cuGraphAddNode},
    {"cuGraphGetEdges", (void *)cuGraphGetEdges},
    {"cuGraphNodeGetDependencies", (void *)cuGraphNodeGetDependencies},
    {"cuGraphNodeGetDependentNodes", (void *)cuGraphNodeGetDependentNodes},
    {"cuGraphRemoveDependencies", (void *)cuGraphRemoveDependencies},
    {"cuMemAdvise", (void *)cuMemAdvise},
    {"cuMemPrefetchAsync", (void *)cuMemPrefetchAsync},
    {"cuMemcpy3DBatchAsync", (void *)cuMemcpy3DBatchAsync},
    {"cuMemcpyBatchAsync", (void *)cuMemcpyBatchAsync},
    {"cuStreamGetCaptureInfo_v2", (void *)cuStreamGetCaptureInfo_v2},
    {"cuStreamUpdateCaptureDependencies", (void *)cuStreamUpdateCaptureDependencies},
};
const size_t rgpu_nprocs12 = 23;
