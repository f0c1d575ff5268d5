"""The addresses of module variables the program holds, kept after a move (placement.py).

On the source the program was handed a variable's address (cuModuleGetGlobal: cudaGetSymbolAddress,
or NVIDIA's runtime inside a library such as cuBLASLt, which asks it for its deviceConstants and
passes it to its kernels); the target's driver places the variable elsewhere when it loads the
module again. The program's address stays the variable's name here: an alias from it to where the
variable is now. It is rewritten where it comes back to the worker: each 8-byte word of a launch's
parameters that falls inside an alias (a pointer parameter, a pointer in a struct parameter; the
worker's compiled loop does the same: native/launches.c), and the device side of copies and memsets
(server/api/memory.py); cuModuleGetGlobal answers it again, so the program never holds two addresses
for one variable. A parameter word that is an integer equal to such an address would be rewritten
too; these addresses lie where the driver maps device memory, far from the integers kernels take.

A variable's address stored in another variable of its module (an initializer such as
``__device__ int *p = &x``, which the driver relocates at load, or a pointer the program stored there)
is moved with it: the target writes where the variable is now (relocate). One stored in the session's
device memory cannot be told from data there after the fact, and would lead a later kernel to where
the variable was: the copy finds it (server/checkpoint/escapes.py) and refuses the move. Not told
apart: a held range that the target's driver gave to another variable of the session (the alias wins).
"""
from __future__ import annotations

import bisect

import numpy as np
import structlog

from ...checkpoint.escapes import Ranges

log = structlog.get_logger()


class VariableAliases:
    """Mixed into CudaDevice (through CudaPlacement): needs ``_track``/``_globals``, ``launcher``."""

    def _alias_tables(self) -> None:
        self._aliases: dict[int, tuple[int, int, int]] = {}  # the program's address -> (here, size, module key)
        self._alias_starts: list[int] = []  # sorted keys of _aliases
        self._alias_of: dict[tuple[int, str], int] = {}  # (module key, variable) -> the program's address

    def _alias_add(self, key: int, name: str, held: int, addr: int, size: int) -> None:
        if held in self._aliases or size <= 0:
            return
        self._aliases[held] = (addr, size, key)
        bisect.insort(self._alias_starts, held)
        self._alias_of[(key, name)] = held
        self._aliases_changed()
        log.info("variable_alias", variable=name, size=size, held=hex(held), here=hex(addr))

    def _alias_drop_module(self, key: int) -> None:
        gone = [k for k in self._alias_of if k[0] == key]
        for k in gone:
            held = self._alias_of.pop(k)
            del self._aliases[held]
            self._alias_starts.remove(held)
        if gone:
            self._aliases_changed()

    def _aliases_changed(self) -> None:
        launcher = getattr(self, "launcher", None)
        if launcher is not None:
            launcher.aliases([(held, size, addr) for held, (addr, size, _) in sorted(self._aliases.items())])

    def held_address(self, key: int, name: str) -> int | None:
        """The address the program holds for this variable, where it is an alias (None: none)."""
        return self._alias_of.get((key, name))

    def alias(self, addr: int, n: int = 1) -> int:
        """Where [addr, addr + n) is, when the program named it by a variable's old address."""
        if not self._alias_starts or not isinstance(addr, int):
            return addr
        i = bisect.bisect_right(self._alias_starts, addr) - 1
        if i >= 0:
            held = self._alias_starts[i]
            here, size, _ = self._aliases[held]
            if addr + max(n, 1) <= held + size:
                return here + (addr - held)
        return addr

    def fix_params(self, params):
        """A launch's parameter buffer with each 8-byte word inside an alias rewritten."""
        if not self._alias_starts or len(params) < 8:
            return params
        words = memoryview(bytes(params)[:len(params) // 8 * 8]).cast("Q")
        fixed = None
        for i, v in enumerate(words):
            w = self.alias(v)
            if w != v:
                if fixed is None:
                    fixed = bytearray(params)
                fixed[8 * i:8 * i + 8] = w.to_bytes(8, "little")
        return params if fixed is None else bytes(fixed)


def relocate(data: bytes, moved: Ranges, name: str = "") -> bytes:
    """A module variable's contents with each 8-byte word inside one of ``moved`` (Ranges of (start,
    end, new start): where a variable was, or the address the program holds for it, and where it is
    now) pointing where that variable is now."""
    words, at, which, _ = moved.inside(data)
    if at.size == 0:
        return data
    news = np.array([r[2] for r in moved.items], dtype=np.uint64)
    out = words.copy()
    out[at] = words[at] - moved.starts[which] + news[which]
    log.info("variable_pointers_relocated", variable=name, words=int(at.size))
    return out.tobytes() + bytes(data[8 * len(words):])
