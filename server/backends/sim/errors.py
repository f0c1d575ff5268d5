"""Errors the software GPU raises. They carry the Driver API enumerator *name*; the server
maps names to numbers (and to the Runtime API's codes) through the generated enum tables."""
from ...errors import CudaError


class SimError(CudaError):
    """A CUDA error detected by the software GPU. ``code`` is a CUresult enumerator name."""


class SimFault(SimError):
    """An error that corrupts the context, as on a real GPU (illegal address, trap, assert):
    every later call of the session fails with the same code."""

    sticky = True
