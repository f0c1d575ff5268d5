"""What the daemons' ``/metrics`` say (rgpu/health.py serves it), shared by the controller's and the
servers' collectors: physical GPUs under DCGM's names and units, so dashboards and alerts written
for NVIDIA's dcgm-exporter work unchanged, and rgpu's own gauges for vGPUs and the pool.

Physical GPUs (labels ``gpu`` (index on its host), ``UUID``, ``Hostname``, ``modelName``, like
dcgm-exporter's; the controller adds ``server``):

    DCGM_FI_DEV_GPU_UTIL      utilisation, percent (NVML's on a real GPU; on the software GPU the
                              share of time its sessions kept it busy lately)
    DCGM_FI_DEV_FB_USED       frame buffer in use, MiB      DCGM_FI_DEV_FB_FREE   free, MiB
    DCGM_FI_DEV_FB_TOTAL      frame buffer, MiB             DCGM_FI_DEV_GPU_TEMP  degrees C (real GPUs)

rgpu's own families follow Prometheus' conventions: base units (bytes, seconds), utilisation and
shares as ratios (0 to 1; DCGM_FI_DEV_GPU_UTIL alone stays in percent, as dcgm-exporter serves it),
counters ending in ``_total``, and label sets bounded by the pool's size: no label names a lease,
a session or an owner (those come and go without bound; `rgpu leases`, `rgpu smi` and the
controller's ``leases`` command give each lease's figures).

vGPUs, summed over the vGPUs placed on one GPU (labels ``gpu``, ``UUID``, ``Hostname``, and
``server`` on the controller):

    rgpu_vgpus{share_only}                vGPUs on the GPU
    rgpu_vgpu_memory_quota_bytes          their quotas        rgpu_vgpu_memory_used_bytes   what they hold
    rgpu_vgpu_compute_guarantee_ratio     their guarantees (1: the whole GPU)
    rgpu_vgpu_compute_used_ratio          the share of the GPU's time their kernels used lately
    rgpu_vgpu_sessions                    sessions (processes) open on them
    rgpu_vgpu_device_time_seconds_total, rgpu_vgpu_calls_total, rgpu_vgpu_kernels_total,
    rgpu_vgpu_bytes_total{direction="in"|"out"}   counters, kept monotonic as vGPUs come and go

and ``rgpu_build_info{version, daemon}`` (1) on both daemons.
"""
from __future__ import annotations

from urllib.parse import urlsplit

from prometheus_client.core import CounterMetricFamily, GaugeMetricFamily

MiB = 1 << 20
GPU_LABELS = ["gpu", "UUID", "Hostname", "modelName"]
VGPU_LABELS = ["gpu", "UUID", "Hostname"]


def hostname(url: str) -> str:
    """The host of a server URL (tcp://gpu1:7450 → gpu1), as DCGM's Hostname label names a node."""
    try:
        return urlsplit(url).hostname or url
    except ValueError:
        return url


class Families:
    """Metric families by name, filled sample by sample, yielded in the order they were first made."""

    def __init__(self):
        self._by_name: dict[str, object] = {}

    def gauge(self, name: str, doc: str, labels: list[str], values: list, value: float) -> None:
        fam = self._by_name.get(name)
        if fam is None:
            fam = self._by_name[name] = GaugeMetricFamily(name, doc, labels=labels)
        fam.add_metric([str(v) for v in values], float(value))

    def counter(self, name: str, doc: str, labels: list[str], values: list, value: float) -> None:
        fam = self._by_name.get(name)
        if fam is None:
            fam = self._by_name[name] = CounterMetricFamily(name, doc, labels=labels)
        fam.add_metric([str(v) for v in values], float(value))

    def __iter__(self):
        return iter(self._by_name.values())


def gpu_samples(fams: Families, gpu: dict, host: str, extra_labels: dict | None = None) -> None:
    """DCGM's families for one physical GPU: ``gpu`` as a server's usage reports it (index, uuid,
    name, memory_total, memory_used, utilization_pct, memory_used_device and temperature_c from
    NVML on real GPUs)."""
    extra = extra_labels or {}
    labels = GPU_LABELS + list(extra)
    values = [gpu.get("index", ""), gpu.get("uuid", ""), host, gpu.get("name", ""), *extra.values()]
    total = gpu.get("memory_total") or 0
    used = gpu.get("memory_used_device", gpu.get("memory_used", 0)) or 0
    if gpu.get("utilization_pct") is not None:
        fams.gauge("DCGM_FI_DEV_GPU_UTIL", "GPU utilization (in %).", labels, values, gpu["utilization_pct"])
    fams.gauge("DCGM_FI_DEV_FB_USED", "Framebuffer memory used (in MiB).", labels, values, used / MiB)
    if total:
        fams.gauge("DCGM_FI_DEV_FB_FREE", "Framebuffer memory free (in MiB).", labels, values,
                   max(0, total - used) / MiB)
        fams.gauge("DCGM_FI_DEV_FB_TOTAL", "Total framebuffer memory (in MiB).", labels, values, total / MiB)
    if gpu.get("temperature_c") is not None:  # the software GPU has none (None)
        fams.gauge("DCGM_FI_DEV_GPU_TEMP", "GPU temperature (in C).", labels, values, gpu["temperature_c"])


def build_info(fams: Families, daemon: str) -> None:
    from rgpu import __version__
    fams.gauge("rgpu_build_info", "The rgpu version of this daemon (the value is always 1).", ["version", "daemon"],
               [__version__, daemon], 1)


