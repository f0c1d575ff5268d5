/* cudaGetErrorString / cuGetErrorString: the messages CUDA prints for the errors programs meet
 * most; any other code reads as its enumerator name (rgpu_errors.c, generated). */
#include <stddef.h>

#include "rgpu_call.h"


static const struct { int code; const char *text; } texts[] = {
    {0, "no error"},
    {1, "invalid argument"},
    {2, "out of memory"},
    {3, "initialization error"},
    {4, "driver shutting down"},
    {9, "invalid configuration argument"},
    {17, "invalid device pointer"},
    {46, "CUDA-capable device(s) is/are busy or unavailable"},
    {100, "no CUDA-capable device is detected"},
    {101, "invalid device ordinal"},
    {200, "device kernel image is invalid"},
    {201, "invalid device context"},
    {209, "no kernel image is available for execution on the device"},
    {218, "a PTX JIT compilation failed"},
    {400, "invalid resource handle"},
    {500, "named symbol not found"},
    {600, "device not ready"},
    {700, "an illegal memory access was encountered"},
    {701, "too many resources requested for launch"},
    {710, "device-side assert triggered"},
    {716, "misaligned address"},
    {719, "unspecified launch failure"},
    {801, "operation not supported"},
    {999, "unknown error"},
};

const char *rgpu_error_string(int code) {
    for (size_t i = 0; i < sizeof texts / sizeof *texts; i++)
        if (texts[i].code == code) return texts[i].text;
    const char *n = rgpu_error_name(0, code);
    return n ? n : "unrecognized error code";
}
