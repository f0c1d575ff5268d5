"""PyTorch on a CUDA device and the same work on the CPU, in one process; run by tests/e2e/test_pytorch.py
through `rgpu run` (and, on a GPU host, natively). `python torch_steps.py STEP` prints one JSON object:
what the device computed, what the CPU computed, and facts about the device.

Steps (issue 11): device (is_available, name, memory, copies both ways and on the device), matmul
(cuBLAS), conv (cuDNN forward and backward), kernels (PyTorch's own: elementwise, reduction, cumsum),
train (Linear + Conv2d + AdamW, a few steps), ipc (a CUDA tensor sent to another process)."""
from __future__ import annotations

import json
import sys
import time
import warnings

warnings.filterwarnings("ignore")  # torch warns about the sim's sm_130 and a missing numpy

import torch  # noqa: E402
import torch.nn.functional as F  # noqa: E402

torch.backends.cuda.matmul.allow_tf32 = False  # results to compare with the CPU's float32
torch.backends.cudnn.allow_tf32 = False
torch.backends.cudnn.deterministic = True
torch.backends.cudnn.benchmark = False


def flat(t: torch.Tensor) -> list[float]:
    return t.detach().to("cpu", torch.float64).reshape(-1).tolist()


def step_device() -> dict:
    x = torch.arange(4096, dtype=torch.float32) * 0.5 - 7
    g = x.to("cuda")
    d = g.clone()  # a copy on the device
    free, total = torch.cuda.mem_get_info()
    # pinned memory, a side stream, copies that do not block, events between the streams
    pinned = x.pin_memory()
    side = torch.cuda.Stream()
    start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    with torch.cuda.stream(side):
        start.record()
        s = pinned.to("cuda", non_blocking=True)
        end.record()
    torch.cuda.current_stream().wait_stream(side)
    s.record_stream(torch.cuda.current_stream())
    back = torch.empty_like(pinned).pin_memory()
    back.copy_(s, non_blocking=True)
    end.synchronize()
    torch.cuda.synchronize()
    stats = torch.cuda.memory_stats()
    return {"available": torch.cuda.is_available(), "count": torch.cuda.device_count(),
            "name": torch.cuda.get_device_name(), "capability": list(torch.cuda.get_device_capability()),
            "free": free, "total": total, "gpu": flat(d), "cpu": flat(x), "streamed": flat(back),
            "elapsed_ms": start.elapsed_time(end), "side_done": side.query(),
            "allocated": torch.cuda.memory_allocated(), "segments": stats.get("segment.all.current", 0)}


def step_async_allocator() -> dict:
    """Run with PYTORCH_CUDA_ALLOC_CONF=backend:cudaMallocAsync: the allocator asks the device's default
    pool for its counters and settings and allocates stream-ordered."""
    gen = torch.Generator().manual_seed(5)
    a, b = torch.randn(64, 48, generator=gen), torch.randn(48, 40, generator=gen)
    ga, gb = a.cuda(), b.cuda()
    c = ga @ gb
    torch.cuda.synchronize()
    reserved, allocated = torch.cuda.memory_reserved(), torch.cuda.memory_allocated()
    del ga
    torch.cuda.synchronize()
    return {"backend": torch.cuda.get_allocator_backend(), "gpu": [flat(c)], "cpu": [flat(a @ b)],
            "reserved": reserved, "allocated": allocated, "allocated_after_free": torch.cuda.memory_allocated()}


def step_matmul() -> dict:
    """cuBLAS and cuBLASLt as torch calls them: mm, linear with bias (cuBLASLt's bias epilogue), bmm,
    baddbmm, and half, bfloat16 and double GEMMs; each beside the CPU's result and its tolerance
    (half and bfloat16 round their outputs)."""
    gen = torch.Generator().manual_seed(1)
    a, b = torch.randn(96, 40, generator=gen), torch.randn(40, 72, generator=gen)
    w, bias = torch.randn(24, 40, generator=gen), torch.randn(24, generator=gen)
    p, q = torch.randn(3, 16, 12, generator=gen), torch.randn(3, 12, 20, generator=gen)
    c0 = torch.randn(3, 16, 20, generator=gen)
    ga, gb = a.cuda(), b.cuda()
    cases = {
        "mm": (ga @ gb, a @ b, 1e-5),
        "linear_bias": (F.linear(ga, w.cuda(), bias.cuda()), F.linear(a, w, bias), 1e-5),
        "bmm": (torch.bmm(p.cuda(), q.cuda()), torch.bmm(p, q), 1e-5),
        "baddbmm": (torch.baddbmm(c0.cuda(), p.cuda(), q.cuda(), beta=0.5), torch.baddbmm(c0, p, q, beta=0.5), 1e-5),
        "half": (a.half().cuda() @ b.half().cuda(), a.half().float() @ b.half().float(), 1e-2),
        "bfloat16": (a.bfloat16().cuda() @ b.bfloat16().cuda(), a.bfloat16().float() @ b.bfloat16().float(), 2e-2),
        "double": (a.double().cuda() @ b.double().cuda(), a.double() @ b.double(), 1e-12),
    }
    return {name: {"gpu": flat(g), "cpu": flat(c), "rtol": tol} for name, (g, c, tol) in cases.items()}


