"""CUDA errors as the server raises them: the Driver API enumerator name, a message for the client's
log, and whether the error corrupts the session's context (sticky), as on a real GPU."""
from __future__ import annotations

from rgpu.protocol.generated import enums

_DRIVER = enums.cudaError_enum
_RUNTIME_BY_NUMBER = {v: k for k, v in enums.cudaError.items()}


class CudaError(Exception):
    sticky = False

    def __init__(self, code: str, message: str = ""):
        super().__init__(f"{code}: {message}" if message else code)
        self.code = code
        self.message = message or code


def driver_code(name: str) -> int:
    return _DRIVER.get(name, _DRIVER["CUDA_ERROR_UNKNOWN"])


def runtime_code(name: str) -> int:
    """The Runtime API's number for a Driver API error. Since CUDA 10 the numbers line up for
    every error both faces have; one the Runtime lacks reads as cudaErrorUnknown."""
    n = driver_code(name)
    return n if n in _RUNTIME_BY_NUMBER else enums.cudaError["cudaErrorUnknown"]


def code_for(face: str, name: str) -> int:
    return runtime_code(name) if face == "runtime" else driver_code(name)
