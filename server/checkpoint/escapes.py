"""Module variables' addresses found in the device memory a checkpoint or a move copies.

On a real GPU the driver places a module's variables when it loads the module, and a move or a
restore loads it again in another process, where they land elsewhere (server/backends/cuda/
placement.py). The address the program holds stays the variable's name there (aliases.py rewrites
it in launch parameters, copies and memsets), but one the program stored in its device memory
(copied in, or written by a kernel that took ``&variable``) would lead a later kernel to where the
variable was, which the target never mapped for it. So every 8-byte word of the memory copied is
looked up among the session's variables' ranges (``Device.escape_ranges``: none on the software
GPU, which places variables again where they were), and a hit refuses the checkpoint, naming the
variable and where its address was found. A word of data that happens to equal such an address is
refused too: the driver maps module variables far from the integers and floats programs hold."""
from __future__ import annotations

import numpy as np

from .image import CheckpointError


class Escapes:
    """The ranges of a device's escape_ranges(), and a search of memory for words inside them."""

    def __init__(self, ranges):
        ranges = sorted((lo, hi, name) for lo, hi, name in ranges if hi > lo)
        self.names = [name for _, _, name in ranges]
        self.starts = np.array([lo for lo, _, _ in ranges], dtype=np.uint64)
        self.ends = np.array([hi for _, hi, _ in ranges], dtype=np.uint64)

    @classmethod
    def of(cls, device) -> "Escapes | None":
        ranges = device.escape_ranges()
        return cls(ranges) if ranges else None

    def find(self, addr: int, data) -> tuple[int, int, str] | None:
        """(address of the word, its value, the variable) of the first word of ``data`` (device
        memory at ``addr``) inside a range, or None."""
        skip = -addr % 8  # words aligned in the device's address space
        n = (len(data) - skip) // 8
        if n <= 0:
            return None
        words = np.frombuffer(data, dtype="<u8", count=n, offset=skip)
        near = np.flatnonzero((words >= self.starts[0]) & (words < self.ends.max()))  # most memory stops here
        if near.size == 0:
            return None
        values = words[near]
        i = np.searchsorted(self.starts, values, side="right") - 1
        hit = np.flatnonzero(values < self.ends[i])
        if hit.size == 0:
            return None
        k = int(hit[0])
        return addr + skip + 8 * int(near[k]), int(values[k]), self.names[int(i[k])]

    def check(self, addr: int, data) -> None:
        found = self.find(addr, data)
        if found is not None:
            at, value, name = found
            raise CheckpointError(
                f"the program stored the address of module variable '{name}' (0x{value:x}) in its device memory "
                f"(at 0x{at:x}); another GPU's driver places the variable elsewhere and that address would lead "
                "nowhere there, so the session keeps its GPU")
