/* The null driver's modules (nulldriver.c): which kernels an image holds and the launch-buffer layout
 * of their parameters, read as the driver would read them, so that code which enumerates a module's
 * kernels (cuModuleGetFunctionCount / cuModuleEnumerateFunctions: cuFFT's plan creation does) or asks
 * their parameters (cuFuncGetParamInfo) gets a real answer without a GPU.
 *
 * An image is a cubin ELF, PTX text, or a fatbin container (magic 0xBA55ED50) of entries. Read from a
 * container: the cubin for the null GPU's sm_90, else the newest cubin it can read (the kernels and
 * their parameters are the same in each; a real driver would JIT the PTX instead), else the newest
 * PTX (cuFFT ships kernels as PTX alone, for the driver to compile). Entries compressed with LZ4's
 * block format are decompressed here; zstd ones (cuBLAS's, and everything from sm_100 on) by the
 * system's libzstd.so.1 when it has one (dlopen: no build dependency), else they are not read.
 * In the cubin, a kernel is a function symbol marked as an entry point (STO_CUDA_ENTRY in st_other),
 * and its parameters are the EIATTR_KPARAM_INFO records of its .nv.info.<name> section (the layout
 * server/backends/sim/cubin.py reads too); a module variable is an object symbol, its initial bytes
 * those of its section where the section has contents (cuModuleGetGlobal answers from them: cuFFT
 * reads its tables so). Facts from the formats; nothing here runs anything.
 *
 * Which images load is the driver's rule for a GPU of compute capability X.Y (`arch` 10X+Y): a
 * cubin for sm_X.Z with Z <= Y runs there (the same major version), PTX for compute_V.W <= X.Y is
 * compiled for it; a fatbin with neither is CUDA_ERROR_NO_BINARY_FOR_GPU, PTX text whose .target
 * is newer than the GPU fails to compile. */
#define _GNU_SOURCE  /* memmem */
#include <dlfcn.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "nullmodule.h"

#define CONTAINER_MAGIC 0xBA55ED50u
#define KIND_PTX 1
#define KIND_ELF 2
#define FLAG_LZ4 0x2000
#define FLAG_ZSTD 0x8000
#define STO_CUDA_ENTRY 0x10
#define STT_OBJECT 1
#define STT_FUNC 2
#define SHT_PROGBITS 1
#define SHT_SYMTAB 2
#define EIFMT_SVAL 4
#define EIATTR_KPARAM_INFO 0x17
#define EIATTR_KPARAM_INFO_V2 0x45

static uint16_t u16(const uint8_t *p) { return (uint16_t)(p[0] | p[1] << 8); }
static uint32_t u32(const uint8_t *p) { return (uint32_t)u16(p) | (uint32_t)u16(p + 2) << 16; }
static uint64_t u64(const uint8_t *p) { return (uint64_t)u32(p) | (uint64_t)u32(p + 4) << 32; }

/* LZ4 block format: sequences of a token (literal length, match length), literals, a 2-byte offset.
 * Returns the bytes written, or -1 for input that does not decode into `cap` bytes. */
static long lz4_block(const uint8_t *in, size_t n, uint8_t *out, size_t cap) {
    size_t i = 0, o = 0;
    while (i < n) {
        unsigned token = in[i++];
        size_t lit = token >> 4;
        if (lit == 15)
            for (unsigned b = 255; b == 255 && i < n;) lit += b = in[i++];
        if (lit > n - i || lit > cap - o) return -1;
        memcpy(out + o, in + i, lit);
        i += lit, o += lit;
        if (i == n) break; /* the last sequence is literals only */
        if (n - i < 2) return -1;
        size_t off = u16(in + i);
        i += 2;
        size_t len = (token & 15) + 4;
        if ((token & 15) == 15)
            for (unsigned b = 255; b == 255 && i < n;) len += b = in[i++];
        if (off == 0 || off > o || len > cap - o) return -1;
        for (size_t k = 0; k < len; k++, o++) out[o] = out[o - off]; /* may overlap: byte by byte */
    }
    return (long)o;
}

/* zstd through the system's library, looked up once. */
static size_t (*decompress)(void *, size_t, const void *, size_t);
static unsigned (*is_error)(size_t);

static int zstd_ready(void) {
    static int looked;
    if (!looked) {
        void *lib = dlopen("libzstd.so.1", RTLD_NOW | RTLD_LOCAL);
        if (lib) {
            *(void **)&decompress = dlsym(lib, "ZSTD_decompress");
            *(void **)&is_error = dlsym(lib, "ZSTD_isError");
        }
        looked = 1;
    }
    return decompress && is_error;
}

