/* MD2 (RFC 1319) and HMAC-MD2 (RFC 2104 with MD2's 16-byte block): the keyed hash NVIDIA's runtime
 * checks through the driver's INTEGRITY_CHECK export table (export_tables.c). Written from the RFCs;
 * the one input that is NVIDIA's is the key, which export_tables.c holds. */
#include "md2.h"

#include <string.h>

/* RFC 1319's permutation of 0..255 built from the digits of pi. */
static const uint8_t PI_SUBST[256] = {
    41,  46,  67,  201, 162, 216, 124, 1,   61,  54,  84,  161, 236, 240, 6,   19,  98,  167, 5,   243, 192, 199,
    115, 140, 152, 147, 43,  217, 188, 76,  130, 202, 30,  155, 87,  60,  253, 212, 224, 22,  103, 66,  111, 24,
    138, 23,  229, 18,  190, 78,  196, 214, 218, 158, 222, 73,  160, 251, 245, 142, 187, 47,  238, 122, 169, 104,
    121, 145, 21,  178, 7,   63,  148, 194, 16,  137, 11,  34,  95,  33,  128, 127, 93,  154, 90,  144, 50,  39,
    53,  62,  204, 231, 191, 247, 151, 3,   255, 25,  48,  179, 72,  165, 181, 209, 215, 94,  146, 42,  172, 86,
    170, 198, 79,  184, 56,  210, 150, 164, 125, 182, 118, 252, 107, 226, 156, 116, 4,   241, 69,  157, 112, 89,
    100, 113, 135, 32,  134, 91,  207, 101, 230, 45,  168, 2,   27,  96,  37,  173, 174, 176, 185, 246, 28,  70,
    97,  105, 52,  64,  126, 15,  85,  71,  163, 35,  221, 81,  175, 58,  195, 92,  249, 206, 186, 197, 234, 38,
    44,  83,  13,  110, 133, 40,  132, 9,   211, 223, 205, 244, 65,  129, 77,  82,  106, 220, 55,  200, 108, 193,
    171, 250, 36,  225, 123, 8,   12,  189, 177, 74,  120, 136, 149, 139, 227, 99,  232, 109, 233, 203, 213, 254,
    59,  0,   29,  57,  242, 239, 183, 14,  102, 88,  208, 228, 166, 119, 114, 248, 235, 117, 75,  10,  49,  68,
    80,  180, 143, 237, 31,  26,  219, 153, 141, 51,  159, 17,  131, 20};

void rgpu_md2_init(rgpu_md2 *m) { memset(m, 0, sizeof *m); }

/* One 16-byte block: extend the state with the block and state^block, mix 18 rounds, and fold the
 * block into the checksum. */
static void transform(rgpu_md2 *m) {
    for (int i = 0; i < 16; i++) {
        m->x[16 + i] = m->block[i];
        m->x[32 + i] = (uint8_t)(m->x[i] ^ m->block[i]);
    }
    unsigned t = 0;
    for (int round = 0; round < 18; round++) {
        for (int k = 0; k < 48; k++) t = m->x[k] ^= PI_SUBST[t];
        t = (t + (unsigned)round) & 0xff;
    }
    uint8_t l = m->checksum[15];
    for (int i = 0; i < 16; i++) l = m->checksum[i] ^= PI_SUBST[m->block[i] ^ l];
}

void rgpu_md2_update(rgpu_md2 *m, const void *data, size_t n) {
    const uint8_t *p = data;
    while (n--) {
        m->block[m->count++] = *p++;
        if (m->count == 16) {
            transform(m);
            m->count = 0;
        }
    }
}

void rgpu_md2_final(rgpu_md2 *m, uint8_t out[16]) {
    uint8_t pad[16];
    size_t n = 16 - m->count;
    memset(pad, (int)n, n);
    rgpu_md2_update(m, pad, n);
    uint8_t sum[16];
    memcpy(sum, m->checksum, 16);
    rgpu_md2_update(m, sum, 16);
    memcpy(out, m->x, 16);
}

void rgpu_hmac_md2_init(rgpu_md2 *inner, const uint8_t key[16]) {
    uint8_t k[16];
    for (int i = 0; i < 16; i++) k[i] = key[i] ^ 0x36;
    rgpu_md2_init(inner);
    rgpu_md2_update(inner, k, 16);
}

void rgpu_hmac_md2_final(rgpu_md2 *inner, const uint8_t key[16], uint8_t out[16]) {
    uint8_t digest[16], k[16];
    rgpu_md2_final(inner, digest);
    for (int i = 0; i < 16; i++) k[i] = key[i] ^ 0x5c;
    rgpu_md2 outer;
    rgpu_md2_init(&outer);
    rgpu_md2_update(&outer, k, 16);
    rgpu_md2_update(&outer, digest, 16);
    rgpu_md2_final(&outer, out);
}
