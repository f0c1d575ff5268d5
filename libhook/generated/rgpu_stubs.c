/* generated from CUDA 13.0 by protocol/codegen — do not edit */
#include "rgpu_call.h"
#include "rgpu_ids.h"

typedef struct { uint64_t w[3]; } rgpu_blob24;

int rgpu_capture_cuMemcpyDtoDAsync_v2(int *rc, uint64_t dstDevice, uint64_t srcDevice, uint64_t ByteCount, void * hStream);
int rgpu_capture_cuMemsetD8Async(int *rc, uint64_t dstDevice, uint8_t uc, uint64_t N, void * hStream);
int rgpu_capture_cuMemsetD16Async(int *rc, uint64_t dstDevice, uint16_t us, uint64_t N, void * hStream);
int rgpu_capture_cuMemsetD32Async(int *rc, uint64_t dstDevice, uint32_t ui, uint64_t N, void * hStream);
int rgpu_capture_cuMemsetD2D8Async(int *rc, uint64_t dstDevice, uint64_t dstPitch, uint8_t uc, uint64_t Width, uint64_t Height, void * hStream);
int rgpu_capture_cuMemsetD2D16Async(int *rc, uint64_t dstDevice, uint64_t dstPitch, uint16_t us, uint64_t Width, uint64_t Height, void * hStream);
int rgpu_capture_cuMemsetD2D32Async(int *rc, uint64_t dstDevice, uint64_t dstPitch, uint32_t ui, uint64_t Width, uint64_t Height, void * hStream);
int rgpu_capture_cuMemFreeAsync(int *rc, uint64_t dptr, void * hStream);
int rgpu_capture_cuMemAllocAsync(int *rc, uint64_t * dptr, uint64_t bytesize, void * hStream);
int rgpu_capture_cuStreamWaitEvent(int *rc, void * hStream, void * hEvent, uint32_t Flags);
int rgpu_capture_cuEventRecord(int *rc, void * hEvent, void * hStream);
int rgpu_capture_cuEventRecordWithFlags(int *rc, void * hEvent, void * hStream, uint32_t flags);
int rgpu_capture_cuEventQuery(int *rc, void * hEvent);
int rgpu_capture_cuEventSynchronize(int *rc, void * hEvent);
int rgpu_capture_cudaStreamWaitEvent(int *rc, void * stream, void * event, uint32_t flags);
int rgpu_capture_cudaEventRecord(int *rc, void * event, void * stream);
int rgpu_capture_cudaEventRecordWithFlags(int *rc, void * event, void * stream, uint32_t flags);
int rgpu_capture_cudaEventQuery(int *rc, void * event);
int rgpu_capture_cudaEventSynchronize(int *rc, void * event);
int rgpu_capture_cudaMemsetAsync(int *rc, void * devPtr, int32_t value, uint64_t count, void * stream);
int rgpu_capture_cudaMemset2DAsync(int *rc, void * devPtr, uint64_t pitch, int32_t value, uint64_t width, uint64_t height, void * stream);
int rgpu_capture_cudaMallocAsync(int *rc, void * * devPtr, uint64_t size, void * hStream);
int rgpu_capture_cudaFreeAsync(int *rc, void * devPtr, void * hStream);

/* cuDeviceGetName: forwarded */
int cuDeviceGetName(char * name, int32_t len, int32_t dev)
{
    rgpu_call c;
    if (name == NULL) return rgpu_invalid_value(RGPU_DRIVER);
    rgpu_begin(&c, RGPU_ID_cuDeviceGetName, "cuDeviceGetName", RGPU_DRIVER);
    rgpu_put_i(&c, (int64_t)len);
    rgpu_put_d(&c, dev);
    int rc = rgpu_sync(&c);
    if (rc == 0) {
        rgpu_out_b(&c, name, (size_t)len);
    }
    rgpu_end(&c);
    return rc;
}

/* cuDeviceGetUuid_v2: forwarded */
int cuDeviceGetUuid_v2(void * uuid, int32_t dev)
{
    rgpu_call c;
    if (uuid == NULL) return rgpu_invalid_value(RGPU_DRIVER);
    rgpu_begin(&c, RGPU_ID_cuDeviceGetUuid_v2, "cuDeviceGetUuid_v2", RGPU_DRIVER);
    rgpu_put_d(&c, dev);
    int rc = rgpu_sync(&c);
    if (rc == 0) {
        rgpu_out_b(&c, uuid, 16);
    }
    rgpu_end(&c);
    return rc;
}

/* cuDeviceGetLuid: forwarded */
int cuDeviceGetLuid(char * luid, uint32_t * deviceNodeMask, int32_t dev)
{
    rgpu_call c;
    if (luid == NULL) return rgpu_invalid_value(RGPU_DRIVER);
    if (deviceNodeMask == NULL) return rgpu_invalid_value(RGPU_DRIVER);
    rgpu_begin(&c, RGPU_ID_cuDeviceGetLuid, "cuDeviceGetLuid", RGPU_DRIVER);
    rgpu_put_d(&c, dev);
    int rc = rgpu_sync(&c);
    if (rc == 0) {
        rgpu_out_b(&c, luid, 8);
        *deviceNodeMask = (uint32_t)rgpu_out_u(&c);
    }
    rgpu_end(&c);
    return rc;
}

/* cuDeviceTotalMem_v2: forwarded */
int cuDeviceTotalMem_v2(uint64_t * bytes, int32_t dev)
{
    rgpu_call c;
    if (bytes == NULL) return rgpu_invalid_value(RGPU_DRIVER);
    rgpu_begin(&c, RGPU_ID_cuDeviceTotalMem_v2, "cuDeviceTotalMem_v2", RGPU_DRIVER);
    rgpu_put_d(&c, dev);
    int rc = rgpu_sync(&c);
    if (rc == 0) {
        *bytes = (uint64_t)rgpu_out_u(&c);
    }
    rgpu_end(&c);
    return rc;
}

/* cuDeviceGetTexture1DLinearMaxWidth: forwarded */
int cuDeviceGetTexture1DLinearMaxWidth(uint64_t * maxWidthInElements, int format, uint32_t numChannels, int32_t dev)
{
    rgpu_call c;
    if (maxWidthInElements == NULL) return rgpu_invalid_value(RGPU_DRIVER);
    rgpu_begin(&c, RGPU_ID_cuDeviceGetTexture1DLinearMaxWidth, "cuDeviceGetTexture1DLinearMaxWidth", RGPU_DRIVER);
    rgpu_put_i(&c, (int64_t)format);
    rgpu_put_u(&c, (uint64_t)numChannels);
    rgpu_put_d(&c, dev);
    int rc = rgpu_sync(&c);
    if (rc == 0) {
        *maxWidthInElements = (uint64_t)rgpu_out_u(&c);
    }
    rgpu_end(&c);
    return rc;
}

/* cuDeviceGetAttribute: forwarded */
int cuDeviceGetAttribute(int32_t * pi, int attrib, int32_t dev)
{
    rgpu_call c;
    if (pi == NULL) return rgpu_invalid_value(RGPU_DRIVER);
    rgpu_begin(&c, RGPU_ID_cuDeviceGetAttribute, "cuDeviceGetAttribute", RGPU_DRIVER);
    rgpu_put_i(&c, (int64_t)attrib);
    rgpu_put_d(&c, dev);
    int rc = rgpu_sync(&c);
    if (rc == 0) {
        *pi = (int32_t)rgpu_out_i(&c);
    }
    rgpu_end(&c);
    return rc;
}

/* cuDeviceGetHostAtomicCapabilities: not supported: takes arrays of operations: not forwarded yet */
int cuDeviceGetHostAtomicCapabilities()
{
    return rgpu_unsupported(RGPU_DRIVER, "cuDeviceGetHostAtomicCapabilities");
}

/* cuDeviceGetNvSciSyncAttributes: not supported: NvSciSync is not forwarded */
int cuDeviceGetNvSciSyncAttributes()
{
    return rgpu_unsupported(RGPU_DRIVER, "cuDeviceGetNvSciSyncAttributes");
}

/* cuDeviceSetMemPool: forwarded */
int cuDeviceSetMemPool(int32_t dev, void * pool)
{
    rgpu_call c;
    rgpu_begin(&c, RGPU_ID_cuDeviceSetMemPool, "cuDeviceSetMemPool", RGPU_DRIVER);
    rgpu_put_d(&c, dev);
    rgpu_put_h(&c, pool);
    int rc = rgpu_sync(&c);
    rgpu_end(&c);
    return rc;
}

/* cuDeviceGetMemPool: forwarded */
int cuDeviceGetMemPool(void * * pool, int32_t dev)
{
    rgpu_call c;
    if (pool == NULL) return rgpu_invalid_value(RGPU_DRIVER);
    rgpu_begin(&c, RGPU_ID_cuDeviceGetMemPool, "cuDeviceGetMemPool", RGPU_DRIVER);
    rgpu_put_d(&c, dev);
    int rc = rgpu_sync(&c);
    if (rc == 0) {
        *pool = rgpu_out_h(&c);
    }
    rgpu_end(&c);
    return rc;
}

/* cuDeviceGetDefaultMemPool: forwarded */
int cuDeviceGetDefaultMemPool(void * * pool_out, int32_t dev)
{
    rgpu_call c;
    if (pool_out == NULL) return rgpu_invalid_value(RGPU_DRIVER);
    rgpu_begin(&c, RGPU_ID_cuDeviceGetDefaultMemPool, "cuDeviceGetDefaultMemPool", RGPU_DRIVER);
    rgpu_put_d(&c, dev);
    int rc = rgpu_sync(&c);
    if (rc == 0) {
        *pool_out = rgpu_out_h(&c);
    }
    rgpu_end(&c);
    return rc;
}

/* cuDeviceGetExecAffinitySupport: forwarded */
int cuDeviceGetExecAffinitySupport(int32_t * pi, int type, int32_t dev)
{
    rgpu_call c;
    if (pi == NULL) return rgpu_invalid_value(RGPU_DRIVER);
    rgpu_begin(&c, RGPU_ID_cuDeviceGetExecAffinitySupport, "cuDeviceGetExecAffinitySupport", RGPU_DRIVER);
    rgpu_put_i(&c, (int64_t)type);
    rgpu_put_d(&c, dev);
    int rc = rgpu_sync(&c);
    if (rc == 0) {
        *pi = (int32_t)rgpu_out_i(&c);
    }
    rgpu_end(&c);
    return rc;
}

/* cuFlushGPUDirectRDMAWrites: forwarded */
int cuFlushGPUDirectRDMAWrites(int target, int scope)
{
    rgpu_call c;
    rgpu_begin(&c, RGPU_ID_cuFlushGPUDirectRDMAWrites, "cuFlushGPUDirectRDMAWrites", RGPU_DRIVER);
    rgpu_put_i(&c, (int64_t)target);
    rgpu_put_i(&c, (int64_t)scope);
    int rc = rgpu_sync(&c);
    rgpu_end(&c);
    return rc;
}

/* cuDeviceGetProperties: forwarded */
int cuDeviceGetProperties(void * prop, int32_t dev)
{
    rgpu_call c;
    rgpu_begin(&c, RGPU_ID_cuDeviceGetProperties, "cuDeviceGetProperties", RGPU_DRIVER);
    rgpu_put_h(&c, prop);
    rgpu_put_d(&c, dev);
    int rc = rgpu_sync(&c);
    rgpu_end(&c);
    return rc;
}

/* cuDeviceComputeCapability: forwarded */
int cuDeviceComputeCapability(int32_t * major, int32_t * minor, int32_t dev)
{
    rgpu_call c;
    if (major == NULL) return rgpu_invalid_value(RGPU_DRIVER);
    if (minor == NULL) return rgpu_invalid_value(RGPU_DRIVER);
    rgpu_begin(&c, RGPU_ID_cuDeviceComputeCapability, "cuDeviceComputeCapability", RGPU_DRIVER);
    rgpu_put_d(&c, dev);
    int rc = rgpu_sync(&c);
    if (rc == 0) {
        *major = (int32_t)rgpu_out_i(&c);
        *minor = (int32_t)rgpu_out_i(&c);
    }
    rgpu_end(&c);
    return rc;
}

/* cuCtxSynchronize: forwarded */
int cuCtxSynchronize(void)
{
    rgpu_call c;
    rgpu_begin(&c, RGPU_ID_cuCtxSynchronize, "cuCtxSynchronize", RGPU_DRIVER);
    int rc = rgpu_sync(&c);
    rgpu_end(&c);
    return rc;
}

/* cuCtxSetLimit: forwarded */
int cuCtxSetLimit(int limit, uint64_t value)
{
    rgpu_call c;
    rgpu_begin(&c, RGPU_ID_cuCtxSetLimit, "cuCtxSetLimit", RGPU_DRIVER);
    rgpu_put_i(&c, (int64_t)limit);
    rgpu_put_u(&c, (uint64_t)value);
    int rc = rgpu_sync(&c);
    rgpu_end(&c);
    return rc;
}

/* cuCtxGetLimit: forwarded */
int cuCtxGetLimit(uint64_t * pvalue, int limit)
{
    rgpu_call c;
    if (pvalue == NULL) return rgpu_invalid_value(RGPU_DRIVER);
    rgpu_begin(&c, RGPU_ID_cuCtxGetLimit, "cuCtxGetLimit", RGPU_DRIVER);
    rgpu_put_i(&c, (int64_t)limit);
    int rc = rgpu_sync(&c);
    if (rc == 0) {
        *pvalue = (uint64_t)rgpu_out_u(&c);
    }
    rgpu_end(&c);
    return rc;
}

/* cuCtxGetCacheConfig: forwarded */
int cuCtxGetCacheConfig(int * pconfig)
{
    rgpu_call c;
    if (pconfig == NULL) return rgpu_invalid_value(RGPU_DRIVER);
    rgpu_begin(&c, RGPU_ID_cuCtxGetCacheConfig, "cuCtxGetCacheConfig", RGPU_DRIVER);
    int rc = rgpu_sync(&c);
    if (rc == 0) {
        *pconfig = (int)rgpu_out_i(&c);
    }
    rgpu_end(&c);
    return rc;
}

/* cuCtxSetCacheConfig: forwarded */
int cuCtxSetCacheConfig(int config)
{
    rgpu_call c;
    rgpu_begin(&c, RGPU_ID_cuCtxSetCacheConfig, "cuCtxSetCacheConfig", RGPU_DRIVER);
    rgpu_put_i(&c, (int64_t)config);
    int rc = rgpu_sync(&c);
    rgpu_end(&c);
    return rc;
}

/* cuCtxGetStreamPriorityRange: forwarded */
int cuCtxGetStreamPriorityRange(int32_t * leastPriority, int32_t * greatestPriority)
{
    rgpu_call c;
    if (leastPriority == NULL) return rgpu_invalid_value(RGPU_DRIVER);
    if (greatestPriority == NULL) return rgpu_invalid_value(RGPU_DRIVER);
    rgpu_begin(&c, RGPU_ID_cuCtxGetStreamPriorityRange, "cuCtxGetStreamPriorityRange", RGPU_DRIVER);
    int rc = rgpu_sync(&c);
    if (rc == 0) {
        *leastPriority = (int32_t)rgpu_out_i(&c);
        *greatestPriority = (int32_t)rgpu_out_i(&c);
    }
    rgpu_end(&c);
    return rc;
}

/* cuCtxResetPersistingL2Cache: forwarded */
int cuCtxResetPersistingL2Cache(void)
{
    rgpu_call c;
    rgpu_begin(&c, RGPU_ID_cuCtxResetPersistingL2Cache, "cuCtxResetPersistingL2Cache", RGPU_DRIVER);
    int rc = rgpu_sync(&c);
    rgpu_end(&c);
    return rc;
}

/* cuCtxGetExecAffinity: forwarded */
int cuCtxGetExecAffinity(void * pExecAffinity, int type)
{
    rgpu_call c;
    rgpu_begin(&c, RGPU_ID_cuCtxGetExecAffinity, "cuCtxGetExecAffinity", RGPU_DRIVER);
    rgpu_put_h(&c, pExecAffinity);
    rgpu_put_i(&c, (int64_t)type);
    int rc = rgpu_sync(&c);
    rgpu_end(&c);
    return rc;
}

/* cuCtxRecordEvent: not supported: context-wide events are not forwarded yet */
int cuCtxRecordEvent()
{
    return rgpu_unsupported(RGPU_DRIVER, "cuCtxRecordEvent");
}

/* cuCtxWaitEvent: not supported: context-wide events are not forwarded yet */
int cuCtxWaitEvent()
{
    return rgpu_unsupported(RGPU_DRIVER, "cuCtxWaitEvent");
}

/* cuCtxAttach: not supported: deprecated context API */
int cuCtxAttach()
{
    return rgpu_unsupported(RGPU_DRIVER, "cuCtxAttach");
}

/* cuCtxDetach: not supported: deprecated context API */
int cuCtxDetach()
{
    return rgpu_unsupported(RGPU_DRIVER, "cuCtxDetach");
}

/* cuCtxGetSharedMemConfig: forwarded */
int cuCtxGetSharedMemConfig(int * pConfig)
{
    rgpu_call c;
    if (pConfig == NULL) return rgpu_invalid_value(RGPU_DRIVER);
    rgpu_begin(&c, RGPU_ID_cuCtxGetSharedMemConfig, "cuCtxGetSharedMemConfig", RGPU_DRIVER);
    int rc = rgpu_sync(&c);
    if (rc == 0) {
        *pConfig = (int)rgpu_out_i(&c);
    }
    rgpu_end(&c);
    return rc;
}

/* cuCtxSetSharedMemConfig: forwarded */
int cuCtxSetSharedMemConfig(int config)
{
    rgpu_call c;
    rgpu_begin(&c, RGPU_ID_cuCtxSetSharedMemConfig, "cuCtxSetSharedMemConfig", RGPU_DRIVER);
    rgpu_put_i(&c, (int64_t)config);
    int rc = rgpu_sync(&c);
    rgpu_end(&c);
    return rc;
}

/* cuModuleUnload: forwarded */
int cuModuleUnload(void * hmod)
{
    rgpu_call c;
    rgpu_begin(&c, RGPU_ID_cuModuleUnload, "cuModuleUnload", RGPU_DRIVER);
    rgpu_put_h(&c, hmod);
    int rc = rgpu_sync(&c);
    rgpu_end(&c);
    return rc;
}

/* cuModuleGetFunction: forwarded */
int cuModuleGetFunction(void * * hfunc, void * hmod, const char * name)
{
    rgpu_call c;
    if (hfunc == NULL) return rgpu_invalid_value(RGPU_DRIVER);
    rgpu_begin(&c, RGPU_ID_cuModuleGetFunction, "cuModuleGetFunction", RGPU_DRIVER);
    rgpu_put_h(&c, hmod);
    rgpu_put_s(&c, name);
    int rc = rgpu_sync(&c);
    if (rc == 0) {
        *hfunc = rgpu_out_h(&c);
    }
    rgpu_end(&c);
    return rc;
}

/* cuModuleGetFunctionCount: forwarded */
int cuModuleGetFunctionCount(uint32_t * count, void * mod)
{
    rgpu_call c;
    if (count == NULL) return rgpu_invalid_value(RGPU_DRIVER);
    rgpu_begin(&c, RGPU_ID_cuModuleGetFunctionCount, "cuModuleGetFunctionCount", RGPU_DRIVER);
    rgpu_put_h(&c, mod);
    int rc = rgpu_sync(&c);
    if (rc == 0) {
        *count = (uint32_t)rgpu_out_u(&c);
    }
    rgpu_end(&c);
    return rc;
}

/* cuModuleGetGlobal_v2: forwarded */
int cuModuleGetGlobal_v2(uint64_t * dptr, uint64_t * bytes, void * hmod, const char * name)
{
    rgpu_call c;
    if (dptr == NULL) return rgpu_invalid_value(RGPU_DRIVER);
    if (bytes == NULL) return rgpu_invalid_value(RGPU_DRIVER);
    rgpu_begin(&c, RGPU_ID_cuModuleGetGlobal_v2, "cuModuleGetGlobal_v2", RGPU_DRIVER);
    rgpu_put_h(&c, hmod);
    rgpu_put_s(&c, name);
    int rc = rgpu_sync(&c);
    if (rc == 0) {
        *dptr = (uint64_t)rgpu_out_u(&c);
        *bytes = (uint64_t)rgpu_out_u(&c);
    }
    rgpu_end(&c);
    return rc;
}

/* cuModuleGetTexRef: forwarded */
int cuModuleGetTexRef(void * * pTexRef, void * hmod, const char * name)
{
    rgpu_call c;
    if (pTexRef == NULL) return rgpu_invalid_value(RGPU_DRIVER);
    rgpu_begin(&c, RGPU_ID_cuModuleGetTexRef, "cuModuleGetTexRef", RGPU_DRIVER);
    rgpu_put_h(&c, hmod);
    rgpu_put_s(&c, name);
    int rc = rgpu_sync(&c);
    if (rc == 0) {
        *pTexRef = rgpu_out_h(&c);
    }
    rgpu_end(&c);
    return rc;
}

/* cuModuleGetSurfRef: forwarded */
int cuModuleGetSurfRef(void * * pSurfRef, void * hmod, const char * name)
{
    rgpu_call c;
    if (pSurfRef == NULL) return rgpu_invalid_value(RGPU_DRIVER);
    rgpu_begin(&c, RGPU_ID_cuModuleGetSurfRef, "cuModuleGetSurfRef", RGPU_DRIVER);
    rgpu_put_h(&c, hmod);
    rgpu_put_s(&c, name);
    int rc = rgpu_sync(&c);
    if (rc == 0) {
        *pSurfRef = rgpu_out_h(&c);
    }
    rgpu_end(&c);
    return rc;
}

/* cuKernelGetLibrary: not supported: kernel enumeration is not forwarded yet */
int cuKernelGetLibrary()
{
    return rgpu_unsupported(RGPU_DRIVER, "cuKernelGetLibrary");
}

/* cuLibraryGetManaged: not supported: managed variables of modules are not supported */
int cuLibraryGetManaged()
{
    return rgpu_unsupported(RGPU_DRIVER, "cuLibraryGetManaged");
}

/* cuLibraryGetUnifiedFunction: not supported: unified functions run on the host: not supported */
int cuLibraryGetUnifiedFunction()
{
    return rgpu_unsupported(RGPU_DRIVER, "cuLibraryGetUnifiedFunction");
}

/* cuKernelSetCacheConfig: forwarded */
int cuKernelSetCacheConfig(void * kernel, int config, int32_t dev)
{
    rgpu_call c;
    rgpu_begin(&c, RGPU_ID_cuKernelSetCacheConfig, "cuKernelSetCacheConfig", RGPU_DRIVER);
    rgpu_put_h(&c, kernel);
    rgpu_put_i(&c, (int64_t)config);
    rgpu_put_d(&c, dev);
    int rc = rgpu_sync(&c);
    rgpu_end(&c);
    return rc;
}

/* cuMemGetInfo_v2: forwarded */
int cuMemGetInfo_v2(uint64_t * free, uint64_t * total)
{
    rgpu_call c;
    if (free == NULL) return rgpu_invalid_value(RGPU_DRIVER);
    if (total == NULL) return rgpu_invalid_value(RGPU_DRIVER);
    rgpu_begin(&c, RGPU_ID_cuMemGetInfo_v2, "cuMemGetInfo_v2", RGPU_DRIVER);
    int rc = rgpu_sync(&c);
    if (rc == 0) {
        *free = (uint64_t)rgpu_out_u(&c);
        *total = (uint64_t)rgpu_out_u(&c);
    }
    rgpu_end(&c);
    return rc;
}

/* cuMemAlloc_v2: forwarded */
int cuMemAlloc_v2(uint64_t * dptr, uint64_t bytesize)
{
    rgpu_call c;
    if (dptr == NULL) return rgpu_invalid_value(RGPU_DRIVER);
    { int crc = rgpu_capture_guard(RGPU_DRIVER, NULL, 0); if (crc) return crc; }
    rgpu_begin(&c, RGPU_ID_cuMemAlloc_v2, "cuMemAlloc_v2", RGPU_DRIVER);
    rgpu_put_u(&c, (uint64_t)bytesize);
    int rc = rgpu_sync(&c);
    if (rc == 0) {
        *dptr = (uint64_t)rgpu_out_u(&c);
    }
    rgpu_end(&c);
    return rc;
}

/* cuMemAllocPitch_v2: forwarded */
int cuMemAllocPitch_v2(uint64_t * dptr, uint64_t * pPitch, uint64_t WidthInBytes, uint64_t Height, uint32_t ElementSizeBytes)
{
    rgpu_call c;
    if (dptr == NULL) return rgpu_invalid_value(RGPU_DRIVER);
    if (pPitch == NULL) return rgpu_invalid_value(RGPU_DRIVER);
    { int crc = rgpu_capture_guard(RGPU_DRIVER, NULL, 0); if (crc) return crc; }
    rgpu_begin(&c, RGPU_ID_cuMemAllocPitch_v2, "cuMemAllocPitch_v2", RGPU_DRIVER);
    rgpu_put_u(&c, (uint64_t)WidthInBytes);
    rgpu_put_u(&c, (uint64_t)Height);
    rgpu_put_u(&c, (uint64_t)ElementSizeBytes);
    int rc = rgpu_sync(&c);
    if (rc == 0) {
        *dptr = (uint64_t)rgpu_out_u(&c);
        *pPitch = (uint64_t)rgpu_out_u(&c);
    }
    rgpu_end(&c);
    return rc;
}

/* cuMemGetAddressRange_v2: forwarded */
int cuMemGetAddressRange_v2(uint64_t * pbase, uint64_t * psize, uint64_t dptr)
{
    rgpu_call c;
    if (pbase == NULL) return rgpu_invalid_value(RGPU_DRIVER);
    if (psize == NULL) return rgpu_invalid_value(RGPU_DRIVER);
    rgpu_begin(&c, RGPU_ID_cuMemGetAddressRange_v2, "cuMemGetAddressRange_v2", RGPU_DRIVER);
    rgpu_put_u(&c, (uint64_t)dptr);
    int rc = rgpu_sync(&c);
    if (rc == 0) {
        *pbase = (uint64_t)rgpu_out_u(&c);
        *psize = (uint64_t)rgpu_out_u(&c);
    }
    rgpu_end(&c);
    return rc;
}

/* cuDeviceRegisterAsyncNotification: not supported: host callbacks are not forwarded yet */
int cuDeviceRegisterAsyncNotification()
{
    return rgpu_unsupported(RGPU_DRIVER, "cuDeviceRegisterAsyncNotification");
}

/* cuDeviceUnregisterAsyncNotification: forwarded */
int cuDeviceUnregisterAsyncNotification(int32_t device, void * callback)
{
    rgpu_call c;
    rgpu_begin(&c, RGPU_ID_cuDeviceUnregisterAsyncNotification, "cuDeviceUnregisterAsyncNotification", RGPU_DRIVER);
    rgpu_put_d(&c, device);
    rgpu_put_h(&c, callback);
    int rc = rgpu_sync(&c);
    rgpu_end(&c);
    return rc;
}

/* cuDeviceGetByPCIBusId: forwarded */
int cuDeviceGetByPCIBusId(int32_t * dev, const char * pciBusId)
{
    rgpu_call c;
    if (dev == NULL) return rgpu_invalid_value(RGPU_DRIVER);
    rgpu_begin(&c, RGPU_ID_cuDeviceGetByPCIBusId, "cuDeviceGetByPCIBusId", RGPU_DRIVER);
    rgpu_put_s(&c, pciBusId);
    int rc = rgpu_sync(&c);
    if (rc == 0) {
        *dev = (int32_t)rgpu_out_i(&c);
    }
    rgpu_end(&c);
    return rc;
}

