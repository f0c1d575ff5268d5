/* Context-independent loading (the cuLibrary and cudaLibrary families, CUDA 12+), extended launches, and PTX
 * linking (cuLink*). A library is a client object loaded as a module on each device where it is used, and
 * its kernels are records resolved to that module's functions, so every module path (caching, layouts,
 * launches) serves them too. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "registry.h"
#include "rgpu_call.h"

/* A CUkernel that is no library's record is a function handle (cudaGetKernel hands those out). */
#define AS_FUNCTION(k) ((CUfunction)(k))
#define INVALID_DEVICE_FUNCTION_RT 98 /* cudaErrorInvalidDeviceFunction: what rgpu_kernel_on says of a missing name */

extern int rgpu_runtime_launch_fn(const void *func, unsigned g[3], unsigned b[3], void **args, size_t shmem,
                                  void *stream);
extern int rgpu_runtime_launch_cooperative_fn(const void *func, unsigned g[3], unsigned b[3], void **args, size_t shmem,
                                              void *stream);
extern int rgpu_driver_launch_cooperative_fn(void *f, const unsigned g3[3], const unsigned b3[3], unsigned shmem,
                                             void *stream, void **params, void **extra);

/* CUlaunchAttribute and cudaLaunchAttribute alike (the same layout and ids). Cooperative is the one
 * attribute that changes what a launch means; the others (clusters, priorities, ...) change no
 * result on the software GPU. */
_Static_assert(sizeof(CUlaunchAttribute) == sizeof(cudaLaunchAttribute), "one launch attribute layout");

static int wants_cooperative(const CUlaunchAttribute *a, unsigned n) {
    for (unsigned i = 0; a && i < n; i++)
        if (a[i].id == CU_LAUNCH_ATTRIBUTE_COOPERATIVE && a[i].value.cooperative) return 1;
    return 0;
}

int rgpu_cluster_attrs(const void *attrs, unsigned n, unsigned cluster[4]) {
    const CUlaunchAttribute *a = attrs;
    int named = 0;
    cluster[0] = cluster[1] = cluster[2] = cluster[3] = 0;
    for (unsigned i = 0; a && i < n; i++) {
        if (a[i].id == CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION) {
            cluster[0] = a[i].value.clusterDim.x;
            cluster[1] = a[i].value.clusterDim.y;
            cluster[2] = a[i].value.clusterDim.z;
            named = 1;
        } else if (a[i].id == CU_LAUNCH_ATTRIBUTE_CLUSTER_SCHEDULING_POLICY_PREFERENCE) {
            cluster[3] = (unsigned)a[i].value.clusterSchedulingPolicyPreference;
            named |= cluster[3] != 0;
        }
    }
    return named;
}

/* ---- Driver API libraries and kernels ---------------------------------------------------- */

/* A library is context-independent: loaded once, usable on every device. Here it is a client object
 * holding a copy of its image, loaded as a module on a device's session the first time it is used
 * there (module paths do the caching: a second device's load sends no bytes to a server that has the
 * image); a kernel is a client record of (library, name) with its function on each device, resolved
 * where it is used: cuKernelGetFunction on the current device, a launch of the CUkernel itself on its
 * stream's device. NVIDIA's runtimes load their fatbins this way, so cuBLAS on device 1 after device 0
 * must launch device 1's functions, not device 0's. */
#define LIBRARY_MAGIC 0x5247504cu /* "RGPL" */

typedef struct lib_kernel { rgpu_kernel k; struct lib_kernel *next; } lib_kernel;
typedef struct rgpu_library { uint32_t magic; rgpu_module m; lib_kernel *kernels; } rgpu_library;

static pthread_mutex_t libs_mu = PTHREAD_MUTEX_INITIALIZER;

static rgpu_library *as_library(CUlibrary library) {
    rgpu_library *l = (rgpu_library *)library;
    return l && l->magic == LIBRARY_MAGIC ? l : NULL;
}

void rgpu_index_kernel(rgpu_kernel *k); /* registration.c: a record found by its own address */

/* Kept with a copy of the image (the caller's may go away; another device loads it later), and loaded
 * on the current device now, so an image no device here can run is refused at once, as CUDA does. */
