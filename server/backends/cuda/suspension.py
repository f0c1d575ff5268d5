"""Idle reclaim on a real GPU: the driver's own checkpoint of the worker's process.

CUDA's checkpoint calls (cuCheckpointProcessLock/Checkpoint/Restore/Unlock, driver r550 on) move
every allocation of a process into that process's host memory and release the GPU's memory and
handles; a restore brings them back, on the same GPU, at the same addresses. The cuda backend
reclaims an idle session with them instead of the software GPU's checkpoint image
(server/checkpoint), which needs each allocation placed again at its address: on a real GPU the
driver chooses where a module's variables go when the module loads, so a rebuilt session could
not give the program the addresses it holds. The driver's checkpoint keeps the context and every
module, stream and event as they are, and asks nothing of rgpu but a call boundary.

The calls act on a process by its pid and are made by a controller outside it (a locked process's
own CUDA calls block until it is unlocked), so the worker runs this module as a helper process
(``python -m rgpu.server.backends.cuda.suspension serve``), which answers each ``checkpoint PID``
or ``restore PID`` line with one line of JSON: the driver's answer and the process's state after
it (``state PID`` asks only the state: a fresh helper's question when one was lost mid-step). The
worker waits for the answer outside the driver, at a call boundary with its streams drained."""
from __future__ import annotations

import json
import os
import select
import subprocess
import sys

from ...errors import CudaError

LOCK_TIMEOUT_MS = 10_000  # a lock waits for calls in flight; none should be, at a call boundary
HELPER_TIMEOUT_S = 300.0  # moving a whole GPU's memory to the host and back takes seconds, not minutes
PROBE_TIMEOUT_S = 30.0  # a fresh helper asking the state a lost step left
STATES = {0: "running", 1: "locked", 2: "checkpointed", 3: "failed"}  # CUprocessState


def checkpoint(pid: int) -> None:
    """Lock ``pid`` and checkpoint its GPU state; raises CudaError (the process left running) when
    the driver refuses."""
    _ask("checkpoint", pid)


def restore(pid: int) -> None:
    """Restore ``pid`` from its checkpoint and unlock it; raises CudaError when the driver refuses
    (CUDA_ERROR_OUT_OF_MEMORY, the process still checkpointed: the GPU has no room for it yet).
    Either raises a sticky CUDA_ERROR_ILLEGAL_STATE when the driver leaves the process in neither
    state: its calls would block."""
    _ask("restore", pid)


class _Helper:
    """The helper process, started at the first checkpoint and kept: a restore is the call the
    program waits for, and a fresh helper's start (an interpreter, the driver's declarations,
    cuInit) would be most of it. It ends when the worker does (its input closes)."""

    def __init__(self):
        self.proc: subprocess.Popen | None = None

    @staticmethod
    def _spawn() -> subprocess.Popen:
        # its own errors go to the worker's log (stderr inherited)
        return subprocess.Popen([sys.executable, "-m", __name__, "serve"], stdin=subprocess.PIPE,
                                stdout=subprocess.PIPE, text=True, env=os.environ)

    def _line(self, ask: str, timeout: float) -> str | None:
        """The helper's answer line to `ask`; None when it gave none within `timeout` (it is then
        stopped). Raises CudaError when no helper can start: nothing was asked of the driver."""
        if self.proc is None or self.proc.poll() is not None:
            try:
                self.proc = self._spawn()
            except OSError as e:
                self.proc = None
                raise CudaError("CUDA_ERROR_OPERATING_SYSTEM", f"the checkpoint helper could not start: {e}") from None
        try:
            self.proc.stdin.write(ask + "\n")
            self.proc.stdin.flush()
            ready, _, _ = select.select([self.proc.stdout], [], [], timeout)
            line = self.proc.stdout.readline() if ready else ""
        except OSError:  # it died before reading
            line = ""
        if not line.strip():
            self.stop()
            return None
        return line

    def ask(self, step: str, pid: int) -> dict:
        line = self._line(f"{step} {pid}", HELPER_TIMEOUT_S)
        try:
            return json.loads(line) if line is not None else self._lost(step, pid, "gave no answer")
        except ValueError:
            return self._lost(step, pid, f"answered {line.strip()[:200]!r}")

    def _lost(self, step: str, pid: int, what: str) -> dict:
        """The helper hung or died in the middle of a step: a fresh one asks the driver what state
        the step left the process in ("unknown" if that fails too)."""
        state = "unknown"
        try:
            line = self._line(f"state {pid}", PROBE_TIMEOUT_S)
            state = (json.loads(line)["state"] or state) if line is not None else state
        except (CudaError, ValueError, KeyError, TypeError):
            pass
        return {"error": "CUDA_ERROR_UNKNOWN", "at": f"the {step} helper, which {what}", "state": state}

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()
        self.proc = None


