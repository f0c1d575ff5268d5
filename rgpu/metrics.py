"""What the daemons' ``/metrics`` say (rgpu/health.py serves it), shared by the controller's and the
servers' collectors: physical GPUs under DCGM's names and units, so dashboards and alerts written
for NVIDIA's dcgm-exporter work unchanged, and rgpu's own gauges for vGPUs and the pool.

Physical GPUs (labels ``gpu`` (index on its host), ``UUID``, ``Hostname``, ``modelName``, like
dcgm-exporter's; the controller adds ``server``):

    DCGM_FI_DEV_GPU_UTIL      utilisation, percent (NVML's on a real GPU; on the software GPU the
                              share of time its sessions kept it busy lately)
    DCGM_FI_DEV_FB_USED       frame buffer in use, MiB      DCGM_FI_DEV_FB_FREE   free, MiB
    DCGM_FI_DEV_FB_TOTAL      frame buffer, MiB             DCGM_FI_DEV_GPU_TEMP  degrees C (real GPUs)

vGPUs — one lease's share of one GPU (labels ``lease``, ``vgpu`` (the program's device index),
``owner`` (controller only), ``gpu``, ``UUID``, ``Hostname``, ``share_only``):

    rgpu_vgpu_memory_quota_bytes, rgpu_vgpu_memory_used_bytes, rgpu_vgpu_compute_guarantee_percent,
    rgpu_vgpu_compute_limit_percent, rgpu_vgpu_compute_share_percent (achieved lately),
    rgpu_vgpu_sessions, and the counters rgpu_vgpu_device_time_seconds_total, rgpu_vgpu_calls_total,
    rgpu_vgpu_kernels_total, rgpu_vgpu_bytes_total{direction="in"|"out"}
"""
from __future__ import annotations

from urllib.parse import urlsplit

from prometheus_client.core import CounterMetricFamily, GaugeMetricFamily

MiB = 1 << 20
GPU_LABELS = ["gpu", "UUID", "Hostname", "modelName"]
VGPU_LABELS = ["lease", "vgpu", "gpu", "UUID", "Hostname", "share_only"]


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


def vgpu_samples(fams: Families, v: dict, host: str, extra_labels: dict | None = None) -> None:
    """rgpu's families for one vGPU, from a server's usage entry (supervisor.vgpu_usage)."""
    extra = extra_labels or {}
    labels = VGPU_LABELS + list(extra)
    values = [v.get("lease", ""), v.get("vgpu", 0), v.get("index", ""), v.get("gpu", ""), host,
              "true" if v.get("share_only") else "false", *extra.values()]
    g = fams.gauge
    g("rgpu_vgpu_memory_quota_bytes", "Memory of the vGPU (its quota; not enforced when share_only).", labels, values,
      v.get("memory_quota_bytes", 0))
    g("rgpu_vgpu_memory_used_bytes", "Device memory the vGPU's sessions hold.", labels, values,
      v.get("memory_used_bytes", 0))
    g("rgpu_vgpu_compute_guarantee_percent", "Compute share guaranteed to the vGPU.", labels, values,
      v.get("compute", 0))
    g("rgpu_vgpu_compute_limit_percent", "Compute ceiling of the vGPU (100 when share_only).", labels, values,
      100 if v.get("share_only") else v.get("limit", 100))
    g("rgpu_vgpu_compute_share_percent", "Share of the GPU's time the vGPU's kernels used lately.", labels,
      values, v.get("share_pct", 0))
    g("rgpu_vgpu_sessions", "Sessions (processes) open on the vGPU.", labels, values, v.get("sessions", 0))
    c = fams.counter
    c("rgpu_vgpu_device_time_seconds", "Device time of the vGPU's kernels.", labels, values,
      v.get("device_time_s", 0))
    c("rgpu_vgpu_calls", "CUDA calls the vGPU's sessions made.", labels, values, v.get("calls", 0))
    c("rgpu_vgpu_kernels", "Kernels the vGPU's sessions ran.", labels, values, v.get("kernels", 0))
    c("rgpu_vgpu_bytes", "Bytes the vGPU's sessions moved (in: to the server).", labels + ["direction"],
      values + ["in"], v.get("bytes_in", 0))
    c("rgpu_vgpu_bytes", "Bytes the vGPU's sessions moved (in: to the server).", labels + ["direction"],
      values + ["out"], v.get("bytes_out", 0))