static CUresult library_from_image(CUlibrary *library, const void *image, size_t size) {
    rgpu_library *l = calloc(1, sizeof *l);
    void *copy = malloc(size ? size : 1);
    if (!l || !copy) {
        free(l);
        free(copy);
        return rgpu_record(RGPU_DRIVER, RGPU_OUT_OF_MEMORY);
    }
    memcpy(copy, image, size);
    l->magic = LIBRARY_MAGIC;
    l->m.image = copy;
    l->m.size = size;
    l->m.origin = image;
    void *mod = NULL;
    int rc = rgpu_module_on(RGPU_DRIVER, &l->m, rgpu_current_device(), &mod);
    if (rc) {
        free(copy);
        free(l);
        return rc;
    }
    *library = (CUlibrary)l;
    return RGPU_SUCCESS;
}

CUresult cuLibraryLoadData(CUlibrary *library, const void *code, CUjit_option *jo, void **jv, unsigned int nj, CUlibraryOption *lo, void **lv, unsigned int nl) {
    (void)jo; (void)jv; (void)nj; (void)lo; (void)lv; (void)nl;
    if (!library || !code) return rgpu_invalid_value(RGPU_DRIVER);
    int rc = rgpu_ensure_init();
    if (rc) return rgpu_record(RGPU_DRIVER, rc);
    code = rgpu_unwrap_fatbin(code);
    return library_from_image(library, code, rgpu_image_size(code));
}
CUresult cuLibraryLoadFromFile(CUlibrary *library, const char *file, CUjit_option *jo, void **jv, unsigned int nj, CUlibraryOption *lo, void **lv, unsigned int nl) {
    (void)jo; (void)jv; (void)nj; (void)lo; (void)lv; (void)nl;
    if (!library || !file) return rgpu_invalid_value(RGPU_DRIVER);
    int rc = rgpu_ensure_init();
    if (rc) return rgpu_record(RGPU_DRIVER, rc);
    size_t got = 0;
    char *buf = rgpu_read_file(file, &got); /* NUL-terminated, as PTX text must be */
    if (!buf) return rgpu_record(RGPU_DRIVER, CUDA_ERROR_FILE_NOT_FOUND);
    size_t size = rgpu_image_size(buf);
    rc = library_from_image(library, buf, size <= got + 1 ? size : got);
    free(buf);
    return rc;
}
CUresult cuLibraryUnload(CUlibrary library) {
    rgpu_library *l = as_library(library);
    if (!l) return rgpu_record(RGPU_DRIVER, RGPU_INVALID_HANDLE);
    pthread_mutex_lock(&libs_mu);
    l->magic = 0;
    /* kernel records stay (a stale CUkernel finds no module: an invalid function, never freed memory) */
    for (lib_kernel *k = l->kernels; k; k = k->next) k->k.module = NULL;
    pthread_mutex_unlock(&libs_mu);
    int rc = 0;
    for (int dev = 0; dev < RGPU_MAX_DEVICES; dev++)
        if (l->m.srv[dev]) {
            int r = cuModuleUnload((CUmodule)l->m.srv[dev]);
            if (!rc) rc = r;
        }
    free((void *)l->m.image);
    l->m.image = NULL;
    return rc;
}

/* The record of (library, name), made once; checked on the current device when made. */
static CUresult library_kernel(CUkernel *kernel, rgpu_library *l, const char *name) {
    pthread_mutex_lock(&libs_mu);
    lib_kernel *k = l->kernels;
    while (k && strcmp(k->k.name, name)) k = k->next;
    pthread_mutex_unlock(&libs_mu);
    if (!k) {
        k = calloc(1, sizeof *k);
        char *copy = strdup(name);
        if (!k || !copy) {
            free(k);
            free(copy);
            return rgpu_record(RGPU_DRIVER, RGPU_OUT_OF_MEMORY);
        }
        k->k.name = copy;
        k->k.module = &l->m;
        k->k.library = l;
        void *fn = NULL;
        int rc = rgpu_kernel_on(RGPU_DRIVER, &k->k, rgpu_current_device(), &fn);
        if (rc) {
            free(copy);
            free(k);
            return rc == INVALID_DEVICE_FUNCTION_RT ? rgpu_record(RGPU_DRIVER, CUDA_ERROR_NOT_FOUND) : rc;
        }
        pthread_mutex_lock(&libs_mu);
        k->next = l->kernels;
        l->kernels = k;
        pthread_mutex_unlock(&libs_mu);
        rgpu_index_kernel(&k->k);
    }
    *kernel = (CUkernel)&k->k;
    return RGPU_SUCCESS;
}

