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
own CUDA calls block until it is unlocked), so the worker runs this module as a helper process:
``python -m rgpu.server.backends.cuda.suspension checkpoint|restore PID``. The worker waits for the
helper outside the driver, at a call boundary with its streams drained. The helper prints one
line of JSON: the driver's answer and the process's state after it."""
from __future__ import annotations

import json
import os
import subprocess
import sys

from ...errors import CudaError

LOCK_TIMEOUT_MS = 10_000  # a lock waits for calls in flight; none should be, at a call boundary
HELPER_TIMEOUT_S = 300.0  # moving a whole GPU's memory to the host and back takes seconds, not minutes
STATES = {0: "running", 1: "locked", 2: "checkpointed", 3: "failed"}  # CUprocessState


def checkpoint(pid: int) -> None:
    """Lock ``pid`` and checkpoint its GPU state; raises CudaError (the process left running) when
    the driver refuses."""
    _ask("checkpoint", pid)


def restore(pid: int) -> None:
    """Restore ``pid`` from its checkpoint and unlock it; raises CudaError when the driver refuses
    (CUDA_ERROR_OUT_OF_MEMORY, the process still checkpointed: the GPU has no room for it yet;
    CUDA_ERROR_ILLEGAL_STATE when the process is left in neither state)."""
    _ask("restore", pid)


def _ask(step: str, pid: int) -> None:
    try:
        p = subprocess.run([sys.executable, "-m", __name__, step, str(pid)], capture_output=True, text=True,
                           timeout=HELPER_TIMEOUT_S, env=os.environ)
    except subprocess.TimeoutExpired:
        raise CudaError("CUDA_ERROR_ILLEGAL_STATE", f"the driver's {step} of the session did not end within "
                        f"{HELPER_TIMEOUT_S:.0f} s") from None
    try:
        answer = json.loads(p.stdout.strip().splitlines()[-1])
    except (IndexError, ValueError):
        raise CudaError("CUDA_ERROR_ILLEGAL_STATE", f"the {step} helper answered nothing (exit {p.returncode}): "
                        f"{p.stderr.strip()[-500:]}") from None
    if answer["error"] is None:
        return
    name, state = answer["error"], answer["state"]
    if state not in ("running" if step == "checkpoint" else "checkpointed", None):
        # neither done nor left as it was: no call of this session can run any more
        raise CudaError("CUDA_ERROR_ILLEGAL_STATE", f"the driver's {step} failed at {answer['at']} ({name}) and "
                        f"left the process {state}")
    raise CudaError(name, f"the driver's {step} failed at {answer['at']}: {name}")


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


def main(argv: list[str]) -> int:
    step, pid = argv[0], int(argv[1])
    if step not in ("checkpoint", "restore"):
        raise SystemExit(f"usage: {__name__} checkpoint|restore PID")
    from . import device
    try:
        lib, ffi = device.lib(), device.ffi()
    except device.CudaUnavailable as e:
        print(json.dumps({"error": "CUDA_ERROR_NOT_SUPPORTED", "at": str(e), "state": None}))
        return 0
    at, rc = "cuInit", lib.cuInit(0)  # the driver restores only for a caller that initialised it
    if rc == 0:
        try:
            at, rc = _steps(lib, ffi, step, pid)
        except AttributeError:  # a driver before r550 has no checkpoint calls
            print(json.dumps({"error": "CUDA_ERROR_NOT_SUPPORTED", "at": "this driver has no checkpoint calls",
                              "state": None}))
            return 0
    print(json.dumps({"error": _name(lib, ffi, rc) if rc else None, "at": at, "state": _state(lib, ffi, pid)}))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
