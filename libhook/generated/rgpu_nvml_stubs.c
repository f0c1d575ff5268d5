/* generated from nvml.h (NVML API 13) and protocol/contract/nvml.toml by protocol/codegen — do not edit */
/* NVML functions rgpu does not answer: NVML_ERROR_NOT_SUPPORTED, their name logged once. */
#include "rgpu_nvml.h"

nvmlReturn_t rgpu_nvml_unsupported(const char *name, const char *why);

/* not part of what a program learns of its vGPUs through rgpu's NVML face */
nvmlReturn_t nvmlSystemGetProcessName(unsigned int pid, char *name, unsigned int length)
{
    return rgpu_nvml_unsupported("nvmlSystemGetProcessName", "not part of what a program learns of its vGPUs through rgpu's NVML face");
}

/* not part of what a program learns of its vGPUs through rgpu's NVML face */
nvmlReturn_t nvmlSystemGetHicVersion(unsigned int *hwbcCount, nvmlHwbcEntry_t *hwbcEntries)
{
    return rgpu_nvml_unsupported("nvmlSystemGetHicVersion", "not part of what a program learns of its vGPUs through rgpu's NVML face");
}

/* rgpu's NVML reports; it changes nothing on the pool's GPUs */
nvmlReturn_t nvmlSystemGetTopologyGpuSet(unsigned int cpuNumber, unsigned int *count, nvmlDevice_t *deviceArray)
{
    return rgpu_nvml_unsupported("nvmlSystemGetTopologyGpuSet", "rgpu's NVML reports; it changes nothing on the pool's GPUs");
}

/* not part of what a program learns of its vGPUs through rgpu's NVML face */
nvmlReturn_t nvmlSystemGetDriverBranch(nvmlSystemDriverBranchInfo_t *branchInfo, unsigned int length)
{
    return rgpu_nvml_unsupported("nvmlSystemGetDriverBranch", "not part of what a program learns of its vGPUs through rgpu's NVML face");
}

/* not part of what a program learns of its vGPUs through rgpu's NVML face */
nvmlReturn_t nvmlUnitGetCount(unsigned int *unitCount)
{
    return rgpu_nvml_unsupported("nvmlUnitGetCount", "not part of what a program learns of its vGPUs through rgpu's NVML face");
}

/* not part of what a program learns of its vGPUs through rgpu's NVML face */
nvmlReturn_t nvmlUnitGetHandleByIndex(unsigned int index, nvmlUnit_t *unit)
{
    return rgpu_nvml_unsupported("nvmlUnitGetHandleByIndex", "not part of what a program learns of its vGPUs through rgpu's NVML face");
}

/* not part of what a program learns of its vGPUs through rgpu's NVML face */
nvmlReturn_t nvmlUnitGetUnitInfo(nvmlUnit_t unit, nvmlUnitInfo_t *info)
{
    return rgpu_nvml_unsupported("nvmlUnitGetUnitInfo", "not part of what a program learns of its vGPUs through rgpu's NVML face");
}

/* not part of what a program learns of its vGPUs through rgpu's NVML face */
nvmlReturn_t nvmlUnitGetLedState(nvmlUnit_t unit, nvmlLedState_t *state)
{
    return rgpu_nvml_unsupported("nvmlUnitGetLedState", "not part of what a program learns of its vGPUs through rgpu's NVML face");
}

/* not part of what a program learns of its vGPUs through rgpu's NVML face */
nvmlReturn_t nvmlUnitGetPsuInfo(nvmlUnit_t unit, nvmlPSUInfo_t *psu)
{
    return rgpu_nvml_unsupported("nvmlUnitGetPsuInfo", "not part of what a program learns of its vGPUs through rgpu's NVML face");
}

/* not part of what a program learns of its vGPUs through rgpu's NVML face */
nvmlReturn_t nvmlUnitGetTemperature(nvmlUnit_t unit, unsigned int type, unsigned int *temp)
{
    return rgpu_nvml_unsupported("nvmlUnitGetTemperature", "not part of what a program learns of its vGPUs through rgpu's NVML face");
}

/* not part of what a program learns of its vGPUs through rgpu's NVML face */
nvmlReturn_t nvmlUnitGetFanSpeedInfo(nvmlUnit_t unit, nvmlUnitFanSpeeds_t *fanSpeeds)
{
    return rgpu_nvml_unsupported("nvmlUnitGetFanSpeedInfo", "not part of what a program learns of its vGPUs through rgpu's NVML face");
}

/* not part of what a program learns of its vGPUs through rgpu's NVML face */
nvmlReturn_t nvmlUnitGetDevices(nvmlUnit_t unit, unsigned int *deviceCount, nvmlDevice_t *devices)
{
    return rgpu_nvml_unsupported("nvmlUnitGetDevices", "not part of what a program learns of its vGPUs through rgpu's NVML face");
}

/* not part of what a program learns of its vGPUs through rgpu's NVML face */
nvmlReturn_t nvmlDeviceGetAttributes_v2(nvmlDevice_t device, nvmlDeviceAttributes_t *attributes)
{
    return rgpu_nvml_unsupported("nvmlDeviceGetAttributes_v2", "not part of what a program learns of its vGPUs through rgpu's NVML face");
}

/* not part of what a program learns of its vGPUs through rgpu's NVML face */
nvmlReturn_t nvmlDeviceGetHandleBySerial(const char *serial, nvmlDevice_t *device)
{
    return rgpu_nvml_unsupported("nvmlDeviceGetHandleBySerial", "not part of what a program learns of its vGPUs through rgpu's NVML face");
}

/* not part of what a program learns of its vGPUs through rgpu's NVML face */
nvmlReturn_t nvmlDeviceGetHandleByUUIDV(const nvmlUUID_t *uuid, nvmlDevice_t *device)
{
    return rgpu_nvml_unsupported("nvmlDeviceGetHandleByUUIDV", "not part of what a program learns of its vGPUs through rgpu's NVML face");
}

/* not part of what a program learns of its vGPUs through rgpu's NVML face */
nvmlReturn_t nvmlDeviceGetBrand(nvmlDevice_t device, nvmlBrandType_t *type)
{
    return rgpu_nvml_unsupported("nvmlDeviceGetBrand", "not part of what a program learns of its vGPUs through rgpu's NVML face");
}

/* not part of what a program learns of its vGPUs through rgpu's NVML face */
nvmlReturn_t nvmlDeviceGetSerial(nvmlDevice_t device, char *serial, unsigned int length)
{
    return rgpu_nvml_unsupported("nvmlDeviceGetSerial", "not part of what a program learns of its vGPUs through rgpu's NVML face");
}

/* not part of what a program learns of its vGPUs through rgpu's NVML face */
nvmlReturn_t nvmlDeviceGetModuleId(nvmlDevice_t device, unsigned int *moduleId)
{
    return rgpu_nvml_unsupported("nvmlDeviceGetModuleId", "not part of what a program learns of its vGPUs through rgpu's NVML face");
}

/* not part of what a program learns of its vGPUs through rgpu's NVML face */
nvmlReturn_t nvmlDeviceGetC2cModeInfoV(nvmlDevice_t device, nvmlC2cModeInfo_v1_t *c2cModeInfo)
{
    return rgpu_nvml_unsupported("nvmlDeviceGetC2cModeInfoV", "not part of what a program learns of its vGPUs through rgpu's NVML face");
}

/* not part of what a program learns of its vGPUs through rgpu's NVML face */
nvmlReturn_t nvmlDeviceGetMemoryAffinity(nvmlDevice_t device, unsigned int nodeSetSize, unsigned long *nodeSet, nvmlAffinityScope_t scope)
{
    return rgpu_nvml_unsupported("nvmlDeviceGetMemoryAffinity", "not part of what a program learns of its vGPUs through rgpu's NVML face");
}

/* not part of what a program learns of its vGPUs through rgpu's NVML face */
nvmlReturn_t nvmlDeviceGetCpuAffinityWithinScope(nvmlDevice_t device, unsigned int cpuSetSize, unsigned long *cpuSet, nvmlAffinityScope_t scope)
{
    return rgpu_nvml_unsupported("nvmlDeviceGetCpuAffinityWithinScope", "not part of what a program learns of its vGPUs through rgpu's NVML face");
}

/* not part of what a program learns of its vGPUs through rgpu's NVML face */
nvmlReturn_t nvmlDeviceGetCpuAffinity(nvmlDevice_t device, unsigned int cpuSetSize, unsigned long *cpuSet)
{
    return rgpu_nvml_unsupported("nvmlDeviceGetCpuAffinity", "not part of what a program learns of its vGPUs through rgpu's NVML face");
}

/* rgpu's NVML reports; it changes nothing on the pool's GPUs */
nvmlReturn_t nvmlDeviceSetCpuAffinity(nvmlDevice_t device)
{
    return rgpu_nvml_unsupported("nvmlDeviceSetCpuAffinity", "rgpu's NVML reports; it changes nothing on the pool's GPUs");
}

/* rgpu's NVML reports; it changes nothing on the pool's GPUs */
nvmlReturn_t nvmlDeviceClearCpuAffinity(nvmlDevice_t device)
{
    return rgpu_nvml_unsupported("nvmlDeviceClearCpuAffinity", "rgpu's NVML reports; it changes nothing on the pool's GPUs");
}

/* not part of what a program learns of its vGPUs through rgpu's NVML face */
nvmlReturn_t nvmlDeviceGetNumaNodeId(nvmlDevice_t device, unsigned int *node)
{
    return rgpu_nvml_unsupported("nvmlDeviceGetNumaNodeId", "not part of what a program learns of its vGPUs through rgpu's NVML face");
}

/* not part of what a program learns of its vGPUs through rgpu's NVML face */
nvmlReturn_t nvmlDeviceGetAddressingMode(nvmlDevice_t device, nvmlDeviceAddressingMode_t *mode)
{
    return rgpu_nvml_unsupported("nvmlDeviceGetAddressingMode", "not part of what a program learns of its vGPUs through rgpu's NVML face");
}

/* not part of what a program learns of its vGPUs through rgpu's NVML face */
nvmlReturn_t nvmlDeviceGetRepairStatus(nvmlDevice_t device, nvmlRepairStatus_t *repairStatus)
{
    return rgpu_nvml_unsupported("nvmlDeviceGetRepairStatus", "not part of what a program learns of its vGPUs through rgpu's NVML face");
}

/* not part of what a program learns of its vGPUs through rgpu's NVML face */
nvmlReturn_t nvmlDeviceGetTopologyCommonAncestor(nvmlDevice_t device1, nvmlDevice_t device2, nvmlGpuTopologyLevel_t *pathInfo)
{
    return rgpu_nvml_unsupported("nvmlDeviceGetTopologyCommonAncestor", "not part of what a program learns of its vGPUs through rgpu's NVML face");
}

/* not part of what a program learns of its vGPUs through rgpu's NVML face */
nvmlReturn_t nvmlDeviceGetTopologyNearestGpus(nvmlDevice_t device, nvmlGpuTopologyLevel_t level, unsigned int *count, nvmlDevice_t *deviceArray)
{
    return rgpu_nvml_unsupported("nvmlDeviceGetTopologyNearestGpus", "not part of what a program learns of its vGPUs through rgpu's NVML face");
}

/* not part of what a program learns of its vGPUs through rgpu's NVML face */
nvmlReturn_t nvmlDeviceGetP2PStatus(nvmlDevice_t device1, nvmlDevice_t device2, nvmlGpuP2PCapsIndex_t p2pIndex, nvmlGpuP2PStatus_t *p2pStatus)
{
    return rgpu_nvml_unsupported("nvmlDeviceGetP2PStatus", "not part of what a program learns of its vGPUs through rgpu's NVML face");
}

/* not part of what a program learns of its vGPUs through rgpu's NVML face */
nvmlReturn_t nvmlDeviceGetMinorNumber(nvmlDevice_t device, unsigned int *minorNumber)
{
    return rgpu_nvml_unsupported("nvmlDeviceGetMinorNumber", "not part of what a program learns of its vGPUs through rgpu's NVML face");
}

/* not part of what a program learns of its vGPUs through rgpu's NVML face */
nvmlReturn_t nvmlDeviceGetBoardPartNumber(nvmlDevice_t device, char *partNumber, unsigned int length)
{
    return rgpu_nvml_unsupported("nvmlDeviceGetBoardPartNumber", "not part of what a program learns of its vGPUs through rgpu's NVML face");
}

/* not part of what a program learns of its vGPUs through rgpu's NVML face */
nvmlReturn_t nvmlDeviceGetInforomVersion(nvmlDevice_t device, nvmlInforomObject_t object, char *version, unsigned int length)
{
    return rgpu_nvml_unsupported("nvmlDeviceGetInforomVersion", "not part of what a program learns of its vGPUs through rgpu's NVML face");
}

/* not part of what a program learns of its vGPUs through rgpu's NVML face */
nvmlReturn_t nvmlDeviceGetInforomImageVersion(nvmlDevice_t device, char *version, unsigned int length)
{
    return rgpu_nvml_unsupported("nvmlDeviceGetInforomImageVersion", "not part of what a program learns of its vGPUs through rgpu's NVML face");
}

/* not part of what a program learns of its vGPUs through rgpu's NVML face */
nvmlReturn_t nvmlDeviceGetInforomConfigurationChecksum(nvmlDevice_t device, unsigned int *checksum)
{
    return rgpu_nvml_unsupported("nvmlDeviceGetInforomConfigurationChecksum", "not part of what a program learns of its vGPUs through rgpu's NVML face");
}

/* not part of what a program learns of its vGPUs through rgpu's NVML face */
nvmlReturn_t nvmlDeviceValidateInforom(nvmlDevice_t device)
{
    return rgpu_nvml_unsupported("nvmlDeviceValidateInforom", "not part of what a program learns of its vGPUs through rgpu's NVML face");
}

/* not part of what a program learns of its vGPUs through rgpu's NVML face */
nvmlReturn_t nvmlDeviceGetLastBBXFlushTime(nvmlDevice_t device, unsigned long long *timestamp, unsigned long *durationUs)
{
    return rgpu_nvml_unsupported("nvmlDeviceGetLastBBXFlushTime", "not part of what a program learns of its vGPUs through rgpu's NVML face");
}

/* not part of what a program learns of its vGPUs through rgpu's NVML face */
nvmlReturn_t nvmlDeviceGetDisplayMode(nvmlDevice_t device, nvmlEnableState_t *display)
{
    return rgpu_nvml_unsupported("nvmlDeviceGetDisplayMode", "not part of what a program learns of its vGPUs through rgpu's NVML face");
}

/* not part of what a program learns of its vGPUs through rgpu's NVML face */
nvmlReturn_t nvmlDeviceGetDisplayActive(nvmlDevice_t device, nvmlEnableState_t *isActive)
{
    return rgpu_nvml_unsupported("nvmlDeviceGetDisplayActive", "not part of what a program learns of its vGPUs through rgpu's NVML face");
}

/* not part of what a program learns of its vGPUs through rgpu's NVML face */
nvmlReturn_t nvmlDeviceGetPersistenceMode(nvmlDevice_t device, nvmlEnableState_t *mode)
{
    return rgpu_nvml_unsupported("nvmlDeviceGetPersistenceMode", "not part of what a program learns of its vGPUs through rgpu's NVML face");
}

/* not part of what a program learns of its vGPUs through rgpu's NVML face */
nvmlReturn_t nvmlDeviceGetPciInfoExt(nvmlDevice_t device, nvmlPciInfoExt_t *pci)
{
    return rgpu_nvml_unsupported("nvmlDeviceGetPciInfoExt", "not part of what a program learns of its vGPUs through rgpu's NVML face");
}

/* not part of what a program learns of its vGPUs through rgpu's NVML face */
nvmlReturn_t nvmlDeviceGetPciInfo_v3(nvmlDevice_t device, nvmlPciInfo_t *pci)
{
    return rgpu_nvml_unsupported("nvmlDeviceGetPciInfo_v3", "not part of what a program learns of its vGPUs through rgpu's NVML face");
}

/* not part of what a program learns of its vGPUs through rgpu's NVML face */
nvmlReturn_t nvmlDeviceGetMaxPcieLinkGeneration(nvmlDevice_t device, unsigned int *maxLinkGen)
{
    return rgpu_nvml_unsupported("nvmlDeviceGetMaxPcieLinkGeneration", "not part of what a program learns of its vGPUs through rgpu's NVML face");
}

/* not part of what a program learns of its vGPUs through rgpu's NVML face */
nvmlReturn_t nvmlDeviceGetGpuMaxPcieLinkGeneration(nvmlDevice_t device, unsigned int *maxLinkGenDevice)
{
    return rgpu_nvml_unsupported("nvmlDeviceGetGpuMaxPcieLinkGeneration", "not part of what a program learns of its vGPUs through rgpu's NVML face");
}

/* not part of what a program learns of its vGPUs through rgpu's NVML face */
nvmlReturn_t nvmlDeviceGetMaxPcieLinkWidth(nvmlDevice_t device, unsigned int *maxLinkWidth)
{
    return rgpu_nvml_unsupported("nvmlDeviceGetMaxPcieLinkWidth", "not part of what a program learns of its vGPUs through rgpu's NVML face");
}

/* not part of what a program learns of its vGPUs through rgpu's NVML face */
nvmlReturn_t nvmlDeviceGetCurrPcieLinkGeneration(nvmlDevice_t device, unsigned int *currLinkGen)
{
    return rgpu_nvml_unsupported("nvmlDeviceGetCurrPcieLinkGeneration", "not part of what a program learns of its vGPUs through rgpu's NVML face");
}

/* not part of what a program learns of its vGPUs through rgpu's NVML face */
nvmlReturn_t nvmlDeviceGetCurrPcieLinkWidth(nvmlDevice_t device, unsigned int *currLinkWidth)
{
    return rgpu_nvml_unsupported("nvmlDeviceGetCurrPcieLinkWidth", "not part of what a program learns of its vGPUs through rgpu's NVML face");
}

/* not part of what a program learns of its vGPUs through rgpu's NVML face */
nvmlReturn_t nvmlDeviceGetPcieThroughput(nvmlDevice_t device, nvmlPcieUtilCounter_t counter, unsigned int *value)
{
    return rgpu_nvml_unsupported("nvmlDeviceGetPcieThroughput", "not part of what a program learns of its vGPUs through rgpu's NVML face");
}

/* not part of what a program learns of its vGPUs through rgpu's NVML face */
nvmlReturn_t nvmlDeviceGetPcieReplayCounter(nvmlDevice_t device, unsigned int *value)
{
    return rgpu_nvml_unsupported("nvmlDeviceGetPcieReplayCounter", "not part of what a program learns of its vGPUs through rgpu's NVML face");
}