CUresult cuLibraryGetKernel(CUkernel *kernel, CUlibrary library, const char *name) {
    rgpu_library *l = as_library(library);
    if (!kernel || !name) return rgpu_invalid_value(RGPU_DRIVER);
    if (!l) return rgpu_record(RGPU_DRIVER, RGPU_INVALID_HANDLE);
    return library_kernel(kernel, l, name);
}
CUresult cuLibraryGetModule(CUmodule *module, CUlibrary library) {
    rgpu_library *l = as_library(library);
    if (!module) return rgpu_invalid_value(RGPU_DRIVER);
    if (!l) return rgpu_record(RGPU_DRIVER, RGPU_INVALID_HANDLE);
    return rgpu_module_on(RGPU_DRIVER, &l->m, rgpu_current_device(), (void **)module);
}

/* The function of a CUkernel on device `dev` (a CUkernel that is not a library's record is taken as
 * a function handle, as rgpu handed out before libraries were client objects). */
static CUresult kernel_on(CUkernel kernel, int dev, CUfunction *fn) {
    rgpu_kernel *k = rgpu_find_kernel(kernel);
    if (!k) {
        *fn = AS_FUNCTION(kernel);
        return kernel ? RGPU_SUCCESS : rgpu_record(RGPU_DRIVER, RGPU_INVALID_HANDLE);
    }
    return rgpu_kernel_on(RGPU_DRIVER, k, dev, (void **)fn);
}

/* The library a CUkernel came from. A program's own kernels (cudaGetKernel) are a session's function
 * handles here, which no library holds: invalid-handle for those, as for a handle that is none. */
CUresult cuKernelGetLibrary(CUlibrary *pLib, CUkernel kernel) {
    if (!pLib) return rgpu_invalid_value(RGPU_DRIVER);
    rgpu_kernel *k = kernel ? rgpu_find_kernel(kernel) : NULL;
    if (!k || !k->library) return rgpu_record(RGPU_DRIVER, RGPU_INVALID_HANDLE);
    *pLib = (CUlibrary)k->library;
    return RGPU_SUCCESS;
}

CUresult cuKernelGetFunction(CUfunction *func, CUkernel kernel) {
    if (!func || !kernel) return rgpu_invalid_value(RGPU_DRIVER);
    return kernel_on(kernel, rgpu_current_device(), func);
}
CUresult cuLibraryGetGlobal(CUdeviceptr *dptr, size_t *bytes, CUlibrary library, const char *name) {
    CUmodule mod = NULL;
    int rc = cuLibraryGetModule(&mod, library);
    if (rc) return rc;
    CUdeviceptr d = 0;
    size_t b = 0;
    rc = cuModuleGetGlobal_v2(&d, &b, mod, name);
    if (rc == 0 && dptr) *dptr = d;
    if (rc == 0 && bytes) *bytes = b;
    return rc;
}
/* A __managed__ variable of the library: what NVIDIA's runtime asks when host code first touches
 * one in a program built with nvcc's default static cudart. The host reaches it at its device
 * address, mapped here and kept coherent (managed.c). */
