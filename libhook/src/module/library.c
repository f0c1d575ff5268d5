/* Context-independent loading (the cuLibrary and cudaLibrary families, CUDA 12+), extended launches, and PTX
 * linking (cuLink*). A library is a module of the current device's session and its kernels are
 * that module's functions, so every module path (caching, layouts, launches) serves them too. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "registry.h"
#include "rgpu_call.h"
#include "rgpu_ids.h"

extern int cuModuleLoadData(void **module, const void *image);
extern int cuModuleLoad(void **module, const char *fname);
extern int cuModuleUnload(void *hmod);
extern int cuModuleGetFunction(void **hfunc, void *hmod, const char *name);
extern int cuModuleGetGlobal_v2(uint64_t *dptr, uint64_t *bytes, void *hmod, const char *name);
extern int cuFuncGetAttribute(int32_t *pi, int attrib, void *hfunc);
extern int cuFuncSetAttribute(void *hfunc, int attrib, int32_t value);
extern int cuFuncGetParamInfo(void *func, uint64_t index, uint64_t *offset, uint64_t *size);
extern int cuLaunchKernel(void *f, unsigned gx, unsigned gy, unsigned gz, unsigned bx, unsigned by, unsigned bz,
                          unsigned shmem, void *stream, void **params, void **extra);
extern int rgpu_runtime_launch_fn(const void *func, unsigned g[3], unsigned b[3], void **args, size_t shmem,
                                  void *stream);
extern int rgpu_runtime_launch_cooperative_fn(const void *func, unsigned g[3], unsigned b[3], void **args, size_t shmem,
                                              void *stream);
extern int rgpu_driver_launch_cooperative_fn(void *f, const unsigned g3[3], const unsigned b3[3], unsigned shmem,
                                             void *stream, void **params, void **extra);

/* CUlaunchAttribute and cudaLaunchAttribute alike: an id, padding to 8 bytes, then a 64-byte value
 * union whose first int is the cooperative flag (72 bytes in CUDA 12 and 13). Cooperative is the one
 * attribute that changes what a launch means; the others (clusters, priorities, ...) change no
 * result on the software GPU. */
enum { LAUNCH_ATTRIBUTE_SIZE = 72, LAUNCH_ATTRIBUTE_VALUE = 8, LAUNCH_ATTRIBUTE_COOPERATIVE = 2 };

static int wants_cooperative(const void *attrs, unsigned n) {
    const unsigned char *a = attrs;
    for (unsigned i = 0; a && i < n; i++, a += LAUNCH_ATTRIBUTE_SIZE) {
        int id, value;
        memcpy(&id, a, sizeof id);
        memcpy(&value, a + LAUNCH_ATTRIBUTE_VALUE, sizeof value);
        if (id == LAUNCH_ATTRIBUTE_COOPERATIVE && value) return 1;
    }
    return 0;
}

/* ---- Driver API libraries and kernels ---------------------------------------------------- */

int cuLibraryLoadData(void **library, const void *code, void *jo, void **jv, unsigned nj, void *lo, void **lv,
                      unsigned nl) {
    (void)jo; (void)jv; (void)nj; (void)lo; (void)lv; (void)nl;
    return cuModuleLoadData(library, code);
}
int cuLibraryLoadFromFile(void **library, const char *file, void *jo, void **jv, unsigned nj, void *lo, void **lv,
                          unsigned nl) {
    (void)jo; (void)jv; (void)nj; (void)lo; (void)lv; (void)nl;
    return cuModuleLoad(library, file);
}
int cuLibraryUnload(void *library) { return cuModuleUnload(library); }
int cuLibraryGetKernel(void **kernel, void *library, const char *name) { return cuModuleGetFunction(kernel, library, name); }
int cuLibraryGetModule(void **module, void *library) {
    if (!module || !library) return rgpu_invalid_value(RGPU_DRIVER);
    *module = library;
    return RGPU_SUCCESS;
}
int cuKernelGetFunction(void **func, void *kernel) {
    if (!func || !kernel) return rgpu_invalid_value(RGPU_DRIVER);
    *func = kernel;
    return RGPU_SUCCESS;
}
int cuLibraryGetGlobal(uint64_t *dptr, uint64_t *bytes, void *library, const char *name) {
    uint64_t d = 0, b = 0;
    int rc = cuModuleGetGlobal_v2(&d, &b, library, name);
    if (rc == 0 && dptr) *dptr = d;
    if (rc == 0 && bytes) *bytes = b;
    return rc;
}
int cuKernelGetAttribute(int32_t *pi, int attrib, void *kernel, int dev) { (void)dev; return cuFuncGetAttribute(pi, attrib, kernel); }
int cuKernelSetAttribute(int attrib, int32_t val, void *kernel, int dev) { (void)dev; return cuFuncSetAttribute(kernel, attrib, val); }
int cuKernelGetParamInfo(void *kernel, uint64_t index, uint64_t *offset, uint64_t *size) {
    return cuFuncGetParamInfo(kernel, index, offset, size);
}

