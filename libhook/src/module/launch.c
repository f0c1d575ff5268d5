/* Kernel launches, modules, functions and symbols.
 *
 * A module is uploaded to a session the first time it is needed there, offered first by its
 * sha256 alone (servers cache images, so a second session of the same program sends no bytes).
 * A launch is one asynchronous call carrying the parameters packed by the function's layout,
 * which is fetched once per function and kept. Launch configuration push/pop stays in the client. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "graph.h"
#include "companion.h"
#include "failover.h"
#include "registry.h"
#include "rgpu_call.h"

typedef dim3 rgpu_dim3; /* CUDA's dim3: nvcc's host code passes it by value to the __cuda* entry points */

#define NOT_FOUND CUDA_ERROR_NOT_FOUND
#define INVALID_DEVICE_FUNCTION cudaErrorInvalidDeviceFunction
#define INVALID_SYMBOL cudaErrorInvalidSymbol

static pthread_mutex_t load_mu = PTHREAD_MUTEX_INITIALIZER;


/* Probes whose failures are expected (an image the server has not cached yet, the parameter past
 * the last) must leave the program's last error as it was, not clear it. */
typedef struct { int runtime, driver; } saved_errors;

static saved_errors save_errors(void) {
    saved_errors e = {rgpu_get_last_error(RGPU_RUNTIME, 0), rgpu_get_last_error(RGPU_DRIVER, 0)};
    return e;
}

static void restore_errors(saved_errors e) {
    rgpu_set_last_error(RGPU_RUNTIME, e.runtime);
    rgpu_set_last_error(RGPU_DRIVER, e.driver);
}

/* ---- modules ----------------------------------------------------------------------------- */

/* Images a device refused (no code it can run, malformed): libraries probe kernels they may not be
 * able to use (cuBLASLt tries its SASS-only CUTLASS kernels before its PTX ones) and ask again for each
 * call; the answer does not change, so it is given again without sending the image. */
enum { REFUSED_SLOTS = 256 };
static struct { char digest[65]; int dev, rc; } refused[REFUSED_SLOTS];
static pthread_mutex_t refused_mu = PTHREAD_MUTEX_INITIALIZER;

static int refused_before(int dev, const char *digest) {
    int rc = 0;
    pthread_mutex_lock(&refused_mu);
    for (int i = 0; i < REFUSED_SLOTS && !rc; i++)
        if (refused[i].rc && refused[i].dev == dev && !strcmp(refused[i].digest, digest)) rc = refused[i].rc;
    pthread_mutex_unlock(&refused_mu);
    return rc;
}

static void remember_refusal(int dev, const char *digest, int rc) {
    static unsigned next;
    pthread_mutex_lock(&refused_mu);
    unsigned i = next++ % REFUSED_SLOTS;
    memcpy(refused[i].digest, digest, 65);
    refused[i].dev = dev;
    refused[i].rc = rc;
    pthread_mutex_unlock(&refused_mu);
}

/* One load: offer the digests, send what the server does not have. With a companion (PTX of the
 * image's library, module/companion.c) the server may load that library's PTX of the same kernels.
 * A --failover session sends the image at once: its log is replayed on another server, whose cache
 * may differ, and a digest the first server knew would be "not found" there (a call whose answer the
 * replay does not give again fails the recovery), or the other way round. */
static int load_once(int face, int dev, const void *image, size_t size, const char *digest,
                     const rgpu_companion *comp, void **out) {
    saved_errors before = save_errors();
    for (int attempt = rgpu_failover_lease() ? 1 : 0; attempt < 2; attempt++) {
        rgpu_call c;
        int sent = attempt ? (comp ? 3 : 1) : 0;
        size_t frames = (sent & 1 ? size : 0) + (sent & 2 ? comp->size : 0);
        rgpu_wire_cuModuleLoadData(&c, digest, size, comp ? comp->digest : "", comp ? comp->size : 0, sent, frames);
        c.face = face;
        c.dev = dev;
        if (attempt) rgpu_put_bulk(&c, image, size);
        for (size_t off = 0; attempt && comp && off < comp->size; off += RGPU_COMPANION_CHUNK)
            rgpu_put_bulk(&c, comp->data + off, comp->size - off < RGPU_COMPANION_CHUNK ? comp->size - off
                                                                                     : RGPU_COMPANION_CHUNK);
        int rc = rgpu_sync(&c);
        if (rc == 0) rgpu_wire_out_cuModuleLoadData(&c, out);
        rgpu_end(&c);
        if (rc != NOT_FOUND || attempt) return rc;
        restore_errors(before); /* "not cached" is not the program's error */
    }
    return RGPU_NOT_SUPPORTED;
}

/* `origin`: where the image lies in the program's or a library's mapping (the image itself, unless
 * it is a copy), for its companion. */
static int load_image(int face, int dev, const void *image, size_t size, const void *origin, char digest[65],
                      void **out) {
    if (!digest[0]) rgpu_sha256_hex(image, size, digest);
    int known = refused_before(dev, digest);
    if (known) return rgpu_record(face, known);
    int rc = load_once(face, dev, image, size, digest, NULL, out);
    const rgpu_companion *comp = rc == 209 /* CUDA_ERROR_NO_BINARY_FOR_GPU */ ? rgpu_companion_of(origin) : NULL;
    if (comp) rc = load_once(face, dev, image, size, digest, comp, out);
    /* CUDA_ERROR_INVALID_IMAGE, _NO_BINARY_FOR_GPU, _INVALID_PTX: the image, not the moment. The
     * program gets only the code, and no fallback is left: say once, loudly, what the server said
     * (its cause and fix), as a driver's JIT log would. */
    if (rc == 200 || rc == 209 || rc == 218) {
        remember_refusal(dev, digest, rc);
        rgpu_log(RGPU_LOG_WARN, "device %d refused a module (%d): %s", dev, rc, rgpu_last_server_message());
    }
    return rc;
}

