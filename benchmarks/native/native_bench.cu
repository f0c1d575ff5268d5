// The figures of rgpu's "native speed" table, measured by one CUDA program that runs unchanged on a
// local GPU and through rgpu (the same binary: built with -cudart shared, so rgpu's library stands
// in for libcudart when it is on the library path). Each figure is the best of ROUNDS rounds of its
// loop, timed with the host's monotonic clock after a warm-up, and printed as one JSON object:
//
//   native_bench [--rows a,b,...] [--scale sim|gpu] [--rounds N]
//
// Rows (the names are the JSON keys):
//   sync_rtt_us            cudaStreamSynchronize on an idle stream, per call
//   attribute_us           cudaDeviceGetAttribute (multiprocessor count), per call
//   launch_rate_k          empty-kernel launches per second (async; thousands), then one synchronize
//   launch_sync_us         one empty kernel and cudaStreamSynchronize, per pair
//   graph_launch_us        a CUDA graph of GRAPH_KERNELS empty kernels (captured) and cudaStreamSynchronize,
//                          per launch
//   h2d_pinned_gbps        cudaMemcpy of BIG bytes from cudaMallocHost memory (and d2h_pinned_gbps back)
//   h2d_pageable_gbps      the same from malloc'd memory (and d2h_pageable_gbps)
//   d2h_4k_us              cudaMemcpy of 4 KiB device to host, per copy
//   malloc_free_us         cudaMalloc + cudaFree of 1 MiB, per pair
//   axpy_ms                AXPY_N kernels of y = a*x + y over AXPY_LEN floats, then a synchronize
// --scale gpu: BIG 64 MiB, 200 axpy over 16 M floats (the issue's table). --scale sim: a software GPU
// interprets every lane in Python, so the copies are 16 MiB and the axpy 20 kernels over 64 K floats.
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>
#include <cuda_runtime.h>

#define CK(call)                                                                                   \
    do {                                                                                           \
        cudaError_t e_ = (call);                                                                   \
        if (e_ != cudaSuccess) {                                                                   \
            fprintf(stderr, "%s:%d %s -> %d %s\n", __FILE__, __LINE__, #call, (int)e_,             \
                    cudaGetErrorName(e_));                                                         \
            exit(1);                                                                               \
        }                                                                                          \
    } while (0)

__global__ void empty() {}

__global__ void axpy(float a, const float *x, float *y, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = a * x[i] + y[i];
}