/* cuDeviceGetPCIBusId: forwarded */
int cuDeviceGetPCIBusId(char * pciBusId, int32_t len, int32_t dev)
{
    rgpu_call c;
    if (pciBusId == NULL) return rgpu_invalid_value(RGPU_DRIVER);
    rgpu_begin(&c, RGPU_ID_cuDeviceGetPCIBusId, "cuDeviceGetPCIBusId", RGPU_DRIVER);
    rgpu_put_i(&c, (int64_t)len);
    rgpu_put_d(&c, dev);
    int rc = rgpu_sync(&c);
    if (rc == 0) {
        rgpu_out_b(&c, pciBusId, (size_t)len);
    }
    rgpu_end(&c);
    return rc;
}

/* cuIpcGetEventHandle: not supported: IPC handles are not forwarded yet */
int cuIpcGetEventHandle()
{
    return rgpu_unsupported(RGPU_DRIVER, "cuIpcGetEventHandle");
}

/* cuIpcOpenEventHandle: not supported: IPC handles are not forwarded yet */
int cuIpcOpenEventHandle()
{
    return rgpu_unsupported(RGPU_DRIVER, "cuIpcOpenEventHandle");
}

/* cuIpcGetMemHandle: not supported: IPC handles are not forwarded yet */
int cuIpcGetMemHandle()
{
    return rgpu_unsupported(RGPU_DRIVER, "cuIpcGetMemHandle");
}

/* cuIpcOpenMemHandle_v2: not supported: IPC handles are not forwarded yet */
int cuIpcOpenMemHandle_v2()
{
    return rgpu_unsupported(RGPU_DRIVER, "cuIpcOpenMemHandle_v2");
}

/* cuIpcCloseMemHandle: not supported: IPC handles are not forwarded yet */
int cuIpcCloseMemHandle()
{
    return rgpu_unsupported(RGPU_DRIVER, "cuIpcCloseMemHandle");
}

/* cuMemcpyDtoD_v2: forwarded */
int cuMemcpyDtoD_v2(uint64_t dstDevice, uint64_t srcDevice, uint64_t ByteCount)
{
    rgpu_call c;
    rgpu_begin(&c, RGPU_ID_cuMemcpyDtoD_v2, "cuMemcpyDtoD_v2", RGPU_DRIVER);
    rgpu_put_u(&c, (uint64_t)dstDevice);
    rgpu_put_u(&c, (uint64_t)srcDevice);
    rgpu_put_u(&c, (uint64_t)ByteCount);
    int rc = rgpu_sync(&c);
    rgpu_end(&c);
    return rc;
}

/* cuMemcpyDtoA_v2: not supported: CUDA arrays are not forwarded yet */
int cuMemcpyDtoA_v2()
{
    return rgpu_unsupported(RGPU_DRIVER, "cuMemcpyDtoA_v2");
}

/* cuMemcpyAtoD_v2: not supported: CUDA arrays are not forwarded yet */
int cuMemcpyAtoD_v2()
{
    return rgpu_unsupported(RGPU_DRIVER, "cuMemcpyAtoD_v2");
}

/* cuMemcpyHtoA_v2: not supported: CUDA arrays are not forwarded yet */
int cuMemcpyHtoA_v2()
{
    return rgpu_unsupported(RGPU_DRIVER, "cuMemcpyHtoA_v2");
}

/* cuMemcpyAtoH_v2: not supported: CUDA arrays are not forwarded yet */
int cuMemcpyAtoH_v2()
{
    return rgpu_unsupported(RGPU_DRIVER, "cuMemcpyAtoH_v2");
}

/* cuMemcpyAtoA_v2: not supported: CUDA arrays are not forwarded yet */
int cuMemcpyAtoA_v2()
{
    return rgpu_unsupported(RGPU_DRIVER, "cuMemcpyAtoA_v2");
}

/* cuMemcpy3DPeer: not supported: 3D peer copies between servers are not forwarded yet (1D peer copies go through the client) */
int cuMemcpy3DPeer()
{
    return rgpu_unsupported(RGPU_DRIVER, "cuMemcpy3DPeer");
}

/* cuMemcpyDtoDAsync_v2: forwarded (async) */
int cuMemcpyDtoDAsync_v2(uint64_t dstDevice, uint64_t srcDevice, uint64_t ByteCount, void * hStream)
{
    rgpu_call c;
    { int crc; if (rgpu_capture_cuMemcpyDtoDAsync_v2(&crc, dstDevice, srcDevice, ByteCount, hStream)) return crc; }
    rgpu_begin(&c, RGPU_ID_cuMemcpyDtoDAsync_v2, "cuMemcpyDtoDAsync_v2", RGPU_DRIVER);
    rgpu_put_u(&c, (uint64_t)dstDevice);
    rgpu_put_u(&c, (uint64_t)srcDevice);
    rgpu_put_u(&c, (uint64_t)ByteCount);
    rgpu_put_h(&c, hStream);
    return rgpu_async(&c);
}

/* cuMemcpyHtoAAsync_v2: not supported: CUDA arrays are not forwarded yet */
int cuMemcpyHtoAAsync_v2()
{
    return rgpu_unsupported(RGPU_DRIVER, "cuMemcpyHtoAAsync_v2");
}

/* cuMemcpyAtoHAsync_v2: not supported: CUDA arrays are not forwarded yet */
int cuMemcpyAtoHAsync_v2()
{
    return rgpu_unsupported(RGPU_DRIVER, "cuMemcpyAtoHAsync_v2");
}

/* cuMemcpy3DPeerAsync: not supported: 3D peer copies between servers are not forwarded yet (1D peer copies go through the client) */
int cuMemcpy3DPeerAsync()
{
    return rgpu_unsupported(RGPU_DRIVER, "cuMemcpy3DPeerAsync");
}

/* cuMemcpyBatchAsync_v2: not supported: batched copies are not forwarded yet */
int cuMemcpyBatchAsync_v2()
{
    return rgpu_unsupported(RGPU_DRIVER, "cuMemcpyBatchAsync_v2");
}

/* cuMemcpy3DBatchAsync_v2: not supported: 3D copies with host pointers are not forwarded yet */
int cuMemcpy3DBatchAsync_v2()
{
    return rgpu_unsupported(RGPU_DRIVER, "cuMemcpy3DBatchAsync_v2");
}

/* cuMemsetD8_v2: forwarded */
int cuMemsetD8_v2(uint64_t dstDevice, uint8_t uc, uint64_t N)
{
    rgpu_call c;
    { int crc = rgpu_capture_guard(RGPU_DRIVER, NULL, 1); if (crc) return crc; }
    rgpu_begin(&c, RGPU_ID_cuMemsetD8_v2, "cuMemsetD8_v2", RGPU_DRIVER);
    rgpu_put_u(&c, (uint64_t)dstDevice);
    rgpu_put_u(&c, (uint64_t)uc);
    rgpu_put_u(&c, (uint64_t)N);
    int rc = rgpu_sync(&c);
    rgpu_end(&c);
    return rc;
}

/* cuMemsetD16_v2: forwarded */
int cuMemsetD16_v2(uint64_t dstDevice, uint16_t us, uint64_t N)
{
    rgpu_call c;
    { int crc = rgpu_capture_guard(RGPU_DRIVER, NULL, 1); if (crc) return crc; }
    rgpu_begin(&c, RGPU_ID_cuMemsetD16_v2, "cuMemsetD16_v2", RGPU_DRIVER);
    rgpu_put_u(&c, (uint64_t)dstDevice);
    rgpu_put_u(&c, (uint64_t)us);
    rgpu_put_u(&c, (uint64_t)N);
    int rc = rgpu_sync(&c);
    rgpu_end(&c);
    return rc;
}

/* cuMemsetD32_v2: forwarded */
int cuMemsetD32_v2(uint64_t dstDevice, uint32_t ui, uint64_t N)
{
    rgpu_call c;
    { int crc = rgpu_capture_guard(RGPU_DRIVER, NULL, 1); if (crc) return crc; }
    rgpu_begin(&c, RGPU_ID_cuMemsetD32_v2, "cuMemsetD32_v2", RGPU_DRIVER);
    rgpu_put_u(&c, (uint64_t)dstDevice);
    rgpu_put_u(&c, (uint64_t)ui);
    rgpu_put_u(&c, (uint64_t)N);
    int rc = rgpu_sync(&c);
    rgpu_end(&c);
    return rc;
}

/* cuMemsetD2D8_v2: forwarded */
int cuMemsetD2D8_v2(uint64_t dstDevice, uint64_t dstPitch, uint8_t uc, uint64_t Width, uint64_t Height)
{
    rgpu_call c;
    { int crc = rgpu_capture_guard(RGPU_DRIVER, NULL, 1); if (crc) return crc; }
    rgpu_begin(&c, RGPU_ID_cuMemsetD2D8_v2, "cuMemsetD2D8_v2", RGPU_DRIVER);
    rgpu_put_u(&c, (uint64_t)dstDevice);
    rgpu_put_u(&c, (uint64_t)dstPitch);
    rgpu_put_u(&c, (uint64_t)uc);
    rgpu_put_u(&c, (uint64_t)Width);
    rgpu_put_u(&c, (uint64_t)Height);
    int rc = rgpu_sync(&c);
    rgpu_end(&c);
    return rc;
}

/* cuMemsetD2D16_v2: forwarded */
int cuMemsetD2D16_v2(uint64_t dstDevice, uint64_t dstPitch, uint16_t us, uint64_t Width, uint64_t Height)
{
    rgpu_call c;
    { int crc = rgpu_capture_guard(RGPU_DRIVER, NULL, 1); if (crc) return crc; }
    rgpu_begin(&c, RGPU_ID_cuMemsetD2D16_v2, "cuMemsetD2D16_v2", RGPU_DRIVER);
    rgpu_put_u(&c, (uint64_t)dstDevice);
    rgpu_put_u(&c, (uint64_t)dstPitch);
    rgpu_put_u(&c, (uint64_t)us);
    rgpu_put_u(&c, (uint64_t)Width);
    rgpu_put_u(&c, (uint64_t)Height);
    int rc = rgpu_sync(&c);
    rgpu_end(&c);
    return rc;
}

/* cuMemsetD2D32_v2: forwarded */
int cuMemsetD2D32_v2(uint64_t dstDevice, uint64_t dstPitch, uint32_t ui, uint64_t Width, uint64_t Height)
{
    rgpu_call c;
    { int crc = rgpu_capture_guard(RGPU_DRIVER, NULL, 1); if (crc) return crc; }
    rgpu_begin(&c, RGPU_ID_cuMemsetD2D32_v2, "cuMemsetD2D32_v2", RGPU_DRIVER);
    rgpu_put_u(&c, (uint64_t)dstDevice);
    rgpu_put_u(&c, (uint64_t)dstPitch);
    rgpu_put_u(&c, (uint64_t)ui);
    rgpu_put_u(&c, (uint64_t)Width);
    rgpu_put_u(&c, (uint64_t)Height);
    int rc = rgpu_sync(&c);
    rgpu_end(&c);
    return rc;
}

/* cuMemsetD8Async: forwarded (async) */
int cuMemsetD8Async(uint64_t dstDevice, uint8_t uc, uint64_t N, void * hStream)
{
    rgpu_call c;
    { int crc; if (rgpu_capture_cuMemsetD8Async(&crc, dstDevice, uc, N, hStream)) return crc; }
    rgpu_begin(&c, RGPU_ID_cuMemsetD8Async, "cuMemsetD8Async", RGPU_DRIVER);
    rgpu_put_u(&c, (uint64_t)dstDevice);
    rgpu_put_u(&c, (uint64_t)uc);
    rgpu_put_u(&c, (uint64_t)N);
    rgpu_put_h(&c, hStream);
    return rgpu_async(&c);
}

/* cuMemsetD16Async: forwarded (async) */
int cuMemsetD16Async(uint64_t dstDevice, uint16_t us, uint64_t N, void * hStream)
{
    rgpu_call c;
    { int crc; if (rgpu_capture_cuMemsetD16Async(&crc, dstDevice, us, N, hStream)) return crc; }
    rgpu_begin(&c, RGPU_ID_cuMemsetD16Async, "cuMemsetD16Async", RGPU_DRIVER);
    rgpu_put_u(&c, (uint64_t)dstDevice);
    rgpu_put_u(&c, (uint64_t)us);
    rgpu_put_u(&c, (uint64_t)N);
    rgpu_put_h(&c, hStream);
    return rgpu_async(&c);
}

/* cuMemsetD32Async: forwarded (async) */
int cuMemsetD32Async(uint64_t dstDevice, uint32_t ui, uint64_t N, void * hStream)
{
    rgpu_call c;
    { int crc; if (rgpu_capture_cuMemsetD32Async(&crc, dstDevice, ui, N, hStream)) return crc; }
    rgpu_begin(&c, RGPU_ID_cuMemsetD32Async, "cuMemsetD32Async", RGPU_DRIVER);
    rgpu_put_u(&c, (uint64_t)dstDevice);
    rgpu_put_u(&c, (uint64_t)ui);
    rgpu_put_u(&c, (uint64_t)N);
    rgpu_put_h(&c, hStream);
    return rgpu_async(&c);
}

/* cuMemsetD2D8Async: forwarded (async) */
int cuMemsetD2D8Async(uint64_t dstDevice, uint64_t dstPitch, uint8_t uc, uint64_t Width, uint64_t Height, void * hStream)
{
    rgpu_call c;
    { int crc; if (rgpu_capture_cuMemsetD2D8Async(&crc, dstDevice, dstPitch, uc, Width, Height, hStream)) return crc; }
    rgpu_begin(&c, RGPU_ID_cuMemsetD2D8Async, "cuMemsetD2D8Async", RGPU_DRIVER);
    rgpu_put_u(&c, (uint64_t)dstDevice);
    rgpu_put_u(&c, (uint64_t)dstPitch);
    rgpu_put_u(&c, (uint64_t)uc);
    rgpu_put_u(&c, (uint64_t)Width);
    rgpu_put_u(&c, (uint64_t)Height);
    rgpu_put_h(&c, hStream);
    return rgpu_async(&c);
}

/* cuMemsetD2D16Async: forwarded (async) */
int cuMemsetD2D16Async(uint64_t dstDevice, uint64_t dstPitch, uint16_t us, uint64_t Width, uint64_t Height, void * hStream)
{
    rgpu_call c;
    { int crc; if (rgpu_capture_cuMemsetD2D16Async(&crc, dstDevice, dstPitch, us, Width, Height, hStream)) return crc; }
    rgpu_begin(&c, RGPU_ID_cuMemsetD2D16Async, "cuMemsetD2D16Async", RGPU_DRIVER);
    rgpu_put_u(&c, (uint64_t)dstDevice);
    rgpu_put_u(&c, (uint64_t)dstPitch);
    rgpu_put_u(&c, (uint64_t)us);
    rgpu_put_u(&c, (uint64_t)Width);
    rgpu_put_u(&c, (uint64_t)Height);
    rgpu_put_h(&c, hStream);
    return rgpu_async(&c);
}

/* cuMemsetD2D32Async: forwarded (async) */
int cuMemsetD2D32Async(uint64_t dstDevice, uint64_t dstPitch, uint32_t ui, uint64_t Width, uint64_t Height, void * hStream)
{
    rgpu_call c;
    { int crc; if (rgpu_capture_cuMemsetD2D32Async(&crc, dstDevice, dstPitch, ui, Width, Height, hStream)) return crc; }
    rgpu_begin(&c, RGPU_ID_cuMemsetD2D32Async, "cuMemsetD2D32Async", RGPU_DRIVER);
    rgpu_put_u(&c, (uint64_t)dstDevice);
    rgpu_put_u(&c, (uint64_t)dstPitch);
    rgpu_put_u(&c, (uint64_t)ui);
    rgpu_put_u(&c, (uint64_t)Width);
    rgpu_put_u(&c, (uint64_t)Height);
    rgpu_put_h(&c, hStream);
    return rgpu_async(&c);
}

/* cuArrayCreate_v2: forwarded */
int cuArrayCreate_v2(void * * pHandle, void * pAllocateArray)
{
    rgpu_call c;
    if (pHandle == NULL) return rgpu_invalid_value(RGPU_DRIVER);
    rgpu_begin(&c, RGPU_ID_cuArrayCreate_v2, "cuArrayCreate_v2", RGPU_DRIVER);
    rgpu_put_h(&c, pAllocateArray);
    int rc = rgpu_sync(&c);
    if (rc == 0) {
        *pHandle = rgpu_out_h(&c);
    }
    rgpu_end(&c);
    return rc;
}

/* cuArrayGetDescriptor_v2: forwarded */
int cuArrayGetDescriptor_v2(void * pArrayDescriptor, void * hArray)
{
    rgpu_call c;
    rgpu_begin(&c, RGPU_ID_cuArrayGetDescriptor_v2, "cuArrayGetDescriptor_v2", RGPU_DRIVER);
    rgpu_put_h(&c, pArrayDescriptor);
    rgpu_put_h(&c, hArray);
    int rc = rgpu_sync(&c);
    rgpu_end(&c);
    return rc;
}

/* cuArrayGetSparseProperties: forwarded */
int cuArrayGetSparseProperties(void * sparseProperties, void * array)
{
    rgpu_call c;
    rgpu_begin(&c, RGPU_ID_cuArrayGetSparseProperties, "cuArrayGetSparseProperties", RGPU_DRIVER);
    rgpu_put_h(&c, sparseProperties);
    rgpu_put_h(&c, array);
    int rc = rgpu_sync(&c);
    rgpu_end(&c);
    return rc;
}

/* cuMipmappedArrayGetSparseProperties: forwarded */
int cuMipmappedArrayGetSparseProperties(void * sparseProperties, void * mipmap)
{
    rgpu_call c;
    rgpu_begin(&c, RGPU_ID_cuMipmappedArrayGetSparseProperties, "cuMipmappedArrayGetSparseProperties", RGPU_DRIVER);
    rgpu_put_h(&c, sparseProperties);
    rgpu_put_h(&c, mipmap);
    int rc = rgpu_sync(&c);
    rgpu_end(&c);
    return rc;
}

/* cuArrayGetMemoryRequirements: forwarded */
int cuArrayGetMemoryRequirements(void * memoryRequirements, void * array, int32_t device)
{
    rgpu_call c;
    rgpu_begin(&c, RGPU_ID_cuArrayGetMemoryRequirements, "cuArrayGetMemoryRequirements", RGPU_DRIVER);
    rgpu_put_h(&c, memoryRequirements);
    rgpu_put_h(&c, array);
    rgpu_put_d(&c, device);
    int rc = rgpu_sync(&c);
    rgpu_end(&c);
    return rc;
}

/* cuMipmappedArrayGetMemoryRequirements: forwarded */
int cuMipmappedArrayGetMemoryRequirements(void * memoryRequirements, void * mipmap, int32_t device)
{
    rgpu_call c;
    rgpu_begin(&c, RGPU_ID_cuMipmappedArrayGetMemoryRequirements, "cuMipmappedArrayGetMemoryRequirements", RGPU_DRIVER);
    rgpu_put_h(&c, memoryRequirements);
    rgpu_put_h(&c, mipmap);
    rgpu_put_d(&c, device);
    int rc = rgpu_sync(&c);
    rgpu_end(&c);
    return rc;
}

/* cuArrayGetPlane: forwarded */
int cuArrayGetPlane(void * * pPlaneArray, void * hArray, uint32_t planeIdx)
{
    rgpu_call c;
    if (pPlaneArray == NULL) return rgpu_invalid_value(RGPU_DRIVER);
    rgpu_begin(&c, RGPU_ID_cuArrayGetPlane, "cuArrayGetPlane", RGPU_DRIVER);
    rgpu_put_h(&c, hArray);
    rgpu_put_u(&c, (uint64_t)planeIdx);
    int rc = rgpu_sync(&c);
    if (rc == 0) {
        *pPlaneArray = rgpu_out_h(&c);
    }
    rgpu_end(&c);
    return rc;
}

/* cuArrayDestroy: forwarded */
int cuArrayDestroy(void * hArray)
{
    rgpu_call c;
    rgpu_begin(&c, RGPU_ID_cuArrayDestroy, "cuArrayDestroy", RGPU_DRIVER);
    rgpu_put_h(&c, hArray);
    int rc = rgpu_sync(&c);
    rgpu_end(&c);
    return rc;
}

/* cuArray3DCreate_v2: forwarded */
int cuArray3DCreate_v2(void * * pHandle, void * pAllocateArray)
{
    rgpu_call c;
    if (pHandle == NULL) return rgpu_invalid_value(RGPU_DRIVER);
    rgpu_begin(&c, RGPU_ID_cuArray3DCreate_v2, "cuArray3DCreate_v2", RGPU_DRIVER);
    rgpu_put_h(&c, pAllocateArray);
    int rc = rgpu_sync(&c);
    if (rc == 0) {
        *pHandle = rgpu_out_h(&c);
    }
    rgpu_end(&c);
    return rc;
}

/* cuArray3DGetDescriptor_v2: forwarded */
int cuArray3DGetDescriptor_v2(void * pArrayDescriptor, void * hArray)
{
    rgpu_call c;
    rgpu_begin(&c, RGPU_ID_cuArray3DGetDescriptor_v2, "cuArray3DGetDescriptor_v2", RGPU_DRIVER);
    rgpu_put_h(&c, pArrayDescriptor);
    rgpu_put_h(&c, hArray);
    int rc = rgpu_sync(&c);
    rgpu_end(&c);
    return rc;
}

/* cuMipmappedArrayCreate: forwarded */
int cuMipmappedArrayCreate(void * * pHandle, void * pMipmappedArrayDesc, uint32_t numMipmapLevels)
{
    rgpu_call c;
    if (pHandle == NULL) return rgpu_invalid_value(RGPU_DRIVER);
    rgpu_begin(&c, RGPU_ID_cuMipmappedArrayCreate, "cuMipmappedArrayCreate", RGPU_DRIVER);
    rgpu_put_h(&c, pMipmappedArrayDesc);
    rgpu_put_u(&c, (uint64_t)numMipmapLevels);
    int rc = rgpu_sync(&c);
    if (rc == 0) {
        *pHandle = rgpu_out_h(&c);
    }
    rgpu_end(&c);
    return rc;
}

/* cuMipmappedArrayGetLevel: forwarded */
int cuMipmappedArrayGetLevel(void * * pLevelArray, void * hMipmappedArray, uint32_t level)
{
    rgpu_call c;
    if (pLevelArray == NULL) return rgpu_invalid_value(RGPU_DRIVER);
    rgpu_begin(&c, RGPU_ID_cuMipmappedArrayGetLevel, "cuMipmappedArrayGetLevel", RGPU_DRIVER);
    rgpu_put_h(&c, hMipmappedArray);
    rgpu_put_u(&c, (uint64_t)level);
    int rc = rgpu_sync(&c);
    if (rc == 0) {
        *pLevelArray = rgpu_out_h(&c);
    }
    rgpu_end(&c);
    return rc;
}

/* cuMipmappedArrayDestroy: forwarded */
int cuMipmappedArrayDestroy(void * hMipmappedArray)
{
    rgpu_call c;
    rgpu_begin(&c, RGPU_ID_cuMipmappedArrayDestroy, "cuMipmappedArrayDestroy", RGPU_DRIVER);
    rgpu_put_h(&c, hMipmappedArray);
    int rc = rgpu_sync(&c);
    rgpu_end(&c);
    return rc;
}

/* cuMemGetHandleForAddressRange: not supported: shareable handles are OS handles of the server */
int cuMemGetHandleForAddressRange()
{
    return rgpu_unsupported(RGPU_DRIVER, "cuMemGetHandleForAddressRange");
}

/* cuMemBatchDecompressAsync: forwarded */
int cuMemBatchDecompressAsync(void * paramsArray, uint64_t count, uint32_t flags, uint64_t * errorIndex, void * stream)
{
    rgpu_call c;
    if (errorIndex == NULL) return rgpu_invalid_value(RGPU_DRIVER);
    { int crc = rgpu_capture_guard(RGPU_DRIVER, stream, 1); if (crc) return crc; }
    rgpu_begin(&c, RGPU_ID_cuMemBatchDecompressAsync, "cuMemBatchDecompressAsync", RGPU_DRIVER);
    rgpu_put_h(&c, paramsArray);
    rgpu_put_u(&c, (uint64_t)count);
    rgpu_put_u(&c, (uint64_t)flags);
    rgpu_put_h(&c, stream);
    int rc = rgpu_sync(&c);
    if (rc == 0) {
        *errorIndex = (uint64_t)rgpu_out_u(&c);
    }
    rgpu_end(&c);
    return rc;
}

/* cuMemAddressReserve: forwarded */
int cuMemAddressReserve(uint64_t * ptr, uint64_t size, uint64_t alignment, uint64_t addr, uint64_t flags)
{
    rgpu_call c;
    if (ptr == NULL) return rgpu_invalid_value(RGPU_DRIVER);
    rgpu_begin(&c, RGPU_ID_cuMemAddressReserve, "cuMemAddressReserve", RGPU_DRIVER);
    rgpu_put_u(&c, (uint64_t)size);
    rgpu_put_u(&c, (uint64_t)alignment);
    rgpu_put_u(&c, (uint64_t)addr);
    rgpu_put_u(&c, (uint64_t)flags);
    int rc = rgpu_sync(&c);
    if (rc == 0) {
        *ptr = (uint64_t)rgpu_out_u(&c);
    }
    rgpu_end(&c);
    return rc;
}

/* cuMemAddressFree: forwarded */
int cuMemAddressFree(uint64_t ptr, uint64_t size)
{
    rgpu_call c;
    rgpu_begin(&c, RGPU_ID_cuMemAddressFree, "cuMemAddressFree", RGPU_DRIVER);
    rgpu_put_u(&c, (uint64_t)ptr);
    rgpu_put_u(&c, (uint64_t)size);
    int rc = rgpu_sync(&c);
    rgpu_end(&c);
    return rc;
}

/* cuMemCreate: forwarded */
int cuMemCreate(uint64_t * handle, uint64_t size, void * prop, uint64_t flags)
{
    rgpu_call c;
    if (handle == NULL) return rgpu_invalid_value(RGPU_DRIVER);
    rgpu_begin(&c, RGPU_ID_cuMemCreate, "cuMemCreate", RGPU_DRIVER);
    rgpu_put_u(&c, (uint64_t)size);
    rgpu_put_h(&c, prop);
    rgpu_put_u(&c, (uint64_t)flags);
    int rc = rgpu_sync(&c);
    if (rc == 0) {
        *handle = (uint64_t)rgpu_out_u(&c);
    }
    rgpu_end(&c);
    return rc;
}

/* cuMemRelease: forwarded */
int cuMemRelease(uint64_t handle)
{
    rgpu_call c;
    rgpu_begin(&c, RGPU_ID_cuMemRelease, "cuMemRelease", RGPU_DRIVER);
    rgpu_put_u(&c, (uint64_t)handle);
    int rc = rgpu_sync(&c);
    rgpu_end(&c);
    return rc;
}

/* cuMemMap: forwarded */
int cuMemMap(uint64_t ptr, uint64_t size, uint64_t offset, uint64_t handle, uint64_t flags)
{
    rgpu_call c;
    rgpu_begin(&c, RGPU_ID_cuMemMap, "cuMemMap", RGPU_DRIVER);
    rgpu_put_u(&c, (uint64_t)ptr);
    rgpu_put_u(&c, (uint64_t)size);
    rgpu_put_u(&c, (uint64_t)offset);
    rgpu_put_u(&c, (uint64_t)handle);
    rgpu_put_u(&c, (uint64_t)flags);
    int rc = rgpu_sync(&c);
    rgpu_end(&c);
    return rc;
}

/* cuMemMapArrayAsync: forwarded */
int cuMemMapArrayAsync(void * mapInfoList, uint32_t count, void * hStream)
{
    rgpu_call c;
    { int crc = rgpu_capture_guard(RGPU_DRIVER, hStream, 1); if (crc) return crc; }
    rgpu_begin(&c, RGPU_ID_cuMemMapArrayAsync, "cuMemMapArrayAsync", RGPU_DRIVER);
    rgpu_put_h(&c, mapInfoList);
    rgpu_put_u(&c, (uint64_t)count);
    rgpu_put_h(&c, hStream);
    int rc = rgpu_sync(&c);
    rgpu_end(&c);
    return rc;
}

