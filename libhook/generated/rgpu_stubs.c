/* generated from CUDA 13.0 and protocol/contract by protocol/codegen — do not edit */
/* The forwarding stubs: every call whose record has no hand-written client code, and the
 * not-supported answer of every unsupported one. */
#include "rgpu_call.h"

/* cuDeviceGetLuid: forward (protocol/contract/calls/device.toml) */
CUresult cuDeviceGetLuid(char *luid, unsigned int *deviceNodeMask, CUdevice dev)
{
    rgpu_call c;
    if (luid == NULL && (8) != 0) return rgpu_invalid_value(RGPU_DRIVER);
    if (deviceNodeMask == NULL) return rgpu_invalid_value(RGPU_DRIVER);
    rgpu_begin(&c, RGPU_ID_cuDeviceGetLuid, "cuDeviceGetLuid", RGPU_DRIVER, RGPU_FLAGS_cuDeviceGetLuid);
    rgpu_put_d(&c, dev);
    int rc = rgpu_sync(&c);
    if (rc == 0) {
        rgpu_out_b(&c, luid, (size_t)(8) * sizeof *luid);
        *deviceNodeMask = (__typeof__(*deviceNodeMask))rgpu_out_u(&c);
    }
    rgpu_end(&c);
    return rc;
}

/* cuDeviceGetTexture1DLinearMaxWidth: forward (protocol/contract/calls/texture.toml) */
CUresult cuDeviceGetTexture1DLinearMaxWidth(size_t *maxWidthInElements, CUarray_format format, unsigned numChannels, CUdevice dev)
{
    rgpu_call c;
    if (maxWidthInElements == NULL) return rgpu_invalid_value(RGPU_DRIVER);
    rgpu_begin(&c, RGPU_ID_cuDeviceGetTexture1DLinearMaxWidth, "cuDeviceGetTexture1DLinearMaxWidth", RGPU_DRIVER, RGPU_FLAGS_cuDeviceGetTexture1DLinearMaxWidth);
    rgpu_put_i(&c, (int64_t)format);
    rgpu_put_u(&c, (uint64_t)numChannels);
    rgpu_put_d(&c, dev);
    int rc = rgpu_sync(&c);
    if (rc == 0) {
        *maxWidthInElements = (__typeof__(*maxWidthInElements))rgpu_out_u(&c);
    }
    rgpu_end(&c);
    return rc;
}

/* cuDeviceGetHostAtomicCapabilities: not supported: takes arrays of operations: not forwarded yet (protocol/contract/calls/memory.toml) */
CUresult cuDeviceGetHostAtomicCapabilities(unsigned int *capabilities, const CUatomicOperation *operations, unsigned int count, CUdevice dev)
{
    return rgpu_unsupported(RGPU_DRIVER, "cuDeviceGetHostAtomicCapabilities");
}

/* cuDeviceGetNvSciSyncAttributes: not supported: NvSciSync is not forwarded (protocol/contract/calls/interop.toml) */
CUresult cuDeviceGetNvSciSyncAttributes(void *nvSciSyncAttrList, CUdevice dev, int flags)
{
    return rgpu_unsupported(RGPU_DRIVER, "cuDeviceGetNvSciSyncAttributes");
}

/* cuDeviceSetMemPool: forward (protocol/contract/calls/vmm.toml) */
CUresult cuDeviceSetMemPool(CUdevice dev, CUmemoryPool pool)
{
    rgpu_call c;
    rgpu_begin(&c, RGPU_ID_cuDeviceSetMemPool, "cuDeviceSetMemPool", RGPU_DRIVER, RGPU_FLAGS_cuDeviceSetMemPool);
    rgpu_put_d(&c, dev);
    rgpu_put_h(&c, pool);
    int rc = rgpu_sync(&c);
    rgpu_end(&c);
    return rc;
}

/* cuDeviceGetMemPool: forward (protocol/contract/calls/vmm.toml) */
CUresult cuDeviceGetMemPool(CUmemoryPool *pool, CUdevice dev)
{
    rgpu_call c;
    if (pool == NULL) return rgpu_invalid_value(RGPU_DRIVER);
    rgpu_begin(&c, RGPU_ID_cuDeviceGetMemPool, "cuDeviceGetMemPool", RGPU_DRIVER, RGPU_FLAGS_cuDeviceGetMemPool);
    rgpu_put_d(&c, dev);
    int rc = rgpu_sync(&c);
    if (rc == 0) {
        *pool = (__typeof__(*pool))rgpu_out_h(&c);
    }
    rgpu_end(&c);
    return rc;
}

/* cuDeviceGetDefaultMemPool: forward (protocol/contract/calls/vmm.toml) */
CUresult cuDeviceGetDefaultMemPool(CUmemoryPool *pool_out, CUdevice dev)
{
    rgpu_call c;
    if (pool_out == NULL) return rgpu_invalid_value(RGPU_DRIVER);
    rgpu_begin(&c, RGPU_ID_cuDeviceGetDefaultMemPool, "cuDeviceGetDefaultMemPool", RGPU_DRIVER, RGPU_FLAGS_cuDeviceGetDefaultMemPool);
    rgpu_put_d(&c, dev);
    int rc = rgpu_sync(&c);
    if (rc == 0) {
        *pool_out = (__typeof__(*pool_out))rgpu_out_h(&c);
    }
    rgpu_end(&c);
    return rc;
}

/* cuDeviceGetExecAffinitySupport: forward (protocol/contract/calls/context.toml) */
CUresult cuDeviceGetExecAffinitySupport(int *pi, CUexecAffinityType type, CUdevice dev)
{
    rgpu_call c;
    if (pi == NULL) return rgpu_invalid_value(RGPU_DRIVER);
    rgpu_begin(&c, RGPU_ID_cuDeviceGetExecAffinitySupport, "cuDeviceGetExecAffinitySupport", RGPU_DRIVER, RGPU_FLAGS_cuDeviceGetExecAffinitySupport);
    rgpu_put_i(&c, (int64_t)type);
    rgpu_put_d(&c, dev);
    int rc = rgpu_sync(&c);
    if (rc == 0) {
        *pi = (__typeof__(*pi))rgpu_out_i(&c);
    }
    rgpu_end(&c);
    return rc;
}

/* cuFlushGPUDirectRDMAWrites: forward (protocol/contract/calls/context.toml) */
CUresult cuFlushGPUDirectRDMAWrites(CUflushGPUDirectRDMAWritesTarget target, CUflushGPUDirectRDMAWritesScope scope)
{
    rgpu_call c;
    rgpu_begin(&c, RGPU_ID_cuFlushGPUDirectRDMAWrites, "cuFlushGPUDirectRDMAWrites", RGPU_DRIVER, RGPU_FLAGS_cuFlushGPUDirectRDMAWrites);
    rgpu_put_i(&c, (int64_t)target);
    rgpu_put_i(&c, (int64_t)scope);
    int rc = rgpu_sync(&c);
    rgpu_end(&c);
    return rc;
}

/* cuDeviceGetProperties: forward (protocol/contract/calls/device.toml) */
CUresult cuDeviceGetProperties(CUdevprop *prop, CUdevice dev)
{
    rgpu_call c;
    if (prop == NULL) return rgpu_invalid_value(RGPU_DRIVER);
    rgpu_begin(&c, RGPU_ID_cuDeviceGetProperties, "cuDeviceGetProperties", RGPU_DRIVER, RGPU_FLAGS_cuDeviceGetProperties);
    rgpu_put_d(&c, dev);
    int rc = rgpu_sync(&c);
    if (rc == 0) {
        rgpu_out_b(&c, prop, sizeof *prop);
    }
    rgpu_end(&c);
    return rc;
}

/* cuCtxSynchronize: forward (protocol/contract/calls/context.toml) */
CUresult cuCtxSynchronize(void)
{
    rgpu_call c;
    rgpu_begin(&c, RGPU_ID_cuCtxSynchronize, "cuCtxSynchronize", RGPU_DRIVER, RGPU_FLAGS_cuCtxSynchronize);
    int rc = rgpu_sync(&c);
    rgpu_end(&c);
    return rc;
}

/* cuCtxSetLimit: forward (protocol/contract/calls/context.toml) */
CUresult cuCtxSetLimit(CUlimit limit, size_t value)
{
    rgpu_call c;
    rgpu_begin(&c, RGPU_ID_cuCtxSetLimit, "cuCtxSetLimit", RGPU_DRIVER, RGPU_FLAGS_cuCtxSetLimit);
    rgpu_put_i(&c, (int64_t)limit);
    rgpu_put_u(&c, (uint64_t)value);
    int rc = rgpu_sync(&c);
    rgpu_end(&c);
    return rc;
}

/* cuCtxGetCacheConfig: forward (protocol/contract/calls/context.toml) */
CUresult cuCtxGetCacheConfig(CUfunc_cache *pconfig)
{
    rgpu_call c;
    if (pconfig == NULL) return rgpu_invalid_value(RGPU_DRIVER);
    rgpu_begin(&c, RGPU_ID_cuCtxGetCacheConfig, "cuCtxGetCacheConfig", RGPU_DRIVER, RGPU_FLAGS_cuCtxGetCacheConfig);
    int rc = rgpu_sync(&c);
    if (rc == 0) {
        *pconfig = (__typeof__(*pconfig))rgpu_out_i(&c);
    }
    rgpu_end(&c);
    return rc;
}

/* cuCtxSetCacheConfig: forward (protocol/contract/calls/context.toml) */
CUresult cuCtxSetCacheConfig(CUfunc_cache config)
{
    rgpu_call c;
    rgpu_begin(&c, RGPU_ID_cuCtxSetCacheConfig, "cuCtxSetCacheConfig", RGPU_DRIVER, RGPU_FLAGS_cuCtxSetCacheConfig);
    rgpu_put_i(&c, (int64_t)config);
    int rc = rgpu_sync(&c);
    rgpu_end(&c);
    return rc;
}

/* cuCtxGetStreamPriorityRange: forward (protocol/contract/calls/stream.toml) */
CUresult cuCtxGetStreamPriorityRange(int *leastPriority, int *greatestPriority)
{
    rgpu_call c;
    if (leastPriority == NULL) return rgpu_invalid_value(RGPU_DRIVER);
    if (greatestPriority == NULL) return rgpu_invalid_value(RGPU_DRIVER);
    rgpu_begin(&c, RGPU_ID_cuCtxGetStreamPriorityRange, "cuCtxGetStreamPriorityRange", RGPU_DRIVER, RGPU_FLAGS_cuCtxGetStreamPriorityRange);
    int rc = rgpu_sync(&c);
    if (rc == 0) {
        *leastPriority = (__typeof__(*leastPriority))rgpu_out_i(&c);
        *greatestPriority = (__typeof__(*greatestPriority))rgpu_out_i(&c);
    }
    rgpu_end(&c);
    return rc;
}

/* cuCtxResetPersistingL2Cache: forward (protocol/contract/calls/context.toml) */
CUresult cuCtxResetPersistingL2Cache(void)
{
    rgpu_call c;
    rgpu_begin(&c, RGPU_ID_cuCtxResetPersistingL2Cache, "cuCtxResetPersistingL2Cache", RGPU_DRIVER, RGPU_FLAGS_cuCtxResetPersistingL2Cache);
    int rc = rgpu_sync(&c);
    rgpu_end(&c);
    return rc;
}

/* cuCtxGetExecAffinity: forward (protocol/contract/calls/context.toml) */
CUresult cuCtxGetExecAffinity(CUexecAffinityParam *pExecAffinity, CUexecAffinityType type)
{
    rgpu_call c;
    if (pExecAffinity == NULL) return rgpu_invalid_value(RGPU_DRIVER);
    rgpu_begin(&c, RGPU_ID_cuCtxGetExecAffinity, "cuCtxGetExecAffinity", RGPU_DRIVER, RGPU_FLAGS_cuCtxGetExecAffinity);
    rgpu_put_i(&c, (int64_t)type);
    int rc = rgpu_sync(&c);
    if (rc == 0) {
        rgpu_out_b(&c, pExecAffinity, sizeof *pExecAffinity);
    }
    rgpu_end(&c);
    return rc;
}

/* cuCtxAttach: not supported: deprecated context API (protocol/contract/calls/context.toml) */
CUresult cuCtxAttach(CUcontext *pctx, unsigned int flags)
{
    return rgpu_unsupported(RGPU_DRIVER, "cuCtxAttach");
}

/* cuCtxDetach: not supported: deprecated context API (protocol/contract/calls/context.toml) */
CUresult cuCtxDetach(CUcontext ctx)
{
    return rgpu_unsupported(RGPU_DRIVER, "cuCtxDetach");
}

/* cuCtxGetSharedMemConfig: forward (protocol/contract/calls/memory.toml) */
CUresult cuCtxGetSharedMemConfig(CUsharedconfig *pConfig)
{
    rgpu_call c;
    if (pConfig == NULL) return rgpu_invalid_value(RGPU_DRIVER);
    rgpu_begin(&c, RGPU_ID_cuCtxGetSharedMemConfig, "cuCtxGetSharedMemConfig", RGPU_DRIVER, RGPU_FLAGS_cuCtxGetSharedMemConfig);
    int rc = rgpu_sync(&c);
    if (rc == 0) {
        *pConfig = (__typeof__(*pConfig))rgpu_out_i(&c);
    }
    rgpu_end(&c);
    return rc;
}

/* cuCtxSetSharedMemConfig: forward (protocol/contract/calls/memory.toml) */
CUresult cuCtxSetSharedMemConfig(CUsharedconfig config)
{
    rgpu_call c;
    rgpu_begin(&c, RGPU_ID_cuCtxSetSharedMemConfig, "cuCtxSetSharedMemConfig", RGPU_DRIVER, RGPU_FLAGS_cuCtxSetSharedMemConfig);
    rgpu_put_i(&c, (int64_t)config);
    int rc = rgpu_sync(&c);
    rgpu_end(&c);
    return rc;
}

/* cuModuleUnload: forward (protocol/contract/calls/module.toml) */
CUresult cuModuleUnload(CUmodule hmod)
{
    rgpu_call c;
    rgpu_begin(&c, RGPU_ID_cuModuleUnload, "cuModuleUnload", RGPU_DRIVER, RGPU_FLAGS_cuModuleUnload);
    rgpu_put_h(&c, hmod);
    int rc = rgpu_sync(&c);
    rgpu_end(&c);
    return rc;
}

/* cuModuleGetFunction: forward (protocol/contract/calls/module.toml) */
CUresult cuModuleGetFunction(CUfunction *hfunc, CUmodule hmod, const char *name)
{
    rgpu_call c;
    if (hfunc == NULL) return rgpu_invalid_value(RGPU_DRIVER);
    rgpu_begin(&c, RGPU_ID_cuModuleGetFunction, "cuModuleGetFunction", RGPU_DRIVER, RGPU_FLAGS_cuModuleGetFunction);
    rgpu_put_h(&c, hmod);
    rgpu_put_s(&c, name);
    int rc = rgpu_sync(&c);
    if (rc == 0) {
        *hfunc = (__typeof__(*hfunc))rgpu_out_h(&c);
    }
    rgpu_end(&c);
    return rc;
}

/* cuModuleGetFunctionCount: forward (protocol/contract/calls/module.toml) */
CUresult cuModuleGetFunctionCount(unsigned int *count, CUmodule mod)
{
    rgpu_call c;
    if (count == NULL) return rgpu_invalid_value(RGPU_DRIVER);
    rgpu_begin(&c, RGPU_ID_cuModuleGetFunctionCount, "cuModuleGetFunctionCount", RGPU_DRIVER, RGPU_FLAGS_cuModuleGetFunctionCount);
    rgpu_put_h(&c, mod);
    int rc = rgpu_sync(&c);
    if (rc == 0) {
        *count = (__typeof__(*count))rgpu_out_u(&c);
    }
    rgpu_end(&c);
    return rc;
}

/* cuModuleEnumerateFunctions: forward (protocol/contract/calls/module.toml) */
CUresult cuModuleEnumerateFunctions(CUfunction *functions, unsigned int numFunctions, CUmodule mod)
{
    rgpu_call c;
    if (functions == NULL && (numFunctions) != 0) return rgpu_invalid_value(RGPU_DRIVER);
    rgpu_begin(&c, RGPU_ID_cuModuleEnumerateFunctions, "cuModuleEnumerateFunctions", RGPU_DRIVER, RGPU_FLAGS_cuModuleEnumerateFunctions);
    rgpu_put_u(&c, (uint64_t)numFunctions);
    rgpu_put_h(&c, mod);
    int rc = rgpu_sync(&c);
    if (rc == 0) {
        rgpu_out_ha(&c, (void **)functions, (size_t)(numFunctions));
    }
    rgpu_end(&c);
    return rc;
}

/* cuModuleGetGlobal_v2: forward (protocol/contract/calls/module.toml) */
CUresult cuModuleGetGlobal_v2(CUdeviceptr *dptr, size_t *bytes, CUmodule hmod, const char *name)
{
    rgpu_call c;
    rgpu_begin(&c, RGPU_ID_cuModuleGetGlobal_v2, "cuModuleGetGlobal_v2", RGPU_DRIVER, RGPU_FLAGS_cuModuleGetGlobal_v2);
    rgpu_put_h(&c, hmod);
    rgpu_put_s(&c, name);
    int rc = rgpu_sync(&c);
    if (rc == 0) {
        if (dptr != NULL) *dptr = (__typeof__(*dptr))rgpu_out_u(&c); else (void)rgpu_out_u(&c);
        if (bytes != NULL) *bytes = (__typeof__(*bytes))rgpu_out_u(&c); else (void)rgpu_out_u(&c);
    }
    rgpu_end(&c);
    return rc;
}

/* cuModuleGetTexRef: not supported: texture and surface references were removed from CUDA 12's runtime; texture and surface objects are served (protocol/contract/calls/texture.toml) */
CUresult cuModuleGetTexRef(CUtexref *pTexRef, CUmodule hmod, const char *name)
{
    return rgpu_unsupported(RGPU_DRIVER, "cuModuleGetTexRef");
}

/* cuModuleGetSurfRef: not supported: texture and surface references were removed from CUDA 12's runtime; texture and surface objects are served (protocol/contract/calls/texture.toml) */
CUresult cuModuleGetSurfRef(CUsurfref *pSurfRef, CUmodule hmod, const char *name)
{
    return rgpu_unsupported(RGPU_DRIVER, "cuModuleGetSurfRef");
}

/* cuLibraryGetUnifiedFunction: not supported: unified functions run on the host: not supported (protocol/contract/calls/module.toml) */
CUresult cuLibraryGetUnifiedFunction(void **fptr, CUlibrary library, const char *symbol)
{
    return rgpu_unsupported(RGPU_DRIVER, "cuLibraryGetUnifiedFunction");
}

/* cuMemGetInfo_v2: forward (protocol/contract/calls/memory.toml) */
CUresult cuMemGetInfo_v2(size_t *free, size_t *total)
{
    rgpu_call c;
    if (free == NULL) return rgpu_invalid_value(RGPU_DRIVER);
    if (total == NULL) return rgpu_invalid_value(RGPU_DRIVER);
    rgpu_begin(&c, RGPU_ID_cuMemGetInfo_v2, "cuMemGetInfo_v2", RGPU_DRIVER, RGPU_FLAGS_cuMemGetInfo_v2);
    int rc = rgpu_sync(&c);
    if (rc == 0) {
        *free = (__typeof__(*free))rgpu_out_u(&c);
        *total = (__typeof__(*total))rgpu_out_u(&c);
    }
    rgpu_end(&c);
    return rc;
}

/* cuMemGetAddressRange_v2: forward (protocol/contract/calls/memory.toml) */
CUresult cuMemGetAddressRange_v2(CUdeviceptr *pbase, size_t *psize, CUdeviceptr dptr)
{
    rgpu_call c;
    if (pbase == NULL) return rgpu_invalid_value(RGPU_DRIVER);
    if (psize == NULL) return rgpu_invalid_value(RGPU_DRIVER);
    rgpu_begin(&c, RGPU_ID_cuMemGetAddressRange_v2, "cuMemGetAddressRange_v2", RGPU_DRIVER, RGPU_FLAGS_cuMemGetAddressRange_v2);
    rgpu_put_u(&c, (uint64_t)dptr);
    int rc = rgpu_sync(&c);
    if (rc == 0) {
        *pbase = (__typeof__(*pbase))rgpu_out_u(&c);
        *psize = (__typeof__(*psize))rgpu_out_u(&c);
    }
    rgpu_end(&c);
    return rc;
}

/* cuDeviceRegisterAsyncNotification: not supported: host callbacks are not forwarded yet (protocol/contract/calls/device.toml) */
CUresult cuDeviceRegisterAsyncNotification(CUdevice device, CUasyncCallback callbackFunc, void *userData, CUasyncCallbackHandle *callback)
{
    return rgpu_unsupported(RGPU_DRIVER, "cuDeviceRegisterAsyncNotification");
}

/* cuDeviceUnregisterAsyncNotification: not supported: host callbacks are not forwarded yet (protocol/contract/calls/device.toml) */
CUresult cuDeviceUnregisterAsyncNotification(CUdevice device, CUasyncCallbackHandle callback)
{
    return rgpu_unsupported(RGPU_DRIVER, "cuDeviceUnregisterAsyncNotification");
}

/* cuIpcGetEventHandle: forward (protocol/contract/calls/interop.toml) */
CUresult cuIpcGetEventHandle(CUipcEventHandle *pHandle, CUevent event)
{
    rgpu_call c;
    if (pHandle == NULL) return rgpu_invalid_value(RGPU_DRIVER);
    rgpu_begin(&c, RGPU_ID_cuIpcGetEventHandle, "cuIpcGetEventHandle", RGPU_DRIVER, RGPU_FLAGS_cuIpcGetEventHandle);
    rgpu_put_h(&c, event);
    int rc = rgpu_sync(&c);
    if (rc == 0) {
        rgpu_out_b(&c, pHandle, sizeof *pHandle);
    }
    rgpu_end(&c);
    return rc;
}

/* cuIpcOpenEventHandle: forward (protocol/contract/calls/interop.toml) */
CUresult cuIpcOpenEventHandle(CUevent *phEvent, CUipcEventHandle handle)
{
    rgpu_call c;
    if (phEvent == NULL) return rgpu_invalid_value(RGPU_DRIVER);
    rgpu_begin(&c, RGPU_ID_cuIpcOpenEventHandle, "cuIpcOpenEventHandle", RGPU_DRIVER, RGPU_FLAGS_cuIpcOpenEventHandle);
    rgpu_put_b(&c, &handle, sizeof handle);
    int rc = rgpu_sync(&c);
    if (rc == 0) {
        *phEvent = (__typeof__(*phEvent))rgpu_out_h(&c);
    }
    rgpu_end(&c);
    return rc;
}

/* cuIpcGetMemHandle: forward (protocol/contract/calls/interop.toml) */
CUresult cuIpcGetMemHandle(CUipcMemHandle *pHandle, CUdeviceptr dptr)
{
    rgpu_call c;
    if (pHandle == NULL) return rgpu_invalid_value(RGPU_DRIVER);
    rgpu_begin(&c, RGPU_ID_cuIpcGetMemHandle, "cuIpcGetMemHandle", RGPU_DRIVER, RGPU_FLAGS_cuIpcGetMemHandle);
    rgpu_put_u(&c, (uint64_t)dptr);
    int rc = rgpu_sync(&c);
    if (rc == 0) {
        rgpu_out_b(&c, pHandle, sizeof *pHandle);
    }
    rgpu_end(&c);
    return rc;
}