CUresult cuLibraryGetManaged(CUdeviceptr *dptr, size_t *bytes, CUlibrary library, const char *name) {
    CUdeviceptr d = 0;
    size_t b = 0;
    int rc = cuLibraryGetGlobal(&d, &b, library, name);
    if (rc == 0) rc = rgpu_managed_adopt(rgpu_current_device(), d, b);
    if (rc) return rgpu_record(RGPU_DRIVER, rc);
    if (dptr) *dptr = d;
    if (bytes) *bytes = b;
    return CUDA_SUCCESS;
}
CUresult cuKernelGetAttribute(int *pi, CUfunction_attribute attrib, CUkernel kernel, CUdevice dev) {
    CUfunction fn = NULL;
    int rc = kernel_on(kernel, dev, &fn);
    return rc ? rc : cuFuncGetAttribute(pi, attrib, fn);
}
CUresult cuKernelSetAttribute(CUfunction_attribute attrib, int val, CUkernel kernel, CUdevice dev) {
    CUfunction fn = NULL;
    int rc = kernel_on(kernel, dev, &fn);
    return rc ? rc : cuFuncSetAttribute(fn, attrib, val);
}
CUresult cuKernelSetCacheConfig(CUkernel kernel, CUfunc_cache config, CUdevice dev) {
    CUfunction fn = NULL;
    int rc = kernel_on(kernel, dev, &fn);
    return rc ? rc : cuFuncSetCacheConfig(fn, config);
}
CUresult cuKernelGetParamInfo(CUkernel kernel, size_t index, size_t *offset, size_t *size) {
    CUfunction fn = NULL;
    int rc = kernel_on(kernel, rgpu_current_device(), &fn);
    return rc ? rc : cuFuncGetParamInfo(fn, index, offset, size);
}

CUresult cuLibraryGetKernelCount(unsigned int *count, CUlibrary library) {
    CUmodule mod = NULL;
    int rc = cuLibraryGetModule(&mod, library);
    return rc ? rc : cuModuleGetFunctionCount(count, mod);
}
/* The module's functions on the current device, each as the library's record of its name. */
CUresult cuLibraryEnumerateKernels(CUkernel *kernels, unsigned int n, CUlibrary library) {
    CUmodule mod = NULL;
    int rc = cuLibraryGetModule(&mod, library);
    if (rc) return rc;
    if (!kernels) return rgpu_invalid_value(RGPU_DRIVER);
    CUfunction *fns = calloc(n ? n : 1, sizeof *fns);
    if (!fns) return rgpu_record(RGPU_DRIVER, RGPU_OUT_OF_MEMORY);
    rc = cuModuleEnumerateFunctions(fns, n, mod);
    for (unsigned i = 0; rc == 0 && i < n; i++) {
        const char *name = NULL;
        rc = cuFuncGetName(&name, fns[i]);
        if (rc == 0) rc = library_kernel(&kernels[i], as_library(library), name);
    }
    free(fns);
    return rc;
}
cudaError_t cudaLibraryGetKernelCount(unsigned int *count, cudaLibrary_t library) {
    return rgpu_record(RGPU_RUNTIME, cuLibraryGetKernelCount(count, (CUlibrary)library));
}
cudaError_t cudaLibraryEnumerateKernels(cudaKernel_t *kernels, unsigned int n, cudaLibrary_t library) {
    return rgpu_record(RGPU_RUNTIME, cuLibraryEnumerateKernels((CUkernel *)kernels, n, (CUlibrary)library));
}

CUresult cuLaunchKernelEx(const CUlaunchConfig *c, CUfunction f, void **params, void **extra) {
    if (!c) return rgpu_invalid_value(RGPU_DRIVER);
    const unsigned g[3] = {c->gridDimX, c->gridDimY, c->gridDimZ}, b[3] = {c->blockDimX, c->blockDimY, c->blockDimZ};
    unsigned cluster[4];
    if (wants_cooperative(c->attrs, c->numAttrs))
        return rgpu_driver_launch_cooperative_fn(f, g, b, c->sharedMemBytes, c->hStream, params, extra);
    if (rgpu_cluster_attrs(c->attrs, c->numAttrs, cluster))
        return rgpu_launch_cluster_fn(RGPU_DRIVER, f, g, b, c->sharedMemBytes, c->hStream, params, extra, cluster);
    return cuLaunchKernel(f, g[0], g[1], g[2], b[0], b[1], b[2], c->sharedMemBytes, c->hStream, params, extra);
}

/* ---- Runtime API libraries and extended launches ----------------------------------------- */

