"""The cuda backend's part of checkpoints and live migration (server/backends/cuda/placement.py)
against the null driver (benchmarks/native/nulldriver.c), in a process of its own that loaded it, as
a worker does: allocations placed again at their addresses through the VMM calls (those sharing a
granule as one), a placement the driver cannot honour refused with nothing held, module variables
carried by name into a module loaded again, and a variable whose address the program was given kept
under that address on the target (an alias: launch parameters, copies and cuModuleGetGlobal), a
variable holding another's address pointing where that one is on the target, and the session's
variables' ranges, which a copy refuses to find in device memory (server/checkpoint/escapes.py)."""
from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from benchmarks.native import run as native
from rgpu.server.backends.cuda import variables
from tests.support import cudabuild

MODULE = """
__device__ unsigned int tally[4] = {1, 2, 3, 4};
__constant__ float scale;
__device__ unsigned int *where;  // a pointer to another variable, stored by the program
extern "C" __global__ void touch(unsigned int *p) { p[threadIdx.x] = tally[threadIdx.x % 4] * scale; }
"""

PRELUDE = """
import struct
import sys
from rgpu.server.backends.cuda import device
from rgpu.server.errors import CudaError

ledger = [0]
def reserve(delta):
    ledger[0] += delta
    return True

def refused(f, *args):
    try:
        f(*args)
    except CudaError as e:
        return e.code, e.message
    raise AssertionError("not refused")
"""


def run(body: str, *args: str, arena: bool = True) -> str:
    """`body` in a process of its own; arena=False: the session's memory from cuMemAlloc (RGPU_ARENA=0),
    placed allocation by allocation at a move."""
    p = subprocess.run([sys.executable, "-c", PRELUDE + textwrap.dedent(body), *args], capture_output=True,
                       text=True, timeout=120, env={**os.environ, "RGPU_LIBCUDA": str(native.null_driver()),
                                                    "RGPU_ARENA": "1" if arena else "0"})
    assert p.returncode == 0, p.stdout + p.stderr
    return p.stdout


@pytest.fixture(scope="module")
def module_source(tmp_path_factory) -> Path:
    src = tmp_path_factory.mktemp("placement") / "vars.cu"
    src.write_text(MODULE)
    return src


@pytest.mark.parametrize("kind", ["fatbin", "cubin", "ptx"])
def test_a_modules_variables_are_named_from_its_image(module_source, kind):
    image = cudabuild.build(module_source, kind).read_bytes()
    assert {"tally", "scale"} <= variables.names(image)
    assert variables.names(b"neither PTX nor a cubin") is None


def test_allocations_are_placed_at_their_addresses_sharing_a_granule_and_freed_one_by_one():
    run("""
        src = device.CudaDevice(0, 1 << 30)
        base = src.mem_alloc(8 << 20)  # a free range of the window, given back: the target's to place in
        src.mem_free(base)
        dst = device.CudaDevice(0, 1 << 30, reserve)
        layout = [[base, 1000, 1000], [base + 4096, 3000, 3000], [base + (4 << 20), 5 << 20, 5 << 20]]
        dst.restore_allocations(layout)
        assert len(dst._groups) == 2 and ledger[0] == 1000 + 3000 + (5 << 20), (dst._groups, ledger)
        for a, n, _ in layout:
            dst.write_memory(a, bytes([a % 251]) * n)
        dst.mem_free(base)  # the granule stays: its other allocation is still there
        assert dst.read_memory(base + 4096, 3000) == bytes([(base + 4096) % 251]) * 3000
        assert refused(dst.read_memory, base, 1000)[0] == "CUDA_ERROR_INVALID_VALUE"
        dst.release_allocation(base + 4096)
        dst.mem_free(base + (4 << 20))
        assert not dst._groups and ledger[0] == 0, (dst._groups, ledger)
        dst.restore_allocations(layout[:1])  # the addresses are free again: placed again there
        assert dst.allocation(base) == (base, 1000)
    """, arena=False)


def test_a_placement_at_a_taken_address_is_refused_and_holds_nothing():
    out = run("""
        src = device.CudaDevice(0, 1 << 30)
        free = src.mem_alloc(2 << 20)
        src.mem_free(free)
        taken = src.mem_alloc(2 << 20)  # what another allocation of this process holds already
        dst = device.CudaDevice(0, 1 << 30, reserve)
        code, message = refused(dst.restore_allocations, [[free, 4096, 4096], [taken, 4096, 4096]])
        assert code == "CUDA_ERROR_INVALID_VALUE" and "taken" in message, message
        assert not dst._groups and not dst._allocs and ledger[0] == 0, (dst._groups, ledger)
        print(message)
    """, arena=False)
    assert "cannot place the session's memory at" in out