extern int cuModuleGetFunctionCount(unsigned *count, void *mod);

int cuModuleEnumerateFunctions(void **functions, unsigned n, void *mod) {
    if (!functions || !mod) return rgpu_invalid_value(RGPU_DRIVER);
    rgpu_call c;
    rgpu_begin(&c, RGPU_ID_cuModuleEnumerateFunctions, "cuModuleEnumerateFunctions", RGPU_DRIVER);
    rgpu_put_u(&c, n);
    rgpu_put_h(&c, mod);
    int rc = rgpu_sync(&c);
    for (unsigned i = 0; rc == 0 && i < n; i++) functions[i] = rgpu_out_h(&c);
    rgpu_end(&c);
    return rc;
}
int cuLibraryGetKernelCount(unsigned *count, void *library) { return cuModuleGetFunctionCount(count, library); }
int cuLibraryEnumerateKernels(void **kernels, unsigned n, void *library) {
    return cuModuleEnumerateFunctions(kernels, n, library);
}
int cudaLibraryGetKernelCount(unsigned *count, void *library) {
    return rgpu_record(RGPU_RUNTIME, cuLibraryGetKernelCount(count, library));
}
int cudaLibraryEnumerateKernels(void **kernels, unsigned n, void *library) {
    return rgpu_record(RGPU_RUNTIME, cuLibraryEnumerateKernels(kernels, n, library));
}

/* CUlaunchConfig: grid and block dims, shared bytes, stream, then attributes. */
typedef struct { unsigned g[3], b[3], shmem; void *stream; void *attrs; unsigned nattrs; } cu_launch_config;

int cuLaunchKernelEx(const cu_launch_config *c, void *f, void **params, void **extra) {
    if (!c) return rgpu_invalid_value(RGPU_DRIVER);
    if (wants_cooperative(c->attrs, c->nattrs))
        return rgpu_driver_launch_cooperative_fn(f, c->g, c->b, c->shmem, c->stream, params, extra);
    return cuLaunchKernel(f, c->g[0], c->g[1], c->g[2], c->b[0], c->b[1], c->b[2], c->shmem, c->stream, params, extra);
}

/* ---- Runtime API libraries and extended launches ----------------------------------------- */

int cudaLibraryLoadData(void **library, const void *code, void *jo, void **jv, unsigned nj, void *lo, void **lv,
                        unsigned nl) {
    return rgpu_record(RGPU_RUNTIME, cuLibraryLoadData(library, code, jo, jv, nj, lo, lv, nl));
}
int cudaLibraryLoadFromFile(void **library, const char *file, void *jo, void **jv, unsigned nj, void *lo, void **lv,
                            unsigned nl) {
    return rgpu_record(RGPU_RUNTIME, cuLibraryLoadFromFile(library, file, jo, jv, nj, lo, lv, nl));
}
int cudaLibraryUnload(void *library) { return rgpu_record(RGPU_RUNTIME, cuModuleUnload(library)); }
int cudaLibraryGetKernel(void **kernel, void *library, const char *name) {
    return rgpu_record(RGPU_RUNTIME, cuModuleGetFunction(kernel, library, name));
}
int cudaLibraryGetGlobal(void **dptr, size_t *bytes, void *library, const char *name) {
    uint64_t d = 0, b = 0;
    int rc = cuModuleGetGlobal_v2(&d, &b, library, name);
    if (rc == 0 && dptr) *dptr = (void *)(uintptr_t)d;
    if (rc == 0 && bytes) *bytes = b;
    return rgpu_record(RGPU_RUNTIME, rc);
}

