"""The program's pinned host memory, mapped by the worker (libhook/src/memory/hostmem.c is the client's
end). On the same host each cudaMallocHost / cudaHostAlloc / cuMemHostAlloc allocation is a POSIX
shared-memory segment of its own; a copy whose host side lies in one names it — [name, nonce, size,
offset, length] — instead of carrying the data. The worker maps a segment the first time a call names
it, on the same proof as the session segment (server/shm.py: a name of the client's form, the nonce in
its first page; the session's own segment proved the same boot), registers it with the device (the
cuda backend page-locks it for DMA: cuMemHostRegister, portable) and copies straight between the
mapping and device memory, in stream order. Pinned memory is portable: every worker of the program
that meets a segment maps it on its own. The client's cudaFreeHost sends UNPIN to each worker it told:
the device is synchronised (CUDA's cudaFreeHost does), the mapping unregistered and unmapped.

Mapped host memory (cuMemHostAlloc / cuMemHostRegister with DEVICEMAP): MAP_HOST names a segment the
same way, and the worker also maps it into the device's address space (`device_map`): the cuda
backend hands back the device pointer the driver gives for the registered mapping, the software GPU
maps the segment's pages into its arena. Either way kernels read and write the program's own pages
(zero copy); UNPIN takes the device's mapping away before the segment's."""
from __future__ import annotations

import ctypes
import mmap
import os
import re
import stat

import structlog

from .errors import CudaError
from .shm import DATA

_NAME = re.compile(r"^/rgpu-([0-9]+)-h[0-9a-f]{16}$")
log = structlog.get_logger()
MAX_SEGMENTS = 16384  # a session maps at most this many (vm.max_map_count is 65530 by default)


class Mapping:
    __slots__ = ("name", "nonce", "size", "mm", "view", "addr", "handle", "file", "devptr")

    def __init__(self, name, nonce, size, mm, file=None):
        self.name, self.nonce, self.size, self.mm = name, nonce, size, mm
        self.view = memoryview(mm)
        self.addr = ctypes.addressof(ctypes.c_char.from_buffer(mm))  # the mapping's address, for the driver
        self.handle = None
        self.file = file  # (st_dev, st_ino) of the segment mapped: a backend that maps it again checks it
        self.devptr = None  # the device address of its first data byte, once MAP_HOST mapped it there

    def open_again(self) -> int:
        """A descriptor of the same segment (the software GPU maps it into its arena): the name must
        still be the file this mapping was made from."""
        fd = os.open("/dev/shm" + self.name, os.O_RDWR | os.O_NOFOLLOW | os.O_CLOEXEC)
        st = os.fstat(fd)
        if (st.st_dev, st.st_ino) != self.file or st.st_size != self.size:
            os.close(fd)
            raise CudaError("CUDA_ERROR_INVALID_VALUE", f"pinned segment {self.name}: not the segment mapped under that name")
        return fd

    def close(self) -> None:
        self.view.release()
        try:
            self.mm.close()
        except BufferError:  # the ctypes export: it goes with the process
            pass


