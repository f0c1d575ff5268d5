"""Who a software GPU is, in one place: its name, architecture, SM count and UUID. The supervisor
(inventory, registration with the controller), the worker (the device a session sees) and the tests
all read these, so the name `rgpu ls` shows and the one `cudaGetDeviceProperties` gives cannot differ."""
from __future__ import annotations

import hashlib

DEFAULT_ARCH = "sm_80"
SM_COUNT = 108  # an A100's: what occupancy calculators and grid-size heuristics expect of an sm_80 part


def name(index: int, arch: str = DEFAULT_ARCH) -> str:
    return f"rgpu sim GPU {index} ({arch})"


def uuid(server_id: str, index: int) -> bytes:
    """The 16 uuid bytes of software GPU ``index`` of the server ``server_id``: stable across
    restarts on the same host and address, so the GPU keeps its identity and leases."""
    return hashlib.sha256(f"rgpu-sim:{server_id}:{index}".encode()).digest()[:16]
