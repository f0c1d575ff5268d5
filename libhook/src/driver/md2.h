/* MD2 and HMAC-MD2 (md2.c). */
#ifndef RGPU_MD2_H
#define RGPU_MD2_H
#include <stddef.h>
#include <stdint.h>

typedef struct {
    uint8_t x[48];        /* the state: x[0..16] is the digest once finished */
    uint8_t checksum[16];
    uint8_t block[16];
    size_t count;         /* bytes of `block` filled */
} rgpu_md2;

void rgpu_md2_init(rgpu_md2 *m);
void rgpu_md2_update(rgpu_md2 *m, const void *data, size_t n);
void rgpu_md2_final(rgpu_md2 *m, uint8_t out[16]);

/* HMAC over MD2 with a 16-byte key (MD2's block size): init, rgpu_md2_update the message, final. */
void rgpu_hmac_md2_init(rgpu_md2 *inner, const uint8_t key[16]);
void rgpu_hmac_md2_final(rgpu_md2 *inner, const uint8_t key[16], uint8_t out[16]);
#endif