_helper = _Helper()

# What a refusal means, where the driver's code alone does not say: an H100 (driver 580) refused
# the checkpoint of a worker whose session held managed memory, as NVIDIA's cuda-checkpoint
# documents (no UVM or IPC memory), and checkpointed one without it (idle_state.cu) in 0.6 s.
REFUSALS = {("checkpoint", "CUDA_ERROR_NOT_SUPPORTED"):
            " (the driver checkpoints no process that holds managed (UVM) or IPC memory; drivers before r550 none)"}


def _ask(step: str, pid: int) -> None:
    answer = _helper.ask(step, pid)
    if answer["error"] is None:
        return
    name, state, unchanged = answer["error"], answer["state"], "running" if step == "checkpoint" else "checkpointed"
    if state in (unchanged, None):
        why = REFUSALS.get((step, name), "")
        raise CudaError(name, f"the driver's {step} failed at {answer['at']}: {name}{why}")
    if state == "running":  # a restore of a process that was not checkpointed: it runs
        raise CudaError(name, f"the driver's {step} failed at {answer['at']} ({name}) and left the process running")
    # locked, failed or not known: no call of this session may run any more (it could block in
    # the driver for good), so the error is sticky, as a context's fatal error is
    e = CudaError("CUDA_ERROR_ILLEGAL_STATE", f"the driver's {step} failed at {answer['at']} ({name}) and left the "
                  f"process {state}")
    e.sticky = True
    raise e


# -- the helper process --------------------------------------------------------------------------

def _state(lib, ffi, pid: int) -> str | None:
    s = ffi.new("CUprocessState *")
    return STATES.get(s[0], str(s[0])) if lib.cuCheckpointProcessGetState(pid, s) == 0 else None


def _steps(lib, ffi, step: str, pid: int) -> tuple[str, int]:
    """(the call that failed, its result), or ("", 0)."""
    if step == "checkpoint":
        lock = ffi.new("CUcheckpointLockArgs *")
        lock.timeoutMs = LOCK_TIMEOUT_MS
        rc = lib.cuCheckpointProcessLock(pid, lock)
        if rc != 0:
            return "cuCheckpointProcessLock", rc
        rc = lib.cuCheckpointProcessCheckpoint(pid, ffi.NULL)
        if rc != 0:
            lib.cuCheckpointProcessUnlock(pid, ffi.NULL)  # left running, as it was
            return "cuCheckpointProcessCheckpoint", rc
        return "", 0
    rc = lib.cuCheckpointProcessRestore(pid, ffi.NULL)
    if rc != 0:
        return "cuCheckpointProcessRestore", rc
    rc = lib.cuCheckpointProcessUnlock(pid, ffi.NULL)
    return ("cuCheckpointProcessUnlock", rc) if rc != 0 else ("", 0)


def _name(lib, ffi, rc: int) -> str:
    s = ffi.new("const char **")
    return ffi.string(s[0]).decode() if lib.cuGetErrorName(rc, s) == 0 else f"CUresult {rc}"


def _answer(lib, ffi, step: str, pid: int) -> dict:
    try:
        at, rc = _steps(lib, ffi, step, pid)
    except AttributeError:  # a driver before r550 has no checkpoint calls
        return {"error": "CUDA_ERROR_NOT_SUPPORTED", "at": "this driver has no checkpoint calls", "state": None}
    return {"error": _name(lib, ffi, rc) if rc else None, "at": at, "state": _state(lib, ffi, pid)}


def main(argv: list[str]) -> int:
    """``serve``: answer ``checkpoint|restore|state PID`` lines from the input, a JSON line each,
    until it closes; ``checkpoint|restore|state PID``: answer that one (by hand, to look at a
    worker)."""
    from . import device
    try:
        lib, ffi = device.lib(), device.ffi()
        rc = lib.cuInit(0)  # the driver restores only for a caller that initialised it
    except device.CudaUnavailable as e:
        lib, rc, why = None, -1, str(e)
    asks = (line.split() for line in sys.stdin) if argv == ["serve"] else iter([argv])
    for ask in asks:
        if len(ask) != 2 or ask[0] not in ("checkpoint", "restore", "state") or not ask[1].isdigit():
            raise SystemExit(f"usage: {__name__} serve | checkpoint PID | restore PID | state PID")
        if rc != 0:
            answer = {"error": "CUDA_ERROR_NOT_SUPPORTED" if lib is None else _name(lib, ffi, rc),
                      "at": why if lib is None else "cuInit", "state": None}
        elif ask[0] == "state":
            try:
                answer = {"error": None, "at": "", "state": _state(lib, ffi, int(ask[1]))}
            except AttributeError:
                answer = {"error": None, "at": "", "state": None}
        else:
            answer = _answer(lib, ffi, ask[0], int(ask[1]))
        print(json.dumps(answer), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