/* cuMemUnmap: forwarded */
int cuMemUnmap(uint64_t ptr, uint64_t size)
{
    rgpu_call c;
    rgpu_begin(&c, RGPU_ID_cuMemUnmap, "cuMemUnmap", RGPU_DRIVER);
    rgpu_put_u(&c, (uint64_t)ptr);
    rgpu_put_u(&c, (uint64_t)size);
    int rc = rgpu_sync(&c);
    rgpu_end(&c);
    return rc;
}

/* cuMemSetAccess: forwarded */
int cuMemSetAccess(uint64_t ptr, uint64_t size, void * desc, uint64_t count)
{
    rgpu_call c;
    rgpu_begin(&c, RGPU_ID_cuMemSetAccess, "cuMemSetAccess", RGPU_DRIVER);
    rgpu_put_u(&c, (uint64_t)ptr);
    rgpu_put_u(&c, (uint64_t)size);
    rgpu_put_h(&c, desc);
    rgpu_put_u(&c, (uint64_t)count);
    int rc = rgpu_sync(&c);
    rgpu_end(&c);
    return rc;
}

/* cuMemGetAccess: forwarded */
int cuMemGetAccess(uint64_t * flags, void * location, uint64_t ptr)
{
    rgpu_call c;
    if (flags == NULL) return rgpu_invalid_value(RGPU_DRIVER);
    rgpu_begin(&c, RGPU_ID_cuMemGetAccess, "cuMemGetAccess", RGPU_DRIVER);
    rgpu_put_h(&c, location);
    rgpu_put_u(&c, (uint64_t)ptr);
    int rc = rgpu_sync(&c);
    if (rc == 0) {
        *flags = (uint64_t)rgpu_out_u(&c);
    }
    rgpu_end(&c);
    return rc;
}

/* cuMemExportToShareableHandle: not supported: shareable handles are OS handles of the server */
int cuMemExportToShareableHandle()
{
    return rgpu_unsupported(RGPU_DRIVER, "cuMemExportToShareableHandle");
}

/* cuMemImportFromShareableHandle: not supported: shareable handles are OS handles of the server */
int cuMemImportFromShareableHandle()
{
    return rgpu_unsupported(RGPU_DRIVER, "cuMemImportFromShareableHandle");
}

/* cuMemGetAllocationGranularity: forwarded */
int cuMemGetAllocationGranularity(uint64_t * granularity, void * prop, int option)
{
    rgpu_call c;
    if (granularity == NULL) return rgpu_invalid_value(RGPU_DRIVER);
    rgpu_begin(&c, RGPU_ID_cuMemGetAllocationGranularity, "cuMemGetAllocationGranularity", RGPU_DRIVER);
    rgpu_put_h(&c, prop);
    rgpu_put_i(&c, (int64_t)option);
    int rc = rgpu_sync(&c);
    if (rc == 0) {
        *granularity = (uint64_t)rgpu_out_u(&c);
    }
    rgpu_end(&c);
    return rc;
}

/* cuMemGetAllocationPropertiesFromHandle: forwarded */
int cuMemGetAllocationPropertiesFromHandle(void * prop, uint64_t handle)
{
    rgpu_call c;
    rgpu_begin(&c, RGPU_ID_cuMemGetAllocationPropertiesFromHandle, "cuMemGetAllocationPropertiesFromHandle", RGPU_DRIVER);
    rgpu_put_h(&c, prop);
    rgpu_put_u(&c, (uint64_t)handle);
    int rc = rgpu_sync(&c);
    rgpu_end(&c);
    return rc;
}

/* cuMemRetainAllocationHandle: not supported: VMM is not forwarded yet */
int cuMemRetainAllocationHandle()
{
    return rgpu_unsupported(RGPU_DRIVER, "cuMemRetainAllocationHandle");
}

/* cuMemFreeAsync: forwarded (async) */
int cuMemFreeAsync(uint64_t dptr, void * hStream)
{
    rgpu_call c;
    { int crc; if (rgpu_capture_cuMemFreeAsync(&crc, dptr, hStream)) return crc; }
    rgpu_begin(&c, RGPU_ID_cuMemFreeAsync, "cuMemFreeAsync", RGPU_DRIVER);
    rgpu_put_u(&c, (uint64_t)dptr);
    rgpu_put_h(&c, hStream);
    return rgpu_async(&c);
}

/* cuMemAllocAsync: forwarded */
int cuMemAllocAsync(uint64_t * dptr, uint64_t bytesize, void * hStream)
{
    rgpu_call c;
    if (dptr == NULL) return rgpu_invalid_value(RGPU_DRIVER);
    { int crc; if (rgpu_capture_cuMemAllocAsync(&crc, dptr, bytesize, hStream)) return crc; }
    rgpu_begin(&c, RGPU_ID_cuMemAllocAsync, "cuMemAllocAsync", RGPU_DRIVER);
    rgpu_put_u(&c, (uint64_t)bytesize);
    rgpu_put_h(&c, hStream);
    int rc = rgpu_sync(&c);
    if (rc == 0) {
        *dptr = (uint64_t)rgpu_out_u(&c);
    }
    rgpu_end(&c);
    return rc;
}

/* cuMemPoolTrimTo: forwarded */
int cuMemPoolTrimTo(void * pool, uint64_t minBytesToKeep)
{
    rgpu_call c;
    rgpu_begin(&c, RGPU_ID_cuMemPoolTrimTo, "cuMemPoolTrimTo", RGPU_DRIVER);
    rgpu_put_h(&c, pool);
    rgpu_put_u(&c, (uint64_t)minBytesToKeep);
    int rc = rgpu_sync(&c);
    rgpu_end(&c);
    return rc;
}

/* cuMemPoolSetAttribute: not supported: pool attributes of several types: not forwarded yet */
int cuMemPoolSetAttribute()
{
    return rgpu_unsupported(RGPU_DRIVER, "cuMemPoolSetAttribute");
}

/* cuMemPoolGetAttribute: not supported: pool attributes of several types: not forwarded yet */
int cuMemPoolGetAttribute()
{
    return rgpu_unsupported(RGPU_DRIVER, "cuMemPoolGetAttribute");
}

/* cuMemPoolSetAccess: forwarded */
int cuMemPoolSetAccess(void * pool, void * map, uint64_t count)
{
    rgpu_call c;
    rgpu_begin(&c, RGPU_ID_cuMemPoolSetAccess, "cuMemPoolSetAccess", RGPU_DRIVER);
    rgpu_put_h(&c, pool);
    rgpu_put_h(&c, map);
    rgpu_put_u(&c, (uint64_t)count);
    int rc = rgpu_sync(&c);
    rgpu_end(&c);
    return rc;
}

/* cuMemPoolGetAccess: forwarded */
int cuMemPoolGetAccess(int * flags, void * memPool, void * location)
{
    rgpu_call c;
    if (flags == NULL) return rgpu_invalid_value(RGPU_DRIVER);
    rgpu_begin(&c, RGPU_ID_cuMemPoolGetAccess, "cuMemPoolGetAccess", RGPU_DRIVER);
    rgpu_put_h(&c, memPool);
    rgpu_put_h(&c, location);
    int rc = rgpu_sync(&c);
    if (rc == 0) {
        *flags = (int)rgpu_out_i(&c);
    }
    rgpu_end(&c);
    return rc;
}

/* cuMemPoolCreate: forwarded */
int cuMemPoolCreate(void * * pool, void * poolProps)
{
    rgpu_call c;
    if (pool == NULL) return rgpu_invalid_value(RGPU_DRIVER);
    rgpu_begin(&c, RGPU_ID_cuMemPoolCreate, "cuMemPoolCreate", RGPU_DRIVER);
    rgpu_put_h(&c, poolProps);
    int rc = rgpu_sync(&c);
    if (rc == 0) {
        *pool = rgpu_out_h(&c);
    }
    rgpu_end(&c);
    return rc;
}

/* cuMemPoolDestroy: forwarded */
int cuMemPoolDestroy(void * pool)
{
    rgpu_call c;
    rgpu_begin(&c, RGPU_ID_cuMemPoolDestroy, "cuMemPoolDestroy", RGPU_DRIVER);
    rgpu_put_h(&c, pool);
    int rc = rgpu_sync(&c);
    rgpu_end(&c);
    return rc;
}

/* cuMemGetDefaultMemPool: forwarded */
int cuMemGetDefaultMemPool(void * * pool_out, void * location, int type)
{
    rgpu_call c;
    if (pool_out == NULL) return rgpu_invalid_value(RGPU_DRIVER);
    rgpu_begin(&c, RGPU_ID_cuMemGetDefaultMemPool, "cuMemGetDefaultMemPool", RGPU_DRIVER);
    rgpu_put_h(&c, location);
    rgpu_put_i(&c, (int64_t)type);
    int rc = rgpu_sync(&c);
    if (rc == 0) {
        *pool_out = rgpu_out_h(&c);
    }
    rgpu_end(&c);
    return rc;
}

/* cuMemGetMemPool: forwarded */
int cuMemGetMemPool(void * * pool, void * location, int type)
{
    rgpu_call c;
    if (pool == NULL) return rgpu_invalid_value(RGPU_DRIVER);
    rgpu_begin(&c, RGPU_ID_cuMemGetMemPool, "cuMemGetMemPool", RGPU_DRIVER);
    rgpu_put_h(&c, location);
    rgpu_put_i(&c, (int64_t)type);
    int rc = rgpu_sync(&c);
    if (rc == 0) {
        *pool = rgpu_out_h(&c);
    }
    rgpu_end(&c);
    return rc;
}

/* cuMemSetMemPool: forwarded */
int cuMemSetMemPool(void * location, int type, void * pool)
{
    rgpu_call c;
    rgpu_begin(&c, RGPU_ID_cuMemSetMemPool, "cuMemSetMemPool", RGPU_DRIVER);
    rgpu_put_h(&c, location);
    rgpu_put_i(&c, (int64_t)type);
    rgpu_put_h(&c, pool);
    int rc = rgpu_sync(&c);
    rgpu_end(&c);
    return rc;
}

/* cuMemAllocFromPoolAsync: forwarded */
int cuMemAllocFromPoolAsync(uint64_t * dptr, uint64_t bytesize, void * pool, void * hStream)
{
    rgpu_call c;
    if (dptr == NULL) return rgpu_invalid_value(RGPU_DRIVER);
    { int crc = rgpu_capture_guard(RGPU_DRIVER, hStream, 1); if (crc) return crc; }
    rgpu_begin(&c, RGPU_ID_cuMemAllocFromPoolAsync, "cuMemAllocFromPoolAsync", RGPU_DRIVER);
    rgpu_put_u(&c, (uint64_t)bytesize);
    rgpu_put_h(&c, pool);
    rgpu_put_h(&c, hStream);
    int rc = rgpu_sync(&c);
    if (rc == 0) {
        *dptr = (uint64_t)rgpu_out_u(&c);
    }
    rgpu_end(&c);
    return rc;
}

/* cuMemPoolExportToShareableHandle: not supported: shareable handles are OS handles of the server */
int cuMemPoolExportToShareableHandle()
{
    return rgpu_unsupported(RGPU_DRIVER, "cuMemPoolExportToShareableHandle");
}

/* cuMemPoolImportFromShareableHandle: not supported: shareable handles are OS handles of the server */
int cuMemPoolImportFromShareableHandle()
{
    return rgpu_unsupported(RGPU_DRIVER, "cuMemPoolImportFromShareableHandle");
}

/* cuMemPoolExportPointer: forwarded */
int cuMemPoolExportPointer(void * shareData_out, uint64_t ptr)
{
    rgpu_call c;
    rgpu_begin(&c, RGPU_ID_cuMemPoolExportPointer, "cuMemPoolExportPointer", RGPU_DRIVER);
    rgpu_put_h(&c, shareData_out);
    rgpu_put_u(&c, (uint64_t)ptr);
    int rc = rgpu_sync(&c);
    rgpu_end(&c);
    return rc;
}

/* cuMemPoolImportPointer: forwarded */
int cuMemPoolImportPointer(uint64_t * ptr_out, void * pool, void * shareData)
{
    rgpu_call c;
    if (ptr_out == NULL) return rgpu_invalid_value(RGPU_DRIVER);
    rgpu_begin(&c, RGPU_ID_cuMemPoolImportPointer, "cuMemPoolImportPointer", RGPU_DRIVER);
    rgpu_put_h(&c, pool);
    rgpu_put_h(&c, shareData);
    int rc = rgpu_sync(&c);
    if (rc == 0) {
        *ptr_out = (uint64_t)rgpu_out_u(&c);
    }
    rgpu_end(&c);
    return rc;
}

/* cuMulticastCreate: forwarded */
int cuMulticastCreate(uint64_t * mcHandle, void * prop)
{
    rgpu_call c;
    if (mcHandle == NULL) return rgpu_invalid_value(RGPU_DRIVER);
    rgpu_begin(&c, RGPU_ID_cuMulticastCreate, "cuMulticastCreate", RGPU_DRIVER);
    rgpu_put_h(&c, prop);
    int rc = rgpu_sync(&c);
    if (rc == 0) {
        *mcHandle = (uint64_t)rgpu_out_u(&c);
    }
    rgpu_end(&c);
    return rc;
}

/* cuMulticastAddDevice: forwarded */
int cuMulticastAddDevice(uint64_t mcHandle, int32_t dev)
{
    rgpu_call c;
    rgpu_begin(&c, RGPU_ID_cuMulticastAddDevice, "cuMulticastAddDevice", RGPU_DRIVER);
    rgpu_put_u(&c, (uint64_t)mcHandle);
    rgpu_put_d(&c, dev);
    int rc = rgpu_sync(&c);
    rgpu_end(&c);
    return rc;
}

/* cuMulticastBindMem: forwarded */
int cuMulticastBindMem(uint64_t mcHandle, uint64_t mcOffset, uint64_t memHandle, uint64_t memOffset, uint64_t size, uint64_t flags)
{
    rgpu_call c;
    rgpu_begin(&c, RGPU_ID_cuMulticastBindMem, "cuMulticastBindMem", RGPU_DRIVER);
    rgpu_put_u(&c, (uint64_t)mcHandle);
    rgpu_put_u(&c, (uint64_t)mcOffset);
    rgpu_put_u(&c, (uint64_t)memHandle);
    rgpu_put_u(&c, (uint64_t)memOffset);
    rgpu_put_u(&c, (uint64_t)size);
    rgpu_put_u(&c, (uint64_t)flags);
    int rc = rgpu_sync(&c);
    rgpu_end(&c);
    return rc;
}

/* cuMulticastBindAddr: forwarded */
int cuMulticastBindAddr(uint64_t mcHandle, uint64_t mcOffset, uint64_t memptr, uint64_t size, uint64_t flags)
{
    rgpu_call c;
    rgpu_begin(&c, RGPU_ID_cuMulticastBindAddr, "cuMulticastBindAddr", RGPU_DRIVER);
    rgpu_put_u(&c, (uint64_t)mcHandle);
    rgpu_put_u(&c, (uint64_t)mcOffset);
    rgpu_put_u(&c, (uint64_t)memptr);
    rgpu_put_u(&c, (uint64_t)size);
    rgpu_put_u(&c, (uint64_t)flags);
    int rc = rgpu_sync(&c);
    rgpu_end(&c);
    return rc;
}

/* cuMulticastUnbind: forwarded */
int cuMulticastUnbind(uint64_t mcHandle, int32_t dev, uint64_t mcOffset, uint64_t size)
{
    rgpu_call c;
    rgpu_begin(&c, RGPU_ID_cuMulticastUnbind, "cuMulticastUnbind", RGPU_DRIVER);
    rgpu_put_u(&c, (uint64_t)mcHandle);
    rgpu_put_d(&c, dev);
    rgpu_put_u(&c, (uint64_t)mcOffset);
    rgpu_put_u(&c, (uint64_t)size);
    int rc = rgpu_sync(&c);
    rgpu_end(&c);
    return rc;
}

/* cuMulticastGetGranularity: forwarded */
int cuMulticastGetGranularity(uint64_t * granularity, void * prop, int option)
{
    rgpu_call c;
    if (granularity == NULL) return rgpu_invalid_value(RGPU_DRIVER);
    rgpu_begin(&c, RGPU_ID_cuMulticastGetGranularity, "cuMulticastGetGranularity", RGPU_DRIVER);
    rgpu_put_h(&c, prop);
    rgpu_put_i(&c, (int64_t)option);
    int rc = rgpu_sync(&c);
    if (rc == 0) {
        *granularity = (uint64_t)rgpu_out_u(&c);
    }
    rgpu_end(&c);
    return rc;
}

/* cuMemPrefetchBatchAsync: forwarded */
int cuMemPrefetchBatchAsync(uint64_t * dptrs, uint64_t * sizes, uint64_t count, void * prefetchLocs, uint64_t * prefetchLocIdxs, uint64_t numPrefetchLocs, uint64_t flags, void * hStream)
{
    rgpu_call c;
    if (dptrs == NULL) return rgpu_invalid_value(RGPU_DRIVER);
    if (sizes == NULL) return rgpu_invalid_value(RGPU_DRIVER);
    if (prefetchLocIdxs == NULL) return rgpu_invalid_value(RGPU_DRIVER);
    { int crc = rgpu_capture_guard(RGPU_DRIVER, hStream, 1); if (crc) return crc; }
    rgpu_begin(&c, RGPU_ID_cuMemPrefetchBatchAsync, "cuMemPrefetchBatchAsync", RGPU_DRIVER);
    rgpu_put_u(&c, (uint64_t)count);
    rgpu_put_h(&c, prefetchLocs);
    rgpu_put_u(&c, (uint64_t)numPrefetchLocs);
    rgpu_put_u(&c, (uint64_t)flags);
    rgpu_put_h(&c, hStream);
    int rc = rgpu_sync(&c);
    if (rc == 0) {
        *dptrs = (uint64_t)rgpu_out_u(&c);
        *sizes = (uint64_t)rgpu_out_u(&c);
        *prefetchLocIdxs = (uint64_t)rgpu_out_u(&c);
    }
    rgpu_end(&c);
    return rc;
}

/* cuMemDiscardBatchAsync: forwarded */
int cuMemDiscardBatchAsync(uint64_t * dptrs, uint64_t * sizes, uint64_t count, uint64_t flags, void * hStream)
{
    rgpu_call c;
    if (dptrs == NULL) return rgpu_invalid_value(RGPU_DRIVER);
    if (sizes == NULL) return rgpu_invalid_value(RGPU_DRIVER);
    { int crc = rgpu_capture_guard(RGPU_DRIVER, hStream, 1); if (crc) return crc; }
    rgpu_begin(&c, RGPU_ID_cuMemDiscardBatchAsync, "cuMemDiscardBatchAsync", RGPU_DRIVER);
    rgpu_put_u(&c, (uint64_t)count);
    rgpu_put_u(&c, (uint64_t)flags);
    rgpu_put_h(&c, hStream);
    int rc = rgpu_sync(&c);
    if (rc == 0) {
        *dptrs = (uint64_t)rgpu_out_u(&c);
        *sizes = (uint64_t)rgpu_out_u(&c);
    }
    rgpu_end(&c);
    return rc;
}

/* cuMemDiscardAndPrefetchBatchAsync: forwarded */
int cuMemDiscardAndPrefetchBatchAsync(uint64_t * dptrs, uint64_t * sizes, uint64_t count, void * prefetchLocs, uint64_t * prefetchLocIdxs, uint64_t numPrefetchLocs, uint64_t flags, void * hStream)
{
    rgpu_call c;
    if (dptrs == NULL) return rgpu_invalid_value(RGPU_DRIVER);
    if (sizes == NULL) return rgpu_invalid_value(RGPU_DRIVER);
    if (prefetchLocIdxs == NULL) return rgpu_invalid_value(RGPU_DRIVER);
    { int crc = rgpu_capture_guard(RGPU_DRIVER, hStream, 1); if (crc) return crc; }
    rgpu_begin(&c, RGPU_ID_cuMemDiscardAndPrefetchBatchAsync, "cuMemDiscardAndPrefetchBatchAsync", RGPU_DRIVER);
    rgpu_put_u(&c, (uint64_t)count);
    rgpu_put_h(&c, prefetchLocs);
    rgpu_put_u(&c, (uint64_t)numPrefetchLocs);
    rgpu_put_u(&c, (uint64_t)flags);
    rgpu_put_h(&c, hStream);
    int rc = rgpu_sync(&c);
    if (rc == 0) {
        *dptrs = (uint64_t)rgpu_out_u(&c);
        *sizes = (uint64_t)rgpu_out_u(&c);
        *prefetchLocIdxs = (uint64_t)rgpu_out_u(&c);
    }
    rgpu_end(&c);
    return rc;
}

/* cuMemRangeGetAttribute: not supported: managed range attributes are not forwarded yet */
int cuMemRangeGetAttribute()
{
    return rgpu_unsupported(RGPU_DRIVER, "cuMemRangeGetAttribute");
}

/* cuMemRangeGetAttributes: not supported: managed range attributes are not forwarded yet */
int cuMemRangeGetAttributes()
{
    return rgpu_unsupported(RGPU_DRIVER, "cuMemRangeGetAttributes");
}

/* cuPointerSetAttribute: not supported: setting pointer attributes is not forwarded yet */
int cuPointerSetAttribute()
{
    return rgpu_unsupported(RGPU_DRIVER, "cuPointerSetAttribute");
}

/* cuStreamCreate: forwarded */
int cuStreamCreate(void * * phStream, uint32_t Flags)
{
    rgpu_call c;
    if (phStream == NULL) return rgpu_invalid_value(RGPU_DRIVER);
    rgpu_begin(&c, RGPU_ID_cuStreamCreate, "cuStreamCreate", RGPU_DRIVER);
    rgpu_put_u(&c, (uint64_t)Flags);
    int rc = rgpu_sync(&c);
    if (rc == 0) {
        *phStream = rgpu_out_h(&c);
    }
    rgpu_end(&c);
    return rc;
}

/* cuStreamCreateWithPriority: forwarded */
int cuStreamCreateWithPriority(void * * phStream, uint32_t flags, int32_t priority)
{
    rgpu_call c;
    if (phStream == NULL) return rgpu_invalid_value(RGPU_DRIVER);
    rgpu_begin(&c, RGPU_ID_cuStreamCreateWithPriority, "cuStreamCreateWithPriority", RGPU_DRIVER);
    rgpu_put_u(&c, (uint64_t)flags);
    rgpu_put_i(&c, (int64_t)priority);
    int rc = rgpu_sync(&c);
    if (rc == 0) {
        *phStream = rgpu_out_h(&c);
    }
    rgpu_end(&c);
    return rc;
}

/* cuStreamGetPriority: forwarded */
int cuStreamGetPriority(void * hStream, int32_t * priority)
{
    rgpu_call c;
    if (priority == NULL) return rgpu_invalid_value(RGPU_DRIVER);
    rgpu_begin(&c, RGPU_ID_cuStreamGetPriority, "cuStreamGetPriority", RGPU_DRIVER);
    rgpu_put_h(&c, hStream);
    int rc = rgpu_sync(&c);
    if (rc == 0) {
        *priority = (int32_t)rgpu_out_i(&c);
    }
    rgpu_end(&c);
    return rc;
}

/* cuStreamGetDevice: forwarded */
int cuStreamGetDevice(void * hStream, int32_t * device)
{
    rgpu_call c;
    if (device == NULL) return rgpu_invalid_value(RGPU_DRIVER);
    rgpu_begin(&c, RGPU_ID_cuStreamGetDevice, "cuStreamGetDevice", RGPU_DRIVER);
    rgpu_put_h(&c, hStream);
    int rc = rgpu_sync(&c);
    if (rc == 0) {
        *device = (int32_t)rgpu_out_i(&c);
    }
    rgpu_end(&c);
    return rc;
}

/* cuStreamGetFlags: forwarded */
int cuStreamGetFlags(void * hStream, uint32_t * flags)
{
    rgpu_call c;
    if (flags == NULL) return rgpu_invalid_value(RGPU_DRIVER);
    rgpu_begin(&c, RGPU_ID_cuStreamGetFlags, "cuStreamGetFlags", RGPU_DRIVER);
    rgpu_put_h(&c, hStream);
    int rc = rgpu_sync(&c);
    if (rc == 0) {
        *flags = (uint32_t)rgpu_out_u(&c);
    }
    rgpu_end(&c);
    return rc;
}

/* cuStreamGetId: forwarded */
int cuStreamGetId(void * hStream, uint64_t * streamId)
{
    rgpu_call c;
    if (streamId == NULL) return rgpu_invalid_value(RGPU_DRIVER);
    rgpu_begin(&c, RGPU_ID_cuStreamGetId, "cuStreamGetId", RGPU_DRIVER);
    rgpu_put_h(&c, hStream);
    int rc = rgpu_sync(&c);
    if (rc == 0) {
        *streamId = (uint64_t)rgpu_out_u(&c);
    }
    rgpu_end(&c);
    return rc;
}

/* cuStreamGetCtx: not supported: contexts live in the client: not forwarded yet */
int cuStreamGetCtx()
{
    return rgpu_unsupported(RGPU_DRIVER, "cuStreamGetCtx");
}

/* cuStreamGetCtx_v2: not supported: contexts live in the client: not forwarded yet */
int cuStreamGetCtx_v2()
{
    return rgpu_unsupported(RGPU_DRIVER, "cuStreamGetCtx_v2");
}

/* cuStreamWaitEvent: forwarded (async) */
int cuStreamWaitEvent(void * hStream, void * hEvent, uint32_t Flags)
{
    rgpu_call c;
    { int crc; if (rgpu_capture_cuStreamWaitEvent(&crc, hStream, hEvent, Flags)) return crc; }
    rgpu_begin(&c, RGPU_ID_cuStreamWaitEvent, "cuStreamWaitEvent", RGPU_DRIVER);
    rgpu_put_h(&c, hStream);
    rgpu_put_h(&c, hEvent);
    rgpu_put_u(&c, (uint64_t)Flags);
    return rgpu_async(&c);
}

/* cuStreamQuery: forwarded */
int cuStreamQuery(void * hStream)
{
    rgpu_call c;
    { int crc = rgpu_capture_guard(RGPU_DRIVER, hStream, 1); if (crc) return crc; }
    rgpu_begin(&c, RGPU_ID_cuStreamQuery, "cuStreamQuery", RGPU_DRIVER);
    rgpu_put_h(&c, hStream);
    int rc = rgpu_sync(&c);
    rgpu_end(&c);
    return rc;
}

/* cuStreamSynchronize: forwarded */
int cuStreamSynchronize(void * hStream)
{
    rgpu_call c;
    { int crc = rgpu_capture_guard(RGPU_DRIVER, hStream, 1); if (crc) return crc; }
    rgpu_begin(&c, RGPU_ID_cuStreamSynchronize, "cuStreamSynchronize", RGPU_DRIVER);
    rgpu_put_h(&c, hStream);
    int rc = rgpu_sync(&c);
    rgpu_end(&c);
    return rc;
}

/* cuStreamDestroy_v2: forwarded */
int cuStreamDestroy_v2(void * hStream)
{
    rgpu_call c;
    rgpu_begin(&c, RGPU_ID_cuStreamDestroy_v2, "cuStreamDestroy_v2", RGPU_DRIVER);
    rgpu_put_h(&c, hStream);
    int rc = rgpu_sync(&c);
    rgpu_end(&c);
    return rc;
}

/* cuStreamCopyAttributes: forwarded */
int cuStreamCopyAttributes(void * dst, void * src)
{
    rgpu_call c;
    rgpu_begin(&c, RGPU_ID_cuStreamCopyAttributes, "cuStreamCopyAttributes", RGPU_DRIVER);
    rgpu_put_h(&c, dst);
    rgpu_put_h(&c, src);
    int rc = rgpu_sync(&c);
    rgpu_end(&c);
    return rc;
}