/* not part of what a program learns of its vGPUs through rgpu's NVML face */
nvmlReturn_t nvmlDeviceGetClockInfo(nvmlDevice_t device, nvmlClockType_t type, unsigned int *clock)
{
    return rgpu_nvml_unsupported("nvmlDeviceGetClockInfo", "not part of what a program learns of its vGPUs through rgpu's NVML face");
}

/* not part of what a program learns of its vGPUs through rgpu's NVML face */
nvmlReturn_t nvmlDeviceGetMaxClockInfo(nvmlDevice_t device, nvmlClockType_t type, unsigned int *clock)
{
    return rgpu_nvml_unsupported("nvmlDeviceGetMaxClockInfo", "not part of what a program learns of its vGPUs through rgpu's NVML face");
}

/* not part of what a program learns of its vGPUs through rgpu's NVML face */
nvmlReturn_t nvmlDeviceGetGpcClkVfOffset(nvmlDevice_t device, int *offset)
{
    return rgpu_nvml_unsupported("nvmlDeviceGetGpcClkVfOffset", "not part of what a program learns of its vGPUs through rgpu's NVML face");
}

/* not part of what a program learns of its vGPUs through rgpu's NVML face */
nvmlReturn_t nvmlDeviceGetApplicationsClock(nvmlDevice_t device, nvmlClockType_t clockType, unsigned int *clockMHz)
{
    return rgpu_nvml_unsupported("nvmlDeviceGetApplicationsClock", "not part of what a program learns of its vGPUs through rgpu's NVML face");
}

/* not part of what a program learns of its vGPUs through rgpu's NVML face */
nvmlReturn_t nvmlDeviceGetDefaultApplicationsClock(nvmlDevice_t device, nvmlClockType_t clockType, unsigned int *clockMHz)
{
    return rgpu_nvml_unsupported("nvmlDeviceGetDefaultApplicationsClock", "not part of what a program learns of its vGPUs through rgpu's NVML face");
}

/* not part of what a program learns of its vGPUs through rgpu's NVML face */
nvmlReturn_t nvmlDeviceGetClock(nvmlDevice_t device, nvmlClockType_t clockType, nvmlClockId_t clockId, unsigned int *clockMHz)
{
    return rgpu_nvml_unsupported("nvmlDeviceGetClock", "not part of what a program learns of its vGPUs through rgpu's NVML face");
}

/* not part of what a program learns of its vGPUs through rgpu's NVML face */
nvmlReturn_t nvmlDeviceGetMaxCustomerBoostClock(nvmlDevice_t device, nvmlClockType_t clockType, unsigned int *clockMHz)
{
    return rgpu_nvml_unsupported("nvmlDeviceGetMaxCustomerBoostClock", "not part of what a program learns of its vGPUs through rgpu's NVML face");
}

/* not part of what a program learns of its vGPUs through rgpu's NVML face */
nvmlReturn_t nvmlDeviceGetSupportedMemoryClocks(nvmlDevice_t device, unsigned int *count, unsigned int *clocksMHz)
{
    return rgpu_nvml_unsupported("nvmlDeviceGetSupportedMemoryClocks", "not part of what a program learns of its vGPUs through rgpu's NVML face");
}

/* not part of what a program learns of its vGPUs through rgpu's NVML face */
nvmlReturn_t nvmlDeviceGetSupportedGraphicsClocks(nvmlDevice_t device, unsigned int memoryClockMHz, unsigned int *count, unsigned int *clocksMHz)
{
    return rgpu_nvml_unsupported("nvmlDeviceGetSupportedGraphicsClocks", "not part of what a program learns of its vGPUs through rgpu's NVML face");
}

/* not part of what a program learns of its vGPUs through rgpu's NVML face */
nvmlReturn_t nvmlDeviceGetAutoBoostedClocksEnabled(nvmlDevice_t device, nvmlEnableState_t *isEnabled, nvmlEnableState_t *defaultIsEnabled)
{
    return rgpu_nvml_unsupported("nvmlDeviceGetAutoBoostedClocksEnabled", "not part of what a program learns of its vGPUs through rgpu's NVML face");
}

/* not part of what a program learns of its vGPUs through rgpu's NVML face */
nvmlReturn_t nvmlDeviceGetFanSpeed(nvmlDevice_t device, unsigned int *speed)
{
    return rgpu_nvml_unsupported("nvmlDeviceGetFanSpeed", "not part of what a program learns of its vGPUs through rgpu's NVML face");
}

/* not part of what a program learns of its vGPUs through rgpu's NVML face */
nvmlReturn_t nvmlDeviceGetFanSpeed_v2(nvmlDevice_t device, unsigned int fan, unsigned int *speed)
{
    return rgpu_nvml_unsupported("nvmlDeviceGetFanSpeed_v2", "not part of what a program learns of its vGPUs through rgpu's NVML face");
}

/* not part of what a program learns of its vGPUs through rgpu's NVML face */
nvmlReturn_t nvmlDeviceGetFanSpeedRPM(nvmlDevice_t device, nvmlFanSpeedInfo_t *fanSpeed)
{
    return rgpu_nvml_unsupported("nvmlDeviceGetFanSpeedRPM", "not part of what a program learns of its vGPUs through rgpu's NVML face");
}

/* not part of what a program learns of its vGPUs through rgpu's NVML face */
nvmlReturn_t nvmlDeviceGetTargetFanSpeed(nvmlDevice_t device, unsigned int fan, unsigned int *targetSpeed)
{
    return rgpu_nvml_unsupported("nvmlDeviceGetTargetFanSpeed", "not part of what a program learns of its vGPUs through rgpu's NVML face");
}

/* not part of what a program learns of its vGPUs through rgpu's NVML face */
nvmlReturn_t nvmlDeviceGetMinMaxFanSpeed(nvmlDevice_t device, unsigned int *minSpeed, unsigned int *maxSpeed)
{
    return rgpu_nvml_unsupported("nvmlDeviceGetMinMaxFanSpeed", "not part of what a program learns of its vGPUs through rgpu's NVML face");
}

/* not part of what a program learns of its vGPUs through rgpu's NVML face */
nvmlReturn_t nvmlDeviceGetFanControlPolicy_v2(nvmlDevice_t device, unsigned int fan, nvmlFanControlPolicy_t *policy)
{
    return rgpu_nvml_unsupported("nvmlDeviceGetFanControlPolicy_v2", "not part of what a program learns of its vGPUs through rgpu's NVML face");
}

/* not part of what a program learns of its vGPUs through rgpu's NVML face */
nvmlReturn_t nvmlDeviceGetNumFans(nvmlDevice_t device, unsigned int *numFans)
{
    return rgpu_nvml_unsupported("nvmlDeviceGetNumFans", "not part of what a program learns of its vGPUs through rgpu's NVML face");
}

/* not part of what a program learns of its vGPUs through rgpu's NVML face */
nvmlReturn_t nvmlDeviceGetTemperature(nvmlDevice_t device, nvmlTemperatureSensors_t sensorType, unsigned int *temp)
{
    return rgpu_nvml_unsupported("nvmlDeviceGetTemperature", "not part of what a program learns of its vGPUs through rgpu's NVML face");
}

/* not part of what a program learns of its vGPUs through rgpu's NVML face */
nvmlReturn_t nvmlDeviceGetCoolerInfo(nvmlDevice_t device, nvmlCoolerInfo_t *coolerInfo)
{
    return rgpu_nvml_unsupported("nvmlDeviceGetCoolerInfo", "not part of what a program learns of its vGPUs through rgpu's NVML face");
}

/* not part of what a program learns of its vGPUs through rgpu's NVML face */
nvmlReturn_t nvmlDeviceGetTemperatureV(nvmlDevice_t device, nvmlTemperature_t *temperature)
{
    return rgpu_nvml_unsupported("nvmlDeviceGetTemperatureV", "not part of what a program learns of its vGPUs through rgpu's NVML face");
}

/* not part of what a program learns of its vGPUs through rgpu's NVML face */
nvmlReturn_t nvmlDeviceGetTemperatureThreshold(nvmlDevice_t device, nvmlTemperatureThresholds_t thresholdType, unsigned int *temp)
{
    return rgpu_nvml_unsupported("nvmlDeviceGetTemperatureThreshold", "not part of what a program learns of its vGPUs through rgpu's NVML face");
}

/* not part of what a program learns of its vGPUs through rgpu's NVML face */
nvmlReturn_t nvmlDeviceGetMarginTemperature(nvmlDevice_t device, nvmlMarginTemperature_t *marginTempInfo)
{
    return rgpu_nvml_unsupported("nvmlDeviceGetMarginTemperature", "not part of what a program learns of its vGPUs through rgpu's NVML face");
}

/* rgpu's NVML reports; it changes nothing on the pool's GPUs */
nvmlReturn_t nvmlDeviceGetThermalSettings(nvmlDevice_t device, unsigned int sensorIndex, nvmlGpuThermalSettings_t *pThermalSettings)
{
    return rgpu_nvml_unsupported("nvmlDeviceGetThermalSettings", "rgpu's NVML reports; it changes nothing on the pool's GPUs");
}

/* not part of what a program learns of its vGPUs through rgpu's NVML face */
nvmlReturn_t nvmlDeviceGetPerformanceState(nvmlDevice_t device, nvmlPstates_t *pState)
{
    return rgpu_nvml_unsupported("nvmlDeviceGetPerformanceState", "not part of what a program learns of its vGPUs through rgpu's NVML face");
}

/* not part of what a program learns of its vGPUs through rgpu's NVML face */
nvmlReturn_t nvmlDeviceGetCurrentClocksEventReasons(nvmlDevice_t device, unsigned long long *clocksEventReasons)
{
    return rgpu_nvml_unsupported("nvmlDeviceGetCurrentClocksEventReasons", "not part of what a program learns of its vGPUs through rgpu's NVML face");
}

/* not part of what a program learns of its vGPUs through rgpu's NVML face */
nvmlReturn_t nvmlDeviceGetCurrentClocksThrottleReasons(nvmlDevice_t device, unsigned long long *clocksThrottleReasons)
{
    return rgpu_nvml_unsupported("nvmlDeviceGetCurrentClocksThrottleReasons", "not part of what a program learns of its vGPUs through rgpu's NVML face");
}

/* not part of what a program learns of its vGPUs through rgpu's NVML face */
nvmlReturn_t nvmlDeviceGetSupportedClocksEventReasons(nvmlDevice_t device, unsigned long long *supportedClocksEventReasons)
{
    return rgpu_nvml_unsupported("nvmlDeviceGetSupportedClocksEventReasons", "not part of what a program learns of its vGPUs through rgpu's NVML face");
}

/* not part of what a program learns of its vGPUs through rgpu's NVML face */
nvmlReturn_t nvmlDeviceGetSupportedClocksThrottleReasons(nvmlDevice_t device, unsigned long long *supportedClocksThrottleReasons)
{
    return rgpu_nvml_unsupported("nvmlDeviceGetSupportedClocksThrottleReasons", "not part of what a program learns of its vGPUs through rgpu's NVML face");
}

/* not part of what a program learns of its vGPUs through rgpu's NVML face */
nvmlReturn_t nvmlDeviceGetPowerState(nvmlDevice_t device, nvmlPstates_t *pState)
{
    return rgpu_nvml_unsupported("nvmlDeviceGetPowerState", "not part of what a program learns of its vGPUs through rgpu's NVML face");
}

/* not part of what a program learns of its vGPUs through rgpu's NVML face */
nvmlReturn_t nvmlDeviceGetDynamicPstatesInfo(nvmlDevice_t device, nvmlGpuDynamicPstatesInfo_t *pDynamicPstatesInfo)
{
    return rgpu_nvml_unsupported("nvmlDeviceGetDynamicPstatesInfo", "not part of what a program learns of its vGPUs through rgpu's NVML face");
}

/* not part of what a program learns of its vGPUs through rgpu's NVML face */
nvmlReturn_t nvmlDeviceGetMemClkVfOffset(nvmlDevice_t device, int *offset)
{
    return rgpu_nvml_unsupported("nvmlDeviceGetMemClkVfOffset", "not part of what a program learns of its vGPUs through rgpu's NVML face");
}

/* not part of what a program learns of its vGPUs through rgpu's NVML face */
nvmlReturn_t nvmlDeviceGetMinMaxClockOfPState(nvmlDevice_t device, nvmlClockType_t type, nvmlPstates_t pstate, unsigned int *minClockMHz, unsigned int *maxClockMHz)
{
    return rgpu_nvml_unsupported("nvmlDeviceGetMinMaxClockOfPState", "not part of what a program learns of its vGPUs through rgpu's NVML face");
}

/* not part of what a program learns of its vGPUs through rgpu's NVML face */
nvmlReturn_t nvmlDeviceGetSupportedPerformanceStates(nvmlDevice_t device, nvmlPstates_t *pstates, unsigned int size)
{
    return rgpu_nvml_unsupported("nvmlDeviceGetSupportedPerformanceStates", "not part of what a program learns of its vGPUs through rgpu's NVML face");
}

/* not part of what a program learns of its vGPUs through rgpu's NVML face */
nvmlReturn_t nvmlDeviceGetGpcClkMinMaxVfOffset(nvmlDevice_t device, int *minOffset, int *maxOffset)
{
    return rgpu_nvml_unsupported("nvmlDeviceGetGpcClkMinMaxVfOffset", "not part of what a program learns of its vGPUs through rgpu's NVML face");
}

/* not part of what a program learns of its vGPUs through rgpu's NVML face */
nvmlReturn_t nvmlDeviceGetMemClkMinMaxVfOffset(nvmlDevice_t device, int *minOffset, int *maxOffset)
{
    return rgpu_nvml_unsupported("nvmlDeviceGetMemClkMinMaxVfOffset", "not part of what a program learns of its vGPUs through rgpu's NVML face");
}

/* not part of what a program learns of its vGPUs through rgpu's NVML face */
nvmlReturn_t nvmlDeviceGetClockOffsets(nvmlDevice_t device, nvmlClockOffset_t *info)
{
    return rgpu_nvml_unsupported("nvmlDeviceGetClockOffsets", "not part of what a program learns of its vGPUs through rgpu's NVML face");
}

/* rgpu's NVML reports; it changes nothing on the pool's GPUs */
nvmlReturn_t nvmlDeviceSetClockOffsets(nvmlDevice_t device, nvmlClockOffset_t *info)
{
    return rgpu_nvml_unsupported("nvmlDeviceSetClockOffsets", "rgpu's NVML reports; it changes nothing on the pool's GPUs");
}

/* not part of what a program learns of its vGPUs through rgpu's NVML face */
nvmlReturn_t nvmlDeviceGetPerformanceModes(nvmlDevice_t device, nvmlDevicePerfModes_t *perfModes)
{
    return rgpu_nvml_unsupported("nvmlDeviceGetPerformanceModes", "not part of what a program learns of its vGPUs through rgpu's NVML face");
}

/* not part of what a program learns of its vGPUs through rgpu's NVML face */
nvmlReturn_t nvmlDeviceGetCurrentClockFreqs(nvmlDevice_t device, nvmlDeviceCurrentClockFreqs_t *currentClockFreqs)
{
    return rgpu_nvml_unsupported("nvmlDeviceGetCurrentClockFreqs", "not part of what a program learns of its vGPUs through rgpu's NVML face");
}

/* not part of what a program learns of its vGPUs through rgpu's NVML face */
nvmlReturn_t nvmlDeviceGetPowerManagementMode(nvmlDevice_t device, nvmlEnableState_t *mode)
{
    return rgpu_nvml_unsupported("nvmlDeviceGetPowerManagementMode", "not part of what a program learns of its vGPUs through rgpu's NVML face");
}

/* not part of what a program learns of its vGPUs through rgpu's NVML face */
nvmlReturn_t nvmlDeviceGetPowerManagementLimit(nvmlDevice_t device, unsigned int *limit)
{
    return rgpu_nvml_unsupported("nvmlDeviceGetPowerManagementLimit", "not part of what a program learns of its vGPUs through rgpu's NVML face");
}

/* not part of what a program learns of its vGPUs through rgpu's NVML face */
nvmlReturn_t nvmlDeviceGetPowerManagementLimitConstraints(nvmlDevice_t device, unsigned int *minLimit, unsigned int *maxLimit)
{
    return rgpu_nvml_unsupported("nvmlDeviceGetPowerManagementLimitConstraints", "not part of what a program learns of its vGPUs through rgpu's NVML face");
}

/* not part of what a program learns of its vGPUs through rgpu's NVML face */
nvmlReturn_t nvmlDeviceGetPowerManagementDefaultLimit(nvmlDevice_t device, unsigned int *defaultLimit)
{
    return rgpu_nvml_unsupported("nvmlDeviceGetPowerManagementDefaultLimit", "not part of what a program learns of its vGPUs through rgpu's NVML face");
}

/* not part of what a program learns of its vGPUs through rgpu's NVML face */
nvmlReturn_t nvmlDeviceGetPowerUsage(nvmlDevice_t device, unsigned int *power)
{
    return rgpu_nvml_unsupported("nvmlDeviceGetPowerUsage", "not part of what a program learns of its vGPUs through rgpu's NVML face");
}

/* not part of what a program learns of its vGPUs through rgpu's NVML face */
nvmlReturn_t nvmlDeviceGetPowerMizerMode_v1(nvmlDevice_t device, nvmlDevicePowerMizerModes_v1_t *powerMizerMode)
{
    return rgpu_nvml_unsupported("nvmlDeviceGetPowerMizerMode_v1", "not part of what a program learns of its vGPUs through rgpu's NVML face");
}

/* rgpu's NVML reports; it changes nothing on the pool's GPUs */
nvmlReturn_t nvmlDeviceSetPowerMizerMode_v1(nvmlDevice_t device, nvmlDevicePowerMizerModes_v1_t *powerMizerMode)
{
    return rgpu_nvml_unsupported("nvmlDeviceSetPowerMizerMode_v1", "rgpu's NVML reports; it changes nothing on the pool's GPUs");
}

/* not part of what a program learns of its vGPUs through rgpu's NVML face */
nvmlReturn_t nvmlDeviceGetTotalEnergyConsumption(nvmlDevice_t device, unsigned long long *energy)
{
    return rgpu_nvml_unsupported("nvmlDeviceGetTotalEnergyConsumption", "not part of what a program learns of its vGPUs through rgpu's NVML face");
}

