"""Immutable device facts cost no round trip once the session is open: a program asking attributes
and properties thousands of times makes as many calls on the server as one asking them not at all
(the server's count of calls in its session_ended line is the witness, not a clock), and every
answer is the one the server gives."""
from __future__ import annotations

import re
import subprocess

import pytest

from rgpu.paths import client_env
from tests.support.daemons import wait_until

pytestmark = pytest.mark.e2e


def _calls(handle, runs: int) -> list[int]:
    """calls= of the server's session_ended lines, once `runs` sessions have ended."""
    lines = wait_until(lambda: (found := re.findall(r"event=session_ended .*", handle.output(500000)))
                       and len(found) >= runs and found, 15, "sessions end")
    return [int(re.search(r"\bcalls=(\d+)", line).group(1)) for line in lines]


def test_attribute_and_property_queries_make_no_round_trips(cuda_program, start_server):
    url, handle = start_server()
    exe = cuda_program("driver_device_facts")
    for n in ("0", "3000"):
        p = subprocess.run([str(exe), n], capture_output=True, text=True, env=client_env([url]), timeout=120)
        assert p.returncode == 0 and "OK device_facts" in p.stdout, p.stdout + p.stderr
    none, many = _calls(handle, 2)
    assert many == none  # 3000 rounds of 3 attribute queries and 6 identity queries, 300 property queries: no wire