/* cuIpcOpenMemHandle_v2: forward (protocol/contract/calls/interop.toml) */
CUresult cuIpcOpenMemHandle_v2(CUdeviceptr *pdptr, CUipcMemHandle handle, unsigned int Flags)
{
    rgpu_call c;
    if (pdptr == NULL) return rgpu_invalid_value(RGPU_DRIVER);
    rgpu_begin(&c, RGPU_ID_cuIpcOpenMemHandle_v2, "cuIpcOpenMemHandle_v2", RGPU_DRIVER, RGPU_FLAGS_cuIpcOpenMemHandle_v2);
    rgpu_put_b(&c, &handle, sizeof handle);
    rgpu_put_u(&c, (uint64_t)Flags);
    int rc = rgpu_sync(&c);
    if (rc == 0) {
        *pdptr = (__typeof__(*pdptr))rgpu_out_u(&c);
    }
    rgpu_end(&c);
    return rc;
}

/* cuIpcCloseMemHandle: forward (protocol/contract/calls/interop.toml) */
CUresult cuIpcCloseMemHandle(CUdeviceptr dptr)
{
    rgpu_call c;
    rgpu_begin(&c, RGPU_ID_cuIpcCloseMemHandle, "cuIpcCloseMemHandle", RGPU_DRIVER, RGPU_FLAGS_cuIpcCloseMemHandle);
    rgpu_put_u(&c, (uint64_t)dptr);
    int rc = rgpu_sync(&c);
    rgpu_end(&c);
    return rc;
}

/* cuMemcpyDtoD_v2: forward (protocol/contract/calls/memory.toml) */
CUresult cuMemcpyDtoD_v2(CUdeviceptr dstDevice, CUdeviceptr srcDevice, size_t ByteCount)
{
    rgpu_call c;
    rgpu_begin(&c, RGPU_ID_cuMemcpyDtoD_v2, "cuMemcpyDtoD_v2", RGPU_DRIVER, RGPU_FLAGS_cuMemcpyDtoD_v2);
    rgpu_put_u(&c, (uint64_t)dstDevice);
    rgpu_put_u(&c, (uint64_t)srcDevice);
    rgpu_put_u(&c, (uint64_t)ByteCount);
    int rc = rgpu_sync(&c);
    rgpu_end(&c);
    return rc;
}

/* cuMemcpyDtoA_v2: forward (protocol/contract/calls/memory.toml) */
CUresult cuMemcpyDtoA_v2(CUarray dstArray, size_t dstOffset, CUdeviceptr srcDevice, size_t ByteCount)
{
    rgpu_call c;
    { int crc = rgpu_capture_guard(RGPU_DRIVER, NULL, 1); if (crc) return crc; }
    rgpu_begin(&c, RGPU_ID_cuMemcpyDtoA_v2, "cuMemcpyDtoA_v2", RGPU_DRIVER, RGPU_FLAGS_cuMemcpyDtoA_v2);
    rgpu_put_h(&c, dstArray);
    rgpu_put_u(&c, (uint64_t)dstOffset);
    rgpu_put_u(&c, (uint64_t)srcDevice);
    rgpu_put_u(&c, (uint64_t)ByteCount);
    int rc = rgpu_sync(&c);
    rgpu_end(&c);
    return rc;
}

/* cuMemcpyAtoD_v2: forward (protocol/contract/calls/memory.toml) */
CUresult cuMemcpyAtoD_v2(CUdeviceptr dstDevice, CUarray srcArray, size_t srcOffset, size_t ByteCount)
{
    rgpu_call c;
    { int crc = rgpu_capture_guard(RGPU_DRIVER, NULL, 1); if (crc) return crc; }
    rgpu_begin(&c, RGPU_ID_cuMemcpyAtoD_v2, "cuMemcpyAtoD_v2", RGPU_DRIVER, RGPU_FLAGS_cuMemcpyAtoD_v2);
    rgpu_put_u(&c, (uint64_t)dstDevice);
    rgpu_put_h(&c, srcArray);
    rgpu_put_u(&c, (uint64_t)srcOffset);
    rgpu_put_u(&c, (uint64_t)ByteCount);
    int rc = rgpu_sync(&c);
    rgpu_end(&c);
    return rc;
}

/* cuMemcpyAtoA_v2: forward (protocol/contract/calls/memory.toml) */
CUresult cuMemcpyAtoA_v2(CUarray dstArray, size_t dstOffset, CUarray srcArray, size_t srcOffset, size_t ByteCount)
{
    rgpu_call c;
    { int crc = rgpu_capture_guard(RGPU_DRIVER, NULL, 1); if (crc) return crc; }
    rgpu_begin(&c, RGPU_ID_cuMemcpyAtoA_v2, "cuMemcpyAtoA_v2", RGPU_DRIVER, RGPU_FLAGS_cuMemcpyAtoA_v2);
    rgpu_put_h(&c, dstArray);
    rgpu_put_u(&c, (uint64_t)dstOffset);
    rgpu_put_h(&c, srcArray);
    rgpu_put_u(&c, (uint64_t)srcOffset);
    rgpu_put_u(&c, (uint64_t)ByteCount);
    int rc = rgpu_sync(&c);
    rgpu_end(&c);
    return rc;
}

/* cuMemcpyDtoDAsync_v2: forward (async) (protocol/contract/calls/memory.toml) */
CUresult cuMemcpyDtoDAsync_v2(CUdeviceptr dstDevice, CUdeviceptr srcDevice, size_t ByteCount, CUstream hStream)
{
    rgpu_call c;
    { int crc; if (rgpu_capture_cuMemcpyDtoDAsync_v2(&crc, dstDevice, srcDevice, ByteCount, hStream)) return crc; }
    rgpu_begin(&c, RGPU_ID_cuMemcpyDtoDAsync_v2, "cuMemcpyDtoDAsync_v2", RGPU_DRIVER, RGPU_FLAGS_cuMemcpyDtoDAsync_v2);
    rgpu_put_u(&c, (uint64_t)dstDevice);
    rgpu_put_u(&c, (uint64_t)srcDevice);
    rgpu_put_u(&c, (uint64_t)ByteCount);
    rgpu_put_h(&c, hStream);
    return rgpu_async(&c);
}

/* cuMemsetD8_v2: forward (protocol/contract/calls/memory.toml) */
CUresult cuMemsetD8_v2(CUdeviceptr dstDevice, unsigned char uc, size_t N)
{
    rgpu_call c;
    { int crc = rgpu_capture_guard(RGPU_DRIVER, NULL, 1); if (crc) return crc; }
    rgpu_begin(&c, RGPU_ID_cuMemsetD8_v2, "cuMemsetD8_v2", RGPU_DRIVER, RGPU_FLAGS_cuMemsetD8_v2);
    rgpu_put_u(&c, (uint64_t)dstDevice);
    rgpu_put_u(&c, (uint64_t)uc);
    rgpu_put_u(&c, (uint64_t)N);
    int rc = rgpu_sync(&c);
    rgpu_end(&c);
    return rc;
}

/* cuMemsetD16_v2: forward (protocol/contract/calls/memory.toml) */
CUresult cuMemsetD16_v2(CUdeviceptr dstDevice, unsigned short us, size_t N)
{
    rgpu_call c;
    { int crc = rgpu_capture_guard(RGPU_DRIVER, NULL, 1); if (crc) return crc; }
    rgpu_begin(&c, RGPU_ID_cuMemsetD16_v2, "cuMemsetD16_v2", RGPU_DRIVER, RGPU_FLAGS_cuMemsetD16_v2);
    rgpu_put_u(&c, (uint64_t)dstDevice);
    rgpu_put_u(&c, (uint64_t)us);
    rgpu_put_u(&c, (uint64_t)N);
    int rc = rgpu_sync(&c);
    rgpu_end(&c);
    return rc;
}

/* cuMemsetD32_v2: forward (protocol/contract/calls/memory.toml) */
CUresult cuMemsetD32_v2(CUdeviceptr dstDevice, unsigned int ui, size_t N)
{
    rgpu_call c;
    { int crc = rgpu_capture_guard(RGPU_DRIVER, NULL, 1); if (crc) return crc; }
    rgpu_begin(&c, RGPU_ID_cuMemsetD32_v2, "cuMemsetD32_v2", RGPU_DRIVER, RGPU_FLAGS_cuMemsetD32_v2);
    rgpu_put_u(&c, (uint64_t)dstDevice);
    rgpu_put_u(&c, (uint64_t)ui);
    rgpu_put_u(&c, (uint64_t)N);
    int rc = rgpu_sync(&c);
    rgpu_end(&c);
    return rc;
}

/* cuMemsetD2D8_v2: forward (protocol/contract/calls/memory.toml) */
CUresult cuMemsetD2D8_v2(CUdeviceptr dstDevice, size_t dstPitch, unsigned char uc, size_t Width, size_t Height)
{
    rgpu_call c;
    { int crc = rgpu_capture_guard(RGPU_DRIVER, NULL, 1); if (crc) return crc; }
    rgpu_begin(&c, RGPU_ID_cuMemsetD2D8_v2, "cuMemsetD2D8_v2", RGPU_DRIVER, RGPU_FLAGS_cuMemsetD2D8_v2);
    rgpu_put_u(&c, (uint64_t)dstDevice);
    rgpu_put_u(&c, (uint64_t)dstPitch);
    rgpu_put_u(&c, (uint64_t)uc);
    rgpu_put_u(&c, (uint64_t)Width);
    rgpu_put_u(&c, (uint64_t)Height);
    int rc = rgpu_sync(&c);
    rgpu_end(&c);
    return rc;
}

/* cuMemsetD2D16_v2: forward (protocol/contract/calls/memory.toml) */
CUresult cuMemsetD2D16_v2(CUdeviceptr dstDevice, size_t dstPitch, unsigned short us, size_t Width, size_t Height)
{
    rgpu_call c;
    { int crc = rgpu_capture_guard(RGPU_DRIVER, NULL, 1); if (crc) return crc; }
    rgpu_begin(&c, RGPU_ID_cuMemsetD2D16_v2, "cuMemsetD2D16_v2", RGPU_DRIVER, RGPU_FLAGS_cuMemsetD2D16_v2);
    rgpu_put_u(&c, (uint64_t)dstDevice);
    rgpu_put_u(&c, (uint64_t)dstPitch);
    rgpu_put_u(&c, (uint64_t)us);
    rgpu_put_u(&c, (uint64_t)Width);
    rgpu_put_u(&c, (uint64_t)Height);
    int rc = rgpu_sync(&c);
    rgpu_end(&c);
    return rc;
}

/* cuMemsetD2D32_v2: forward (protocol/contract/calls/memory.toml) */
CUresult cuMemsetD2D32_v2(CUdeviceptr dstDevice, size_t dstPitch, unsigned int ui, size_t Width, size_t Height)
{
    rgpu_call c;
    { int crc = rgpu_capture_guard(RGPU_DRIVER, NULL, 1); if (crc) return crc; }
    rgpu_begin(&c, RGPU_ID_cuMemsetD2D32_v2, "cuMemsetD2D32_v2", RGPU_DRIVER, RGPU_FLAGS_cuMemsetD2D32_v2);
    rgpu_put_u(&c, (uint64_t)dstDevice);
    rgpu_put_u(&c, (uint64_t)dstPitch);
    rgpu_put_u(&c, (uint64_t)ui);
    rgpu_put_u(&c, (uint64_t)Width);
    rgpu_put_u(&c, (uint64_t)Height);
    int rc = rgpu_sync(&c);
    rgpu_end(&c);
    return rc;
}

/* cuMemsetD8Async: forward (async) (protocol/contract/calls/memory.toml) */
CUresult cuMemsetD8Async(CUdeviceptr dstDevice, unsigned char uc, size_t N, CUstream hStream)
{
    rgpu_call c;
    { int crc; if (rgpu_capture_cuMemsetD8Async(&crc, dstDevice, uc, N, hStream)) return crc; }
    rgpu_begin(&c, RGPU_ID_cuMemsetD8Async, "cuMemsetD8Async", RGPU_DRIVER, RGPU_FLAGS_cuMemsetD8Async);
    rgpu_put_u(&c, (uint64_t)dstDevice);
    rgpu_put_u(&c, (uint64_t)uc);
    rgpu_put_u(&c, (uint64_t)N);
    rgpu_put_h(&c, hStream);
    return rgpu_async(&c);
}

/* cuMemsetD16Async: forward (async) (protocol/contract/calls/memory.toml) */
CUresult cuMemsetD16Async(CUdeviceptr dstDevice, unsigned short us, size_t N, CUstream hStream)
{
    rgpu_call c;
    { int crc; if (rgpu_capture_cuMemsetD16Async(&crc, dstDevice, us, N, hStream)) return crc; }
    rgpu_begin(&c, RGPU_ID_cuMemsetD16Async, "cuMemsetD16Async", RGPU_DRIVER, RGPU_FLAGS_cuMemsetD16Async);
    rgpu_put_u(&c, (uint64_t)dstDevice);
    rgpu_put_u(&c, (uint64_t)us);
    rgpu_put_u(&c, (uint64_t)N);
    rgpu_put_h(&c, hStream);
    return rgpu_async(&c);
}

/* cuMemsetD32Async: forward (async) (protocol/contract/calls/memory.toml) */
CUresult cuMemsetD32Async(CUdeviceptr dstDevice, unsigned int ui, size_t N, CUstream hStream)
{
    rgpu_call c;
    { int crc; if (rgpu_capture_cuMemsetD32Async(&crc, dstDevice, ui, N, hStream)) return crc; }
    rgpu_begin(&c, RGPU_ID_cuMemsetD32Async, "cuMemsetD32Async", RGPU_DRIVER, RGPU_FLAGS_cuMemsetD32Async);
    rgpu_put_u(&c, (uint64_t)dstDevice);
    rgpu_put_u(&c, (uint64_t)ui);
    rgpu_put_u(&c, (uint64_t)N);
    rgpu_put_h(&c, hStream);
    return rgpu_async(&c);
}

/* cuMemsetD2D8Async: forward (async) (protocol/contract/calls/memory.toml) */
CUresult cuMemsetD2D8Async(CUdeviceptr dstDevice, size_t dstPitch, unsigned char uc, size_t Width, size_t Height, CUstream hStream)
{
    rgpu_call c;
    { int crc; if (rgpu_capture_cuMemsetD2D8Async(&crc, dstDevice, dstPitch, uc, Width, Height, hStream)) return crc; }
    rgpu_begin(&c, RGPU_ID_cuMemsetD2D8Async, "cuMemsetD2D8Async", RGPU_DRIVER, RGPU_FLAGS_cuMemsetD2D8Async);
    rgpu_put_u(&c, (uint64_t)dstDevice);
    rgpu_put_u(&c, (uint64_t)dstPitch);
    rgpu_put_u(&c, (uint64_t)uc);
    rgpu_put_u(&c, (uint64_t)Width);
    rgpu_put_u(&c, (uint64_t)Height);
    rgpu_put_h(&c, hStream);
    return rgpu_async(&c);
}

/* cuMemsetD2D16Async: forward (async) (protocol/contract/calls/memory.toml) */
CUresult cuMemsetD2D16Async(CUdeviceptr dstDevice, size_t dstPitch, unsigned short us, size_t Width, size_t Height, CUstream hStream)
{
    rgpu_call c;
    { int crc; if (rgpu_capture_cuMemsetD2D16Async(&crc, dstDevice, dstPitch, us, Width, Height, hStream)) return crc; }
    rgpu_begin(&c, RGPU_ID_cuMemsetD2D16Async, "cuMemsetD2D16Async", RGPU_DRIVER, RGPU_FLAGS_cuMemsetD2D16Async);
    rgpu_put_u(&c, (uint64_t)dstDevice);
    rgpu_put_u(&c, (uint64_t)dstPitch);
    rgpu_put_u(&c, (uint64_t)us);
    rgpu_put_u(&c, (uint64_t)Width);
    rgpu_put_u(&c, (uint64_t)Height);
    rgpu_put_h(&c, hStream);
    return rgpu_async(&c);
}

/* cuMemsetD2D32Async: forward (async) (protocol/contract/calls/memory.toml) */
CUresult cuMemsetD2D32Async(CUdeviceptr dstDevice, size_t dstPitch, unsigned int ui, size_t Width, size_t Height, CUstream hStream)
{
    rgpu_call c;
    { int crc; if (rgpu_capture_cuMemsetD2D32Async(&crc, dstDevice, dstPitch, ui, Width, Height, hStream)) return crc; }
    rgpu_begin(&c, RGPU_ID_cuMemsetD2D32Async, "cuMemsetD2D32Async", RGPU_DRIVER, RGPU_FLAGS_cuMemsetD2D32Async);
    rgpu_put_u(&c, (uint64_t)dstDevice);
    rgpu_put_u(&c, (uint64_t)dstPitch);
    rgpu_put_u(&c, (uint64_t)ui);
    rgpu_put_u(&c, (uint64_t)Width);
    rgpu_put_u(&c, (uint64_t)Height);
    rgpu_put_h(&c, hStream);
    return rgpu_async(&c);
}

/* cuArrayGetDescriptor_v2: forward (protocol/contract/calls/texture.toml) */
CUresult cuArrayGetDescriptor_v2(CUDA_ARRAY_DESCRIPTOR *pArrayDescriptor, CUarray hArray)
{
    rgpu_call c;
    if (pArrayDescriptor == NULL) return rgpu_invalid_value(RGPU_DRIVER);
    rgpu_begin(&c, RGPU_ID_cuArrayGetDescriptor_v2, "cuArrayGetDescriptor_v2", RGPU_DRIVER, RGPU_FLAGS_cuArrayGetDescriptor_v2);
    rgpu_put_h(&c, hArray);
    int rc = rgpu_sync(&c);
    if (rc == 0) {
        rgpu_out_b(&c, pArrayDescriptor, sizeof *pArrayDescriptor);
    }
    rgpu_end(&c);
    return rc;
}

/* cuArrayGetSparseProperties: not supported: sparse CUDA arrays are not served (protocol/contract/calls/texture.toml) */
CUresult cuArrayGetSparseProperties(CUDA_ARRAY_SPARSE_PROPERTIES *sparseProperties, CUarray array)
{
    return rgpu_unsupported(RGPU_DRIVER, "cuArrayGetSparseProperties");
}

/* cuMipmappedArrayGetSparseProperties: not supported: sparse CUDA arrays are not served (protocol/contract/calls/texture.toml) */
CUresult cuMipmappedArrayGetSparseProperties(CUDA_ARRAY_SPARSE_PROPERTIES *sparseProperties, CUmipmappedArray mipmap)
{
    return rgpu_unsupported(RGPU_DRIVER, "cuMipmappedArrayGetSparseProperties");
}

/* cuArrayGetMemoryRequirements: not supported: deferred-mapping CUDA arrays are not served (protocol/contract/calls/texture.toml) */
CUresult cuArrayGetMemoryRequirements(CUDA_ARRAY_MEMORY_REQUIREMENTS *memoryRequirements, CUarray array, CUdevice device)
{
    return rgpu_unsupported(RGPU_DRIVER, "cuArrayGetMemoryRequirements");
}

/* cuMipmappedArrayGetMemoryRequirements: not supported: deferred-mapping CUDA arrays are not served (protocol/contract/calls/texture.toml) */
CUresult cuMipmappedArrayGetMemoryRequirements(CUDA_ARRAY_MEMORY_REQUIREMENTS *memoryRequirements, CUmipmappedArray mipmap, CUdevice device)
{
    return rgpu_unsupported(RGPU_DRIVER, "cuMipmappedArrayGetMemoryRequirements");
}

/* cuArrayGetPlane: not supported: multi-planar formats (NV12, ...) are not served (protocol/contract/calls/texture.toml) */
CUresult cuArrayGetPlane(CUarray *pPlaneArray, CUarray hArray, unsigned int planeIdx)
{
    return rgpu_unsupported(RGPU_DRIVER, "cuArrayGetPlane");
}

/* cuArray3DGetDescriptor_v2: forward (protocol/contract/calls/texture.toml) */
CUresult cuArray3DGetDescriptor_v2(CUDA_ARRAY3D_DESCRIPTOR *pArrayDescriptor, CUarray hArray)
{
    rgpu_call c;
    if (pArrayDescriptor == NULL) return rgpu_invalid_value(RGPU_DRIVER);
    rgpu_begin(&c, RGPU_ID_cuArray3DGetDescriptor_v2, "cuArray3DGetDescriptor_v2", RGPU_DRIVER, RGPU_FLAGS_cuArray3DGetDescriptor_v2);
    rgpu_put_h(&c, hArray);
    int rc = rgpu_sync(&c);
    if (rc == 0) {
        rgpu_out_b(&c, pArrayDescriptor, sizeof *pArrayDescriptor);
    }
    rgpu_end(&c);
    return rc;
}

/* cuMemGetHandleForAddressRange: not supported: shareable handles are OS handles of the server (protocol/contract/calls/vmm.toml) */
CUresult cuMemGetHandleForAddressRange(void *handle, CUdeviceptr dptr, size_t size, CUmemRangeHandleType handleType, unsigned long long flags)
{
    return rgpu_unsupported(RGPU_DRIVER, "cuMemGetHandleForAddressRange");
}

/* cuMemBatchDecompressAsync: not supported: the decompression engine reads its parameter array asynchronously: not forwarded yet (protocol/contract/calls/vmm.toml) */
CUresult cuMemBatchDecompressAsync(CUmemDecompressParams *paramsArray, size_t count, unsigned int flags, size_t *errorIndex, CUstream stream)
{
    return rgpu_unsupported(RGPU_DRIVER, "cuMemBatchDecompressAsync");
}

/* cuMemAddressReserve: forward (protocol/contract/calls/vmm.toml) */
CUresult cuMemAddressReserve(CUdeviceptr *ptr, size_t size, size_t alignment, CUdeviceptr addr, unsigned long long flags)
{
    rgpu_call c;
    if (ptr == NULL) return rgpu_invalid_value(RGPU_DRIVER);
    rgpu_begin(&c, RGPU_ID_cuMemAddressReserve, "cuMemAddressReserve", RGPU_DRIVER, RGPU_FLAGS_cuMemAddressReserve);
    rgpu_put_u(&c, (uint64_t)size);
    rgpu_put_u(&c, (uint64_t)alignment);
    rgpu_put_u(&c, (uint64_t)addr);
    rgpu_put_u(&c, (uint64_t)flags);
    int rc = rgpu_sync(&c);
    if (rc == 0) {
        *ptr = (__typeof__(*ptr))rgpu_out_u(&c);
    }
    rgpu_end(&c);
    return rc;
}

/* cuMemAddressFree: forward (protocol/contract/calls/vmm.toml) */
CUresult cuMemAddressFree(CUdeviceptr ptr, size_t size)
{
    rgpu_call c;
    rgpu_begin(&c, RGPU_ID_cuMemAddressFree, "cuMemAddressFree", RGPU_DRIVER, RGPU_FLAGS_cuMemAddressFree);
    rgpu_put_u(&c, (uint64_t)ptr);
    rgpu_put_u(&c, (uint64_t)size);
    int rc = rgpu_sync(&c);
    rgpu_end(&c);
    return rc;
}

/* cuMemCreate: forward (protocol/contract/calls/vmm.toml) */
CUresult cuMemCreate(CUmemGenericAllocationHandle *handle, size_t size, const CUmemAllocationProp *prop, unsigned long long flags)
{
    rgpu_call c;
    if (handle == NULL) return rgpu_invalid_value(RGPU_DRIVER);
    rgpu_begin(&c, RGPU_ID_cuMemCreate, "cuMemCreate", RGPU_DRIVER, RGPU_FLAGS_cuMemCreate);
    rgpu_put_u(&c, (uint64_t)size);
    rgpu_put_b(&c, prop, sizeof *prop);
    rgpu_put_u(&c, (uint64_t)flags);
    int rc = rgpu_sync(&c);
    if (rc == 0) {
        *handle = (__typeof__(*handle))(uintptr_t)rgpu_out_h(&c);
    }
    rgpu_end(&c);
    return rc;
}

