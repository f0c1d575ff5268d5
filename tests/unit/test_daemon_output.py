"""The suite's reading of a daemon's log (tests/support/daemons.DaemonHandle.output): a line the daemon
is still writing is not output yet. A record is one write(2), but a write that crosses a page reaches
the file a page at a time, so a read beside it can see a record cut short: a CI run read a
session_ended line without its last counts (KeyError: 'pieces_compiled')."""
from __future__ import annotations

import subprocess
import sys

from tests.support.daemons import DaemonHandle


def _handle(tmp_path, text: str) -> DaemonHandle:
    log = tmp_path / "daemon.log"
    log.write_text(text)
    proc = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    return DaemonHandle([sys.executable], proc, log)


def test_a_running_daemons_line_without_its_newline_is_not_output_until_the_daemon_exits(tmp_path):
    h = _handle(tmp_path, "event=listening port=1\nevent=session_ended copies_compiled=3 frame_by")
    try:
        assert h.output(1 << 20) == "event=listening port=1\n"
        assert h.output(5) == "rt=1\n"                       # the tail is of the whole lines
        with open(h.log_path, "a") as f:                     # the rest of the record arrives
            f.write("tes_compiled=4 pieces_compiled=5\n")
        assert h.output(1 << 20).endswith("pieces_compiled=5\n")
    finally:
        h.stop()
    with open(h.log_path, "a") as f:                         # a last line without a newline, daemon gone
        f.write("Traceback, cut")
    assert h.output(1 << 20).endswith("pieces_compiled=5\nTraceback, cut")


def test_a_log_of_no_whole_line_yet_is_empty_output(tmp_path):
    h = _handle(tmp_path, "event=start")
    try:
        assert h.output() == ""
    finally:
        h.stop()
    assert h.output() == "event=start"
