// Recursive device functions on the software GPU (tests/unit/sim/test_recursion.py): each lane to
// its own depth, two recursive calls per activation, a local array live across both, mutual
// recursion, and a recursion deeper than the stack.
__device__ int fib(int n) { return n < 2 ? n : fib(n - 1) + fib(n - 2); }

__device__ int sum_halves(const int *a, int lo, int hi) {
    if (hi - lo <= 2) {
        int s = 0;
        for (int i = lo; i < hi; i++) s += a[i];
        return s;
    }
    int mid = (lo + hi) / 2;
    volatile int parts[2];  // in the local frame, live across the second call
    parts[0] = sum_halves(a, lo, mid);
    parts[1] = sum_halves(a, mid, hi);
    return parts[0] * 1 + parts[1];
}

__device__ bool is_odd(int n);
__device__ bool is_even(int n) { return n == 0 ? true : is_odd(n - 1); }
__device__ bool is_odd(int n) { return n == 0 ? false : is_even(n - 1); }

extern "C" __global__ void recurse(const int *a, int *fibs, int *sums, int *even) {
    int i = threadIdx.x;
    fibs[i] = fib(i % 12);
    sums[i] = sum_halves(a, 0, 4 + i);
    even[i] = is_even(i);
}

extern "C" __global__ void too_deep(int n, int *out) { *out = is_even(n); }