/* cuStreamGetAttribute: forwarded */
int cuStreamGetAttribute(void * hStream, int attr, void * value_out)
{
    rgpu_call c;
    rgpu_begin(&c, RGPU_ID_cuStreamGetAttribute, "cuStreamGetAttribute", RGPU_DRIVER);
    rgpu_put_h(&c, hStream);
    rgpu_put_i(&c, (int64_t)attr);
    rgpu_put_h(&c, value_out);
    int rc = rgpu_sync(&c);
    rgpu_end(&c);
    return rc;
}

/* cuStreamSetAttribute: forwarded */
int cuStreamSetAttribute(void * hStream, int attr, void * value)
{
    rgpu_call c;
    rgpu_begin(&c, RGPU_ID_cuStreamSetAttribute, "cuStreamSetAttribute", RGPU_DRIVER);
    rgpu_put_h(&c, hStream);
    rgpu_put_i(&c, (int64_t)attr);
    rgpu_put_h(&c, value);
    int rc = rgpu_sync(&c);
    rgpu_end(&c);
    return rc;
}

/* cuEventCreate: forwarded */
int cuEventCreate(void * * phEvent, uint32_t Flags)
{
    rgpu_call c;
    if (phEvent == NULL) return rgpu_invalid_value(RGPU_DRIVER);
    rgpu_begin(&c, RGPU_ID_cuEventCreate, "cuEventCreate", RGPU_DRIVER);
    rgpu_put_u(&c, (uint64_t)Flags);
    int rc = rgpu_sync(&c);
    if (rc == 0) {
        *phEvent = rgpu_out_h(&c);
    }
    rgpu_end(&c);
    return rc;
}

/* cuEventRecord: forwarded (async) */
int cuEventRecord(void * hEvent, void * hStream)
{
    rgpu_call c;
    { int crc; if (rgpu_capture_cuEventRecord(&crc, hEvent, hStream)) return crc; }
    rgpu_begin(&c, RGPU_ID_cuEventRecord, "cuEventRecord", RGPU_DRIVER);
    rgpu_put_h(&c, hEvent);
    rgpu_put_h(&c, hStream);
    return rgpu_async(&c);
}

/* cuEventRecordWithFlags: forwarded (async) */
int cuEventRecordWithFlags(void * hEvent, void * hStream, uint32_t flags)
{
    rgpu_call c;
    { int crc; if (rgpu_capture_cuEventRecordWithFlags(&crc, hEvent, hStream, flags)) return crc; }
    rgpu_begin(&c, RGPU_ID_cuEventRecordWithFlags, "cuEventRecordWithFlags", RGPU_DRIVER);
    rgpu_put_h(&c, hEvent);
    rgpu_put_h(&c, hStream);
    rgpu_put_u(&c, (uint64_t)flags);
    return rgpu_async(&c);
}

/* cuEventQuery: forwarded */
int cuEventQuery(void * hEvent)
{
    rgpu_call c;
    { int crc; if (rgpu_capture_cuEventQuery(&crc, hEvent)) return crc; }
    rgpu_begin(&c, RGPU_ID_cuEventQuery, "cuEventQuery", RGPU_DRIVER);
    rgpu_put_h(&c, hEvent);
    int rc = rgpu_sync(&c);
    rgpu_end(&c);
    return rc;
}

/* cuEventSynchronize: forwarded */
int cuEventSynchronize(void * hEvent)
{
    rgpu_call c;
    { int crc; if (rgpu_capture_cuEventSynchronize(&crc, hEvent)) return crc; }
    rgpu_begin(&c, RGPU_ID_cuEventSynchronize, "cuEventSynchronize", RGPU_DRIVER);
    rgpu_put_h(&c, hEvent);
    int rc = rgpu_sync(&c);
    rgpu_end(&c);
    return rc;
}

/* cuEventDestroy_v2: forwarded */
int cuEventDestroy_v2(void * hEvent)
{
    rgpu_call c;
    rgpu_begin(&c, RGPU_ID_cuEventDestroy_v2, "cuEventDestroy_v2", RGPU_DRIVER);
    rgpu_put_h(&c, hEvent);
    int rc = rgpu_sync(&c);
    rgpu_end(&c);
    return rc;
}

/* cuEventElapsedTime_v2: forwarded */
int cuEventElapsedTime_v2(float * pMilliseconds, void * hStart, void * hEnd)
{
    rgpu_call c;
    if (pMilliseconds == NULL) return rgpu_invalid_value(RGPU_DRIVER);
    rgpu_begin(&c, RGPU_ID_cuEventElapsedTime_v2, "cuEventElapsedTime_v2", RGPU_DRIVER);
    rgpu_put_h(&c, hStart);
    rgpu_put_h(&c, hEnd);
    int rc = rgpu_sync(&c);
    if (rc == 0) {
        *pMilliseconds = (float)rgpu_out_f(&c);
    }
    rgpu_end(&c);
    return rc;
}

/* cuImportExternalMemory: not supported: external memory and semaphores are not forwarded */
int cuImportExternalMemory()
{
    return rgpu_unsupported(RGPU_DRIVER, "cuImportExternalMemory");
}

/* cuExternalMemoryGetMappedBuffer: not supported: external memory and semaphores are not forwarded */
int cuExternalMemoryGetMappedBuffer()
{
    return rgpu_unsupported(RGPU_DRIVER, "cuExternalMemoryGetMappedBuffer");
}

/* cuExternalMemoryGetMappedMipmappedArray: not supported: external memory and semaphores are not forwarded */
int cuExternalMemoryGetMappedMipmappedArray()
{
    return rgpu_unsupported(RGPU_DRIVER, "cuExternalMemoryGetMappedMipmappedArray");
}

/* cuDestroyExternalMemory: not supported: external memory and semaphores are not forwarded */
int cuDestroyExternalMemory()
{
    return rgpu_unsupported(RGPU_DRIVER, "cuDestroyExternalMemory");
}

/* cuImportExternalSemaphore: not supported: external memory and semaphores are not forwarded */
int cuImportExternalSemaphore()
{
    return rgpu_unsupported(RGPU_DRIVER, "cuImportExternalSemaphore");
}

/* cuSignalExternalSemaphoresAsync: not supported: external memory and semaphores are not forwarded */
int cuSignalExternalSemaphoresAsync()
{
    return rgpu_unsupported(RGPU_DRIVER, "cuSignalExternalSemaphoresAsync");
}

/* cuWaitExternalSemaphoresAsync: not supported: external memory and semaphores are not forwarded */
int cuWaitExternalSemaphoresAsync()
{
    return rgpu_unsupported(RGPU_DRIVER, "cuWaitExternalSemaphoresAsync");
}

/* cuDestroyExternalSemaphore: not supported: external memory and semaphores are not forwarded */
int cuDestroyExternalSemaphore()
{
    return rgpu_unsupported(RGPU_DRIVER, "cuDestroyExternalSemaphore");
}

/* cuStreamWaitValue32_v2: forwarded */
int cuStreamWaitValue32_v2(void * stream, uint64_t addr, uint32_t value, uint32_t flags)
{
    rgpu_call c;
    { int crc = rgpu_capture_guard(RGPU_DRIVER, stream, 1); if (crc) return crc; }
    rgpu_begin(&c, RGPU_ID_cuStreamWaitValue32_v2, "cuStreamWaitValue32_v2", RGPU_DRIVER);
    rgpu_put_h(&c, stream);
    rgpu_put_u(&c, (uint64_t)addr);
    rgpu_put_u(&c, (uint64_t)value);
    rgpu_put_u(&c, (uint64_t)flags);
    int rc = rgpu_sync(&c);
    rgpu_end(&c);
    return rc;
}

/* cuStreamWaitValue64_v2: forwarded */
int cuStreamWaitValue64_v2(void * stream, uint64_t addr, uint64_t value, uint32_t flags)
{
    rgpu_call c;
    { int crc = rgpu_capture_guard(RGPU_DRIVER, stream, 1); if (crc) return crc; }
    rgpu_begin(&c, RGPU_ID_cuStreamWaitValue64_v2, "cuStreamWaitValue64_v2", RGPU_DRIVER);
    rgpu_put_h(&c, stream);
    rgpu_put_u(&c, (uint64_t)addr);
    rgpu_put_u(&c, (uint64_t)value);
    rgpu_put_u(&c, (uint64_t)flags);
    int rc = rgpu_sync(&c);
    rgpu_end(&c);
    return rc;
}

/* cuStreamWriteValue32_v2: forwarded */
int cuStreamWriteValue32_v2(void * stream, uint64_t addr, uint32_t value, uint32_t flags)
{
    rgpu_call c;
    { int crc = rgpu_capture_guard(RGPU_DRIVER, stream, 1); if (crc) return crc; }
    rgpu_begin(&c, RGPU_ID_cuStreamWriteValue32_v2, "cuStreamWriteValue32_v2", RGPU_DRIVER);
    rgpu_put_h(&c, stream);
    rgpu_put_u(&c, (uint64_t)addr);
    rgpu_put_u(&c, (uint64_t)value);
    rgpu_put_u(&c, (uint64_t)flags);
    int rc = rgpu_sync(&c);
    rgpu_end(&c);
    return rc;
}

/* cuStreamWriteValue64_v2: forwarded */
int cuStreamWriteValue64_v2(void * stream, uint64_t addr, uint64_t value, uint32_t flags)
{
    rgpu_call c;
    { int crc = rgpu_capture_guard(RGPU_DRIVER, stream, 1); if (crc) return crc; }
    rgpu_begin(&c, RGPU_ID_cuStreamWriteValue64_v2, "cuStreamWriteValue64_v2", RGPU_DRIVER);
    rgpu_put_h(&c, stream);
    rgpu_put_u(&c, (uint64_t)addr);
    rgpu_put_u(&c, (uint64_t)value);
    rgpu_put_u(&c, (uint64_t)flags);
    int rc = rgpu_sync(&c);
    rgpu_end(&c);
    return rc;
}

/* cuStreamBatchMemOp_v2: forwarded */
int cuStreamBatchMemOp_v2(void * stream, uint32_t count, void * paramArray, uint32_t flags)
{
    rgpu_call c;
    { int crc = rgpu_capture_guard(RGPU_DRIVER, stream, 1); if (crc) return crc; }
    rgpu_begin(&c, RGPU_ID_cuStreamBatchMemOp_v2, "cuStreamBatchMemOp_v2", RGPU_DRIVER);
    rgpu_put_h(&c, stream);
    rgpu_put_u(&c, (uint64_t)count);
    rgpu_put_h(&c, paramArray);
    rgpu_put_u(&c, (uint64_t)flags);
    int rc = rgpu_sync(&c);
    rgpu_end(&c);
    return rc;
}

/* cuFuncGetAttribute: forwarded */
int cuFuncGetAttribute(int32_t * pi, int attrib, void * hfunc)
{
    rgpu_call c;
    if (pi == NULL) return rgpu_invalid_value(RGPU_DRIVER);
    rgpu_begin(&c, RGPU_ID_cuFuncGetAttribute, "cuFuncGetAttribute", RGPU_DRIVER);
    rgpu_put_i(&c, (int64_t)attrib);
    rgpu_put_h(&c, hfunc);
    int rc = rgpu_sync(&c);
    if (rc == 0) {
        *pi = (int32_t)rgpu_out_i(&c);
    }
    rgpu_end(&c);
    return rc;
}

/* cuFuncSetAttribute: forwarded */
int cuFuncSetAttribute(void * hfunc, int attrib, int32_t value)
{
    rgpu_call c;
    rgpu_begin(&c, RGPU_ID_cuFuncSetAttribute, "cuFuncSetAttribute", RGPU_DRIVER);
    rgpu_put_h(&c, hfunc);
    rgpu_put_i(&c, (int64_t)attrib);
    rgpu_put_i(&c, (int64_t)value);
    int rc = rgpu_sync(&c);
    rgpu_end(&c);
    return rc;
}

/* cuFuncSetCacheConfig: forwarded */
int cuFuncSetCacheConfig(void * hfunc, int config)
{
    rgpu_call c;
    rgpu_begin(&c, RGPU_ID_cuFuncSetCacheConfig, "cuFuncSetCacheConfig", RGPU_DRIVER);
    rgpu_put_h(&c, hfunc);
    rgpu_put_i(&c, (int64_t)config);
    int rc = rgpu_sync(&c);
    rgpu_end(&c);
    return rc;
}

/* cuFuncGetModule: forwarded */
int cuFuncGetModule(void * * hmod, void * hfunc)
{
    rgpu_call c;
    if (hmod == NULL) return rgpu_invalid_value(RGPU_DRIVER);
    rgpu_begin(&c, RGPU_ID_cuFuncGetModule, "cuFuncGetModule", RGPU_DRIVER);
    rgpu_put_h(&c, hfunc);
    int rc = rgpu_sync(&c);
    if (rc == 0) {
        *hmod = rgpu_out_h(&c);
    }
    rgpu_end(&c);
    return rc;
}

/* cuFuncGetParamInfo: forwarded */
int cuFuncGetParamInfo(void * func, uint64_t paramIndex, uint64_t * paramOffset, uint64_t * paramSize)
{
    rgpu_call c;
    if (paramOffset == NULL) return rgpu_invalid_value(RGPU_DRIVER);
    if (paramSize == NULL) return rgpu_invalid_value(RGPU_DRIVER);
    rgpu_begin(&c, RGPU_ID_cuFuncGetParamInfo, "cuFuncGetParamInfo", RGPU_DRIVER);
    rgpu_put_h(&c, func);
    rgpu_put_u(&c, (uint64_t)paramIndex);
    int rc = rgpu_sync(&c);
    if (rc == 0) {
        *paramOffset = (uint64_t)rgpu_out_u(&c);
        *paramSize = (uint64_t)rgpu_out_u(&c);
    }
    rgpu_end(&c);
    return rc;
}

/* cuFuncIsLoaded: forwarded */
int cuFuncIsLoaded(int * state, void * function)
{
    rgpu_call c;
    if (state == NULL) return rgpu_invalid_value(RGPU_DRIVER);
    rgpu_begin(&c, RGPU_ID_cuFuncIsLoaded, "cuFuncIsLoaded", RGPU_DRIVER);
    rgpu_put_h(&c, function);
    int rc = rgpu_sync(&c);
    if (rc == 0) {
        *state = (int)rgpu_out_i(&c);
    }
    rgpu_end(&c);
    return rc;
}

/* cuFuncLoad: forwarded */
int cuFuncLoad(void * function)
{
    rgpu_call c;
    rgpu_begin(&c, RGPU_ID_cuFuncLoad, "cuFuncLoad", RGPU_DRIVER);
    rgpu_put_h(&c, function);
    int rc = rgpu_sync(&c);
    rgpu_end(&c);
    return rc;
}

/* cuLaunchCooperativeKernelMultiDevice: not supported: host-function launches are not forwarded yet */
int cuLaunchCooperativeKernelMultiDevice()
{
    return rgpu_unsupported(RGPU_DRIVER, "cuLaunchCooperativeKernelMultiDevice");
}

/* cuFuncSetBlockShape: forwarded */
int cuFuncSetBlockShape(void * hfunc, int32_t x, int32_t y, int32_t z)
{
    rgpu_call c;
    rgpu_begin(&c, RGPU_ID_cuFuncSetBlockShape, "cuFuncSetBlockShape", RGPU_DRIVER);
    rgpu_put_h(&c, hfunc);
    rgpu_put_i(&c, (int64_t)x);
    rgpu_put_i(&c, (int64_t)y);
    rgpu_put_i(&c, (int64_t)z);
    int rc = rgpu_sync(&c);
    rgpu_end(&c);
    return rc;
}

/* cuFuncSetSharedSize: forwarded */
int cuFuncSetSharedSize(void * hfunc, uint32_t bytes)
{
    rgpu_call c;
    rgpu_begin(&c, RGPU_ID_cuFuncSetSharedSize, "cuFuncSetSharedSize", RGPU_DRIVER);
    rgpu_put_h(&c, hfunc);
    rgpu_put_u(&c, (uint64_t)bytes);
    int rc = rgpu_sync(&c);
    rgpu_end(&c);
    return rc;
}

/* cuParamSetSize: forwarded */
int cuParamSetSize(void * hfunc, uint32_t numbytes)
{
    rgpu_call c;
    rgpu_begin(&c, RGPU_ID_cuParamSetSize, "cuParamSetSize", RGPU_DRIVER);
    rgpu_put_h(&c, hfunc);
    rgpu_put_u(&c, (uint64_t)numbytes);
    int rc = rgpu_sync(&c);
    rgpu_end(&c);
    return rc;
}

/* cuParamSeti: forwarded */
int cuParamSeti(void * hfunc, int32_t offset, uint32_t value)
{
    rgpu_call c;
    rgpu_begin(&c, RGPU_ID_cuParamSeti, "cuParamSeti", RGPU_DRIVER);
    rgpu_put_h(&c, hfunc);
    rgpu_put_i(&c, (int64_t)offset);
    rgpu_put_u(&c, (uint64_t)value);
    int rc = rgpu_sync(&c);
    rgpu_end(&c);
    return rc;
}

/* cuParamSetf: forwarded */
int cuParamSetf(void * hfunc, int32_t offset, float value)
{
    rgpu_call c;
    rgpu_begin(&c, RGPU_ID_cuParamSetf, "cuParamSetf", RGPU_DRIVER);
    rgpu_put_h(&c, hfunc);
    rgpu_put_i(&c, (int64_t)offset);
    rgpu_put_f(&c, (double)value);
    int rc = rgpu_sync(&c);
    rgpu_end(&c);
    return rc;
}

/* cuParamSetv: not supported: legacy launch API */
int cuParamSetv()
{
    return rgpu_unsupported(RGPU_DRIVER, "cuParamSetv");
}

/* cuLaunch: not supported: host-function launches are not forwarded yet */
int cuLaunch()
{
    return rgpu_unsupported(RGPU_DRIVER, "cuLaunch");
}

/* cuLaunchGrid: not supported: host-function launches are not forwarded yet */
int cuLaunchGrid()
{
    return rgpu_unsupported(RGPU_DRIVER, "cuLaunchGrid");
}

/* cuLaunchGridAsync: not supported: host-function launches are not forwarded yet */
int cuLaunchGridAsync()
{
    return rgpu_unsupported(RGPU_DRIVER, "cuLaunchGridAsync");
}

/* cuParamSetTexRef: forwarded */
int cuParamSetTexRef(void * hfunc, int32_t texunit, void * hTexRef)
{
    rgpu_call c;
    rgpu_begin(&c, RGPU_ID_cuParamSetTexRef, "cuParamSetTexRef", RGPU_DRIVER);
    rgpu_put_h(&c, hfunc);
    rgpu_put_i(&c, (int64_t)texunit);
    rgpu_put_h(&c, hTexRef);
    int rc = rgpu_sync(&c);
    rgpu_end(&c);
    return rc;
}

/* cuFuncSetSharedMemConfig: forwarded */
int cuFuncSetSharedMemConfig(void * hfunc, int config)
{
    rgpu_call c;
    rgpu_begin(&c, RGPU_ID_cuFuncSetSharedMemConfig, "cuFuncSetSharedMemConfig", RGPU_DRIVER);
    rgpu_put_h(&c, hfunc);
    rgpu_put_i(&c, (int64_t)config);
    int rc = rgpu_sync(&c);
    rgpu_end(&c);
    return rc;
}

/* cuGraphAddExternalSemaphoresSignalNode: not supported: external semaphores are not forwarded */
int cuGraphAddExternalSemaphoresSignalNode()
{
    return rgpu_unsupported(RGPU_DRIVER, "cuGraphAddExternalSemaphoresSignalNode");
}

/* cuGraphExternalSemaphoresSignalNodeGetParams: not supported: external semaphores are not forwarded */
int cuGraphExternalSemaphoresSignalNodeGetParams()
{
    return rgpu_unsupported(RGPU_DRIVER, "cuGraphExternalSemaphoresSignalNodeGetParams");
}

/* cuGraphExternalSemaphoresSignalNodeSetParams: not supported: external semaphores are not forwarded */
int cuGraphExternalSemaphoresSignalNodeSetParams()
{
    return rgpu_unsupported(RGPU_DRIVER, "cuGraphExternalSemaphoresSignalNodeSetParams");
}

/* cuGraphAddExternalSemaphoresWaitNode: not supported: external semaphores are not forwarded */
int cuGraphAddExternalSemaphoresWaitNode()
{
    return rgpu_unsupported(RGPU_DRIVER, "cuGraphAddExternalSemaphoresWaitNode");
}

/* cuGraphExternalSemaphoresWaitNodeGetParams: not supported: external semaphores are not forwarded */
int cuGraphExternalSemaphoresWaitNodeGetParams()
{
    return rgpu_unsupported(RGPU_DRIVER, "cuGraphExternalSemaphoresWaitNodeGetParams");
}

/* cuGraphExternalSemaphoresWaitNodeSetParams: not supported: external semaphores are not forwarded */
int cuGraphExternalSemaphoresWaitNodeSetParams()
{
    return rgpu_unsupported(RGPU_DRIVER, "cuGraphExternalSemaphoresWaitNodeSetParams");
}

/* cuGraphAddBatchMemOpNode: not supported: batched memory operations are not forwarded */
int cuGraphAddBatchMemOpNode()
{
    return rgpu_unsupported(RGPU_DRIVER, "cuGraphAddBatchMemOpNode");
}

/* cuGraphBatchMemOpNodeGetParams: not supported: batched memory operations are not forwarded */
int cuGraphBatchMemOpNodeGetParams()
{
    return rgpu_unsupported(RGPU_DRIVER, "cuGraphBatchMemOpNodeGetParams");
}

/* cuGraphBatchMemOpNodeSetParams: not supported: batched memory operations are not forwarded */
int cuGraphBatchMemOpNodeSetParams()
{
    return rgpu_unsupported(RGPU_DRIVER, "cuGraphBatchMemOpNodeSetParams");
}

/* cuGraphExecBatchMemOpNodeSetParams: not supported: batched memory operations are not forwarded */
int cuGraphExecBatchMemOpNodeSetParams()
{
    return rgpu_unsupported(RGPU_DRIVER, "cuGraphExecBatchMemOpNodeSetParams");
}

/* cuGraphExecExternalSemaphoresSignalNodeSetParams: not supported: external semaphores are not forwarded */
int cuGraphExecExternalSemaphoresSignalNodeSetParams()
{
    return rgpu_unsupported(RGPU_DRIVER, "cuGraphExecExternalSemaphoresSignalNodeSetParams");
}

/* cuGraphExecExternalSemaphoresWaitNodeSetParams: not supported: external semaphores are not forwarded */
int cuGraphExecExternalSemaphoresWaitNodeSetParams()
{
    return rgpu_unsupported(RGPU_DRIVER, "cuGraphExecExternalSemaphoresWaitNodeSetParams");
}

/* cuGraphKernelNodeCopyAttributes: not supported: kernel node launch attributes are not implemented yet */
int cuGraphKernelNodeCopyAttributes()
{
    return rgpu_unsupported(RGPU_DRIVER, "cuGraphKernelNodeCopyAttributes");
}

/* cuGraphKernelNodeGetAttribute: not supported: kernel node launch attributes are not implemented yet */
int cuGraphKernelNodeGetAttribute()
{
    return rgpu_unsupported(RGPU_DRIVER, "cuGraphKernelNodeGetAttribute");
}

/* cuGraphKernelNodeSetAttribute: not supported: kernel node launch attributes are not implemented yet */
int cuGraphKernelNodeSetAttribute()
{
    return rgpu_unsupported(RGPU_DRIVER, "cuGraphKernelNodeSetAttribute");
}

/* cuUserObjectCreate: not supported: graph user objects are not implemented yet */
int cuUserObjectCreate()
{
    return rgpu_unsupported(RGPU_DRIVER, "cuUserObjectCreate");
}

/* cuUserObjectRetain: not supported: graph user objects are not implemented yet */
int cuUserObjectRetain()
{
    return rgpu_unsupported(RGPU_DRIVER, "cuUserObjectRetain");
}

/* cuUserObjectRelease: not supported: graph user objects are not implemented yet */
int cuUserObjectRelease()
{
    return rgpu_unsupported(RGPU_DRIVER, "cuUserObjectRelease");
}

/* cuGraphRetainUserObject: not supported: graph user objects are not implemented yet */
int cuGraphRetainUserObject()
{
    return rgpu_unsupported(RGPU_DRIVER, "cuGraphRetainUserObject");
}

/* cuGraphReleaseUserObject: not supported: graph user objects are not implemented yet */
int cuGraphReleaseUserObject()
{
    return rgpu_unsupported(RGPU_DRIVER, "cuGraphReleaseUserObject");
}

/* cuGraphAddNode_v2: not supported: the generic node-parameter union (CUgraphNodeParams) is not mapped yet */
int cuGraphAddNode_v2()
{
    return rgpu_unsupported(RGPU_DRIVER, "cuGraphAddNode_v2");
}

/* cuGraphNodeSetParams: not supported: the generic node-parameter union (CUgraphNodeParams) is not mapped yet */
int cuGraphNodeSetParams()
{
    return rgpu_unsupported(RGPU_DRIVER, "cuGraphNodeSetParams");
}

/* cuGraphExecNodeSetParams: not supported: the generic node-parameter union (CUgraphNodeParams) is not mapped yet */
int cuGraphExecNodeSetParams()
{
    return rgpu_unsupported(RGPU_DRIVER, "cuGraphExecNodeSetParams");
}

/* cuGraphConditionalHandleCreate: not supported: conditional graph nodes are not implemented yet */
int cuGraphConditionalHandleCreate()
{
    return rgpu_unsupported(RGPU_DRIVER, "cuGraphConditionalHandleCreate");
}

/* cuOccupancyMaxActiveBlocksPerMultiprocessor: forwarded */
int cuOccupancyMaxActiveBlocksPerMultiprocessor(int32_t * numBlocks, void * func, int32_t blockSize, uint64_t dynamicSMemSize)
{
    rgpu_call c;
    if (numBlocks == NULL) return rgpu_invalid_value(RGPU_DRIVER);
    rgpu_begin(&c, RGPU_ID_cuOccupancyMaxActiveBlocksPerMultiprocessor, "cuOccupancyMaxActiveBlocksPerMultiprocessor", RGPU_DRIVER);
    rgpu_put_h(&c, func);
    rgpu_put_i(&c, (int64_t)blockSize);
    rgpu_put_u(&c, (uint64_t)dynamicSMemSize);
    int rc = rgpu_sync(&c);
    if (rc == 0) {
        *numBlocks = (int32_t)rgpu_out_i(&c);
    }
    rgpu_end(&c);
    return rc;
}

/* cuOccupancyMaxActiveBlocksPerMultiprocessorWithFlags: forwarded */
int cuOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(int32_t * numBlocks, void * func, int32_t blockSize, uint64_t dynamicSMemSize, uint32_t flags)
{
    rgpu_call c;
    if (numBlocks == NULL) return rgpu_invalid_value(RGPU_DRIVER);
    rgpu_begin(&c, RGPU_ID_cuOccupancyMaxActiveBlocksPerMultiprocessorWithFlags, "cuOccupancyMaxActiveBlocksPerMultiprocessorWithFlags", RGPU_DRIVER);
    rgpu_put_h(&c, func);
    rgpu_put_i(&c, (int64_t)blockSize);
    rgpu_put_u(&c, (uint64_t)dynamicSMemSize);
    rgpu_put_u(&c, (uint64_t)flags);
    int rc = rgpu_sync(&c);
    if (rc == 0) {
        *numBlocks = (int32_t)rgpu_out_i(&c);
    }
    rgpu_end(&c);
    return rc;
}

/* cuOccupancyMaxPotentialBlockSize: not supported: takes a host callback: not forwarded yet */
int cuOccupancyMaxPotentialBlockSize()
{
    return rgpu_unsupported(RGPU_DRIVER, "cuOccupancyMaxPotentialBlockSize");
}

