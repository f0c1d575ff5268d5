"""Which pod an Allocate is for, and what its annotations ask for.

The kubelet's Allocate names device ids only, never the pod. The kubelet admits one pod at a time
and calls Allocate for each of its containers while the pod is still Pending, so the pod is found
as HAMi and Aliyun's gpushare find it: among the Pending pods bound to this node, the oldest one
with a container that asks for exactly this many devices of our resource and that has not been
given a lease yet (``taken``: the (pod uid, container) pairs already allocated). Init containers
come before app containers, as the kubelet allocates them.

A pod says what each vGPU should be with annotations, for all its containers
(``rgpu.io/memory: 8GiB``) or for one container (``rgpu.io/memory.trainer: 8GiB``, which wins):

    rgpu.io/memory     bytes (8GiB, 512MiB; a bare number is MiB) or a share of the GPU (50%)  (--mem of rgpu run)
    rgpu.io/compute    guaranteed compute share, percent
    rgpu.io/limit      compute ceiling, percent
    rgpu.io/policy     binpack | spread
    rgpu.io/model      only GPUs whose name contains this
    rgpu.io/exclusive  "true": whole GPUs, shared with nobody
    rgpu.io/same-node  "true": all vGPUs of the container on one server

The number of vGPUs is the container's ``rgpu.io/vgpu`` limit. Nothing else is read; a value that
does not parse fails the Allocate with a message naming the annotation."""
from __future__ import annotations

from dataclasses import dataclass

from rgpu.controller.requests import POLICIES, RequestError, parse_memory

PREFIX = "rgpu.io/"
KEYS = ("memory", "compute", "limit", "policy", "model", "exclusive", "same-node")
LEASE_ANNOTATION = PREFIX + "lease"       # + "." + container: the lease id, written back on the pod


class PodRequestError(ValueError):
    """A pod annotation that does not parse; the message names it."""


@dataclass(frozen=True)
class PodRef:
    """The container an allocation is for (empty when no pod could be matched)."""
    namespace: str = ""
    name: str = ""
    uid: str = ""
    container: str = ""
    annotations: tuple = ()
    pod: dict | None = None

    def __bool__(self) -> bool:
        return bool(self.uid)

    @property
    def owner(self) -> str:
        """The lease owner the controller records (and `rgpu leases` shows)."""
        return f"k8s:{self.namespace}/{self.name}/{self.container}" if self else "k8s:unmatched"


def _requested(container: dict, resource: str) -> int:
    res = container.get("resources") or {}
    for key in ("limits", "requests"):
        value = (res.get(key) or {}).get(resource)
        if value is not None:
            try:
                return int(str(value))
            except ValueError:
                return 0
    return 0


def match(pods: list[dict], resource: str, count: int, taken: set[tuple[str, str]]) -> PodRef:
    """The (pod, container) an Allocate of ``count`` devices is for; PodRef() when none fits."""
    def created(pod):
        return (pod.get("metadata") or {}).get("creationTimestamp") or ""

    for pod in sorted(pods, key=created):
        meta, spec = pod.get("metadata") or {}, pod.get("spec") or {}
        if meta.get("deletionTimestamp") or (pod.get("status") or {}).get("phase", "Pending") != "Pending":
            continue
        uid = meta.get("uid", "")
        for container in list(spec.get("initContainers") or []) + list(spec.get("containers") or []):
            n = _requested(container, resource)
            if n and (uid, container.get("name", "")) not in taken:
                if n == count:
                    return PodRef(meta.get("namespace", ""), meta.get("name", ""), uid, container.get("name", ""),
                                  tuple(sorted((meta.get("annotations") or {}).items())), pod)
                break   # the kubelet allocates a pod's containers in order: this one comes first
    return PodRef()


def _annotation(annotations: dict, key: str, container: str) -> str | None:
    value = annotations.get(f"{PREFIX}{key}.{container}") if container else None
    return annotations.get(PREFIX + key) if value is None else value


def _bool(key: str, value: str) -> bool:
    v = value.strip().lower()
    if v in ("true", "yes", "1"):
        return True
    if v in ("false", "no", "0", ""):
        return False
    raise PodRequestError(f"annotation {PREFIX}{key}={value!r}: use true or false")


def _percent(key: str, value: str, low: int) -> int:
    try:
        n = int(value.strip().rstrip("%"))
    except ValueError:
        raise PodRequestError(f"annotation {PREFIX}{key}={value!r}: a whole percent from {low} to 100") from None
    if not low <= n <= 100:
        raise PodRequestError(f"annotation {PREFIX}{key}={value!r}: a whole percent from {low} to 100")
    return n


def reserve_request(ref: PodRef, count: int) -> dict:
    """The reserve fields (as ``ControllerClient.reserve`` takes them) for ``count`` vGPUs of the
    container ``ref``; an unmatched ref asks for whole GPUs, as ``rgpu run`` without options."""
    annotations = dict(ref.annotations)
    req: dict = {"count": count}
    value = _annotation(annotations, "memory", ref.container)
    if value is not None:
        try:
            nbytes, fraction = parse_memory(value)
        except RequestError as exc:
            raise PodRequestError(f"annotation {PREFIX}memory: {exc}") from None
        req.update({k: v for k, v in (("memory", nbytes), ("memory_fraction", fraction)) if v is not None})
    for key, low in (("compute", 0), ("limit", 1)):
        value = _annotation(annotations, key, ref.container)
        if value is not None:
            req[key] = _percent(key, value, low)
    value = _annotation(annotations, "policy", ref.container)
    if value is not None:
        if value.strip() not in POLICIES:
            raise PodRequestError(f"annotation {PREFIX}policy={value!r}: one of {', '.join(POLICIES)}")
        req["policy"] = value.strip()
    value = _annotation(annotations, "model", ref.container)
    if value:
        req["model"] = value.strip()
    for key, field in (("exclusive", "exclusive"), ("same-node", "same_node")):
        value = _annotation(annotations, key, ref.container)
        if value is not None and _bool(key, value):
            req[field] = True
    return req