int rgpu_module_on(int face, rgpu_module *m, int dev, void **out) {
    if (!m || !m->image) return rgpu_record(face, INVALID_DEVICE_FUNCTION);
    pthread_mutex_lock(&load_mu);
    int rc = 0;
    if (!m->srv[dev]) rc = load_image(face, dev, m->image, m->size, m->origin ? m->origin : m->image, m->digest,
                                      &m->srv[dev]);
    *out = m->srv[dev];
    pthread_mutex_unlock(&load_mu);
    return rc;
}

/* The parameter layout of a function, in one round trip (PARAMS: the server asks cuFuncGetParamInfo
 * index by index for us, rgpu_wire.h); kept by the callers, so once per function. */
int rgpu_layout_of(int face, void *fn, rgpu_layout *out) {
    out->nparams = 0;
    out->total = 0;
    rgpu_call c;
    rgpu_begin(&c, RGPU_PARAMS, "cuFuncGetParamInfo", face, 0);
    rgpu_put_h(&c, fn); /* to the function's own device */
    int rc = rgpu_sync(&c);
    for (uint32_t i = 0; rc == 0 && c.nouts >= 2 && i < RGPU_MAX_PARAMS; i++) {
        uint64_t off = rgpu_out_u(&c), size = rgpu_out_u(&c);
        out->offset[i] = (uint32_t)off;
        out->size[i] = (uint32_t)size;
        out->nparams = i + 1;
        if (off + size > out->total) out->total = (uint32_t)(off + size);
    }
    rgpu_end(&c);
    /* the device cannot run the function (the software GPU lacks one of its instructions): its first
     * launch fails, and the cause is the program's to read without asking for logs, as a JIT log is */
    if (rc == CUDA_ERROR_NOT_SUPPORTED || rc == CUDA_ERROR_INVALID_PTX)
        rgpu_log(RGPU_LOG_WARN, "a kernel cannot run on its device (CUDA error %d): %s", rc, rgpu_last_server_message());
    return rc;
}

/* A program's own kernel whose module the device refused (load_image has logged the server's reason):
 * said once per shared object, naming the kernel and its library, and for a prebuilt library the user
 * cannot rebuild (PyTorch's libtorch_cuda.so ships SASS only) the way out. */
static void explain_refusal(const rgpu_kernel *k, int dev, int rc) {
    enum { SEEN = 64 };
    static const char *seen[SEEN];
    static int nseen;
    static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
    Dl_info info = {0};
    const char *obj = k->module && dladdr(k->module->image, &info) && info.dli_fname ? info.dli_fname : "";
    if (!strstr(obj, ".so")) return; /* the program's own kernels: the server's advice (rebuild) fits */
    pthread_mutex_lock(&mu);
    int first = 1;
    for (int i = 0; i < nseen && first; i++) first = strcmp(seen[i], obj) != 0;
    if (first && nseen < SEEN) seen[nseen++] = obj;
    pthread_mutex_unlock(&mu);
    if (!first) return;
    rgpu_log(RGPU_LOG_WARN, "kernel %s of %s cannot run on device %d (CUDA error %d); %s is a prebuilt library "
             "with no code for this device in that module: on the software GPU use a build of it that embeds PTX "
             "(PyTorch: TORCH_CUDA_ARCH_LIST ending in +PTX), or run on a server with a real GPU "
             "(rgpu-server --device cuda)", k->name, obj, dev, rc, obj);
}

int rgpu_kernel_on(int face, rgpu_kernel *k, int dev, void **out) {
    void *mod = NULL;
    int rc = rgpu_module_on(face, k->module, dev, &mod);
    if (rc == 200 || rc == 209 || rc == 218) explain_refusal(k, dev, rc); /* the image, not the moment */
    if (rc) return rc;
    pthread_mutex_lock(&load_mu);
    if (!k->fn[dev]) {
        rc = cuModuleGetFunction((CUfunction *)&k->fn[dev], mod, k->name);
        if (rc == 0 && !k->have_layout) {
            rc = rgpu_layout_of(face, k->fn[dev], &k->layout);
            k->have_layout = rc == 0;
        }
    }
    *out = k->fn[dev];
    pthread_mutex_unlock(&load_mu);
    return rc ? rgpu_record(face, rc == NOT_FOUND ? INVALID_DEVICE_FUNCTION : rc) : 0;
}

/* ---- launches ---------------------------------------------------------------------------- */

/* CUDA checks a launch's configuration when the launch is made and returns the error there, not at
 * the next synchronising call: every limit is known here (the device's from its facts, kept for the
 * session; the function's from its attributes, asked once and kept by func_facts.c), so the check costs
 * an asynchronous launch no round trip after a function's first. The server checks again (a limit this
 * side did not know). Errors: a configuration past the device's limits, or a zero dimension, is
 * CUDA_ERROR_INVALID_VALUE (the Runtime's cudaErrorInvalidConfiguration); more threads than the
 * function's registers allow CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES, than its launch bounds allow
 * CUDA_ERROR_INVALID_VALUE (past_registers); more dynamic
 * shared memory than its limit CUDA_ERROR_INVALID_VALUE. */
enum { LIM_THREADS, LIM_BX, LIM_BY, LIM_BZ, LIM_GX, LIM_GY, LIM_GZ, NLIMITS };
static const int limit_attrs[NLIMITS] = {
    CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK, CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_X, CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Y,
    CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Z, CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_X, CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Y,
    CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Z};
enum { LIMIT_DEVICES = 64 };
static struct { int ok; int v[NLIMITS]; } limits[LIMIT_DEVICES]; /* written whole before ok is set */