/* cuMemRelease: forward (protocol/contract/calls/vmm.toml) */
CUresult cuMemRelease(CUmemGenericAllocationHandle handle)
{
    rgpu_call c;
    rgpu_begin(&c, RGPU_ID_cuMemRelease, "cuMemRelease", RGPU_DRIVER, RGPU_FLAGS_cuMemRelease);
    rgpu_put_h(&c, (const void *)(uintptr_t)handle);
    int rc = rgpu_sync(&c);
    rgpu_end(&c);
    return rc;
}

/* cuMemMap: forward (protocol/contract/calls/vmm.toml) */
CUresult cuMemMap(CUdeviceptr ptr, size_t size, size_t offset, CUmemGenericAllocationHandle handle, unsigned long long flags)
{
    rgpu_call c;
    rgpu_begin(&c, RGPU_ID_cuMemMap, "cuMemMap", RGPU_DRIVER, RGPU_FLAGS_cuMemMap);
    rgpu_put_u(&c, (uint64_t)ptr);
    rgpu_put_u(&c, (uint64_t)size);
    rgpu_put_u(&c, (uint64_t)offset);
    rgpu_put_h(&c, (const void *)(uintptr_t)handle);
    rgpu_put_u(&c, (uint64_t)flags);
    int rc = rgpu_sync(&c);
    rgpu_end(&c);
    return rc;
}

/* cuMemMapArrayAsync: not supported: sparse CUDA arrays are not served (protocol/contract/calls/texture.toml) */
CUresult cuMemMapArrayAsync(CUarrayMapInfo *mapInfoList, unsigned int count, CUstream hStream)
{
    return rgpu_unsupported(RGPU_DRIVER, "cuMemMapArrayAsync");
}

/* cuMemUnmap: forward (protocol/contract/calls/vmm.toml) */
CUresult cuMemUnmap(CUdeviceptr ptr, size_t size)
{
    rgpu_call c;
    rgpu_begin(&c, RGPU_ID_cuMemUnmap, "cuMemUnmap", RGPU_DRIVER, RGPU_FLAGS_cuMemUnmap);
    rgpu_put_u(&c, (uint64_t)ptr);
    rgpu_put_u(&c, (uint64_t)size);
    int rc = rgpu_sync(&c);
    rgpu_end(&c);
    return rc;
}

/* cuMemSetAccess: forward (protocol/contract/calls/vmm.toml) */
CUresult cuMemSetAccess(CUdeviceptr ptr, size_t size, const CUmemAccessDesc *desc, size_t count)
{
    rgpu_call c;
    if (desc == NULL && (count) != 0) return rgpu_invalid_value(RGPU_DRIVER);
    rgpu_begin(&c, RGPU_ID_cuMemSetAccess, "cuMemSetAccess", RGPU_DRIVER, RGPU_FLAGS_cuMemSetAccess);
    rgpu_put_u(&c, (uint64_t)ptr);
    rgpu_put_u(&c, (uint64_t)size);
    rgpu_put_b(&c, desc, (size_t)(count) * sizeof *desc);
    rgpu_put_u(&c, (uint64_t)count);
    int rc = rgpu_sync(&c);
    rgpu_end(&c);
    return rc;
}

/* cuMemGetAccess: forward (protocol/contract/calls/vmm.toml) */
CUresult cuMemGetAccess(unsigned long long *flags, const CUmemLocation *location, CUdeviceptr ptr)
{
    rgpu_call c;
    if (flags == NULL) return rgpu_invalid_value(RGPU_DRIVER);
    rgpu_begin(&c, RGPU_ID_cuMemGetAccess, "cuMemGetAccess", RGPU_DRIVER, RGPU_FLAGS_cuMemGetAccess);
    rgpu_put_b(&c, location, sizeof *location);
    rgpu_put_u(&c, (uint64_t)ptr);
    int rc = rgpu_sync(&c);
    if (rc == 0) {
        *flags = (__typeof__(*flags))rgpu_out_u(&c);
    }
    rgpu_end(&c);
    return rc;
}

/* cuMemExportToShareableHandle: not supported: shareable handles are OS handles of the server (protocol/contract/calls/vmm.toml) */
CUresult cuMemExportToShareableHandle(void *shareableHandle, CUmemGenericAllocationHandle handle, CUmemAllocationHandleType handleType, unsigned long long flags)
{
    return rgpu_unsupported(RGPU_DRIVER, "cuMemExportToShareableHandle");
}

/* cuMemImportFromShareableHandle: not supported: shareable handles are OS handles of the server (protocol/contract/calls/vmm.toml) */
CUresult cuMemImportFromShareableHandle(CUmemGenericAllocationHandle *handle, void *osHandle, CUmemAllocationHandleType shHandleType)
{
    return rgpu_unsupported(RGPU_DRIVER, "cuMemImportFromShareableHandle");
}

/* cuMemGetAllocationGranularity: forward (protocol/contract/calls/vmm.toml) */
CUresult cuMemGetAllocationGranularity(size_t *granularity, const CUmemAllocationProp *prop, CUmemAllocationGranularity_flags option)
{
    rgpu_call c;
    if (granularity == NULL) return rgpu_invalid_value(RGPU_DRIVER);
    rgpu_begin(&c, RGPU_ID_cuMemGetAllocationGranularity, "cuMemGetAllocationGranularity", RGPU_DRIVER, RGPU_FLAGS_cuMemGetAllocationGranularity);
    rgpu_put_b(&c, prop, sizeof *prop);
    rgpu_put_i(&c, (int64_t)option);
    int rc = rgpu_sync(&c);
    if (rc == 0) {
        *granularity = (__typeof__(*granularity))rgpu_out_u(&c);
    }
    rgpu_end(&c);
    return rc;
}

/* cuMemGetAllocationPropertiesFromHandle: forward (protocol/contract/calls/vmm.toml) */
CUresult cuMemGetAllocationPropertiesFromHandle(CUmemAllocationProp *prop, CUmemGenericAllocationHandle handle)
{
    rgpu_call c;
    if (prop == NULL) return rgpu_invalid_value(RGPU_DRIVER);
    rgpu_begin(&c, RGPU_ID_cuMemGetAllocationPropertiesFromHandle, "cuMemGetAllocationPropertiesFromHandle", RGPU_DRIVER, RGPU_FLAGS_cuMemGetAllocationPropertiesFromHandle);
    rgpu_put_h(&c, (const void *)(uintptr_t)handle);
    int rc = rgpu_sync(&c);
    if (rc == 0) {
        rgpu_out_b(&c, prop, sizeof *prop);
    }
    rgpu_end(&c);
    return rc;
}

/* cuMemRetainAllocationHandle: forward (protocol/contract/calls/vmm.toml) */
CUresult cuMemRetainAllocationHandle(CUmemGenericAllocationHandle *handle, void *addr)
{
    rgpu_call c;
    if (handle == NULL) return rgpu_invalid_value(RGPU_DRIVER);
    rgpu_begin(&c, RGPU_ID_cuMemRetainAllocationHandle, "cuMemRetainAllocationHandle", RGPU_DRIVER, RGPU_FLAGS_cuMemRetainAllocationHandle);
    rgpu_put_u(&c, (uint64_t)(uintptr_t)addr);
    int rc = rgpu_sync(&c);
    if (rc == 0) {
        *handle = (__typeof__(*handle))(uintptr_t)rgpu_out_h(&c);
    }
    rgpu_end(&c);
    return rc;
}

/* cuMemFreeAsync: forward (async) (protocol/contract/calls/memory.toml) */
CUresult cuMemFreeAsync(CUdeviceptr dptr, CUstream hStream)
{
    rgpu_call c;
    rgpu_allocs_forget(-1, (uint64_t)(uintptr_t)dptr);
    { int crc; if (rgpu_capture_cuMemFreeAsync(&crc, dptr, hStream)) return crc; }
    rgpu_begin(&c, RGPU_ID_cuMemFreeAsync, "cuMemFreeAsync", RGPU_DRIVER, RGPU_FLAGS_cuMemFreeAsync);
    rgpu_put_u(&c, (uint64_t)dptr);
    rgpu_put_h(&c, hStream);
    return rgpu_async(&c);
}

/* cuMemAllocAsync: forward (protocol/contract/calls/memory.toml) */
CUresult cuMemAllocAsync(CUdeviceptr *dptr, size_t bytesize, CUstream hStream)
{
    rgpu_call c;
    if (dptr == NULL) return rgpu_invalid_value(RGPU_DRIVER);
    { int crc; if (rgpu_capture_cuMemAllocAsync(&crc, dptr, bytesize, hStream)) return crc; }
    rgpu_begin(&c, RGPU_ID_cuMemAllocAsync, "cuMemAllocAsync", RGPU_DRIVER, RGPU_FLAGS_cuMemAllocAsync);
    rgpu_put_u(&c, (uint64_t)bytesize);
    rgpu_put_h(&c, hStream);
    int rc = rgpu_sync(&c);
    if (rc == 0) {
        *dptr = (__typeof__(*dptr))rgpu_out_u(&c);
    }
    rgpu_end(&c);
    return rc;
}

/* cuMemPoolTrimTo: forward (protocol/contract/calls/vmm.toml) */
CUresult cuMemPoolTrimTo(CUmemoryPool pool, size_t minBytesToKeep)
{
    rgpu_call c;
    rgpu_begin(&c, RGPU_ID_cuMemPoolTrimTo, "cuMemPoolTrimTo", RGPU_DRIVER, RGPU_FLAGS_cuMemPoolTrimTo);
    rgpu_put_h(&c, pool);
    rgpu_put_u(&c, (uint64_t)minBytesToKeep);
    int rc = rgpu_sync(&c);
    rgpu_end(&c);
    return rc;
}

/* cuMemPoolSetAccess: forward (protocol/contract/calls/vmm.toml) */
CUresult cuMemPoolSetAccess(CUmemoryPool pool, const CUmemAccessDesc *map, size_t count)
{
    rgpu_call c;
    if (map == NULL && (count) != 0) return rgpu_invalid_value(RGPU_DRIVER);
    rgpu_begin(&c, RGPU_ID_cuMemPoolSetAccess, "cuMemPoolSetAccess", RGPU_DRIVER, RGPU_FLAGS_cuMemPoolSetAccess);
    rgpu_put_h(&c, pool);
    rgpu_put_b(&c, map, (size_t)(count) * sizeof *map);
    rgpu_put_u(&c, (uint64_t)count);
    int rc = rgpu_sync(&c);
    rgpu_end(&c);
    return rc;
}

/* cuMemPoolGetAccess: forward (protocol/contract/calls/vmm.toml) */
CUresult cuMemPoolGetAccess(CUmemAccess_flags *flags, CUmemoryPool memPool, CUmemLocation *location)
{
    rgpu_call c;
    if (flags == NULL) return rgpu_invalid_value(RGPU_DRIVER);
    rgpu_begin(&c, RGPU_ID_cuMemPoolGetAccess, "cuMemPoolGetAccess", RGPU_DRIVER, RGPU_FLAGS_cuMemPoolGetAccess);
    rgpu_put_h(&c, memPool);
    rgpu_put_b(&c, location, sizeof *location);
    int rc = rgpu_sync(&c);
    if (rc == 0) {
        *flags = (__typeof__(*flags))rgpu_out_i(&c);
    }
    rgpu_end(&c);
    return rc;
}

/* cuMemPoolCreate: forward (protocol/contract/calls/vmm.toml) */
CUresult cuMemPoolCreate(CUmemoryPool *pool, const CUmemPoolProps *poolProps)
{
    rgpu_call c;
    if (pool == NULL) return rgpu_invalid_value(RGPU_DRIVER);
    rgpu_begin(&c, RGPU_ID_cuMemPoolCreate, "cuMemPoolCreate", RGPU_DRIVER, RGPU_FLAGS_cuMemPoolCreate);
    rgpu_put_b(&c, poolProps, sizeof *poolProps);
    int rc = rgpu_sync(&c);
    if (rc == 0) {
        *pool = (__typeof__(*pool))rgpu_out_h(&c);
    }
    rgpu_end(&c);
    return rc;
}

/* cuMemPoolDestroy: forward (protocol/contract/calls/vmm.toml) */
CUresult cuMemPoolDestroy(CUmemoryPool pool)
{
    rgpu_call c;
    rgpu_begin(&c, RGPU_ID_cuMemPoolDestroy, "cuMemPoolDestroy", RGPU_DRIVER, RGPU_FLAGS_cuMemPoolDestroy);
    rgpu_put_h(&c, pool);
    int rc = rgpu_sync(&c);
    rgpu_end(&c);
    return rc;
}

/* cuMemGetDefaultMemPool: forward (protocol/contract/calls/vmm.toml) */
CUresult cuMemGetDefaultMemPool(CUmemoryPool *pool_out, CUmemLocation *location, CUmemAllocationType type)
{
    rgpu_call c;
    if (pool_out == NULL) return rgpu_invalid_value(RGPU_DRIVER);
    rgpu_begin(&c, RGPU_ID_cuMemGetDefaultMemPool, "cuMemGetDefaultMemPool", RGPU_DRIVER, RGPU_FLAGS_cuMemGetDefaultMemPool);
    rgpu_put_b(&c, location, sizeof *location);
    rgpu_put_i(&c, (int64_t)type);
    int rc = rgpu_sync(&c);
    if (rc == 0) {
        *pool_out = (__typeof__(*pool_out))rgpu_out_h(&c);
    }
    rgpu_end(&c);
    return rc;
}

/* cuMemGetMemPool: forward (protocol/contract/calls/vmm.toml) */
CUresult cuMemGetMemPool(CUmemoryPool *pool, CUmemLocation *location, CUmemAllocationType type)
{
    rgpu_call c;
    if (pool == NULL) return rgpu_invalid_value(RGPU_DRIVER);
    rgpu_begin(&c, RGPU_ID_cuMemGetMemPool, "cuMemGetMemPool", RGPU_DRIVER, RGPU_FLAGS_cuMemGetMemPool);
    rgpu_put_b(&c, location, sizeof *location);
    rgpu_put_i(&c, (int64_t)type);
    int rc = rgpu_sync(&c);
    if (rc == 0) {
        *pool = (__typeof__(*pool))rgpu_out_h(&c);
    }
    rgpu_end(&c);
    return rc;
}

/* cuMemSetMemPool: forward (protocol/contract/calls/vmm.toml) */
CUresult cuMemSetMemPool(CUmemLocation *location, CUmemAllocationType type, CUmemoryPool pool)
{
    rgpu_call c;
    rgpu_begin(&c, RGPU_ID_cuMemSetMemPool, "cuMemSetMemPool", RGPU_DRIVER, RGPU_FLAGS_cuMemSetMemPool);
    rgpu_put_b(&c, location, sizeof *location);
    rgpu_put_i(&c, (int64_t)type);
    rgpu_put_h(&c, pool);
    int rc = rgpu_sync(&c);
    rgpu_end(&c);
    return rc;
}

/* cuMemAllocFromPoolAsync: forward (protocol/contract/calls/vmm.toml) */
CUresult cuMemAllocFromPoolAsync(CUdeviceptr *dptr, size_t bytesize, CUmemoryPool pool, CUstream hStream)
{
    rgpu_call c;
    if (dptr == NULL) return rgpu_invalid_value(RGPU_DRIVER);
    { int crc = rgpu_capture_guard(RGPU_DRIVER, hStream, 1); if (crc) return crc; }
    rgpu_begin(&c, RGPU_ID_cuMemAllocFromPoolAsync, "cuMemAllocFromPoolAsync", RGPU_DRIVER, RGPU_FLAGS_cuMemAllocFromPoolAsync);
    rgpu_put_u(&c, (uint64_t)bytesize);
    rgpu_put_h(&c, pool);
    rgpu_put_h(&c, hStream);
    int rc = rgpu_sync(&c);
    if (rc == 0) {
        *dptr = (__typeof__(*dptr))rgpu_out_u(&c);
    }
    rgpu_end(&c);
    return rc;
}

/* cuMemPoolExportToShareableHandle: not supported: shareable handles are OS handles of the server (protocol/contract/calls/vmm.toml) */
CUresult cuMemPoolExportToShareableHandle(void *handle_out, CUmemoryPool pool, CUmemAllocationHandleType handleType, unsigned long long flags)
{
    return rgpu_unsupported(RGPU_DRIVER, "cuMemPoolExportToShareableHandle");
}

/* cuMemPoolImportFromShareableHandle: not supported: shareable handles are OS handles of the server (protocol/contract/calls/vmm.toml) */
CUresult cuMemPoolImportFromShareableHandle(CUmemoryPool *pool_out, void *handle, CUmemAllocationHandleType handleType, unsigned long long flags)
{
    return rgpu_unsupported(RGPU_DRIVER, "cuMemPoolImportFromShareableHandle");
}

/* cuMemPoolExportPointer: not supported: pool IPC is not forwarded (protocol/contract/calls/vmm.toml) */
CUresult cuMemPoolExportPointer(CUmemPoolPtrExportData *shareData_out, CUdeviceptr ptr)
{
    return rgpu_unsupported(RGPU_DRIVER, "cuMemPoolExportPointer");
}

/* cuMemPoolImportPointer: not supported: pool IPC is not forwarded (protocol/contract/calls/vmm.toml) */
CUresult cuMemPoolImportPointer(CUdeviceptr *ptr_out, CUmemoryPool pool, CUmemPoolPtrExportData *shareData)
{
    return rgpu_unsupported(RGPU_DRIVER, "cuMemPoolImportPointer");
}

/* cuMulticastCreate: not supported: allocates device memory outside the session's memory quota: not forwarded yet (protocol/contract/calls/vmm.toml) */
CUresult cuMulticastCreate(CUmemGenericAllocationHandle *mcHandle, const CUmulticastObjectProp *prop)
{
    return rgpu_unsupported(RGPU_DRIVER, "cuMulticastCreate");
}

/* cuMulticastAddDevice: not supported: multicast objects are not made through rgpu (cuMulticastCreate is not forwarded) (protocol/contract/calls/vmm.toml) */
CUresult cuMulticastAddDevice(CUmemGenericAllocationHandle mcHandle, CUdevice dev)
{
    return rgpu_unsupported(RGPU_DRIVER, "cuMulticastAddDevice");
}

/* cuMulticastBindMem: not supported: multicast objects are not made through rgpu (cuMulticastCreate is not forwarded) (protocol/contract/calls/vmm.toml) */
CUresult cuMulticastBindMem(CUmemGenericAllocationHandle mcHandle, size_t mcOffset, CUmemGenericAllocationHandle memHandle, size_t memOffset, size_t size, unsigned long long flags)
{
    return rgpu_unsupported(RGPU_DRIVER, "cuMulticastBindMem");
}

/* cuMulticastBindAddr: not supported: multicast objects are not made through rgpu (cuMulticastCreate is not forwarded) (protocol/contract/calls/vmm.toml) */
CUresult cuMulticastBindAddr(CUmemGenericAllocationHandle mcHandle, size_t mcOffset, CUdeviceptr memptr, size_t size, unsigned long long flags)
{
    return rgpu_unsupported(RGPU_DRIVER, "cuMulticastBindAddr");
}

/* cuMulticastUnbind: not supported: multicast objects are not made through rgpu (cuMulticastCreate is not forwarded) (protocol/contract/calls/vmm.toml) */
CUresult cuMulticastUnbind(CUmemGenericAllocationHandle mcHandle, CUdevice dev, size_t mcOffset, size_t size)
{
    return rgpu_unsupported(RGPU_DRIVER, "cuMulticastUnbind");
}

/* cuMulticastGetGranularity: forward (protocol/contract/calls/vmm.toml) */
CUresult cuMulticastGetGranularity(size_t *granularity, const CUmulticastObjectProp *prop, CUmulticastGranularity_flags option)
{
    rgpu_call c;
    if (granularity == NULL) return rgpu_invalid_value(RGPU_DRIVER);
    rgpu_begin(&c, RGPU_ID_cuMulticastGetGranularity, "cuMulticastGetGranularity", RGPU_DRIVER, RGPU_FLAGS_cuMulticastGetGranularity);
    rgpu_put_b(&c, prop, sizeof *prop);
    rgpu_put_i(&c, (int64_t)option);
    int rc = rgpu_sync(&c);
    if (rc == 0) {
        *granularity = (__typeof__(*granularity))rgpu_out_u(&c);
    }
    rgpu_end(&c);
    return rc;
}

/* cuStreamCreate: forward (protocol/contract/calls/stream.toml) */
CUresult cuStreamCreate(CUstream *phStream, unsigned int Flags)
{
    rgpu_call c;
    if (phStream == NULL) return rgpu_invalid_value(RGPU_DRIVER);
    rgpu_begin(&c, RGPU_ID_cuStreamCreate, "cuStreamCreate", RGPU_DRIVER, RGPU_FLAGS_cuStreamCreate);
    rgpu_put_u(&c, (uint64_t)Flags);
    int rc = rgpu_sync(&c);
    if (rc == 0) {
        *phStream = (__typeof__(*phStream))rgpu_out_h(&c);
    }
    rgpu_end(&c);
    return rc;
}

/* cuStreamCreateWithPriority: forward (protocol/contract/calls/stream.toml) */
CUresult cuStreamCreateWithPriority(CUstream *phStream, unsigned int flags, int priority)
{
    rgpu_call c;
    if (phStream == NULL) return rgpu_invalid_value(RGPU_DRIVER);
    rgpu_begin(&c, RGPU_ID_cuStreamCreateWithPriority, "cuStreamCreateWithPriority", RGPU_DRIVER, RGPU_FLAGS_cuStreamCreateWithPriority);
    rgpu_put_u(&c, (uint64_t)flags);
    rgpu_put_i(&c, (int64_t)priority);
    int rc = rgpu_sync(&c);
    if (rc == 0) {
        *phStream = (__typeof__(*phStream))rgpu_out_h(&c);
    }
    rgpu_end(&c);
    return rc;
}

/* cuStreamGetPriority: forward (protocol/contract/calls/stream.toml) */
CUresult cuStreamGetPriority(CUstream hStream, int *priority)
{
    rgpu_call c;
    if (priority == NULL) return rgpu_invalid_value(RGPU_DRIVER);
    rgpu_begin(&c, RGPU_ID_cuStreamGetPriority, "cuStreamGetPriority", RGPU_DRIVER, RGPU_FLAGS_cuStreamGetPriority);
    rgpu_put_h(&c, hStream);
    int rc = rgpu_sync(&c);
    if (rc == 0) {
        *priority = (__typeof__(*priority))rgpu_out_i(&c);
    }
    rgpu_end(&c);
    return rc;
}

/* cuStreamGetFlags: forward (protocol/contract/calls/stream.toml) */
CUresult cuStreamGetFlags(CUstream hStream, unsigned int *flags)
{
    rgpu_call c;
    if (flags == NULL) return rgpu_invalid_value(RGPU_DRIVER);
    rgpu_begin(&c, RGPU_ID_cuStreamGetFlags, "cuStreamGetFlags", RGPU_DRIVER, RGPU_FLAGS_cuStreamGetFlags);
    rgpu_put_h(&c, hStream);
    int rc = rgpu_sync(&c);
    if (rc == 0) {
        *flags = (__typeof__(*flags))rgpu_out_u(&c);
    }
    rgpu_end(&c);
    return rc;
}

/* cuStreamGetId: forward (protocol/contract/calls/stream.toml) */
CUresult cuStreamGetId(CUstream hStream, unsigned long long *streamId)
{
    rgpu_call c;
    if (streamId == NULL) return rgpu_invalid_value(RGPU_DRIVER);
    rgpu_begin(&c, RGPU_ID_cuStreamGetId, "cuStreamGetId", RGPU_DRIVER, RGPU_FLAGS_cuStreamGetId);
    rgpu_put_h(&c, hStream);
    int rc = rgpu_sync(&c);
    if (rc == 0) {
        *streamId = (__typeof__(*streamId))rgpu_out_u(&c);
    }
    rgpu_end(&c);
    return rc;
}

