"""The pinned trees' disk sharing (tests/support/pinned_venv.py): a file a finished tree already
holds byte for byte becomes a hard link to it; anything else keeps its own copy."""
from __future__ import annotations

import os

from tests.support import pinned_venv
from tests.support.pinned_venv import SHARE_MIN_BYTES, finished_trees, once, share_identical


def _write(path, data: bytes):
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data)
    return path


def test_identical_large_files_are_linked_and_the_rest_kept(tmp_path):
    big = os.urandom(SHARE_MIN_BYTES)
    same_size_other = bytes(reversed(big))
    old, new = tmp_path / "old", tmp_path / "new"
    lib = _write(old / "nvidia/cu13/lib/libcufft.so.12", big)
    _write(old / "nvidia/cu13/lib/libcurand.so.10", same_size_other)
    _write(old / "small.h", b"x" * 100)

    twin = _write(new / "site-packages/nvidia/cu13/lib/libcufft.so.12", big)
    differs = _write(new / "site-packages/nvidia/cu13/lib/libcublas.so.13", bytes(SHARE_MIN_BYTES))
    small = _write(new / "small.h", b"x" * 100)

    assert share_identical(new, [old]) == SHARE_MIN_BYTES
    assert twin.stat().st_ino == lib.stat().st_ino and twin.read_bytes() == big
    assert differs.stat().st_ino != lib.stat().st_ino and differs.read_bytes() == bytes(SHARE_MIN_BYTES)
    assert small.stat().st_nlink == 1  # under the size worth linking
    assert not list(new.rglob("*.rgpu-link"))
    # a second pass finds them already one file
    assert share_identical(new, [old]) == 0


def test_a_new_tree_shares_with_the_finished_trees_of_caches_seen(tmp_path, monkeypatch):
    monkeypatch.setattr(pinned_venv, "_CACHES", set())
    data = os.urandom(SHARE_MIN_BYTES + 7)
    first_cache, second_cache = tmp_path / "nvlibs", tmp_path / "torch"
    first = once(first_cache, first_cache / "tree-a", {"a": "1"}, lambda d: _write(d / "lib.so", data))
    half = first_cache / "tree-half"  # no marker: an interrupted install is not a source
    _write(half / "other.so", os.urandom(SHARE_MIN_BYTES))

    second = once(second_cache, second_cache / "tree-b", {"b": "2"}, lambda d: _write(d / "sub/lib.so", data))
    assert (second / "sub/lib.so").stat().st_ino == (first / "lib.so").stat().st_ino
    assert (second / ".installed").read_text() == "b==2"
    assert finished_trees(first_cache) == [first]