static const int *device_limits(int dev) {
    if (dev < 0 || dev >= LIMIT_DEVICES) return NULL;
    if (__atomic_load_n(&limits[dev].ok, __ATOMIC_ACQUIRE)) return limits[dev].v;
    int v[NLIMITS];
    saved_errors before = save_errors();
    for (int i = 0; i < NLIMITS; i++)
        if (cuDeviceGetAttribute(&v[i], limit_attrs[i], dev) != CUDA_SUCCESS) {
            restore_errors(before);
            return NULL; /* not known here: the server decides */
        }
    memcpy(limits[dev].v, v, sizeof v);
    __atomic_store_n(&limits[dev].ok, 1, __ATOMIC_RELEASE);
    return limits[dev].v;
}

/* A block past the function's most threads: is it past what its registers allow (the block's warps need
 * regs x 32 each, allocated 256 at a time, within a block's register file)? The driver then answers
 * CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES ("too many resources requested for launch"); a block the registers
 * would hold but past a launch bound (.maxntid, .reqntid: __launch_bounds__) is CUDA_ERROR_INVALID_VALUE
 * (numba-cuda's TestLaunchBounds, which runs on GPUs, expects exactly that). Asked only on a refused
 * launch; a count not known here keeps the resources answer. */
static int past_registers(void *fn, int dev, uint64_t threads) {
    int regs = 0, per_block = 0;
    if (rgpu_func_launch_limit(fn, CU_FUNC_ATTRIBUTE_NUM_REGS, &regs) != CUDA_SUCCESS || regs <= 0 ||
        cuDeviceGetAttribute(&per_block, CU_DEVICE_ATTRIBUTE_MAX_REGISTERS_PER_BLOCK, dev) != CUDA_SUCCESS ||
        per_block <= 0)
        return 1;
    uint64_t per_warp = ((uint64_t)regs * 32 + 255) / 256 * 256;
    return (threads + 31) / 32 * per_warp > (uint64_t)per_block;
}

static int check_launch(int face, void *fn, rgpu_dim3 g, rgpu_dim3 b, size_t shmem) {
    int bad_config = face == RGPU_RUNTIME ? (int)cudaErrorInvalidConfiguration : RGPU_INVALID_VALUE;
    if (!g.x || !g.y || !g.z || !b.x || !b.y || !b.z) return rgpu_record(face, bad_config);
    int dev = -1;
    rgpu_untag_handle(fn, &dev);
    const int *lim = device_limits(dev);
    uint64_t threads = (uint64_t)b.x * b.y * b.z;
    if (lim && (threads > (uint64_t)lim[LIM_THREADS] || b.x > (unsigned)lim[LIM_BX] || b.y > (unsigned)lim[LIM_BY] ||
                b.z > (unsigned)lim[LIM_BZ] || g.x > (unsigned)lim[LIM_GX] || g.y > (unsigned)lim[LIM_GY] ||
                g.z > (unsigned)lim[LIM_GZ]))
        return rgpu_record(face, bad_config);
    saved_errors before = save_errors();
    int fn_max = 0, fn_dyn = 0;
    if (rgpu_func_launch_limit(fn, CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK, &fn_max) == CUDA_SUCCESS && fn_max > 0 &&
        threads > (uint64_t)fn_max)
        return rgpu_record(face, past_registers(fn, dev, threads) ? CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES : RGPU_INVALID_VALUE);
    if (shmem && rgpu_func_launch_limit(fn, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, &fn_dyn) == CUDA_SUCCESS &&
        shmem > (size_t)fn_dyn)
        return rgpu_record(face, RGPU_INVALID_VALUE);
    restore_errors(before); /* a limit that could not be asked is the server's to check */
    return 0;
}

/* func and l are what a graph node keeps if the stream is capturing: then the launch becomes a node
 * holding a copy of the packed parameters instead of being sent. `cluster` (NULL: none): a thread-block
 * cluster's dimensions and scheduling policy; such a launch travels as cuLaunchKernelEx. */
static int send_launch(int face, uint32_t id, const char *name, const void *func, const rgpu_layout *l, void *fn,
                       rgpu_dim3 g, rgpu_dim3 b, size_t shmem, void *stream, const void *params, size_t nbytes,
                       const unsigned *cluster) {
    int bad = check_launch(face, fn, g, b, shmem);
    if (bad) return bad;
    if (rgpu_capturing(stream)) {
        rgpu_gnode node = {.type = NODE_KERNEL};
        unsigned gv[3] = {g.x, g.y, g.z}, bv[3] = {b.x, b.y, b.z};
        int rc = rgpu_kernel_node_fill(&node.u.k, face, func, fn, l, gv, bv, (unsigned)shmem, params, nbytes);
        if (rc) return rgpu_record(face, rc);
        node.u.k.cooperative = id == RGPU_ID_cudaLaunchCooperativeKernel || id == RGPU_ID_cuLaunchCooperativeKernel;
        if (cluster) memcpy(node.u.k.cluster, cluster, sizeof node.u.k.cluster);
        int handled = rgpu_capture_append(stream, &node, &rc);
        rgpu_node_clear(&node);
        if (handled) return rgpu_record(face, rc);
    }
    rgpu_call c;
    if (cluster) {
        rgpu_wire_cuLaunchKernelEx(&c, fn, g.x, g.y, g.z, b.x, b.y, b.z, shmem, stream, cluster[0], cluster[1],
                                   cluster[2], cluster[3], params ? params : "", nbytes);
        return rgpu_async(&c);
    }
    void (*encode)(struct rgpu_call *, const void *, uint64_t, uint64_t, uint64_t, uint64_t, uint64_t, uint64_t, uint64_t,
                   const void *, const void *, size_t) =
        id == RGPU_ID_cudaLaunchKernel ? rgpu_wire_cudaLaunchKernel
        : id == RGPU_ID_cudaLaunchCooperativeKernel ? rgpu_wire_cudaLaunchCooperativeKernel
        : id == RGPU_ID_cuLaunchCooperativeKernel ? rgpu_wire_cuLaunchCooperativeKernel : rgpu_wire_cuLaunchKernel;
    encode(&c, fn, g.x, g.y, g.z, b.x, b.y, b.z, shmem, stream, params ? params : "", nbytes);
    return rgpu_async(&c);
}