/* cuStreamWaitEvent: forward (async) (protocol/contract/calls/stream.toml) */
CUresult cuStreamWaitEvent(CUstream hStream, CUevent hEvent, unsigned int Flags)
{
    rgpu_call c;
    { int crc; if (rgpu_capture_cuStreamWaitEvent(&crc, hStream, hEvent, Flags)) return crc; }
    rgpu_begin(&c, RGPU_ID_cuStreamWaitEvent, "cuStreamWaitEvent", RGPU_DRIVER, RGPU_FLAGS_cuStreamWaitEvent);
    rgpu_put_h(&c, hStream);
    rgpu_put_h(&c, hEvent);
    rgpu_put_u(&c, (uint64_t)Flags);
    return rgpu_async(&c);
}

/* cuStreamQuery: forward (protocol/contract/calls/stream.toml) */
CUresult cuStreamQuery(CUstream hStream)
{
    rgpu_call c;
    { int crc = rgpu_capture_guard(RGPU_DRIVER, hStream, 1); if (crc) return crc; }
    rgpu_begin(&c, RGPU_ID_cuStreamQuery, "cuStreamQuery", RGPU_DRIVER, RGPU_FLAGS_cuStreamQuery);
    rgpu_put_h(&c, hStream);
    int rc = rgpu_sync(&c);
    rgpu_end(&c);
    return rc;
}

/* cuStreamSynchronize: forward (protocol/contract/calls/stream.toml) */
CUresult cuStreamSynchronize(CUstream hStream)
{
    rgpu_call c;
    { int crc = rgpu_capture_guard(RGPU_DRIVER, hStream, 1); if (crc) return crc; }
    rgpu_begin(&c, RGPU_ID_cuStreamSynchronize, "cuStreamSynchronize", RGPU_DRIVER, RGPU_FLAGS_cuStreamSynchronize);
    rgpu_put_h(&c, hStream);
    int rc = rgpu_sync(&c);
    rgpu_end(&c);
    return rc;
}

/* cuStreamDestroy_v2: forward (protocol/contract/calls/stream.toml) */
CUresult cuStreamDestroy_v2(CUstream hStream)
{
    rgpu_call c;
    rgpu_begin(&c, RGPU_ID_cuStreamDestroy_v2, "cuStreamDestroy_v2", RGPU_DRIVER, RGPU_FLAGS_cuStreamDestroy_v2);
    rgpu_put_h(&c, hStream);
    int rc = rgpu_sync(&c);
    rgpu_end(&c);
    return rc;
}

/* cuStreamCopyAttributes: forward (protocol/contract/calls/stream.toml) */
CUresult cuStreamCopyAttributes(CUstream dst, CUstream src)
{
    rgpu_call c;
    rgpu_begin(&c, RGPU_ID_cuStreamCopyAttributes, "cuStreamCopyAttributes", RGPU_DRIVER, RGPU_FLAGS_cuStreamCopyAttributes);
    rgpu_put_h(&c, dst);
    rgpu_put_h(&c, src);
    int rc = rgpu_sync(&c);
    rgpu_end(&c);
    return rc;
}

/* cuStreamGetAttribute: forward (protocol/contract/calls/stream.toml) */
CUresult cuStreamGetAttribute(CUstream hStream, CUstreamAttrID attr, CUstreamAttrValue *value_out)
{
    rgpu_call c;
    if (value_out == NULL) return rgpu_invalid_value(RGPU_DRIVER);
    rgpu_begin(&c, RGPU_ID_cuStreamGetAttribute, "cuStreamGetAttribute", RGPU_DRIVER, RGPU_FLAGS_cuStreamGetAttribute);
    rgpu_put_h(&c, hStream);
    rgpu_put_i(&c, (int64_t)attr);
    int rc = rgpu_sync(&c);
    if (rc == 0) {
        rgpu_out_b(&c, value_out, sizeof *value_out);
    }
    rgpu_end(&c);
    return rc;
}

/* cuStreamSetAttribute: forward (protocol/contract/calls/stream.toml) */
CUresult cuStreamSetAttribute(CUstream hStream, CUstreamAttrID attr, const CUstreamAttrValue *value)
{
    rgpu_call c;
    rgpu_begin(&c, RGPU_ID_cuStreamSetAttribute, "cuStreamSetAttribute", RGPU_DRIVER, RGPU_FLAGS_cuStreamSetAttribute);
    rgpu_put_h(&c, hStream);
    rgpu_put_i(&c, (int64_t)attr);
    rgpu_put_b(&c, value, sizeof *value);
    int rc = rgpu_sync(&c);
    rgpu_end(&c);
    return rc;
}

/* cuEventCreate: forward (protocol/contract/calls/stream.toml) */
CUresult cuEventCreate(CUevent *phEvent, unsigned int Flags)
{
    rgpu_call c;
    if (phEvent == NULL) return rgpu_invalid_value(RGPU_DRIVER);
    rgpu_begin(&c, RGPU_ID_cuEventCreate, "cuEventCreate", RGPU_DRIVER, RGPU_FLAGS_cuEventCreate);
    rgpu_put_u(&c, (uint64_t)Flags);
    int rc = rgpu_sync(&c);
    if (rc == 0) {
        *phEvent = (__typeof__(*phEvent))rgpu_out_h(&c);
    }
    rgpu_end(&c);
    return rc;
}

/* cuEventRecord: forward (async) (protocol/contract/calls/stream.toml) */
CUresult cuEventRecord(CUevent hEvent, CUstream hStream)
{
    rgpu_call c;
    { int crc; if (rgpu_capture_cuEventRecord(&crc, hEvent, hStream)) return crc; }
    rgpu_begin(&c, RGPU_ID_cuEventRecord, "cuEventRecord", RGPU_DRIVER, RGPU_FLAGS_cuEventRecord);
    rgpu_put_h(&c, hEvent);
    rgpu_put_h(&c, hStream);
    return rgpu_async(&c);
}

/* cuEventRecordWithFlags: forward (async) (protocol/contract/calls/stream.toml) */
CUresult cuEventRecordWithFlags(CUevent hEvent, CUstream hStream, unsigned int flags)
{
    rgpu_call c;
    { int crc; if (rgpu_capture_cuEventRecordWithFlags(&crc, hEvent, hStream, flags)) return crc; }
    rgpu_begin(&c, RGPU_ID_cuEventRecordWithFlags, "cuEventRecordWithFlags", RGPU_DRIVER, RGPU_FLAGS_cuEventRecordWithFlags);
    rgpu_put_h(&c, hEvent);
    rgpu_put_h(&c, hStream);
    rgpu_put_u(&c, (uint64_t)flags);
    return rgpu_async(&c);
}

/* cuEventQuery: forward (protocol/contract/calls/stream.toml) */
CUresult cuEventQuery(CUevent hEvent)
{
    rgpu_call c;
    { int crc; if (rgpu_capture_cuEventQuery(&crc, hEvent)) return crc; }
    rgpu_begin(&c, RGPU_ID_cuEventQuery, "cuEventQuery", RGPU_DRIVER, RGPU_FLAGS_cuEventQuery);
    rgpu_put_h(&c, hEvent);
    int rc = rgpu_sync(&c);
    rgpu_end(&c);
    return rc;
}

/* cuEventSynchronize: forward (protocol/contract/calls/stream.toml) */
CUresult cuEventSynchronize(CUevent hEvent)
{
    rgpu_call c;
    { int crc; if (rgpu_capture_cuEventSynchronize(&crc, hEvent)) return crc; }
    rgpu_begin(&c, RGPU_ID_cuEventSynchronize, "cuEventSynchronize", RGPU_DRIVER, RGPU_FLAGS_cuEventSynchronize);
    rgpu_put_h(&c, hEvent);
    int rc = rgpu_sync(&c);
    rgpu_end(&c);
    return rc;
}

/* cuEventDestroy_v2: forward (protocol/contract/calls/stream.toml) */
CUresult cuEventDestroy_v2(CUevent hEvent)
{
    rgpu_call c;
    rgpu_begin(&c, RGPU_ID_cuEventDestroy_v2, "cuEventDestroy_v2", RGPU_DRIVER, RGPU_FLAGS_cuEventDestroy_v2);
    rgpu_put_h(&c, hEvent);
    int rc = rgpu_sync(&c);
    rgpu_end(&c);
    return rc;
}

/* cuEventElapsedTime_v2: forward (protocol/contract/calls/stream.toml) */
CUresult cuEventElapsedTime_v2(float *pMilliseconds, CUevent hStart, CUevent hEnd)
{
    rgpu_call c;
    if (pMilliseconds == NULL) return rgpu_invalid_value(RGPU_DRIVER);
    rgpu_begin(&c, RGPU_ID_cuEventElapsedTime_v2, "cuEventElapsedTime_v2", RGPU_DRIVER, RGPU_FLAGS_cuEventElapsedTime_v2);
    rgpu_put_h(&c, hStart);
    rgpu_put_h(&c, hEnd);
    int rc = rgpu_sync(&c);
    if (rc == 0) {
        *pMilliseconds = (__typeof__(*pMilliseconds))rgpu_out_f(&c);
    }
    rgpu_end(&c);
    return rc;
}

/* cuImportExternalMemory: not supported: external memory and semaphores are not forwarded (protocol/contract/calls/interop.toml) */
CUresult cuImportExternalMemory(CUexternalMemory *extMem_out, const CUDA_EXTERNAL_MEMORY_HANDLE_DESC *memHandleDesc)
{
    return rgpu_unsupported(RGPU_DRIVER, "cuImportExternalMemory");
}

/* cuExternalMemoryGetMappedBuffer: not supported: external memory and semaphores are not forwarded (protocol/contract/calls/interop.toml) */
CUresult cuExternalMemoryGetMappedBuffer(CUdeviceptr *devPtr, CUexternalMemory extMem, const CUDA_EXTERNAL_MEMORY_BUFFER_DESC *bufferDesc)
{
    return rgpu_unsupported(RGPU_DRIVER, "cuExternalMemoryGetMappedBuffer");
}

/* cuExternalMemoryGetMappedMipmappedArray: not supported: external memory and semaphores are not forwarded (protocol/contract/calls/interop.toml) */
CUresult cuExternalMemoryGetMappedMipmappedArray(CUmipmappedArray *mipmap, CUexternalMemory extMem, const CUDA_EXTERNAL_MEMORY_MIPMAPPED_ARRAY_DESC *mipmapDesc)
{
    return rgpu_unsupported(RGPU_DRIVER, "cuExternalMemoryGetMappedMipmappedArray");
}

/* cuDestroyExternalMemory: not supported: external memory and semaphores are not forwarded (protocol/contract/calls/interop.toml) */
CUresult cuDestroyExternalMemory(CUexternalMemory extMem)
{
    return rgpu_unsupported(RGPU_DRIVER, "cuDestroyExternalMemory");
}

/* cuImportExternalSemaphore: not supported: external memory and semaphores are not forwarded (protocol/contract/calls/interop.toml) */
CUresult cuImportExternalSemaphore(CUexternalSemaphore *extSem_out, const CUDA_EXTERNAL_SEMAPHORE_HANDLE_DESC *semHandleDesc)
{
    return rgpu_unsupported(RGPU_DRIVER, "cuImportExternalSemaphore");
}

/* cuSignalExternalSemaphoresAsync: not supported: external memory and semaphores are not forwarded (protocol/contract/calls/interop.toml) */
CUresult cuSignalExternalSemaphoresAsync(const CUexternalSemaphore *extSemArray, const CUDA_EXTERNAL_SEMAPHORE_SIGNAL_PARAMS *paramsArray, unsigned int numExtSems, CUstream stream)
{
    return rgpu_unsupported(RGPU_DRIVER, "cuSignalExternalSemaphoresAsync");
}

/* cuWaitExternalSemaphoresAsync: not supported: external memory and semaphores are not forwarded (protocol/contract/calls/interop.toml) */
CUresult cuWaitExternalSemaphoresAsync(const CUexternalSemaphore *extSemArray, const CUDA_EXTERNAL_SEMAPHORE_WAIT_PARAMS *paramsArray, unsigned int numExtSems, CUstream stream)
{
    return rgpu_unsupported(RGPU_DRIVER, "cuWaitExternalSemaphoresAsync");
}

/* cuDestroyExternalSemaphore: not supported: external memory and semaphores are not forwarded (protocol/contract/calls/interop.toml) */
CUresult cuDestroyExternalSemaphore(CUexternalSemaphore extSem)
{
    return rgpu_unsupported(RGPU_DRIVER, "cuDestroyExternalSemaphore");
}

/* cuStreamWaitValue32_v2: forward (protocol/contract/calls/stream.toml) */
CUresult cuStreamWaitValue32_v2(CUstream stream, CUdeviceptr addr, cuuint32_t value, unsigned int flags)
{
    rgpu_call c;
    { int crc = rgpu_capture_guard(RGPU_DRIVER, stream, 1); if (crc) return crc; }
    rgpu_begin(&c, RGPU_ID_cuStreamWaitValue32_v2, "cuStreamWaitValue32_v2", RGPU_DRIVER, RGPU_FLAGS_cuStreamWaitValue32_v2);
    rgpu_put_h(&c, stream);
    rgpu_put_u(&c, (uint64_t)addr);
    rgpu_put_u(&c, (uint64_t)value);
    rgpu_put_u(&c, (uint64_t)flags);
    int rc = rgpu_sync(&c);
    rgpu_end(&c);
    return rc;
}

/* cuStreamWaitValue64_v2: forward (protocol/contract/calls/stream.toml) */
CUresult cuStreamWaitValue64_v2(CUstream stream, CUdeviceptr addr, cuuint64_t value, unsigned int flags)
{
    rgpu_call c;
    { int crc = rgpu_capture_guard(RGPU_DRIVER, stream, 1); if (crc) return crc; }
    rgpu_begin(&c, RGPU_ID_cuStreamWaitValue64_v2, "cuStreamWaitValue64_v2", RGPU_DRIVER, RGPU_FLAGS_cuStreamWaitValue64_v2);
    rgpu_put_h(&c, stream);
    rgpu_put_u(&c, (uint64_t)addr);
    rgpu_put_u(&c, (uint64_t)value);
    rgpu_put_u(&c, (uint64_t)flags);
    int rc = rgpu_sync(&c);
    rgpu_end(&c);
    return rc;
}

/* cuStreamWriteValue32_v2: forward (protocol/contract/calls/stream.toml) */
CUresult cuStreamWriteValue32_v2(CUstream stream, CUdeviceptr addr, cuuint32_t value, unsigned int flags)
{
    rgpu_call c;
    { int crc = rgpu_capture_guard(RGPU_DRIVER, stream, 1); if (crc) return crc; }
    rgpu_begin(&c, RGPU_ID_cuStreamWriteValue32_v2, "cuStreamWriteValue32_v2", RGPU_DRIVER, RGPU_FLAGS_cuStreamWriteValue32_v2);
    rgpu_put_h(&c, stream);
    rgpu_put_u(&c, (uint64_t)addr);
    rgpu_put_u(&c, (uint64_t)value);
    rgpu_put_u(&c, (uint64_t)flags);
    int rc = rgpu_sync(&c);
    rgpu_end(&c);
    return rc;
}

/* cuStreamWriteValue64_v2: forward (protocol/contract/calls/stream.toml) */
CUresult cuStreamWriteValue64_v2(CUstream stream, CUdeviceptr addr, cuuint64_t value, unsigned int flags)
{
    rgpu_call c;
    { int crc = rgpu_capture_guard(RGPU_DRIVER, stream, 1); if (crc) return crc; }
    rgpu_begin(&c, RGPU_ID_cuStreamWriteValue64_v2, "cuStreamWriteValue64_v2", RGPU_DRIVER, RGPU_FLAGS_cuStreamWriteValue64_v2);
    rgpu_put_h(&c, stream);
    rgpu_put_u(&c, (uint64_t)addr);
    rgpu_put_u(&c, (uint64_t)value);
    rgpu_put_u(&c, (uint64_t)flags);
    int rc = rgpu_sync(&c);
    rgpu_end(&c);
    return rc;
}

/* cuStreamBatchMemOp_v2: forward (protocol/contract/calls/memory.toml) */
CUresult cuStreamBatchMemOp_v2(CUstream stream, unsigned int count, CUstreamBatchMemOpParams *paramArray, unsigned int flags)
{
    rgpu_call c;
    if (paramArray == NULL && (count) != 0) return rgpu_invalid_value(RGPU_DRIVER);
    { int crc = rgpu_capture_guard(RGPU_DRIVER, stream, 1); if (crc) return crc; }
    rgpu_begin(&c, RGPU_ID_cuStreamBatchMemOp_v2, "cuStreamBatchMemOp_v2", RGPU_DRIVER, RGPU_FLAGS_cuStreamBatchMemOp_v2);
    rgpu_put_h(&c, stream);
    rgpu_put_u(&c, (uint64_t)count);
    rgpu_put_b(&c, paramArray, (size_t)(count) * sizeof *paramArray);
    rgpu_put_u(&c, (uint64_t)flags);
    int rc = rgpu_sync(&c);
    rgpu_end(&c);
    return rc;
}

/* cuFuncSetCacheConfig: forward (protocol/contract/calls/module.toml) */
CUresult cuFuncSetCacheConfig(CUfunction hfunc, CUfunc_cache config)
{
    rgpu_call c;
    rgpu_begin(&c, RGPU_ID_cuFuncSetCacheConfig, "cuFuncSetCacheConfig", RGPU_DRIVER, RGPU_FLAGS_cuFuncSetCacheConfig);
    rgpu_put_h(&c, hfunc);
    rgpu_put_i(&c, (int64_t)config);
    int rc = rgpu_sync(&c);
    rgpu_end(&c);
    return rc;
}

/* cuFuncGetModule: forward (protocol/contract/calls/module.toml) */
CUresult cuFuncGetModule(CUmodule *hmod, CUfunction hfunc)
{
    rgpu_call c;
    if (hmod == NULL) return rgpu_invalid_value(RGPU_DRIVER);
    rgpu_begin(&c, RGPU_ID_cuFuncGetModule, "cuFuncGetModule", RGPU_DRIVER, RGPU_FLAGS_cuFuncGetModule);
    rgpu_put_h(&c, hfunc);
    int rc = rgpu_sync(&c);
    if (rc == 0) {
        *hmod = (__typeof__(*hmod))rgpu_out_h(&c);
    }
    rgpu_end(&c);
    return rc;
}

/* cuFuncGetParamInfo: forward (protocol/contract/calls/module.toml) */
CUresult cuFuncGetParamInfo(CUfunction func, size_t paramIndex, size_t *paramOffset, size_t *paramSize)
{
    rgpu_call c;
    if (paramOffset == NULL) return rgpu_invalid_value(RGPU_DRIVER);
    if (paramSize == NULL) return rgpu_invalid_value(RGPU_DRIVER);
    rgpu_begin(&c, RGPU_ID_cuFuncGetParamInfo, "cuFuncGetParamInfo", RGPU_DRIVER, RGPU_FLAGS_cuFuncGetParamInfo);
    rgpu_put_h(&c, func);
    rgpu_put_u(&c, (uint64_t)paramIndex);
    int rc = rgpu_sync(&c);
    if (rc == 0) {
        *paramOffset = (__typeof__(*paramOffset))rgpu_out_u(&c);
        *paramSize = (__typeof__(*paramSize))rgpu_out_u(&c);
    }
    rgpu_end(&c);
    return rc;
}

/* cuFuncIsLoaded: forward (protocol/contract/calls/module.toml) */
CUresult cuFuncIsLoaded(CUfunctionLoadingState *state, CUfunction function)
{
    rgpu_call c;
    if (state == NULL) return rgpu_invalid_value(RGPU_DRIVER);
    rgpu_begin(&c, RGPU_ID_cuFuncIsLoaded, "cuFuncIsLoaded", RGPU_DRIVER, RGPU_FLAGS_cuFuncIsLoaded);
    rgpu_put_h(&c, function);
    int rc = rgpu_sync(&c);
    if (rc == 0) {
        *state = (__typeof__(*state))rgpu_out_i(&c);
    }
    rgpu_end(&c);
    return rc;
}

/* cuFuncLoad: forward (protocol/contract/calls/module.toml) */
CUresult cuFuncLoad(CUfunction function)
{
    rgpu_call c;
    rgpu_begin(&c, RGPU_ID_cuFuncLoad, "cuFuncLoad", RGPU_DRIVER, RGPU_FLAGS_cuFuncLoad);
    rgpu_put_h(&c, function);
    int rc = rgpu_sync(&c);
    rgpu_end(&c);
    return rc;
}

/* cuLaunchCooperativeKernelMultiDevice: not supported: one cooperative grid across devices (deprecated since CUDA 11.3): a program's vGPUs are separate devices that cannot sync one grid (protocol/contract/calls/module.toml) */
CUresult cuLaunchCooperativeKernelMultiDevice(CUDA_LAUNCH_PARAMS *launchParamsList, unsigned int numDevices, unsigned int flags)
{
    return rgpu_unsupported(RGPU_DRIVER, "cuLaunchCooperativeKernelMultiDevice");
}

/* cuFuncSetBlockShape: not supported: legacy launch API (cuFuncSetBlockShape, cuParamSet*, cuLaunch, cuLaunchGrid; deprecated since CUDA 4.0): not forwarded (protocol/contract/calls/module.toml) */
CUresult cuFuncSetBlockShape(CUfunction hfunc, int x, int y, int z)
{
    return rgpu_unsupported(RGPU_DRIVER, "cuFuncSetBlockShape");
}

/* cuFuncSetSharedSize: not supported: legacy launch API (cuFuncSetBlockShape, cuParamSet*, cuLaunch, cuLaunchGrid; deprecated since CUDA 4.0): not forwarded (protocol/contract/calls/module.toml) */
CUresult cuFuncSetSharedSize(CUfunction hfunc, unsigned int bytes)
{
    return rgpu_unsupported(RGPU_DRIVER, "cuFuncSetSharedSize");
}

/* cuParamSetSize: not supported: legacy launch API (cuFuncSetBlockShape, cuParamSet*, cuLaunch, cuLaunchGrid; deprecated since CUDA 4.0): not forwarded (protocol/contract/calls/module.toml) */
CUresult cuParamSetSize(CUfunction hfunc, unsigned int numbytes)
{
    return rgpu_unsupported(RGPU_DRIVER, "cuParamSetSize");
}

/* cuParamSeti: not supported: legacy launch API (cuFuncSetBlockShape, cuParamSet*, cuLaunch, cuLaunchGrid; deprecated since CUDA 4.0): not forwarded (protocol/contract/calls/module.toml) */
CUresult cuParamSeti(CUfunction hfunc, int offset, unsigned int value)
{
    return rgpu_unsupported(RGPU_DRIVER, "cuParamSeti");
}

/* cuParamSetf: not supported: legacy launch API (cuFuncSetBlockShape, cuParamSet*, cuLaunch, cuLaunchGrid; deprecated since CUDA 4.0): not forwarded (protocol/contract/calls/module.toml) */
CUresult cuParamSetf(CUfunction hfunc, int offset, float value)
{
    return rgpu_unsupported(RGPU_DRIVER, "cuParamSetf");
}

/* cuParamSetv: not supported: legacy launch API (cuFuncSetBlockShape, cuParamSet*, cuLaunch, cuLaunchGrid; deprecated since CUDA 4.0): not forwarded (protocol/contract/calls/module.toml) */
CUresult cuParamSetv(CUfunction hfunc, int offset, void *ptr, unsigned int numbytes)
{
    return rgpu_unsupported(RGPU_DRIVER, "cuParamSetv");
}

/* cuLaunch: not supported: legacy launch API (cuFuncSetBlockShape, cuParamSet*, cuLaunch, cuLaunchGrid; deprecated since CUDA 4.0): not forwarded (protocol/contract/calls/module.toml) */
CUresult cuLaunch(CUfunction f)
{
    return rgpu_unsupported(RGPU_DRIVER, "cuLaunch");
}