static double now() {
    return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

struct Config {
    size_t big = 64u << 20;
    int axpy_n = 200, axpy_len = 16 << 20;
    int rounds = 3;
    int sync_n = 20000, attr_n = 100000, launch_n = 100000, launch_sync_n = 5000, d2h_n = 5000, malloc_n = 2000;
    int graph_n = 2000, graph_kernels = 20;
    int copy_n = 10;
};

template <typename F>
static double best(int rounds, F once) {  // smallest time of `rounds` runs
    double b = 1e300;
    for (int r = 0; r < rounds; r++) {
        double t = once();
        if (t < b) b = t;
    }
    return b;
}

static bool wanted(const std::string &rows, const char *name) {
    if (rows.empty()) return true;
    std::string padded = "," + rows + ",";
    return padded.find(std::string(",") + name + ",") != std::string::npos;
}

int main(int argc, char **argv) {
    Config c;
    std::string rows;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--rows") && i + 1 < argc) rows = argv[++i];
        else if (!strcmp(argv[i], "--rounds") && i + 1 < argc) c.rounds = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--scale") && i + 1 < argc) {
            if (!strcmp(argv[++i], "sim")) {
                c.big = 16u << 20;
                c.axpy_n = 20;
                c.axpy_len = 64 << 10;
                c.sync_n = 5000, c.attr_n = 20000, c.launch_n = 5000, c.launch_sync_n = 1000;
                c.d2h_n = 2000, c.malloc_n = 1000, c.copy_n = 5, c.graph_n = 200;
            }
        } else {
            fprintf(stderr, "usage: %s [--rows a,b] [--scale sim|gpu] [--rounds N]\n", argv[0]);
            return 2;
        }
    }
    cudaStream_t s;
    CK(cudaStreamCreate(&s));
    cudaDeviceProp prop;
    CK(cudaGetDeviceProperties(&prop, 0));
    CK(cudaFree(0));
    std::string out = "{\"device\": \"" + std::string(prop.name) + "\"";
    char buf[256];
    auto put = [&](const char *key, double v) {
        snprintf(buf, sizeof buf, ", \"%s\": %.4f", key, v);
        out += buf;
    };

    if (wanted(rows, "sync_rtt_us")) {
        int n = c.sync_n;
        CK(cudaStreamSynchronize(s));
        put("sync_rtt_us", best(c.rounds, [&] {
            double t0 = now();
            for (int i = 0; i < n; i++) CK(cudaStreamSynchronize(s));
            return (now() - t0) / n * 1e6;
        }));
    }
    if (wanted(rows, "attribute_us")) {
        int n = c.attr_n, v = 0;
        CK(cudaDeviceGetAttribute(&v, cudaDevAttrMultiProcessorCount, 0));
        put("attribute_us", best(c.rounds, [&] {
            double t0 = now();
            for (int i = 0; i < n; i++) CK(cudaDeviceGetAttribute(&v, cudaDevAttrMultiProcessorCount, 0));
            return (now() - t0) / n * 1e6;
        }));
    }
    if (wanted(rows, "launch_rate_k")) {
        int n = c.launch_n;
        empty<<<1, 1, 0, s>>>();
        CK(cudaStreamSynchronize(s));
        double t = best(c.rounds, [&] {
            double t0 = now();
            for (int i = 0; i < n; i++) empty<<<1, 1, 0, s>>>();
            CK(cudaStreamSynchronize(s));
            return now() - t0;
        });
        CK(cudaGetLastError());
        put("launch_rate_k", n / t / 1e3);
    }
    if (wanted(rows, "launch_sync_us")) {
        int n = c.launch_sync_n;
        put("launch_sync_us", best(c.rounds, [&] {
            double t0 = now();
            for (int i = 0; i < n; i++) {
                empty<<<1, 1, 0, s>>>();
                CK(cudaStreamSynchronize(s));
            }
            return (now() - t0) / n * 1e6;
        }));
    }
    if (wanted(rows, "graph_launch_us")) {
        cudaGraph_t g;
        cudaGraphExec_t ge;
        CK(cudaStreamBeginCapture(s, cudaStreamCaptureModeThreadLocal));
        for (int k = 0; k < c.graph_kernels; k++) empty<<<1, 1, 0, s>>>();
        CK(cudaStreamEndCapture(s, &g));
        CK(cudaGraphInstantiate(&ge, g, 0));
        CK(cudaGraphLaunch(ge, s));  // warm-up (through rgpu: the worker builds it here)
        CK(cudaStreamSynchronize(s));
        int n = c.graph_n;
        put("graph_launch_us", best(c.rounds, [&] {
            double t0 = now();
            for (int i = 0; i < n; i++) {
                CK(cudaGraphLaunch(ge, s));
                CK(cudaStreamSynchronize(s));
            }
            return (now() - t0) / n * 1e6;
        }));
        CK(cudaGraphExecDestroy(ge));
        CK(cudaGraphDestroy(g));
    }
    bool pinned = wanted(rows, "h2d_pinned_gbps") || wanted(rows, "d2h_pinned_gbps");
    bool pageable = wanted(rows, "h2d_pageable_gbps") || wanted(rows, "d2h_pageable_gbps");
    if (pinned || pageable) {
        size_t n = c.big;
        void *d;
        CK(cudaMalloc(&d, n));
        for (int kind = 0; kind < 2; kind++) {
            if ((kind == 0 && !pinned) || (kind == 1 && !pageable)) continue;
            char *h;
            if (kind == 0) CK(cudaMallocHost((void **)&h, n));
            else h = (char *)malloc(n);
            memset(h, 7, n);
            CK(cudaMemcpy(d, h, n, cudaMemcpyHostToDevice));  // warm-up, pages touched
            double up = best(c.rounds, [&] {
                double t0 = now();
                for (int i = 0; i < c.copy_n; i++) CK(cudaMemcpy(d, h, n, cudaMemcpyHostToDevice));
                return now() - t0;
            });
            memset(h, 0, n);  // what the D2H copies bring back is the H2D copies' 7s, or the check fails
            double down = best(c.rounds, [&] {
                double t0 = now();
                for (int i = 0; i < c.copy_n; i++) CK(cudaMemcpy(h, d, n, cudaMemcpyDeviceToHost));
                return now() - t0;
            });
            for (size_t i = 0; i < n; i += 4096)
                if (h[i] != 7) { fprintf(stderr, "copy corrupted data at %zu\n", i); return 1; }
            put(kind == 0 ? "h2d_pinned_gbps" : "h2d_pageable_gbps", (double)n * c.copy_n / up / 1e9);
            put(kind == 0 ? "d2h_pinned_gbps" : "d2h_pageable_gbps", (double)n * c.copy_n / down / 1e9);
            if (kind == 0) CK(cudaFreeHost(h));
            else free(h);
        }
        CK(cudaFree(d));
    }
    if (wanted(rows, "d2h_4k_us")) {
        int n = c.d2h_n;
        void *d;
        char h[4096];
        CK(cudaMalloc(&d, sizeof h));
        CK(cudaMemset(d, 1, sizeof h));
        put("d2h_4k_us", best(c.rounds, [&] {
            double t0 = now();
            for (int i = 0; i < n; i++) CK(cudaMemcpy(h, d, sizeof h, cudaMemcpyDeviceToHost));
            return (now() - t0) / n * 1e6;
        }));
        CK(cudaFree(d));
    }
    if (wanted(rows, "malloc_free_us")) {
        int n = c.malloc_n;
        put("malloc_free_us", best(c.rounds, [&] {
            double t0 = now();
            for (int i = 0; i < n; i++) {
                void *d;
                CK(cudaMalloc(&d, 1 << 20));
                CK(cudaFree(d));
            }
            return (now() - t0) / n * 1e6;
        }));
    }
    if (wanted(rows, "axpy_ms")) {
        int len = c.axpy_len;
        float *x, *y;
        CK(cudaMalloc(&x, len * sizeof(float)));
        CK(cudaMalloc(&y, len * sizeof(float)));
        std::vector<float> hx(len, 1.0f);
        CK(cudaMemcpy(x, hx.data(), len * sizeof(float), cudaMemcpyHostToDevice));
        CK(cudaMemset(y, 0, len * sizeof(float)));
        int threads = 256, blocks = (len + threads - 1) / threads;
        axpy<<<blocks, threads, 0, s>>>(2.0f, x, y, len);
        CK(cudaStreamSynchronize(s));
        double t = best(c.rounds, [&] {
            double t0 = now();
            for (int i = 0; i < c.axpy_n; i++) axpy<<<blocks, threads, 0, s>>>(2.0f, x, y, len);
            CK(cudaStreamSynchronize(s));
            return now() - t0;
        });
        float y0 = 0;
        CK(cudaMemcpy(&y0, y, sizeof y0, cudaMemcpyDeviceToHost));
        // 1 + rounds x axpy_n kernels of y += 2: the result proves every kernel ran
        if (y0 != 2.0f * (1 + c.rounds * c.axpy_n)) { fprintf(stderr, "axpy result %f\n", y0); return 1; }
        put("axpy_ms", t * 1e3);
        CK(cudaFree(x));
        CK(cudaFree(y));
    }
    snprintf(buf, sizeof buf, ", \"big_bytes\": %zu, \"axpy_n\": %d, \"axpy_len\": %d}", c.big, c.axpy_n, c.axpy_len);
    out += buf;
    printf("%s\n", out.c_str());
    return 0;
}
