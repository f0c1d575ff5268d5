// Thrust (CUB underneath), as real programs use it: radix and merge sorts, sort by key, reductions,
// scans, transforms, count_if and unique, each checked against the same computation on the host.
// Thrust allocates and frees temporary storage around every algorithm, so this also exercises
// device memory reuse between kernels.
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <numeric>
#include <vector>
#include <thrust/count.h>
#include <thrust/device_vector.h>
#include <thrust/functional.h>
#include <thrust/host_vector.h>
#include <thrust/reduce.h>
#include <thrust/scan.h>
#include <thrust/sort.h>
#include <thrust/transform.h>
#include <thrust/unique.h>

struct saxpy {
    float a;
    __host__ __device__ float operator()(float x, float y) const { return a * x + y; }
};
struct is_odd {
    __host__ __device__ bool operator()(int x) const { return x & 1; }
};
struct thousands {
    __host__ __device__ int operator()(int v) const { return v / 1000; }
};
struct descending {
    __host__ __device__ bool operator()(int a, int b) const { return a > b; }
};

#define EXPECT(cond)                                                     \
    do {                                                                 \
        if (!(cond)) { printf("FAIL line %d: %s\n", __LINE__, #cond); return 1; } \
    } while (0)

int main(int argc, char **argv) {
    int n = argc > 1 ? atoi(argv[1]) : 100000;
    std::vector<int> h(n);
    for (int i = 0; i < n; i++) h[i] = (int)((i * 7919LL) % 100003) - 50000;

    thrust::device_vector<int> d(h.begin(), h.end());
    thrust::sort(d.begin(), d.end());  // radix sort
    std::vector<int> want = h;
    std::sort(want.begin(), want.end());
    thrust::host_vector<int> got = d;
    EXPECT(std::equal(want.begin(), want.end(), got.begin()));

    thrust::device_vector<int> desc(h.begin(), h.end());
    thrust::sort(desc.begin(), desc.end(), descending());  // merge sort: a comparator of its own
    got = desc;
    EXPECT(std::equal(want.rbegin(), want.rend(), got.begin()));

    thrust::device_vector<int> keys(h.begin(), h.end()), vals(n);
    thrust::sequence(vals.begin(), vals.end());
    thrust::sort_by_key(keys.begin(), keys.end(), vals.begin());
    thrust::host_vector<int> hk = keys, hv = vals;
    for (int i = 0; i < n; i++) EXPECT(h[hv[i]] == hk[i]);

    long long sum = thrust::reduce(d.begin(), d.end(), 0LL, thrust::plus<long long>());
    EXPECT(sum == std::accumulate(h.begin(), h.end(), 0LL));
    int mx = thrust::reduce(d.begin(), d.end(), -1 << 30, thrust::maximum<int>());
    EXPECT(mx == want.back());

    thrust::device_vector<long long> wide(d.begin(), d.end()), sc(n);
    thrust::inclusive_scan(wide.begin(), wide.end(), sc.begin());
    thrust::host_vector<long long> hs = sc;
    long long acc = 0;
    for (int i = 0; i < n; i++) { acc += want[i]; EXPECT(hs[i] == acc); }
    thrust::exclusive_scan(wide.begin(), wide.end(), sc.begin());
    hs = sc;
    EXPECT(hs[0] == 0 && hs[n - 1] == acc - want[n - 1]);

    std::vector<float> hx(n), hy(n);
    for (int i = 0; i < n; i++) { hx[i] = i * 0.5f; hy[i] = 1.0f - i * 0.25f; }
    thrust::device_vector<float> x(hx.begin(), hx.end()), y(hy.begin(), hy.end());
    thrust::transform(x.begin(), x.end(), y.begin(), y.begin(), saxpy{2.0f});
    thrust::host_vector<float> hyr = y;
    for (int i = 0; i < n; i++) EXPECT(hyr[i] == 2.0f * hx[i] + hy[i]);

    long long odd = thrust::count_if(d.begin(), d.end(), is_odd());
    EXPECT(odd == std::count_if(h.begin(), h.end(), [](int v) { return v & 1; }));

    thrust::device_vector<int> small(n);
    thrust::transform(d.begin(), d.end(), small.begin(), thousands());
    auto end = thrust::unique(small.begin(), small.end());
    std::vector<int> hsmall(n);
    for (int i = 0; i < n; i++) hsmall[i] = want[i] / 1000;
    long long uniq = std::unique(hsmall.begin(), hsmall.end()) - hsmall.begin();
    EXPECT(end - small.begin() == uniq);

    printf("sorted %d, sum %lld, max %d, odd %lld, unique %lld\n", n, sum, mx, odd, uniq);
    printf("OK thrust_algorithms\n");
    return 0;
}