/* not part of what a program learns of its vGPUs through rgpu's NVML face */
nvmlReturn_t nvmlDeviceGetEnforcedPowerLimit(nvmlDevice_t device, unsigned int *limit)
{
    return rgpu_nvml_unsupported("nvmlDeviceGetEnforcedPowerLimit", "not part of what a program learns of its vGPUs through rgpu's NVML face");
}

/* not part of what a program learns of its vGPUs through rgpu's NVML face */
nvmlReturn_t nvmlDeviceGetGpuOperationMode(nvmlDevice_t device, nvmlGpuOperationMode_t *current, nvmlGpuOperationMode_t *pending)
{
    return rgpu_nvml_unsupported("nvmlDeviceGetGpuOperationMode", "not part of what a program learns of its vGPUs through rgpu's NVML face");
}

/* not part of what a program learns of its vGPUs through rgpu's NVML face */
nvmlReturn_t nvmlDeviceGetComputeMode(nvmlDevice_t device, nvmlComputeMode_t *mode)
{
    return rgpu_nvml_unsupported("nvmlDeviceGetComputeMode", "not part of what a program learns of its vGPUs through rgpu's NVML face");
}

/* not part of what a program learns of its vGPUs through rgpu's NVML face */
nvmlReturn_t nvmlDeviceGetDramEncryptionMode(nvmlDevice_t device, nvmlDramEncryptionInfo_t *current, nvmlDramEncryptionInfo_t *pending)
{
    return rgpu_nvml_unsupported("nvmlDeviceGetDramEncryptionMode", "not part of what a program learns of its vGPUs through rgpu's NVML face");
}

/* rgpu's NVML reports; it changes nothing on the pool's GPUs */
nvmlReturn_t nvmlDeviceSetDramEncryptionMode(nvmlDevice_t device, const nvmlDramEncryptionInfo_t *dramEncryption)
{
    return rgpu_nvml_unsupported("nvmlDeviceSetDramEncryptionMode", "rgpu's NVML reports; it changes nothing on the pool's GPUs");
}

/* not part of what a program learns of its vGPUs through rgpu's NVML face */
nvmlReturn_t nvmlDeviceGetEccMode(nvmlDevice_t device, nvmlEnableState_t *current, nvmlEnableState_t *pending)
{
    return rgpu_nvml_unsupported("nvmlDeviceGetEccMode", "not part of what a program learns of its vGPUs through rgpu's NVML face");
}

/* not part of what a program learns of its vGPUs through rgpu's NVML face */
nvmlReturn_t nvmlDeviceGetDefaultEccMode(nvmlDevice_t device, nvmlEnableState_t *defaultMode)
{
    return rgpu_nvml_unsupported("nvmlDeviceGetDefaultEccMode", "not part of what a program learns of its vGPUs through rgpu's NVML face");
}

/* not part of what a program learns of its vGPUs through rgpu's NVML face */
nvmlReturn_t nvmlDeviceGetBoardId(nvmlDevice_t device, unsigned int *boardId)
{
    return rgpu_nvml_unsupported("nvmlDeviceGetBoardId", "not part of what a program learns of its vGPUs through rgpu's NVML face");
}

/* not part of what a program learns of its vGPUs through rgpu's NVML face */
nvmlReturn_t nvmlDeviceGetMultiGpuBoard(nvmlDevice_t device, unsigned int *multiGpuBool)
{
    return rgpu_nvml_unsupported("nvmlDeviceGetMultiGpuBoard", "not part of what a program learns of its vGPUs through rgpu's NVML face");
}

/* not part of what a program learns of its vGPUs through rgpu's NVML face */
nvmlReturn_t nvmlDeviceGetTotalEccErrors(nvmlDevice_t device, nvmlMemoryErrorType_t errorType, nvmlEccCounterType_t counterType, unsigned long long *eccCounts)
{
    return rgpu_nvml_unsupported("nvmlDeviceGetTotalEccErrors", "not part of what a program learns of its vGPUs through rgpu's NVML face");
}

/* not part of what a program learns of its vGPUs through rgpu's NVML face */
nvmlReturn_t nvmlDeviceGetDetailedEccErrors(nvmlDevice_t device, nvmlMemoryErrorType_t errorType, nvmlEccCounterType_t counterType, nvmlEccErrorCounts_t *eccCounts)
{
    return rgpu_nvml_unsupported("nvmlDeviceGetDetailedEccErrors", "not part of what a program learns of its vGPUs through rgpu's NVML face");
}

/* not part of what a program learns of its vGPUs through rgpu's NVML face */
nvmlReturn_t nvmlDeviceGetMemoryErrorCounter(nvmlDevice_t device, nvmlMemoryErrorType_t errorType, nvmlEccCounterType_t counterType, nvmlMemoryLocation_t locationType, unsigned long long *count)
{
    return rgpu_nvml_unsupported("nvmlDeviceGetMemoryErrorCounter", "not part of what a program learns of its vGPUs through rgpu's NVML face");
}

/* not yet: the vGPU's achieved share is known to its server and the controller, not yet to the client library */
nvmlReturn_t nvmlDeviceGetUtilizationRates(nvmlDevice_t device, nvmlUtilization_t *utilization)
{
    return rgpu_nvml_unsupported("nvmlDeviceGetUtilizationRates", "not yet: the vGPU's achieved share is known to its server and the controller, not yet to the client library");
}

/* not part of what a program learns of its vGPUs through rgpu's NVML face */
nvmlReturn_t nvmlDeviceGetEncoderUtilization(nvmlDevice_t device, unsigned int *utilization, unsigned int *samplingPeriodUs)
{
    return rgpu_nvml_unsupported("nvmlDeviceGetEncoderUtilization", "not part of what a program learns of its vGPUs through rgpu's NVML face");
}

/* not part of what a program learns of its vGPUs through rgpu's NVML face */
nvmlReturn_t nvmlDeviceGetEncoderCapacity(nvmlDevice_t device, nvmlEncoderType_t encoderQueryType, unsigned int *encoderCapacity)
{
    return rgpu_nvml_unsupported("nvmlDeviceGetEncoderCapacity", "not part of what a program learns of its vGPUs through rgpu's NVML face");
}

/* not part of what a program learns of its vGPUs through rgpu's NVML face */
nvmlReturn_t nvmlDeviceGetEncoderStats(nvmlDevice_t device, unsigned int *sessionCount, unsigned int *averageFps, unsigned int *averageLatency)
{
    return rgpu_nvml_unsupported("nvmlDeviceGetEncoderStats", "not part of what a program learns of its vGPUs through rgpu's NVML face");
}

/* not part of what a program learns of its vGPUs through rgpu's NVML face */
nvmlReturn_t nvmlDeviceGetEncoderSessions(nvmlDevice_t device, unsigned int *sessionCount, nvmlEncoderSessionInfo_t *sessionInfos)
{
    return rgpu_nvml_unsupported("nvmlDeviceGetEncoderSessions", "not part of what a program learns of its vGPUs through rgpu's NVML face");
}

/* not part of what a program learns of its vGPUs through rgpu's NVML face */
nvmlReturn_t nvmlDeviceGetDecoderUtilization(nvmlDevice_t device, unsigned int *utilization, unsigned int *samplingPeriodUs)
{
    return rgpu_nvml_unsupported("nvmlDeviceGetDecoderUtilization", "not part of what a program learns of its vGPUs through rgpu's NVML face");
}

/* not part of what a program learns of its vGPUs through rgpu's NVML face */
nvmlReturn_t nvmlDeviceGetJpgUtilization(nvmlDevice_t device, unsigned int *utilization, unsigned int *samplingPeriodUs)
{
    return rgpu_nvml_unsupported("nvmlDeviceGetJpgUtilization", "not part of what a program learns of its vGPUs through rgpu's NVML face");
}

/* not part of what a program learns of its vGPUs through rgpu's NVML face */
nvmlReturn_t nvmlDeviceGetOfaUtilization(nvmlDevice_t device, unsigned int *utilization, unsigned int *samplingPeriodUs)
{
    return rgpu_nvml_unsupported("nvmlDeviceGetOfaUtilization", "not part of what a program learns of its vGPUs through rgpu's NVML face");
}

/* not part of what a program learns of its vGPUs through rgpu's NVML face */
nvmlReturn_t nvmlDeviceGetFBCStats(nvmlDevice_t device, nvmlFBCStats_t *fbcStats)
{
    return rgpu_nvml_unsupported("nvmlDeviceGetFBCStats", "not part of what a program learns of its vGPUs through rgpu's NVML face");
}

/* not part of what a program learns of its vGPUs through rgpu's NVML face */
nvmlReturn_t nvmlDeviceGetFBCSessions(nvmlDevice_t device, unsigned int *sessionCount, nvmlFBCSessionInfo_t *sessionInfo)
{
    return rgpu_nvml_unsupported("nvmlDeviceGetFBCSessions", "not part of what a program learns of its vGPUs through rgpu's NVML face");
}

/* not part of what a program learns of its vGPUs through rgpu's NVML face */
nvmlReturn_t nvmlDeviceGetDriverModel_v2(nvmlDevice_t device, nvmlDriverModel_t *current, nvmlDriverModel_t *pending)
{
    return rgpu_nvml_unsupported("nvmlDeviceGetDriverModel_v2", "not part of what a program learns of its vGPUs through rgpu's NVML face");
}

/* not part of what a program learns of its vGPUs through rgpu's NVML face */
nvmlReturn_t nvmlDeviceGetVbiosVersion(nvmlDevice_t device, char *version, unsigned int length)
{
    return rgpu_nvml_unsupported("nvmlDeviceGetVbiosVersion", "not part of what a program learns of its vGPUs through rgpu's NVML face");
}

/* not part of what a program learns of its vGPUs through rgpu's NVML face */
nvmlReturn_t nvmlDeviceGetBridgeChipInfo(nvmlDevice_t device, nvmlBridgeChipHierarchy_t *bridgeHierarchy)
{
    return rgpu_nvml_unsupported("nvmlDeviceGetBridgeChipInfo", "not part of what a program learns of its vGPUs through rgpu's NVML face");
}

/* not part of what a program learns of its vGPUs through rgpu's NVML face */
nvmlReturn_t nvmlDeviceGetGraphicsRunningProcesses_v3(nvmlDevice_t device, unsigned int *infoCount, nvmlProcessInfo_t *infos)
{
    return rgpu_nvml_unsupported("nvmlDeviceGetGraphicsRunningProcesses_v3", "not part of what a program learns of its vGPUs through rgpu's NVML face");
}

/* not part of what a program learns of its vGPUs through rgpu's NVML face */
nvmlReturn_t nvmlDeviceGetMPSComputeRunningProcesses_v3(nvmlDevice_t device, unsigned int *infoCount, nvmlProcessInfo_t *infos)
{
    return rgpu_nvml_unsupported("nvmlDeviceGetMPSComputeRunningProcesses_v3", "not part of what a program learns of its vGPUs through rgpu's NVML face");
}

/* not part of what a program learns of its vGPUs through rgpu's NVML face */
nvmlReturn_t nvmlDeviceGetRunningProcessDetailList(nvmlDevice_t device, nvmlProcessDetailList_t *plist)
{
    return rgpu_nvml_unsupported("nvmlDeviceGetRunningProcessDetailList", "not part of what a program learns of its vGPUs through rgpu's NVML face");
}

/* not part of what a program learns of its vGPUs through rgpu's NVML face */
nvmlReturn_t nvmlDeviceOnSameBoard(nvmlDevice_t device1, nvmlDevice_t device2, int *onSameBoard)
{
    return rgpu_nvml_unsupported("nvmlDeviceOnSameBoard", "not part of what a program learns of its vGPUs through rgpu's NVML face");
}

/* not part of what a program learns of its vGPUs through rgpu's NVML face */
nvmlReturn_t nvmlDeviceGetAPIRestriction(nvmlDevice_t device, nvmlRestrictedAPI_t apiType, nvmlEnableState_t *isRestricted)
{
    return rgpu_nvml_unsupported("nvmlDeviceGetAPIRestriction", "not part of what a program learns of its vGPUs through rgpu's NVML face");
}

/* not part of what a program learns of its vGPUs through rgpu's NVML face */
nvmlReturn_t nvmlDeviceGetSamples(nvmlDevice_t device, nvmlSamplingType_t type, unsigned long long lastSeenTimeStamp, nvmlValueType_t *sampleValType, unsigned int *sampleCount, nvmlSample_t *samples)
{
    return rgpu_nvml_unsupported("nvmlDeviceGetSamples", "not part of what a program learns of its vGPUs through rgpu's NVML face");
}

/* not part of what a program learns of its vGPUs through rgpu's NVML face */
nvmlReturn_t nvmlDeviceGetBAR1MemoryInfo(nvmlDevice_t device, nvmlBAR1Memory_t *bar1Memory)
{
    return rgpu_nvml_unsupported("nvmlDeviceGetBAR1MemoryInfo", "not part of what a program learns of its vGPUs through rgpu's NVML face");
}

/* not part of what a program learns of its vGPUs through rgpu's NVML face */
nvmlReturn_t nvmlDeviceGetViolationStatus(nvmlDevice_t device, nvmlPerfPolicyType_t perfPolicyType, nvmlViolationTime_t *violTime)
{
    return rgpu_nvml_unsupported("nvmlDeviceGetViolationStatus", "not part of what a program learns of its vGPUs through rgpu's NVML face");
}

/* not part of what a program learns of its vGPUs through rgpu's NVML face */
nvmlReturn_t nvmlDeviceGetIrqNum(nvmlDevice_t device, unsigned int *irqNum)
{
    return rgpu_nvml_unsupported("nvmlDeviceGetIrqNum", "not part of what a program learns of its vGPUs through rgpu's NVML face");
}

/* not part of what a program learns of its vGPUs through rgpu's NVML face */
nvmlReturn_t nvmlDeviceGetNumGpuCores(nvmlDevice_t device, unsigned int *numCores)
{
    return rgpu_nvml_unsupported("nvmlDeviceGetNumGpuCores", "not part of what a program learns of its vGPUs through rgpu's NVML face");
}

/* not part of what a program learns of its vGPUs through rgpu's NVML face */
nvmlReturn_t nvmlDeviceGetPowerSource(nvmlDevice_t device, nvmlPowerSource_t *powerSource)
{
    return rgpu_nvml_unsupported("nvmlDeviceGetPowerSource", "not part of what a program learns of its vGPUs through rgpu's NVML face");
}

/* not part of what a program learns of its vGPUs through rgpu's NVML face */
nvmlReturn_t nvmlDeviceGetMemoryBusWidth(nvmlDevice_t device, unsigned int *busWidth)
{
    return rgpu_nvml_unsupported("nvmlDeviceGetMemoryBusWidth", "not part of what a program learns of its vGPUs through rgpu's NVML face");
}

/* not part of what a program learns of its vGPUs through rgpu's NVML face */
nvmlReturn_t nvmlDeviceGetPcieLinkMaxSpeed(nvmlDevice_t device, unsigned int *maxSpeed)
{
    return rgpu_nvml_unsupported("nvmlDeviceGetPcieLinkMaxSpeed", "not part of what a program learns of its vGPUs through rgpu's NVML face");
}

/* not part of what a program learns of its vGPUs through rgpu's NVML face */
nvmlReturn_t nvmlDeviceGetPcieSpeed(nvmlDevice_t device, unsigned int *pcieSpeed)
{
    return rgpu_nvml_unsupported("nvmlDeviceGetPcieSpeed", "not part of what a program learns of its vGPUs through rgpu's NVML face");
}

/* not part of what a program learns of its vGPUs through rgpu's NVML face */
nvmlReturn_t nvmlDeviceGetAdaptiveClockInfoStatus(nvmlDevice_t device, unsigned int *adaptiveClockStatus)
{
    return rgpu_nvml_unsupported("nvmlDeviceGetAdaptiveClockInfoStatus", "not part of what a program learns of its vGPUs through rgpu's NVML face");
}

/* not part of what a program learns of its vGPUs through rgpu's NVML face */
nvmlReturn_t nvmlDeviceGetBusType(nvmlDevice_t device, nvmlBusType_t *type)
{
    return rgpu_nvml_unsupported("nvmlDeviceGetBusType", "not part of what a program learns of its vGPUs through rgpu's NVML face");
}

/* not part of what a program learns of its vGPUs through rgpu's NVML face */
nvmlReturn_t nvmlDeviceGetGpuFabricInfo(nvmlDevice_t device, nvmlGpuFabricInfo_t *gpuFabricInfo)
{
    return rgpu_nvml_unsupported("nvmlDeviceGetGpuFabricInfo", "not part of what a program learns of its vGPUs through rgpu's NVML face");
}

/* not part of what a program learns of its vGPUs through rgpu's NVML face */
nvmlReturn_t nvmlDeviceGetGpuFabricInfoV(nvmlDevice_t device, nvmlGpuFabricInfoV_t *gpuFabricInfo)
{
    return rgpu_nvml_unsupported("nvmlDeviceGetGpuFabricInfoV", "not part of what a program learns of its vGPUs through rgpu's NVML face");
}

/* not part of what a program learns of its vGPUs through rgpu's NVML face */
nvmlReturn_t nvmlSystemGetConfComputeCapabilities(nvmlConfComputeSystemCaps_t *capabilities)
{
    return rgpu_nvml_unsupported("nvmlSystemGetConfComputeCapabilities", "not part of what a program learns of its vGPUs through rgpu's NVML face");
}

/* not part of what a program learns of its vGPUs through rgpu's NVML face */
nvmlReturn_t nvmlSystemGetConfComputeState(nvmlConfComputeSystemState_t *state)
{
    return rgpu_nvml_unsupported("nvmlSystemGetConfComputeState", "not part of what a program learns of its vGPUs through rgpu's NVML face");
}

/* not part of what a program learns of its vGPUs through rgpu's NVML face */
nvmlReturn_t nvmlDeviceGetConfComputeMemSizeInfo(nvmlDevice_t device, nvmlConfComputeMemSizeInfo_t *memInfo)
{
    return rgpu_nvml_unsupported("nvmlDeviceGetConfComputeMemSizeInfo", "not part of what a program learns of its vGPUs through rgpu's NVML face");
}

/* not part of what a program learns of its vGPUs through rgpu's NVML face */
nvmlReturn_t nvmlSystemGetConfComputeGpusReadyState(unsigned int *isAcceptingWork)
{
    return rgpu_nvml_unsupported("nvmlSystemGetConfComputeGpusReadyState", "not part of what a program learns of its vGPUs through rgpu's NVML face");
}

