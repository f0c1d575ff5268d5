// Kernels the software GPU's unit tests run (tests/unit/sim). Each exercises one family of PTX.
#include <cstdint>

extern "C" __global__ void vec_add(const float *a, const float *b, float *c, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) c[i] = a[i] + b[i];
}

extern "C" __global__ void saxpy(int n, float a, const float *x, float *y) {
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
        y[i] = a * x[i] + y[i];
}

#define TILE 16
extern "C" __global__ void matmul(const float *A, const float *B, float *C, int M, int N, int K) {
    __shared__ float As[TILE][TILE];
    __shared__ float Bs[TILE][TILE];
    int row = blockIdx.y * TILE + threadIdx.y, col = blockIdx.x * TILE + threadIdx.x;
    float acc = 0.0f;
    for (int t = 0; t < (K + TILE - 1) / TILE; ++t) {
        int ac = t * TILE + threadIdx.x, br = t * TILE + threadIdx.y;
        As[threadIdx.y][threadIdx.x] = (row < M && ac < K) ? A[row * K + ac] : 0.0f;
        Bs[threadIdx.y][threadIdx.x] = (br < K && col < N) ? B[br * N + col] : 0.0f;
        __syncthreads();
        for (int k = 0; k < TILE; ++k) acc += As[threadIdx.y][k] * Bs[k][threadIdx.x];
        __syncthreads();
    }
    if (row < M && col < N) C[row * N + col] = acc;
}

extern "C" __global__ void tree_reduce(const int *in, int *out, int n) {
    __shared__ int s[256];
    unsigned t = threadIdx.x, i = blockIdx.x * blockDim.x * 2 + threadIdx.x;
    int v = 0;
    if (i < n) v += in[i];
    if (i + blockDim.x < n) v += in[i + blockDim.x];
    s[t] = v;
    __syncthreads();
    for (unsigned st = blockDim.x / 2; st > 0; st >>= 1) {
        if (t < st) s[t] += s[t + st];
        __syncthreads();
    }
    if (t == 0) out[blockIdx.x] = s[0];
}

extern "C" __global__ void warp_reduce(const float *in, float *out, int n) {
    float v = 0.0f;
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) v += in[i];
    for (int o = 16; o > 0; o >>= 1) v += __shfl_down_sync(0xffffffffu, v, o);
    if ((threadIdx.x & 31) == 0) atomicAdd(out, v);
}

extern "C" __global__ void shuffles(const int *in, int *out) {
    int v = in[blockIdx.x * blockDim.x + threadIdx.x];
    int o = (blockIdx.x * blockDim.x + threadIdx.x) * 4;
    out[o + 0] = __shfl_up_sync(0xffffffffu, v, 3);
    out[o + 1] = __shfl_xor_sync(0xffffffffu, v, 5);
    out[o + 2] = __shfl_sync(0xffffffffu, v, (threadIdx.x * 7) & 31);
    out[o + 3] = __shfl_down_sync(0xffffffffu, v, 2, 16);
}

extern "C" __global__ void histogram(const unsigned char *data, unsigned *bins, int n) {
    __shared__ unsigned h[64];
    for (int i = threadIdx.x; i < 64; i += blockDim.x) h[i] = 0;
    __syncthreads();
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x)
        atomicAdd(&h[data[i] & 63], 1u);
    __syncthreads();
    for (int i = threadIdx.x; i < 64; i += blockDim.x) atomicAdd(&bins[i], h[i]);
}

// Hillis-Steele inclusive scan of one block, double-buffered.
extern "C" __global__ void block_scan(const int *in, int *out) {
    __shared__ int buf[2][128];
    int t = threadIdx.x, p = 0;
    buf[0][t] = in[blockIdx.x * blockDim.x + t];
    __syncthreads();
    for (int off = 1; off < blockDim.x; off <<= 1) {
        buf[1 - p][t] = buf[p][t] + (t >= off ? buf[p][t - off] : 0);
        p = 1 - p;
        __syncthreads();
    }
    out[blockIdx.x * blockDim.x + t] = buf[p][t];
}

extern "C" __global__ void transpose(const float *in, float *out, int w, int h) {
    __shared__ float tile[32][33];
    int x = blockIdx.x * 32 + threadIdx.x, y = blockIdx.y * 32 + threadIdx.y;
    for (int j = 0; j < 32; j += blockDim.y)
        if (x < w && y + j < h) tile[threadIdx.y + j][threadIdx.x] = in[(y + j) * w + x];
    __syncthreads();
    x = blockIdx.y * 32 + threadIdx.x; y = blockIdx.x * 32 + threadIdx.y;
    for (int j = 0; j < 32; j += blockDim.y)
        if (x < h && y + j < w) out[(y + j) * h + x] = tile[threadIdx.x][threadIdx.y + j];
}

struct Params { int n; float scale; double offset; char tag; short coef[3]; };
struct Arr { int v[5]; };
extern "C" __global__ void struct_params(Params p, Arr a, char c, double *out) {
    int i = threadIdx.x;
    if (i < p.n)
        out[i] = p.scale * i + p.offset + a.v[i % 5] + c + p.tag + p.coef[i % 3];
}

