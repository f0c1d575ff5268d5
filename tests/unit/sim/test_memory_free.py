"""Freeing an allocation gives its pages back without touching a neighbour sharing a page."""
from rgpu.server.backends.sim.memory import DeviceMemory


def test_free_keeps_the_neighbour_on_a_shared_page():
    mem = DeviceMemory(1 << 20)
    try:
        a = mem.alloc(1024)
        b = mem.alloc(64)  # right after a, on the same page
        mem.write(a, b"\x05" * 1024)
        mem.write(b, b"\x07" * 64)
        mem.free(b)
        assert mem.read(a, 1024) == b"\x05" * 1024
        big = mem.alloc(3 << 12)  # whole pages inside it are still given back
        mem.write(big, b"\x01" * (3 << 12))
        mem.free(big)
        assert mem.read(a, 1024) == b"\x05" * 1024
    finally:
        mem.close()
