"""PyTorch steps natively and through rgpu on one GPU host: each workload of tests/e2e/torch_workloads.py
(a small CNN's and a small transformer's training step, the transformer in mixed precision, a decode loop
token by token with and without a CUDA graph) run by the host's own CUDA torch, then the same program
through `rgpu run` against a `--device cuda` rgpu-server on the same GPU, with the same-host paths
(shared segment, call ring) and without them (RGPU_SHM=0: what a client across a network sends), in
turn each round, best step time of the rounds. The workloads are seeded: the last step's loss (or
token) natively and through rgpu is printed beside the times, equal when rgpu computes what the GPU
computes. With --device null the server runs on the null driver (benchmarks/native/nulldriver.c) and
there is no native column: that is the script tried on a host without a GPU.

    python -m benchmarks.native.torch_steps [--device cuda|null] [--steps N] [--rounds N] [--out DIR]

RGPU_TORCH_PYTHON (default: tests/support/torchenv's pinned torch) is the interpreter with CUDA torch.
Writes DIR/torch_steps.json and DIR/torch_steps.md (default benchmarks/out/) after every round, so a
run stopped at a lent machine's time limit keeps the rounds it finished."""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from benchmarks.native import run as native  # noqa: E402
from rgpu.paths import client_env  # noqa: E402
from tests.support import torchenv  # noqa: E402
from tests.support.daemons import DaemonSet  # noqa: E402

WORKLOADS = ROOT / "tests" / "e2e" / "torch_workloads.py"
NAMES = ["cnn", "transformer", "transformer_amp", "decode", "decode_graph"]
# rgpu_held: async calls held until the step's synchronisation (RGPU_BATCH_CALLS=256), as before the
# same-host default became 16 at a time on the call ring: whether starting the GPU on a step's kernels
# sooner pays against native
CONFIGS = {"native": "native", "rgpu": "rgpu, same host", "rgpu_noshm": "rgpu, `RGPU_SHM=0`",
           "rgpu_held": "rgpu, same host, `RGPU_BATCH_CALLS=256`"}


def _steps(argv: list[str], env: dict, timeout: float) -> dict[str, dict]:
    p = subprocess.run(argv, env=env, capture_output=True, text=True, timeout=timeout)
    if p.returncode != 0:
        raise RuntimeError(f"{' '.join(argv[:6])} ... failed ({p.returncode}):\n{p.stderr[-3000:]}")
    return {r["workload"]: r for r in map(json.loads, (x for x in p.stdout.splitlines() if x.startswith("{")))}


def measure(device: str, steps: int, rounds: int, warmup: int, on_round=None) -> dict:
    torch_py = str(torchenv.python())
    program = [torch_py, str(WORKLOADS), *NAMES, "--warmup", str(warmup), "--steps", str(steps)]
    out: dict = {"device": device, "steps": steps, "rounds": rounds, "host": os.uname().nodename,
                 "when": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()), "best": {}, "last": {}}
    with DaemonSet() as daemons:
        env = dict(os.environ)
        if device == "null":
            env["RGPU_LIBCUDA"] = str(native.null_driver())
        url = native._server(daemons, "cuda", env)
        runs = {"rgpu": {**client_env([url]), "RGPU_SHM": "1"}, "rgpu_noshm": {**client_env([url]), "RGPU_SHM": "0"},
                "rgpu_held": {**client_env([url]), "RGPU_SHM": "1", "RGPU_BATCH_CALLS": "256"}}
        if device == "cuda":
            runs = {"native": native.native_env(), **runs}
        for done in range(1, rounds + 1):
            for name, run_env in runs.items():
                argv = program if name == "native" else [sys.executable, "-m", "rgpu.client.cli", "run", "--server",
                                                         url, "--", *program]
                try:
                    got = _steps(argv, run_env, 300)
                except (RuntimeError, subprocess.TimeoutExpired) as e:
                    out.setdefault("errors", {})[name] = str(e)[-3000:]
                    print(f"{name}: {e}", file=sys.stderr, flush=True)
                    continue
                for workload, r in got.items():
                    best = out["best"].setdefault(name, {})
                    if workload not in best or r["step_s"] < best[workload]["step_s"]:
                        best[workload] = r
                    out["last"].setdefault(name, {})[workload] = r["last"]
            out["rounds_done"] = done
            if on_round is not None:
                on_round(out)
    return out


def _us(r: dict | None) -> str:
    return f"{r['step_s'] * 1e6:,.1f} µs" if r else "–"


def table(res: dict) -> str:
    best = res["best"]
    have = [c for c in CONFIGS if c in best]
    head = ["workload", "own syncs a step", *(CONFIGS[c] for c in have)]
    if "native" in have:
        head += [f"{CONFIGS[c]} / native" for c in have if c != "native"]
    head += ["round trips a step (same host / `RGPU_SHM=0`)", "last step's value"]
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for w in NAMES:
        rows = {c: best[c].get(w) for c in have}
        cells = [w, str(next((r["syncs_per_step"] for r in rows.values() if r), "–"))]
        cells += [_us(rows[c]) for c in have]
        if "native" in have:
            nat = rows["native"]
            cells += [f"{rows[c]['step_s'] / nat['step_s']:.2f}×" if rows[c] and nat else "–"
                      for c in have if c != "native"]
        trips = [f"{rows[c]['round_trips']:g}" if rows.get(c) and "round_trips" in rows[c] else "–"
                 for c in ("rgpu", "rgpu_noshm")]
        cells.append(" / ".join(trips))
        lasts = {c: res["last"].get(c, {}).get(w) for c in have}
        values = {json.dumps(v) for v in lasts.values() if v is not None}
        cells.append(("equal: " if len(values) == 1 else "differ: ") +
                     ", ".join(f"{c} {lasts[c]!r}" for c in have if lasts[c] is not None))
        lines.append("| " + " | ".join(cells) + " |")
    note = (f"\n{res['steps']} timed steps after warm-up, best of {res.get('rounds_done', 0)} round(s); device "
            f"{res['device']} on {res['host']}, {res['when']}.")
    if res.get("errors"):
        note += "\n\nFailed: " + "; ".join(f"{k}: {v.splitlines()[-1] if v else ''}" for k, v in res["errors"].items())
    return "\n".join(lines) + note + "\n"


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--device", choices=["cuda", "null"], default="cuda")
    ap.add_argument("--steps", type=int, default=50)
    ap.add_argument("--warmup", type=int, default=5)
    ap.add_argument("--rounds", type=int, default=2)
    ap.add_argument("--out", type=Path, default=ROOT / "benchmarks" / "out")
    a = ap.parse_args(argv)
    a.out.mkdir(parents=True, exist_ok=True)

    def write(res: dict) -> None:
        (a.out / "torch_steps.json").write_text(json.dumps(res, indent=1))
        (a.out / "torch_steps.md").write_text(table(res))
        print(table(res), flush=True)
    res = measure(a.device, a.steps, a.rounds, a.warmup, on_round=write)
    return 1 if res.get("errors") else 0


if __name__ == "__main__":
    sys.exit(main())