// A parameter past KPARAM_INFO's 14-bit size (CUDA 12.1 raised the limit to 32764 bytes): ptxas
// describes it with KPARAM_INFO_V2, as NVIDIA's LargeKernelParameter sample's kernel.
struct Large { int v[8000]; };
extern "C" __global__ void large_params(const __grid_constant__ Large p, int *out) {
    int s = 0;
    for (int i = threadIdx.x; i < 8000; i += blockDim.x) s += p.v[i];
    atomicAdd(out, s);
}

extern "C" __global__ void dprec(const double *x, double *y, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        double v = x[i];
        y[i] = sqrt(fabs(v)) * 1.5 + v / 3.0 - fma(v, v, 0.25) + (double)(long long)(v * 10.0);
    }
}

extern "C" __global__ void int_ops(const int *a, const int *b, int *out, unsigned long long *out64) {
    int i = threadIdx.x;
    int x = a[i], y = b[i];
    unsigned ux = (unsigned)x, uy = (unsigned)y;
    int *o = out + i * 12;
    o[0] = x / y; o[1] = x % y; o[2] = (int)(ux / uy); o[3] = (int)(ux % uy);
    o[4] = __popc(ux); o[5] = __clz(x); o[6] = (int)__brev(ux); o[7] = __ffs(x);
    o[8] = (x >> (y & 31)) ^ (int)(ux >> (uy & 31)); o[9] = __mulhi(x, y); o[10] = (int)__umulhi(ux, uy);
    o[11] = min(x, y) + max(ux, uy) + abs(x) + __byte_perm(ux, uy, 0x5140) + __funnelshift_l(ux, uy, y);
    out64[i] = (unsigned long long)ux * uy + ((long long)x << 20) / (y | 1);
}

__device__ __noinline__ float poly(float x, int k) {
    float r = 0.0f;
    for (int j = 0; j <= k; ++j) r = r * x + (float)(j + 1);
    return r;
}
__device__ __noinline__ int collatz(int v) {
    int steps = 0;
    while (v != 1) { v = (v & 1) ? 3 * v + 1 : v / 2; ++steps; }
    return steps;
}
extern "C" __global__ void calls(const float *x, float *y, int *steps, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    y[i] = poly(x[i], i % 4);
    steps[i] = collatz(i + 1);
}

extern "C" __global__ void local_array(const int *idx, int *out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    int a[16];
    for (int k = 0; k < 16; ++k) a[k] = k * k + i;
    int acc = 0;
    for (int k = 0; k < 4; ++k) acc += a[idx[(i + k) % n] & 15];
    out[i] = acc;
}

extern "C" __global__ void vote(const int *in, unsigned *out) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int v = in[i];
    unsigned b = __ballot_sync(0xffffffffu, v > 0);
    int all = __all_sync(0xffffffffu, v > 0), any = __any_sync(0xffffffffu, v > 0);
    unsigned am = 0;
    if (v > 0) am = __activemask();
    out[i * 4 + 0] = b; out[i * 4 + 1] = all; out[i * 4 + 2] = any; out[i * 4 + 3] = am;
}

extern "C" __global__ void dyn_shared(const float *in, float *out, int n) {
    extern __shared__ float buf[];
    int t = threadIdx.x;
    buf[t] = in[blockIdx.x * blockDim.x + t];
    __syncthreads();
    out[blockIdx.x * blockDim.x + t] = buf[blockDim.x - 1 - t] * 2.0f;
}

__device__ int counter;
__constant__ float coeffs[4] = {1.0f, 0.5f, 0.25f, 0.125f};
extern "C" __global__ void globals(const float *x, float *y, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        y[i] = coeffs[0] + coeffs[1] * x[i] + coeffs[2] * x[i] * x[i] + coeffs[3];
        atomicAdd(&counter, 1);
    }
}

extern "C" __global__ void atomics(int *ia, unsigned *ua, unsigned long long *ull, float *fa, double *da, int *old) {
    int i = threadIdx.x;
    old[i] = atomicAdd(&ia[0], i);
    atomicMin(&ia[1], 100 - i);
    atomicMax(&ia[2], i * 3 - 50);
    atomicInc(&ua[0], 17u);
    atomicDec(&ua[1], 9u);
    atomicAnd(&ua[2], ~(1u << (i & 31)));
    atomicOr(&ua[3], 1u << (i & 31));
    atomicXor(&ua[4], (unsigned)i * 2654435761u);
    atomicAdd(&ull[0], (unsigned long long)i << 33);
    atomicExch(&ua[5], (unsigned)i);
    int assumed, cur = ia[3];
    do { assumed = cur; cur = atomicCAS(&ia[3], assumed, assumed + 2); } while (cur != assumed);
    atomicAdd(&fa[0], 0.5f);
    atomicAdd(&da[0], 0.25);
    atomicMax(&ull[1], (unsigned long long)i * 1000000007ull);
}