/* cuOccupancyMaxPotentialBlockSizeWithFlags: not supported: takes a host callback: not forwarded yet */
int cuOccupancyMaxPotentialBlockSizeWithFlags()
{
    return rgpu_unsupported(RGPU_DRIVER, "cuOccupancyMaxPotentialBlockSizeWithFlags");
}

/* cuOccupancyAvailableDynamicSMemPerBlock: forwarded */
int cuOccupancyAvailableDynamicSMemPerBlock(uint64_t * dynamicSmemSize, void * func, int32_t numBlocks, int32_t blockSize)
{
    rgpu_call c;
    if (dynamicSmemSize == NULL) return rgpu_invalid_value(RGPU_DRIVER);
    rgpu_begin(&c, RGPU_ID_cuOccupancyAvailableDynamicSMemPerBlock, "cuOccupancyAvailableDynamicSMemPerBlock", RGPU_DRIVER);
    rgpu_put_h(&c, func);
    rgpu_put_i(&c, (int64_t)numBlocks);
    rgpu_put_i(&c, (int64_t)blockSize);
    int rc = rgpu_sync(&c);
    if (rc == 0) {
        *dynamicSmemSize = (uint64_t)rgpu_out_u(&c);
    }
    rgpu_end(&c);
    return rc;
}

/* cuOccupancyMaxPotentialClusterSize: forwarded */
int cuOccupancyMaxPotentialClusterSize(int32_t * clusterSize, void * func, void * config)
{
    rgpu_call c;
    if (clusterSize == NULL) return rgpu_invalid_value(RGPU_DRIVER);
    rgpu_begin(&c, RGPU_ID_cuOccupancyMaxPotentialClusterSize, "cuOccupancyMaxPotentialClusterSize", RGPU_DRIVER);
    rgpu_put_h(&c, func);
    rgpu_put_h(&c, config);
    int rc = rgpu_sync(&c);
    if (rc == 0) {
        *clusterSize = (int32_t)rgpu_out_i(&c);
    }
    rgpu_end(&c);
    return rc;
}

/* cuOccupancyMaxActiveClusters: forwarded */
int cuOccupancyMaxActiveClusters(int32_t * numClusters, void * func, void * config)
{
    rgpu_call c;
    if (numClusters == NULL) return rgpu_invalid_value(RGPU_DRIVER);
    rgpu_begin(&c, RGPU_ID_cuOccupancyMaxActiveClusters, "cuOccupancyMaxActiveClusters", RGPU_DRIVER);
    rgpu_put_h(&c, func);
    rgpu_put_h(&c, config);
    int rc = rgpu_sync(&c);
    if (rc == 0) {
        *numClusters = (int32_t)rgpu_out_i(&c);
    }
    rgpu_end(&c);
    return rc;
}

/* cuTexRefSetArray: forwarded */
int cuTexRefSetArray(void * hTexRef, void * hArray, uint32_t Flags)
{
    rgpu_call c;
    rgpu_begin(&c, RGPU_ID_cuTexRefSetArray, "cuTexRefSetArray", RGPU_DRIVER);
    rgpu_put_h(&c, hTexRef);
    rgpu_put_h(&c, hArray);
    rgpu_put_u(&c, (uint64_t)Flags);
    int rc = rgpu_sync(&c);
    rgpu_end(&c);
    return rc;
}

/* cuTexRefSetMipmappedArray: forwarded */
int cuTexRefSetMipmappedArray(void * hTexRef, void * hMipmappedArray, uint32_t Flags)
{
    rgpu_call c;
    rgpu_begin(&c, RGPU_ID_cuTexRefSetMipmappedArray, "cuTexRefSetMipmappedArray", RGPU_DRIVER);
    rgpu_put_h(&c, hTexRef);
    rgpu_put_h(&c, hMipmappedArray);
    rgpu_put_u(&c, (uint64_t)Flags);
    int rc = rgpu_sync(&c);
    rgpu_end(&c);
    return rc;
}

/* cuTexRefSetAddress_v2: forwarded */
int cuTexRefSetAddress_v2(uint64_t * ByteOffset, void * hTexRef, uint64_t dptr, uint64_t bytes)
{
    rgpu_call c;
    if (ByteOffset == NULL) return rgpu_invalid_value(RGPU_DRIVER);
    rgpu_begin(&c, RGPU_ID_cuTexRefSetAddress_v2, "cuTexRefSetAddress_v2", RGPU_DRIVER);
    rgpu_put_h(&c, hTexRef);
    rgpu_put_u(&c, (uint64_t)dptr);
    rgpu_put_u(&c, (uint64_t)bytes);
    int rc = rgpu_sync(&c);
    if (rc == 0) {
        *ByteOffset = (uint64_t)rgpu_out_u(&c);
    }
    rgpu_end(&c);
    return rc;
}

/* cuTexRefSetAddress2D_v3: forwarded */
int cuTexRefSetAddress2D_v3(void * hTexRef, void * desc, uint64_t dptr, uint64_t Pitch)
{
    rgpu_call c;
    rgpu_begin(&c, RGPU_ID_cuTexRefSetAddress2D_v3, "cuTexRefSetAddress2D_v3", RGPU_DRIVER);
    rgpu_put_h(&c, hTexRef);
    rgpu_put_h(&c, desc);
    rgpu_put_u(&c, (uint64_t)dptr);
    rgpu_put_u(&c, (uint64_t)Pitch);
    int rc = rgpu_sync(&c);
    rgpu_end(&c);
    return rc;
}

/* cuTexRefSetFormat: forwarded */
int cuTexRefSetFormat(void * hTexRef, int fmt, int32_t NumPackedComponents)
{
    rgpu_call c;
    rgpu_begin(&c, RGPU_ID_cuTexRefSetFormat, "cuTexRefSetFormat", RGPU_DRIVER);
    rgpu_put_h(&c, hTexRef);
    rgpu_put_i(&c, (int64_t)fmt);
    rgpu_put_i(&c, (int64_t)NumPackedComponents);
    int rc = rgpu_sync(&c);
    rgpu_end(&c);
    return rc;
}

/* cuTexRefSetAddressMode: forwarded */
int cuTexRefSetAddressMode(void * hTexRef, int32_t dim, int am)
{
    rgpu_call c;
    rgpu_begin(&c, RGPU_ID_cuTexRefSetAddressMode, "cuTexRefSetAddressMode", RGPU_DRIVER);
    rgpu_put_h(&c, hTexRef);
    rgpu_put_i(&c, (int64_t)dim);
    rgpu_put_i(&c, (int64_t)am);
    int rc = rgpu_sync(&c);
    rgpu_end(&c);
    return rc;
}

/* cuTexRefSetFilterMode: forwarded */
int cuTexRefSetFilterMode(void * hTexRef, int fm)
{
    rgpu_call c;
    rgpu_begin(&c, RGPU_ID_cuTexRefSetFilterMode, "cuTexRefSetFilterMode", RGPU_DRIVER);
    rgpu_put_h(&c, hTexRef);
    rgpu_put_i(&c, (int64_t)fm);
    int rc = rgpu_sync(&c);
    rgpu_end(&c);
    return rc;
}

/* cuTexRefSetMipmapFilterMode: forwarded */
int cuTexRefSetMipmapFilterMode(void * hTexRef, int fm)
{
    rgpu_call c;
    rgpu_begin(&c, RGPU_ID_cuTexRefSetMipmapFilterMode, "cuTexRefSetMipmapFilterMode", RGPU_DRIVER);
    rgpu_put_h(&c, hTexRef);
    rgpu_put_i(&c, (int64_t)fm);
    int rc = rgpu_sync(&c);
    rgpu_end(&c);
    return rc;
}

/* cuTexRefSetMipmapLevelBias: forwarded */
int cuTexRefSetMipmapLevelBias(void * hTexRef, float bias)
{
    rgpu_call c;
    rgpu_begin(&c, RGPU_ID_cuTexRefSetMipmapLevelBias, "cuTexRefSetMipmapLevelBias", RGPU_DRIVER);
    rgpu_put_h(&c, hTexRef);
    rgpu_put_f(&c, (double)bias);
    int rc = rgpu_sync(&c);
    rgpu_end(&c);
    return rc;
}

/* cuTexRefSetMipmapLevelClamp: forwarded */
int cuTexRefSetMipmapLevelClamp(void * hTexRef, float minMipmapLevelClamp, float maxMipmapLevelClamp)
{
    rgpu_call c;
    rgpu_begin(&c, RGPU_ID_cuTexRefSetMipmapLevelClamp, "cuTexRefSetMipmapLevelClamp", RGPU_DRIVER);
    rgpu_put_h(&c, hTexRef);
    rgpu_put_f(&c, (double)minMipmapLevelClamp);
    rgpu_put_f(&c, (double)maxMipmapLevelClamp);
    int rc = rgpu_sync(&c);
    rgpu_end(&c);
    return rc;
}

/* cuTexRefSetMaxAnisotropy: forwarded */
int cuTexRefSetMaxAnisotropy(void * hTexRef, uint32_t maxAniso)
{
    rgpu_call c;
    rgpu_begin(&c, RGPU_ID_cuTexRefSetMaxAnisotropy, "cuTexRefSetMaxAnisotropy", RGPU_DRIVER);
    rgpu_put_h(&c, hTexRef);
    rgpu_put_u(&c, (uint64_t)maxAniso);
    int rc = rgpu_sync(&c);
    rgpu_end(&c);
    return rc;
}

/* cuTexRefSetBorderColor: forwarded */
int cuTexRefSetBorderColor(void * hTexRef, float * pBorderColor)
{
    rgpu_call c;
    if (pBorderColor == NULL) return rgpu_invalid_value(RGPU_DRIVER);
    rgpu_begin(&c, RGPU_ID_cuTexRefSetBorderColor, "cuTexRefSetBorderColor", RGPU_DRIVER);
    rgpu_put_h(&c, hTexRef);
    int rc = rgpu_sync(&c);
    if (rc == 0) {
        *pBorderColor = (float)rgpu_out_f(&c);
    }
    rgpu_end(&c);
    return rc;
}

/* cuTexRefSetFlags: forwarded */
int cuTexRefSetFlags(void * hTexRef, uint32_t Flags)
{
    rgpu_call c;
    rgpu_begin(&c, RGPU_ID_cuTexRefSetFlags, "cuTexRefSetFlags", RGPU_DRIVER);
    rgpu_put_h(&c, hTexRef);
    rgpu_put_u(&c, (uint64_t)Flags);
    int rc = rgpu_sync(&c);
    rgpu_end(&c);
    return rc;
}

/* cuTexRefGetAddress_v2: forwarded */
int cuTexRefGetAddress_v2(uint64_t * pdptr, void * hTexRef)
{
    rgpu_call c;
    if (pdptr == NULL) return rgpu_invalid_value(RGPU_DRIVER);
    rgpu_begin(&c, RGPU_ID_cuTexRefGetAddress_v2, "cuTexRefGetAddress_v2", RGPU_DRIVER);
    rgpu_put_h(&c, hTexRef);
    int rc = rgpu_sync(&c);
    if (rc == 0) {
        *pdptr = (uint64_t)rgpu_out_u(&c);
    }
    rgpu_end(&c);
    return rc;
}

/* cuTexRefGetArray: forwarded */
int cuTexRefGetArray(void * * phArray, void * hTexRef)
{
    rgpu_call c;
    if (phArray == NULL) return rgpu_invalid_value(RGPU_DRIVER);
    rgpu_begin(&c, RGPU_ID_cuTexRefGetArray, "cuTexRefGetArray", RGPU_DRIVER);
    rgpu_put_h(&c, hTexRef);
    int rc = rgpu_sync(&c);
    if (rc == 0) {
        *phArray = rgpu_out_h(&c);
    }
    rgpu_end(&c);
    return rc;
}

/* cuTexRefGetMipmappedArray: forwarded */
int cuTexRefGetMipmappedArray(void * * phMipmappedArray, void * hTexRef)
{
    rgpu_call c;
    if (phMipmappedArray == NULL) return rgpu_invalid_value(RGPU_DRIVER);
    rgpu_begin(&c, RGPU_ID_cuTexRefGetMipmappedArray, "cuTexRefGetMipmappedArray", RGPU_DRIVER);
    rgpu_put_h(&c, hTexRef);
    int rc = rgpu_sync(&c);
    if (rc == 0) {
        *phMipmappedArray = rgpu_out_h(&c);
    }
    rgpu_end(&c);
    return rc;
}

/* cuTexRefGetAddressMode: forwarded */
int cuTexRefGetAddressMode(int * pam, void * hTexRef, int32_t dim)
{
    rgpu_call c;
    if (pam == NULL) return rgpu_invalid_value(RGPU_DRIVER);
    rgpu_begin(&c, RGPU_ID_cuTexRefGetAddressMode, "cuTexRefGetAddressMode", RGPU_DRIVER);
    rgpu_put_h(&c, hTexRef);
    rgpu_put_i(&c, (int64_t)dim);
    int rc = rgpu_sync(&c);
    if (rc == 0) {
        *pam = (int)rgpu_out_i(&c);
    }
    rgpu_end(&c);
    return rc;
}

/* cuTexRefGetFilterMode: forwarded */
int cuTexRefGetFilterMode(int * pfm, void * hTexRef)
{
    rgpu_call c;
    if (pfm == NULL) return rgpu_invalid_value(RGPU_DRIVER);
    rgpu_begin(&c, RGPU_ID_cuTexRefGetFilterMode, "cuTexRefGetFilterMode", RGPU_DRIVER);
    rgpu_put_h(&c, hTexRef);
    int rc = rgpu_sync(&c);
    if (rc == 0) {
        *pfm = (int)rgpu_out_i(&c);
    }
    rgpu_end(&c);
    return rc;
}

/* cuTexRefGetFormat: forwarded */
int cuTexRefGetFormat(int * pFormat, int32_t * pNumChannels, void * hTexRef)
{
    rgpu_call c;
    if (pFormat == NULL) return rgpu_invalid_value(RGPU_DRIVER);
    if (pNumChannels == NULL) return rgpu_invalid_value(RGPU_DRIVER);
    rgpu_begin(&c, RGPU_ID_cuTexRefGetFormat, "cuTexRefGetFormat", RGPU_DRIVER);
    rgpu_put_h(&c, hTexRef);
    int rc = rgpu_sync(&c);
    if (rc == 0) {
        *pFormat = (int)rgpu_out_i(&c);
        *pNumChannels = (int32_t)rgpu_out_i(&c);
    }
    rgpu_end(&c);
    return rc;
}

/* cuTexRefGetMipmapFilterMode: forwarded */
int cuTexRefGetMipmapFilterMode(int * pfm, void * hTexRef)
{
    rgpu_call c;
    if (pfm == NULL) return rgpu_invalid_value(RGPU_DRIVER);
    rgpu_begin(&c, RGPU_ID_cuTexRefGetMipmapFilterMode, "cuTexRefGetMipmapFilterMode", RGPU_DRIVER);
    rgpu_put_h(&c, hTexRef);
    int rc = rgpu_sync(&c);
    if (rc == 0) {
        *pfm = (int)rgpu_out_i(&c);
    }
    rgpu_end(&c);
    return rc;
}

/* cuTexRefGetMipmapLevelBias: forwarded */
int cuTexRefGetMipmapLevelBias(float * pbias, void * hTexRef)
{
    rgpu_call c;
    if (pbias == NULL) return rgpu_invalid_value(RGPU_DRIVER);
    rgpu_begin(&c, RGPU_ID_cuTexRefGetMipmapLevelBias, "cuTexRefGetMipmapLevelBias", RGPU_DRIVER);
    rgpu_put_h(&c, hTexRef);
    int rc = rgpu_sync(&c);
    if (rc == 0) {
        *pbias = (float)rgpu_out_f(&c);
    }
    rgpu_end(&c);
    return rc;
}

/* cuTexRefGetMipmapLevelClamp: forwarded */
int cuTexRefGetMipmapLevelClamp(float * pminMipmapLevelClamp, float * pmaxMipmapLevelClamp, void * hTexRef)
{
    rgpu_call c;
    if (pminMipmapLevelClamp == NULL) return rgpu_invalid_value(RGPU_DRIVER);
    if (pmaxMipmapLevelClamp == NULL) return rgpu_invalid_value(RGPU_DRIVER);
    rgpu_begin(&c, RGPU_ID_cuTexRefGetMipmapLevelClamp, "cuTexRefGetMipmapLevelClamp", RGPU_DRIVER);
    rgpu_put_h(&c, hTexRef);
    int rc = rgpu_sync(&c);
    if (rc == 0) {
        *pminMipmapLevelClamp = (float)rgpu_out_f(&c);
        *pmaxMipmapLevelClamp = (float)rgpu_out_f(&c);
    }
    rgpu_end(&c);
    return rc;
}

/* cuTexRefGetMaxAnisotropy: forwarded */
int cuTexRefGetMaxAnisotropy(int32_t * pmaxAniso, void * hTexRef)
{
    rgpu_call c;
    if (pmaxAniso == NULL) return rgpu_invalid_value(RGPU_DRIVER);
    rgpu_begin(&c, RGPU_ID_cuTexRefGetMaxAnisotropy, "cuTexRefGetMaxAnisotropy", RGPU_DRIVER);
    rgpu_put_h(&c, hTexRef);
    int rc = rgpu_sync(&c);
    if (rc == 0) {
        *pmaxAniso = (int32_t)rgpu_out_i(&c);
    }
    rgpu_end(&c);
    return rc;
}

/* cuTexRefGetBorderColor: forwarded */
int cuTexRefGetBorderColor(float * pBorderColor, void * hTexRef)
{
    rgpu_call c;
    if (pBorderColor == NULL) return rgpu_invalid_value(RGPU_DRIVER);
    rgpu_begin(&c, RGPU_ID_cuTexRefGetBorderColor, "cuTexRefGetBorderColor", RGPU_DRIVER);
    rgpu_put_h(&c, hTexRef);
    int rc = rgpu_sync(&c);
    if (rc == 0) {
        *pBorderColor = (float)rgpu_out_f(&c);
    }
    rgpu_end(&c);
    return rc;
}

/* cuTexRefGetFlags: forwarded */
int cuTexRefGetFlags(uint32_t * pFlags, void * hTexRef)
{
    rgpu_call c;
    if (pFlags == NULL) return rgpu_invalid_value(RGPU_DRIVER);
    rgpu_begin(&c, RGPU_ID_cuTexRefGetFlags, "cuTexRefGetFlags", RGPU_DRIVER);
    rgpu_put_h(&c, hTexRef);
    int rc = rgpu_sync(&c);
    if (rc == 0) {
        *pFlags = (uint32_t)rgpu_out_u(&c);
    }
    rgpu_end(&c);
    return rc;
}

/* cuTexRefCreate: forwarded */
int cuTexRefCreate(void * * pTexRef)
{
    rgpu_call c;
    if (pTexRef == NULL) return rgpu_invalid_value(RGPU_DRIVER);
    rgpu_begin(&c, RGPU_ID_cuTexRefCreate, "cuTexRefCreate", RGPU_DRIVER);
    int rc = rgpu_sync(&c);
    if (rc == 0) {
        *pTexRef = rgpu_out_h(&c);
    }
    rgpu_end(&c);
    return rc;
}

/* cuTexRefDestroy: forwarded */
int cuTexRefDestroy(void * hTexRef)
{
    rgpu_call c;
    rgpu_begin(&c, RGPU_ID_cuTexRefDestroy, "cuTexRefDestroy", RGPU_DRIVER);
    rgpu_put_h(&c, hTexRef);
    int rc = rgpu_sync(&c);
    rgpu_end(&c);
    return rc;
}

/* cuSurfRefSetArray: forwarded */
int cuSurfRefSetArray(void * hSurfRef, void * hArray, uint32_t Flags)
{
    rgpu_call c;
    rgpu_begin(&c, RGPU_ID_cuSurfRefSetArray, "cuSurfRefSetArray", RGPU_DRIVER);
    rgpu_put_h(&c, hSurfRef);
    rgpu_put_h(&c, hArray);
    rgpu_put_u(&c, (uint64_t)Flags);
    int rc = rgpu_sync(&c);
    rgpu_end(&c);
    return rc;
}

/* cuSurfRefGetArray: forwarded */
int cuSurfRefGetArray(void * * phArray, void * hSurfRef)
{
    rgpu_call c;
    if (phArray == NULL) return rgpu_invalid_value(RGPU_DRIVER);
    rgpu_begin(&c, RGPU_ID_cuSurfRefGetArray, "cuSurfRefGetArray", RGPU_DRIVER);
    rgpu_put_h(&c, hSurfRef);
    int rc = rgpu_sync(&c);
    if (rc == 0) {
        *phArray = rgpu_out_h(&c);
    }
    rgpu_end(&c);
    return rc;
}

/* cuTexObjectCreate: forwarded */
int cuTexObjectCreate(uint64_t * pTexObject, void * pResDesc, void * pTexDesc, void * pResViewDesc)
{
    rgpu_call c;
    if (pTexObject == NULL) return rgpu_invalid_value(RGPU_DRIVER);
    rgpu_begin(&c, RGPU_ID_cuTexObjectCreate, "cuTexObjectCreate", RGPU_DRIVER);
    rgpu_put_h(&c, pResDesc);
    rgpu_put_h(&c, pTexDesc);
    rgpu_put_h(&c, pResViewDesc);
    int rc = rgpu_sync(&c);
    if (rc == 0) {
        *pTexObject = (uint64_t)rgpu_out_u(&c);
    }
    rgpu_end(&c);
    return rc;
}

/* cuTexObjectDestroy: forwarded */
int cuTexObjectDestroy(uint64_t texObject)
{
    rgpu_call c;
    rgpu_begin(&c, RGPU_ID_cuTexObjectDestroy, "cuTexObjectDestroy", RGPU_DRIVER);
    rgpu_put_u(&c, (uint64_t)texObject);
    int rc = rgpu_sync(&c);
    rgpu_end(&c);
    return rc;
}

/* cuTexObjectGetResourceDesc: forwarded */
int cuTexObjectGetResourceDesc(void * pResDesc, uint64_t texObject)
{
    rgpu_call c;
    rgpu_begin(&c, RGPU_ID_cuTexObjectGetResourceDesc, "cuTexObjectGetResourceDesc", RGPU_DRIVER);
    rgpu_put_h(&c, pResDesc);
    rgpu_put_u(&c, (uint64_t)texObject);
    int rc = rgpu_sync(&c);
    rgpu_end(&c);
    return rc;
}

/* cuTexObjectGetTextureDesc: forwarded */
int cuTexObjectGetTextureDesc(void * pTexDesc, uint64_t texObject)
{
    rgpu_call c;
    rgpu_begin(&c, RGPU_ID_cuTexObjectGetTextureDesc, "cuTexObjectGetTextureDesc", RGPU_DRIVER);
    rgpu_put_h(&c, pTexDesc);
    rgpu_put_u(&c, (uint64_t)texObject);
    int rc = rgpu_sync(&c);
    rgpu_end(&c);
    return rc;
}

/* cuTexObjectGetResourceViewDesc: forwarded */
int cuTexObjectGetResourceViewDesc(void * pResViewDesc, uint64_t texObject)
{
    rgpu_call c;
    rgpu_begin(&c, RGPU_ID_cuTexObjectGetResourceViewDesc, "cuTexObjectGetResourceViewDesc", RGPU_DRIVER);
    rgpu_put_h(&c, pResViewDesc);
    rgpu_put_u(&c, (uint64_t)texObject);
    int rc = rgpu_sync(&c);
    rgpu_end(&c);
    return rc;
}

/* cuSurfObjectCreate: forwarded */
int cuSurfObjectCreate(uint64_t * pSurfObject, void * pResDesc)
{
    rgpu_call c;
    if (pSurfObject == NULL) return rgpu_invalid_value(RGPU_DRIVER);
    rgpu_begin(&c, RGPU_ID_cuSurfObjectCreate, "cuSurfObjectCreate", RGPU_DRIVER);
    rgpu_put_h(&c, pResDesc);
    int rc = rgpu_sync(&c);
    if (rc == 0) {
        *pSurfObject = (uint64_t)rgpu_out_u(&c);
    }
    rgpu_end(&c);
    return rc;
}

/* cuSurfObjectDestroy: forwarded */
int cuSurfObjectDestroy(uint64_t surfObject)
{
    rgpu_call c;
    rgpu_begin(&c, RGPU_ID_cuSurfObjectDestroy, "cuSurfObjectDestroy", RGPU_DRIVER);
    rgpu_put_u(&c, (uint64_t)surfObject);
    int rc = rgpu_sync(&c);
    rgpu_end(&c);
    return rc;
}

/* cuSurfObjectGetResourceDesc: forwarded */
int cuSurfObjectGetResourceDesc(void * pResDesc, uint64_t surfObject)
{
    rgpu_call c;
    rgpu_begin(&c, RGPU_ID_cuSurfObjectGetResourceDesc, "cuSurfObjectGetResourceDesc", RGPU_DRIVER);
    rgpu_put_h(&c, pResDesc);
    rgpu_put_u(&c, (uint64_t)surfObject);
    int rc = rgpu_sync(&c);
    rgpu_end(&c);
    return rc;
}

/* cuTensorMapEncodeTiled: not supported: tensor maps are not forwarded yet */
int cuTensorMapEncodeTiled()
{
    return rgpu_unsupported(RGPU_DRIVER, "cuTensorMapEncodeTiled");
}

/* cuTensorMapEncodeIm2col: not supported: tensor maps are not forwarded yet */
int cuTensorMapEncodeIm2col()
{
    return rgpu_unsupported(RGPU_DRIVER, "cuTensorMapEncodeIm2col");
}

/* cuTensorMapEncodeIm2colWide: not supported: tensor maps are not forwarded yet */
int cuTensorMapEncodeIm2colWide()
{
    return rgpu_unsupported(RGPU_DRIVER, "cuTensorMapEncodeIm2colWide");
}

/* cuTensorMapReplaceAddress: not supported: tensor maps are not forwarded yet */
int cuTensorMapReplaceAddress()
{
    return rgpu_unsupported(RGPU_DRIVER, "cuTensorMapReplaceAddress");
}

/* cuDeviceGetP2PAtomicCapabilities: not supported: takes arrays of operations: not forwarded yet */
int cuDeviceGetP2PAtomicCapabilities()
{
    return rgpu_unsupported(RGPU_DRIVER, "cuDeviceGetP2PAtomicCapabilities");
}

/* cuGraphicsUnregisterResource: not supported: graphics interop needs a local display */
int cuGraphicsUnregisterResource()
{
    return rgpu_unsupported(RGPU_DRIVER, "cuGraphicsUnregisterResource");
}

/* cuGraphicsSubResourceGetMappedArray: not supported: graphics interop needs a local display */
int cuGraphicsSubResourceGetMappedArray()
{
    return rgpu_unsupported(RGPU_DRIVER, "cuGraphicsSubResourceGetMappedArray");
}

/* cuGraphicsResourceGetMappedMipmappedArray: not supported: graphics interop needs a local display */
int cuGraphicsResourceGetMappedMipmappedArray()
{
    return rgpu_unsupported(RGPU_DRIVER, "cuGraphicsResourceGetMappedMipmappedArray");
}

/* cuGraphicsResourceGetMappedPointer_v2: not supported: graphics interop needs a local display */
int cuGraphicsResourceGetMappedPointer_v2()
{
    return rgpu_unsupported(RGPU_DRIVER, "cuGraphicsResourceGetMappedPointer_v2");
}

/* cuGraphicsResourceSetMapFlags_v2: not supported: graphics interop needs a local display */
int cuGraphicsResourceSetMapFlags_v2()
{
    return rgpu_unsupported(RGPU_DRIVER, "cuGraphicsResourceSetMapFlags_v2");
}

/* cuGraphicsMapResources: not supported: graphics interop needs a local display */
int cuGraphicsMapResources()
{
    return rgpu_unsupported(RGPU_DRIVER, "cuGraphicsMapResources");
}

/* cuGraphicsUnmapResources: not supported: graphics interop needs a local display */
int cuGraphicsUnmapResources()
{
    return rgpu_unsupported(RGPU_DRIVER, "cuGraphicsUnmapResources");
}

