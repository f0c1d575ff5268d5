"""The zygote: the one process that starts session workers, by forking itself.

The supervisor spawns it once, clean (no threads, no ZeroMQ context), with the shared arrays of
every GPU. It imports what a worker needs (the dispatcher, the backends, numpy) once, makes the
locks the workers share, and then forks a worker per request: a worker is ready in milliseconds
instead of the second a fresh interpreter takes, and a burst of program starts costs little memory
(pages are shared until written).

Locks made in a process that forks (multiprocessing's fork context) are anonymous: no named
semaphore exists that a SIGKILLed server tree would leave in /dev/shm. The supervisor never takes
them; what must happen under them when a worker dies (its memory returned, the GPU released if it
died holding it) the zygote does, as the workers' parent, when it reaps them.

Control protocol (a multiprocessing Connection; the supervisor's end is ``Zygote``):
    supervisor -> zygote   ("spawn", gpu, slot) followed by the worker's pipe end (SCM_RIGHTS)
                           ("kill", pid)
    zygote -> supervisor   ("spawned", gpu, slot, pid)
                           ("exited", pid, exit code or -signal)
The zygote exits, killing its workers, when the supervisor's end closes."""
from __future__ import annotations

import multiprocessing as mp
import os
import signal
import sys
import time
from multiprocessing import reduction
from multiprocessing.connection import Connection, wait

REAP_S = 0.2


def zygote_main(conf: dict, gpus: list, control: Connection) -> None:
    """The zygote's body (spawned); ``gpus`` are the GPUs' shared memory (workers.GpuShared)."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # a terminal's ^C is for the supervisor to handle
    # and so is a SIGTERM to the whole process group (systemd's stop): the supervisor ends the
    # zygote in its shutdown, which must not find it gone already and call that an error
    signal.signal(signal.SIGTERM, signal.SIG_IGN)
    fork = mp.get_context("fork")
    for g in gpus:
        g.add_locks(fork)
    from .worker import worker_main  # noqa: F401 - imported once here, shared by every fork
    if conf["device"] == "sim":
        from .backends.sim import device  # noqa: F401 - numpy and the interpreter, shared likewise
    # (the cuda backend is not touched here: a driver initialised before a fork is unusable after it)
    children: dict[int, tuple[int, int]] = {}  # pid -> (gpu, slot)

    def reap() -> None:
        while children:
            try:
                pid, status = os.waitpid(-1, os.WNOHANG)
            except ChildProcessError:
                return
            if pid == 0:
                return
            gpu, slot = children.pop(pid, (None, None))
            if gpu is not None:
                gpus[gpu].released(slot)
            code = os.waitstatus_to_exitcode(status)
            try:
                control.send(("exited", pid, code))
            except OSError:
                pass

    try:
        while True:
            if not wait([control], REAP_S):
                reap()
                continue
            try:
                msg = control.recv()
            except (EOFError, OSError):
                break
            if msg[0] == "spawn":
                _, gpu, slot = msg
                fd = reduction.recv_handle(control)
                pid = os.fork()
                if pid == 0:
                    _child(conf, gpus[gpu], slot, fd, control)
                os.close(fd)
                children[pid] = (gpu, slot)
                control.send(("spawned", gpu, slot, pid))
            elif msg[0] == "kill" and msg[1] in children:
                os.kill(msg[1], signal.SIGKILL)
            reap()
    finally:
        for pid in children:
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
        deadline = time.monotonic() + 5
        while children and time.monotonic() < deadline:
            reap()
            time.sleep(0.01)


def _child(conf: dict, gpu, slot: int, fd: int, control: Connection) -> None:
    """A forked worker: it must never return into the zygote's loop."""
    code = 0
    try:
        control.close()
        signal.signal(signal.SIGINT, signal.SIG_IGN)
        signal.signal(signal.SIGTERM, signal.SIG_DFL)
        from .worker import worker_main
        worker_main(conf, Connection(fd), gpu, slot)
    except BaseException:  # noqa: BLE001 - reported, then the process ends
        import traceback
        code = 1
        # in one write: the other workers share this stderr, and their lines must not land inside it
        if sys.stderr is not None:
            sys.stderr.write(traceback.format_exc())
            sys.stderr.flush()
    finally:
        os._exit(code)


class Zygote:
    """The supervisor's end: start the zygote, ask for workers, hear of their exits."""

    def __init__(self, conf: dict, gpus: list):
        ctx = mp.get_context("spawn")
        self.conn, child = ctx.Pipe()
        self.proc = ctx.Process(target=zygote_main, args=(conf, gpus, child), daemon=True, name="rgpu-zygote")
        self.proc.start()
        child.close()

    def spawn(self, gpu: int, slot: int, worker_end: Connection) -> None:
        """Ask for a worker for ``slot`` of ``gpu`` talking over ``worker_end`` (closed here);
        its pid comes back as ("spawned", gpu, slot, pid)."""
        self.conn.send(("spawn", gpu, slot))
        reduction.send_handle(self.conn, worker_end.fileno(), self.proc.pid)
        worker_end.close()

    def kill(self, pid: int) -> None:
        self.conn.send(("kill", pid))

    def events(self) -> list[tuple]:
        """What the zygote said since last asked; raises EOFError if it is gone."""
        out = []
        while self.conn.poll():
            out.append(self.conn.recv())
        return out

    def close(self) -> None:
        self.conn.close()
        self.proc.join(10)
        if self.proc.is_alive():
            self.proc.kill()
            self.proc.join(1)
