"""Who a software GPU is, in one place: its name, architecture and UUID. The supervisor
(inventory, registration with the controller), the worker (the device a session sees) and the tests
all read these, so the name `rgpu ls` shows and the one `cudaGetDeviceProperties` gives cannot differ.
The limits that come with an architecture (SM count, shared memory, ...) are in archs.py."""
from __future__ import annotations

import hashlib

from . import archs

DEFAULT_ARCH = archs.DEFAULT


def name(index: int, arch: str = DEFAULT_ARCH) -> str:
    return f"rgpu sim GPU {index} ({archs.get(arch).name})"


def uuid(server_id: str, index: int) -> bytes:
    """The 16 uuid bytes of software GPU ``index`` of the server ``server_id``: stable across
    restarts on the same host and address, so the GPU keeps its identity and leases."""
    return hashlib.sha256(f"rgpu-sim:{server_id}:{index}".encode()).digest()[:16]