cudaError_t cudaLibraryLoadData(cudaLibrary_t *library, const void *code, enum cudaJitOption *jo, void **jv, unsigned int nj, enum cudaLibraryOption *lo, void **lv, unsigned int nl) {
    return rgpu_record(RGPU_RUNTIME, cuLibraryLoadData((CUlibrary *)library, code, (CUjit_option *)jo, jv, nj,
                                                       (CUlibraryOption *)lo, lv, nl));
}
cudaError_t cudaLibraryLoadFromFile(cudaLibrary_t *library, const char *file, enum cudaJitOption *jo, void **jv, unsigned int nj, enum cudaLibraryOption *lo, void **lv, unsigned int nl) {
    return rgpu_record(RGPU_RUNTIME, cuLibraryLoadFromFile((CUlibrary *)library, file, (CUjit_option *)jo, jv, nj,
                                                           (CUlibraryOption *)lo, lv, nl));
}
cudaError_t cudaLibraryUnload(cudaLibrary_t library) { return rgpu_record(RGPU_RUNTIME, cuLibraryUnload((CUlibrary)library)); }
cudaError_t cudaLibraryGetKernel(cudaKernel_t *kernel, cudaLibrary_t library, const char *name) {
    return rgpu_record(RGPU_RUNTIME, cuLibraryGetKernel((CUkernel *)kernel, (CUlibrary)library, name));
}
cudaError_t cudaLibraryGetGlobal(void **dptr, size_t *bytes, cudaLibrary_t library, const char *name) {
    CUdeviceptr d = 0;
    size_t b = 0;
    int rc = cuLibraryGetGlobal(&d, &b, (CUlibrary)library, name);
    if (rc == 0 && dptr) *dptr = (void *)(uintptr_t)d;
    if (rc == 0 && bytes) *bytes = b;
    return rgpu_record(RGPU_RUNTIME, rc);
}

cudaError_t cudaLibraryGetManaged(void **dptr, size_t *bytes, cudaLibrary_t library, const char *name) {
    CUdeviceptr d = 0;
    size_t b = 0;
    int rc = cuLibraryGetManaged(&d, &b, (CUlibrary)library, name);
    if (rc == 0 && dptr) *dptr = (void *)(uintptr_t)d;
    if (rc == 0 && bytes) *bytes = b;
    return rgpu_record(RGPU_RUNTIME, rc);
}

cudaError_t cudaLaunchKernelExC(const cudaLaunchConfig_t *c, const void *func, void **args) {
    if (!c) return rgpu_invalid_value(RGPU_RUNTIME);
    unsigned g[3] = {c->gridDim.x, c->gridDim.y, c->gridDim.z}, b[3] = {c->blockDim.x, c->blockDim.y, c->blockDim.z};
    unsigned cluster[4];
    if (wants_cooperative((const CUlaunchAttribute *)c->attrs, c->numAttrs))
        return rgpu_runtime_launch_cooperative_fn(func, g, b, args, c->dynamicSmemBytes, c->stream);
    if (rgpu_cluster_attrs(c->attrs, c->numAttrs, cluster))
        return rgpu_launch_cluster_fn(RGPU_RUNTIME, (void *)func, g, b, c->dynamicSmemBytes, c->stream, args, NULL,
                                      cluster);
    return rgpu_runtime_launch_fn(func, g, b, args, c->dynamicSmemBytes, c->stream);
}

cudaError_t cudaFuncGetParamInfo(const void *func, size_t index, size_t *offset, size_t *size) {
    rgpu_kernel *k = rgpu_find_kernel(func);
    void *fn = (void *)func;
    int rc;
    if (k && (rc = rgpu_kernel_on(RGPU_RUNTIME, k, rgpu_current_device(), &fn))) return rc;
    size_t o = 0, s = 0;
    rc = cuFuncGetParamInfo(fn, index, &o, &s);
    if (rc == 0 && offset) *offset = o;
    if (rc == 0 && size) *size = s;
    return rgpu_record(RGPU_RUNTIME, rc);
}

/* ---- PTX linking ------------------------------------------------------------------------- *
 * cuLinkComplete hands back rgpu's link image: a header that says its size (registry.h), then fatbin
 * containers back to back, one per input. The server links them: the software GPU like the units of
 * an -rdc program (a definition in one satisfies an extern in another), the cuda backend through the
 * driver's own cuLink*. */

