"""The client library finds the libzmq beside it (a bundle's, docker/bundle-libs.sh's) on a host with
no system libzmq, as a GPU host installed from the offline bundle has none: librgpu.so carries an
RPATH of $ORIGIN (libhook/build.sh), so a program linked with -lcuda and run outside `rgpu run`, with
no LD_LIBRARY_PATH, loads libzmq and what libzmq needs (libsodium, libpgm...) from that folder.

Here, where the system has a libzmq, the system's copies of those libraries are hidden for the
program (a user and mount namespace, /dev/null bound over each file), which is what the GPU host
looks like to the loader and to GNU ld."""
from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
pytestmark = pytest.mark.e2e

PROGRAM = r"""
#include <stdio.h>
int cuInit(unsigned flags);
int cuDeviceGetCount(int *count);
int main(void) {
    int n = -1, rc = cuInit(0);
    if (rc == 0) rc = cuDeviceGetCount(&n);
    printf("rc %d devices %d\n", rc, n);
    return rc;
}
"""
SYSTEM_DIRS = ("/lib/x86_64-linux-gnu", "/usr/lib/x86_64-linux-gnu", "/lib64", "/usr/lib64", "/lib", "/usr/lib",
               "/usr/local/lib")


def _rpath(lib: Path) -> dict[str, str]:
    out = subprocess.run(["readelf", "-d", str(lib)], capture_output=True, text=True, check=True).stdout
    return {tag: line.split("[", 1)[1].rstrip("]") for line in out.splitlines()
            for tag in ("RPATH", "RUNPATH") if f"({tag})" in line}


def test_librgpu_has_an_rpath_of_its_own_folder(libdir):
    # DT_RPATH, not DT_RUNPATH: a RUNPATH serves the object's own NEEDED entries only, so libzmq.so.5
    # would be found beside it but not libsodium.so.23, which libzmq needs
    assert _rpath(libdir / "librgpu.so") == {"RPATH": "$ORIGIN"}


@pytest.fixture
def lone_lib(libdir, tmp_path) -> Path:
    """A copy of the client library's folder as the clientlib wheel installs it: librgpu.so, the
    libraries it links beside it (bundled here when the folder has none), the CUDA names as links."""
    lib = tmp_path / "lib"
    lib.mkdir()
    rgpu = (libdir / "librgpu.so").resolve()
    for p in libdir.iterdir():
        if ".so" in p.name and p.resolve() != rgpu and p.resolve().is_file():
            shutil.copy(p.resolve(), lib / p.name)
    shutil.copy(rgpu, lib / "librgpu.so")
    if not (lib / "libzmq.so.5").exists():
        subprocess.run(["bash", str(ROOT / "docker" / "bundle-libs.sh"), str(lib)], check=True,
                       stdout=subprocess.DEVNULL)
    for name in ("libcuda.so", "libcuda.so.1"):
        (lib / name).symlink_to("librgpu.so")
    assert (lib / "libzmq.so.5").is_file()
    return lib


def _system_copies(lib: Path) -> list[str]:
    """The system's files of the libraries bundled in `lib` (libzmq.so.5, libsodium.so.23, ...)."""
    names = [p.name for p in lib.iterdir() if not p.is_symlink() and not p.name.startswith("librgpu")]
    names += ["libzmq.so"]
    found = {os.path.realpath(Path(d) / n) for d in SYSTEM_DIRS for n in names if (Path(d) / n).exists()}
    return sorted(found)


def test_a_program_linked_with_lcuda_runs_without_a_system_libzmq(lone_lib, sim_server, tmp_path):
    hide = _system_copies(lone_lib)
    (tmp_path / "p.c").write_text(PROGRAM)
    script = "".join(f"mount --bind /dev/null {f} || exit 97\n" for f in hide) + f"""
set -e
# -rpath-link: ld finds libzmq.so.5 through librgpu.so's RPATH but not libzmq's own dependencies
gcc -o {tmp_path}/p {tmp_path}/p.c -L{lone_lib} -lcuda -Wl,-rpath,{lone_lib} -Wl,-rpath-link,{lone_lib}
env -u LD_LIBRARY_PATH -u LD_PRELOAD ldd {lone_lib}/librgpu.so
env -u LD_LIBRARY_PATH -u LD_PRELOAD {tmp_path}/p
"""
    argv = ["bash", "-c", script]
    if hide:
        if shutil.which("unshare") is None or subprocess.run(["unshare", "-rm", "true"]).returncode != 0:
            pytest.skip("this host has a system libzmq and no user namespaces (unshare -rm) to hide it")
        argv = ["unshare", "-rm", *argv]
    p = subprocess.run(argv, capture_output=True, text=True, env={**os.environ, "RGPU_SERVER": sim_server},
                       timeout=300)
    if p.returncode == 97:
        pytest.skip(f"cannot hide the system's libzmq here: {p.stderr.strip()}")
    assert p.returncode == 0, p.stdout + p.stderr
    resolved = {line.split()[0]: line.split()[2] for line in p.stdout.splitlines() if " => " in line}
    bundled = [p.name for p in lone_lib.iterdir() if not p.is_symlink() and not p.name.startswith("librgpu")]
    assert bundled and all(resolved.get(n) == str(lone_lib / n) for n in bundled), p.stdout
    assert "rc 0 devices " in p.stdout and "devices 0" not in p.stdout, p.stdout + p.stderr
