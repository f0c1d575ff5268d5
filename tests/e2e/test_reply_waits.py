"""How the two ends of a session wait for each other. A program's thread waits for a reply as CUDA's
driver waits for the GPU, by its context's scheduling flags: spinning (cudaDeviceScheduleSpin),
spinning and yielding (Yield, and Auto, the default), or blocked (BlockingSync), the spin bounded by
RGPU_SPIN_US; a session's worker polls for the next message for --spin-us after each one."""
from __future__ import annotations

import os
import re
import subprocess
import sys

import pytest

from tests.conftest import run_cli
from tests.support.daemons import wait_until

pytestmark = pytest.mark.e2e

HOLD_MS = 500  # each wait of driver_reply_waits: a kernel that runs this long


WAITS = ("blocked", "spin", "auto", "ctx_blocked")


def _waits(p) -> tuple[dict, dict]:
    """The waiting thread's CPU time (ms) and sleeps (voluntary context switches) in each wait."""
    assert p.returncode == 0 and "OK driver_reply_waits" in p.stdout, p.stdout + p.stderr
    cpu = re.search(r"cpu_ms blocked ([\d.]+) spin ([\d.]+) auto ([\d.]+) ctx_blocked ([\d.]+)", p.stdout)
    sleeps = re.search(r"sleeps blocked (\d+) spin (\d+) auto (\d+) ctx_blocked (\d+)", p.stdout)
    return dict(zip(WAITS, map(float, cpu.groups()))), dict(zip(WAITS, map(int, sleeps.groups())))


def test_a_thread_spins_or_blocks_for_its_reply_as_its_context_flags_say(cuda_program, start_server):
    exe = cuda_program("driver_reply_waits")
    url, _ = start_server()
    # a spin window longer than the wait: a thread that spins does so through it
    p = run_cli("run", "--server", url, "--", str(exe), str(HOLD_MS), env={**os.environ, "RGPU_SPIN_US": "5000000"})
    cpu, sleeps = _waits(p)
    # Over a wait of HOLD_MS, whatever else this machine runs: a spinning thread never sleeps (Auto's
    # yields give its CPU to any other thread that wants it: under load it may spend little of it),
    # and Spin's holds a share of a CPU; a blocked one sleeps and makes a few system calls.
    assert sleeps["spin"] == 0 and sleeps["auto"] == 0, (cpu, sleeps)
    assert cpu["spin"] >= HOLD_MS / 20, (cpu, sleeps)
    assert sleeps["blocked"] >= 1 and sleeps["ctx_blocked"] >= 1, (cpu, sleeps)
    assert cpu["blocked"] <= HOLD_MS / 20 and cpu["ctx_blocked"] <= HOLD_MS / 20, (cpu, sleeps)


def test_the_spin_is_bounded_and_a_worker_spun_for_nothing_when_told_not_to(cuda_program, start_server):
    exe = cuda_program("driver_reply_waits")
    url, h = start_server("--spin-us", "0")
    cpu, sleeps = _waits(run_cli("run", "--server", url, "--", str(exe), str(HOLD_MS)))
    # RGPU_SPIN_US's default (200 µs) bounds every spin: the rest of a long wait is blocked
    assert cpu["spin"] <= HOLD_MS / 20 and cpu["auto"] <= HOLD_MS / 20, (cpu, sleeps)
    assert sleeps["spin"] >= 1 and sleeps["auto"] >= 1, (cpu, sleeps)
    line = wait_until(lambda: re.search(r"event=session_ended .*", h.output(200000)), 15, "the session ends").group(0)
    assert re.search(r"\bspin_hits=0\b", line), line
    assert int(re.search(r"\bmessages=(\d+)", line).group(1)) > 5, line


def test_bad_spin_windows_are_refused_with_a_reason(cuda_program, sim_server):
    p = subprocess.run([sys.executable, "-m", "rgpu.server.cli", "--spin-us", "-1"], capture_output=True, text=True,
                       timeout=60)
    assert p.returncode == 2 and "--spin-us" in p.stderr, p.stderr
    # the client's: said, and the default used
    p = run_cli("run", "--server", sim_server, "--", str(cuda_program("driver_reply_waits")), "20",
                env={**os.environ, "RGPU_SPIN_US": "soon"})
    _waits(p)
    assert "RGPU_SPIN_US=soon is not a whole number >= 0: using 200" in p.stderr, p.stderr
