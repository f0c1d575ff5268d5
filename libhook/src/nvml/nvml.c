/* The NVML face: librgpu.so is also installed as libnvidia-ml.so.1, so pynvml, frameworks' memory
 * queries and monitoring agents inside a program see the vGPUs of its lease (device i is vGPU i, as
 * for CUDA) instead of no GPU at all. It answers from the same sessions as the CUDA faces: names,
 * UUIDs and compute capability from the servers, memory from the server's cuMemGetInfo (total: the
 * vGPU's quota; used: what the vGPU's sessions hold). Every other NVML function is a generated stub
 * (generated/rgpu_nvml_stubs.c, placed by protocol/contract/nvml.toml) answering
 * NVML_ERROR_NOT_SUPPORTED. The types come from NVIDIA's nvml.h (generated/rgpu_nvml.h). */
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "rgpu_call.h"
#include "rgpu_nvml.h"
#include "session.h"

struct nvmlDevice_st {
    int index;
};

static struct nvmlDevice_st devices[RGPU_MAX_DEVICES];
static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static int init_count;

/* Once per unsupported function: a program that probes NVML sees why it is told no. */
nvmlReturn_t rgpu_nvml_unsupported(const char *name, const char *why) {
    static pthread_mutex_t logged_mu = PTHREAD_MUTEX_INITIALIZER;
    static const char *logged[64];
    static int nlogged;
    pthread_mutex_lock(&logged_mu);
    int seen = 0;
    for (int i = 0; i < nlogged; i++) seen |= logged[i] == name;
    if (!seen && nlogged < 64) logged[nlogged++] = name;
    pthread_mutex_unlock(&logged_mu);
    if (!seen) rgpu_log(RGPU_LOG_INFO, "NVML %s: not supported by rgpu (%s)", name, why);
    return NVML_ERROR_NOT_SUPPORTED;
}

static int initialized(void) {
    pthread_mutex_lock(&mu);
    int n = init_count;
    pthread_mutex_unlock(&mu);
    return n > 0;
}

/* The device behind a handle, or -1 (NVML answers a foreign handle with INVALID_ARGUMENT). */
static int device_of(nvmlDevice_t h) {
    if (h < devices || h >= devices + RGPU_MAX_DEVICES) return -1;
    return h->index < rgpu_device_count() ? h->index : -1;
}

/* A CUDA error of a call to a vGPU's server, as NVML would put it. */
static nvmlReturn_t from_cuda(int rc) {
    switch (rc) {
    case RGPU_SUCCESS: return NVML_SUCCESS;
    case RGPU_INVALID_VALUE: return NVML_ERROR_INVALID_ARGUMENT;
    case RGPU_INVALID_DEVICE: return NVML_ERROR_INVALID_ARGUMENT;
    default: return NVML_ERROR_GPU_IS_LOST; /* its server cannot be reached, or the lease ended */
    }
}

nvmlReturn_t nvmlInit_v2(void) {
    /* as cuInit: RGPU_SERVER's devices, or a lease of the program's own (env-only mode) */
    int rc = rgpu_ensure_init();
    if (rc != RGPU_SUCCESS) {
        rgpu_log(RGPU_LOG_WARN, "NVML: no vGPUs (the client library could not start: %s)",
                 rgpu_error_name(RGPU_DRIVER, rc) ? rgpu_error_name(RGPU_DRIVER, rc) : "error");
        return NVML_ERROR_DRIVER_NOT_LOADED;
    }
    pthread_mutex_lock(&mu);
    init_count++;
    pthread_mutex_unlock(&mu);
    return NVML_SUCCESS;
}

nvmlReturn_t nvmlInit(void) { return nvmlInit_v2(); }

nvmlReturn_t nvmlInitWithFlags(unsigned int flags) { return nvmlInit_v2(); }

nvmlReturn_t nvmlShutdown(void) {
    pthread_mutex_lock(&mu);
    nvmlReturn_t r = init_count > 0 ? NVML_SUCCESS : NVML_ERROR_UNINITIALIZED;
    if (init_count > 0) init_count--;
    pthread_mutex_unlock(&mu);
    return r;
}

