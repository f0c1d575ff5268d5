/* generated from CUDA 13.0 and protocol/contract by protocol/codegen — do not edit */
/* cuGetProcAddress's versions and the driver's legacy and per-thread names
 * (protocol/codegen/proc_versions.py). */
#include "rgpu_call.h"

/* the CUDA 2.0 form of cuArray3DCreate */
int cuArray3DCreate(void) { return rgpu_unsupported(RGPU_DRIVER, "cuArray3DCreate"); }
/* the CUDA 2.0 form of cuArray3DGetDescriptor */
int cuArray3DGetDescriptor(void) { return rgpu_unsupported(RGPU_DRIVER, "cuArray3DGetDescriptor"); }
/* the CUDA 2.0 form of cuArrayCreate */
int cuArrayCreate(void) { return rgpu_unsupported(RGPU_DRIVER, "cuArrayCreate"); }
/* the CUDA 2.0 form of cuArrayGetDescriptor */
int cuArrayGetDescriptor(void) { return rgpu_unsupported(RGPU_DRIVER, "cuArrayGetDescriptor"); }
/* the CUDA 2.0 form of cuCtxCreate */
int cuCtxCreate(void) { return rgpu_unsupported(RGPU_DRIVER, "cuCtxCreate"); }
__asm__(".text\n.globl cuCtxDestroy\n.type cuCtxDestroy, @function\ncuCtxDestroy:\n    jmp cuCtxDestroy_v2@PLT\n");
__asm__(".text\n.globl cuCtxPopCurrent\n.type cuCtxPopCurrent, @function\ncuCtxPopCurrent:\n    jmp cuCtxPopCurrent_v2@PLT\n");
__asm__(".text\n.globl cuCtxPushCurrent\n.type cuCtxPushCurrent, @function\ncuCtxPushCurrent:\n    jmp cuCtxPushCurrent_v2@PLT\n");
__asm__(".text\n.globl cuDevicePrimaryCtxRelease\n.type cuDevicePrimaryCtxRelease, @function\ncuDevicePrimaryCtxRelease:\n    jmp cuDevicePrimaryCtxRelease_v2@PLT\n");
__asm__(".text\n.globl cuDevicePrimaryCtxReset\n.type cuDevicePrimaryCtxReset, @function\ncuDevicePrimaryCtxReset:\n    jmp cuDevicePrimaryCtxReset_v2@PLT\n");
__asm__(".text\n.globl cuDevicePrimaryCtxSetFlags\n.type cuDevicePrimaryCtxSetFlags, @function\ncuDevicePrimaryCtxSetFlags:\n    jmp cuDevicePrimaryCtxSetFlags_v2@PLT\n");
/* the CUDA 2.0 form of cuDeviceTotalMem */
int cuDeviceTotalMem(void) { return rgpu_unsupported(RGPU_DRIVER, "cuDeviceTotalMem"); }
__asm__(".text\n.globl cuEventDestroy\n.type cuEventDestroy, @function\ncuEventDestroy:\n    jmp cuEventDestroy_v2@PLT\n");
__asm__(".text\n.globl cuEventRecordWithFlags_ptsz\n.type cuEventRecordWithFlags_ptsz, @function\ncuEventRecordWithFlags_ptsz:\n    jmp cuEventRecordWithFlags@PLT\n");
__asm__(".text\n.globl cuEventRecord_ptsz\n.type cuEventRecord_ptsz, @function\ncuEventRecord_ptsz:\n    jmp cuEventRecord@PLT\n");
__asm__(".text\n.globl cuGetProcAddress\n.type cuGetProcAddress, @function\ncuGetProcAddress:\n    jmp rgpu_cuGetProcAddress_v1@PLT\n");
/* the CUDA 10.0 form of cuGraphAddKernelNode */
int cuGraphAddKernelNode(void) { return rgpu_unsupported(RGPU_DRIVER, "cuGraphAddKernelNode"); }
/* the CUDA 10.1 form of cuGraphExecKernelNodeSetParams */
int cuGraphExecKernelNodeSetParams(void) { return rgpu_unsupported(RGPU_DRIVER, "cuGraphExecKernelNodeSetParams"); }
/* the CUDA 10.2 form of cuGraphExecUpdate */
int cuGraphExecUpdate(void) { return rgpu_unsupported(RGPU_DRIVER, "cuGraphExecUpdate"); }
__asm__(".text\n.globl cuGraphInstantiate\n.type cuGraphInstantiate, @function\ncuGraphInstantiate:\n    jmp rgpu_cuGraphInstantiate_v1@PLT\n");
__asm__(".text\n.globl cuGraphInstantiateWithParams_ptsz\n.type cuGraphInstantiateWithParams_ptsz, @function\ncuGraphInstantiateWithParams_ptsz:\n    jmp cuGraphInstantiateWithParams@PLT\n");
__asm__(".text\n.globl cuGraphInstantiate_v2\n.type cuGraphInstantiate_v2, @function\ncuGraphInstantiate_v2:\n    jmp rgpu_cuGraphInstantiate_v1@PLT\n");
/* the CUDA 10.0 form of cuGraphKernelNodeGetParams */
int cuGraphKernelNodeGetParams(void) { return rgpu_unsupported(RGPU_DRIVER, "cuGraphKernelNodeGetParams"); }
/* the CUDA 10.0 form of cuGraphKernelNodeSetParams */
int cuGraphKernelNodeSetParams(void) { return rgpu_unsupported(RGPU_DRIVER, "cuGraphKernelNodeSetParams"); }
__asm__(".text\n.globl cuGraphLaunch_ptsz\n.type cuGraphLaunch_ptsz, @function\ncuGraphLaunch_ptsz:\n    jmp cuGraphLaunch@PLT\n");
__asm__(".text\n.globl cuGraphUpload_ptsz\n.type cuGraphUpload_ptsz, @function\ncuGraphUpload_ptsz:\n    jmp cuGraphUpload@PLT\n");
__asm__(".text\n.globl cuGraphicsMapResources_ptsz\n.type cuGraphicsMapResources_ptsz, @function\ncuGraphicsMapResources_ptsz:\n    jmp cuGraphicsMapResources@PLT\n");
/* the CUDA 3.0 form of cuGraphicsResourceGetMappedPointer */
int cuGraphicsResourceGetMappedPointer(void) { return rgpu_unsupported(RGPU_DRIVER, "cuGraphicsResourceGetMappedPointer"); }
__asm__(".text\n.globl cuGraphicsResourceSetMapFlags\n.type cuGraphicsResourceSetMapFlags, @function\ncuGraphicsResourceSetMapFlags:\n    jmp cuGraphicsResourceSetMapFlags_v2@PLT\n");
__asm__(".text\n.globl cuGraphicsUnmapResources_ptsz\n.type cuGraphicsUnmapResources_ptsz, @function\ncuGraphicsUnmapResources_ptsz:\n    jmp cuGraphicsUnmapResources@PLT\n");
__asm__(".text\n.globl cuIpcOpenMemHandle\n.type cuIpcOpenMemHandle, @function\ncuIpcOpenMemHandle:\n    jmp cuIpcOpenMemHandle_v2@PLT\n");
__asm__(".text\n.globl cuLaunchCooperativeKernel_ptsz\n.type cuLaunchCooperativeKernel_ptsz, @function\ncuLaunchCooperativeKernel_ptsz:\n    jmp cuLaunchCooperativeKernel@PLT\n");
__asm__(".text\n.globl cuLaunchHostFunc_ptsz\n.type cuLaunchHostFunc_ptsz, @function\ncuLaunchHostFunc_ptsz:\n    jmp cuLaunchHostFunc@PLT\n");
__asm__(".text\n.globl cuLaunchKernelEx_ptsz\n.type cuLaunchKernelEx_ptsz, @function\ncuLaunchKernelEx_ptsz:\n    jmp cuLaunchKernelEx@PLT\n");
__asm__(".text\n.globl cuLaunchKernel_ptsz\n.type cuLaunchKernel_ptsz, @function\ncuLaunchKernel_ptsz:\n    jmp cuLaunchKernel@PLT\n");
__asm__(".text\n.globl cuLinkAddData\n.type cuLinkAddData, @function\ncuLinkAddData:\n    jmp cuLinkAddData_v2@PLT\n");
__asm__(".text\n.globl cuLinkAddFile\n.type cuLinkAddFile, @function\ncuLinkAddFile:\n    jmp cuLinkAddFile_v2@PLT\n");
__asm__(".text\n.globl cuLinkCreate\n.type cuLinkCreate, @function\ncuLinkCreate:\n    jmp cuLinkCreate_v2@PLT\n");
/* the CUDA 2.0 form of cuMemAlloc */
int cuMemAlloc(void) { return rgpu_unsupported(RGPU_DRIVER, "cuMemAlloc"); }
__asm__(".text\n.globl cuMemAllocAsync_ptsz\n.type cuMemAllocAsync_ptsz, @function\ncuMemAllocAsync_ptsz:\n    jmp cuMemAllocAsync@PLT\n");
__asm__(".text\n.globl cuMemAllocFromPoolAsync_ptsz\n.type cuMemAllocFromPoolAsync_ptsz, @function\ncuMemAllocFromPoolAsync_ptsz:\n    jmp cuMemAllocFromPoolAsync@PLT\n");
/* the CUDA 2.0 form of cuMemAllocHost */
int cuMemAllocHost(void) { return rgpu_unsupported(RGPU_DRIVER, "cuMemAllocHost"); }
/* the CUDA 2.0 form of cuMemAllocPitch */
int cuMemAllocPitch(void) { return rgpu_unsupported(RGPU_DRIVER, "cuMemAllocPitch"); }
__asm__(".text\n.globl cuMemBatchDecompressAsync_ptsz\n.type cuMemBatchDecompressAsync_ptsz, @function\ncuMemBatchDecompressAsync_ptsz:\n    jmp cuMemBatchDecompressAsync@PLT\n");
__asm__(".text\n.globl cuMemDiscardAndPrefetchBatchAsync_ptsz\n.type cuMemDiscardAndPrefetchBatchAsync_ptsz, @function\ncuMemDiscardAndPrefetchBatchAsync_ptsz:\n    jmp cuMemDiscardAndPrefetchBatchAsync@PLT\n");
__asm__(".text\n.globl cuMemDiscardBatchAsync_ptsz\n.type cuMemDiscardBatchAsync_ptsz, @function\ncuMemDiscardBatchAsync_ptsz:\n    jmp cuMemDiscardBatchAsync@PLT\n");
/* the CUDA 2.0 form of cuMemFree */
int cuMemFree(void) { return rgpu_unsupported(RGPU_DRIVER, "cuMemFree"); }
__asm__(".text\n.globl cuMemFreeAsync_ptsz\n.type cuMemFreeAsync_ptsz, @function\ncuMemFreeAsync_ptsz:\n    jmp cuMemFreeAsync@PLT\n");
/* the CUDA 2.0 form of cuMemGetAddressRange */
int cuMemGetAddressRange(void) { return rgpu_unsupported(RGPU_DRIVER, "cuMemGetAddressRange"); }
/* the CUDA 2.0 form of cuMemGetInfo */
int cuMemGetInfo(void) { return rgpu_unsupported(RGPU_DRIVER, "cuMemGetInfo"); }
/* the CUDA 2.2 form of cuMemHostGetDevicePointer */
int cuMemHostGetDevicePointer(void) { return rgpu_unsupported(RGPU_DRIVER, "cuMemHostGetDevicePointer"); }
__asm__(".text\n.globl cuMemHostRegister\n.type cuMemHostRegister, @function\ncuMemHostRegister:\n    jmp cuMemHostRegister_v2@PLT\n");
__asm__(".text\n.globl cuMemMapArrayAsync_ptsz\n.type cuMemMapArrayAsync_ptsz, @function\ncuMemMapArrayAsync_ptsz:\n    jmp cuMemMapArrayAsync@PLT\n");
/* the CUDA 8.0 form of cuMemPrefetchAsync */
int cuMemPrefetchAsync_ptsz(void) { return rgpu_unsupported(RGPU_DRIVER, "cuMemPrefetchAsync_ptsz"); }
__asm__(".text\n.globl cuMemPrefetchAsync_v2_ptsz\n.type cuMemPrefetchAsync_v2_ptsz, @function\ncuMemPrefetchAsync_v2_ptsz:\n    jmp cuMemPrefetchAsync_v2@PLT\n");
__asm__(".text\n.globl cuMemPrefetchBatchAsync_ptsz\n.type cuMemPrefetchBatchAsync_ptsz, @function\ncuMemPrefetchBatchAsync_ptsz:\n    jmp cuMemPrefetchBatchAsync@PLT\n");
/* the CUDA 2.0 form of cuMemcpy2D */
int cuMemcpy2D(void) { return rgpu_unsupported(RGPU_DRIVER, "cuMemcpy2D"); }
/* the CUDA 2.0 form of cuMemcpy2DAsync */
int cuMemcpy2DAsync(void) { return rgpu_unsupported(RGPU_DRIVER, "cuMemcpy2DAsync"); }
__asm__(".text\n.globl cuMemcpy2DAsync_v2_ptsz\n.type cuMemcpy2DAsync_v2_ptsz, @function\ncuMemcpy2DAsync_v2_ptsz:\n    jmp cuMemcpy2DAsync_v2@PLT\n");
/* the CUDA 2.0 form of cuMemcpy2DUnaligned */
int cuMemcpy2DUnaligned(void) { return rgpu_unsupported(RGPU_DRIVER, "cuMemcpy2DUnaligned"); }
__asm__(".text\n.globl cuMemcpy2DUnaligned_v2_ptds\n.type cuMemcpy2DUnaligned_v2_ptds, @function\ncuMemcpy2DUnaligned_v2_ptds:\n    jmp cuMemcpy2DUnaligned_v2@PLT\n");
__asm__(".text\n.globl cuMemcpy2D_v2_ptds\n.type cuMemcpy2D_v2_ptds, @function\ncuMemcpy2D_v2_ptds:\n    jmp cuMemcpy2D_v2@PLT\n");
/* the CUDA 2.0 form of cuMemcpy3D */
int cuMemcpy3D(void) { return rgpu_unsupported(RGPU_DRIVER, "cuMemcpy3D"); }
/* the CUDA 2.0 form of cuMemcpy3DAsync */
int cuMemcpy3DAsync(void) { return rgpu_unsupported(RGPU_DRIVER, "cuMemcpy3DAsync"); }
__asm__(".text\n.globl cuMemcpy3DAsync_v2_ptsz\n.type cuMemcpy3DAsync_v2_ptsz, @function\ncuMemcpy3DAsync_v2_ptsz:\n    jmp cuMemcpy3DAsync_v2@PLT\n");
/* the CUDA 12.8 form of cuMemcpy3DBatchAsync */
int cuMemcpy3DBatchAsync_ptsz(void) { return rgpu_unsupported(RGPU_DRIVER, "cuMemcpy3DBatchAsync_ptsz"); }
__asm__(".text\n.globl cuMemcpy3DBatchAsync_v2_ptsz\n.type cuMemcpy3DBatchAsync_v2_ptsz, @function\ncuMemcpy3DBatchAsync_v2_ptsz:\n    jmp cuMemcpy3DBatchAsync_v2@PLT\n");
__asm__(".text\n.globl cuMemcpy3DPeerAsync_ptsz\n.type cuMemcpy3DPeerAsync_ptsz, @function\ncuMemcpy3DPeerAsync_ptsz:\n    jmp cuMemcpy3DPeerAsync@PLT\n");
__asm__(".text\n.globl cuMemcpy3DPeer_ptds\n.type cuMemcpy3DPeer_ptds, @function\ncuMemcpy3DPeer_ptds:\n    jmp cuMemcpy3DPeer@PLT\n");
__asm__(".text\n.globl cuMemcpy3D_v2_ptds\n.type cuMemcpy3D_v2_ptds, @function\ncuMemcpy3D_v2_ptds:\n    jmp cuMemcpy3D_v2@PLT\n");
__asm__(".text\n.globl cuMemcpyAsync_ptsz\n.type cuMemcpyAsync_ptsz, @function\ncuMemcpyAsync_ptsz:\n    jmp cuMemcpyAsync@PLT\n");
/* the CUDA 2.0 form of cuMemcpyAtoA */
int cuMemcpyAtoA(void) { return rgpu_unsupported(RGPU_DRIVER, "cuMemcpyAtoA"); }
__asm__(".text\n.globl cuMemcpyAtoA_v2_ptds\n.type cuMemcpyAtoA_v2_ptds, @function\ncuMemcpyAtoA_v2_ptds:\n    jmp cuMemcpyAtoA_v2@PLT\n");
/* the CUDA 2.0 form of cuMemcpyAtoD */
int cuMemcpyAtoD(void) { return rgpu_unsupported(RGPU_DRIVER, "cuMemcpyAtoD"); }
__asm__(".text\n.globl cuMemcpyAtoD_v2_ptds\n.type cuMemcpyAtoD_v2_ptds, @function\ncuMemcpyAtoD_v2_ptds:\n    jmp cuMemcpyAtoD_v2@PLT\n");
/* the CUDA 2.0 form of cuMemcpyAtoH */
int cuMemcpyAtoH(void) { return rgpu_unsupported(RGPU_DRIVER, "cuMemcpyAtoH"); }
/* the CUDA 2.0 form of cuMemcpyAtoHAsync */
int cuMemcpyAtoHAsync(void) { return rgpu_unsupported(RGPU_DRIVER, "cuMemcpyAtoHAsync"); }
__asm__(".text\n.globl cuMemcpyAtoHAsync_v2_ptsz\n.type cuMemcpyAtoHAsync_v2_ptsz, @function\ncuMemcpyAtoHAsync_v2_ptsz:\n    jmp cuMemcpyAtoHAsync_v2@PLT\n");
__asm__(".text\n.globl cuMemcpyAtoH_v2_ptds\n.type cuMemcpyAtoH_v2_ptds, @function\ncuMemcpyAtoH_v2_ptds:\n    jmp cuMemcpyAtoH_v2@PLT\n");
/* the CUDA 12.8 form of cuMemcpyBatchAsync */
int cuMemcpyBatchAsync_ptsz(void) { return rgpu_unsupported(RGPU_DRIVER, "cuMemcpyBatchAsync_ptsz"); }
__asm__(".text\n.globl cuMemcpyBatchAsync_v2_ptsz\n.type cuMemcpyBatchAsync_v2_ptsz, @function\ncuMemcpyBatchAsync_v2_ptsz:\n    jmp cuMemcpyBatchAsync_v2@PLT\n");
/* the CUDA 2.0 form of cuMemcpyDtoA */
int cuMemcpyDtoA(void) { return rgpu_unsupported(RGPU_DRIVER, "cuMemcpyDtoA"); }
__asm__(".text\n.globl cuMemcpyDtoA_v2_ptds\n.type cuMemcpyDtoA_v2_ptds, @function\ncuMemcpyDtoA_v2_ptds:\n    jmp cuMemcpyDtoA_v2@PLT\n");
/* the CUDA 2.0 form of cuMemcpyDtoD */
int cuMemcpyDtoD(void) { return rgpu_unsupported(RGPU_DRIVER, "cuMemcpyDtoD"); }
/* the CUDA 3.0 form of cuMemcpyDtoDAsync */
int cuMemcpyDtoDAsync(void) { return rgpu_unsupported(RGPU_DRIVER, "cuMemcpyDtoDAsync"); }
__asm__(".text\n.globl cuMemcpyDtoDAsync_v2_ptsz\n.type cuMemcpyDtoDAsync_v2_ptsz, @function\ncuMemcpyDtoDAsync_v2_ptsz:\n    jmp cuMemcpyDtoDAsync_v2@PLT\n");
__asm__(".text\n.globl cuMemcpyDtoD_v2_ptds\n.type cuMemcpyDtoD_v2_ptds, @function\ncuMemcpyDtoD_v2_ptds:\n    jmp cuMemcpyDtoD_v2@PLT\n");
/* the CUDA 2.0 form of cuMemcpyDtoH */
int cuMemcpyDtoH(void) { return rgpu_unsupported(RGPU_DRIVER, "cuMemcpyDtoH"); }
/* the CUDA 2.0 form of cuMemcpyDtoHAsync */
int cuMemcpyDtoHAsync(void) { return rgpu_unsupported(RGPU_DRIVER, "cuMemcpyDtoHAsync"); }
__asm__(".text\n.globl cuMemcpyDtoHAsync_v2_ptsz\n.type cuMemcpyDtoHAsync_v2_ptsz, @function\ncuMemcpyDtoHAsync_v2_ptsz:\n    jmp cuMemcpyDtoHAsync_v2@PLT\n");
__asm__(".text\n.globl cuMemcpyDtoH_v2_ptds\n.type cuMemcpyDtoH_v2_ptds, @function\ncuMemcpyDtoH_v2_ptds:\n    jmp cuMemcpyDtoH_v2@PLT\n");
/* the CUDA 2.0 form of cuMemcpyHtoA */
int cuMemcpyHtoA(void) { return rgpu_unsupported(RGPU_DRIVER, "cuMemcpyHtoA"); }
/* the CUDA 2.0 form of cuMemcpyHtoAAsync */
int cuMemcpyHtoAAsync(void) { return rgpu_unsupported(RGPU_DRIVER, "cuMemcpyHtoAAsync"); }
__asm__(".text\n.globl cuMemcpyHtoAAsync_v2_ptsz\n.type cuMemcpyHtoAAsync_v2_ptsz, @function\ncuMemcpyHtoAAsync_v2_ptsz:\n    jmp cuMemcpyHtoAAsync_v2@PLT\n");
__asm__(".text\n.globl cuMemcpyHtoA_v2_ptds\n.type cuMemcpyHtoA_v2_ptds, @function\ncuMemcpyHtoA_v2_ptds:\n    jmp cuMemcpyHtoA_v2@PLT\n");
/* the CUDA 2.0 form of cuMemcpyHtoD */
int cuMemcpyHtoD(void) { return rgpu_unsupported(RGPU_DRIVER, "cuMemcpyHtoD"); }
/* the CUDA 2.0 form of cuMemcpyHtoDAsync */
int cuMemcpyHtoDAsync(void) { return rgpu_unsupported(RGPU_DRIVER, "cuMemcpyHtoDAsync"); }
__asm__(".text\n.globl cuMemcpyHtoDAsync_v2_ptsz\n.type cuMemcpyHtoDAsync_v2_ptsz, @function\ncuMemcpyHtoDAsync_v2_ptsz:\n    jmp cuMemcpyHtoDAsync_v2@PLT\n");
__asm__(".text\n.globl cuMemcpyHtoD_v2_ptds\n.type cuMemcpyHtoD_v2_ptds, @function\ncuMemcpyHtoD_v2_ptds:\n    jmp cuMemcpyHtoD_v2@PLT\n");
__asm__(".text\n.globl cuMemcpyPeerAsync_ptsz\n.type cuMemcpyPeerAsync_ptsz, @function\ncuMemcpyPeerAsync_ptsz:\n    jmp cuMemcpyPeerAsync@PLT\n");
__asm__(".text\n.globl cuMemcpyPeer_ptds\n.type cuMemcpyPeer_ptds, @function\ncuMemcpyPeer_ptds:\n    jmp cuMemcpyPeer@PLT\n");
__asm__(".text\n.globl cuMemcpy_ptds\n.type cuMemcpy_ptds, @function\ncuMemcpy_ptds:\n    jmp cuMemcpy@PLT\n");
/* the CUDA 2.0 form of cuMemsetD16 */
int cuMemsetD16(void) { return rgpu_unsupported(RGPU_DRIVER, "cuMemsetD16"); }
__asm__(".text\n.globl cuMemsetD16Async_ptsz\n.type cuMemsetD16Async_ptsz, @function\ncuMemsetD16Async_ptsz:\n    jmp cuMemsetD16Async@PLT\n");
__asm__(".text\n.globl cuMemsetD16_v2_ptds\n.type cuMemsetD16_v2_ptds, @function\ncuMemsetD16_v2_ptds:\n    jmp cuMemsetD16_v2@PLT\n");
/* the CUDA 2.0 form of cuMemsetD2D16 */
int cuMemsetD2D16(void) { return rgpu_unsupported(RGPU_DRIVER, "cuMemsetD2D16"); }
__asm__(".text\n.globl cuMemsetD2D16Async_ptsz\n.type cuMemsetD2D16Async_ptsz, @function\ncuMemsetD2D16Async_ptsz:\n    jmp cuMemsetD2D16Async@PLT\n");
__asm__(".text\n.globl cuMemsetD2D16_v2_ptds\n.type cuMemsetD2D16_v2_ptds, @function\ncuMemsetD2D16_v2_ptds:\n    jmp cuMemsetD2D16_v2@PLT\n");
/* the CUDA 2.0 form of cuMemsetD2D32 */
int cuMemsetD2D32(void) { return rgpu_unsupported(RGPU_DRIVER, "cuMemsetD2D32"); }
__asm__(".text\n.globl cuMemsetD2D32Async_ptsz\n.type cuMemsetD2D32Async_ptsz, @function\ncuMemsetD2D32Async_ptsz:\n    jmp cuMemsetD2D32Async@PLT\n");
__asm__(".text\n.globl cuMemsetD2D32_v2_ptds\n.type cuMemsetD2D32_v2_ptds, @function\ncuMemsetD2D32_v2_ptds:\n    jmp cuMemsetD2D32_v2@PLT\n");
/* the CUDA 2.0 form of cuMemsetD2D8 */
int cuMemsetD2D8(void) { return rgpu_unsupported(RGPU_DRIVER, "cuMemsetD2D8"); }
__asm__(".text\n.globl cuMemsetD2D8Async_ptsz\n.type cuMemsetD2D8Async_ptsz, @function\ncuMemsetD2D8Async_ptsz:\n    jmp cuMemsetD2D8Async@PLT\n");
__asm__(".text\n.globl cuMemsetD2D8_v2_ptds\n.type cuMemsetD2D8_v2_ptds, @function\ncuMemsetD2D8_v2_ptds:\n    jmp cuMemsetD2D8_v2@PLT\n");
/* the CUDA 2.0 form of cuMemsetD32 */
int cuMemsetD32(void) { return rgpu_unsupported(RGPU_DRIVER, "cuMemsetD32"); }
__asm__(".text\n.globl cuMemsetD32Async_ptsz\n.type cuMemsetD32Async_ptsz, @function\ncuMemsetD32Async_ptsz:\n    jmp cuMemsetD32Async@PLT\n");
__asm__(".text\n.globl cuMemsetD32_v2_ptds\n.type cuMemsetD32_v2_ptds, @function\ncuMemsetD32_v2_ptds:\n    jmp cuMemsetD32_v2@PLT\n");
/* the CUDA 2.0 form of cuMemsetD8 */
int cuMemsetD8(void) { return rgpu_unsupported(RGPU_DRIVER, "cuMemsetD8"); }
__asm__(".text\n.globl cuMemsetD8Async_ptsz\n.type cuMemsetD8Async_ptsz, @function\ncuMemsetD8Async_ptsz:\n    jmp cuMemsetD8Async@PLT\n");
__asm__(".text\n.globl cuMemsetD8_v2_ptds\n.type cuMemsetD8_v2_ptds, @function\ncuMemsetD8_v2_ptds:\n    jmp cuMemsetD8_v2@PLT\n");
/* the CUDA 2.0 form of cuModuleGetGlobal */
int cuModuleGetGlobal(void) { return rgpu_unsupported(RGPU_DRIVER, "cuModuleGetGlobal"); }
__asm__(".text\n.globl cuSignalExternalSemaphoresAsync_ptsz\n.type cuSignalExternalSemaphoresAsync_ptsz, @function\ncuSignalExternalSemaphoresAsync_ptsz:\n    jmp cuSignalExternalSemaphoresAsync@PLT\n");
__asm__(".text\n.globl cuStreamAddCallback_ptsz\n.type cuStreamAddCallback_ptsz, @function\ncuStreamAddCallback_ptsz:\n    jmp cuStreamAddCallback@PLT\n");
__asm__(".text\n.globl cuStreamAttachMemAsync_ptsz\n.type cuStreamAttachMemAsync_ptsz, @function\ncuStreamAttachMemAsync_ptsz:\n    jmp cuStreamAttachMemAsync@PLT\n");
/* the CUDA 8.0 form of cuStreamBatchMemOp */
int cuStreamBatchMemOp(void) { return rgpu_unsupported(RGPU_DRIVER, "cuStreamBatchMemOp"); }
/* the CUDA 8.0 form of cuStreamBatchMemOp */
int cuStreamBatchMemOp_ptsz(void) { return rgpu_unsupported(RGPU_DRIVER, "cuStreamBatchMemOp_ptsz"); }
__asm__(".text\n.globl cuStreamBatchMemOp_v2_ptsz\n.type cuStreamBatchMemOp_v2_ptsz, @function\ncuStreamBatchMemOp_v2_ptsz:\n    jmp cuStreamBatchMemOp_v2@PLT\n");
/* the CUDA 10.0 form of cuStreamBeginCapture */
int cuStreamBeginCapture(void) { return rgpu_unsupported(RGPU_DRIVER, "cuStreamBeginCapture"); }
__asm__(".text\n.globl cuStreamBeginCaptureToGraph_ptsz\n.type cuStreamBeginCaptureToGraph_ptsz, @function\ncuStreamBeginCaptureToGraph_ptsz:\n    jmp cuStreamBeginCaptureToGraph@PLT\n");
/* the CUDA 10.0 form of cuStreamBeginCapture */
int cuStreamBeginCapture_ptsz(void) { return rgpu_unsupported(RGPU_DRIVER, "cuStreamBeginCapture_ptsz"); }
__asm__(".text\n.globl cuStreamBeginCapture_v2_ptsz\n.type cuStreamBeginCapture_v2_ptsz, @function\ncuStreamBeginCapture_v2_ptsz:\n    jmp cuStreamBeginCapture_v2@PLT\n");
__asm__(".text\n.globl cuStreamCopyAttributes_ptsz\n.type cuStreamCopyAttributes_ptsz, @function\ncuStreamCopyAttributes_ptsz:\n    jmp cuStreamCopyAttributes@PLT\n");
__asm__(".text\n.globl cuStreamDestroy\n.type cuStreamDestroy, @function\ncuStreamDestroy:\n    jmp cuStreamDestroy_v2@PLT\n");
__asm__(".text\n.globl cuStreamEndCapture_ptsz\n.type cuStreamEndCapture_ptsz, @function\ncuStreamEndCapture_ptsz:\n    jmp cuStreamEndCapture@PLT\n");
__asm__(".text\n.globl cuStreamGetAttribute_ptsz\n.type cuStreamGetAttribute_ptsz, @function\ncuStreamGetAttribute_ptsz:\n    jmp cuStreamGetAttribute@PLT\n");
__asm__(".text\n.globl cuStreamGetCaptureInfo\n.type cuStreamGetCaptureInfo, @function\ncuStreamGetCaptureInfo:\n    jmp rgpu_cuStreamGetCaptureInfo_v1@PLT\n");
__asm__(".text\n.globl cuStreamGetCaptureInfo_ptsz\n.type cuStreamGetCaptureInfo_ptsz, @function\ncuStreamGetCaptureInfo_ptsz:\n    jmp rgpu_cuStreamGetCaptureInfo_v1@PLT\n");
__asm__(".text\n.globl cuStreamGetCaptureInfo_v2_ptsz\n.type cuStreamGetCaptureInfo_v2_ptsz, @function\ncuStreamGetCaptureInfo_v2_ptsz:\n    jmp cuStreamGetCaptureInfo_v2@PLT\n");
__asm__(".text\n.globl cuStreamGetCaptureInfo_v3_ptsz\n.type cuStreamGetCaptureInfo_v3_ptsz, @function\ncuStreamGetCaptureInfo_v3_ptsz:\n    jmp cuStreamGetCaptureInfo_v3@PLT\n");
__asm__(".text\n.globl cuStreamGetCtx_ptsz\n.type cuStreamGetCtx_ptsz, @function\ncuStreamGetCtx_ptsz:\n    jmp cuStreamGetCtx@PLT\n");
__asm__(".text\n.globl cuStreamGetCtx_v2_ptsz\n.type cuStreamGetCtx_v2_ptsz, @function\ncuStreamGetCtx_v2_ptsz:\n    jmp cuStreamGetCtx_v2@PLT\n");
__asm__(".text\n.globl cuStreamGetDevice_ptsz\n.type cuStreamGetDevice_ptsz, @function\ncuStreamGetDevice_ptsz:\n    jmp cuStreamGetDevice@PLT\n");
__asm__(".text\n.globl cuStreamGetFlags_ptsz\n.type cuStreamGetFlags_ptsz, @function\ncuStreamGetFlags_ptsz:\n    jmp cuStreamGetFlags@PLT\n");
__asm__(".text\n.globl cuStreamGetId_ptsz\n.type cuStreamGetId_ptsz, @function\ncuStreamGetId_ptsz:\n    jmp cuStreamGetId@PLT\n");
__asm__(".text\n.globl cuStreamGetPriority_ptsz\n.type cuStreamGetPriority_ptsz, @function\ncuStreamGetPriority_ptsz:\n    jmp cuStreamGetPriority@PLT\n");
__asm__(".text\n.globl cuStreamIsCapturing_ptsz\n.type cuStreamIsCapturing_ptsz, @function\ncuStreamIsCapturing_ptsz:\n    jmp cuStreamIsCapturing@PLT\n");
__asm__(".text\n.globl cuStreamQuery_ptsz\n.type cuStreamQuery_ptsz, @function\ncuStreamQuery_ptsz:\n    jmp cuStreamQuery@PLT\n");
__asm__(".text\n.globl cuStreamSetAttribute_ptsz\n.type cuStreamSetAttribute_ptsz, @function\ncuStreamSetAttribute_ptsz:\n    jmp cuStreamSetAttribute@PLT\n");
__asm__(".text\n.globl cuStreamSynchronize_ptsz\n.type cuStreamSynchronize_ptsz, @function\ncuStreamSynchronize_ptsz:\n    jmp cuStreamSynchronize@PLT\n");
/* the CUDA 11.3 form of cuStreamUpdateCaptureDependencies */
int cuStreamUpdateCaptureDependencies_ptsz(void) { return rgpu_unsupported(RGPU_DRIVER, "cuStreamUpdateCaptureDependencies_ptsz"); }
__asm__(".text\n.globl cuStreamUpdateCaptureDependencies_v2_ptsz\n.type cuStreamUpdateCaptureDependencies_v2_ptsz, @function\ncuStreamUpdateCaptureDependencies_v2_ptsz:\n    jmp cuStreamUpdateCaptureDependencies_v2@PLT\n");
__asm__(".text\n.globl cuStreamWaitEvent_ptsz\n.type cuStreamWaitEvent_ptsz, @function\ncuStreamWaitEvent_ptsz:\n    jmp cuStreamWaitEvent@PLT\n");
/* the CUDA 8.0 form of cuStreamWaitValue32 */
int cuStreamWaitValue32(void) { return rgpu_unsupported(RGPU_DRIVER, "cuStreamWaitValue32"); }
/* the CUDA 8.0 form of cuStreamWaitValue32 */
int cuStreamWaitValue32_ptsz(void) { return rgpu_unsupported(RGPU_DRIVER, "cuStreamWaitValue32_ptsz"); }
__asm__(".text\n.globl cuStreamWaitValue32_v2_ptsz\n.type cuStreamWaitValue32_v2_ptsz, @function\ncuStreamWaitValue32_v2_ptsz:\n    jmp cuStreamWaitValue32_v2@PLT\n");
/* the CUDA 9.0 form of cuStreamWaitValue64 */
int cuStreamWaitValue64(void) { return rgpu_unsupported(RGPU_DRIVER, "cuStreamWaitValue64"); }
/* the CUDA 9.0 form of cuStreamWaitValue64 */
int cuStreamWaitValue64_ptsz(void) { return rgpu_unsupported(RGPU_DRIVER, "cuStreamWaitValue64_ptsz"); }
__asm__(".text\n.globl cuStreamWaitValue64_v2_ptsz\n.type cuStreamWaitValue64_v2_ptsz, @function\ncuStreamWaitValue64_v2_ptsz:\n    jmp cuStreamWaitValue64_v2@PLT\n");
/* the CUDA 8.0 form of cuStreamWriteValue32 */
int cuStreamWriteValue32(void) { return rgpu_unsupported(RGPU_DRIVER, "cuStreamWriteValue32"); }
/* the CUDA 8.0 form of cuStreamWriteValue32 */
int cuStreamWriteValue32_ptsz(void) { return rgpu_unsupported(RGPU_DRIVER, "cuStreamWriteValue32_ptsz"); }
__asm__(".text\n.globl cuStreamWriteValue32_v2_ptsz\n.type cuStreamWriteValue32_v2_ptsz, @function\ncuStreamWriteValue32_v2_ptsz:\n    jmp cuStreamWriteValue32_v2@PLT\n");
/* the CUDA 9.0 form of cuStreamWriteValue64 */
int cuStreamWriteValue64(void) { return rgpu_unsupported(RGPU_DRIVER, "cuStreamWriteValue64"); }
/* the CUDA 9.0 form of cuStreamWriteValue64 */
int cuStreamWriteValue64_ptsz(void) { return rgpu_unsupported(RGPU_DRIVER, "cuStreamWriteValue64_ptsz"); }
__asm__(".text\n.globl cuStreamWriteValue64_v2_ptsz\n.type cuStreamWriteValue64_v2_ptsz, @function\ncuStreamWriteValue64_v2_ptsz:\n    jmp cuStreamWriteValue64_v2@PLT\n");
/* the CUDA 2.0 form of cuTexRefGetAddress */
int cuTexRefGetAddress(void) { return rgpu_unsupported(RGPU_DRIVER, "cuTexRefGetAddress"); }
/* the CUDA 2.0 form of cuTexRefSetAddress */
int cuTexRefSetAddress(void) { return rgpu_unsupported(RGPU_DRIVER, "cuTexRefSetAddress"); }
/* the CUDA 2.2 form of cuTexRefSetAddress2D */
int cuTexRefSetAddress2D(void) { return rgpu_unsupported(RGPU_DRIVER, "cuTexRefSetAddress2D"); }
__asm__(".text\n.globl cuTexRefSetAddress2D_v2\n.type cuTexRefSetAddress2D_v2, @function\ncuTexRefSetAddress2D_v2:\n    jmp cuTexRefSetAddress2D_v3@PLT\n");
__asm__(".text\n.globl cuWaitExternalSemaphoresAsync_ptsz\n.type cuWaitExternalSemaphoresAsync_ptsz, @function\ncuWaitExternalSemaphoresAsync_ptsz:\n    jmp cuWaitExternalSemaphoresAsync@PLT\n");