/* cudaLaunchConfig_t: dim3 grid, dim3 block, size_t dynamic shared bytes, stream, attributes. */
typedef struct { unsigned g[3], b[3]; size_t shmem; void *stream; void *attrs; unsigned nattrs; } cuda_launch_config;

int cudaLaunchKernelExC(const cuda_launch_config *c, const void *func, void **args) {
    if (!c) return rgpu_invalid_value(RGPU_RUNTIME);
    if (wants_cooperative(c->attrs, c->nattrs))
        return rgpu_runtime_launch_cooperative_fn(func, (unsigned *)c->g, (unsigned *)c->b, args, c->shmem, c->stream);
    return rgpu_runtime_launch_fn(func, (unsigned *)c->g, (unsigned *)c->b, args, c->shmem, c->stream);
}

int cudaFuncGetParamInfo(const void *func, size_t index, size_t *offset, size_t *size) {
    rgpu_kernel *k = rgpu_find_kernel(func);
    void *fn = (void *)func;
    int rc;
    if (k && (rc = rgpu_kernel_on(RGPU_RUNTIME, k, rgpu_current_device(), &fn))) return rc;
    uint64_t o = 0, s = 0;
    rc = cuFuncGetParamInfo(fn, index, &o, &s);
    if (rc == 0 && offset) *offset = o;
    if (rc == 0 && size) *size = s;
    return rgpu_record(RGPU_RUNTIME, rc);
}

/* ---- PTX linking ------------------------------------------------------------------------- *
 * cuLinkComplete hands back fatbin containers back to back, one per input, which the server's
 * loader links like the units of an -rdc program (a definition in one satisfies an extern in another). */

#define CONTAINER_MAGIC 0xba55ed50u
enum { JIT_INPUT_CUBIN = 0, JIT_INPUT_PTX = 1, JIT_INPUT_FATBINARY = 2, JIT_INPUT_OBJECT = 3 };

typedef struct { uint8_t *buf; size_t len, cap; } rgpu_link;

static void link_put(rgpu_link *l, const void *p, size_t n) {
    if (l->len + n + 8 > l->cap) {
        l->cap = (l->len + n + 8) * 2;
        l->buf = realloc(l->buf, l->cap);
    }
    memcpy(l->buf + l->len, p, n);
    l->len += n;
    memset(l->buf + l->len, 0, 8); /* the size scan may look one magic past the end */
}

static void link_entry(rgpu_link *l, int kind, const void *data, size_t n) {
    unsigned arch = 0;
    const char *t = kind == 1 ? strstr((const char *)data, ".target") : NULL;
    if (t) sscanf(t, ".target sm_%u", &arch);
    size_t padded = (n + 7) & ~(size_t)7;
    uint8_t hdr[16 + 64] = {0};
    uint32_t magic = CONTAINER_MAGIC, ehsize = 64;
    uint16_t version = 1, hsize = 16, ekind = (uint16_t)kind, ever = 0x0101;
    uint64_t fsize = 64 + padded, psize = padded;
    memcpy(hdr, &magic, 4); memcpy(hdr + 4, &version, 2); memcpy(hdr + 6, &hsize, 2); memcpy(hdr + 8, &fsize, 8);
    uint8_t *e = hdr + 16; /* kind, version, header size, payload size, ..., arch */
    memcpy(e, &ekind, 2); memcpy(e + 2, &ever, 2); memcpy(e + 4, &ehsize, 4); memcpy(e + 8, &psize, 8);
    memcpy(e + 28, &arch, 4);
    link_put(l, hdr, sizeof hdr);
    link_put(l, data, n);
    static const uint8_t zeros[8] = {0};
    link_put(l, zeros, padded - n);
}

int cuLinkCreate_v2(unsigned n, void *options, void **values, void **state) {
    (void)n; (void)options; (void)values;
    if (!state) return rgpu_invalid_value(RGPU_DRIVER);
    *state = calloc(1, sizeof(rgpu_link));
    return RGPU_SUCCESS;
}

