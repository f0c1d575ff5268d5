# Adding rgpu's client layer to your own CUDA image (outside Kubernetes; there the device plugin
# mounts the library into pods and sets the environment itself). Build the layer first:
#   docker build -f docker/Dockerfile --target client -t rgpu-client .
#   docker build -f docker/examples/cuda-app.Dockerfile -t my-cuda-app .
#   docker run --rm -e RGPU_CONTROLLER=tcp://head:7440 my-cuda-app rgpu run --mem 4GiB -- ./app
# The library needs glibc 2.34 or newer (Debian 12, Ubuntu 22.04 and later) and the image's own
# libstdc++; libzmq comes bundled in /opt/rgpu/lib.
ARG RGPU_CLIENT=rgpu-client
FROM ${RGPU_CLIENT} AS rgpu

FROM nvidia/cuda:13.0.0-runtime-ubuntu24.04
COPY --from=rgpu /opt/rgpu /opt/rgpu
# The rgpu CLI (rgpu run, ls, reserve, leases) in a virtualenv of the image's Python.
RUN apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends \
        python3 python3-venv >/dev/null \
 && rm -rf /var/lib/apt/lists/* \
 && python3 -m venv /opt/rgpu/venv && /opt/rgpu/venv/bin/pip install --no-cache-dir -q /opt/rgpu/wheels/rgpu-*.whl
# rgpu run finds the library here and sets LD_LIBRARY_PATH/LD_PRELOAD for the program it starts;
# for programs started otherwise, use `eval "$(rgpu env ...)"` or set them the same way.
ENV PATH=/opt/rgpu/venv/bin:$PATH RGPU_LIBDIR=/opt/rgpu/lib
WORKDIR /app
