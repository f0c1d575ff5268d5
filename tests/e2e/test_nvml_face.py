"""The NVML face (issue 17 item 5): a Python program run through `rgpu run` asks NVIDIA's own bindings
(pynvml, of the nvidia-ml-py package) about its GPUs and learns its lease's vGPUs — their count, names,
UUIDs (the pool's), the memory quota as total and what the program allocated (through rgpu's libcuda)
as used, itself as a process — and an unsupported query is answered NVML's "Not Supported"."""
from __future__ import annotations

import json
import sys
import textwrap

import pytest

from tests.support.daemons import wait_until
from tests.support.pool import Pool

pytestmark = pytest.mark.e2e
MiB = 1 << 20

PROBE = textwrap.dedent('''
    import ctypes, json, os, sys
    import pynvml as nvml

    def report(stage):
        out = {"stage": stage, "count": nvml.nvmlDeviceGetCount(), "gpus": []}
        for i in range(out["count"]):
            h = nvml.nvmlDeviceGetHandleByIndex(i)
            m = nvml.nvmlDeviceGetMemoryInfo(h)
            out["gpus"].append({"name": nvml.nvmlDeviceGetName(h), "uuid": nvml.nvmlDeviceGetUUID(h),
                                "total": m.total, "used": m.used, "free": m.free,
                                "index": nvml.nvmlDeviceGetIndex(h),
                                "same": nvml.nvmlDeviceGetIndex(nvml.nvmlDeviceGetHandleByUUID(
                                    nvml.nvmlDeviceGetUUID(h))) == i,
                                "pids": [p.pid for p in nvml.nvmlDeviceGetComputeRunningProcesses(h)]})
        print(json.dumps(out), flush=True)

    nvml.nvmlInit()
    report("start")
    # 48 MiB on the last device through rgpu's driver API (the libcuda.so.1 of the program's library path)
    cu = ctypes.CDLL("libcuda.so.1")
    ctx, ptr = ctypes.c_void_p(), ctypes.c_uint64()
    last = int(sys.argv[1])
    assert cu.cuInit(0) == 0 and cu.cuDevicePrimaryCtxRetain(ctypes.byref(ctx), last) == 0
    assert cu.cuCtxSetCurrent(ctx) == 0 and cu.cuMemAlloc_v2(ctypes.byref(ptr), ctypes.c_size_t(48 << 20)) == 0
    report("allocated")
    try:
        nvml.nvmlDeviceGetUtilizationRates(nvml.nvmlDeviceGetHandleByIndex(0))
    except nvml.NVMLError as e:
        print(json.dumps({"stage": "unsupported", "error": str(e), "pid": os.getpid()}), flush=True)
    nvml.nvmlShutdown()
    try:
        nvml.nvmlDeviceGetCount()
    except nvml.NVMLError_Uninitialized:
        print(json.dumps({"stage": "shut down"}), flush=True)
''')


@pytest.fixture
def pool(daemons, tmp_path):
    """A pool of one server with two GPUs on the sim (--gpus 2); a cuda server serves the host's GPUs,
    whatever their number."""
    p = Pool(daemons, tmp_path)
    url = p.add_server("1GiB", "--gpus", "2")
    wait_until(lambda: p.states() == {url: "up"}, 60, "the server up in `rgpu ls`")
    yield p
    for handle in p.servers.values():
        handle.stop()


def test_pynvml_through_rgpu_run_sees_the_leases_vgpus(pool, tmp_path, libdir, device_kind):
    script = tmp_path / "probe.py"
    script.write_text(PROBE)
    # one vGPU on each GPU of the pool: the sim server's two; on a real host, its GPUs (one on a
    # one-GPU host, where a second vGPU on another GPU is refused)
    pool_gpus = {g["uuid"]: g for s in pool.cli_json("ls")["servers"] for g in s["gpus"]}
    n = len(pool_gpus)
    assert n == 2 or device_kind != "sim"
    p = pool.run("--mem", "256", "-n", str(n), "--policy", "spread", "--", sys.executable, str(script), str(n - 1))
    assert p.returncode == 0, p.stdout + p.stderr
    stages = {r["stage"]: r for r in map(json.loads, p.stdout.splitlines())}
    start, allocated = stages["start"], stages["allocated"]
    assert start["count"] == n and [g["index"] for g in start["gpus"]] == list(range(n))
    for got in start["gpus"]:
        assert got["total"] == 256 * MiB                                 # the quota, not the GPU's memory
        assert got["uuid"] in pool_gpus and got["same"]                  # the pool's UUID, found again by it
        assert got["name"] == pool_gpus[got["uuid"]]["name"] and got["used"] == 0 and got["free"] == 256 * MiB
    assert len({g["uuid"] for g in start["gpus"]}) == n                  # spread: one GPU each
    pid, last = stages["unsupported"]["pid"], allocated["gpus"][n - 1]
    assert last["used"] == 48 * MiB and last["free"] == 208 * MiB and last["pids"] == [pid]
    assert all(g["used"] == 0 for g in allocated["gpus"][:n - 1])
    assert stages["unsupported"]["error"] == "Not Supported" and "shut down" in stages


def test_pynvml_without_vgpus_is_told_no_driver(tmp_path, libdir):
    """No RGPU_SERVER and no lease: NVML's own answer for a host without a driver, no hang, no crash —
    from rgpu's NVML, found through the library path before a host's real libnvidia-ml.so.1 (a GPU
    host has one: it would answer with the host's GPUs)."""
    import os
    import subprocess
    env = {k: v for k, v in os.environ.items() if not k.startswith("RGPU_")}
    env.update(LD_LIBRARY_PATH=str(libdir), RGPU_CONFIG_DIR=str(tmp_path))
    code = ("import pynvml as n\ntry:\n    n.nvmlInit()\nexcept n.NVMLError as e:\n    print('NVML:', e)\n"
            "print('LOADED', *sorted({l.split()[-1] for l in open('/proc/self/maps') if 'nvidia-ml' in l or 'librgpu' in l}))\n")
    p = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=60)
    assert p.returncode == 0, p.stdout + p.stderr
    out = p.stdout.splitlines()
    loaded = out[-1].split()[1:]
    assert loaded == [str((libdir / "librgpu.so").resolve())], p.stdout + p.stderr   # rgpu's, and no other NVML
    assert out[:-1] == ["NVML: Driver Not Loaded"], p.stdout + p.stderr
