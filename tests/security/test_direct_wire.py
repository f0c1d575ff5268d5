"""Direct mode over a plain wire is said out loud (issue 39, attack 7): `rgpu run` warns before it
uses a server whose wire leaves this host unencrypted, and says how to encrypt it; a loopback, ipc://
or keyed (URL@KEY) server gets no warning. Before: no warning at all. (Encrypting direct mode by
default is not done: see the issue's closing note.)"""
from __future__ import annotations

import pytest

from rgpu.client.server_client import plaintext_warning
from tests.conftest import run_cli

KEY = "ab" * 32


@pytest.mark.parametrize("url", ["tcp://gpuhost:7450", "tcp://10.1.2.3:7450#1", "tcp://[fd00::1]:7450"])
def test_a_plain_wire_off_this_host_is_warned_of(url):
    said = plaintext_warning(url)
    assert said is not None and "unencrypted" in said and "--wire curve" in said and "URL@KEY" in said


@pytest.mark.parametrize("url", ["tcp://127.0.0.1:7450", "tcp://localhost:7450", "tcp://[::1]:7450#0",
                                 "ipc:///tmp/rgpu.sock", f"tcp://gpuhost:7450@{KEY}", f"tcp://gpuhost:7450@{KEY}#1"])
def test_loopback_ipc_and_keyed_servers_are_not(url):
    assert plaintext_warning(url) is None


def test_rgpu_run_says_nothing_on_loopback(sim_server):
    p = run_cli("run", "--server", sim_server, "--", "true")
    assert p.returncode == 0 and "warning" not in p.stderr, p.stderr