int rgpu_pack_args(const rgpu_layout *l, void **args, uint8_t *buf) {
    memset(buf, 0, l->total);
    for (int i = 0; i < l->nparams; i++) {
        if (!args || !args[i]) return -1;
        memcpy(buf + l->offset[i], args[i], l->size[i]);
    }
    return 0;
}

/* Packs the arguments by the layout (on the stack unless they are large) and sends the launch. */
static int pack_and_send(int face, uint32_t id, const char *name, const void *func, void *fn, const rgpu_layout *l,
                         void **args, rgpu_dim3 g, rgpu_dim3 b, size_t shmem, void *stream, const unsigned *cluster) {
    uint8_t stackbuf[4096], *buf = l->total <= sizeof stackbuf ? stackbuf : malloc(l->total);
    int rc;
    if (!buf) rc = rgpu_record(face, RGPU_OUT_OF_MEMORY);
    else if (rgpu_pack_args(l, args, buf)) rc = rgpu_record(face, RGPU_INVALID_VALUE);
    else rc = send_launch(face, id, name, func, l, fn, g, b, shmem, stream, buf, l->total, cluster);
    if (buf != stackbuf) free(buf);
    return rc;
}

static int driver_launch(uint32_t id, const char *name, void *f, rgpu_dim3 g, rgpu_dim3 b, unsigned shmem,
                         void *stream, void **params, void **extra, const unsigned *cluster);

static int runtime_launch(uint32_t id, const char *name, const void *func, rgpu_dim3 g, rgpu_dim3 b, void **args,
                          size_t shmem, void *stream, const unsigned *cluster) {
    int rc = rgpu_ensure_init();
    if (rc) return rgpu_record(RGPU_RUNTIME, rc);
    rgpu_kernel *k = rgpu_find_kernel(func);
    int dev = -1;
    rgpu_untag_handle(func, &dev);
    if (!k && dev >= 0) /* a cudaKernel_t from cudaLibraryGetKernel: a function handle of a session */
        return driver_launch(id, name, (void *)func, g, b, (unsigned)shmem, stream, args, NULL, cluster);
    if (!k) return rgpu_record(RGPU_RUNTIME, INVALID_DEVICE_FUNCTION);
    void *fn = NULL;
    if ((rc = rgpu_kernel_on(RGPU_RUNTIME, k, rgpu_handle_device(stream), &fn))) return rc;
    return pack_and_send(RGPU_RUNTIME, id, name, func, fn, &k->layout, args, g, b, shmem, stream, cluster);
}

static __thread struct { rgpu_dim3 g, b; size_t shmem; void *stream; } cfg;

unsigned __cudaPushCallConfiguration(rgpu_dim3 grid, rgpu_dim3 block, size_t shmem, void *stream) {
    cfg.g = grid;
    cfg.b = block;
    cfg.shmem = shmem;
    cfg.stream = stream;
    return 0;
}

int __cudaPopCallConfiguration(rgpu_dim3 *grid, rgpu_dim3 *block, size_t *shmem, void **stream) {
    if (grid) *grid = cfg.g;
    if (block) *block = cfg.b;
    if (shmem) *shmem = cfg.shmem;
    if (stream) *stream = cfg.stream;
    return 0;
}

int __cudaGetKernel(void **kernel, const void *hostFun) {
    rgpu_kernel *k = rgpu_find_kernel(hostFun);
    if (kernel) *kernel = k;
    return k ? 0 : rgpu_record(RGPU_RUNTIME, INVALID_DEVICE_FUNCTION);
}

int __cudaLaunchKernel(const void *kernel, rgpu_dim3 g, rgpu_dim3 b, void **args, size_t shmem, void *stream) {
    return runtime_launch(RGPU_ID_cudaLaunchKernel, "cudaLaunchKernel", kernel, g, b, args, shmem, stream, NULL);
}
int __cudaLaunchKernel_ptsz(const void *kernel, rgpu_dim3 g, rgpu_dim3 b, void **args, size_t shmem, void *stream) {
    return runtime_launch(RGPU_ID_cudaLaunchKernel, "cudaLaunchKernel", kernel, g, b, args, shmem, stream, NULL);
}
cudaError_t cudaLaunchKernel(const void *func, dim3 g, dim3 b, void **args, size_t shmem, cudaStream_t stream) {
    return runtime_launch(RGPU_ID_cudaLaunchKernel, "cudaLaunchKernel", func, g, b, args, shmem, stream, NULL);
}
cudaError_t cudaLaunchCooperativeKernel(const void *func, dim3 g, dim3 b, void **args, size_t shmem, cudaStream_t stream) {
    return runtime_launch(RGPU_ID_cudaLaunchCooperativeKernel, "cudaLaunchCooperativeKernel", func, g, b, args, shmem, stream, NULL);
}

int rgpu_runtime_launch_fn(const void *func, unsigned g[3], unsigned b[3], void **args, size_t shmem, void *stream) {
    rgpu_dim3 gd = {g[0], g[1], g[2]}, bd = {b[0], b[1], b[2]};
    return runtime_launch(RGPU_ID_cudaLaunchKernel, "cudaLaunchKernel", func, gd, bd, args, shmem, stream, NULL);
}
int rgpu_runtime_launch_cooperative_fn(const void *func, unsigned g[3], unsigned b[3], void **args, size_t shmem,
                                       void *stream) {
    rgpu_dim3 gd = {g[0], g[1], g[2]}, bd = {b[0], b[1], b[2]};
    return cudaLaunchCooperativeKernel(func, gd, bd, args, shmem, stream);
}

