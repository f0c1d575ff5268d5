"""rgpu on Kubernetes: the kubelet device plugin that lets pods ask for vGPUs as the resource
``rgpu.io/vgpu`` (``rgpu-k8s device-plugin``), and the helper that creates the cluster secret
(``rgpu-k8s ensure-secret``). The gRPC stubs in ``generated/`` come from ``proto/`` through
``codegen``; the manifests live in deploy/kubernetes/."""