#define CONTAINER_MAGIC 0xba55ed50u
#define JIT_INPUT_CUBIN CU_JIT_INPUT_CUBIN
#define JIT_INPUT_PTX CU_JIT_INPUT_PTX
#define JIT_INPUT_FATBINARY CU_JIT_INPUT_FATBINARY
#define JIT_INPUT_OBJECT CU_JIT_INPUT_OBJECT
#define JIT_INPUT_LIBRARY CU_JIT_INPUT_LIBRARY
/* rgpu's own entry kinds in a link image, for inputs the server hands to the driver as they came (a
 * host object with device code inside, an archive of them: libcudadevrt.a): 0x100 | the input type
 * (server/backends/sim/fatbin.py). Beside PTX (1) and cubins (2), which fatbins hold too. */
#define ENTRY_AS_GIVEN 0x100

/* A link state is the struct CUlinkState points to (rgpu defines what CUDA leaves opaque).
 * max_regs: CU_JIT_MAX_REGISTERS given to cuLinkCreate (0: none). */
typedef struct CUlinkState_st { uint8_t *buf; size_t len, cap; unsigned max_regs; } rgpu_link;

/* CU_JIT_MAX_REGISTERS among JIT options (its value travels in the pointer itself), else `dflt`. */
static unsigned max_registers(unsigned n, const CUjit_option *options, void **values, unsigned dflt) {
    for (unsigned i = 0; options && values && i < n; i++)
        if (options[i] == CU_JIT_MAX_REGISTERS) return (unsigned)(uintptr_t)values[i];
    return dflt;
}

/* PTX text with `.maxnreg N` before the body of every .entry that names no .maxnreg itself: the
 * linker's register limit (numba's max_registers, nvcc's -maxrregcount) said where both backends read
 * it, the software GPU to report and keep to it, a GPU's JIT through the driver's own link. Malloc'd. */
static char *ptx_with_maxnreg(const char *ptx, size_t len, unsigned max_regs, size_t *out_len) {
    size_t cap = len + 64, n = 0;
    char *out = malloc(cap);
    const char *p = ptx, *end = ptx + len;
    while (out) {
        const char *e = p < end ? strstr(p, ".entry") : NULL;
        const char *body = e ? memchr(e, '{', (size_t)(end - e)) : NULL;
        const char *upto = body ? body : end;
        char directive[32] = "";
        if (body) {
            char *head = strndup(e, (size_t)(body - e));
            if (head && !strstr(head, ".maxnreg")) snprintf(directive, sizeof directive, ".maxnreg %u\n", max_regs);
            free(head);
        }
        size_t need = n + (size_t)(upto - p) + strlen(directive) + 2;
        if (need > cap) {
            char *grown = realloc(out, cap = need * 2);
            if (!grown) { free(out); return NULL; }
            out = grown;
        }
        memcpy(out + n, p, (size_t)(upto - p));
        n += (size_t)(upto - p);
        memcpy(out + n, directive, strlen(directive));
        n += strlen(directive);
        if (!body) break;
        out[n++] = '{';
        p = body + 1;
    }
    if (out) out[n] = 0;
    *out_len = n;
    return out;
}

static void link_put(rgpu_link *l, const void *p, size_t n) {
    if (l->len + n + 8 > l->cap) {
        l->cap = (l->len + n + 8) * 2;
        l->buf = realloc(l->buf, l->cap);
    }
    memcpy(l->buf + l->len, p, n);
    l->len += n;
    memset(l->buf + l->len, 0, 8); /* the size scan may look one magic past the end */
}

/* The SM a cubin is for, from its ELF header's e_flags: bits 0-7 before ELF ABI version 7, 8-15 since. */
static unsigned elf_arch(const uint8_t *elf, size_t n) {
    if (n < 0x34) return 0;
    uint32_t flags;
    memcpy(&flags, elf + 0x30, 4);
    return elf[8] >= 7 || (flags & 0xff) == 0 ? (flags >> 8) & 0xff : flags & 0xff;
}