/* Driver launches: the layout of a CUfunction is fetched once and kept. */
#define LAYOUT_SLOTS 512
static struct { void *fn; rgpu_layout *l; } layouts[LAYOUT_SLOTS];

static rgpu_layout *driver_layout(void *fn, int *rc) {
    *rc = 0;
    size_t h = ((uintptr_t)fn >> 3) % LAYOUT_SLOTS;
    pthread_mutex_lock(&load_mu);
    for (size_t i = 0; i < LAYOUT_SLOTS; i++) {
        size_t j = (h + i) % LAYOUT_SLOTS;
        if (layouts[j].fn == fn) { pthread_mutex_unlock(&load_mu); return layouts[j].l; }
        if (!layouts[j].fn) {
            rgpu_layout *l = malloc(sizeof *l);
            if ((*rc = rgpu_layout_of(RGPU_DRIVER, fn, l))) { free(l); l = NULL; }
            else { layouts[j].fn = fn; layouts[j].l = l; }
            pthread_mutex_unlock(&load_mu);
            return l;
        }
    }
    pthread_mutex_unlock(&load_mu);
    static __thread rgpu_layout scratch; /* table full: fetch every time */
    *rc = rgpu_layout_of(RGPU_DRIVER, fn, &scratch);
    return *rc ? NULL : &scratch;
}

static int driver_launch(uint32_t id, const char *name, void *f, rgpu_dim3 g, rgpu_dim3 b, unsigned shmem,
                         void *stream, void **params, void **extra, const unsigned *cluster) {
    if (!f) return rgpu_record(RGPU_DRIVER, RGPU_INVALID_HANDLE);
    int tagged = -1;
    rgpu_untag_handle(f, &tagged);
    if (tagged < 0) { /* not a session's function: a library's CUkernel, launched on its stream's device */
        rgpu_kernel *k = rgpu_find_kernel(f);
        int rc = k ? rgpu_kernel_on(RGPU_DRIVER, k, rgpu_handle_device(stream), &f) : 0;
        if (rc) return rc;
    }
    if (extra) {
        /* CU_LAUNCH_PARAM_BUFFER_POINTER (1) / _SIZE (2) pairs, ended by CU_LAUNCH_PARAM_END (0) */
        const void *buf = NULL;
        size_t size = 0;
        for (int i = 0; extra[i] != (void *)0; i += 2) {
            if (extra[i] == (void *)1) buf = extra[i + 1];
            else if (extra[i] == (void *)2) size = *(size_t *)extra[i + 1];
            else return rgpu_record(RGPU_DRIVER, RGPU_INVALID_VALUE);
        }
        if (params || (size && !buf)) return rgpu_record(RGPU_DRIVER, RGPU_INVALID_VALUE);
        return send_launch(RGPU_DRIVER, id, name, f, NULL, f, g, b, shmem, stream, buf, size, cluster);
    }
    int rc;
    rgpu_layout *l = driver_layout(f, &rc);
    if (!l) return rc;
    return pack_and_send(RGPU_DRIVER, id, name, f, f, l, params, g, b, shmem, stream, cluster);
}

/* ---- what graphs reuse (graph.h) ---------------------------------------------------------- */

int rgpu_launch_target(int face, const void *func, void *stream, void **fn, const rgpu_layout **layout) {
    int rc = rgpu_ensure_init();
    if (rc) return rgpu_record(face, rc);
    int dev = -1;
    rgpu_untag_handle(func, &dev);
    rgpu_kernel *k = face == RGPU_RUNTIME ? rgpu_find_kernel(func) : NULL;
    if (k) {
        if ((rc = rgpu_kernel_on(face, k, rgpu_handle_device(stream), fn))) return rc;
        *layout = &k->layout;
        return 0;
    }
    if (dev < 0) return rgpu_record(face, face == RGPU_RUNTIME ? INVALID_DEVICE_FUNCTION : RGPU_INVALID_HANDLE);
    *fn = (void *)func; /* a CUfunction, or a cudaKernel_t that is one */
    *layout = driver_layout(*fn, &rc);
    return rc;
}

int rgpu_launch_packed(int face, const void *func, void *fn, const rgpu_layout *l, const unsigned g[3],
                       const unsigned b[3], size_t shmem, void *stream, const void *buf, size_t n, int cooperative,
                       const unsigned cluster[4]) {
    rgpu_dim3 gd = {g[0], g[1], g[2]}, bd = {b[0], b[1], b[2]};
    uint32_t id = face == RGPU_RUNTIME ? (cooperative ? RGPU_ID_cudaLaunchCooperativeKernel : RGPU_ID_cudaLaunchKernel)
                                       : (cooperative ? RGPU_ID_cuLaunchCooperativeKernel : RGPU_ID_cuLaunchKernel);
    return send_launch(face, id, face == RGPU_RUNTIME ? "cudaLaunchKernel" : "cuLaunchKernel", func, l, fn, gd, bd,
                       shmem, stream, buf, n, cluster);
}

CUresult cuLaunchKernel(CUfunction f, unsigned int gx, unsigned int gy, unsigned int gz, unsigned int bx, unsigned int by, unsigned int bz, unsigned int shmem, CUstream stream, void **params, void **extra) {
    rgpu_dim3 g = {gx, gy, gz}, b = {bx, by, bz};
    return driver_launch(RGPU_ID_cuLaunchKernel, "cuLaunchKernel", f, g, b, shmem, stream, params, extra, NULL);
}