/* The bytes written; 0 without the library or for a bad frame. */
static size_t zstd(const uint8_t *in, size_t n, uint8_t *out, size_t cap) {
    if (!zstd_ready()) return 0;
    size_t got = decompress(out, cap, in, n);
    return is_error(got) ? 0 : got;
}

static const uint8_t *section(const uint8_t *elf, size_t n, uint16_t i, uint64_t *size, uint32_t *type,
                              uint32_t *link, uint64_t *entsize) {
    uint64_t shoff = u64(elf + 0x28);
    uint16_t shentsize = u16(elf + 0x3A), shnum = u16(elf + 0x3C);
    if (i >= shnum || shoff + (uint64_t)(i + 1) * shentsize > n) return NULL;
    const uint8_t *h = elf + shoff + (uint64_t)i * shentsize;
    uint64_t off = u64(h + 0x18);
    *size = u64(h + 0x20), *type = u32(h + 4), *link = u32(h + 0x28), *entsize = u64(h + 0x38);
    return off + *size <= n ? elf + off : NULL;
}

static void params_of(const uint8_t *blob, uint64_t size, null_kernel *k) {
    for (uint64_t p = 0; p + 4 <= size;) {
        unsigned fmt = blob[p], attr = blob[p + 1];
        uint64_t len = fmt == EIFMT_SVAL ? u16(blob + p + 2) : 0;
        const uint8_t *val = blob + p + 4;
        p += 4 + len;
        if (p > size || (attr != EIATTR_KPARAM_INFO && attr != EIATTR_KPARAM_INFO_V2) || len < 12) continue;
        unsigned ordinal = u16(val + 4);
        if (ordinal >= NULL_MAX_PARAMS) continue;
        k->params[ordinal].offset = u16(val + 6);
        /* V2 (a kernel with a parameter past the 14-bit size, CUDA 12.1's 32,764-byte limit): u16 size,
         * u16 attributes */
        k->params[ordinal].size = attr == EIATTR_KPARAM_INFO_V2 ? u16(val + 8) : (u32(val + 8) >> 18) & 0x3FFF;
        if ((int)ordinal + 1 > k->nparams) k->nparams = (int)ordinal + 1;
    }
}

static int add_kernel(null_module *m, const char *name, size_t len) {
    null_kernel *k = realloc(m->kernels, (size_t)(m->nkernels + 1) * sizeof *k);
    if (!k) return -1;
    m->kernels = k;
    k = &m->kernels[m->nkernels++];
    memset(k, 0, sizeof *k);
    return (k->name = strndup(name, len)) ? 0 : -1;
}

static int add_global(const uint8_t *elf, size_t n, const uint8_t *sym, const char *name, size_t room,
                      null_module *m) {
    null_global *g = realloc(m->globals, (size_t)(m->nglobals + 1) * sizeof *g);
    if (!g) return -1;
    m->globals = g;
    g = &m->globals[m->nglobals++];
    memset(g, 0, sizeof *g);
    if (!(g->name = strndup(name, strnlen(name, room)))) return -1;
    g->size = u64(sym + 16);
    uint64_t size, entsize, value = u64(sym + 8);
    uint32_t type, link;
    const uint8_t *data = section(elf, n, u16(sym + 6), &size, &type, &link, &entsize);
    if (data && type == SHT_PROGBITS && value + g->size <= size) {
        if (!(g->init = malloc(g->size))) return -1;
        memcpy(g->init, data + value, g->size);
    }
    return 0;
}

static int read_elf(const uint8_t *elf, size_t n, null_module *m) {
    if (n < 0x40 || memcmp(elf, "\x7f" "ELF", 4) || elf[4] != 2) return -1;
    uint16_t shnum = u16(elf + 0x3C), shstrndx = u16(elf + 0x3E);
    uint64_t size, entsize, shstr_size;
    uint32_t type, link;
    const uint8_t *shstr = section(elf, n, shstrndx, &shstr_size, &type, &link, &entsize);
    if (!shstr) return -1;
    for (uint16_t s = 0; s < shnum; s++) {
        const uint8_t *syms = section(elf, n, s, &size, &type, &link, &entsize);
        if (!syms || type != SHT_SYMTAB || entsize < 24) continue;
        uint64_t str_size, e2;
        uint32_t t2, l2;
        const uint8_t *str = section(elf, n, (uint16_t)link, &str_size, &t2, &l2, &e2);
        if (!str) return -1;
        for (uint64_t i = 0; i < size / entsize; i++) {
            const uint8_t *sym = syms + i * entsize;
            uint32_t name = u32(sym);
            if (name >= str_size || !str[name]) continue;
            if ((sym[4] & 15) == STT_OBJECT && u64(sym + 16) > 0) {
                if (add_global(elf, n, sym, (const char *)str + name, str_size - name, m) != 0) return -1;
                continue;
            }
            if ((sym[4] & 15) != STT_FUNC || !(sym[5] & STO_CUDA_ENTRY)) continue;
            if (add_kernel(m, (const char *)str + name, strnlen((const char *)str + name, str_size - name)) != 0)
                return -1;
        }
    }
    /* each kernel's parameters, from the .nv.info.<kernel> sections */
    for (uint16_t s = 0; s < shnum; s++) {
        const uint8_t *blob = section(elf, n, s, &size, &type, &link, &entsize);
        const uint8_t *h = elf + u64(elf + 0x28) + (uint64_t)s * u16(elf + 0x3A);
        uint32_t name = u32(h);
        if (!blob || name >= shstr_size || strncmp((const char *)shstr + name, ".nv.info.", 9)) continue;
        const char *kernel = (const char *)shstr + name + 9;
        for (int i = 0; i < m->nkernels; i++)
            if (!strcmp(m->kernels[i].name, kernel)) params_of(blob, size, &m->kernels[i]);
    }
    return 0;
}