def test_a_sessions_memory_comes_from_its_arena_small_allocations_sharing_a_slab():
    out = run("""
        from rgpu.server.backends.cuda.arena import HINT, SLOT
        dev = device.CudaDevice(0, 1 << 30, reserve)
        assert dev.arena is not None and dev.arena.base == HINT, dev.arena
        small = [dev.mem_alloc(n) for n in (1000, 3000, 512, 1)]
        big = dev.mem_alloc(5 << 20)
        granule = 2 << 20
        assert {a // granule for a in small} == {HINT // granule}, [hex(a) for a in small]  # one slab
        assert sorted(small) == small and small[1] - small[0] == 1024 and small[2] - small[1] == 3072
        assert big % granule == 0 and big >= HINT + granule and ledger[0] == 4513 + (5 << 20)
        for a in small + [big]:
            dev.write_memory(a, b"x")
        dev.mem_free(small[1])
        again = dev.mem_alloc(2000)  # first fit: the freed units
        assert again == small[1], (hex(again), hex(small[1]))
        assert dev.mem_alloc(600 << 20) > big  # a run of granules past the others
        # a program's second device (its client asks for window 1) has its own place: the program's
        # pointers of its two devices never overlap
        second = device.CudaDevice(0, 1 << 30, reserve, window=1)
        assert second.arena.base == HINT + SLOT and second.window() == 1 and dev.window() is None
        assert second.mem_alloc(4096) == HINT + SLOT
        print(dev.memory_layout())
    """)
    assert "[[" in out


def test_a_session_moved_to_another_worker_gets_its_arena_addresses_there():
    """The source's layout (its arena's allocations) placed in a fresh process at the same addresses,
    with their bytes; a place already taken there is refused and holds nothing."""
    src = run("""
        import json
        dev = device.CudaDevice(0, 1 << 30, reserve)
        addrs = [dev.mem_alloc(n) for n in (1000, 3000, 3 << 20)]
        print(json.dumps(dev.memory_layout()))
    """)
    layout = src.strip().splitlines()[-1]
    run("""
        import json
        layout = json.loads(sys.argv[1])
        dst = device.CudaDevice(0, 1 << 30, reserve)
        dst.restore_allocations(layout)
        assert not dst._groups and ledger[0] == sum(n for _, n, _ in layout), (dst._groups, ledger)
        for a, n, _ in layout:
            dst.write_memory(a, bytes([a % 251]) * n)
            assert dst.read_memory(a, n) == bytes([a % 251]) * n
        dst.mem_free(layout[0][0])
        assert dst.mem_alloc(900) == layout[0][0]  # the arena goes on from the placed layout
        other = device.CudaDevice(0, 1 << 30, reserve)  # a second arena in this process: elsewhere
        assert other.arena.base != dst.arena.base
        before = ledger[0]
        code, message = refused(dst.restore_allocations, [[layout[1][0], 100, 100]])  # taken here
        assert code == "CUDA_ERROR_INVALID_VALUE" and "taken" in message and ledger[0] == before, message
    """, layout)


def test_random_allocations_and_frees_never_overlap_and_are_placed_again_at_their_addresses():
    """Two thousand random allocations and frees (sizes from 1 byte to 5 MiB) in one arena: no two live
    ones overlap, each keeps its own bytes, the quota counts exactly what is live; then the live layout
    placed in a fresh process at the same addresses, each writable and readable there."""
    src = run("""
        import json, random
        rng = random.Random(7)
        dev = device.CudaDevice(0, 8 << 30, reserve)
        live = {}
        for step in range(2000):
            if live and rng.random() < 0.45:
                a = rng.choice(sorted(live))
                assert dev.read_memory(a, min(live[a], 64)) == bytes([a % 251]) * min(live[a], 64)
                dev.mem_free(a)
                del live[a]
            else:
                n = rng.choice([1, 100, 512, 513, 4096, 65536, 1 << 20, (1 << 20) + 1, 3 << 20, 5 << 20])
                a = dev.mem_alloc(n)
                assert a % 512 == 0 and a not in live
                dev.write_memory(a, bytes([a % 251]) * min(n, 64))
                live[a] = n
            spans = sorted(live.items())
            assert all(x + n <= y for (x, n), (y, _) in zip(spans, spans[1:])), "overlap"
            assert ledger[0] == sum(live.values())
        print(json.dumps([[a, n, n] for a, n in sorted(live.items())]))
    """)
    layout = src.strip().splitlines()[-1]
    run("""
        import json
        layout = json.loads(sys.argv[1])
        dst = device.CudaDevice(0, 8 << 30, reserve)
        dst.restore_allocations(layout)
        assert ledger[0] == sum(n for _, n, _ in layout) and not dst._groups
        for a, n, _ in layout:
            dst.write_memory(a, bytes([a % 251]) * min(n, 64))
        for a, n, _ in layout:
            assert dst.read_memory(a, min(n, 64)) == bytes([a % 251]) * min(n, 64)
        for a, _, _ in layout:
            dst.mem_free(a)
        assert ledger[0] == 0
    """, layout)


