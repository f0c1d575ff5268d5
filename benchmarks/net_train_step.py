"""A small CNN's training step (forward, backward, AdamW, one `loss.item()` per step), timed after warm-up:
the PyTorch row of benchmarks/network.py, run by PyTorch's interpreter through `rgpu run` on the bed.
One process serves every row, so PyTorch's start (hundreds of calls) is paid once, not at each round trip:

    python benchmarks/net_train_step.py     then one line per measurement on stdin: STEPS
                                            -> one line on stdout: {"us": per step, "steps": STEPS}
Each measurement starts with one untimed step (the first after the bed's round trip changed)."""
import json
import sys
import time
import warnings

warnings.filterwarnings("ignore")

import torch  # noqa: E402
import torch.nn.functional as F  # noqa: E402

WARM_UP = 3


def main() -> None:
    torch.manual_seed(0)
    net = torch.nn.Sequential(
        torch.nn.Conv2d(3, 16, 3, padding=1), torch.nn.ReLU(), torch.nn.Conv2d(16, 16, 3, padding=1), torch.nn.ReLU(),
        torch.nn.AdaptiveAvgPool2d(1), torch.nn.Flatten(), torch.nn.Linear(16, 10)).cuda()
    opt = torch.optim.AdamW(net.parameters(), lr=1e-3)
    x = torch.randn(16, 3, 32, 32, device="cuda")
    y = torch.randint(0, 10, (16,), device="cuda")

    def step() -> float:
        opt.zero_grad(set_to_none=True)
        loss = F.cross_entropy(net(x), y)
        loss.backward()
        opt.step()
        return loss.item()  # the program's one synchronisation per step

    for _ in range(WARM_UP):
        step()
    print(json.dumps({"ready": True}), flush=True)
    for line in sys.stdin:
        steps = int(line)
        step()
        t0 = time.perf_counter()
        for _ in range(steps):
            step()
        print(json.dumps({"us": round((time.perf_counter() - t0) / steps * 1e6, 1), "steps": steps}), flush=True)


if __name__ == "__main__":
    main()