const char *nvmlErrorString(nvmlReturn_t result) {
    switch (result) {
    case NVML_SUCCESS: return "Success";
    case NVML_ERROR_UNINITIALIZED: return "Uninitialized";
    case NVML_ERROR_INVALID_ARGUMENT: return "Invalid Argument";
    case NVML_ERROR_NOT_SUPPORTED: return "Not Supported";
    case NVML_ERROR_NO_PERMISSION: return "Insufficient Permissions";
    case NVML_ERROR_NOT_FOUND: return "Not Found";
    case NVML_ERROR_INSUFFICIENT_SIZE: return "Insufficient Size";
    case NVML_ERROR_DRIVER_NOT_LOADED: return "Driver Not Loaded";
    case NVML_ERROR_GPU_IS_LOST: return "GPU is lost";
    case NVML_ERROR_FUNCTION_NOT_FOUND: return "Function Not Found";
    default: return "Unknown Error";
    }
}

/* NVML's string answers: INSUFFICIENT_SIZE unless the whole string and its NUL fit. */
static nvmlReturn_t put_string(char *out, unsigned int length, const char *s) {
    if (!out) return NVML_ERROR_INVALID_ARGUMENT;
    if (strlen(s) + 1 > length) return NVML_ERROR_INSUFFICIENT_SIZE;
    memcpy(out, s, strlen(s) + 1);
    return NVML_SUCCESS;
}

nvmlReturn_t nvmlSystemGetDriverVersion(char *version, unsigned int length) {
    if (!initialized()) return NVML_ERROR_UNINITIALIZED;
    char text[32];
    snprintf(text, sizeof text, "rgpu-cuda-%d.%d", RGPU_CUDA_VERSION / 1000, RGPU_CUDA_VERSION % 1000 / 10);
    return put_string(version, length, text);
}

nvmlReturn_t nvmlSystemGetNVMLVersion(char *version, unsigned int length) {
    return put_string(version, length, NVML_API_VERSION_STR);
}

nvmlReturn_t nvmlSystemGetCudaDriverVersion(int *cudaDriverVersion) {
    if (!cudaDriverVersion) return NVML_ERROR_INVALID_ARGUMENT;
    *cudaDriverVersion = RGPU_CUDA_VERSION;
    return NVML_SUCCESS;
}

nvmlReturn_t nvmlSystemGetCudaDriverVersion_v2(int *cudaDriverVersion) {
    return nvmlSystemGetCudaDriverVersion(cudaDriverVersion);
}

nvmlReturn_t nvmlDeviceGetCount_v2(unsigned int *deviceCount) {
    if (!initialized()) return NVML_ERROR_UNINITIALIZED;
    if (!deviceCount) return NVML_ERROR_INVALID_ARGUMENT;
    *deviceCount = (unsigned)rgpu_device_count();
    return NVML_SUCCESS;
}

nvmlReturn_t nvmlDeviceGetCount(unsigned int *deviceCount) { return nvmlDeviceGetCount_v2(deviceCount); }

nvmlReturn_t nvmlDeviceGetHandleByIndex_v2(unsigned int index, nvmlDevice_t *device) {
    if (!initialized()) return NVML_ERROR_UNINITIALIZED;
    if (!device || index >= (unsigned)rgpu_device_count()) return NVML_ERROR_INVALID_ARGUMENT;
    devices[index].index = (int)index;
    *device = &devices[index];
    return NVML_SUCCESS;
}

nvmlReturn_t nvmlDeviceGetHandleByIndex(unsigned int index, nvmlDevice_t *device) {
    return nvmlDeviceGetHandleByIndex_v2(index, device);
}

nvmlReturn_t nvmlDeviceGetIndex(nvmlDevice_t device, unsigned int *index) {
    if (!initialized()) return NVML_ERROR_UNINITIALIZED;
    int dev = device_of(device);
    if (dev < 0 || !index) return NVML_ERROR_INVALID_ARGUMENT;
    *index = (unsigned)dev;
    return NVML_SUCCESS;
}

nvmlReturn_t nvmlDeviceGetName(nvmlDevice_t device, char *name, unsigned int length) {
    if (!initialized()) return NVML_ERROR_UNINITIALIZED;
    int dev = device_of(device);
    if (dev < 0) return NVML_ERROR_INVALID_ARGUMENT;
    char text[256] = {0};
    int rc = cuDeviceGetName(text, sizeof text - 1, dev);
    return rc ? from_cuda(rc) : put_string(name, length, text);
}

static int uuid_text(int dev, char out[NVML_DEVICE_UUID_V2_BUFFER_SIZE]) {
    CUuuid u;
    int rc = cuDeviceGetUuid_v2(&u, dev);
    if (rc) return rc;
    const unsigned char *b = (const unsigned char *)u.bytes;
    snprintf(out, NVML_DEVICE_UUID_V2_BUFFER_SIZE,
             "GPU-%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x", b[0], b[1], b[2], b[3],
             b[4], b[5], b[6], b[7], b[8], b[9], b[10], b[11], b[12], b[13], b[14], b[15]);
    return 0;
}