def test_module_variables_move_by_name_and_a_handed_out_address_is_kept_as_an_alias(module_source):
    image = cudabuild.build(module_source, "fatbin")
    run("""
        image = open(sys.argv[1], "rb").read()
        lib, ffi = device.lib(), device.ffi()
        src = device.CudaDevice(0, 1 << 30)
        m = src.module_load(image)
        p, n = ffi.new("CUdeviceptr *"), ffi.new("size_t *")
        assert lib.cuModuleGetGlobal_v2(p, n, m, b"tally") == 0 and n[0] == 16
        src.write_memory(p[0], bytes(range(16)))  # what a kernel left there (no address was handed out)
        state = src.module_state(m)
        assert state["variables"]["tally"] == bytes(range(16)) and len(state["variables"]["scale"]) == 4, state

        dst = device.CudaDevice(0, 1 << 30)
        m2 = dst.module_restore(image, None, state)
        assert lib.cuModuleGetGlobal_v2(p, n, m2, b"tally") == 0
        assert dst.read_memory(p[0], 16, _variable=True) == bytes(range(16))

        src.symbol_range(m, "tally")  # a copy by name (cudaMemcpyToSymbol): no address left the server
        assert src.module_state(m)["variables"]["tally"] == bytes(range(16))
        held, _ = src.module_global(m, "tally")  # cudaGetSymbolAddress: the program holds the address now
        state = src.module_state(m)
        assert state["handed"] == {"tally": held}, state

        # the target keeps the program's address as the variable's name (aliases.py)
        dst2 = device.CudaDevice(0, 1 << 30)
        m3 = dst2.module_restore(image, None, state)
        assert lib.cuModuleGetGlobal_v2(p, n, m3, b"tally") == 0
        here = p[0]
        assert here != held and dst2.read_memory(here, 16, _variable=True) == bytes(range(16))
        assert dst2.module_global(m3, "tally") == (held, 16)  # asked again: the address the program has
        assert dst2.alias(held + 4, 8) == here + 4
        assert dst2.alias(held + 12, 8) == held + 12  # past the variable's end: not the variable's
        params = struct.pack("<QQi4xQ", held + 8, 0x1234, 7, held)
        assert struct.unpack("<QQi4xQ", dst2.fix_params(params)) == (here + 8, 0x1234, 7, here)
        assert dst2.fix_params(struct.pack("<Q", held + 16)) == struct.pack("<Q", held + 16)
        # a second move carries the program's address, not this process's
        assert dst2.module_state(m3)["handed"] == {"tally": held}
        dst2.module_unload(m3)
        assert dst2.alias(held + 4, 8) == held + 4
    """, str(image))


