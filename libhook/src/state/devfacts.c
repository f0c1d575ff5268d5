/* Immutable device facts answered in the client: attributes and cudaDeviceProp (and from it the name,
 * UUID, compute capability and total memory of the Driver API) come with the attach
 * reply of the device's session (server/worker.py _facts), so after the session opens a query costs no
 * round trip (a program asking the multiprocessor count in a loop no longer waits on the network
 * each time). An attribute the facts lack (an unknown number, or a server that sent none) is asked
 * of the server, which answers it or says why not, as before. */
#include <stdio.h>
#include <string.h>

#include "rgpu_call.h"
#include "session.h"

/* The cudaDeviceProp of device dev's session, copied into buf; NULL to ask the server. */
static const struct cudaDeviceProp *props_of(int dev, struct cudaDeviceProp *buf) {
    if (rgpu_ensure_init() != 0 || dev < 0 || dev >= rgpu_device_count()) return NULL;
    rgpu_session *s = rgpu_session_get(dev);
    return s && rgpu_session_props(s, dev, buf, sizeof *buf) == 0 ? buf : NULL;
}

/* 0 and *v from the facts of device dev's session; -1 to ask the server. */
static int known(int dev, int attr, int *v) {
    if (rgpu_ensure_init() != 0 || dev < 0 || dev >= rgpu_device_count()) return -1; /* the wire path says why */
    rgpu_session *s = rgpu_session_get(dev);
    return s ? rgpu_session_attr(s, dev, attr, v) : -1;
}

/* Where device dev sits on the PCI bus, as the program sees it: bus dev + 1 of domain 0, device 0. A
 * vGPU is no PCI function of this host, and two vGPUs of a program may be slices of one GPU, or the
 * first GPUs of two servers, to which their servers' answers would give one location: a program that
 * finds its devices by location (NVML lookups, cudaDeviceGetByPCIBusId) must find each. The
 * attributes, cudaDeviceProp and the bus id string all say the same (the runtime's integrity check,
 * export_tables.c, hashes them too). 0 and *v, or -1 when attr is not a location or dev no device. */
static int pci_location(int dev, int attr, int *v) {
    if (attr != CU_DEVICE_ATTRIBUTE_PCI_BUS_ID && attr != CU_DEVICE_ATTRIBUTE_PCI_DEVICE_ID &&
        attr != CU_DEVICE_ATTRIBUTE_PCI_DOMAIN_ID)
        return -1;
    if (rgpu_ensure_init() != 0 || dev < 0 || dev >= rgpu_device_count()) return -1; /* the wire path says why */
    *v = attr == CU_DEVICE_ATTRIBUTE_PCI_BUS_ID ? dev + 1 : 0;
    return 0;
}

static void place(struct cudaDeviceProp *p, int dev) {
    p->pciDomainID = 0, p->pciBusID = dev + 1, p->pciDeviceID = 0;
}

static int bus_id(int face, char *out, int len, int dev) {
    if (!out || len <= 0) return rgpu_invalid_value(face);
    int rc = rgpu_ensure_init();
    if (rc) return rgpu_record(face, rc);
    if (dev < 0 || dev >= rgpu_device_count()) return rgpu_record(face, RGPU_INVALID_DEVICE);
    snprintf(out, (size_t)len, "%04x:%02x:%02x.0", 0, dev + 1, 0);
    return RGPU_SUCCESS;
}

/* "[domain:]bus:device.function", in hex, as CUDA takes it */
static int by_bus_id(int face, int *out, const char *text) {
    unsigned domain = 0, bus, device, function;
    if (!out || !text) return rgpu_invalid_value(face);
    int rc = rgpu_ensure_init();
    if (rc) return rgpu_record(face, rc);
    if (sscanf(text, "%x:%x:%x.%x", &domain, &bus, &device, &function) != 4 &&
        (domain = 0, sscanf(text, "%x:%x.%x", &bus, &device, &function) != 3))
        return rgpu_invalid_value(face);
    if (domain || device || function || bus < 1 || bus > (unsigned)rgpu_device_count())
        return rgpu_record(face, RGPU_INVALID_DEVICE);
    *out = (int)bus - 1;
    return RGPU_SUCCESS;
}

cudaError_t cudaDeviceGetPCIBusId(char *pciBusId, int len, int device) { return bus_id(RGPU_RUNTIME, pciBusId, len, device); }
CUresult cuDeviceGetPCIBusId(char *pciBusId, int len, CUdevice dev) { return bus_id(RGPU_DRIVER, pciBusId, len, dev); }
cudaError_t cudaDeviceGetByPCIBusId(int *device, const char *pciBusId) { return by_bus_id(RGPU_RUNTIME, device, pciBusId); }
CUresult cuDeviceGetByPCIBusId(CUdevice *dev, const char *pciBusId) { return by_bus_id(RGPU_DRIVER, dev, pciBusId); }

