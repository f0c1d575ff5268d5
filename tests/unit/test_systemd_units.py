"""The systemd units of deploy/systemd/ (docs/cluster.md): `systemd-analyze verify` finds nothing to
say about them, and their command lines are ones the daemons accept."""
from __future__ import annotations

import re
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from rgpu.controller.daemon import main as controller_main
from rgpu.server.cli import main as server_main

ROOT = Path(__file__).resolve().parents[2]
UNITS = ROOT / "deploy" / "systemd"
BIN = Path(sys.executable).parent
COMMANDS = {"rgpu-controller": controller_main, "rgpu-server": server_main}


def exec_start(unit: Path) -> list[str]:
    text = unit.read_text().replace("\\\n", " ")
    [line] = re.findall(r"^ExecStart=(.*)$", text, re.M)
    return shlex.split(line)


@pytest.mark.parametrize("unit", sorted(UNITS.glob("*.service")), ids=lambda p: p.name)
def test_the_units_command_line_parses(unit):
    argv = exec_start(unit)
    assert argv[0].startswith("/opt/rgpu/bin/")
    command = COMMANDS[Path(argv[0]).name]
    args = [a for a in argv[1:] if not a.startswith("$")]     # $RGPU_*_OPTS: the env file's, empty here
    command.make_context(command.name, args)                   # a usage error raises


def test_systemd_analyze_verify_finds_nothing(tmp_path):
    if shutil.which("systemd-analyze") is None:
        pytest.skip("systemd-analyze is not installed here (Debian: apt-get install systemd)")
    units = sorted(UNITS.glob("*.service"))
    assert {u.name for u in units} == {"rgpu-controller.service", "rgpu-server.service"}
    for unit in units:   # verify checks that ExecStart is there: point it at this virtualenv's commands
        (tmp_path / unit.name).write_text(unit.read_text().replace("/opt/rgpu/bin/", f"{BIN}/"))
    p = subprocess.run(["systemd-analyze", "verify", "--man=no", *map(str, sorted(tmp_path.glob("*.service")))],
                       capture_output=True, text=True, timeout=120)
    assert p.returncode == 0 and p.stderr.strip() == "" and p.stdout.strip() == "", p.stdout + p.stderr