/* not part of what a program learns of its vGPUs through rgpu's NVML face */
nvmlReturn_t nvmlDeviceGetConfComputeProtectedMemoryUsage(nvmlDevice_t device, nvmlMemory_t *memory)
{
    return rgpu_nvml_unsupported("nvmlDeviceGetConfComputeProtectedMemoryUsage", "not part of what a program learns of its vGPUs through rgpu's NVML face");
}

/* not part of what a program learns of its vGPUs through rgpu's NVML face */
nvmlReturn_t nvmlDeviceGetConfComputeGpuCertificate(nvmlDevice_t device, nvmlConfComputeGpuCertificate_t *gpuCert)
{
    return rgpu_nvml_unsupported("nvmlDeviceGetConfComputeGpuCertificate", "not part of what a program learns of its vGPUs through rgpu's NVML face");
}

/* not part of what a program learns of its vGPUs through rgpu's NVML face */
nvmlReturn_t nvmlDeviceGetConfComputeGpuAttestationReport(nvmlDevice_t device, nvmlConfComputeGpuAttestationReport_t *gpuAtstReport)
{
    return rgpu_nvml_unsupported("nvmlDeviceGetConfComputeGpuAttestationReport", "not part of what a program learns of its vGPUs through rgpu's NVML face");
}

/* not part of what a program learns of its vGPUs through rgpu's NVML face */
nvmlReturn_t nvmlSystemGetConfComputeKeyRotationThresholdInfo(nvmlConfComputeGetKeyRotationThresholdInfo_t *pKeyRotationThrInfo)
{
    return rgpu_nvml_unsupported("nvmlSystemGetConfComputeKeyRotationThresholdInfo", "not part of what a program learns of its vGPUs through rgpu's NVML face");
}

/* rgpu's NVML reports; it changes nothing on the pool's GPUs */
nvmlReturn_t nvmlDeviceSetConfComputeUnprotectedMemSize(nvmlDevice_t device, unsigned long long sizeKiB)
{
    return rgpu_nvml_unsupported("nvmlDeviceSetConfComputeUnprotectedMemSize", "rgpu's NVML reports; it changes nothing on the pool's GPUs");
}

/* rgpu's NVML reports; it changes nothing on the pool's GPUs */
nvmlReturn_t nvmlSystemSetConfComputeGpusReadyState(unsigned int isAcceptingWork)
{
    return rgpu_nvml_unsupported("nvmlSystemSetConfComputeGpusReadyState", "rgpu's NVML reports; it changes nothing on the pool's GPUs");
}

/* rgpu's NVML reports; it changes nothing on the pool's GPUs */
nvmlReturn_t nvmlSystemSetConfComputeKeyRotationThresholdInfo(nvmlConfComputeSetKeyRotationThresholdInfo_t *pKeyRotationThrInfo)
{
    return rgpu_nvml_unsupported("nvmlSystemSetConfComputeKeyRotationThresholdInfo", "rgpu's NVML reports; it changes nothing on the pool's GPUs");
}

/* rgpu's NVML reports; it changes nothing on the pool's GPUs */
nvmlReturn_t nvmlSystemGetConfComputeSettings(nvmlSystemConfComputeSettings_t *settings)
{
    return rgpu_nvml_unsupported("nvmlSystemGetConfComputeSettings", "rgpu's NVML reports; it changes nothing on the pool's GPUs");
}

/* not part of what a program learns of its vGPUs through rgpu's NVML face */
nvmlReturn_t nvmlDeviceGetGspFirmwareVersion(nvmlDevice_t device, char *version)
{
    return rgpu_nvml_unsupported("nvmlDeviceGetGspFirmwareVersion", "not part of what a program learns of its vGPUs through rgpu's NVML face");
}

/* not part of what a program learns of its vGPUs through rgpu's NVML face */
nvmlReturn_t nvmlDeviceGetGspFirmwareMode(nvmlDevice_t device, unsigned int *isEnabled, unsigned int *defaultMode)
{
    return rgpu_nvml_unsupported("nvmlDeviceGetGspFirmwareMode", "not part of what a program learns of its vGPUs through rgpu's NVML face");
}

/* not part of what a program learns of its vGPUs through rgpu's NVML face */
nvmlReturn_t nvmlDeviceGetSramEccErrorStatus(nvmlDevice_t device, nvmlEccSramErrorStatus_t *status)
{
    return rgpu_nvml_unsupported("nvmlDeviceGetSramEccErrorStatus", "not part of what a program learns of its vGPUs through rgpu's NVML face");
}

/* rgpu's NVML reports; it changes nothing on the pool's GPUs */
nvmlReturn_t nvmlDeviceSetPowerManagementLimit_v2(nvmlDevice_t device, nvmlPowerValue_v2_t *powerValue)
{
    return rgpu_nvml_unsupported("nvmlDeviceSetPowerManagementLimit_v2", "rgpu's NVML reports; it changes nothing on the pool's GPUs");
}

/* not part of what a program learns of its vGPUs through rgpu's NVML face */
nvmlReturn_t nvmlDeviceGetAccountingMode(nvmlDevice_t device, nvmlEnableState_t *mode)
{
    return rgpu_nvml_unsupported("nvmlDeviceGetAccountingMode", "not part of what a program learns of its vGPUs through rgpu's NVML face");
}

/* not part of what a program learns of its vGPUs through rgpu's NVML face */
nvmlReturn_t nvmlDeviceGetAccountingStats(nvmlDevice_t device, unsigned int pid, nvmlAccountingStats_t *stats)
{
    return rgpu_nvml_unsupported("nvmlDeviceGetAccountingStats", "not part of what a program learns of its vGPUs through rgpu's NVML face");
}

/* not part of what a program learns of its vGPUs through rgpu's NVML face */
nvmlReturn_t nvmlDeviceGetAccountingPids(nvmlDevice_t device, unsigned int *count, unsigned int *pids)
{
    return rgpu_nvml_unsupported("nvmlDeviceGetAccountingPids", "not part of what a program learns of its vGPUs through rgpu's NVML face");
}

/* not part of what a program learns of its vGPUs through rgpu's NVML face */
nvmlReturn_t nvmlDeviceGetAccountingBufferSize(nvmlDevice_t device, unsigned int *bufferSize)
{
    return rgpu_nvml_unsupported("nvmlDeviceGetAccountingBufferSize", "not part of what a program learns of its vGPUs through rgpu's NVML face");
}

/* not part of what a program learns of its vGPUs through rgpu's NVML face */
nvmlReturn_t nvmlDeviceGetRetiredPages(nvmlDevice_t device, nvmlPageRetirementCause_t cause, unsigned int *pageCount, unsigned long long *addresses)
{
    return rgpu_nvml_unsupported("nvmlDeviceGetRetiredPages", "not part of what a program learns of its vGPUs through rgpu's NVML face");
}

/* not part of what a program learns of its vGPUs through rgpu's NVML face */
nvmlReturn_t nvmlDeviceGetRetiredPages_v2(nvmlDevice_t device, nvmlPageRetirementCause_t cause, unsigned int *pageCount, unsigned long long *addresses, unsigned long long *timestamps)
{
    return rgpu_nvml_unsupported("nvmlDeviceGetRetiredPages_v2", "not part of what a program learns of its vGPUs through rgpu's NVML face");
}

/* not part of what a program learns of its vGPUs through rgpu's NVML face */
nvmlReturn_t nvmlDeviceGetRetiredPagesPendingStatus(nvmlDevice_t device, nvmlEnableState_t *isPending)
{
    return rgpu_nvml_unsupported("nvmlDeviceGetRetiredPagesPendingStatus", "not part of what a program learns of its vGPUs through rgpu's NVML face");
}

/* not part of what a program learns of its vGPUs through rgpu's NVML face */
nvmlReturn_t nvmlDeviceGetRemappedRows(nvmlDevice_t device, unsigned int *corrRows, unsigned int *uncRows, unsigned int *isPending, unsigned int *failureOccurred)
{
    return rgpu_nvml_unsupported("nvmlDeviceGetRemappedRows", "not part of what a program learns of its vGPUs through rgpu's NVML face");
}

/* not part of what a program learns of its vGPUs through rgpu's NVML face */
nvmlReturn_t nvmlDeviceGetRowRemapperHistogram(nvmlDevice_t device, nvmlRowRemapperHistogramValues_t *values)
{
    return rgpu_nvml_unsupported("nvmlDeviceGetRowRemapperHistogram", "not part of what a program learns of its vGPUs through rgpu's NVML face");
}

/* not part of what a program learns of its vGPUs through rgpu's NVML face */
nvmlReturn_t nvmlDeviceGetArchitecture(nvmlDevice_t device, nvmlDeviceArchitecture_t *arch)
{
    return rgpu_nvml_unsupported("nvmlDeviceGetArchitecture", "not part of what a program learns of its vGPUs through rgpu's NVML face");
}

/* not part of what a program learns of its vGPUs through rgpu's NVML face */
nvmlReturn_t nvmlDeviceGetClkMonStatus(nvmlDevice_t device, nvmlClkMonStatus_t *status)
{
    return rgpu_nvml_unsupported("nvmlDeviceGetClkMonStatus", "not part of what a program learns of its vGPUs through rgpu's NVML face");
}

/* not part of what a program learns of its vGPUs through rgpu's NVML face */
nvmlReturn_t nvmlDeviceGetProcessUtilization(nvmlDevice_t device, nvmlProcessUtilizationSample_t *utilization, unsigned int *processSamplesCount, unsigned long long lastSeenTimeStamp)
{
    return rgpu_nvml_unsupported("nvmlDeviceGetProcessUtilization", "not part of what a program learns of its vGPUs through rgpu's NVML face");
}

/* not part of what a program learns of its vGPUs through rgpu's NVML face */
nvmlReturn_t nvmlDeviceGetProcessesUtilizationInfo(nvmlDevice_t device, nvmlProcessesUtilizationInfo_t *procesesUtilInfo)
{
    return rgpu_nvml_unsupported("nvmlDeviceGetProcessesUtilizationInfo", "not part of what a program learns of its vGPUs through rgpu's NVML face");
}

/* not part of what a program learns of its vGPUs through rgpu's NVML face */
nvmlReturn_t nvmlDeviceGetPlatformInfo(nvmlDevice_t device, nvmlPlatformInfo_t *platformInfo)
{
    return rgpu_nvml_unsupported("nvmlDeviceGetPlatformInfo", "not part of what a program learns of its vGPUs through rgpu's NVML face");
}

/* not part of what a program learns of its vGPUs through rgpu's NVML face */
nvmlReturn_t nvmlDeviceGetPdi(nvmlDevice_t device, nvmlPdi_t *pdi)
{
    return rgpu_nvml_unsupported("nvmlDeviceGetPdi", "not part of what a program learns of its vGPUs through rgpu's NVML face");
}

/* rgpu's NVML reports; it changes nothing on the pool's GPUs */
nvmlReturn_t nvmlDeviceSetHostname_v1(nvmlDevice_t device, nvmlHostname_v1_t *hostname)
{
    return rgpu_nvml_unsupported("nvmlDeviceSetHostname_v1", "rgpu's NVML reports; it changes nothing on the pool's GPUs");
}

/* not part of what a program learns of its vGPUs through rgpu's NVML face */
nvmlReturn_t nvmlDeviceGetHostname_v1(nvmlDevice_t device, nvmlHostname_v1_t *hostname)
{
    return rgpu_nvml_unsupported("nvmlDeviceGetHostname_v1", "not part of what a program learns of its vGPUs through rgpu's NVML face");
}

/* rgpu's NVML reports; it changes nothing on the pool's GPUs */
nvmlReturn_t nvmlUnitSetLedState(nvmlUnit_t unit, nvmlLedColor_t color)
{
    return rgpu_nvml_unsupported("nvmlUnitSetLedState", "rgpu's NVML reports; it changes nothing on the pool's GPUs");
}

/* rgpu's NVML reports; it changes nothing on the pool's GPUs */
nvmlReturn_t nvmlDeviceSetPersistenceMode(nvmlDevice_t device, nvmlEnableState_t mode)
{
    return rgpu_nvml_unsupported("nvmlDeviceSetPersistenceMode", "rgpu's NVML reports; it changes nothing on the pool's GPUs");
}

/* rgpu's NVML reports; it changes nothing on the pool's GPUs */
nvmlReturn_t nvmlDeviceSetComputeMode(nvmlDevice_t device, nvmlComputeMode_t mode)
{
    return rgpu_nvml_unsupported("nvmlDeviceSetComputeMode", "rgpu's NVML reports; it changes nothing on the pool's GPUs");
}

/* rgpu's NVML reports; it changes nothing on the pool's GPUs */
nvmlReturn_t nvmlDeviceSetEccMode(nvmlDevice_t device, nvmlEnableState_t ecc)
{
    return rgpu_nvml_unsupported("nvmlDeviceSetEccMode", "rgpu's NVML reports; it changes nothing on the pool's GPUs");
}

/* rgpu's NVML reports; it changes nothing on the pool's GPUs */
nvmlReturn_t nvmlDeviceClearEccErrorCounts(nvmlDevice_t device, nvmlEccCounterType_t counterType)
{
    return rgpu_nvml_unsupported("nvmlDeviceClearEccErrorCounts", "rgpu's NVML reports; it changes nothing on the pool's GPUs");
}

/* rgpu's NVML reports; it changes nothing on the pool's GPUs */
nvmlReturn_t nvmlDeviceSetDriverModel(nvmlDevice_t device, nvmlDriverModel_t driverModel, unsigned int flags)
{
    return rgpu_nvml_unsupported("nvmlDeviceSetDriverModel", "rgpu's NVML reports; it changes nothing on the pool's GPUs");
}

/* rgpu's NVML reports; it changes nothing on the pool's GPUs */
nvmlReturn_t nvmlDeviceSetGpuLockedClocks(nvmlDevice_t device, unsigned int minGpuClockMHz, unsigned int maxGpuClockMHz)
{
    return rgpu_nvml_unsupported("nvmlDeviceSetGpuLockedClocks", "rgpu's NVML reports; it changes nothing on the pool's GPUs");
}

/* rgpu's NVML reports; it changes nothing on the pool's GPUs */
nvmlReturn_t nvmlDeviceResetGpuLockedClocks(nvmlDevice_t device)
{
    return rgpu_nvml_unsupported("nvmlDeviceResetGpuLockedClocks", "rgpu's NVML reports; it changes nothing on the pool's GPUs");
}

/* rgpu's NVML reports; it changes nothing on the pool's GPUs */
nvmlReturn_t nvmlDeviceSetMemoryLockedClocks(nvmlDevice_t device, unsigned int minMemClockMHz, unsigned int maxMemClockMHz)
{
    return rgpu_nvml_unsupported("nvmlDeviceSetMemoryLockedClocks", "rgpu's NVML reports; it changes nothing on the pool's GPUs");
}

/* rgpu's NVML reports; it changes nothing on the pool's GPUs */
nvmlReturn_t nvmlDeviceResetMemoryLockedClocks(nvmlDevice_t device)
{
    return rgpu_nvml_unsupported("nvmlDeviceResetMemoryLockedClocks", "rgpu's NVML reports; it changes nothing on the pool's GPUs");
}

/* rgpu's NVML reports; it changes nothing on the pool's GPUs */
nvmlReturn_t nvmlDeviceSetApplicationsClocks(nvmlDevice_t device, unsigned int memClockMHz, unsigned int graphicsClockMHz)
{
    return rgpu_nvml_unsupported("nvmlDeviceSetApplicationsClocks", "rgpu's NVML reports; it changes nothing on the pool's GPUs");
}

/* rgpu's NVML reports; it changes nothing on the pool's GPUs */
nvmlReturn_t nvmlDeviceResetApplicationsClocks(nvmlDevice_t device)
{
    return rgpu_nvml_unsupported("nvmlDeviceResetApplicationsClocks", "rgpu's NVML reports; it changes nothing on the pool's GPUs");
}

/* rgpu's NVML reports; it changes nothing on the pool's GPUs */
nvmlReturn_t nvmlDeviceSetAutoBoostedClocksEnabled(nvmlDevice_t device, nvmlEnableState_t enabled)
{
    return rgpu_nvml_unsupported("nvmlDeviceSetAutoBoostedClocksEnabled", "rgpu's NVML reports; it changes nothing on the pool's GPUs");
}

/* rgpu's NVML reports; it changes nothing on the pool's GPUs */
nvmlReturn_t nvmlDeviceSetDefaultAutoBoostedClocksEnabled(nvmlDevice_t device, nvmlEnableState_t enabled, unsigned int flags)
{
    return rgpu_nvml_unsupported("nvmlDeviceSetDefaultAutoBoostedClocksEnabled", "rgpu's NVML reports; it changes nothing on the pool's GPUs");
}

/* rgpu's NVML reports; it changes nothing on the pool's GPUs */
nvmlReturn_t nvmlDeviceSetDefaultFanSpeed_v2(nvmlDevice_t device, unsigned int fan)
{
    return rgpu_nvml_unsupported("nvmlDeviceSetDefaultFanSpeed_v2", "rgpu's NVML reports; it changes nothing on the pool's GPUs");
}

/* rgpu's NVML reports; it changes nothing on the pool's GPUs */
nvmlReturn_t nvmlDeviceSetFanControlPolicy(nvmlDevice_t device, unsigned int fan, nvmlFanControlPolicy_t policy)
{
    return rgpu_nvml_unsupported("nvmlDeviceSetFanControlPolicy", "rgpu's NVML reports; it changes nothing on the pool's GPUs");
}

/* rgpu's NVML reports; it changes nothing on the pool's GPUs */
nvmlReturn_t nvmlDeviceSetTemperatureThreshold(nvmlDevice_t device, nvmlTemperatureThresholds_t thresholdType, int *temp)
{
    return rgpu_nvml_unsupported("nvmlDeviceSetTemperatureThreshold", "rgpu's NVML reports; it changes nothing on the pool's GPUs");
}

/* rgpu's NVML reports; it changes nothing on the pool's GPUs */
nvmlReturn_t nvmlDeviceSetPowerManagementLimit(nvmlDevice_t device, unsigned int limit)
{
    return rgpu_nvml_unsupported("nvmlDeviceSetPowerManagementLimit", "rgpu's NVML reports; it changes nothing on the pool's GPUs");
}

/* rgpu's NVML reports; it changes nothing on the pool's GPUs */
nvmlReturn_t nvmlDeviceSetGpuOperationMode(nvmlDevice_t device, nvmlGpuOperationMode_t mode)
{
    return rgpu_nvml_unsupported("nvmlDeviceSetGpuOperationMode", "rgpu's NVML reports; it changes nothing on the pool's GPUs");
}

