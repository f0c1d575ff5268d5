/* A minimal msgpack writer and reader: the subset rgpu's wire format uses (nil, bool, int, float64,
 * str, bin, array, map). Kept here rather than as a dependency so librgpu.so needs only libzmq. */
#ifndef RGPU_MPACK_H
#define RGPU_MPACK_H
#include <stddef.h>
#include <stdint.h>

typedef struct {
    uint8_t *buf;
    size_t len, cap;
    int oom;
    int owned; /* buf is the writer's (heap); 0 while it writes into a caller's buffer */
} mp_writer;

void mp_init(mp_writer *w, size_t cap);
/* Writes into `buf` (e.g. on the stack) and moves to the heap only if it outgrows it. */
void mp_init_inline(mp_writer *w, void *buf, size_t cap);
void mp_free(mp_writer *w);
void mp_reset(mp_writer *w);
void mp_raw(mp_writer *w, const void *p, size_t n);
void mp_nil(mp_writer *w);
void mp_bool(mp_writer *w, int v);
void mp_int(mp_writer *w, int64_t v);
void mp_uint(mp_writer *w, uint64_t v);
/* v as a msgpack uint32 (or uint64 past it): the same width for every value below 2^32 */
void mp_uint_wide(mp_writer *w, uint64_t v);
void mp_double(mp_writer *w, double v);
void mp_str(mp_writer *w, const char *s);
void mp_strn(mp_writer *w, const char *s, size_t n);
void mp_bin(mp_writer *w, const void *p, size_t n);
void mp_array(mp_writer *w, uint32_t n);
void mp_map(mp_writer *w, uint32_t n);

enum { MP_NIL, MP_BOOL, MP_INT, MP_UINT, MP_FLOAT, MP_STR, MP_BIN, MP_ARRAY, MP_MAP, MP_ERR };

typedef struct {
    int type;
    union { int64_t i; uint64_t u; double f; int b; } v;
    const uint8_t *p; /* str/bin payload */
    uint32_t n;       /* str/bin length, array/map count */
} mp_obj;

typedef struct {
    const uint8_t *p, *end;
    int err;
} mp_reader;

void mp_rinit(mp_reader *r, const void *p, size_t n);
int mp_next(mp_reader *r, mp_obj *o);   /* reads one header (containers: count only); 0 ok */
int mp_skip(mp_reader *r);              /* skips one whole value */
int64_t mp_as_int(const mp_obj *o);
uint64_t mp_as_uint(const mp_obj *o);
double mp_as_double(const mp_obj *o);
/* Finds key `k` in a map whose header was just read (n entries); leaves the reader at its value. */
int mp_find_key(mp_reader *r, uint32_t n, const char *k);
#endif
