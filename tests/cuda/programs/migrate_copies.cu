// A program whose device state changes only by copies and memsets — buffers on several streams
// ordered by events, small allocations sharing a page, one allocated and one freed in the middle of
// the run, a large allocation written once — and a kernel launched on every stream whose result it
// never reads, and checks every buffer against the same computation on the host at the end. For
// live migration on the cuda backend without a GPU (the null driver runs no kernel, but copies and
// memsets are real); on a GPU it checks the same. It prints PROGRESS i as it goes (a test moves it
// mid-run) and RESULT <digest> OK when all matched.
//   migrate_copies [iterations] [pause ms per iteration] [symbol|address|escape|managed|graph|pool|array|texture|noise]
// `symbol`: every iteration writes a word of a module variable by cudaMemcpyToSymbol(Async) and reads
// one back by cudaMemcpyFromSymbol(Async); the variable's address is never the program's, so a move
// takes the variable along by name (server/api/symbols.py), and the end checks it whole.
// `address`: the program asks the address of a module variable (cudaGetSymbolAddress) and writes and
// reads the variable through it every iteration, and passes it to a kernel: after a move the address
// it holds still names the variable (server/backends/cuda/aliases.py).
// `escape`: as `address`, and the program also stores the variable's address in device memory it
// allocated, where a later kernel could follow it: a move of this session is refused
// (server/checkpoint/escapes.py).
// `managed`: managed memory the host writes a word of and a memset on a stream writes another of every
// iteration (a stream of its own, or the legacy stream every other one), read by the host after the
// stream's synchronisation and copied into device memory; the end checks it whole, from the host and
// through a copy.
// `pool`: stream-ordered allocations from the default memory pool, whose release threshold the program
// set (as PyTorch's and CuPy's async allocators do): a buffer kept all run and written every
// iteration, and one made and freed each iteration; the end checks the pool's counters and setting.
// `array`: a 2D CUDA array (made for surfaces too) and a mipmapped one whose level 1 the program asked
// for: every iteration writes a row of the array and a word of the level (the level's handle asked
// again, which is CUDA's same array each time) and reads another row back; the end checks both whole.
// The program holds the session's handles for them, never an address: a move makes them again.
// `texture`: as `array`, with a texture object and a surface object over the array, a kernel writing
// a word through the surface and one sampling a row through the texture each iteration (checked
// where kernels run: the null driver runs none). Their values are what kernels receive, which a
// GPU's driver chooses: a move makes them again at the same values. A third object, made first and
// destroyed once the two are made, leaves a free value below theirs (which a driver numbering from
// the lowest free value gives first: the cuda backend's restore makes and drops a filler for it).
// `noise`: the large allocation written once is 64 MiB of pseudo-random bytes instead of 24 MiB of a
// pattern: a checkpoint of it compresses to nothing less, so restoring it takes a while (a test stops
// the server in the middle of a restore).
// `graph`: each iteration ends with a launch of one CUDA graph made at the start (a memset, the
// kernel, a device-to-device copy, another memset), which the worker runs as one graph
// (libhook/src/graph/graph_server.c): a move must take it along.
#include <cstdint>
#include <cstring>
#include <unistd.h>
#include <vector>
#include <cuda_runtime.h>
#include "check.h"

__device__ uint32_t tally;
__device__ uint32_t marks[64];  // `symbol`: written and read by name only

__global__ void touch(uint32_t *scratch) { atomicAdd(&tally, 1u); scratch[threadIdx.x] = tally; }
__global__ void peek(const uint32_t *from, uint32_t *scratch) { scratch[32 + threadIdx.x] = from[threadIdx.x]; }
__global__ void mark(uint32_t *word) { *word = 0x600dc0deu; }
// `texture`: a word written through the surface at (x, y), then row y sampled into out (32 texels)
__global__ void stamp(cudaSurfaceObject_t surf, int x, int y, uint32_t v) { surf2Dwrite(v, surf, x * 4, y); }
__global__ void sample(cudaTextureObject_t tex, int y, uint32_t *out) {
    out[threadIdx.x] = tex2D<uint32_t>(tex, threadIdx.x * 3 + 0.5f, y + 0.5f);
}

static uint64_t fnv(const void *p, size_t n, uint64_t h) {
    const uint8_t *b = (const uint8_t *)p;
    for (size_t i = 0; i < n; i++) h = (h ^ b[i]) * 1099511628211ull;
    return h;
}

