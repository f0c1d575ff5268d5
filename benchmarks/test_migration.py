"""Live migration benchmark: the pause a program sees when its 64 MiB session (incompressible
bytes) moves between two software-GPU servers, and the bytes moved per GiB of its device memory —
against a plain device-to-host copy of the same bytes over the same wire, in the same run. The
figures of benchmarks/migration.py (64 and 256 MiB, idle and busy) come from the same functions."""
from __future__ import annotations

import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from benchmarks.migration import MiB, fill, migrate, plain_copy, start  # noqa: E402
from tests.support.daemons import DaemonSet  # noqa: E402
from tests.support.session import Session  # noqa: E402

SIZE = 64 * MiB


@pytest.fixture(scope="module")
def session_on_two():
    with DaemonSet() as d:
        a, b = start(d, "256MiB"), start(d, "256MiB")
        s = Session(a)
        p = fill(s, SIZE)
        yield s, p, [a, b]
        s.close()


def test_migration_pause_64MiB(benchmark, session_on_two, figures):
    s, p, where = session_on_two
    pauses, moved = [], []

    def move():
        fig = migrate(where[0], where[1], s, p, SIZE, busy=False)
        where.reverse()
        pauses.append(fig["pause_ms"] / 1000)
        moved.append(fig["precopy_MiB"] + fig["final_MiB"])

    benchmark.pedantic(move, rounds=4, iterations=1)
    copies = [plain_copy(s, p, SIZE) for _ in range(3)]
    benchmark.extra_info.update(pause_ms_best=round(min(pauses) * 1000, 1), plain_copy_ms=round(min(copies) * 1000, 1),
                                moved_GiB_per_GiB=round(max(moved) / (SIZE / MiB), 3))
    figures["migration pause 64MiB"] = {"rgpu": min(pauses), "raw": min(copies), "unit": "s"}
    assert max(moved) <= SIZE / MiB * 1.01, "an idle session's memory goes once"