CUresult cuLaunchCooperativeKernel(CUfunction f, unsigned int gx, unsigned int gy, unsigned int gz, unsigned int bx, unsigned int by, unsigned int bz, unsigned int shmem, CUstream stream, void **params) {
    rgpu_dim3 g = {gx, gy, gz}, b = {bx, by, bz};
    return driver_launch(RGPU_ID_cuLaunchCooperativeKernel, "cuLaunchCooperativeKernel", f, g, b, shmem, stream,
                         params, NULL, NULL);
}
/* cuLaunchKernelEx with the cooperative attribute: a cooperative launch that may also pass `extra`. */
int rgpu_driver_launch_cooperative_fn(void *f, const unsigned g3[3], const unsigned b3[3], unsigned shmem, void *stream,
                                      void **params, void **extra) {
    rgpu_dim3 g = {g3[0], g3[1], g3[2]}, b = {b3[0], b3[1], b3[2]};
    return driver_launch(RGPU_ID_cuLaunchCooperativeKernel, "cuLaunchKernelEx", f, g, b, shmem, stream, params, extra,
                         NULL);
}
/* cuLaunchKernelEx / cudaLaunchKernelExC with a thread-block cluster (`cluster`: x, y, z, policy). */
int rgpu_launch_cluster_fn(int face, void *f, const unsigned g3[3], const unsigned b3[3], size_t shmem, void *stream,
                           void **params, void **extra, const unsigned cluster[4]) {
    rgpu_dim3 g = {g3[0], g3[1], g3[2]}, b = {b3[0], b3[1], b3[2]};
    if (face == RGPU_RUNTIME)
        return runtime_launch(RGPU_ID_cudaLaunchKernel, "cudaLaunchKernelExC", f, g, b, params, shmem, stream, cluster);
    return driver_launch(RGPU_ID_cuLaunchKernel, "cuLaunchKernelEx", f, g, b, (unsigned)shmem, stream, params, extra,
                         cluster);
}

/* ---- Driver API modules ------------------------------------------------------------------ */

CUresult cuModuleLoadData(CUmodule *module, const void *image) {
    if (!module || !image) return rgpu_invalid_value(RGPU_DRIVER);
    int rc = rgpu_ensure_init();
    if (rc) return rgpu_record(RGPU_DRIVER, rc);
    image = rgpu_unwrap_fatbin(image);
    char digest[65] = "";
    return load_image(RGPU_DRIVER, rgpu_current_device(), image, rgpu_image_size(image), image, digest,
                      (void **)module);
}

CUresult cuModuleLoadDataEx(CUmodule *module, const void *image, unsigned int n, CUjit_option *options, void **values) {
    (void)n; (void)options; (void)values; /* JIT options: the server compiles (or interprets) as it sees fit */
    return cuModuleLoadData(module, image);
}

CUresult cuModuleLoadFatBinary(CUmodule *module, const void *fatbin) { return cuModuleLoadData(module, fatbin); }

CUresult cuModuleLoad(CUmodule *module, const char *fname) {
    if (!module || !fname) return rgpu_invalid_value(RGPU_DRIVER);
    size_t got = 0;
    char *buf = rgpu_read_file(fname, &got); /* NUL-terminated, as PTX text must be */
    if (!buf) return rgpu_record(RGPU_DRIVER, CUDA_ERROR_FILE_NOT_FOUND);
    char digest[65] = "";
    int rc = rgpu_ensure_init();
    if (!rc) rc = load_image(RGPU_DRIVER, rgpu_current_device(), buf, rgpu_image_size(buf) <= got + 1 ?
                             rgpu_image_size(buf) : got, buf, digest, (void **)module);
    free(buf);
    return rgpu_record(RGPU_DRIVER, rc);
}

/* ---- symbols and functions (Runtime API) ------------------------------------------------- */

/* The variable a host symbol stands for, and its module loaded on the current device. */
static int symbol_module(const void *symbol, rgpu_var **v, void **mod) {
    int rc = rgpu_ensure_init();
    if (rc) return rgpu_record(RGPU_RUNTIME, rc);
    *v = rgpu_find_var(symbol);
    if (!*v || !(*v)->module) return rgpu_record(RGPU_RUNTIME, INVALID_SYMBOL);
    return rgpu_module_on(RGPU_RUNTIME, (*v)->module, rgpu_current_device(), mod);
}

/* A driver error of a call naming a variable, as the Runtime reports it. */
static int symbol_error(int rc) { return rc ? rgpu_record(RGPU_RUNTIME, rc == NOT_FOUND ? INVALID_SYMBOL : rc) : 0; }

static int symbol_address(const void *symbol, CUdeviceptr *addr, size_t *size) {
    rgpu_var *v;
    void *mod = NULL;
    int rc = symbol_module(symbol, &v, &mod);
    return rc ? rc : symbol_error(cuModuleGetGlobal_v2(addr, size, mod, v->name));
}

/* Copies by the variable's name (the rgpuMemcpy*Symbol records, server/api/symbols.py): the worker finds
 * the variable when the copy runs, so the program is never handed its address (on the cuda backend a
 * held address must be kept as an alias after a move: server/backends/cuda/aliases.py), and no lookup
 * goes before the copy. */
CUresult rgpuMemcpyToSymbol(CUmodule module, const char *name, size_t offset, const void *src, size_t count) {
    rgpu_call c;
    rgpu_wire_rgpuMemcpyToSymbol(&c, module, name, offset, count);
    rgpu_put_bulk(&c, src, count);
    c.shm = 1;
    int rc = rgpu_sync(&c);
    rgpu_end(&c);
    return rc;
}

CUresult rgpuMemcpyToSymbolAsync(CUmodule module, const char *name, size_t offset, const void *src, size_t count,
                                 CUstream stream) {
    rgpu_call c;
    rgpu_wire_rgpuMemcpyToSymbolAsync(&c, module, name, offset, count, stream);
    rgpu_put_bulk(&c, src, count); /* copied into the message: the program may reuse src at once */
    return rgpu_async(&c);
}