CUresult cuDeviceGetAttribute(int *pi, CUdevice_attribute attrib, CUdevice dev) {
    if (pi == NULL) return rgpu_invalid_value(RGPU_DRIVER);
    if (pci_location(dev, (int)attrib, pi) == 0 || known(dev, (int)attrib, pi) == 0) return CUDA_SUCCESS;
    rgpu_call c;
    rgpu_wire_cuDeviceGetAttribute(&c, (int64_t)attrib, dev);
    int rc = rgpu_sync(&c);
    if (rc == 0) {
        int64_t v;
        rgpu_wire_out_cuDeviceGetAttribute(&c, &v);
        *pi = (int)v;
    }
    rgpu_end(&c);
    return rc;
}

cudaError_t cudaDeviceGetAttribute(int *value, enum cudaDeviceAttr attr, int device) {
    if (value == NULL) return rgpu_invalid_value(RGPU_RUNTIME);
    if (pci_location(device, (int)attr, value) == 0 || known(device, (int)attr, value) == 0) return cudaSuccess;
    rgpu_call c;
    rgpu_wire_cudaDeviceGetAttribute(&c, (int64_t)attr, device);
    int rc = rgpu_sync(&c);
    if (rc == 0) {
        int64_t v;
        rgpu_wire_out_cudaDeviceGetAttribute(&c, &v);
        *value = (int)v;
    }
    rgpu_end(&c);
    return rc;
}

cudaError_t cudaGetDeviceProperties(struct cudaDeviceProp *prop, int device) {
    if (prop == NULL) return rgpu_invalid_value(RGPU_RUNTIME);
    if (props_of(device, prop)) {
        place(prop, device);
        return cudaSuccess;
    }
    rgpu_call c;
    rgpu_wire_cudaGetDeviceProperties(&c, device);
    int rc = rgpu_sync(&c);
    if (rc == 0) rgpu_wire_out_cudaGetDeviceProperties(&c, prop, sizeof *prop);
    rgpu_end(&c);
    if (rc == 0) place(prop, device);
    return rc;
}

/* The Driver API's identity queries, from the same properties (the server fills both from one source). */
CUresult cuDeviceGetName(char *name, int len, CUdevice dev) {
    if (name == NULL && len != 0) return rgpu_invalid_value(RGPU_DRIVER);
    struct cudaDeviceProp p;
    if (len > 0 && props_of(dev, &p)) {
        size_t n = strnlen(p.name, sizeof p.name);
        if (n > (size_t)len - 1) n = (size_t)len - 1;
        memcpy(name, p.name, n);
        name[n] = 0;
        return CUDA_SUCCESS;
    }
    rgpu_call c;
    rgpu_wire_cuDeviceGetName(&c, len, dev);
    int rc = rgpu_sync(&c);
    if (rc == 0) rgpu_wire_out_cuDeviceGetName(&c, name, (size_t)len);
    rgpu_end(&c);
    return rc;
}

CUresult cuDeviceGetUuid_v2(CUuuid *uuid, CUdevice dev) {
    if (uuid == NULL) return rgpu_invalid_value(RGPU_DRIVER);
    struct cudaDeviceProp p;
    if (props_of(dev, &p)) {
        memcpy(uuid, &p.uuid, sizeof *uuid);
        return CUDA_SUCCESS;
    }
    rgpu_call c;
    rgpu_wire_cuDeviceGetUuid_v2(&c, dev);
    int rc = rgpu_sync(&c);
    if (rc == 0) rgpu_wire_out_cuDeviceGetUuid_v2(&c, uuid, sizeof *uuid);
    rgpu_end(&c);
    return rc;
}

CUresult cuDeviceComputeCapability(int *major, int *minor, CUdevice dev) {
    if (major == NULL || minor == NULL) return rgpu_invalid_value(RGPU_DRIVER);
    struct cudaDeviceProp p;
    if (props_of(dev, &p)) {
        *major = p.major;
        *minor = p.minor;
        return CUDA_SUCCESS;
    }
    rgpu_call c;
    rgpu_wire_cuDeviceComputeCapability(&c, dev);
    int rc = rgpu_sync(&c);
    if (rc == 0) {
        int64_t ma, mi;
        rgpu_wire_out_cuDeviceComputeCapability(&c, &ma, &mi);
        *major = (int)ma;
        *minor = (int)mi;
    }
    rgpu_end(&c);
    return rc;
}

CUresult cuDeviceTotalMem_v2(size_t *bytes, CUdevice dev) {
    if (bytes == NULL) return rgpu_invalid_value(RGPU_DRIVER);
    struct cudaDeviceProp p;
    if (props_of(dev, &p)) {
        *bytes = p.totalGlobalMem;
        return CUDA_SUCCESS;
    }
    rgpu_call c;
    rgpu_wire_cuDeviceTotalMem_v2(&c, dev);
    int rc = rgpu_sync(&c);
    if (rc == 0) {
        uint64_t v;
        rgpu_wire_out_cuDeviceTotalMem_v2(&c, &v);
        *bytes = (size_t)v;
    }
    rgpu_end(&c);
    return rc;
}