/* cuLaunchGrid: not supported: legacy launch API (cuFuncSetBlockShape, cuParamSet*, cuLaunch, cuLaunchGrid; deprecated since CUDA 4.0): not forwarded (protocol/contract/calls/module.toml) */
CUresult cuLaunchGrid(CUfunction f, int grid_width, int grid_height)
{
    return rgpu_unsupported(RGPU_DRIVER, "cuLaunchGrid");
}

/* cuLaunchGridAsync: not supported: legacy launch API (cuFuncSetBlockShape, cuParamSet*, cuLaunch, cuLaunchGrid; deprecated since CUDA 4.0): not forwarded (protocol/contract/calls/module.toml) */
CUresult cuLaunchGridAsync(CUfunction f, int grid_width, int grid_height, CUstream hStream)
{
    return rgpu_unsupported(RGPU_DRIVER, "cuLaunchGridAsync");
}

/* cuParamSetTexRef: not supported: legacy launch API (cuFuncSetBlockShape, cuParamSet*, cuLaunch, cuLaunchGrid; deprecated since CUDA 4.0): not forwarded (protocol/contract/calls/texture.toml) */
CUresult cuParamSetTexRef(CUfunction hfunc, int texunit, CUtexref hTexRef)
{
    return rgpu_unsupported(RGPU_DRIVER, "cuParamSetTexRef");
}

/* cuFuncSetSharedMemConfig: forward (protocol/contract/calls/memory.toml) */
CUresult cuFuncSetSharedMemConfig(CUfunction hfunc, CUsharedconfig config)
{
    rgpu_call c;
    rgpu_begin(&c, RGPU_ID_cuFuncSetSharedMemConfig, "cuFuncSetSharedMemConfig", RGPU_DRIVER, RGPU_FLAGS_cuFuncSetSharedMemConfig);
    rgpu_put_h(&c, hfunc);
    rgpu_put_i(&c, (int64_t)config);
    int rc = rgpu_sync(&c);
    rgpu_end(&c);
    return rc;
}

/* cuGraphAddExternalSemaphoresSignalNode: not supported: external semaphores are not forwarded (protocol/contract/calls/graph.toml) */
CUresult cuGraphAddExternalSemaphoresSignalNode(CUgraphNode *phGraphNode, CUgraph hGraph, const CUgraphNode *dependencies, size_t numDependencies, const CUDA_EXT_SEM_SIGNAL_NODE_PARAMS *nodeParams)
{
    return rgpu_unsupported(RGPU_DRIVER, "cuGraphAddExternalSemaphoresSignalNode");
}

/* cuGraphExternalSemaphoresSignalNodeGetParams: not supported: external semaphores are not forwarded (protocol/contract/calls/graph.toml) */
CUresult cuGraphExternalSemaphoresSignalNodeGetParams(CUgraphNode hNode, CUDA_EXT_SEM_SIGNAL_NODE_PARAMS *params_out)
{
    return rgpu_unsupported(RGPU_DRIVER, "cuGraphExternalSemaphoresSignalNodeGetParams");
}

/* cuGraphExternalSemaphoresSignalNodeSetParams: not supported: external semaphores are not forwarded (protocol/contract/calls/graph.toml) */
CUresult cuGraphExternalSemaphoresSignalNodeSetParams(CUgraphNode hNode, const CUDA_EXT_SEM_SIGNAL_NODE_PARAMS *nodeParams)
{
    return rgpu_unsupported(RGPU_DRIVER, "cuGraphExternalSemaphoresSignalNodeSetParams");
}

/* cuGraphAddExternalSemaphoresWaitNode: not supported: external semaphores are not forwarded (protocol/contract/calls/graph.toml) */
CUresult cuGraphAddExternalSemaphoresWaitNode(CUgraphNode *phGraphNode, CUgraph hGraph, const CUgraphNode *dependencies, size_t numDependencies, const CUDA_EXT_SEM_WAIT_NODE_PARAMS *nodeParams)
{
    return rgpu_unsupported(RGPU_DRIVER, "cuGraphAddExternalSemaphoresWaitNode");
}

/* cuGraphExternalSemaphoresWaitNodeGetParams: not supported: external semaphores are not forwarded (protocol/contract/calls/graph.toml) */
CUresult cuGraphExternalSemaphoresWaitNodeGetParams(CUgraphNode hNode, CUDA_EXT_SEM_WAIT_NODE_PARAMS *params_out)
{
    return rgpu_unsupported(RGPU_DRIVER, "cuGraphExternalSemaphoresWaitNodeGetParams");
}

/* cuGraphExternalSemaphoresWaitNodeSetParams: not supported: external semaphores are not forwarded (protocol/contract/calls/graph.toml) */
CUresult cuGraphExternalSemaphoresWaitNodeSetParams(CUgraphNode hNode, const CUDA_EXT_SEM_WAIT_NODE_PARAMS *nodeParams)
{
    return rgpu_unsupported(RGPU_DRIVER, "cuGraphExternalSemaphoresWaitNodeSetParams");
}

/* cuGraphAddBatchMemOpNode: not supported: batched memory operations are not forwarded (protocol/contract/calls/graph.toml) */
CUresult cuGraphAddBatchMemOpNode(CUgraphNode *phGraphNode, CUgraph hGraph, const CUgraphNode *dependencies, size_t numDependencies, const CUDA_BATCH_MEM_OP_NODE_PARAMS *nodeParams)
{
    return rgpu_unsupported(RGPU_DRIVER, "cuGraphAddBatchMemOpNode");
}

/* cuGraphBatchMemOpNodeGetParams: not supported: batched memory operations are not forwarded (protocol/contract/calls/graph.toml) */
CUresult cuGraphBatchMemOpNodeGetParams(CUgraphNode hNode, CUDA_BATCH_MEM_OP_NODE_PARAMS *nodeParams_out)
{
    return rgpu_unsupported(RGPU_DRIVER, "cuGraphBatchMemOpNodeGetParams");
}

/* cuGraphBatchMemOpNodeSetParams: not supported: batched memory operations are not forwarded (protocol/contract/calls/graph.toml) */
CUresult cuGraphBatchMemOpNodeSetParams(CUgraphNode hNode, const CUDA_BATCH_MEM_OP_NODE_PARAMS *nodeParams)
{
    return rgpu_unsupported(RGPU_DRIVER, "cuGraphBatchMemOpNodeSetParams");
}

/* cuGraphExecBatchMemOpNodeSetParams: not supported: batched memory operations are not forwarded (protocol/contract/calls/graph.toml) */
CUresult cuGraphExecBatchMemOpNodeSetParams(CUgraphExec hGraphExec, CUgraphNode hNode, const CUDA_BATCH_MEM_OP_NODE_PARAMS *nodeParams)
{
    return rgpu_unsupported(RGPU_DRIVER, "cuGraphExecBatchMemOpNodeSetParams");
}

/* cuGraphExecExternalSemaphoresSignalNodeSetParams: not supported: external semaphores are not forwarded (protocol/contract/calls/graph.toml) */
CUresult cuGraphExecExternalSemaphoresSignalNodeSetParams(CUgraphExec hGraphExec, CUgraphNode hNode, const CUDA_EXT_SEM_SIGNAL_NODE_PARAMS *nodeParams)
{
    return rgpu_unsupported(RGPU_DRIVER, "cuGraphExecExternalSemaphoresSignalNodeSetParams");
}

/* cuGraphExecExternalSemaphoresWaitNodeSetParams: not supported: external semaphores are not forwarded (protocol/contract/calls/graph.toml) */
CUresult cuGraphExecExternalSemaphoresWaitNodeSetParams(CUgraphExec hGraphExec, CUgraphNode hNode, const CUDA_EXT_SEM_WAIT_NODE_PARAMS *nodeParams)
{
    return rgpu_unsupported(RGPU_DRIVER, "cuGraphExecExternalSemaphoresWaitNodeSetParams");
}

/* cuGraphConditionalHandleCreate: not supported: conditional graph nodes are not implemented yet (protocol/contract/calls/graph.toml) */
CUresult cuGraphConditionalHandleCreate(CUgraphConditionalHandle *pHandle_out, CUgraph hGraph, CUcontext ctx, unsigned int defaultLaunchValue, unsigned int flags)
{
    return rgpu_unsupported(RGPU_DRIVER, "cuGraphConditionalHandleCreate");
}

/* cuOccupancyAvailableDynamicSMemPerBlock: forward (protocol/contract/calls/memory.toml) */
CUresult cuOccupancyAvailableDynamicSMemPerBlock(size_t *dynamicSmemSize, CUfunction func, int numBlocks, int blockSize)
{
    rgpu_call c;
    if (dynamicSmemSize == NULL) return rgpu_invalid_value(RGPU_DRIVER);
    rgpu_begin(&c, RGPU_ID_cuOccupancyAvailableDynamicSMemPerBlock, "cuOccupancyAvailableDynamicSMemPerBlock", RGPU_DRIVER, RGPU_FLAGS_cuOccupancyAvailableDynamicSMemPerBlock);
    rgpu_put_h(&c, func);
    rgpu_put_i(&c, (int64_t)numBlocks);
    rgpu_put_i(&c, (int64_t)blockSize);
    int rc = rgpu_sync(&c);
    if (rc == 0) {
        *dynamicSmemSize = (__typeof__(*dynamicSmemSize))rgpu_out_u(&c);
    }
    rgpu_end(&c);
    return rc;
}

/* cuTexRefSetArray: not supported: texture and surface references (deprecated; removed from CUDA 12's runtime) are not served: texture and surface objects are (protocol/contract/calls/texture.toml) */
CUresult cuTexRefSetArray(CUtexref hTexRef, CUarray hArray, unsigned int Flags)
{
    return rgpu_unsupported(RGPU_DRIVER, "cuTexRefSetArray");
}

/* cuTexRefSetMipmappedArray: not supported: texture and surface references (deprecated; removed from CUDA 12's runtime) are not served: texture and surface objects are (protocol/contract/calls/texture.toml) */
CUresult cuTexRefSetMipmappedArray(CUtexref hTexRef, CUmipmappedArray hMipmappedArray, unsigned int Flags)
{
    return rgpu_unsupported(RGPU_DRIVER, "cuTexRefSetMipmappedArray");
}

/* cuTexRefSetAddress_v2: not supported: texture and surface references (deprecated; removed from CUDA 12's runtime) are not served: texture and surface objects are (protocol/contract/calls/texture.toml) */
CUresult cuTexRefSetAddress_v2(size_t *ByteOffset, CUtexref hTexRef, CUdeviceptr dptr, size_t bytes)
{
    return rgpu_unsupported(RGPU_DRIVER, "cuTexRefSetAddress_v2");
}

/* cuTexRefSetAddress2D_v3: not supported: texture and surface references (deprecated; removed from CUDA 12's runtime) are not served: texture and surface objects are (protocol/contract/calls/texture.toml) */
CUresult cuTexRefSetAddress2D_v3(CUtexref hTexRef, const CUDA_ARRAY_DESCRIPTOR *desc, CUdeviceptr dptr, size_t Pitch)
{
    return rgpu_unsupported(RGPU_DRIVER, "cuTexRefSetAddress2D_v3");
}

/* cuTexRefSetFormat: not supported: texture and surface references (deprecated; removed from CUDA 12's runtime) are not served: texture and surface objects are (protocol/contract/calls/texture.toml) */
CUresult cuTexRefSetFormat(CUtexref hTexRef, CUarray_format fmt, int NumPackedComponents)
{
    return rgpu_unsupported(RGPU_DRIVER, "cuTexRefSetFormat");
}

/* cuTexRefSetAddressMode: not supported: texture and surface references (deprecated; removed from CUDA 12's runtime) are not served: texture and surface objects are (protocol/contract/calls/texture.toml) */
CUresult cuTexRefSetAddressMode(CUtexref hTexRef, int dim, CUaddress_mode am)
{
    return rgpu_unsupported(RGPU_DRIVER, "cuTexRefSetAddressMode");
}

/* cuTexRefSetFilterMode: not supported: texture and surface references (deprecated; removed from CUDA 12's runtime) are not served: texture and surface objects are (protocol/contract/calls/texture.toml) */
CUresult cuTexRefSetFilterMode(CUtexref hTexRef, CUfilter_mode fm)
{
    return rgpu_unsupported(RGPU_DRIVER, "cuTexRefSetFilterMode");
}

/* cuTexRefSetMipmapFilterMode: not supported: texture and surface references (deprecated; removed from CUDA 12's runtime) are not served: texture and surface objects are (protocol/contract/calls/texture.toml) */
CUresult cuTexRefSetMipmapFilterMode(CUtexref hTexRef, CUfilter_mode fm)
{
    return rgpu_unsupported(RGPU_DRIVER, "cuTexRefSetMipmapFilterMode");
}

/* cuTexRefSetMipmapLevelBias: not supported: texture and surface references (deprecated; removed from CUDA 12's runtime) are not served: texture and surface objects are (protocol/contract/calls/texture.toml) */
CUresult cuTexRefSetMipmapLevelBias(CUtexref hTexRef, float bias)
{
    return rgpu_unsupported(RGPU_DRIVER, "cuTexRefSetMipmapLevelBias");
}

/* cuTexRefSetMipmapLevelClamp: not supported: texture and surface references (deprecated; removed from CUDA 12's runtime) are not served: texture and surface objects are (protocol/contract/calls/texture.toml) */
CUresult cuTexRefSetMipmapLevelClamp(CUtexref hTexRef, float minMipmapLevelClamp, float maxMipmapLevelClamp)
{
    return rgpu_unsupported(RGPU_DRIVER, "cuTexRefSetMipmapLevelClamp");
}

/* cuTexRefSetMaxAnisotropy: not supported: texture and surface references (deprecated; removed from CUDA 12's runtime) are not served: texture and surface objects are (protocol/contract/calls/texture.toml) */
CUresult cuTexRefSetMaxAnisotropy(CUtexref hTexRef, unsigned int maxAniso)
{
    return rgpu_unsupported(RGPU_DRIVER, "cuTexRefSetMaxAnisotropy");
}

/* cuTexRefSetBorderColor: not supported: texture and surface references (deprecated; removed from CUDA 12's runtime) are not served: texture and surface objects are (protocol/contract/calls/texture.toml) */
CUresult cuTexRefSetBorderColor(CUtexref hTexRef, float *pBorderColor)
{
    return rgpu_unsupported(RGPU_DRIVER, "cuTexRefSetBorderColor");
}

/* cuTexRefSetFlags: not supported: texture and surface references (deprecated; removed from CUDA 12's runtime) are not served: texture and surface objects are (protocol/contract/calls/texture.toml) */
CUresult cuTexRefSetFlags(CUtexref hTexRef, unsigned int Flags)
{
    return rgpu_unsupported(RGPU_DRIVER, "cuTexRefSetFlags");
}

/* cuTexRefGetAddress_v2: not supported: texture and surface references (deprecated; removed from CUDA 12's runtime) are not served: texture and surface objects are (protocol/contract/calls/texture.toml) */
CUresult cuTexRefGetAddress_v2(CUdeviceptr *pdptr, CUtexref hTexRef)
{
    return rgpu_unsupported(RGPU_DRIVER, "cuTexRefGetAddress_v2");
}

/* cuTexRefGetArray: not supported: texture and surface references (deprecated; removed from CUDA 12's runtime) are not served: texture and surface objects are (protocol/contract/calls/texture.toml) */
CUresult cuTexRefGetArray(CUarray *phArray, CUtexref hTexRef)
{
    return rgpu_unsupported(RGPU_DRIVER, "cuTexRefGetArray");
}

/* cuTexRefGetMipmappedArray: not supported: texture and surface references (deprecated; removed from CUDA 12's runtime) are not served: texture and surface objects are (protocol/contract/calls/texture.toml) */
CUresult cuTexRefGetMipmappedArray(CUmipmappedArray *phMipmappedArray, CUtexref hTexRef)
{
    return rgpu_unsupported(RGPU_DRIVER, "cuTexRefGetMipmappedArray");
}

/* cuTexRefGetAddressMode: not supported: texture and surface references (deprecated; removed from CUDA 12's runtime) are not served: texture and surface objects are (protocol/contract/calls/texture.toml) */
CUresult cuTexRefGetAddressMode(CUaddress_mode *pam, CUtexref hTexRef, int dim)
{
    return rgpu_unsupported(RGPU_DRIVER, "cuTexRefGetAddressMode");
}

/* cuTexRefGetFilterMode: not supported: texture and surface references (deprecated; removed from CUDA 12's runtime) are not served: texture and surface objects are (protocol/contract/calls/texture.toml) */
CUresult cuTexRefGetFilterMode(CUfilter_mode *pfm, CUtexref hTexRef)
{
    return rgpu_unsupported(RGPU_DRIVER, "cuTexRefGetFilterMode");
}

/* cuTexRefGetFormat: not supported: texture and surface references (deprecated; removed from CUDA 12's runtime) are not served: texture and surface objects are (protocol/contract/calls/texture.toml) */
CUresult cuTexRefGetFormat(CUarray_format *pFormat, int *pNumChannels, CUtexref hTexRef)
{
    return rgpu_unsupported(RGPU_DRIVER, "cuTexRefGetFormat");
}

/* cuTexRefGetMipmapFilterMode: not supported: texture and surface references (deprecated; removed from CUDA 12's runtime) are not served: texture and surface objects are (protocol/contract/calls/texture.toml) */
CUresult cuTexRefGetMipmapFilterMode(CUfilter_mode *pfm, CUtexref hTexRef)
{
    return rgpu_unsupported(RGPU_DRIVER, "cuTexRefGetMipmapFilterMode");
}

/* cuTexRefGetMipmapLevelBias: not supported: texture and surface references (deprecated; removed from CUDA 12's runtime) are not served: texture and surface objects are (protocol/contract/calls/texture.toml) */
CUresult cuTexRefGetMipmapLevelBias(float *pbias, CUtexref hTexRef)
{
    return rgpu_unsupported(RGPU_DRIVER, "cuTexRefGetMipmapLevelBias");
}

/* cuTexRefGetMipmapLevelClamp: not supported: texture and surface references (deprecated; removed from CUDA 12's runtime) are not served: texture and surface objects are (protocol/contract/calls/texture.toml) */
CUresult cuTexRefGetMipmapLevelClamp(float *pminMipmapLevelClamp, float *pmaxMipmapLevelClamp, CUtexref hTexRef)
{
    return rgpu_unsupported(RGPU_DRIVER, "cuTexRefGetMipmapLevelClamp");
}

/* cuTexRefGetMaxAnisotropy: not supported: texture and surface references (deprecated; removed from CUDA 12's runtime) are not served: texture and surface objects are (protocol/contract/calls/texture.toml) */
CUresult cuTexRefGetMaxAnisotropy(int *pmaxAniso, CUtexref hTexRef)
{
    return rgpu_unsupported(RGPU_DRIVER, "cuTexRefGetMaxAnisotropy");
}

/* cuTexRefGetBorderColor: not supported: texture and surface references (deprecated; removed from CUDA 12's runtime) are not served: texture and surface objects are (protocol/contract/calls/texture.toml) */
CUresult cuTexRefGetBorderColor(float *pBorderColor, CUtexref hTexRef)
{
    return rgpu_unsupported(RGPU_DRIVER, "cuTexRefGetBorderColor");
}

/* cuTexRefGetFlags: not supported: texture and surface references (deprecated; removed from CUDA 12's runtime) are not served: texture and surface objects are (protocol/contract/calls/texture.toml) */
CUresult cuTexRefGetFlags(unsigned int *pFlags, CUtexref hTexRef)
{
    return rgpu_unsupported(RGPU_DRIVER, "cuTexRefGetFlags");
}

/* cuTexRefCreate: not supported: texture and surface references (deprecated; removed from CUDA 12's runtime) are not served: texture and surface objects are (protocol/contract/calls/texture.toml) */
CUresult cuTexRefCreate(CUtexref *pTexRef)
{
    return rgpu_unsupported(RGPU_DRIVER, "cuTexRefCreate");
}

/* cuTexRefDestroy: not supported: texture and surface references (deprecated; removed from CUDA 12's runtime) are not served: texture and surface objects are (protocol/contract/calls/texture.toml) */
CUresult cuTexRefDestroy(CUtexref hTexRef)
{
    return rgpu_unsupported(RGPU_DRIVER, "cuTexRefDestroy");
}

/* cuSurfRefSetArray: not supported: texture and surface references (deprecated; removed from CUDA 12's runtime) are not served: texture and surface objects are (protocol/contract/calls/texture.toml) */
CUresult cuSurfRefSetArray(CUsurfref hSurfRef, CUarray hArray, unsigned int Flags)
{
    return rgpu_unsupported(RGPU_DRIVER, "cuSurfRefSetArray");
}

/* cuSurfRefGetArray: not supported: texture and surface references (deprecated; removed from CUDA 12's runtime) are not served: texture and surface objects are (protocol/contract/calls/texture.toml) */
CUresult cuSurfRefGetArray(CUarray *phArray, CUsurfref hSurfRef)
{
    return rgpu_unsupported(RGPU_DRIVER, "cuSurfRefGetArray");
}

/* cuTexObjectDestroy: forward (protocol/contract/calls/texture.toml) */
CUresult cuTexObjectDestroy(CUtexObject texObject)
{
    rgpu_call c;
    rgpu_begin(&c, RGPU_ID_cuTexObjectDestroy, "cuTexObjectDestroy", RGPU_DRIVER, RGPU_FLAGS_cuTexObjectDestroy);
    rgpu_put_u(&c, (uint64_t)texObject);
    int rc = rgpu_sync(&c);
    rgpu_end(&c);
    return rc;
}

/* cuTexObjectGetTextureDesc: forward (protocol/contract/calls/texture.toml) */
CUresult cuTexObjectGetTextureDesc(CUDA_TEXTURE_DESC *pTexDesc, CUtexObject texObject)
{
    rgpu_call c;
    if (pTexDesc == NULL) return rgpu_invalid_value(RGPU_DRIVER);
    rgpu_begin(&c, RGPU_ID_cuTexObjectGetTextureDesc, "cuTexObjectGetTextureDesc", RGPU_DRIVER, RGPU_FLAGS_cuTexObjectGetTextureDesc);
    rgpu_put_u(&c, (uint64_t)texObject);
    int rc = rgpu_sync(&c);
    if (rc == 0) {
        rgpu_out_b(&c, pTexDesc, sizeof *pTexDesc);
    }
    rgpu_end(&c);
    return rc;
}

/* cuTexObjectGetResourceViewDesc: forward (protocol/contract/calls/texture.toml) */
CUresult cuTexObjectGetResourceViewDesc(CUDA_RESOURCE_VIEW_DESC *pResViewDesc, CUtexObject texObject)
{
    rgpu_call c;
    if (pResViewDesc == NULL) return rgpu_invalid_value(RGPU_DRIVER);
    rgpu_begin(&c, RGPU_ID_cuTexObjectGetResourceViewDesc, "cuTexObjectGetResourceViewDesc", RGPU_DRIVER, RGPU_FLAGS_cuTexObjectGetResourceViewDesc);
    rgpu_put_u(&c, (uint64_t)texObject);
    int rc = rgpu_sync(&c);
    if (rc == 0) {
        rgpu_out_b(&c, pResViewDesc, sizeof *pResViewDesc);
    }
    rgpu_end(&c);
    return rc;
}

/* cuSurfObjectDestroy: forward (protocol/contract/calls/texture.toml) */
CUresult cuSurfObjectDestroy(CUsurfObject surfObject)
{
    rgpu_call c;
    rgpu_begin(&c, RGPU_ID_cuSurfObjectDestroy, "cuSurfObjectDestroy", RGPU_DRIVER, RGPU_FLAGS_cuSurfObjectDestroy);
    rgpu_put_u(&c, (uint64_t)surfObject);
    int rc = rgpu_sync(&c);
    rgpu_end(&c);
    return rc;
}