/* PTX: each `.entry NAME(` and its `.param` declarations, laid out as the launch buffer is: each at its
 * alignment (`.align N` before the type, else the type's size), its size the type's times [count]. */
static int scalar_size(const char *t, size_t n) {
    if (n < 2) return 0;
    int bits = atoi(t + 2);
    if (t[0] != '.' || !strchr("usbf", t[1]) || (bits != 8 && bits != 16 && bits != 32 && bits != 64)) return 0;
    return bits / 8;
}

static const char *skip_space(const char *p, const char *end) {
    while (p < end && (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r')) p++;
    return p;
}

static const char *token(const char *p, const char *end, size_t *n) {
    p = skip_space(p, end);
    const char *q = p;
    while (q < end && !strchr(" \t\n\r,)(", *q)) q++;
    *n = (size_t)(q - p);
    return p;
}

static int read_ptx(const char *ptx, size_t size, null_module *m) {
    const char *end = ptx + size;
    for (const char *p = ptx; (p = memmem(p, (size_t)(end - p), ".entry", 6)) != NULL;) {
        size_t n;
        const char *name = token(p + 6, end, &n);
        if (!n || name + n >= end || add_kernel(m, name, n) != 0) return n ? -1 : 0;
        null_kernel *k = &m->kernels[m->nkernels - 1];
        p = skip_space(name + n, end);
        if (p == end || *p != '(') continue;  /* a declaration without parameters */
        const char *close = memchr(p, ')', (size_t)(end - p));
        if (!close) return 0;
        unsigned offset = 0;
        for (const char *q = p + 1; q < close && k->nparams < NULL_MAX_PARAMS;) {
            const char *param = memmem(q, (size_t)(close - q), ".param", 6);
            if (!param) break;
            q = param + 6;
            unsigned align = 0, elem = 0, count = 1;
            for (;;) {  /* .align N, the type, pointer attributes (.ptr .global .align N), the name[count] */
                const char *t = token(q, close, &n);
                if (!n) break;
                q = t + n;
                if (n == 6 && !memcmp(t, ".align", 6)) {
                    const char *v = token(q, close, &n);
                    if (!elem) align = (unsigned)atoi(v);  /* after the type it is a pointer's, not the parameter's */
                    q = v + n;
                } else if (!elem && scalar_size(t, n)) {
                    elem = (unsigned)scalar_size(t, n);
                } else if (t[0] != '.') {
                    const char *br = memchr(t, '[', n);
                    if (br) count = (unsigned)atoi(br + 1);
                    break;
                }
            }
            if (!elem) return 0;
            if (!align) align = elem;
            offset = (offset + align - 1) / align * align;
            k->params[k->nparams].offset = offset, k->params[k->nparams].size = elem * count;
            k->nparams++;
            offset += elem * count;
            while (q < close && *q != ',') q++;
        }
        p = close;
    }
    return 0;
}

/* Whether a GPU of `dev` (90 for 9.0) runs a fatbin entry: -1 when the entry is of a kind or arch
 * this does not know (then nothing is refused for it). */
static int runs_on(uint16_t kind, uint32_t arch, int dev) {
    if (arch > 1000 || (kind != KIND_ELF && kind != KIND_PTX)) return -1;
    if (kind == KIND_PTX) return (int)arch <= dev;
    return (int)arch / 10 == dev / 10 && (int)arch <= dev;
}

/* The sm_XY of a PTX text's .target (0: none found) */
static int ptx_target(const char *ptx, size_t n) {
    const char *t = memmem(ptx, n, ".target", 7);
    if (!t) return 0;
    const char *end = ptx + n, *p = t + 7;
    while (p < end && (*p == ' ' || *p == '\t')) p++;
    if (end - p < 4 || memcmp(p, "sm_", 3)) return 0;
    return atoi(p + 3);
}

int null_module_read(const void *image, null_module *m, int dev) {
    const uint8_t *b = image;
    memset(m, 0, sizeof *m);
    if (!memcmp(b, "\x7f" "ELF", 4)) {
        uint64_t shoff = u64(b + 0x28);
        size_t n = shoff + (size_t)u16(b + 0x3A) * u16(b + 0x3C); /* the section table ends the ELF */
        m->read = read_elf(b, n, m) == 0;
        return 0;
    }
    if (u32(b) != CONTAINER_MAGIC) {
        if (!memcmp(b, "//", 2) || !memcmp(b, ".version", 8)) { /* PTX text, NUL-terminated */
            size_t len = strlen((const char *)b);
            if (ptx_target((const char *)b, len) > dev) return NULL_PTX_TOO_NEW;
            m->read = read_ptx((const char *)b, len, m) == 0;
        }
        return 0; /* anything else: any kernel name is taken */
    }
    /* the entry to read: the GPU's own cubin, else the newest readable cubin (its kernels and their
     * parameters are those the driver would compile from the PTX), else the newest PTX */
    const uint8_t *best = NULL;
    int best_rank = 0, runs = 0, unknown = 0, entries = 0;
    for (const uint8_t *c = b; u32(c) == CONTAINER_MAGIC;) { /* containers back to back */
        uint16_t hsz = u16(c + 6);
        uint64_t total = u64(c + 8);
        if (!hsz) break; /* a malformed header: what came before is all there is */
        for (const uint8_t *e = c + hsz; e < c + hsz + total;) {
            uint16_t kind = u16(e);
            uint32_t ehsz = u32(e + 4), arch = u32(e + 28);
            if (!ehsz) break;
            uint64_t psize = u64(e + 8), flags = u64(e + 40);
            int r = runs_on(kind, arch, dev);
            entries++;
            runs |= r == 1;
            unknown |= r < 0;
            int rank = arch > 1000 || ((flags & FLAG_ZSTD) && !zstd_ready()) ? 0
                       : kind == KIND_ELF ? ((int)arch == dev ? 3000 : 2000 + (int)arch)
                       : kind == KIND_PTX ? 1000 + (int)arch : 0;
            if (rank > best_rank) best = e, best_rank = rank;
            e += ehsz + psize;
        }
        c += hsz + total;
    }
    if (entries && !runs && !unknown) return NULL_NO_BINARY;
    if (!best) return 0;
    uint32_t ehsz = u32(best + 4), csize = u32(best + 16);
    uint64_t psize = u64(best + 8), flags = u64(best + 40), dsize = u64(best + 56);
    const uint8_t *payload = best + ehsz;
    uint8_t *data = NULL;
    size_t n = psize;
    if (flags & (FLAG_LZ4 | FLAG_ZSTD)) {
        if (!(data = malloc(dsize + 1))) return -1;
        long got = flags & FLAG_LZ4 ? lz4_block(payload, csize ? csize : psize, data, dsize)
                                    : (long)zstd(payload, csize ? csize : psize, data, dsize);
        if (got <= 0) {
            free(data);
            return 0;
        }
        payload = data, n = (size_t)got;
    }
    if (u16(best) == KIND_ELF) {
        m->read = read_elf(payload, n, m) == 0;
    } else {
        /* PTX: its text runs to the first NUL or the payload's end (entries are padded with NULs) */
        size_t len = strnlen((const char *)payload, n);
        m->read = read_ptx((const char *)payload, len, m) == 0;
    }
    free(data);
    return 0;
}

const null_kernel *null_module_kernel(const null_module *m, const char *name) {
    for (int i = 0; i < m->nkernels; i++)
        if (!strcmp(m->kernels[i].name, name)) return &m->kernels[i];
    return NULL;
}

null_global *null_module_global(null_module *m, const char *name) {
    for (int i = 0; i < m->nglobals; i++)
        if (!strcmp(m->globals[i].name, name)) return &m->globals[i];
    return NULL;
}

void null_module_free(null_module *m) {
    for (int i = 0; i < m->nglobals; i++) free(m->globals[i].init), free(m->globals[i].name);
    for (int i = 0; i < m->nkernels; i++) free(m->kernels[i].name);
    free(m->globals);
    free(m->kernels);
    memset(m, 0, sizeof *m);
}
