/* Same-host fast path: each session may own a POSIX shared-memory segment the worker maps too.
 *
 * The client creates it (O_EXCL, mode 0600), writes a random nonce in its first bytes and offers
 * {name, size, nonce, boot id} in the attach. The worker maps it only if it runs on the same boot
 * of the same kernel and reads the same nonce there; it answers yes or no, and the name is unlinked
 * either way (both ends keep their mappings). After that a synchronous copy's data moves through
 * the segment: the call and its reply still travel on the ZeroMQ channel, only the bulk frames are
 * replaced by [offset, length] regions, so ordering, errors and timeouts are those of any call.
 * Pages are reserved (posix_fallocate) before first use, so a full /dev/shm means "use frames",
 * never SIGBUS. RGPU_SHM=0 turns the path off; RGPU_SHM_SIZE (MiB, default 256) sizes it. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

#include "rgpu_call.h"
#include "ring.h"
#include "session.h"

int rgpu_shm_offer(rgpu_session *s, int dev, mp_writer *w) {
    const char *e = getenv("RGPU_SHM");
    if (e && !strcmp(e, "0")) return -1;
    char boot[64] = "";
    FILE *f = fopen("/proc/sys/kernel/random/boot_id", "r");
    if (!f) return -1;
    if (!fgets(boot, sizeof boot, f)) boot[0] = 0;
    fclose(f);
    boot[strcspn(boot, "\n")] = 0;
    const char *sz = getenv("RGPU_SHM_SIZE");
    size_t size = (size_t)(sz && atol(sz) > 0 ? atol(sz) : 256) << 20;
    unsigned rnd = 0;
    if (getrandom(&rnd, sizeof rnd, 0) != sizeof rnd) rnd = (unsigned)getpid() * 2654435761u;
    snprintf(s->shm_name, sizeof s->shm_name, "/rgpu-%d-%d-%08x", (int)getpid(), dev, rnd);
    int fd = shm_open(s->shm_name, O_CREAT | O_EXCL | O_RDWR, 0600);
    if (fd < 0) return -1;
    /* the call ring (ring.h) after the data, its pages reserved at once */
    size_t ring = rgpu_ring_wanted() ? RGPU_RING_BYTES : 0, total = size + RGPU_SHM_DATA + ring;
    void *base = MAP_FAILED;
    if (ftruncate(fd, (off_t)total) == 0)
        base = mmap(NULL, total, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    if (base == MAP_FAILED || posix_fallocate(fd, 0, RGPU_SHM_DATA) != 0 ||
        (ring && posix_fallocate(fd, (off_t)(total - ring), (off_t)ring) != 0)) {
        if (base != MAP_FAILED) munmap(base, total);
        close(fd);
        shm_unlink(s->shm_name);
        return -1;
    }
    uint8_t nonce[16];
    if (getrandom(nonce, sizeof nonce, 0) != sizeof nonce)
        for (int i = 0; i < 16; i++) nonce[i] = (uint8_t)(rnd >> (i % 4 * 8)) ^ (uint8_t)i;
    memcpy(base, nonce, sizeof nonce);
    s->shm_fd = fd;
    s->shm_base = base;
    s->shm_size = size;
    s->shm_ready = 0;
    s->ring_bytes = ring;
    s->ring = ring ? (char *)base + size + RGPU_SHM_DATA : NULL;
    s->ring_on = 0;
    mp_map(w, ring ? 5 : 4);
    mp_str(w, "name"); mp_str(w, s->shm_name);
    mp_str(w, "size"); mp_uint(w, total);
    if (ring) { mp_str(w, "ring"); mp_uint(w, size + RGPU_SHM_DATA); }
    mp_str(w, "nonce"); mp_bin(w, nonce, sizeof nonce);
    mp_str(w, "boot"); mp_str(w, boot);
    return 0;
}

void rgpu_shm_answer(rgpu_session *s, int accepted) {
    if (!s->shm_base) return;
    shm_unlink(s->shm_name);
    if (accepted) {
        rgpu_log(RGPU_LOG_INFO, "bulk data to %s moves through shared memory (%zu MiB)", s->url, s->shm_size >> 20);
        rgpu_ring_attached(s);
        return;
    }
    rgpu_shm_unmap(s);
}

void rgpu_shm_unmap(rgpu_session *s) {
    s->ring = NULL;
    s->ring_on = s->ring_wait = 0;
    if (!s->shm_base) return;
    munmap(s->shm_base, s->shm_size + RGPU_SHM_DATA + s->ring_bytes);
    close(s->shm_fd);
    s->shm_base = NULL;
    s->shm_size = 0;
    s->ring_bytes = 0;
}

/* Room for n bytes of data at RGPU_SHM_DATA, its pages reserved; 0, or -1: use frames. */
int rgpu_shm_reserve(rgpu_session *s, size_t n) {
    if (!s->shm_base || n > s->shm_size) return -1;
    if (n > s->shm_ready) {
        if (posix_fallocate(s->shm_fd, RGPU_SHM_DATA + (off_t)s->shm_ready, (off_t)(n - s->shm_ready)) != 0) return -1;
        s->shm_ready = n;
    }
    return 0;
}
