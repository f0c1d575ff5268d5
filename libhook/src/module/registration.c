/* What nvcc's host code calls at load time: __cudaRegisterFatBinary and friends. Registration
 * never talks to a server: modules are uploaded to a session the first time one of their kernels
 * or variables is used on that device (see launch.c). */
#include <pthread.h>
#include <stdio.h>
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

/* Every launch looks its kernel up by host stub (or by the record __cudaGetKernel handed out), so
 * lookups go through a pointer-keyed hash table rather than a scan of every registered kernel. */
typedef struct { const void *key; void *rec; int kind; } index_slot;
enum { KIND_KERNEL = 1, KIND_VAR = 2 };
static index_slot *index_tab;
static size_t index_cap, index_n;

static size_t slot_of(const void *key, size_t cap) {
    uint64_t h = (uint64_t)(uintptr_t)key * 0x9e3779b97f4a7c15ull;
    return (size_t)(h >> 20) & (cap - 1);
}

static void index_put(const void *key, void *rec, int kind); /* callers hold mu */

static void index_grow(void) {
    index_slot *old = index_tab;
    size_t old_cap = index_cap;
    index_cap = index_cap ? index_cap * 2 : 256;
    index_tab = calloc(index_cap, sizeof *index_tab);
    index_n = 0;
    for (size_t i = 0; i < old_cap; i++)
        if (old[i].key) index_put(old[i].key, old[i].rec, old[i].kind);
    free(old);
}

static void index_put(const void *key, void *rec, int kind) {
    if (2 * (index_n + 1) > index_cap) index_grow();
    size_t i = slot_of(key, index_cap);
    while (index_tab[i].key && index_tab[i].key != key) i = (i + 1) & (index_cap - 1);
    if (!index_tab[i].key) index_n++;
    index_tab[i] = (index_slot){key, rec, kind};
}

static void *index_get(const void *key, int kind) {
    void *rec = NULL;
    pthread_mutex_lock(&mu);
    if (index_cap && key) {
        for (size_t i = slot_of(key, index_cap); index_tab[i].key; i = (i + 1) & (index_cap - 1))
            if (index_tab[i].key == key) {
                rec = index_tab[i].kind == kind ? index_tab[i].rec : NULL;
                break;
            }
    }
    pthread_mutex_unlock(&mu);
    return rec;
}