/* rgpu's NVML reports; it changes nothing on the pool's GPUs */
nvmlReturn_t nvmlDeviceSetAPIRestriction(nvmlDevice_t device, nvmlRestrictedAPI_t apiType, nvmlEnableState_t isRestricted)
{
    return rgpu_nvml_unsupported("nvmlDeviceSetAPIRestriction", "rgpu's NVML reports; it changes nothing on the pool's GPUs");
}

/* rgpu's NVML reports; it changes nothing on the pool's GPUs */
nvmlReturn_t nvmlDeviceSetFanSpeed_v2(nvmlDevice_t device, unsigned int fan, unsigned int speed)
{
    return rgpu_nvml_unsupported("nvmlDeviceSetFanSpeed_v2", "rgpu's NVML reports; it changes nothing on the pool's GPUs");
}

/* rgpu's NVML reports; it changes nothing on the pool's GPUs */
nvmlReturn_t nvmlDeviceSetGpcClkVfOffset(nvmlDevice_t device, int offset)
{
    return rgpu_nvml_unsupported("nvmlDeviceSetGpcClkVfOffset", "rgpu's NVML reports; it changes nothing on the pool's GPUs");
}

/* rgpu's NVML reports; it changes nothing on the pool's GPUs */
nvmlReturn_t nvmlDeviceSetMemClkVfOffset(nvmlDevice_t device, int offset)
{
    return rgpu_nvml_unsupported("nvmlDeviceSetMemClkVfOffset", "rgpu's NVML reports; it changes nothing on the pool's GPUs");
}

/* rgpu's NVML reports; it changes nothing on the pool's GPUs */
nvmlReturn_t nvmlDeviceSetAccountingMode(nvmlDevice_t device, nvmlEnableState_t mode)
{
    return rgpu_nvml_unsupported("nvmlDeviceSetAccountingMode", "rgpu's NVML reports; it changes nothing on the pool's GPUs");
}

/* rgpu's NVML reports; it changes nothing on the pool's GPUs */
nvmlReturn_t nvmlDeviceClearAccountingPids(nvmlDevice_t device)
{
    return rgpu_nvml_unsupported("nvmlDeviceClearAccountingPids", "rgpu's NVML reports; it changes nothing on the pool's GPUs");
}

/* not part of what a program learns of its vGPUs through rgpu's NVML face */
nvmlReturn_t nvmlDeviceGetNvLinkState(nvmlDevice_t device, unsigned int link, nvmlEnableState_t *isActive)
{
    return rgpu_nvml_unsupported("nvmlDeviceGetNvLinkState", "not part of what a program learns of its vGPUs through rgpu's NVML face");
}

/* not part of what a program learns of its vGPUs through rgpu's NVML face */
nvmlReturn_t nvmlDeviceGetNvLinkVersion(nvmlDevice_t device, unsigned int link, unsigned int *version)
{
    return rgpu_nvml_unsupported("nvmlDeviceGetNvLinkVersion", "not part of what a program learns of its vGPUs through rgpu's NVML face");
}

/* not part of what a program learns of its vGPUs through rgpu's NVML face */
nvmlReturn_t nvmlDeviceGetNvLinkCapability(nvmlDevice_t device, unsigned int link, nvmlNvLinkCapability_t capability, unsigned int *capResult)
{
    return rgpu_nvml_unsupported("nvmlDeviceGetNvLinkCapability", "not part of what a program learns of its vGPUs through rgpu's NVML face");
}

/* not part of what a program learns of its vGPUs through rgpu's NVML face */
nvmlReturn_t nvmlDeviceGetNvLinkRemotePciInfo_v2(nvmlDevice_t device, unsigned int link, nvmlPciInfo_t *pci)
{
    return rgpu_nvml_unsupported("nvmlDeviceGetNvLinkRemotePciInfo_v2", "not part of what a program learns of its vGPUs through rgpu's NVML face");
}

/* not part of what a program learns of its vGPUs through rgpu's NVML face */
nvmlReturn_t nvmlDeviceGetNvLinkErrorCounter(nvmlDevice_t device, unsigned int link, nvmlNvLinkErrorCounter_t counter, unsigned long long *counterValue)
{
    return rgpu_nvml_unsupported("nvmlDeviceGetNvLinkErrorCounter", "not part of what a program learns of its vGPUs through rgpu's NVML face");
}

/* rgpu's NVML reports; it changes nothing on the pool's GPUs */
nvmlReturn_t nvmlDeviceResetNvLinkErrorCounters(nvmlDevice_t device, unsigned int link)
{
    return rgpu_nvml_unsupported("nvmlDeviceResetNvLinkErrorCounters", "rgpu's NVML reports; it changes nothing on the pool's GPUs");
}

/* rgpu's NVML reports; it changes nothing on the pool's GPUs */
nvmlReturn_t nvmlDeviceSetNvLinkUtilizationControl(nvmlDevice_t device, unsigned int link, unsigned int counter, nvmlNvLinkUtilizationControl_t *control, unsigned int reset)
{
    return rgpu_nvml_unsupported("nvmlDeviceSetNvLinkUtilizationControl", "rgpu's NVML reports; it changes nothing on the pool's GPUs");
}

/* not part of what a program learns of its vGPUs through rgpu's NVML face */
nvmlReturn_t nvmlDeviceGetNvLinkUtilizationControl(nvmlDevice_t device, unsigned int link, unsigned int counter, nvmlNvLinkUtilizationControl_t *control)
{
    return rgpu_nvml_unsupported("nvmlDeviceGetNvLinkUtilizationControl", "not part of what a program learns of its vGPUs through rgpu's NVML face");
}

/* not part of what a program learns of its vGPUs through rgpu's NVML face */
nvmlReturn_t nvmlDeviceGetNvLinkUtilizationCounter(nvmlDevice_t device, unsigned int link, unsigned int counter, unsigned long long *rxcounter, unsigned long long *txcounter)
{
    return rgpu_nvml_unsupported("nvmlDeviceGetNvLinkUtilizationCounter", "not part of what a program learns of its vGPUs through rgpu's NVML face");
}

/* not part of what a program learns of its vGPUs through rgpu's NVML face */
nvmlReturn_t nvmlDeviceFreezeNvLinkUtilizationCounter(nvmlDevice_t device, unsigned int link, unsigned int counter, nvmlEnableState_t freeze)
{
    return rgpu_nvml_unsupported("nvmlDeviceFreezeNvLinkUtilizationCounter", "not part of what a program learns of its vGPUs through rgpu's NVML face");
}

/* rgpu's NVML reports; it changes nothing on the pool's GPUs */
nvmlReturn_t nvmlDeviceResetNvLinkUtilizationCounter(nvmlDevice_t device, unsigned int link, unsigned int counter)
{
    return rgpu_nvml_unsupported("nvmlDeviceResetNvLinkUtilizationCounter", "rgpu's NVML reports; it changes nothing on the pool's GPUs");
}

/* not part of what a program learns of its vGPUs through rgpu's NVML face */
nvmlReturn_t nvmlDeviceGetNvLinkRemoteDeviceType(nvmlDevice_t device, unsigned int link, nvmlIntNvLinkDeviceType_t *pNvLinkDeviceType)
{
    return rgpu_nvml_unsupported("nvmlDeviceGetNvLinkRemoteDeviceType", "not part of what a program learns of its vGPUs through rgpu's NVML face");
}

/* rgpu's NVML reports; it changes nothing on the pool's GPUs */
nvmlReturn_t nvmlDeviceSetNvLinkDeviceLowPowerThreshold(nvmlDevice_t device, nvmlNvLinkPowerThres_t *info)
{
    return rgpu_nvml_unsupported("nvmlDeviceSetNvLinkDeviceLowPowerThreshold", "rgpu's NVML reports; it changes nothing on the pool's GPUs");
}

/* rgpu's NVML reports; it changes nothing on the pool's GPUs */
nvmlReturn_t nvmlSystemSetNvlinkBwMode(unsigned int nvlinkBwMode)
{
    return rgpu_nvml_unsupported("nvmlSystemSetNvlinkBwMode", "rgpu's NVML reports; it changes nothing on the pool's GPUs");
}

/* not part of what a program learns of its vGPUs through rgpu's NVML face */
nvmlReturn_t nvmlSystemGetNvlinkBwMode(unsigned int *nvlinkBwMode)
{
    return rgpu_nvml_unsupported("nvmlSystemGetNvlinkBwMode", "not part of what a program learns of its vGPUs through rgpu's NVML face");
}

/* not part of what a program learns of its vGPUs through rgpu's NVML face */
nvmlReturn_t nvmlDeviceGetNvlinkSupportedBwModes(nvmlDevice_t device, nvmlNvlinkSupportedBwModes_t *supportedBwMode)
{
    return rgpu_nvml_unsupported("nvmlDeviceGetNvlinkSupportedBwModes", "not part of what a program learns of its vGPUs through rgpu's NVML face");
}

/* not part of what a program learns of its vGPUs through rgpu's NVML face */
nvmlReturn_t nvmlDeviceGetNvlinkBwMode(nvmlDevice_t device, nvmlNvlinkGetBwMode_t *getBwMode)
{
    return rgpu_nvml_unsupported("nvmlDeviceGetNvlinkBwMode", "not part of what a program learns of its vGPUs through rgpu's NVML face");
}

/* rgpu's NVML reports; it changes nothing on the pool's GPUs */
nvmlReturn_t nvmlDeviceSetNvlinkBwMode(nvmlDevice_t device, nvmlNvlinkSetBwMode_t *setBwMode)
{
    return rgpu_nvml_unsupported("nvmlDeviceSetNvlinkBwMode", "rgpu's NVML reports; it changes nothing on the pool's GPUs");
}

/* not part of what a program learns of its vGPUs through rgpu's NVML face */
nvmlReturn_t nvmlDeviceGetNvLinkInfo(nvmlDevice_t device, nvmlNvLinkInfo_t *info)
{
    return rgpu_nvml_unsupported("nvmlDeviceGetNvLinkInfo", "not part of what a program learns of its vGPUs through rgpu's NVML face");
}

/* rgpu's NVML reports; it changes nothing on the pool's GPUs */
nvmlReturn_t nvmlEventSetCreate(nvmlEventSet_t *set)
{
    return rgpu_nvml_unsupported("nvmlEventSetCreate", "rgpu's NVML reports; it changes nothing on the pool's GPUs");
}

/* not part of what a program learns of its vGPUs through rgpu's NVML face */
nvmlReturn_t nvmlDeviceRegisterEvents(nvmlDevice_t device, unsigned long long eventTypes, nvmlEventSet_t set)
{
    return rgpu_nvml_unsupported("nvmlDeviceRegisterEvents", "not part of what a program learns of its vGPUs through rgpu's NVML face");
}

/* not part of what a program learns of its vGPUs through rgpu's NVML face */
nvmlReturn_t nvmlDeviceGetSupportedEventTypes(nvmlDevice_t device, unsigned long long *eventTypes)
{
    return rgpu_nvml_unsupported("nvmlDeviceGetSupportedEventTypes", "not part of what a program learns of its vGPUs through rgpu's NVML face");
}

/* rgpu's NVML reports; it changes nothing on the pool's GPUs */
nvmlReturn_t nvmlEventSetWait_v2(nvmlEventSet_t set, nvmlEventData_t *data, unsigned int timeoutms)
{
    return rgpu_nvml_unsupported("nvmlEventSetWait_v2", "rgpu's NVML reports; it changes nothing on the pool's GPUs");
}

/* rgpu's NVML reports; it changes nothing on the pool's GPUs */
nvmlReturn_t nvmlEventSetFree(nvmlEventSet_t set)
{
    return rgpu_nvml_unsupported("nvmlEventSetFree", "rgpu's NVML reports; it changes nothing on the pool's GPUs");
}

/* rgpu's NVML reports; it changes nothing on the pool's GPUs */
nvmlReturn_t nvmlSystemEventSetCreate(nvmlSystemEventSetCreateRequest_t *request)
{
    return rgpu_nvml_unsupported("nvmlSystemEventSetCreate", "rgpu's NVML reports; it changes nothing on the pool's GPUs");
}

/* rgpu's NVML reports; it changes nothing on the pool's GPUs */
nvmlReturn_t nvmlSystemEventSetFree(nvmlSystemEventSetFreeRequest_t *request)
{
    return rgpu_nvml_unsupported("nvmlSystemEventSetFree", "rgpu's NVML reports; it changes nothing on the pool's GPUs");
}

/* not part of what a program learns of its vGPUs through rgpu's NVML face */
nvmlReturn_t nvmlSystemRegisterEvents(nvmlSystemRegisterEventRequest_t *request)
{
    return rgpu_nvml_unsupported("nvmlSystemRegisterEvents", "not part of what a program learns of its vGPUs through rgpu's NVML face");
}

/* rgpu's NVML reports; it changes nothing on the pool's GPUs */
nvmlReturn_t nvmlSystemEventSetWait(nvmlSystemEventSetWaitRequest_t *request)
{
    return rgpu_nvml_unsupported("nvmlSystemEventSetWait", "rgpu's NVML reports; it changes nothing on the pool's GPUs");
}

/* not part of what a program learns of its vGPUs through rgpu's NVML face */
nvmlReturn_t nvmlDeviceModifyDrainState(nvmlPciInfo_t *pciInfo, nvmlEnableState_t newState)
{
    return rgpu_nvml_unsupported("nvmlDeviceModifyDrainState", "not part of what a program learns of its vGPUs through rgpu's NVML face");
}

/* not part of what a program learns of its vGPUs through rgpu's NVML face */
nvmlReturn_t nvmlDeviceQueryDrainState(nvmlPciInfo_t *pciInfo, nvmlEnableState_t *currentState)
{
    return rgpu_nvml_unsupported("nvmlDeviceQueryDrainState", "not part of what a program learns of its vGPUs through rgpu's NVML face");
}

/* not part of what a program learns of its vGPUs through rgpu's NVML face */
nvmlReturn_t nvmlDeviceRemoveGpu_v2(nvmlPciInfo_t *pciInfo, nvmlDetachGpuState_t gpuState, nvmlPcieLinkState_t linkState)
{
    return rgpu_nvml_unsupported("nvmlDeviceRemoveGpu_v2", "not part of what a program learns of its vGPUs through rgpu's NVML face");
}

/* not part of what a program learns of its vGPUs through rgpu's NVML face */
nvmlReturn_t nvmlDeviceDiscoverGpus(nvmlPciInfo_t *pciInfo)
{
    return rgpu_nvml_unsupported("nvmlDeviceDiscoverGpus", "not part of what a program learns of its vGPUs through rgpu's NVML face");
}

/* not part of what a program learns of its vGPUs through rgpu's NVML face */
nvmlReturn_t nvmlDeviceGetFieldValues(nvmlDevice_t device, int valuesCount, nvmlFieldValue_t *values)
{
    return rgpu_nvml_unsupported("nvmlDeviceGetFieldValues", "not part of what a program learns of its vGPUs through rgpu's NVML face");
}

/* rgpu's NVML reports; it changes nothing on the pool's GPUs */
nvmlReturn_t nvmlDeviceClearFieldValues(nvmlDevice_t device, int valuesCount, nvmlFieldValue_t *values)
{
    return rgpu_nvml_unsupported("nvmlDeviceClearFieldValues", "rgpu's NVML reports; it changes nothing on the pool's GPUs");
}

/* not part of what a program learns of its vGPUs through rgpu's NVML face */
nvmlReturn_t nvmlDeviceGetVirtualizationMode(nvmlDevice_t device, nvmlGpuVirtualizationMode_t *pVirtualMode)
{
    return rgpu_nvml_unsupported("nvmlDeviceGetVirtualizationMode", "not part of what a program learns of its vGPUs through rgpu's NVML face");
}

/* not part of what a program learns of its vGPUs through rgpu's NVML face */
nvmlReturn_t nvmlDeviceGetHostVgpuMode(nvmlDevice_t device, nvmlHostVgpuMode_t *pHostVgpuMode)
{
    return rgpu_nvml_unsupported("nvmlDeviceGetHostVgpuMode", "not part of what a program learns of its vGPUs through rgpu's NVML face");
}

/* rgpu's NVML reports; it changes nothing on the pool's GPUs */
nvmlReturn_t nvmlDeviceSetVirtualizationMode(nvmlDevice_t device, nvmlGpuVirtualizationMode_t virtualMode)
{
    return rgpu_nvml_unsupported("nvmlDeviceSetVirtualizationMode", "rgpu's NVML reports; it changes nothing on the pool's GPUs");
}

/* not part of what a program learns of its vGPUs through rgpu's NVML face */
nvmlReturn_t nvmlDeviceGetVgpuHeterogeneousMode(nvmlDevice_t device, nvmlVgpuHeterogeneousMode_t *pHeterogeneousMode)
{
    return rgpu_nvml_unsupported("nvmlDeviceGetVgpuHeterogeneousMode", "not part of what a program learns of its vGPUs through rgpu's NVML face");
}

/* rgpu's NVML reports; it changes nothing on the pool's GPUs */
nvmlReturn_t nvmlDeviceSetVgpuHeterogeneousMode(nvmlDevice_t device, const nvmlVgpuHeterogeneousMode_t *pHeterogeneousMode)
{
    return rgpu_nvml_unsupported("nvmlDeviceSetVgpuHeterogeneousMode", "rgpu's NVML reports; it changes nothing on the pool's GPUs");
}

/* not part of what a program learns of its vGPUs through rgpu's NVML face */
nvmlReturn_t nvmlVgpuInstanceGetPlacementId(nvmlVgpuInstance_t vgpuInstance, nvmlVgpuPlacementId_t *pPlacement)
{
    return rgpu_nvml_unsupported("nvmlVgpuInstanceGetPlacementId", "not part of what a program learns of its vGPUs through rgpu's NVML face");
}

/* not part of what a program learns of its vGPUs through rgpu's NVML face */
nvmlReturn_t nvmlDeviceGetVgpuTypeSupportedPlacements(nvmlDevice_t device, nvmlVgpuTypeId_t vgpuTypeId, nvmlVgpuPlacementList_t *pPlacementList)
{
    return rgpu_nvml_unsupported("nvmlDeviceGetVgpuTypeSupportedPlacements", "not part of what a program learns of its vGPUs through rgpu's NVML face");
}

/* not part of what a program learns of its vGPUs through rgpu's NVML face */
nvmlReturn_t nvmlDeviceGetVgpuTypeCreatablePlacements(nvmlDevice_t device, nvmlVgpuTypeId_t vgpuTypeId, nvmlVgpuPlacementList_t *pPlacementList)
{
    return rgpu_nvml_unsupported("nvmlDeviceGetVgpuTypeCreatablePlacements", "not part of what a program learns of its vGPUs through rgpu's NVML face");
}