/* cuCoredumpGetAttribute: not supported: coredump attributes are not forwarded */
int cuCoredumpGetAttribute()
{
    return rgpu_unsupported(RGPU_DRIVER, "cuCoredumpGetAttribute");
}

/* cuCoredumpGetAttributeGlobal: not supported: coredump attributes are not forwarded */
int cuCoredumpGetAttributeGlobal()
{
    return rgpu_unsupported(RGPU_DRIVER, "cuCoredumpGetAttributeGlobal");
}

/* cuCoredumpSetAttribute: not supported: coredump attributes are not forwarded */
int cuCoredumpSetAttribute()
{
    return rgpu_unsupported(RGPU_DRIVER, "cuCoredumpSetAttribute");
}

/* cuCoredumpSetAttributeGlobal: not supported: coredump attributes are not forwarded */
int cuCoredumpSetAttributeGlobal()
{
    return rgpu_unsupported(RGPU_DRIVER, "cuCoredumpSetAttributeGlobal");
}

/* cuGreenCtxCreate: not supported: green contexts are not forwarded yet */
int cuGreenCtxCreate()
{
    return rgpu_unsupported(RGPU_DRIVER, "cuGreenCtxCreate");
}

/* cuGreenCtxDestroy: not supported: green contexts are not forwarded yet */
int cuGreenCtxDestroy()
{
    return rgpu_unsupported(RGPU_DRIVER, "cuGreenCtxDestroy");
}

/* cuCtxFromGreenCtx: not supported: green contexts are not forwarded yet */
int cuCtxFromGreenCtx()
{
    return rgpu_unsupported(RGPU_DRIVER, "cuCtxFromGreenCtx");
}

/* cuDeviceGetDevResource: forwarded */
int cuDeviceGetDevResource(int32_t device, void * resource, int type)
{
    rgpu_call c;
    rgpu_begin(&c, RGPU_ID_cuDeviceGetDevResource, "cuDeviceGetDevResource", RGPU_DRIVER);
    rgpu_put_d(&c, device);
    rgpu_put_h(&c, resource);
    rgpu_put_i(&c, (int64_t)type);
    int rc = rgpu_sync(&c);
    rgpu_end(&c);
    return rc;
}

/* cuCtxGetDevResource: not supported: green contexts are not forwarded yet */
int cuCtxGetDevResource()
{
    return rgpu_unsupported(RGPU_DRIVER, "cuCtxGetDevResource");
}

/* cuGreenCtxGetDevResource: not supported: green contexts are not forwarded yet */
int cuGreenCtxGetDevResource()
{
    return rgpu_unsupported(RGPU_DRIVER, "cuGreenCtxGetDevResource");
}

/* cuDevSmResourceSplitByCount: forwarded */
int cuDevSmResourceSplitByCount(void * result, uint32_t * nbGroups, void * input, void * remaining, uint32_t useFlags, uint32_t minCount)
{
    rgpu_call c;
    if (nbGroups == NULL) return rgpu_invalid_value(RGPU_DRIVER);
    rgpu_begin(&c, RGPU_ID_cuDevSmResourceSplitByCount, "cuDevSmResourceSplitByCount", RGPU_DRIVER);
    rgpu_put_h(&c, result);
    rgpu_put_h(&c, input);
    rgpu_put_h(&c, remaining);
    rgpu_put_u(&c, (uint64_t)useFlags);
    rgpu_put_u(&c, (uint64_t)minCount);
    int rc = rgpu_sync(&c);
    if (rc == 0) {
        *nbGroups = (uint32_t)rgpu_out_u(&c);
    }
    rgpu_end(&c);
    return rc;
}

/* cuDevResourceGenerateDesc: forwarded */
int cuDevResourceGenerateDesc(void * * phDesc, void * resources, uint32_t nbResources)
{
    rgpu_call c;
    if (phDesc == NULL) return rgpu_invalid_value(RGPU_DRIVER);
    rgpu_begin(&c, RGPU_ID_cuDevResourceGenerateDesc, "cuDevResourceGenerateDesc", RGPU_DRIVER);
    rgpu_put_h(&c, resources);
    rgpu_put_u(&c, (uint64_t)nbResources);
    int rc = rgpu_sync(&c);
    if (rc == 0) {
        *phDesc = rgpu_out_h(&c);
    }
    rgpu_end(&c);
    return rc;
}

/* cuGreenCtxRecordEvent: not supported: green contexts are not forwarded yet */
int cuGreenCtxRecordEvent()
{
    return rgpu_unsupported(RGPU_DRIVER, "cuGreenCtxRecordEvent");
}

/* cuGreenCtxWaitEvent: not supported: green contexts are not forwarded yet */
int cuGreenCtxWaitEvent()
{
    return rgpu_unsupported(RGPU_DRIVER, "cuGreenCtxWaitEvent");
}

/* cuStreamGetGreenCtx: forwarded */
int cuStreamGetGreenCtx(void * hStream, void * * phCtx)
{
    rgpu_call c;
    if (phCtx == NULL) return rgpu_invalid_value(RGPU_DRIVER);
    rgpu_begin(&c, RGPU_ID_cuStreamGetGreenCtx, "cuStreamGetGreenCtx", RGPU_DRIVER);
    rgpu_put_h(&c, hStream);
    int rc = rgpu_sync(&c);
    if (rc == 0) {
        *phCtx = rgpu_out_h(&c);
    }
    rgpu_end(&c);
    return rc;
}

/* cuGreenCtxStreamCreate: not supported: green contexts are not forwarded yet */
int cuGreenCtxStreamCreate()
{
    return rgpu_unsupported(RGPU_DRIVER, "cuGreenCtxStreamCreate");
}

/* cuGreenCtxGetId: not supported: green contexts are not forwarded yet */
int cuGreenCtxGetId()
{
    return rgpu_unsupported(RGPU_DRIVER, "cuGreenCtxGetId");
}

/* cuLogsRegisterCallback: not supported: host callbacks are not forwarded yet */
int cuLogsRegisterCallback()
{
    return rgpu_unsupported(RGPU_DRIVER, "cuLogsRegisterCallback");
}

/* cuLogsUnregisterCallback: forwarded */
int cuLogsUnregisterCallback(void * callback)
{
    rgpu_call c;
    rgpu_begin(&c, RGPU_ID_cuLogsUnregisterCallback, "cuLogsUnregisterCallback", RGPU_DRIVER);
    rgpu_put_h(&c, callback);
    int rc = rgpu_sync(&c);
    rgpu_end(&c);
    return rc;
}

/* cuLogsCurrent: forwarded */
int cuLogsCurrent(uint32_t * iterator_out, uint32_t flags)
{
    rgpu_call c;
    if (iterator_out == NULL) return rgpu_invalid_value(RGPU_DRIVER);
    rgpu_begin(&c, RGPU_ID_cuLogsCurrent, "cuLogsCurrent", RGPU_DRIVER);
    rgpu_put_u(&c, (uint64_t)flags);
    int rc = rgpu_sync(&c);
    if (rc == 0) {
        *iterator_out = (uint32_t)rgpu_out_u(&c);
    }
    rgpu_end(&c);
    return rc;
}

/* cuLogsDumpToFile: forwarded */
int cuLogsDumpToFile(uint32_t * iterator, const char * pathToFile, uint32_t flags)
{
    rgpu_call c;
    if (iterator == NULL) return rgpu_invalid_value(RGPU_DRIVER);
    rgpu_begin(&c, RGPU_ID_cuLogsDumpToFile, "cuLogsDumpToFile", RGPU_DRIVER);
    rgpu_put_s(&c, pathToFile);
    rgpu_put_u(&c, (uint64_t)flags);
    int rc = rgpu_sync(&c);
    if (rc == 0) {
        *iterator = (uint32_t)rgpu_out_u(&c);
    }
    rgpu_end(&c);
    return rc;
}

/* cuLogsDumpToMemory: not supported: driver logs are the server's */
int cuLogsDumpToMemory()
{
    return rgpu_unsupported(RGPU_DRIVER, "cuLogsDumpToMemory");
}

/* cuCheckpointProcessGetRestoreThreadId: forwarded */
int cuCheckpointProcessGetRestoreThreadId(int32_t pid, int32_t * tid)
{
    rgpu_call c;
    if (tid == NULL) return rgpu_invalid_value(RGPU_DRIVER);
    rgpu_begin(&c, RGPU_ID_cuCheckpointProcessGetRestoreThreadId, "cuCheckpointProcessGetRestoreThreadId", RGPU_DRIVER);
    rgpu_put_i(&c, (int64_t)pid);
    int rc = rgpu_sync(&c);
    if (rc == 0) {
        *tid = (int32_t)rgpu_out_i(&c);
    }
    rgpu_end(&c);
    return rc;
}

/* cuCheckpointProcessGetState: forwarded */
int cuCheckpointProcessGetState(int32_t pid, int * state)
{
    rgpu_call c;
    if (state == NULL) return rgpu_invalid_value(RGPU_DRIVER);
    rgpu_begin(&c, RGPU_ID_cuCheckpointProcessGetState, "cuCheckpointProcessGetState", RGPU_DRIVER);
    rgpu_put_i(&c, (int64_t)pid);
    int rc = rgpu_sync(&c);
    if (rc == 0) {
        *state = (int)rgpu_out_i(&c);
    }
    rgpu_end(&c);
    return rc;
}

/* cuCheckpointProcessLock: forwarded */
int cuCheckpointProcessLock(int32_t pid, void * args)
{
    rgpu_call c;
    rgpu_begin(&c, RGPU_ID_cuCheckpointProcessLock, "cuCheckpointProcessLock", RGPU_DRIVER);
    rgpu_put_i(&c, (int64_t)pid);
    rgpu_put_h(&c, args);
    int rc = rgpu_sync(&c);
    rgpu_end(&c);
    return rc;
}

/* cuCheckpointProcessCheckpoint: forwarded */
int cuCheckpointProcessCheckpoint(int32_t pid, void * args)
{
    rgpu_call c;
    rgpu_begin(&c, RGPU_ID_cuCheckpointProcessCheckpoint, "cuCheckpointProcessCheckpoint", RGPU_DRIVER);
    rgpu_put_i(&c, (int64_t)pid);
    rgpu_put_h(&c, args);
    int rc = rgpu_sync(&c);
    rgpu_end(&c);
    return rc;
}

/* cuCheckpointProcessRestore: forwarded */
int cuCheckpointProcessRestore(int32_t pid, void * args)
{
    rgpu_call c;
    rgpu_begin(&c, RGPU_ID_cuCheckpointProcessRestore, "cuCheckpointProcessRestore", RGPU_DRIVER);
    rgpu_put_i(&c, (int64_t)pid);
    rgpu_put_h(&c, args);
    int rc = rgpu_sync(&c);
    rgpu_end(&c);
    return rc;
}

/* cuCheckpointProcessUnlock: forwarded */
int cuCheckpointProcessUnlock(int32_t pid, void * args)
{
    rgpu_call c;
    rgpu_begin(&c, RGPU_ID_cuCheckpointProcessUnlock, "cuCheckpointProcessUnlock", RGPU_DRIVER);
    rgpu_put_i(&c, (int64_t)pid);
    rgpu_put_h(&c, args);
    int rc = rgpu_sync(&c);
    rgpu_end(&c);
    return rc;
}

/* cudaDeviceReset: forwarded */
int cudaDeviceReset(void)
{
    rgpu_call c;
    rgpu_begin(&c, RGPU_ID_cudaDeviceReset, "cudaDeviceReset", RGPU_RUNTIME);
    int rc = rgpu_sync(&c);
    rgpu_end(&c);
    return rc;
}

/* cudaDeviceSynchronize: forwarded */
int cudaDeviceSynchronize(void)
{
    rgpu_call c;
    { int crc = rgpu_capture_guard(RGPU_RUNTIME, NULL, 0); if (crc) return crc; }
    rgpu_begin(&c, RGPU_ID_cudaDeviceSynchronize, "cudaDeviceSynchronize", RGPU_RUNTIME);
    int rc = rgpu_sync(&c);
    rgpu_end(&c);
    return rc;
}

/* cudaDeviceSetLimit: forwarded */
int cudaDeviceSetLimit(int limit, uint64_t value)
{
    rgpu_call c;
    rgpu_begin(&c, RGPU_ID_cudaDeviceSetLimit, "cudaDeviceSetLimit", RGPU_RUNTIME);
    rgpu_put_i(&c, (int64_t)limit);
    rgpu_put_u(&c, (uint64_t)value);
    int rc = rgpu_sync(&c);
    rgpu_end(&c);
    return rc;
}

/* cudaDeviceGetLimit: forwarded */
int cudaDeviceGetLimit(uint64_t * pValue, int limit)
{
    rgpu_call c;
    if (pValue == NULL) return rgpu_invalid_value(RGPU_RUNTIME);
    rgpu_begin(&c, RGPU_ID_cudaDeviceGetLimit, "cudaDeviceGetLimit", RGPU_RUNTIME);
    rgpu_put_i(&c, (int64_t)limit);
    int rc = rgpu_sync(&c);
    if (rc == 0) {
        *pValue = (uint64_t)rgpu_out_u(&c);
    }
    rgpu_end(&c);
    return rc;
}

/* cudaDeviceGetTexture1DLinearMaxWidth: forwarded */
int cudaDeviceGetTexture1DLinearMaxWidth(uint64_t * maxWidthInElements, const void * fmtDesc, int32_t device)
{
    rgpu_call c;
    if (maxWidthInElements == NULL) return rgpu_invalid_value(RGPU_RUNTIME);
    rgpu_begin(&c, RGPU_ID_cudaDeviceGetTexture1DLinearMaxWidth, "cudaDeviceGetTexture1DLinearMaxWidth", RGPU_RUNTIME);
    rgpu_put_b(&c, fmtDesc, 20);
    rgpu_put_d(&c, device);
    int rc = rgpu_sync(&c);
    if (rc == 0) {
        *maxWidthInElements = (uint64_t)rgpu_out_u(&c);
    }
    rgpu_end(&c);
    return rc;
}

/* cudaDeviceGetCacheConfig: forwarded */
int cudaDeviceGetCacheConfig(int * pCacheConfig)
{
    rgpu_call c;
    if (pCacheConfig == NULL) return rgpu_invalid_value(RGPU_RUNTIME);
    rgpu_begin(&c, RGPU_ID_cudaDeviceGetCacheConfig, "cudaDeviceGetCacheConfig", RGPU_RUNTIME);
    int rc = rgpu_sync(&c);
    if (rc == 0) {
        *pCacheConfig = (int)rgpu_out_i(&c);
    }
    rgpu_end(&c);
    return rc;
}

/* cudaDeviceGetStreamPriorityRange: forwarded */
int cudaDeviceGetStreamPriorityRange(int32_t * leastPriority, int32_t * greatestPriority)
{
    rgpu_call c;
    if (leastPriority == NULL) return rgpu_invalid_value(RGPU_RUNTIME);
    if (greatestPriority == NULL) return rgpu_invalid_value(RGPU_RUNTIME);
    rgpu_begin(&c, RGPU_ID_cudaDeviceGetStreamPriorityRange, "cudaDeviceGetStreamPriorityRange", RGPU_RUNTIME);
    int rc = rgpu_sync(&c);
    if (rc == 0) {
        *leastPriority = (int32_t)rgpu_out_i(&c);
        *greatestPriority = (int32_t)rgpu_out_i(&c);
    }
    rgpu_end(&c);
    return rc;
}

/* cudaDeviceSetCacheConfig: forwarded */
int cudaDeviceSetCacheConfig(int cacheConfig)
{
    rgpu_call c;
    rgpu_begin(&c, RGPU_ID_cudaDeviceSetCacheConfig, "cudaDeviceSetCacheConfig", RGPU_RUNTIME);
    rgpu_put_i(&c, (int64_t)cacheConfig);
    int rc = rgpu_sync(&c);
    rgpu_end(&c);
    return rc;
}

/* cudaDeviceGetByPCIBusId: forwarded */
int cudaDeviceGetByPCIBusId(int32_t * device, const char * pciBusId)
{
    rgpu_call c;
    if (device == NULL) return rgpu_invalid_value(RGPU_RUNTIME);
    rgpu_begin(&c, RGPU_ID_cudaDeviceGetByPCIBusId, "cudaDeviceGetByPCIBusId", RGPU_RUNTIME);
    rgpu_put_s(&c, pciBusId);
    int rc = rgpu_sync(&c);
    if (rc == 0) {
        *device = (int32_t)rgpu_out_i(&c);
    }
    rgpu_end(&c);
    return rc;
}

/* cudaDeviceGetPCIBusId: forwarded */
int cudaDeviceGetPCIBusId(char * pciBusId, int32_t len, int32_t device)
{
    rgpu_call c;
    if (pciBusId == NULL) return rgpu_invalid_value(RGPU_RUNTIME);
    rgpu_begin(&c, RGPU_ID_cudaDeviceGetPCIBusId, "cudaDeviceGetPCIBusId", RGPU_RUNTIME);
    rgpu_put_i(&c, (int64_t)len);
    rgpu_put_d(&c, device);
    int rc = rgpu_sync(&c);
    if (rc == 0) {
        rgpu_out_b(&c, pciBusId, (size_t)len);
    }
    rgpu_end(&c);
    return rc;
}

/* cudaIpcGetEventHandle: not supported: IPC handles are not forwarded yet */
int cudaIpcGetEventHandle()
{
    return rgpu_unsupported(RGPU_RUNTIME, "cudaIpcGetEventHandle");
}

/* cudaIpcOpenEventHandle: not supported: IPC handles are not forwarded yet */
int cudaIpcOpenEventHandle()
{
    return rgpu_unsupported(RGPU_RUNTIME, "cudaIpcOpenEventHandle");
}

/* cudaIpcGetMemHandle: not supported: IPC handles are not forwarded yet */
int cudaIpcGetMemHandle()
{
    return rgpu_unsupported(RGPU_RUNTIME, "cudaIpcGetMemHandle");
}

/* cudaIpcOpenMemHandle: not supported: IPC handles are not forwarded yet */
int cudaIpcOpenMemHandle()
{
    return rgpu_unsupported(RGPU_RUNTIME, "cudaIpcOpenMemHandle");
}

/* cudaIpcCloseMemHandle: not supported: IPC handles are not forwarded yet */
int cudaIpcCloseMemHandle()
{
    return rgpu_unsupported(RGPU_RUNTIME, "cudaIpcCloseMemHandle");
}

/* cudaDeviceFlushGPUDirectRDMAWrites: forwarded */
int cudaDeviceFlushGPUDirectRDMAWrites(int target, int scope)
{
    rgpu_call c;
    rgpu_begin(&c, RGPU_ID_cudaDeviceFlushGPUDirectRDMAWrites, "cudaDeviceFlushGPUDirectRDMAWrites", RGPU_RUNTIME);
    rgpu_put_i(&c, (int64_t)target);
    rgpu_put_i(&c, (int64_t)scope);
    int rc = rgpu_sync(&c);
    rgpu_end(&c);
    return rc;
}

/* cudaDeviceRegisterAsyncNotification: not supported: host callbacks are not forwarded yet */
int cudaDeviceRegisterAsyncNotification()
{
    return rgpu_unsupported(RGPU_RUNTIME, "cudaDeviceRegisterAsyncNotification");
}

/* cudaDeviceUnregisterAsyncNotification: forwarded */
int cudaDeviceUnregisterAsyncNotification(int32_t device, void * callback)
{
    rgpu_call c;
    rgpu_begin(&c, RGPU_ID_cudaDeviceUnregisterAsyncNotification, "cudaDeviceUnregisterAsyncNotification", RGPU_RUNTIME);
    rgpu_put_d(&c, device);
    rgpu_put_h(&c, callback);
    int rc = rgpu_sync(&c);
    rgpu_end(&c);
    return rc;
}

/* cudaDeviceGetSharedMemConfig: forwarded */
int cudaDeviceGetSharedMemConfig(int * pConfig)
{
    rgpu_call c;
    if (pConfig == NULL) return rgpu_invalid_value(RGPU_RUNTIME);
    rgpu_begin(&c, RGPU_ID_cudaDeviceGetSharedMemConfig, "cudaDeviceGetSharedMemConfig", RGPU_RUNTIME);
    int rc = rgpu_sync(&c);
    if (rc == 0) {
        *pConfig = (int)rgpu_out_i(&c);
    }
    rgpu_end(&c);
    return rc;
}

/* cudaDeviceSetSharedMemConfig: forwarded */
int cudaDeviceSetSharedMemConfig(int config)
{
    rgpu_call c;
    rgpu_begin(&c, RGPU_ID_cudaDeviceSetSharedMemConfig, "cudaDeviceSetSharedMemConfig", RGPU_RUNTIME);
    rgpu_put_i(&c, (int64_t)config);
    int rc = rgpu_sync(&c);
    rgpu_end(&c);
    return rc;
}

/* cudaGetDeviceProperties: forwarded */
int cudaGetDeviceProperties(void * prop, int32_t device)
{
    rgpu_call c;
    if (prop == NULL) return rgpu_invalid_value(RGPU_RUNTIME);
    rgpu_begin(&c, RGPU_ID_cudaGetDeviceProperties, "cudaGetDeviceProperties", RGPU_RUNTIME);
    rgpu_put_d(&c, device);
    int rc = rgpu_sync(&c);
    if (rc == 0) {
        rgpu_out_b(&c, prop, 1008);
    }
    rgpu_end(&c);
    return rc;
}

/* cudaDeviceGetAttribute: forwarded */
int cudaDeviceGetAttribute(int32_t * value, int attr, int32_t device)
{
    rgpu_call c;
    if (value == NULL) return rgpu_invalid_value(RGPU_RUNTIME);
    rgpu_begin(&c, RGPU_ID_cudaDeviceGetAttribute, "cudaDeviceGetAttribute", RGPU_RUNTIME);
    rgpu_put_i(&c, (int64_t)attr);
    rgpu_put_d(&c, device);
    int rc = rgpu_sync(&c);
    if (rc == 0) {
        *value = (int32_t)rgpu_out_i(&c);
    }
    rgpu_end(&c);
    return rc;
}

/* cudaDeviceGetHostAtomicCapabilities: not supported: takes arrays of operations: not forwarded yet */
int cudaDeviceGetHostAtomicCapabilities()
{
    return rgpu_unsupported(RGPU_RUNTIME, "cudaDeviceGetHostAtomicCapabilities");
}

/* cudaDeviceGetDefaultMemPool: forwarded */
int cudaDeviceGetDefaultMemPool(void * * memPool, int32_t device)
{
    rgpu_call c;
    if (memPool == NULL) return rgpu_invalid_value(RGPU_RUNTIME);
    rgpu_begin(&c, RGPU_ID_cudaDeviceGetDefaultMemPool, "cudaDeviceGetDefaultMemPool", RGPU_RUNTIME);
    rgpu_put_d(&c, device);
    int rc = rgpu_sync(&c);
    if (rc == 0) {
        *memPool = rgpu_out_h(&c);
    }
    rgpu_end(&c);
    return rc;
}

/* cudaDeviceSetMemPool: forwarded */
int cudaDeviceSetMemPool(int32_t device, void * memPool)
{
    rgpu_call c;
    rgpu_begin(&c, RGPU_ID_cudaDeviceSetMemPool, "cudaDeviceSetMemPool", RGPU_RUNTIME);
    rgpu_put_d(&c, device);
    rgpu_put_h(&c, memPool);
    int rc = rgpu_sync(&c);
    rgpu_end(&c);
    return rc;
}

/* cudaDeviceGetMemPool: forwarded */
int cudaDeviceGetMemPool(void * * memPool, int32_t device)
{
    rgpu_call c;
    if (memPool == NULL) return rgpu_invalid_value(RGPU_RUNTIME);
    rgpu_begin(&c, RGPU_ID_cudaDeviceGetMemPool, "cudaDeviceGetMemPool", RGPU_RUNTIME);
    rgpu_put_d(&c, device);
    int rc = rgpu_sync(&c);
    if (rc == 0) {
        *memPool = rgpu_out_h(&c);
    }
    rgpu_end(&c);
    return rc;
}

/* cudaDeviceGetNvSciSyncAttributes: not supported: NvSciSync is not forwarded */
int cudaDeviceGetNvSciSyncAttributes()
{
    return rgpu_unsupported(RGPU_RUNTIME, "cudaDeviceGetNvSciSyncAttributes");
}

/* cudaDeviceGetP2PAtomicCapabilities: not supported: takes arrays of operations: not forwarded yet */
int cudaDeviceGetP2PAtomicCapabilities()
{
    return rgpu_unsupported(RGPU_RUNTIME, "cudaDeviceGetP2PAtomicCapabilities");
}

/* cudaChooseDevice: forwarded */
int cudaChooseDevice(int32_t * device, const void * prop)
{
    rgpu_call c;
    if (device == NULL) return rgpu_invalid_value(RGPU_RUNTIME);
    rgpu_begin(&c, RGPU_ID_cudaChooseDevice, "cudaChooseDevice", RGPU_RUNTIME);
    rgpu_put_b(&c, prop, 1008);
    int rc = rgpu_sync(&c);
    if (rc == 0) {
        *device = (int32_t)rgpu_out_i(&c);
    }
    rgpu_end(&c);
    return rc;
}

/* cudaSetValidDevices: forwarded */
int cudaSetValidDevices(int32_t * device_arr, int32_t len)
{
    rgpu_call c;
    if (device_arr == NULL) return rgpu_invalid_value(RGPU_RUNTIME);
    rgpu_begin(&c, RGPU_ID_cudaSetValidDevices, "cudaSetValidDevices", RGPU_RUNTIME);
    rgpu_put_i(&c, (int64_t)len);
    int rc = rgpu_sync(&c);
    if (rc == 0) {
        *device_arr = (int32_t)rgpu_out_i(&c);
    }
    rgpu_end(&c);
    return rc;
}

/* cudaStreamCreate: forwarded */
int cudaStreamCreate(void * * pStream)
{
    rgpu_call c;
    if (pStream == NULL) return rgpu_invalid_value(RGPU_RUNTIME);
    rgpu_begin(&c, RGPU_ID_cudaStreamCreate, "cudaStreamCreate", RGPU_RUNTIME);
    int rc = rgpu_sync(&c);
    if (rc == 0) {
        *pStream = rgpu_out_h(&c);
    }
    rgpu_end(&c);
    return rc;
}

/* cudaStreamCreateWithFlags: forwarded */
int cudaStreamCreateWithFlags(void * * pStream, uint32_t flags)
{
    rgpu_call c;
    if (pStream == NULL) return rgpu_invalid_value(RGPU_RUNTIME);
    rgpu_begin(&c, RGPU_ID_cudaStreamCreateWithFlags, "cudaStreamCreateWithFlags", RGPU_RUNTIME);
    rgpu_put_u(&c, (uint64_t)flags);
    int rc = rgpu_sync(&c);
    if (rc == 0) {
        *pStream = rgpu_out_h(&c);
    }
    rgpu_end(&c);
    return rc;
}

/* cudaStreamCreateWithPriority: forwarded */
int cudaStreamCreateWithPriority(void * * pStream, uint32_t flags, int32_t priority)
{
    rgpu_call c;
    if (pStream == NULL) return rgpu_invalid_value(RGPU_RUNTIME);
    rgpu_begin(&c, RGPU_ID_cudaStreamCreateWithPriority, "cudaStreamCreateWithPriority", RGPU_RUNTIME);
    rgpu_put_u(&c, (uint64_t)flags);
    rgpu_put_i(&c, (int64_t)priority);
    int rc = rgpu_sync(&c);
    if (rc == 0) {
        *pStream = rgpu_out_h(&c);
    }
    rgpu_end(&c);
    return rc;
}