/* cuDeviceGetP2PAtomicCapabilities: not supported: takes arrays of operations: not forwarded yet (protocol/contract/calls/memory.toml) */
CUresult cuDeviceGetP2PAtomicCapabilities(unsigned int *capabilities, const CUatomicOperation *operations, unsigned int count, CUdevice srcDevice, CUdevice dstDevice)
{
    return rgpu_unsupported(RGPU_DRIVER, "cuDeviceGetP2PAtomicCapabilities");
}

/* cuGraphicsUnregisterResource: not supported: graphics interop needs a local display (protocol/contract/calls/interop.toml) */
CUresult cuGraphicsUnregisterResource(CUgraphicsResource resource)
{
    return rgpu_unsupported(RGPU_DRIVER, "cuGraphicsUnregisterResource");
}

/* cuGraphicsSubResourceGetMappedArray: not supported: graphics interop needs a local display (protocol/contract/calls/interop.toml) */
CUresult cuGraphicsSubResourceGetMappedArray(CUarray *pArray, CUgraphicsResource resource, unsigned int arrayIndex, unsigned int mipLevel)
{
    return rgpu_unsupported(RGPU_DRIVER, "cuGraphicsSubResourceGetMappedArray");
}

/* cuGraphicsResourceGetMappedMipmappedArray: not supported: graphics interop needs a local display (protocol/contract/calls/interop.toml) */
CUresult cuGraphicsResourceGetMappedMipmappedArray(CUmipmappedArray *pMipmappedArray, CUgraphicsResource resource)
{
    return rgpu_unsupported(RGPU_DRIVER, "cuGraphicsResourceGetMappedMipmappedArray");
}

/* cuGraphicsResourceGetMappedPointer_v2: not supported: graphics interop needs a local display (protocol/contract/calls/interop.toml) */
CUresult cuGraphicsResourceGetMappedPointer_v2(CUdeviceptr *pDevPtr, size_t *pSize, CUgraphicsResource resource)
{
    return rgpu_unsupported(RGPU_DRIVER, "cuGraphicsResourceGetMappedPointer_v2");
}

/* cuGraphicsResourceSetMapFlags_v2: not supported: graphics interop needs a local display (protocol/contract/calls/interop.toml) */
CUresult cuGraphicsResourceSetMapFlags_v2(CUgraphicsResource resource, unsigned int flags)
{
    return rgpu_unsupported(RGPU_DRIVER, "cuGraphicsResourceSetMapFlags_v2");
}

/* cuGraphicsMapResources: not supported: graphics interop needs a local display (protocol/contract/calls/interop.toml) */
CUresult cuGraphicsMapResources(unsigned int count, CUgraphicsResource *resources, CUstream hStream)
{
    return rgpu_unsupported(RGPU_DRIVER, "cuGraphicsMapResources");
}

/* cuGraphicsUnmapResources: not supported: graphics interop needs a local display (protocol/contract/calls/interop.toml) */
CUresult cuGraphicsUnmapResources(unsigned int count, CUgraphicsResource *resources, CUstream hStream)
{
    return rgpu_unsupported(RGPU_DRIVER, "cuGraphicsUnmapResources");
}

/* cuCoredumpGetAttribute: not supported: coredump attributes are not forwarded (protocol/contract/calls/system.toml) */
CUresult cuCoredumpGetAttribute(CUcoredumpSettings attrib, void *value, size_t *size)
{
    return rgpu_unsupported(RGPU_DRIVER, "cuCoredumpGetAttribute");
}

/* cuCoredumpGetAttributeGlobal: not supported: coredump attributes are not forwarded (protocol/contract/calls/system.toml) */
CUresult cuCoredumpGetAttributeGlobal(CUcoredumpSettings attrib, void *value, size_t *size)
{
    return rgpu_unsupported(RGPU_DRIVER, "cuCoredumpGetAttributeGlobal");
}

/* cuCoredumpSetAttribute: not supported: coredump attributes are not forwarded (protocol/contract/calls/system.toml) */
CUresult cuCoredumpSetAttribute(CUcoredumpSettings attrib, void *value, size_t *size)
{
    return rgpu_unsupported(RGPU_DRIVER, "cuCoredumpSetAttribute");
}

/* cuCoredumpSetAttributeGlobal: not supported: coredump attributes are not forwarded (protocol/contract/calls/system.toml) */
CUresult cuCoredumpSetAttributeGlobal(CUcoredumpSettings attrib, void *value, size_t *size)
{
    return rgpu_unsupported(RGPU_DRIVER, "cuCoredumpSetAttributeGlobal");
}

/* cuGreenCtxCreate: not supported: green contexts are not forwarded yet (protocol/contract/calls/context.toml) */
CUresult cuGreenCtxCreate(CUgreenCtx *phCtx, CUdevResourceDesc desc, CUdevice dev, unsigned int flags)
{
    return rgpu_unsupported(RGPU_DRIVER, "cuGreenCtxCreate");
}

/* cuGreenCtxDestroy: not supported: green contexts are not forwarded yet (protocol/contract/calls/context.toml) */
CUresult cuGreenCtxDestroy(CUgreenCtx hCtx)
{
    return rgpu_unsupported(RGPU_DRIVER, "cuGreenCtxDestroy");
}

/* cuCtxFromGreenCtx: not supported: green contexts are not forwarded yet (protocol/contract/calls/context.toml) */
CUresult cuCtxFromGreenCtx(CUcontext *pContext, CUgreenCtx hCtx)
{
    return rgpu_unsupported(RGPU_DRIVER, "cuCtxFromGreenCtx");
}

/* cuDeviceGetDevResource: not supported: green contexts are not forwarded yet (protocol/contract/calls/context.toml) */
CUresult cuDeviceGetDevResource(CUdevice device, CUdevResource *resource, CUdevResourceType type)
{
    return rgpu_unsupported(RGPU_DRIVER, "cuDeviceGetDevResource");
}

/* cuCtxGetDevResource: not supported: green contexts are not forwarded yet (protocol/contract/calls/context.toml) */
CUresult cuCtxGetDevResource(CUcontext hCtx, CUdevResource *resource, CUdevResourceType type)
{
    return rgpu_unsupported(RGPU_DRIVER, "cuCtxGetDevResource");
}

/* cuGreenCtxGetDevResource: not supported: green contexts are not forwarded yet (protocol/contract/calls/context.toml) */
CUresult cuGreenCtxGetDevResource(CUgreenCtx hCtx, CUdevResource *resource, CUdevResourceType type)
{
    return rgpu_unsupported(RGPU_DRIVER, "cuGreenCtxGetDevResource");
}

/* cuDevSmResourceSplitByCount: not supported: green contexts are not forwarded yet (protocol/contract/calls/context.toml) */
CUresult cuDevSmResourceSplitByCount(CUdevResource *result, unsigned int *nbGroups, const CUdevResource *input, CUdevResource *remaining, unsigned int useFlags, unsigned int minCount)
{
    return rgpu_unsupported(RGPU_DRIVER, "cuDevSmResourceSplitByCount");
}

/* cuDevResourceGenerateDesc: not supported: green contexts are not forwarded yet (protocol/contract/calls/context.toml) */
CUresult cuDevResourceGenerateDesc(CUdevResourceDesc *phDesc, CUdevResource *resources, unsigned int nbResources)
{
    return rgpu_unsupported(RGPU_DRIVER, "cuDevResourceGenerateDesc");
}

/* cuGreenCtxRecordEvent: not supported: green contexts are not forwarded yet (protocol/contract/calls/stream.toml) */
CUresult cuGreenCtxRecordEvent(CUgreenCtx hCtx, CUevent hEvent)
{
    return rgpu_unsupported(RGPU_DRIVER, "cuGreenCtxRecordEvent");
}

/* cuGreenCtxWaitEvent: not supported: green contexts are not forwarded yet (protocol/contract/calls/stream.toml) */
CUresult cuGreenCtxWaitEvent(CUgreenCtx hCtx, CUevent hEvent)
{
    return rgpu_unsupported(RGPU_DRIVER, "cuGreenCtxWaitEvent");
}

/* cuStreamGetGreenCtx: not supported: green contexts are not forwarded yet (protocol/contract/calls/stream.toml) */
CUresult cuStreamGetGreenCtx(CUstream hStream, CUgreenCtx *phCtx)
{
    return rgpu_unsupported(RGPU_DRIVER, "cuStreamGetGreenCtx");
}

/* cuGreenCtxStreamCreate: not supported: green contexts are not forwarded yet (protocol/contract/calls/stream.toml) */
CUresult cuGreenCtxStreamCreate(CUstream *phStream, CUgreenCtx greenCtx, unsigned int flags, int priority)
{
    return rgpu_unsupported(RGPU_DRIVER, "cuGreenCtxStreamCreate");
}

/* cuGreenCtxGetId: not supported: green contexts are not forwarded yet (protocol/contract/calls/context.toml) */
CUresult cuGreenCtxGetId(CUgreenCtx greenCtx, unsigned long long *greenCtxId)
{
    return rgpu_unsupported(RGPU_DRIVER, "cuGreenCtxGetId");
}

/* cuLogsCurrent: not supported: driver logs are the server's (protocol/contract/calls/system.toml) */
CUresult cuLogsCurrent(CUlogIterator *iterator_out, unsigned int flags)
{
    return rgpu_unsupported(RGPU_DRIVER, "cuLogsCurrent");
}

/* cuLogsDumpToFile: not supported: driver logs are the server's (protocol/contract/calls/system.toml) */
CUresult cuLogsDumpToFile(CUlogIterator *iterator, const char *pathToFile, unsigned int flags)
{
    return rgpu_unsupported(RGPU_DRIVER, "cuLogsDumpToFile");
}

/* cuLogsDumpToMemory: not supported: driver logs are the server's (protocol/contract/calls/system.toml) */
CUresult cuLogsDumpToMemory(CUlogIterator *iterator, char *buffer, size_t *size, unsigned int flags)
{
    return rgpu_unsupported(RGPU_DRIVER, "cuLogsDumpToMemory");
}

/* cuCheckpointProcessGetRestoreThreadId: not supported: checkpoints act on processes of the server's host (protocol/contract/calls/system.toml) */
CUresult cuCheckpointProcessGetRestoreThreadId(int pid, int *tid)
{
    return rgpu_unsupported(RGPU_DRIVER, "cuCheckpointProcessGetRestoreThreadId");
}

/* cuCheckpointProcessGetState: not supported: checkpoints act on processes of the server's host (protocol/contract/calls/system.toml) */
CUresult cuCheckpointProcessGetState(int pid, CUprocessState *state)
{
    return rgpu_unsupported(RGPU_DRIVER, "cuCheckpointProcessGetState");
}

/* cuCheckpointProcessLock: not supported: checkpoints act on processes of the server's host (protocol/contract/calls/system.toml) */
CUresult cuCheckpointProcessLock(int pid, CUcheckpointLockArgs *args)
{
    return rgpu_unsupported(RGPU_DRIVER, "cuCheckpointProcessLock");
}

/* cuCheckpointProcessCheckpoint: not supported: checkpoints act on processes of the server's host (protocol/contract/calls/system.toml) */
CUresult cuCheckpointProcessCheckpoint(int pid, CUcheckpointCheckpointArgs *args)
{
    return rgpu_unsupported(RGPU_DRIVER, "cuCheckpointProcessCheckpoint");
}

/* cuCheckpointProcessRestore: not supported: checkpoints act on processes of the server's host (protocol/contract/calls/system.toml) */
CUresult cuCheckpointProcessRestore(int pid, CUcheckpointRestoreArgs *args)
{
    return rgpu_unsupported(RGPU_DRIVER, "cuCheckpointProcessRestore");
}

/* cuCheckpointProcessUnlock: not supported: checkpoints act on processes of the server's host (protocol/contract/calls/system.toml) */
CUresult cuCheckpointProcessUnlock(int pid, CUcheckpointUnlockArgs *args)
{
    return rgpu_unsupported(RGPU_DRIVER, "cuCheckpointProcessUnlock");
}

/* cudaDeviceReset: forward (protocol/contract/calls/device.toml) */
cudaError_t cudaDeviceReset(void)
{
    rgpu_call c;
    rgpu_begin(&c, RGPU_ID_cudaDeviceReset, "cudaDeviceReset", RGPU_RUNTIME, RGPU_FLAGS_cudaDeviceReset);
    int rc = rgpu_sync(&c);
    rgpu_allocs_drop(c.dev);
    rgpu_end(&c);
    return rc;
}

/* cudaDeviceSynchronize: forward (protocol/contract/calls/device.toml) */
cudaError_t cudaDeviceSynchronize(void)
{
    rgpu_call c;
    { int crc = rgpu_capture_guard(RGPU_RUNTIME, NULL, 0); if (crc) return crc; }
    rgpu_begin(&c, RGPU_ID_cudaDeviceSynchronize, "cudaDeviceSynchronize", RGPU_RUNTIME, RGPU_FLAGS_cudaDeviceSynchronize);
    int rc = rgpu_sync(&c);
    rgpu_end(&c);
    return rc;
}

/* cudaDeviceSetLimit: forward (protocol/contract/calls/context.toml) */
cudaError_t cudaDeviceSetLimit(enum cudaLimit limit, size_t value)
{
    rgpu_call c;
    rgpu_begin(&c, RGPU_ID_cudaDeviceSetLimit, "cudaDeviceSetLimit", RGPU_RUNTIME, RGPU_FLAGS_cudaDeviceSetLimit);
    rgpu_put_i(&c, (int64_t)limit);
    rgpu_put_u(&c, (uint64_t)value);
    int rc = rgpu_sync(&c);
    rgpu_end(&c);
    return rc;
}

/* cudaDeviceGetLimit: forward (protocol/contract/calls/context.toml) */
cudaError_t cudaDeviceGetLimit(size_t *pValue, enum cudaLimit limit)
{
    rgpu_call c;
    if (pValue == NULL) return rgpu_invalid_value(RGPU_RUNTIME);
    rgpu_begin(&c, RGPU_ID_cudaDeviceGetLimit, "cudaDeviceGetLimit", RGPU_RUNTIME, RGPU_FLAGS_cudaDeviceGetLimit);
    rgpu_put_i(&c, (int64_t)limit);
    int rc = rgpu_sync(&c);
    if (rc == 0) {
        *pValue = (__typeof__(*pValue))rgpu_out_u(&c);
    }
    rgpu_end(&c);
    return rc;
}

/* cudaDeviceGetCacheConfig: forward (protocol/contract/calls/context.toml) */
cudaError_t cudaDeviceGetCacheConfig(enum cudaFuncCache *pCacheConfig)
{
    rgpu_call c;
    if (pCacheConfig == NULL) return rgpu_invalid_value(RGPU_RUNTIME);
    rgpu_begin(&c, RGPU_ID_cudaDeviceGetCacheConfig, "cudaDeviceGetCacheConfig", RGPU_RUNTIME, RGPU_FLAGS_cudaDeviceGetCacheConfig);
    int rc = rgpu_sync(&c);
    if (rc == 0) {
        *pCacheConfig = (__typeof__(*pCacheConfig))rgpu_out_i(&c);
    }
    rgpu_end(&c);
    return rc;
}

/* cudaDeviceGetStreamPriorityRange: forward (protocol/contract/calls/stream.toml) */
cudaError_t cudaDeviceGetStreamPriorityRange(int *leastPriority, int *greatestPriority)
{
    rgpu_call c;
    if (leastPriority == NULL) return rgpu_invalid_value(RGPU_RUNTIME);
    if (greatestPriority == NULL) return rgpu_invalid_value(RGPU_RUNTIME);
    rgpu_begin(&c, RGPU_ID_cudaDeviceGetStreamPriorityRange, "cudaDeviceGetStreamPriorityRange", RGPU_RUNTIME, RGPU_FLAGS_cudaDeviceGetStreamPriorityRange);
    int rc = rgpu_sync(&c);
    if (rc == 0) {
        *leastPriority = (__typeof__(*leastPriority))rgpu_out_i(&c);
        *greatestPriority = (__typeof__(*greatestPriority))rgpu_out_i(&c);
    }
    rgpu_end(&c);
    return rc;
}

/* cudaDeviceSetCacheConfig: forward (protocol/contract/calls/context.toml) */
cudaError_t cudaDeviceSetCacheConfig(enum cudaFuncCache cacheConfig)
{
    rgpu_call c;
    rgpu_begin(&c, RGPU_ID_cudaDeviceSetCacheConfig, "cudaDeviceSetCacheConfig", RGPU_RUNTIME, RGPU_FLAGS_cudaDeviceSetCacheConfig);
    rgpu_put_i(&c, (int64_t)cacheConfig);
    int rc = rgpu_sync(&c);
    rgpu_end(&c);
    return rc;
}

/* cudaIpcGetEventHandle: forward (protocol/contract/calls/interop.toml) */
cudaError_t cudaIpcGetEventHandle(cudaIpcEventHandle_t *handle, cudaEvent_t event)
{
    rgpu_call c;
    if (handle == NULL) return rgpu_invalid_value(RGPU_RUNTIME);
    rgpu_begin(&c, RGPU_ID_cudaIpcGetEventHandle, "cudaIpcGetEventHandle", RGPU_RUNTIME, RGPU_FLAGS_cudaIpcGetEventHandle);
    rgpu_put_h(&c, event);
    int rc = rgpu_sync(&c);
    if (rc == 0) {
        rgpu_out_b(&c, handle, sizeof *handle);
    }
    rgpu_end(&c);
    return rc;
}

/* cudaIpcOpenEventHandle: forward (protocol/contract/calls/interop.toml) */
cudaError_t cudaIpcOpenEventHandle(cudaEvent_t *event, cudaIpcEventHandle_t handle)
{
    rgpu_call c;
    if (event == NULL) return rgpu_invalid_value(RGPU_RUNTIME);
    rgpu_begin(&c, RGPU_ID_cudaIpcOpenEventHandle, "cudaIpcOpenEventHandle", RGPU_RUNTIME, RGPU_FLAGS_cudaIpcOpenEventHandle);
    rgpu_put_b(&c, &handle, sizeof handle);
    int rc = rgpu_sync(&c);
    if (rc == 0) {
        *event = (__typeof__(*event))rgpu_out_h(&c);
    }
    rgpu_end(&c);
    return rc;
}

/* cudaIpcGetMemHandle: forward (protocol/contract/calls/interop.toml) */
cudaError_t cudaIpcGetMemHandle(cudaIpcMemHandle_t *handle, void *devPtr)
{
    rgpu_call c;
    if (handle == NULL) return rgpu_invalid_value(RGPU_RUNTIME);
    rgpu_begin(&c, RGPU_ID_cudaIpcGetMemHandle, "cudaIpcGetMemHandle", RGPU_RUNTIME, RGPU_FLAGS_cudaIpcGetMemHandle);
    rgpu_put_u(&c, (uint64_t)(uintptr_t)devPtr);
    int rc = rgpu_sync(&c);
    if (rc == 0) {
        rgpu_out_b(&c, handle, sizeof *handle);
    }
    rgpu_end(&c);
    return rc;
}

/* cudaIpcOpenMemHandle: forward (protocol/contract/calls/interop.toml) */
cudaError_t cudaIpcOpenMemHandle(void **devPtr, cudaIpcMemHandle_t handle, unsigned int flags)
{
    rgpu_call c;
    if (devPtr == NULL) return rgpu_invalid_value(RGPU_RUNTIME);
    rgpu_begin(&c, RGPU_ID_cudaIpcOpenMemHandle, "cudaIpcOpenMemHandle", RGPU_RUNTIME, RGPU_FLAGS_cudaIpcOpenMemHandle);
    rgpu_put_b(&c, &handle, sizeof handle);
    rgpu_put_u(&c, (uint64_t)flags);
    int rc = rgpu_sync(&c);
    if (rc == 0) {
        *devPtr = (void *)(uintptr_t)rgpu_out_u(&c);
    }
    rgpu_end(&c);
    return rc;
}

/* cudaIpcCloseMemHandle: forward (protocol/contract/calls/interop.toml) */
cudaError_t cudaIpcCloseMemHandle(void *devPtr)
{
    rgpu_call c;
    rgpu_begin(&c, RGPU_ID_cudaIpcCloseMemHandle, "cudaIpcCloseMemHandle", RGPU_RUNTIME, RGPU_FLAGS_cudaIpcCloseMemHandle);
    rgpu_put_u(&c, (uint64_t)(uintptr_t)devPtr);
    int rc = rgpu_sync(&c);
    rgpu_end(&c);
    return rc;
}

/* cudaDeviceFlushGPUDirectRDMAWrites: forward (protocol/contract/calls/context.toml) */
cudaError_t cudaDeviceFlushGPUDirectRDMAWrites(enum cudaFlushGPUDirectRDMAWritesTarget target, enum cudaFlushGPUDirectRDMAWritesScope scope)
{
    rgpu_call c;
    rgpu_begin(&c, RGPU_ID_cudaDeviceFlushGPUDirectRDMAWrites, "cudaDeviceFlushGPUDirectRDMAWrites", RGPU_RUNTIME, RGPU_FLAGS_cudaDeviceFlushGPUDirectRDMAWrites);
    rgpu_put_i(&c, (int64_t)target);
    rgpu_put_i(&c, (int64_t)scope);
    int rc = rgpu_sync(&c);
    rgpu_end(&c);
    return rc;
}

/* cudaDeviceRegisterAsyncNotification: not supported: host callbacks are not forwarded yet (protocol/contract/calls/device.toml) */
cudaError_t cudaDeviceRegisterAsyncNotification(int device, cudaAsyncCallback callbackFunc, void *userData, cudaAsyncCallbackHandle_t *callback)
{
    return rgpu_unsupported(RGPU_RUNTIME, "cudaDeviceRegisterAsyncNotification");
}

/* cudaDeviceUnregisterAsyncNotification: not supported: host callbacks are not forwarded yet (protocol/contract/calls/device.toml) */
cudaError_t cudaDeviceUnregisterAsyncNotification(int device, cudaAsyncCallbackHandle_t callback)
{
    return rgpu_unsupported(RGPU_RUNTIME, "cudaDeviceUnregisterAsyncNotification");
}

/* cudaDeviceGetSharedMemConfig: forward (protocol/contract/calls/memory.toml) */
cudaError_t cudaDeviceGetSharedMemConfig(enum cudaSharedMemConfig *pConfig)
{
    rgpu_call c;
    if (pConfig == NULL) return rgpu_invalid_value(RGPU_RUNTIME);
    rgpu_begin(&c, RGPU_ID_cudaDeviceGetSharedMemConfig, "cudaDeviceGetSharedMemConfig", RGPU_RUNTIME, RGPU_FLAGS_cudaDeviceGetSharedMemConfig);
    int rc = rgpu_sync(&c);
    if (rc == 0) {
        *pConfig = (__typeof__(*pConfig))rgpu_out_i(&c);
    }
    rgpu_end(&c);
    return rc;
}

/* cudaDeviceSetSharedMemConfig: forward (protocol/contract/calls/memory.toml) */
cudaError_t cudaDeviceSetSharedMemConfig(enum cudaSharedMemConfig config)
{
    rgpu_call c;
    rgpu_begin(&c, RGPU_ID_cudaDeviceSetSharedMemConfig, "cudaDeviceSetSharedMemConfig", RGPU_RUNTIME, RGPU_FLAGS_cudaDeviceSetSharedMemConfig);
    rgpu_put_i(&c, (int64_t)config);
    int rc = rgpu_sync(&c);
    rgpu_end(&c);
    return rc;
}

/* cudaDeviceGetHostAtomicCapabilities: not supported: takes arrays of operations: not forwarded yet (protocol/contract/calls/memory.toml) */
cudaError_t cudaDeviceGetHostAtomicCapabilities(unsigned int *capabilities, const enum cudaAtomicOperation *operations, unsigned int count, int device)
{
    return rgpu_unsupported(RGPU_RUNTIME, "cudaDeviceGetHostAtomicCapabilities");
}