CUresult rgpuMemcpyFromSymbol(CUmodule module, const char *name, size_t offset, void *dst, size_t count,
                              CUstream stream) {
    rgpu_call c;
    rgpu_wire_rgpuMemcpyFromSymbol(&c, module, name, offset, count, stream);
    c.device_reads = 1;
    c.shm = 2, c.shm_dst = dst, c.shm_cap = count;
    int rc = rgpu_sync(&c);
    if (rc == 0 && c.shm_got != count && rgpu_out_bulk_into(&c, dst, count) != 0) rc = RGPU_INVALID_VALUE;
    rgpu_end(&c);
    return rc;
}

/* Up to this size a symbol copy goes by name (constant memory is at most 64 KiB; a larger __device__
 * array takes the address path below, whose copy paths stream large data, and whose address the
 * program then holds). */
#define SYMBOL_BY_NAME_MAX (4u << 20)

/* Whether the copy can go by name: a plain variable (a managed one is managed memory, copied as such),
 * a host side that is host memory (cudaMemcpyDefault may name device memory), not recorded into a
 * graph being captured (a copy node holds addresses). */
static int by_name(const rgpu_var *v, void *host, size_t count, int kind, const void *stream, int async) {
    if (v->managed || count == 0 || count > SYMBOL_BY_NAME_MAX) return 0;
    if (async && rgpu_capturing(stream)) return 0;
    if (kind == 4) {
        rgpu_addr a;
        rgpu_addr_of(host, count, &a);
        if (a.kind == RGPU_ADDR_DEVICE || a.kind == RGPU_ADDR_MANAGED) return 0;
        return 1;
    }
    return kind == 1 || kind == 2;
}

static int symbol_copy(int to, void *host, const void *symbol, size_t count, size_t offset, int kind, void *stream,
                       int async) {
    rgpu_var *v;
    void *mod = NULL;
    int rc = symbol_module(symbol, &v, &mod);
    if (rc) return rc;
    if (by_name(v, host, count, kind, stream, async)) {
        if (!async && (rc = rgpu_capture_guard(RGPU_RUNTIME, NULL, 1))) return rc;
        /* pinned memory an earlier async copy out of the device is still to write (copy_late.c) */
        if (to && rgpu_sessions_late_overlap(host, count)) rgpu_sessions_drain_late();
        rc = to && async ? rgpuMemcpyToSymbolAsync(mod, v->name, offset, host, count, stream)
           : to          ? rgpuMemcpyToSymbol(mod, v->name, offset, host, count)
                         : rgpuMemcpyFromSymbol(mod, v->name, offset, host, count, async ? stream : NULL);
        return symbol_error(rc);
    }
    CUdeviceptr addr;
    size_t size;
    if ((rc = symbol_error(cuModuleGetGlobal_v2(&addr, &size, mod, v->name)))) return rc;
    if (offset + count > size) return rgpu_record(RGPU_RUNTIME, RGPU_INVALID_VALUE);
    if (kind == 4) kind = to ? 1 : 2; /* cudaMemcpyDefault: the host side is the program's pointer */
    void *dev = (void *)(uintptr_t)(addr + offset);
    if (async) return to ? cudaMemcpyAsync(dev, host, count, kind, stream) : cudaMemcpyAsync(host, dev, count, kind, stream);
    return to ? cudaMemcpy(dev, host, count, kind) : cudaMemcpy(host, dev, count, kind);
}

cudaError_t cudaMemcpyToSymbol(const void *symbol, const void *src, size_t count, size_t offset, enum cudaMemcpyKind kind) {
    return symbol_copy(1, (void *)src, symbol, count, offset, kind, NULL, 0);
}
cudaError_t cudaMemcpyFromSymbol(void *dst, const void *symbol, size_t count, size_t offset, enum cudaMemcpyKind kind) {
    return symbol_copy(0, dst, symbol, count, offset, kind, NULL, 0);
}
cudaError_t cudaMemcpyToSymbolAsync(const void *symbol, const void *src, size_t count, size_t offset, enum cudaMemcpyKind kind, cudaStream_t stream) {
    return symbol_copy(1, (void *)src, symbol, count, offset, kind, stream, 1);
}
cudaError_t cudaMemcpyFromSymbolAsync(void *dst, const void *symbol, size_t count, size_t offset, enum cudaMemcpyKind kind, cudaStream_t stream) {
    return symbol_copy(0, dst, symbol, count, offset, kind, stream, 1);
}

cudaError_t cudaGetSymbolAddress(void **devPtr, const void *symbol) {
    CUdeviceptr addr;
    size_t size;
    if (!devPtr) return rgpu_invalid_value(RGPU_RUNTIME);
    int rc = symbol_address(symbol, &addr, &size);
    if (!rc) *devPtr = (void *)(uintptr_t)addr;
    return rc;
}

CUresult rgpuModuleGlobalSize(CUmodule module, const char *name, size_t *bytes) {
    rgpu_call c;
    rgpu_wire_rgpuModuleGlobalSize(&c, module, name);
    int rc = rgpu_sync(&c);
    if (rc == 0) rgpu_wire_out_rgpuModuleGlobalSize(&c, bytes);
    rgpu_end(&c);
    return rc;
}

/* By name, as the symbol copies: a size gives the program no address to hold. */
cudaError_t cudaGetSymbolSize(size_t *out, const void *symbol) {
    if (!out) return rgpu_invalid_value(RGPU_RUNTIME);
    rgpu_var *v;
    void *mod = NULL;
    size_t size = 0;
    int rc = symbol_module(symbol, &v, &mod);
    if (rc || (rc = symbol_error(rgpuModuleGlobalSize(mod, v->name, &size)))) return rc;
    *out = size;
    return 0;
}

