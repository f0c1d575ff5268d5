"""A small client of the Kubernetes API server: the few calls rgpu makes (list the pods of a node,
annotate a pod, record an event, read or create a Secret), over HTTPS with the pod's service account.

In a pod, ``KubeApi.in_cluster()`` reads the API address from ``KUBERNETES_SERVICE_HOST``/``_PORT``
and the credentials from the service-account volume; the token is read again for every request,
since the kubelet rotates bound tokens. ``KubeApi(url)`` talks to any address (tests run a fake
API server on plain HTTP). Every call has a timeout; an error answer raises ``KubeApiError`` with
the server's status and message."""
from __future__ import annotations

import json
import os
import ssl
import urllib.error
import urllib.parse
import urllib.request
from pathlib import Path

SERVICE_ACCOUNT = Path("/var/run/secrets/kubernetes.io/serviceaccount")
DEFAULT_TIMEOUT = 5.0


class KubeApiError(Exception):
    """An error answer (``status`` is the HTTP status; 0 when the server was not reached)."""

    def __init__(self, status: int, message: str):
        super().__init__(message)
        self.status, self.message = status, message


class KubeApi:
    def __init__(self, url: str, token_file: str | os.PathLike | None = None,
                 ca_file: str | os.PathLike | None = None, timeout: float = DEFAULT_TIMEOUT):
        self.url = url.rstrip("/")
        self.token_file = Path(token_file) if token_file else None
        self.timeout = timeout
        self._ssl = ssl.create_default_context(cafile=str(ca_file)) if ca_file else None

    @classmethod
    def in_cluster(cls, timeout: float = DEFAULT_TIMEOUT) -> "KubeApi":
        host, port = os.environ.get("KUBERNETES_SERVICE_HOST"), os.environ.get("KUBERNETES_SERVICE_PORT")
        if not host or not port:
            raise KubeApiError(0, "not in a Kubernetes pod (KUBERNETES_SERVICE_HOST is not set): "
                                  "give the API server's address with --kube-api")
        host = f"[{host}]" if ":" in host else host
        return cls(f"https://{host}:{port}", SERVICE_ACCOUNT / "token", SERVICE_ACCOUNT / "ca.crt", timeout)

    @staticmethod
    def own_namespace(default: str = "default") -> str:
        try:
            return (SERVICE_ACCOUNT / "namespace").read_text().strip() or default
        except OSError:
            return default

    def request(self, method: str, path: str, body: dict | None = None, *,
                query: dict | None = None, content_type: str = "application/json") -> dict:
        url = self.url + path + ("?" + urllib.parse.urlencode(query) if query else "")
        headers = {"Accept": "application/json"}
        data = None
        if body is not None:
            data = json.dumps(body).encode()
            headers["Content-Type"] = content_type
        if self.token_file is not None:
            try:
                headers["Authorization"] = "Bearer " + self.token_file.read_text().strip()
            except OSError as exc:
                raise KubeApiError(0, f"cannot read the service-account token {self.token_file}: {exc.strerror}")
        req = urllib.request.Request(url, data=data, method=method, headers=headers)
        try:
            with urllib.request.urlopen(req, timeout=self.timeout, context=self._ssl) as resp:
                payload = resp.read()
        except urllib.error.HTTPError as exc:
            raise KubeApiError(exc.code, _status_message(exc)) from None
        except (urllib.error.URLError, OSError) as exc:
            reason = getattr(exc, "reason", exc)
            raise KubeApiError(0, f"Kubernetes API at {self.url} not reached: {reason}") from None
        try:
            return json.loads(payload) if payload else {}
        except ValueError:
            raise KubeApiError(0, f"Kubernetes API at {self.url} answered {method} {path} with non-JSON") from None

    # ---- the calls rgpu makes ---------------------------------------------------------------------
    def node_pods(self, node: str, phase: str | None = "Pending") -> list[dict]:
        """The pods bound to ``node`` (in ``phase``, if given)."""
        selector = f"spec.nodeName={node}" + (f",status.phase={phase}" if phase else "")
        return self.request("GET", "/api/v1/pods", query={"fieldSelector": selector}).get("items") or []

    def annotate_pod(self, namespace: str, name: str, annotations: dict[str, str]) -> dict:
        return self.request("PATCH", f"/api/v1/namespaces/{namespace}/pods/{name}",
                            {"metadata": {"annotations": annotations}},
                            content_type="application/merge-patch+json")

    def pod_event(self, pod: dict, reason: str, message: str, component: str, type_: str = "Normal") -> dict:
        """A core/v1 Event on ``pod`` (what `kubectl describe pod` lists under Events)."""
        meta = pod["metadata"]
        now = _now()
        return self.request("POST", f"/api/v1/namespaces/{meta['namespace']}/events", {
            "apiVersion": "v1", "kind": "Event",
            "metadata": {"generateName": f"{meta['name']}.", "namespace": meta["namespace"]},
            "involvedObject": {"apiVersion": "v1", "kind": "Pod", "name": meta["name"],
                               "namespace": meta["namespace"], "uid": meta.get("uid", "")},
            "reason": reason, "message": message[:1024], "type": type_,
            "source": {"component": component}, "firstTimestamp": now, "lastTimestamp": now, "count": 1})

    def get_secret(self, namespace: str, name: str) -> dict | None:
        try:
            return self.request("GET", f"/api/v1/namespaces/{namespace}/secrets/{name}")
        except KubeApiError as exc:
            if exc.status == 404:
                return None
            raise

    def create_secret(self, namespace: str, name: str, string_data: dict[str, str], labels: dict | None = None) -> dict:
        return self.request("POST", f"/api/v1/namespaces/{namespace}/secrets", {
            "apiVersion": "v1", "kind": "Secret", "type": "Opaque",
            "metadata": {"name": name, "namespace": namespace, "labels": labels or {}},
            "stringData": string_data})


def _status_message(exc: urllib.error.HTTPError) -> str:
    """The message of a Kubernetes Status answer, else the HTTP reason."""
    try:
        body = json.loads(exc.read() or b"{}")
        if isinstance(body, dict) and body.get("message"):
            return f"{body['message']} (HTTP {exc.code})"
    except (ValueError, OSError):
        pass
    return f"HTTP {exc.code} {exc.reason}"


def _now() -> str:
    import datetime
    return datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")
