// Shared by the project's CUDA test programs: report a failed CUDA call with its name and code.
#pragma once
#include <cstdio>
#include <cstdlib>
#define CHECK(call)                                                                              \
    do {                                                                                         \
        cudaError_t err_ = (call);                                                               \
        if (err_ != cudaSuccess) {                                                               \
            printf("FAIL %s:%d %s -> %d %s\n", __FILE__, __LINE__, #call, (int)err_,             \
                   cudaGetErrorName(err_));                                                      \
            return 1;                                                                            \
        }                                                                                        \
    } while (0)
#define EXPECT(cond)                                                                             \
    do {                                                                                         \
        if (!(cond)) { printf("FAIL %s:%d %s\n", __FILE__, __LINE__, #cond); return 1; }         \
    } while (0)
