/* PTX companions: NVIDIA's libraries do not always pair a kernel's SASS with its PTX (cuFFT keeps
 * its sm_120 SASS and the PTX of the same kernels in different containers of its .nv_fatbin section).
 * When the software GPU refuses a SASS-only module, the client gathers the PTX-bearing containers of
 * the section the module came from into one bundle, which the server caches by digest like any image
 * and searches for the PTX of the refused module's kernels (server/backends/sim/companion.py). Built
 * at most once per loaded object, from the object's own mapping: nothing is read that the program
 * has not already mapped, except the section table, read from the object's file. */
#define _GNU_SOURCE
#include <elf.h>
#include <fcntl.h>
#include <link.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "companion.h"
#include "registry.h"
#include "rgpu_call.h"

#define CONTAINER_MAGIC 0xba55ed50u
#define ENTRY_KIND_PTX 1

typedef struct object {
    uintptr_t lo, hi;    /* the object's section holding fatbins, in memory */
    uintptr_t rel_lo, rel_hi; /* -rdc: the units' own fatbins (__nv_relfatbin), PTX and all; or 0, 0 */
    rgpu_companion comp; /* size 0: the section holds no PTX */
    struct object *next;
} object;

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static object *objects;

typedef struct { const void *addr; const char *path; uintptr_t base; int found; } which;

static int find_object(struct dl_phdr_info *info, size_t n, void *arg) {
    which *w = arg;
    for (int i = 0; i < info->dlpi_phnum; i++) {
        const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
        uintptr_t lo = info->dlpi_addr + ph->p_vaddr;
        if (ph->p_type == PT_LOAD && (uintptr_t)w->addr >= lo && (uintptr_t)w->addr < lo + ph->p_memsz) {
            w->path = info->dlpi_name && info->dlpi_name[0] ? info->dlpi_name : "/proc/self/exe";
            w->base = info->dlpi_addr;
            w->found = 1;
            return 1;
        }
    }
    (void)n;
    return 0;
}

/* Where the section of the ELF file at `path` that holds `addr` is mapped, given the object's load
 * base: .nv_fatbin for nvcc's output and most libraries; cuFFT keeps its kernels in .ldata. And where
 * __nv_relfatbin is, if the object has one: an -rdc program's units, which nvlink linked into the
 * SASS-only image in .nv_fatbin (the software GPU links their PTX instead, companion.py). */
static int fatbin_section(const char *path, uintptr_t base, const void *addr, uintptr_t *lo, uintptr_t *hi,
                          uintptr_t *rel_lo, uintptr_t *rel_hi) {
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) return -1;
    ElfW(Ehdr) eh;
    int rc = -1;
    if (pread(fd, &eh, sizeof eh, 0) == sizeof eh && !memcmp(eh.e_ident, ELFMAG, SELFMAG) &&
        eh.e_shentsize == sizeof(ElfW(Shdr)) && eh.e_shnum > 0 && eh.e_shstrndx < eh.e_shnum) {
        size_t bytes = (size_t)eh.e_shnum * sizeof(ElfW(Shdr));
        ElfW(Shdr) *sh = malloc(bytes);
        if (sh && pread(fd, sh, bytes, (off_t)eh.e_shoff) == (ssize_t)bytes) {
            const ElfW(Shdr) *names = &sh[eh.e_shstrndx];
            char *strtab = malloc(names->sh_size + 1);
            if (strtab && pread(fd, strtab, names->sh_size, (off_t)names->sh_offset) == (ssize_t)names->sh_size) {
                strtab[names->sh_size] = 0;
                for (int i = 0; i < eh.e_shnum; i++) {
                    if (!sh[i].sh_addr || sh[i].sh_type != SHT_PROGBITS) continue;
                    if ((uintptr_t)addr >= base + sh[i].sh_addr && (uintptr_t)addr < base + sh[i].sh_addr + sh[i].sh_size) {
                        *lo = base + sh[i].sh_addr;
                        *hi = *lo + sh[i].sh_size;
                        rc = 0;
                    } else if (sh[i].sh_name < names->sh_size && !strcmp(strtab + sh[i].sh_name, "__nv_relfatbin")) {
                        *rel_lo = base + sh[i].sh_addr;
                        *rel_hi = *rel_lo + sh[i].sh_size;
                    }
                }
            }
            free(strtab);
        }
        free(sh);
    }
    close(fd);
    return rc;
}