static int function_of(const void *func, void **fn) {
    int rc = rgpu_ensure_init();
    if (rc) return rgpu_record(RGPU_RUNTIME, rc);
    rgpu_kernel *k = rgpu_find_kernel(func);
    if (!k) return rgpu_record(RGPU_RUNTIME, INVALID_DEVICE_FUNCTION);
    return rgpu_kernel_on(RGPU_RUNTIME, k, rgpu_current_device(), fn);
}

cudaError_t cudaGetFuncBySymbol(cudaFunction_t *functionPtr, const void *symbolPtr) {
    if (!functionPtr) return rgpu_invalid_value(RGPU_RUNTIME);
    return function_of(symbolPtr, (void **)functionPtr);
}

cudaError_t cudaFuncGetAttributes(struct cudaFuncAttributes *attr, const void *func) {
    if (!attr) return rgpu_invalid_value(RGPU_RUNTIME);
    void *fn;
    int rc = function_of(func, &fn);
    if (rc) return rc;
    memset(attr, 0, sizeof *attr);
    struct cudaFuncAttributes *a = attr;
    int32_t v[10];
    for (int i = 0; i < 10; i++) /* CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK (0) .. PREFERRED_SHARED_MEMORY_CARVEOUT (9) */
        if ((rc = cuFuncGetAttribute(&v[i], (CUfunction_attribute)i, fn))) return rgpu_record(RGPU_RUNTIME, rc);
    a->maxThreadsPerBlock = v[0];
    a->sharedSizeBytes = (size_t)v[1];
    a->constSizeBytes = (size_t)v[2];
    a->localSizeBytes = (size_t)v[3];
    a->numRegs = v[4];
    a->ptxVersion = v[5];
    a->binaryVersion = v[6];
    a->cacheModeCA = v[7];
    a->maxDynamicSharedSizeBytes = v[8];
    a->preferredShmemCarveout = v[9];
    return 0;
}

cudaError_t cudaFuncSetAttribute(const void *func, enum cudaFuncAttribute attr, int value) {
    void *fn;
    int rc = function_of(func, &fn);
    if (rc) return rc;
    /* cudaFuncAttributeMaxDynamicSharedMemorySize (8) and ...PreferredSharedMemoryCarveout (9) have the
     * driver's numbers */
    return rgpu_record(RGPU_RUNTIME, cuFuncSetAttribute(fn, (CUfunction_attribute)attr, value));
}

cudaError_t cudaFuncSetCacheConfig(const void *func, enum cudaFuncCache config) {
    (void)config;
    void *fn;
    return function_of(func, &fn); /* a preference; checked for a valid function only */
}

/* Shared memory banks are not configurable on any GPU since Kepler: CUDA accepts a valid setting and
 * ignores it, as the server does the Driver's (server/api/module.py). */
cudaError_t cudaFuncSetSharedMemConfig(const void *func, enum cudaSharedMemConfig config) {
    void *fn;
    int rc = function_of(func, &fn);
    if (rc) return rc;
    return (unsigned)config <= cudaSharedMemBankSizeEightByte ? RGPU_SUCCESS : rgpu_invalid_value(RGPU_RUNTIME);
}

/* Occupancy is computed by the server from the function's and the device's real limits. */

cudaError_t cudaOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(int *numBlocks, const void *func, int blockSize, size_t dynSmem, unsigned int flags) {
    if (!numBlocks) return rgpu_invalid_value(RGPU_RUNTIME);
    void *fn;
    int rc = function_of(func, &fn);
    if (rc) return rc;
    return rgpu_record(RGPU_RUNTIME, cuOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(numBlocks, fn, blockSize,
                                                                                        dynSmem, flags));
}

/* The runtime's cluster questions: the host stub's function and the configuration as the driver's. */
static cudaError_t cluster_question(int potential, int *out, const void *func, const cudaLaunchConfig_t *config) {
    if (!out || !config) return rgpu_invalid_value(RGPU_RUNTIME);
    void *fn;
    int rc = function_of(func, &fn);
    if (rc) return rc;
    CUlaunchConfig c = {.gridDimX = config->gridDim.x, .gridDimY = config->gridDim.y, .gridDimZ = config->gridDim.z,
                        .blockDimX = config->blockDim.x, .blockDimY = config->blockDim.y,
                        .blockDimZ = config->blockDim.z, .sharedMemBytes = (unsigned)config->dynamicSmemBytes,
                        .hStream = (CUstream)config->stream, .attrs = (CUlaunchAttribute *)config->attrs,
                        .numAttrs = config->numAttrs};
    return rgpu_record(RGPU_RUNTIME, potential ? cuOccupancyMaxPotentialClusterSize(out, fn, &c)
                                               : cuOccupancyMaxActiveClusters(out, fn, &c));
}
cudaError_t cudaOccupancyMaxActiveClusters(int *numClusters, const void *func, const cudaLaunchConfig_t *config) {
    return cluster_question(0, numClusters, func, config);
}
cudaError_t cudaOccupancyMaxPotentialClusterSize(int *clusterSize, const void *func, const cudaLaunchConfig_t *config) {
    return cluster_question(1, clusterSize, func, config);
}

cudaError_t cudaOccupancyAvailableDynamicSMemPerBlock(size_t *dynamicSmemSize, const void *func, int numBlocks,
                                                      int blockSize) {
    if (!dynamicSmemSize) return rgpu_invalid_value(RGPU_RUNTIME);
    void *fn;
    int rc = function_of(func, &fn);
    if (rc) return rc;
    return rgpu_record(RGPU_RUNTIME, cuOccupancyAvailableDynamicSMemPerBlock(dynamicSmemSize, fn, numBlocks, blockSize));
}

cudaError_t cudaOccupancyMaxActiveBlocksPerMultiprocessor(int *numBlocks, const void *func, int blockSize, size_t dynSmem) {
    return cudaOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(numBlocks, func, blockSize, dynSmem, 0);
}
