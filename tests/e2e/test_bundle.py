"""The GPU-host bundle (scripts/bundle.sh), built for this host's Python and installed with pip
--no-index into a fresh virtualenv with every pip configuration switched off: the installed `rgpu`
runs a CUDA program against a server, through the client library of the bundle, whose libzmq is the
one beside it rather than the system's."""
from __future__ import annotations

import os
import subprocess
import sys
import tarfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
pytestmark = pytest.mark.e2e


def _offline_env() -> dict:
    """No index, no find-links, no config file: the install can use the bundle's wheels alone."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PIP_", "RGPU_", "VIRTUAL_ENV", "PYTHON"))}
    env.update(PIP_CONFIG_FILE=os.devnull, PIP_NO_INDEX="1", PIP_DISABLE_PIP_VERSION_CHECK="1")
    return env


@pytest.fixture(scope="module")
def installed(tmp_path_factory):
    """(the fresh virtualenv's bin folder, the bundle's folder)."""
    tmp = tmp_path_factory.mktemp("bundle")
    p = subprocess.run(["bash", str(ROOT / "scripts" / "bundle.sh"), "--out", str(tmp)], capture_output=True,
                       text=True, timeout=600)
    assert p.returncode == 0, p.stdout + p.stderr
    (tarball,) = tmp.glob("rgpu-bundle-*.tar.gz")
    ver = f"cp{sys.version_info[0]}{sys.version_info[1]}"
    assert tarball.name.endswith(f"-{ver}.tar.gz")
    with tarfile.open(tarball) as t:
        t.extractall(tmp / "x", filter="data")
    (bundle,) = (tmp / "x").iterdir()
    wheels = {w.name.split("-")[0] for w in (bundle / "wheels").iterdir()}
    assert {"rgpu_pool", "rgpu_clientlib", "pyzmq", "msgpack", "numpy"} <= wheels   # rgpu-pool: "rgpu" is taken
    venv = tmp / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True, timeout=300)
    p = subprocess.run([str(bundle / "install.sh"), str(venv / "bin" / "python")], capture_output=True, text=True,
                       env=_offline_env(), timeout=600)
    assert p.returncode == 0, p.stdout + p.stderr
    return venv / "bin", bundle


def test_the_installed_client_library_carries_its_libzmq(installed):
    bin_dir, _ = installed
    where = subprocess.run([str(bin_dir / "python"), "-c", "from rgpu.paths import libdir; print(libdir())"],
                           capture_output=True, text=True, env=_offline_env(), cwd="/", timeout=60)
    assert where.returncode == 0, where.stderr
    lib = Path(where.stdout.strip())
    assert lib.is_relative_to(bin_dir.parent) and (lib / "librgpu.so").is_file()
    for alias in ("libcuda.so.1", "libcudart.so.13", "libcudart.so.12"):
        assert (lib / alias).resolve() == (lib / "librgpu.so").resolve(), alias  # one library, not copies
    # with LD_LIBRARY_PATH (as `rgpu run` sets it) and without (a program linked with -lcuda run on
    # its own: librgpu.so's RPATH $ORIGIN), the libzmq beside it, and what it links, beside it too
    for env in ({**_offline_env(), "LD_LIBRARY_PATH": str(lib)},
                {k: v for k, v in _offline_env().items() if k not in ("LD_LIBRARY_PATH", "LD_PRELOAD")}):
        ldd = subprocess.run(["ldd", str(lib / "librgpu.so")], capture_output=True, text=True, env=env, timeout=60)
        zmq = [line for line in ldd.stdout.splitlines() if "libzmq.so" in line]
        sodium = [line for line in ldd.stdout.splitlines() if "libsodium" in line]
        assert zmq and str(lib) in zmq[0] and "not found" not in ldd.stdout, ldd.stdout
        assert all(str(lib) in line for line in sodium), ldd.stdout


def test_a_cuda_program_runs_through_the_installed_bundle(installed, sim_server, cuda_program):
    bin_dir, _ = installed
    prog = cuda_program("copy_roundtrip")
    p = subprocess.run([str(bin_dir / "rgpu"), "run", "--server", sim_server, "--", str(prog)], capture_output=True,
                       text=True, env=_offline_env(), cwd="/", timeout=300)
    assert p.returncode == 0 and "OK copy_roundtrip" in p.stdout, p.stdout + p.stderr
