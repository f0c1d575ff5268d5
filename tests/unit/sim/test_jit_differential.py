"""The compiled path (server/backends/sim/jit) against the interpreter, its reference: kernels of
tests/cuda/kernels/simjit.cu run both ways on the same inputs at the same addresses, and device
memory must match bit for bit; a faulting kernel must fault the same way; a kernel outside the
compiler's subset must run interpreted, and say so once."""
from __future__ import annotations

import numpy as np
import pytest
import structlog

from rgpu.server.backends.sim import jit
from rgpu.server.backends.sim.errors import SimFault
from rgpu.server.backends.sim.kernels import KernelModule


@pytest.fixture(scope="module")
def jit_image(build_image):
    return build_image("simjit.cu", "ptx")


@pytest.fixture
def jit_mode():
    """Sets the compiled path on or off for one launch (compiling at the first launch); restores the
    settings after the test. Interpreted time does not count toward compiling (instructions only),
    so when a kernel is compiled does not depend on this host's speed."""
    before = jit.enabled()
    jit.set_after(0)
    jit.set_interpreted_rate(0)
    yield jit.set_enabled
    jit.set_enabled(before)
    jit.set_after(None)
    jit.set_interpreted_rate(None)


def _inputs(rng, n):
    return {
        "f": rng.standard_normal(n).astype(np.float32),
        "g": rng.standard_normal(n).astype(np.float32),
        "i": rng.integers(-(1 << 20), 1 << 20, n).astype(np.int32),
        "u8": rng.integers(0, 256, n).astype(np.uint8),
    }


