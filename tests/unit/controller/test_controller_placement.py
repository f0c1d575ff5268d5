"""Placement: binpack vs spread, slices, counts, same node, model, exclusive, down servers."""
import pytest

from rgpu.controller.placement import PlacementError, Pool
from rgpu.controller.requests import Request

GiB = 1 << 30


def make_pool(nodes=2, gpus=2, memory=16 * GiB, name="SimGPU A100"):
    pool = Pool()
    for n in range(nodes):
        pool.upsert_server(f"tcp://node{n}:7000", [
            {"uuid": f"GPU-{n}-{i}", "index": i, "name": name, "memory_total": memory}
            for i in range(gpus)])
    return pool


def place(pool, **req):
    return pool.place(Request.from_wire(req))


def used(pool):
    return {u: (g.memory_used, g.compute_used) for u, g in pool.gpus.items() if g.allocations}


def test_binpack_fills_fullest_gpu_then_fullest_node():
    pool = make_pool()
    first = place(pool, memory=4 * GiB, compute=25)[0].gpu
    # the next slice goes on the same, now fullest, GPU
    assert place(pool, memory=4 * GiB, compute=25)[0].gpu is first
    # a whole GPU no longer fits there: it goes to the sibling on the fullest node
    whole = place(pool)[0].gpu
    assert whole is not first and whole.server is first.server


def test_spread_picks_emptiest_gpu_and_node():
    pool = make_pool()
    a = place(pool, memory=4 * GiB, compute=25, policy="spread")[0].gpu
    b = place(pool, memory=4 * GiB, compute=25, policy="spread")[0].gpu
    assert a.server is not b.server                    # emptiest node first
    c = place(pool, memory=4 * GiB, compute=25, policy="spread")[0].gpu
    assert c not in (a, b) and c.allocations == 1


def test_spread_uses_different_gpus_for_one_request_binpack_may_share():
    pool = make_pool(nodes=1, gpus=2)
    spread = place(pool, memory=2 * GiB, compute=10, count=2, policy="spread")
    assert len({s.gpu.uuid for s in spread}) == 2
    packed = place(pool, memory=2 * GiB, compute=10, count=2)
    assert packed[0].gpu is packed[1].gpu


def test_guarantees_never_overcommit_compute_or_memory():
    pool = make_pool(nodes=1, gpus=1)
    place(pool, memory=1 * GiB, compute=60)
    with pytest.raises(PlacementError):
        place(pool, memory=1 * GiB, compute=50)
    place(pool, memory=15 * GiB, compute=40)
    with pytest.raises(PlacementError):
        place(pool, memory=16 << 20, compute=0)
    gpu = pool.gpus["GPU-0-0"]
    assert (gpu.memory_used, gpu.compute_used) == (16 * GiB, 100)


def test_fraction_is_of_each_gpus_memory():
    pool = Pool()
    pool.upsert_server("tcp://a:1", [{"uuid": "small", "index": 0, "name": "G", "memory_total": 8 * GiB}])
    pool.upsert_server("tcp://b:1", [{"uuid": "big", "index": 0, "name": "G", "memory_total": 32 * GiB}])
    slots = place(pool, memory_fraction=0.5, compute=10, count=2, policy="spread")
    assert sorted(s.memory for s in slots) == [4 * GiB, 16 * GiB]


def test_count_rolls_back_when_not_all_fit():
    pool = make_pool(nodes=1, gpus=2)
    with pytest.raises(PlacementError):
        place(pool, count=3, policy="spread")
    assert used(pool) == {}


def test_same_node_keeps_request_on_one_server():
    pool = make_pool(nodes=2, gpus=2)
    place(pool, policy="spread")                      # node0 and node1 each lose... one GPU
    place(pool, policy="spread")
    with pytest.raises(PlacementError, match="no single server"):
        place(pool, count=2, same_node=True)
    slots = place(pool, count=2)                         # cross-node is allowed by default
    assert {s.gpu.server.url for s in slots} == {"tcp://node0:7000", "tcp://node1:7000"}


def test_same_node_binpack_prefers_the_fuller_node():
    pool = make_pool(nodes=2, gpus=4)
    first = place(pool, memory=1 * GiB, compute=10)[0].gpu
    slots = place(pool, count=2, same_node=True, policy="binpack", memory=8 * GiB, compute=50)
    assert {s.gpu.server.url for s in slots} == {first.server.url}


def test_model_constraint_and_message_lists_models():
    pool = make_pool(nodes=1, gpus=1, name="SimGPU A100")
    pool.upsert_server("tcp://h100:7000", [{"uuid": "H", "index": 0, "name": "NVIDIA H100", "memory_total": 80 * GiB}])
    assert place(pool, model="h100", memory=GiB)[0].gpu.uuid == "H"
    with pytest.raises(PlacementError, match="no GPU matches model 'V100'.*A100"):
        place(pool, model="V100")


def test_exclusive_takes_empty_gpu_whole_and_blocks_others():
    pool = make_pool(nodes=1, gpus=2)
    place(pool, memory=GiB, compute=0)
    slot = place(pool, exclusive=True, memory=GiB)[0]
    assert slot.gpu.uuid == "GPU-0-1" and (slot.memory, slot.compute) == (16 * GiB, 100)
    with pytest.raises(PlacementError):
        place(pool, exclusive=True)                    # GPU-0-0 has a tenant
    pool.release([slot])
    assert place(pool, memory=GiB, compute=0, policy="spread")[0].gpu.uuid == "GPU-0-1"


def test_down_server_leaves_placement_and_comes_back():
    pool = make_pool(nodes=2, gpus=1)
    pool.set_state(pool.servers["tcp://node0:7000"], "down")
    assert {place(pool, memory=GiB, compute=1)[0].gpu.uuid for _ in range(3)} == {"GPU-1-0"}
    pool.set_state(pool.servers["tcp://node0:7000"], "up")
    assert place(pool, policy="spread", memory=GiB, compute=1)[0].gpu.uuid == "GPU-0-0"


def test_impossible_request_says_what_is_free():
    pool = make_pool(nodes=1, gpus=2)
    place(pool, memory=10 * GiB, compute=30)
    with pytest.raises(PlacementError) as info:
        place(pool, memory=20 * GiB)
    msg = str(info.value)
    assert "0 of 2 GPUs" in msg and "16.0 GiB of 16.0 GiB" in msg and "6.0 GiB of 16.0 GiB" in msg


def test_regression_unregistered_gpu_leaves_index():
    pool = make_pool(nodes=1, gpus=2)
    pool.upsert_server("tcp://node0:7000", [{"uuid": "GPU-0-0", "index": 0, "name": "SimGPU A100",
                                              "memory_total": 16 * GiB}])
    assert not pool.gpus["GPU-0-1"].present
    assert {place(pool, memory=GiB, compute=0, policy="spread")[0].gpu.uuid for _ in range(2)} == {"GPU-0-0"}


def test_index_stays_consistent_after_many_changes():
    pool = make_pool(nodes=3, gpus=3)
    slots = []
    for i in range(40):
        try:
            slots += place(pool, memory=(i % 5 + 1) * GiB, compute=i % 20,
                           policy="spread" if i % 2 else "binpack")
        except PlacementError:
            pool.release(slots[:3])
            del slots[:3]
    keys = sorted(k for lst in pool._index.values() for k in lst)
    assert keys == sorted(g.key for g in pool.gpus.values())
    assert all(k == (pool.gpus[k[3]].memory_free, pool.gpus[k[3]].compute_free,
                     pool.gpus[k[3]].server.memory_free, k[3]) for k in keys)
