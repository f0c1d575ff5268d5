"""Certificates for TLS tests, made with the openssl command (scripts/setup.sh installs it): a CA,
a server certificate for 127.0.0.1 and a client certificate signed by it, and a second CA that
signed nothing of these (the "wrong CA").

    pki = make_pki(tmp_path / "pki")
    pki.ca, pki.server_cert, pki.server_key, pki.client_cert, pki.client_key, pki.other_ca
"""
from __future__ import annotations

import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path

OPENSSL = shutil.which("openssl") or "/usr/bin/openssl"


@dataclass
class Pki:
    ca: Path
    server_cert: Path
    server_key: Path
    client_cert: Path
    client_key: Path
    other_ca: Path


def _run(*args: str) -> None:
    subprocess.run([OPENSSL, *args], check=True, capture_output=True, timeout=60)


def _ca(d: Path, name: str) -> tuple[Path, Path]:
    cert, key = d / f"{name}.pem", d / f"{name}-key.pem"
    _run("req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes", "-days", "2",
         "-subj", f"/CN=rgpu test {name}", "-keyout", str(key), "-out", str(cert),
         "-addext", "basicConstraints=critical,CA:TRUE", "-addext", "keyUsage=critical,keyCertSign,cRLSign")
    return cert, key


def _leaf(d: Path, name: str, ca: tuple[Path, Path], ext: str) -> tuple[Path, Path]:
    cert, key, csr, extfile = d / f"{name}.pem", d / f"{name}-key.pem", d / f"{name}.csr", d / f"{name}.ext"
    _run("req", "-new", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes",
         "-subj", f"/CN=rgpu test {name}", "-keyout", str(key), "-out", str(csr))
    extfile.write_text(ext)
    _run("x509", "-req", "-in", str(csr), "-CA", str(ca[0]), "-CAkey", str(ca[1]), "-CAcreateserial",
         "-days", "2", "-extfile", str(extfile), "-out", str(cert))
    return cert, key


def make_pki(d: Path) -> Pki:
    d.mkdir(parents=True, exist_ok=True)
    ca = _ca(d, "ca")
    server = _leaf(d, "server", ca, "subjectAltName=IP:127.0.0.1,DNS:localhost\nextendedKeyUsage=serverAuth,clientAuth\n")
    client = _leaf(d, "client", ca, "extendedKeyUsage=clientAuth\n")
    other = _ca(d, "other-ca")
    return Pki(ca[0], server[0], server[1], client[0], client[1], other[0])
