"""Fixtures for the software GPU's interpreter tests: kernels from tests/cuda/kernels built once
per session with nvcc (tests/support/cudabuild.py) and loaded through KernelModule.load."""
from __future__ import annotations

import struct
from pathlib import Path

import numpy as np
import pytest

from rgpu.server.backends.sim.kernels import KernelModule, launch
from rgpu.server.backends.sim.memory import DeviceMemory
from tests.support.cudabuild import build

KERNELS = Path(__file__).resolve().parents[2] / "cuda" / "kernels"

# How each variant of a test kernel is built: (cudabuild kind, extra nvcc flags).
VARIANTS = {
    "ptx": ("ptx", []),
    "fatbin-none": ("fatbin", ["--compress-mode=none"]),
    "fatbin-speed": ("fatbin", ["--compress-mode=speed"]),
    "fatbin-balance": ("fatbin", ["--compress-mode=balance"]),
    "fatbin-size": ("fatbin", ["--compress-mode=size"]),
    "rdc": ("fatbin", ["-rdc=true"]),
    "debug-G": ("fatbin", ["-G"]),
}


def image(source: str, variant: str = "ptx") -> bytes:
    kind, flags = VARIANTS[variant]
    return build(KERNELS / source, kind, flags).read_bytes()


class Device:
    """One session's worth of device memory plus a module, with numpy-friendly helpers."""

    def __init__(self, mod: KernelModule, capacity: int = 64 << 20):
        self.mod = mod
        self.mem = DeviceMemory(capacity)
        mod.bind(self.mem)
        self.out: list[str] = []
        self.stats = []

    def put(self, arr) -> int:
        arr = np.ascontiguousarray(arr)
        addr = self.mem.alloc(max(arr.nbytes, 1))
        self.mem.write(addr, arr.tobytes())
        return addr

    def zeros(self, count: int, dtype) -> int:
        return self.put(np.zeros(count, dtype))

    def get(self, addr: int, count: int, dtype) -> np.ndarray:
        dt = np.dtype(dtype)
        return np.frombuffer(self.mem.read(addr, count * dt.itemsize), dt).copy()

    def pack(self, name: str, args) -> bytes:
        func = self.mod.functions[name]
        buf = bytearray(func.param_size)
        for p, a in zip(func.params, args, strict=True):
            if isinstance(a, (bytes, bytearray)):
                raw = bytes(a)
            elif isinstance(a, np.generic):
                raw = a.tobytes()
            elif isinstance(a, float):
                raw = struct.pack("<f" if p.size == 4 else "<d", a)
            else:
                raw = int(a).to_bytes(p.size, "little", signed=a < 0)
            assert len(raw) == p.size, (name, p, len(raw))
            buf[p.offset:p.offset + p.size] = raw
        return bytes(buf)

    def launch(self, name, grid, block, *args, shared=0):
        grid = grid + (1,) * (3 - len(grid)) if isinstance(grid, tuple) else (grid, 1, 1)
        block = block + (1,) * (3 - len(block)) if isinstance(block, tuple) else (block, 1, 1)
        st = launch(self.mod, self.mod.functions[name], self.mem, grid, block, shared,
                    self.pack(name, args), self.out)
        self.stats.append(st)
        return st


@pytest.fixture(scope="session", autouse=True)
def parse_cache(tmp_path_factory):
    """Parsed PTX bodies go to a cache of this test session's own (ptx/cache.py), never to the
    machine's, so one run cannot hide a parser change from the next."""
    import os
    old = os.environ.get("RGPU_SIM_CACHE")
    os.environ["RGPU_SIM_CACHE"] = str(tmp_path_factory.mktemp("sim-cache"))
    yield os.environ["RGPU_SIM_CACHE"]
    if old is None:
        os.environ.pop("RGPU_SIM_CACHE", None)
    else:
        os.environ["RGPU_SIM_CACHE"] = old


@pytest.fixture(scope="module", params=list(VARIANTS))
def core_module(request) -> KernelModule:
    return KernelModule.load(image("simcore.cu", request.param))


@pytest.fixture
def dev(core_module) -> Device:
    return Device(core_module)


@pytest.fixture(scope="session")
def rng():
    return np.random.default_rng(1234)


@pytest.fixture(scope="session")
def build_image():
    """image(source, variant) -> bytes, for tests that load their own modules."""
    return image


@pytest.fixture(scope="session")
def make_device():
    """Device(KernelModule) for tests that load their own modules."""
    return Device
