"""rgpu: a remote-GPU pool. Unmodified CUDA programs run on hosts without a GPU."""
__version__ = "0.1.0"
