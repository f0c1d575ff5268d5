"""How the cuda backend's idle reclaim reads the driver's answers (server/backends/cuda/suspension.py)
and what the reclaim does with them (server/reclaim.py): a refusal that leaves the process as it
was is an ordinary error; one that leaves it locked (its calls would block for good) is sticky, so
that no later call of the session reaches the driver, and reclaim is not tried again."""
from __future__ import annotations

import subprocess
import sys

import pytest
import structlog

from rgpu.server.backends.cuda import suspension
from rgpu.server.errors import CudaError
from rgpu.server.reclaim import Reclaimer


def answered(monkeypatch, **answer):
    monkeypatch.setattr(suspension._helper, "ask", lambda step, pid: answer)


@pytest.mark.parametrize("step, error, state, code, sticky", [
    ("checkpoint", None, "checkpointed", None, False),                                     # done
    ("checkpoint", "CUDA_ERROR_NOT_SUPPORTED", "running", "CUDA_ERROR_NOT_SUPPORTED", False),  # left as it was
    ("checkpoint", "CUDA_ERROR_NOT_SUPPORTED", None, "CUDA_ERROR_NOT_SUPPORTED", False),   # no state to ask
    ("checkpoint", "CUDA_ERROR_OUT_OF_MEMORY", "locked", "CUDA_ERROR_ILLEGAL_STATE", True),  # its unlock failed too
    ("restore", "CUDA_ERROR_OUT_OF_MEMORY", "checkpointed", "CUDA_ERROR_OUT_OF_MEMORY", False),  # try again later
    ("restore", "CUDA_ERROR_UNKNOWN", "failed", "CUDA_ERROR_ILLEGAL_STATE", True),
    ("restore", "CUDA_ERROR_INVALID_VALUE", "locked", "CUDA_ERROR_ILLEGAL_STATE", True),   # restored, not unlocked
    ("restore", "CUDA_ERROR_ILLEGAL_STATE", "running", "CUDA_ERROR_ILLEGAL_STATE", False),  # it was not checkpointed
])
def test_an_answer_is_an_error_that_is_sticky_only_when_the_process_is_left_locked(monkeypatch, step, error,
                                                                                    state, code, sticky):
    answered(monkeypatch, error=error, at="cuCheckpointProcessX", state=state)
    call = suspension.checkpoint if step == "checkpoint" else suspension.restore
    if code is None:
        call(1234)
        return
    with pytest.raises(CudaError) as e:
        call(1234)
    assert (e.value.code, e.value.sticky) == (code, sticky)
    assert "cuCheckpointProcessX" in e.value.message
    assert not sticky or f"left the process {state}" in e.value.message


def test_a_refused_checkpoint_says_what_the_driver_cannot_hold(monkeypatch):
    """CUDA_ERROR_NOT_SUPPORTED alone does not say why: an H100's driver gave it for a process with
    managed memory, which NVIDIA's checkpoint does not hold. A restore's refusal says nothing more."""
    answered(monkeypatch, error="CUDA_ERROR_NOT_SUPPORTED", at="cuCheckpointProcessCheckpoint", state="running")
    with pytest.raises(CudaError) as e:
        suspension.checkpoint(1234)
    assert "managed (UVM) or IPC memory" in e.value.message
    answered(monkeypatch, error="CUDA_ERROR_OUT_OF_MEMORY", at="cuCheckpointProcessRestore", state="checkpointed")
    with pytest.raises(CudaError) as e:
        suspension.restore(1234)
    assert e.value.message.endswith(": CUDA_ERROR_OUT_OF_MEMORY")


def test_a_helper_that_cannot_start_is_an_ordinary_error(monkeypatch):
    """Nothing was asked of the driver, so the process is as it was: not sticky."""
    def refuse(*a, **k):
        raise OSError(12, "Cannot allocate memory")
    monkeypatch.setattr(suspension._helper, "proc", None)
    monkeypatch.setattr(suspension.subprocess, "Popen", refuse)
    with pytest.raises(CudaError) as e:
        suspension.checkpoint(1234)
    assert e.value.code == "CUDA_ERROR_OPERATING_SYSTEM" and not e.value.sticky
    assert "could not start" in e.value.message


def _helpers(monkeypatch, *scripts: str) -> None:
    """The helper processes started next run these scripts, in turn."""
    queue = list(scripts)
    monkeypatch.setattr(suspension._helper, "proc", None)
    monkeypatch.setattr(suspension._Helper, "_spawn", staticmethod(lambda: subprocess.Popen(
        [sys.executable, "-c", queue.pop(0)], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)))


DIES = "import sys; sys.stdin.readline()"  # takes the step, answers nothing


def says(state) -> str:
    return f"import sys, json; sys.stdin.readline(); print(json.dumps({{'error': None, 'at': '', 'state': {state!r}}}))"


@pytest.mark.parametrize("probe, sticky", [
    (says("running"), False),        # it died before the driver changed anything
    (says("locked"), True),          # it died with the process locked
    (DIES, True),                    # nobody can tell
    (says(None), True),
])
def test_a_helper_lost_mid_step_has_a_fresh_one_ask_the_state_it_left(monkeypatch, probe, sticky):
    _helpers(monkeypatch, DIES, probe)
    with pytest.raises(CudaError) as e:
        suspension.checkpoint(1234)
    assert e.value.sticky == sticky and "the checkpoint helper, which gave no answer" in e.value.message
    suspension._helper.stop()


class _Device:
    suspends_in_place = True
    queued = False  # no kernel queued or running (backends/base.py): reclaim may suspend it

    def __init__(self, error):
        self.error = error

    def suspend(self):
        raise self.error


class _Session:
    sticky = None

    def __init__(self, device):
        self.device = device


def _stuck() -> CudaError:
    e = CudaError("CUDA_ERROR_ILLEGAL_STATE", "left the process locked")
    e.sticky = True
    return e


@pytest.mark.parametrize("error, again, sticky", [
    (CudaError("CUDA_ERROR_NOT_READY", "its kernels are still running"), True, False),  # busy: later
    (CudaError("CUDA_ERROR_OUT_OF_MEMORY", "no host memory"), True, False),
    (CudaError("CUDA_ERROR_NOT_SUPPORTED", "this driver has no checkpoint calls"), False, False),
    (_stuck(), False, True),
])
def test_a_refused_reclaim_leaves_the_session_running_unless_the_driver_left_it_locked(error, again, sticky):
    r = Reclaimer(1.0, "/nonexistent", "cuda", None, structlog.get_logger())
    session = _Session(_Device(error))
    assert r.reclaim(session) is False and not r.reclaimed
    assert (r.after_s is not None) == again
    assert (session.sticky is error) == sticky
