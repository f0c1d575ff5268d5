"""NVIDIA's Python bindings to the driver (cuda-bindings, the wheel cuda-python installs) asking for
and setting pointer attributes, run through `rgpu run` by tests/e2e/test_frameworks.py. The bindings
size each attribute's buffer themselves (cuda/bindings/_lib/utils.pxi), so a value rgpu writes wider
or narrower than the driver does, or an attribute it refuses, shows here. Prints one line per check
and "pointers ok" at the end; any failure raises."""
from __future__ import annotations

from cuda.bindings import driver as cu

ATTRS = [
    cu.CUpointer_attribute.CU_POINTER_ATTRIBUTE_CONTEXT,
    cu.CUpointer_attribute.CU_POINTER_ATTRIBUTE_MEMORY_TYPE,
    cu.CUpointer_attribute.CU_POINTER_ATTRIBUTE_DEVICE_POINTER,
    cu.CUpointer_attribute.CU_POINTER_ATTRIBUTE_HOST_POINTER,
    cu.CUpointer_attribute.CU_POINTER_ATTRIBUTE_SYNC_MEMOPS,
    cu.CUpointer_attribute.CU_POINTER_ATTRIBUTE_BUFFER_ID,
    cu.CUpointer_attribute.CU_POINTER_ATTRIBUTE_IS_MANAGED,
    cu.CUpointer_attribute.CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL,
    cu.CUpointer_attribute.CU_POINTER_ATTRIBUTE_IS_LEGACY_CUDA_IPC_CAPABLE,
    cu.CUpointer_attribute.CU_POINTER_ATTRIBUTE_RANGE_START_ADDR,
    cu.CUpointer_attribute.CU_POINTER_ATTRIBUTE_RANGE_SIZE,
    cu.CUpointer_attribute.CU_POINTER_ATTRIBUTE_MAPPED,
    cu.CUpointer_attribute.CU_POINTER_ATTRIBUTE_ALLOWED_HANDLE_TYPES,
    cu.CUpointer_attribute.CU_POINTER_ATTRIBUTE_IS_GPU_DIRECT_RDMA_CAPABLE,
    cu.CUpointer_attribute.CU_POINTER_ATTRIBUTE_ACCESS_FLAGS,
    cu.CUpointer_attribute.CU_POINTER_ATTRIBUTE_MEMPOOL_HANDLE,
]
SYNC = cu.CUpointer_attribute.CU_POINTER_ATTRIBUTE_SYNC_MEMOPS


def ok(result):
    err, *rest = result
    assert err == cu.CUresult.CUDA_SUCCESS, err
    return rest[0] if len(rest) == 1 else rest


def attributes(ptr, managed: bool) -> dict:
    """Every attribute, one at a time and in one list. Device memory has no host address: the single
    query refuses it as the driver does, the list reads it as NULL."""
    host = cu.CUpointer_attribute.CU_POINTER_ATTRIBUTE_HOST_POINTER
    one = {a.name: ok(cu.cuPointerGetAttribute(a, ptr)) for a in ATTRS if managed or a != host}
    if not managed:
        assert cu.cuPointerGetAttribute(host, ptr)[0] == cu.CUresult.CUDA_ERROR_INVALID_VALUE
        one[host.name] = 0
    many = ok(cu.cuPointerGetAttributes(len(ATTRS), ATTRS, ptr))
    for a, value in zip(ATTRS, many):  # the list form agrees with the single one
        assert str(one[a.name]) == str(value), (a.name, one[a.name], value)
    assert bool(one["CU_POINTER_ATTRIBUTE_IS_MANAGED"]) == managed
    assert int(one["CU_POINTER_ATTRIBUTE_RANGE_START_ADDR"]) == int(ptr)
    assert int(one["CU_POINTER_ATTRIBUTE_RANGE_SIZE"]) >= 0x1000
    assert int(one["CU_POINTER_ATTRIBUTE_BUFFER_ID"]) != 0
    return one


def round_trip(ptr) -> None:
    for value in (True, False, True):
        ok(cu.cuPointerSetAttribute(value, SYNC, ptr))
        assert ok(cu.cuPointerGetAttribute(SYNC, ptr)) == value, value


def main() -> None:
    ok(cu.cuInit(0))
    dev = ok(cu.cuDeviceGet(0))
    ctx = ok(cu.cuDevicePrimaryCtxRetain(dev))
    ok(cu.cuCtxSetCurrent(ctx))

    managed = ok(cu.cuMemAllocManaged(0x1000, cu.CUmemAttach_flags.CU_MEM_ATTACH_GLOBAL.value))
    a = attributes(managed, managed=True)
    assert not a["CU_POINTER_ATTRIBUTE_IS_LEGACY_CUDA_IPC_CAPABLE"]
    round_trip(managed)
    print("managed ok")

    plain = ok(cu.cuMemAlloc(0x1000))
    a = attributes(plain, managed=False)
    assert a["CU_POINTER_ATTRIBUTE_IS_LEGACY_CUDA_IPC_CAPABLE"]
    assert int(a["CU_POINTER_ATTRIBUTE_MEMPOOL_HANDLE"]) == 0
    round_trip(plain)
    first_id = int(a["CU_POINTER_ATTRIBUTE_BUFFER_ID"])
    ok(cu.cuMemFree(plain))
    again = ok(cu.cuMemAlloc(0x1000))
    assert int(ok(cu.cuPointerGetAttribute(cu.CUpointer_attribute.CU_POINTER_ATTRIBUTE_BUFFER_ID, again))) != first_id
    print("device ok, same address again:", int(again) == int(plain))

    stream = ok(cu.cuStreamCreate(0))
    pooled = ok(cu.cuMemAllocAsync(0x1000, stream))
    ok(cu.cuStreamSynchronize(stream))
    default_pool = ok(cu.cuDeviceGetDefaultMemPool(dev))
    a = attributes(pooled, managed=False)
    assert int(a["CU_POINTER_ATTRIBUTE_MEMPOOL_HANDLE"]) == int(default_pool) != 0
    assert not a["CU_POINTER_ATTRIBUTE_IS_LEGACY_CUDA_IPC_CAPABLE"]
    print("pool ok")

    err, = cu.cuPointerSetAttribute(True, cu.CUpointer_attribute.CU_POINTER_ATTRIBUTE_MEMORY_TYPE, again)
    assert err == cu.CUresult.CUDA_ERROR_INVALID_VALUE, err
    ok(cu.cuMemFreeAsync(pooled, stream))
    ok(cu.cuStreamSynchronize(stream))
    for ptr in (managed, again):
        ok(cu.cuMemFree(ptr))
    ok(cu.cuStreamDestroy(stream))
    print("pointers ok")


if __name__ == "__main__":
    main()
