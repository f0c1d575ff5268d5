"""Collects the figures of benchmarks/test_transport.py into one table (printed at the end of the run)
and benchmarks/out/summary.json. Run them with scripts/bench.sh."""
from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

FIGURES: dict[str, dict] = {}  # row name -> {"rgpu": value, "raw": value, "unit": ...}


@pytest.fixture(scope="session")
def figures():
    return FIGURES


def _ratio(row):
    if row.get("raw"):
        return row["rgpu"] / row["raw"]
    return None


def summary() -> dict:
    out: dict = {"rows": FIGURES}
    def get(name):
        row = FIGURES.get(name)
        return round(_ratio(row), 3) if row and _ratio(row) is not None else None
    out["sync_rtt_ratio"] = get("sync round trip tcp")
    out["async_rate_ratio"] = get("async memsets tcp")
    out["launch_rate_ratio"] = get("async launches tcp")
    attr = FIGURES.get("attribute query tcp")
    out["attribute_query_vs_rtt"] = round(_ratio(attr), 6) if attr and _ratio(attr) is not None else None
    out["h2d_bw_ratio_64MiB"] = get("h2d 64MiB tcp")
    out["d2h_bw_ratio_64MiB"] = get("d2h 64MiB tcp")
    shm = [FIGURES.get(f"{d} 64MiB shm") for d in ("h2d", "d2h")]
    tcp = [FIGURES.get(f"{d} 64MiB tcp") for d in ("h2d", "d2h")]
    if all(shm) and all(tcp):
        out["shm_vs_tcp_64MiB"] = round(sum(r["rgpu"] for r in shm) / sum(r["rgpu"] for r in tcp), 3)
        out["shm_vs_tcp_h2d_64MiB"] = round(shm[0]["rgpu"] / tcp[0]["rgpu"], 3)
        out["shm_vs_tcp_d2h_64MiB"] = round(shm[1]["rgpu"] / tcp[1]["rgpu"], 3)
    return out


def table() -> str:
    lines = [f"{'figure':<28}{'rgpu':>12}{'raw zmq':>12}{'ratio':>8}  unit"]
    for name, row in FIGURES.items():
        r = _ratio(row)
        raw = f"{row['raw']:>12.2f}" if row.get("raw") else f"{'—':>12}"
        lines.append(f"{name:<28}{row['rgpu']:>12.2f}{raw}{(f'{r:.2f}' if r else '—'):>8}  {row['unit']}")
    return "\n".join(lines)


def pytest_terminal_summary(terminalreporter):
    if not FIGURES:
        return
    s = summary()
    out = ROOT / "benchmarks" / "out"
    out.mkdir(exist_ok=True)
    (out / "summary.json").write_text(json.dumps(s, indent=2) + "\n")
    terminalreporter.write_sep("=", "rgpu vs raw ZeroMQ (best of rounds; ratio = rgpu / raw)")
    terminalreporter.write_line(table())
    terminalreporter.write_line("")
    for k, v in s.items():
        if k != "rows":
            terminalreporter.write_line(f"{k} = {v}")
    terminalreporter.write_line(f"written: {out / 'summary.json'}")
