"""A forked session worker that fails (server/zygote.py `_child`): it ends with exit code 1, which the
supervisor logs at the reap, and its traceback is on the server's stderr in one piece."""
from __future__ import annotations

import multiprocessing as mp
import os
import sys


def test_a_worker_that_raises_exits_1_with_its_traceback_on_stderr(tmp_path, monkeypatch):
    from server import worker, zygote

    def broken(*_args):
        raise RuntimeError("the worker's body failed")

    monkeypatch.setattr(worker, "worker_main", broken)
    control, _other = mp.Pipe()
    r, w = os.pipe()
    log = tmp_path / "stderr"
    pid = os.fork()
    if pid == 0:  # the worker, as the zygote forks it; _child never returns
        fd = os.open(log, os.O_WRONLY | os.O_CREAT | os.O_APPEND)
        os.dup2(fd, 2)
        sys.stderr = open(2, "w", closefd=False)  # pytest's capture stands in for it here
        zygote._child({}, None, 0, r, control)
    _, status = os.waitpid(pid, 0)
    os.close(r)
    os.close(w)
    assert os.waitstatus_to_exitcode(status) == 1
    text = log.read_text()
    assert text.startswith("Traceback (most recent call last):")
    assert text.rstrip().endswith("RuntimeError: the worker's body failed"), text