/* not part of what a program learns of its vGPUs through rgpu's NVML face */
nvmlReturn_t nvmlVgpuTypeGetGspHeapSize(nvmlVgpuTypeId_t vgpuTypeId, unsigned long long *gspHeapSize)
{
    return rgpu_nvml_unsupported("nvmlVgpuTypeGetGspHeapSize", "not part of what a program learns of its vGPUs through rgpu's NVML face");
}

/* not part of what a program learns of its vGPUs through rgpu's NVML face */
nvmlReturn_t nvmlVgpuTypeGetFbReservation(nvmlVgpuTypeId_t vgpuTypeId, unsigned long long *fbReservation)
{
    return rgpu_nvml_unsupported("nvmlVgpuTypeGetFbReservation", "not part of what a program learns of its vGPUs through rgpu's NVML face");
}

/* not part of what a program learns of its vGPUs through rgpu's NVML face */
nvmlReturn_t nvmlVgpuInstanceGetRuntimeStateSize(nvmlVgpuInstance_t vgpuInstance, nvmlVgpuRuntimeState_t *pState)
{
    return rgpu_nvml_unsupported("nvmlVgpuInstanceGetRuntimeStateSize", "not part of what a program learns of its vGPUs through rgpu's NVML face");
}

/* rgpu's NVML reports; it changes nothing on the pool's GPUs */
nvmlReturn_t nvmlDeviceSetVgpuCapabilities(nvmlDevice_t device, nvmlDeviceVgpuCapability_t capability, nvmlEnableState_t state)
{
    return rgpu_nvml_unsupported("nvmlDeviceSetVgpuCapabilities", "rgpu's NVML reports; it changes nothing on the pool's GPUs");
}

/* not part of what a program learns of its vGPUs through rgpu's NVML face */
nvmlReturn_t nvmlDeviceGetGridLicensableFeatures_v4(nvmlDevice_t device, nvmlGridLicensableFeatures_t *pGridLicensableFeatures)
{
    return rgpu_nvml_unsupported("nvmlDeviceGetGridLicensableFeatures_v4", "not part of what a program learns of its vGPUs through rgpu's NVML face");
}

/* not part of what a program learns of its vGPUs through rgpu's NVML face */
nvmlReturn_t nvmlGetVgpuDriverCapabilities(nvmlVgpuDriverCapability_t capability, unsigned int *capResult)
{
    return rgpu_nvml_unsupported("nvmlGetVgpuDriverCapabilities", "not part of what a program learns of its vGPUs through rgpu's NVML face");
}

/* not part of what a program learns of its vGPUs through rgpu's NVML face */
nvmlReturn_t nvmlDeviceGetVgpuCapabilities(nvmlDevice_t device, nvmlDeviceVgpuCapability_t capability, unsigned int *capResult)
{
    return rgpu_nvml_unsupported("nvmlDeviceGetVgpuCapabilities", "not part of what a program learns of its vGPUs through rgpu's NVML face");
}

/* not part of what a program learns of its vGPUs through rgpu's NVML face */
nvmlReturn_t nvmlDeviceGetSupportedVgpus(nvmlDevice_t device, unsigned int *vgpuCount, nvmlVgpuTypeId_t *vgpuTypeIds)
{
    return rgpu_nvml_unsupported("nvmlDeviceGetSupportedVgpus", "not part of what a program learns of its vGPUs through rgpu's NVML face");
}

/* not part of what a program learns of its vGPUs through rgpu's NVML face */
nvmlReturn_t nvmlDeviceGetCreatableVgpus(nvmlDevice_t device, unsigned int *vgpuCount, nvmlVgpuTypeId_t *vgpuTypeIds)
{
    return rgpu_nvml_unsupported("nvmlDeviceGetCreatableVgpus", "not part of what a program learns of its vGPUs through rgpu's NVML face");
}

/* not part of what a program learns of its vGPUs through rgpu's NVML face */
nvmlReturn_t nvmlVgpuTypeGetClass(nvmlVgpuTypeId_t vgpuTypeId, char *vgpuTypeClass, unsigned int *size)
{
    return rgpu_nvml_unsupported("nvmlVgpuTypeGetClass", "not part of what a program learns of its vGPUs through rgpu's NVML face");
}

/* not part of what a program learns of its vGPUs through rgpu's NVML face */
nvmlReturn_t nvmlVgpuTypeGetName(nvmlVgpuTypeId_t vgpuTypeId, char *vgpuTypeName, unsigned int *size)
{
    return rgpu_nvml_unsupported("nvmlVgpuTypeGetName", "not part of what a program learns of its vGPUs through rgpu's NVML face");
}

/* not part of what a program learns of its vGPUs through rgpu's NVML face */
nvmlReturn_t nvmlVgpuTypeGetGpuInstanceProfileId(nvmlVgpuTypeId_t vgpuTypeId, unsigned int *gpuInstanceProfileId)
{
    return rgpu_nvml_unsupported("nvmlVgpuTypeGetGpuInstanceProfileId", "not part of what a program learns of its vGPUs through rgpu's NVML face");
}

/* not part of what a program learns of its vGPUs through rgpu's NVML face */
nvmlReturn_t nvmlVgpuTypeGetDeviceID(nvmlVgpuTypeId_t vgpuTypeId, unsigned long long *deviceID, unsigned long long *subsystemID)
{
    return rgpu_nvml_unsupported("nvmlVgpuTypeGetDeviceID", "not part of what a program learns of its vGPUs through rgpu's NVML face");
}

/* not part of what a program learns of its vGPUs through rgpu's NVML face */
nvmlReturn_t nvmlVgpuTypeGetFramebufferSize(nvmlVgpuTypeId_t vgpuTypeId, unsigned long long *fbSize)
{
    return rgpu_nvml_unsupported("nvmlVgpuTypeGetFramebufferSize", "not part of what a program learns of its vGPUs through rgpu's NVML face");
}

/* not part of what a program learns of its vGPUs through rgpu's NVML face */
nvmlReturn_t nvmlVgpuTypeGetNumDisplayHeads(nvmlVgpuTypeId_t vgpuTypeId, unsigned int *numDisplayHeads)
{
    return rgpu_nvml_unsupported("nvmlVgpuTypeGetNumDisplayHeads", "not part of what a program learns of its vGPUs through rgpu's NVML face");
}

/* not part of what a program learns of its vGPUs through rgpu's NVML face */
nvmlReturn_t nvmlVgpuTypeGetResolution(nvmlVgpuTypeId_t vgpuTypeId, unsigned int displayIndex, unsigned int *xdim, unsigned int *ydim)
{
    return rgpu_nvml_unsupported("nvmlVgpuTypeGetResolution", "not part of what a program learns of its vGPUs through rgpu's NVML face");
}

/* not part of what a program learns of its vGPUs through rgpu's NVML face */
nvmlReturn_t nvmlVgpuTypeGetLicense(nvmlVgpuTypeId_t vgpuTypeId, char *vgpuTypeLicenseString, unsigned int size)
{
    return rgpu_nvml_unsupported("nvmlVgpuTypeGetLicense", "not part of what a program learns of its vGPUs through rgpu's NVML face");
}

/* not part of what a program learns of its vGPUs through rgpu's NVML face */
nvmlReturn_t nvmlVgpuTypeGetFrameRateLimit(nvmlVgpuTypeId_t vgpuTypeId, unsigned int *frameRateLimit)
{
    return rgpu_nvml_unsupported("nvmlVgpuTypeGetFrameRateLimit", "not part of what a program learns of its vGPUs through rgpu's NVML face");
}

/* not part of what a program learns of its vGPUs through rgpu's NVML face */
nvmlReturn_t nvmlVgpuTypeGetMaxInstances(nvmlDevice_t device, nvmlVgpuTypeId_t vgpuTypeId, unsigned int *vgpuInstanceCount)
{
    return rgpu_nvml_unsupported("nvmlVgpuTypeGetMaxInstances", "not part of what a program learns of its vGPUs through rgpu's NVML face");
}

/* not part of what a program learns of its vGPUs through rgpu's NVML face */
nvmlReturn_t nvmlVgpuTypeGetMaxInstancesPerVm(nvmlVgpuTypeId_t vgpuTypeId, unsigned int *vgpuInstanceCountPerVm)
{
    return rgpu_nvml_unsupported("nvmlVgpuTypeGetMaxInstancesPerVm", "not part of what a program learns of its vGPUs through rgpu's NVML face");
}

/* not part of what a program learns of its vGPUs through rgpu's NVML face */
nvmlReturn_t nvmlVgpuTypeGetBAR1Info(nvmlVgpuTypeId_t vgpuTypeId, nvmlVgpuTypeBar1Info_t *bar1Info)
{
    return rgpu_nvml_unsupported("nvmlVgpuTypeGetBAR1Info", "not part of what a program learns of its vGPUs through rgpu's NVML face");
}

/* not part of what a program learns of its vGPUs through rgpu's NVML face */
nvmlReturn_t nvmlDeviceGetActiveVgpus(nvmlDevice_t device, unsigned int *vgpuCount, nvmlVgpuInstance_t *vgpuInstances)
{
    return rgpu_nvml_unsupported("nvmlDeviceGetActiveVgpus", "not part of what a program learns of its vGPUs through rgpu's NVML face");
}

/* not part of what a program learns of its vGPUs through rgpu's NVML face */
nvmlReturn_t nvmlVgpuInstanceGetVmID(nvmlVgpuInstance_t vgpuInstance, char *vmId, unsigned int size, nvmlVgpuVmIdType_t *vmIdType)
{
    return rgpu_nvml_unsupported("nvmlVgpuInstanceGetVmID", "not part of what a program learns of its vGPUs through rgpu's NVML face");
}

/* not part of what a program learns of its vGPUs through rgpu's NVML face */
nvmlReturn_t nvmlVgpuInstanceGetUUID(nvmlVgpuInstance_t vgpuInstance, char *uuid, unsigned int size)
{
    return rgpu_nvml_unsupported("nvmlVgpuInstanceGetUUID", "not part of what a program learns of its vGPUs through rgpu's NVML face");
}

/* not part of what a program learns of its vGPUs through rgpu's NVML face */
nvmlReturn_t nvmlVgpuInstanceGetVmDriverVersion(nvmlVgpuInstance_t vgpuInstance, char *version, unsigned int length)
{
    return rgpu_nvml_unsupported("nvmlVgpuInstanceGetVmDriverVersion", "not part of what a program learns of its vGPUs through rgpu's NVML face");
}

/* not part of what a program learns of its vGPUs through rgpu's NVML face */
nvmlReturn_t nvmlVgpuInstanceGetFbUsage(nvmlVgpuInstance_t vgpuInstance, unsigned long long *fbUsage)
{
    return rgpu_nvml_unsupported("nvmlVgpuInstanceGetFbUsage", "not part of what a program learns of its vGPUs through rgpu's NVML face");
}

/* not part of what a program learns of its vGPUs through rgpu's NVML face */
nvmlReturn_t nvmlVgpuInstanceGetLicenseStatus(nvmlVgpuInstance_t vgpuInstance, unsigned int *licensed)
{
    return rgpu_nvml_unsupported("nvmlVgpuInstanceGetLicenseStatus", "not part of what a program learns of its vGPUs through rgpu's NVML face");
}

/* not part of what a program learns of its vGPUs through rgpu's NVML face */
nvmlReturn_t nvmlVgpuInstanceGetType(nvmlVgpuInstance_t vgpuInstance, nvmlVgpuTypeId_t *vgpuTypeId)
{
    return rgpu_nvml_unsupported("nvmlVgpuInstanceGetType", "not part of what a program learns of its vGPUs through rgpu's NVML face");
}

/* not part of what a program learns of its vGPUs through rgpu's NVML face */
nvmlReturn_t nvmlVgpuInstanceGetFrameRateLimit(nvmlVgpuInstance_t vgpuInstance, unsigned int *frameRateLimit)
{
    return rgpu_nvml_unsupported("nvmlVgpuInstanceGetFrameRateLimit", "not part of what a program learns of its vGPUs through rgpu's NVML face");
}

/* not part of what a program learns of its vGPUs through rgpu's NVML face */
nvmlReturn_t nvmlVgpuInstanceGetEccMode(nvmlVgpuInstance_t vgpuInstance, nvmlEnableState_t *eccMode)
{
    return rgpu_nvml_unsupported("nvmlVgpuInstanceGetEccMode", "not part of what a program learns of its vGPUs through rgpu's NVML face");
}

/* not part of what a program learns of its vGPUs through rgpu's NVML face */
nvmlReturn_t nvmlVgpuInstanceGetEncoderCapacity(nvmlVgpuInstance_t vgpuInstance, unsigned int *encoderCapacity)
{
    return rgpu_nvml_unsupported("nvmlVgpuInstanceGetEncoderCapacity", "not part of what a program learns of its vGPUs through rgpu's NVML face");
}

/* rgpu's NVML reports; it changes nothing on the pool's GPUs */
nvmlReturn_t nvmlVgpuInstanceSetEncoderCapacity(nvmlVgpuInstance_t vgpuInstance, unsigned int encoderCapacity)
{
    return rgpu_nvml_unsupported("nvmlVgpuInstanceSetEncoderCapacity", "rgpu's NVML reports; it changes nothing on the pool's GPUs");
}

/* not part of what a program learns of its vGPUs through rgpu's NVML face */
nvmlReturn_t nvmlVgpuInstanceGetEncoderStats(nvmlVgpuInstance_t vgpuInstance, unsigned int *sessionCount, unsigned int *averageFps, unsigned int *averageLatency)
{
    return rgpu_nvml_unsupported("nvmlVgpuInstanceGetEncoderStats", "not part of what a program learns of its vGPUs through rgpu's NVML face");
}

/* not part of what a program learns of its vGPUs through rgpu's NVML face */
nvmlReturn_t nvmlVgpuInstanceGetEncoderSessions(nvmlVgpuInstance_t vgpuInstance, unsigned int *sessionCount, nvmlEncoderSessionInfo_t *sessionInfo)
{
    return rgpu_nvml_unsupported("nvmlVgpuInstanceGetEncoderSessions", "not part of what a program learns of its vGPUs through rgpu's NVML face");
}

/* not part of what a program learns of its vGPUs through rgpu's NVML face */
nvmlReturn_t nvmlVgpuInstanceGetFBCStats(nvmlVgpuInstance_t vgpuInstance, nvmlFBCStats_t *fbcStats)
{
    return rgpu_nvml_unsupported("nvmlVgpuInstanceGetFBCStats", "not part of what a program learns of its vGPUs through rgpu's NVML face");
}

/* not part of what a program learns of its vGPUs through rgpu's NVML face */
nvmlReturn_t nvmlVgpuInstanceGetFBCSessions(nvmlVgpuInstance_t vgpuInstance, unsigned int *sessionCount, nvmlFBCSessionInfo_t *sessionInfo)
{
    return rgpu_nvml_unsupported("nvmlVgpuInstanceGetFBCSessions", "not part of what a program learns of its vGPUs through rgpu's NVML face");
}

/* not part of what a program learns of its vGPUs through rgpu's NVML face */
nvmlReturn_t nvmlVgpuInstanceGetGpuInstanceId(nvmlVgpuInstance_t vgpuInstance, unsigned int *gpuInstanceId)
{
    return rgpu_nvml_unsupported("nvmlVgpuInstanceGetGpuInstanceId", "not part of what a program learns of its vGPUs through rgpu's NVML face");
}

/* not part of what a program learns of its vGPUs through rgpu's NVML face */
nvmlReturn_t nvmlVgpuInstanceGetGpuPciId(nvmlVgpuInstance_t vgpuInstance, char *vgpuPciId, unsigned int *length)
{
    return rgpu_nvml_unsupported("nvmlVgpuInstanceGetGpuPciId", "not part of what a program learns of its vGPUs through rgpu's NVML face");
}

/* not part of what a program learns of its vGPUs through rgpu's NVML face */
nvmlReturn_t nvmlVgpuTypeGetCapabilities(nvmlVgpuTypeId_t vgpuTypeId, nvmlVgpuCapability_t capability, unsigned int *capResult)
{
    return rgpu_nvml_unsupported("nvmlVgpuTypeGetCapabilities", "not part of what a program learns of its vGPUs through rgpu's NVML face");
}

/* not part of what a program learns of its vGPUs through rgpu's NVML face */
nvmlReturn_t nvmlVgpuInstanceGetMdevUUID(nvmlVgpuInstance_t vgpuInstance, char *mdevUuid, unsigned int size)
{
    return rgpu_nvml_unsupported("nvmlVgpuInstanceGetMdevUUID", "not part of what a program learns of its vGPUs through rgpu's NVML face");
}

/* not part of what a program learns of its vGPUs through rgpu's NVML face */
nvmlReturn_t nvmlGpuInstanceGetCreatableVgpus(nvmlGpuInstance_t gpuInstance, nvmlVgpuTypeIdInfo_t *pVgpus)
{
    return rgpu_nvml_unsupported("nvmlGpuInstanceGetCreatableVgpus", "not part of what a program learns of its vGPUs through rgpu's NVML face");
}

/* not part of what a program learns of its vGPUs through rgpu's NVML face */
nvmlReturn_t nvmlVgpuTypeGetMaxInstancesPerGpuInstance(nvmlVgpuTypeMaxInstance_t *pMaxInstance)
{
    return rgpu_nvml_unsupported("nvmlVgpuTypeGetMaxInstancesPerGpuInstance", "not part of what a program learns of its vGPUs through rgpu's NVML face");
}

/* not part of what a program learns of its vGPUs through rgpu's NVML face */
nvmlReturn_t nvmlGpuInstanceGetActiveVgpus(nvmlGpuInstance_t gpuInstance, nvmlActiveVgpuInstanceInfo_t *pVgpuInstanceInfo)
{
    return rgpu_nvml_unsupported("nvmlGpuInstanceGetActiveVgpus", "not part of what a program learns of its vGPUs through rgpu's NVML face");
}

/* rgpu's NVML reports; it changes nothing on the pool's GPUs */
nvmlReturn_t nvmlGpuInstanceSetVgpuSchedulerState(nvmlGpuInstance_t gpuInstance, nvmlVgpuSchedulerState_t *pScheduler)
{
    return rgpu_nvml_unsupported("nvmlGpuInstanceSetVgpuSchedulerState", "rgpu's NVML reports; it changes nothing on the pool's GPUs");
}