nvmlReturn_t nvmlDeviceGetUUID(nvmlDevice_t device, char *uuid, unsigned int length) {
    if (!initialized()) return NVML_ERROR_UNINITIALIZED;
    int dev = device_of(device);
    if (dev < 0) return NVML_ERROR_INVALID_ARGUMENT;
    char text[NVML_DEVICE_UUID_V2_BUFFER_SIZE];
    int rc = uuid_text(dev, text);
    return rc ? from_cuda(rc) : put_string(uuid, length, text);
}

nvmlReturn_t nvmlDeviceGetHandleByUUID(const char *uuid, nvmlDevice_t *device) {
    if (!initialized()) return NVML_ERROR_UNINITIALIZED;
    if (!uuid || !device) return NVML_ERROR_INVALID_ARGUMENT;
    for (int i = 0; i < rgpu_device_count(); i++) {
        char text[NVML_DEVICE_UUID_V2_BUFFER_SIZE];
        int rc = uuid_text(i, text);
        if (rc) return from_cuda(rc);
        if (strcmp(text, uuid) == 0) return nvmlDeviceGetHandleByIndex_v2((unsigned)i, device);
    }
    return NVML_ERROR_NOT_FOUND;
}

/* "dddd:bb:dd.f" with any width of domain (NVML writes 8 hex digits, CUDA 4): equal as numbers. */
static int parse_bus_id(const char *text, unsigned v[4]) {
    return text && sscanf(text, "%x:%x:%x.%x", &v[0], &v[1], &v[2], &v[3]) == 4;
}

/* A program may name a device by the bus id cudaDeviceGetPCIBusId gives, or by the one it formats from
 * cudaDeviceProp's pciDomainID/pciBusID/pciDeviceID (PyTorch's expandable segments do): either is the
 * vGPU. */
nvmlReturn_t nvmlDeviceGetHandleByPciBusId_v2(const char *pciBusId, nvmlDevice_t *device) {
    if (!initialized()) return NVML_ERROR_UNINITIALIZED;
    unsigned want[4], got[4];
    if (!device || !parse_bus_id(pciBusId, want)) return NVML_ERROR_INVALID_ARGUMENT;
    for (int i = 0; i < rgpu_device_count(); i++) {
        char text[64] = {0};
        int rc = cuDeviceGetPCIBusId(text, sizeof text - 1, i);
        if (rc) return from_cuda(rc);
        if (parse_bus_id(text, got) && !memcmp(want, got, sizeof want)) return nvmlDeviceGetHandleByIndex_v2((unsigned)i, device);
        int domain = 0, bus = 0, dev = 0;
        rc = cuDeviceGetAttribute(&domain, CU_DEVICE_ATTRIBUTE_PCI_DOMAIN_ID, i);
        if (!rc) rc = cuDeviceGetAttribute(&bus, CU_DEVICE_ATTRIBUTE_PCI_BUS_ID, i);
        if (!rc) rc = cuDeviceGetAttribute(&dev, CU_DEVICE_ATTRIBUTE_PCI_DEVICE_ID, i);
        if (rc) return from_cuda(rc);
        if (want[0] == (unsigned)domain && want[1] == (unsigned)bus && want[2] == (unsigned)dev && want[3] == 0)
            return nvmlDeviceGetHandleByIndex_v2((unsigned)i, device);
    }
    return NVML_ERROR_NOT_FOUND;
}

nvmlReturn_t nvmlDeviceGetHandleByPciBusId(const char *pciBusId, nvmlDevice_t *device) {
    return nvmlDeviceGetHandleByPciBusId_v2(pciBusId, device);
}

nvmlReturn_t nvmlDeviceGetCudaComputeCapability(nvmlDevice_t device, int *major, int *minor) {
    if (!initialized()) return NVML_ERROR_UNINITIALIZED;
    int dev = device_of(device);
    if (dev < 0 || !major || !minor) return NVML_ERROR_INVALID_ARGUMENT;
    int rc = cuDeviceGetAttribute(major, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, dev);
    if (!rc) rc = cuDeviceGetAttribute(minor, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, dev);
    return from_cuda(rc);
}

/* The server's cuMemGetInfo for device `dev`, whichever device is current: free is what the vGPU's
 * quota still has room for (what its sessions hold is taken), total is the quota. */
