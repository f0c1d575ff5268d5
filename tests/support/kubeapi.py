"""A fake Kubernetes API server on 127.0.0.1 (plain HTTP) holding the objects rgpu touches: pods
(listed with a fieldSelector on spec.nodeName and status.phase, annotated with a merge patch),
events and secrets. It checks the bearer token when given one, and records every request.

    with FakeKubeApi(token="t") as kube:
        kube.add_pod(pod("train", node="node-1", vgpus=1, annotations={"rgpu.io/memory": "256MiB"}))
        ... --kube-api kube.url --kube-token-file FILE ...
        kube.events    # the events posted
"""
from __future__ import annotations

import json
import threading
import uuid
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs, urlsplit


def pod(name: str, *, node: str, vgpus: int = 1, namespace: str = "default", annotations: dict | None = None,
        created: str = "2026-01-01T00:00:00Z", phase: str = "Pending", containers: list[dict] | None = None,
        resource: str = "rgpu.io/vgpu") -> dict:
    """A Pod as the API server returns it; one container `main` asking for ``vgpus`` unless
    ``containers`` is given."""
    if containers is None:
        containers = [{"name": "main", "image": "app",
                       "resources": {"limits": {resource: str(vgpus)}} if vgpus else {}}]
    return {"apiVersion": "v1", "kind": "Pod",
            "metadata": {"name": name, "namespace": namespace, "uid": str(uuid.uuid4()),
                         "creationTimestamp": created, "annotations": dict(annotations or {})},
            "spec": {"nodeName": node, "containers": containers},
            "status": {"phase": phase}}


class FakeKubeApi:
    def __init__(self, token: str | None = None):
        self.token = token
        self.pods: list[dict] = []
        self.events: list[dict] = []
        self.secrets: dict[tuple[str, str], dict] = {}
        self.requests: list[tuple[str, str]] = []
        self.lock = threading.Lock()
        self.server = ThreadingHTTPServer(("127.0.0.1", 0), self._handler())
        self.server.daemon_threads = True
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def add_pod(self, p: dict) -> dict:
        with self.lock:
            self.pods.append(p)
        return p

    def find_pod(self, name: str) -> dict:
        return next(p for p in self.pods if p["metadata"]["name"] == name)

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def _handler(self):
        api = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args):
                pass

            def _send(self, status: int, body: dict) -> None:
                data = json.dumps(body).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def _status(self, code: int, message: str) -> None:
                self._send(code, {"kind": "Status", "apiVersion": "v1", "status": "Failure",
                                  "message": message, "code": code})

            def _body(self) -> dict:
                return json.loads(self.rfile.read(int(self.headers.get("Content-Length") or 0)) or b"{}")

            def _route(self, method: str) -> None:
                url = urlsplit(self.path)
                with api.lock:
                    api.requests.append((method, self.path))
                if api.token is not None and self.headers.get("Authorization") != f"Bearer {api.token}":
                    self._status(401, "Unauthorized")
                    return
                parts = url.path.strip("/").split("/")
                with api.lock:
                    if method == "GET" and url.path == "/api/v1/pods":
                        self._send(200, {"kind": "PodList", "items": api._select(parse_qs(url.query))})
                    elif method == "PATCH" and len(parts) == 6 and parts[4] == "pods":
                        self._patch_pod(parts[3], parts[5])
                    elif method == "POST" and len(parts) == 5 and parts[4] == "events":
                        event = self._body()
                        api.events.append(event)
                        self._send(201, event)
                    elif len(parts) >= 5 and parts[4] == "secrets":
                        self._secret(method, parts[3], parts[5] if len(parts) == 6 else None)
                    else:
                        self._status(404, f"fake API server: no route for {method} {url.path}")

            def _patch_pod(self, namespace: str, name: str) -> None:
                if self.headers.get("Content-Type") != "application/merge-patch+json":
                    self._status(415, "unsupported patch type")
                    return
                body = self._body()
                for p in api.pods:
                    if p["metadata"]["namespace"] == namespace and p["metadata"]["name"] == name:
                        p["metadata"].setdefault("annotations", {}).update(body["metadata"]["annotations"])
                        self._send(200, p)
                        return
                self._status(404, f'pods "{name}" not found')

            def _secret(self, method: str, namespace: str, name: str | None) -> None:
                if method == "GET" and name:
                    secret = api.secrets.get((namespace, name))
                    self._send(200, secret) if secret else self._status(404, f'secrets "{name}" not found')
                elif method == "POST" and not name:
                    body = self._body()
                    key = (namespace, body["metadata"]["name"])
                    if key in api.secrets:
                        self._status(409, f'secrets "{key[1]}" already exists')
                        return
                    import base64
                    body["data"] = {k: base64.b64encode(v.encode()).decode()
                                    for k, v in body.pop("stringData", {}).items()}
                    api.secrets[key] = body
                    self._send(201, body)
                else:
                    self._status(405, "method not allowed")

            def do_GET(self):
                self._route("GET")

            def do_POST(self):
                self._route("POST")

            def do_PATCH(self):
                self._route("PATCH")

        return Handler

    def _select(self, query: dict) -> list[dict]:
        selectors = dict(s.split("=", 1) for s in (query.get("fieldSelector") or [""])[0].split(",") if s)
        out = []
        for p in self.pods:
            if "spec.nodeName" in selectors and p["spec"].get("nodeName") != selectors["spec.nodeName"]:
                continue
            if "status.phase" in selectors and p["status"].get("phase") != selectors["status.phase"]:
                continue
            out.append(json.loads(json.dumps(p)))
        return out
