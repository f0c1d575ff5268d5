"""``/metrics`` of an rgpu-server (rgpu/metrics.py names the families): its physical GPUs under
DCGM's names, its vGPUs (the sessions of each lease's vGPU, summed per GPU) and its sessions, gathered from the
supervisor at each scrape (from the HTTP thread: the supervisor's reports are safe there, as they
are from the registrar's)."""
from __future__ import annotations

from rgpu.metrics import Families, Monotonic, build_info, gpu_samples, vgpu_families


class ServerCollector:
    def __init__(self, sup, host: str | None = None):
        self.sup = sup
        self.host = host or sup.hostname
        self.totals = Monotonic()

    def collect(self):
        fams = Families()
        build_info(fams, "server")
        live = self.sup.snapshot()
        sessions = list(live.values())
        for gpu in self.sup.gpu_usage(sessions):
            gpu_samples(fams, gpu, self.host)
        vgpu_families(fams, [({"gpu": str(v.get("index", "")), "UUID": v.get("gpu", ""), "Hostname": self.host}, v)
                             for v in self.sup.vgpu_usage(live)], self.totals)
        for g in self.sup.gpus:
            fams.gauge("rgpu_server_sessions", "Sessions open on the GPU.", ["gpu", "UUID", "Hostname"],
                       [g.index, g.spec.uuid, self.host], sum(1 for w in sessions if w.gpu == g.index))
        yield from fams