static void link_entry(rgpu_link *l, int kind, const void *data, size_t n) {
    unsigned arch = 0;
    const char *t = kind == 1 ? strstr((const char *)data, ".target") : NULL;
    if (t) sscanf(t, ".target sm_%u", &arch);
    if (kind == 2) arch = elf_arch(data, n);
    size_t padded = (n + 7) & ~(size_t)7;
    uint8_t hdr[16 + 64] = {0};
    uint32_t magic = CONTAINER_MAGIC, ehsize = 64;
    uint16_t version = 1, hsize = 16, ekind = (uint16_t)kind, ever = 0x0101;
    uint64_t fsize = 64 + padded, psize = padded;
    memcpy(hdr, &magic, 4); memcpy(hdr + 4, &version, 2); memcpy(hdr + 6, &hsize, 2); memcpy(hdr + 8, &fsize, 8);
    uint8_t *e = hdr + 16; /* kind, version, header size, payload size, ..., arch */
    uint64_t exact = n; /* the size before padding: an archive must not end in stray zeros */
    memcpy(e, &ekind, 2); memcpy(e + 2, &ever, 2); memcpy(e + 4, &ehsize, 4); memcpy(e + 8, &psize, 8);
    memcpy(e + 28, &arch, 4); memcpy(e + 56, &exact, 8);
    link_put(l, hdr, sizeof hdr);
    link_put(l, data, n);
    static const uint8_t zeros[8] = {0};
    link_put(l, zeros, padded - n);
}

CUresult cuLinkCreate_v2(unsigned int n, CUjit_option *options, void **values, CUlinkState *state) {
    if (!state) return rgpu_invalid_value(RGPU_DRIVER);
    rgpu_link *l = calloc(1, sizeof(rgpu_link));
    if (!l) return rgpu_record(RGPU_DRIVER, RGPU_OUT_OF_MEMORY);
    l->max_regs = max_registers(n, options, values, 0);
    uint8_t header[RGPU_LINK_HEADER] = RGPU_LINK_MAGIC; /* the size is written at cuLinkComplete */
    link_put(l, header, sizeof header);
    *state = l;
    return RGPU_SUCCESS;
}

CUresult cuLinkAddData_v2(CUlinkState state, CUjitInputType type, void *data, size_t size, const char *name, unsigned int n, CUjit_option *o, void **v) {
    (void)name;
    rgpu_link *l = state;
    if (!l || !data) return rgpu_invalid_value(RGPU_DRIVER);
    if (type == JIT_INPUT_PTX) {
        size_t len = strnlen(data, size ? size : (size_t)-1);
        unsigned max_regs = max_registers(n, o, v, l->max_regs);
        size_t with_len = 0;
        char *with = max_regs ? ptx_with_maxnreg(data, len, max_regs, &with_len) : NULL;
        if (max_regs && !with) return rgpu_record(RGPU_DRIVER, RGPU_OUT_OF_MEMORY);
        link_entry(l, 1, with ? with : data, (with ? with_len : len) + 1);
        free(with);
    } else if (type == JIT_INPUT_CUBIN) {
        link_entry(l, 2, data, size);
    } else if (type == JIT_INPUT_OBJECT || type == JIT_INPUT_LIBRARY) {
        if (!size) return rgpu_invalid_value(RGPU_DRIVER);
        link_entry(l, ENTRY_AS_GIVEN | type, data, size);
    } else if (type == JIT_INPUT_FATBINARY) {
        link_put(l, data, rgpu_image_size(data));
    } else {
        return rgpu_record(RGPU_DRIVER, RGPU_NOT_SUPPORTED); /* NVVM IR: nvJitLink's, not the driver's */
    }
    return RGPU_SUCCESS;
}

CUresult cuLinkAddFile_v2(CUlinkState state, CUjitInputType type, const char *path, unsigned int n, CUjit_option *o, void **v) {
    size_t got = 0;
    char *buf = path ? rgpu_read_file(path, &got) : NULL;
    if (!buf) return rgpu_record(RGPU_DRIVER, CUDA_ERROR_FILE_NOT_FOUND);
    int rc = cuLinkAddData_v2(state, type, buf, got, path, n, o, v);
    free(buf);
    return rc;
}

CUresult cuLinkComplete(CUlinkState state, void **out, size_t *size) {
    rgpu_link *l = state;
    if (!l || !out || !size || l->len <= RGPU_LINK_HEADER) return rgpu_invalid_value(RGPU_DRIVER);
    uint64_t total = l->len;
    memcpy(l->buf + 8, &total, 8);
    *out = l->buf;
    *size = l->len;
    return RGPU_SUCCESS;
}