static int has_ptx(const uint8_t *c, uint16_t hsize, uint64_t fsize) {
    for (uint64_t off = hsize; off + 16 <= (uint64_t)hsize + fsize;) {
        uint16_t kind;
        uint32_t ehsize;
        uint64_t psize;
        memcpy(&kind, c + off, 2);
        memcpy(&ehsize, c + off + 4, 4);
        memcpy(&psize, c + off + 8, 8);
        if (kind == ENTRY_KIND_PTX) return 1;
        if (!ehsize) break;
        off += ehsize + psize;
    }
    return 0;
}

/* The PTX-bearing containers of [lo, hi) appended to the companion. */
static void gather(object *o, uintptr_t lo, uintptr_t hi, uint8_t **bufp, size_t *capp) {
    uint8_t *buf = *bufp;
    size_t cap = *capp;
    /* containers are 8-byte aligned; the section need not be (cuFFT's .ldata starts at ...874) */
    for (uintptr_t p = (lo + 7) & ~(uintptr_t)7; p + 16 <= hi;) {
        uint32_t magic;
        memcpy(&magic, (const void *)p, 4);
        if (magic != CONTAINER_MAGIC) { p += 8; continue; }
        uint16_t hsize;
        uint64_t fsize;
        memcpy(&hsize, (const void *)(p + 6), 2);
        memcpy(&fsize, (const void *)(p + 8), 8);
        size_t len = hsize + fsize;
        if (p + len > hi || len < 16) { p += 8; continue; }
        if (has_ptx((const uint8_t *)p, hsize, fsize)) {
            size_t padded = (len + 7) & ~(size_t)7;
            if (o->comp.size + padded > cap) {
                cap = (o->comp.size + padded) * 2;
                buf = realloc(buf, cap);
            }
            memcpy(buf + o->comp.size, (const void *)p, len);
            memset(buf + o->comp.size + len, 0, padded - len);
            o->comp.size += padded;
        }
        p = (p + len + 7) & ~(uintptr_t)7;
    }
    *bufp = buf;
    *capp = cap;
}

static void build(object *o) {
    size_t cap = 0;
    uint8_t *buf = NULL;
    gather(o, o->lo, o->hi, &buf, &cap);
    if (o->rel_hi) gather(o, o->rel_lo, o->rel_hi, &buf, &cap);
    o->comp.data = buf;
    if (o->comp.size) rgpu_sha256_hex(buf, o->comp.size, o->comp.digest);
    rgpu_log(RGPU_LOG_INFO, "PTX companion of SASS-only modules (a library's, an -rdc program's): %zu bytes",
             o->comp.size);
}

const rgpu_companion *rgpu_companion_of(const void *image) {
    pthread_mutex_lock(&mu);
    object *o = objects;
    while (o && !((uintptr_t)image >= o->lo && (uintptr_t)image < o->hi)) o = o->next;
    if (!o) {
        which w = {image, NULL, 0, 0};
        uintptr_t lo, hi, rel_lo = 0, rel_hi = 0;
        dl_iterate_phdr(find_object, &w);
        if (w.found && fatbin_section(w.path, w.base, image, &lo, &hi, &rel_lo, &rel_hi) == 0 &&
            (uintptr_t)image >= lo && (uintptr_t)image < hi) {
            o = calloc(1, sizeof *o);
            o->lo = lo, o->hi = hi, o->rel_lo = rel_lo, o->rel_hi = rel_hi;
            build(o);
            o->next = objects;
            objects = o;
        }
    }
    pthread_mutex_unlock(&mu);
    return o && o->comp.size ? &o->comp : NULL;
}
