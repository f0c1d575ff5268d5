"""Lease tokens: round trip, forgery, expiry, wrong GPU, and where the secret comes from."""
import os
import stat

import pytest

from rgpu.protocol import tokens

SECRET = b"s" * 32
CLAIMS = {"lease": "l-1", "exp": 2000.0,
          "vgpus": [{"server": "tcp://a:1", "uuid": "GPU-a", "index": 0, "memory": 1 << 30,
                     "compute": 50, "limit": 80}]}


def test_sign_verify_round_trip_keeps_claims():
    token = tokens.sign(CLAIMS, SECRET)
    assert token.isascii() and " " not in token and token.startswith("rgpu1.")
    claims = tokens.verify(token, SECRET, now=1000.0)
    assert claims["lease"] == "l-1" and claims["vgpus"] == CLAIMS["vgpus"] and claims["v"] == 1


def test_wrong_secret_is_forged():
    token = tokens.sign(CLAIMS, SECRET)
    with pytest.raises(tokens.TokenForged):
        tokens.verify(token, b"t" * 32, now=1000.0)


def test_tampered_payload_is_forged():
    prefix, payload, mac = tokens.sign(CLAIMS, SECRET).split(".")
    other = tokens.sign({**CLAIMS, "vgpus": [{**CLAIMS["vgpus"][0], "memory": 1 << 40}]}, b"x" * 32)
    with pytest.raises(tokens.TokenForged):
        tokens.verify(f"{prefix}.{other.split('.')[1]}.{mac}", SECRET, now=1000.0)


def test_expired_token_refused_with_code():
    token = tokens.sign(CLAIMS, SECRET)
    with pytest.raises(tokens.TokenExpired) as info:
        tokens.verify(token, SECRET, now=2000.0)
    assert info.value.code == "token_expired"


@pytest.mark.parametrize("junk", ["", "abc", "rgpu1.x", "rgpu2.a.b", "rgpu1.!!.??", 42])
def test_malformed_tokens_are_typed_errors(junk):
    with pytest.raises(tokens.TokenError):
        tokens.verify(junk, SECRET, now=0)


def test_token_for_another_servers_gpu():
    claims = tokens.verify(tokens.sign(CLAIMS, SECRET), SECRET, now=0)
    assert tokens.vgpus_on(claims, {"GPU-a", "GPU-z"})[0]["limit"] == 80
    with pytest.raises(tokens.TokenWrongGpu):
        tokens.vgpus_on(claims, {"GPU-b"})


def test_secret_from_env_then_file_then_default(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "cfg"))
    monkeypatch.delenv("RGPU_CLUSTER_SECRET", raising=False)
    monkeypatch.delenv("RGPU_CLUSTER_SECRET_FILE", raising=False)
    with pytest.raises(tokens.SecretError):
        tokens.load_secret()
    created = tokens.load_secret(create=True)          # first daemon creates the default file
    path = tmp_path / "cfg" / "rgpu" / "cluster-secret"
    assert stat.S_IMODE(os.stat(path).st_mode) == 0o600
    assert tokens.load_secret() == created             # the next one reads the same secret
    f = tmp_path / "shared"
    f.write_text("file-secret-0123456789\n")
    monkeypatch.setenv("RGPU_CLUSTER_SECRET_FILE", str(f))
    assert tokens.load_secret() == b"file-secret-0123456789"
    monkeypatch.setenv("RGPU_CLUSTER_SECRET", "env-secret-0123456789")
    assert tokens.load_secret() == b"env-secret-0123456789"
    assert tokens.load_secret(f) == b"file-secret-0123456789"    # --secret-file wins


def test_short_secret_refused(tmp_path, monkeypatch):
    monkeypatch.setenv("RGPU_CLUSTER_SECRET", "short")
    with pytest.raises(tokens.SecretError, match="shorter"):
        tokens.load_secret()


def test_a_named_secret_file_that_is_missing_is_an_error_unless_init(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "cfg"))
    monkeypatch.delenv("RGPU_CLUSTER_SECRET", raising=False)
    monkeypatch.delenv("RGPU_CLUSTER_SECRET_FILE", raising=False)
    missing = tmp_path / "etc" / "secret"
    for create in (False, True):   # `create` is the single-machine default file's, never a named one's
        with pytest.raises(tokens.SecretError, match=f"{missing} does not exist.*--init-secret"):
            tokens.load_secret(missing, create=create)
    assert not missing.exists() and not (tmp_path / "cfg").exists()
    made = tokens.load_secret(missing, init=True)
    assert len(made) == 64 and stat.S_IMODE(os.stat(missing).st_mode) == 0o600
    assert tokens.load_secret(missing, init=True) == made == tokens.load_secret(missing)   # kept, not renewed
    assert [p.name for p in missing.parent.iterdir()] == ["secret"]   # no temporary left behind