int cuLinkAddData_v2(void *state, int type, void *data, size_t size, const char *name, unsigned n, void *o, void **v) {
    (void)name; (void)n; (void)o; (void)v;
    rgpu_link *l = state;
    if (!l || !data) return rgpu_invalid_value(RGPU_DRIVER);
    if (type == JIT_INPUT_PTX) {
        size_t len = strnlen(data, size ? size : (size_t)-1);
        link_entry(l, 1, data, len + 1);
    } else if (type == JIT_INPUT_CUBIN || type == JIT_INPUT_OBJECT) {
        link_entry(l, 2, data, size);
    } else if (type == JIT_INPUT_FATBINARY) {
        link_put(l, data, rgpu_image_size(data));
    } else {
        return rgpu_record(RGPU_DRIVER, RGPU_NOT_SUPPORTED); /* libraries (.a) and NVVM IR */
    }
    return RGPU_SUCCESS;
}

int cuLinkAddFile_v2(void *state, int type, const char *path, unsigned n, void *o, void **v) {
    size_t got = 0;
    char *buf = path ? rgpu_read_file(path, &got) : NULL;
    if (!buf) return rgpu_record(RGPU_DRIVER, 301 /* CUDA_ERROR_FILE_NOT_FOUND */);
    int rc = cuLinkAddData_v2(state, type, buf, got, path, n, o, v);
    free(buf);
    return rc;
}

/* The images cuLinkComplete handed out and not yet destroyed: the only place where containers back to
 * back are one image (elsewhere adjacent containers belong to other modules, as in a library's
 * .nv_fatbin section). */
static pthread_mutex_t links_mu = PTHREAD_MUTEX_INITIALIZER;
static rgpu_link *links[64];

int cuLinkComplete(void *state, void **out, size_t *size) {
    rgpu_link *l = state;
    if (!l || !out || !size || !l->len) return rgpu_invalid_value(RGPU_DRIVER);
    pthread_mutex_lock(&links_mu);
    for (int i = 0; i < 64; i++)
        if (!links[i] || links[i] == l) {
            links[i] = l;
            break;
        }
    pthread_mutex_unlock(&links_mu);
    *out = l->buf;
    *size = l->len;
    return RGPU_SUCCESS;
}

size_t rgpu_link_output_size(const void *image) {
    size_t n = 0;
    pthread_mutex_lock(&links_mu);
    for (int i = 0; i < 64 && !n; i++)
        if (links[i] && links[i]->buf == image) n = links[i]->len;
    pthread_mutex_unlock(&links_mu);
    return n;
}

int cuLinkDestroy(void *state) {
    rgpu_link *l = state;
    if (!l) return rgpu_invalid_value(RGPU_DRIVER);
    pthread_mutex_lock(&links_mu);
    for (int i = 0; i < 64; i++)
        if (links[i] == l) links[i] = NULL;
    pthread_mutex_unlock(&links_mu);
    free(l->buf);
    free(l);
    return RGPU_SUCCESS;
}

#define INVALID_DEVICE_FUNCTION 98 /* cudaErrorInvalidDeviceFunction */

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
    rgpu_begin(&c, RGPU_ID_cuFuncGetName, "cuFuncGetName", face);
    rgpu_put_h(&c, fn);
    int rc = rgpu_sync(&c);
    char buf[1024] = {0};
    if (rc == 0) rgpu_out_b(&c, buf, sizeof buf - 1);
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

int cuFuncGetName(const char **name, void *hfunc) {
    if (!name || !hfunc) return rgpu_invalid_value(RGPU_DRIVER);
    return function_name(RGPU_DRIVER, hfunc, name);
}
int cuKernelGetName(const char **name, void *kernel) { return cuFuncGetName(name, kernel); }

/* A host stub names its kernel itself; a cudaKernel_t is a session's function handle here. */
int cudaFuncGetName(const char **name, const void *func) {
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
int cudaGetKernel(void **kernel, const void *entry) {
    if (!kernel || !entry) return rgpu_invalid_value(RGPU_RUNTIME);
    int rc = rgpu_ensure_init();
    if (rc) return rgpu_record(RGPU_RUNTIME, rc);
    rgpu_kernel *k = rgpu_find_kernel(entry);
    if (!k) return rgpu_record(RGPU_RUNTIME, INVALID_DEVICE_FUNCTION);
    return rgpu_kernel_on(RGPU_RUNTIME, k, rgpu_current_device(), kernel);
}
