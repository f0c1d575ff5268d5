"""The GPU-host bundle (scripts/bundle.sh), built for this host's Python and installed with pip
--no-index into a fresh virtualenv with every pip configuration switched off: the installed `rgpu`
runs a CUDA program against a server, through the client library of the bundle, whose libzmq is the
one beside it rather than the system's."""
from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tarfile
import tempfile
from pathlib import Path

import pytest

from tests.support.daemons import free_port, wait_until

ROOT = Path(__file__).resolve().parents[2]
pytestmark = pytest.mark.e2e


def _offline_env() -> dict:
    """No index, no find-links, no config file: the install can use the bundle's wheels alone."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PIP_", "RGPU_", "VIRTUAL_ENV", "PYTHON"))}
    env.update(PIP_CONFIG_FILE=os.devnull, PIP_NO_INDEX="1", PIP_DISABLE_PIP_VERSION_CHECK="1")
    return env


@pytest.fixture(scope="module")
def installed():
    """(the fresh virtualenv's bin folder, the bundle's folder). In a folder other accounts can
    enter (pytest's own temporary folders are private to the account that runs it), as /opt/rgpu
    is in the guide; removed at the end."""
    tmp = Path(tempfile.mkdtemp(prefix="rgpu-bundle-"))
    tmp.chmod(0o755)
    try:
        yield _install(tmp)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def _system_python() -> str:
    """The system's Python of this version, as the guide says (a Python under an account's home,
    pyenv's here, is one other accounts cannot run); this one where there is none."""
    name = f"python{sys.version_info[0]}.{sys.version_info[1]}"
    return shutil.which(name, path="/usr/bin:/bin") or sys.executable


def _install(tmp: Path):
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
    subprocess.run([_system_python(), "-m", "venv", str(venv)], check=True, timeout=300)
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


def _as_root_only():
    if os.geteuid() != 0:
        pytest.skip("not root: the guide's second account is another uid (setpriv needs root)")
    if shutil.which("setpriv") is None:
        pytest.skip("no setpriv here (util-linux): cannot run as another account")
    real = Path(os.path.realpath(_system_python()))
    if not all(os.stat(d).st_mode & 0o001 for d in real.parents):
        pytest.skip(f"no Python {sys.version_info[0]}.{sys.version_info[1]} here that another account can run "
                    f"({real} is under a private folder)")


def test_the_getting_started_pool_serves_another_account(installed, daemons, cuda_program, tmp_path):
    """docs/getting-started.md section 2 as written, from the installed bundle: the head with
    --init-secret, two software-GPU servers with the copied secret and one session port each, the
    operator adding a user, and that user — another account, with nothing but her credential and
    RGPU_CONTROLLER in an emptied environment — running a CUDA program on a 256 MiB slice (issue 42:
    what a user following docs/ alone does)."""
    _as_root_only()
    bin_dir, bundle = installed
    home = bin_dir.parent.parent / "operator"            # the operator's config and the pool's state
    alice = bin_dir.parent.parent / "alice"
    for d in (home, alice):
        d.mkdir(mode=0o700)
    env = {**_offline_env(), "HOME": str(home), "RGPU_CONFIG_DIR": str(home / "config")}
    secret = home / "cluster-secret"
    controller = f"tcp://127.0.0.1:{free_port()}"
    env["RGPU_CONTROLLER"] = controller                  # the guide's head listens on 7440, the default
    daemons.start([str(bin_dir / "rgpu-controller"), "--listen", controller, "--db", str(home / "controller.db"),
                   "--secret-file", str(secret), "--init-secret"], env=env,
                  ready=lambda: secret.exists() and (home / "config" / "credential").exists(), deadline_s=60)
    for n in range(2):
        port, session = free_port(), free_port()
        daemons.start([str(bin_dir / "rgpu-server"), "--device", "sim", "--gpus", "1", "--sim-memory", "1G",
                       "--listen", f"tcp://127.0.0.1:{port}", "--controller", controller,
                       "--secret-file", str(secret), "--session-ports", f"{session}-{session}"], env=env,
                      ready=lambda: True, deadline_s=60)

    def ls():
        p = subprocess.run([str(bin_dir / "rgpu"), "ls", "--json"], capture_output=True, text=True, env=env,
                           timeout=60)
        return p.returncode == 0 and len(json.loads(p.stdout)["servers"]) == 2
    try:
        wait_until(ls, 60, "both servers in `rgpu ls`")
    except TimeoutError:
        raise AssertionError("\n".join(h.output() for h in daemons.handles)) from None
    cred = alice / "alice.credential"
    p = subprocess.run([str(bin_dir / "rgpu"), "user", "add", "alice", "--out", str(cred)], capture_output=True,
                       text=True, env=env, timeout=60)
    assert p.returncode == 0 and cred.exists(), p.stdout + p.stderr
    prog = alice / "copy_roundtrip"
    shutil.copy2(cuda_program("copy_roundtrip"), prog)
    for path in (alice, cred, prog):
        os.chown(path, 65534, 65534)                     # hers now (the account `nobody` plays Alice)
    p = subprocess.run(["setpriv", "--reuid", "65534", "--regid", "65534", "--clear-groups", "env", "-i",
                        f"HOME={alice}", "PATH=/usr/bin:/bin", f"RGPU_CONTROLLER={controller}",
                        f"RGPU_CREDENTIAL={cred}", str(bin_dir / "rgpu"), "run", "--mem", "256M", "--", str(prog)],
                       capture_output=True, text=True, cwd=str(alice), timeout=300)
    assert p.returncode == 0 and "OK copy_roundtrip" in p.stdout, p.stdout + p.stderr
    p = subprocess.run([str(bin_dir / "rgpu"), "leases", "--json"], capture_output=True, text=True, env=env,
                       timeout=60)
    assert p.returncode == 0 and json.loads(p.stdout)["leases"] == [], p.stdout   # released at exit