/* cudaStreamGetPriority: forwarded */
int cudaStreamGetPriority(void * hStream, int32_t * priority)
{
    rgpu_call c;
    if (priority == NULL) return rgpu_invalid_value(RGPU_RUNTIME);
    rgpu_begin(&c, RGPU_ID_cudaStreamGetPriority, "cudaStreamGetPriority", RGPU_RUNTIME);
    rgpu_put_h(&c, hStream);
    int rc = rgpu_sync(&c);
    if (rc == 0) {
        *priority = (int32_t)rgpu_out_i(&c);
    }
    rgpu_end(&c);
    return rc;
}

/* cudaStreamGetFlags: forwarded */
int cudaStreamGetFlags(void * hStream, uint32_t * flags)
{
    rgpu_call c;
    if (flags == NULL) return rgpu_invalid_value(RGPU_RUNTIME);
    rgpu_begin(&c, RGPU_ID_cudaStreamGetFlags, "cudaStreamGetFlags", RGPU_RUNTIME);
    rgpu_put_h(&c, hStream);
    int rc = rgpu_sync(&c);
    if (rc == 0) {
        *flags = (uint32_t)rgpu_out_u(&c);
    }
    rgpu_end(&c);
    return rc;
}

/* cudaStreamGetId: forwarded */
int cudaStreamGetId(void * hStream, uint64_t * streamId)
{
    rgpu_call c;
    if (streamId == NULL) return rgpu_invalid_value(RGPU_RUNTIME);
    rgpu_begin(&c, RGPU_ID_cudaStreamGetId, "cudaStreamGetId", RGPU_RUNTIME);
    rgpu_put_h(&c, hStream);
    int rc = rgpu_sync(&c);
    if (rc == 0) {
        *streamId = (uint64_t)rgpu_out_u(&c);
    }
    rgpu_end(&c);
    return rc;
}

/* cudaStreamGetDevice: forwarded */
int cudaStreamGetDevice(void * hStream, int32_t * device)
{
    rgpu_call c;
    if (device == NULL) return rgpu_invalid_value(RGPU_RUNTIME);
    rgpu_begin(&c, RGPU_ID_cudaStreamGetDevice, "cudaStreamGetDevice", RGPU_RUNTIME);
    rgpu_put_h(&c, hStream);
    int rc = rgpu_sync(&c);
    if (rc == 0) {
        *device = (int32_t)rgpu_out_i(&c);
    }
    rgpu_end(&c);
    return rc;
}

/* cudaCtxResetPersistingL2Cache: forwarded */
int cudaCtxResetPersistingL2Cache(void)
{
    rgpu_call c;
    rgpu_begin(&c, RGPU_ID_cudaCtxResetPersistingL2Cache, "cudaCtxResetPersistingL2Cache", RGPU_RUNTIME);
    int rc = rgpu_sync(&c);
    rgpu_end(&c);
    return rc;
}

/* cudaStreamCopyAttributes: forwarded */
int cudaStreamCopyAttributes(void * dst, void * src)
{
    rgpu_call c;
    rgpu_begin(&c, RGPU_ID_cudaStreamCopyAttributes, "cudaStreamCopyAttributes", RGPU_RUNTIME);
    rgpu_put_h(&c, dst);
    rgpu_put_h(&c, src);
    int rc = rgpu_sync(&c);
    rgpu_end(&c);
    return rc;
}

/* cudaStreamGetAttribute: forwarded */
int cudaStreamGetAttribute(void * hStream, int attr, void * value_out)
{
    rgpu_call c;
    rgpu_begin(&c, RGPU_ID_cudaStreamGetAttribute, "cudaStreamGetAttribute", RGPU_RUNTIME);
    rgpu_put_h(&c, hStream);
    rgpu_put_i(&c, (int64_t)attr);
    rgpu_put_h(&c, value_out);
    int rc = rgpu_sync(&c);
    rgpu_end(&c);
    return rc;
}

/* cudaStreamSetAttribute: forwarded */
int cudaStreamSetAttribute(void * hStream, int attr, void * value)
{
    rgpu_call c;
    rgpu_begin(&c, RGPU_ID_cudaStreamSetAttribute, "cudaStreamSetAttribute", RGPU_RUNTIME);
    rgpu_put_h(&c, hStream);
    rgpu_put_i(&c, (int64_t)attr);
    rgpu_put_h(&c, value);
    int rc = rgpu_sync(&c);
    rgpu_end(&c);
    return rc;
}

/* cudaStreamDestroy: forwarded */
int cudaStreamDestroy(void * stream)
{
    rgpu_call c;
    rgpu_begin(&c, RGPU_ID_cudaStreamDestroy, "cudaStreamDestroy", RGPU_RUNTIME);
    rgpu_put_h(&c, stream);
    int rc = rgpu_sync(&c);
    rgpu_end(&c);
    return rc;
}

/* cudaStreamWaitEvent: forwarded (async) */
int cudaStreamWaitEvent(void * stream, void * event, uint32_t flags)
{
    rgpu_call c;
    { int crc; if (rgpu_capture_cudaStreamWaitEvent(&crc, stream, event, flags)) return crc; }
    rgpu_begin(&c, RGPU_ID_cudaStreamWaitEvent, "cudaStreamWaitEvent", RGPU_RUNTIME);
    rgpu_put_h(&c, stream);
    rgpu_put_h(&c, event);
    rgpu_put_u(&c, (uint64_t)flags);
    return rgpu_async(&c);
}

/* cudaStreamSynchronize: forwarded */
int cudaStreamSynchronize(void * stream)
{
    rgpu_call c;
    { int crc = rgpu_capture_guard(RGPU_RUNTIME, stream, 1); if (crc) return crc; }
    rgpu_begin(&c, RGPU_ID_cudaStreamSynchronize, "cudaStreamSynchronize", RGPU_RUNTIME);
    rgpu_put_h(&c, stream);
    int rc = rgpu_sync(&c);
    rgpu_end(&c);
    return rc;
}

/* cudaStreamQuery: forwarded */
int cudaStreamQuery(void * stream)
{
    rgpu_call c;
    { int crc = rgpu_capture_guard(RGPU_RUNTIME, stream, 1); if (crc) return crc; }
    rgpu_begin(&c, RGPU_ID_cudaStreamQuery, "cudaStreamQuery", RGPU_RUNTIME);
    rgpu_put_h(&c, stream);
    int rc = rgpu_sync(&c);
    rgpu_end(&c);
    return rc;
}

/* cudaEventCreate: forwarded */
int cudaEventCreate(void * * event)
{
    rgpu_call c;
    if (event == NULL) return rgpu_invalid_value(RGPU_RUNTIME);
    rgpu_begin(&c, RGPU_ID_cudaEventCreate, "cudaEventCreate", RGPU_RUNTIME);
    int rc = rgpu_sync(&c);
    if (rc == 0) {
        *event = rgpu_out_h(&c);
    }
    rgpu_end(&c);
    return rc;
}

/* cudaEventCreateWithFlags: forwarded */
int cudaEventCreateWithFlags(void * * event, uint32_t flags)
{
    rgpu_call c;
    if (event == NULL) return rgpu_invalid_value(RGPU_RUNTIME);
    rgpu_begin(&c, RGPU_ID_cudaEventCreateWithFlags, "cudaEventCreateWithFlags", RGPU_RUNTIME);
    rgpu_put_u(&c, (uint64_t)flags);
    int rc = rgpu_sync(&c);
    if (rc == 0) {
        *event = rgpu_out_h(&c);
    }
    rgpu_end(&c);
    return rc;
}

/* cudaEventRecord: forwarded (async) */
int cudaEventRecord(void * event, void * stream)
{
    rgpu_call c;
    { int crc; if (rgpu_capture_cudaEventRecord(&crc, event, stream)) return crc; }
    rgpu_begin(&c, RGPU_ID_cudaEventRecord, "cudaEventRecord", RGPU_RUNTIME);
    rgpu_put_h(&c, event);
    rgpu_put_h(&c, stream);
    return rgpu_async(&c);
}

/* cudaEventRecordWithFlags: forwarded (async) */
int cudaEventRecordWithFlags(void * event, void * stream, uint32_t flags)
{
    rgpu_call c;
    { int crc; if (rgpu_capture_cudaEventRecordWithFlags(&crc, event, stream, flags)) return crc; }
    rgpu_begin(&c, RGPU_ID_cudaEventRecordWithFlags, "cudaEventRecordWithFlags", RGPU_RUNTIME);
    rgpu_put_h(&c, event);
    rgpu_put_h(&c, stream);
    rgpu_put_u(&c, (uint64_t)flags);
    return rgpu_async(&c);
}

/* cudaEventQuery: forwarded */
int cudaEventQuery(void * event)
{
    rgpu_call c;
    { int crc; if (rgpu_capture_cudaEventQuery(&crc, event)) return crc; }
    rgpu_begin(&c, RGPU_ID_cudaEventQuery, "cudaEventQuery", RGPU_RUNTIME);
    rgpu_put_h(&c, event);
    int rc = rgpu_sync(&c);
    rgpu_end(&c);
    return rc;
}

/* cudaEventSynchronize: forwarded */
int cudaEventSynchronize(void * event)
{
    rgpu_call c;
    { int crc; if (rgpu_capture_cudaEventSynchronize(&crc, event)) return crc; }
    rgpu_begin(&c, RGPU_ID_cudaEventSynchronize, "cudaEventSynchronize", RGPU_RUNTIME);
    rgpu_put_h(&c, event);
    int rc = rgpu_sync(&c);
    rgpu_end(&c);
    return rc;
}

/* cudaEventDestroy: forwarded */
int cudaEventDestroy(void * event)
{
    rgpu_call c;
    rgpu_begin(&c, RGPU_ID_cudaEventDestroy, "cudaEventDestroy", RGPU_RUNTIME);
    rgpu_put_h(&c, event);
    int rc = rgpu_sync(&c);
    rgpu_end(&c);
    return rc;
}

/* cudaEventElapsedTime: forwarded */
int cudaEventElapsedTime(float * ms, void * start, void * end)
{
    rgpu_call c;
    if (ms == NULL) return rgpu_invalid_value(RGPU_RUNTIME);
    rgpu_begin(&c, RGPU_ID_cudaEventElapsedTime, "cudaEventElapsedTime", RGPU_RUNTIME);
    rgpu_put_h(&c, start);
    rgpu_put_h(&c, end);
    int rc = rgpu_sync(&c);
    if (rc == 0) {
        *ms = (float)rgpu_out_f(&c);
    }
    rgpu_end(&c);
    return rc;
}

/* cudaImportExternalMemory: not supported: external memory and semaphores are not forwarded */
int cudaImportExternalMemory()
{
    return rgpu_unsupported(RGPU_RUNTIME, "cudaImportExternalMemory");
}

/* cudaExternalMemoryGetMappedBuffer: not supported: external memory and semaphores are not forwarded */
int cudaExternalMemoryGetMappedBuffer()
{
    return rgpu_unsupported(RGPU_RUNTIME, "cudaExternalMemoryGetMappedBuffer");
}

/* cudaExternalMemoryGetMappedMipmappedArray: not supported: external memory and semaphores are not forwarded */
int cudaExternalMemoryGetMappedMipmappedArray()
{
    return rgpu_unsupported(RGPU_RUNTIME, "cudaExternalMemoryGetMappedMipmappedArray");
}

/* cudaDestroyExternalMemory: not supported: external memory and semaphores are not forwarded */
int cudaDestroyExternalMemory()
{
    return rgpu_unsupported(RGPU_RUNTIME, "cudaDestroyExternalMemory");
}

/* cudaImportExternalSemaphore: not supported: external memory and semaphores are not forwarded */
int cudaImportExternalSemaphore()
{
    return rgpu_unsupported(RGPU_RUNTIME, "cudaImportExternalSemaphore");
}

/* cudaSignalExternalSemaphoresAsync: not supported: external memory and semaphores are not forwarded */
int cudaSignalExternalSemaphoresAsync()
{
    return rgpu_unsupported(RGPU_RUNTIME, "cudaSignalExternalSemaphoresAsync");
}

/* cudaWaitExternalSemaphoresAsync: not supported: external memory and semaphores are not forwarded */
int cudaWaitExternalSemaphoresAsync()
{
    return rgpu_unsupported(RGPU_RUNTIME, "cudaWaitExternalSemaphoresAsync");
}

/* cudaDestroyExternalSemaphore: not supported: external memory and semaphores are not forwarded */
int cudaDestroyExternalSemaphore()
{
    return rgpu_unsupported(RGPU_RUNTIME, "cudaDestroyExternalSemaphore");
}

/* cudaFuncSetSharedMemConfig: not supported: not forwarded yet (cudaFuncSetSharedMemConfig: shared-memory bank configuration is deprecated) */
int cudaFuncSetSharedMemConfig()
{
    return rgpu_unsupported(RGPU_RUNTIME, "cudaFuncSetSharedMemConfig");
}

/* cudaOccupancyAvailableDynamicSMemPerBlock: not supported: cluster occupancy is not supported */
int cudaOccupancyAvailableDynamicSMemPerBlock()
{
    return rgpu_unsupported(RGPU_RUNTIME, "cudaOccupancyAvailableDynamicSMemPerBlock");
}

/* cudaOccupancyMaxPotentialClusterSize: not supported: cluster occupancy is not supported */
int cudaOccupancyMaxPotentialClusterSize()
{
    return rgpu_unsupported(RGPU_RUNTIME, "cudaOccupancyMaxPotentialClusterSize");
}

/* cudaOccupancyMaxActiveClusters: not supported: cluster occupancy is not supported */
int cudaOccupancyMaxActiveClusters()
{
    return rgpu_unsupported(RGPU_RUNTIME, "cudaOccupancyMaxActiveClusters");
}

/* cudaMalloc: forwarded */
int cudaMalloc(void * * devPtr, uint64_t size)
{
    rgpu_call c;
    if (devPtr == NULL) return rgpu_invalid_value(RGPU_RUNTIME);
    { int crc = rgpu_capture_guard(RGPU_RUNTIME, NULL, 0); if (crc) return crc; }
    rgpu_begin(&c, RGPU_ID_cudaMalloc, "cudaMalloc", RGPU_RUNTIME);
    rgpu_put_u(&c, (uint64_t)size);
    int rc = rgpu_sync(&c);
    if (rc == 0) {
        *devPtr = (void *)(uintptr_t)rgpu_out_u(&c);
    }
    rgpu_end(&c);
    return rc;
}

/* cudaMallocPitch: forwarded */
int cudaMallocPitch(void * * devPtr, uint64_t * pitch, uint64_t width, uint64_t height)
{
    rgpu_call c;
    if (devPtr == NULL) return rgpu_invalid_value(RGPU_RUNTIME);
    if (pitch == NULL) return rgpu_invalid_value(RGPU_RUNTIME);
    { int crc = rgpu_capture_guard(RGPU_RUNTIME, NULL, 0); if (crc) return crc; }
    rgpu_begin(&c, RGPU_ID_cudaMallocPitch, "cudaMallocPitch", RGPU_RUNTIME);
    rgpu_put_u(&c, (uint64_t)width);
    rgpu_put_u(&c, (uint64_t)height);
    int rc = rgpu_sync(&c);
    if (rc == 0) {
        *devPtr = (void *)(uintptr_t)rgpu_out_u(&c);
        *pitch = (uint64_t)rgpu_out_u(&c);
    }
    rgpu_end(&c);
    return rc;
}

/* cudaMallocArray: forwarded */
int cudaMallocArray(void * * array, const void * desc, uint64_t width, uint64_t height, uint32_t flags)
{
    rgpu_call c;
    if (array == NULL) return rgpu_invalid_value(RGPU_RUNTIME);
    rgpu_begin(&c, RGPU_ID_cudaMallocArray, "cudaMallocArray", RGPU_RUNTIME);
    rgpu_put_b(&c, desc, 20);
    rgpu_put_u(&c, (uint64_t)width);
    rgpu_put_u(&c, (uint64_t)height);
    rgpu_put_u(&c, (uint64_t)flags);
    int rc = rgpu_sync(&c);
    if (rc == 0) {
        *array = rgpu_out_h(&c);
    }
    rgpu_end(&c);
    return rc;
}

/* cudaFreeArray: forwarded */
int cudaFreeArray(void * array)
{
    rgpu_call c;
    rgpu_begin(&c, RGPU_ID_cudaFreeArray, "cudaFreeArray", RGPU_RUNTIME);
    rgpu_put_h(&c, array);
    int rc = rgpu_sync(&c);
    rgpu_end(&c);
    return rc;
}

/* cudaFreeMipmappedArray: forwarded */
int cudaFreeMipmappedArray(void * mipmappedArray)
{
    rgpu_call c;
    rgpu_begin(&c, RGPU_ID_cudaFreeMipmappedArray, "cudaFreeMipmappedArray", RGPU_RUNTIME);
    rgpu_put_h(&c, mipmappedArray);
    int rc = rgpu_sync(&c);
    rgpu_end(&c);
    return rc;
}

/* cudaMalloc3DArray: forwarded */
int cudaMalloc3DArray(void * * array, const void * desc, rgpu_blob24 extent, uint32_t flags)
{
    rgpu_call c;
    if (array == NULL) return rgpu_invalid_value(RGPU_RUNTIME);
    rgpu_begin(&c, RGPU_ID_cudaMalloc3DArray, "cudaMalloc3DArray", RGPU_RUNTIME);
    rgpu_put_b(&c, desc, 20);
    rgpu_put_b(&c, &extent, sizeof extent);
    rgpu_put_u(&c, (uint64_t)flags);
    int rc = rgpu_sync(&c);
    if (rc == 0) {
        *array = rgpu_out_h(&c);
    }
    rgpu_end(&c);
    return rc;
}

/* cudaMallocMipmappedArray: forwarded */
int cudaMallocMipmappedArray(void * * mipmappedArray, const void * desc, rgpu_blob24 extent, uint32_t numLevels, uint32_t flags)
{
    rgpu_call c;
    if (mipmappedArray == NULL) return rgpu_invalid_value(RGPU_RUNTIME);
    rgpu_begin(&c, RGPU_ID_cudaMallocMipmappedArray, "cudaMallocMipmappedArray", RGPU_RUNTIME);
    rgpu_put_b(&c, desc, 20);
    rgpu_put_b(&c, &extent, sizeof extent);
    rgpu_put_u(&c, (uint64_t)numLevels);
    rgpu_put_u(&c, (uint64_t)flags);
    int rc = rgpu_sync(&c);
    if (rc == 0) {
        *mipmappedArray = rgpu_out_h(&c);
    }
    rgpu_end(&c);
    return rc;
}

/* cudaGetMipmappedArrayLevel: forwarded */
int cudaGetMipmappedArrayLevel(void * * levelArray, void * mipmappedArray, uint32_t level)
{
    rgpu_call c;
    if (levelArray == NULL) return rgpu_invalid_value(RGPU_RUNTIME);
    rgpu_begin(&c, RGPU_ID_cudaGetMipmappedArrayLevel, "cudaGetMipmappedArrayLevel", RGPU_RUNTIME);
    rgpu_put_h(&c, mipmappedArray);
    rgpu_put_u(&c, (uint64_t)level);
    int rc = rgpu_sync(&c);
    if (rc == 0) {
        *levelArray = rgpu_out_h(&c);
    }
    rgpu_end(&c);
    return rc;
}

/* cudaMemcpy3DPeer: not supported: 3D copies between devices are not forwarded yet */
int cudaMemcpy3DPeer()
{
    return rgpu_unsupported(RGPU_RUNTIME, "cudaMemcpy3DPeer");
}

/* cudaMemcpy3DPeerAsync: not supported: 3D copies between devices are not forwarded yet */
int cudaMemcpy3DPeerAsync()
{
    return rgpu_unsupported(RGPU_RUNTIME, "cudaMemcpy3DPeerAsync");
}

/* cudaMemGetInfo: forwarded */
int cudaMemGetInfo(uint64_t * free, uint64_t * total)
{
    rgpu_call c;
    if (free == NULL) return rgpu_invalid_value(RGPU_RUNTIME);
    if (total == NULL) return rgpu_invalid_value(RGPU_RUNTIME);
    rgpu_begin(&c, RGPU_ID_cudaMemGetInfo, "cudaMemGetInfo", RGPU_RUNTIME);
    int rc = rgpu_sync(&c);
    if (rc == 0) {
        *free = (uint64_t)rgpu_out_u(&c);
        *total = (uint64_t)rgpu_out_u(&c);
    }
    rgpu_end(&c);
    return rc;
}

/* cudaArrayGetInfo: forwarded */
int cudaArrayGetInfo(void * desc, void * extent, uint32_t * flags, void * array)
{
    rgpu_call c;
    if (desc == NULL) return rgpu_invalid_value(RGPU_RUNTIME);
    if (extent == NULL) return rgpu_invalid_value(RGPU_RUNTIME);
    if (flags == NULL) return rgpu_invalid_value(RGPU_RUNTIME);
    rgpu_begin(&c, RGPU_ID_cudaArrayGetInfo, "cudaArrayGetInfo", RGPU_RUNTIME);
    rgpu_put_h(&c, array);
    int rc = rgpu_sync(&c);
    if (rc == 0) {
        rgpu_out_b(&c, desc, 20);
        rgpu_out_b(&c, extent, 24);
        *flags = (uint32_t)rgpu_out_u(&c);
    }
    rgpu_end(&c);
    return rc;
}

/* cudaArrayGetPlane: forwarded */
int cudaArrayGetPlane(void * * pPlaneArray, void * hArray, uint32_t planeIdx)
{
    rgpu_call c;
    if (pPlaneArray == NULL) return rgpu_invalid_value(RGPU_RUNTIME);
    rgpu_begin(&c, RGPU_ID_cudaArrayGetPlane, "cudaArrayGetPlane", RGPU_RUNTIME);
    rgpu_put_h(&c, hArray);
    rgpu_put_u(&c, (uint64_t)planeIdx);
    int rc = rgpu_sync(&c);
    if (rc == 0) {
        *pPlaneArray = rgpu_out_h(&c);
    }
    rgpu_end(&c);
    return rc;
}

/* cudaArrayGetMemoryRequirements: forwarded */
int cudaArrayGetMemoryRequirements(void * memoryRequirements, void * array, int32_t device)
{
    rgpu_call c;
    if (memoryRequirements == NULL) return rgpu_invalid_value(RGPU_RUNTIME);
    rgpu_begin(&c, RGPU_ID_cudaArrayGetMemoryRequirements, "cudaArrayGetMemoryRequirements", RGPU_RUNTIME);
    rgpu_put_h(&c, array);
    rgpu_put_d(&c, device);
    int rc = rgpu_sync(&c);
    if (rc == 0) {
        rgpu_out_b(&c, memoryRequirements, 32);
    }
    rgpu_end(&c);
    return rc;
}

/* cudaMipmappedArrayGetMemoryRequirements: forwarded */
int cudaMipmappedArrayGetMemoryRequirements(void * memoryRequirements, void * mipmap, int32_t device)
{
    rgpu_call c;
    if (memoryRequirements == NULL) return rgpu_invalid_value(RGPU_RUNTIME);
    rgpu_begin(&c, RGPU_ID_cudaMipmappedArrayGetMemoryRequirements, "cudaMipmappedArrayGetMemoryRequirements", RGPU_RUNTIME);
    rgpu_put_h(&c, mipmap);
    rgpu_put_d(&c, device);
    int rc = rgpu_sync(&c);
    if (rc == 0) {
        rgpu_out_b(&c, memoryRequirements, 32);
    }
    rgpu_end(&c);
    return rc;
}

/* cudaArrayGetSparseProperties: forwarded */
int cudaArrayGetSparseProperties(void * sparseProperties, void * array)
{
    rgpu_call c;
    if (sparseProperties == NULL) return rgpu_invalid_value(RGPU_RUNTIME);
    rgpu_begin(&c, RGPU_ID_cudaArrayGetSparseProperties, "cudaArrayGetSparseProperties", RGPU_RUNTIME);
    rgpu_put_h(&c, array);
    int rc = rgpu_sync(&c);
    if (rc == 0) {
        rgpu_out_b(&c, sparseProperties, 48);
    }
    rgpu_end(&c);
    return rc;
}

/* cudaMipmappedArrayGetSparseProperties: forwarded */
int cudaMipmappedArrayGetSparseProperties(void * sparseProperties, void * mipmap)
{
    rgpu_call c;
    if (sparseProperties == NULL) return rgpu_invalid_value(RGPU_RUNTIME);
    rgpu_begin(&c, RGPU_ID_cudaMipmappedArrayGetSparseProperties, "cudaMipmappedArrayGetSparseProperties", RGPU_RUNTIME);
    rgpu_put_h(&c, mipmap);
    int rc = rgpu_sync(&c);
    if (rc == 0) {
        rgpu_out_b(&c, sparseProperties, 48);
    }
    rgpu_end(&c);
    return rc;
}

/* cudaMemcpy2DToArray: not supported: CUDA arrays are not forwarded yet */
int cudaMemcpy2DToArray()
{
    return rgpu_unsupported(RGPU_RUNTIME, "cudaMemcpy2DToArray");
}

/* cudaMemcpy2DFromArray: not supported: CUDA arrays are not forwarded yet */
int cudaMemcpy2DFromArray()
{
    return rgpu_unsupported(RGPU_RUNTIME, "cudaMemcpy2DFromArray");
}

/* cudaMemcpy2DArrayToArray: not supported: CUDA arrays are not forwarded yet */
int cudaMemcpy2DArrayToArray()
{
    return rgpu_unsupported(RGPU_RUNTIME, "cudaMemcpy2DArrayToArray");
}

/* cudaMemcpyBatchAsync: not supported: batched copies are not forwarded yet */
int cudaMemcpyBatchAsync()
{
    return rgpu_unsupported(RGPU_RUNTIME, "cudaMemcpyBatchAsync");
}

/* cudaMemcpy3DBatchAsync: not supported: 3D copies between devices are not forwarded yet */
int cudaMemcpy3DBatchAsync()
{
    return rgpu_unsupported(RGPU_RUNTIME, "cudaMemcpy3DBatchAsync");
}

/* cudaMemcpy2DToArrayAsync: not supported: CUDA arrays are not forwarded yet */
int cudaMemcpy2DToArrayAsync()
{
    return rgpu_unsupported(RGPU_RUNTIME, "cudaMemcpy2DToArrayAsync");
}

/* cudaMemcpy2DFromArrayAsync: not supported: CUDA arrays are not forwarded yet */
int cudaMemcpy2DFromArrayAsync()
{
    return rgpu_unsupported(RGPU_RUNTIME, "cudaMemcpy2DFromArrayAsync");
}

/* cudaMemset: forwarded */
int cudaMemset(void * devPtr, int32_t value, uint64_t count)
{
    rgpu_call c;
    { int crc = rgpu_capture_guard(RGPU_RUNTIME, NULL, 1); if (crc) return crc; }
    rgpu_begin(&c, RGPU_ID_cudaMemset, "cudaMemset", RGPU_RUNTIME);
    rgpu_put_u(&c, (uint64_t)(uintptr_t)devPtr);
    rgpu_put_i(&c, (int64_t)value);
    rgpu_put_u(&c, (uint64_t)count);
    int rc = rgpu_sync(&c);
    rgpu_end(&c);
    return rc;
}

/* cudaMemset2D: forwarded */
int cudaMemset2D(void * devPtr, uint64_t pitch, int32_t value, uint64_t width, uint64_t height)
{
    rgpu_call c;
    { int crc = rgpu_capture_guard(RGPU_RUNTIME, NULL, 1); if (crc) return crc; }
    rgpu_begin(&c, RGPU_ID_cudaMemset2D, "cudaMemset2D", RGPU_RUNTIME);
    rgpu_put_u(&c, (uint64_t)(uintptr_t)devPtr);
    rgpu_put_u(&c, (uint64_t)pitch);
    rgpu_put_i(&c, (int64_t)value);
    rgpu_put_u(&c, (uint64_t)width);
    rgpu_put_u(&c, (uint64_t)height);
    int rc = rgpu_sync(&c);
    rgpu_end(&c);
    return rc;
}

