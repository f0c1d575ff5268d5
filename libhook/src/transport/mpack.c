#include "mpack.h"

#include <stdlib.h>
#include <string.h>

void mp_init(mp_writer *w, size_t cap) {
    w->buf = malloc(cap ? cap : 64);
    w->cap = cap ? cap : 64;
    w->len = 0;
    w->oom = w->buf == NULL;
    w->owned = 1;
}
void mp_init_inline(mp_writer *w, void *buf, size_t cap) {
    w->buf = buf;
    w->cap = cap;
    w->len = 0;
    w->oom = 0;
    w->owned = 0;
}
void mp_free(mp_writer *w) {
    if (w->owned) free(w->buf);
    w->buf = NULL;
    w->len = w->cap = 0;
}
void mp_reset(mp_writer *w) { w->len = 0; }

void mp_raw(mp_writer *w, const void *p, size_t n) {
    if (w->oom) return;
    if (w->len + n > w->cap) {
        size_t cap = w->cap * 2;
        while (cap < w->len + n) cap *= 2;
        uint8_t *nb = w->owned ? realloc(w->buf, cap) : malloc(cap);
        if (!nb) { w->oom = 1; return; }
        if (!w->owned) memcpy(nb, w->buf, w->len);
        w->owned = 1;
        w->buf = nb;
        w->cap = cap;
    }
    memcpy(w->buf + w->len, p, n);
    w->len += n;
}

static void put_be(mp_writer *w, uint8_t tag, uint64_t v, int bytes) {
    uint8_t b[9];
    b[0] = tag;
    for (int i = 0; i < bytes; i++) b[1 + i] = (uint8_t)(v >> (8 * (bytes - 1 - i)));
    mp_raw(w, b, 1 + bytes);
}

void mp_nil(mp_writer *w) { uint8_t b = 0xc0; mp_raw(w, &b, 1); }
void mp_bool(mp_writer *w, int v) { uint8_t b = v ? 0xc3 : 0xc2; mp_raw(w, &b, 1); }

void mp_uint(mp_writer *w, uint64_t v) {
    if (v < 128) { uint8_t b = (uint8_t)v; mp_raw(w, &b, 1); }
    else if (v <= 0xff) put_be(w, 0xcc, v, 1);
    else if (v <= 0xffff) put_be(w, 0xcd, v, 2);
    else mp_uint_wide(w, v);
}

void mp_uint_wide(mp_writer *w, uint64_t v) {
    if (v <= 0xffffffffu) put_be(w, 0xce, v, 4);
    else put_be(w, 0xcf, v, 8);
}

void mp_int(mp_writer *w, int64_t v) {
    if (v >= 0) { mp_uint(w, (uint64_t)v); return; }
    if (v >= -32) { uint8_t b = (uint8_t)(int8_t)v; mp_raw(w, &b, 1); }
    else if (v >= INT8_MIN) put_be(w, 0xd0, (uint64_t)v, 1);
    else if (v >= INT16_MIN) put_be(w, 0xd1, (uint64_t)v, 2);
    else if (v >= INT32_MIN) put_be(w, 0xd2, (uint64_t)v, 4);
    else put_be(w, 0xd3, (uint64_t)v, 8);
}

void mp_double(mp_writer *w, double v) {
    uint64_t u;
    memcpy(&u, &v, 8);
    put_be(w, 0xcb, u, 8);
}

void mp_strn(mp_writer *w, const char *s, size_t n) {
    if (n < 32) { uint8_t b = (uint8_t)(0xa0 | n); mp_raw(w, &b, 1); }
    else if (n <= 0xff) put_be(w, 0xd9, n, 1);
    else if (n <= 0xffff) put_be(w, 0xda, n, 2);
    else put_be(w, 0xdb, n, 4);
    mp_raw(w, s, n);
}
void mp_str(mp_writer *w, const char *s) { if (!s) mp_nil(w); else mp_strn(w, s, strlen(s)); }

void mp_bin(mp_writer *w, const void *p, size_t n) {
    if (n <= 0xff) put_be(w, 0xc4, n, 1);
    else if (n <= 0xffff) put_be(w, 0xc5, n, 2);
    else put_be(w, 0xc6, n, 4);
    mp_raw(w, p, n);
}

void mp_array(mp_writer *w, uint32_t n) {
    if (n < 16) { uint8_t b = (uint8_t)(0x90 | n); mp_raw(w, &b, 1); }
    else if (n <= 0xffff) put_be(w, 0xdc, n, 2);
    else put_be(w, 0xdd, n, 4);
}

void mp_map(mp_writer *w, uint32_t n) {
    if (n < 16) { uint8_t b = (uint8_t)(0x80 | n); mp_raw(w, &b, 1); }
    else if (n <= 0xffff) put_be(w, 0xde, n, 2);
    else put_be(w, 0xdf, n, 4);
}

void mp_rinit(mp_reader *r, const void *p, size_t n) {
    r->p = p;
    r->end = (const uint8_t *)p + n;
    r->err = 0;
}

