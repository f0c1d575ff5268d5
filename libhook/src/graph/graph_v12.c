/* CUDA 12's signatures of the graph and capture functions CUDA 13 gave edge data to: what a program
 * built by CUDA 12 calls as name@libcudart.so.12 ([runtime_v12] of protocol/contract/cuda12.toml routes it here). rgpu's
 * graphs have plain edges only, so these are the CUDA 13 functions with no edge data. */
#include <stddef.h>

#include "graph.h"
#include "rgpu_call.h"


int rgpu_v12_cudaStreamGetCaptureInfo(cudaStream_t stream, enum cudaStreamCaptureStatus *status, unsigned long long *id,
                                      cudaGraph_t *graph, const cudaGraphNode_t **deps, size_t *ndeps) {
    return cudaStreamGetCaptureInfo(stream, status, id, graph, deps, NULL, ndeps);
}

int rgpu_v12_cudaGraphGetEdges(rgpu_graph *g, rgpu_gnode **from, rgpu_gnode **to, size_t *count) {
    return cudaGraphGetEdges(g, from, to, NULL, count);
}

int rgpu_v12_cudaGraphNodeGetDependencies(rgpu_gnode *n, rgpu_gnode **out, size_t *count) {
    return cudaGraphNodeGetDependencies(n, out, NULL, count);
}

int rgpu_v12_cudaGraphNodeGetDependentNodes(rgpu_gnode *n, rgpu_gnode **out, size_t *count) {
    return cudaGraphNodeGetDependentNodes(n, out, NULL, count);
}

int rgpu_v12_cudaGraphAddDependencies(rgpu_graph *g, rgpu_gnode *const *from, rgpu_gnode *const *to, size_t n) {
    return cudaGraphAddDependencies(g, from, to, NULL, n);
}


int rgpu_v12_cudaStreamUpdateCaptureDependencies(cudaStream_t stream, cudaGraphNode_t *deps, size_t n, unsigned flags) {
    return cudaStreamUpdateCaptureDependencies(stream, deps, NULL, n, flags);
}


int rgpu_v12_cudaGraphRemoveDependencies(rgpu_graph *g, rgpu_gnode *const *from, rgpu_gnode *const *to, size_t n) {
    return cudaGraphRemoveDependencies(g, from, to, NULL, n);
}