CUresult cuLinkDestroy(CUlinkState state) {
    rgpu_link *l = state;
    if (!l) return rgpu_invalid_value(RGPU_DRIVER);
    free(l->buf);
    free(l);
    return RGPU_SUCCESS;
}

#define INVALID_DEVICE_FUNCTION cudaErrorInvalidDeviceFunction

/* ---- names of kernels -------------------------------------------------------------------- *
 * The driver hands out a name the caller does not free: the client keeps one copy per function. */

#define NAME_SLOTS 256
static struct { const void *fn; char *name; } names[NAME_SLOTS];
static pthread_mutex_t names_mu = PTHREAD_MUTEX_INITIALIZER;

static int function_name(int face, void *fn, const char **out) {
    size_t h = ((uintptr_t)fn >> 3) % NAME_SLOTS, free_slot = NAME_SLOTS;
    pthread_mutex_lock(&names_mu);
    for (size_t i = 0; i < NAME_SLOTS; i++) {
        size_t j = (h + i) % NAME_SLOTS;
        if (names[j].fn == fn) { *out = names[j].name; pthread_mutex_unlock(&names_mu); return RGPU_SUCCESS; }
        if (!names[j].fn) { free_slot = j; break; }
    }
    pthread_mutex_unlock(&names_mu);
    rgpu_call c;
    rgpu_wire_cuFuncGetName(&c, fn);
    c.face = face;
    int rc = rgpu_sync(&c);
    char buf[1024] = {0};
    if (rc == 0) rgpu_wire_out_cuFuncGetName(&c, buf, sizeof buf - 1);
    rgpu_end(&c);
    if (rc) return rc;
    char *copy = strdup(buf);
    if (!copy) return rgpu_record(face, RGPU_OUT_OF_MEMORY);
    pthread_mutex_lock(&names_mu);
    if (free_slot < NAME_SLOTS && !names[free_slot].fn) {
        names[free_slot].fn = fn;
        names[free_slot].name = copy;
    } else { /* the table is full (or the slot was just taken): valid until this thread asks again */
        static __thread char *last;
        free(last);
        last = copy;
    }
    pthread_mutex_unlock(&names_mu);
    *out = copy;
    return RGPU_SUCCESS;
}

CUresult cuFuncGetName(const char **name, CUfunction hfunc) {
    if (!name || !hfunc) return rgpu_invalid_value(RGPU_DRIVER);
    return function_name(RGPU_DRIVER, hfunc, name);
}
CUresult cuKernelGetName(const char **name, CUkernel kernel) {
    rgpu_kernel *k = rgpu_find_kernel(kernel);
    if (k && name) {
        *name = k->name;
        return RGPU_SUCCESS;
    }
    return cuFuncGetName(name, AS_FUNCTION(kernel));
}

/* A host stub names its kernel itself; a cudaKernel_t is a session's function handle here. */
cudaError_t cudaFuncGetName(const char **name, const void *func) {
    if (!name || !func) return rgpu_invalid_value(RGPU_RUNTIME);
    rgpu_kernel *k = rgpu_find_kernel(func);
    if (k) { *name = k->name; return RGPU_SUCCESS; }
    int dev = -1;
    rgpu_untag_handle(func, &dev);
    if (dev < 0) return rgpu_record(RGPU_RUNTIME, INVALID_DEVICE_FUNCTION);
    return rgpu_record(RGPU_RUNTIME, function_name(RGPU_RUNTIME, (void *)func, name));
}

/* cudaGetKernel: the kernel of a host stub on the current device (a cudaKernel_t is a function
 * handle of that device's session here, which cudaLaunchKernel and the cudaFunc* calls accept). */
cudaError_t cudaGetKernel(cudaKernel_t *kernel, const void *entry) {
    if (!kernel || !entry) return rgpu_invalid_value(RGPU_RUNTIME);
    int rc = rgpu_ensure_init();
    if (rc) return rgpu_record(RGPU_RUNTIME, rc);
    rgpu_kernel *k = rgpu_find_kernel(entry);
    if (!k) return rgpu_record(RGPU_RUNTIME, INVALID_DEVICE_FUNCTION);
    return rgpu_kernel_on(RGPU_RUNTIME, k, rgpu_current_device(), (void **)kernel);
}
