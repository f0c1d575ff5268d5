"""Modules parsed a function at a time, and the server's on-disk cache of parsed bodies."""
from __future__ import annotations

import os
import stat

import numpy as np
import pytest

from rgpu.server.backends.sim.errors import SimError
from rgpu.server.backends.sim.kernels import KernelModule
from rgpu.server.backends.sim.ptx import cache, lazy

PTX = b""".version 9.0
.target sm_80
.address_size 64
.global .align 4 .u32 table[4] = {1, 2, 3, 4};
.func (.param .b32 ret) twice(.param .b32 x)
{
    .reg .b32 %r<3>;
    ld.param.b32 %r1, [x];
    // a brace in a comment: {
    add.s32 %r2, %r1, %r1;
    st.param.b32 [ret], %r2;
    ret;
}
.visible .entry good(.param .u64 out, .param .u32 k)
.maxntid 64, 1, 1
{
    .reg .b32 %r<8>;
    .reg .b64 %rd<4>;
    ld.param.u64 %rd1, [out];
    ld.param.u32 %r1, [k];
    mov.u32 %r2, %tid.x;
    ld.global.u32 %r3, [table+4];
    add.s32 %r4, %r2, %r3;
    {
        .reg .b32 %r<2>;
        .param .b32 p0;
        .param .b32 r0;
        st.param.b32 [p0], %r4;
        call.uni (r0), twice, (p0);
        ld.param.b32 %r1, [r0];
        mov.u32 %r5, %r1;
    }
    mul.wide.u32 %rd2, %r2, 4;
    add.s64 %rd3, %rd1, %rd2;
    st.global.u32 [%rd3], %r5;
    ret;
}
.visible .entry broken(.param .u64 out)
{
    .reg .b32 %r<2>;
    mov.u32 %r1, ;
    ret;
}
"""


def _run_good(mod, make_device):
    dev = make_device(mod)
    out = dev.zeros(32, np.uint32)
    dev.launch("good", 1, 32, out, 0)
    np.testing.assert_array_equal(dev.get(out, 32, np.uint32), 2 * (np.arange(32) + 2))


def test_bodies_are_parsed_on_first_use(make_device):
    mod = KernelModule.load(PTX)
    assert set(mod.functions) == {"good", "broken"}
    assert mod.functions["good"].max_threads_per_block == 64  # from the header alone
    assert mod.ptx.functions.pending("good") and mod.ptx.functions.pending("broken")
    _run_good(mod, make_device)
    assert not mod.ptx.functions.pending("good") and not mod.ptx.functions.pending("twice")
    assert mod.ptx.functions.pending("broken")


def test_a_body_that_does_not_parse_fails_when_used_naming_the_function(make_device):
    mod = KernelModule.load(PTX, label="libexample.so")
    dev = make_device(mod)
    with pytest.raises(SimError) as info:
        dev.launch("broken", 1, 32, 0)
    assert info.value.code == "CUDA_ERROR_INVALID_PTX" and "broken" in info.value.message
    assert "libexample.so" in info.value.message
    with pytest.raises(SimError):  # still broken: never a half-parsed body
        mod.ptx.functions["broken"]
    _run_good(mod, make_device)  # the rest of the module is fine


def test_line_numbers_survive_the_split():
    mod = lazy.load(PTX)
    body = mod.functions["good"].body
    line = next(i.line for i in body if getattr(i, "opcode", "") == "mul.wide.u32")
    assert PTX.decode().splitlines()[line - 1].strip().startswith("mul.wide.u32")


def test_cached_bodies_are_used_and_verified(make_device, tmp_path, monkeypatch):
    monkeypatch.setenv("RGPU_SIM_CACHE", str(tmp_path / "c"))
    _run_good(KernelModule.load(PTX), make_device)
    files = sorted((tmp_path / "c").iterdir())
    assert len(files) == 2  # good and twice
    assert stat.S_IMODE(os.stat(tmp_path / "c").st_mode) == 0o700
    hits = cache.stats()["hits"]
    _run_good(KernelModule.load(PTX), make_device)
    assert cache.stats()["hits"] == hits + 2
    # A flipped byte is a miss (and the file is replaced), never a wrong program.
    for f in files:
        data = bytearray(f.read_bytes())
        data[-3] ^= 0xFF
        f.write_bytes(bytes(data))
    misses = cache.stats()["misses"]
    _run_good(KernelModule.load(PTX), make_device)
    assert cache.stats()["misses"] >= misses + 2 and cache.stats()["hits"] == hits + 2
    _run_good(KernelModule.load(PTX), make_device)
    assert cache.stats()["hits"] == hits + 4


def test_a_cache_file_under_another_key_is_not_used(tmp_path, monkeypatch):
    monkeypatch.setenv("RGPU_SIM_CACHE", str(tmp_path / "c"))
    fn = lazy.load(PTX).functions["good"]
    cache.store_function("some-other-module:good", fn)
    # Move it to where this module's body would be looked up.
    src = cache._file(tmp_path / "c", "some-other-module:good")
    src.rename(cache._file(tmp_path / "c", "mine:good"))
    assert cache.load_function("mine:good") is None


def test_an_unsafe_cache_directory_is_not_used(tmp_path, monkeypatch):
    loose = tmp_path / "loose"
    loose.mkdir(mode=0o777)
    os.chmod(loose, 0o777)
    monkeypatch.setenv("RGPU_SIM_CACHE", str(loose))
    assert cache.directory() == loose and stat.S_IMODE(os.stat(loose).st_mode) == 0o700  # tightened
    target = tmp_path / "elsewhere"
    target.mkdir()
    link = tmp_path / "link"
    link.symlink_to(target)
    monkeypatch.setenv("RGPU_SIM_CACHE", str(link))
    assert cache.directory() is None  # a symlink could point anywhere
    monkeypatch.setenv("RGPU_SIM_CACHE", "off")
    assert cache.directory() is None
    cache.store_function("k:good", lazy.load(PTX).functions["good"])  # no directory: nothing happens


def test_the_cache_stays_under_its_size_bound(tmp_path, monkeypatch):
    monkeypatch.setenv("RGPU_SIM_CACHE", str(tmp_path / "c"))
    fn = lazy.load(PTX).functions["good"]
    cache.store_function("a:good", fn)
    one = next((tmp_path / "c").iterdir()).stat().st_size
    monkeypatch.setenv("RGPU_SIM_CACHE_MAX", str(3 * one))
    for k in range(10):
        cache.store_function(f"m{k}:good", fn)
    assert sum(f.stat().st_size for f in (tmp_path / "c").iterdir()) <= 3 * one
    assert cache.load_function("m9:good") is not None  # the newest stay