/* cudaDeviceGetDefaultMemPool: forward (protocol/contract/calls/vmm.toml) */
cudaError_t cudaDeviceGetDefaultMemPool(cudaMemPool_t *memPool, int device)
{
    rgpu_call c;
    if (memPool == NULL) return rgpu_invalid_value(RGPU_RUNTIME);
    rgpu_begin(&c, RGPU_ID_cudaDeviceGetDefaultMemPool, "cudaDeviceGetDefaultMemPool", RGPU_RUNTIME, RGPU_FLAGS_cudaDeviceGetDefaultMemPool);
    rgpu_put_d(&c, device);
    int rc = rgpu_sync(&c);
    if (rc == 0) {
        *memPool = (__typeof__(*memPool))rgpu_out_h(&c);
    }
    rgpu_end(&c);
    return rc;
}

/* cudaDeviceSetMemPool: forward (protocol/contract/calls/vmm.toml) */
cudaError_t cudaDeviceSetMemPool(int device, cudaMemPool_t memPool)
{
    rgpu_call c;
    rgpu_begin(&c, RGPU_ID_cudaDeviceSetMemPool, "cudaDeviceSetMemPool", RGPU_RUNTIME, RGPU_FLAGS_cudaDeviceSetMemPool);
    rgpu_put_d(&c, device);
    rgpu_put_h(&c, memPool);
    int rc = rgpu_sync(&c);
    rgpu_end(&c);
    return rc;
}

/* cudaDeviceGetMemPool: forward (protocol/contract/calls/vmm.toml) */
cudaError_t cudaDeviceGetMemPool(cudaMemPool_t *memPool, int device)
{
    rgpu_call c;
    if (memPool == NULL) return rgpu_invalid_value(RGPU_RUNTIME);
    rgpu_begin(&c, RGPU_ID_cudaDeviceGetMemPool, "cudaDeviceGetMemPool", RGPU_RUNTIME, RGPU_FLAGS_cudaDeviceGetMemPool);
    rgpu_put_d(&c, device);
    int rc = rgpu_sync(&c);
    if (rc == 0) {
        *memPool = (__typeof__(*memPool))rgpu_out_h(&c);
    }
    rgpu_end(&c);
    return rc;
}

/* cudaDeviceGetNvSciSyncAttributes: not supported: NvSciSync is not forwarded (protocol/contract/calls/interop.toml) */
cudaError_t cudaDeviceGetNvSciSyncAttributes(void *nvSciSyncAttrList, int device, int flags)
{
    return rgpu_unsupported(RGPU_RUNTIME, "cudaDeviceGetNvSciSyncAttributes");
}

/* cudaDeviceGetP2PAtomicCapabilities: not supported: takes arrays of operations: not forwarded yet (protocol/contract/calls/memory.toml) */
cudaError_t cudaDeviceGetP2PAtomicCapabilities(unsigned int *capabilities, const enum cudaAtomicOperation *operations, unsigned int count, int srcDevice, int dstDevice)
{
    return rgpu_unsupported(RGPU_RUNTIME, "cudaDeviceGetP2PAtomicCapabilities");
}

/* cudaSetValidDevices: not supported: the device list is the client's: not implemented yet (protocol/contract/calls/device.toml) */
cudaError_t cudaSetValidDevices(int *device_arr, int len)
{
    return rgpu_unsupported(RGPU_RUNTIME, "cudaSetValidDevices");
}

/* cudaStreamCreate: forward (protocol/contract/calls/stream.toml) */
cudaError_t cudaStreamCreate(cudaStream_t *pStream)
{
    rgpu_call c;
    if (pStream == NULL) return rgpu_invalid_value(RGPU_RUNTIME);
    rgpu_begin(&c, RGPU_ID_cudaStreamCreate, "cudaStreamCreate", RGPU_RUNTIME, RGPU_FLAGS_cudaStreamCreate);
    int rc = rgpu_sync(&c);
    if (rc == 0) {
        *pStream = (__typeof__(*pStream))rgpu_out_h(&c);
    }
    rgpu_end(&c);
    return rc;
}

/* cudaStreamCreateWithFlags: forward (protocol/contract/calls/stream.toml) */
cudaError_t cudaStreamCreateWithFlags(cudaStream_t *pStream, unsigned int flags)
{
    rgpu_call c;
    if (pStream == NULL) return rgpu_invalid_value(RGPU_RUNTIME);
    rgpu_begin(&c, RGPU_ID_cudaStreamCreateWithFlags, "cudaStreamCreateWithFlags", RGPU_RUNTIME, RGPU_FLAGS_cudaStreamCreateWithFlags);
    rgpu_put_u(&c, (uint64_t)flags);
    int rc = rgpu_sync(&c);
    if (rc == 0) {
        *pStream = (__typeof__(*pStream))rgpu_out_h(&c);
    }
    rgpu_end(&c);
    return rc;
}

/* cudaStreamCreateWithPriority: forward (protocol/contract/calls/stream.toml) */
cudaError_t cudaStreamCreateWithPriority(cudaStream_t *pStream, unsigned int flags, int priority)
{
    rgpu_call c;
    if (pStream == NULL) return rgpu_invalid_value(RGPU_RUNTIME);
    rgpu_begin(&c, RGPU_ID_cudaStreamCreateWithPriority, "cudaStreamCreateWithPriority", RGPU_RUNTIME, RGPU_FLAGS_cudaStreamCreateWithPriority);
    rgpu_put_u(&c, (uint64_t)flags);
    rgpu_put_i(&c, (int64_t)priority);
    int rc = rgpu_sync(&c);
    if (rc == 0) {
        *pStream = (__typeof__(*pStream))rgpu_out_h(&c);
    }
    rgpu_end(&c);
    return rc;
}

/* cudaStreamGetPriority: forward (protocol/contract/calls/stream.toml) */
cudaError_t cudaStreamGetPriority(cudaStream_t hStream, int *priority)
{
    rgpu_call c;
    if (priority == NULL) return rgpu_invalid_value(RGPU_RUNTIME);
    rgpu_begin(&c, RGPU_ID_cudaStreamGetPriority, "cudaStreamGetPriority", RGPU_RUNTIME, RGPU_FLAGS_cudaStreamGetPriority);
    rgpu_put_h(&c, hStream);
    int rc = rgpu_sync(&c);
    if (rc == 0) {
        *priority = (__typeof__(*priority))rgpu_out_i(&c);
    }
    rgpu_end(&c);
    return rc;
}

/* cudaStreamGetFlags: forward (protocol/contract/calls/stream.toml) */
cudaError_t cudaStreamGetFlags(cudaStream_t hStream, unsigned int *flags)
{
    rgpu_call c;
    if (flags == NULL) return rgpu_invalid_value(RGPU_RUNTIME);
    rgpu_begin(&c, RGPU_ID_cudaStreamGetFlags, "cudaStreamGetFlags", RGPU_RUNTIME, RGPU_FLAGS_cudaStreamGetFlags);
    rgpu_put_h(&c, hStream);
    int rc = rgpu_sync(&c);
    if (rc == 0) {
        *flags = (__typeof__(*flags))rgpu_out_u(&c);
    }
    rgpu_end(&c);
    return rc;
}

/* cudaStreamGetId: forward (protocol/contract/calls/stream.toml) */
cudaError_t cudaStreamGetId(cudaStream_t hStream, unsigned long long *streamId)
{
    rgpu_call c;
    if (streamId == NULL) return rgpu_invalid_value(RGPU_RUNTIME);
    rgpu_begin(&c, RGPU_ID_cudaStreamGetId, "cudaStreamGetId", RGPU_RUNTIME, RGPU_FLAGS_cudaStreamGetId);
    rgpu_put_h(&c, hStream);
    int rc = rgpu_sync(&c);
    if (rc == 0) {
        *streamId = (__typeof__(*streamId))rgpu_out_u(&c);
    }
    rgpu_end(&c);
    return rc;
}

/* cudaCtxResetPersistingL2Cache: forward (protocol/contract/calls/context.toml) */
cudaError_t cudaCtxResetPersistingL2Cache(void)
{
    rgpu_call c;
    rgpu_begin(&c, RGPU_ID_cudaCtxResetPersistingL2Cache, "cudaCtxResetPersistingL2Cache", RGPU_RUNTIME, RGPU_FLAGS_cudaCtxResetPersistingL2Cache);
    int rc = rgpu_sync(&c);
    rgpu_end(&c);
    return rc;
}

/* cudaStreamCopyAttributes: forward (protocol/contract/calls/stream.toml) */
cudaError_t cudaStreamCopyAttributes(cudaStream_t dst, cudaStream_t src)
{
    rgpu_call c;
    rgpu_begin(&c, RGPU_ID_cudaStreamCopyAttributes, "cudaStreamCopyAttributes", RGPU_RUNTIME, RGPU_FLAGS_cudaStreamCopyAttributes);
    rgpu_put_h(&c, dst);
    rgpu_put_h(&c, src);
    int rc = rgpu_sync(&c);
    rgpu_end(&c);
    return rc;
}

/* cudaStreamGetAttribute: forward (protocol/contract/calls/stream.toml) */
cudaError_t cudaStreamGetAttribute(cudaStream_t hStream, cudaLaunchAttributeID attr, cudaLaunchAttributeValue *value_out)
{
    rgpu_call c;
    if (value_out == NULL) return rgpu_invalid_value(RGPU_RUNTIME);
    rgpu_begin(&c, RGPU_ID_cudaStreamGetAttribute, "cudaStreamGetAttribute", RGPU_RUNTIME, RGPU_FLAGS_cudaStreamGetAttribute);
    rgpu_put_h(&c, hStream);
    rgpu_put_i(&c, (int64_t)attr);
    int rc = rgpu_sync(&c);
    if (rc == 0) {
        rgpu_out_b(&c, value_out, sizeof *value_out);
    }
    rgpu_end(&c);
    return rc;
}

/* cudaStreamSetAttribute: forward (protocol/contract/calls/stream.toml) */
cudaError_t cudaStreamSetAttribute(cudaStream_t hStream, cudaLaunchAttributeID attr, const cudaLaunchAttributeValue *value)
{
    rgpu_call c;
    rgpu_begin(&c, RGPU_ID_cudaStreamSetAttribute, "cudaStreamSetAttribute", RGPU_RUNTIME, RGPU_FLAGS_cudaStreamSetAttribute);
    rgpu_put_h(&c, hStream);
    rgpu_put_i(&c, (int64_t)attr);
    rgpu_put_b(&c, value, sizeof *value);
    int rc = rgpu_sync(&c);
    rgpu_end(&c);
    return rc;
}

/* cudaStreamDestroy: forward (protocol/contract/calls/stream.toml) */
cudaError_t cudaStreamDestroy(cudaStream_t stream)
{
    rgpu_call c;
    rgpu_begin(&c, RGPU_ID_cudaStreamDestroy, "cudaStreamDestroy", RGPU_RUNTIME, RGPU_FLAGS_cudaStreamDestroy);
    rgpu_put_h(&c, stream);
    int rc = rgpu_sync(&c);
    rgpu_end(&c);
    return rc;
}

/* cudaStreamWaitEvent: forward (async) (protocol/contract/calls/stream.toml) */
cudaError_t cudaStreamWaitEvent(cudaStream_t stream, cudaEvent_t event, unsigned int flags)
{
    rgpu_call c;
    { int crc; if (rgpu_capture_cudaStreamWaitEvent(&crc, stream, event, flags)) return crc; }
    rgpu_begin(&c, RGPU_ID_cudaStreamWaitEvent, "cudaStreamWaitEvent", RGPU_RUNTIME, RGPU_FLAGS_cudaStreamWaitEvent);
    rgpu_put_h(&c, stream);
    rgpu_put_h(&c, event);
    rgpu_put_u(&c, (uint64_t)flags);
    return rgpu_async(&c);
}

/* cudaStreamSynchronize: forward (protocol/contract/calls/stream.toml) */
cudaError_t cudaStreamSynchronize(cudaStream_t stream)
{
    rgpu_call c;
    { int crc = rgpu_capture_guard(RGPU_RUNTIME, stream, 1); if (crc) return crc; }
    rgpu_begin(&c, RGPU_ID_cudaStreamSynchronize, "cudaStreamSynchronize", RGPU_RUNTIME, RGPU_FLAGS_cudaStreamSynchronize);
    rgpu_put_h(&c, stream);
    int rc = rgpu_sync(&c);
    rgpu_end(&c);
    return rc;
}

/* cudaStreamQuery: forward (protocol/contract/calls/stream.toml) */
cudaError_t cudaStreamQuery(cudaStream_t stream)
{
    rgpu_call c;
    { int crc = rgpu_capture_guard(RGPU_RUNTIME, stream, 1); if (crc) return crc; }
    rgpu_begin(&c, RGPU_ID_cudaStreamQuery, "cudaStreamQuery", RGPU_RUNTIME, RGPU_FLAGS_cudaStreamQuery);
    rgpu_put_h(&c, stream);
    int rc = rgpu_sync(&c);
    rgpu_end(&c);
    return rc;
}

/* cudaEventCreate: forward (protocol/contract/calls/stream.toml) */
cudaError_t cudaEventCreate(cudaEvent_t *event)
{
    rgpu_call c;
    if (event == NULL) return rgpu_invalid_value(RGPU_RUNTIME);
    rgpu_begin(&c, RGPU_ID_cudaEventCreate, "cudaEventCreate", RGPU_RUNTIME, RGPU_FLAGS_cudaEventCreate);
    int rc = rgpu_sync(&c);
    if (rc == 0) {
        *event = (__typeof__(*event))rgpu_out_h(&c);
    }
    rgpu_end(&c);
    return rc;
}

/* cudaEventCreateWithFlags: forward (protocol/contract/calls/stream.toml) */
cudaError_t cudaEventCreateWithFlags(cudaEvent_t *event, unsigned int flags)
{
    rgpu_call c;
    if (event == NULL) return rgpu_invalid_value(RGPU_RUNTIME);
    rgpu_begin(&c, RGPU_ID_cudaEventCreateWithFlags, "cudaEventCreateWithFlags", RGPU_RUNTIME, RGPU_FLAGS_cudaEventCreateWithFlags);
    rgpu_put_u(&c, (uint64_t)flags);
    int rc = rgpu_sync(&c);
    if (rc == 0) {
        *event = (__typeof__(*event))rgpu_out_h(&c);
    }
    rgpu_end(&c);
    return rc;
}

/* cudaEventRecord: forward (async) (protocol/contract/calls/stream.toml) */
cudaError_t cudaEventRecord(cudaEvent_t event, cudaStream_t stream)
{
    rgpu_call c;
    { int crc; if (rgpu_capture_cudaEventRecord(&crc, event, stream)) return crc; }
    rgpu_begin(&c, RGPU_ID_cudaEventRecord, "cudaEventRecord", RGPU_RUNTIME, RGPU_FLAGS_cudaEventRecord);
    rgpu_put_h(&c, event);
    rgpu_put_h(&c, stream);
    return rgpu_async(&c);
}

/* cudaEventRecordWithFlags: forward (async) (protocol/contract/calls/stream.toml) */
cudaError_t cudaEventRecordWithFlags(cudaEvent_t event, cudaStream_t stream, unsigned int flags)
{
    rgpu_call c;
    { int crc; if (rgpu_capture_cudaEventRecordWithFlags(&crc, event, stream, flags)) return crc; }
    rgpu_begin(&c, RGPU_ID_cudaEventRecordWithFlags, "cudaEventRecordWithFlags", RGPU_RUNTIME, RGPU_FLAGS_cudaEventRecordWithFlags);
    rgpu_put_h(&c, event);
    rgpu_put_h(&c, stream);
    rgpu_put_u(&c, (uint64_t)flags);
    return rgpu_async(&c);
}

/* cudaEventQuery: forward (protocol/contract/calls/stream.toml) */
cudaError_t cudaEventQuery(cudaEvent_t event)
{
    rgpu_call c;
    { int crc; if (rgpu_capture_cudaEventQuery(&crc, event)) return crc; }
    rgpu_begin(&c, RGPU_ID_cudaEventQuery, "cudaEventQuery", RGPU_RUNTIME, RGPU_FLAGS_cudaEventQuery);
    rgpu_put_h(&c, event);
    int rc = rgpu_sync(&c);
    rgpu_end(&c);
    return rc;
}

/* cudaEventSynchronize: forward (protocol/contract/calls/stream.toml) */
cudaError_t cudaEventSynchronize(cudaEvent_t event)
{
    rgpu_call c;
    { int crc; if (rgpu_capture_cudaEventSynchronize(&crc, event)) return crc; }
    rgpu_begin(&c, RGPU_ID_cudaEventSynchronize, "cudaEventSynchronize", RGPU_RUNTIME, RGPU_FLAGS_cudaEventSynchronize);
    rgpu_put_h(&c, event);
    int rc = rgpu_sync(&c);
    rgpu_end(&c);
    return rc;
}

/* cudaEventDestroy: forward (protocol/contract/calls/stream.toml) */
cudaError_t cudaEventDestroy(cudaEvent_t event)
{
    rgpu_call c;
    rgpu_begin(&c, RGPU_ID_cudaEventDestroy, "cudaEventDestroy", RGPU_RUNTIME, RGPU_FLAGS_cudaEventDestroy);
    rgpu_put_h(&c, event);
    int rc = rgpu_sync(&c);
    rgpu_end(&c);
    return rc;
}

/* cudaEventElapsedTime: forward (protocol/contract/calls/stream.toml) */
cudaError_t cudaEventElapsedTime(float *ms, cudaEvent_t start, cudaEvent_t end)
{
    rgpu_call c;
    if (ms == NULL) return rgpu_invalid_value(RGPU_RUNTIME);
    rgpu_begin(&c, RGPU_ID_cudaEventElapsedTime, "cudaEventElapsedTime", RGPU_RUNTIME, RGPU_FLAGS_cudaEventElapsedTime);
    rgpu_put_h(&c, start);
    rgpu_put_h(&c, end);
    int rc = rgpu_sync(&c);
    if (rc == 0) {
        *ms = (__typeof__(*ms))rgpu_out_f(&c);
    }
    rgpu_end(&c);
    return rc;
}

/* cudaImportExternalMemory: not supported: external memory and semaphores are not forwarded (protocol/contract/calls/interop.toml) */
cudaError_t cudaImportExternalMemory(cudaExternalMemory_t *extMem_out, const struct cudaExternalMemoryHandleDesc *memHandleDesc)
{
    return rgpu_unsupported(RGPU_RUNTIME, "cudaImportExternalMemory");
}

/* cudaExternalMemoryGetMappedBuffer: not supported: external memory and semaphores are not forwarded (protocol/contract/calls/interop.toml) */
cudaError_t cudaExternalMemoryGetMappedBuffer(void **devPtr, cudaExternalMemory_t extMem, const struct cudaExternalMemoryBufferDesc *bufferDesc)
{
    return rgpu_unsupported(RGPU_RUNTIME, "cudaExternalMemoryGetMappedBuffer");
}

/* cudaExternalMemoryGetMappedMipmappedArray: not supported: external memory and semaphores are not forwarded (protocol/contract/calls/interop.toml) */
cudaError_t cudaExternalMemoryGetMappedMipmappedArray(cudaMipmappedArray_t *mipmap, cudaExternalMemory_t extMem, const struct cudaExternalMemoryMipmappedArrayDesc *mipmapDesc)
{
    return rgpu_unsupported(RGPU_RUNTIME, "cudaExternalMemoryGetMappedMipmappedArray");
}

/* cudaDestroyExternalMemory: not supported: external memory and semaphores are not forwarded (protocol/contract/calls/interop.toml) */
cudaError_t cudaDestroyExternalMemory(cudaExternalMemory_t extMem)
{
    return rgpu_unsupported(RGPU_RUNTIME, "cudaDestroyExternalMemory");
}

/* cudaImportExternalSemaphore: not supported: external memory and semaphores are not forwarded (protocol/contract/calls/interop.toml) */
cudaError_t cudaImportExternalSemaphore(cudaExternalSemaphore_t *extSem_out, const struct cudaExternalSemaphoreHandleDesc *semHandleDesc)
{
    return rgpu_unsupported(RGPU_RUNTIME, "cudaImportExternalSemaphore");
}

/* cudaSignalExternalSemaphoresAsync: not supported: external memory and semaphores are not forwarded (protocol/contract/calls/interop.toml) */
cudaError_t cudaSignalExternalSemaphoresAsync(const cudaExternalSemaphore_t *extSemArray, const struct cudaExternalSemaphoreSignalParams *paramsArray, unsigned int numExtSems, cudaStream_t stream)
{
    return rgpu_unsupported(RGPU_RUNTIME, "cudaSignalExternalSemaphoresAsync");
}

/* cudaWaitExternalSemaphoresAsync: not supported: external memory and semaphores are not forwarded (protocol/contract/calls/interop.toml) */
cudaError_t cudaWaitExternalSemaphoresAsync(const cudaExternalSemaphore_t *extSemArray, const struct cudaExternalSemaphoreWaitParams *paramsArray, unsigned int numExtSems, cudaStream_t stream)
{
    return rgpu_unsupported(RGPU_RUNTIME, "cudaWaitExternalSemaphoresAsync");
}

/* cudaDestroyExternalSemaphore: not supported: external memory and semaphores are not forwarded (protocol/contract/calls/interop.toml) */
cudaError_t cudaDestroyExternalSemaphore(cudaExternalSemaphore_t extSem)
{
    return rgpu_unsupported(RGPU_RUNTIME, "cudaDestroyExternalSemaphore");
}

/* cudaMemGetInfo: forward (protocol/contract/calls/memory.toml) */
cudaError_t cudaMemGetInfo(size_t *free, size_t *total)
{
    rgpu_call c;
    if (free == NULL) return rgpu_invalid_value(RGPU_RUNTIME);
    if (total == NULL) return rgpu_invalid_value(RGPU_RUNTIME);
    rgpu_begin(&c, RGPU_ID_cudaMemGetInfo, "cudaMemGetInfo", RGPU_RUNTIME, RGPU_FLAGS_cudaMemGetInfo);
    int rc = rgpu_sync(&c);
    if (rc == 0) {
        *free = (__typeof__(*free))rgpu_out_u(&c);
        *total = (__typeof__(*total))rgpu_out_u(&c);
    }
    rgpu_end(&c);
    return rc;
}

/* cudaArrayGetPlane: not supported: multi-planar formats (NV12, ...) are not served (protocol/contract/calls/texture.toml) */
cudaError_t cudaArrayGetPlane(cudaArray_t *pPlaneArray, cudaArray_t hArray, unsigned int planeIdx)
{
    return rgpu_unsupported(RGPU_RUNTIME, "cudaArrayGetPlane");
}

/* cudaArrayGetMemoryRequirements: not supported: deferred-mapping CUDA arrays are not served (protocol/contract/calls/texture.toml) */
cudaError_t cudaArrayGetMemoryRequirements(struct cudaArrayMemoryRequirements *memoryRequirements, cudaArray_t array, int device)
{
    return rgpu_unsupported(RGPU_RUNTIME, "cudaArrayGetMemoryRequirements");
}

/* cudaMipmappedArrayGetMemoryRequirements: not supported: deferred-mapping CUDA arrays are not served (protocol/contract/calls/texture.toml) */
cudaError_t cudaMipmappedArrayGetMemoryRequirements(struct cudaArrayMemoryRequirements *memoryRequirements, cudaMipmappedArray_t mipmap, int device)
{
    return rgpu_unsupported(RGPU_RUNTIME, "cudaMipmappedArrayGetMemoryRequirements");
}

/* cudaArrayGetSparseProperties: not supported: sparse CUDA arrays are not served (protocol/contract/calls/texture.toml) */
cudaError_t cudaArrayGetSparseProperties(struct cudaArraySparseProperties *sparseProperties, cudaArray_t array)
{
    return rgpu_unsupported(RGPU_RUNTIME, "cudaArrayGetSparseProperties");
}

