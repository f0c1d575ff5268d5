"""A lease's token file (client/lease_token_file.py): private, replaced whole, pruned once expired."""
from __future__ import annotations

import time

from rgpu.client import lease_token_file
from rgpu.protocol import tokens

SECRET = b"a-secret-of-the-test-0123456789"


def _token(lease: str, exp: float) -> str:
    return tokens.sign({"lease": lease, "exp": exp, "vgpus": []}, SECRET)


def test_the_token_is_private_replaced_whole_and_expired_ones_are_pruned(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    old = lease_token_file.write("l-0000000001", _token("l-0000000001", time.time() - 1))
    first = lease_token_file.write("l-00000000aa", _token("l-00000000aa", time.time() + 600))
    assert old is not None and not old.exists()          # expired: pruned at the write
    assert (first.stat().st_mode & 0o777) == 0o600 and (first.parent.stat().st_mode & 0o777) == 0o700
    fresh = _token("l-00000000aa", time.time() + 900)
    assert lease_token_file.write("l-00000000aa", fresh) == first and first.read_text() == fresh
    assert [p.name for p in first.parent.iterdir()] == ["l-00000000aa"]    # no temporary left
    lease_token_file.remove("l-00000000aa")
    assert not first.exists()


def test_an_id_that_is_no_lease_id_names_no_file(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    for bad in ("../../etc/passwd", "l-", "x-1234567", "", None):
        assert lease_token_file.path(bad) is None and lease_token_file.write(bad, "t") is None
