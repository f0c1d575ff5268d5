/* Large host-to-host copies shared out among a few threads (copies.c). One thread's memcpy moves
 * 6-8 GB/s on a GPU host, slower than the driver's own pageable copies; the same-host path copies every
 * pageable byte once through the session segment, so that one thread would set the speed. */
#ifndef RGPU_COPIES_H
#define RGPU_COPIES_H
#include <stddef.h>

/* memcpy(dst, src, n) for ranges that do not overlap; returns when every byte is in place (the
 * caller's later stores, such as a progress word, come after all of them). */
void rgpu_copy(void *dst, const void *src, size_t n);

/* The threads a large copy uses, the caller's included: RGPU_COPY_THREADS, else from the CPUs online. */
int rgpu_copy_threads(void);

#endif