const rgpu_proc_version rgpu_proc_versions[] = {
    {"cuArray3DCreate", 2000, 0, "cuArray3DCreate"},
    {"cuArray3DCreate", 3020, 0, "cuArray3DCreate_v2"},
    {"cuArray3DGetDescriptor", 2000, 0, "cuArray3DGetDescriptor"},
    {"cuArray3DGetDescriptor", 3020, 0, "cuArray3DGetDescriptor_v2"},
    {"cuArrayCreate", 2000, 0, "cuArrayCreate"},
    {"cuArrayCreate", 3020, 0, "cuArrayCreate_v2"},
    {"cuArrayDestroy", 2000, 0, "cuArrayDestroy"},
    {"cuArrayGetDescriptor", 2000, 0, "cuArrayGetDescriptor"},
    {"cuArrayGetDescriptor", 3020, 0, "cuArrayGetDescriptor_v2"},
    {"cuArrayGetMemoryRequirements", 11060, 0, "cuArrayGetMemoryRequirements"},
    {"cuArrayGetPlane", 11020, 0, "cuArrayGetPlane"},
    {"cuArrayGetSparseProperties", 11010, 0, "cuArrayGetSparseProperties"},
    {"cuCheckpointProcessCheckpoint", 12080, 0, "cuCheckpointProcessCheckpoint"},
    {"cuCheckpointProcessGetRestoreThreadId", 12080, 0, "cuCheckpointProcessGetRestoreThreadId"},
    {"cuCheckpointProcessGetState", 12080, 0, "cuCheckpointProcessGetState"},
    {"cuCheckpointProcessLock", 12080, 0, "cuCheckpointProcessLock"},
    {"cuCheckpointProcessRestore", 12080, 0, "cuCheckpointProcessRestore"},
    {"cuCheckpointProcessUnlock", 12080, 0, "cuCheckpointProcessUnlock"},
    {"cuCoredumpGetAttribute", 12010, 0, "cuCoredumpGetAttribute"},
    {"cuCoredumpGetAttributeGlobal", 12010, 0, "cuCoredumpGetAttributeGlobal"},
    {"cuCoredumpSetAttribute", 12010, 0, "cuCoredumpSetAttribute"},
    {"cuCoredumpSetAttributeGlobal", 12010, 0, "cuCoredumpSetAttributeGlobal"},
    {"cuCtxAttach", 2000, 0, "cuCtxAttach"},
    {"cuCtxCreate", 2000, 0, "cuCtxCreate"},
    {"cuCtxCreate", 3020, 0, "cuCtxCreate_v2"},
    {"cuCtxCreate", 11040, 0, "cuCtxCreate_v3"},
    {"cuCtxCreate", 12050, 0, "cuCtxCreate_v4"},
    {"cuCtxDestroy", 2000, 0, "cuCtxDestroy"},
    {"cuCtxDestroy", 4000, 0, "cuCtxDestroy_v2"},
    {"cuCtxDetach", 2000, 0, "cuCtxDetach"},
    {"cuCtxDisablePeerAccess", 4000, 0, "cuCtxDisablePeerAccess"},
    {"cuCtxEnablePeerAccess", 4000, 0, "cuCtxEnablePeerAccess"},
    {"cuCtxFromGreenCtx", 12040, 0, "cuCtxFromGreenCtx"},
    {"cuCtxGetApiVersion", 3020, 0, "cuCtxGetApiVersion"},
    {"cuCtxGetCacheConfig", 3020, 0, "cuCtxGetCacheConfig"},
    {"cuCtxGetCurrent", 4000, 0, "cuCtxGetCurrent"},
    {"cuCtxGetDevResource", 12040, 0, "cuCtxGetDevResource"},
    {"cuCtxGetDevice", 2000, 0, "cuCtxGetDevice"},
    {"cuCtxGetDevice", 13000, 0, "cuCtxGetDevice_v2"},
    {"cuCtxGetExecAffinity", 11040, 0, "cuCtxGetExecAffinity"},
    {"cuCtxGetFlags", 7000, 0, "cuCtxGetFlags"},
    {"cuCtxGetId", 12000, 0, "cuCtxGetId"},
    {"cuCtxGetLimit", 3010, 0, "cuCtxGetLimit"},
    {"cuCtxGetSharedMemConfig", 4020, 0, "cuCtxGetSharedMemConfig"},
    {"cuCtxGetStreamPriorityRange", 5050, 0, "cuCtxGetStreamPriorityRange"},
    {"cuCtxPopCurrent", 2000, 0, "cuCtxPopCurrent"},
    {"cuCtxPopCurrent", 4000, 0, "cuCtxPopCurrent_v2"},
    {"cuCtxPushCurrent", 2000, 0, "cuCtxPushCurrent"},
    {"cuCtxPushCurrent", 4000, 0, "cuCtxPushCurrent_v2"},
    {"cuCtxRecordEvent", 12050, 0, "cuCtxRecordEvent"},
    {"cuCtxResetPersistingL2Cache", 11000, 0, "cuCtxResetPersistingL2Cache"},
    {"cuCtxSetCacheConfig", 3020, 0, "cuCtxSetCacheConfig"},
    {"cuCtxSetCurrent", 4000, 0, "cuCtxSetCurrent"},
    {"cuCtxSetFlags", 12010, 0, "cuCtxSetFlags"},
    {"cuCtxSetLimit", 3010, 0, "cuCtxSetLimit"},
    {"cuCtxSetSharedMemConfig", 4020, 0, "cuCtxSetSharedMemConfig"},
    {"cuCtxSynchronize", 2000, 0, "cuCtxSynchronize"},
    {"cuCtxSynchronize", 13000, 0, "cuCtxSynchronize_v2"},
    {"cuCtxWaitEvent", 12050, 0, "cuCtxWaitEvent"},
    {"cuDestroyExternalMemory", 10000, 0, "cuDestroyExternalMemory"},
    {"cuDestroyExternalSemaphore", 10000, 0, "cuDestroyExternalSemaphore"},
    {"cuDevResourceGenerateDesc", 12040, 0, "cuDevResourceGenerateDesc"},
    {"cuDevSmResourceSplitByCount", 12040, 0, "cuDevSmResourceSplitByCount"},
    {"cuDeviceCanAccessPeer", 4000, 0, "cuDeviceCanAccessPeer"},
    {"cuDeviceComputeCapability", 2000, 0, "cuDeviceComputeCapability"},
    {"cuDeviceGet", 2000, 0, "cuDeviceGet"},
    {"cuDeviceGetAttribute", 2000, 0, "cuDeviceGetAttribute"},
    {"cuDeviceGetByPCIBusId", 4010, 0, "cuDeviceGetByPCIBusId"},
    {"cuDeviceGetCount", 2000, 0, "cuDeviceGetCount"},
    {"cuDeviceGetDefaultMemPool", 11020, 0, "cuDeviceGetDefaultMemPool"},
    {"cuDeviceGetDevResource", 12040, 0, "cuDeviceGetDevResource"},
    {"cuDeviceGetExecAffinitySupport", 11040, 0, "cuDeviceGetExecAffinitySupport"},
    {"cuDeviceGetGraphMemAttribute", 11040, 0, "cuDeviceGetGraphMemAttribute"},
    {"cuDeviceGetHostAtomicCapabilities", 13000, 0, "cuDeviceGetHostAtomicCapabilities"},
    {"cuDeviceGetLuid", 10000, 0, "cuDeviceGetLuid"},
    {"cuDeviceGetMemPool", 11020, 0, "cuDeviceGetMemPool"},
    {"cuDeviceGetName", 2000, 0, "cuDeviceGetName"},
    {"cuDeviceGetNvSciSyncAttributes", 10020, 0, "cuDeviceGetNvSciSyncAttributes"},
    {"cuDeviceGetP2PAtomicCapabilities", 13000, 0, "cuDeviceGetP2PAtomicCapabilities"},
    {"cuDeviceGetP2PAttribute", 8000, 0, "cuDeviceGetP2PAttribute"},
    {"cuDeviceGetPCIBusId", 4010, 0, "cuDeviceGetPCIBusId"},
    {"cuDeviceGetProperties", 2000, 0, "cuDeviceGetProperties"},
    {"cuDeviceGetTexture1DLinearMaxWidth", 11010, 0, "cuDeviceGetTexture1DLinearMaxWidth"},
    {"cuDeviceGetUuid", 9020, 0, "cuDeviceGetUuid"},
    {"cuDeviceGetUuid", 11040, 0, "cuDeviceGetUuid_v2"},
    {"cuDeviceGraphMemTrim", 11040, 0, "cuDeviceGraphMemTrim"},
    {"cuDevicePrimaryCtxGetState", 7000, 0, "cuDevicePrimaryCtxGetState"},
    {"cuDevicePrimaryCtxRelease", 7000, 0, "cuDevicePrimaryCtxRelease"},
    {"cuDevicePrimaryCtxRelease", 11000, 0, "cuDevicePrimaryCtxRelease_v2"},
    {"cuDevicePrimaryCtxReset", 7000, 0, "cuDevicePrimaryCtxReset"},
    {"cuDevicePrimaryCtxReset", 11000, 0, "cuDevicePrimaryCtxReset_v2"},
    {"cuDevicePrimaryCtxRetain", 7000, 0, "cuDevicePrimaryCtxRetain"},
    {"cuDevicePrimaryCtxSetFlags", 7000, 0, "cuDevicePrimaryCtxSetFlags"},
    {"cuDevicePrimaryCtxSetFlags", 11000, 0, "cuDevicePrimaryCtxSetFlags_v2"},
    {"cuDeviceRegisterAsyncNotification", 12040, 0, "cuDeviceRegisterAsyncNotification"},
    {"cuDeviceSetGraphMemAttribute", 11040, 0, "cuDeviceSetGraphMemAttribute"},
    {"cuDeviceSetMemPool", 11020, 0, "cuDeviceSetMemPool"},
    {"cuDeviceTotalMem", 2000, 0, "cuDeviceTotalMem"},
    {"cuDeviceTotalMem", 3020, 0, "cuDeviceTotalMem_v2"},
    {"cuDeviceUnregisterAsyncNotification", 12040, 0, "cuDeviceUnregisterAsyncNotification"},
    {"cuDriverGetVersion", 2020, 0, "cuDriverGetVersion"},
    {"cuEventCreate", 2000, 0, "cuEventCreate"},
    {"cuEventDestroy", 2000, 0, "cuEventDestroy"},
    {"cuEventDestroy", 4000, 0, "cuEventDestroy_v2"},
    {"cuEventElapsedTime", 2000, 0, "cuEventElapsedTime"},
    {"cuEventElapsedTime", 12080, 0, "cuEventElapsedTime_v2"},
    {"cuEventQuery", 2000, 0, "cuEventQuery"},
    {"cuEventRecord", 2000, 0, "cuEventRecord"},
    {"cuEventRecord", 7000, 1, "cuEventRecord_ptsz"},
    {"cuEventRecordWithFlags", 11010, 0, "cuEventRecordWithFlags"},
    {"cuEventRecordWithFlags", 11010, 1, "cuEventRecordWithFlags_ptsz"},
    {"cuEventSynchronize", 2000, 0, "cuEventSynchronize"},
    {"cuExternalMemoryGetMappedBuffer", 10000, 0, "cuExternalMemoryGetMappedBuffer"},
    {"cuExternalMemoryGetMappedMipmappedArray", 10000, 0, "cuExternalMemoryGetMappedMipmappedArray"},
    {"cuFlushGPUDirectRDMAWrites", 11030, 0, "cuFlushGPUDirectRDMAWrites"},
    {"cuFuncGetAttribute", 2020, 0, "cuFuncGetAttribute"},
    {"cuFuncGetModule", 11000, 0, "cuFuncGetModule"},
    {"cuFuncGetName", 12030, 0, "cuFuncGetName"},
    {"cuFuncGetParamInfo", 12040, 0, "cuFuncGetParamInfo"},
    {"cuFuncIsLoaded", 12040, 0, "cuFuncIsLoaded"},
    {"cuFuncLoad", 12040, 0, "cuFuncLoad"},
    {"cuFuncSetAttribute", 9000, 0, "cuFuncSetAttribute"},
    {"cuFuncSetBlockShape", 2000, 0, "cuFuncSetBlockShape"},
    {"cuFuncSetCacheConfig", 3000, 0, "cuFuncSetCacheConfig"},
    {"cuFuncSetSharedMemConfig", 4020, 0, "cuFuncSetSharedMemConfig"},
    {"cuFuncSetSharedSize", 2000, 0, "cuFuncSetSharedSize"},
    {"cuGetErrorName", 6000, 0, "cuGetErrorName"},
    {"cuGetErrorString", 6000, 0, "cuGetErrorString"},
    {"cuGetExportTable", 3000, 0, "cuGetExportTable"},
    {"cuGetProcAddress", 11030, 0, "cuGetProcAddress"},
    {"cuGetProcAddress", 12000, 0, "cuGetProcAddress_v2"},
    {"cuGraphAddBatchMemOpNode", 11070, 0, "cuGraphAddBatchMemOpNode"},
    {"cuGraphAddChildGraphNode", 10000, 0, "cuGraphAddChildGraphNode"},
    {"cuGraphAddDependencies", 10000, 0, "cuGraphAddDependencies"},
    {"cuGraphAddDependencies", 12030, 0, "cuGraphAddDependencies_v2"},
    {"cuGraphAddEmptyNode", 10000, 0, "cuGraphAddEmptyNode"},
    {"cuGraphAddEventRecordNode", 11010, 0, "cuGraphAddEventRecordNode"},
    {"cuGraphAddEventWaitNode", 11010, 0, "cuGraphAddEventWaitNode"},
    {"cuGraphAddExternalSemaphoresSignalNode", 11020, 0, "cuGraphAddExternalSemaphoresSignalNode"},
    {"cuGraphAddExternalSemaphoresWaitNode", 11020, 0, "cuGraphAddExternalSemaphoresWaitNode"},
    {"cuGraphAddHostNode", 10000, 0, "cuGraphAddHostNode"},
    {"cuGraphAddKernelNode", 10000, 0, "cuGraphAddKernelNode"},
    {"cuGraphAddKernelNode", 12000, 0, "cuGraphAddKernelNode_v2"},
    {"cuGraphAddMemAllocNode", 11040, 0, "cuGraphAddMemAllocNode"},
    {"cuGraphAddMemFreeNode", 11040, 0, "cuGraphAddMemFreeNode"},
    {"cuGraphAddMemcpyNode", 10000, 0, "cuGraphAddMemcpyNode"},
    {"cuGraphAddMemsetNode", 10000, 0, "cuGraphAddMemsetNode"},
    {"cuGraphAddNode", 12020, 0, "cuGraphAddNode"},
    {"cuGraphAddNode", 12030, 0, "cuGraphAddNode_v2"},
    {"cuGraphBatchMemOpNodeGetParams", 11070, 0, "cuGraphBatchMemOpNodeGetParams"},
    {"cuGraphBatchMemOpNodeSetParams", 11070, 0, "cuGraphBatchMemOpNodeSetParams"},
    {"cuGraphChildGraphNodeGetGraph", 10000, 0, "cuGraphChildGraphNodeGetGraph"},
    {"cuGraphClone", 10000, 0, "cuGraphClone"},
    {"cuGraphConditionalHandleCreate", 12030, 0, "cuGraphConditionalHandleCreate"},
    {"cuGraphCreate", 10000, 0, "cuGraphCreate"},
    {"cuGraphDebugDotPrint", 11030, 0, "cuGraphDebugDotPrint"},
    {"cuGraphDestroy", 10000, 0, "cuGraphDestroy"},
    {"cuGraphDestroyNode", 10000, 0, "cuGraphDestroyNode"},
    {"cuGraphEventRecordNodeGetEvent", 11010, 0, "cuGraphEventRecordNodeGetEvent"},
    {"cuGraphEventRecordNodeSetEvent", 11010, 0, "cuGraphEventRecordNodeSetEvent"},
    {"cuGraphEventWaitNodeGetEvent", 11010, 0, "cuGraphEventWaitNodeGetEvent"},
    {"cuGraphEventWaitNodeSetEvent", 11010, 0, "cuGraphEventWaitNodeSetEvent"},
    {"cuGraphExecBatchMemOpNodeSetParams", 11070, 0, "cuGraphExecBatchMemOpNodeSetParams"},
    {"cuGraphExecChildGraphNodeSetParams", 11010, 0, "cuGraphExecChildGraphNodeSetParams"},
    {"cuGraphExecDestroy", 10000, 0, "cuGraphExecDestroy"},
    {"cuGraphExecEventRecordNodeSetEvent", 11010, 0, "cuGraphExecEventRecordNodeSetEvent"},
    {"cuGraphExecEventWaitNodeSetEvent", 11010, 0, "cuGraphExecEventWaitNodeSetEvent"},
    {"cuGraphExecExternalSemaphoresSignalNodeSetParams", 11020, 0, "cuGraphExecExternalSemaphoresSignalNodeSetParams"},
    {"cuGraphExecExternalSemaphoresWaitNodeSetParams", 11020, 0, "cuGraphExecExternalSemaphoresWaitNodeSetParams"},
    {"cuGraphExecGetFlags", 12000, 0, "cuGraphExecGetFlags"},
    {"cuGraphExecHostNodeSetParams", 10020, 0, "cuGraphExecHostNodeSetParams"},
    {"cuGraphExecKernelNodeSetParams", 10010, 0, "cuGraphExecKernelNodeSetParams"},
    {"cuGraphExecKernelNodeSetParams", 12000, 0, "cuGraphExecKernelNodeSetParams_v2"},
    {"cuGraphExecMemcpyNodeSetParams", 10020, 0, "cuGraphExecMemcpyNodeSetParams"},
    {"cuGraphExecMemsetNodeSetParams", 10020, 0, "cuGraphExecMemsetNodeSetParams"},
    {"cuGraphExecNodeSetParams", 12020, 0, "cuGraphExecNodeSetParams"},
    {"cuGraphExecUpdate", 10020, 0, "cuGraphExecUpdate"},
    {"cuGraphExecUpdate", 12000, 0, "cuGraphExecUpdate_v2"},
    {"cuGraphExternalSemaphoresSignalNodeGetParams", 11020, 0, "cuGraphExternalSemaphoresSignalNodeGetParams"},
    {"cuGraphExternalSemaphoresSignalNodeSetParams", 11020, 0, "cuGraphExternalSemaphoresSignalNodeSetParams"},
    {"cuGraphExternalSemaphoresWaitNodeGetParams", 11020, 0, "cuGraphExternalSemaphoresWaitNodeGetParams"},
    {"cuGraphExternalSemaphoresWaitNodeSetParams", 11020, 0, "cuGraphExternalSemaphoresWaitNodeSetParams"},
    {"cuGraphGetEdges", 10000, 0, "cuGraphGetEdges"},
    {"cuGraphGetEdges", 12030, 0, "cuGraphGetEdges_v2"},
    {"cuGraphGetNodes", 10000, 0, "cuGraphGetNodes"},
    {"cuGraphGetRootNodes", 10000, 0, "cuGraphGetRootNodes"},
    {"cuGraphHostNodeGetParams", 10000, 0, "cuGraphHostNodeGetParams"},
    {"cuGraphHostNodeSetParams", 10000, 0, "cuGraphHostNodeSetParams"},
    {"cuGraphInstantiate", 10000, 0, "cuGraphInstantiate"},
    {"cuGraphInstantiate", 11000, 0, "cuGraphInstantiate_v2"},
    {"cuGraphInstantiateWithFlags", 11040, 0, "cuGraphInstantiateWithFlags"},
    {"cuGraphInstantiateWithParams", 12000, 0, "cuGraphInstantiateWithParams"},
    {"cuGraphInstantiateWithParams", 12000, 1, "cuGraphInstantiateWithParams_ptsz"},
    {"cuGraphKernelNodeCopyAttributes", 11000, 0, "cuGraphKernelNodeCopyAttributes"},
    {"cuGraphKernelNodeGetAttribute", 11000, 0, "cuGraphKernelNodeGetAttribute"},
    {"cuGraphKernelNodeGetParams", 10000, 0, "cuGraphKernelNodeGetParams"},
    {"cuGraphKernelNodeGetParams", 12000, 0, "cuGraphKernelNodeGetParams_v2"},
    {"cuGraphKernelNodeSetAttribute", 11000, 0, "cuGraphKernelNodeSetAttribute"},
    {"cuGraphKernelNodeSetParams", 10000, 0, "cuGraphKernelNodeSetParams"},
    {"cuGraphKernelNodeSetParams", 12000, 0, "cuGraphKernelNodeSetParams_v2"},
    {"cuGraphLaunch", 10000, 0, "cuGraphLaunch"},
    {"cuGraphLaunch", 10000, 1, "cuGraphLaunch_ptsz"},
    {"cuGraphMemAllocNodeGetParams", 11040, 0, "cuGraphMemAllocNodeGetParams"},
    {"cuGraphMemFreeNodeGetParams", 11040, 0, "cuGraphMemFreeNodeGetParams"},
    {"cuGraphMemcpyNodeGetParams", 10000, 0, "cuGraphMemcpyNodeGetParams"},
    {"cuGraphMemcpyNodeSetParams", 10000, 0, "cuGraphMemcpyNodeSetParams"},
    {"cuGraphMemsetNodeGetParams", 10000, 0, "cuGraphMemsetNodeGetParams"},
    {"cuGraphMemsetNodeSetParams", 10000, 0, "cuGraphMemsetNodeSetParams"},
    {"cuGraphNodeFindInClone", 10000, 0, "cuGraphNodeFindInClone"},
    {"cuGraphNodeGetDependencies", 10000, 0, "cuGraphNodeGetDependencies"},
    {"cuGraphNodeGetDependencies", 12030, 0, "cuGraphNodeGetDependencies_v2"},
    {"cuGraphNodeGetDependentNodes", 10000, 0, "cuGraphNodeGetDependentNodes"},
    {"cuGraphNodeGetDependentNodes", 12030, 0, "cuGraphNodeGetDependentNodes_v2"},
    {"cuGraphNodeGetEnabled", 11060, 0, "cuGraphNodeGetEnabled"},
    {"cuGraphNodeGetType", 10000, 0, "cuGraphNodeGetType"},
    {"cuGraphNodeSetEnabled", 11060, 0, "cuGraphNodeSetEnabled"},
    {"cuGraphNodeSetParams", 12020, 0, "cuGraphNodeSetParams"},
    {"cuGraphReleaseUserObject", 11030, 0, "cuGraphReleaseUserObject"},
    {"cuGraphRemoveDependencies", 10000, 0, "cuGraphRemoveDependencies"},
    {"cuGraphRemoveDependencies", 12030, 0, "cuGraphRemoveDependencies_v2"},
    {"cuGraphRetainUserObject", 11030, 0, "cuGraphRetainUserObject"},
    {"cuGraphUpload", 11010, 0, "cuGraphUpload"},
    {"cuGraphUpload", 11010, 1, "cuGraphUpload_ptsz"},
    {"cuGraphicsMapResources", 3000, 0, "cuGraphicsMapResources"},
    {"cuGraphicsMapResources", 7000, 1, "cuGraphicsMapResources_ptsz"},
    {"cuGraphicsResourceGetMappedMipmappedArray", 5000, 0, "cuGraphicsResourceGetMappedMipmappedArray"},
    {"cuGraphicsResourceGetMappedPointer", 3000, 0, "cuGraphicsResourceGetMappedPointer"},
    {"cuGraphicsResourceGetMappedPointer", 3020, 0, "cuGraphicsResourceGetMappedPointer_v2"},
    {"cuGraphicsResourceSetMapFlags", 3000, 0, "cuGraphicsResourceSetMapFlags"},
    {"cuGraphicsResourceSetMapFlags", 6050, 0, "cuGraphicsResourceSetMapFlags_v2"},
    {"cuGraphicsSubResourceGetMappedArray", 3000, 0, "cuGraphicsSubResourceGetMappedArray"},
    {"cuGraphicsUnmapResources", 3000, 0, "cuGraphicsUnmapResources"},
    {"cuGraphicsUnmapResources", 7000, 1, "cuGraphicsUnmapResources_ptsz"},
    {"cuGraphicsUnregisterResource", 3000, 0, "cuGraphicsUnregisterResource"},
    {"cuGreenCtxCreate", 12040, 0, "cuGreenCtxCreate"},
    {"cuGreenCtxDestroy", 12040, 0, "cuGreenCtxDestroy"},
    {"cuGreenCtxGetDevResource", 12040, 0, "cuGreenCtxGetDevResource"},
    {"cuGreenCtxGetId", 12090, 0, "cuGreenCtxGetId"},
    {"cuGreenCtxRecordEvent", 12040, 0, "cuGreenCtxRecordEvent"},
    {"cuGreenCtxStreamCreate", 12050, 0, "cuGreenCtxStreamCreate"},
    {"cuGreenCtxWaitEvent", 12040, 0, "cuGreenCtxWaitEvent"},
    {"cuImportExternalMemory", 10000, 0, "cuImportExternalMemory"},
    {"cuImportExternalSemaphore", 10000, 0, "cuImportExternalSemaphore"},
    {"cuInit", 2000, 0, "cuInit"},
    {"cuIpcCloseMemHandle", 4010, 0, "cuIpcCloseMemHandle"},
    {"cuIpcGetEventHandle", 4010, 0, "cuIpcGetEventHandle"},
    {"cuIpcGetMemHandle", 4010, 0, "cuIpcGetMemHandle"},
    {"cuIpcOpenEventHandle", 4010, 0, "cuIpcOpenEventHandle"},
    {"cuIpcOpenMemHandle", 4010, 0, "cuIpcOpenMemHandle"},
    {"cuIpcOpenMemHandle", 11000, 0, "cuIpcOpenMemHandle_v2"},
    {"cuKernelGetAttribute", 12000, 0, "cuKernelGetAttribute"},
    {"cuKernelGetFunction", 12000, 0, "cuKernelGetFunction"},
    {"cuKernelGetLibrary", 12050, 0, "cuKernelGetLibrary"},
    {"cuKernelGetName", 12030, 0, "cuKernelGetName"},
    {"cuKernelGetParamInfo", 12040, 0, "cuKernelGetParamInfo"},
    {"cuKernelSetAttribute", 12000, 0, "cuKernelSetAttribute"},
    {"cuKernelSetCacheConfig", 12000, 0, "cuKernelSetCacheConfig"},
    {"cuLaunch", 2000, 0, "cuLaunch"},
    {"cuLaunchCooperativeKernel", 9000, 0, "cuLaunchCooperativeKernel"},
    {"cuLaunchCooperativeKernel", 9000, 1, "cuLaunchCooperativeKernel_ptsz"},
    {"cuLaunchCooperativeKernelMultiDevice", 9000, 0, "cuLaunchCooperativeKernelMultiDevice"},
    {"cuLaunchGrid", 2000, 0, "cuLaunchGrid"},
    {"cuLaunchGridAsync", 2000, 0, "cuLaunchGridAsync"},
    {"cuLaunchHostFunc", 10000, 0, "cuLaunchHostFunc"},
    {"cuLaunchHostFunc", 10000, 1, "cuLaunchHostFunc_ptsz"},
    {"cuLaunchKernel", 4000, 0, "cuLaunchKernel"},
    {"cuLaunchKernel", 7000, 1, "cuLaunchKernel_ptsz"},
    {"cuLaunchKernelEx", 11060, 0, "cuLaunchKernelEx"},
    {"cuLaunchKernelEx", 11060, 1, "cuLaunchKernelEx_ptsz"},
    {"cuLibraryEnumerateKernels", 12040, 0, "cuLibraryEnumerateKernels"},
    {"cuLibraryGetGlobal", 12000, 0, "cuLibraryGetGlobal"},
    {"cuLibraryGetKernel", 12000, 0, "cuLibraryGetKernel"},
    {"cuLibraryGetKernelCount", 12040, 0, "cuLibraryGetKernelCount"},
    {"cuLibraryGetManaged", 12000, 0, "cuLibraryGetManaged"},
    {"cuLibraryGetModule", 12000, 0, "cuLibraryGetModule"},
    {"cuLibraryGetUnifiedFunction", 12000, 0, "cuLibraryGetUnifiedFunction"},
    {"cuLibraryLoadData", 12000, 0, "cuLibraryLoadData"},
    {"cuLibraryLoadFromFile", 12000, 0, "cuLibraryLoadFromFile"},
    {"cuLibraryUnload", 12000, 0, "cuLibraryUnload"},
    {"cuLinkAddData", 5050, 0, "cuLinkAddData"},
    {"cuLinkAddData", 6050, 0, "cuLinkAddData_v2"},
    {"cuLinkAddFile", 5050, 0, "cuLinkAddFile"},
    {"cuLinkAddFile", 6050, 0, "cuLinkAddFile_v2"},
    {"cuLinkComplete", 5050, 0, "cuLinkComplete"},
    {"cuLinkCreate", 5050, 0, "cuLinkCreate"},
    {"cuLinkCreate", 6050, 0, "cuLinkCreate_v2"},
    {"cuLinkDestroy", 5050, 0, "cuLinkDestroy"},
    {"cuLogsCurrent", 12090, 0, "cuLogsCurrent"},
    {"cuLogsDumpToFile", 12090, 0, "cuLogsDumpToFile"},
    {"cuLogsDumpToMemory", 12090, 0, "cuLogsDumpToMemory"},
    {"cuLogsRegisterCallback", 12090, 0, "cuLogsRegisterCallback"},
    {"cuLogsUnregisterCallback", 12090, 0, "cuLogsUnregisterCallback"},
    {"cuMemAddressFree", 10020, 0, "cuMemAddressFree"},
    {"cuMemAddressReserve", 10020, 0, "cuMemAddressReserve"},
    {"cuMemAdvise", 8000, 0, "cuMemAdvise"},
    {"cuMemAdvise", 12020, 0, "cuMemAdvise_v2"},
    {"cuMemAlloc", 2000, 0, "cuMemAlloc"},
    {"cuMemAlloc", 3020, 0, "cuMemAlloc_v2"},
    {"cuMemAllocAsync", 11020, 0, "cuMemAllocAsync"},
    {"cuMemAllocAsync", 11020, 1, "cuMemAllocAsync_ptsz"},
    {"cuMemAllocFromPoolAsync", 11020, 0, "cuMemAllocFromPoolAsync"},
    {"cuMemAllocFromPoolAsync", 11020, 1, "cuMemAllocFromPoolAsync_ptsz"},
    {"cuMemAllocHost", 2000, 0, "cuMemAllocHost"},
    {"cuMemAllocHost", 3020, 0, "cuMemAllocHost_v2"},
    {"cuMemAllocManaged", 6000, 0, "cuMemAllocManaged"},
    {"cuMemAllocPitch", 2000, 0, "cuMemAllocPitch"},
    {"cuMemAllocPitch", 3020, 0, "cuMemAllocPitch_v2"},
    {"cuMemBatchDecompressAsync", 12060, 0, "cuMemBatchDecompressAsync"},
    {"cuMemBatchDecompressAsync", 12060, 1, "cuMemBatchDecompressAsync_ptsz"},
    {"cuMemCreate", 10020, 0, "cuMemCreate"},
    {"cuMemDiscardAndPrefetchBatchAsync", 13000, 0, "cuMemDiscardAndPrefetchBatchAsync"},
    {"cuMemDiscardAndPrefetchBatchAsync", 13000, 1, "cuMemDiscardAndPrefetchBatchAsync_ptsz"},
    {"cuMemDiscardBatchAsync", 13000, 0, "cuMemDiscardBatchAsync"},
    {"cuMemDiscardBatchAsync", 13000, 1, "cuMemDiscardBatchAsync_ptsz"},
    {"cuMemExportToShareableHandle", 10020, 0, "cuMemExportToShareableHandle"},
    {"cuMemFree", 2000, 0, "cuMemFree"},
    {"cuMemFree", 3020, 0, "cuMemFree_v2"},
    {"cuMemFreeAsync", 11020, 0, "cuMemFreeAsync"},
    {"cuMemFreeAsync", 11020, 1, "cuMemFreeAsync_ptsz"},
    {"cuMemFreeHost", 2000, 0, "cuMemFreeHost"},
    {"cuMemGetAccess", 10020, 0, "cuMemGetAccess"},
    {"cuMemGetAddressRange", 2000, 0, "cuMemGetAddressRange"},
    {"cuMemGetAddressRange", 3020, 0, "cuMemGetAddressRange_v2"},
    {"cuMemGetAllocationGranularity", 10020, 0, "cuMemGetAllocationGranularity"},
    {"cuMemGetAllocationPropertiesFromHandle", 10020, 0, "cuMemGetAllocationPropertiesFromHandle"},
    {"cuMemGetDefaultMemPool", 13000, 0, "cuMemGetDefaultMemPool"},
    {"cuMemGetHandleForAddressRange", 11070, 0, "cuMemGetHandleForAddressRange"},
    {"cuMemGetInfo", 2000, 0, "cuMemGetInfo"},
    {"cuMemGetInfo", 3020, 0, "cuMemGetInfo_v2"},
    {"cuMemGetMemPool", 13000, 0, "cuMemGetMemPool"},
    {"cuMemHostAlloc", 2020, 0, "cuMemHostAlloc"},
    {"cuMemHostGetDevicePointer", 2020, 0, "cuMemHostGetDevicePointer"},
    {"cuMemHostGetDevicePointer", 3020, 0, "cuMemHostGetDevicePointer_v2"},
    {"cuMemHostGetFlags", 2030, 0, "cuMemHostGetFlags"},
    {"cuMemHostRegister", 4000, 0, "cuMemHostRegister"},
    {"cuMemHostRegister", 6050, 0, "cuMemHostRegister_v2"},
    {"cuMemHostUnregister", 4000, 0, "cuMemHostUnregister"},
    {"cuMemImportFromShareableHandle", 10020, 0, "cuMemImportFromShareableHandle"},
    {"cuMemMap", 10020, 0, "cuMemMap"},
    {"cuMemMapArrayAsync", 11010, 0, "cuMemMapArrayAsync"},
    {"cuMemMapArrayAsync", 11010, 1, "cuMemMapArrayAsync_ptsz"},
    {"cuMemPoolCreate", 11020, 0, "cuMemPoolCreate"},
    {"cuMemPoolDestroy", 11020, 0, "cuMemPoolDestroy"},
    {"cuMemPoolExportPointer", 11020, 0, "cuMemPoolExportPointer"},
    {"cuMemPoolExportToShareableHandle", 11020, 0, "cuMemPoolExportToShareableHandle"},
    {"cuMemPoolGetAccess", 11020, 0, "cuMemPoolGetAccess"},
    {"cuMemPoolGetAttribute", 11020, 0, "cuMemPoolGetAttribute"},
    {"cuMemPoolImportFromShareableHandle", 11020, 0, "cuMemPoolImportFromShareableHandle"},
    {"cuMemPoolImportPointer", 11020, 0, "cuMemPoolImportPointer"},
    {"cuMemPoolSetAccess", 11020, 0, "cuMemPoolSetAccess"},
    {"cuMemPoolSetAttribute", 11020, 0, "cuMemPoolSetAttribute"},
    {"cuMemPoolTrimTo", 11020, 0, "cuMemPoolTrimTo"},
    {"cuMemPrefetchAsync", 8000, 0, "cuMemPrefetchAsync"},
    {"cuMemPrefetchAsync", 12020, 0, "cuMemPrefetchAsync_v2"},
    {"cuMemPrefetchAsync", 8000, 1, "cuMemPrefetchAsync_ptsz"},
    {"cuMemPrefetchAsync", 12020, 1, "cuMemPrefetchAsync_v2_ptsz"},
    {"cuMemPrefetchBatchAsync", 13000, 0, "cuMemPrefetchBatchAsync"},
    {"cuMemPrefetchBatchAsync", 13000, 1, "cuMemPrefetchBatchAsync_ptsz"},
    {"cuMemRangeGetAttribute", 8000, 0, "cuMemRangeGetAttribute"},
    {"cuMemRangeGetAttributes", 8000, 0, "cuMemRangeGetAttributes"},
    {"cuMemRelease", 10020, 0, "cuMemRelease"},
    {"cuMemRetainAllocationHandle", 11000, 0, "cuMemRetainAllocationHandle"},
    {"cuMemSetAccess", 10020, 0, "cuMemSetAccess"},
    {"cuMemSetMemPool", 13000, 0, "cuMemSetMemPool"},
    {"cuMemUnmap", 10020, 0, "cuMemUnmap"},
    {"cuMemcpy", 4000, 0, "cuMemcpy"},
    {"cuMemcpy", 7000, 1, "cuMemcpy_ptds"},
    {"cuMemcpy2D", 2000, 0, "cuMemcpy2D"},
    {"cuMemcpy2D", 3020, 0, "cuMemcpy2D_v2"},
    {"cuMemcpy2D", 7000, 1, "cuMemcpy2D_v2_ptds"},
    {"cuMemcpy2DAsync", 2000, 0, "cuMemcpy2DAsync"},
    {"cuMemcpy2DAsync", 3020, 0, "cuMemcpy2DAsync_v2"},
    {"cuMemcpy2DAsync", 7000, 1, "cuMemcpy2DAsync_v2_ptsz"},
    {"cuMemcpy2DUnaligned", 2000, 0, "cuMemcpy2DUnaligned"},
    {"cuMemcpy2DUnaligned", 3020, 0, "cuMemcpy2DUnaligned_v2"},
    {"cuMemcpy2DUnaligned", 7000, 1, "cuMemcpy2DUnaligned_v2_ptds"},
    {"cuMemcpy3D", 2000, 0, "cuMemcpy3D"},
    {"cuMemcpy3D", 3020, 0, "cuMemcpy3D_v2"},
    {"cuMemcpy3D", 7000, 1, "cuMemcpy3D_v2_ptds"},
    {"cuMemcpy3DAsync", 2000, 0, "cuMemcpy3DAsync"},
    {"cuMemcpy3DAsync", 3020, 0, "cuMemcpy3DAsync_v2"},
    {"cuMemcpy3DAsync", 7000, 1, "cuMemcpy3DAsync_v2_ptsz"},
    {"cuMemcpy3DBatchAsync", 12080, 0, "cuMemcpy3DBatchAsync"},
    {"cuMemcpy3DBatchAsync", 13000, 0, "cuMemcpy3DBatchAsync_v2"},
    {"cuMemcpy3DBatchAsync", 12080, 1, "cuMemcpy3DBatchAsync_ptsz"},
    {"cuMemcpy3DBatchAsync", 13000, 1, "cuMemcpy3DBatchAsync_v2_ptsz"},
    {"cuMemcpy3DPeer", 4000, 0, "cuMemcpy3DPeer"},
    {"cuMemcpy3DPeer", 7000, 1, "cuMemcpy3DPeer_ptds"},
    {"cuMemcpy3DPeerAsync", 4000, 0, "cuMemcpy3DPeerAsync"},
    {"cuMemcpy3DPeerAsync", 7000, 1, "cuMemcpy3DPeerAsync_ptsz"},
    {"cuMemcpyAsync", 4000, 0, "cuMemcpyAsync"},
    {"cuMemcpyAsync", 7000, 1, "cuMemcpyAsync_ptsz"},
    {"cuMemcpyAtoA", 2000, 0, "cuMemcpyAtoA"},
    {"cuMemcpyAtoA", 3020, 0, "cuMemcpyAtoA_v2"},
    {"cuMemcpyAtoA", 7000, 1, "cuMemcpyAtoA_v2_ptds"},
    {"cuMemcpyAtoD", 2000, 0, "cuMemcpyAtoD"},
    {"cuMemcpyAtoD", 3020, 0, "cuMemcpyAtoD_v2"},
    {"cuMemcpyAtoD", 7000, 1, "cuMemcpyAtoD_v2_ptds"},
    {"cuMemcpyAtoH", 2000, 0, "cuMemcpyAtoH"},
    {"cuMemcpyAtoH", 3020, 0, "cuMemcpyAtoH_v2"},
    {"cuMemcpyAtoH", 7000, 1, "cuMemcpyAtoH_v2_ptds"},
    {"cuMemcpyAtoHAsync", 2000, 0, "cuMemcpyAtoHAsync"},
    {"cuMemcpyAtoHAsync", 3020, 0, "cuMemcpyAtoHAsync_v2"},
    {"cuMemcpyAtoHAsync", 7000, 1, "cuMemcpyAtoHAsync_v2_ptsz"},
    {"cuMemcpyBatchAsync", 12080, 0, "cuMemcpyBatchAsync"},
    {"cuMemcpyBatchAsync", 13000, 0, "cuMemcpyBatchAsync_v2"},
    {"cuMemcpyBatchAsync", 12080, 1, "cuMemcpyBatchAsync_ptsz"},
    {"cuMemcpyBatchAsync", 13000, 1, "cuMemcpyBatchAsync_v2_ptsz"},
    {"cuMemcpyDtoA", 2000, 0, "cuMemcpyDtoA"},
    {"cuMemcpyDtoA", 3020, 0, "cuMemcpyDtoA_v2"},
    {"cuMemcpyDtoA", 7000, 1, "cuMemcpyDtoA_v2_ptds"},
    {"cuMemcpyDtoD", 2000, 0, "cuMemcpyDtoD"},
    {"cuMemcpyDtoD", 3020, 0, "cuMemcpyDtoD_v2"},
    {"cuMemcpyDtoD", 7000, 1, "cuMemcpyDtoD_v2_ptds"},
    {"cuMemcpyDtoDAsync", 3000, 0, "cuMemcpyDtoDAsync"},
    {"cuMemcpyDtoDAsync", 3020, 0, "cuMemcpyDtoDAsync_v2"},
    {"cuMemcpyDtoDAsync", 7000, 1, "cuMemcpyDtoDAsync_v2_ptsz"},
    {"cuMemcpyDtoH", 2000, 0, "cuMemcpyDtoH"},
    {"cuMemcpyDtoH", 3020, 0, "cuMemcpyDtoH_v2"},
    {"cuMemcpyDtoH", 7000, 1, "cuMemcpyDtoH_v2_ptds"},
    {"cuMemcpyDtoHAsync", 2000, 0, "cuMemcpyDtoHAsync"},
    {"cuMemcpyDtoHAsync", 3020, 0, "cuMemcpyDtoHAsync_v2"},
    {"cuMemcpyDtoHAsync", 7000, 1, "cuMemcpyDtoHAsync_v2_ptsz"},
    {"cuMemcpyHtoA", 2000, 0, "cuMemcpyHtoA"},
    {"cuMemcpyHtoA", 3020, 0, "cuMemcpyHtoA_v2"},
    {"cuMemcpyHtoA", 7000, 1, "cuMemcpyHtoA_v2_ptds"},
    {"cuMemcpyHtoAAsync", 2000, 0, "cuMemcpyHtoAAsync"},
    {"cuMemcpyHtoAAsync", 3020, 0, "cuMemcpyHtoAAsync_v2"},
    {"cuMemcpyHtoAAsync", 7000, 1, "cuMemcpyHtoAAsync_v2_ptsz"},
    {"cuMemcpyHtoD", 2000, 0, "cuMemcpyHtoD"},
    {"cuMemcpyHtoD", 3020, 0, "cuMemcpyHtoD_v2"},
    {"cuMemcpyHtoD", 7000, 1, "cuMemcpyHtoD_v2_ptds"},
    {"cuMemcpyHtoDAsync", 2000, 0, "cuMemcpyHtoDAsync"},
    {"cuMemcpyHtoDAsync", 3020, 0, "cuMemcpyHtoDAsync_v2"},
    {"cuMemcpyHtoDAsync", 7000, 1, "cuMemcpyHtoDAsync_v2_ptsz"},
    {"cuMemcpyPeer", 4000, 0, "cuMemcpyPeer"},
    {"cuMemcpyPeer", 7000, 1, "cuMemcpyPeer_ptds"},
    {"cuMemcpyPeerAsync", 4000, 0, "cuMemcpyPeerAsync"},
    {"cuMemcpyPeerAsync", 7000, 1, "cuMemcpyPeerAsync_ptsz"},
    {"cuMemsetD16", 2000, 0, "cuMemsetD16"},
    {"cuMemsetD16", 3020, 0, "cuMemsetD16_v2"},
    {"cuMemsetD16", 7000, 1, "cuMemsetD16_v2_ptds"},
    {"cuMemsetD16Async", 3020, 0, "cuMemsetD16Async"},
    {"cuMemsetD16Async", 7000, 1, "cuMemsetD16Async_ptsz"},
    {"cuMemsetD2D16", 2000, 0, "cuMemsetD2D16"},
    {"cuMemsetD2D16", 3020, 0, "cuMemsetD2D16_v2"},
    {"cuMemsetD2D16", 7000, 1, "cuMemsetD2D16_v2_ptds"},
    {"cuMemsetD2D16Async", 3020, 0, "cuMemsetD2D16Async"},
    {"cuMemsetD2D16Async", 7000, 1, "cuMemsetD2D16Async_ptsz"},
    {"cuMemsetD2D32", 2000, 0, "cuMemsetD2D32"},
    {"cuMemsetD2D32", 3020, 0, "cuMemsetD2D32_v2"},
    {"cuMemsetD2D32", 7000, 1, "cuMemsetD2D32_v2_ptds"},
    {"cuMemsetD2D32Async", 3020, 0, "cuMemsetD2D32Async"},
    {"cuMemsetD2D32Async", 7000, 1, "cuMemsetD2D32Async_ptsz"},
    {"cuMemsetD2D8", 2000, 0, "cuMemsetD2D8"},
    {"cuMemsetD2D8", 3020, 0, "cuMemsetD2D8_v2"},
    {"cuMemsetD2D8", 7000, 1, "cuMemsetD2D8_v2_ptds"},
    {"cuMemsetD2D8Async", 3020, 0, "cuMemsetD2D8Async"},
    {"cuMemsetD2D8Async", 7000, 1, "cuMemsetD2D8Async_ptsz"},
    {"cuMemsetD32", 2000, 0, "cuMemsetD32"},
    {"cuMemsetD32", 3020, 0, "cuMemsetD32_v2"},
    {"cuMemsetD32", 7000, 1, "cuMemsetD32_v2_ptds"},
    {"cuMemsetD32Async", 3020, 0, "cuMemsetD32Async"},
    {"cuMemsetD32Async", 7000, 1, "cuMemsetD32Async_ptsz"},
    {"cuMemsetD8", 2000, 0, "cuMemsetD8"},
    {"cuMemsetD8", 3020, 0, "cuMemsetD8_v2"},
    {"cuMemsetD8", 7000, 1, "cuMemsetD8_v2_ptds"},
    {"cuMemsetD8Async", 3020, 0, "cuMemsetD8Async"},
    {"cuMemsetD8Async", 7000, 1, "cuMemsetD8Async_ptsz"},
    {"cuMipmappedArrayCreate", 5000, 0, "cuMipmappedArrayCreate"},
    {"cuMipmappedArrayDestroy", 5000, 0, "cuMipmappedArrayDestroy"},
    {"cuMipmappedArrayGetLevel", 5000, 0, "cuMipmappedArrayGetLevel"},
    {"cuMipmappedArrayGetMemoryRequirements", 11060, 0, "cuMipmappedArrayGetMemoryRequirements"},
    {"cuMipmappedArrayGetSparseProperties", 11010, 0, "cuMipmappedArrayGetSparseProperties"},
    {"cuModuleEnumerateFunctions", 12040, 0, "cuModuleEnumerateFunctions"},
    {"cuModuleGetFunction", 2000, 0, "cuModuleGetFunction"},
    {"cuModuleGetFunctionCount", 12040, 0, "cuModuleGetFunctionCount"},
    {"cuModuleGetGlobal", 2000, 0, "cuModuleGetGlobal"},
    {"cuModuleGetGlobal", 3020, 0, "cuModuleGetGlobal_v2"},
    {"cuModuleGetLoadingMode", 11070, 0, "cuModuleGetLoadingMode"},
    {"cuModuleGetSurfRef", 3000, 0, "cuModuleGetSurfRef"},
    {"cuModuleGetTexRef", 2000, 0, "cuModuleGetTexRef"},
    {"cuModuleLoad", 2000, 0, "cuModuleLoad"},
    {"cuModuleLoadData", 2000, 0, "cuModuleLoadData"},
    {"cuModuleLoadDataEx", 2010, 0, "cuModuleLoadDataEx"},
    {"cuModuleLoadFatBinary", 2000, 0, "cuModuleLoadFatBinary"},
    {"cuModuleUnload", 2000, 0, "cuModuleUnload"},
    {"cuMulticastAddDevice", 12010, 0, "cuMulticastAddDevice"},
    {"cuMulticastBindAddr", 12010, 0, "cuMulticastBindAddr"},
    {"cuMulticastBindMem", 12010, 0, "cuMulticastBindMem"},
    {"cuMulticastCreate", 12010, 0, "cuMulticastCreate"},
    {"cuMulticastGetGranularity", 12010, 0, "cuMulticastGetGranularity"},
    {"cuMulticastUnbind", 12010, 0, "cuMulticastUnbind"},
    {"cuOccupancyAvailableDynamicSMemPerBlock", 10020, 0, "cuOccupancyAvailableDynamicSMemPerBlock"},
    {"cuOccupancyMaxActiveBlocksPerMultiprocessor", 6050, 0, "cuOccupancyMaxActiveBlocksPerMultiprocessor"},
    {"cuOccupancyMaxActiveBlocksPerMultiprocessorWithFlags", 7000, 0, "cuOccupancyMaxActiveBlocksPerMultiprocessorWithFlags"},
    {"cuOccupancyMaxActiveClusters", 11070, 0, "cuOccupancyMaxActiveClusters"},
    {"cuOccupancyMaxPotentialBlockSize", 6050, 0, "cuOccupancyMaxPotentialBlockSize"},
    {"cuOccupancyMaxPotentialBlockSizeWithFlags", 7000, 0, "cuOccupancyMaxPotentialBlockSizeWithFlags"},
    {"cuOccupancyMaxPotentialClusterSize", 11070, 0, "cuOccupancyMaxPotentialClusterSize"},
    {"cuParamSetSize", 2000, 0, "cuParamSetSize"},
    {"cuParamSetTexRef", 2000, 0, "cuParamSetTexRef"},
    {"cuParamSetf", 2000, 0, "cuParamSetf"},
    {"cuParamSeti", 2000, 0, "cuParamSeti"},
    {"cuParamSetv", 2000, 0, "cuParamSetv"},
    {"cuPointerGetAttribute", 4000, 0, "cuPointerGetAttribute"},
    {"cuPointerGetAttributes", 7000, 0, "cuPointerGetAttributes"},
    {"cuPointerSetAttribute", 6000, 0, "cuPointerSetAttribute"},
    {"cuSignalExternalSemaphoresAsync", 10000, 0, "cuSignalExternalSemaphoresAsync"},
    {"cuSignalExternalSemaphoresAsync", 10000, 1, "cuSignalExternalSemaphoresAsync_ptsz"},
    {"cuStreamAddCallback", 5000, 0, "cuStreamAddCallback"},
    {"cuStreamAddCallback", 7000, 1, "cuStreamAddCallback_ptsz"},
    {"cuStreamAttachMemAsync", 6000, 0, "cuStreamAttachMemAsync"},
    {"cuStreamAttachMemAsync", 7000, 1, "cuStreamAttachMemAsync_ptsz"},
    {"cuStreamBatchMemOp", 8000, 0, "cuStreamBatchMemOp"},
    {"cuStreamBatchMemOp", 11070, 0, "cuStreamBatchMemOp_v2"},
    {"cuStreamBatchMemOp", 8000, 1, "cuStreamBatchMemOp_ptsz"},
    {"cuStreamBatchMemOp", 11070, 1, "cuStreamBatchMemOp_v2_ptsz"},
    {"cuStreamBeginCapture", 10000, 0, "cuStreamBeginCapture"},
    {"cuStreamBeginCapture", 10010, 0, "cuStreamBeginCapture_v2"},
    {"cuStreamBeginCapture", 10000, 1, "cuStreamBeginCapture_ptsz"},
    {"cuStreamBeginCapture", 10010, 1, "cuStreamBeginCapture_v2_ptsz"},
    {"cuStreamBeginCaptureToGraph", 12030, 0, "cuStreamBeginCaptureToGraph"},
    {"cuStreamBeginCaptureToGraph", 12030, 1, "cuStreamBeginCaptureToGraph_ptsz"},
    {"cuStreamCopyAttributes", 11000, 0, "cuStreamCopyAttributes"},
    {"cuStreamCopyAttributes", 11000, 1, "cuStreamCopyAttributes_ptsz"},
    {"cuStreamCreate", 2000, 0, "cuStreamCreate"},
    {"cuStreamCreateWithPriority", 5050, 0, "cuStreamCreateWithPriority"},
    {"cuStreamDestroy", 2000, 0, "cuStreamDestroy"},
    {"cuStreamDestroy", 4000, 0, "cuStreamDestroy_v2"},
    {"cuStreamEndCapture", 10000, 0, "cuStreamEndCapture"},
    {"cuStreamEndCapture", 10000, 1, "cuStreamEndCapture_ptsz"},
    {"cuStreamGetAttribute", 11000, 0, "cuStreamGetAttribute"},
    {"cuStreamGetAttribute", 11000, 1, "cuStreamGetAttribute_ptsz"},
    {"cuStreamGetCaptureInfo", 10010, 0, "cuStreamGetCaptureInfo"},
    {"cuStreamGetCaptureInfo", 11030, 0, "cuStreamGetCaptureInfo_v2"},
    {"cuStreamGetCaptureInfo", 12030, 0, "cuStreamGetCaptureInfo_v3"},
    {"cuStreamGetCaptureInfo", 10010, 1, "cuStreamGetCaptureInfo_ptsz"},
    {"cuStreamGetCaptureInfo", 11030, 1, "cuStreamGetCaptureInfo_v2_ptsz"},
    {"cuStreamGetCaptureInfo", 12030, 1, "cuStreamGetCaptureInfo_v3_ptsz"},
    {"cuStreamGetCtx", 9020, 0, "cuStreamGetCtx"},
    {"cuStreamGetCtx", 12050, 0, "cuStreamGetCtx_v2"},
    {"cuStreamGetCtx", 9020, 1, "cuStreamGetCtx_ptsz"},
    {"cuStreamGetCtx", 12050, 1, "cuStreamGetCtx_v2_ptsz"},
    {"cuStreamGetDevice", 12080, 0, "cuStreamGetDevice"},
    {"cuStreamGetDevice", 12080, 1, "cuStreamGetDevice_ptsz"},
    {"cuStreamGetFlags", 5050, 0, "cuStreamGetFlags"},
    {"cuStreamGetFlags", 7000, 1, "cuStreamGetFlags_ptsz"},
    {"cuStreamGetGreenCtx", 12040, 0, "cuStreamGetGreenCtx"},
    {"cuStreamGetId", 12000, 0, "cuStreamGetId"},
    {"cuStreamGetId", 12000, 1, "cuStreamGetId_ptsz"},
    {"cuStreamGetPriority", 5050, 0, "cuStreamGetPriority"},
    {"cuStreamGetPriority", 7000, 1, "cuStreamGetPriority_ptsz"},
    {"cuStreamIsCapturing", 10000, 0, "cuStreamIsCapturing"},
    {"cuStreamIsCapturing", 10000, 1, "cuStreamIsCapturing_ptsz"},
    {"cuStreamQuery", 2000, 0, "cuStreamQuery"},
    {"cuStreamQuery", 7000, 1, "cuStreamQuery_ptsz"},
    {"cuStreamSetAttribute", 11000, 0, "cuStreamSetAttribute"},
    {"cuStreamSetAttribute", 11000, 1, "cuStreamSetAttribute_ptsz"},
    {"cuStreamSynchronize", 2000, 0, "cuStreamSynchronize"},
    {"cuStreamSynchronize", 7000, 1, "cuStreamSynchronize_ptsz"},
    {"cuStreamUpdateCaptureDependencies", 11030, 0, "cuStreamUpdateCaptureDependencies"},
    {"cuStreamUpdateCaptureDependencies", 12030, 0, "cuStreamUpdateCaptureDependencies_v2"},
    {"cuStreamUpdateCaptureDependencies", 11030, 1, "cuStreamUpdateCaptureDependencies_ptsz"},
    {"cuStreamUpdateCaptureDependencies", 12030, 1, "cuStreamUpdateCaptureDependencies_v2_ptsz"},
    {"cuStreamWaitEvent", 3020, 0, "cuStreamWaitEvent"},
    {"cuStreamWaitEvent", 7000, 1, "cuStreamWaitEvent_ptsz"},
    {"cuStreamWaitValue32", 8000, 0, "cuStreamWaitValue32"},
    {"cuStreamWaitValue32", 11070, 0, "cuStreamWaitValue32_v2"},
    {"cuStreamWaitValue32", 8000, 1, "cuStreamWaitValue32_ptsz"},
    {"cuStreamWaitValue32", 11070, 1, "cuStreamWaitValue32_v2_ptsz"},
    {"cuStreamWaitValue64", 9000, 0, "cuStreamWaitValue64"},
    {"cuStreamWaitValue64", 11070, 0, "cuStreamWaitValue64_v2"},
    {"cuStreamWaitValue64", 9000, 1, "cuStreamWaitValue64_ptsz"},
    {"cuStreamWaitValue64", 11070, 1, "cuStreamWaitValue64_v2_ptsz"},
    {"cuStreamWriteValue32", 8000, 0, "cuStreamWriteValue32"},
    {"cuStreamWriteValue32", 11070, 0, "cuStreamWriteValue32_v2"},
    {"cuStreamWriteValue32", 8000, 1, "cuStreamWriteValue32_ptsz"},
    {"cuStreamWriteValue32", 11070, 1, "cuStreamWriteValue32_v2_ptsz"},
    {"cuStreamWriteValue64", 9000, 0, "cuStreamWriteValue64"},
    {"cuStreamWriteValue64", 11070, 0, "cuStreamWriteValue64_v2"},
    {"cuStreamWriteValue64", 9000, 1, "cuStreamWriteValue64_ptsz"},
    {"cuStreamWriteValue64", 11070, 1, "cuStreamWriteValue64_v2_ptsz"},
    {"cuSurfObjectCreate", 5000, 0, "cuSurfObjectCreate"},
    {"cuSurfObjectDestroy", 5000, 0, "cuSurfObjectDestroy"},
    {"cuSurfObjectGetResourceDesc", 5000, 0, "cuSurfObjectGetResourceDesc"},
    {"cuSurfRefGetArray", 3000, 0, "cuSurfRefGetArray"},
    {"cuSurfRefSetArray", 3000, 0, "cuSurfRefSetArray"},
    {"cuTensorMapEncodeIm2col", 12000, 0, "cuTensorMapEncodeIm2col"},
    {"cuTensorMapEncodeIm2colWide", 12080, 0, "cuTensorMapEncodeIm2colWide"},
    {"cuTensorMapEncodeTiled", 12000, 0, "cuTensorMapEncodeTiled"},
    {"cuTensorMapReplaceAddress", 12000, 0, "cuTensorMapReplaceAddress"},
    {"cuTexObjectCreate", 5000, 0, "cuTexObjectCreate"},
    {"cuTexObjectDestroy", 5000, 0, "cuTexObjectDestroy"},
    {"cuTexObjectGetResourceDesc", 5000, 0, "cuTexObjectGetResourceDesc"},
    {"cuTexObjectGetResourceViewDesc", 5000, 0, "cuTexObjectGetResourceViewDesc"},
    {"cuTexObjectGetTextureDesc", 5000, 0, "cuTexObjectGetTextureDesc"},
    {"cuTexRefCreate", 2000, 0, "cuTexRefCreate"},
    {"cuTexRefDestroy", 2000, 0, "cuTexRefDestroy"},
    {"cuTexRefGetAddress", 2000, 0, "cuTexRefGetAddress"},
    {"cuTexRefGetAddress", 3020, 0, "cuTexRefGetAddress_v2"},
    {"cuTexRefGetAddressMode", 2000, 0, "cuTexRefGetAddressMode"},
    {"cuTexRefGetArray", 2000, 0, "cuTexRefGetArray"},
    {"cuTexRefGetBorderColor", 8000, 0, "cuTexRefGetBorderColor"},
    {"cuTexRefGetFilterMode", 2000, 0, "cuTexRefGetFilterMode"},
    {"cuTexRefGetFlags", 2000, 0, "cuTexRefGetFlags"},
    {"cuTexRefGetFormat", 2000, 0, "cuTexRefGetFormat"},
    {"cuTexRefGetMaxAnisotropy", 5000, 0, "cuTexRefGetMaxAnisotropy"},
    {"cuTexRefGetMipmapFilterMode", 5000, 0, "cuTexRefGetMipmapFilterMode"},
    {"cuTexRefGetMipmapLevelBias", 5000, 0, "cuTexRefGetMipmapLevelBias"},
    {"cuTexRefGetMipmapLevelClamp", 5000, 0, "cuTexRefGetMipmapLevelClamp"},
    {"cuTexRefGetMipmappedArray", 5000, 0, "cuTexRefGetMipmappedArray"},
    {"cuTexRefSetAddress", 2000, 0, "cuTexRefSetAddress"},
    {"cuTexRefSetAddress", 3020, 0, "cuTexRefSetAddress_v2"},
    {"cuTexRefSetAddress2D", 2020, 0, "cuTexRefSetAddress2D"},
    {"cuTexRefSetAddress2D", 3020, 0, "cuTexRefSetAddress2D_v2"},
    {"cuTexRefSetAddress2D", 4010, 0, "cuTexRefSetAddress2D_v3"},
    {"cuTexRefSetAddressMode", 2000, 0, "cuTexRefSetAddressMode"},
    {"cuTexRefSetArray", 2000, 0, "cuTexRefSetArray"},
    {"cuTexRefSetBorderColor", 8000, 0, "cuTexRefSetBorderColor"},
    {"cuTexRefSetFilterMode", 2000, 0, "cuTexRefSetFilterMode"},
    {"cuTexRefSetFlags", 2000, 0, "cuTexRefSetFlags"},
    {"cuTexRefSetFormat", 2000, 0, "cuTexRefSetFormat"},
    {"cuTexRefSetMaxAnisotropy", 5000, 0, "cuTexRefSetMaxAnisotropy"},
    {"cuTexRefSetMipmapFilterMode", 5000, 0, "cuTexRefSetMipmapFilterMode"},
    {"cuTexRefSetMipmapLevelBias", 5000, 0, "cuTexRefSetMipmapLevelBias"},
    {"cuTexRefSetMipmapLevelClamp", 5000, 0, "cuTexRefSetMipmapLevelClamp"},
    {"cuTexRefSetMipmappedArray", 5000, 0, "cuTexRefSetMipmappedArray"},
    {"cuThreadExchangeStreamCaptureMode", 10010, 0, "cuThreadExchangeStreamCaptureMode"},
    {"cuUserObjectCreate", 11030, 0, "cuUserObjectCreate"},
    {"cuUserObjectRelease", 11030, 0, "cuUserObjectRelease"},
    {"cuUserObjectRetain", 11030, 0, "cuUserObjectRetain"},
    {"cuWaitExternalSemaphoresAsync", 10000, 0, "cuWaitExternalSemaphoresAsync"},
    {"cuWaitExternalSemaphoresAsync", 10000, 1, "cuWaitExternalSemaphoresAsync_ptsz"},
};
const size_t rgpu_nproc_versions = 634;

