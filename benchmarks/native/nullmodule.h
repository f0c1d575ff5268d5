/* The null driver's modules: what nullmodule.c reads from an image. */
#ifndef NULLMODULE_H
#define NULLMODULE_H

#define NULL_MAX_PARAMS 128

typedef struct {
    char *name;          /* as long as it is: C++ kernels' mangled names run to thousands of bytes */
    int nparams;
    struct { unsigned offset, size; } params[NULL_MAX_PARAMS];
} null_kernel;

/* A module variable (__device__, __constant__): its size and initial bytes (NULL: zeros); `addr` is
 * where the null driver placed it, once asked (0 before). */
typedef struct {
    char *name;
    unsigned long long size, addr;
    unsigned char *init;
} null_global;

typedef struct {
    int read;            /* the image's kernels are known (else any name is taken, with no parameters) */
    int nkernels, nglobals;
    null_kernel *kernels;
    null_global *globals;
} null_module;

/* 0; -1 out of memory; NULL_NO_BINARY: a fatbin with no code a GPU of compute capability `arch`
 * (90 for 9.0) runs, NULL_PTX_TOO_NEW: PTX text whose .target is newer than it */
#define NULL_NO_BINARY (-2)
#define NULL_PTX_TOO_NEW (-3)
int null_module_read(const void *image, null_module *m, int arch);
const null_kernel *null_module_kernel(const null_module *m, const char *name);
null_global *null_module_global(null_module *m, const char *name);
void null_module_free(null_module *m);

#endif
