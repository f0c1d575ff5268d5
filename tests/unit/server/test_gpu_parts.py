"""`rgpu-server --gpu-part I/N` (server/gpus.py): each GPU served as part I of N of it, with 1/N of its
memory in whole granules and an identity of its own in the pool, while NVML is asked by the GPU's own
uuid; a malformed or impossible part is refused by the command line with what is wrong."""
from __future__ import annotations

import pytest
from click.testing import CliRunner

from rgpu.server.cli import main
from rgpu.server.gpus import GpuSpec, parse_part, partition

H200 = GpuSpec(143771 << 20, "NVIDIA H200", "GPU-4e554c4c-0000-4000-8000-00000000000a", 132, "9.0")


def test_a_part_has_its_share_of_the_memory_in_granules_and_its_own_identity():
    parts = [partition([H200], (i, 3))[0] for i in (1, 2, 3)]
    assert len({p.uuid for p in parts}) == 3
    assert parts[1].uuid == "GPU-4e554c4c-0000-4000-8000-00000000000a/part-2-of-3"
    for p in parts:
        assert p.memory % (2 << 20) == 0 and H200.memory // 3 - (2 << 20) < p.memory <= H200.memory // 3
        assert (p.name, p.sms, p.compute_capability) == (H200.name, H200.sms, H200.compute_capability)
        assert p.device_uuid == H200.uuid == H200.device_uuid
    assert sum(p.memory for p in parts) <= H200.memory


def test_without_a_part_the_gpus_are_served_whole():
    assert partition([H200, H200], None) == [H200, H200]


@pytest.mark.parametrize("text, part", [("1/2", (1, 2)), ("2/2", (2, 2)), ("1/1", (1, 1)), ("64/64", (64, 64))])
def test_parts_read_as_i_of_n(text, part):
    assert parse_part(text) == part


@pytest.mark.parametrize("text", ["0/2", "3/2", "1/65", "1", "a/b", "1/2/3", "-1/2", ""])
def test_an_impossible_part_is_refused_by_the_command_line_with_what_is_wrong(text):
    with pytest.raises(ValueError):
        parse_part(text)
    r = CliRunner().invoke(main, ["--device", "sim", "--gpu-part", text, "--listen", "tcp://127.0.0.1:1"])
    assert r.exit_code == 2 and "--gpu-part" in r.output, r.output