extern int cuCtxDestroy();
extern int cuCtxPopCurrent();
extern int cuCtxPushCurrent();
extern int cuDevicePrimaryCtxRelease();
extern int cuDevicePrimaryCtxReset();
extern int cuDevicePrimaryCtxSetFlags();
extern int cuEventDestroy();
extern int cuEventRecordWithFlags_ptsz();
extern int cuEventRecord_ptsz();
extern int cuGetProcAddress();
extern int cuGraphInstantiate();
extern int cuGraphInstantiateWithParams_ptsz();
extern int cuGraphInstantiate_v2();
extern int cuGraphLaunch_ptsz();
extern int cuGraphUpload_ptsz();
extern int cuGraphicsMapResources_ptsz();
extern int cuGraphicsResourceSetMapFlags();
extern int cuGraphicsUnmapResources_ptsz();
extern int cuIpcOpenMemHandle();
extern int cuLaunchCooperativeKernel_ptsz();
extern int cuLaunchHostFunc_ptsz();
extern int cuLaunchKernelEx_ptsz();
extern int cuLaunchKernel_ptsz();
extern int cuLinkAddData();
extern int cuLinkAddFile();
extern int cuLinkCreate();
extern int cuMemAllocAsync_ptsz();
extern int cuMemAllocFromPoolAsync_ptsz();
extern int cuMemBatchDecompressAsync_ptsz();
extern int cuMemDiscardAndPrefetchBatchAsync_ptsz();
extern int cuMemDiscardBatchAsync_ptsz();
extern int cuMemFreeAsync_ptsz();
extern int cuMemHostRegister();
extern int cuMemMapArrayAsync_ptsz();
extern int cuMemPrefetchAsync_v2_ptsz();
extern int cuMemPrefetchBatchAsync_ptsz();
extern int cuMemcpy2DAsync_v2_ptsz();
extern int cuMemcpy2DUnaligned_v2_ptds();
extern int cuMemcpy2D_v2_ptds();
extern int cuMemcpy3DAsync_v2_ptsz();
extern int cuMemcpy3DBatchAsync_v2_ptsz();
extern int cuMemcpy3DPeerAsync_ptsz();
extern int cuMemcpy3DPeer_ptds();
extern int cuMemcpy3D_v2_ptds();
extern int cuMemcpyAsync_ptsz();
extern int cuMemcpyAtoA_v2_ptds();
extern int cuMemcpyAtoD_v2_ptds();
extern int cuMemcpyAtoHAsync_v2_ptsz();
extern int cuMemcpyAtoH_v2_ptds();
extern int cuMemcpyBatchAsync_v2_ptsz();
extern int cuMemcpyDtoA_v2_ptds();
extern int cuMemcpyDtoDAsync_v2_ptsz();
extern int cuMemcpyDtoD_v2_ptds();
extern int cuMemcpyDtoHAsync_v2_ptsz();
extern int cuMemcpyDtoH_v2_ptds();
extern int cuMemcpyHtoAAsync_v2_ptsz();
extern int cuMemcpyHtoA_v2_ptds();
extern int cuMemcpyHtoDAsync_v2_ptsz();
extern int cuMemcpyHtoD_v2_ptds();
extern int cuMemcpyPeerAsync_ptsz();
extern int cuMemcpyPeer_ptds();
extern int cuMemcpy_ptds();
extern int cuMemsetD16Async_ptsz();
extern int cuMemsetD16_v2_ptds();
extern int cuMemsetD2D16Async_ptsz();
extern int cuMemsetD2D16_v2_ptds();
extern int cuMemsetD2D32Async_ptsz();
extern int cuMemsetD2D32_v2_ptds();
extern int cuMemsetD2D8Async_ptsz();
extern int cuMemsetD2D8_v2_ptds();
extern int cuMemsetD32Async_ptsz();
extern int cuMemsetD32_v2_ptds();
extern int cuMemsetD8Async_ptsz();
extern int cuMemsetD8_v2_ptds();
extern int cuSignalExternalSemaphoresAsync_ptsz();
extern int cuStreamAddCallback_ptsz();
extern int cuStreamAttachMemAsync_ptsz();
extern int cuStreamBatchMemOp_v2_ptsz();
extern int cuStreamBeginCaptureToGraph_ptsz();
extern int cuStreamBeginCapture_v2_ptsz();
extern int cuStreamCopyAttributes_ptsz();
extern int cuStreamDestroy();
extern int cuStreamEndCapture_ptsz();
extern int cuStreamGetAttribute_ptsz();
extern int cuStreamGetCaptureInfo();
extern int cuStreamGetCaptureInfo_ptsz();
extern int cuStreamGetCaptureInfo_v2_ptsz();
extern int cuStreamGetCaptureInfo_v3_ptsz();
extern int cuStreamGetCtx_ptsz();
extern int cuStreamGetCtx_v2_ptsz();
extern int cuStreamGetDevice_ptsz();
extern int cuStreamGetFlags_ptsz();
extern int cuStreamGetId_ptsz();
extern int cuStreamGetPriority_ptsz();
extern int cuStreamIsCapturing_ptsz();
extern int cuStreamQuery_ptsz();
extern int cuStreamSetAttribute_ptsz();
extern int cuStreamSynchronize_ptsz();
extern int cuStreamUpdateCaptureDependencies_v2_ptsz();
extern int cuStreamWaitEvent_ptsz();
extern int cuStreamWaitValue32_v2_ptsz();
extern int cuStreamWaitValue64_v2_ptsz();
extern int cuStreamWriteValue32_v2_ptsz();
extern int cuStreamWriteValue64_v2_ptsz();
extern int cuTexRefSetAddress2D_v2();
extern int cuWaitExternalSemaphoresAsync_ptsz();
const rgpu_proc rgpu_procs_legacy[] = {
    {"cuArray3DCreate", (void *)cuArray3DCreate},
    {"cuArray3DGetDescriptor", (void *)cuArray3DGetDescriptor},
    {"cuArrayCreate", (void *)cuArrayCreate},
    {"cuArrayGetDescriptor", (void *)cuArrayGetDescriptor},
    {"cuCtxCreate", (void *)cuCtxCreate},
    {"cuCtxDestroy", (void *)cuCtxDestroy},
    {"cuCtxPopCurrent", (void *)cuCtxPopCurrent},
    {"cuCtxPushCurrent", (void *)cuCtxPushCurrent},
    {"cuDevicePrimaryCtxRelease", (void *)cuDevicePrimaryCtxRelease},
    {"cuDevicePrimaryCtxReset", (void *)cuDevicePrimaryCtxReset},
    {"cuDevicePrimaryCtxSetFlags", (void *)cuDevicePrimaryCtxSetFlags},
    {"cuDeviceTotalMem", (void *)cuDeviceTotalMem},
    {"cuEventDestroy", (void *)cuEventDestroy},
    {"cuEventRecordWithFlags_ptsz", (void *)cuEventRecordWithFlags_ptsz},
    {"cuEventRecord_ptsz", (void *)cuEventRecord_ptsz},
    {"cuGetProcAddress", (void *)cuGetProcAddress},
    {"cuGraphAddKernelNode", (void *)cuGraphAddKernelNode},
    {"cuGraphExecKernelNodeSetParams", (void *)cuGraphExecKernelNodeSetParams},
    {"cuGraphExecUpdate", (void *)cuGraphExecUpdate},
    {"cuGraphInstantiate", (void *)cuGraphInstantiate},
    {"cuGraphInstantiateWithParams_ptsz", (void *)cuGraphInstantiateWithParams_ptsz},
    {"cuGraphInstantiate_v2", (void *)cuGraphInstantiate_v2},
    {"cuGraphKernelNodeGetParams", (void *)cuGraphKernelNodeGetParams},
    {"cuGraphKernelNodeSetParams", (void *)cuGraphKernelNodeSetParams},
    {"cuGraphLaunch_ptsz", (void *)cuGraphLaunch_ptsz},
    {"cuGraphUpload_ptsz", (void *)cuGraphUpload_ptsz},
    {"cuGraphicsMapResources_ptsz", (void *)cuGraphicsMapResources_ptsz},
    {"cuGraphicsResourceGetMappedPointer", (void *)cuGraphicsResourceGetMappedPointer},
    {"cuGraphicsResourceSetMapFlags", (void *)cuGraphicsResourceSetMapFlags},
    {"cuGraphicsUnmapResources_ptsz", (void *)cuGraphicsUnmapResources_ptsz},
    {"cuIpcOpenMemHandle", (void *)cuIpcOpenMemHandle},
    {"cuLaunchCooperativeKernel_ptsz", (void *)cuLaunchCooperativeKernel_ptsz},
    {"cuLaunchHostFunc_ptsz", (void *)cuLaunchHostFunc_ptsz},
    {"cuLaunchKernelEx_ptsz", (void *)cuLaunchKernelEx_ptsz},
    {"cuLaunchKernel_ptsz", (void *)cuLaunchKernel_ptsz},
    {"cuLinkAddData", (void *)cuLinkAddData},
    {"cuLinkAddFile", (void *)cuLinkAddFile},
    {"cuLinkCreate", (void *)cuLinkCreate},
    {"cuMemAlloc", (void *)cuMemAlloc},
    {"cuMemAllocAsync_ptsz", (void *)cuMemAllocAsync_ptsz},
    {"cuMemAllocFromPoolAsync_ptsz", (void *)cuMemAllocFromPoolAsync_ptsz},
    {"cuMemAllocHost", (void *)cuMemAllocHost},
    {"cuMemAllocPitch", (void *)cuMemAllocPitch},
    {"cuMemBatchDecompressAsync_ptsz", (void *)cuMemBatchDecompressAsync_ptsz},
    {"cuMemDiscardAndPrefetchBatchAsync_ptsz", (void *)cuMemDiscardAndPrefetchBatchAsync_ptsz},
    {"cuMemDiscardBatchAsync_ptsz", (void *)cuMemDiscardBatchAsync_ptsz},
    {"cuMemFree", (void *)cuMemFree},
    {"cuMemFreeAsync_ptsz", (void *)cuMemFreeAsync_ptsz},
    {"cuMemGetAddressRange", (void *)cuMemGetAddressRange},
    {"cuMemGetInfo", (void *)cuMemGetInfo},
    {"cuMemHostGetDevicePointer", (void *)cuMemHostGetDevicePointer},
    {"cuMemHostRegister", (void *)cuMemHostRegister},
    {"cuMemMapArrayAsync_ptsz", (void *)cuMemMapArrayAsync_ptsz},
    {"cuMemPrefetchAsync_ptsz", (void *)cuMemPrefetchAsync_ptsz},
    {"cuMemPrefetchAsync_v2_ptsz", (void *)cuMemPrefetchAsync_v2_ptsz},
    {"cuMemPrefetchBatchAsync_ptsz", (void *)cuMemPrefetchBatchAsync_ptsz},
    {"cuMemcpy2D", (void *)cuMemcpy2D},
    {"cuMemcpy2DAsync", (void *)cuMemcpy2DAsync},
    {"cuMemcpy2DAsync_v2_ptsz", (void *)cuMemcpy2DAsync_v2_ptsz},
    {"cuMemcpy2DUnaligned", (void *)cuMemcpy2DUnaligned},
    {"cuMemcpy2DUnaligned_v2_ptds", (void *)cuMemcpy2DUnaligned_v2_ptds},
    {"cuMemcpy2D_v2_ptds", (void *)cuMemcpy2D_v2_ptds},
    {"cuMemcpy3D", (void *)cuMemcpy3D},
    {"cuMemcpy3DAsync", (void *)cuMemcpy3DAsync},
    {"cuMemcpy3DAsync_v2_ptsz", (void *)cuMemcpy3DAsync_v2_ptsz},
    {"cuMemcpy3DBatchAsync_ptsz", (void *)cuMemcpy3DBatchAsync_ptsz},
    {"cuMemcpy3DBatchAsync_v2_ptsz", (void *)cuMemcpy3DBatchAsync_v2_ptsz},
    {"cuMemcpy3DPeerAsync_ptsz", (void *)cuMemcpy3DPeerAsync_ptsz},
    {"cuMemcpy3DPeer_ptds", (void *)cuMemcpy3DPeer_ptds},
    {"cuMemcpy3D_v2_ptds", (void *)cuMemcpy3D_v2_ptds},
    {"cuMemcpyAsync_ptsz", (void *)cuMemcpyAsync_ptsz},
    {"cuMemcpyAtoA", (void *)cuMemcpyAtoA},
    {"cuMemcpyAtoA_v2_ptds", (void *)cuMemcpyAtoA_v2_ptds},
    {"cuMemcpyAtoD", (void *)cuMemcpyAtoD},
    {"cuMemcpyAtoD_v2_ptds", (void *)cuMemcpyAtoD_v2_ptds},
    {"cuMemcpyAtoH", (void *)cuMemcpyAtoH},
    {"cuMemcpyAtoHAsync", (void *)cuMemcpyAtoHAsync},
    {"cuMemcpyAtoHAsync_v2_ptsz", (void *)cuMemcpyAtoHAsync_v2_ptsz},
    {"cuMemcpyAtoH_v2_ptds", (void *)cuMemcpyAtoH_v2_ptds},
    {"cuMemcpyBatchAsync_ptsz", (void *)cuMemcpyBatchAsync_ptsz},
    {"cuMemcpyBatchAsync_v2_ptsz", (void *)cuMemcpyBatchAsync_v2_ptsz},
    {"cuMemcpyDtoA", (void *)cuMemcpyDtoA},
    {"cuMemcpyDtoA_v2_ptds", (void *)cuMemcpyDtoA_v2_ptds},
    {"cuMemcpyDtoD", (void *)cuMemcpyDtoD},
    {"cuMemcpyDtoDAsync", (void *)cuMemcpyDtoDAsync},
    {"cuMemcpyDtoDAsync_v2_ptsz", (void *)cuMemcpyDtoDAsync_v2_ptsz},
    {"cuMemcpyDtoD_v2_ptds", (void *)cuMemcpyDtoD_v2_ptds},
    {"cuMemcpyDtoH", (void *)cuMemcpyDtoH},
    {"cuMemcpyDtoHAsync", (void *)cuMemcpyDtoHAsync},
    {"cuMemcpyDtoHAsync_v2_ptsz", (void *)cuMemcpyDtoHAsync_v2_ptsz},
    {"cuMemcpyDtoH_v2_ptds", (void *)cuMemcpyDtoH_v2_ptds},
    {"cuMemcpyHtoA", (void *)cuMemcpyHtoA},
    {"cuMemcpyHtoAAsync", (void *)cuMemcpyHtoAAsync},
    {"cuMemcpyHtoAAsync_v2_ptsz", (void *)cuMemcpyHtoAAsync_v2_ptsz},
    {"cuMemcpyHtoA_v2_ptds", (void *)cuMemcpyHtoA_v2_ptds},
    {"cuMemcpyHtoD", (void *)cuMemcpyHtoD},
    {"cuMemcpyHtoDAsync", (void *)cuMemcpyHtoDAsync},
    {"cuMemcpyHtoDAsync_v2_ptsz", (void *)cuMemcpyHtoDAsync_v2_ptsz},
    {"cuMemcpyHtoD_v2_ptds", (void *)cuMemcpyHtoD_v2_ptds},
    {"cuMemcpyPeerAsync_ptsz", (void *)cuMemcpyPeerAsync_ptsz},
    {"cuMemcpyPeer_ptds", (void *)cuMemcpyPeer_ptds},
    {"cuMemcpy_ptds", (void *)cuMemcpy_ptds},
    {"cuMemsetD16", (void *)cuMemsetD16},
    {"cuMemsetD16Async_ptsz", (void *)cuMemsetD16Async_ptsz},
    {"cuMemsetD16_v2_ptds", (void *)cuMemsetD16_v2_ptds},
    {"cuMemsetD2D16", (void *)cuMemsetD2D16},
    {"cuMemsetD2D16Async_ptsz", (void *)cuMemsetD2D16Async_ptsz},
    {"cuMemsetD2D16_v2_ptds", (void *)cuMemsetD2D16_v2_ptds},
    {"cuMemsetD2D32", (void *)cuMemsetD2D32},
    {"cuMemsetD2D32Async_ptsz", (void *)cuMemsetD2D32Async_ptsz},
    {"cuMemsetD2D32_v2_ptds", (void *)cuMemsetD2D32_v2_ptds},
    {"cuMemsetD2D8", (void *)cuMemsetD2D8},
    {"cuMemsetD2D8Async_ptsz", (void *)cuMemsetD2D8Async_ptsz},
    {"cuMemsetD2D8_v2_ptds", (void *)cuMemsetD2D8_v2_ptds},
    {"cuMemsetD32", (void *)cuMemsetD32},
    {"cuMemsetD32Async_ptsz", (void *)cuMemsetD32Async_ptsz},
    {"cuMemsetD32_v2_ptds", (void *)cuMemsetD32_v2_ptds},
    {"cuMemsetD8", (void *)cuMemsetD8},
    {"cuMemsetD8Async_ptsz", (void *)cuMemsetD8Async_ptsz},
    {"cuMemsetD8_v2_ptds", (void *)cuMemsetD8_v2_ptds},
    {"cuModuleGetGlobal", (void *)cuModuleGetGlobal},
    {"cuSignalExternalSemaphoresAsync_ptsz", (void *)cuSignalExternalSemaphoresAsync_ptsz},
    {"cuStreamAddCallback_ptsz", (void *)cuStreamAddCallback_ptsz},
    {"cuStreamAttachMemAsync_ptsz", (void *)cuStreamAttachMemAsync_ptsz},
    {"cuStreamBatchMemOp", (void *)cuStreamBatchMemOp},
    {"cuStreamBatchMemOp_ptsz", (void *)cuStreamBatchMemOp_ptsz},
    {"cuStreamBatchMemOp_v2_ptsz", (void *)cuStreamBatchMemOp_v2_ptsz},
    {"cuStreamBeginCapture", (void *)cuStreamBeginCapture},
    {"cuStreamBeginCaptureToGraph_ptsz", (void *)cuStreamBeginCaptureToGraph_ptsz},
    {"cuStreamBeginCapture_ptsz", (void *)cuStreamBeginCapture_ptsz},
    {"cuStreamBeginCapture_v2_ptsz", (void *)cuStreamBeginCapture_v2_ptsz},
    {"cuStreamCopyAttributes_ptsz", (void *)cuStreamCopyAttributes_ptsz},
    {"cuStreamDestroy", (void *)cuStreamDestroy},
    {"cuStreamEndCapture_ptsz", (void *)cuStreamEndCapture_ptsz},
    {"cuStreamGetAttribute_ptsz", (void *)cuStreamGetAttribute_ptsz},
    {"cuStreamGetCaptureInfo", (void *)cuStreamGetCaptureInfo},
    {"cuStreamGetCaptureInfo_ptsz", (void *)cuStreamGetCaptureInfo_ptsz},
    {"cuStreamGetCaptureInfo_v2_ptsz", (void *)cuStreamGetCaptureInfo_v2_ptsz},
    {"cuStreamGetCaptureInfo_v3_ptsz", (void *)cuStreamGetCaptureInfo_v3_ptsz},
    {"cuStreamGetCtx_ptsz", (void *)cuStreamGetCtx_ptsz},
    {"cuStreamGetCtx_v2_ptsz", (void *)cuStreamGetCtx_v2_ptsz},
    {"cuStreamGetDevice_ptsz", (void *)cuStreamGetDevice_ptsz},
    {"cuStreamGetFlags_ptsz", (void *)cuStreamGetFlags_ptsz},
    {"cuStreamGetId_ptsz", (void *)cuStreamGetId_ptsz},
    {"cuStreamGetPriority_ptsz", (void *)cuStreamGetPriority_ptsz},
    {"cuStreamIsCapturing_ptsz", (void *)cuStreamIsCapturing_ptsz},
    {"cuStreamQuery_ptsz", (void *)cuStreamQuery_ptsz},
    {"cuStreamSetAttribute_ptsz", (void *)cuStreamSetAttribute_ptsz},
    {"cuStreamSynchronize_ptsz", (void *)cuStreamSynchronize_ptsz},
    {"cuStreamUpdateCaptureDependencies_ptsz", (void *)cuStreamUpdateCaptureDependencies_ptsz},
    {"cuStreamUpdateCaptureDependencies_v2_ptsz", (void *)cuStreamUpdateCaptureDependencies_v2_ptsz},
    {"cuStreamWaitEvent_ptsz", (void *)cuStreamWaitEvent_ptsz},
    {"cuStreamWaitValue32", (void *)cuStreamWaitValue32},
    {"cuStreamWaitValue32_ptsz", (void *)cuStreamWaitValue32_ptsz},
    {"cuStreamWaitValue32_v2_ptsz", (void *)cuStreamWaitValue32_v2_ptsz},
    {"cuStreamWaitValue64", (void *)cuStreamWaitValue64},
    {"cuStreamWaitValue64_ptsz", (void *)cuStreamWaitValue64_ptsz},
    {"cuStreamWaitValue64_v2_ptsz", (void *)cuStreamWaitValue64_v2_ptsz},
    {"cuStreamWriteValue32", (void *)cuStreamWriteValue32},
    {"cuStreamWriteValue32_ptsz", (void *)cuStreamWriteValue32_ptsz},
    {"cuStreamWriteValue32_v2_ptsz", (void *)cuStreamWriteValue32_v2_ptsz},
    {"cuStreamWriteValue64", (void *)cuStreamWriteValue64},
    {"cuStreamWriteValue64_ptsz", (void *)cuStreamWriteValue64_ptsz},
    {"cuStreamWriteValue64_v2_ptsz", (void *)cuStreamWriteValue64_v2_ptsz},
    {"cuTexRefGetAddress", (void *)cuTexRefGetAddress},
    {"cuTexRefSetAddress", (void *)cuTexRefSetAddress},
    {"cuTexRefSetAddress2D", (void *)cuTexRefSetAddress2D},
    {"cuTexRefSetAddress2D_v2", (void *)cuTexRefSetAddress2D_v2},
    {"cuWaitExternalSemaphoresAsync_ptsz", (void *)cuWaitExternalSemaphoresAsync_ptsz},
};
const size_t rgpu_nprocs_legacy = 169;