/* cudaMemsetAsync: forwarded (async) */
int cudaMemsetAsync(void * devPtr, int32_t value, uint64_t count, void * stream)
{
    rgpu_call c;
    { int crc; if (rgpu_capture_cudaMemsetAsync(&crc, devPtr, value, count, stream)) return crc; }
    rgpu_begin(&c, RGPU_ID_cudaMemsetAsync, "cudaMemsetAsync", RGPU_RUNTIME);
    rgpu_put_u(&c, (uint64_t)(uintptr_t)devPtr);
    rgpu_put_i(&c, (int64_t)value);
    rgpu_put_u(&c, (uint64_t)count);
    rgpu_put_h(&c, stream);
    return rgpu_async(&c);
}

/* cudaMemset2DAsync: forwarded (async) */
int cudaMemset2DAsync(void * devPtr, uint64_t pitch, int32_t value, uint64_t width, uint64_t height, void * stream)
{
    rgpu_call c;
    { int crc; if (rgpu_capture_cudaMemset2DAsync(&crc, devPtr, pitch, value, width, height, stream)) return crc; }
    rgpu_begin(&c, RGPU_ID_cudaMemset2DAsync, "cudaMemset2DAsync", RGPU_RUNTIME);
    rgpu_put_u(&c, (uint64_t)(uintptr_t)devPtr);
    rgpu_put_u(&c, (uint64_t)pitch);
    rgpu_put_i(&c, (int64_t)value);
    rgpu_put_u(&c, (uint64_t)width);
    rgpu_put_u(&c, (uint64_t)height);
    rgpu_put_h(&c, stream);
    return rgpu_async(&c);
}

/* cudaMemPrefetchBatchAsync: not supported: batched managed-memory operations are not forwarded yet */
int cudaMemPrefetchBatchAsync()
{
    return rgpu_unsupported(RGPU_RUNTIME, "cudaMemPrefetchBatchAsync");
}

/* cudaMemDiscardBatchAsync: not supported: discarding managed memory is not forwarded yet */
int cudaMemDiscardBatchAsync()
{
    return rgpu_unsupported(RGPU_RUNTIME, "cudaMemDiscardBatchAsync");
}

/* cudaMemDiscardAndPrefetchBatchAsync: not supported: batched managed-memory operations are not forwarded yet */
int cudaMemDiscardAndPrefetchBatchAsync()
{
    return rgpu_unsupported(RGPU_RUNTIME, "cudaMemDiscardAndPrefetchBatchAsync");
}

/* cudaMemRangeGetAttribute: not supported: managed range attributes are not forwarded yet */
int cudaMemRangeGetAttribute()
{
    return rgpu_unsupported(RGPU_RUNTIME, "cudaMemRangeGetAttribute");
}

/* cudaMemRangeGetAttributes: not supported: managed range attributes are not forwarded yet */
int cudaMemRangeGetAttributes()
{
    return rgpu_unsupported(RGPU_RUNTIME, "cudaMemRangeGetAttributes");
}

/* cudaMemcpyToArray: not supported: CUDA arrays are not forwarded yet */
int cudaMemcpyToArray()
{
    return rgpu_unsupported(RGPU_RUNTIME, "cudaMemcpyToArray");
}

/* cudaMemcpyFromArray: not supported: CUDA arrays are not forwarded yet */
int cudaMemcpyFromArray()
{
    return rgpu_unsupported(RGPU_RUNTIME, "cudaMemcpyFromArray");
}

/* cudaMemcpyArrayToArray: not supported: CUDA arrays are not forwarded yet */
int cudaMemcpyArrayToArray()
{
    return rgpu_unsupported(RGPU_RUNTIME, "cudaMemcpyArrayToArray");
}

/* cudaMemcpyToArrayAsync: not supported: CUDA arrays are not forwarded yet */
int cudaMemcpyToArrayAsync()
{
    return rgpu_unsupported(RGPU_RUNTIME, "cudaMemcpyToArrayAsync");
}

/* cudaMemcpyFromArrayAsync: not supported: CUDA arrays are not forwarded yet */
int cudaMemcpyFromArrayAsync()
{
    return rgpu_unsupported(RGPU_RUNTIME, "cudaMemcpyFromArrayAsync");
}

/* cudaMallocAsync: forwarded */
int cudaMallocAsync(void * * devPtr, uint64_t size, void * hStream)
{
    rgpu_call c;
    if (devPtr == NULL) return rgpu_invalid_value(RGPU_RUNTIME);
    { int crc; if (rgpu_capture_cudaMallocAsync(&crc, devPtr, size, hStream)) return crc; }
    rgpu_begin(&c, RGPU_ID_cudaMallocAsync, "cudaMallocAsync", RGPU_RUNTIME);
    rgpu_put_u(&c, (uint64_t)size);
    rgpu_put_h(&c, hStream);
    int rc = rgpu_sync(&c);
    if (rc == 0) {
        *devPtr = (void *)(uintptr_t)rgpu_out_u(&c);
    }
    rgpu_end(&c);
    return rc;
}

/* cudaFreeAsync: forwarded (async) */
int cudaFreeAsync(void * devPtr, void * hStream)
{
    rgpu_call c;
    { int crc; if (rgpu_capture_cudaFreeAsync(&crc, devPtr, hStream)) return crc; }
    rgpu_begin(&c, RGPU_ID_cudaFreeAsync, "cudaFreeAsync", RGPU_RUNTIME);
    rgpu_put_u(&c, (uint64_t)(uintptr_t)devPtr);
    rgpu_put_h(&c, hStream);
    return rgpu_async(&c);
}

/* cudaMemPoolTrimTo: forwarded */
int cudaMemPoolTrimTo(void * memPool, uint64_t minBytesToKeep)
{
    rgpu_call c;
    rgpu_begin(&c, RGPU_ID_cudaMemPoolTrimTo, "cudaMemPoolTrimTo", RGPU_RUNTIME);
    rgpu_put_h(&c, memPool);
    rgpu_put_u(&c, (uint64_t)minBytesToKeep);
    int rc = rgpu_sync(&c);
    rgpu_end(&c);
    return rc;
}

/* cudaMemPoolSetAttribute: not supported: pool attributes of several types: not forwarded yet */
int cudaMemPoolSetAttribute()
{
    return rgpu_unsupported(RGPU_RUNTIME, "cudaMemPoolSetAttribute");
}

/* cudaMemPoolGetAttribute: not supported: pool attributes of several types: not forwarded yet */
int cudaMemPoolGetAttribute()
{
    return rgpu_unsupported(RGPU_RUNTIME, "cudaMemPoolGetAttribute");
}

/* cudaMemPoolSetAccess: forwarded */
int cudaMemPoolSetAccess(void * memPool, const void * descList, uint64_t count)
{
    rgpu_call c;
    rgpu_begin(&c, RGPU_ID_cudaMemPoolSetAccess, "cudaMemPoolSetAccess", RGPU_RUNTIME);
    rgpu_put_h(&c, memPool);
    rgpu_put_b(&c, descList, 12);
    rgpu_put_u(&c, (uint64_t)count);
    int rc = rgpu_sync(&c);
    rgpu_end(&c);
    return rc;
}

/* cudaMemPoolGetAccess: forwarded */
int cudaMemPoolGetAccess(int * flags, void * memPool, void * location)
{
    rgpu_call c;
    if (flags == NULL) return rgpu_invalid_value(RGPU_RUNTIME);
    if (location == NULL) return rgpu_invalid_value(RGPU_RUNTIME);
    rgpu_begin(&c, RGPU_ID_cudaMemPoolGetAccess, "cudaMemPoolGetAccess", RGPU_RUNTIME);
    rgpu_put_h(&c, memPool);
    int rc = rgpu_sync(&c);
    if (rc == 0) {
        *flags = (int)rgpu_out_i(&c);
        rgpu_out_b(&c, location, 8);
    }
    rgpu_end(&c);
    return rc;
}

/* cudaMemPoolCreate: not supported: memory pools are not forwarded yet */
int cudaMemPoolCreate()
{
    return rgpu_unsupported(RGPU_RUNTIME, "cudaMemPoolCreate");
}

/* cudaMemPoolDestroy: forwarded */
int cudaMemPoolDestroy(void * memPool)
{
    rgpu_call c;
    rgpu_begin(&c, RGPU_ID_cudaMemPoolDestroy, "cudaMemPoolDestroy", RGPU_RUNTIME);
    rgpu_put_h(&c, memPool);
    int rc = rgpu_sync(&c);
    rgpu_end(&c);
    return rc;
}

/* cudaMemGetDefaultMemPool: forwarded */
int cudaMemGetDefaultMemPool(void * * memPool, void * location, int type)
{
    rgpu_call c;
    if (memPool == NULL) return rgpu_invalid_value(RGPU_RUNTIME);
    if (location == NULL) return rgpu_invalid_value(RGPU_RUNTIME);
    rgpu_begin(&c, RGPU_ID_cudaMemGetDefaultMemPool, "cudaMemGetDefaultMemPool", RGPU_RUNTIME);
    rgpu_put_i(&c, (int64_t)type);
    int rc = rgpu_sync(&c);
    if (rc == 0) {
        *memPool = rgpu_out_h(&c);
        rgpu_out_b(&c, location, 8);
    }
    rgpu_end(&c);
    return rc;
}

/* cudaMemGetMemPool: forwarded */
int cudaMemGetMemPool(void * * memPool, void * location, int type)
{
    rgpu_call c;
    if (memPool == NULL) return rgpu_invalid_value(RGPU_RUNTIME);
    if (location == NULL) return rgpu_invalid_value(RGPU_RUNTIME);
    rgpu_begin(&c, RGPU_ID_cudaMemGetMemPool, "cudaMemGetMemPool", RGPU_RUNTIME);
    rgpu_put_i(&c, (int64_t)type);
    int rc = rgpu_sync(&c);
    if (rc == 0) {
        *memPool = rgpu_out_h(&c);
        rgpu_out_b(&c, location, 8);
    }
    rgpu_end(&c);
    return rc;
}

/* cudaMemSetMemPool: forwarded */
int cudaMemSetMemPool(void * location, int type, void * memPool)
{
    rgpu_call c;
    if (location == NULL) return rgpu_invalid_value(RGPU_RUNTIME);
    rgpu_begin(&c, RGPU_ID_cudaMemSetMemPool, "cudaMemSetMemPool", RGPU_RUNTIME);
    rgpu_put_i(&c, (int64_t)type);
    rgpu_put_h(&c, memPool);
    int rc = rgpu_sync(&c);
    if (rc == 0) {
        rgpu_out_b(&c, location, 8);
    }
    rgpu_end(&c);
    return rc;
}

/* cudaMallocFromPoolAsync: not supported: memory pools are not forwarded yet */
int cudaMallocFromPoolAsync()
{
    return rgpu_unsupported(RGPU_RUNTIME, "cudaMallocFromPoolAsync");
}

/* cudaMemPoolExportToShareableHandle: not supported: shareable handles are OS handles of the server */
int cudaMemPoolExportToShareableHandle()
{
    return rgpu_unsupported(RGPU_RUNTIME, "cudaMemPoolExportToShareableHandle");
}

/* cudaMemPoolImportFromShareableHandle: not supported: shareable handles are OS handles of the server */
int cudaMemPoolImportFromShareableHandle()
{
    return rgpu_unsupported(RGPU_RUNTIME, "cudaMemPoolImportFromShareableHandle");
}

/* cudaMemPoolExportPointer: not supported: pool IPC is not forwarded */
int cudaMemPoolExportPointer()
{
    return rgpu_unsupported(RGPU_RUNTIME, "cudaMemPoolExportPointer");
}

/* cudaMemPoolImportPointer: not supported: pool IPC is not forwarded */
int cudaMemPoolImportPointer()
{
    return rgpu_unsupported(RGPU_RUNTIME, "cudaMemPoolImportPointer");
}

/* cudaGraphicsUnregisterResource: not supported: graphics interop needs a local display */
int cudaGraphicsUnregisterResource()
{
    return rgpu_unsupported(RGPU_RUNTIME, "cudaGraphicsUnregisterResource");
}

/* cudaGraphicsResourceSetMapFlags: not supported: graphics interop needs a local display */
int cudaGraphicsResourceSetMapFlags()
{
    return rgpu_unsupported(RGPU_RUNTIME, "cudaGraphicsResourceSetMapFlags");
}

/* cudaGraphicsMapResources: not supported: graphics interop needs a local display */
int cudaGraphicsMapResources()
{
    return rgpu_unsupported(RGPU_RUNTIME, "cudaGraphicsMapResources");
}

/* cudaGraphicsUnmapResources: not supported: graphics interop needs a local display */
int cudaGraphicsUnmapResources()
{
    return rgpu_unsupported(RGPU_RUNTIME, "cudaGraphicsUnmapResources");
}

/* cudaGraphicsResourceGetMappedPointer: not supported: graphics interop needs a local display */
int cudaGraphicsResourceGetMappedPointer()
{
    return rgpu_unsupported(RGPU_RUNTIME, "cudaGraphicsResourceGetMappedPointer");
}

/* cudaGraphicsSubResourceGetMappedArray: not supported: graphics interop needs a local display */
int cudaGraphicsSubResourceGetMappedArray()
{
    return rgpu_unsupported(RGPU_RUNTIME, "cudaGraphicsSubResourceGetMappedArray");
}

/* cudaGraphicsResourceGetMappedMipmappedArray: not supported: graphics interop needs a local display */
int cudaGraphicsResourceGetMappedMipmappedArray()
{
    return rgpu_unsupported(RGPU_RUNTIME, "cudaGraphicsResourceGetMappedMipmappedArray");
}

/* cudaGetChannelDesc: forwarded */
int cudaGetChannelDesc(void * desc, void * array)
{
    rgpu_call c;
    if (desc == NULL) return rgpu_invalid_value(RGPU_RUNTIME);
    rgpu_begin(&c, RGPU_ID_cudaGetChannelDesc, "cudaGetChannelDesc", RGPU_RUNTIME);
    rgpu_put_h(&c, array);
    int rc = rgpu_sync(&c);
    if (rc == 0) {
        rgpu_out_b(&c, desc, 20);
    }
    rgpu_end(&c);
    return rc;
}

/* cudaCreateTextureObject: forwarded */
int cudaCreateTextureObject(uint64_t * pTexObject, const void * pResDesc, const void * pTexDesc, const void * pResViewDesc)
{
    rgpu_call c;
    if (pTexObject == NULL) return rgpu_invalid_value(RGPU_RUNTIME);
    rgpu_begin(&c, RGPU_ID_cudaCreateTextureObject, "cudaCreateTextureObject", RGPU_RUNTIME);
    rgpu_put_b(&c, pResDesc, 144);
    rgpu_put_b(&c, pTexDesc, 72);
    rgpu_put_b(&c, pResViewDesc, 112);
    int rc = rgpu_sync(&c);
    if (rc == 0) {
        *pTexObject = (uint64_t)rgpu_out_u(&c);
    }
    rgpu_end(&c);
    return rc;
}

/* cudaDestroyTextureObject: forwarded */
int cudaDestroyTextureObject(uint64_t texObject)
{
    rgpu_call c;
    rgpu_begin(&c, RGPU_ID_cudaDestroyTextureObject, "cudaDestroyTextureObject", RGPU_RUNTIME);
    rgpu_put_u(&c, (uint64_t)texObject);
    int rc = rgpu_sync(&c);
    rgpu_end(&c);
    return rc;
}

/* cudaGetTextureObjectResourceDesc: forwarded */
int cudaGetTextureObjectResourceDesc(void * pResDesc, uint64_t texObject)
{
    rgpu_call c;
    if (pResDesc == NULL) return rgpu_invalid_value(RGPU_RUNTIME);
    rgpu_begin(&c, RGPU_ID_cudaGetTextureObjectResourceDesc, "cudaGetTextureObjectResourceDesc", RGPU_RUNTIME);
    rgpu_put_u(&c, (uint64_t)texObject);
    int rc = rgpu_sync(&c);
    if (rc == 0) {
        rgpu_out_b(&c, pResDesc, 144);
    }
    rgpu_end(&c);
    return rc;
}

/* cudaGetTextureObjectTextureDesc: forwarded */
int cudaGetTextureObjectTextureDesc(void * pTexDesc, uint64_t texObject)
{
    rgpu_call c;
    if (pTexDesc == NULL) return rgpu_invalid_value(RGPU_RUNTIME);
    rgpu_begin(&c, RGPU_ID_cudaGetTextureObjectTextureDesc, "cudaGetTextureObjectTextureDesc", RGPU_RUNTIME);
    rgpu_put_u(&c, (uint64_t)texObject);
    int rc = rgpu_sync(&c);
    if (rc == 0) {
        rgpu_out_b(&c, pTexDesc, 72);
    }
    rgpu_end(&c);
    return rc;
}

/* cudaGetTextureObjectResourceViewDesc: forwarded */
int cudaGetTextureObjectResourceViewDesc(void * pResViewDesc, uint64_t texObject)
{
    rgpu_call c;
    if (pResViewDesc == NULL) return rgpu_invalid_value(RGPU_RUNTIME);
    rgpu_begin(&c, RGPU_ID_cudaGetTextureObjectResourceViewDesc, "cudaGetTextureObjectResourceViewDesc", RGPU_RUNTIME);
    rgpu_put_u(&c, (uint64_t)texObject);
    int rc = rgpu_sync(&c);
    if (rc == 0) {
        rgpu_out_b(&c, pResViewDesc, 112);
    }
    rgpu_end(&c);
    return rc;
}

/* cudaCreateSurfaceObject: forwarded */
int cudaCreateSurfaceObject(uint64_t * pSurfObject, const void * pResDesc)
{
    rgpu_call c;
    if (pSurfObject == NULL) return rgpu_invalid_value(RGPU_RUNTIME);
    rgpu_begin(&c, RGPU_ID_cudaCreateSurfaceObject, "cudaCreateSurfaceObject", RGPU_RUNTIME);
    rgpu_put_b(&c, pResDesc, 144);
    int rc = rgpu_sync(&c);
    if (rc == 0) {
        *pSurfObject = (uint64_t)rgpu_out_u(&c);
    }
    rgpu_end(&c);
    return rc;
}

/* cudaDestroySurfaceObject: forwarded */
int cudaDestroySurfaceObject(uint64_t surfObject)
{
    rgpu_call c;
    rgpu_begin(&c, RGPU_ID_cudaDestroySurfaceObject, "cudaDestroySurfaceObject", RGPU_RUNTIME);
    rgpu_put_u(&c, (uint64_t)surfObject);
    int rc = rgpu_sync(&c);
    rgpu_end(&c);
    return rc;
}

/* cudaGetSurfaceObjectResourceDesc: forwarded */
int cudaGetSurfaceObjectResourceDesc(void * pResDesc, uint64_t surfObject)
{
    rgpu_call c;
    if (pResDesc == NULL) return rgpu_invalid_value(RGPU_RUNTIME);
    rgpu_begin(&c, RGPU_ID_cudaGetSurfaceObjectResourceDesc, "cudaGetSurfaceObjectResourceDesc", RGPU_RUNTIME);
    rgpu_put_u(&c, (uint64_t)surfObject);
    int rc = rgpu_sync(&c);
    if (rc == 0) {
        rgpu_out_b(&c, pResDesc, 144);
    }
    rgpu_end(&c);
    return rc;
}

/* cudaLogsRegisterCallback: not supported: host callbacks are not forwarded yet */
int cudaLogsRegisterCallback()
{
    return rgpu_unsupported(RGPU_RUNTIME, "cudaLogsRegisterCallback");
}

/* cudaLogsUnregisterCallback: forwarded */
int cudaLogsUnregisterCallback(void * callback)
{
    rgpu_call c;
    rgpu_begin(&c, RGPU_ID_cudaLogsUnregisterCallback, "cudaLogsUnregisterCallback", RGPU_RUNTIME);
    rgpu_put_h(&c, callback);
    int rc = rgpu_sync(&c);
    rgpu_end(&c);
    return rc;
}

/* cudaLogsCurrent: forwarded */
int cudaLogsCurrent(uint32_t * iterator_out, uint32_t flags)
{
    rgpu_call c;
    if (iterator_out == NULL) return rgpu_invalid_value(RGPU_RUNTIME);
    rgpu_begin(&c, RGPU_ID_cudaLogsCurrent, "cudaLogsCurrent", RGPU_RUNTIME);
    rgpu_put_u(&c, (uint64_t)flags);
    int rc = rgpu_sync(&c);
    if (rc == 0) {
        *iterator_out = (uint32_t)rgpu_out_u(&c);
    }
    rgpu_end(&c);
    return rc;
}

/* cudaLogsDumpToFile: forwarded */
int cudaLogsDumpToFile(uint32_t * iterator, const char * pathToFile, uint32_t flags)
{
    rgpu_call c;
    if (iterator == NULL) return rgpu_invalid_value(RGPU_RUNTIME);
    rgpu_begin(&c, RGPU_ID_cudaLogsDumpToFile, "cudaLogsDumpToFile", RGPU_RUNTIME);
    rgpu_put_s(&c, pathToFile);
    rgpu_put_u(&c, (uint64_t)flags);
    int rc = rgpu_sync(&c);
    if (rc == 0) {
        *iterator = (uint32_t)rgpu_out_u(&c);
    }
    rgpu_end(&c);
    return rc;
}

/* cudaLogsDumpToMemory: not supported: driver logs are the server's */
int cudaLogsDumpToMemory()
{
    return rgpu_unsupported(RGPU_RUNTIME, "cudaLogsDumpToMemory");
}

/* cudaGraphKernelNodeCopyAttributes: not supported: kernel node launch attributes are not implemented yet */
int cudaGraphKernelNodeCopyAttributes()
{
    return rgpu_unsupported(RGPU_RUNTIME, "cudaGraphKernelNodeCopyAttributes");
}

/* cudaGraphKernelNodeGetAttribute: not supported: kernel node launch attributes are not implemented yet */
int cudaGraphKernelNodeGetAttribute()
{
    return rgpu_unsupported(RGPU_RUNTIME, "cudaGraphKernelNodeGetAttribute");
}

/* cudaGraphKernelNodeSetAttribute: not supported: kernel node launch attributes are not implemented yet */
int cudaGraphKernelNodeSetAttribute()
{
    return rgpu_unsupported(RGPU_RUNTIME, "cudaGraphKernelNodeSetAttribute");
}

/* cudaGraphAddExternalSemaphoresSignalNode: not supported: external semaphores are not forwarded */
int cudaGraphAddExternalSemaphoresSignalNode()
{
    return rgpu_unsupported(RGPU_RUNTIME, "cudaGraphAddExternalSemaphoresSignalNode");
}

/* cudaGraphExternalSemaphoresSignalNodeGetParams: not supported: external semaphores are not forwarded */
int cudaGraphExternalSemaphoresSignalNodeGetParams()
{
    return rgpu_unsupported(RGPU_RUNTIME, "cudaGraphExternalSemaphoresSignalNodeGetParams");
}

/* cudaGraphExternalSemaphoresSignalNodeSetParams: not supported: external semaphores are not forwarded */
int cudaGraphExternalSemaphoresSignalNodeSetParams()
{
    return rgpu_unsupported(RGPU_RUNTIME, "cudaGraphExternalSemaphoresSignalNodeSetParams");
}

/* cudaGraphAddExternalSemaphoresWaitNode: not supported: external semaphores are not forwarded */
int cudaGraphAddExternalSemaphoresWaitNode()
{
    return rgpu_unsupported(RGPU_RUNTIME, "cudaGraphAddExternalSemaphoresWaitNode");
}

/* cudaGraphExternalSemaphoresWaitNodeGetParams: not supported: external semaphores are not forwarded */
int cudaGraphExternalSemaphoresWaitNodeGetParams()
{
    return rgpu_unsupported(RGPU_RUNTIME, "cudaGraphExternalSemaphoresWaitNodeGetParams");
}

/* cudaGraphExternalSemaphoresWaitNodeSetParams: not supported: external semaphores are not forwarded */
int cudaGraphExternalSemaphoresWaitNodeSetParams()
{
    return rgpu_unsupported(RGPU_RUNTIME, "cudaGraphExternalSemaphoresWaitNodeSetParams");
}

/* cudaGraphExecExternalSemaphoresSignalNodeSetParams: not supported: external semaphores are not forwarded */
int cudaGraphExecExternalSemaphoresSignalNodeSetParams()
{
    return rgpu_unsupported(RGPU_RUNTIME, "cudaGraphExecExternalSemaphoresSignalNodeSetParams");
}

/* cudaGraphExecExternalSemaphoresWaitNodeSetParams: not supported: external semaphores are not forwarded */
int cudaGraphExecExternalSemaphoresWaitNodeSetParams()
{
    return rgpu_unsupported(RGPU_RUNTIME, "cudaGraphExecExternalSemaphoresWaitNodeSetParams");
}

/* cudaUserObjectCreate: not supported: graph user objects are not implemented yet */
int cudaUserObjectCreate()
{
    return rgpu_unsupported(RGPU_RUNTIME, "cudaUserObjectCreate");
}

/* cudaUserObjectRetain: not supported: graph user objects are not implemented yet */
int cudaUserObjectRetain()
{
    return rgpu_unsupported(RGPU_RUNTIME, "cudaUserObjectRetain");
}

/* cudaUserObjectRelease: not supported: graph user objects are not implemented yet */
int cudaUserObjectRelease()
{
    return rgpu_unsupported(RGPU_RUNTIME, "cudaUserObjectRelease");
}

/* cudaGraphRetainUserObject: not supported: graph user objects are not implemented yet */
int cudaGraphRetainUserObject()
{
    return rgpu_unsupported(RGPU_RUNTIME, "cudaGraphRetainUserObject");
}

/* cudaGraphReleaseUserObject: not supported: graph user objects are not implemented yet */
int cudaGraphReleaseUserObject()
{
    return rgpu_unsupported(RGPU_RUNTIME, "cudaGraphReleaseUserObject");
}

/* cudaGraphAddNode: not supported: the generic node-parameter union (cudaGraphNodeParams) is not mapped yet */
int cudaGraphAddNode()
{
    return rgpu_unsupported(RGPU_RUNTIME, "cudaGraphAddNode");
}

/* cudaGraphNodeSetParams: not supported: the generic node-parameter union (cudaGraphNodeParams) is not mapped yet */
int cudaGraphNodeSetParams()
{
    return rgpu_unsupported(RGPU_RUNTIME, "cudaGraphNodeSetParams");
}

/* cudaGraphExecNodeSetParams: not supported: the generic node-parameter union (cudaGraphNodeParams) is not mapped yet */
int cudaGraphExecNodeSetParams()
{
    return rgpu_unsupported(RGPU_RUNTIME, "cudaGraphExecNodeSetParams");
}

/* cudaGraphConditionalHandleCreate: not supported: conditional graph nodes are not implemented yet */
int cudaGraphConditionalHandleCreate()
{
    return rgpu_unsupported(RGPU_RUNTIME, "cudaGraphConditionalHandleCreate");
}

/* cudaLibraryGetManaged: not supported: managed variables of modules are not supported */
int cudaLibraryGetManaged()
{
    return rgpu_unsupported(RGPU_RUNTIME, "cudaLibraryGetManaged");
}

/* cudaLibraryGetUnifiedFunction: not supported: unified functions run on the host: not supported */
int cudaLibraryGetUnifiedFunction()
{
    return rgpu_unsupported(RGPU_RUNTIME, "cudaLibraryGetUnifiedFunction");
}

/* cudaKernelSetAttributeForDevice: forwarded */
int cudaKernelSetAttributeForDevice(void * kernel, int attr, int32_t value, int32_t device)
{
    rgpu_call c;
    rgpu_begin(&c, RGPU_ID_cudaKernelSetAttributeForDevice, "cudaKernelSetAttributeForDevice", RGPU_RUNTIME);
    rgpu_put_h(&c, kernel);
    rgpu_put_i(&c, (int64_t)attr);
    rgpu_put_i(&c, (int64_t)value);
    rgpu_put_d(&c, device);
    int rc = rgpu_sync(&c);
    rgpu_end(&c);
    return rc;
}
