/* Pitched 2D copies (cudaMemcpy2D, cudaMemcpy2DAsync). Only the rows travel: host rows are packed
 * into one frame for H2D and unpacked from one for D2H; the server walks the device pitch. */
#include <stdlib.h>
#include <string.h>

#include "graph.h"
#include "rgpu_call.h"
#include "rgpu_ids.h"

enum { H2H = 0, H2D = 1, D2H = 2, D2D = 3 };
#define INVALID_PITCH 12 /* cudaErrorInvalidPitchValue */

static int copy_2d(void *dst, size_t dpitch, const void *src, size_t spitch, size_t width, size_t height, int kind,
                   void *stream, int async) {
    if (width == 0 || height == 0) return RGPU_SUCCESS;
    if (!dst || !src || kind < 0 || kind > 4) return rgpu_invalid_value(RGPU_RUNTIME);
    if (dpitch < width || spitch < width) return rgpu_record(RGPU_RUNTIME, INVALID_PITCH);
    kind = rgpu_resolve_kind(kind, dst, src);
    if (async && rgpu_capturing(stream)) { /* a copy node: the host rows are read when the graph runs */
        rgpu_gnode proto = {.type = NODE_MEMCPY};
        proto.u.m = (rgpu_copy_node){dst, src, dpitch, spitch, width, height, kind};
        int rc;
        if (rgpu_capture_append(stream, &proto, &rc)) return rgpu_record(RGPU_RUNTIME, rc);
    }
    if (!async) {
        int rc = rgpu_capture_guard(RGPU_RUNTIME, NULL, 1); /* on the legacy stream */
        if (rc) return rc;
    }
    if (kind == H2H) {
        for (size_t r = 0; r < height; r++)
            memmove((char *)dst + r * dpitch, (const char *)src + r * spitch, width);
        return RGPU_SUCCESS;
    }
    size_t packed = width * height;
    char *rows = NULL;
    if (kind != D2D) {
        rows = malloc(packed);
        if (!rows) return rgpu_record(RGPU_RUNTIME, RGPU_OUT_OF_MEMORY);
    }
    if (kind == H2D)
        for (size_t r = 0; r < height; r++) memcpy(rows + r * width, (const char *)src + r * spitch, width);
    rgpu_call c;
    rgpu_begin(&c, async ? RGPU_ID_cudaMemcpy2DAsync : RGPU_ID_cudaMemcpy2D, async ? "cudaMemcpy2DAsync" : "cudaMemcpy2D",
               RGPU_RUNTIME);
    rgpu_put_i(&c, kind);
    rgpu_put_u(&c, kind == D2H ? 0 : (uint64_t)(uintptr_t)dst);
    rgpu_put_u(&c, dpitch);
    rgpu_put_u(&c, kind == H2D ? 0 : (uint64_t)(uintptr_t)src);
    rgpu_put_u(&c, spitch);
    rgpu_put_u(&c, width);
    rgpu_put_u(&c, height);
    if (async) rgpu_put_h(&c, stream);
    if (kind == H2D) rgpu_put_bulk(&c, rows, packed);
    int rc;
    if (async && kind != D2H) {
        rc = rgpu_async(&c); /* the rows were copied into the message */
    } else {
        rc = rgpu_sync(&c);
        if (rc == 0 && kind == D2H) {
            size_t got = 0;
            for (int i = 0; ; i++) { /* the packed rows, possibly in several frames */
                size_t len;
                const void *part = rgpu_out_bulk(&c, i, &len);
                if (!part) break;
                if (got + len > packed) { got = packed + 1; break; }
                memcpy(rows + got, part, len);
                got += len;
            }
            if (got != packed) rc = rgpu_record(RGPU_RUNTIME, RGPU_INVALID_VALUE);
            else
                for (size_t r = 0; r < height; r++) memcpy((char *)dst + r * dpitch, rows + r * width, width);
        }
        rgpu_end(&c);
    }
    free(rows);
    return rc;
}

int cudaMemcpy2D(void *dst, size_t dpitch, const void *src, size_t spitch, size_t width, size_t height, int kind) {
    return copy_2d(dst, dpitch, src, spitch, width, height, kind, NULL, 0);
}

int cudaMemcpy2DAsync(void *dst, size_t dpitch, const void *src, size_t spitch, size_t width, size_t height, int kind,
                      void *stream) {
    return copy_2d(dst, dpitch, src, spitch, width, height, kind, stream, 1);
}
