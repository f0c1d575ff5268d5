"""The test bed for the cross-host tests: one bed of network namespaces per module (made and always
removed here, swept by the next run if this one is killed), and rgpu's pool on it."""
from __future__ import annotations

import pytest

from tests.support import testbed
from tests.support.bedpool import BedPool
from tests.support.daemons import DaemonSet, wait_until


@pytest.fixture(scope="module")
def bed():
    with testbed.for_test(record=True) as b:
        yield b


@pytest.fixture(scope="module")
def bed_pool(bed, tmp_path_factory):
    """A controller on head and a pool server on each GPU host, both up in `rgpu ls`."""
    with DaemonSet() as daemons:
        pool = BedPool(bed, daemons, tmp_path_factory.mktemp("bed"))
        a, b = pool.add_server("gpu1", 7401), pool.add_server("gpu2", 7401)
        wait_until(lambda: pool.states() == {a: "up", b: "up"}, 30, "both servers up in `rgpu ls`")
        yield pool
        for handle in pool.servers.values():
            handle.stop()