static uint64_t get_be(mp_reader *r, int bytes) {
    if (r->end - r->p < bytes) { r->err = 1; return 0; }
    uint64_t v = 0;
    for (int i = 0; i < bytes; i++) v = (v << 8) | r->p[i];
    r->p += bytes;
    return v;
}

static int payload(mp_reader *r, mp_obj *o, int type, uint32_t n) {
    o->type = type;
    o->n = n;
    if ((size_t)(r->end - r->p) < n) { r->err = 1; return -1; }
    o->p = r->p;
    r->p += n;
    return 0;
}

int mp_next(mp_reader *r, mp_obj *o) {
    o->type = MP_ERR;
    if (r->err || r->p >= r->end) { r->err = 1; return -1; }
    uint8_t t = *r->p++;
    if (t < 0x80) { o->type = MP_UINT; o->v.u = t; }
    else if (t >= 0xe0) { o->type = MP_INT; o->v.i = (int8_t)t; }
    else if ((t & 0xf0) == 0x80) { o->type = MP_MAP; o->n = t & 0x0f; }
    else if ((t & 0xf0) == 0x90) { o->type = MP_ARRAY; o->n = t & 0x0f; }
    else if ((t & 0xe0) == 0xa0) return payload(r, o, MP_STR, t & 0x1f);
    else switch (t) {
        case 0xc0: o->type = MP_NIL; break;
        case 0xc2: case 0xc3: o->type = MP_BOOL; o->v.b = t == 0xc3; break;
        case 0xcc: o->type = MP_UINT; o->v.u = get_be(r, 1); break;
        case 0xcd: o->type = MP_UINT; o->v.u = get_be(r, 2); break;
        case 0xce: o->type = MP_UINT; o->v.u = get_be(r, 4); break;
        case 0xcf: o->type = MP_UINT; o->v.u = get_be(r, 8); break;
        case 0xd0: o->type = MP_INT; o->v.i = (int8_t)get_be(r, 1); break;
        case 0xd1: o->type = MP_INT; o->v.i = (int16_t)get_be(r, 2); break;
        case 0xd2: o->type = MP_INT; o->v.i = (int32_t)get_be(r, 4); break;
        case 0xd3: o->type = MP_INT; o->v.i = (int64_t)get_be(r, 8); break;
        case 0xca: { uint32_t u = (uint32_t)get_be(r, 4); float f; memcpy(&f, &u, 4); o->type = MP_FLOAT; o->v.f = f; break; }
        case 0xcb: { uint64_t u = get_be(r, 8); o->type = MP_FLOAT; memcpy(&o->v.f, &u, 8); break; }
        case 0xd9: return payload(r, o, MP_STR, (uint32_t)get_be(r, 1));
        case 0xda: return payload(r, o, MP_STR, (uint32_t)get_be(r, 2));
        case 0xdb: return payload(r, o, MP_STR, (uint32_t)get_be(r, 4));
        case 0xc4: return payload(r, o, MP_BIN, (uint32_t)get_be(r, 1));
        case 0xc5: return payload(r, o, MP_BIN, (uint32_t)get_be(r, 2));
        case 0xc6: return payload(r, o, MP_BIN, (uint32_t)get_be(r, 4));
        case 0xdc: o->type = MP_ARRAY; o->n = (uint32_t)get_be(r, 2); break;
        case 0xdd: o->type = MP_ARRAY; o->n = (uint32_t)get_be(r, 4); break;
        case 0xde: o->type = MP_MAP; o->n = (uint32_t)get_be(r, 2); break;
        case 0xdf: o->type = MP_MAP; o->n = (uint32_t)get_be(r, 4); break;
        default: r->err = 1; return -1;
    }
    return r->err ? -1 : 0;
}

int mp_skip(mp_reader *r) {
    mp_obj o;
    if (mp_next(r, &o)) return -1;
    uint64_t items = o.type == MP_ARRAY ? o.n : o.type == MP_MAP ? 2ull * o.n : 0;
    for (uint64_t i = 0; i < items; i++)
        if (mp_skip(r)) return -1;
    return 0;
}

int64_t mp_as_int(const mp_obj *o) {
    return o->type == MP_INT ? o->v.i : o->type == MP_UINT ? (int64_t)o->v.u :
           o->type == MP_FLOAT ? (int64_t)o->v.f : o->type == MP_BOOL ? o->v.b : 0;
}
uint64_t mp_as_uint(const mp_obj *o) { return o->type == MP_UINT ? o->v.u : (uint64_t)mp_as_int(o); }
double mp_as_double(const mp_obj *o) { return o->type == MP_FLOAT ? o->v.f : (double)mp_as_int(o); }

int mp_find_key(mp_reader *r, uint32_t n, const char *k) {
    size_t kl = strlen(k);
    for (uint32_t i = 0; i < n; i++) {
        mp_obj key;
        if (mp_next(r, &key)) return -1;
        if (key.type == MP_STR && key.n == kl && memcmp(key.p, k, kl) == 0) return 0;
        if (mp_skip(r)) return -1;
    }
    return -1;
}
