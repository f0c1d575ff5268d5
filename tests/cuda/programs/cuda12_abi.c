/* A program as CUDA 12 links it: its Runtime symbols carry the libcudart.so.12 version
 * (cudaMalloc@libcudart.so.12). Built by the test against a stand-in libcudart.so.12 that only
 * defines that version node, then run on rgpu's library. */
#include <stdio.h>
#include <string.h>

int cudaGetDeviceCount(int *n);
int cudaMalloc(void **p, size_t n);
int cudaMemcpy(void *dst, const void *src, size_t n, int kind);
int cudaFree(void *p);
const char *cudaGetErrorName(int e);

int main(void) {
    int n = 0;
    char in[64] = "sent through rgpu by a CUDA 12 style binary", out[64] = {0};
    void *d = 0;
    int rc = cudaGetDeviceCount(&n);
    if (rc || n < 1) { printf("FAIL count %d %s\n", n, cudaGetErrorName(rc)); return 1; }
    if ((rc = cudaMalloc(&d, sizeof in)) || (rc = cudaMemcpy(d, in, sizeof in, 1)) ||
        (rc = cudaMemcpy(out, d, sizeof out, 2)) || (rc = cudaFree(d))) {
        printf("FAIL %s\n", cudaGetErrorName(rc));
        return 1;
    }
    if (memcmp(in, out, sizeof in)) { printf("FAIL data\n"); return 1; }
    printf("OK cuda12_abi\n");
    return 0;
}
