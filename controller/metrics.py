"""``/metrics`` of the rgpu-controller (rgpu/metrics.py names the families): the pool (servers,
free memory and compute, the wait queue, leases by state), each GPU's allocations and its DCGM
figures as its server's last heartbeat reported them, and every live lease's vGPUs — quotas from the
lease, use from the heartbeats — summed per GPU (no label names a lease or an owner: the series stay
as many as the pool's GPUs).

Collected at each scrape from the HTTP thread while the daemon's loop changes the state: the
collections are copied first, and a copy that raced with a change is taken again."""
from __future__ import annotations

from rgpu.metrics import Families, Monotonic, build_info, gpu_samples, hostname, vgpu_families


def _copy(items):
    while True:
        try:
            return list(items)
        except RuntimeError:  # changed size during the copy: take it again
            continue


class ControllerCollector:
    def __init__(self, ctl):
        """``ctl``: the Controller, or a callable returning the one that leads now (None on a
        replica that follows: it has no pool to report)."""
        self.ctl = ctl
        self.totals = Monotonic()

    def collect(self):
        ctl, fams = self.ctl() if callable(self.ctl) else self.ctl, Families()
        build_info(fams, "controller")
        if ctl is None:
            yield from fams
            return
        servers = _copy(ctl.pool.servers.values())
        states = {"up": 0, "down": 0}
        for s in servers:
            states[s.state] = states.get(s.state, 0) + 1
        for state, n in states.items():
            fams.gauge("rgpu_pool_servers", "Servers of the pool by state.", ["state"], [state], n)
        up = [g for s in servers if s.state == "up" for g in _copy(s.gpus) if g.present]
        fams.gauge("rgpu_pool_gpus", "GPUs of the servers that are up.", [], [], len(up))
        fams.gauge("rgpu_pool_memory_total_bytes", "Memory of the GPUs that are up.", [], [],
                   sum(g.memory_total for g in up))
        fams.gauge("rgpu_pool_memory_free_bytes", "Memory not placed in any vGPU, on the GPUs that are up.", [], [],
                   sum(g.memory_free for g in up))
        fams.gauge("rgpu_pool_compute_free_ratio", "Compute not guaranteed to any vGPU, as a share of the compute "
                   "of the GPUs that are up (0 to 1; 0 when none is up).", [], [],
                   sum(g.compute_free for g in up) / (100 * len(up)) if up else 0.0)
        fams.gauge("rgpu_pool_queue_length", "Requests waiting for room (reserve --wait).", [], [], len(ctl.queue))
        leases = _copy(ctl.leases)
        by_state = {"active": 0, "degraded": 0}
        for lease in leases:
            by_state[lease.state] = by_state.get(lease.state, 0) + 1
        for state, n in by_state.items():
            fams.gauge("rgpu_pool_leases", "Live leases by state (degraded: one of its servers is down).",
                       ["state"], [state], n)
        for state in ("expired", "released"):
            fams.counter("rgpu_pool_leases_ended", "Leases that ended since the controller started, by how.",
                         ["state"], [state], ctl.ended_counts.get(state, 0))
        usage_of = {}
        for s in servers:
            host = (s.usage or {}).get("hostname") or hostname(s.url)
            reported = {g.get("uuid"): g for g in (s.usage or {}).get("gpus", []) if isinstance(g, dict)}
            for g in _copy(s.gpus):
                if not g.present:
                    continue
                labels = [g.index, g.uuid, host, g.name, s.url]
                names = ["gpu", "UUID", "Hostname", "modelName", "server"]
                fams.gauge("rgpu_gpu_memory_allocated_bytes", "Memory placed in vGPUs on the GPU.", names, labels,
                           g.memory_used)
                fams.gauge("rgpu_gpu_compute_allocated_ratio", "Compute guaranteed to vGPUs on the GPU (0 to 1).",
                           names, labels, g.compute_used / 100)
                fams.gauge("rgpu_gpu_vgpus", "vGPUs placed on the GPU.", names, labels, g.allocations)
                if s.state == "up":
                    gpu_samples(fams, {"index": g.index, "uuid": g.uuid, "name": g.name, "memory_total": g.memory_total,
                                       **reported.get(g.uuid, {"memory_used": 0})}, host, {"server": s.url})
            for v in (s.usage or {}).get("vgpus", []):
                usage_of[(v.get("lease"), v.get("vgpu"))] = v
        entries = []
        for lease in leases:
            for i, slot in enumerate(lease.slots):
                entry = {"lease": lease.id, "vgpu": i, "memory_quota_bytes": slot.memory, "compute": slot.compute,
                         "share_only": lease.share_only}
                used = usage_of.get((lease.id, i), {})
                for key in ("memory_used_bytes", "share_pct", "sessions", "device_time_s", "calls", "kernels",
                            "bytes_in", "bytes_out"):
                    entry[key] = used.get(key, 0)
                server = slot.gpu.server
                gpu = {"gpu": slot.gpu.index, "UUID": slot.gpu.uuid,
                       "Hostname": (server.usage or {}).get("hostname") or hostname(server.url), "server": server.url}
                entries.append(({k: str(v) for k, v in gpu.items()}, entry))
        vgpu_families(fams, entries, self.totals)
        yield from fams
