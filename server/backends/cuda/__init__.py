"""The `cuda` backend: a real GPU through NVIDIA's libcuda.so.1 (device.py)."""
