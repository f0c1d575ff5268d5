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


class Ranges:
    """Sorted [start, end) address ranges, and a search of memory's 8-byte words for those inside
    them (escapes here; aliases.relocate rewrites what it finds)."""

    def __init__(self, ranges):
        ranges = sorted(r for r in ranges if r[1] > r[0])
        self.items = ranges
        self.starts = np.array([r[0] for r in ranges], dtype=np.uint64)
        self.ends = np.array([r[1] for r in ranges], dtype=np.uint64)
        self.top = self.ends.max() if ranges else 0

    def inside(self, data, addr: int = 0):
        """(words, positions, range indices, offset of the first word): data's aligned words, and
        which of them lie inside a range and inside which one."""
        skip = -addr % 8  # words aligned in the device's address space
        n = max(0, (len(data) - skip) // 8)
        words = np.frombuffer(data, dtype="<u8", count=n, offset=skip) if n else np.zeros(0, np.uint64)
        if not n or not self.items:
            return words, np.zeros(0, np.intp), np.zeros(0, np.intp), skip
        near = np.flatnonzero((words >= self.starts[0]) & (words < self.top))  # most memory stops here
        if near.size == 0:
            return words, near, near, skip
        i = np.searchsorted(self.starts, words[near], side="right") - 1
        hit = words[near] < self.ends[i]
        return words, near[hit], i[hit], skip


class Escapes:
    """The ranges of a device's escape_ranges(), and a search of memory for words inside them."""

    def __init__(self, ranges):
        self.ranges = Ranges(ranges)

    @classmethod
    def of(cls, device) -> "Escapes | None":
        ranges = device.escape_ranges()
        return cls(ranges) if ranges else None

    def find(self, addr: int, data) -> tuple[int, int, str] | None:
        """(address of the word, its value, the variable) of the first word of ``data`` (device
        memory at ``addr``) inside a range, or None."""
        words, at, which, skip = self.ranges.inside(data, addr)
        if at.size == 0:
            return None
        k = int(at[0])
        return addr + skip + 8 * k, int(words[k]), self.ranges.items[int(which[0])][2]

    def check(self, addr: int, data) -> None:
        found = self.find(addr, data)
        if found is not None:
            at, value, name = found
            raise CheckpointError(
                f"the program stored the address of module variable '{name}' (0x{value:x}) in its device memory "
                f"(at 0x{at:x}); another GPU's driver places the variable elsewhere and that address would lead "
                "nowhere there, so the session keeps its GPU")
