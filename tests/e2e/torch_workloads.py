"""PyTorch workloads whose steps are counted: what a program waits for per step (issue 37, "round trips
are counted"). Run through `rgpu run` by tests/e2e/test_round_trips.py, benchmarks/test_round_trips.py,
tests/network/ and benchmarks/network.py (on the null driver: the cuda backend on a driver that runs no kernels), and natively on a GPU host.

    python torch_workloads.py WORKLOAD... [--warmup N] [--steps N]
    python torch_workloads.py WORKLOAD... --serve [--warmup N]    then "WORKLOAD STEPS" lines on stdin

prints one JSON object per workload, one after the other in one process: the workload, its steps, the program's own synchronisations per step, the
seconds per step, the loss (or the tokens) of the last step, and, when the client library is rgpu's,
the blocking round trips per step (total and by call) and the async calls and messages per step,
counted after the warm-up from librgpu's own counters (rgpu_stats_text, libhook/src/transport/stats.c).

Workloads (each step makes one synchronisation of its own, the `.item()` a loop makes to report its loss
or to read the next token; the mixed-precision step one more, GradScaler's):
- cnn: a small CNN (conv, batch norm, relu, pool, linear) training step on 8 images, AdamW; the batch
  copied from pinned memory without blocking each step, as from a DataLoader with pin_memory.
- transformer: a small transformer encoder language model's training step (embedding, 2 layers,
  4 heads, causal mask), AdamW; its batch as the CNN's.
- transformer_amp: the same in mixed precision (autocast to half, GradScaler).
- decode: a small decoder's inference, token by token with a key/value cache of a fixed size.
- decode_graph: the same step captured once in a CUDA graph and replayed for every token."""
from __future__ import annotations

import argparse
import ctypes
import json
import sys
import time
import warnings

warnings.filterwarnings("ignore")

import torch  # noqa: E402
import torch.nn.functional as F  # noqa: E402


def rgpu_stats() -> dict | None:
    """librgpu's counters now ({"round_trips", "async_calls", "async_messages", "async_on_ring", "calls":
    {name: [round trips, async]}}), or None when the CUDA driver in this process is not rgpu's."""
    lib = None
    with open("/proc/self/maps") as maps:
        for line in maps:
            path = line.split()[-1]
            if path.endswith("/librgpu.so"):
                lib = path
                break
    if lib is None:
        return None
    fn = ctypes.CDLL(lib).rgpu_stats_text
    fn.restype, fn.argtypes = ctypes.c_size_t, [ctypes.c_char_p, ctypes.c_size_t]
    need = fn(None, 0) + 1
    buf = ctypes.create_string_buffer(need)
    fn(buf, need)
    out: dict = {"calls": {}}
    for line in buf.value.decode().splitlines():
        words = line.split()
        fields = dict(w.split("=", 1) for w in words[1:] if "=" in w)
        if words[0] == "total":
            out.update({k: int(v) for k, v in fields.items()})
        elif words[0] == "call":
            out["calls"][words[1]] = [int(fields["round_trips"]), int(fields["async"]), fields.get("from", "")]
    return out


def per_step(before: dict, after: dict, steps: int) -> dict:
    """What the steps between two readings cost, per step: totals and round trips by call."""
    out = {k: (after[k] - before[k]) / steps for k in ("round_trips", "async_calls", "async_messages")}
    if "async_on_ring" in after:  # a client library that counts them (not one older)
        out["async_on_ring"] = (after["async_on_ring"] - before["async_on_ring"]) / steps
    calls = {}
    for name, (trips, asyncs, where) in after["calls"].items():
        t0, a0, _ = before["calls"].get(name, [0, 0, ""])
        if trips - t0:
            calls[name] = {"round_trips": (trips - t0) / steps, "from": where}
    out["by_call"] = dict(sorted(calls.items(), key=lambda kv: -kv[1]["round_trips"]))
    return out


