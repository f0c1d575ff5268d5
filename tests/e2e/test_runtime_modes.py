"""End to end, NVIDIA's own runtime over rgpu's driver: the project's programs built with nvcc's
default flags (the static cudart inside the program) run through `rgpu run`, and programs built with
`-cudart shared` run against NVIDIA's real libcudart.so.13 with rgpu present only as libcuda.so.1.
Both ask the driver for its hidden export tables (driver/export_tables.c), including the integrity
check, which a runtime that does not accept the answer reports as cudaErrorSoftwareValidityNotEstablished."""
from __future__ import annotations

import os

import pytest

from tests.conftest import run_cli
from tests.support import cudabuild

pytestmark = pytest.mark.e2e

# (program, arguments): each prints "OK <program>" when every check in it passed
PROGRAMS = [("copy_roundtrip", ()), ("device_query", ()), ("streams_events", ()), ("faults", ()),
            ("context_misc", ()), ("kernels_basic", ()), ("driver_api", ()), ("driver_kernels", ()),
            ("thrust_algorithms", ("20000",)), ("cooperative", ()), ("managed_add", ()), ("memcpy3d", ()),
            ("device_heap", ()), ("graphs", ("capture",)), ("graphs", ("diamond",)), ("zero_copy", ()),
            ("managed_vars", ()), ("driver_batch_copies", ()), ("driver_user_objects", ()),
            ("pointer_kinds", ())]  # NVIDIA's cudaPointerGetAttributes asks device memory's host address


@pytest.mark.parametrize("name,args", PROGRAMS, ids=[f"{n}-{'-'.join(a)}" if a else n for n, a in PROGRAMS])
def test_static_cudart_program_runs_through_rgpu(name, args, cuda_program, sim_server):
    exe = cuda_program(name, cudart="static")
    p = run_cli("run", "--server", sim_server, "--", str(exe), *args, timeout=300)
    assert p.returncode == 0, p.stdout + p.stderr
    assert f"OK {name}" in p.stdout, p.stdout + p.stderr
    assert "not supported" not in p.stderr and "export table" not in p.stderr, p.stderr


@pytest.fixture(scope="session")
def driver_only(tmp_path_factory, libdir):
    """A directory holding rgpu as libcuda.so.1 and none of rgpu's other names (libcudart.so.13 is
    NVIDIA's), with the libraries librgpu.so links that lie beside it (a bundle's libzmq and its
    dependencies: found through librgpu.so's RPATH $ORIGIN, which is this directory when it is
    loaded as d/libcuda.so.1, so a host without a system libzmq needs them here)."""
    d = tmp_path_factory.mktemp("driver-only")
    rgpu = (libdir / "librgpu.so").resolve()
    (d / "libcuda.so.1").symlink_to(libdir / "librgpu.so")
    for p in libdir.iterdir():
        if ".so" in p.name and not p.name.startswith("librgpu") and p.resolve() != rgpu:
            (d / p.name).symlink_to(p)
    return d


@pytest.mark.parametrize("name,args", [p for p in PROGRAMS if not p[0].startswith("driver")],
                         ids=[n for n, a in PROGRAMS if not n.startswith("driver")])
def test_real_libcudart_over_rgpus_driver(name, args, cuda_program, sim_server, driver_only):
    exe = cuda_program(name)
    env = {k: v for k, v in os.environ.items() if k not in ("LD_PRELOAD", "CUDA_HOME")}
    env.update(LD_LIBRARY_PATH=f"{driver_only}:{cudabuild.runtime_lib_dir()}", RGPU_SERVER=sim_server)
    import subprocess
    p = subprocess.run([str(exe), *args], capture_output=True, text=True, env=env, timeout=300)
    assert p.returncode == 0, p.stdout + p.stderr
    assert f"OK {name}" in p.stdout, p.stdout + p.stderr
