// Control flow nvcc emits for irregular code: nested loops with break/continue, early exits,
// switch, divergent warp collectives and block-wide barrier reductions.
extern "C" __global__ void flow(const int *in, int *out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    int v = in[i], acc = 0;
    for (int a = 0; a < (v & 7); ++a) {
        if (a == 5 && (v & 64)) break;
        for (int b = 0; b < 6; ++b) {
            if ((a + b + v) % 3 == 0) continue;
            if (b > (v >> 3 & 3) + 2) break;
            acc += a * 7 + b;
        }
        if (acc > 200 && (v & 16)) { out[i] = -acc; return; }
    }
    switch (v % 5) {
        case 0: acc += 11; break;
        case 1: acc *= 3;  /* fall through */
        case 2: acc -= 4; break;
        case 3: while (acc > 10) acc /= 2; break;
        default: acc = ~acc;
    }
    out[i] = acc;
}

extern "C" __global__ void divergent_collectives(const int *in, unsigned *out) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int v = in[i];
    unsigned r0 = 0, r1 = 0;
    if (v & 1) {
        unsigned m = __activemask();
        r0 = m;
        r1 = __reduce_add_sync(m, (unsigned)v);
    } else {
        unsigned m = __activemask();
        r0 = __match_any_sync(m, v & 6);
        r1 = __reduce_max_sync(m, (unsigned)v);
    }
    int c = __syncthreads_count(v > 50);
    int all = __syncthreads_and(v >= 0);
    int any = __syncthreads_or(v > 98);
    out[i * 5 + 0] = r0; out[i * 5 + 1] = r1; out[i * 5 + 2] = c; out[i * 5 + 3] = all; out[i * 5 + 4] = any;
}
