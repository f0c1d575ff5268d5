"""Fixtures: a real rgpu-controller subprocess on a free port, stopped in teardown."""
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[3]
if str(ROOT) not in sys.path:             # plain `pytest` as well as `python3 -m pytest`
    sys.path.insert(0, str(ROOT))

from tests.component.controller.controller_fixtures import ControllerProc  # noqa: E402
from tests.support.daemons import DaemonSet  # noqa: E402


@pytest.fixture
def daemons():
    with DaemonSet() as ds:
        yield ds


@pytest.fixture
def controller(daemons, tmp_path):
    return ControllerProc(daemons, tmp_path, ["--heartbeat-timeout", "1.5"]).start()


@pytest.fixture
def client(controller):
    with controller.client() as c:
        yield c


@pytest.fixture
def fleet(controller):
    """A client as the pool's servers (register, heartbeat)."""
    with controller.fleet() as c:
        yield c
