/* Immutable device facts answered in the client: attributes and cudaDeviceProp come with the attach
 * reply of the device's session (server/worker.py _facts), so after the session opens a query costs no
 * round trip (a program asking the multiprocessor count in a loop no longer waits on the network
 * each time). An attribute the facts lack (an unknown number, or a server that sent none) is asked
 * of the server, which answers it or says why not, as before. */
#include "rgpu_call.h"
#include "session.h"

/* 0 and *v from the facts of device dev's session; -1 to ask the server. */
static int known(int dev, int attr, int *v) {
    if (rgpu_ensure_init() != 0 || dev < 0 || dev >= rgpu_device_count()) return -1; /* the wire path says why */
    rgpu_session *s = rgpu_session_get(dev);
    return s ? rgpu_session_attr(s, dev, attr, v) : -1;
}

CUresult cuDeviceGetAttribute(int *pi, CUdevice_attribute attrib, CUdevice dev) {
    if (pi == NULL) return rgpu_invalid_value(RGPU_DRIVER);
    if (known(dev, (int)attrib, pi) == 0) return CUDA_SUCCESS;
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
    if (known(device, (int)attr, value) == 0) return cudaSuccess;
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
    if (rgpu_ensure_init() == 0 && device >= 0 && device < rgpu_device_count()) {
        rgpu_session *s = rgpu_session_get(device);
        if (s && rgpu_session_props(s, device, prop, sizeof *prop) == 0) return cudaSuccess;
    }
    rgpu_call c;
    rgpu_wire_cudaGetDeviceProperties(&c, device);
    int rc = rgpu_sync(&c);
    if (rc == 0) rgpu_wire_out_cudaGetDeviceProperties(&c, prop, sizeof *prop);
    rgpu_end(&c);
    return rc;
}
