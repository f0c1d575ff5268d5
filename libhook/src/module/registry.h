/* What nvcc's registration calls record (modules, kernels by host stub, variables by host shadow)
 * and their per-device server handles, filled lazily by the launch path. */
#ifndef RGPU_REGISTRY_H
#define RGPU_REGISTRY_H
#include <stddef.h>
#include <stdint.h>

#include "session.h"

#define RGPU_MAX_PARAMS 256

typedef struct rgpu_module {
    void **handle;            /* what __cudaRegisterFatBinary returned */
    const void *image;        /* the fatbin container */
    size_t size;
    char digest[65];          /* sha256 of the image, computed on first upload */
    void *srv[RGPU_MAX_DEVICES]; /* tagged CUmodule per device, NULL until loaded */
    /* where a library's copied image came from (library.c): its companion is looked for there, in
     * the object the caller loaded it from (NVIDIA's static cudart loads a program's fatbins so) */
    const void *origin;
} rgpu_module;

typedef struct rgpu_layout {
    int nparams;
    uint32_t offset[RGPU_MAX_PARAMS], size[RGPU_MAX_PARAMS];
    uint32_t total;
} rgpu_layout;

typedef struct rgpu_kernel {
    const void *host_fn;
    const char *name;
    rgpu_module *module;
    void *library;               /* the CUlibrary of a library's kernel (library.c), else NULL */
    void *fn[RGPU_MAX_DEVICES];  /* tagged CUfunction per device */
    rgpu_layout layout;
    int have_layout;
} rgpu_kernel;

typedef struct rgpu_var {
    const void *host_var;  /* of a managed variable: the address of the pointer host code reads it through */
    const char *name;
    size_t size;
    rgpu_module *module;
    int managed;           /* __managed__: host code reaches it through *host_var once its module is initialised */
    uint64_t bound;        /* a managed variable's address, once mapped here (0: not yet) */
} rgpu_var;

rgpu_kernel *rgpu_find_kernel(const void *host_fn);
rgpu_var *rgpu_find_var(const void *host_var);
int rgpu_module_on(int face, rgpu_module *m, int dev, void **out);
int rgpu_kernel_on(int face, rgpu_kernel *k, int dev, void **out);
int rgpu_layout_of(int face, void *fn, rgpu_layout *out);
/* The thread-block cluster launch attributes `attrs` (CUlaunchAttribute or cudaLaunchAttribute, the same
 * layout) ask for: cluster[0..2] its dimensions (zeros: none named), cluster[3] its scheduling policy.
 * Whether they name either. */
int rgpu_cluster_attrs(const void *attrs, unsigned n, unsigned cluster[4]);
int rgpu_launch_cluster_fn(int face, void *f, const unsigned g3[3], const unsigned b3[3], size_t shmem, void *stream,
                           void **params, void **extra, const unsigned cluster[4]);
size_t rgpu_image_size(const void *image);
/* cuLinkComplete's output begins with this and its whole size (a little-endian u64 at offset 8),
 * then holds one fatbin container per input, back to back: programs keep a copy of it and hand
 * that to cuModuleLoadData, so the image itself must say how long it is. */
#define RGPU_LINK_MAGIC "rgpulnk"
#define RGPU_LINK_HEADER 16
/* One of the limits a launch of fn is checked against in the client (launch.c):
 * CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK or _MAX_DYNAMIC_SHARED_SIZE_BYTES (func_facts.c). */
int rgpu_func_launch_limit(void *fn, int attrib, int *value);
/* The whole file, NUL-terminated (PTX is text), in a malloc'd buffer; NULL if it cannot be read. */
char *rgpu_read_file(const char *path, size_t *len);
void rgpu_sha256_hex(const void *data, size_t n, char out[65]);
/* The fatbin container an image holds: nvcc's registration wrapper {magic, version, data} (what
 * cudart hands cuModuleLoadData and cuLibraryLoadData) points at it; any other image is itself. */
static inline const void *rgpu_unwrap_fatbin(const void *image) {
    uint32_t magic;
    __builtin_memcpy(&magic, image, sizeof magic);
    return magic == 0x466243b1u ? ((const struct { uint32_t m, v; const void *data; } *)image)->data : image;
}
#endif