class SmallCNN(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.features = torch.nn.Sequential(
            torch.nn.Conv2d(3, 16, 3, padding=1), torch.nn.BatchNorm2d(16), torch.nn.ReLU(), torch.nn.MaxPool2d(2),
            torch.nn.Conv2d(16, 32, 3, padding=1), torch.nn.BatchNorm2d(32), torch.nn.ReLU(), torch.nn.MaxPool2d(2))
        self.head = torch.nn.Linear(32 * 8 * 8, 10)

    def forward(self, x):
        return self.head(self.features(x).flatten(1))


class SmallLM(torch.nn.Module):
    def __init__(self, vocab: int = 128, dim: int = 64, layers: int = 2, heads: int = 4, seq: int = 32):
        super().__init__()
        self.embed = torch.nn.Embedding(vocab, dim)
        self.pos = torch.nn.Parameter(torch.zeros(seq, dim))
        layer = torch.nn.TransformerEncoderLayer(dim, heads, 4 * dim, dropout=0.0, batch_first=True)
        self.encoder = torch.nn.TransformerEncoder(layer, layers, enable_nested_tensor=False)
        self.head = torch.nn.Linear(dim, vocab)
        self.register_buffer("mask", torch.nn.Transformer.generate_square_subsequent_mask(seq))

    def forward(self, tokens):
        x = self.embed(tokens) + self.pos[: tokens.shape[1]]
        return self.head(self.encoder(x, mask=self.mask, is_causal=True))


def training(model: torch.nn.Module, batch, loss_of):
    """A step as a training loop takes it: the batch from pinned host memory (a DataLoader's
    pin_memory=True), copied without blocking, then forward, backward, AdamW, and the loss read."""
    opt = torch.optim.AdamW(model.parameters(), lr=1e-3)
    pinned = [t.pin_memory() for t in batch]

    def step() -> float:
        x, y = (t.to("cuda", non_blocking=True) for t in pinned)
        opt.zero_grad(set_to_none=True)
        loss = loss_of(model(x), y)
        loss.backward()
        opt.step()
        return loss.item()  # the step's one synchronisation
    return step


def transformer_amp():
    """The transformer's step in mixed precision: autocast to half, the loss scaled (GradScaler), whose
    step reads whether the gradients overflowed (an `.item()`: the step's second synchronisation)."""
    gen = torch.Generator().manual_seed(3)
    tokens = torch.randint(0, 128, (4, 33), generator=gen)
    torch.manual_seed(4)
    model = SmallLM().cuda()
    opt = torch.optim.AdamW(model.parameters(), lr=1e-3)
    scaler = torch.amp.GradScaler("cuda")
    pinned = [tokens[:, :-1].contiguous().pin_memory(), tokens[:, 1:].contiguous().pin_memory()]

    def step() -> float:
        x, y = (t.to("cuda", non_blocking=True) for t in pinned)
        opt.zero_grad(set_to_none=True)
        with torch.autocast("cuda", dtype=torch.float16):
            logits = model(x)
            loss = F.cross_entropy(logits.reshape(-1, logits.shape[-1]).float(), y.reshape(-1))
        scaler.scale(loss).backward()
        scaler.step(opt)
        scaler.update()
        return loss.item()
    return step


def cnn():
    gen = torch.Generator().manual_seed(1)
    x, y = torch.randn(8, 3, 32, 32, generator=gen), torch.randint(0, 10, (8,), generator=gen)
    torch.manual_seed(2)
    return training(SmallCNN().cuda(), (x, y), F.cross_entropy)


def transformer():
    gen = torch.Generator().manual_seed(3)
    tokens = torch.randint(0, 128, (4, 33), generator=gen)
    torch.manual_seed(4)
    return training(SmallLM().cuda(), (tokens[:, :-1].contiguous(), tokens[:, 1:].contiguous()),
                    lambda logits, target: F.cross_entropy(logits.reshape(-1, logits.shape[-1]), target.reshape(-1)))


class Decoder(torch.nn.Module):
    """One attention layer and an MLP over a key/value cache of `length` positions: a decode step reads
    the current token and position from device tensors and writes the next token into one, so the
    same step replays in a CUDA graph."""

    def __init__(self, vocab: int = 128, dim: int = 64, length: int = 64):
        super().__init__()
        self.embed = torch.nn.Embedding(vocab, dim)
        self.pos = torch.nn.Embedding(length, dim)
        self.qkv = torch.nn.Linear(dim, 3 * dim)
        self.mlp = torch.nn.Sequential(torch.nn.Linear(dim, 4 * dim), torch.nn.GELU(), torch.nn.Linear(4 * dim, dim))
        self.head = torch.nn.Linear(dim, vocab)
        self.register_buffer("k", torch.zeros(length, dim))
        self.register_buffer("v", torch.zeros(length, dim))
        self.register_buffer("places", torch.arange(length))
        self.length = length

    def forward(self, token, position):
        x = self.embed(token) + self.pos(position)
        q, k, v = self.qkv(x).chunk(3, dim=-1)
        self.k.index_copy_(0, position, k)
        self.v.index_copy_(0, position, v)
        scores = (q @ self.k.T) / self.k.shape[1] ** 0.5
        scores = scores.masked_fill(self.places > position, float("-inf"))
        x = x + torch.softmax(scores, -1) @ self.v
        x = x + self.mlp(x)
        return self.head(x)


def _decoder():
    torch.manual_seed(5)
    model = Decoder().cuda().eval()
    token = torch.zeros(1, dtype=torch.long, device="cuda")
    position = torch.zeros(1, dtype=torch.long, device="cuda")

    def advance():
        with torch.no_grad():
            token.copy_(model(token, position).argmax(-1))
            position.add_(1).remainder_(model.length)
    return advance, token


def decode():
    advance, token = _decoder()

    def step() -> int:
        advance()
        return token.item()  # the step's one synchronisation: the token, to print or to stop at
    return step


def decode_graph():
    advance, token = _decoder()
    side = torch.cuda.Stream()
    side.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(side):  # warm-up outside the capture (cuBLAS's handle and workspace)
        advance()
    torch.cuda.current_stream().wait_stream(side)
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        advance()

    def step() -> int:
        graph.replay()
        return token.item()
    return step


WORKLOADS = {"cnn": cnn, "transformer": transformer, "transformer_amp": transformer_amp, "decode": decode,
             "decode_graph": decode_graph}
# each workload's own synchronisations a step: the loss or the token read; and GradScaler's overflow check
SYNCS_PER_STEP = {"cnn": 1, "transformer": 1, "transformer_amp": 2, "decode": 1, "decode_graph": 1}


def measure(name: str, step, steps: int) -> dict:
    """`steps` steps of a warmed-up workload, timed, with what they waited for when librgpu is the driver."""
    before = rgpu_stats()
    t0 = time.perf_counter()
    for _ in range(steps):
        last = step()
    seconds = (time.perf_counter() - t0) / steps
    after = rgpu_stats()
    out = {"workload": name, "steps": steps, "syncs_per_step": SYNCS_PER_STEP[name], "step_s": seconds,
           "last": last, "device": torch.cuda.get_device_name()}
    if before is not None and after is not None:
        out.update(per_step(before, after, steps))
    return out


def serve(names: list[str], warmup: int) -> None:
    """Every workload built and warmed up once, then one measurement per line of stdin ("WORKLOAD
    STEPS"), each after one untimed step (the first after a change outside, such as the network's
    round trip): benchmarks/network.py measures every round trip with one process, so PyTorch's
    start and the workloads' first steps are paid once."""
    steps = {}
    for name in names:
        steps[name] = WORKLOADS[name]()
        for _ in range(warmup):
            steps[name]()
    print(json.dumps({"ready": names}), flush=True)
    for line in sys.stdin:
        name, n = line.split()
        steps[name]()
        print(json.dumps(measure(name, steps[name], int(n))), flush=True)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("workload", choices=sorted(WORKLOADS), nargs="+")
    ap.add_argument("--warmup", type=int, default=3)
    ap.add_argument("--steps", type=int, default=10)
    ap.add_argument("--serve", action="store_true", help="measure on request, one line of stdin each")
    a = ap.parse_args()
    if a.serve:
        serve(a.workload, a.warmup)
        return
    for name in a.workload:
        step = WORKLOADS[name]()
        for _ in range(a.warmup):
            step()
        print(json.dumps(measure(name, step, a.steps)), flush=True)


if __name__ == "__main__":
    main()
