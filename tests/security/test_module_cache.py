"""The module cache trusts nothing it did not write (issue 16, "High" 5): a directory others could
have made is refused, every read is checked against the digest, writes never follow a planted link,
and the cache stays within its bound."""
from __future__ import annotations

import hashlib
import os
import re

import pytest

from rgpu.server.module_cache import HEADER, MAGIC, CacheError, DigestCache
from tests.conftest import run_cli, server_argv
from tests.support.daemons import DaemonError, free_url


def _digest(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


@pytest.fixture
def cache_dir(tmp_path):
    return tmp_path / "modules"


def test_a_directory_others_can_reach_or_made_is_refused(tmp_path):
    shared = tmp_path / "shared"
    shared.mkdir(mode=0o777)
    os.chmod(shared, 0o777)                                 # before: any existing directory was adopted
    with pytest.raises(CacheError, match="not private"):
        DigestCache(shared, 1 << 20)
    link = tmp_path / "link"
    private = tmp_path / "private"
    private.mkdir(mode=0o700)
    link.symlink_to(private)
    with pytest.raises(CacheError, match="symlink"):
        DigestCache(link, 1 << 20)
    if os.geteuid() == 0:                                   # a directory another user owns
        theirs = tmp_path / "theirs"
        theirs.mkdir(mode=0o700)
        os.chown(theirs, 4242, 4242)
        with pytest.raises(CacheError, match="owned by uid"):
            DigestCache(theirs, 1 << 20)
    made = DigestCache(tmp_path / "new", 1 << 20)
    assert (os.stat(tmp_path / "new").st_mode & 0o777) == 0o700
    made.close()


def test_every_read_is_checked_and_a_planted_entry_is_a_miss(cache_dir):
    cache = DigestCache(cache_dir, 1 << 20, content_addressed=True)
    image = b"\x7fELF a real module image" * 100
    key = _digest(image)
    assert cache.put(key, image) and cache.get(key) == image
    planted = b"evil image of the same size".ljust(len(image), b"!")
    # before: a file of the right size under the right name was loaded as is
    for content in (planted, MAGIC + hashlib.sha256(planted).digest() + planted, b""):
        (cache_dir / key).write_bytes(content)
        assert cache.get(key) is None and not (cache_dir / key).exists()
    with pytest.raises(ValueError):
        cache.put(key, planted)                             # content-addressed: data must match its key


def test_writes_never_follow_a_planted_link(cache_dir, tmp_path):
    victim = tmp_path / "victim"
    victim.write_bytes(b"root-owned file")
    cache = DigestCache(cache_dir, 1 << 20, content_addressed=True)
    image = b"module" * 50
    key = _digest(image)
    # before: the temporary name was predictable (<digest>.<pid>.tmp) and opened without O_EXCL
    for pid in range(os.getpid() - 50, os.getpid() + 50):
        (cache_dir / f"{key}.{pid}.tmp").symlink_to(victim)
    (cache_dir / key).symlink_to(victim)                   # and a link in the entry's place
    assert cache.get(key) is None                           # a link is never read through
    assert cache.put(key, image) and cache.get(key) == image
    assert victim.read_bytes() == b"root-owned file"
    assert not (cache_dir / key).is_symlink()
    cache.entries()
    assert sorted(p.name for p in cache_dir.iterdir()) == [key]   # nothing else is kept there


def test_the_cache_stays_within_its_bound_least_recently_used_first(cache_dir):
    size = 10_000
    cache = DigestCache(cache_dir, 3 * (size + HEADER))
    keys = [_digest(bytes([i])) for i in range(5)]
    for i, key in enumerate(keys[:3]):
        assert cache.put(key, bytes([i]) * size)
        os.utime(cache_dir / key, (1000 + i, 1000 + i))
    assert cache.get(keys[0]) is not None                   # used: now the most recent
    cache.put(keys[3], b"x" * size)
    assert cache.get(keys[1]) is None and cache.get(keys[0]) is not None
    assert cache.size() <= 3 * (size + HEADER)
    assert not cache.put(keys[4], b"y" * (4 * size))        # larger than the whole cache: not stored


def test_the_server_refuses_a_shared_cache_directory(tmp_path):
    shared = tmp_path / "shared"
    shared.mkdir()
    os.chmod(shared, 0o777)
    from tests.support.daemons import start_daemon
    url = free_url()
    with pytest.raises(DaemonError, match="not private"):
        start_daemon(server_argv(url, "--module-cache", str(shared)), ready=lambda: False, deadline_s=30)


def test_a_planted_image_is_not_run(cuda_program, start_server, tmp_path):
    cache_dir = tmp_path / "modules"
    url, server = start_server("--module-cache", str(cache_dir))
    exe = str(cuda_program("kernels_basic"))
    assert run_cli("run", "--server", url, "--", exe).returncode == 0
    [entry] = [p for p in cache_dir.iterdir()]
    original = entry.read_bytes()
    # an attacker who could write there replaces the image, keeping name and size
    entry.write_bytes(original[:HEADER] + bytes(len(original) - HEADER))
    p = run_cli("run", "--server", url, "--", exe)
    assert p.returncode == 0 and "OK kernels_basic" in p.stdout, p.stdout + p.stderr
    loads = re.findall(r"event=module_loaded .*?source=(\w+)", server.output(tail=200_000))
    assert loads == ["upload", "upload"]                    # the planted entry was refused, not loaded
    assert entry.read_bytes() == original


# -- images are private to the user who uploaded them (issue 39, attack 4) --------------------------
SECRET_PTX = b"""
.version 8.0
.target sm_80
.address_size 64
.global .align 1 .b8 weights[19] = {80, 82, 79, 80, 82, 73, 69, 84, 65, 82, 89, 45, 87, 69, 73, 71, 72, 84, 83};
.visible .entry touch() { ret; }
"""


def _owned_token(plain_url: str, uuid: str, owner: str, lease: str) -> str:
    import time

    from rgpu.protocol import tokens
    from tests.support.controller import SECRET
    return tokens.sign({"lease": lease, "owner": owner, "exp": time.time() + 600,
                        "vgpus": [{"server": plain_url, "uuid": uuid, "index": 0, "memory": 64 << 20,
                                   "compute": 0, "limit": 100}]}, SECRET.encode())


def _load(session, image: bytes, send: bool):
    digest = _digest(image)
    rc, outs, _, message = session.call("cuModuleLoadData", digest, len(image), "", 0, 1 if send else 0,
                                        len(image) if send else 0, bulk=[image] if send else [])
    return rc, outs, message


def test_a_digest_alone_opens_nothing_another_user_uploaded(secret_server):
    from tests.security.test_server_wire import _uuid
    from tests.support.session import Session
    plain_url, url, _ = secret_server()
    uuid = _uuid(url)
    alice = Session(url, lease=_owned_token(plain_url, uuid, "alice", "l-alice-1"))
    assert _load(alice, SECRET_PTX, send=True)[0] == 0                 # alice uploads her image
    mallory = Session(url, lease=_owned_token(plain_url, uuid, "mallory", "l-mallory"))
    rc, outs, message = _load(mallory, SECRET_PTX, send=False)        # before: loaded from the cache
    nobody = _load(mallory, SECRET_PTX + b"// never sent\n", send=False)
    assert rc != 0 and outs == [] and "send the image" in message
    assert (rc, message) == (nobody[0], nobody[2])          # the same answer as for a digest nobody sent
    # alice's next lease (another program of hers) finds it by digest, and reads her data
    again = Session(url, lease=_owned_token(plain_url, uuid, "alice", "l-alice-2"))
    rc, (module,), _ = _load(again, SECRET_PTX, send=False)
    assert rc == 0
    rc, (ptr, size), _, _ = again.call("cuModuleGetGlobal_v2", module, "weights")
    rc2, _, data, _ = again.call("cuMemcpyDtoH_v2", ptr, size)
    assert rc == rc2 == 0 and b"".join(bytes(d) for d in data) == b"PROPRIETARY-WEIGHTS"
    # mallory with the bytes herself loads her own copy: proof of the bytes is an upload
    assert _load(mallory, SECRET_PTX, send=True)[0] == 0
    for s in (alice, mallory, again):
        s.close()
