"""Stand-in CUDA drivers for the cuda backend's unit tests: C source compiled into a shared library
that RGPU_LIBCUDA points the backend at (each test file writes the driver functions it needs)."""
from __future__ import annotations

import subprocess
from pathlib import Path

from rgpu.protocol.codegen import __main__ as codegen


# One GPU with a primary context, named and identified as every stand-in names it: the driver functions
# a CudaDevice calls when it opens, that no test varies (each writes its own cuDeviceGet,
# cuDeviceTotalMem_v2, attributes and whatever else it fakes). Needs <stdio.h> and <string.h>.
DEVICE = r"""
CUresult cuInit(unsigned int f) { return CUDA_SUCCESS; }
CUresult cuDevicePrimaryCtxRetain(CUcontext *c, CUdevice d) { *c = (CUcontext)0xC0; return CUDA_SUCCESS; }
CUresult cuDevicePrimaryCtxRelease_v2(CUdevice d) { return CUDA_SUCCESS; }
CUresult cuCtxSetCurrent(CUcontext c) { return CUDA_SUCCESS; }
CUresult cuDeviceGetName(char *n, int len, CUdevice d) { snprintf(n, len, "Fake GPU"); return CUDA_SUCCESS; }
CUresult cuDeviceGetUuid_v2(CUuuid *u, CUdevice d) { memset(u->bytes, 0xAB, 16); return CUDA_SUCCESS; }
"""


def build(directory: Path, source: str) -> Path:
    """Compile `source` against the generated CUDA types into directory/libfakecuda.so."""
    (directory / "fake.c").write_text(source)
    lib = directory / "libfakecuda.so"
    subprocess.run(["gcc", "-shared", "-fPIC", "-Wall", "-Werror", f"-I{codegen.C_OUT}", "-o", str(lib),
                    str(directory / "fake.c")], check=True)
    return lib