/* Containers back to back, 8-byte aligned, from `p`: the per-unit containers of an -rdc program. */
static size_t containers_size(const uint8_t *p) {
    size_t size = 0;
    uint32_t magic = CONTAINER_MAGIC;
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

/* The size of an image: a fatbin container (header + entries), the containers of a version-2 wrapper
 * (-rdc) or of cuLinkComplete's output, an ELF cubin, or a NUL-terminated PTX text. One container
 * otherwise: in a library the next container is another module's (libcublas has 193 back to back). */
size_t rgpu_image_size(const void *image) {
    const uint8_t *p = image;
    uint32_t magic;
    memcpy(&magic, p, 4);
    if (magic == WRAPPER_MAGIC) {
        const fatbin_wrapper *w = image;
        const uint8_t *d = w->data;
        if (w->version >= 2) return containers_size(d);
        uint16_t hsize;
        uint64_t fsize;
        memcpy(&hsize, d + 6, 2);
        memcpy(&fsize, d + 8, 8);
        return hsize + fsize;
    }
    if (memcmp(p, RGPU_LINK_MAGIC, sizeof RGPU_LINK_MAGIC) == 0) {
        uint64_t size;
        memcpy(&size, p + 8, 8);
        return size;
    }
    if (magic == CONTAINER_MAGIC) {
        uint16_t hsize;
        uint64_t fsize;
        memcpy(&hsize, p + 6, 2);
        memcpy(&fsize, p + 8, 8);
        return hsize + fsize;
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

char *rgpu_read_file(const char *path, size_t *len) {
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *buf = n >= 0 ? malloc((size_t)n + 1) : NULL;
    size_t got = buf ? fread(buf, 1, (size_t)n, f) : 0;
    fclose(f);
    if (buf) buf[got] = 0;
    *len = got;
    return buf;
}

void **__cudaRegisterFatBinary(void *fatCubin) {
    fatbin_wrapper *w = fatCubin;
    rgpu_module *m = calloc(1, sizeof *m);
    void **handle = calloc(1, sizeof(void *));
    *handle = m;
    m->handle = handle;
    if (w && (unsigned)w->magic == WRAPPER_MAGIC) {
        m->image = w->data;
        m->size = rgpu_image_size(w);
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
    index_put(hostFun, k, KIND_KERNEL);
    index_put(k, k, KIND_KERNEL);
    pthread_mutex_unlock(&mu);
}

static void register_var(void **handle, const void *key, const char *name, size_t size, int managed) {
    rgpu_var *v = calloc(1, sizeof *v);
    v->host_var = key;
    v->name = name;
    v->size = size;
    v->module = *handle;
    v->managed = managed;
    pthread_mutex_lock(&mu);
    if (nvars == capv) {
        capv = capv ? capv * 2 : 32;
        vars = realloc(vars, capv * sizeof *vars);
    }
    vars[nvars++] = v;
    index_put(key, v, KIND_VAR);
    pthread_mutex_unlock(&mu);
}

void __cudaRegisterVar(void **handle, char *hostVar, char *deviceAddress, const char *deviceName,
                       int ext, size_t size, int constant, int global) {
    (void)deviceAddress; (void)ext; (void)constant; (void)global;
    register_var(handle, hostVar, deviceName, size, 0);
}

/* A __managed__ variable: nvcc's host code reads and writes it through the pointer at
 * hostVarPtrAddress, after calling __cudaInitModule for its module (once per translation unit). */
void __cudaRegisterManagedVar(void **handle, void **hostVarPtrAddress, char *deviceAddress,
                              const char *deviceName, int ext, size_t size, int constant, int global) {
    (void)deviceAddress; (void)ext; (void)constant; (void)global;
    register_var(handle, hostVarPtrAddress, deviceName, size, 1);
}

/* The module's managed variables, made reachable from host code: the module loaded on the current
 * device, each variable's device address mapped here (managed.c) and stored where host code reads it.
 * Returns 1 once every one is, else 0 (host code calls again at its next access). */
char __cudaInitModule(void **handle) {
    rgpu_module *m = handle ? *handle : NULL;
    if (!m || rgpu_ensure_init()) return 0;
    int dev = rgpu_current_device(), ok = 1;
    pthread_mutex_lock(&mu);
    size_t n = nvars;
    pthread_mutex_unlock(&mu);
    for (size_t i = 0; i < n; i++) {
        pthread_mutex_lock(&mu);
        rgpu_var *v = vars[i];
        pthread_mutex_unlock(&mu);
        if (v->module != m || !v->managed || v->bound) continue;
        void *mod = NULL;
        CUdeviceptr addr = 0;
        size_t size = 0;
        int rc = rgpu_module_on(RGPU_RUNTIME, m, dev, &mod);
        if (!rc) rc = cuModuleGetGlobal_v2(&addr, &size, mod, v->name);
        if (!rc) rc = rgpu_managed_adopt(dev, addr, size);
        if (rc) {
            rgpu_log(RGPU_LOG_ERROR, "managed variable %s: cannot make it reachable from the host (%d)", v->name, rc);
            ok = 0;
            continue;
        }
        v->bound = addr;
        *(void **)v->host_var = (void *)(uintptr_t)addr;
        /* host code names it by that address in the symbol calls (cudaMemcpyToSymbol(x, ...) passes *&x) */
        pthread_mutex_lock(&mu);
        index_put((void *)(uintptr_t)addr, v, KIND_VAR);
        pthread_mutex_unlock(&mu);
    }
    return (char)ok;
}

rgpu_kernel *rgpu_find_kernel(const void *host_fn) { return index_get(host_fn, KIND_KERNEL); }

/* A kernel record the client made itself (a library's CUkernel, module/library.c): found by its own
 * address, as __cudaGetKernel's records are. */
void rgpu_index_kernel(rgpu_kernel *k) {
    pthread_mutex_lock(&mu);
    index_put(k, k, KIND_KERNEL);
    pthread_mutex_unlock(&mu);
}

rgpu_var *rgpu_find_var(const void *host_var) { return index_get(host_var, KIND_VAR); }
