"""A `--device cuda` rgpu-server on the null driver (benchmarks/native/nulldriver.c, loaded through
RGPU_LIBCUDA): the cuda backend end to end on a host without a GPU."""
from __future__ import annotations

import os
import sys

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