_COUNTERS = (("rgpu_vgpu_device_time_seconds", "device_time_s", "Device time of the kernels of the GPU's vGPUs."),
             ("rgpu_vgpu_calls", "calls", "CUDA calls the sessions of the GPU's vGPUs made."),
             ("rgpu_vgpu_kernels", "kernels", "Kernels the sessions of the GPU's vGPUs ran."))
_BYTES_DOC = "Bytes the sessions of the GPU's vGPUs moved (in: to the server)."


class Monotonic:
    """Counters summed over members that come and go (the vGPUs of a GPU), kept monotonic: what a
    member had counted when it left (or when its own count went back, a restart) stays in its
    group's total. Memory is bounded by the live members and the groups. Safe across the HTTP
    server's threads."""

    def __init__(self):
        import threading
        self._lock = threading.Lock()
        self._last: dict[tuple, float] = {}     # (group, member, name) -> the member's last count
        self._retired: dict[tuple, float] = {}  # (group, name) -> counts of members that left
        self.labels: dict = {}                  # group -> its labels as last seen (vgpu_families)

    def totals(self, counts: list[tuple[tuple, object, dict]]) -> dict[tuple, dict]:
        """``counts``: (group, member, {name: count}) of the live members; returns {group: {name: total}}."""
        with self._lock:
            seen: dict[tuple, float] = {}
            for group, member, values in counts:
                for name, value in values.items():
                    key = (group, member, name)
                    seen[key] = seen.get(key, 0.0) + float(value)
            for key, last in self._last.items():
                if key not in seen or seen[key] < last:
                    self._retired[(key[0], key[2])] = self._retired.get((key[0], key[2]), 0.0) + last
            self._last = seen
            out: dict[tuple, dict] = {}
            for (group, name), value in self._retired.items():
                out.setdefault(group, {})[name] = value
            for (group, _member, name), value in seen.items():
                g = out.setdefault(group, {})
                g[name] = g.get(name, 0.0) + value
            return out


def vgpu_families(fams: Families, entries: list[tuple[dict, dict]], totals: Monotonic) -> None:
    """rgpu's vGPU families, summed per GPU. ``entries``: (GPU labels, vGPU entry) with the entry as
    a server's usage reports one (supervisor.vgpu_usage: lease, vgpu, memory_quota_bytes, compute,
    share_pct, sessions, share_only, and the counts)."""
    groups: dict[object, dict] = {}
    counts = []
    for labels, v in entries:
        # A GPU's group is its UUID, not its labels: a label may change under it (the controller
        # learns a server's host name at its first heartbeat), and its counts must stay one series.
        group = labels.get("UUID") or tuple(labels.items())
        totals.labels[group] = tuple(labels.items())
        g = groups.setdefault(group, {"vgpus": 0, "shared": 0, "quota": 0, "used": 0, "guarantee": 0.0,
                                      "share": 0.0, "sessions": 0})
        g["shared" if v.get("share_only") else "vgpus"] += 1
        g["quota"] += v.get("memory_quota_bytes", 0) or 0
        g["used"] += v.get("memory_used_bytes", 0) or 0
        g["guarantee"] += (v.get("compute", 0) or 0) / 100
        g["share"] += (v.get("share_pct", 0) or 0) / 100
        g["sessions"] += v.get("sessions", 0) or 0
        counts.append((group, (v.get("lease", ""), v.get("vgpu", 0)),
                       {key: v.get(key, 0) or 0 for _n, key, _d in _COUNTERS} |
                       {"bytes_in": v.get("bytes_in", 0) or 0, "bytes_out": v.get("bytes_out", 0) or 0}))
    summed = totals.totals(counts)
    for group in set(groups) | set(summed):
        shown = totals.labels[group]
        names, values = [k for k, _ in shown], [v for _, v in shown]
        g = groups.get(group)
        if g is not None:
            for share_only, n in (("false", g["vgpus"]), ("true", g["shared"])):
                fams.gauge("rgpu_vgpus", "vGPUs placed on the GPU (share_only: accounted, not enforced).",
                           names + ["share_only"], values + [share_only], n)
            fams.gauge("rgpu_vgpu_memory_quota_bytes", "Memory quotas of the GPU's vGPUs, summed.", names, values,
                       g["quota"])
            fams.gauge("rgpu_vgpu_memory_used_bytes", "Device memory the sessions of the GPU's vGPUs hold.", names,
                       values, g["used"])
            fams.gauge("rgpu_vgpu_compute_guarantee_ratio", "Compute guaranteed to the GPU's vGPUs (1: the whole "
                       "GPU).", names, values, g["guarantee"])
            fams.gauge("rgpu_vgpu_compute_used_ratio", "Share of the GPU's time the kernels of its vGPUs used "
                       "lately (0 to 1).", names, values, g["share"])
            fams.gauge("rgpu_vgpu_sessions", "Sessions (processes) open on the GPU's vGPUs.", names, values,
                       g["sessions"])
        t = summed.get(group, {})
        for name, key, doc in _COUNTERS:
            fams.counter(name, doc, names, values, t.get(key, 0.0))
        for direction in ("in", "out"):
            fams.counter("rgpu_vgpu_bytes", _BYTES_DOC, names + ["direction"], values + [direction],
                         t.get(f"bytes_{direction}", 0.0))