/* cudaMipmappedArrayGetSparseProperties: not supported: sparse CUDA arrays are not served (protocol/contract/calls/texture.toml) */
cudaError_t cudaMipmappedArrayGetSparseProperties(struct cudaArraySparseProperties *sparseProperties, cudaMipmappedArray_t mipmap)
{
    return rgpu_unsupported(RGPU_RUNTIME, "cudaMipmappedArrayGetSparseProperties");
}

/* cudaMemset: forward (protocol/contract/calls/memory.toml) */
cudaError_t cudaMemset(void *devPtr, int value, size_t count)
{
    rgpu_call c;
    { int crc = rgpu_capture_guard(RGPU_RUNTIME, NULL, 1); if (crc) return crc; }
    rgpu_begin(&c, RGPU_ID_cudaMemset, "cudaMemset", RGPU_RUNTIME, RGPU_FLAGS_cudaMemset);
    rgpu_put_u(&c, (uint64_t)(uintptr_t)devPtr);
    rgpu_put_i(&c, (int64_t)value);
    rgpu_put_u(&c, (uint64_t)count);
    int rc = rgpu_sync(&c);
    rgpu_end(&c);
    return rc;
}

/* cudaMemset2D: forward (protocol/contract/calls/memory.toml) */
cudaError_t cudaMemset2D(void *devPtr, size_t pitch, int value, size_t width, size_t height)
{
    rgpu_call c;
    { int crc = rgpu_capture_guard(RGPU_RUNTIME, NULL, 1); if (crc) return crc; }
    rgpu_begin(&c, RGPU_ID_cudaMemset2D, "cudaMemset2D", RGPU_RUNTIME, RGPU_FLAGS_cudaMemset2D);
    rgpu_put_u(&c, (uint64_t)(uintptr_t)devPtr);
    rgpu_put_u(&c, (uint64_t)pitch);
    rgpu_put_i(&c, (int64_t)value);
    rgpu_put_u(&c, (uint64_t)width);
    rgpu_put_u(&c, (uint64_t)height);
    int rc = rgpu_sync(&c);
    rgpu_end(&c);
    return rc;
}

/* cudaMemsetAsync: forward (async) (protocol/contract/calls/memory.toml) */
cudaError_t cudaMemsetAsync(void *devPtr, int value, size_t count, cudaStream_t stream)
{
    rgpu_call c;
    { int crc; if (rgpu_capture_cudaMemsetAsync(&crc, devPtr, value, count, stream)) return crc; }
    rgpu_begin(&c, RGPU_ID_cudaMemsetAsync, "cudaMemsetAsync", RGPU_RUNTIME, RGPU_FLAGS_cudaMemsetAsync);
    rgpu_put_u(&c, (uint64_t)(uintptr_t)devPtr);
    rgpu_put_i(&c, (int64_t)value);
    rgpu_put_u(&c, (uint64_t)count);
    rgpu_put_h(&c, stream);
    return rgpu_async(&c);
}

/* cudaMemset2DAsync: forward (async) (protocol/contract/calls/memory.toml) */
cudaError_t cudaMemset2DAsync(void *devPtr, size_t pitch, int value, size_t width, size_t height, cudaStream_t stream)
{
    rgpu_call c;
    { int crc; if (rgpu_capture_cudaMemset2DAsync(&crc, devPtr, pitch, value, width, height, stream)) return crc; }
    rgpu_begin(&c, RGPU_ID_cudaMemset2DAsync, "cudaMemset2DAsync", RGPU_RUNTIME, RGPU_FLAGS_cudaMemset2DAsync);
    rgpu_put_u(&c, (uint64_t)(uintptr_t)devPtr);
    rgpu_put_u(&c, (uint64_t)pitch);
    rgpu_put_i(&c, (int64_t)value);
    rgpu_put_u(&c, (uint64_t)width);
    rgpu_put_u(&c, (uint64_t)height);
    rgpu_put_h(&c, stream);
    return rgpu_async(&c);
}

/* cudaMallocAsync: forward (protocol/contract/calls/memory.toml) */
cudaError_t cudaMallocAsync(void **devPtr, size_t size, cudaStream_t hStream)
{
    rgpu_call c;
    if (devPtr == NULL) return rgpu_invalid_value(RGPU_RUNTIME);
    { int crc; if (rgpu_capture_cudaMallocAsync(&crc, devPtr, size, hStream)) return crc; }
    rgpu_begin(&c, RGPU_ID_cudaMallocAsync, "cudaMallocAsync", RGPU_RUNTIME, RGPU_FLAGS_cudaMallocAsync);
    rgpu_put_u(&c, (uint64_t)size);
    rgpu_put_h(&c, hStream);
    int rc = rgpu_sync(&c);
    if (rc == 0) {
        *devPtr = (void *)(uintptr_t)rgpu_out_u(&c);
    }
    rgpu_end(&c);
    return rc;
}

/* cudaFreeAsync: forward (async) (protocol/contract/calls/memory.toml) */
cudaError_t cudaFreeAsync(void *devPtr, cudaStream_t hStream)
{
    rgpu_call c;
    rgpu_allocs_forget(-1, (uint64_t)(uintptr_t)devPtr);
    { int crc; if (rgpu_capture_cudaFreeAsync(&crc, devPtr, hStream)) return crc; }
    rgpu_begin(&c, RGPU_ID_cudaFreeAsync, "cudaFreeAsync", RGPU_RUNTIME, RGPU_FLAGS_cudaFreeAsync);
    rgpu_put_u(&c, (uint64_t)(uintptr_t)devPtr);
    rgpu_put_h(&c, hStream);
    return rgpu_async(&c);
}

/* cudaMemPoolTrimTo: forward (protocol/contract/calls/vmm.toml) */
cudaError_t cudaMemPoolTrimTo(cudaMemPool_t memPool, size_t minBytesToKeep)
{
    rgpu_call c;
    rgpu_begin(&c, RGPU_ID_cudaMemPoolTrimTo, "cudaMemPoolTrimTo", RGPU_RUNTIME, RGPU_FLAGS_cudaMemPoolTrimTo);
    rgpu_put_h(&c, memPool);
    rgpu_put_u(&c, (uint64_t)minBytesToKeep);
    int rc = rgpu_sync(&c);
    rgpu_end(&c);
    return rc;
}

/* cudaMemPoolSetAccess: forward (protocol/contract/calls/vmm.toml) */
cudaError_t cudaMemPoolSetAccess(cudaMemPool_t memPool, const struct cudaMemAccessDesc *descList, size_t count)
{
    rgpu_call c;
    if (descList == NULL && (count) != 0) return rgpu_invalid_value(RGPU_RUNTIME);
    rgpu_begin(&c, RGPU_ID_cudaMemPoolSetAccess, "cudaMemPoolSetAccess", RGPU_RUNTIME, RGPU_FLAGS_cudaMemPoolSetAccess);
    rgpu_put_h(&c, memPool);
    rgpu_put_b(&c, descList, (size_t)(count) * sizeof *descList);
    rgpu_put_u(&c, (uint64_t)count);
    int rc = rgpu_sync(&c);
    rgpu_end(&c);
    return rc;
}

/* cudaMemPoolGetAccess: forward (protocol/contract/calls/vmm.toml) */
cudaError_t cudaMemPoolGetAccess(enum cudaMemAccessFlags *flags, cudaMemPool_t memPool, struct cudaMemLocation *location)
{
    rgpu_call c;
    if (flags == NULL) return rgpu_invalid_value(RGPU_RUNTIME);
    rgpu_begin(&c, RGPU_ID_cudaMemPoolGetAccess, "cudaMemPoolGetAccess", RGPU_RUNTIME, RGPU_FLAGS_cudaMemPoolGetAccess);
    rgpu_put_h(&c, memPool);
    rgpu_put_b(&c, location, sizeof *location);
    int rc = rgpu_sync(&c);
    if (rc == 0) {
        *flags = (__typeof__(*flags))rgpu_out_i(&c);
    }
    rgpu_end(&c);
    return rc;
}

/* cudaMemPoolCreate: forward (protocol/contract/calls/vmm.toml) */
cudaError_t cudaMemPoolCreate(cudaMemPool_t *memPool, const struct cudaMemPoolProps *poolProps)
{
    rgpu_call c;
    if (memPool == NULL) return rgpu_invalid_value(RGPU_RUNTIME);
    rgpu_begin(&c, RGPU_ID_cudaMemPoolCreate, "cudaMemPoolCreate", RGPU_RUNTIME, RGPU_FLAGS_cudaMemPoolCreate);
    rgpu_put_b(&c, poolProps, sizeof *poolProps);
    int rc = rgpu_sync(&c);
    if (rc == 0) {
        *memPool = (__typeof__(*memPool))rgpu_out_h(&c);
    }
    rgpu_end(&c);
    return rc;
}

/* cudaMemPoolDestroy: forward (protocol/contract/calls/vmm.toml) */
cudaError_t cudaMemPoolDestroy(cudaMemPool_t memPool)
{
    rgpu_call c;
    rgpu_begin(&c, RGPU_ID_cudaMemPoolDestroy, "cudaMemPoolDestroy", RGPU_RUNTIME, RGPU_FLAGS_cudaMemPoolDestroy);
    rgpu_put_h(&c, memPool);
    int rc = rgpu_sync(&c);
    rgpu_end(&c);
    return rc;
}

/* cudaMemGetDefaultMemPool: forward (protocol/contract/calls/vmm.toml) */
cudaError_t cudaMemGetDefaultMemPool(cudaMemPool_t *memPool, struct cudaMemLocation *location, enum cudaMemAllocationType type)
{
    rgpu_call c;
    if (memPool == NULL) return rgpu_invalid_value(RGPU_RUNTIME);
    rgpu_begin(&c, RGPU_ID_cudaMemGetDefaultMemPool, "cudaMemGetDefaultMemPool", RGPU_RUNTIME, RGPU_FLAGS_cudaMemGetDefaultMemPool);
    rgpu_put_b(&c, location, sizeof *location);
    rgpu_put_i(&c, (int64_t)type);
    int rc = rgpu_sync(&c);
    if (rc == 0) {
        *memPool = (__typeof__(*memPool))rgpu_out_h(&c);
    }
    rgpu_end(&c);
    return rc;
}

/* cudaMemGetMemPool: forward (protocol/contract/calls/vmm.toml) */
cudaError_t cudaMemGetMemPool(cudaMemPool_t *memPool, struct cudaMemLocation *location, enum cudaMemAllocationType type)
{
    rgpu_call c;
    if (memPool == NULL) return rgpu_invalid_value(RGPU_RUNTIME);
    rgpu_begin(&c, RGPU_ID_cudaMemGetMemPool, "cudaMemGetMemPool", RGPU_RUNTIME, RGPU_FLAGS_cudaMemGetMemPool);
    rgpu_put_b(&c, location, sizeof *location);
    rgpu_put_i(&c, (int64_t)type);
    int rc = rgpu_sync(&c);
    if (rc == 0) {
        *memPool = (__typeof__(*memPool))rgpu_out_h(&c);
    }
    rgpu_end(&c);
    return rc;
}

/* cudaMemSetMemPool: forward (protocol/contract/calls/vmm.toml) */
cudaError_t cudaMemSetMemPool(struct cudaMemLocation *location, enum cudaMemAllocationType type, cudaMemPool_t memPool)
{
    rgpu_call c;
    rgpu_begin(&c, RGPU_ID_cudaMemSetMemPool, "cudaMemSetMemPool", RGPU_RUNTIME, RGPU_FLAGS_cudaMemSetMemPool);
    rgpu_put_b(&c, location, sizeof *location);
    rgpu_put_i(&c, (int64_t)type);
    rgpu_put_h(&c, memPool);
    int rc = rgpu_sync(&c);
    rgpu_end(&c);
    return rc;
}

/* cudaMallocFromPoolAsync: forward (protocol/contract/calls/vmm.toml) */
cudaError_t cudaMallocFromPoolAsync(void **ptr, size_t size, cudaMemPool_t memPool, cudaStream_t stream)
{
    rgpu_call c;
    if (ptr == NULL) return rgpu_invalid_value(RGPU_RUNTIME);
    { int crc = rgpu_capture_guard(RGPU_RUNTIME, stream, 1); if (crc) return crc; }
    rgpu_begin(&c, RGPU_ID_cudaMallocFromPoolAsync, "cudaMallocFromPoolAsync", RGPU_RUNTIME, RGPU_FLAGS_cudaMallocFromPoolAsync);
    rgpu_put_u(&c, (uint64_t)size);
    rgpu_put_h(&c, memPool);
    rgpu_put_h(&c, stream);
    int rc = rgpu_sync(&c);
    if (rc == 0) {
        *ptr = (void *)(uintptr_t)rgpu_out_u(&c);
    }
    rgpu_end(&c);
    return rc;
}

/* cudaMemPoolExportToShareableHandle: not supported: shareable handles are OS handles of the server (protocol/contract/calls/vmm.toml) */
cudaError_t cudaMemPoolExportToShareableHandle(void *shareableHandle, cudaMemPool_t memPool, enum cudaMemAllocationHandleType handleType, unsigned int flags)
{
    return rgpu_unsupported(RGPU_RUNTIME, "cudaMemPoolExportToShareableHandle");
}

/* cudaMemPoolImportFromShareableHandle: not supported: shareable handles are OS handles of the server (protocol/contract/calls/vmm.toml) */
cudaError_t cudaMemPoolImportFromShareableHandle(cudaMemPool_t *memPool, void *shareableHandle, enum cudaMemAllocationHandleType handleType, unsigned int flags)
{
    return rgpu_unsupported(RGPU_RUNTIME, "cudaMemPoolImportFromShareableHandle");
}

/* cudaMemPoolExportPointer: not supported: pool IPC is not forwarded (protocol/contract/calls/vmm.toml) */
cudaError_t cudaMemPoolExportPointer(struct cudaMemPoolPtrExportData *exportData, void *ptr)
{
    return rgpu_unsupported(RGPU_RUNTIME, "cudaMemPoolExportPointer");
}

/* cudaMemPoolImportPointer: not supported: pool IPC is not forwarded (protocol/contract/calls/vmm.toml) */
cudaError_t cudaMemPoolImportPointer(void **ptr, cudaMemPool_t memPool, struct cudaMemPoolPtrExportData *exportData)
{
    return rgpu_unsupported(RGPU_RUNTIME, "cudaMemPoolImportPointer");
}

/* cudaGraphicsUnregisterResource: not supported: graphics interop needs a local display (protocol/contract/calls/interop.toml) */
cudaError_t cudaGraphicsUnregisterResource(cudaGraphicsResource_t resource)
{
    return rgpu_unsupported(RGPU_RUNTIME, "cudaGraphicsUnregisterResource");
}

/* cudaGraphicsResourceSetMapFlags: not supported: graphics interop needs a local display (protocol/contract/calls/interop.toml) */
cudaError_t cudaGraphicsResourceSetMapFlags(cudaGraphicsResource_t resource, unsigned int flags)
{
    return rgpu_unsupported(RGPU_RUNTIME, "cudaGraphicsResourceSetMapFlags");
}

/* cudaGraphicsMapResources: not supported: graphics interop needs a local display (protocol/contract/calls/interop.toml) */
cudaError_t cudaGraphicsMapResources(int count, cudaGraphicsResource_t *resources, cudaStream_t stream)
{
    return rgpu_unsupported(RGPU_RUNTIME, "cudaGraphicsMapResources");
}

/* cudaGraphicsUnmapResources: not supported: graphics interop needs a local display (protocol/contract/calls/interop.toml) */
cudaError_t cudaGraphicsUnmapResources(int count, cudaGraphicsResource_t *resources, cudaStream_t stream)
{
    return rgpu_unsupported(RGPU_RUNTIME, "cudaGraphicsUnmapResources");
}

/* cudaGraphicsResourceGetMappedPointer: not supported: graphics interop needs a local display (protocol/contract/calls/interop.toml) */
cudaError_t cudaGraphicsResourceGetMappedPointer(void **devPtr, size_t *size, cudaGraphicsResource_t resource)
{
    return rgpu_unsupported(RGPU_RUNTIME, "cudaGraphicsResourceGetMappedPointer");
}

/* cudaGraphicsSubResourceGetMappedArray: not supported: graphics interop needs a local display (protocol/contract/calls/interop.toml) */
cudaError_t cudaGraphicsSubResourceGetMappedArray(cudaArray_t *array, cudaGraphicsResource_t resource, unsigned int arrayIndex, unsigned int mipLevel)
{
    return rgpu_unsupported(RGPU_RUNTIME, "cudaGraphicsSubResourceGetMappedArray");
}

/* cudaGraphicsResourceGetMappedMipmappedArray: not supported: graphics interop needs a local display (protocol/contract/calls/interop.toml) */
cudaError_t cudaGraphicsResourceGetMappedMipmappedArray(cudaMipmappedArray_t *mipmappedArray, cudaGraphicsResource_t resource)
{
    return rgpu_unsupported(RGPU_RUNTIME, "cudaGraphicsResourceGetMappedMipmappedArray");
}

/* cudaLogsRegisterCallback: not supported: host callbacks are not forwarded yet (protocol/contract/calls/system.toml) */
cudaError_t cudaLogsRegisterCallback(cudaLogsCallback_t callbackFunc, void *userData, cudaLogsCallbackHandle *callback_out)
{
    return rgpu_unsupported(RGPU_RUNTIME, "cudaLogsRegisterCallback");
}

/* cudaLogsUnregisterCallback: not supported: host callbacks are not forwarded yet (protocol/contract/calls/system.toml) */
cudaError_t cudaLogsUnregisterCallback(cudaLogsCallbackHandle callback)
{
    return rgpu_unsupported(RGPU_RUNTIME, "cudaLogsUnregisterCallback");
}

/* cudaLogsCurrent: not supported: driver logs are the server's (protocol/contract/calls/system.toml) */
cudaError_t cudaLogsCurrent(cudaLogIterator *iterator_out, unsigned int flags)
{
    return rgpu_unsupported(RGPU_RUNTIME, "cudaLogsCurrent");
}

/* cudaLogsDumpToFile: not supported: driver logs are the server's (protocol/contract/calls/system.toml) */
cudaError_t cudaLogsDumpToFile(cudaLogIterator *iterator, const char *pathToFile, unsigned int flags)
{
    return rgpu_unsupported(RGPU_RUNTIME, "cudaLogsDumpToFile");
}

/* cudaLogsDumpToMemory: not supported: driver logs are the server's (protocol/contract/calls/system.toml) */
cudaError_t cudaLogsDumpToMemory(cudaLogIterator *iterator, char *buffer, size_t *size, unsigned int flags)
{
    return rgpu_unsupported(RGPU_RUNTIME, "cudaLogsDumpToMemory");
}

/* cudaGraphAddExternalSemaphoresSignalNode: not supported: external semaphores are not forwarded (protocol/contract/calls/graph.toml) */
cudaError_t cudaGraphAddExternalSemaphoresSignalNode(cudaGraphNode_t *pGraphNode, cudaGraph_t graph, const cudaGraphNode_t *pDependencies, size_t numDependencies, const struct cudaExternalSemaphoreSignalNodeParams *nodeParams)
{
    return rgpu_unsupported(RGPU_RUNTIME, "cudaGraphAddExternalSemaphoresSignalNode");
}

/* cudaGraphExternalSemaphoresSignalNodeGetParams: not supported: external semaphores are not forwarded (protocol/contract/calls/graph.toml) */
cudaError_t cudaGraphExternalSemaphoresSignalNodeGetParams(cudaGraphNode_t hNode, struct cudaExternalSemaphoreSignalNodeParams *params_out)
{
    return rgpu_unsupported(RGPU_RUNTIME, "cudaGraphExternalSemaphoresSignalNodeGetParams");
}

/* cudaGraphExternalSemaphoresSignalNodeSetParams: not supported: external semaphores are not forwarded (protocol/contract/calls/graph.toml) */
cudaError_t cudaGraphExternalSemaphoresSignalNodeSetParams(cudaGraphNode_t hNode, const struct cudaExternalSemaphoreSignalNodeParams *nodeParams)
{
    return rgpu_unsupported(RGPU_RUNTIME, "cudaGraphExternalSemaphoresSignalNodeSetParams");
}

/* cudaGraphAddExternalSemaphoresWaitNode: not supported: external semaphores are not forwarded (protocol/contract/calls/graph.toml) */
cudaError_t cudaGraphAddExternalSemaphoresWaitNode(cudaGraphNode_t *pGraphNode, cudaGraph_t graph, const cudaGraphNode_t *pDependencies, size_t numDependencies, const struct cudaExternalSemaphoreWaitNodeParams *nodeParams)
{
    return rgpu_unsupported(RGPU_RUNTIME, "cudaGraphAddExternalSemaphoresWaitNode");
}

/* cudaGraphExternalSemaphoresWaitNodeGetParams: not supported: external semaphores are not forwarded (protocol/contract/calls/graph.toml) */
cudaError_t cudaGraphExternalSemaphoresWaitNodeGetParams(cudaGraphNode_t hNode, struct cudaExternalSemaphoreWaitNodeParams *params_out)
{
    return rgpu_unsupported(RGPU_RUNTIME, "cudaGraphExternalSemaphoresWaitNodeGetParams");
}

/* cudaGraphExternalSemaphoresWaitNodeSetParams: not supported: external semaphores are not forwarded (protocol/contract/calls/graph.toml) */
cudaError_t cudaGraphExternalSemaphoresWaitNodeSetParams(cudaGraphNode_t hNode, const struct cudaExternalSemaphoreWaitNodeParams *nodeParams)
{
    return rgpu_unsupported(RGPU_RUNTIME, "cudaGraphExternalSemaphoresWaitNodeSetParams");
}

/* cudaGraphExecExternalSemaphoresSignalNodeSetParams: not supported: external semaphores are not forwarded (protocol/contract/calls/graph.toml) */
cudaError_t cudaGraphExecExternalSemaphoresSignalNodeSetParams(cudaGraphExec_t hGraphExec, cudaGraphNode_t hNode, const struct cudaExternalSemaphoreSignalNodeParams *nodeParams)
{
    return rgpu_unsupported(RGPU_RUNTIME, "cudaGraphExecExternalSemaphoresSignalNodeSetParams");
}

/* cudaGraphExecExternalSemaphoresWaitNodeSetParams: not supported: external semaphores are not forwarded (protocol/contract/calls/graph.toml) */
cudaError_t cudaGraphExecExternalSemaphoresWaitNodeSetParams(cudaGraphExec_t hGraphExec, cudaGraphNode_t hNode, const struct cudaExternalSemaphoreWaitNodeParams *nodeParams)
{
    return rgpu_unsupported(RGPU_RUNTIME, "cudaGraphExecExternalSemaphoresWaitNodeSetParams");
}

/* cudaGraphConditionalHandleCreate: not supported: conditional graph nodes are not implemented yet (protocol/contract/calls/graph.toml) */
cudaError_t cudaGraphConditionalHandleCreate(cudaGraphConditionalHandle *pHandle_out, cudaGraph_t graph, unsigned int defaultLaunchValue, unsigned int flags)
{
    return rgpu_unsupported(RGPU_RUNTIME, "cudaGraphConditionalHandleCreate");
}

/* cudaLibraryGetUnifiedFunction: not supported: unified functions run on the host: not supported (protocol/contract/calls/module.toml) */
cudaError_t cudaLibraryGetUnifiedFunction(void **fptr, cudaLibrary_t library, const char *symbol)
{
    return rgpu_unsupported(RGPU_RUNTIME, "cudaLibraryGetUnifiedFunction");
}

/* cudaKernelSetAttributeForDevice: not supported: a cudaKernel_t is a session's function here: per-device kernel attributes are not forwarded yet (protocol/contract/calls/module.toml) */
cudaError_t cudaKernelSetAttributeForDevice(cudaKernel_t kernel, enum cudaFuncAttribute attr, int value, int device)
{
    return rgpu_unsupported(RGPU_RUNTIME, "cudaKernelSetAttributeForDevice");
}
