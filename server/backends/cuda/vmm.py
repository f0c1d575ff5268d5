"""Virtual memory management on a real GPU: the CudaDevice's part of the Device interface for it.
server/api/vmm.py has checked every range and translated every session handle, so this calls the
driver with its own handles. Physical allocations count against the session's memory quota (the
driver's cuMemCreate is the only VMM call that takes device memory); mapped, accessible runs join
the table `allocation()` searches, so copies and memsets to them pass the handlers' range checks."""
from __future__ import annotations

from ...errors import CudaError

ALLOCATION_PINNED, LOCATION_DEVICE = 1, 1  # CU_MEM_ALLOCATION_TYPE_PINNED, CU_MEM_LOCATION_TYPE_DEVICE


class CudaVmm:
    """Mixed into CudaDevice: needs ``self.dev``, ``self._reserve``, ``self._starts``, the tables made
    by ``_vmm_tables`` and the module's driver."""

    def _vmm_tables(self) -> None:
        self._physical: dict[int, int] = {}  # driver handle -> bytes charged
        self._reserved: dict[int, int] = {}  # address -> size
        self._mapped: dict[int, int] = {}  # mapped address -> size (unmapped at close)
        self._runs: dict[int, int] = {}  # accessible run start -> size (allocation() finds them)

    def _driver(self):
        from . import device
        return device.ffi(), device.lib(), device.check

    def _prop(self, raw: bytes = b""):
        """The program's CUmemAllocationProp with this session's GPU as its location (the client's
        ordinal routed the call here; the driver numbers its devices its own way)."""
        ffi, _, _ = self._driver()
        p = ffi.new("CUmemAllocationProp *")
        if raw:
            ffi.memmove(p, raw, min(len(raw), ffi.sizeof(p[0])))
        p.type, p.location.type, p.location.id = ALLOCATION_PINNED, LOCATION_DEVICE, self.dev
        return p

    def vmm_granularity(self, recommended: bool) -> int:
        ffi, lib, check = self._driver()
        g = ffi.new("size_t *")
        check(lib.cuMemGetAllocationGranularity(g, self._prop(), 1 if recommended else 0))
        return g[0]

    def vmm_create(self, size: int, prop: bytes):
        ffi, lib, check = self._driver()
        if self._reserve is not None and not self._reserve(size):
            raise CudaError("CUDA_ERROR_OUT_OF_MEMORY", f"{size} bytes of physical memory exceed this session's memory")
        h = ffi.new("CUmemGenericAllocationHandle *")
        rc = lib.cuMemCreate(h, size, self._prop(prop), 0)
        if rc != 0 and self._reserve is not None:
            self._reserve(-size)
        check(rc)
        self._physical[h[0]] = size
        return h[0]

    def vmm_destroy(self, phys) -> None:
        _, lib, check = self._driver()
        check(lib.cuMemRelease(phys))
        size = self._physical.pop(phys, 0)
        if self._reserve is not None:
            self._reserve(-size)

    def vmm_reserve(self, size: int, align: int, hint: int) -> int:
        ffi, lib, check = self._driver()
        p = ffi.new("CUdeviceptr *")
        check(lib.cuMemAddressReserve(p, size, align, hint, 0))
        self._reserved[p[0]] = size
        return p[0]

    def vmm_unreserve(self, addr: int, size: int) -> None:
        _, lib, check = self._driver()
        check(lib.cuMemAddressFree(addr, size))
        self._reserved.pop(addr, None)

    def vmm_map(self, addr: int, size: int, phys, offset: int) -> None:
        _, lib, check = self._driver()
        check(lib.cuMemMap(addr, size, offset, phys, 0))
        self._mapped[addr] = size

    def vmm_unmap(self, addr: int, size: int, phys, offset: int) -> None:
        _, lib, check = self._driver()
        check(lib.cuMemUnmap(addr, size))
        self._mapped.pop(addr, None)

    def vmm_set_access(self, addr: int, size: int, flags: int) -> None:
        ffi, lib, check = self._driver()
        d = ffi.new("CUmemAccessDesc *")
        d.location.type, d.location.id, d.flags = LOCATION_DEVICE, self.dev, flags
        check(lib.cuMemSetAccess(addr, size, d, 1))

    def vmm_expose(self, lo: int, hi: int, runs) -> None:
        for a in [a for a in self._runs if lo <= a < hi]:
            del self._runs[a]
            self._untrack_start(a)
        for a, n in runs:
            self._runs[a] = n
            self._track_start(a)

    def _vmm_close(self) -> None:
        """At session close, in the order the driver needs: unmap, free the ranges, release."""
        _, lib, _ = self._driver()
        for a, n in self._mapped.items():
            lib.cuMemUnmap(a, n)
        for a, n in self._reserved.items():
            lib.cuMemAddressFree(a, n)
        for h in list(self._physical):
            lib.cuMemRelease(h)
        if self._reserve is not None:
            self._reserve(-sum(self._physical.values()))
        self._mapped.clear(), self._reserved.clear(), self._physical.clear(), self._runs.clear()
