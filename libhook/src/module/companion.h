/* PTX companions of SASS-only modules (companion.c). */
#ifndef RGPU_COMPANION_H
#define RGPU_COMPANION_H
#include <stddef.h>
#include <stdint.h>

#define RGPU_COMPANION_CHUNK ((size_t)16 << 20) /* bytes per frame when a bundle travels */

typedef struct {
    const uint8_t *data; /* the library's PTX-bearing fatbin containers, back to back */
    size_t size;
    char digest[65];
} rgpu_companion;

/* The PTX bundle of the library (or program) whose .nv_fatbin section holds `image`; NULL when the
 * image lies in no loaded object's fatbin section or that section has no PTX. Built once per object. */
const rgpu_companion *rgpu_companion_of(const void *image);
#endif
