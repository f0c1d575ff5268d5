/* What nvcc's host code calls at load time: __cudaRegisterFatBinary and friends. Registration
 * never talks to a server: modules are uploaded to a session the first time one of their kernels
 * or variables is used on that device (see launch.c). */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "registry.h"
#include "rgpu_call.h"

#define WRAPPER_MAGIC 0x466243b1u
#define CONTAINER_MAGIC 0xba55ed50u
#define ELF_MAGIC 0x464c457fu

typedef struct { int magic; int version; const void *data; void *filename_or_fatbins; } fatbin_wrapper;

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static rgpu_kernel **kernels;
static size_t nkernels, capk;
static rgpu_var **vars;
static size_t nvars, capv;

/* The size of a fatbin container (header + entries), an ELF cubin, or a NUL-terminated PTX text. */
size_t rgpu_image_size(const void *image) {
    const uint8_t *p = image;
    uint32_t magic;
    memcpy(&magic, p, 4);
    if (magic == WRAPPER_MAGIC) return rgpu_image_size(((const fatbin_wrapper *)image)->data);
    if (magic == CONTAINER_MAGIC) {
        /* Containers may sit back to back, 8-byte aligned (-rdc units, cuLinkComplete's output). */
        size_t size = 0;
        while (magic == CONTAINER_MAGIC) {
            uint16_t hsize;
            uint64_t fsize;
            memcpy(&hsize, p + size + 6, 2);
            memcpy(&fsize, p + size + 8, 8);
            size = (size + hsize + fsize + 7) & ~(size_t)7;
            memcpy(&magic, p + size, 4);
        }
        return size;
    }
    if (magic == ELF_MAGIC && p[4] == 2) { /* ELF64: the section headers end the file */
        uint64_t shoff;
        uint16_t shentsize, shnum;
        memcpy(&shoff, p + 0x28, 8);
        memcpy(&shentsize, p + 0x3a, 2);
        memcpy(&shnum, p + 0x3c, 2);
        return shoff + (uint64_t)shentsize * shnum;
    }
    return strlen((const char *)image) + 1;
}

void **__cudaRegisterFatBinary(void *fatCubin) {
    fatbin_wrapper *w = fatCubin;
    rgpu_module *m = calloc(1, sizeof *m);
    void **handle = calloc(1, sizeof(void *));
    *handle = m;
    m->handle = handle;
    if (w && (unsigned)w->magic == WRAPPER_MAGIC) {
        m->image = w->data;
        m->size = rgpu_image_size(w->data);
    } else {
        rgpu_log(RGPU_LOG_WARN, "__cudaRegisterFatBinary: not an nvcc fatbin wrapper");
    }
    return handle;
}

void __cudaRegisterFatBinaryEnd(void **handle) { (void)handle; }

void __cudaUnregisterFatBinary(void **handle) {
    /* Runs at exit; the session's end frees the server side, so only forget the records. */
    pthread_mutex_lock(&mu);
    rgpu_module *m = handle ? *handle : NULL;
    for (size_t i = 0; i < nkernels; i++)
        if (kernels[i]->module == m) kernels[i]->module = NULL;
    for (size_t i = 0; i < nvars; i++)
        if (vars[i]->module == m) vars[i]->module = NULL;
    pthread_mutex_unlock(&mu);
}

void __cudaRegisterFunction(void **handle, const char *hostFun, char *deviceFun, const char *deviceName,
                            int thread_limit, void *tid, void *bid, void *bDim, void *gDim, int *wSize) {
    (void)deviceFun; (void)thread_limit; (void)tid; (void)bid; (void)bDim; (void)gDim; (void)wSize;
    rgpu_kernel *k = calloc(1, sizeof *k);
    k->host_fn = hostFun;
    k->name = deviceName;
    k->module = *handle;
    pthread_mutex_lock(&mu);
    if (nkernels == capk) {
        capk = capk ? capk * 2 : 32;
        kernels = realloc(kernels, capk * sizeof *kernels);
    }
    kernels[nkernels++] = k;
    pthread_mutex_unlock(&mu);
}

void __cudaRegisterVar(void **handle, char *hostVar, char *deviceAddress, const char *deviceName,
                       int ext, size_t size, int constant, int global) {
    (void)deviceAddress; (void)ext; (void)constant; (void)global;
    rgpu_var *v = calloc(1, sizeof *v);
    v->host_var = hostVar;
    v->name = deviceName;
    v->size = size;
    v->module = *handle;
    pthread_mutex_lock(&mu);
    if (nvars == capv) {
        capv = capv ? capv * 2 : 32;
        vars = realloc(vars, capv * sizeof *vars);
    }
    vars[nvars++] = v;
    pthread_mutex_unlock(&mu);
}

void __cudaRegisterManagedVar(void **handle, void **hostVarPtrAddress, char *deviceAddress,
                              const char *deviceName, int ext, size_t size, int constant, int global) {
    (void)handle; (void)hostVarPtrAddress; (void)deviceAddress; (void)ext; (void)size; (void)constant; (void)global;
    rgpu_log(RGPU_LOG_WARN, "managed variable %s: managed memory is not supported by rgpu", deviceName);
}

char __cudaInitModule(void **handle) { (void)handle; return 0; }

rgpu_kernel *rgpu_find_kernel(const void *host_fn) {
    rgpu_kernel *found = NULL;
    pthread_mutex_lock(&mu);
    for (size_t i = 0; i < nkernels && !found; i++)
        if (kernels[i]->host_fn == host_fn || (const void *)kernels[i] == host_fn) found = kernels[i];
    pthread_mutex_unlock(&mu);
    return found;
}

rgpu_var *rgpu_find_var(const void *host_var) {
    rgpu_var *found = NULL;
    pthread_mutex_lock(&mu);
    for (size_t i = 0; i < nvars && !found; i++)
        if (vars[i]->host_var == host_var) found = vars[i];
    pthread_mutex_unlock(&mu);
    return found;
}
