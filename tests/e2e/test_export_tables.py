"""The driver's hidden tables (libhook/src/driver/export_tables.c) as a runtime sees them: the integrity
check is HMAC-MD2 (RFC 1319, RFC 2104) over the driver version, the caller's process and thread, where
rgpu's CUDART_INTERFACE and INTEGRITY_CHECK tables and the check itself live, the time, and every
device's UUID and PCI location — recomputed here from the inputs the program prints, with an MD2
written from the RFC independently of the C one; a table rgpu does not know is refused and named."""
from __future__ import annotations

import os
import struct
import subprocess

import pytest

from tests.conftest import PROGRAMS
from tests.support import cudabuild

pytestmark = pytest.mark.e2e

# RFC 1319's permutation of 0..255 from the digits of pi
PI_SUBST = bytes([
    41, 46, 67, 201, 162, 216, 124, 1, 61, 54, 84, 161, 236, 240, 6, 19, 98, 167, 5, 243, 192, 199, 115, 140, 152,
    147, 43, 217, 188, 76, 130, 202, 30, 155, 87, 60, 253, 212, 224, 22, 103, 66, 111, 24, 138, 23, 229, 18, 190,
    78, 196, 214, 218, 158, 222, 73, 160, 251, 245, 142, 187, 47, 238, 122, 169, 104, 121, 145, 21, 178, 7, 63,
    148, 194, 16, 137, 11, 34, 95, 33, 128, 127, 93, 154, 90, 144, 50, 39, 53, 62, 204, 231, 191, 247, 151, 3, 255,
    25, 48, 179, 72, 165, 181, 209, 215, 94, 146, 42, 172, 86, 170, 198, 79, 184, 56, 210, 150, 164, 125, 182, 118,
    252, 107, 226, 156, 116, 4, 241, 69, 157, 112, 89, 100, 113, 135, 32, 134, 91, 207, 101, 230, 45, 168, 2, 27,
    96, 37, 173, 174, 176, 185, 246, 28, 70, 97, 105, 52, 64, 126, 15, 85, 71, 163, 35, 221, 81, 175, 58, 195, 92,
    249, 206, 186, 197, 234, 38, 44, 83, 13, 110, 133, 40, 132, 9, 211, 223, 205, 244, 65, 129, 77, 82, 106, 220,
    55, 200, 108, 193, 171, 250, 36, 225, 123, 8, 12, 189, 177, 74, 120, 136, 149, 139, 227, 99, 232, 109, 233,
    203, 213, 254, 59, 0, 29, 57, 242, 239, 183, 14, 102, 88, 208, 228, 166, 119, 114, 248, 235, 117, 75, 10, 49,
    68, 80, 180, 143, 237, 31, 26, 219, 153, 141, 51, 159, 17, 131, 20])


def md2(message: bytes) -> bytes:
    pad = 16 - len(message) % 16
    message += bytes([pad]) * pad
    checksum, last = bytearray(16), 0
    for i in range(0, len(message), 16):
        for j in range(16):
            checksum[j] ^= PI_SUBST[message[i + j] ^ last]
            last = checksum[j]
    message += bytes(checksum)
    x = bytearray(48)
    for i in range(0, len(message), 16):
        block = message[i:i + 16]
        x[16:32] = block
        x[32:48] = bytes(a ^ b for a, b in zip(x[:16], block))
        t = 0
        for r in range(18):
            for k in range(48):
                x[k] ^= PI_SUBST[t]
                t = x[k]
            t = (t + r) % 256
    return bytes(x[:16])


def hmac_md2(key: bytes, message: bytes) -> bytes:
    inner = md2(bytes(k ^ 0x36 for k in key) + message)
    return md2(bytes(k ^ 0x5C for k in key) + inner)


NVIDIA_KEY = bytes.fromhex("146addae53a9a752aa0841360bf55a9f")


def test_md2_is_rfc_1319():
    assert md2(b"").hex() == "8350e5a3e24c153df2275c9f80692773"
    assert md2(b"abc").hex() == "da853b0d3f88d99b30283a69e6ded6bb"
    assert md2(b"message digest").hex() == "ab4f496bfb2a530b219ff33031fe06b0"


def test_integrity_check_and_tables_as_a_runtime_sees_them(sim_server, libdir, tmp_path):
    exe = tmp_path / "export_tables"
    from rgpu.protocol.codegen.headers import find_include_dir
    cudabuild.ensure_nvcc()  # on a machine without a toolkit, the wheels bring cuda.h
    include = find_include_dir()
    subprocess.run(["gcc", "-O1", f"-I{include}", str(PROGRAMS / "export_tables.c"), f"-L{libdir}", "-lcuda",
                    f"-Wl,-rpath,{libdir}", f"-Wl,-rpath-link,{libdir}", "-lpthread", "-o", str(exe)], check=True)
    env = {**os.environ, "RGPU_SERVER": sim_server}
    p = subprocess.run([str(exe)], capture_output=True, text=True, env=env, timeout=120)
    assert p.returncode == 0, p.stdout + p.stderr
    lines = {line.split()[0]: line.split()[1:] for line in p.stdout.splitlines()}
    # a table rgpu does not know: CUDA_ERROR_NOT_FOUND, no pointer, and its uuid in the log
    assert lines["unknown"] == ["500", "1"]
    assert "unknown table 01020304-05060708-090a0b0c-0d0e0f10" in p.stderr
    # NVRTC's table: known, and declined as deliberately (NVRTC then compiles on its own), not named unknown
    assert lines["declined"] == ["500", "1"] and "da9151d3" not in p.stderr
    # SHARED_1734DC26: answered, 40 slots; slot 4 declines quietly with its outs untouched (cuBLASLt's
    # fp16 heuristics call it and carry on), another slot is a trap that names itself once
    assert lines["shared"] == ["0", str(40 * 8), "801", "1", "801"]
    assert "SHARED_1734DC26 slot 7 is not implemented" in p.stderr and "slot 4" not in p.stderr
    assert lines["sizes"] == [str(13 * 8), str(3 * 8)]
    assert lines["fixed"] == ["0", "3341181c03cb675c", "8ed383aa1f4cd1e8"]
    version, pid, tid, cudart, integrity, fn, now = lines["inputs"]
    message = struct.pack("<IIIIQQQQ", int(version), 13002, int(pid), int(tid), int(cudart, 16), int(integrity, 16),
                          int(fn, 16), int(now))
    for uuid, dom, bus, dev in (v for k, v in ((l.split()[0], l.split()[1:]) for l in p.stdout.splitlines())
                                if k == "device"):
        message += bytes.fromhex(uuid) + struct.pack("<iii", int(dom), int(bus), int(dev))
    digest = hmac_md2(NVIDIA_KEY, message)
    rc, lo, hi = lines["hash"]
    assert rc == "0"
    assert struct.pack("<QQ", int(lo, 16), int(hi, 16)) == digest
    assert lines["cls"] == ["0", "0", "1"]