/* not part of what a program learns of its vGPUs through rgpu's NVML face */
nvmlReturn_t nvmlGpuInstanceGetVgpuSchedulerState(nvmlGpuInstance_t gpuInstance, nvmlVgpuSchedulerStateInfo_t *pSchedulerStateInfo)
{
    return rgpu_nvml_unsupported("nvmlGpuInstanceGetVgpuSchedulerState", "not part of what a program learns of its vGPUs through rgpu's NVML face");
}

/* not part of what a program learns of its vGPUs through rgpu's NVML face */
nvmlReturn_t nvmlGpuInstanceGetVgpuSchedulerLog(nvmlGpuInstance_t gpuInstance, nvmlVgpuSchedulerLogInfo_t *pSchedulerLogInfo)
{
    return rgpu_nvml_unsupported("nvmlGpuInstanceGetVgpuSchedulerLog", "not part of what a program learns of its vGPUs through rgpu's NVML face");
}

/* not part of what a program learns of its vGPUs through rgpu's NVML face */
nvmlReturn_t nvmlGpuInstanceGetVgpuTypeCreatablePlacements(nvmlGpuInstance_t gpuInstance, nvmlVgpuCreatablePlacementInfo_t *pCreatablePlacementInfo)
{
    return rgpu_nvml_unsupported("nvmlGpuInstanceGetVgpuTypeCreatablePlacements", "not part of what a program learns of its vGPUs through rgpu's NVML face");
}

/* not part of what a program learns of its vGPUs through rgpu's NVML face */
nvmlReturn_t nvmlGpuInstanceGetVgpuHeterogeneousMode(nvmlGpuInstance_t gpuInstance, nvmlVgpuHeterogeneousMode_t *pHeterogeneousMode)
{
    return rgpu_nvml_unsupported("nvmlGpuInstanceGetVgpuHeterogeneousMode", "not part of what a program learns of its vGPUs through rgpu's NVML face");
}

/* rgpu's NVML reports; it changes nothing on the pool's GPUs */
nvmlReturn_t nvmlGpuInstanceSetVgpuHeterogeneousMode(nvmlGpuInstance_t gpuInstance, const nvmlVgpuHeterogeneousMode_t *pHeterogeneousMode)
{
    return rgpu_nvml_unsupported("nvmlGpuInstanceSetVgpuHeterogeneousMode", "rgpu's NVML reports; it changes nothing on the pool's GPUs");
}

/* not part of what a program learns of its vGPUs through rgpu's NVML face */
nvmlReturn_t nvmlVgpuInstanceGetMetadata(nvmlVgpuInstance_t vgpuInstance, nvmlVgpuMetadata_t *vgpuMetadata, unsigned int *bufferSize)
{
    return rgpu_nvml_unsupported("nvmlVgpuInstanceGetMetadata", "not part of what a program learns of its vGPUs through rgpu's NVML face");
}

/* not part of what a program learns of its vGPUs through rgpu's NVML face */
nvmlReturn_t nvmlDeviceGetVgpuMetadata(nvmlDevice_t device, nvmlVgpuPgpuMetadata_t *pgpuMetadata, unsigned int *bufferSize)
{
    return rgpu_nvml_unsupported("nvmlDeviceGetVgpuMetadata", "not part of what a program learns of its vGPUs through rgpu's NVML face");
}

/* not part of what a program learns of its vGPUs through rgpu's NVML face */
nvmlReturn_t nvmlGetVgpuCompatibility(nvmlVgpuMetadata_t *vgpuMetadata, nvmlVgpuPgpuMetadata_t *pgpuMetadata, nvmlVgpuPgpuCompatibility_t *compatibilityInfo)
{
    return rgpu_nvml_unsupported("nvmlGetVgpuCompatibility", "not part of what a program learns of its vGPUs through rgpu's NVML face");
}

/* not part of what a program learns of its vGPUs through rgpu's NVML face */
nvmlReturn_t nvmlDeviceGetPgpuMetadataString(nvmlDevice_t device, char *pgpuMetadata, unsigned int *bufferSize)
{
    return rgpu_nvml_unsupported("nvmlDeviceGetPgpuMetadataString", "not part of what a program learns of its vGPUs through rgpu's NVML face");
}

/* not part of what a program learns of its vGPUs through rgpu's NVML face */
nvmlReturn_t nvmlDeviceGetVgpuSchedulerLog(nvmlDevice_t device, nvmlVgpuSchedulerLog_t *pSchedulerLog)
{
    return rgpu_nvml_unsupported("nvmlDeviceGetVgpuSchedulerLog", "not part of what a program learns of its vGPUs through rgpu's NVML face");
}

/* not part of what a program learns of its vGPUs through rgpu's NVML face */
nvmlReturn_t nvmlDeviceGetVgpuSchedulerState(nvmlDevice_t device, nvmlVgpuSchedulerGetState_t *pSchedulerState)
{
    return rgpu_nvml_unsupported("nvmlDeviceGetVgpuSchedulerState", "not part of what a program learns of its vGPUs through rgpu's NVML face");
}

/* not part of what a program learns of its vGPUs through rgpu's NVML face */
nvmlReturn_t nvmlDeviceGetVgpuSchedulerCapabilities(nvmlDevice_t device, nvmlVgpuSchedulerCapabilities_t *pCapabilities)
{
    return rgpu_nvml_unsupported("nvmlDeviceGetVgpuSchedulerCapabilities", "not part of what a program learns of its vGPUs through rgpu's NVML face");
}

/* rgpu's NVML reports; it changes nothing on the pool's GPUs */
nvmlReturn_t nvmlDeviceSetVgpuSchedulerState(nvmlDevice_t device, nvmlVgpuSchedulerSetState_t *pSchedulerState)
{
    return rgpu_nvml_unsupported("nvmlDeviceSetVgpuSchedulerState", "rgpu's NVML reports; it changes nothing on the pool's GPUs");
}

/* not part of what a program learns of its vGPUs through rgpu's NVML face */
nvmlReturn_t nvmlGetVgpuVersion(nvmlVgpuVersion_t *supported, nvmlVgpuVersion_t *current)
{
    return rgpu_nvml_unsupported("nvmlGetVgpuVersion", "not part of what a program learns of its vGPUs through rgpu's NVML face");
}

/* rgpu's NVML reports; it changes nothing on the pool's GPUs */
nvmlReturn_t nvmlSetVgpuVersion(nvmlVgpuVersion_t *vgpuVersion)
{
    return rgpu_nvml_unsupported("nvmlSetVgpuVersion", "rgpu's NVML reports; it changes nothing on the pool's GPUs");
}

/* not part of what a program learns of its vGPUs through rgpu's NVML face */
nvmlReturn_t nvmlDeviceGetVgpuUtilization(nvmlDevice_t device, unsigned long long lastSeenTimeStamp, nvmlValueType_t *sampleValType, unsigned int *vgpuInstanceSamplesCount, nvmlVgpuInstanceUtilizationSample_t *utilizationSamples)
{
    return rgpu_nvml_unsupported("nvmlDeviceGetVgpuUtilization", "not part of what a program learns of its vGPUs through rgpu's NVML face");
}

/* not part of what a program learns of its vGPUs through rgpu's NVML face */
nvmlReturn_t nvmlDeviceGetVgpuInstancesUtilizationInfo(nvmlDevice_t device, nvmlVgpuInstancesUtilizationInfo_t *vgpuUtilInfo)
{
    return rgpu_nvml_unsupported("nvmlDeviceGetVgpuInstancesUtilizationInfo", "not part of what a program learns of its vGPUs through rgpu's NVML face");
}

/* not part of what a program learns of its vGPUs through rgpu's NVML face */
nvmlReturn_t nvmlDeviceGetVgpuProcessUtilization(nvmlDevice_t device, unsigned long long lastSeenTimeStamp, unsigned int *vgpuProcessSamplesCount, nvmlVgpuProcessUtilizationSample_t *utilizationSamples)
{
    return rgpu_nvml_unsupported("nvmlDeviceGetVgpuProcessUtilization", "not part of what a program learns of its vGPUs through rgpu's NVML face");
}

/* not part of what a program learns of its vGPUs through rgpu's NVML face */
nvmlReturn_t nvmlDeviceGetVgpuProcessesUtilizationInfo(nvmlDevice_t device, nvmlVgpuProcessesUtilizationInfo_t *vgpuProcUtilInfo)
{
    return rgpu_nvml_unsupported("nvmlDeviceGetVgpuProcessesUtilizationInfo", "not part of what a program learns of its vGPUs through rgpu's NVML face");
}

/* not part of what a program learns of its vGPUs through rgpu's NVML face */
nvmlReturn_t nvmlVgpuInstanceGetAccountingMode(nvmlVgpuInstance_t vgpuInstance, nvmlEnableState_t *mode)
{
    return rgpu_nvml_unsupported("nvmlVgpuInstanceGetAccountingMode", "not part of what a program learns of its vGPUs through rgpu's NVML face");
}

/* not part of what a program learns of its vGPUs through rgpu's NVML face */
nvmlReturn_t nvmlVgpuInstanceGetAccountingPids(nvmlVgpuInstance_t vgpuInstance, unsigned int *count, unsigned int *pids)
{
    return rgpu_nvml_unsupported("nvmlVgpuInstanceGetAccountingPids", "not part of what a program learns of its vGPUs through rgpu's NVML face");
}

/* not part of what a program learns of its vGPUs through rgpu's NVML face */
nvmlReturn_t nvmlVgpuInstanceGetAccountingStats(nvmlVgpuInstance_t vgpuInstance, unsigned int pid, nvmlAccountingStats_t *stats)
{
    return rgpu_nvml_unsupported("nvmlVgpuInstanceGetAccountingStats", "not part of what a program learns of its vGPUs through rgpu's NVML face");
}

/* rgpu's NVML reports; it changes nothing on the pool's GPUs */
nvmlReturn_t nvmlVgpuInstanceClearAccountingPids(nvmlVgpuInstance_t vgpuInstance)
{
    return rgpu_nvml_unsupported("nvmlVgpuInstanceClearAccountingPids", "rgpu's NVML reports; it changes nothing on the pool's GPUs");
}

/* not part of what a program learns of its vGPUs through rgpu's NVML face */
nvmlReturn_t nvmlVgpuInstanceGetLicenseInfo_v2(nvmlVgpuInstance_t vgpuInstance, nvmlVgpuLicenseInfo_t *licenseInfo)
{
    return rgpu_nvml_unsupported("nvmlVgpuInstanceGetLicenseInfo_v2", "not part of what a program learns of its vGPUs through rgpu's NVML face");
}

/* not part of what a program learns of its vGPUs through rgpu's NVML face */
nvmlReturn_t nvmlGetExcludedDeviceCount(unsigned int *deviceCount)
{
    return rgpu_nvml_unsupported("nvmlGetExcludedDeviceCount", "not part of what a program learns of its vGPUs through rgpu's NVML face");
}

/* not part of what a program learns of its vGPUs through rgpu's NVML face */
nvmlReturn_t nvmlGetExcludedDeviceInfoByIndex(unsigned int index, nvmlExcludedDeviceInfo_t *info)
{
    return rgpu_nvml_unsupported("nvmlGetExcludedDeviceInfoByIndex", "not part of what a program learns of its vGPUs through rgpu's NVML face");
}

/* not part of what a program learns of its vGPUs through rgpu's NVML face */
nvmlReturn_t nvmlDeviceReadWritePRM_v1(nvmlDevice_t device, nvmlPRMTLV_v1_t *buffer)
{
    return rgpu_nvml_unsupported("nvmlDeviceReadWritePRM_v1", "not part of what a program learns of its vGPUs through rgpu's NVML face");
}

/* rgpu's NVML reports; it changes nothing on the pool's GPUs */
nvmlReturn_t nvmlDeviceSetMigMode(nvmlDevice_t device, unsigned int mode, nvmlReturn_t *activationStatus)
{
    return rgpu_nvml_unsupported("nvmlDeviceSetMigMode", "rgpu's NVML reports; it changes nothing on the pool's GPUs");
}

/* not part of what a program learns of its vGPUs through rgpu's NVML face */
nvmlReturn_t nvmlDeviceGetMigMode(nvmlDevice_t device, unsigned int *currentMode, unsigned int *pendingMode)
{
    return rgpu_nvml_unsupported("nvmlDeviceGetMigMode", "not part of what a program learns of its vGPUs through rgpu's NVML face");
}

/* not part of what a program learns of its vGPUs through rgpu's NVML face */
nvmlReturn_t nvmlDeviceGetGpuInstanceProfileInfo(nvmlDevice_t device, unsigned int profile, nvmlGpuInstanceProfileInfo_t *info)
{
    return rgpu_nvml_unsupported("nvmlDeviceGetGpuInstanceProfileInfo", "not part of what a program learns of its vGPUs through rgpu's NVML face");
}

/* not part of what a program learns of its vGPUs through rgpu's NVML face */
nvmlReturn_t nvmlDeviceGetGpuInstanceProfileInfoV(nvmlDevice_t device, unsigned int profile, nvmlGpuInstanceProfileInfo_v2_t *info)
{
    return rgpu_nvml_unsupported("nvmlDeviceGetGpuInstanceProfileInfoV", "not part of what a program learns of its vGPUs through rgpu's NVML face");
}

/* not part of what a program learns of its vGPUs through rgpu's NVML face */
nvmlReturn_t nvmlDeviceGetGpuInstanceProfileInfoByIdV(nvmlDevice_t device, unsigned int profileId, nvmlGpuInstanceProfileInfo_v2_t *info)
{
    return rgpu_nvml_unsupported("nvmlDeviceGetGpuInstanceProfileInfoByIdV", "not part of what a program learns of its vGPUs through rgpu's NVML face");
}

/* not part of what a program learns of its vGPUs through rgpu's NVML face */
nvmlReturn_t nvmlDeviceGetGpuInstancePossiblePlacements_v2(nvmlDevice_t device, unsigned int profileId, nvmlGpuInstancePlacement_t *placements, unsigned int *count)
{
    return rgpu_nvml_unsupported("nvmlDeviceGetGpuInstancePossiblePlacements_v2", "not part of what a program learns of its vGPUs through rgpu's NVML face");
}

/* not part of what a program learns of its vGPUs through rgpu's NVML face */
nvmlReturn_t nvmlDeviceGetGpuInstanceRemainingCapacity(nvmlDevice_t device, unsigned int profileId, unsigned int *count)
{
    return rgpu_nvml_unsupported("nvmlDeviceGetGpuInstanceRemainingCapacity", "not part of what a program learns of its vGPUs through rgpu's NVML face");
}

/* not part of what a program learns of its vGPUs through rgpu's NVML face */
nvmlReturn_t nvmlDeviceCreateGpuInstance(nvmlDevice_t device, unsigned int profileId, nvmlGpuInstance_t *gpuInstance)
{
    return rgpu_nvml_unsupported("nvmlDeviceCreateGpuInstance", "not part of what a program learns of its vGPUs through rgpu's NVML face");
}

/* not part of what a program learns of its vGPUs through rgpu's NVML face */
nvmlReturn_t nvmlDeviceCreateGpuInstanceWithPlacement(nvmlDevice_t device, unsigned int profileId, const nvmlGpuInstancePlacement_t *placement, nvmlGpuInstance_t *gpuInstance)
{
    return rgpu_nvml_unsupported("nvmlDeviceCreateGpuInstanceWithPlacement", "not part of what a program learns of its vGPUs through rgpu's NVML face");
}

/* not part of what a program learns of its vGPUs through rgpu's NVML face */
nvmlReturn_t nvmlGpuInstanceDestroy(nvmlGpuInstance_t gpuInstance)
{
    return rgpu_nvml_unsupported("nvmlGpuInstanceDestroy", "not part of what a program learns of its vGPUs through rgpu's NVML face");
}

/* not part of what a program learns of its vGPUs through rgpu's NVML face */
nvmlReturn_t nvmlDeviceGetGpuInstances(nvmlDevice_t device, unsigned int profileId, nvmlGpuInstance_t *gpuInstances, unsigned int *count)
{
    return rgpu_nvml_unsupported("nvmlDeviceGetGpuInstances", "not part of what a program learns of its vGPUs through rgpu's NVML face");
}

/* not part of what a program learns of its vGPUs through rgpu's NVML face */
nvmlReturn_t nvmlDeviceGetGpuInstanceById(nvmlDevice_t device, unsigned int id, nvmlGpuInstance_t *gpuInstance)
{
    return rgpu_nvml_unsupported("nvmlDeviceGetGpuInstanceById", "not part of what a program learns of its vGPUs through rgpu's NVML face");
}

/* not part of what a program learns of its vGPUs through rgpu's NVML face */
nvmlReturn_t nvmlGpuInstanceGetInfo(nvmlGpuInstance_t gpuInstance, nvmlGpuInstanceInfo_t *info)
{
    return rgpu_nvml_unsupported("nvmlGpuInstanceGetInfo", "not part of what a program learns of its vGPUs through rgpu's NVML face");
}

/* not part of what a program learns of its vGPUs through rgpu's NVML face */
nvmlReturn_t nvmlGpuInstanceGetComputeInstanceProfileInfo(nvmlGpuInstance_t gpuInstance, unsigned int profile, unsigned int engProfile, nvmlComputeInstanceProfileInfo_t *info)
{
    return rgpu_nvml_unsupported("nvmlGpuInstanceGetComputeInstanceProfileInfo", "not part of what a program learns of its vGPUs through rgpu's NVML face");
}

/* not part of what a program learns of its vGPUs through rgpu's NVML face */
nvmlReturn_t nvmlGpuInstanceGetComputeInstanceProfileInfoV(nvmlGpuInstance_t gpuInstance, unsigned int profile, unsigned int engProfile, nvmlComputeInstanceProfileInfo_v2_t *info)
{
    return rgpu_nvml_unsupported("nvmlGpuInstanceGetComputeInstanceProfileInfoV", "not part of what a program learns of its vGPUs through rgpu's NVML face");
}

/* not part of what a program learns of its vGPUs through rgpu's NVML face */
nvmlReturn_t nvmlGpuInstanceGetComputeInstanceRemainingCapacity(nvmlGpuInstance_t gpuInstance, unsigned int profileId, unsigned int *count)
{
    return rgpu_nvml_unsupported("nvmlGpuInstanceGetComputeInstanceRemainingCapacity", "not part of what a program learns of its vGPUs through rgpu's NVML face");
}

/* not part of what a program learns of its vGPUs through rgpu's NVML face */
nvmlReturn_t nvmlGpuInstanceGetComputeInstancePossiblePlacements(nvmlGpuInstance_t gpuInstance, unsigned int profileId, nvmlComputeInstancePlacement_t *placements, unsigned int *count)
{
    return rgpu_nvml_unsupported("nvmlGpuInstanceGetComputeInstancePossiblePlacements", "not part of what a program learns of its vGPUs through rgpu's NVML face");
}

