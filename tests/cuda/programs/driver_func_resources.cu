// What a function uses, as the driver reports it: CU_FUNC_ATTRIBUTE_NUM_REGS under the linker's
// register limit (CU_JIT_MAX_REGISTERS, numba's max_registers) and without it, and from an image's
// own SASS; CU_FUNC_ATTRIBUTE_CONST_SIZE_BYTES of a kernel reading a __constant__ table.
// Usage: driver_func_resources MODULE.ptx MODULE.fatbin; prints what it found for the test to judge.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <vector>
#include <cuda.h>

#include "driver_check.h"

static int attrs(CUmodule mod, const char *what) {
    CUfunction f;
    CK(cuModuleGetFunction(&f, mod, "heavy"));
    int regs = -1, cbytes = -1;
    CK(cuFuncGetAttribute(&regs, CU_FUNC_ATTRIBUTE_NUM_REGS, f));
    CK(cuFuncGetAttribute(&cbytes, CU_FUNC_ATTRIBUTE_CONST_SIZE_BYTES, f));
    printf("%s regs %d const %d\n", what, regs, cbytes);
    return 0;
}

static int linked(const char *ptx_path, unsigned max_regs, CUmodule *mod) {
    CUjit_option opt[1] = {CU_JIT_MAX_REGISTERS};
    void *val[1] = {(void *)(uintptr_t)max_regs};
    CUlinkState link;
    CK(cuLinkCreate(max_regs ? 1 : 0, opt, val, &link));
    CK(cuLinkAddFile(link, CU_JIT_INPUT_PTX, ptx_path, 0, nullptr, nullptr));
    void *image;
    size_t size;
    CK(cuLinkComplete(link, &image, &size));
    CK(cuModuleLoadData(mod, image));
    CK(cuLinkDestroy(link));
    return 0;
}

int main(int argc, char **argv) {
    if (argc < 3) return 2;
    CK(cuInit(0));
    CUdevice dev;
    CK(cuDeviceGet(&dev, 0));
    CUcontext ctx;
    CK(cuDevicePrimaryCtxRetain(&ctx, dev));
    CK(cuCtxSetCurrent(ctx));
    CUmodule limited, free_, fat;
    if (linked(argv[1], 38, &limited) || linked(argv[1], 0, &free_)) return 1;
    if (attrs(limited, "linked-38") || attrs(free_, "linked") ) return 1;
    CK(cuModuleLoad(&fat, argv[2]));
    if (attrs(fat, "fatbin")) return 1;
    printf("OK driver_func_resources\n");
    return 0;
}
