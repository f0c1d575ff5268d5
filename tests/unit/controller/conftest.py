"""The store every controller unit test runs against: SQLite and etcd (one real member, started
once per test process on free ports; each test gets a prefix of its own)."""
import uuid

import pytest

from rgpu.controller.store import Store
from rgpu.controller.store_etcd import EtcdStore
from tests.support.etcd import EtcdCluster


@pytest.fixture(scope="session")
def etcd_member(tmp_path_factory):
    with EtcdCluster(tmp_path_factory.mktemp("etcd"), members=1) as cluster:
        yield cluster


@pytest.fixture(params=["sqlite", "etcd"])
def open_store(request, tmp_path):
    """``open_store()`` opens (again) this test's store; all are closed in teardown."""
    if request.param == "sqlite":
        def make():
            return Store(tmp_path / "c.db")
    else:
        url = request.getfixturevalue("etcd_member").store_url(f"/t-{uuid.uuid4().hex[:12]}")

        def make():
            return EtcdStore(url)
    opened = []

    def open_():
        opened.append(make())
        return opened[-1]
    open_.kind = request.param
    yield open_
    for store in opened:
        store.close()
