/* The digest the checkpoint copier (server/checkpoint/memory.py) compares a chunk of device memory
 * with, to send only what changed since the last checkpoint or pre-copy round: device_digest.h's
 * function, the one a GPU takes of its own memory with the cuda backend's kernel
 * (server/backends/cuda/digests.py), so that a digest taken there compares with one taken here of
 * the bytes a round read and sent. It is taken of every chunk the host reads, so its speed is part of
 * the pause: SHA-256 ran at 1.4 GB/s here (SHA-NI), this about 14 GB/s. It is not a cryptographic
 * digest, and need not be: the memory is the program's own and the question is only "did it
 * change?". */
#include <stdint.h>

#include "device_digest.h"

void rgpu_digest_chunk(const void *data, uint64_t n, uint64_t out[2]) { rgpu_device_digest(data, n, out); }
