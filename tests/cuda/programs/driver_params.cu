// A kernel's parameters as the Driver API passes them (kernelParams: one pointer per parameter, which
// the client packs by the function's layout): `driver_params narrow` launches a kernel of one
// parameter, `driver_params wide` one of 1 + 23 (a pointer, then u32 values at offsets 8, 12, ...), and
// checks what the kernel computed from them. The test compares how many messages each costs.
#include <cstdio>
#include <cstring>
#include <string>
#include "driver_check.h"

static const int WIDE = 23;

static std::string ptx() {
    std::string s = ".version 8.0\n.target sm_80\n.address_size 64\n"
                    ".visible .entry narrow(.param .u64 out)\n{\n.reg .b64 %rd<3>;\n.reg .b32 %r<2>;\n"
                    "ld.param.u64 %rd1, [out];\ncvta.to.global.u64 %rd2, %rd1;\nmov.u32 %r1, 7;\n"
                    "st.global.u32 [%rd2], %r1;\nret;\n}\n"
                    ".visible .entry wide(.param .u64 out";
    for (int i = 0; i < WIDE; i++) s += ", .param .u32 v" + std::to_string(i);
    s += ")\n{\n.reg .b64 %rd<3>;\n.reg .b32 %r<" + std::to_string(WIDE + 2) + ">;\n"
         "ld.param.u64 %rd1, [out];\ncvta.to.global.u64 %rd2, %rd1;\nmov.u32 %r0, 0;\n";
    for (int i = 0; i < WIDE; i++) {
        s += "ld.param.u32 %r" + std::to_string(i + 1) + ", [v" + std::to_string(i) + "];\n";
        // r0 = r0 * 3 + v_i: the order of the values shows in the result, not only their sum
        s += "mad.lo.u32 %r0, %r0, 3, %r" + std::to_string(i + 1) + ";\n";
    }
    s += "st.global.u32 [%rd2], %r0;\nret;\n}\n";
    return s;
}

int main(int argc, char **argv) {
    bool wide = argc > 1 && !strcmp(argv[1], "wide");
    CUdevice dev;
    CUcontext ctx;
    CK(cuInit(0));
    CK(cuDeviceGet(&dev, 0));
    CK(cuDevicePrimaryCtxRetain(&ctx, dev));
    CK(cuCtxSetCurrent(ctx));
    std::string text = ptx();
    CUmodule mod;
    CK(cuModuleLoadData(&mod, text.c_str()));
    CUfunction fn;
    CK(cuModuleGetFunction(&fn, mod, wide ? "wide" : "narrow"));
    CUdeviceptr out;
    CK(cuMemAlloc(&out, 4));
    unsigned v[WIDE], want = 7;
    void *params[1 + WIDE] = {&out};
    if (wide) {
        want = 0;
        for (int i = 0; i < WIDE; i++) {
            v[i] = 1000u * (i + 1) + (unsigned)i;
            params[1 + i] = &v[i];
            want = want * 3 + v[i];
        }
    }
    CK(cuLaunchKernel(fn, 1, 1, 1, 1, 1, 1, 0, 0, params, nullptr));
    unsigned got = 0;
    CK(cuMemcpyDtoH(&got, out, 4));
    EXPECT(got == want);
    size_t off = 0, size = 0;
    CK(cuFuncGetParamInfo(fn, wide ? WIDE : 0, &off, &size)); // the program's own question still works
    EXPECT(off == (wide ? 8 + 4 * (WIDE - 1) : 0) && size == (wide ? 4 : 8));
    EXPECT(cuFuncGetParamInfo(fn, wide ? WIDE + 1 : 1, &off, &size) == CUDA_ERROR_INVALID_VALUE);
    CK(cuMemFree(out));
    printf("OK driver_params %s\n", wide ? "wide" : "narrow");
    return 0;
}