def step_two_devices() -> dict:
    """Two devices: cuBLAS on cuda:0, then on cuda:1 (the library's kernels must be cuda:1's there),
    a tensor copied from one GPU to the other and back, and a CUDA graph of a matmul replayed on new
    input."""
    gen = torch.Generator().manual_seed(6)
    a, b, a2 = torch.randn(32, 16, generator=gen), torch.randn(16, 8, generator=gen), torch.randn(32, 16, generator=gen)
    on0 = a.to("cuda:0") @ b.to("cuda:0")
    x1 = a.to("cuda:0").to("cuda:1")  # device to device, across GPUs
    on1 = x1 @ b.to("cuda:1")
    back = on1.to("cuda:0")
    ga, gb = a.to("cuda:0"), b.to("cuda:0")
    side = torch.cuda.Stream()
    side.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(side):
        ga @ gb  # warm-up outside the capture (cuBLAS's handle and workspace)
    torch.cuda.current_stream().wait_stream(side)
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        out = ga @ gb
    ga.copy_(a2.to("cuda:0"))
    graph.replay()
    torch.cuda.synchronize()
    return {"count": torch.cuda.device_count(), "devices": [str(on0.device), str(on1.device), str(back.device)],
            "gpu": [flat(on0), flat(x1), flat(on1), flat(back), flat(out)],
            "cpu": [flat(a @ b), flat(a), flat(a @ b), flat(a @ b), flat(a2 @ b)]}


def step_conv() -> dict:
    gen = torch.Generator().manual_seed(2)
    x, w = torch.randn(2, 3, 10, 10, generator=gen), torch.randn(5, 3, 3, 3, generator=gen)
    dy = torch.randn(2, 5, 10, 10, generator=gen)
    out = {}
    for where, dev in (("gpu", "cuda"), ("cpu", "cpu")):
        xi, wi = x.to(dev).requires_grad_(), w.to(dev).requires_grad_()
        y = F.conv2d(xi, wi, padding=1)  # no bias: adding one is PyTorch's own kernel, not cuDNN's
        dx, dw = torch.autograd.grad(y, (xi, wi), dy.to(dev))
        out[where] = [flat(y), flat(dx), flat(dw)]
    return out


def step_kernels() -> dict:
    x = torch.linspace(-3, 3, 1000)
    out = {}
    for where, dev in (("gpu", "cuda"), ("cpu", "cpu")):
        v = x.to(dev)
        out[where] = [flat(torch.relu(v) * 2 + 1), flat(v.sum().reshape(1)), flat(torch.cumsum(v, 0))]
    return out


class Net(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = torch.nn.Conv2d(3, 4, 3, padding=1)
        self.fc = torch.nn.Linear(4 * 8 * 8, 10)

    def forward(self, x):
        return self.fc(torch.relu(self.conv(x)).flatten(1))


def step_train(steps: int = 20) -> dict:
    gen = torch.Generator().manual_seed(3)
    x, target = torch.randn(8, 3, 8, 8, generator=gen), torch.randn(8, 10, generator=gen)
    torch.manual_seed(4)
    init = Net().state_dict()
    out = {}
    for where, dev in (("gpu", "cuda"), ("cpu", "cpu")):
        net = Net().to(dev)
        net.load_state_dict(init)
        opt = torch.optim.AdamW(net.parameters(), lr=1e-2)
        xi, ti = x.to(dev), target.to(dev)
        losses = []
        for _ in range(steps):
            opt.zero_grad()
            loss = F.mse_loss(net(xi), ti)
            loss.backward()
            opt.step()
            losses.append(loss.item())
        out[where] = losses
    return out


def _ipc_child(inbox, outbox) -> None:
    """A torch.multiprocessing child: reads the CUDA tensor it was sent (memory opened by CUDA IPC,
    ordered after the sender's work by its interprocess event) and writes it back doubled, in place."""
    t = inbox.get(timeout=300)
    seen = t.cpu()
    t.copy_(seen * 2)  # host to device, into the sender's memory
    torch.cuda.synchronize()
    outbox.put(flat(seen))
    del t
    inbox.get(timeout=300)  # the sender has read the result: the tensor may go


def step_ipc() -> dict:
    """A CUDA tensor sent to a spawned process through a torch.multiprocessing queue, as DataLoader
    workers and multi-process trainers share them: CUDA IPC of memory and events. Copies only, so the
    software GPU runs it too (PyTorch's own kernels are SASS)."""
    import torch.multiprocessing as mp
    ctx = mp.get_context("spawn")
    src = torch.arange(3000, dtype=torch.float32) * 0.25 - 100
    t = src.to("cuda")[1000:]  # a view into its block: what travels is the block and the offset
    inbox, outbox = ctx.Queue(), ctx.Queue()
    child = ctx.Process(target=_ipc_child, args=(inbox, outbox))
    child.start()
    inbox.put(t)
    seen = outbox.get(timeout=300)
    after = flat(t)
    inbox.put("done")
    child.join(300)
    return {"seen": seen, "after": after, "cpu": flat(src[1000:]), "exitcode": child.exitcode}


if __name__ == "__main__":
    t0 = time.monotonic()
    result = globals()[f"step_{sys.argv[1]}"]()
    result["seconds"] = time.monotonic() - t0
    print(json.dumps(result))