def test_a_variable_holding_anothers_address_points_where_it_is_after_a_move(module_source):
    """`where` holds an address inside `tally` (as an initializer the driver relocated would, or a
    pointer the program stored by name): on the target, where the driver put tally elsewhere, it
    holds tally's address there. The session's variables' ranges are the escape ranges a move
    searches device memory for, and device memory holding one of them is refused."""
    image = cudabuild.build(module_source, "fatbin")
    run("""
        import struct
        from rgpu.server.checkpoint.image import CheckpointError
        from rgpu.server.checkpoint.memory import Copier
        image = open(sys.argv[1], "rb").read()
        src = device.CudaDevice(0, 1 << 30)
        m = src.module_load(image)
        tally, _ = src.symbol_range(m, "tally")
        where, size = src.symbol_range(m, "where")
        assert size == 8
        src.write_memory(where, struct.pack("<Q", tally + 8))
        ranges = {name: (lo, hi) for lo, hi, name in src.escape_ranges()}
        assert ranges["tally"] == (tally, tally + 16) and ranges["where"] == (where, where + 8), ranges

        dst = device.CudaDevice(0, 1 << 30)
        m2 = dst.module_restore(image, None, src.module_state(m))
        tally2, _ = dst.symbol_range(m2, "tally")
        where2, _ = dst.symbol_range(m2, "where")
        assert tally2 != tally
        assert struct.unpack("<Q", dst.read_memory(where2, 8, _variable=True)) == (tally2 + 8,)
        # and back: the address of the target's tally points at the source's tally again
        m3 = src.module_restore(image, None, dst.module_state(m2))
        tally3, _ = src.symbol_range(m3, "tally")
        where3, _ = src.symbol_range(m3, "where")
        assert struct.unpack("<Q", src.read_memory(where3, 8, _variable=True)) == (tally3 + 8,)

        # the address stored in an allocation instead: the copy a move makes refuses it
        buf = src.mem_alloc(1 << 20)
        src.write_memory(buf, bytes(4096))
        copier = Copier(src)
        layout = src.memory_layout()
        assert list(copier.changed(copier.pieces(layout)))
        src.write_memory(buf + 4096, struct.pack("<Q", tally3 + 4))
        try:
            list(copier.changed(copier.pieces(layout)))
        except CheckpointError as e:
            assert "module variable 'tally'" in str(e) and hex(buf + 4096) in str(e), e
        else:
            raise AssertionError("not refused")
        src.module_unload(m3)  # its variables' ranges go with it
        assert "tally" in {name for _, _, name in src.escape_ranges()}  # m's are still there
        src.module_unload(m)
        assert not src.escape_ranges()
        fresh = Copier(src)  # no variables left: the same memory copies
        assert list(fresh.changed(fresh.pieces(layout)))
    """, str(image))


def test_a_variable_holding_another_modules_variables_address_points_where_it_is_after_a_move(module_source):
    """Two modules (the image loaded twice: each has its own variables): the first's `where` holds an
    address inside the second's `tally`, stored by the program by name. Each module alone cannot
    know where the other's tally went; once all are loaded again (restore_device), where points at
    the second's tally on the target, and the first's own tally is left to it."""
    image = cudabuild.build(module_source, "fatbin")
    run("""
        import struct
        image = open(sys.argv[1], "rb").read()
        src = device.CudaDevice(0, 1 << 30)
        a, b = src.module_load(image), src.module_load(image)
        tally_b, _ = src.symbol_range(b, "tally")
        where_a, _ = src.symbol_range(a, "where")
        src.write_memory(where_a, struct.pack("<Q", tally_b + 12))
        states = [src.module_state(a), src.module_state(b)]

        dst = device.CudaDevice(0, 1 << 30)
        filler = dst.module_load(image)  # the target's driver places the session's modules elsewhere
        a2 = dst.module_restore(image, None, states[0])
        b2 = dst.module_restore(image, None, states[1])
        dst.restore_device({})
        tally_b2, _ = dst.symbol_range(b2, "tally")
        where_a2, _ = dst.symbol_range(a2, "where")
        assert tally_b2 != tally_b
        assert struct.unpack("<Q", dst.read_memory(where_a2, 8, _variable=True)) == (tally_b2 + 12,)
        # the second's where (null) and both tallies' initial contents are as they were
        where_b2, _ = dst.symbol_range(b2, "where")
        assert dst.read_memory(where_b2, 8, _variable=True) == bytes(8)
        for m in (a2, b2):
            lo, _ = dst.symbol_range(m, "tally")
            assert struct.unpack("<4I", dst.read_memory(lo, 16, _variable=True)) == (1, 2, 3, 4)
        print("ok")
    """, str(image))


@pytest.mark.parametrize("arena", [True, False])
def test_managed_memory_is_the_arenas_and_moves_or_without_an_arena_is_refused(arena):
    """Managed memory's server side is device memory from the arena at a 64 KiB-aligned address (the
    client keeps its host copy coherent), so it is in the layout a move places again; without an
    arena it is cuMemAllocManaged's, which the driver's UVM places: the move is refused, saying why."""
    out = run("""
        src = device.CudaDevice(0, 1 << 30, reserve)
        plain = src.mem_alloc(1000)  # the arena's slab: the managed one must skip past it to align
        m = src.mem_alloc_managed(64 << 10, 64 << 10)
        assert m % (64 << 10) == 0, hex(m)
        if src.arena is not None:
            assert src.arena.holds(m)
            assert [m, 64 << 10, 64 << 10] in src.memory_layout()
            print("placed")
        else:
            code, message = refused(src.memory_layout)
            assert code == "CUDA_ERROR_NOT_SUPPORTED" and "managed memory" in message, message
            print("refused")
        src.mem_free(m)
        src.mem_free(plain)
        assert ledger[0] == 0, ledger
    """, arena=arena)
    assert out.strip().splitlines()[-1] == ("placed" if arena else "refused")
