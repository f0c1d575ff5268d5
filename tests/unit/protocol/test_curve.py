"""CURVE keys and certificates: derivation, the zcert text format, keys in server URLs."""
import os

import pytest
import zmq

from rgpu.protocol import curve

SECRET = b"unit-test-secret-0123456789abcdef"


def test_derived_keys_are_stable_distinct_and_valid():
    a, b = curve.controller_keys(SECRET), curve.controller_keys(SECRET)
    assert a == b and zmq.curve_public(a.secret) == a.public
    keys = {curve.controller_keys(SECRET).public, curve.server_role_keys(SECRET).public,
            curve.operator_keys(SECRET).public, curve.server_data_keys(SECRET, "tcp://a:1").public,
            curve.server_data_keys(SECRET, "tcp://b:1").public, curve.controller_keys(b"x" * 32).public}
    assert len(keys) == 6


def test_certificates_round_trip_whatever_characters_the_keys_hold(tmp_path):
    # Z85 keys hold '#', which a comment-stripping reader would cut
    for i in range(100):
        keys = curve.new_keypair()
        path = curve.write_cert(tmp_path / f"u{i}", keys, {"name": "alice", "role": "admin"}, secret=True)
        assert curve.read_cert(path, secret=True) == (keys, {"name": "alice", "role": "admin"})
        public = curve.write_cert(tmp_path / f"u{i}.key", keys, {"name": "alice"}, secret=False)
        assert curve.read_cert(public, secret=False)[0] == curve.Keypair(keys.public, None)
        assert b"secret-key" not in public.read_bytes()
    assert os.stat(tmp_path / "u0").st_mode & 0o777 == 0o600


def test_a_secret_certificate_others_can_read_is_refused(tmp_path):
    path = curve.write_cert(tmp_path / "c", curve.new_keypair(), {}, secret=True)
    os.chmod(path, 0o644)
    with pytest.raises(curve.CurveError, match="chmod 600"):
        curve.read_cert(path, secret=True)
    with pytest.raises(FileExistsError):       # never written over an existing file
        curve.write_cert(path, curve.new_keypair(), {}, secret=True)


def test_a_certificate_whose_keys_do_not_match_is_refused(tmp_path):
    a, b = curve.new_keypair(), curve.new_keypair()
    path = curve.write_cert(tmp_path / "c", curve.Keypair(a.public, b.secret), {}, secret=True)
    with pytest.raises(curve.CurveError, match="does not belong"):
        curve.read_cert(path, secret=True)


def test_keys_travel_in_server_urls_as_hex():
    key = curve.new_keypair().public
    hexkey = curve.key_hex(key)
    assert len(hexkey) == 64 and curve.parse_key(hexkey) == key == curve.parse_key(key.decode())
    assert curve.split_server_url(f"tcp://h:1@{hexkey}#2") == ("tcp://h:1#2", key)
    assert curve.split_server_url(f"tcp://h:1@{hexkey}") == ("tcp://h:1", key)
    assert curve.split_server_url("tcp://h:1#2") == ("tcp://h:1#2", None)
    with pytest.raises(curve.CurveError):
        curve.parse_key("not a key")