class PinnedHost:
    """The pinned segments one session has mapped, by name."""

    def __init__(self, session):
        self.session = session  # its device may be replaced (idle reclaim restores into a new one)
        self.maps: dict[str, Mapping] = {}
        # bytes moved in and out: a list, then, once a segment is pinned in the cuda backend's compiled
        # copies, the uint64_t[2] (cuda/copies.py) that both they and Python's copies add to
        self._counts = [0, 0]

    @property
    def bytes_in(self) -> int:
        return int(self._counts[0])

    @bytes_in.setter
    def bytes_in(self, n: int) -> None:
        self._counts[0] = n

    @property
    def bytes_out(self) -> int:
        return int(self._counts[1])

    @bytes_out.setter
    def bytes_out(self, n: int) -> None:
        self._counts[1] = n

    def region(self, pin) -> tuple[memoryview, int]:
        """The mapped [offset, +length) of the segment `pin` names (mapping it the first time):
        (a view of it, its address). CudaError INVALID_VALUE for anything that does not check out."""
        name, nonce, size, off, length = pin
        m = self.maps.get(name)
        if m is None:
            m = self._map(name, nonce, size)
        elif m.nonce != nonce or m.size != size:
            raise CudaError("CUDA_ERROR_INVALID_VALUE", f"pinned segment {name}: not the segment mapped under that name")
        if not (DATA <= off and 0 <= length and off + length <= m.size):
            raise CudaError("CUDA_ERROR_INVALID_VALUE", f"pinned region [{off}, +{length}) is outside {name}")
        return m.view[off:off + length], m.addr + off

    def device_map(self, name, nonce, size) -> int:
        """MAP_HOST: the segment mapped into the device's address space (once); the device address of
        its first data byte. CudaError as `region`, or the backend's when the device cannot map it."""
        self.region([name, nonce, size, DATA, 0])
        m = self.maps[name]
        if m.devptr is None:
            m.devptr = self.session.device.host_map(m)
            log.info("pinned_device_mapped", name=name, size=size, devptr=hex(m.devptr))
        return m.devptr

    def _map(self, name, nonce, size) -> Mapping:
        def refuse(why):
            raise CudaError("CUDA_ERROR_INVALID_VALUE", f"pinned segment {name}: {why}")
        if not (isinstance(name, str) and _NAME.match(name) and isinstance(nonce, bytes) and len(nonce) == 16
                and isinstance(size, int) and size > DATA):
            refuse("malformed reference")
        if len(self.maps) >= MAX_SEGMENTS:
            refuse(f"this session has {MAX_SEGMENTS} pinned segments mapped already")
        try:
            fd = os.open("/dev/shm" + name, os.O_RDWR | os.O_NOFOLLOW | os.O_CLOEXEC)
        except OSError as e:
            refuse(f"cannot open: {e.strerror}")
        try:
            st = os.fstat(fd)
            if not stat.S_ISREG(st.st_mode) or st.st_size != size:
                refuse("not the named segment")
            mm = mmap.mmap(fd, size, mmap.MAP_SHARED, mmap.PROT_READ | mmap.PROT_WRITE)
        except (OSError, ValueError) as e:
            refuse(f"cannot map: {e}")
        finally:
            os.close(fd)
        if mm[:16] != nonce:
            mm.close()
            refuse("nonce differs")
        m = Mapping(name, nonce, size, mm, (st.st_dev, st.st_ino))
        try:
            m.handle = self.session.device.host_register(m.addr, size)
        except CudaError:
            m.close()
            raise
        self.maps[name] = m
        copier = getattr(self.session.device, "compiled_copier", None)
        if copier is not None:  # the compiled copies serve a step's copies from and to it, and sync ones
            if isinstance(self._counts, list):
                counts = copier.counters()
                counts[0], counts[1] = self._counts
                self._counts = counts
            copier.pin(name, nonce, size, m.addr, self._counts)
        log.info("pinned_mapped", name=name, size=size, registered=m.handle is not None)
        return m

    def drop(self, name) -> bool:
        """The client freed the segment: unregister and unmap it (the caller synchronised the device)."""
        m = self.maps.pop(name, None)
        if m is None:
            return False
        self._release(m)
        return True

    def _release(self, m: Mapping) -> None:
        copier = getattr(self.session.device, "compiled_copier", None)
        if copier is not None:  # before the unmap: the loop never copies to or from it again
            copier.unpin(m.name)
        if m.devptr is not None:
            try:
                self.session.device.host_unmap(m)
            except CudaError:
                pass
        if m.handle is not None:
            try:
                self.session.device.host_unregister(m.handle)
            except CudaError:
                pass
        m.close()

    def close(self, client_gone: bool = False) -> None:
        """At the session's end. ``client_gone``: the client's connection went away without a goodbye;
        a segment whose creating process is gone is unlinked too (nobody else will: no /dev/shm leak)."""
        for m in list(self.maps.values()):
            self._release(m)
            if client_gone and _dead(m.name):
                try:
                    os.unlink("/dev/shm" + m.name)
                except OSError:
                    pass
        self.maps.clear()


def _dead(name: str) -> bool:
    pid = int(_NAME.match(name).group(1))
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    except OSError:
        return False
    return False