static int vgpu_memory(int dev, unsigned long long *free_b, unsigned long long *total_b) {
    rgpu_call c;
    rgpu_begin(&c, RGPU_ID_cuMemGetInfo_v2, "cuMemGetInfo_v2", RGPU_DRIVER, RGPU_FLAGS_cuMemGetInfo_v2);
    c.dev = dev;
    int rc = rgpu_sync(&c);
    if (rc == 0) {
        *free_b = rgpu_out_u(&c);
        *total_b = rgpu_out_u(&c);
    }
    rgpu_end(&c);
    return rc;
}

nvmlReturn_t nvmlDeviceGetMemoryInfo(nvmlDevice_t device, nvmlMemory_t *memory) {
    if (!initialized()) return NVML_ERROR_UNINITIALIZED;
    int dev = device_of(device);
    if (dev < 0 || !memory) return NVML_ERROR_INVALID_ARGUMENT;
    unsigned long long free_b = 0, total_b = 0;
    int rc = vgpu_memory(dev, &free_b, &total_b);
    if (rc) return from_cuda(rc);
    memory->total = total_b;
    memory->free = free_b;
    memory->used = total_b - free_b;
    return NVML_SUCCESS;
}

nvmlReturn_t nvmlDeviceGetMemoryInfo_v2(nvmlDevice_t device, nvmlMemory_v2_t *memory) {
    if (!memory) return NVML_ERROR_INVALID_ARGUMENT;
    if (memory->version != nvmlMemory_v2) return NVML_ERROR_ARGUMENT_VERSION_MISMATCH;
    nvmlMemory_t m;
    nvmlReturn_t r = nvmlDeviceGetMemoryInfo(device, &m);
    if (r != NVML_SUCCESS) return r;
    memory->total = m.total;
    memory->reserved = 0;
    memory->free = m.free;
    memory->used = m.used;
    return NVML_SUCCESS;
}

/* The processes on a vGPU the client can know of: this program, once it has a session there. How
 * much of the vGPU's memory is its own the server does not say per process: NVML's "not available". */
static nvmlReturn_t own_process(nvmlDevice_t device, unsigned int *infoCount, unsigned *pid,
                                unsigned long long *used) {
    if (!initialized()) return NVML_ERROR_UNINITIALIZED;
    int dev = device_of(device);
    if (dev < 0 || !infoCount) return NVML_ERROR_INVALID_ARGUMENT;
    rgpu_session *s = rgpu_session_get(dev);
    unsigned n = s && s->state == 1 ? 1 : 0;
    if (*infoCount < n) {
        *infoCount = n;
        return NVML_ERROR_INSUFFICIENT_SIZE;
    }
    *infoCount = n;
    if (n) {
        *pid = (unsigned)getpid();
        *used = NVML_VALUE_NOT_AVAILABLE;
    }
    return NVML_SUCCESS;
}

nvmlReturn_t nvmlDeviceGetComputeRunningProcesses_v2(nvmlDevice_t device, unsigned int *infoCount,
                                                     nvmlProcessInfo_v2_t *infos) {
    unsigned pid = 0;
    unsigned long long used = 0;
    unsigned cap = infoCount ? *infoCount : 0;
    nvmlReturn_t r = own_process(device, infoCount, &pid, &used);
    if (r == NVML_SUCCESS && *infoCount) {
        if (!infos || !cap) return NVML_ERROR_INVALID_ARGUMENT;
        infos[0] = (nvmlProcessInfo_v2_t){.pid = pid, .usedGpuMemory = used,
                                          .gpuInstanceId = 0xFFFFFFFF, .computeInstanceId = 0xFFFFFFFF};
    }
    return r;
}

/* _v3 fills the same record as _v2 (nvmlProcessInfo_t is nvmlProcessInfo_v2_st); the versions
   differ only in what older drivers filled in */
nvmlReturn_t nvmlDeviceGetComputeRunningProcesses_v3(nvmlDevice_t device, unsigned int *infoCount,
                                                     nvmlProcessInfo_t *infos) {
    return nvmlDeviceGetComputeRunningProcesses_v2(device, infoCount, infos);
}

nvmlReturn_t nvmlDeviceGetComputeRunningProcesses(nvmlDevice_t device, unsigned int *infoCount,
                                                  nvmlProcessInfo_v1_t *infos) {
    unsigned pid = 0;
    unsigned long long used = 0;
    unsigned cap = infoCount ? *infoCount : 0;
    nvmlReturn_t r = own_process(device, infoCount, &pid, &used);
    if (r == NVML_SUCCESS && *infoCount) {
        if (!infos || !cap) return NVML_ERROR_INVALID_ARGUMENT;
        infos[0] = (nvmlProcessInfo_v1_t){.pid = pid, .usedGpuMemory = used};
    }
    return r;
}
