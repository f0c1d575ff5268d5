/* The address registry: one place that answers "what is this range, on which device, reachable how"
 * (addresses.c). Device allocations per device (the calls whose records say `allocates` note them,
 * `frees` forget them), pinned and registered host ranges (hostmem.c), and managed ranges (managed.c)
 * are registered here by the module that makes them; a copy asks once, for each side, with
 * rgpu_addr_of. */
#ifndef RGPU_ADDRESSES_H
#define RGPU_ADDRESSES_H
#include <stddef.h>
#include <stdint.h>

struct rgpu_pinseg;

/* A pinned host range: allocated (cudaMallocHost, ...) or registered (cudaHostRegister). */
typedef struct {
    uintptr_t p;
    size_t n;
    unsigned flags;          /* what the program asked for (cudaHostGetFlags) */
    int registered;
    struct rgpu_pinseg *seg; /* the shared segment it lives in, or NULL (hostmem.c) */
    size_t lead;             /* where p lies in the segment's data (a registered range moved into one starts mid-page) */
} rgpu_host_range;

enum {
    RGPU_ADDR_UNKNOWN = 0, /* none of the program's own: host memory, or memory only its server knows */
    RGPU_ADDR_MANAGED,     /* managed memory (one address on both sides, managed.c) */
    RGPU_ADDR_PINNED,      /* pinned or registered host memory (hostmem.c) */
    RGPU_ADDR_DEVICE,      /* a device allocation the program made */
};

/* What [p, +n) is. */
typedef struct {
    int kind;               /* RGPU_ADDR_* of the range holding p */
    int dev;                /* DEVICE, MANAGED: the device whose memory it is; else -1 */
    uint64_t base;          /* DEVICE, MANAGED: the range holding p: its start and size */
    size_t size;
    int within;             /* all of [p, +n) lies in that one range */
    int host_side;          /* MANAGED: attached to the host (cudaMemAttachHost): the host copy is it */
    rgpu_host_range pinned; /* PINNED: the entry */
    size_t seg_off;         /* PINNED, within, in a segment: where p is in the segment */
} rgpu_addr;

/* One lookup, one lock: managed ranges first, then pinned host ranges, then device allocations (the
 * current device's first). UNKNOWN is no answer: the servers may know it (cudaPointerGetAttributes). */
void rgpu_addr_of(const void *p, size_t n, rgpu_addr *a);

/* Device allocations (RGPU_ALLOC_TABLE=0 turns their table off). find: 1 and its device (the current
 * one's first) and start when p lies in one, 0 when the servers must be asked. */
void rgpu_allocs_note(int dev, uint64_t base, size_t size);
int rgpu_allocs_find(uint64_t p, int *dev, uint64_t *base);
void rgpu_allocs_forget(int dev, uint64_t base); /* dev -1: whichever device has it */
void rgpu_allocs_drop(int dev);
/* placed.c: cudaFree of an allocation this process placed (1 and *rc), else 0; a device's placements
 * forgotten (cudaDeviceReset) */
int rgpu_placed_free(int face, int dev, uint64_t addr, int *rc);
void rgpu_placed_drop(int dev) __attribute__((weak)); /* weak: the table is built alone by its tests */

/* Pinned host ranges (hostmem.c registers them). add: 0, or ALREADY_REGISTERED when part of it is
 * pinned already, or out of memory; take: 1 and the entry when the range starting at p, pinned that
 * way, was there (it is gone now). */
int rgpu_pinned_add(const rgpu_host_range *e);
int rgpu_pinned_take(uintptr_t p, int registered, rgpu_host_range *out);
int rgpu_pinned_get(const void *p, rgpu_host_range *out); /* 1 and the entry holding p */
int rgpu_pinned_pages_taken(uintptr_t lo, uintptr_t hi);  /* another range's pages among [lo, hi)? */
void rgpu_pinned_each_segment(void (*fn)(struct rgpu_pinseg *));
/* 1 when [p, +n) lies in one range of pinned memory (allocated or registered) */
int rgpu_pinned_whole(const void *p, size_t n);

/* Managed ranges (managed.c registers them): [base, +size) of device dev, attached to the host or not. */
void rgpu_managed_note(uint64_t base, size_t size, int dev, int host_side);
void rgpu_managed_attached(uint64_t base, int host_side);
void rgpu_managed_forget(uint64_t base);
/* where p's data is: 0 not managed memory, 1 managed memory whose device copy copies must use, 2
 * managed memory attached to the host (the host copy is it) */
int rgpu_managed_side(const void *p);
/* What a program set or was told of the allocation starting at base (dev: its device, -1 host
 * memory), kept until the registry sees it freed: the BUFFER_ID it is known by (made at the first
 * question, never given again; 0 out of memory) and its SYNC_MEMOPS flag (1 until set). */
uint64_t rgpu_addr_buffer_id(uint64_t base, int dev);
int rgpu_addr_sync_memops(uint64_t base);
int rgpu_addr_set_sync_memops(uint64_t base, int dev, int on);
#endif
