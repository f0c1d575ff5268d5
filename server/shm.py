"""The worker's end of the same-host fast path (libhook/src/transport/shm.c is the client's): a client's
POSIX shared-memory segment, mapped when the client offers it in the attach and it provably is
the same memory — same kernel boot, a name of the client's own form, and the nonce the client
wrote there. Calls then name [offset, length] regions of it instead of carrying bulk frames."""
from __future__ import annotations

import ctypes
import mmap
import os
import re
import stat

from rgpu.protocol.generated.constants import SHM_DATA as DATA  # the first page holds the nonce; data starts here
_NAME = re.compile(r"^/rgpu-[0-9]+-[0-9]+-[0-9a-f]{8}$")


def boot_id() -> str:
    try:
        with open("/proc/sys/kernel/random/boot_id") as f:
            return f.read().strip()
    except OSError:
        return ""


class Segment:
    def __init__(self, mm: mmap.mmap, size: int):
        self._mm, self.size = mm, size
        self.view = memoryview(mm)
        self.bytes_in = self.bytes_out = 0
        self.addr = ctypes.addressof(ctypes.c_char.from_buffer(mm))  # for a driver that DMAs from it
        self.handle, self.reg_len, self.reg_failed = None, 0, False  # the device's registration (staging.py)
        self.ring_handle = None  # the call ring's registration, past size (staging.py register_ring)

    @classmethod
    def attach(cls, offer) -> tuple[Segment | None, str]:
        """Map the offered segment, or (None, why not)."""
        if not isinstance(offer, dict):
            return None, "offer is not a map"
        name, size, nonce = offer.get("name"), offer.get("size"), offer.get("nonce")
        if not (isinstance(name, str) and _NAME.match(name) and isinstance(size, int) and size > DATA
                and isinstance(nonce, bytes) and len(nonce) == 16):
            return None, "malformed offer"
        if offer.get("boot") != boot_id():
            return None, "another host"
        try:
            fd = os.open("/dev/shm" + name, os.O_RDWR | os.O_NOFOLLOW | os.O_CLOEXEC)
        except OSError as e:
            return None, f"cannot open: {e.strerror}"
        try:
            st = os.fstat(fd)
            if not stat.S_ISREG(st.st_mode) or st.st_size != size:
                return None, "not the offered segment"
            mm = mmap.mmap(fd, size, mmap.MAP_SHARED, mmap.PROT_READ | mmap.PROT_WRITE)
        except (OSError, ValueError) as e:
            return None, f"cannot map: {e}"
        finally:
            os.close(fd)
        if mm[:16] != nonce:
            mm.close()
            return None, "nonce differs"
        return cls(mm, size), ""

    def region(self, off, length) -> memoryview:
        if not (isinstance(off, int) and isinstance(length, int) and DATA <= off and 0 <= length
                and off + length <= self.size):
            raise ValueError(f"shared-memory region [{off}, +{length}) is outside the segment")
        return self.view[off:off + length]

    def put(self, chunks, room: int) -> list | None:
        """Write reply bulk chunks at DATA if they fit in `room`; their [offset, length] regions."""
        total = sum(map(len, chunks))
        if total > room or DATA + total > self.size:
            return None
        off, regions = DATA, []
        for c in chunks:
            n = len(c)
            self.view[off:off + n] = c
            regions.append([off, n])
            off += n
        self.bytes_out += total
        return regions

    def close(self) -> None:
        self.view.release()
        try:
            self._mm.close()
        except BufferError:  # a region still referenced at exit: the process is ending anyway
            pass
