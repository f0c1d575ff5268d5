"""A `--device cuda` rgpu-server on the null driver (benchmarks/native/nulldriver.c, loaded through
RGPU_LIBCUDA): the cuda backend end to end on a host without a GPU."""
from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap

from benchmarks.native import run as native
from rgpu.client.server_client import ping
from tests.support.daemons import free_url


def start(daemons, *extra: str, env: dict | None = None):
    """(url, handle) of a server started in `daemons` on a free port, with `extra` arguments and
    `env` added to this process's environment."""
    url = free_url()
    handle = daemons.start([sys.executable, "-m", "rgpu.server.cli", "--device", "cuda", "--listen", url,
                            "--log-level", "info", *extra], ready=lambda: ping(url), deadline_s=60,
                           env={**os.environ, "RGPU_LIBCUDA": str(native.null_driver()), **(env or {})})
    return url, handle


def run_script(prelude: str, body: str, ok: bool = True) -> subprocess.CompletedProcess:
    """`prelude` and `body` (dedented) run by a Python process of its own that loaded the null driver,
    as a worker does; asserts it exited 0 (`ok`) or not, showing its output."""
    p = subprocess.run([sys.executable, "-c", prelude + textwrap.dedent(body)], capture_output=True, text=True,
                       timeout=120, env={**os.environ, "RGPU_LIBCUDA": str(native.null_driver())})
    assert (p.returncode == 0) == ok, p.stdout + p.stderr
    return p


def script_result(prelude: str, body: str) -> dict:
    """The JSON object the script's last line of output printed (run_script)."""
    return json.loads(run_script(prelude, body).stdout.strip().splitlines()[-1])