int main(int argc, char **argv) {
    const int iters = argc > 1 ? atoi(argv[1]) : 30;
    const int pause_ms = argc > 2 ? atoi(argv[2]) : 50;
    const bool symbol = argc > 3 && !strcmp(argv[3], "symbol");
    const bool escape = argc > 3 && !strcmp(argv[3], "escape");
    const bool address = escape || (argc > 3 && !strcmp(argv[3], "address"));
    const bool managed = argc > 3 && !strcmp(argv[3], "managed");
    std::vector<uint32_t> hm(64);  // what marks holds
    const bool graph = argc > 3 && !strcmp(argv[3], "graph");
    const bool pooled = argc > 3 && !strcmp(argv[3], "pool");
    const bool textured = argc > 3 && !strcmp(argv[3], "texture");
    const bool arrays = textured || (argc > 3 && !strcmp(argv[3], "array"));
    const int S = 3, n = 1 << 16, small_n = 300;
    const bool noise = argc > 3 && !strcmp(argv[3], "noise");
    const size_t ballast_n = (noise ? 64u : 24u) << 20;
    cudaStream_t st[S];
    cudaEvent_t ev[S];
    uint32_t *d[S], *small[S], *scratch;
    std::vector<std::vector<uint32_t>> h(S, std::vector<uint32_t>(n)), hs(S, std::vector<uint32_t>(small_n));
    for (int s = 0; s < S; s++) {
        CHECK(cudaStreamCreateWithFlags(&st[s], cudaStreamNonBlocking));
        CHECK(cudaEventCreateWithFlags(&ev[s], cudaEventDisableTiming));
        CHECK(cudaMalloc((void **)&d[s], n * sizeof(uint32_t)));
        CHECK(cudaMalloc((void **)&small[s], small_n * sizeof(uint32_t)));
        for (int i = 0; i < n; i++) h[s][i] = (uint32_t)(i * 2654435761u + s);
        for (int i = 0; i < small_n; i++) hs[s][i] = (uint32_t)(i ^ (s << 20));
        CHECK(cudaMemcpyAsync(d[s], h[s].data(), n * sizeof(uint32_t), cudaMemcpyHostToDevice, st[s]));
        CHECK(cudaMemcpyAsync(small[s], hs[s].data(), small_n * sizeof(uint32_t), cudaMemcpyHostToDevice, st[s]));
    }
    CHECK(cudaMalloc((void **)&scratch, 1024 * sizeof(uint32_t)));
    uint8_t *ballast;
    CHECK(cudaMalloc((void **)&ballast, ballast_n));
    std::vector<uint8_t> hb(ballast_n);
    uint64_t x = 0x9e3779b97f4a7c15ull;  // `noise`: xorshift64
    for (size_t i = 0; i < ballast_n; i++) {
        if (noise) {
            x ^= x << 13, x ^= x >> 7, x ^= x << 17;
            hb[i] = (uint8_t)(x >> 32);
        } else {
            hb[i] = (uint8_t)(i * 131 + (i >> 12));
        }
    }
    CHECK(cudaMemcpy(ballast, hb.data(), ballast_n, cudaMemcpyHostToDevice));
    uint32_t *marks_at = nullptr;
    if (address) {
        CHECK(cudaGetSymbolAddress((void **)&marks_at, marks));
        for (int i = 0; i < 64; i++) hm[i] = 0x85ebca6bu * (uint32_t)(i + 3);
        CHECK(cudaMemcpy(marks_at, hm.data(), sizeof(uint32_t) * 64, cudaMemcpyHostToDevice));
    }
    uint32_t **slot = nullptr;  // `escape`: where the program keeps marks' address in device memory
    if (escape) {
        CHECK(cudaMalloc((void **)&slot, 64));
        CHECK(cudaMemset(slot, 0, 64));
        CHECK(cudaMemcpy(slot + 3, &marks_at, sizeof marks_at, cudaMemcpyHostToDevice));
    }
    uint32_t *um = nullptr;
    const int M = 1024;  // `managed`: words of um
    std::vector<uint32_t> hu(M, 0x7c7c7c7cu);
    if (managed) {
        CHECK(cudaMallocManaged((void **)&um, M * sizeof(uint32_t)));
        memset(um, 0x7c, M * sizeof(uint32_t));
    }
    if (symbol) {
        for (int i = 0; i < 64; i++) hm[i] = 0x9e3779b9u * (uint32_t)(i + 1);
        CHECK(cudaMemcpyToSymbol(marks, hm.data(), sizeof(uint32_t) * 64));
    }
    cudaMemPool_t mp = nullptr;
    uint32_t *kept = nullptr;  // `pool`: from the pool all run
    std::vector<uint32_t> hk(4096);
    const uint64_t threshold = 64ull << 20;
    if (pooled) {
        CHECK(cudaDeviceGetDefaultMemPool(&mp, 0));
        uint64_t t = threshold;
        CHECK(cudaMemPoolSetAttribute(mp, cudaMemPoolAttrReleaseThreshold, &t));
        CHECK(cudaMallocAsync((void **)&kept, hk.size() * sizeof(uint32_t), st[2]));
        CHECK(cudaMemsetAsync(kept, 0, hk.size() * sizeof(uint32_t), st[2]));
    }
    const int AW = 256, AH = 64;  // `array`: the array's texels (32-bit words), its level 1 half of each
    cudaArray_t arr = nullptr, lvl1 = nullptr;
    cudaMipmappedArray_t mip = nullptr;
    cudaTextureObject_t tex = 0;
    cudaSurfaceObject_t surf = 0;
    std::vector<uint32_t> ha(AW * AH), hv(AW / 2 * (AH / 2));
    bool kernels_run = false;  // the null driver runs no kernel: what they write is checked where they do
    if (arrays) {
        cudaChannelFormatDesc cd = cudaCreateChannelDesc<uint32_t>();
        CHECK(cudaMallocArray(&arr, &cd, AW, AH, cudaArraySurfaceLoadStore));
        for (int i = 0; i < AW * AH; i++) ha[i] = (uint32_t)(i * 2246822519u + 17);
        CHECK(cudaMemcpy2DToArray(arr, 0, 0, ha.data(), AW * 4, AW * 4, AH, cudaMemcpyHostToDevice));
        CHECK(cudaMallocMipmappedArray(&mip, &cd, make_cudaExtent(AW, AH, 0), 3));
        CHECK(cudaGetMipmappedArrayLevel(&lvl1, mip, 1));
        for (size_t i = 0; i < hv.size(); i++) hv[i] = (uint32_t)(i * 3266489917u + 29);
        CHECK(cudaMemcpy2DToArray(lvl1, 0, 0, hv.data(), AW / 2 * 4, AW / 2 * 4, AH / 2, cudaMemcpyHostToDevice));
        CHECK(cudaMemset(scratch + 1000, 0, 4));
        mark<<<1, 1>>>(scratch + 1000);
        uint32_t w = 0;
        CHECK(cudaMemcpy(&w, scratch + 1000, 4, cudaMemcpyDeviceToHost));
        kernels_run = w == 0x600dc0deu;
    }
    if (textured) {
        cudaResourceDesc rd = {};
        rd.resType = cudaResourceTypeArray, rd.res.array.array = arr;
        cudaTextureDesc td = {};
        td.addressMode[0] = td.addressMode[1] = cudaAddressModeClamp;
        td.filterMode = cudaFilterModePoint, td.readMode = cudaReadModeElementType;
        cudaTextureObject_t gone = 0;
        CHECK(cudaCreateTextureObject(&gone, &rd, &td, nullptr));
        CHECK(cudaCreateTextureObject(&tex, &rd, &td, nullptr));
        CHECK(cudaCreateSurfaceObject(&surf, &rd));
        CHECK(cudaDestroyTextureObject(gone));
    }
    uint32_t *late = nullptr, *early = nullptr;  // made and freed mid-run: the layout changes
    std::vector<uint32_t> hl(n);
    CHECK(cudaMalloc((void **)&early, n * sizeof(uint32_t)));
    CHECK(cudaMemset(early, 0x5a, n * sizeof(uint32_t)));
    const int G = 4096, at0 = 100;  // the graph's buffer (words) and where its copy lands in d[0]
    uint32_t *gbuf = nullptr;
    cudaGraphExec_t ge = nullptr;
    if (graph) {
        CHECK(cudaMalloc((void **)&gbuf, G * sizeof(uint32_t)));
        CHECK(cudaMemset(gbuf, 0x44, G * sizeof(uint32_t)));  // as the graph's last memset leaves it
        cudaGraph_t g;
        CHECK(cudaGraphCreate(&g, 0));
        cudaMemsetParams lo = {}, hi = {};
        lo.dst = gbuf, lo.value = 0x33, lo.elementSize = 1, lo.width = G / 2 * sizeof(uint32_t), lo.height = 1;
        hi = lo;
        hi.dst = gbuf + G / 2, hi.value = 0x44;
        void *args[] = {&scratch};
        cudaKernelNodeParams k = {};
        k.func = (void *)touch, k.gridDim = dim3(1), k.blockDim = dim3(32), k.kernelParams = args;
        cudaGraphNode_t n1, n2, n3, n4;
        CHECK(cudaGraphAddMemsetNode(&n1, g, nullptr, 0, &lo));
        CHECK(cudaGraphAddKernelNode(&n2, g, &n1, 1, &k));
        CHECK(cudaGraphAddMemcpyNode1D(&n3, g, &n2, 1, d[0] + at0, gbuf + G / 4, G / 2 * sizeof(uint32_t),
                                       cudaMemcpyDeviceToDevice));
        CHECK(cudaGraphAddMemsetNode(&n4, g, &n3, 1, &hi));
        CHECK(cudaGraphInstantiate(&ge, g, 0));
        CHECK(cudaGraphDestroy(g));
    }
    CHECK(cudaDeviceSynchronize());
    printf("READY%s\n", kernels_run ? " (kernels run here)" : "");
    fflush(stdout);

    std::vector<uint32_t> chunk(n / 8);
    for (int it = 0; it < iters; it++) {
        for (int s = 0; s < S; s++) {
            // a memset of a window that moves each step, then a host update of another
            size_t at = (size_t)((it * 977 + s * 4099) % (n - 4096));
            uint32_t v = 0x01010101u * (uint32_t)((it * 7 + s) & 0xff);
            CHECK(cudaMemsetAsync(d[s] + at, v & 0xff, 4096 * sizeof(uint32_t), st[s]));
            for (size_t i = 0; i < 4096; i++) h[s][at + i] = v;
            size_t up = (size_t)((it * 131 + s * 17) % (n - n / 8));
            for (size_t i = 0; i < chunk.size(); i++) chunk[i] = (uint32_t)(it * 1000003u + s * 7919u + i);
            CHECK(cudaMemcpyAsync(d[s] + up, chunk.data(), chunk.size() * sizeof(uint32_t), cudaMemcpyHostToDevice,
                                  st[s]));
            CHECK(cudaStreamSynchronize(st[s]));  // chunk is reused next
            memcpy(h[s].data() + up, chunk.data(), chunk.size() * sizeof(uint32_t));
            hs[s][it % small_n] += (uint32_t)(it + 1);
            CHECK(cudaMemcpyAsync(small[s] + it % small_n, &hs[s][it % small_n], sizeof(uint32_t),
                                  cudaMemcpyHostToDevice, st[s]));
            touch<<<1, 32, 0, st[s]>>>(scratch);
            CHECK(cudaEventRecord(ev[s], st[s]));
        }
        // stream t copies a slice of stream s's buffer into its own, after s's work (the event)
        for (int s = 0; s < S; s++) {
            int t = (s + 1) % S;
            size_t from = (size_t)((it * 313 + s) % (n / 2)), to = (size_t)((it * 571 + t) % (n / 2));
            CHECK(cudaStreamWaitEvent(st[t], ev[s], 0));
            CHECK(cudaMemcpyAsync(d[t] + to, d[s] + from, (n / 4) * sizeof(uint32_t), cudaMemcpyDeviceToDevice,
                                  st[t]));
            CHECK(cudaStreamSynchronize(st[t]));  // the next copy may read what this one wrote
            memmove(h[t].data() + to, h[s].data() + from, (n / 4) * sizeof(uint32_t));
        }
        if (it == iters / 2) {
            CHECK(cudaFree(early));
            early = nullptr;
            CHECK(cudaMalloc((void **)&late, n * sizeof(uint32_t)));
            for (int i = 0; i < n; i++) hl[i] = (uint32_t)(i * 40503u + it);
            CHECK(cudaMemcpy(late, hl.data(), n * sizeof(uint32_t), cudaMemcpyHostToDevice));
        }
        if (symbol) {  // a word by each form, on a stream and not; one read back each way
            uint32_t w = (uint32_t)(it * 2246822519u + 7), got = 0, got2 = 0;
            int k = it % 64, j = (it * 7 + 3) % 64;
            CHECK(cudaMemcpyToSymbolAsync(marks, &w, sizeof w, k * sizeof(uint32_t), cudaMemcpyHostToDevice, st[0]));
            w ^= 0x5bd1e995u;  // the async copy's data was taken when it was called
            hm[k] = w ^ 0x5bd1e995u;
            CHECK(cudaMemcpyFromSymbolAsync(&got, marks, sizeof got, k * sizeof(uint32_t), cudaMemcpyDeviceToHost, st[0]));
            CHECK(cudaStreamSynchronize(st[0]));
            CHECK(cudaMemcpyToSymbol(marks, &w, sizeof w, j * sizeof(uint32_t)));
            hm[j] = w;
            CHECK(cudaMemcpyFromSymbol(&got2, marks, sizeof got2, j * sizeof(uint32_t)));
            if (got != (w ^ 0x5bd1e995u) || got2 != w) {
                printf("FAIL iteration %d read back %08x %08x from marks\n", it, got, got2);
                return 1;
            }
        }
        if (address) {  // through the address the program holds: a word written, one read, a memset
            uint32_t w = (uint32_t)(it * 3266489917u + 11), got = 0;
            int k = it % 64, j = (it * 5 + 1) % 64;
            CHECK(cudaMemcpy(marks_at + k, &w, sizeof w, cudaMemcpyHostToDevice));
            hm[k] = w;
            CHECK(cudaMemcpy(&got, marks_at + j, sizeof got, cudaMemcpyDeviceToHost));
            if (got != hm[j]) {
                printf("FAIL iteration %d read %08x through the variable's address, not %08x\n", it, got, hm[j]);
                return 1;
            }
            CHECK(cudaMemsetAsync(marks_at + 63, it & 0xff, sizeof(uint32_t), st[1]));
            hm[63] = 0x01010101u * (uint32_t)(it & 0xff);
            peek<<<1, 32, 0, st[1]>>>(marks_at, scratch);  // a kernel given it: its parameter follows the variable
        }
        if (pooled) {  // a word of the kept buffer from a buffer made and freed on the stream
            uint32_t *tmp = nullptr, w = (uint32_t)(it * 2654435761u + 5);
            CHECK(cudaMallocAsync((void **)&tmp, 4096, st[2]));
            CHECK(cudaMemcpyAsync(tmp, &w, sizeof w, cudaMemcpyHostToDevice, st[2]));
            CHECK(cudaMemcpyAsync(kept + it % 4096, tmp, sizeof w, cudaMemcpyDeviceToDevice, st[2]));
            CHECK(cudaFreeAsync(tmp, st[2]));
            CHECK(cudaStreamSynchronize(st[2]));  // w is read by then
            hk[it % 4096] = w;
        }
        if (managed) {  // a word by the host, one by the device, both seen by the host after the sync
            // of a stream of its own, or every other iteration of the legacy stream (whose pull goes
            // ahead of the synchronisation on the call ring: libhook/src/managed/managed.c)
            cudaStream_t ms = it % 2 ? st[1] : 0;
            int k = (it * 13) % M, j = (it * 29 + 7) % M;
            um[k] = (uint32_t)(it * 2654435761u + 1);
            hu[k] = um[k];
            CHECK(cudaMemsetAsync(um + j, (it * 3 + 1) & 0xff, sizeof(uint32_t), ms));
            CHECK(cudaStreamSynchronize(ms));
            hu[j] = 0x01010101u * (uint32_t)((it * 3 + 1) & 0xff);
            if (um[j] != hu[j] || um[k] != hu[k]) {
                printf("FAIL iteration %d: managed words %08x %08x, not %08x %08x\n", it, um[j], um[k], hu[j], hu[k]);
                return 1;
            }
            CHECK(cudaMemcpyAsync(small[1] + it % small_n, um + k, sizeof(uint32_t), cudaMemcpyDeviceToDevice, st[1]));
            CHECK(cudaStreamSynchronize(st[1]));
            hs[1][it % small_n] = hu[k];
        }
        if (arrays) {  // a row written, a word of the level, another row read back
            std::vector<uint32_t> row(AW), back(AW);
            int r = it % AH, q = (it * 7 + 3) % AH;
            for (int i = 0; i < AW; i++) row[i] = (uint32_t)(it * 40503u + i * 9973u);
            CHECK(cudaMemcpy2DToArrayAsync(arr, 0, r, row.data(), AW * 4, AW * 4, 1, cudaMemcpyHostToDevice, st[0]));
            CHECK(cudaStreamSynchronize(st[0]));
            memcpy(&ha[r * AW], row.data(), AW * 4);
            cudaArray_t l = nullptr;
            CHECK(cudaGetMipmappedArrayLevel(&l, mip, 1));
            if (l != lvl1) {
                printf("FAIL iteration %d: level 1 is another array than it was\n", it);
                return 1;
            }
            uint32_t w = (uint32_t)(it * 2654435761u + 3);
            int x = it % (AW / 2), y = (it / 3) % (AH / 2);
            CHECK(cudaMemcpy2DToArray(l, x * 4, y, &w, 4, 4, 1, cudaMemcpyHostToDevice));
            hv[y * (AW / 2) + x] = w;
            if (textured) {
                int sx = (it * 5) % AW, sy = (it * 3 + 1) % AH;
                uint32_t sv = (uint32_t)(it * 1103515245u + 12345);
                stamp<<<1, 1, 0, st[0]>>>(surf, sx, sy, sv);
                sample<<<1, 32, 0, st[0]>>>(tex, sy, scratch + 512);
                CHECK(cudaStreamSynchronize(st[0]));
                if (kernels_run) {
                    ha[sy * AW + sx] = sv;
                    std::vector<uint32_t> got(32);
                    CHECK(cudaMemcpy(got.data(), scratch + 512, 32 * 4, cudaMemcpyDeviceToHost));
                    for (int i = 0; i < 32; i++)
                        if (got[i] != ha[sy * AW + i * 3]) {
                            printf("FAIL iteration %d sampled %08x at (%d, %d), not %08x\n", it, got[i], i * 3, sy,
                                   ha[sy * AW + i * 3]);
                            return 1;
                        }
                }
                cudaResourceDesc rd = {};
                CHECK(cudaGetTextureObjectResourceDesc(&rd, tex));
                if (rd.resType != cudaResourceTypeArray || rd.res.array.array != arr) {
                    printf("FAIL iteration %d: the texture object's resource is not the array\n", it);
                    return 1;
                }
            }
            CHECK(cudaMemcpy2DFromArray(back.data(), AW * 4, arr, 0, q, AW * 4, 1, cudaMemcpyDeviceToHost));
            if (memcmp(back.data(), &ha[q * AW], AW * 4)) {
                printf("FAIL iteration %d read row %d of the array back changed\n", it, q);
                return 1;
            }
        }
        if (graph) {  // words G/4 .. 3G/4 of gbuf: the first quarter 0x33 bytes, the second 0x44
            CHECK(cudaGraphLaunch(ge, st[0]));
            for (int i = 0; i < G / 2; i++) h[0][at0 + i] = i < G / 4 ? 0x33333333u : 0x44444444u;
        }
        CHECK(cudaDeviceSynchronize());
        printf("PROGRESS %d\n", it);
        fflush(stdout);
        if (pause_ms) usleep(pause_ms * 1000);
    }

    uint64_t digest = 1469598103934665603ull;
    int ok = 1;
    for (int s = 0; s < S; s++) {
        std::vector<uint32_t> back(n), sback(small_n);
        CHECK(cudaMemcpyAsync(back.data(), d[s], n * sizeof(uint32_t), cudaMemcpyDeviceToHost, st[s]));
        CHECK(cudaMemcpyAsync(sback.data(), small[s], small_n * sizeof(uint32_t), cudaMemcpyDeviceToHost, st[s]));
        CHECK(cudaStreamSynchronize(st[s]));
        if (back != h[s] || sback != hs[s]) {
            printf("FAIL stream %d's buffers differ from the host's computation\n", s);
            ok = 0;
        }
        digest = fnv(sback.data(), small_n * sizeof(uint32_t), fnv(back.data(), n * sizeof(uint32_t), digest));
    }
    std::vector<uint8_t> bb(ballast_n);
    CHECK(cudaMemcpy(bb.data(), ballast, ballast_n, cudaMemcpyDeviceToHost));
    if (bb != hb) {
        printf("FAIL the ballast changed\n");
        ok = 0;
    }
    if (late) {
        std::vector<uint32_t> lb(n);
        CHECK(cudaMemcpy(lb.data(), late, n * sizeof(uint32_t), cudaMemcpyDeviceToHost));
        if (lb != hl) {
            printf("FAIL the buffer made mid-run differs\n");
            ok = 0;
        }
        digest = fnv(lb.data(), n * sizeof(uint32_t), digest);
        CHECK(cudaFree(late));
    }
    if (symbol || address) {
        std::vector<uint32_t> mb(64);
        CHECK(cudaMemcpyFromSymbol(mb.data(), marks, sizeof(uint32_t) * 64));
        if (mb != hm) {
            printf("FAIL marks differs from what the program wrote to it\n");
            ok = 0;
        }
        digest = fnv(mb.data(), sizeof(uint32_t) * 64, digest);
    }
    if (escape) {
        uint32_t *kept = nullptr;
        CHECK(cudaMemcpy(&kept, slot + 3, sizeof kept, cudaMemcpyDeviceToHost));
        if (kept != marks_at) {
            printf("FAIL the address kept in device memory changed\n");
            ok = 0;
        }
        CHECK(cudaFree(slot));
    }
    if (pooled) {
        std::vector<uint32_t> kb(hk.size());
        CHECK(cudaMemcpy(kb.data(), kept, kb.size() * sizeof(uint32_t), cudaMemcpyDeviceToHost));
        uint64_t used = 0, t = 0;
        CHECK(cudaMemPoolGetAttribute(mp, cudaMemPoolAttrUsedMemCurrent, &used));
        CHECK(cudaMemPoolGetAttribute(mp, cudaMemPoolAttrReleaseThreshold, &t));
        if (kb != hk || used < kb.size() * sizeof(uint32_t) || t != threshold) {
            printf("FAIL the pool's buffer or counters differ (used %llu, threshold %llu)\n",
                   (unsigned long long)used, (unsigned long long)t);
            ok = 0;
        }
        digest = fnv(kb.data(), kb.size() * sizeof(uint32_t), digest);
        CHECK(cudaFreeAsync(kept, st[2]));
        CHECK(cudaStreamSynchronize(st[2]));
    }
    if (managed) {
        std::vector<uint32_t> mb(M);
        CHECK(cudaMemcpy(mb.data(), um, M * sizeof(uint32_t), cudaMemcpyDeviceToHost));
        if (mb != hu || memcmp(um, hu.data(), M * sizeof(uint32_t))) {
            printf("FAIL the managed memory differs from what the program wrote\n");
            ok = 0;
        }
        digest = fnv(mb.data(), M * sizeof(uint32_t), digest);
        CHECK(cudaFree(um));
    }
    if (arrays) {
        std::vector<uint32_t> ab(ha.size()), vb(hv.size());
        CHECK(cudaMemcpy2DFromArray(ab.data(), AW * 4, arr, 0, 0, AW * 4, AH, cudaMemcpyDeviceToHost));
        CHECK(cudaMemcpy2DFromArray(vb.data(), AW / 2 * 4, lvl1, 0, 0, AW / 2 * 4, AH / 2, cudaMemcpyDeviceToHost));
        if (ab != ha || vb != hv) {
            printf("FAIL the array or the mipmap's level differs from what the program wrote\n");
            ok = 0;
        }
        digest = fnv(vb.data(), vb.size() * 4, fnv(ab.data(), ab.size() * 4, digest));
        if (textured) {
            CHECK(cudaDestroyTextureObject(tex));
            CHECK(cudaDestroySurfaceObject(surf));
        }
        CHECK(cudaFreeMipmappedArray(mip));
        CHECK(cudaFreeArray(arr));
    }
    if (graph) {
        CHECK(cudaGraphExecDestroy(ge));
        CHECK(cudaFree(gbuf));
    }
    printf("RESULT %016llx %s\n", (unsigned long long)digest, ok ? "OK" : "MISMATCH");
    return ok ? 0 : 1;
}
