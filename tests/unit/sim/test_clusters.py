"""Thread-block clusters on the software GPU (sm_90 and later; kernels.py, lanes.py, ptx/ops_mem.py
mapa, ptx/ops_warp.py barrier.cluster): a cluster's blocks run in one batch, cluster by cluster, with
the special registers the PTX ISA defines; a block reaches another's shared memory through the
shared::cluster address mapa gives; the cluster barrier holds every block's threads; dimensions
compiled into a kernel apply when a launch names none; and a device before Hopper refuses clusters.
The kernels are tests/cuda/kernels/clusters.cu."""
from __future__ import annotations

from types import SimpleNamespace

import numpy as np
import pytest

from rgpu.server.backends.sim.errors import SimError
from rgpu.server.backends.sim.kernels import KernelModule, launch
from tests.support.cudabuild import build

from .conftest import KERNELS


@pytest.fixture(scope="module")
def image():
    return build(KERNELS / "clusters.cu", "ptx", arch_flags=["-arch=sm_90"]).read_bytes()


def run(d, name, grid, block, cluster, *args):
    return launch(d.mod, d.mod.functions[name], d.mem, grid, block, 0, d.pack(name, args), d.out, cluster=cluster)


@pytest.mark.parametrize("grid, cluster", [((4, 4, 1), (2, 2, 1)), ((6, 2, 1), (3, 1, 1)), ((2, 4, 1), (1, 4, 1)),
                                           ((3, 3, 1), (1, 1, 1))], ids=["2x2", "3x1", "1x4", "none"])
def test_the_cluster_registers_tile_the_grid(image, make_device, grid, cluster):
    d = make_device(KernelModule.load(image))
    nb = grid[0] * grid[1]
    out = d.zeros(nb * 11, np.uint32)
    run(d, "ids", grid, (32, 1, 1), cluster, out)
    rows = d.get(out, nb * 11, np.uint32).reshape(nb, 11)
    csize = cluster[0] * cluster[1]
    seen = set()
    for x, y, rank, n, clx, cly, cx, cy, nclx, cny, explicit in rows:
        seen.add((x, y))
        assert (clx * cluster[0] + cx, cly * cluster[1] + cy) == (x, y)
        assert rank == cx + cy * cluster[0] and n == csize and nclx == grid[0] // cluster[0] and cny == cluster[1]
        assert explicit == (csize > 1)
    assert seen == {(x, y) for x in range(grid[0]) for y in range(grid[1])}


@pytest.mark.parametrize("cluster", [(2, 1, 1), (4, 1, 1), (2, 2, 1)])
def test_blocks_reach_each_others_shared_memory_between_cluster_barriers(image, make_device, cluster):
    d = make_device(KernelModule.load(image))
    grid = (4, 2, 1)
    out = d.zeros(8, np.uint32)
    run(d, "ring", grid, (64, 1, 1), cluster, out)
    got = d.get(out, 8, np.uint32).reshape(2, 4)
    for y in range(2):
        for x in range(4):
            rank = (x % cluster[0]) + (y % cluster[1]) * cluster[0]
            assert got[y, x] == 100 * rank + 64  # the 64 threads of the previous block of its ring


def test_compiled_in_cluster_dimensions_apply_without_a_launch_attribute(image, make_device):
    mod = KernelModule.load(image)
    assert mod.functions["compiled"].required_cluster == (2, 1, 1)
    d = make_device(mod)
    out = d.zeros(6, np.uint32)
    run(d, "compiled", (6, 1, 1), (32, 1, 1), mod.functions["compiled"].required_cluster, out)
    assert list(d.get(out, 6, np.uint32)) == [20, 21] * 3


def test_a_rank_inside_the_cluster_is_read_and_one_outside_it_faults(image, make_device):
    d = make_device(KernelModule.load(image))
    out = d.zeros(2, np.uint32)
    run(d, "stray", (2, 1, 1), (32, 1, 1), (2, 1, 1), 1, out)
    assert list(d.get(out, 2, np.uint32)) == [7, 7]
    with pytest.raises(SimError) as e:
        run(d, "stray", (2, 1, 1), (32, 1, 1), (2, 1, 1), 2, out)
    assert e.value.code == "CUDA_ERROR_ILLEGAL_ADDRESS" and "cluster of 2" in e.value.message


def test_the_device_checks_clusters_as_the_driver_does():
    from rgpu.server.backends.sim.device import SimDevice
    dev = SimDevice(0, 64 << 20)
    assert dev.attributes()[dev_attr("CLUSTER_LAUNCH")] == 1
    old = SimDevice(0, 64 << 20, arch="sm_80")
    assert old.attributes()[dev_attr("CLUSTER_LAUNCH")] == 0
    fn = SimpleNamespace(kernel=SimpleNamespace(required_cluster=None))
    assert dev.cluster_dims(fn, (8, 2, 1), (4, 2, 0, 0)) == (4, 2, 1)
    assert dev.cluster_dims(fn, (8, 2, 1), None) == (1, 1, 1)
    for grid, cluster, code in [((16, 1, 1), (16, 1, 1, 0), "CUDA_ERROR_INVALID_CLUSTER_SIZE"),  # past 8
                                ((8, 1, 1), (3, 1, 1, 0), "CUDA_ERROR_INVALID_CLUSTER_SIZE")]:  # not dividing
        with pytest.raises(SimError) as e:
            dev.cluster_dims(fn, grid, cluster)
        assert e.value.code == code
    with pytest.raises(SimError) as e:
        old.cluster_dims(fn, (8, 1, 1), (2, 1, 1, 0))
    assert e.value.code == "CUDA_ERROR_NOT_SUPPORTED"
    compiled = SimpleNamespace(kernel=SimpleNamespace(required_cluster=(2, 1, 1)))
    assert dev.cluster_dims(compiled, (8, 1, 1), None) == (2, 1, 1)
    with pytest.raises(SimError):
        dev.cluster_dims(compiled, (8, 1, 1), (4, 1, 1, 0))  # not the compiled dimensions


def dev_attr(name):
    from rgpu.protocol.generated import enums
    return enums.CUdevice_attribute_enum["CU_DEVICE_ATTRIBUTE_" + name]