/* not part of what a program learns of its vGPUs through rgpu's NVML face */
nvmlReturn_t nvmlGpuInstanceCreateComputeInstance(nvmlGpuInstance_t gpuInstance, unsigned int profileId, nvmlComputeInstance_t *computeInstance)
{
    return rgpu_nvml_unsupported("nvmlGpuInstanceCreateComputeInstance", "not part of what a program learns of its vGPUs through rgpu's NVML face");
}

/* not part of what a program learns of its vGPUs through rgpu's NVML face */
nvmlReturn_t nvmlGpuInstanceCreateComputeInstanceWithPlacement(nvmlGpuInstance_t gpuInstance, unsigned int profileId, const nvmlComputeInstancePlacement_t *placement, nvmlComputeInstance_t *computeInstance)
{
    return rgpu_nvml_unsupported("nvmlGpuInstanceCreateComputeInstanceWithPlacement", "not part of what a program learns of its vGPUs through rgpu's NVML face");
}

/* not part of what a program learns of its vGPUs through rgpu's NVML face */
nvmlReturn_t nvmlComputeInstanceDestroy(nvmlComputeInstance_t computeInstance)
{
    return rgpu_nvml_unsupported("nvmlComputeInstanceDestroy", "not part of what a program learns of its vGPUs through rgpu's NVML face");
}

/* not part of what a program learns of its vGPUs through rgpu's NVML face */
nvmlReturn_t nvmlGpuInstanceGetComputeInstances(nvmlGpuInstance_t gpuInstance, unsigned int profileId, nvmlComputeInstance_t *computeInstances, unsigned int *count)
{
    return rgpu_nvml_unsupported("nvmlGpuInstanceGetComputeInstances", "not part of what a program learns of its vGPUs through rgpu's NVML face");
}

/* not part of what a program learns of its vGPUs through rgpu's NVML face */
nvmlReturn_t nvmlGpuInstanceGetComputeInstanceById(nvmlGpuInstance_t gpuInstance, unsigned int id, nvmlComputeInstance_t *computeInstance)
{
    return rgpu_nvml_unsupported("nvmlGpuInstanceGetComputeInstanceById", "not part of what a program learns of its vGPUs through rgpu's NVML face");
}

/* not part of what a program learns of its vGPUs through rgpu's NVML face */
nvmlReturn_t nvmlComputeInstanceGetInfo_v2(nvmlComputeInstance_t computeInstance, nvmlComputeInstanceInfo_t *info)
{
    return rgpu_nvml_unsupported("nvmlComputeInstanceGetInfo_v2", "not part of what a program learns of its vGPUs through rgpu's NVML face");
}

/* not part of what a program learns of its vGPUs through rgpu's NVML face */
nvmlReturn_t nvmlDeviceIsMigDeviceHandle(nvmlDevice_t device, unsigned int *isMigDevice)
{
    return rgpu_nvml_unsupported("nvmlDeviceIsMigDeviceHandle", "not part of what a program learns of its vGPUs through rgpu's NVML face");
}

/* not part of what a program learns of its vGPUs through rgpu's NVML face */
nvmlReturn_t nvmlDeviceGetGpuInstanceId(nvmlDevice_t device, unsigned int *id)
{
    return rgpu_nvml_unsupported("nvmlDeviceGetGpuInstanceId", "not part of what a program learns of its vGPUs through rgpu's NVML face");
}

/* not part of what a program learns of its vGPUs through rgpu's NVML face */
nvmlReturn_t nvmlDeviceGetComputeInstanceId(nvmlDevice_t device, unsigned int *id)
{
    return rgpu_nvml_unsupported("nvmlDeviceGetComputeInstanceId", "not part of what a program learns of its vGPUs through rgpu's NVML face");
}

/* not part of what a program learns of its vGPUs through rgpu's NVML face */
nvmlReturn_t nvmlDeviceGetMaxMigDeviceCount(nvmlDevice_t device, unsigned int *count)
{
    return rgpu_nvml_unsupported("nvmlDeviceGetMaxMigDeviceCount", "not part of what a program learns of its vGPUs through rgpu's NVML face");
}

/* not part of what a program learns of its vGPUs through rgpu's NVML face */
nvmlReturn_t nvmlDeviceGetMigDeviceHandleByIndex(nvmlDevice_t device, unsigned int index, nvmlDevice_t *migDevice)
{
    return rgpu_nvml_unsupported("nvmlDeviceGetMigDeviceHandleByIndex", "not part of what a program learns of its vGPUs through rgpu's NVML face");
}

/* not part of what a program learns of its vGPUs through rgpu's NVML face */
nvmlReturn_t nvmlDeviceGetDeviceHandleFromMigDeviceHandle(nvmlDevice_t migDevice, nvmlDevice_t *device)
{
    return rgpu_nvml_unsupported("nvmlDeviceGetDeviceHandleFromMigDeviceHandle", "not part of what a program learns of its vGPUs through rgpu's NVML face");
}

/* not part of what a program learns of its vGPUs through rgpu's NVML face */
nvmlReturn_t nvmlGpmMetricsGet(nvmlGpmMetricsGet_t *metricsGet)
{
    return rgpu_nvml_unsupported("nvmlGpmMetricsGet", "not part of what a program learns of its vGPUs through rgpu's NVML face");
}

/* not part of what a program learns of its vGPUs through rgpu's NVML face */
nvmlReturn_t nvmlGpmSampleFree(nvmlGpmSample_t gpmSample)
{
    return rgpu_nvml_unsupported("nvmlGpmSampleFree", "not part of what a program learns of its vGPUs through rgpu's NVML face");
}

/* not part of what a program learns of its vGPUs through rgpu's NVML face */
nvmlReturn_t nvmlGpmSampleAlloc(nvmlGpmSample_t *gpmSample)
{
    return rgpu_nvml_unsupported("nvmlGpmSampleAlloc", "not part of what a program learns of its vGPUs through rgpu's NVML face");
}

/* not part of what a program learns of its vGPUs through rgpu's NVML face */
nvmlReturn_t nvmlGpmSampleGet(nvmlDevice_t device, nvmlGpmSample_t gpmSample)
{
    return rgpu_nvml_unsupported("nvmlGpmSampleGet", "not part of what a program learns of its vGPUs through rgpu's NVML face");
}

/* not part of what a program learns of its vGPUs through rgpu's NVML face */
nvmlReturn_t nvmlGpmMigSampleGet(nvmlDevice_t device, unsigned int gpuInstanceId, nvmlGpmSample_t gpmSample)
{
    return rgpu_nvml_unsupported("nvmlGpmMigSampleGet", "not part of what a program learns of its vGPUs through rgpu's NVML face");
}

/* not part of what a program learns of its vGPUs through rgpu's NVML face */
nvmlReturn_t nvmlGpmQueryDeviceSupport(nvmlDevice_t device, nvmlGpmSupport_t *gpmSupport)
{
    return rgpu_nvml_unsupported("nvmlGpmQueryDeviceSupport", "not part of what a program learns of its vGPUs through rgpu's NVML face");
}

/* not part of what a program learns of its vGPUs through rgpu's NVML face */
nvmlReturn_t nvmlGpmQueryIfStreamingEnabled(nvmlDevice_t device, unsigned int *state)
{
    return rgpu_nvml_unsupported("nvmlGpmQueryIfStreamingEnabled", "not part of what a program learns of its vGPUs through rgpu's NVML face");
}

/* rgpu's NVML reports; it changes nothing on the pool's GPUs */
nvmlReturn_t nvmlGpmSetStreamingEnabled(nvmlDevice_t device, unsigned int state)
{
    return rgpu_nvml_unsupported("nvmlGpmSetStreamingEnabled", "rgpu's NVML reports; it changes nothing on the pool's GPUs");
}

/* not part of what a program learns of its vGPUs through rgpu's NVML face */
nvmlReturn_t nvmlDeviceGetCapabilities(nvmlDevice_t device, nvmlDeviceCapabilities_t *caps)
{
    return rgpu_nvml_unsupported("nvmlDeviceGetCapabilities", "not part of what a program learns of its vGPUs through rgpu's NVML face");
}

/* not part of what a program learns of its vGPUs through rgpu's NVML face */
nvmlReturn_t nvmlDeviceWorkloadPowerProfileGetProfilesInfo(nvmlDevice_t device, nvmlWorkloadPowerProfileProfilesInfo_t *profilesInfo)
{
    return rgpu_nvml_unsupported("nvmlDeviceWorkloadPowerProfileGetProfilesInfo", "not part of what a program learns of its vGPUs through rgpu's NVML face");
}

/* not part of what a program learns of its vGPUs through rgpu's NVML face */
nvmlReturn_t nvmlDeviceWorkloadPowerProfileGetCurrentProfiles(nvmlDevice_t device, nvmlWorkloadPowerProfileCurrentProfiles_t *currentProfiles)
{
    return rgpu_nvml_unsupported("nvmlDeviceWorkloadPowerProfileGetCurrentProfiles", "not part of what a program learns of its vGPUs through rgpu's NVML face");
}

/* rgpu's NVML reports; it changes nothing on the pool's GPUs */
nvmlReturn_t nvmlDeviceWorkloadPowerProfileSetRequestedProfiles(nvmlDevice_t device, nvmlWorkloadPowerProfileRequestedProfiles_t *requestedProfiles)
{
    return rgpu_nvml_unsupported("nvmlDeviceWorkloadPowerProfileSetRequestedProfiles", "rgpu's NVML reports; it changes nothing on the pool's GPUs");
}

/* rgpu's NVML reports; it changes nothing on the pool's GPUs */
nvmlReturn_t nvmlDeviceWorkloadPowerProfileClearRequestedProfiles(nvmlDevice_t device, nvmlWorkloadPowerProfileRequestedProfiles_t *requestedProfiles)
{
    return rgpu_nvml_unsupported("nvmlDeviceWorkloadPowerProfileClearRequestedProfiles", "rgpu's NVML reports; it changes nothing on the pool's GPUs");
}

/* not part of what a program learns of its vGPUs through rgpu's NVML face */
nvmlReturn_t nvmlDevicePowerSmoothingActivatePresetProfile(nvmlDevice_t device, nvmlPowerSmoothingProfile_t *profile)
{
    return rgpu_nvml_unsupported("nvmlDevicePowerSmoothingActivatePresetProfile", "not part of what a program learns of its vGPUs through rgpu's NVML face");
}

/* not part of what a program learns of its vGPUs through rgpu's NVML face */
nvmlReturn_t nvmlDevicePowerSmoothingUpdatePresetProfileParam(nvmlDevice_t device, nvmlPowerSmoothingProfile_t *profile)
{
    return rgpu_nvml_unsupported("nvmlDevicePowerSmoothingUpdatePresetProfileParam", "not part of what a program learns of its vGPUs through rgpu's NVML face");
}

/* rgpu's NVML reports; it changes nothing on the pool's GPUs */
nvmlReturn_t nvmlDevicePowerSmoothingSetState(nvmlDevice_t device, nvmlPowerSmoothingState_t *state)
{
    return rgpu_nvml_unsupported("nvmlDevicePowerSmoothingSetState", "rgpu's NVML reports; it changes nothing on the pool's GPUs");
}

/* not part of what a program learns of its vGPUs through rgpu's NVML face */
nvmlReturn_t nvmlDeviceGetSramUniqueUncorrectedEccErrorCounts(nvmlDevice_t device, nvmlEccSramUniqueUncorrectedErrorCounts_t *errorCounts)
{
    return rgpu_nvml_unsupported("nvmlDeviceGetSramUniqueUncorrectedEccErrorCounts", "not part of what a program learns of its vGPUs through rgpu's NVML face");
}

/* not part of what a program learns of its vGPUs through rgpu's NVML face */
nvmlReturn_t nvmlDeviceGetPciInfo(nvmlDevice_t device, nvmlPciInfo_t *pci)
{
    return rgpu_nvml_unsupported("nvmlDeviceGetPciInfo", "not part of what a program learns of its vGPUs through rgpu's NVML face");
}

/* not part of what a program learns of its vGPUs through rgpu's NVML face */
nvmlReturn_t nvmlDeviceGetPciInfo_v2(nvmlDevice_t device, nvmlPciInfo_t *pci)
{
    return rgpu_nvml_unsupported("nvmlDeviceGetPciInfo_v2", "not part of what a program learns of its vGPUs through rgpu's NVML face");
}

/* not part of what a program learns of its vGPUs through rgpu's NVML face */
nvmlReturn_t nvmlDeviceGetNvLinkRemotePciInfo(nvmlDevice_t device, unsigned int link, nvmlPciInfo_t *pci)
{
    return rgpu_nvml_unsupported("nvmlDeviceGetNvLinkRemotePciInfo", "not part of what a program learns of its vGPUs through rgpu's NVML face");
}

/* not part of what a program learns of its vGPUs through rgpu's NVML face */
nvmlReturn_t nvmlDeviceGetGridLicensableFeatures(nvmlDevice_t device, nvmlGridLicensableFeatures_t *pGridLicensableFeatures)
{
    return rgpu_nvml_unsupported("nvmlDeviceGetGridLicensableFeatures", "not part of what a program learns of its vGPUs through rgpu's NVML face");
}

/* not part of what a program learns of its vGPUs through rgpu's NVML face */
nvmlReturn_t nvmlDeviceGetGridLicensableFeatures_v2(nvmlDevice_t device, nvmlGridLicensableFeatures_t *pGridLicensableFeatures)
{
    return rgpu_nvml_unsupported("nvmlDeviceGetGridLicensableFeatures_v2", "not part of what a program learns of its vGPUs through rgpu's NVML face");
}

/* not part of what a program learns of its vGPUs through rgpu's NVML face */
nvmlReturn_t nvmlDeviceGetGridLicensableFeatures_v3(nvmlDevice_t device, nvmlGridLicensableFeatures_t *pGridLicensableFeatures)
{
    return rgpu_nvml_unsupported("nvmlDeviceGetGridLicensableFeatures_v3", "not part of what a program learns of its vGPUs through rgpu's NVML face");
}

/* not part of what a program learns of its vGPUs through rgpu's NVML face */
nvmlReturn_t nvmlDeviceRemoveGpu(nvmlPciInfo_t *pciInfo)
{
    return rgpu_nvml_unsupported("nvmlDeviceRemoveGpu", "not part of what a program learns of its vGPUs through rgpu's NVML face");
}

/* rgpu's NVML reports; it changes nothing on the pool's GPUs */
nvmlReturn_t nvmlEventSetWait(nvmlEventSet_t set, nvmlEventData_t *data, unsigned int timeoutms)
{
    return rgpu_nvml_unsupported("nvmlEventSetWait", "rgpu's NVML reports; it changes nothing on the pool's GPUs");
}

/* not part of what a program learns of its vGPUs through rgpu's NVML face */
nvmlReturn_t nvmlDeviceGetAttributes(nvmlDevice_t device, nvmlDeviceAttributes_t *attributes)
{
    return rgpu_nvml_unsupported("nvmlDeviceGetAttributes", "not part of what a program learns of its vGPUs through rgpu's NVML face");
}

/* not part of what a program learns of its vGPUs through rgpu's NVML face */
nvmlReturn_t nvmlComputeInstanceGetInfo(nvmlComputeInstance_t computeInstance, nvmlComputeInstanceInfo_t *info)
{
    return rgpu_nvml_unsupported("nvmlComputeInstanceGetInfo", "not part of what a program learns of its vGPUs through rgpu's NVML face");
}

/* not part of what a program learns of its vGPUs through rgpu's NVML face */
nvmlReturn_t nvmlDeviceGetGraphicsRunningProcesses(nvmlDevice_t device, unsigned int *infoCount, nvmlProcessInfo_v1_t *infos)
{
    return rgpu_nvml_unsupported("nvmlDeviceGetGraphicsRunningProcesses", "not part of what a program learns of its vGPUs through rgpu's NVML face");
}

/* not part of what a program learns of its vGPUs through rgpu's NVML face */
nvmlReturn_t nvmlDeviceGetGraphicsRunningProcesses_v2(nvmlDevice_t device, unsigned int *infoCount, nvmlProcessInfo_v2_t *infos)
{
    return rgpu_nvml_unsupported("nvmlDeviceGetGraphicsRunningProcesses_v2", "not part of what a program learns of its vGPUs through rgpu's NVML face");
}

/* not part of what a program learns of its vGPUs through rgpu's NVML face */
nvmlReturn_t nvmlDeviceGetMPSComputeRunningProcesses(nvmlDevice_t device, unsigned int *infoCount, nvmlProcessInfo_v1_t *infos)
{
    return rgpu_nvml_unsupported("nvmlDeviceGetMPSComputeRunningProcesses", "not part of what a program learns of its vGPUs through rgpu's NVML face");
}

/* not part of what a program learns of its vGPUs through rgpu's NVML face */
nvmlReturn_t nvmlDeviceGetMPSComputeRunningProcesses_v2(nvmlDevice_t device, unsigned int *infoCount, nvmlProcessInfo_v2_t *infos)
{
    return rgpu_nvml_unsupported("nvmlDeviceGetMPSComputeRunningProcesses_v2", "not part of what a program learns of its vGPUs through rgpu's NVML face");
}

/* not part of what a program learns of its vGPUs through rgpu's NVML face */
nvmlReturn_t nvmlDeviceGetGpuInstancePossiblePlacements(nvmlDevice_t device, unsigned int profileId, nvmlGpuInstancePlacement_t *placements, unsigned int *count)
{
    return rgpu_nvml_unsupported("nvmlDeviceGetGpuInstancePossiblePlacements", "not part of what a program learns of its vGPUs through rgpu's NVML face");
}

/* not part of what a program learns of its vGPUs through rgpu's NVML face */
nvmlReturn_t nvmlVgpuInstanceGetLicenseInfo(nvmlVgpuInstance_t vgpuInstance, nvmlVgpuLicenseInfo_t *licenseInfo)
{
    return rgpu_nvml_unsupported("nvmlVgpuInstanceGetLicenseInfo", "not part of what a program learns of its vGPUs through rgpu's NVML face");
}

/* not part of what a program learns of its vGPUs through rgpu's NVML face */
nvmlReturn_t nvmlDeviceGetDriverModel(nvmlDevice_t device, nvmlDriverModel_t *current, nvmlDriverModel_t *pending)
{
    return rgpu_nvml_unsupported("nvmlDeviceGetDriverModel", "not part of what a program learns of its vGPUs through rgpu's NVML face");
}
