// Shared by the project's Driver API test programs: report a failed call with its name and code.
#pragma once
#include <cstdio>
#include <cuda.h>
#define CK(call)                                                                                   \
    do {                                                                                           \
        CUresult r_ = (call);                                                                      \
        if (r_ != CUDA_SUCCESS) {                                                                  \
            const char *n_ = nullptr;                                                              \
            cuGetErrorName(r_, &n_);                                                               \
            printf("FAIL %s:%d %s -> %d %s\n", __FILE__, __LINE__, #call, (int)r_, n_ ? n_ : "?"); \
            return 1;                                                                              \
        }                                                                                          \
    } while (0)
#define EXPECT(c) do { if (!(c)) { printf("FAIL %s:%d %s\n", __FILE__, __LINE__, #c); return 1; } } while (0)
