// Blocks that wait for one another through flags in global memory, as cuSOLVER's getrf does: on a
// GPU the blocks are resident at once and the waiter spins until the writer gets to run.

// Block b waits for block b-1, then extends its running sum: out = prefix sums of the block indices.
extern "C" __global__ void chain_forward(volatile int *flags, int *out) {
    int b = blockIdx.x;
    __shared__ int prev;
    if (threadIdx.x == 0) {
        if (b > 0)
            while (flags[b - 1] == 0) {
            }
        prev = b > 0 ? out[b - 1] : 0;
    }
    __syncthreads();
    if (threadIdx.x == 0) {
        out[b] = prev + b;
        __threadfence();
        flags[b] = 1;
    }
}

// The other way round: block b waits for block b+1, the last one waits for nobody.
extern "C" __global__ void chain_backward(volatile int *flags, int *out) {
    int b = blockIdx.x, last = gridDim.x - 1;
    __shared__ int next;
    if (threadIdx.x == 0) {
        if (b < last)
            while (flags[b + 1] == 0) {
            }
        next = b < last ? out[b + 1] : 0;
    }
    __syncthreads();
    out[b] = next + 1;  // every thread of the block writes the same value
    __syncthreads();
    if (threadIdx.x == 0) {
        __threadfence();
        flags[b] = 1;
    }
}