def _case(name, dev, data, n):
    """(grid, block, args, outputs as (address, bytes)) of one kernel on device `dev`."""
    if name == "vadd":
        a, b, c = dev.put(data["f"]), dev.put(data["g"]), dev.zeros(n, np.float32)
        return (n + 255) // 256, 256, [a, b, c, n - 3], [(c, 4 * n)]
    if name == "tiled_matmul":
        M, N, K = 40, 56, 72  # not multiples of the tile: the edges take the divergent paths
        A = dev.put(data["f"][:M * K])
        B = dev.put(data["g"][:K * N])
        C = dev.zeros(M * N, np.float32)
        return ((N + 15) // 16, (M + 15) // 16), (16, 16), [A, B, C, M, N, K], [(C, 4 * M * N)]
    if name == "warp_sums":
        src = dev.put(data["i"])
        sums, neg = dev.zeros(64, np.int32), dev.zeros(64, np.uint32)
        return 8, 256, [src, sums, neg, n], [(sums, 256), (neg, 256)]
    if name == "shared_histogram":
        src = dev.put(data["u8"])
        bins = dev.zeros(64, np.uint32)
        ext = dev.put(np.array([1 << 30, -(1 << 30), 0], np.int32))
        claims = dev.put(np.r_[np.full(16, -1, np.int32), np.zeros(1, np.int32)])
        return 6, 192, [src, bins, ext, claims, n], [(bins, 256), (ext, 12), (claims, 68)]
    if name == "divergent":
        src, x = dev.put(data["i"] % 5000), dev.put(data["f"] * 3)
        io, fo, do = dev.zeros(n, np.int32), dev.zeros(2 * n, np.float32), dev.zeros(n, np.float64)
        return (n + 127) // 128, 128, [src, x, io, fo, do, n - 5], [(io, 4 * n), (fo, 8 * n), (do, 8 * n)]
    if name == "shared_atomics":
        src = dev.put(data["i"])
        out, olds = dev.zeros(12 * 8, np.uint32), dev.zeros(8 * 160, np.uint32)
        return 8, 160, [src, out, olds], [(out, 4 * 12 * 8), (olds, 4 * 8 * 160)]
    if name == "carries":
        src = dev.put(data["i"] * 4099 + (data["i"] >> 3))  # every bit pattern, carries in and out
        out, fout = dev.zeros(12 * n, np.uint32), dev.zeros(2 * n, np.float32)
        return (n + 127) // 128, 128, [src, out, fout, n], [(out, 48 * n), (fout, 8 * n)]
    if name == "warp_redux":
        src = dev.put(data["i"])
        out = dev.zeros(8 * 1024, np.uint32)
        return 4, 256, [src, out, n], [(out, 4 * 8 * 1024)]
    if name == "lockstep_volatile":
        src = dev.put(data["i"][:8 * 128])
        sums, scans = dev.zeros(8, np.int32), dev.zeros(8 * 128, np.uint32)
        return 8, 128, [src, sums, scans], [(sums, 32), (scans, 4 * 8 * 128)]
    if name == "partial_shuffle":
        src = dev.put(data["i"][:6 * 256])
        out = dev.zeros(6, np.int32)
        return 6, 256, [src, out], [(out, 24)]
    if name == "block_votes":
        src = dev.put(data["i"][:8 * 160])
        out = dev.zeros(3 * 8 * 160, np.uint32)
        return 8, 160, [src, out, 1040000], [(out, 12 * 8 * 160)]
    if name == "warp_match":
        out = dev.zeros(5 * 6 * 32, np.uint32)
        return 6, 32, [dev.put(data["i"][:6 * 32]), out], [(out, 4 * 5 * 6 * 32)]
    if name == "float_atomics":
        x = dev.put(data["f"][:8 * 160])
        sums, dsums = dev.zeros(4 * 8, np.float32), dev.zeros(8, np.float64)
        olds, shared = dev.zeros(8 * 160, np.float32), dev.zeros(4 * 8, np.float32)
        return 8, 160, [x, sums, dsums, olds, shared], [(sums, 128), (dsums, 64), (olds, 4 * 8 * 160),
                                                        (shared, 128)]
    raise AssertionError(name)


def _run(make_device, image, name, on, jit_mode):
    jit_mode(on)
    mod = KernelModule.load(image)
    dev = make_device(mod)
    n = 4096
    grid, block, args, outs = _case(name, dev, _inputs(np.random.default_rng(7), n), n)
    stats = dev.launch(name, grid, block, *args)
    return mod, [dev.mem.read(a, size) for a, size in outs], stats


@pytest.mark.parametrize("name", ["vadd", "tiled_matmul", "warp_sums", "shared_histogram", "divergent",
                                  "shared_atomics", "carries", "warp_redux", "lockstep_volatile",
                                  "partial_shuffle", "block_votes", "float_atomics", "warp_match"])
def test_compiled_kernel_matches_the_interpreter_bit_for_bit(make_device, jit_image, jit_mode, name):
    _, want, ref = _run(make_device, jit_image, name, False, jit_mode)
    mod, got, stats = _run(make_device, jit_image, name, True, jit_mode)
    assert mod.jitted(mod.functions[name]) is not None, f"{name} was not compiled"
    for k, (w, g) in enumerate(zip(want, got)):
        assert w == g, f"{name}: output {k} differs from the interpreter's"
    # every thread runs the same instructions either way
    assert stats.thread_instructions == ref.thread_instructions


@pytest.mark.parametrize("on", [False, True])
def test_warp_synchronous_code_gets_what_a_gpu_gives(make_device, jit_image, jit_mode, on):
    """Lockstep lanes over volatile shared memory, shuffles from lanes that do not take part (0 on
    a GPU), and block-wide votes: both ways give the true sums, prefix sums and votes, not only
    the same memory."""
    x = _inputs(np.random.default_rng(7), 4096)["i"]
    _, (sums, scans), _ = _run(make_device, jit_image, "lockstep_volatile", on, jit_mode)
    blocks = x[:8 * 128].reshape(8, 128)
    np.testing.assert_array_equal(np.frombuffer(sums, np.int32), blocks.sum(axis=1, dtype=np.int32))
    warps = x[:8 * 128].astype(np.uint32).reshape(-1, 32)
    np.testing.assert_array_equal(np.frombuffer(scans, np.uint32).reshape(-1, 32),
                                  np.cumsum(warps, axis=1, dtype=np.uint32))
    _, (out,), _ = _run(make_device, jit_image, "partial_shuffle", on, jit_mode)
    np.testing.assert_array_equal(np.frombuffer(out, np.int32),
                                  x[:6 * 256].reshape(6, 256).sum(axis=1, dtype=np.int32))
    _, (votes,), _ = _run(make_device, jit_image, "block_votes", on, jit_mode)
    blocks = x[:8 * 160].reshape(8, 160)
    want = np.stack([(blocks > 0).sum(axis=1), (blocks > -1040000).all(axis=1), (blocks > 1040000).any(axis=1)], 1)
    np.testing.assert_array_equal(np.frombuffer(votes, np.uint32).reshape(8, 160, 3),
                                  np.repeat(want[:, None, :], 160, axis=1).astype(np.uint32))
    assert 0 < want[:, 1].sum() < 8 and 0 < want[:, 2].sum() < 8  # both answers occur


def _workers(monkeypatch, threads: str) -> None:
    """`threads` workers for every compiled launch, however small (runner.WORK_PER_WORKER)."""
    from rgpu.server.backends.sim.jit import runner
    monkeypatch.setenv("RGPU_SIM_JIT_THREADS", threads)
    monkeypatch.setattr(runner, "WORK_PER_WORKER", 0)


@pytest.mark.parametrize("threads", ["1", "2"])
def test_blocks_waiting_on_blocks_before_them_finish(make_device, jit_image, jit_mode, monkeypatch, threads):
    """Each block spins on a flag the block before it sets (a volatile load in a loop, a nanosleep
    between polls, its input prefetched to L2 first: both hints compile to nothing): compiled,
    the spinning thread goes back to its block loop every turn, and the blocks run on workers in
    order, so the chain completes with the running totals the interpreter gives."""
    _workers(monkeypatch, threads)
    x = np.random.default_rng(3).integers(-1000, 1000, 24 * 64).astype(np.int32)
    results = []
    for on in (False, True):
        jit_mode(on)
        mod = KernelModule.load(jit_image)
        dev = make_device(mod)
        totals, flags = dev.zeros(48, np.int32), dev.zeros(24, np.int32)
        dev.launch("chained_blocks", 24, 64, dev.put(x), totals, flags)
        results.append(dev.get(totals, 48, np.int32))
        if on:
            assert mod.jitted(mod.functions["chained_blocks"]) is not None
    running = np.cumsum(x.reshape(24, 64).sum(axis=1))
    np.testing.assert_array_equal(results[1][:24], running)
    np.testing.assert_array_equal(results[1][24:], np.r_[0, running[:-1]])
    np.testing.assert_array_equal(results[0], results[1])


@pytest.mark.parametrize("threads", ["1", "2"])
def test_blocks_spread_over_workers_give_the_same_memory(make_device, jit_image, jit_mode, monkeypatch, threads):
    _workers(monkeypatch, threads)
    _, want, _ = _run(make_device, jit_image, "tiled_matmul", False, jit_mode)
    _, got, _ = _run(make_device, jit_image, "tiled_matmul", True, jit_mode)
    assert want == got


def test_blocks_of_a_kernel_without_loops_are_taken_in_chunks_with_the_same_results(make_device, jit_image,
                                                                                    jit_mode, monkeypatch):
    """A kernel without loops (vadd) takes its blocks a chunk at a time on two workers: memory and
    the instructions run are the interpreter's. A fault is the lowest faulting block's, as the
    interpreter reports it, also when another worker's chunk faults first: here one worker's chunk
    is blocks 0-149, whose last faults, and the other's 150-299, whose first faults at once; a
    worker told of the other's fault still runs the rest of its own chunk (driver._TAKE_BLOCK), so
    block 149 is reached. A kernel with loops (chained_blocks: each block waits for the one before
    it) takes one block at a time."""
    from rgpu.server.backends.sim.jit import runner
    _workers(monkeypatch, "2")
    chunks = []
    pick = runner._chunk

    def halves(compiled, length, blocks, T, nworkers):
        chunks.append(pick(compiled, length, blocks, T, nworkers))
        return blocks // 2 if compiled.loop_free else 1
    monkeypatch.setattr(runner, "_chunk", halves)
    n = 300 * 1024
    rng = np.random.default_rng(9)
    a, b = rng.standard_normal(n).astype(np.float32), rng.standard_normal(n).astype(np.float32)
    seen = []
    for on in (False, True):
        jit_mode(on)
        mod = KernelModule.load(jit_image)
        dev = make_device(mod)
        pa, pb, c = dev.put(a), dev.put(b), dev.zeros(n, np.float32)
        st = dev.launch("vadd", 300, 1024, pa, pb, c, n)
        short = dev.zeros(149 * 1024 + 512, np.float32)  # block 149's thread 512 is the first past it
        with pytest.raises(SimFault) as info:
            dev.launch("vadd", 300, 1024, pa, pb, short, n)
        seen.append((dev.get(c, n, np.float32).tobytes(), st.thread_instructions, info.value.code,
                     info.value.message))
        if on:
            assert mod.jitted(mod.functions["vadd"]).loop_free
    assert seen[0] == seen[1]
    np.testing.assert_array_equal(np.frombuffer(seen[1][0], np.float32), a + b)
    assert seen[1][2] == "CUDA_ERROR_ILLEGAL_ADDRESS"
    assert f"0x{short + 4 * (149 * 1024 + 512):x}" in seen[1][3]
    assert chunks[0] > 1  # what _chunk gives vadd: 300 blocks on two workers
    chained = mod.jitted(mod.functions["chained_blocks"])
    assert not chained.loop_free and pick(chained, 100, 1000, 64, 2) == 1


@pytest.mark.parametrize("threads", ["1", "2"])
def test_printf_compiled_prints_what_the_interpreter_prints(make_device, jit_image, jit_mode, monkeypatch, threads):
    """A kernel that prints is compiled (vprintf is a WAIT point whose lanes call the runner): the
    lines, their order among blocks, rounds and lanes, the instructions run and memory are the
    interpreter's, on one worker or blocks spread over two."""
    _workers(monkeypatch, threads)
    v = np.random.default_rng(11).integers(-50, 50, 6 * 40).astype(np.int32)
    outs, lines = [], []
    for on in (False, True):
        jit_mode(on)
        mod = KernelModule.load(jit_image)
        dev = make_device(mod)
        pv = dev.put(v)
        st = dev.launch("print_rounds", 6, 40, pv, 3)
        if on:
            assert mod.jitted(mod.functions["print_rounds"]) is not None
        lines.append(list(dev.out))
        outs.append((dev.mem.read(pv, v.nbytes), st.thread_instructions))
    assert len(lines[0]) == 6 * 40 * 3 + 6 * 14
    assert lines[1] == lines[0]
    assert lines[0][0] == "b0 t0 k0 v=0 0.000\n" and lines[0][1] == "b0 t1 k0 v=0 0.500\n"
    assert f"b5 t39 k2 v={v[239] * 2} 119.500\n" in lines[0]
    assert outs[0] == outs[1]


def test_printf_of_a_bad_string_faults_as_the_interpreter_reports_it(make_device, jit_image, jit_mode):
    faults = []
    for on in (False, True):
        jit_mode(on)
        mod = KernelModule.load(jit_image)
        dev = make_device(mod)
        with pytest.raises(SimFault) as err:
            dev.launch("print_bad", 2, 32, 0xDEAD0000)
        if on:
            assert mod.jitted(mod.functions["print_bad"]) is not None
        faults.append((err.value.code, str(err.value)))
    assert faults[0] == faults[1]
    assert faults[0][0] == "CUDA_ERROR_ILLEGAL_ADDRESS" and "0xdead0000" in faults[0][1]


@pytest.mark.parametrize("grid, values", [
    (1, [1, 2, -3, 4, -5, 6]),  # two lanes of the block fail at once: both write their line
    (1, [-1, 2, 3, 4, 5, 6]),
    (3, list(range(6))),  # none fails: the kernel runs on
])
def test_assert_compiled_writes_the_interpreters_lines_and_faults_alike(make_device, build_image, jit_mode, grid,
                                                                        values):
    """check(v) asserts v[threadIdx.x] >= 0. Compiled, the lanes at the assert write their lines in
    lane order and the launch faults with CUDA_ERROR_ASSERT (sticky), as interpreted. (Several
    blocks failing at once are not compared: the interpreter writes the lines of every block of
    its batch, the compiled path those of the blocks it ran before the first failed.)"""
    image = build_image("simio.cu", "ptx")
    got = []
    for on in (False, True):
        jit_mode(on)
        mod = KernelModule.load(image)
        dev = make_device(mod)
        try:
            dev.launch("check", grid, 6, dev.put(np.array(values, np.int32)))
            code = None
        except SimFault as exc:
            code = (exc.code, str(exc), exc.sticky)
        if on:
            assert mod.jitted(mod.functions["check"]) is not None
        got.append((code, list(dev.out)))
    assert got[1] == got[0]
    failing = [i for i, v in enumerate(values) if v < 0]
    assert len(got[0][1]) == len(failing)
    if failing:
        assert got[0][0][0] == "CUDA_ERROR_ASSERT" and got[0][0][2]
        for line, t in zip(got[0][1], failing):
            assert line.endswith(f"block: [0,0,0], thread: [{t},0,0] Assertion `v[i] >= 0` failed.\n")
            assert "simio.cu:" in line
    else:
        assert got[0][0] is None


def test_a_small_launch_runs_on_one_worker_and_a_large_one_on_every_worker(make_device, jit_image, jit_mode,
                                                                           monkeypatch):
    """A second worker costs a hand-off to the pool: a launch takes one only for work that pays for
    it, judged by what the kernel's earlier launches ran per thread. Its first launch (unknown
    work) and a large one spread; a small one stays on the calling thread; every result is right."""
    from rgpu.server.backends.sim.jit import engine, runner
    monkeypatch.setenv("RGPU_SIM_JIT_THREADS", "2")
    monkeypatch.setattr(engine, "_by_digest", {})  # this test's own compilation: nothing learned yet
    handed = []
    pool = runner._workers
    monkeypatch.setattr(runner, "_workers", lambda n: handed.append(n) or pool(n))
    jit_mode(True)
    mod = KernelModule.load(jit_image)
    dev = make_device(mod)
    rng = np.random.default_rng(5)
    seen = []
    for n in (2048, 2048, 1 << 18):
        a, b = rng.standard_normal(n).astype(np.float32), rng.standard_normal(n).astype(np.float32)
        c = dev.zeros(n, np.float32)
        st = dev.launch("vadd", n // 256, 256, dev.put(a), dev.put(b), c, n)
        np.testing.assert_array_equal(dev.get(c, n, np.float32), a + b)
        seen.append(len(handed))
        per_thread = mod.jitted(mod.functions["vadd"]).per_thread
        assert per_thread == st.thread_instructions / n  # every thread in range: the same work each
    # 8 blocks of 22 instructions a thread: 45,000, far below a worker's 4e5; 1,024 blocks: 5.8e6
    assert seen == [1, 1, 2]


def test_what_a_kernel_ran_is_learned_at_once_when_more_and_by_halves_when_less():
    from rgpu.server.backends.sim.jit import engine, runner
    c = engine.Compiled("k", None, 0, 0, 0.0)
    runner._learn(c, 100.0)
    runner._learn(c, 10.0)
    assert c.per_thread == 50.0
    runner._learn(c, 10.0)
    assert c.per_thread == 25.0
    runner._learn(c, 400.0)
    assert c.per_thread == 400.0
    assert runner._worker_count(c, 2, 1024) == 2  # 819,200 thread-instructions: two workers' worth
    assert runner._worker_count(c, 1, 1024) == 1
    c.per_thread = 1.0
    assert runner._worker_count(c, 100, 1024) == 1


@pytest.mark.parametrize("kernel, arg, code", [
    ("oob_store", 1000, "CUDA_ERROR_ILLEGAL_ADDRESS"),
    ("oob_shared", 70, "CUDA_ERROR_ILLEGAL_ADDRESS"),
])
def test_a_bad_access_faults_as_the_interpreter_reports_it(make_device, jit_image, jit_mode, kernel, arg, code):
    faults = []
    for on in (False, True):
        jit_mode(on)
        mod = KernelModule.load(jit_image)
        dev = make_device(mod)
        p = dev.zeros(64, np.int32)
        dev.launch(kernel, 1, 64, p, 0)  # in bounds: runs
        with pytest.raises(SimFault) as info:
            dev.launch(kernel, 1, 64, p, arg)
        faults.append((info.value.code, info.value.message))
        if on:
            assert mod.jitted(mod.functions[kernel]) is not None
    assert faults[0] == faults[1]
    assert faults[1][0] == code


@pytest.mark.parametrize("off1, s1", [(48, 48), (0, 16), (64, 0), (-16, 0), (52, 0), (8, 0), (40, 0), (1 << 40, 0),
                                      (0, 64), (0, 56), (0, 60), (0, 8)])
def test_access_checks_at_the_edges_agree_with_the_interpreter(make_device, jit_image, jit_mode, off1, s1):
    """A 16-byte access per thread into a 64-byte allocation (and the 64-byte shared window): the
    last one inside, one past, before the start, misaligned, far away. Both paths give the same
    fault (or the same sums), also when another thread's access made the allocation the one the
    compiled code checks against first. (A shared offset of 16 MiB or more is left out: the
    interpreter reads it as a shared::cluster address, the compiled code as outside the window.)"""
    results = []
    for on in (False, True):
        jit_mode(on)
        mod = KernelModule.load(jit_image)
        dev = make_device(mod)
        p = dev.put(np.arange(16, dtype=np.float32))
        out = dev.zeros(2, np.float32)
        try:
            dev.launch("edge_access", 1, 2, p, 16, off1, s1, out)
            results.append(("ok", dev.get(out, 2, np.float32).tobytes()))
        except SimFault as exc:
            results.append((exc.code, exc.message))
        if on:
            assert mod.jitted(mod.functions["edge_access"]) is not None
    assert results[0] == results[1]


def test_float_atomics_add_lane_after_lane_as_the_interpreter_does(make_device, jit_image, jit_mode):
    """The sums round, so their order shows: lane after lane on one address (not a tree of the
    lanes' values), each thread's second add after every thread's first; checked against a
    sequential f32 sum computed here, on both paths."""
    x = np.random.default_rng(7).standard_normal(8 * 160).astype(np.float32)
    for on in (False, True):
        jit_mode(on)
        mod = KernelModule.load(jit_image)
        dev = make_device(mod)
        sums, dsums = dev.zeros(32, np.float32), dev.zeros(8, np.float64)
        olds, shared = dev.zeros(8 * 160, np.float32), dev.zeros(32, np.float32)
        dev.launch("float_atomics", 8, 160, dev.put(x), sums, dsums, olds, shared)
        got = dev.get(sums, 32, np.float32).reshape(8, 4)
        for blk in range(8):
            v = x[blk * 160:(blk + 1) * 160] * np.float32(1000)
            want = np.zeros(4, np.float32)
            for t in range(160):
                want[t % 3] += v[t]  # numpy f32 scalars: each sum rounded to f32, as a GPU's
            for k in range(3):
                for t in range(160):
                    if k < 2 or x[blk * 160 + t] > 3:
                        want[3] += v[t] if k == 0 else np.float32(-0.5) * v[t]
            assert got[blk].tobytes() == want.tobytes(), (on, blk, got[blk], want)
        assert mod.jitted(mod.functions["float_atomics"]) is not None or not on


def test_half_atomics_add_lane_after_lane_as_the_interpreter_does(make_device, jit_image, jit_mode):
    """atom/red.add.noftz on f16, bf16, f16x2 and bf16x2, in global and shared memory: the compiled
    path's memory is the interpreter's bit for bit, block 0's lanes adding the 16-bit edge patterns
    (NaNs with payloads, infinities of both signs, subnormals) and the others random halves; each
    f16 sum is also a sequential f16 sum in lane order computed here."""
    rng = np.random.default_rng(12)
    edges = [0x0000, 0x8000, 0x0001, 0x8001, 0x03FF, 0x3C00, 0x7BFF, 0xFBFF, 0x7C00, 0xFC00, 0x7C01, 0xFE03,
             0x7E00, 0x3C01, 0x0400, 0x8400]
    x = np.r_[np.array(edges * 4, np.uint16),
              (rng.standard_normal(7 * 64) * 8).astype(np.float16).view(np.uint16)]
    results = []
    for on in (False, True):
        jit_mode(on)
        mod = KernelModule.load(jit_image)
        dev = make_device(mod)
        h, pairs = dev.zeros(32, np.uint16), dev.zeros(16, np.uint32)
        olds, shared = dev.zeros(8 * 64, np.uint16), dev.zeros(16, np.uint16)
        dev.launch("half_atomics", 8, 64, dev.put(x), h, pairs, olds, shared)
        results.append([dev.get(h, 32, np.uint16), dev.get(pairs, 16, np.uint32), dev.get(olds, 8 * 64, np.uint16),
                        dev.get(shared, 16, np.uint16)])
        assert mod.jitted(mod.functions["half_atomics"]) is not None or not on
    for k, (w, g) in enumerate(zip(*results)):
        assert w.tobytes() == g.tobytes(), f"output {k}: {w} -> {g}"
    got = results[1][0].reshape(8, 4)
    for blk in range(1, 8):
        want = np.zeros(2, np.float16)
        for t in range(64):
            want[t % 2] = np.float16(want[t % 2] + x[blk * 64 + t:blk * 64 + t + 1].view(np.float16)[0])
        assert got[blk, :2].tobytes() == want.tobytes(), (blk, got[blk, :2], want)


@pytest.mark.parametrize("on", [False, True])
def test_atom_add_f32_flushes_subnormals_in_global_memory_only(make_device, jit_image, jit_mode, on):
    jit_mode(on)
    mod = KernelModule.load(jit_image)
    dev = make_device(mod)
    tiny = np.float32(1.17549435e-38)  # FLT_MIN
    nan = np.array([0x7FC00001], np.uint32).view(np.float32)[0]  # a NaN with a payload
    p = dev.put(np.array([1.5 * tiny, 3.0, nan, 0.0, 5.0, tiny / 4], np.float32))
    out = dev.zeros(2, np.float32)
    dev.launch("float_atomic_edges", 1, 1, p, out)
    got = dev.get(p, 5, np.float32)
    assert got[0].tobytes() == np.float32(0).tobytes()  # 0.5 FLT_MIN: a subnormal result, flushed
    assert got[1] == 3.0  # a subnormal input, flushed: nothing added
    assert got[2:3].view(np.uint32)[0] == 0x7FFFFFFF  # the canonical NaN
    assert got[3] == 5.0 and got[4] == 7.0  # the old value returned
    s = dev.get(out, 2, np.float32)
    assert s[0] == np.float32(1.5 * tiny) - tiny and s[1] == tiny / 4  # shared memory keeps them
    assert s[0] != 0
    if on:
        assert mod.jitted(mod.functions["float_atomic_edges"]) is not None


def test_a_kernel_outside_the_subset_runs_interpreted_and_says_why_once(make_device, jit_image, jit_mode):
    jit_mode(True)
    mod = KernelModule.load(jit_image)
    dev = make_device(mod)
    vals = np.random.default_rng(3).integers(0, 100, 128).astype(np.int32)
    x = dev.put(vals)
    out = dev.zeros(128, np.int32)
    # capture_logs swaps structlog's processors only: a level filter an earlier test of this process
    # configured (rgpu.logs.configure) would drop the info line before it, so start from the defaults
    saved = structlog.get_config()
    structlog.reset_defaults()
    try:
        with structlog.testing.capture_logs() as logs:
            dev.launch("counted_barrier", 2, 64, x, out)
            dev.launch("counted_barrier", 2, 64, x, out)
    finally:
        structlog.configure(**saved)
    assert dev.get(out, 128, np.int32).tolist() == vals.reshape(2, 64)[:, ::-1].reshape(-1).tolist()
    falls = [e for e in logs if e["event"] == "sim_jit_fallback"]
    assert len(falls) == 1 and falls[0]["kernel"] == "counted_barrier" and "thread count" in falls[0]["reason"]
    assert mod.jitted(mod.functions["counted_barrier"]) is None


@pytest.mark.parametrize("on", [False, True])
def test_warp_match_gives_what_a_gpu_gives(make_device, jit_image, jit_mode, on):
    """match.any/all.sync compiled as a warp collective: the interpreter's masks and predicates bit
    for bit, and the masks the PTX ISA defines, computed here (32- and 64-bit values, half-warp
    tiles, one warp whose first tile agrees, lanes of one branch)."""
    vals = np.random.default_rng(4).integers(0, 100, 96).astype(np.int32)
    vals[32:48] = 5  # warp 1's first tile: one value, so match.all holds there
    jit_mode(on)
    mod = KernelModule.load(jit_image)
    dev = make_device(mod)
    out = dev.zeros(5 * 96, np.uint32)
    dev.launch("warp_match", 3, 32, dev.put(vals), out)
    got = dev.get(out, 5 * 96, np.uint32).reshape(96, 5)
    assert not on or mod.jitted(mod.functions["warp_match"]) is not None
    v = vals & 7

    def mask(f, lanes):
        return sum(1 << (j % 32) for j in lanes if f(j))
    for i in range(96):
        w, lane = i // 32, i % 32
        warp = range(32 * w, 32 * w + 32)
        assert got[i, 0] == mask(lambda j: v[j] == v[i], warp)
        assert got[i, 1] == mask(lambda j: v[j] & 3 == v[i] & 3, warp)
        tile = [j for j in warp if (j % 32 < 16) == (lane < 16)]
        agree = all(v[j] >> 2 == v[i] >> 2 for j in tile)
        assert got[i, 2] == (mask(lambda j: True, tile) if agree else 0) and got[i, 3] == agree
        odd = [j for j in warp if v[j] & 1]
        assert got[i, 4] == (mask(lambda j: v[j] == v[i], odd) if v[i] & 1 else 0xDEAD)
    assert got[32, 3] == 1  # the agreeing tile


def test_a_kernel_is_compiled_once_its_launches_did_enough_work(make_device, jit_image, jit_mode):
    jit_mode(True)
    mod = KernelModule.load(jit_image)
    jit.set_after(3 * 64 * len(mod.functions["oob_store"].program.code))  # three launches of 64 threads
    dev = make_device(mod)
    p = dev.zeros(64, np.int32)
    compiled_at = None
    for k in range(6):
        dev.launch("oob_store", 1, 64, p, 0)
        if compiled_at is None and mod._jitted:
            compiled_at = k
    assert compiled_at == 2  # the first two launches were interpreted
    assert mod.jitted(mod.functions["oob_store"]) is not None
    np.testing.assert_array_equal(dev.get(p, 64, np.int32), np.arange(64))


def test_a_slow_interpreted_launch_counts_its_time_toward_compiling(make_device, build_image, jit_mode):
    """One thread looping: few instructions, but slow to interpret. Its time at the nominal rate
    passes the threshold, so the next launch runs compiled, with the same result."""
    jit_mode(True)
    mod = KernelModule.load(build_image("simslice.cu", "ptx"))
    jit.set_after(1e12)  # past what the loop's instructions would ever add up to
    jit.set_interpreted_rate(1e20)  # and any interpreted time counts as far more
    dev = make_device(mod)
    out = dev.zeros(1, np.uint32)
    dev.launch("spin", 1, 1, out, 50)
    first = dev.get(out, 1, np.uint32)[0]
    assert mod.jitted(mod.functions["spin"], 0) is not None
    dev.launch("spin", 1, 1, out, 50)
    assert dev.get(out, 1, np.uint32)[0] == first


def test_a_kernel_that_loops_long_is_compiled_within_its_first_launch(make_device, build_image, jit_mode, monkeypatch):
    """The threshold's estimate (threads x code length) misses loops: an interpreted launch counts
    what its batches really ran, and once that passes the threshold the blocks still to run run
    compiled, giving the memory (and the instruction count) the interpreter gives."""
    from rgpu.server.backends.sim import kernels
    monkeypatch.setattr(kernels, "MAX_LANES", 1024)  # batches of 4 blocks of 256 threads
    image = build_image("simslice.cu", "ptx")
    runs = []
    for on in (False, True):
        jit_mode(on)
        mod = KernelModule.load(image)
        jit.set_after(2e6)  # a tenth of what one batch runs; ten times the launch's estimate
        dev = make_device(mod)
        out = dev.zeros(32 * 256, np.uint32)
        stats = dev.launch("spin", 32, 256, out, 600)
        runs.append((dev.get(out, 32 * 256, np.uint32), stats.thread_instructions,
                     mod.jitted(mod.functions["spin"], 0) is not None))
    v = np.tile(np.arange(256, dtype=np.uint64), 32)
    for _ in range(600):
        v = (v * 1664525 + 1013904223) & 0xFFFFFFFF
    np.testing.assert_array_equal(runs[0][0], v.astype(np.uint32))
    np.testing.assert_array_equal(runs[1][0], runs[0][0])
    assert runs[1][1] == runs[0][1]
    assert runs[1][2] and not runs[0][2]  # compiled by the first launch itself


class Abandon(BaseException):
    pass


def test_a_long_compiled_kernel_is_sliced_and_can_be_abandoned(make_device, build_image, jit_mode):
    """The launch's clock is called from compiled loops (every so many backward branches): a
    session's time slices go on, and the session ending abandons a kernel that would run for hours."""
    from rgpu.server.backends.sim import kernels
    jit_mode(True)
    mod = KernelModule.load(build_image("simslice.cu", "ptx"))
    dev = make_device(mod)
    out = dev.zeros(32, np.uint32)
    calls = []

    def checkpoint(seconds):
        calls.append(seconds)
        if len(calls) == 3:
            raise Abandon()
    with pytest.raises(Abandon):
        kernels.launch(mod, mod.functions["spin"], dev.mem, (1, 1, 1), (32, 1, 1), 0,
                       dev.pack("spin", [out, (1 << 31) - 1]), dev.out, checkpoint)
    assert len(calls) == 3 and all(s >= kernels.TIMESLICE_S for s in calls)
    assert mod.jitted(mod.functions["spin"]) is not None


def test_an_abandoned_launch_stops_every_worker_inside_its_blocks(make_device, build_image, jit_mode, monkeypatch):
    """Blocks that would run for hours on two workers: when the clock (worker 0's) abandons the
    launch, the other worker, inside a block of its own, stops at its next clock interval too
    instead of running on (the launch would never return)."""
    import threading

    from rgpu.server.backends.sim import kernels
    _workers(monkeypatch, "2")
    jit_mode(True)
    mod = KernelModule.load(build_image("simslice.cu", "ptx"))
    dev = make_device(mod)
    out = dev.zeros(2048, np.uint32)
    calls = []

    def checkpoint(seconds):
        calls.append(seconds)
        if len(calls) == 2:
            raise Abandon()
    done = []

    def launch():
        try:
            kernels.launch(mod, mod.functions["spin"], dev.mem, (2, 1, 1), (1024, 1, 1), 0,
                           dev.pack("spin", [out, (1 << 31) - 1]), dev.out, checkpoint)
        except Abandon:
            done.append("abandoned")
    t = threading.Thread(target=launch, daemon=True)
    t.start()
    t.join(120)  # a deadline for a hang (a block runs for minutes), not a measurement
    assert done == ["abandoned"]
    assert mod.jitted(mod.functions["spin"]) is not None
